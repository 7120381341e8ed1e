"""The referee's desk without a browser: a hand entered, ruled by the audit, branched, compared, saved and loaded."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml
from deskserver import SECTION_05, rulings, served
from helpers import ROOT

from vitou_ref.audit.audit import audit
from vitou_ref.audit.auditpage import page as audit_page
from vitou_ref.audit.record import dump_record, load_record
from vitou_ref.cli import main

DISPUTES = ROOT / "conformance" / "disputes"


def _section_05(s: object, actions: str = "N r3 N AS E r6 E 9C S refuse") -> str:
    assert s.post("game", {"ruleset": "vitou/1.0.0", "lang": "en", "dealer": "W", "event": "§05"})[0] == 200  # type: ignore[attr-defined]
    assert s.post("deal", {"deal": "0", "paste": SECTION_05})[0] == 200  # type: ignore[attr-defined]
    status, html = s.post("typed", {"text": actions})  # type: ignore[attr-defined]
    assert status == 200
    return html


def test_the_section_05_example_is_ruled_east_west_3_by_refusal_citing_the_refusal_clause() -> None:
    # §05 and bid.refusal_value: South refuses East's 6, so East-West score the preceding value, 3.
    with served() as s:
        html = _section_05(s)
    assert rulings(html) == [(n, "legal", None) for n in range(1, 6)]
    assert "East-West score 3 by refusal" in html
    assert "final score North-South 0, East-West 3" in html
    five = html[html.index('<li value="5"') : html.index("</ol>", html.index('id="desk-5"'))]
    assert "rule bid.refusal (Only the immediate follower refuses)" in five


def test_an_illegal_action_is_kept_as_entered_and_ruled_with_its_code_and_clause() -> None:
    # bid.refusal: only the immediate follower of East's bid (South) may refuse; West may not.
    with served() as s:
        html = _section_05(s, "N r3 N AS E r6 E 9C W refuse S refuse")
        assert s.desk.branch.data["actions"][4] == {"seat": "W", "act": "refuse"}
    assert rulings(html)[4:] == [(5, "illegal", "REFUSE_NOT_FOLLOWER"), (6, "legal", None)]
    assert "rule bid.refusal" in html
    assert "East-West score 3 by refusal" in html  # South's refusal, after West's was not made


def test_the_legal_actions_now_are_offered_each_with_the_clause_that_allows_it() -> None:
    with served() as s:
        html = _section_05(s, "N r3 N AS E r6 E 9C")
    legal = html[html.index('id="legal"') :]
    legal = legal[: legal.index("</form>")]
    assert "South refuses <small>(bid.refusal)</small>" in legal
    assert 'South plays <span class="card red" title="10H">10♥</span> <small>(bid.answer)</small>' in legal
    assert "West" not in legal


@pytest.mark.parametrize(
    ("op", "fields", "said"),
    [
        ("deal", {"deal": "0", "paste": "N: AS 7H 8C; E: AS KD JH; S: 10H QS 8D; W: 7C AD 9S"}, "AS is dealt twice"),
        ("deal", {"deal": "0", "paste": "N: AS 7H 8C; X: 9C KD JH; S: 10H QS 8D; W: 7C AD 9S"}, "/deals/0"),
        ("deal", {"deal": "0", "paste": "N: [AS, 7H"}, "YAML_SYNTAX"),
        ("typed", {"text": "N A5"}, "the action typed:1:3: NOTATION_ACTION"),
        ("typed", {"text": "Q AS"}, "the action typed:1:1"),
        ("claim", {"at": "9", "claim": "x"}, "RECORD_AT"),
        ("claim", {"at": "1", "claim": "x", "asserts": "REFUSE_NOT_FOLOWER"}, "did you mean REFUSE_NOT_FOLLOWER"),
        ("game", {"ruleset": "vitou/9.9.9", "dealer": "W"}, "unknown ruleset"),
    ],
)
def test_bad_input_gets_the_loaders_located_message_and_the_record_is_kept(
    op: str, fields: dict[str, str], said: str
) -> None:
    with served() as s:
        _section_05(s, "N r3")
        before = s.desk.branch.data
        status, html = s.post(op, fields)
        assert status == 200
        assert s.desk.branch.data == before
        problems = html[html.index('id="problems"') : html.index("</section>", html.index('id="problems"'))]
        assert said in problems.replace("&#39;", "'")
        assert rulings(html) == [(1, "legal", None)]  # the record entered so far, still there
        assert 'id="problems"' not in s.get()[1]  # shown once


def test_a_deal_by_its_card_grid_and_a_claim_with_its_code() -> None:
    grid = {"card-N": ["AS", "7H", "8C"], "card-E": ["9C", "KD", "JH"], "card-S": ["10H", "QS", "8D"]}
    grid["card-W"] = ["7C", "AD", "9S"]
    with served() as s:
        s.post("game", {"ruleset": "vitou/1.0.0", "dealer": "W"})
        s.post("deal", {"deal": "0", **grid})
        s.post("typed", {"text": "N r3 N AS E r6 E 9C S refuse"})
        status, html = s.post("claim", {"at": "5", "by": "E", "claim": "We raised to 6", "asserts": "illegal"})
        assert status == 200
        assert s.desk.branch.data["deals"][0] == {k[5:]: v for k, v in grid.items()}
    # The claim is ruled as the audit rules it: it says the refusal could not be made, so it is rejected with
    # the clause that allows South's refusal (§03: "Only that immediate follower may refuse").
    said = "claim by East: \u201cWe raised to 6\u201d: <strong>ruling: the claim is rejected: South refuses"
    assert said in html and "by rule bid.refusal (Only the immediate follower refuses)</strong>" in html


def test_a_what_if_branches_and_the_same_record_is_compared_under_another_ruleset() -> None:
    with served() as s:
        _section_05(s)
        s.post("branch", {"at": "5"})
        assert [b.name for b in s.desk.branches] == ["main", "main, what if at 5"]
        status, html = s.post("act", {"action": '{"seat": "S", "act": "play", "card": "10H"}'})
        assert status == 200 and len(s.desk.branch.data["actions"]) == 5
        status, html = s.post("compare", {"ruleset": "vitou-partners-tie"})
        assert s.desk.branches[0].data["actions"][-1] == {"seat": "S", "act": "refuse"}  # the main record untouched
    assert status == 200
    assert 'id="side-by-side"' in html and "vitou-partners-tie/1.0.0" in html


def test_save_and_load_give_the_same_record_byte_for_byte_as_vitou_record() -> None:
    path = DISPUTES / "01-section-05-refusal.yaml"
    canonical = dump_record(load_record(str(path))[0].to_json(), "yaml")
    with served() as s:
        s.post("dispute", {"name": path.name})
        saved = s.get("record.yaml")[1]
        assert saved == canonical
        s.post("load", {"text": saved, "filename": "saved.yaml"})
        assert s.get("record.yaml")[1] == saved
        assert [b.name for b in s.desk.branches] == ["main", path.name, "saved.yaml"]


def test_the_export_is_the_audit_page_the_kit_makes() -> None:
    path = DISPUTES / "02-refusal-not-follower.yaml"
    record, rules = load_record(str(path))
    with served() as s:
        s.post("dispute", {"name": path.name})
        status, page = s.get("audit.html")
    assert status == 200
    assert page == audit_page(audit(record, rules, go_on=True), "en")


@pytest.mark.parametrize("name", sorted(p.name for p in DISPUTES.glob("[0-9]*.yaml")))
def test_every_shipped_dispute_loads_and_shows_the_rulings_of_the_audit(name: str) -> None:
    expected = yaml.safe_load((DISPUTES / "expected.yaml").read_text(encoding="utf-8"))["disputes"][name]
    record, rules = load_record(str(DISPUTES / name))
    kit = audit(record, rules, go_on=True)
    with served() as s:
        status, html = s.post("dispute", {"name": name})
    assert status == 200
    assert rulings(html) == [(r.n, "legal" if r.legal else "illegal", r.code) for r in kit.rulings]
    at = expected["ruling"]
    got = rulings(html)[at["at"] - 1]
    assert got[1:] == (("legal", None) if at.get("legal") else ("illegal", at["code"]))
    if "clause" in at:
        assert f"rule {at['clause']} (" in html


def test_saving_into_the_folder_writes_a_new_file_named_by_the_desk(tmp_path: Path) -> None:
    with served(str(tmp_path)) as s:
        _section_05(s)
        assert "saved as record-" in s.post("save")[1]
        s.post("save")
        files = sorted(os.listdir(tmp_path))
        assert len(files) == 2 and all(f.startswith("record-") and f.endswith(".yaml") for f in files)
        assert (tmp_path / files[0]).read_text(encoding="utf-8") == s.get("record.yaml")[1]


def test_without_a_folder_saving_is_by_download_only() -> None:
    with served() as s:
        assert s.post("save")[0] == 403
        assert "Save into the folder" not in s.get()[1]


def test_vitou_desk_refuses_a_save_dir_that_is_not_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["desk", "--no-browser", "--save-dir", str(tmp_path / "none")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_vitou_desk_prints_its_address_serves_it_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    from deskserver import fetch

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "vitou_ref", "desk", "--no-browser", "--save-dir", str(tmp_path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("vitou desk: http://127.0.0.1:")
        url = line.split(": ", 1)[1].strip()
        status, html = fetch(url)
        assert status == 200 and "Save into the folder given at start" in html
        assert fetch(url.rsplit("/", 2)[0] + "/")[0] == 403
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0


def test_a_ruleset_of_ones_own_from_its_file_rules_the_record_and_reloads_with_it() -> None:
    # vitou-partners-tie's text under another name: a club's own file, which no registry knows.
    text = (ROOT / "spec" / "profiles" / "vitou-partners-tie-1.0.0.yaml").read_text(encoding="utf-8")
    text = text.replace("id: vitou-partners-tie", "id: club-nice")
    with served() as s:
        status, html = s.post("rules_file", {"text": text, "filename": "club-nice.yaml"})
        assert status == 200 and 'id="problems"' not in html
        assert "ruleset club-nice/1.0.0" in html
        s.post("deal", {"deal": "0", "paste": SECTION_05})
        s.post("typed", {"text": "N r3 N AS E r6 E 9C S refuse"})
        saved = s.get("record.yaml")[1]
        assert "ruleset: club-nice/1.0.0" in saved
        status, html = s.post("load", {"text": saved, "filename": "club.yaml"})
        assert 'id="problems"' not in html and len(s.desk.branches) == 2
        assert s.get("record.yaml")[1] == saved


def test_an_illegal_rulings_clause_link_leads_to_the_clause_on_the_page() -> None:
    with served() as s:
        html = _section_05(s, "N r3 N AS E r6 E 9C W refuse")
    assert 'href="#cited-bid-refusal"' in html and 'id="cited-bid-refusal"' in html


def _form_of(html: str, op: str, **fields: str) -> dict[str, str]:
    """The hidden fields of the first form on a page that posts ``op`` with ``fields``: a button as a tab holds it."""
    for form in re.findall(r"<form .*?</form>", html, re.S):
        hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form))
        if hidden.get("op") == op and all(hidden.get(k) == v for k, v in fields.items()):
            return {k: v for k, v in hidden.items() if k not in ("token", "op")}
    raise LookupError(f"no form {op} {fields} on the page")


def test_a_form_left_open_in_another_tab_is_not_carried_out_once_the_desk_has_changed() -> None:
    with served() as s:
        _section_05(s, "N r3 N AS E r6")
        for at in ("2", "3"):
            s.post("branch", {"at": at})
            s.post("switch", {"branch": "0"})
        first_tab = s.get()[1]
        drop = _form_of(first_tab, "drop_branch", branch="2")  # "drop" beside "main, what if at 3"
        s.post("drop_branch", {"branch": "1", **_form_of(s.get()[1], "drop_branch", branch="1")})  # the other tab
        names = [b.name for b in s.desk.branches]
        status, html = s.post("drop_branch", drop)
        assert status == 200 and "out of date" in html  # had it been done, it would drop a record no longer 2nd
        assert [b.name for b in s.desk.branches] == names == ["main", "main, what if at 3"]
        before, act = s.desk.branch.data, _form_of(s.get()[1], "act")
        status, html = s.post("act", {**act, "action": '{"seat": "E", "act": "play", "card": "9C"}'})
        assert "out of date" not in html and s.desk.branch.data != before  # the page it came from was current
        status, html = s.post("act", {**act, "action": '{"seat": "S", "act": "refuse"}'})
        assert "out of date" in html and len(s.desk.branch.data["actions"]) == 4  # that page had an action less


def test_a_record_near_the_loaders_bound_loads_through_the_form_whatever_its_encoding_costs() -> None:
    # Each ':' is three bytes in a form (%3A): a record of just under 1 MiB is a request of nearly 3.
    saved = dump_record(load_record(str(DISPUTES / "01-section-05-refusal.yaml"))[0].to_json(), "yaml")
    record = saved + "# " + ":" * (1024 * 1024 - len(saved) - 16) + "\n"
    assert len(record.encode()) < 1024 * 1024
    with served() as s:
        status, html = s.post("load", {"text": record, "filename": "big.yaml"})
        assert status == 200 and 'id="problems"' not in html and len(s.desk.branches) == 2
