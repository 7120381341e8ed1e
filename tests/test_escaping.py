"""Every text from outside, through every renderer: random text, controls, bidi overrides and markup stay text."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import shlex
import sys
import tempfile
import xml.dom.minidom
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from vitou_ref.cli import main
from vitou_ref.present import escape

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SMALL = HERE / "data" / "small_suite.yaml"
HOSTILE = HERE / "fakes" / "hostile_impl.py"
DISPUTE = ROOT / "conformance" / "disputes" / "03-raise-from-last.yaml"
RULESET = "vitou/1.0.0"

SETTINGS = settings(deadline=None, max_examples=50, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(deadline=None, max_examples=15, suppress_health_check=[HealthCheck.too_slow])

# Pieces an attacker would try, mixed with random text: markup of every format, controls, bidi, non-characters.
PIECES = [
    *("<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<a href='#x'>", "<!--", "-->", "<![CDATA["),
    *("&amp;", "&lt;", "&#x41;", "&", "`", "``", "]]>", "|", "||", "*", "**", "_", "~~", "$x$", "[a](b)", "![i](x)"),
    *("<http://x>", "\\", "\\|", "# ", "- ", "+ ", "= ", "1. ", "2) ", "    ", "  ", '"', "'", ">", "---", "==="),
    *("\n", "\r", "\t", "\x00", "\x07", "\x1b[2J", "\x1b]0;t\x07", "\x7f", "\x85", "\x9b2J", "\x9d0;t"),
    *("\u2028", "\u2029", "\u202a", "\u202e", "\u2066", "\u2069", "\u200f", "\u061c", "\ufeff", "\ufffe", "\uffff"),
]
SURROGATES = ["\ud800", "\udfff", "\udc80"]
texts = st.lists(st.one_of(st.sampled_from(PIECES + SURROGATES), st.text(max_size=6)), max_size=8).map("".join)
# What a file holds: no lone surrogate, which UTF-8 cannot encode.
file_texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=8).map(
    lambda parts: "".join(parts).encode("utf-8", "ignore").decode("utf-8")
)

# What no output may hold raw (newline aside, which formats lay out): every character escape.text() escapes.
RAW = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff\ud800-\udfff]"
)


def raw_in(out: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in RAW.findall(out)})


# ------------------------------------------------------------------ (a) each function


@SETTINGS
@given(texts, st.integers(min_value=3, max_value=40))
def test_text_leaves_nothing_a_terminal_obeys(s: str, limit: int) -> None:
    out = escape.text(s)
    assert raw_in(out.replace("\n", "\x00")) == [] and "\n" not in out
    assert escape.text(out) == out  # shown once, shown for good
    assert len(escape.text(s, limit)) <= limit
    if not RAW.search(s) and "\n" not in s:
        assert out == s  # nothing else changes
    kept = escape.text(s, lines=True)
    assert raw_in(kept) == [] and kept.count("\n") == s.count("\n")


MD = MarkdownIt("commonmark").enable("table")
UNWANTED_MD = {"html_inline", "html_block", "link_open", "image", "em_open", "strong_open", "s_open", "code_inline"}


def md_inline(src: str) -> list[Any]:
    return [c for t in MD.parse(src) for c in (t.children or [])]


def shown_text(children: list[Any]) -> str:
    assert not [c.type for c in children if c.type in UNWANTED_MD], [c.type for c in children]
    return "".join(c.content for c in children if c.type in ("text", "text_special"))


@SETTINGS
@given(texts)
def test_markdown_renders_as_the_text_itself(s: str) -> None:
    md, want = escape.markdown(s), escape.text(s)
    # mid-line, at the start of a line (after a paragraph's line: a setext heading's place), and in a table cell
    assert shown_text(md_inline(f"a {md} b")) == f"a {want} b"
    if want.strip():
        tokens = MD.parse(f"para\n{md}\n")
        assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"], md
        assert "".join(c.content for c in tokens[1].children if c.type != "softbreak") == f"para{want}"
    table = MD.parse(f"| x | y |\n|---|---|\n| {md} | z |\n")
    cells = [t for t in table if t.type == "inline"][2:]
    assert len(cells) == 2 and shown_text(cells[1].children) == "z"
    assert shown_text(cells[0].children) == want


@SETTINGS
@given(texts)
def test_markdown_code_is_one_code_span_of_the_text(s: str) -> None:
    want = escape.text(s)
    table = MD.parse(f"| x | y |\n|---|---|\n| {escape.markdown_code(s)} | z |\n")
    cells = [t for t in table if t.type == "inline"][2:]
    assert len(cells) == 2 and cells[1].content == "z"
    spans = [c for c in cells[0].children if c.type == "code_inline"]
    if want.strip(" "):
        assert [c.content for c in spans] == [want]
        assert not [c for c in cells[0].children if c.type != "code_inline" and (c.type != "text" or c.content.strip())]


class Parsed(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.data: list[str] = []
        self.other: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.data.append(data)

    def handle_comment(self, data: str) -> None:
        self.other.append(data)

    handle_decl = handle_pi = unknown_decl = handle_comment


def parsed_html(page: str) -> Parsed:
    p = Parsed()
    p.feed(page)
    p.close()
    return p


@SETTINGS
@given(texts, st.booleans())
def test_html_makes_no_element_attribute_or_entity(s: str, lines: bool) -> None:
    h, want = escape.html(s, lines=lines), escape.text(s, lines=lines)
    p = parsed_html(f"<p title=\"{h}\" class='{h}'>{h}</p>")
    assert p.tags == [("p", [("title", want), ("class", want)])] and not p.other
    assert "".join(p.data) == want


@SETTINGS
@given(texts)
def test_xml_is_always_well_formed_and_holds_the_text(s: str) -> None:
    x, want = escape.xml(s), escape.text(s)
    doc = f'<?xml version="1.0" encoding="utf-8"?><r a="{x}">{x}</r>'.encode()
    root = ET.fromstring(doc)
    assert root.tag == "r" and len(root) == 0 and (root.text or "") == want and root.get("a") == want
    xml.dom.minidom.parseString(doc)


@SETTINGS
@given(
    st.recursive(st.none() | st.booleans() | st.integers() | texts, lambda c: st.lists(c) | st.dictionaries(texts, c))
)
def test_json_parses_back_and_holds_no_raw_control(value: Any) -> None:
    # As JSON reads it: two lone surrogates in a row, as two escapes, are one pair.
    same = json.loads(json.dumps(value))
    for out in (escape.json_dumps(value), escape.json_dumps(value, indent=2, sort_keys=True)):
        assert json.loads(out) == same
        assert raw_in(out) == []
    assert escape.json_dumps(value, ascii=True).isascii()


# ------------------------------------------------------------------ (b) through each real renderer


OWN_MD = re.compile(r'<a id="[A-Za-z0-9_-]+">|</a>|<br>')  # what the rulebook writes itself: anchors, breaks


def check_markdown(md: str, rulebook: bool = False) -> list[Any]:
    """The Markdown's inline tokens, once it is known to make no HTML, link, image or strikethrough of its text."""
    tokens = MD.parse(md)
    inline = [c for t in tokens for c in (t.children or [])]
    everything = [*tokens, *inline]
    bad = [t.type for t in everything if t.type in ("html_inline", "html_block", "link_open", "image", "s_open")]
    if rulebook:  # its own anchors, line breaks and links to them
        bad = [
            t.type
            for t in everything
            if t.type in ("html_inline", "html_block", "link_open", "image", "s_open")
            and not (t.type.startswith("html") and OWN_MD.fullmatch(t.content))
            and not (t.type == "link_open" and str(t.attrs.get("href", "")).startswith("#"))
        ]
    assert not bad, md
    assert not [t for t in inline if t.type == "em_open"] or rulebook, md  # the rulebook's *meta* lines are em
    assert raw_in(md) == []
    return inline


