"""The operators of tools/code_mutants.py: single-point mutants of a module's source, found with ``ast``.

A mutant is a splice: one span of the module's UTF-8 source replaced by a new
text, so the rest of the file stays byte-identical. Its id names the module,
the enclosing function or class, the operator and its rank among that
operator's sites in that body (``engine/trick.py:Tricks._end_trick:cmp:3``), so
it does not change when unrelated lines move.

Operators: ``cmp`` (< <=, > >=, == !=, in / not in, is / is not), ``boolop``
(and / or), ``incr`` and ``decr`` (an integer constant plus or minus one),
``bool`` (True / False), ``negate`` (the test of an if, elif, while,
conditional expression or comprehension filter), ``arith`` (+ / -, += / -=),
``stmt`` (an expression statement, assignment, augmented assignment,
continue, break or raise replaced by ``pass``) and ``entry`` (one element of a
dict, list, tuple or set literal of two or more removed).

Never mutated: docstrings, annotations and type aliases, imports, ``__all__``
and ``__slots__``, the body of ``if TYPE_CHECKING:``, strings and the
expressions that build text (f-strings, concatenations with a string), assert
statements, ``__repr__`` and ``__str__``, and the arguments of a raised
exception.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass

OPERATORS = ("cmp", "boolop", "incr", "decr", "bool", "negate", "arith", "stmt", "entry")

_CMP_FLIP: dict[type[ast.cmpop], tuple[str, str]] = {
    ast.Lt: (r"<", "<="),
    ast.LtE: (r"<=", "<"),
    ast.Gt: (r">", ">="),
    ast.GtE: (r">=", ">"),
    ast.Eq: (r"==", "!="),
    ast.NotEq: (r"!=", "=="),
    ast.In: (r"\bin\b", "not in"),
    ast.NotIn: (r"\bnot\s+in\b", "in"),
    ast.Is: (r"\bis\b", "is not"),
    ast.IsNot: (r"\bis\s+not\b", "is"),
}
# The names a module-level type alias is made of (``Path = tuple[object, ...]``, ``Bid = int | str``).
_TYPE_NAMES = frozenset(
    {"tuple", "list", "dict", "set", "frozenset", "type", "int", "str", "float", "bool", "bytes", "object"}
    | {"Callable", "Mapping", "MutableMapping", "Sequence", "Iterable", "Iterator", "Generator", "Any"}
    | {"Optional", "Union", "Literal", "Annotated"}
)
_NEVER_ASSIGNED = frozenset({"__all__", "__slots__"})
_NEVER_BODIES = frozenset({"__repr__", "__str__"})


@dataclass(frozen=True)
class Mutant:
    """One mutant: ``source[start:end]`` (UTF-8 byte offsets) replaced by ``replacement``."""

    module: str  # the path under vitou_ref/, e.g. engine/trick.py
    qualname: str  # <module> for top-level code
    operator: str
    n: int  # 1-based rank among this operator's sites in this body, in source order
    line: int
    start: int
    end: int
    original: str
    replacement: str
    what: str  # what changes, for people: "'<' -> '<='"

    @property
    def id(self) -> str:
        return f"{self.module}:{self.qualname}:{self.operator}:{self.n}"

    @property
    def description(self) -> str:
        return f"line {self.line}: {self.what}"

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.replacement.encode() + source[self.end :]

    def before_after(self, source: bytes) -> tuple[str, str]:
        """The whole lines the splice touches, before and after it."""
        head = source.rfind(b"\n", 0, self.start) + 1
        if self.end > self.start and source[self.end - 1 : self.end] == b"\n":
            tail = self.end - 1  # whole lines removed
        else:
            tail = source.find(b"\n", self.end)
            tail = len(source) if tail < 0 else tail
        before = source[head:tail].decode()
        after = (source[head : self.start] + self.replacement.encode() + source[self.end : tail]).decode()
        return before, after


@dataclass(frozen=True)
class _Site:
    qualname: str
    operator: str
    start: int
    end: int
    replacement: str
    what: str


def _short(text: str, limit: int = 60) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


def _is_text(node: ast.expr) -> bool:
    """Whether an expression builds text: a string, an f-string, or a sum or %-format with one."""
    if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_text(node.left) or _is_text(node.right)
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_text(node.left)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _is_type(node: ast.expr) -> bool:
    """A type written as a value: ``tuple[int, str]``, ``int | None``, a builtin or typing name."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_type(node.left) and _is_type(node.right)
    if isinstance(node, ast.Subscript):
        node = node.value
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
    return name in _TYPE_NAMES or (isinstance(node, ast.Constant) and node.value is None)


