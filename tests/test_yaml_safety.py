"""The YAML edge: JSON-shaped data only, YAML's surprises refused or read as text, every problem located."""

from __future__ import annotations

import pytest

from vitou_ref import InputError
from vitou_ref.rules.yamlsafe import load_text


@pytest.mark.parametrize(
    ("text", "data"),
    [
        ("a: no\nb: yes\nc: on\nd: off", {"a": "no", "b": "yes", "c": "on", "d": "off"}),  # YAML 1.1 booleans
        ("a: true\nb: false", {"a": True, "b": False}),
        ("a: 010\nb: 0x1F", {"a": 10, "b": 31}),  # no octal surprise
        ("a: 1:20\nb: 1_000", {"a": "1:20", "b": "1_000"}),  # no sexagesimal, no underscores
        ("a: ~\nb: null\nc:", {"a": None, "b": None, "c": None}),
        ('a: "2026-11-29"', {"a": "2026-11-29"}),
        ("a: !!str 12", {"a": "12"}),
        ('{"json": [1, "two", null]}', {"json": [1, "two", None]}),
        ("a: &x [1, 2]\nb: *x", {"a": [1, 2], "b": [1, 2]}),
    ],
)
def test_plain_data_is_read_as_json_would_hold_it(text: str, data: object) -> None:
    assert load_text(text).data == data


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [
        ("a: 1\nb: 2026-11-29\n", "YAML_DATE", 2),
        ("a: 1\n3: x\n", "YAML_KEY", 2),
        ("a: 1\n? [x]\n: y\n", "YAML_KEY", 2),
        ("a: 1\na: 2\n", "YAML_DUPLICATE_KEY", 2),
        ("a: !!python/object:os.system x\n", "YAML_TAG", 1),
        ("a: !custom x\n", "YAML_TAG", 1),
        ("a: 1.5\n", "YAML_FLOAT", 1),
        ("base: &b {x: 1}\nc:\n  <<: *b\n", "YAML_MERGE", 3),
        ("a: [1,\n", "YAML_SYNTAX", 2),
        ("a: *nowhere\n", "YAML_SYNTAX", 1),
        ("a: 1\n---\nb: 2\n", "YAML_SYNTAX", 2),
        ("", "YAML_EMPTY", None),
        ("[" * 200 + "]" * 200, "YAML_TOO_DEEP", 1),
    ],
)
def test_what_json_cannot_hold_is_refused_with_its_line(text: str, code: str, line: int | None) -> None:
    with pytest.raises(InputError) as info:
        load_text(text, "doc.yaml")
    (problem,) = info.value.problems
    assert problem.code == code
    assert problem.source == "doc.yaml"
    assert problem.line == line


def test_aliases_that_expand_without_bound_are_refused() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    with pytest.raises(InputError) as info:
        load_text("\n".join(lines))
    assert info.value.problems[0].code == "YAML_TOO_LARGE"


def test_oversized_and_undecodable_input_is_refused() -> None:
    with pytest.raises(InputError) as info:
        load_text("a: " + "x" * 100, max_bytes=50)
    assert info.value.problems[0].code == "YAML_TOO_LARGE"
    with pytest.raises(InputError) as info:
        load_text(b"a: \xff\xfe")
    assert info.value.problems[0].code == "YAML_ENCODING"
    with pytest.raises(InputError) as info:
        load_text("a: b\x00")
    assert info.value.problems[0].code == "YAML_ENCODING"


def test_every_value_knows_its_line() -> None:
    doc = load_text("a:\n  b:\n    - 1\n    - 2\nc: x\n", "f.yaml")
    assert doc.locate(("a", "b", 1)) == (4, 7)
    assert doc.locate(("c",)) == (5, 4)
    assert doc.locate(("a", "missing", 3)) == doc.locate(("a",))
