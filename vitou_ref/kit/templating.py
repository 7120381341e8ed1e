"""Envelope lines as templates: the placeholders a line holds, checked where it is loaded, and filled for a ruleset."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from .placeholders import BY_NAME, PATTERN, CannotFill


def _value(name: str, values: Mapping[str, Any]) -> Any:
    value = values[name]
    if isinstance(value, CannotFill):
        raise value
    return value


def fill_json(value: Any, values: Mapping[str, Any]) -> Any:
    """A json line's value with each string that is exactly a placeholder replaced; CannotFill if one has none."""
    if isinstance(value, str):
        return _value(value, values) if value in values else value
    if isinstance(value, list):
        return [fill_json(v, values) for v in value]
    if isinstance(value, dict):
        return {(_value(k, values) if k in values else k): fill_json(v, values) for k, v in value.items()}
    return value


def fill_text(text: str, values: Mapping[str, Any]) -> str:
    """A text line with each placeholder replaced by its value's text; CannotFill if one has none."""
    from ..protocol.wire import dumps

    def one(match: re.Match[str]) -> str:
        if match.group() not in values:
            return match.group()
        value = _value(match.group(), values)
        return value if isinstance(value, str) else dumps(value)

    return PATTERN.sub(one, text)


def used(kind: str, value: Any) -> Iterator[tuple[str, bool]]:
    """Each placeholder-like word a line holds, and whether it stands as an object's key (json lines only)."""
    if kind == "text" and isinstance(value, str):
        yield from ((m.group(), False) for m in PATTERN.finditer(value))
    elif kind == "json":
        yield from _used_json(value, False)


def _used_json(value: Any, key: bool) -> Iterator[tuple[str, bool]]:
    if isinstance(value, str) and PATTERN.fullmatch(value):
        yield value, key
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _used_json(v, False)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _used_json(k, True)
            yield from _used_json(v, False)


def problem(word: str, as_key: bool) -> str | None:
    """Why ``word`` cannot stand where it is in a line, or None."""
    found = BY_NAME.get(word)
    if found is None:
        return f"{word} is no placeholder (conformance/README.md lists them)"
    if as_key and not found.key:
        return f"{word} stands for a value that is not a name: it cannot be an object's key"
    return None


__all__ = ["fill_json", "fill_text", "problem", "used"]
