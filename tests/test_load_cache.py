"""The disk cache of loaded rulesets and cases: same results, rebuilt when damaged, shared safely, never trusted blindly."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vitou_ref.kit import suite as suite_mod
from vitou_ref.kit.suite import default_suite_dir, load_suite
from vitou_ref.rules import cache
from vitou_ref.rules.errors import InputError

SMALL = Path(__file__).parent / "data" / "small_suite.yaml"  # VT-0001..VT-0004


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_DIR, str(d))
    return d


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files whose cases were built (parsed and validated) rather than read from the cache."""
    seen: list[str] = []
    real = suite_mod._file_cases

    def counting(raw: bytes, path: Path, display: str) -> object:
        seen.append(display)
        return real(raw, path, display)

    monkeypatch.setattr(suite_mod, "_file_cases", counting)
    return seen


def _suite_copy(tmp_path: Path) -> Path:
    d = tmp_path / "suite"
    d.mkdir()
    shutil.copy(SMALL, d / "small.yaml")
    return d


def test_a_second_load_reads_the_cache_and_gives_the_same_suite(cache_dir: Path, builds: list[str]) -> None:
    first = load_suite()
    n_files = len(builds)
    assert n_files == len(first.files)  # a cold cache builds every file
    second = load_suite()
    assert len(builds) == n_files  # nothing built again
    assert second.cases == first.cases
    assert second.envelope == first.envelope
    assert [c.line for c in second.cases] == [c.line for c in first.cases]
    assert second.files == first.files


def test_a_damaged_entry_is_rebuilt(cache_dir: Path, builds: list[str], tmp_path: Path) -> None:
    root = _suite_copy(tmp_path)
    good = load_suite(root)
    (entry,) = cache_dir.glob("cases-*.pickle")
    blob = entry.read_bytes()
    for damaged in (b"", blob[:-10], blob[:-1] + bytes([blob[-1] ^ 1]), b"not a pickle at all", cache.MAGIC + blob):
        entry.write_bytes(damaged)
        assert load_suite(root).cases == good.cases
    assert len(builds) == 6  # the first load and each damaged entry


def test_an_entry_of_the_wrong_type_is_rebuilt(cache_dir: Path, builds: list[str], tmp_path: Path) -> None:
    root = _suite_copy(tmp_path)
    good = load_suite(root)
    (entry,) = cache_dir.glob("cases-*.pickle")
    cache._write(cache_dir, entry.name, {"not": "cases"})  # a well-formed entry holding the wrong thing
    assert load_suite(root).cases == good.cases
    assert len(builds) == 2


def test_a_changed_file_is_read_again(cache_dir: Path, tmp_path: Path) -> None:
    root = _suite_copy(tmp_path)
    before = load_suite(root)
    f = root / "small.yaml"
    f.write_text(f.read_text(encoding="utf-8").replace("VT-0001", "VT-9001"), encoding="utf-8")
    after = load_suite(root)
    assert "VT-9001" in {c.id for c in after.cases} and "VT-9001" not in {c.id for c in before.cases}


def test_a_broken_file_is_reported_every_time(cache_dir: Path, tmp_path: Path) -> None:
    root = _suite_copy(tmp_path)
    f = root / "small.yaml"
    f.write_text(f.read_text(encoding="utf-8").replace("title:", "titel:", 1), encoding="utf-8")
    for _ in range(2):
        with pytest.raises(InputError):
            load_suite(root)
    assert not list(cache_dir.glob("cases-*"))  # an error is never kept


