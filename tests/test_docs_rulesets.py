"""The ruleset pages: one for every shipped ruleset, its codes in order; and no other game's names on a Le Truc reader's way."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from helpers import ROOT

from vitou_ref.rules import registry
from vitou_ref.rules.model import Ruleset

DOCS = ROOT / "docs"
TARGET = "le-truc"  # the game whose implementer must not be sent to another game's names


def _load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


gen = _load("docs_rulesets")
LOADED: dict[str, Ruleset] = gen.shipped()
PAGES: dict[str, str] = gen.pages()
RULES = [r for r in LOADED.values() if not r.extends]


def _page(rules: Ruleset) -> str:
    return PAGES[f"rulesets/{rules.id}-{rules.version}.md"]


# ---------------------------------------------------------------- (a) a page per ruleset, codes in order


def test_the_generator_writes_a_page_for_every_shipped_ruleset_and_no_other() -> None:
    expected = {f"rulesets/{r.id}-{r.version}.md" for r in RULES} | {"rulesets/index.md"}
    assert set(PAGES) == expected
    assert {"vitou/1.0.0", "vitou/1.1.0", "le-truc/1.0.0", "le-truc/1.1.0"} <= {r.name for r in RULES}


@pytest.mark.parametrize("rules", RULES, ids=[r.name for r in RULES])
def test_a_page_lists_the_error_codes_in_the_specs_order(rules: Ruleset) -> None:
    page = _page(rules)
    listed = re.findall(r"^### (\d+)\. `([A-Z][A-Z0-9_]*)`$", page, re.M)
    spec = yaml.safe_load(registry.shipped()[rules.name].read_text(encoding="utf-8"))
    assert [code for _, code in listed] == [e["code"] for e in spec["errors"]] == [e.code for e in rules.errors]
    assert [int(n) for n, _ in listed] == list(range(1, len(rules.errors) + 1))


@pytest.mark.parametrize("rules", RULES, ids=[r.name for r in RULES])
def test_a_page_says_what_the_ruleset_is(rules: Ruleset) -> None:
    page = _page(rules)
    assert page.startswith(f"# {rules.title} {rules.version}\n")
    assert f"`{rules.content_hash}`" in page.replace("` ", "`").replace(" `", "`")
    assert "](../strictness.md)" in page
    for seat in rules.params.seats:
        assert f"| ` {seat.id} ` |" in page
    for c in rules.clarifications:
        assert f"**Clarification {c.number}: " in page
    for clause in rules.clauses:
        assert f"**`{clause.id}`**" in page
    acts = rules.error("ACTION_MALFORMED").acts  # what the loaded rules know where the YAML is silent (1.0.0)
    # One row per act, and a second play row where a card may be played face down.
    assert list(dict.fromkeys(re.findall(r"^\| ` ([a-z_]+) ` \| ` \{", page, re.M))) == list(acts)


def test_the_index_lists_every_ruleset_and_every_profile_with_its_base() -> None:
    index = PAGES["rulesets/index.md"]
    for rules in RULES:
        assert f"]({rules.id}-{rules.version}.md)" in index
    for profile in (r for r in LOADED.values() if r.extends):
        row = next(line for line in index.splitlines() if line.startswith(f"| ` {profile.name} ` |"))
        assert str(profile.extends) in row


# ---------------------------------------------------------------- (c) a new ruleset needs no hand edit


def test_a_ruleset_added_to_the_registry_gets_its_page(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    text = (ROOT / "spec" / "le-truc-1.1.0.yaml").read_text(encoding="utf-8")
    new = registry.load_rules_text(text.replace("version: 1.1.0", "version: 2.0.0", 1), "le-truc-2.0.0.yaml")
    names, files, load = registry.shipped_names(), registry.shipped(), registry.load_ruleset
    monkeypatch.setattr(registry, "shipped_names", lambda: [*names, new.name])
    monkeypatch.setattr(registry, "shipped", lambda: {**files, new.name: tmp_path / "le-truc-2.0.0.yaml"})
    monkeypatch.setattr(registry, "load_ruleset", lambda name: new if name == new.name else load(name))
    pages = gen.pages()
    assert set(pages) - set(PAGES) == {"rulesets/le-truc-2.0.0.md"}
    assert pages["rulesets/le-truc-2.0.0.md"].startswith("# Le Truc 2.0.0\n")
    assert "](le-truc-2.0.0.md)" in pages["rulesets/index.md"]
    assert "\nle-truc-2.0.0\n" in pages["rulesets/index.md"]  # in the index's toctree


def test_a_page_of_a_ruleset_no_longer_shipped_is_removed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(gen, "REFERENCE", tmp_path)
    (tmp_path / "rulesets").mkdir()
    for name in ("vitou-0.9.0.md", "index.md", "notes.txt"):
        (tmp_path / "rulesets" / name).write_text("x", encoding="utf-8")
    assert gen.stale_pages(PAGES) == [tmp_path / "rulesets" / "vitou-0.9.0.md"]


# ---------------------------------------------------------------- (b) nothing of another game on Le Truc's way


def _families() -> dict[str, list[Ruleset]]:
    out: dict[str, list[Ruleset]] = {}
    for name, rules in LOADED.items():
        out.setdefault(gen.family(name, LOADED), []).append(rules)
    return out


FAMILIES = _families()
TITLES = {family: next(r.title for r in rulesets if not r.extends) for family, rulesets in FAMILIES.items()}


def _vocabulary(rulesets: list[Ruleset]) -> set[str]:
    """Every name a game's data gives: seats, sides, suits, ranks, bids and gestures."""
    words: set[str] = set()
    for r in rulesets:
        p = r.params
        words |= {s.id for s in p.seats} | {s.id for s in p.sides} | {s.suit.value for s in p.suits}
        words |= {str(x.value) for x in p.ranks} | {str(lv.bid) for lv in p.ladder} | {g.id for g in p.gestures}
    return words


