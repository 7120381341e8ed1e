"""The checks of the bidding rules a schema cannot make: the ladder's levels, and how a bid is answered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .model import LadderLevel

Path = tuple[object, ...]
Bad = Callable[[str, str, Path], None]  # records one located problem


def check_ladder(ladder: tuple[LadderLevel, ...], at: Path, bad: Bad, strict: bool) -> None:
    bids: list[object] = []
    values: list[int | str] = [ladder[0].value]
    for i, level in enumerate(ladder[1:]):
        where = at + ("levels", i)
        if level.bid in bids:
            bad("LADDER_DUPLICATE", f"bid {level.bid!r} appears twice on the ladder", where + ("bid",))
        bids.append(level.bid)
        prev = values[-1]
        if prev == "match":
            bad("LADDER_NOT_INCREASING", "no level can come after one worth the match", where + ("value",))
        elif strict and level.value != "match" and int(level.value) <= int(prev):
            bad(
                "LADDER_NOT_INCREASING",
                f"level {level.bid!r} is worth {level.value}, not more than the level below ({prev})",
                where + ("value",),
            )
        if strict and level.refused not in values:
            bad(
                "REFUSAL_NOT_EARLIER",
                f"a refused {level.bid!r} pays {level.refused}, which is not the value of an earlier level ({', '.join(map(str, values))})",
                where + ("refused",),
            )
        values.append(level.value)


def check_answer(answer: Any, at: Path, refusal: Any, timing: Any, bad: Bad) -> None:
    # The two ways of answering the interpreter knows, each whole: after the bidder's card the answer is
    # that card or a refusal; before any card nobody plays, so the answer must be said.
    when, accept = answer["when"], answer["accept"]
    if (when == "before_any_card") != (accept == "explicit"):
        bad(
            "BID_ANSWER_UNSUPPORTED",
            f"a bid answered {when.replace('_', ' ')} is accepted "
            + ("explicitly (accept: explicit)" if when == "before_any_card" else "by playing (accept: by_playing)"),
            at + ("accept",),
        )
    if when == "before_any_card" and (refusal["by"] != "immediate_follower" or timing["by"] != "seat_in_turn"):
        bad(
            "BID_ANSWER_UNSUPPORTED",
            "a raise answered before any card is answered by the raiser's next opponent alone, and made by the "
            "player whose turn it is: refusal.by must be immediate_follower and bid_timing.by seat_in_turn",
            at + ("when",),
        )
