"""Every field the protocol's schemas name, and every rule the suite enforces about them, is stated in its pages."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from vitou_ref.rules.schema import is_valid

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schema" / "protocol"
DOC = ROOT / "docs" / "reference" / "protocol.md"
STRICTNESS = ROOT / "docs" / "reference" / "strictness.md"  # how strictly it is read: the protocol's too
SPEC = ROOT / "spec" / "vitou-1.1.0.yaml"
CASES = ROOT / "conformance"


class Rule(NamedTuple):
    """A rule a reader must know to pass the suite: the words that state it, where, and cases that enforce it."""

    what: str
    phrase: str  # found in the text once Markdown emphasis is dropped and whitespace collapsed
    where: str  # "protocol" (docs/reference/protocol.md and strictness.md) or "spec" (the rules of Vitou 1.1.0)
    cases: tuple[str, ...] = ()


# The rules of the protocol an engine written from the documents alone must get right. The cases named were
# found by flipping the reference's behaviour in a scratch copy and running `vitou fixtures check`: each one
# fails under the other reading. A rule with no case is one the harness judges on every answer.
RULES: tuple[Rule, ...] = (
    # final
    Rule("final.dealer mid-hand", "`dealer` the dealer of the current hand", "protocol", ("VT-0002", "VT-0010")),
    Rule("final.dealer, a hand stopped", "when the actions stop in the middle of a hand", "protocol", ("VT-0041",)),
    Rule("final.dealer after a hand", "once a hand is over `dealer` is the dealer of the next hand", "protocol"),
    Rule("final.dealer before any action", "Before any action it is the first dealer", "protocol"),
    Rule("final.winner", "`winner` the side that has won the match or `null`", "protocol"),
    # seq
    Rule("seq echoed for every command", "whatever the command", "protocol", ("VE-0009", "VE-0010")),
    Rule("seq null", "The `seq` is `null` only when there is no integer to echo", "protocol", ("VE-0001", "VE-0011")),
    Rule("seq exact", "The integer is echoed exactly, whatever its size or sign", "protocol", ("VE-0012",)),
    Rule("JSON integers", "`1.0` and `1e0` are not the integer `1`", "protocol", ("VE-0011", "VE-0020")),
    Rule("run checked in order", "A run is checked in the order of the table", "protocol", ("VE-0013",)),
    # events
    Rule("order of a step's events", "always in the order trick, hand, match", "protocol", ("VT-0032", "VT-0108")),
    Rule("a refusal's events", "`[hand, match]` (a refusal that wins the match", "protocol", ("VT-0115",)),
    Rule("no event opens a hand", "The hand that follows begins with no event", "protocol"),
    Rule("a trick left unfinished", "There is then no trick event for the unfinished trick", "protocol"),
    Rule("a hand event's score", "`score` the score once they are added", "protocol"),
    Rule("a declined hand's winner", "the opponents of the side at twenty that declined", "protocol", ("VT-0204",)),
    Rule("a declined hand's points", "A declined hand gives the opponents 1 point", "spec", ("VT-0213", "VT-0214")),
    Rule("a hand nobody wins", 'ends with `"winner":null` and `"points":0`', "protocol"),
    Rule("tied and void", "Protocol 1.0 has no `void` and reports both as `tied`", "protocol"),
    # steps and legal sets
    Rule("a rejected step", "rejected; state unchanged; later actions still applied", "protocol", ("VT-0400",)),
    Rule("a rejected step is not errored", "is a **rejected step** with its own error code", "protocol", ("VE-0019",)),
    Rule("the code of a refusal", "the code reported is the first of the list whose acts include", "protocol"),
    Rule(
        "legal sets without signals",
        "A legal set lists every legal action of the next decision except signals",
        "protocol",
    ),
    Rule("legal sets as sets", "It is compared as a set", "protocol"),
    Rule("deals run out", "when a hand needs a deal and none is left, the case ends", "protocol", ("VT-0408",)),
    # extra fields and null
    Rule("messages are open", "a receiver ignores a field it does not know", "protocol"),
    Rule("actions are closed", "An *action* never gains a field", "protocol", ("VE-0020",)),
    Rule("null is not absent", "`null` is a value of the wrong type, never an absent field", "protocol", ("VE-0013",)),
    Rule("a null action", "a `null` action or a `null` field of an action makes a rejected step", "protocol"),
    # the setup
    Rule(
        "the setup is open",
        "`dealer`, `draw`, `score`, `deals`: any other field is ignored",
        "protocol",
        ("VE-0021",),
    ),
    Rule("a side left out", "A side the score leaves out has 0 points", "protocol", ("VE-0018", "VT-0411")),
    Rule("an empty score", '`"score":{}` is 0–0', "protocol", ("VE-0022", "VT-0410")),
    Rule("a null score", "a score of `null` is not a score and the setup cannot be used", "protocol", ("VE-0023",)),
    Rule("a score at the target", "a side's points at or above the target", "protocol", ("VE-0017",)),
    Rule("one first dealer", "one first dealer, given one way", "protocol", ("VE-0014",)),
    # lines
    Rule(
        "one answer a line",
        "exactly one answer for every line that is neither blank nor `stop`",
        "protocol",
        ("VE-0007",),
    ),
    Rule("a line", "A line is the bytes up to a newline (LF, 0x0A)", "protocol"),
    Rule("a lone CR", "A CR (0x0D) never ends a line", "protocol", ("VE-0024",)),
    Rule("CRLF", "the CR is whitespace: read as usual", "protocol", ("VE-0008",)),
    Rule("a byte-order mark", "the mark is ignored and the rest is read as the line", "protocol", ("VE-0008",)),
    Rule("a key given twice", "the last value counts", "protocol", ("VE-0008",)),
    Rule("not JSON", "errored, `seq` null", "protocol", ("VE-0001", "VE-0002", "VE-0003")),
    # the handshake
    Rule("protocol 1.0", "An answer without it speaks protocol 1.0", "protocol"),
    Rule("the outcome level", '`"error_codes": false`', "protocol"),
    Rule("stop", "none: the process exits with status 0", "protocol", ("VE-0025",)),
    # the envelope under every ruleset, and what an outsider's reading of it had left unsaid
    Rule("every ruleset", "run under every ruleset certified", "protocol", ("VE-0015", "VE-0019")),
    Rule("limits", "Where an implementation's own limits fall is its own", "protocol", ("VE-0028", "VE-0029")),
    Rule("limits, digits", "exactly 4,300 and 4,301 digits", "protocol", ("VE-0030",)),
    Rule("blanks over a limit", "Open, and sent by no case", "protocol"),
    Rule("underflow", "a number too small for a double (`1e-400`) is within the range", "protocol", ("VE-0031",)),
    Rule("a mark elsewhere", "a mark anywhere else, a second one included, is no whitespace", "protocol", ("VE-0032",)),
    Rule("a start with a seq", "a `seq` in it, echoed or not, is not judged", "protocol", ("VE-0033",)),
    Rule("a ruleset's name", "spelled exactly as the answer to `start` lists it", "protocol", ("VE-0034",)),
)


def _plain(text: str) -> str:
    """Text as a phrase is looked for in it: Markdown's bold dropped, runs of whitespace one space."""
    return re.sub(r"\s+", " ", text.replace("**", ""))