def _is_type_alias(node: ast.Assign) -> bool:
    """``Pair = tuple[int, str]`` or ``Bid = int | str`` at module level: an annotation, not a value."""
    value = node.value
    return isinstance(value, (ast.BinOp, ast.Subscript)) and _is_type(value)


def _targets(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


class _Finder(ast.NodeVisitor):
    """Collects every site of every operator, with the enclosing function or class."""

    def __init__(self, source: bytes) -> None:
        self.src = source
        starts = [0]
        for i, b in enumerate(source):
            if b == 0x0A:
                starts.append(i + 1)
        self.line_starts = starts
        self.scope: list[str] = []
        self.class_body = False
        self.sites: list[_Site] = []

    # ------------------------------------------------------------ positions

    def span(self, node: ast.AST) -> tuple[int, int]:
        s = self.line_starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        e = self.line_starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        return s, e

    def text(self, start: int, end: int) -> str:
        return self.src[start:end].decode()

    def token(self, after: ast.AST, before: ast.AST, pattern: str) -> tuple[int, int]:
        """The operator token between two nodes (comments blanked, so no '#' text matches)."""
        lo, hi = self.span(after)[1], self.span(before)[0]
        gap = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), self.text(lo, hi))
        found = re.search(pattern, gap)
        if found is None:
            raise ValueError(f"no {pattern!r} between offsets {lo} and {hi}")
        return lo + len(gap[: found.start()].encode()), lo + len(gap[: found.end()].encode())

    def add(self, operator: str, start: int, end: int, replacement: str, what: str) -> None:
        qualname = ".".join(self.scope) or "<module>"
        self.sites.append(_Site(qualname, operator, start, end, replacement, what))

    # ------------------------------------------------------------ scopes

    def _scoped(self, name: str, body: list[ast.stmt], class_body: bool) -> None:
        self.scope.append(name)
        outer, self.class_body = self.class_body, class_body
        for stmt in body:
            self.visit(stmt)
        self.scope.pop()
        self.class_body = outer

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        if node.name not in _NEVER_BODIES:
            self._scoped(node.name, node.body, False)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for child in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(child)
        self._scoped(node.name, node.body, True)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        self.visit(node.body)

    # ------------------------------------------------------------ statements

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        return None

    visit_ImportFrom = visit_Import

    def visit_Assert(self, node: ast.Assert) -> None:
        return None

    def _delete(self, node: ast.stmt) -> None:
        s, e = self.span(node)
        first = self.text(s, e).splitlines()[0]
        self.add("stmt", s, e, "pass", f"deleted: {_short(first)}")

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant):  # a docstring, or ...
            return
        self._delete(node)
        self.visit(node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        if _NEVER_ASSIGNED.intersection(_targets(node)) or (not self.scope and _is_type_alias(node)):
            return
        self._delete(node)
        for t in node.targets:
            self.visit(t)
        self.visit(node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None or _NEVER_ASSIGNED.intersection(_targets(node)):
            return
        if not self.class_body:  # in a class body it declares a field: an annotation
            self._delete(node)
        self.visit(node.target)
        self.visit(node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if _NEVER_ASSIGNED.intersection(_targets(node)):
            return
        self._delete(node)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            old, new = ("+=", "-=") if isinstance(node.op, ast.Add) else ("-=", "+=")
            s, e = self.token(node.target, node.value, re.escape(old))
            self.add("arith", s, e, new, f"'{old}' -> '{new}'")
        self.visit(node.target)
        self.visit(node.value)

    def visit_Continue(self, node: ast.Continue | ast.Break) -> None:
        self._delete(node)

    visit_Break = visit_Continue

    def visit_Raise(self, node: ast.Raise) -> None:
        self._delete(node)  # what it raises, its message included, is never mutated

    def _negate(self, test: ast.expr, keyword: str) -> None:
        s, e = self.span(test)
        self.add("negate", s, e, f"not ({self.text(s, e)})", f"'{keyword} {_short(self.text(s, e), 40)}' negated")

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for stmt in node.orelse:
                self.visit(stmt)
            return
        self._negate(node.test, "if")
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        self._negate(node.test, "while")
        self.generic_visit(node)

    # ------------------------------------------------------------ expressions

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._negate(node.test, "if")
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        for cond in node.ifs:
            self._negate(cond, "if")
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return None

    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            pattern, new = _CMP_FLIP[type(op)]
            s, e = self.token(operands[i], operands[i + 1], pattern)
            old = self.text(s, e)
            self.add("cmp", s, e, new, f"'{old}' -> '{new}'")
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        for left, right in zip(node.values, node.values[1:]):
            s, e = self.token(left, right, rf"\b{old}\b")
            self.add("boolop", s, e, new, f"'{old}' -> '{new}'")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if _is_text(node):
            return
        if isinstance(node.op, (ast.Add, ast.Sub)):
            old, new = ("+", "-") if isinstance(node.op, ast.Add) else ("-", "+")
            s, e = self.token(node.left, node.right, re.escape(old))
            self.add("arith", s, e, new, f"'{old}' -> '{new}'")
        self.generic_visit(node)

    def _number(self, node: ast.expr, value: int) -> None:
        s, e = self.span(node)
        old = self.text(s, e)
        for operator, new in (("incr", value + 1), ("decr", value - 1)):
            self.add(operator, s, e, str(new), f"'{old}' -> '{new}'")

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        operand = node.operand
        if isinstance(node.op, ast.USub) and isinstance(operand, ast.Constant) and type(operand.value) is int:
            self._number(node, -operand.value)
            return
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if type(node.value) is bool:
            s, e = self.span(node)
            new = str(not node.value)
            self.add("bool", s, e, new, f"'{node.value}' -> '{new}'")
        elif type(node.value) is int:
            self._number(node, node.value)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.visit(node.value)
        if isinstance(node.slice, ast.Tuple):  # d[a, b]: an index, not a table
            for elt in node.slice.elts:
                self.visit(elt)
        else:
            self.visit(node.slice)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        self.visit(func)
        args = node.args[1:] if name == "cast" else node.args  # cast's first argument is a type
        for child in [*args, *(k.value for k in node.keywords)]:
            self.visit(child)

    def _entries(self, node: ast.expr, items: list[tuple[int, int]], tuple_: bool) -> None:
        if len(items) < 2:
            return
        k = len(items)
        trailing = re.match(rb"[\s\\]*(#[^\n]*\n[\s\\]*)*,", self.src[items[-1][1] :]) is not None
        for i, (s, e) in enumerate(items):
            removed = self.text(s, e)
            if tuple_ and k == 2 and not trailing:  # keep a one-element tuple a tuple
                if i == 0:
                    lo, hi, new = items[0][0], items[1][1], self.text(*items[1]) + ","
                else:
                    lo, hi, new = items[0][1], items[1][1], ","
            elif (whole := self._lines_of(s, e, i < k - 1)) is not None:
                lo, hi, new = whole[0], whole[1], ""
            elif i < k - 1:
                lo, hi, new = s, items[i + 1][0], ""
            else:
                lo, hi, new = items[i - 1][1], e, ""
            self.add("entry", lo, hi, new, f"entry removed: {_short(removed)}")

    def _lines_of(self, start: int, end: int, comma: bool) -> tuple[int, int] | None:
        """The whole lines of an element alone on its lines (with its comma, and a comment), else None."""
        head = self.src.rfind(b"\n", 0, start) + 1
        rest = re.match(rb"[ \t]*,[ \t]*(#[^\n]*)?\n" if comma else rb"[ \t]*,?[ \t]*(#[^\n]*)?\n", self.src[end:])
        if self.src[head:start].strip() or rest is None:
            return None
        return head, end + rest.end()

    def visit_Dict(self, node: ast.Dict) -> None:
        if all(k is not None for k in node.keys):
            items = [(self.span(k)[0], self.span(v)[1]) for k, v in zip(node.keys, node.values) if k is not None]
            self._entries(node, items, False)
        self.generic_visit(node)

    def visit_List(self, node: ast.List | ast.Tuple | ast.Set) -> None:
        if not isinstance(getattr(node, "ctx", ast.Load()), ast.Store):
            self._entries(node, [self.span(e) for e in node.elts], isinstance(node, ast.Tuple))
        self.generic_visit(node)

    visit_Tuple = visit_List
    visit_Set = visit_List


def find_mutants(module: str, source: str) -> list[Mutant]:
    """Every mutant of one module, numbered per body and operator in source order."""
    raw = source.encode()
    tree = ast.parse(raw)
    finder = _Finder(raw)
    finder.visit(tree)
    ordered = sorted(enumerate(finder.sites), key=lambda p: (p[1].start, p[1].end, p[0]))
    counts: dict[tuple[str, str], int] = defaultdict(int)
    out: list[Mutant] = []
    for _, site in ordered:
        counts[site.qualname, site.operator] += 1
        line = raw.count(b"\n", 0, site.start) + 1
        original = raw[site.start : site.end].decode()
        out.append(
            Mutant(
                module,
                site.qualname,
                site.operator,
                counts[site.qualname, site.operator],
                line,
                site.start,
                site.end,
                original,
                site.replacement,
                site.what,
            )
        )
    return out
