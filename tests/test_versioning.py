"""The versioning policy: `vitou spec diff` classifies a change, `vitou spec check` refuses a version that understates it."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from vitou_ref.cli import main
from vitou_ref.rules.conditions import CONDITIONS, default_acts
from vitou_ref.rules.errors import REQUIRED_ORDER
from vitou_ref.rules.model import Ruleset
from vitou_ref.rules.registry import load_rules_text, load_ruleset, resolve_name, shipped
from vitou_ref.rules.versioning import (
    CLARIFICATION_FIELDS,
    CLAUSE_FIELDS,
    ERROR_FIELDS,
    RULESET_FIELDS,
    Level,
    bump_level,
    classify,
)
from vitou_ref.rules.versions import parse_version
from vitou_ref.rules.yamlout import dump

BASE = load_ruleset("vitou/1.0.0")
Doc = dict[str, Any]


def _doc(rules: Ruleset = BASE) -> Doc:
    return copy.deepcopy(rules.to_json())


def _build(doc: Doc) -> Ruleset:
    return load_rules_text(json.dumps(doc), "crafted.json")


def _clause(doc: Doc, cid: str) -> Doc:
    return next(c for c in doc["clauses"] if c["id"] == cid)


def _clarification(doc: Doc, number: int) -> Doc:
    return next(k for k in doc["clarifications"] if k["number"] == number)


def _error(doc: Doc, code: str) -> Doc:
    return next(e for e in doc["errors"] if e["code"] == code)


def _changed(edit: Callable[[Doc], None]) -> tuple[Level, dict[str, Level]]:
    doc = _doc()
    edit(doc)
    cls = classify(BASE, _build(doc))
    return cls.level, {c.where: c.level for c in cls.changes}


def _new_clarification(doc: Doc, number: int = 99) -> None:
    doc["clarifications"].append(
        {"number": number, "title": "A crafted clarification", "clauses": ["trick.tie"], "ruling": "r.", "reason": "r."}
    )


def test_identical_rulesets_are_none() -> None:
    # A rebuilt copy must not show phantom changes, or every check would demand a bump.
    assert classify(BASE, _build(_doc())).level is Level.NONE
    assert classify(BASE, BASE).changes == ()


def test_a_rank_order_change_is_major() -> None:
    # The data of a clause bound to a rule decides tricks: a match can end differently.
    def edit(doc: Doc) -> None:
        order = _clause(doc, "deck.rank_order")["data"]["highest_first"]
        order[0], order[1] = order[1], order[0]

    level, where = _changed(edit)
    assert level is Level.MAJOR
    assert where == {"clauses[deck.rank_order].data.highest_first": Level.MAJOR}


def test_swapping_two_error_codes_is_major() -> None:
    # The error list is the order of precedence: another code can be the answer to the same action.
    a, b = "CARD_NOT_HELD", "BID_OUT_OF_TURN"
    assert (a, b) not in REQUIRED_ORDER and (b, a) not in REQUIRED_ORDER  # the loader allows both orders

    def edit(doc: Doc) -> None:
        codes = [e["code"] for e in doc["errors"]]
        i, j = codes.index(a), codes.index(b)
        doc["errors"][i], doc["errors"][j] = doc["errors"][j], doc["errors"][i]

    assert _changed(edit) == (Level.MAJOR, {"errors": Level.MAJOR})


def test_a_code_judging_other_acts_is_major_and_stating_the_defaults_is_nothing() -> None:
    # acts decide which actions a code refuses; writing out what a file left implicit changes no answer.
    def explicit(doc: Doc) -> None:
        for e in doc["errors"]:
            e["condition"], e["acts"] = CONDITIONS[e["code"]].name, list(default_acts(e["code"]))

    assert _changed(explicit) == (Level.NONE, {})

    def wider(doc: Doc) -> None:
        explicit(doc)
        _error(doc, "NOT_YOUR_TURN")["acts"] = ["play", "raise", "refuse"]

    assert _changed(wider) == (Level.MAJOR, {"errors[NOT_YOUR_TURN].acts": Level.MAJOR})


def test_a_rule_bound_to_another_clause_is_major() -> None:
    # Which clause a rule is bound to is what referees cite; the policy calls the move MAJOR even with the same data.
    def edit(doc: Doc) -> None:
        _clause(doc, "deck.rank_order")["id"] = "deck.ranking"
        for k in doc["clarifications"]:
            k["clauses"] = ["deck.ranking" if c == "deck.rank_order" else c for c in k["clauses"]]
        for e in doc["errors"]:
            e["clause"] = "deck.ranking" if e["clause"] == "deck.rank_order" else e["clause"]

    level, where = _changed(edit)
    assert level is Level.MAJOR and where["clauses[deck.ranking]"] is Level.MAJOR


def test_reordered_seats_are_major() -> None:
    # Seats are listed clockwise: the same ids in another order is another table, which a keyed diff used to miss.
    def edit(doc: Doc) -> None:
        seats = _clause(doc, "seats.partnerships")["data"]["seats"]
        seats[1], seats[3] = seats[3], seats[1]

    assert _changed(edit) == (Level.MAJOR, {"clauses[seats.partnerships].data.seats": Level.MAJOR})


def test_a_clause_text_change_is_patch() -> None:
    # Rewording the rules text must not force a new minor version.
    def edit(doc: Doc) -> None:
        _clause(doc, "trick.tie")["text"] += " Really."

    assert _changed(edit) == (Level.PATCH, {"clauses[trick.tie].text": Level.PATCH})


def test_a_clarification_reason_change_is_patch() -> None:
    # A reason explains a ruling; rewording it settles nothing new.
    def edit(doc: Doc) -> None:
        _clarification(doc, 1)["reason"] += " Indeed."

    assert _changed(edit) == (Level.PATCH, {"clarifications[1].reason": Level.PATCH})


def test_words_of_the_header_and_of_an_error_are_patch() -> None:
    # Titles, summaries and an error's summary or `when` are words only.
    def edit(doc: Doc) -> None:
        doc["ruleset"]["title"] = "Vitou, reworded"
        _error(doc, "RAISE_JUMP")["summary"] = "Reworded."
        _error(doc, "RAISE_JUMP")["when"] = "Stated."

    level, where = _changed(edit)
    assert level is Level.PATCH
    assert set(where) == {"ruleset.title", "errors[RAISE_JUMP].summary", "errors[RAISE_JUMP].when"}


def test_a_new_clarification_is_minor() -> None:
    # A clarification settles a question: what the rules settle changed, the answers did not.
    level, where = _changed(_new_clarification)
    assert (level, where) == (Level.MINOR, {"clarifications[99]": Level.MINOR})


def test_a_clarification_ruling_change_is_minor() -> None:
    # Another ruling settles the question otherwise: more than words.
    def edit(doc: Doc) -> None:
        _clarification(doc, 1)["ruling"] = "Ruled otherwise."

    assert _changed(edit) == (Level.MINOR, {"clarifications[1].ruling": Level.MINOR})


def test_an_error_citing_another_clause_is_minor() -> None:
    # The code and its precedence stay; only the clause a ruling cites moves.
    def edit(doc: Doc) -> None:
        _error(doc, "RAISE_JUMP")["clause"] = "bid.ladder"

    assert _changed(edit) == (Level.MINOR, {"errors[RAISE_JUMP].clause": Level.MINOR})


def test_a_new_clause_without_a_rule_is_minor() -> None:
    # The interpreter reads no clause without a rule, so no answer can change.
    def edit(doc: Doc) -> None:
        doc["clauses"].append({"id": "etiquette.greet", "section": "06", "title": "Greet", "text": "Say hello."})

    assert _changed(edit) == (Level.MINOR, {"clauses[etiquette.greet]": Level.MINOR})


def test_the_highest_level_wins() -> None:
    # A patch beside a major change is still a major change.
    def edit(doc: Doc) -> None:
        _clause(doc, "trick.tie")["text"] += " Really."
        _new_clarification(doc)
        _clause(doc, "score.target")["data"]["points"] = 25

    level, where = _changed(edit)
    assert level is Level.MAJOR and set(where.values()) == {Level.PATCH, Level.MINOR, Level.MAJOR}


def test_every_field_of_the_schema_is_classified() -> None:
    # A field added to the rules schema without a level would be a change the check cannot see.
    schema = json.loads((ROOT / "schema" / "rules.schema.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]
    identity = {"id", "number", "code", "version", "origin", "data"}  # keys, the version itself, provenance, data
    for name, table in (
        ("ruleset", RULESET_FIELDS),
        ("clause", CLAUSE_FIELDS),
        ("clarification", CLARIFICATION_FIELDS),
        ("error", ERROR_FIELDS),
    ):
        assert set(defs[name]["properties"]) - identity <= set(table), name
    covered = {"format", "ruleset", "clauses", "clarifications", "errors", "versioning", "changelog", "profile"}
    assert set(schema["properties"]) <= covered


def test_levels_are_ordered_and_written_as_their_names() -> None:
    # The JSON report and the bump comparison rely on both.
    assert Level.NONE < Level.PATCH < Level.MINOR < Level.MAJOR
    assert max(Level.PATCH, Level.MAJOR, Level.MINOR) is Level.MAJOR
    assert [lv.value for lv in Level] == ["NONE", "PATCH", "MINOR", "MAJOR"]


@pytest.mark.parametrize(
    ("old", "new", "bump"),
    [
        ("1.0.0", "2.0.0", Level.MAJOR),
        ("1.4.2", "2.0.0", Level.MAJOR),
        ("1.0.0", "1.1.0", Level.MINOR),
        ("1.0.5", "1.1.0", Level.MINOR),
        ("1.9.0", "1.10.0", Level.MINOR),  # numbers, not strings
        ("1.0.0", "1.0.1", Level.PATCH),
        ("1.0.9", "1.0.10", Level.PATCH),
        ("1.0.0", "1.0.0", Level.NONE),
        ("1.1.0", "1.0.5", Level.NONE),
        ("2.0.0", "1.9.9", Level.NONE),
    ],
)
def test_bump_level(old: str, new: str, bump: Level) -> None:
    # The bump is what the version number claims; it is compared with the classification.
    assert bump_level(old, new) is bump


@pytest.mark.parametrize("bad", ["1.0", "1.0.0.0", "1.a.0", "", "1.0.-1", "1.0.٣"])
def test_a_version_is_three_integers(bad: str) -> None:
    # A version that does not parse must not be silently read as some number.
    with pytest.raises(ValueError):
        parse_version(bad)


def test_the_shipped_1_1_0_is_not_a_major_change_from_1_0_0() -> None:
    # 1.1.0 says its answers are 1.0.0's; a MAJOR classification would contradict its own version number.
    assert classify(BASE, load_ruleset("vitou/1.1.0")).level < Level.MAJOR


# -- spec check ---------------------------------------------------------------


def _write(tmp_path: Path, doc: Doc, name: str = "crafted.yaml") -> tuple[Path, int]:
    """The document as a rules file, and the line of its ruleset's version."""
    text = dump(doc, flow=False)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    version_line = text[: text.index(f"\n  version: {doc['ruleset']['version']}\n")].count("\n") + 2
    return path, version_line


