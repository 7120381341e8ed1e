"""The house: layers that only point down, no cycle, modules and functions of a readable size, ARCHITECTURE.md true."""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest
from helpers import ROOT

PACKAGE = ROOT / "vitou_ref"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_layers", ROOT / "tools" / "check_layers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_layers"] = module
    spec.loader.exec_module(module)
    return module


def test_every_import_points_down_and_nothing_cycles() -> None:
    assert _checker().check(ROOT) == []


@pytest.fixture
def copy_of_the_package(tmp_path: Path) -> Path:
    shutil.copytree(PACKAGE, tmp_path / "vitou_ref", ignore=shutil.ignore_patterns("__pycache__", "_data"))
    return tmp_path


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_the_contract_catches_an_upward_import_even_inside_a_function(copy_of_the_package: Path) -> None:
    _append(
        copy_of_the_package / "vitou_ref" / "rules" / "model.py",
        "\n\ndef _late() -> None:\n    from ..kit.suite import load_suite  # noqa\n",
    )
    problems = _checker().check(copy_of_the_package)
    assert problems[0] == (
        "vitou_ref/rules/model.py:"
        f"{len((copy_of_the_package / 'vitou_ref/rules/model.py').read_text().splitlines())}: upward import: "
        "rules (layer 0) imports vitou_ref.kit.suite (room kit, layer 4)"
    )
    # kit imports rules, so the same line also closes a cycle through rules.model, reported on its own.
    (cycle,) = problems[1:]
    chain = cycle.removeprefix("cycle: ").split(" -> ")
    assert cycle.startswith("cycle: ") and chain[0] == chain[-1] and "vitou_ref.kit.suite" in chain
    assert "vitou_ref.rules.model" in cycle


def test_the_contract_catches_a_cycle_inside_a_room(copy_of_the_package: Path) -> None:
    # rules.registry imports rules.model; model importing registry back closes a cycle.
    _append(copy_of_the_package / "vitou_ref" / "rules" / "model.py", "\nfrom . import registry  # noqa\n")
    problems = _checker().check(copy_of_the_package)
    assert any(p.startswith("cycle: ") and "vitou_ref.rules.model" in p for p in problems)


def test_the_contract_catches_a_sideways_import(copy_of_the_package: Path) -> None:
    _append(copy_of_the_package / "vitou_ref" / "audit" / "record.py", "\nfrom ..hunt import bench  # noqa\n")
    problems = _checker().check(copy_of_the_package)
    assert any("sideways import: audit and hunt" in p for p in problems)


# ---- the results room: above kit, beside hunt, audit and sim


def test_the_contract_catches_the_kit_importing_the_results_room(copy_of_the_package: Path) -> None:
    # The kit certifies; reading what runs wrote comes after it, so a kit module may not import results.
    certify = copy_of_the_package / "vitou_ref" / "kit" / "certify.py"
    _append(certify, "\n\ndef _late() -> None:\n    from ..results.read import read_reports  # noqa\n")
    problems = _checker().check(copy_of_the_package)
    line = len(certify.read_text(encoding="utf-8").splitlines())
    assert problems[0] == (
        f"vitou_ref/kit/certify.py:{line}: upward import: "
        "kit (layer 4) imports vitou_ref.results.read (room results, layer 5)"
    )
    # results.read imports kit.certify, so the planted line also closes a cycle, reported on its own.
    (cycle,) = problems[1:]
    chain = cycle.removeprefix("cycle: ").split(" -> ")
    assert chain[0] == chain[-1] and {"vitou_ref.kit.certify", "vitou_ref.results.read"} <= set(chain)


def test_the_contract_catches_a_cycle_inside_the_results_room(copy_of_the_package: Path) -> None:
    # results.page imports results.matrix; matrix importing page back closes a cycle, and nothing else is wrong.
    _append(copy_of_the_package / "vitou_ref" / "results" / "matrix.py", "\nfrom . import page  # noqa\n")
    problems = _checker().check(copy_of_the_package)
    assert problems == ["cycle: vitou_ref.results.matrix -> vitou_ref.results.page -> vitou_ref.results.matrix"]


@pytest.mark.parametrize(("room", "module", "other"), [("results", "diff", "audit"), ("sim", "stats", "results")])
def test_the_results_room_and_its_neighbours_are_independent(
    copy_of_the_package: Path, room: str, module: str, other: str
) -> None:
    _append(copy_of_the_package / "vitou_ref" / room / f"{module}.py", f"\nfrom ..{other} import x  # noqa\n")
    problems = _checker().check(copy_of_the_package)
    assert any(f"sideways import: {room} and {other} are independent rooms" in p for p in problems), problems


def test_results_sit_just_above_the_kit_and_only_the_command_line_reads_them() -> None:
    # What happens after certification is above what certifies (kit never reads reports), and nothing but the
    # command line uses it: the rulebook sits higher for its own reason (it speaks in the audit's words).
    checker = _checker()
    where = {room: i for i, rooms in enumerate(checker.LAYERS) for room in rooms}
    assert where["results"] == where["kit"] + 1
    users = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        name = checker.module_name(path, ROOT)
        room = name.split(".")[1] if "." in name else name
        if room != "results" and any(t.startswith("vitou_ref.results") for t, _ in checker.imports_of(path, name)):
            users.add(room)
    assert users == {"cli"}


def _sizes() -> tuple[list[str], list[str]]:
    long_modules, long_functions = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_data" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT).as_posix()
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES:
            long_modules.append(f"{rel}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long_functions.append(f"{rel}:{node.lineno} {node.name}: {length} lines")
    return long_modules, long_functions


def test_no_module_over_400_lines() -> None:
    long_modules, _ = _sizes()
    assert long_modules == [], "over 400 lines: " + "; ".join(long_modules)


def test_no_function_over_80_lines() -> None:
    _, long_functions = _sizes()
    assert long_functions == [], "over 80 lines: " + "; ".join(long_functions)


def _packages_named_in_the_code_map() -> set[str]:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    code_map = text.split("## Code map", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^### `(vitou_ref(?:/\w+)*)/`", code_map, flags=re.M))


def _packages_that_exist() -> set[str]:
    return {p.parent.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("__init__.py") if "_data" not in p.parts}


def test_architecture_md_names_every_package_and_only_those() -> None:
    named, there = _packages_named_in_the_code_map(), _packages_that_exist()
    assert named - there == set(), f"ARCHITECTURE.md names packages that do not exist: {sorted(named - there)}"
    assert there - named == set(), f"packages missing from ARCHITECTURE.md's code map: {sorted(there - named)}"


def test_architecture_md_names_modules_that_exist() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:vitou_ref|tools)/[\w/]+\.py)`", text))
    missing = sorted(m for m in named if not (ROOT / m).is_file())
    assert missing == [], f"ARCHITECTURE.md names modules that do not exist: {missing}"


def test_the_layers_of_architecture_md_are_the_contract() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if ln.startswith("Layers, bottom up:"))
    written = [[r.strip(" `") for r in part.split("|")] for part in line.split(":", 1)[1].strip(" .").split("<")]
    assert written == _checker().LAYERS