def _walk(node: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict):
            for name in props:
                yield name, f"{where}/properties"
        for name in node.get("required", []) if isinstance(node.get("required"), list) else []:
            yield name, f"{where}/required"
        for key, value in node.items():
            yield from _walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{where}/{i}")


def _values(node: Any) -> Iterator[str]:
    """The strings a schema allows by enum or const: commands, acts, event kinds, reasons."""
    if isinstance(node, dict):
        for key in ("enum", "const"):
            allowed = node.get(key)
            for value in allowed if isinstance(allowed, list) else [allowed]:
                if isinstance(value, str):
                    yield value
        for value in node.values():
            yield from _values(value)
    elif isinstance(node, list):
        for value in node:
            yield from _values(value)


def schema_words(schema_dir: Path) -> dict[str, list[str]]:
    """Every property name and every allowed string of the protocol's schemas, with where each is."""
    words: dict[str, list[str]] = {}
    for path in sorted(schema_dir.glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        for name, where in _walk(schema, path.name + "#"):
            words.setdefault(name, []).append(where)
        for value in _values(schema):
            words.setdefault(value, []).append(path.name + " (enum or const)")
    return words


def stated(word: str, text: str) -> bool:
    """Whether protocol.md names ``word`` as the protocol spells it: in code (`word`) or as JSON ("word")."""
    return f"`{word}`" in text or f'"{word}"' in text


# Each object of the table of "the fields it is judged by" (strictness.md), and where the schemas give its fields.
STEP, EVENT = ("types", "$defs", "step"), ("types", "$defs", "event")
OBJECTS: dict[str, tuple[tuple[str | int, ...], ...]] = {
    "the answer to `start`": (("start-response", "properties"),),
    "`implementation`": (("start-response", "properties", "implementation", "properties"),),
    "the answer to `run`": (("run-response", "properties"),),
    "an errored answer": (("errored-response", "properties"),),
    "an accepted step": ((*STEP, "properties"), (*STEP, "allOf", 0, "then", "properties")),
    "a rejected step": ((*STEP, "properties"), (*STEP, "allOf", 0, "else", "properties")),
    "a trick event": ((*EVENT, "properties"), (*EVENT, "allOf", 0, "then", "properties")),
    "a hand event": ((*EVENT, "properties"), (*EVENT, "allOf", 1, "then", "properties")),
    "a match event": ((*EVENT, "properties"), (*EVENT, "allOf", 2, "then", "properties")),
    "`final`": (("types", "$defs", "final", "properties"),),
    "the `setup` of a run": (("types", "$defs", "setup", "properties"),),
}


def _at(schema_dir: Path, pointer: tuple[str | int, ...]) -> Any:
    node: Any = json.loads((schema_dir / f"{pointer[0]}.schema.json").read_text(encoding="utf-8"))
    for key in pointer[1:]:
        node = node[key]
    return node


def unjudged(schema_dir: Path, doc: str) -> list[str]:
    """Each field a schema gives an object that the object's row of the table of objects does not name."""
    problems = []
    for label, pointers in OBJECTS.items():
        row = next((line for line in doc.splitlines() if line.startswith(f"| {label} |")), None)
        if row is None:
            problems.append(f"the table of objects (strictness.md) has no row {label!r}")
            continue
        named = set(re.findall(r"`([^`]+)`", row.split("|")[2]))
        fields = {name for p in pointers for name in _at(schema_dir, p)}
        problems += [f"{label}: its field {name!r} is not in its row of the table" for name in sorted(fields - named)]
    return problems


def unstated(schema_dir: Path, doc: str, spec: str, rules: tuple[Rule, ...] = RULES) -> list[str]:
    """What the documents leave unsaid: each schema word protocol.md does not name, each rule nowhere written."""
    problems = [
        f"field or value {word!r} ({places[0]}) is not named in docs/reference/protocol.md"
        for word, places in sorted(schema_words(schema_dir).items())
        if not stated(word, doc)
    ]
    problems += unjudged(schema_dir, doc)
    texts = {"protocol": _plain(doc), "spec": _plain(spec)}
    problems += [
        f"rule {r.what!r}: {r.phrase!r} is not in the {r.where} text"
        for r in rules
        if _plain(r.phrase) not in texts[r.where]
    ]
    return problems


def _texts() -> tuple[str, str]:
    doc = DOC.read_text(encoding="utf-8") + "\n" + STRICTNESS.read_text(encoding="utf-8")
    return doc, SPEC.read_text(encoding="utf-8")


def test_every_field_and_rule_of_the_protocol_is_stated() -> None:
    doc, spec = _texts()
    assert unstated(SCHEMAS, doc, spec) == []


def test_a_field_added_to_a_schema_without_a_word_in_the_docs_is_caught(tmp_path: Path) -> None:
    copy = tmp_path / "protocol"
    shutil.copytree(SCHEMAS, copy)
    types = copy / "types.schema.json"
    schema = json.loads(types.read_text(encoding="utf-8"))
    schema["$defs"]["setup"]["properties"]["shuffle_seed"] = {"type": "integer"}
    schema["$defs"]["event"]["properties"]["event"]["enum"].append("signal_seen")
    types.write_text(json.dumps(schema), encoding="utf-8")
    doc, spec = _texts()
    assert unstated(copy, doc, spec) == [
        "field or value 'shuffle_seed' (types.schema.json#/$defs/setup/properties) is not named in docs/reference/protocol.md",
        "field or value 'signal_seen' (types.schema.json (enum or const)) is not named in docs/reference/protocol.md",
        "the `setup` of a run: its field 'shuffle_seed' is not in its row of the table",
    ]
    # Named somewhere but not for its object: the table of objects still asks for it.
    worded = doc + "\nA `shuffle_seed` and a `signal_seen` event.\n"
    assert unstated(copy, worded, spec) == [
        "the `setup` of a run: its field 'shuffle_seed' is not in its row of the table"
    ]


def test_a_rule_whose_words_are_gone_is_caught() -> None:
    doc, spec = _texts()
    cut = doc.replace("whatever the command", "for a run")
    problems = unstated(SCHEMAS, cut, spec)
    assert problems == ["rule 'seq echoed for every command': 'whatever the command' is not in the protocol text"]


def _case_ids() -> set[str]:
    ids: set[str] = set()
    for path in CASES.rglob("*.yaml"):
        ids.update(re.findall(r"^\s*- id: ([A-Z]{2,4}-[0-9]{4})\s*$", path.read_text(encoding="utf-8"), re.M))
    return ids


def test_each_rule_names_cases_of_the_suite_and_the_doc_cites_them() -> None:
    # A case cited for a rule in protocol.md must exist, so that the statement and the check stay together.
    ids = _case_ids()
    named = {c for r in RULES for c in r.cases}
    assert named - ids == set()
    doc, _ = _texts()
    cited = set(re.findall(r"\b(?:VT|VE)-[0-9]{4}\b", doc))
    assert cited - ids == set(), "protocol.md or strictness.md cites a case the suite does not have"


SETUP = {"dealer": "W", "deals": []}


@pytest.mark.parametrize(
    ("setup", "valid"),
    [
        ({**SETUP, "score": {}}, True),  # every side left out has 0: 0-0
        ({**SETUP, "score": {"NS": 0}}, True),
        ({**SETUP, "score": None}, False),  # null is not a score
        ({**SETUP, "score": {"NS": -1}}, False),
        ({**SETUP, "first_dealer": "S", "note": [None]}, True),  # the setup is open
    ],
    ids=["empty-score", "one-side", "null-score", "negative", "extra-field"],
)
def test_the_setup_schema_reads_as_protocol_md(setup: Mapping[str, Any], valid: bool) -> None:
    request = {"cmd": "run", "seq": 1, "ruleset": "vitou/1.1.0", "setup": setup, "actions": []}
    assert is_valid(request, "protocol/run-request") is valid


def test_a_score_in_an_answer_still_names_a_side() -> None:
    # An answer's score names every side of the ruleset; the schema, which cannot know them, asks for one.
    final: dict[str, Any] = {"score": {}, "dealer": "N", "winner": None}
    answer = {"seq": 1, "legal": [], "steps": [], "final": final}
    assert not is_valid(answer, "protocol/run-response")
    assert is_valid({**answer, "final": {**final, "score": {"NS": 0, "EW": 0}}}, "protocol/run-response")
