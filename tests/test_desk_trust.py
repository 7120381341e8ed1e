"""What the desk trusts: shipped rulesets by name only, uploads checked as spec check checks them, the secret kept."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from deskserver import SECTION_05, Served, fetch, rulings, served
from helpers import ROOT

from vitou_ref.audit.audit import audit
from vitou_ref.audit.record import load_record
from vitou_ref.cli import main
from vitou_ref.rules.registry import load_ruleset

MARKER = "marker-7f3c9e1d"  # what no page may ever show: the files below are the referee's, not the desk's
DISPUTES = ROOT / "conformance" / "disputes"
PARTNERS = ROOT / "spec" / "profiles" / "vitou-partners-tie-1.0.0.yaml"


@pytest.fixture
def private(tmp_path: Path) -> dict[str, str]:
    """Files the referee can read that the desk must never open on a request's word."""
    plain = tmp_path / "secret.txt"
    plain.write_text(f"{MARKER}: the first line of a private file\n", encoding="utf-8")
    profile = tmp_path / "club.yaml"
    profile.write_text(PARTNERS.read_text(encoding="utf-8").replace("vitou-partners-tie", MARKER), encoding="utf-8")
    (tmp_path / "club").mkdir()
    (tmp_path / "club" / "1.0.0").write_text(plain.read_text(encoding="utf-8"), encoding="utf-8")
    return {"plain": str(plain), "profile": str(profile), "relative": os.path.relpath(profile)}


@pytest.fixture
def desk() -> Iterator[Served]:
    with served() as s:
        assert s.post("game", {"ruleset": "vitou/1.0.0", "dealer": "W"})[0] == 200
        assert s.post("deal", {"deal": "0", "paste": SECTION_05})[0] == 200
        assert s.post("typed", {"text": "N r3 N AS"})[0] == 200
        yield s


def _pages(s: Served) -> str:
    return "".join(s.get(route)[1] for route in ("", "record.yaml", "audit.html"))


@pytest.mark.parametrize("kind", ["plain", "profile", "relative"])
@pytest.mark.parametrize("op", ["game", "compare"])
def test_a_ruleset_field_naming_a_file_is_refused_and_the_file_never_shows(
    desk: Served, private: dict[str, str], kind: str, op: str
) -> None:
    before = desk.get("record.yaml")[1]
    status, html = desk.post(
        op, {"ruleset": private[kind], "dealer": "W"} if op == "game" else {"ruleset": private[kind]}
    )
    assert status in (200, 400)
    assert MARKER not in html
    assert "unknown ruleset" in html or status == 400
    assert desk.get("record.yaml")[1] == before and desk.desk.compare_with is None
    assert MARKER not in _pages(desk)  # and every later page answers, without the file