def foreign(target: str) -> tuple[set[str], set[str], set[str], set[int]]:
    """Names only other games have, from the data: codes, table names, seat letters, clarification numbers."""
    own, others = FAMILIES[target], [r for f, rs in FAMILIES.items() if f != target for r in rs]
    codes = {e.code for r in others for e in r.errors} - {e.code for r in own for e in r.errors}
    table = {s.id for r in others for s in r.params.seats} | {s.id for r in others for s in r.params.sides}
    words = table - _vocabulary(own)  # names of the other table that mean nothing in this game
    # Letters: judged by their context; a seat this game has too (Truco Paulista's A and B are Le Truc's) is its own.
    seats = {s.id for r in others for s in r.params.seats if len(s.id) == 1} - {
        s.id for r in own for s in r.params.seats
    }
    numbers = {c.number for r in others for c in r.clarifications} - {c.number for r in own for c in r.clarifications}
    return codes, {w for w in words if len(w) > 1}, seats, numbers


_NUMBERS = re.compile(r"\bclarifications?\s+(\d+(?:(?:\s*,\s*|\s+and\s+|\s+or\s+|\s*[-–]\s*|\s+to\s+)\d+)*)", re.I)


def _clarification_numbers(text: str) -> Iterator[tuple[int, str]]:
    for m in _NUMBERS.finditer(text):
        for part in re.split(r"\s*,\s*|\s+and\s+|\s+or\s+", m.group(1)):
            ends = [int(x) for x in re.split(r"\s*[-–]\s*|\s+to\s+", part)]
            for n in range(ends[0], ends[-1] + 1):
                yield n, m.group(0)


def _seat_patterns(seat: str, others: set[str]) -> list[str]:
    x, run = re.escape(seat), "|".join(sorted(others))
    return [
        rf'"(?:seat|side|dealer|winner)"\s*:\s*"{x}"',  # JSON: a seat's value
        rf'"{x}"\s*:\s*[\[{{0-9]',  # JSON: a deal's or a score's key
        rf"\b(?:seat|side|dealer|winner):\s*{x}\b",  # YAML
        rf"[{{,]\s*{x}:\s*\[",  # YAML: a deal's key
        rf"\b(?:seats?|dealer|player|from|to|by|after|before)\s+{x}(?![\w-])",  # prose: a seat named
        rf"(?<![\w-]){x}(?:'s|\s+(?:leads|deals|plays|bids|raises|refuses|passes|is asked))\b",
        rf"(?<![\w-]){x}(?:(?:[ ,]+|\s+(?:and|or|then)\s+)(?:{run}))+(?![\w-])",  # seats in a row: N E S W
    ]


def foreign_names(text: str, target: str = TARGET) -> list[str]:
    """Each mention in ``text`` of a name only games other than ``target`` have."""
    codes, words, seats, numbers = foreign(target)
    found = [m.group(0) for c in sorted(codes) for m in re.finditer(rf"\b{c}\b", text)]
    found += [m.group(0) for w in sorted(words) for m in re.finditer(rf"(?<![\w-]){w}(?![\w-])", text)]
    own = _vocabulary(FAMILIES[target])
    for seat in sorted(seats):
        patterns = _seat_patterns(seat, seats)
        if seat not in own:  # a letter this game does not use (a suit of its pack is one it does): quoted, too
            patterns.append(rf'"{re.escape(seat)}"')
        found += [m.group(0) for p in patterns for m in re.finditer(p, text)]
    found += [said for n, said in _clarification_numbers(text) if n in numbers]
    return found


