"""The exception root and the errors every layer raises."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .problems import Problem


class VitouError(Exception):
    """Root of every error this package raises on purpose."""


class InputError(VitouError):
    """An input (YAML, JSON, rules, profile, fixture, record) is not usable; carries the problems."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems) or "invalid input")


class UnknownRuleset(VitouError):
    """No ruleset with that id is known."""

    def __init__(self, name: str, known: Iterable[str]) -> None:
        self.name = name
        self.known = tuple(known)
        super().__init__(f"unknown ruleset {name!r}; known: {', '.join(self.known) or 'none'}")


class OutputFailed(VitouError):
    """A report or document could not be written where it was asked for (a full disk, a path gone)."""


class SetupError(VitouError):
    """A match cannot start from this setup (malformed deal, unsettled draw...)."""

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class IllegalAction(VitouError):
    """An action the rules do not allow in this position. The match is unchanged.

    ``code`` is the stable error code of the spec, ``clause`` the id of the
    clause it enforces, ``reason`` why in this position (in English; the
    structured ``why`` can be worded in any language), and ``position`` a
    description of the position the action was tried in.
    """

    code: str = "ILLEGAL"

    def __init__(self, code: str, clause: str, action: object, reason: Any, position: str) -> None:
        self.code = code
        self.clause = clause
        self.action = action
        self.why = reason  # a Reason, or plain text
        self.position = position
        super().__init__(code)

    @property
    def reason(self) -> str:
        return str(self.why)

    def __str__(self) -> str:
        where = f" ({self.position})" if self.position else ""
        return f"{self.code} [{self.clause}]: {self.action}: {self.reason}{where}"


# One class per way an action can fail, so callers can catch precisely.
class MalformedAction(IllegalAction):
    code = "ACTION_MALFORMED"


class UnknownSeat(IllegalAction):
    code = "UNKNOWN_SEAT"


class UnknownSide(IllegalAction):
    code = "UNKNOWN_SIDE"


class MalformedCard(IllegalAction):
    code = "CARD_MALFORMED"


class UnknownBid(IllegalAction):
    code = "UNKNOWN_BID"


class UnknownSignal(IllegalAction):
    code = "SIGNAL_UNKNOWN"


class MatchOver(IllegalAction):
    code = "MATCH_OVER"


class NoDeal(IllegalAction):
    code = "NO_DEAL"


class WrongPhase(IllegalAction):
    code = "WRONG_PHASE"


class SignalForbidden(IllegalAction):
    code = "SIGNAL_FORBIDDEN"


class BidClosedTwenty(IllegalAction):
    code = "BID_CLOSED_TWENTY"


class BidClosedTwentyTwenty(IllegalAction):
    code = "BID_CLOSED_TWENTY_TWENTY"


class DecisionWrongSide(IllegalAction):
    code = "DECISION_WRONG_SIDE"


class CallOutOfTurn(IllegalAction):
    code = "CALL_OUT_OF_TURN"


class NotYourTurn(IllegalAction):
    code = "NOT_YOUR_TURN"


class CardNotHeld(IllegalAction):
    code = "CARD_NOT_HELD"


class BidOutOfTurn(IllegalAction):
    code = "BID_OUT_OF_TURN"


class RefuseNoBid(IllegalAction):
    code = "REFUSE_NO_BID"


class RefuseNotFollower(IllegalAction):
    code = "REFUSE_NOT_FOLLOWER"


class RaiseFromLast(IllegalAction):
    code = "RAISE_FROM_LAST"


class RaiseOwnSide(IllegalAction):
    code = "RAISE_OWN_SIDE"


class RaisePastTop(IllegalAction):
    code = "RAISE_PAST_TOP"


class RaiseJump(IllegalAction):
    code = "RAISE_JUMP"


class RaiseAwaitsAnswer(IllegalAction):
    code = "RAISE_AWAITS_ANSWER"


class RaiseOwnWaiting(IllegalAction):
    code = "RAISE_OWN_WAITING"


class AcceptNoRaise(IllegalAction):
    code = "ACCEPT_NO_RAISE"


class AcceptNotAnswerer(IllegalAction):
    code = "ACCEPT_NOT_ANSWERER"


class FaceDownTooEarly(IllegalAction):
    code = "FACE_DOWN_TOO_EARLY"


class ConcedeOutOfTurn(IllegalAction):
    code = "CONCEDE_OUT_OF_TURN"


ILLEGAL_BY_CODE: dict[str, type[IllegalAction]] = {cls.code: cls for cls in IllegalAction.__subclasses__()}
ENGINE_CODES = frozenset(ILLEGAL_BY_CODE)


def _requires_order() -> list[tuple[str, str]]:
    """Pairs (earlier, later) of codes whose order the interpreter's checks rely on.

    A check may assume the ones before it passed (a known seat, a phase where
    the act has an entry); the spec's precedence must keep those first.
    """
    structural = ["UNKNOWN_SEAT", "UNKNOWN_SIDE", "CARD_MALFORMED", "UNKNOWN_BID", "SIGNAL_UNKNOWN"]
    phase = ["MATCH_OVER", "NO_DEAL", "WRONG_PHASE"]
    # ACTION_MALFORMED is found when reading an action, before any check.
    checked = [c for c in ILLEGAL_BY_CODE if c != "ACTION_MALFORMED"]
    rules = [c for c in checked if c not in structural and c not in phase]
    pairs = [(a, b) for a in structural for b in phase + rules]
    pairs += [(a, b) for a in phase for b in rules]
    pairs += [("MATCH_OVER", "WRONG_PHASE"), ("NO_DEAL", "WRONG_PHASE")]
    # The jump check names the next level, and at the top there is none.
    pairs += [("RAISE_PAST_TOP", "RAISE_JUMP")]
    return pairs


REQUIRED_ORDER = _requires_order()
