"""The release artifacts: the sdist holds what a wheel is built from, and that wheel certifies in a fresh venv."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from helpers import ROOT

# What the sdist must hold at its top (besides PKG-INFO): the package, the data
# the wheel moves into it, what to read and what to test it with.
SDIST_TOP = {
    "vitou_ref",
    "spec",
    "schema",
    "conformance",
    "docs",
    "tools",
    "tests",
    "README.md",
    "ARCHITECTURE.md",
    "CHANGELOG.md",
    "LICENSE",
    "pyproject.toml",
    "hatch_build.py",
}

UNTRACKED = "(the artifacts are built from the files git tracks: a new file counts once it is added)"


def _run(argv: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    # Nothing of this checkout or of this interpreter's environment may reach the
    # builds and the venv: no PYTHONPATH, no active virtualenv.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert proc.returncode == 0, f"{argv} exited {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


def _tracked_copy(dest: Path) -> None:
    """The tracked files as they are in the work tree, nothing else: what a fresh clone would build."""
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False, timeout=60)
    if listing.returncode != 0:
        pytest.skip("not a git checkout: the sdist is built from the tracked files")
    for name in listing.stdout.decode().split("\0"):
        src = ROOT / name
        if name and src.is_file():  # a tracked file deleted in the work tree is not copied
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def _wheel_files(wheel: Path) -> dict[str, str]:
    with zipfile.ZipFile(wheel) as zf:
        return {name: hashlib.sha256(zf.read(name)).hexdigest() for name in zf.namelist()}


def _one(directory: Path, pattern: str) -> Path:
    found = sorted(directory.glob(pattern))
    assert len(found) == 1, f"{pattern} in {directory}: {[p.name for p in found]}"
    return found[0]


def test_sdist_wheel_and_a_fresh_venv(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _tracked_copy(src)
    build = [sys.executable, "-m", "build"]
    # Without --sdist or --wheel, build makes the sdist, then the wheel from the
    # unpacked sdist: what an installer does with the sdist.
    _run([*build, "--outdir", str(tmp_path / "via-sdist"), str(src)], tmp_path)
    _run([*build, "--wheel", "--outdir", str(tmp_path / "direct"), str(src)], tmp_path)
    sdist = _one(tmp_path / "via-sdist", "vitou-*.tar.gz")
    wheel = _one(tmp_path / "via-sdist", "vitou-*.whl")

    with tarfile.open(sdist) as tf:
        names = [m.name.split("/", 1)[1] for m in tf.getmembers() if "/" in m.name]
    top = {n.split("/", 1)[0] for n in names}
    assert not SDIST_TOP - top, f"missing from the sdist: {sorted(SDIST_TOP - top)} {UNTRACKED}"
    assert not [n for n in names if n.startswith("vitou_ref/_data")], "the sdist keeps the data at the top"

    files = _wheel_files(wheel)
    assert files == _wheel_files(_one(tmp_path / "direct", "vitou-*.whl")), "the wheels from sdist and checkout differ"
    for name in (
        "vitou_ref/py.typed",
        "vitou_ref/_data/spec/vitou-1.0.0.yaml",
        "vitou_ref/_data/schema/rules.schema.json",
    ):
        assert name in files, f"{name} missing from the wheel {UNTRACKED}"
    assert not [n for n in files if n.split("/")[0] in ("spec", "schema", "conformance", "tests", "tools", "docs")]
    with zipfile.ZipFile(wheel) as zf:
        entry_points = zf.read(next(n for n in files if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "[pytest11]\nvitou = vitou_ref.pytest_plugin" in entry_points

    # A fresh venv: the wheel and its dependencies from the index, nothing of this checkout.
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    python = str(venv / "bin" / "python")
    _run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", str(wheel)], tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    certify = _run([str(venv / "bin" / "vitou"), "certify"], empty)
    assert "CONFORMANT" in certify.stdout and "NOT CONFORMANT" not in certify.stdout, certify.stdout

    # The plugin from the installed wheel: pytest (the release a user would get
    # today) loads it by its entry point, in a directory with no test, no conftest
    # and no -p.
    _run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "pytest"], tmp_path)
    impl = f"{python} -m vitou_ref.adapter"
    plugin = _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--vitou-impl", impl], empty)
    last = plugin.stdout.strip().splitlines()[-1]
    assert " passed" in last and "failed" not in last and "error" not in last, plugin.stdout[-2000:]
