"""The architecture contract: rooms import only downward, and no module imports itself back through others.

Run ``python tools/check_layers.py``; exit 1 names every upward import and
every cycle. Imports inside functions count like the others: a lazy import
is still a dependency. The layers are ARCHITECTURE.md's code map, bottom up.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = "vitou_ref"
# Bottom up. A room may import its own modules and any room of a lower layer;
# rooms of one layer are independent of each other.
LAYERS: list[list[str]] = [
    ["rules", "present"],
    ["engine"],
    ["solve"],  # perfect-information card play, from the tables: the players search with it
    ["protocol", "players"],
    ["kit"],
    ["hunt", "audit", "sim", "results"],
    ["rulebook", "desk"],  # speak in the audit's words: examples and the desk's rulings read as the audit's do
    ["cli"],
]
# Modules at the top of the package and what they are: the version and the
# limit options' table (leaves anyone may import), the public facade and the shims kept for their
# documented names (each may import any room).
LEAVES = {"_version", "_limitoptions"}
FACADES = {"__init__", "__main__", "adapter", "pytest_plugin", "testing"}


def module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1] if len(parts) > 1 else parts
    return ".".join(parts)


def imports_of(path: Path, name: str) -> list[tuple[str, int]]:
    """Every module of the package that ``path`` imports, anywhere in it, with the line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    base = name.split(".")
    here = base if is_pkg else base[:-1]
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                target = ".".join(anchor + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not (target == PACKAGE or target.startswith(PACKAGE + ".")):
                continue
            if node.module is None or target == PACKAGE:
                # `from . import x` names modules (or the facade's attributes)
                out += [(f"{target}.{a.name}", node.lineno) for a in node.names]
            else:
                out.append((target, node.lineno))
        elif isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.startswith(PACKAGE + ".")]
    return out


def layer_of(room: str) -> int | None:
    for i, rooms in enumerate(LAYERS):
        if room in rooms:
            return i
    return None


def check(root: Path) -> list[str]:
    pkg = root / PACKAGE
    modules: dict[str, Path] = {module_name(p, root): p for p in sorted(pkg.rglob("*.py"))}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    problems: list[str] = []
    for mod, path in modules.items():
        for target, line in imports_of(path, mod):
            # `from vitou_ref.rules import model` is an import of the module when it exists.
            resolved = target if target in modules else target.rsplit(".", 1)[0]
            if resolved not in modules:
                continue
            graph[mod].add(resolved)
            problem = _breach(mod, resolved)
            if problem:
                problems.append(f"{path.relative_to(root)}:{line}: {problem}")
    for cycle in _cycles(graph):
        problems.append("cycle: " + " -> ".join([*cycle, cycle[0]]))
    return problems


def _rooms() -> set[str]:
    return {r for layer in LAYERS for r in layer}


def _breach(mod: str, target: str) -> str | None:
    """Why ``mod`` may not import ``target``, or None."""
    m, t = mod.split("."), target.split(".")
    rooms = _rooms()
    if len(m) == 1 or (len(m) == 2 and m[1] in FACADES):
        return None  # the facade and the shims may import any room
    if len(m) == 2 and m[1] in LEAVES:
        return f"{mod} is a leaf, yet imports {target}"
    if len(t) == 1:
        return f"{mod} imports the public facade {PACKAGE}; import the module that defines the name"
    if len(t) == 2 and t[1] not in rooms:
        return None if t[1] in LEAVES else f"{mod} imports the top-level module {target}"
    src, dst = m[1], t[1]
    if src not in rooms:
        return f"{mod} is in no room of the contract"
    if src == dst:
        return None
    src_layer, dst_layer = layer_of(src), layer_of(dst)
    if src_layer is None or dst_layer is None:
        return f"{target} is in no room of the contract"
    if dst_layer > src_layer:
        return f"upward import: {src} (layer {src_layer}) imports {target} (room {dst}, layer {dst_layer})"
    if dst_layer == src_layer:
        return f"sideways import: {src} and {dst} are independent rooms, yet {mod} imports {target}"
    return None


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"architecture contract: {len(problems)} problem(s)")
        return 1
    print("architecture contract: every import points down, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