# The tags and attributes the pages write themselves.
PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "main", "footer", "section", "article", "nav"}
PAGE_TAGS |= {"h1", "h2", "h3", "h4", "p", "a", "span", "div", "table", "thead", "tbody", "tr", "th", "td", "ul", "ol"}
PAGE_TAGS |= {"li", "dl", "dt", "dd", "details", "summary", "strong", "em", "pre", "code", "blockquote", "i", "br"}
PAGE_TAGS |= {"mark"}  # the part of an expected or actual value that differs from the other
PAGE_ATTRS = {"lang", "charset", "name", "content", "class", "id", "href", "title", "scope", "colspan", "value"}
PAGE_ATTRS |= {"style", "role", "aria-label"}


def check_page(page: str) -> Parsed:
    p = parsed_html(page)
    assert {t for t, _ in p.tags} <= PAGE_TAGS, {t for t, _ in p.tags} - PAGE_TAGS
    assert {a for _, attrs in p.tags for a, _ in attrs} <= PAGE_ATTRS
    assert not [v for _, attrs in p.tags for a, v in attrs if a == "href" and not (v or "").startswith(("#", "rule"))]
    assert p.other == ["DOCTYPE html"] or p.other == ["doctype html"]
    assert raw_in(page.replace("\n", "")) == []
    return p