def test_spec_check_passes_the_shipped_files(capsys: pytest.CaptureFixture[str]) -> None:
    # Every shipped version must follow the one before it by a bump that says enough.
    files = [str(p) for p in shipped().values()]
    assert main(["spec", "check", *files]) == 0, capsys.readouterr().out


def test_spec_check_refuses_an_understated_version(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A new clarification published as a patch would let users believe nothing was settled anew.
    doc = _doc()
    _new_clarification(doc)
    doc["ruleset"]["version"] = "1.0.1"
    path, line = _write(tmp_path, doc)
    assert main(["spec", "check", str(path)]) == 1
    out = capsys.readouterr().out
    found = [x for x in out.splitlines() if ": VERSION_UNDERSTATED" in x]
    assert len(found) == 1 and found[0].startswith(f"{path}:{line}:"), out
    assert "at /ruleset/version" in found[0]
    assert "vitou/1.0.0" in found[0] and "PATCH bump" in found[0] and "MINOR" in found[0]
    assert "clarifications[99]" in found[0]
    assert f"FAILED: {path}" in out


def test_spec_check_accepts_a_bump_that_says_enough(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The same change with a minor bump over the latest shipped version, or a bigger bump, is fine.
    latest = load_ruleset(resolve_name("vitou"))
    major, minor, _ = parse_version(latest.version)
    for version in (f"{major}.{minor + 1}.0", f"{major + 1}.0.0"):
        doc = _doc(latest)
        _new_clarification(doc, 999)
        doc["ruleset"]["version"] = version
        path, _ = _write(tmp_path, doc)
        assert main(["spec", "check", str(path)]) == 0, capsys.readouterr().out
    doc = _doc(latest)
    _new_clarification(doc, 999)
    doc["ruleset"]["version"] = f"{major}.{minor}.{parse_version(latest.version)[2] + 1}"
    path, _ = _write(tmp_path, doc)
    assert main(["spec", "check", str(path)]) == 1
    assert "VERSION_UNDERSTATED" in capsys.readouterr().out


def test_spec_check_refuses_a_published_version_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A published version's content hash is fixed: two different rulesets must never share a name.
    doc = _doc()
    _clause(doc, "trick.tie")["text"] += " Really."
    path, line = _write(tmp_path, doc)
    assert main(["spec", "check", str(path)]) == 1
    out = capsys.readouterr().out
    found = [x for x in out.splitlines() if ": VERSION_REUSED" in x]
    assert len(found) == 1 and found[0].startswith(f"{path}:{line}:"), out
    assert f"vitou/1.0.0 is already published with hash {BASE.content_hash}" in found[0]
    unchanged, _ = _write(tmp_path, _doc(), "copy.yaml")
    assert main(["spec", "check", str(unchanged)]) == 0  # a faithful copy is the published ruleset


def test_spec_check_judges_a_profile_by_its_own_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A profile is versioned like a ruleset: its changes are judged against the shipped versions of its id.
    text = (ROOT / "spec" / "profiles" / "vitou-anticlockwise-1.0.0.yaml").read_text(encoding="utf-8")
    assert text.count("  version: 1.0.0\n") == 1
    changed = text.replace("next: right", "next: left")
    assert changed != text
    for version, code in (("1.0.0", "VERSION_REUSED"), ("1.0.1", "VERSION_UNDERSTATED"), ("2.0.0", None)):
        path = tmp_path / f"ac-{version}.yaml"
        path.write_text(changed.replace("  version: 1.0.0\n", f"  version: {version}\n"), encoding="utf-8")
        line = changed[: changed.index("  version: 1.0.0\n")].count("\n") + 1
        status = main(["spec", "check", str(path)])
        out = capsys.readouterr().out
        if code is None:
            assert status == 0, out
        else:
            assert status == 1 and f"{path}:{line}:" in out and f"{code} at /profile/version" in out, out


# -- spec diff ------------------------------------------------------------------


def test_spec_diff_reports_the_level_and_the_bump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The command is a report: it says what the change needs and whether the version says it, and exits 0.
    doc = _doc()
    _new_clarification(doc)
    doc["ruleset"]["version"] = "1.0.1"
    path, _ = _write(tmp_path, doc)
    assert main(["spec", "diff", "vitou/1.0.0", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == (
        "vitou/1.0.0 -> vitou/1.0.1: MINOR (the version goes 1.0.0 -> 1.0.1, a PATCH bump understates a MINOR change)"
    )
    assert out[0] == "clarifications[99]" and out[1].split()[0] == "MINOR"
    assert main(["spec", "diff", "vitou/1.0.0", str(path), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["a"] == {"name": "vitou/1.0.0", "hash": BASE.content_hash}
    assert report["b"]["name"] == "vitou/1.0.1" and report["b"]["hash"].startswith("sha256:")
    assert (report["level"], report["bump"], report["understated"]) == ("MINOR", "PATCH", True)
    assert report["changes"] == [
        {"level": "MINOR", "where": "clarifications[99]", "what": "clarification added: 'A crafted clarification'"}
    ]
    assert main(["spec", "diff", "vitou/1.0.0", "vitou/1.0.0"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "vitou/1.0.0 -> vitou/1.0.0: NONE (the version stays 1.0.0: enough)"
    )


def test_spec_diff_of_the_shipped_versions(capsys: pytest.CaptureFixture[str]) -> None:
    # The example of docs/explanation/versions.md: 1.1.0 is a minor edition of 1.0.0, and says so.
    assert main(["spec", "diff", "vitou/1.0.0", "vitou/1.1.0", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["bump"] == "MINOR" and report["understated"] is False


def test_spec_diff_refuses_unusable_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Like `profile diff`: an unknown name or a broken file is unusable input (2), never a crash (3).
    assert main(["spec", "diff", "vitou/9.9.9", "vitou/1.0.0"]) == 2
    assert "unknown ruleset 'vitou/9.9.9'" in capsys.readouterr().err
    broken = tmp_path / "broken.yaml"
    broken.write_text("format: 1\nruleset: [\n", encoding="utf-8")
    assert main(["spec", "diff", "vitou/1.0.0", str(broken)]) == 2
    assert "YAML_SYNTAX" in capsys.readouterr().err
    assert main(["spec", "diff", "vitou/1.0.0"]) == 2