def test_other_code_does_not_read_this_code_s_entries(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = cache.key_of("cases", [b"x"])
    monkeypatch.setattr(cache, "_FINGERPRINT", [b"another build of the package"])
    assert cache.key_of("cases", [b"x"]) != name


def test_parts_cannot_run_into_each_other() -> None:
    assert cache.key_of("k", ["ab", "c"]) != cache.key_of("k", ["a", "bc"])


@pytest.mark.parametrize("mode", [0o770, 0o707])
def test_a_directory_others_may_write_to_is_not_used(
    cache_dir: Path, builds: list[str], tmp_path: Path, mode: int
) -> None:
    cache_dir.mkdir()
    cache_dir.chmod(mode)  # a pickle in it could be anyone's code
    root = _suite_copy(tmp_path)
    load_suite(root)
    load_suite(root)
    assert len(builds) == 2
    assert not list(cache_dir.iterdir())


def test_an_empty_setting_turns_the_cache_off(
    monkeypatch: pytest.MonkeyPatch, builds: list[str], tmp_path: Path
) -> None:
    monkeypatch.setenv(cache.ENV_DIR, "")
    root = _suite_copy(tmp_path)
    load_suite(root)
    load_suite(root)
    assert len(builds) == 2


def test_the_platform_cache_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(cache.ENV_DIR)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "vitou"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")  # the XDG spec: a relative path is invalid
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "vitou"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert cache.cache_dir() == tmp_path / "home" / "Library" / "Caches" / "vitou"


def test_old_entries_are_pruned(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "MAX_ENTRIES", 3)
    for i in range(6):
        cache.memo("t", [str(i)], lambda i=i: i, int)
    assert len(list(cache_dir.glob("t-*.pickle"))) == 3
    assert cache.memo("t", ["5"], lambda: -1, int) == 5  # the newest survived


RACER = """
import hashlib
from vitou_ref.kit.suite import load_suite
from vitou_ref.rules.registry import load_ruleset, shipped_names
s = load_suite()
rules = [load_ruleset(n).content_hash for n in shipped_names()]
cases = hashlib.sha256(repr([(c.id, c.line, c.raw) for c in [*s.cases, *s.envelope]]).encode()).hexdigest()
print(len(s.cases), len(s.envelope), cases, rules)
"""


def test_processes_that_race_on_a_cold_cache_agree(cache_dir: Path) -> None:
    env = {**os.environ, cache.ENV_DIR: str(cache_dir)}
    procs = [
        subprocess.Popen([sys.executable, "-c", RACER], stdout=subprocess.PIPE, text=True, env=env) for _ in range(4)
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert len(set(outs)) == 1
    warm = subprocess.run([sys.executable, "-c", RACER], stdout=subprocess.PIPE, text=True, env=env, check=True)
    assert warm.stdout == outs[0]
    assert not [p for p in cache_dir.iterdir() if p.name.startswith(".tmp-")]  # no half-written entry is left


def test_an_empty_suite_directory_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError) as exc:
        load_suite(empty)
    assert [p.code for p in exc.value.problems] == ["SUITE_EMPTY"]
    (empty / "notes.txt").write_text("not a case file", encoding="utf-8")
    with pytest.raises(InputError, match="no case file"):
        load_suite(empty)


def test_the_bundled_suite_dir_exists() -> None:
    assert default_suite_dir().is_dir()


# ---- round two: modules that move


def _fingerprint_of(root: Path) -> str:
    code = "from vitou_ref.rules import cache; print(cache.__file__, cache._code_fingerprint().hex())"
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, check=True, capture_output=True, text=True)
    where, fingerprint = done.stdout.split()
    assert Path(where).is_relative_to(root)  # the copy is what runs
    return fingerprint


def test_a_module_that_moves_is_other_code(tmp_path: Path) -> None:
    # Entries are pickles, which name the module of each class they hold: after a module moves, entries
    # written before must be misses, even when no byte and no time of change differs.
    package = Path(cache.__file__).resolve().parent.parent
    shutil.copytree(package, tmp_path / "vitou_ref", ignore=shutil.ignore_patterns("__pycache__", "_data"))
    before = _fingerprint_of(tmp_path)
    assert _fingerprint_of(tmp_path) == before  # nothing else in the fingerprint changes from one run to the next
    kit = tmp_path / "vitou_ref" / "kit"
    st = (kit / "fixtures.py").stat()
    (kit / "fixtures.py").rename(kit / "fixtures_moved.py")  # where it sorts among the others: only its name differs
    os.utime(kit / "fixtures_moved.py", ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _fingerprint_of(tmp_path) != before