def check_json(out: str) -> Any:
    assert raw_in(out) == []
    return json.loads(out)


def captured(f: Any, *args: Any) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        f(*args)
    return buf.getvalue()


# -------------------------------------------------- certify


@pytest.fixture(scope="module")
def certify_parts() -> Any:
    from vitou_ref.kit.suite import load_suite
    from vitou_ref.rules.registry import load_ruleset

    return load_suite(str(SMALL)), {RULESET: load_ruleset(RULESET)}


def certify_run(parts: Any, s: str) -> Any:
    from vitou_ref.kit.caseresult import ERRORED, FAILED, SKIPPED, CaseResult
    from vitou_ref.kit.certify import Options, Run
    from vitou_ref.kit.judge import Difference

    suite, _ = parts
    cases = suite.cases
    planned = {"rules": {RULESET: [c.id for c in cases[:3]]}, "envelope": []}  # as certify plans the cases it runs
    implementation = {"name": s, "version": s, "language": s}
    run = Run(Options(["impl"], s, [RULESET]), suite, 0.0, implementation, offered=[s], planned=planned)
    wrong = Difference("legal", "legal", ["AS", "7H"], ["AS", s], {"seat": s, "act": "play", "card": s})
    run.results = [
        CaseResult(cases[0], RULESET, FAILED, reason=wrong.describe(), difference=wrong),
        CaseResult(cases[1], RULESET, ERRORED, reason=s, fault="protocol"),
        CaseResult(cases[2], RULESET, SKIPPED, reason=s),
    ]
    run.fatal = s
    return run


@SETTINGS
@given(texts)
def test_certify_outputs(certify_parts: Any, s: str) -> None:
    from vitou_ref.cli.certify_out import print_verdicts as _print
    from vitou_ref.kit.runfiles import write_junit
    from vitou_ref.kit.verdicts import verdicts

    run = certify_run(certify_parts, s)
    vs = verdicts(run, certify_parts[1])
    assert raw_in(captured(_print, "text", run, vs).replace("\n", "")) == []
    inline = check_markdown(captured(_print, "markdown", run, vs))
    assert all(re.fullmatch(r"[a-z0-9_.]+", t.content) for t in inline if t.type == "code_inline")
    cells = [t for t in MD.parse(captured(_print, "markdown", run, vs)) if t.type == "inline"]
    assert shown_text(cells[-1].children) == escape.text(s, 2000)  # the last row's last cell: the errored case's reason
    doc = check_json(captured(_print, "json", run, vs))
    same = json.loads(json.dumps(s))  # as JSON reads it (see test_json_parses_back_and_holds_no_raw_control)
    assert doc["implementation"]["name"] == same and doc["cases"][1].get("reason", "") == same
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "junit.xml")
        write_junit(path, run, vs)
        raw = Path(path).read_bytes()
    xml.dom.minidom.parseString(raw)
    errors = ET.fromstring(raw).findall(".//error")
    assert [e.text for e in errors] == [escape.text(s, 100_000) or None]


# -------------------------------------------------- report


