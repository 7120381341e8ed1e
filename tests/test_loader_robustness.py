"""Every loader at the edge answers any bytes, however broken, with a located error and never a traceback."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vitou_ref import InputError, VitouError
from vitou_ref.audit.record import read_record
from vitou_ref.kit.fixtures import load_cases_file
from vitou_ref.rules.registry import load_rules_text

ROOT = Path(__file__).resolve().parent.parent
SEEDS = {
    "fixture": (ROOT / "conformance" / "cases" / "section05.yaml").read_bytes(),
    "profile": (ROOT / "spec" / "profiles" / "vitou-2p-1.0.0.yaml").read_bytes(),
    "rules": (ROOT / "spec" / "vitou-1.0.0.yaml").read_bytes(),
    "record": (ROOT / "conformance" / "disputes" / "01-section-05-refusal.yaml").read_bytes(),
}
# Fragments that YAML reads in surprising ways, spliced into otherwise good files.
SURPRISES = [
    b"2026-11-29", b"no", b"on", b"~", b"&a ", b"*a", b"<<: ", b"? [x]\n: y", b"!!python/object:os.system x",
    b"\t", b"\x00", b"\xff\xfe", b"[[[[[[[[[[", b"{", b"}", b"- ", b": ", b"\n  ", b"1.5", b"0x1F", b"'", b'"',
    b"---\n", b"%YAML 1.1\n", b"\xef\xbb\xbf", b"!custom ", b"9" * 40,
]  # fmt: skip


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as d:
        yield Path(d)


def _loaders(scratch: Path) -> dict[str, Callable[[bytes], object]]:
    def fixture(data: bytes) -> object:
        path = scratch / "cases.yaml"
        path.write_bytes(data)
        return load_cases_file(path, display="cases.yaml")

    return {
        "fixture": fixture,
        "profile": lambda data: load_rules_text(data, "profile.yaml"),
        "rules": lambda data: load_rules_text(data, "rules.yaml"),
        "record": lambda data: read_record(data, "record.yaml"),
    }


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["flip", "delete", "insert", "truncate", "duplicate"]))
        if kind == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 200))]
        elif kind == "insert":
            data[at:at] = draw(st.sampled_from(SURPRISES) | st.binary(max_size=12))
        elif kind == "truncate":
            del data[at:]
        elif kind == "duplicate":
            data[at:at] = data[max(0, at - 300) : at]
    return bytes(data)


def _clean(load: Callable[[bytes], object], data: bytes) -> None:
    try:
        load(data)
    except InputError as exc:
        assert exc.problems, "an InputError without problems"
        for p in exc.problems:
            assert p.code and p.code.isupper(), p
            assert p.message, p
            assert p.source, p  # every problem says where
    except VitouError as exc:  # an unknown ruleset named in the header, say
        assert str(exc)


@pytest.mark.parametrize("kind", sorted(SEEDS))
@settings(max_examples=60)
@given(data=st.data())
def test_mutated_files_get_a_clean_error_or_load(scratch: Path, kind: str, data: st.DataObject) -> None:
    _clean(_loaders(scratch)[kind], data.draw(mutated(SEEDS[kind]), label="bytes"))


@pytest.mark.parametrize("kind", sorted(SEEDS))
@settings(max_examples=60)
@given(raw=st.binary(max_size=400) | st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_random_bytes_get_a_clean_error(scratch: Path, kind: str, raw: bytes) -> None:
    _clean(_loaders(scratch)[kind], raw)


@pytest.mark.parametrize("kind", sorted(SEEDS))
def test_deep_nesting_and_bombs_are_refused_with_a_code(scratch: Path, kind: str) -> None:
    load = _loaders(scratch)[kind]
    bomb = b"a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + b"".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n".encode() for i in range(1, 9)
    )
    for data, code in [(b"[" * 500 + b"]" * 500, "YAML_TOO_DEEP"), (bomb, "YAML_TOO_LARGE")]:
        with pytest.raises(InputError) as info:
            load(data)
        assert info.value.problems[0].code == code


@pytest.mark.parametrize("kind", sorted(SEEDS))
def test_files_over_the_size_limit_are_refused_before_parsing(scratch: Path, kind: str) -> None:
    with pytest.raises(InputError) as info:
        _loaders(scratch)[kind](b"# " + b"x" * (5 * 1024 * 1024) + b"\n")
    assert info.value.problems[0].code == "YAML_TOO_LARGE"