_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def labelled(heading: str) -> str | None:
    """The game a heading is labelled for, by its title in brackets: ``Worked example (Le Truc, §5)``."""
    for family, title in TITLES.items():
        if re.search(rf"\({re.escape(title)}[,)]", heading):
            return family
    return None


def outside_other_games(text: str, target: str = TARGET) -> str:
    """``text`` without its sections labelled for another game than ``target`` (a section ends at its level)."""
    kept: list[str] = []
    stack: list[tuple[int, str | None]] = []  # the headings above the line: level, the game each is labelled for
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            stack = [(lv, f) for lv, f in stack if lv < level] + [(level, labelled(heading.group(2)))]
        if not any(f not in (None, target) for _, f in stack):
            kept.append(line)
    return "\n".join(kept)


def _le_truc_way(target: str = TARGET) -> Mapping[str, str]:
    """Every text an implementer of ``target`` (Le Truc by default) is sent to, by where it is."""
    texts = {key: page for key, page in PAGES.items() if key.startswith(f"rulesets/{target}-")}
    if target == TARGET:
        texts["rulesets/index.md"] = PAGES["rulesets/index.md"]
    texts["reference/strictness.md"] = (DOCS / "reference" / "strictness.md").read_text(encoding="utf-8")
    for page in ("how-to/implementers.md", "reference/protocol.md"):
        texts[page] = outside_other_games((DOCS / page).read_text(encoding="utf-8"), target)
    return texts


def test_the_names_only_another_game_has_come_from_the_data() -> None:
    codes, words, seats, numbers = foreign(TARGET)
    assert {"WRONG_PHASE", "SIGNAL_UNKNOWN", "UNKNOWN_SIDE", "RAISE_FROM_LAST"} <= codes
    assert not codes & {"ACTION_MALFORMED", "UNKNOWN_SEAT", "NOT_YOUR_TURN", "REFUSE_NO_BID"}  # Le Truc's too
    assert {"NS", "EW"} <= words
    assert {"N", "E", "S", "W"} <= seats
    assert set(range(9, 31)) <= numbers and not numbers & set(range(1, 9))


@pytest.mark.parametrize("where", sorted(_le_truc_way()))
def test_no_page_on_a_le_truc_implementers_way_names_another_games_code_seat_or_clarification(where: str) -> None:
    assert foreign_names(_le_truc_way()[where]) == [], where


PAULISTA = "truco-paulista"


@pytest.mark.parametrize("where", sorted(_le_truc_way(PAULISTA)))
def test_no_page_on_a_truco_paulista_implementers_way_names_another_games_code_or_clarification(where: str) -> None:
    # The same for Truco Paulista: its page, strictness, and the sections of the guide and the protocol not
    # labelled for another game name no code, seat or clarification number only another game has.
    assert foreign_names(_le_truc_way(PAULISTA)[where], PAULISTA) == [], where


@pytest.mark.parametrize(
    "planted",
    [
        "A refusal out of its stage is WRONG_PHASE.",
        '{"seat":"N","act":"play","card":"3S"}',
        "the dealer passes from W to N",
        "seats N E S W",
        "- {seat: E, act: refuse}",
        "the score is NS 20, EW 5",
        "as clarification 27 says",
        "(clarifications 19-30)",
    ],
)
def test_the_check_fails_on_a_planted_name_of_another_game(planted: str) -> None:
    page = PAGES[f"rulesets/{TARGET}-1.1.0.md"]
    assert foreign_names(page) == []
    at = page.index("## Clarifications")
    assert foreign_names(page[:at] + planted + "\n\n" + page[at:]) != [], planted


def test_a_section_labelled_for_another_game_is_not_on_the_way_and_one_for_this_game_is() -> None:
    text = "## Codes\n\nGeneric.\n\n### Examples (Vitou)\n\nWRONG_PHASE\n\n### Examples (Le Truc)\n\nA leads.\n"
    assert foreign_names(outside_other_games(text)) == []
    assert foreign_names(outside_other_games(text.replace("A leads.", "WRONG_PHASE"))) == ["WRONG_PHASE"]
    assert foreign_names(outside_other_games(text.replace("Generic.", "seat N"))) == ["seat N"]
    assert labelled("Worked example (Le Truc, rules text §5)") == TARGET
    assert labelled("Worked examples of each error list") is None