def saved_report(parts: Any, s: str, directory: str) -> str:
    """A report as certify writes it, then changed as a hand could change it: every text in it is ``s``."""
    from vitou_ref.kit.runfiles import JsonlReport

    run = certify_run(parts, s)
    path = os.path.join(directory, "report.jsonl")
    jsonl = JsonlReport(path, str(SMALL), parts[1])
    jsonl.listen("start", run)
    for r in run.results:
        jsonl.listen("case", r)
    jsonl.listen("end", run)
    lines = [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if line["type"] == "case":
            line["title"], line["reason"] = s, s
            if "difference" in line:
                line["difference"]["what"] = s
    lines[0]["command"] = s
    Path(path).write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


@SLOW
@given(texts)
def test_report_outputs(certify_parts: Any, s: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        report = saved_report(certify_parts, s, d)
        out: dict[str, str] = {}
        for fmt in ("text", "markdown", "html", "json"):
            path = os.path.join(d, f"out.{fmt}")
            assert main(["report", "--format", fmt, "--output", path, "--force", report]) == 0, fmt
            out[fmt] = Path(path).read_text(encoding="utf-8")
        again = os.path.join(d, "again.jsonl")
        Path(again).write_bytes(Path(report).read_bytes())
        assert (
            main(["report", "--diff", "--format", "markdown", "--output", os.path.join(d, "d.md"), report, again]) == 0
        )
        diff = Path(d, "d.md").read_text(encoding="utf-8")
        assert main(["report", "--badge", os.path.join(d, "badges"), report]) == 0
        badges = [check_json(p.read_text(encoding="utf-8")) for p in Path(d, "badges").iterdir()]
    assert raw_in(out["text"].replace("\n", "")) == []
    check_markdown(out["markdown"])
    check_markdown(diff)
    check_page(out["html"])
    # The report file is JSON lines: two lone surrogates in a row are written as \uD8xx\uDCxx and read back as
    # the one character they encode (RFC 8259 §7), so the name is what JSON reads.
    same = json.loads(json.dumps(s))
    assert check_json(out["json"])["reports"][0]["implementation"]["name"] == (escape.text(same, 80) or "?")
    assert badges and all(raw_in(b["message"]) == [] for b in badges)


# -------------------------------------------------- audit


def hostile_record(s: str) -> str:
    """Dispute 03 with ``s`` as its event, every player's name, its header note, a note on an action and a claim."""
    doc = {
        "format": 1,
        "header": {"event": s, "players": dict.fromkeys("NESW", s), "ruleset": RULESET, "dealer": "W", "note": s},
        "deals": [
            {"N": ["AS", "7H", "8C"], "E": ["9C", "KD", "JH"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}
        ],
        "actions": "N AS E 9C S 10H W r3",
        "annotations": [{"at": 2, "note": s}, {"at": 4, "note": s}],
        "claims": [{"at": 4, "by": "S", "claim": s, "asserts": "RAISE_FROM_LAST"}, {"at": 1, "claim": s}],
    }
    # JSON is YAML, once every character YAML refuses raw is an escape (\\u of the BMP: YAML reads no surrogate pair).
    return escape.json_dumps(doc)


@SETTINGS
@given(file_texts)
def test_audit_outputs(s: str) -> None:
    from vitou_ref.audit.audit import audit
    from vitou_ref.audit.auditpage import page
    from vitou_ref.audit.record import read_record
    from vitou_ref.audit.report import audit_json, audit_text
    from vitou_ref.cli.output import json_text

    record, rules = read_record(hostile_record(s), "hostile.yaml")
    a = audit(record, rules)
    for lang in ("en", "fr"):
        assert raw_in(audit_text(a, lang).replace("\n", "")) == []
        inline = check_markdown(audit_text(a, lang, markdown=True))
        assert [t for t in inline if t.type == "strong_open"]  # the ruling's own **ILLEGAL**, nothing more
        html = page(a, lang)
        check_page(html)
        assert f"<dd>{escape.html(escape.text(s, 2000))}</dd>" in html  # the event, as the record gives it
        assert check_json(json_text(audit_json(a, lang)))["rulings"][1]["notes"] == [s]


# -------------------------------------------------- rulebook


PROFILE = """format: 1
profile: {id: club-markup, version: 1.0.0, title: TITLE, extends: vitou/1.0.0}
changelog: [{version: 1.0.0, date: "2026-12-01", changes: [TEXT]}]
decisions: [{topic: TEXT, decision: TEXT, reason: TEXT, clauses: [club.not_last]}]
operations:
  - replace: bid.not_last
    with: {id: club.not_last, section: "03", title: TITLE, text: TEXT, rule: last_position, data: {bids: forbidden}}
"""


def hostile_profile(s: str, directory: str) -> str:
    path = os.path.join(directory, "club-markup.yaml")
    quoted = escape.json_dumps(s)  # as in hostile_record
    text = PROFILE.replace("TITLE", escape.json_dumps("T" + s)).replace("TEXT", quoted)
    Path(path).write_text(text, encoding="utf-8")
    return path


@SLOW
@given(file_texts.filter(lambda s: s.strip() != ""))
def test_rulebook_outputs(s: str) -> None:
    from vitou_ref.rulebook.book import build, markdown
    from vitou_ref.rulebook.page import page
    from vitou_ref.rules.errors import InputError
    from vitou_ref.rules.registry import load_ruleset

    with tempfile.TemporaryDirectory() as d:
        try:
            rules = load_ruleset(hostile_profile(s, d))
        except InputError:  # a text a profile may not hold: nothing to render
            rules = None
    assume(rules is not None)
    assert rules is not None
    book = build(rules, "en", str(SMALL))
    inline = check_markdown(markdown(book), rulebook=True)
    assert escape.text(" ".join(s.split())) in shown_text([t for t in inline if t.type in ("text", "text_special")])
    check_page(page(book))


# -------------------------------------------------- simulate


@pytest.fixture(scope="module")
def simulation() -> dict[str, Any]:
    out = captured(
        main, ["simulate", "--format", "json", "--matches", "6", "--ruleset", RULESET, "--ruleset", "vitou/1.1.0"]
    )
    rep: dict[str, Any] = json.loads(out)
    return rep


@SETTINGS
@given(texts, texts)
def test_simulate_outputs(simulation: dict[str, Any], s: str, t: str) -> None:
    from vitou_ref.cli.output import json_text
    from vitou_ref.sim.htmlout import page
    from vitou_ref.sim.textout import render

    rep = copy.deepcopy(simulation)
    for r, name in zip(rep["rulesets"], (s, t)):  # a profile's name, or a saved file's, as merge reads it
        r["ruleset"] = name
    rep["players"]["described"] = s
    rep["merged_from"] = [s, t]
    assert raw_in(render(rep).replace("\n", "")) == []
    check_page(page(rep))
    assert check_json(json_text(rep))["rulesets"][0]["ruleset"] == json.loads(json.dumps(s))


# ------------------------------------------------------------------ (c) the faults of round two, as reported

MARKUP = "<img src=x onerror=alert(1)>"


def hostile(mode: str) -> str:
    return shlex.join([sys.executable, str(HOSTILE), mode])


def test_certify_markdown_keeps_a_markup_name_and_card_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    # Fault 6. Fails before: only | and newlines were escaped, so the name and the card became <img> elements.
    assert main(["certify", "--impl", hostile("markup_card"), "--suite", str(SMALL), "--format", "markdown"]) == 1
    md = capsys.readouterr().out
    html = MD.render(md)
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert md.startswith("# Test of \\<img src=x onerror=alert(1)\\>")  # not conformant: tested, not certified


def test_audit_markdown_keeps_a_note_and_a_claim_as_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Fault 7. Fails before: the record's note and claim were written raw into the Markdown.
    record = DISPUTE.read_text(encoding="utf-8")
    record = record.replace("W r3", "W r3 {<script>alert(1)</script>}").replace(
        "West is last to the trick and may not bid.", MARKUP
    )
    path = tmp_path / "markup.yaml"
    path.write_text(record, encoding="utf-8")
    assert main(["audit", str(path), "--format", "markdown"]) == 1
    html = MD.render(capsys.readouterr().out)
    assert "<script" not in html and "<img" not in html
    assert "{&lt;script&gt;alert(1)&lt;/script&gt;}" in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_certify_json_escapes_c1_controls(capsys: pytest.CaptureFixture[str]) -> None:
    # Fault 8. Fails before: json.dumps leaves C1 controls and U+2028 raw, and certify printed them so.
    assert main(["certify", "--impl", hostile("c1_card"), "--suite", str(SMALL), "--format", "json"]) == 1
    out = capsys.readouterr().out
    assert not re.search("[\x80-\x9f\u2028\u2029]", out)
    assert json.loads(out)["implementation"]["name"] == "\x9b2J\x9d0;owned\x07\u2028\u2029"


def test_junit_is_well_formed_with_noncharacters_in_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Fault 9. Fails before: U+FFFF and U+FFFE, which XML 1.0 forbids, were written into the JUnit file.
    junit = tmp_path / "junit.xml"
    argv = ["certify", "--impl", hostile("nonchar_card"), "--suite", str(SMALL), "--junit", str(junit)]
    assert main(argv) == 1
    capsys.readouterr()
    xml.dom.minidom.parseString(junit.read_bytes())
    failures = ET.parse(junit).findall(".//failure")
    assert failures and all("\\uffff\\ufffe]]>" in (f.text or "") for f in failures)


def test_text_output_shows_a_bidi_override(capsys: pytest.CaptureFixture[str]) -> None:
    # Fails before: U+202E passed raw into certify's text output, reversing what a terminal shows after it.
    assert main(["certify", "--impl", hostile("bidi_name"), "--suite", str(SMALL)]) == 0
    out = capsys.readouterr().out
    assert "\u202e" not in out and "\\u202eevil\\u202c\\u2066x\\u2069" in out


# ------------------------------------------------------------------ (c2) a profile's and a record's text, every command

# What a terminal obeys or reorders: a colour (ESC [), OSC 0 that retitles the window, ended by BEL, the bidi
# override U+202E, the line separator U+2028 and a C1 CSI. Written as YAML escapes, which a profile may hold.
TERMINAL = "\x1b[31mRED\x1b]0;owned\x07\u202eevil\u2028x\x9b2J"
TERMINAL_YAML = escape.json_dumps(TERMINAL, ascii=True)  # a double-quoted YAML scalar of exactly TERMINAL


def terminal_profile(directory: Path) -> Path:
    """vitou-2p as a profile of its own whose title, a clause's title and North's name are TERMINAL."""
    text = (ROOT / "spec" / "profiles" / "vitou-2p-1.0.0.yaml").read_text(encoding="utf-8")
    text = text.replace("  id: vitou-2p\n", "  id: terminal-2p\n", 1)
    text = text.replace("\n  title: ", f"\n  title: {TERMINAL_YAML}  # ", 1)
    text = text.replace("      title: Two players, two sides of one\n", f"      title: {TERMINAL_YAML}\n", 1)
    text = text.replace("          - {id: N, name: North}\n", f"          - {{id: N, name: {TERMINAL_YAML}}}\n", 1)
    assert text.count(TERMINAL_YAML) == 3
    path = directory / "terminal-2p.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["profile", "diff", "vitou-2p", "P"], 0),  # printed TERMINAL raw
        (["match", "--ruleset", "P", "--seed", "1"], 0),  # printed North's name raw, hand after hand
        (["profile", "resolve", "P"], 0),  # YAML leaves U+202E raw in a scalar
        (["spec", "diff", "vitou-2p", "P"], 0),
        (["spec", "check", "P"], 0),
        (["rulebook", "--ruleset", "P"], 0),
        (["simulate", "--ruleset", "P", "--matches", "2"], 0),
        (["analyze", "--ruleset", "P", "--max-positions", "100000"], 2),
    ],
    ids=["profile-diff", "match", "profile-resolve", "spec-diff", "spec-check", "rulebook", "simulate", "analyze"],
)
def test_no_command_prints_a_profiles_text_raw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], status: int
) -> None:
    profile = str(terminal_profile(tmp_path))
    got, out, err = _run([profile if a == "P" else a for a in argv], capsys)
    assert got == status, err
    assert raw_in(out.replace("\n", "")) == [] and raw_in(err.replace("\n", "")) == []


