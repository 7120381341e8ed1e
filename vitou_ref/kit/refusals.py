"""Who decided each refusal, the engine or its adapter, as the answers mark it: counted for the report, never judged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..rules.plurals import counted

BY = "by"  # the optional field of a rejected step (docs/reference/protocol.md, Who decided a refusal)
ENGINE, ADAPTER = "engine", "adapter"


@dataclass
class Refusals:
    """The rejected steps of one ruleset's answers: those marked as the adapter's, and all the others."""

    engine: int = 0
    adapter: int = 0
    marked: bool = False  # a step said "by": "engine" or "adapter"; the counts are shown only then

    @property
    def total(self) -> int:
        return self.engine + self.adapter

    def add(self, response: Any) -> None:
        """Count the rejected steps of one answer, whatever it holds: anything but a marked refusal is the engine's."""
        steps = response.get("steps") if isinstance(response, dict) else None
        for step in steps if isinstance(steps, list) else ():
            if not isinstance(step, dict) or step.get("ok") is not False:
                continue  # a field of an accepted step, or of no step, means nothing
            by = step.get(BY)
            said = by if isinstance(by, str) and by in (ENGINE, ADAPTER) else None
            if said == ADAPTER:
                self.adapter += 1
            else:
                self.engine += 1
            self.marked = self.marked or said is not None

    def words(self, ruleset: str) -> str:
        """``le-truc/1.1.0: 131 refusals, 97 by the engine, 34 by the adapter (as the answers mark them)``."""
        return (
            f"{ruleset}: {counted(self.total, 'refusal', 'refusals')}, {self.engine} by the engine,"
            f" {self.adapter} by the adapter (as the answers mark them)"
        )

    def to_json(self) -> dict[str, int]:
        return {"total": self.total, ENGINE: self.engine, ADAPTER: self.adapter}


def count(tally: dict[str, Refusals], ruleset: str, response: Any) -> None:
    """Add one answer's refusals to its ruleset's count."""
    tally.setdefault(ruleset, Refusals()).add(response)


def shown(tally: dict[str, Refusals], ruleset: str) -> Refusals | None:
    """A ruleset's count, when its answers marked a refusal; None otherwise: answers that mark none say nothing."""
    found = tally.get(ruleset)
    return found if found is not None and found.marked else None
