"""YAML loaded safely into JSON-shaped data, with the line of every value."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from .errors import InputError
from .files import read_path
from .problems import Problem, pointer

try:  # the C parser when libyaml is present; the pure-Python one otherwise
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64
MAX_VALUES = 500_000
# No value of any Vitou document comes near this; bounding integers keeps
# later arithmetic and printing clear of Python's 4,300-digit conversion limit.
MAX_INT_DIGITS = 100

_TAG = "tag:yaml.org,2002:"
# YAML 1.2 core schema: PyYAML resolves YAML 1.1, where `no` is false,
# `010` is eight and `1:20` is eighty. We re-resolve plain scalars ourselves.
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT10 = re.compile(r"^[-+]?[0-9]+$")
_INT16 = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_SPECIAL_FLOAT = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN"}
_ALLOWED_TAGS = {_TAG + t for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")}


@dataclass
class Document:
    """Data read from one YAML or JSON text, and where each value stood in it."""

    data: Any
    source: str
    marks: dict[tuple[object, ...], tuple[int, int]] = field(default_factory=dict)

    def locate(self, path: tuple[object, ...] | list[object]) -> tuple[int | None, int | None]:
        """The (line, column) of the value at ``path``, or of its nearest located parent."""
        p = tuple(path)
        while True:
            mark = self.marks.get(p)
            if mark is not None:
                return mark
            if not p:
                return None, None
            p = p[:-1]

    def problem(self, code: str, message: str, path: tuple[object, ...] | list[object] = ()) -> Problem:
        line, col = self.locate(path)
        return Problem(code, message, self.source, line, col, pointer(tuple(path)))


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


class _Converter:
    def __init__(self, source: str, max_depth: int, max_values: int) -> None:
        self.source = source
        self.max_depth = max_depth
        self.max_values = max_values
        self.count = 0
        self.marks: dict[tuple[object, ...], tuple[int, int]] = {}
        self.open: set[int] = set()  # ids of the collections being converted, to catch an alias to an ancestor

    def fail(self, code: str, message: str, node: yaml.Node, path: tuple[object, ...]) -> InputError:
        line, col = _mark(node)
        return InputError([Problem(code, message, self.source, line, col, pointer(path))])

    def convert(self, node: yaml.Node, path: tuple[object, ...], depth: int) -> Any:
        self.count += 1
        if self.count > self.max_values:
            raise self.fail(
                "YAML_TOO_LARGE",
                f"the document expands to more than {self.max_values} values (aliases that repeat without bound?)",
                node,
                path,
            )
        if depth > self.max_depth:
            raise self.fail("YAML_TOO_DEEP", f"nesting deeper than {self.max_depth} levels", node, path)
        self.marks[path] = _mark(node)
        if node.tag not in _ALLOWED_TAGS:
            raise self.fail("YAML_TAG", f"unsupported tag {node.tag!r}: only plain YAML data is read", node, path)
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        if id(node) in self.open:
            raise self.fail("YAML_ALIAS_CYCLE", "an alias refers to a collection that contains it", node, path)
        self.open.add(id(node))
        try:
            return self.collection(node, path, depth)
        finally:
            self.open.discard(id(node))

    def collection(self, node: yaml.Node, path: tuple[object, ...], depth: int) -> Any:
        if isinstance(node, yaml.SequenceNode):
            return [self.convert(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == _TAG + "merge":
                    raise self.fail(
                        "YAML_MERGE", "merge keys (<<) are not supported; write the keys out", key_node, path
                    )
                if not isinstance(key_node, yaml.ScalarNode):
                    raise self.fail("YAML_KEY", "a mapping key must be a string, not a collection", key_node, path)
                key = self.scalar(key_node, path)
                if not isinstance(key, str):
                    raise self.fail(
                        "YAML_KEY",
                        f"mapping key {key_node.value!r} is read as {type(key).__name__}; keys must be strings (quote it)",
                        key_node,
                        path,
                    )
                if key in out:
                    raise self.fail("YAML_DUPLICATE_KEY", f"duplicate key {key!r}", key_node, path)
                out[key] = self.convert(value_node, path + (key,), depth + 1)
            return out
        raise self.fail("YAML_TAG", "unsupported node", node, path)  # pragma: no cover

    def scalar(self, node: yaml.ScalarNode, path: tuple[object, ...]) -> Any:
        value: str = node.value
        tag = node.tag
        if node.style or tag == _TAG + "str":  # quoted, block, or resolved as text
            if tag != _TAG + "str":
                raise self.fail("YAML_TAG", f"unsupported tag {tag!r} on a quoted value", node, path)
            return value
        if tag == _TAG + "null":
            return None
        if tag == _TAG + "bool":
            # YAML 1.1 reads yes/no/on/off as booleans; YAML 1.2, and we, read text.
            return _BOOL.get(value, value)
        if tag == _TAG + "int":
            if _INT10.match(value):
                digits = value.lstrip("+-").lstrip("0") or "0"
                number = self.integer(digits, 10, node, path)
                return -number if value.startswith("-") else number
            if _INT16.match(value):
                return self.integer(value[2:].lstrip("0") or "0", 16, node, path)
            return value  # 1.1 octal, binary, sexagesimal, underscores: text under 1.2
        if tag == _TAG + "float":
            if _FLOAT.match(value) or value in _SPECIAL_FLOAT:
                raise self.fail(
                    "YAML_FLOAT",
                    f"{value!r} is a floating-point number; no value here is one (quote it for text)",
                    node,
                    path,
                )
            return value
        if tag == _TAG + "timestamp":
            raise self.fail(
                "YAML_DATE", f"{value!r} would be read as a date, which JSON cannot hold; quote it", node, path
            )
        raise self.fail("YAML_TAG", f"unsupported tag {tag!r}", node, path)

    def integer(self, digits: str, base: int, node: yaml.ScalarNode, path: tuple[object, ...]) -> int:
        # Checked on the text, before int() (which refuses over 4,300 digits
        # with a ValueError and is slow long before that).
        number = int(digits, base) if len(digits) <= MAX_INT_DIGITS else None
        if number is None or len(str(number)) > MAX_INT_DIGITS:
            raise self.fail(
                "YAML_NUMBER_TOO_LARGE",
                f"an integer of more than {MAX_INT_DIGITS} digits ({len(digits)} written); no value here is that large",
                node,
                path,
            )
        return number


def _children(node: yaml.Node) -> list[tuple[object, yaml.Node]]:
    if isinstance(node, yaml.SequenceNode):
        return list(enumerate(node.value))
    if isinstance(node, yaml.MappingNode):
        return [(k.value, v) for k, v in node.value]
    return []


def _check_expansion(root: yaml.Node, conv: _Converter) -> None:
    """Refuse aliases that expand past the value limit at once, before spending time converting them.

    Sizes are counted once per node (an alias shares its node), walked
    without recursion, and capped just past the limit.
    """
    cap = conv.max_values + 1
    size: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in size and not done:
            continue
        kids = _children(node)
        if done:
            size[id(node)] = min(cap, 1 + sum(size.get(id(k), 1) for _, k in kids))
        else:
            size[id(node)] = 1  # provisional: an alias to an ancestor counts once (it is refused later)
            stack.append((node, True))
            stack.extend((k, False) for _, k in kids if id(k) not in size)
    if size[id(root)] < cap:
        return
    # Point at the smallest part that is already too large on its own.
    node = root
    path: tuple[object, ...] = ()
    while True:
        over = [(key, k) for key, k in _children(node) if size.get(id(k), 1) >= cap]
        if not over:
            break
        key, node = over[0]
        path = (*path, key)
    raise conv.fail(
        "YAML_TOO_LARGE",
        f"the document expands to more than {conv.max_values} values (aliases that repeat without bound?)",
        node,
        path,
    )


def _check_depth(text: str, source: str, max_depth: int) -> None:
    # The composer recurses once per level; walking the event stream first
    # (iterative) refuses absurd nesting before any recursion happens.
    depth = 0
    events: Iterator[yaml.Event] = yaml.parse(text, Loader=_Loader)
    for event in events:
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > max_depth:
                line, col = _mark(event)  # type: ignore[arg-type]
                raise InputError(
                    [Problem("YAML_TOO_DEEP", f"nesting deeper than {max_depth} levels", source, line, col)]
                )
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def load_text(
    raw: str | bytes,
    source: str = "<input>",
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    max_values: int = MAX_VALUES,
) -> Document:
    """Parse one YAML (or JSON) document; raise InputError with located problems."""
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > max_bytes:
        raise InputError([Problem("YAML_TOO_LARGE", f"{size} bytes is over the limit of {max_bytes}", source)])
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(
                [Problem("YAML_ENCODING", f"not UTF-8: byte {exc.start} cannot be decoded ({exc.reason})", source)]
            ) from None
    else:
        text = raw
    if "\x00" in text:
        raise InputError([Problem("YAML_ENCODING", "the text contains a NUL character", source)])
    try:
        _check_depth(text, source, max_depth)
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        col = mark.column + 1 if mark is not None else None
        what = " ".join(x for x in (exc.context, exc.problem) if x) or "malformed YAML"
        # PyYAML 6.0.4 and later refuse deep nesting themselves: the same problem as ours, under our code.
        code = "YAML_TOO_DEEP" if "nesting depth" in what else "YAML_SYNTAX"
        raise InputError([Problem(code, what, source, line, col)]) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow; it knows only the offset
        at = exc.position
        line, col = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
        char = exc.character
        shown = f"U+{char:04X}" if isinstance(char, int) else repr(char)
        what = f"character {shown} is not allowed in YAML ({exc.reason})"
        raise InputError([Problem("YAML_SYNTAX", what, source, line, col)]) from None
    except yaml.YAMLError as exc:
        raise InputError([Problem("YAML_SYNTAX", str(exc).splitlines()[0], source)]) from None
    except RecursionError:
        raise InputError([Problem("YAML_TOO_DEEP", "nesting too deep to read", source)]) from None
    if node is None:
        raise InputError([Problem("YAML_EMPTY", "the document is empty", source)])
    conv = _Converter(source, max_depth, max_values)
    _check_expansion(node, conv)
    data = conv.convert(node, (), 0)
    return Document(data, source, conv.marks)


def load_path(path: str, *, max_bytes: int = MAX_BYTES, display: str | None = None) -> Document:
    """Read and parse a regular file; a missing, unreadable or special file is an InputError too."""
    name = display or path
    return load_text(read_path(path, max_bytes=max_bytes, display=name), name, max_bytes=max_bytes)