@pytest.mark.parametrize("name", ["/etc/passwd", "../../../../../../etc/passwd", "file:///etc/passwd", "club/1.0.0"])
def test_a_ruleset_field_naming_a_system_file_is_refused(
    desk: Served, private: dict[str, str], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(Path(private["plain"]).parent)  # club/1.0.0 is a file here, and a name nowhere
    status, html = desk.post("game", {"ruleset": name, "dealer": "W"})
    assert "root:" not in html and MARKER not in html
    assert status == 400 or "unknown ruleset" in html


def test_comparing_with_a_profile_given_by_path_leaves_every_page_answering(
    desk: Served, private: dict[str, str]
) -> None:
    desk.post("compare", {"ruleset": private["profile"]})
    for route in ("", "record.yaml", "audit.html"):
        status, page = desk.get(route)
        assert status == 200, route
        assert MARKER not in page
    assert desk.post("compare", {"ruleset": "vitou-partners-tie/1.0.0"})[0] == 200
    assert 'id="side-by-side"' in desk.get()[1]


def _reused_vitou() -> str:
    # vitou/1.0.0 as published, with one clause's words changed: the same name, other rules.
    text = (ROOT / "spec" / "vitou-1.0.0.yaml").read_text(encoding="utf-8")
    changed = text.replace("title: ", "title: Not ", 1)
    assert changed != text
    return changed


def test_a_rules_upload_reusing_a_published_name_is_refused_as_spec_check_refuses_it(desk: Served) -> None:
    before = desk.get("record.yaml")[1]
    status, html = desk.post("rules_file", {"text": _reused_vitou(), "filename": "mine.yaml"})
    assert status == 200
    problems = html[html.index('id="problems"') :]
    assert "VERSION_REUSED" in problems and "mine.yaml" in problems
    assert desk.desk.custom == {} and desk.get("record.yaml")[1] == before
    # The shipped disputes are still ruled by the published rules, as vitou audit rules them.
    name = "02-refusal-not-follower.yaml"
    record, rules = load_record(str(DISPUTES / name))
    kit = audit(record, rules, go_on=True)
    html = desk.post("dispute", {"name": name})[1]
    assert rulings(html) == [(r.n, "legal" if r.legal else "illegal", r.code) for r in kit.rulings]
    assert load_ruleset("vitou/1.0.0").content_hash in html


def test_a_profile_upload_that_calls_itself_by_a_published_name_is_refused(desk: Served) -> None:
    text = PARTNERS.read_text(encoding="utf-8").replace("id: vitou-partners-tie", "id: vitou-2p")
    html = desk.post("rules_file", {"text": text, "filename": "two.yaml"})[1]
    assert "VERSION_REUSED" in html and desk.desk.custom == {}


def test_an_upload_identical_to_a_published_ruleset_leaves_the_published_one_ruling(desk: Served) -> None:
    text = (ROOT / "spec" / "vitou-1.1.0.yaml").read_text(encoding="utf-8")
    html = desk.post("rules_file", {"text": text, "filename": "copy.yaml"})[1]
    assert 'id="problems"' not in html and "ruleset vitou/1.1.0" in html
    assert desk.desk.custom == {}  # nothing of the desk's own: the shipped file rules


def test_a_second_upload_of_a_name_with_other_rules_is_refused(desk: Served) -> None:
    text = PARTNERS.read_text(encoding="utf-8").replace("id: vitou-partners-tie", "id: club-nice")
    assert 'id="problems"' not in desk.post("rules_file", {"text": text, "filename": "a.yaml"})[1]
    first = desk.desk.custom["club-nice/1.0.0"].content_hash
    other = text.replace('title: "', 'title: "Other: ', 1)
    html = desk.post("rules_file", {"text": other, "filename": "b.yaml"})[1]
    assert "club-nice/1.0.0" in html[html.index('id="problems"') :]
    assert desk.desk.custom["club-nice/1.0.0"].content_hash == first


def test_an_upload_understating_its_version_is_refused_as_spec_check_refuses_it(desk: Served) -> None:
    # Partners-tie's rule as vitou/1.0.1: a change of how tricks are won is not a patch.
    text = PARTNERS.read_text(encoding="utf-8").replace("id: vitou-partners-tie", "id: vitou")
    text = text.replace("version: 1.0.0", "version: 1.0.1", 1)
    html = desk.post("rules_file", {"text": text, "filename": "patch.yaml"})[1]
    assert "VERSION_UNDERSTATED" in html and desk.desk.custom == {}


@pytest.mark.parametrize("base", ["extends: PATH", "extends: ./club/1.0.0", "extends: file:///etc/passwd"])
def test_a_profile_upload_naming_a_path_as_its_base_is_refused(
    desk: Served, private: dict[str, str], base: str
) -> None:
    text = PARTNERS.read_text(encoding="utf-8").replace("id: vitou-partners-tie", "id: club-base")
    text = text.replace("extends: vitou/1.0.0", base.replace("PATH", private["profile"]))
    html = desk.post("rules_file", {"text": text, "filename": "base.yaml"})[1]
    assert 'id="problems"' in html and MARKER not in html and "root:" not in html
    assert desk.desk.custom == {}


def test_a_refused_game_leaves_the_language_as_it_was(desk: Served) -> None:
    html = desk.post("game", {"ruleset": "vitou/9.9.9", "lang": "fr", "dealer": "W"})[1]
    assert 'id="problems"' in html and desk.desk.lang == "en"


# ------------------------------------------------------------------ the secret on the way to the browser


def test_the_browser_is_opened_on_a_private_file_that_carries_the_secret_and_is_removed_at_exit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import webbrowser

    seen: dict[str, object] = {}

    def fake_open(url: str, *args: object, **kwargs: object) -> bool:
        path = Path(urllib.parse.unquote(urllib.parse.urlsplit(url).path))
        seen.update(url=url, path=path, mode=stat.S_IMODE(path.stat().st_mode))
        seen.update(folder=stat.S_IMODE(path.parent.stat().st_mode), text=path.read_text(encoding="utf-8"))
        raise KeyboardInterrupt  # the referee stops the desk at once

    monkeypatch.setattr(webbrowser, "open", fake_open)
    from vitou_ref.cli.desk import run_desk

    assert run_desk(0, open_browser=True, save_dir=None, lang="en") == 0
    address = capsys.readouterr().out.split("vitou desk: ", 1)[1].split()[0]
    secret = address.rstrip("/").rsplit("/", 1)[1]
    assert str(seen["url"]).startswith("file://") and secret not in str(seen["url"])
    assert seen["mode"] == 0o600 and seen["folder"] == 0o700
    assert address in str(seen["text"])  # the page sends the browser on to the desk
    path = seen["path"]
    assert isinstance(path, Path) and not path.exists() and not path.parent.exists()


def test_no_command_line_of_the_desks_run_holds_the_secret(tmp_path: Path) -> None:
    # A browser that writes down what it was given: its command line is what any local user can read.
    browser = tmp_path / "browser"
    log = tmp_path / "given.json"
    browser.write_text(
        f"#!{sys.executable}\nimport json, os, stat, sys\npath = sys.argv[1].removeprefix('file://')\n"
        "text = open(path, encoding='utf-8').read()\n"
        f"json.dump({{'argv': sys.argv, 'path': path, 'text': text}}, open({str(log)!r}, 'w'))\n",
        encoding="utf-8",
    )
    browser.chmod(0o700)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BROWSER": str(browser)}
    cmd = [sys.executable, "-m", "vitou_ref", "desk"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split(": ", 1)[1].strip()
        secret = url.rstrip("/").rsplit("/", 1)[1]
        deadline = time.monotonic() + 30
        while not log.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        given = json.loads(log.read_text(encoding="utf-8"))
        assert not any(secret in arg for arg in given["argv"])
        assert url in given["text"] and fetch(url)[0] == 200
        assert not any(secret in arg for arg in proc.args)
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
    assert not Path(given["path"]).exists()


@pytest.mark.parametrize(
    "port", ["²", "١٢", "８０８０", "-1", "+80", "65536", "9" * 5000, "", " 80", "80\x00", "0x50", "\u202e08"]
)
def test_vitou_desk_refuses_a_port_that_is_not_one_with_exit_2(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["desk", "--no-browser", "--port", port]) == 2
    err = capsys.readouterr().err
    assert "port" in err and "Traceback" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any folder: the check cannot refuse it")
def test_vitou_desk_refuses_a_save_dir_it_cannot_write_into(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tmp_path.chmod(0o500)
    try:
        assert main(["desk", "--no-browser", "--save-dir", str(tmp_path)]) == 2
    finally:
        tmp_path.chmod(0o700)
    assert "is not a folder this user can write into" in capsys.readouterr().err
