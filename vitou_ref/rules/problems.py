"""Problems as data: a stable code, a location and a message."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input. ``code`` never changes; ``message`` may."""

    code: str
    message: str
    source: str = "<input>"
    line: int | None = None  # 1-based
    column: int | None = None  # 1-based
    path: str = ""  # JSON pointer-like: /clauses/3/data

    def location(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return where

    def __str__(self) -> str:
        path = f" at {self.path}" if self.path else ""
        return f"{self.location()}: {self.code}{path}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "message": self.message,
            "source": self.source,
            "line": self.line,
            "column": self.column,
            "path": self.path,
        }


def pointer(parts: tuple[object, ...] | list[object]) -> str:
    """A JSON pointer for a path of keys and indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
