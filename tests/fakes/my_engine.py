"""The engine docs/how-to/implementers.md's skeleton imports, played by the reference, so the skeleton can be run as written."""

from __future__ import annotations

from typing import Any

from vitou_ref import load_ruleset
from vitou_ref.engine.actions import Malformed, action_from_json
from vitou_ref.engine.tables import tables_for
from vitou_ref.protocol.server import _structural_code, final_of, match_from_setup
from vitou_ref.rules.errors import IllegalAction, SetupError

# The skeleton lists vitou/1.0.0 and vitou/1.1.0, which answer alike, and
# builds its game from the setup alone: one ruleset serves both.
_TABLES = tables_for(load_ruleset("vitou/1.1.0"))


class IllegalMove(Exception):
    """An action the engine refuses, with the ruleset's error code."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class Game:
    """The skeleton's view of an engine: a match built from a setup, actions in and events out as protocol JSON."""

    def __init__(self, setup: dict[str, Any]) -> None:
        try:
            self._match = match_from_setup(_TABLES, setup)
        except SetupError as exc:
            raise ValueError(f"setup: {exc}") from None

    @classmethod
    def from_setup(cls, setup: dict[str, Any]) -> Game:
        return cls(setup)

    def legal_actions(self) -> list[dict[str, Any]]:
        return [_TABLES.as_json(a) for a in self._match.legal_actions()]

    def apply(self, raw: Any) -> list[dict[str, Any]]:
        try:
            action = action_from_json(raw)
        except Malformed as exc:
            raise IllegalMove(_structural_code(_TABLES, raw, exc.code)) from None
        try:
            events = self._match.apply(action)
        except IllegalAction as exc:
            raise IllegalMove(exc.code) from None
        return [e.to_json() for e in events]

    @property
    def score(self) -> dict[str, int]:
        return dict(final_of(self._match)["score"])

    @property
    def dealer(self) -> str:
        # The dealer of the hand in progress; once a hand has ended, of the next one (protocol.md, final).
        return str(self._match.dealer)

    @property
    def winner(self) -> str | None:
        return final_of(self._match)["winner"]