def test_profile_diff_and_match_show_the_text_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = str(terminal_profile(tmp_path))
    shown = escape.text(TERMINAL)
    assert shown == "\\x1b[31mRED\\x1b]0;owned\\x07\\u202eevil\\u2028x\\x9b2J"
    _, out, _ = _run(["profile", "diff", "vitou-2p", profile], capsys)
    assert f"title: Two players, two sides of one -> {shown}" in out
    _, out, _ = _run(["match", "--ruleset", profile, "--seed", "1"], capsys)
    assert f"{shown} (N)" in out


def test_yaml_output_escapes_bidi_controls_and_reads_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    _, out, _ = _run(["profile", "resolve", str(terminal_profile(tmp_path))], capsys)
    assert raw_in(out.replace("\n", "")) == []
    assert yaml.safe_load(out)["ruleset"]["title"] == TERMINAL  # the same text, written with escapes
    record = tmp_path / "record.yaml"
    record.write_text(hostile_record(TERMINAL + " \u2066\u061c\u200f"), encoding="utf-8")
    _, out, _ = _run(["record", str(record)], capsys)
    assert raw_in(out.replace("\n", "")) == []
    assert yaml.safe_load(out)["header"]["event"] == TERMINAL + " \u2066\u061c\u200f"


def test_yaml_escapes_what_text_escapes() -> None:
    # The YAML writer tells the emitter which characters to escape; they are exactly escape.text()'s.
    from vitou_ref.rules import yamlout

    every = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF)
    assert {c for c in every if yamlout.UNSHOWN.search(c)} == {c for c in every if escape.text(c) != c} - {"\n"}


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "nope\x1b]0;t\x07\u202e.yaml"],  # a file's name in the error line
        ["spec", "check", "nope\x1b[2J\u2028.yaml"],
        ["simulate", "--matches", "2", "--plot", "x\x1b[2J.gif"],
        ["audit", "--dispute", "\x1b]0;t\x07"],
    ],
)
def test_error_lines_escape_what_they_quote(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status, out, err = _run(argv, capsys)
    assert status == 2 and err
    assert raw_in((out + err).replace("\n", "")) == []


def test_a_path_quoted_in_an_error_line_is_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Each printed the name it was given raw: certify's and fuzz's output checks, and the adapter's rules file.
    taken = tmp_path / "x\x1b[2J\x1b]0;t\x07\u202e.jsonl"
    taken.write_text("", encoding="utf-8")
    for argv in (
        ["certify", "--smoke", "--report", str(taken)],
        ["fuzz", "--examples", "1", "--save", str(taken)],
        ["adapter", "--rules", str(tmp_path / "nope\x1b]0;t\x07.yaml")],
    ):
        status, out, err = _run(argv, capsys)
        assert status == 2 and "\\x1b" in err, argv
        assert raw_in((out + err).replace("\n", "")) == [], argv


# ------------------------------------------------------------------ (d) one mechanism

ESCAPERS = re.compile(
    r"html\.escape|import html\b|from html import|replace\(\"[|<&`]\"|&lt;|&amp;|&#|ensure_ascii=False\)\)"
)
# A page or a Markdown document laid out by hand: a doctype, a stylesheet, a head, or a table's delimiter row.
LAYOUT = re.compile(r"<!doctype|<html\b|<head>|<meta\b|<style\b|<title>|\|---\||\|\s*:?-{3,}:?\s*\|", re.I)


def _hand_made(pattern: re.Pattern[str], package: Path) -> list[str]:
    return [
        f"{p.relative_to(package.parent)}:{n}: {line.strip()}"
        for p in sorted(package.rglob("*.py"))
        if p.relative_to(package).parts[0] != "present"
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]


def test_no_renderer_escapes_by_hand() -> None:
    assert _hand_made(ESCAPERS, ROOT / "vitou_ref") == []


def test_no_renderer_lays_out_a_page_or_a_table_by_hand() -> None:
    # Every HTML page is present/page.py's document(), every Markdown table present/markdown.py's table().
    assert _hand_made(LAYOUT, ROOT / "vitou_ref") == []


@pytest.mark.parametrize(
    "line",
    [
        "html = '<!DOCTYPE html>'",
        'head = \'<html lang="en"><head><meta charset="utf-8">\'',
        "css = f'<style>{CSS}</style>'",
        "out.append('|---|---|')",
        "out.append('| --- | :---: |')",
        "s = text.replace('&', '&amp;')",
        "s = f'&#{ord(c)};'",
    ],
)
def test_the_grep_catches_hand_made_layout_and_escaping(tmp_path: Path, line: str) -> None:
    package = tmp_path / "vitou_ref"
    for room in ("kit", "present"):
        (package / room).mkdir(parents=True)
        (package / room / "page.py").write_text(f"{line}\n", encoding="utf-8")
    found = _hand_made(ESCAPERS, package) + _hand_made(LAYOUT, package)
    assert found == [f"vitou_ref/kit/page.py:1: {line}"]  # and present, where they belong, may
