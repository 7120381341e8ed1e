"""From a validated rules document to a checked Ruleset: the semantic checks a schema cannot make."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from .cards import Rank, Suit
from .errors import ENGINE_CODES, REQUIRED_ORDER, InputError
from .model import (
    ChangelogEntry,
    Clarification,
    Clause,
    ErrorCode,
    Gesture,
    LadderLevel,
    Params,
    ResolutionRow,
    Ruleset,
    SeatSpec,
    SideSpec,
    SuitSpec,
    freeze,
)
from .problems import Problem

Path = tuple[object, ...]
Locate = Callable[[str, str, Path], Problem]  # (code, message, path) -> located Problem

RULES = (
    "deck",
    "rank_order",
    "seats",
    "direction",
    "draw",
    "redraw",
    "deal",
    "dealer_rotation",
    "first_lead",
    "trick_compare",
    "trick_tie",
    "resolution",
    "ladder",
    "jumps",
    "opening",
    "last_position",
    "raise_side",
    "later_raise",
    "refusal",
    "target",
    "twenty",
    "twenty_bids",
    "twenty_decline",
    "twenty_play",
    "twenty_twenty",
    "twenty_twenty_bids",
    "twenty_twenty_signals",
    "twenty_twenty_ask",
    "twenty_twenty_play",
    "twenty_twenty_all_pass",
    "twenty_twenty_all_tied",
    "signals",
    "signals_allowed",
)


def build_ruleset(
    data: dict[str, Any],
    locate: Locate,
    *,
    origins: list[str] | None = None,
    extends: str | None = None,
    profile: Any = None,
    strict: bool = True,
) -> Ruleset:
    """Check a schema-valid rules document and build the Ruleset; InputError lists every problem.

    ``origins`` gives, per clause, the ruleset that wrote it (profiles mix them).
    ``strict=False`` skips the consistency checks (used only to build deliberate mutants).
    """
    problems: list[Problem] = []
    rs = data["ruleset"]
    name = f"{rs['id']}/{rs['version']}"
    clauses_raw: list[dict[str, Any]] = data["clauses"]
    ids: dict[str, int] = {}
    for i, c in enumerate(clauses_raw):
        if c["id"] in ids:
            problems.append(
                locate(
                    "CLAUSE_DUPLICATE",
                    f"clause id {c['id']!r} is used twice (first at clause {ids[c['id']]})",
                    ("clauses", i, "id"),
                )
            )
        else:
            ids[c["id"]] = i
    numbers: dict[int, int] = {}
    for i, k in enumerate(data["clarifications"]):
        if k["number"] in numbers:
            problems.append(
                locate(
                    "CLARIFICATION_DUPLICATE",
                    f"clarification {k['number']} is numbered twice",
                    ("clarifications", i, "number"),
                )
            )
        numbers[k["number"]] = i
        for j, ref in enumerate(k["clauses"]):
            if ref not in ids:
                problems.append(
                    locate(
                        "CLAUSE_UNKNOWN",
                        f"clarification {k['number']} names clause {ref!r}, which does not exist",
                        ("clarifications", i, "clauses", j),
                    )
                )
    for i, c in enumerate(clauses_raw):
        for j, n in enumerate(c.get("clarifications", [])):
            if n not in numbers:
                problems.append(
                    locate(
                        "CLARIFICATION_UNKNOWN",
                        f"clause {c['id']!r} cites clarification {n}, which does not exist",
                        ("clauses", i, "clarifications", j),
                    )
                )

    bindings: dict[str, int] = {}
    for i, c in enumerate(clauses_raw):
        rule = c.get("rule")
        if rule is None:
            continue
        if rule in bindings:
            first = clauses_raw[bindings[rule]]["id"]
            problems.append(
                locate(
                    "RULE_DUPLICATE",
                    f"rule {rule!r} is set by clause {first!r} and again by {c['id']!r}",
                    ("clauses", i, "rule"),
                )
            )
        else:
            bindings[rule] = i
    for rule in RULES:
        if rule not in bindings:
            problems.append(locate("RULE_MISSING", f"no clause sets the rule {rule!r}", ("clauses",)))

    codes: dict[str, int] = {}
    for i, e in enumerate(data["errors"]):
        if e["code"] in codes:
            problems.append(locate("ERROR_DUPLICATE", f"error code {e['code']} is listed twice", ("errors", i, "code")))
        codes[e["code"]] = i
        if e["clause"] not in ids:
            problems.append(
                locate(
                    "ERROR_CLAUSE_UNKNOWN",
                    f"error code {e['code']} names clause {e['clause']!r}, which does not exist",
                    ("errors", i, "clause"),
                )
            )
        if e["code"] not in ENGINE_CODES:
            problems.append(
                locate(
                    "ERROR_CODE_UNKNOWN",
                    f"error code {e['code']} is not one the interpreter can report",
                    ("errors", i, "code"),
                )
            )
    for code in sorted(ENGINE_CODES - set(codes)):
        problems.append(
            locate(
                "ERROR_CODE_MISSING",
                f"the interpreter reports {code}, but the error list does not define it",
                ("errors",),
            )
        )
    for earlier, later in REQUIRED_ORDER:
        if earlier in codes and later in codes and codes[earlier] > codes[later]:
            problems.append(
                locate(
                    "ERROR_ORDER",
                    f"{earlier} must come before {later} in the error list: the list is the order of precedence, "
                    f"and {later} can only be judged once {earlier} is ruled out",
                    ("errors", codes[later], "code"),
                )
            )

    if problems:
        raise InputError(problems)

    def data_of(rule: str) -> tuple[Any, Path]:
        i = bindings[rule]
        return clauses_raw[i]["data"], ("clauses", i, "data")

    params = _params(data_of, locate, problems, strict)
    if problems:
        raise InputError(problems)
    assert params is not None

    origin_of = origins or [name] * len(clauses_raw)
    clauses = tuple(
        Clause(
            id=c["id"],
            section=c["section"],
            title=c["title"],
            text=c["text"],
            quote=c.get("quote"),
            clarifications=tuple(c.get("clarifications", ())),
            rule=c.get("rule"),
            data=freeze(c.get("data")),
            origin=origin_of[i],
        )
        for i, c in enumerate(clauses_raw)
    )
    clarifications = tuple(
        Clarification(k["number"], k["title"], tuple(k["clauses"]), k["ruling"], k["reason"], k.get("origin", name))
        for k in data["clarifications"]
    )
    return Ruleset(
        id=rs["id"],
        version=rs["version"],
        title=rs["title"],
        summary=rs.get("summary", ""),
        source=rs.get("source", ""),
        versioning=data["versioning"],
        changelog=tuple(ChangelogEntry(c["version"], c["date"], tuple(c["changes"])) for c in data["changelog"]),
        clauses=clauses,
        clarifications=clarifications,
        errors=tuple(ErrorCode(e["code"], e["clause"], e["summary"]) for e in data["errors"]),
        params=params,
        bindings=freeze({rule: clauses_raw[i]["id"] for rule, i in bindings.items()}),
        extends=extends,
        profile=freeze(profile),
        canonical=freeze(data),
    )


def _params(
    data_of: Callable[[str], tuple[Any, Path]],
    locate: Locate,
    problems: list[Problem],
    strict: bool,
) -> Params | None:
    def bad(code: str, message: str, path: Path) -> None:
        problems.append(locate(code, message, path))

    deck, _deck_at = data_of("deck")
    ranks = tuple(Rank(r) for r in deck["ranks"])
    suits = tuple(SuitSpec(Suit(s["id"]), s["name"], s["symbol"]) for s in deck["suits"])
    order_data, order_at = data_of("rank_order")
    order = tuple(Rank(r) for r in order_data["highest_first"])
    if sorted(r.value for r in order) != sorted(r.value for r in ranks):
        bad(
            "RANK_ORDER_MISMATCH",
            f"the rank order {[r.value for r in order]} must list exactly the pack's ranks {[r.value for r in ranks]}",
            order_at + ("highest_first",),
        )

    seats_data, seats_at = data_of("seats")
    seats = tuple(SeatSpec(s["id"], s["name"]) for s in seats_data["seats"])
    sides = tuple(SideSpec(s["id"], s["name"], tuple(s["seats"])) for s in seats_data["sides"])
    seat_ids = [s.id for s in seats]
    for i, sid in enumerate(seat_ids):
        if seat_ids.index(sid) != i:
            bad("SEAT_DUPLICATE", f"seat {sid!r} is listed twice", seats_at + ("seats", i, "id"))
    side_ids = [s.id for s in sides]
    for i, sid in enumerate(side_ids):
        if side_ids.index(sid) != i:
            bad("SIDE_DUPLICATE", f"side {sid!r} is listed twice", seats_at + ("sides", i, "id"))
    owner: dict[str, str] = {}
    for i, side in enumerate(sides):
        for j, seat in enumerate(side.seats):
            if seat not in seat_ids:
                bad(
                    "SIDES_PARTITION",
                    f"side {side.id!r} names seat {seat!r}, which is not at the table",
                    seats_at + ("sides", i, "seats", j),
                )
            elif seat in owner:
                bad(
                    "SIDES_PARTITION",
                    f"seat {seat!r} belongs to both {owner[seat]!r} and {side.id!r}",
                    seats_at + ("sides", i, "seats", j),
                )
            else:
                owner[seat] = side.id
    for seat in seat_ids:
        if seat not in owner:
            bad("SIDES_PARTITION", f"seat {seat!r} belongs to no side", seats_at + ("sides",))
    if len(sides) != 2:
        bad("SIDES_COUNT", f"the game is played by exactly two sides, not {len(sides)}", seats_at + ("sides",))
    elif not problems:
        sizes = {len(s.seats) for s in sides}
        if len(sizes) != 1:
            bad("SEATS_ORDER", "the two sides must have as many seats each", seats_at + ("sides",))
        for i, seat in enumerate(seat_ids):
            nxt = seat_ids[(i + 1) % len(seat_ids)]
            if owner.get(seat) == owner.get(nxt):
                bad(
                    "SEATS_ORDER",
                    f"partners sit side by side: {seat!r} and the next seat {nxt!r} are both in {owner.get(seat)!r}; partnerships and seat order disagree",
                    seats_at + ("seats", i),
                )
                break

    deal, deal_at = data_of("deal")
    deck_size = len(ranks) * len(suits)
    if deal["cards_each"] * len(seats) > deck_size:
        bad(
            "DEAL_TOO_LARGE",
            f"{deal['cards_each']} cards to each of {len(seats)} players needs more than the {deck_size} cards of the pack",
            deal_at + ("cards_each",),
        )

    res, res_at = data_of("resolution")
    rows = tuple(ResolutionRow(r["id"], tuple(r["pattern"]), r["winner"], r["text"]) for r in res["rows"])
    if res["tricks"] > deal["cards_each"]:
        bad(
            "RESOLUTION_TRICKS",
            f"a hand of {deal['cards_each']} cards cannot have {res['tricks']} tricks",
            res_at + ("tricks",),
        )
    _check_resolution(rows, res["tricks"], res_at, bad)

    lad, lad_at = data_of("ladder")
    ladder = (LadderLevel(None, lad["base"], None),) + tuple(
        LadderLevel(lv["bid"], lv["value"], lv["refused"]) for lv in lad["levels"]
    )
    _check_ladder(ladder, lad_at, bad, strict)

    opening, opening_at = data_of("opening")
    tricks_open = None if opening["tricks"] == "any" else frozenset(opening["tricks"])
    if tricks_open is not None and max(tricks_open) > res["tricks"]:
        bad(
            "OPENING_TRICKS",
            f"a hand has {res['tricks']} tricks; opening cannot be allowed in trick {max(tricks_open)}",
            opening_at + ("tricks",),
        )

    target = data_of("target")[0]["points"]
    twenty, twenty_at = data_of("twenty")
    if twenty["at"] >= target:
        bad(
            "TWENTY_AT_TARGET",
            f"the twenty-point ending at {twenty['at']} must come below the target {target}",
            twenty_at + ("at",),
        )

    sig, sig_at = data_of("signals")
    gestures = tuple(Gesture(g["id"], g["gesture"], g["means"]) for g in sig["gestures"])
    gids = [g.id for g in gestures]
    for i, gid in enumerate(gids):
        if gids.index(gid) != i:
            bad("GESTURE_DUPLICATE", f"gesture {gid!r} is listed twice", sig_at + ("gestures", i, "id"))

    if problems:
        return None
    tp = data_of("twenty_play")[0]
    ttp = data_of("twenty_twenty_play")[0]
    return Params(
        suits=suits,
        ranks=ranks,
        rank_order=order,
        seats=seats,
        sides=sides,
        next_is=data_of("direction")[0]["next"],
        draw_dealer=data_of("draw")[0]["dealer"],
        redraw_who=data_of("redraw")[0]["who"],
        cards_each=deal["cards_each"],
        deal_first=deal["first"],
        dealer_passes=data_of("dealer_rotation")[0]["passes"],
        first_leader=data_of("first_lead")[0]["leader"],
        tie_same_side=data_of("trick_tie")[0]["same_side"],
        tie_next_leader=data_of("trick_tie")[0]["next_leader"],
        tricks=res["tricks"],
        resolution=rows,
        ladder=ladder,
        jumps_allowed=data_of("jumps")[0]["allowed"],
        opening_tricks=tricks_open,
        last_position_bids=data_of("last_position")[0]["bids"] == "allowed",
        raise_by=data_of("raise_side")[0]["by"],
        later_raise=data_of("later_raise")[0]["allowed"],
        refusal_by=data_of("refusal")[0]["by"],
        refusal_pays=data_of("refusal")[0]["pays"],
        target=target,
        twenty_enabled=twenty["enabled"],
        twenty_at=twenty["at"],
        twenty_bids_closed=data_of("twenty_bids")[0]["bids"] == "closed",
        twenty_decline=data_of("twenty_decline")[0]["opponents"],
        twenty_win=tp["win"],
        twenty_win_takes_match=tp["win_takes_match"],
        twenty_lose=tp["lose"],
        tt_enabled=data_of("twenty_twenty")[0]["enabled"],
        tt_bids_closed=data_of("twenty_twenty_bids")[0]["bids"] == "closed",
        tt_signals_forbidden=data_of("twenty_twenty_signals")[0]["signals"] == "forbidden",
        tt_first=data_of("twenty_twenty_ask")[0]["first"],
        tt_win=ttp["win"],
        tt_leader=ttp["leader"],
        tt_all_pass_dealer=data_of("twenty_twenty_all_pass")[0]["dealer"],
        tt_all_tied_dealer=data_of("twenty_twenty_all_tied")[0]["dealer"],
        gestures=gestures,
        signals_allowed=data_of("signals_allowed")[0]["allowed"] == "always",
    )


def relative_sequences(tricks: int) -> list[tuple[str, ...]]:
    """Every sequence of trick results up to ``tricks`` long, A being the first side to win one."""
    out: list[tuple[str, ...]] = []
    for n in range(1, tricks + 1):
        for seq in itertools.product("ABT", repeat=n):
            first_win = next((x for x in seq if x != "T"), None)
            if first_win in (None, "A"):
                out.append(seq)
    return out


def _check_resolution(
    rows: tuple[ResolutionRow, ...], tricks: int, at: Path, bad: Callable[[str, str, Path], None]
) -> None:
    by_pattern: dict[tuple[str, ...], list[int]] = {}
    for i, row in enumerate(rows):
        if [r.id for r in rows].index(row.id) != i:
            bad("RESOLUTION_ROW_DUPLICATE", f"row id {row.id!r} is used twice", at + ("rows", i, "id"))
        if len(row.pattern) > tricks:
            bad(
                "RESOLUTION_PATTERN",
                f"row {row.id!r} has {len(row.pattern)} tricks, but a hand has {tricks}",
                at + ("rows", i, "pattern"),
            )
        first_win = next((x for x in row.pattern if x != "T"), None)
        if first_win == "B":
            bad(
                "RESOLUTION_PATTERN",
                f"row {row.id!r}: A names the side that won the earliest won trick, so B cannot come before A",
                at + ("rows", i, "pattern"),
            )
        if row.winner in ("A", "B") and row.winner not in row.pattern:
            bad(
                "RESOLUTION_PATTERN",
                f"row {row.id!r} gives the hand to {row.winner}, a side that won no trick in its pattern",
                at + ("rows", i, "winner"),
            )
        by_pattern.setdefault(row.pattern, []).append(i)
    decided: set[tuple[str, ...]] = set()
    used: set[int] = set()
    for seq in relative_sequences(tricks):
        if any(seq[:k] in decided for k in range(1, len(seq))):
            continue
        matches = by_pattern.get(seq, [])
        if len(matches) > 1:
            ids = ", ".join(repr(rows[i].id) for i in matches)
            bad("RESOLUTION_AMBIGUOUS", f"rows {ids} all match the results {''.join(seq)}", at + ("rows", matches[1]))
        if matches:
            decided.add(seq)
            used.add(matches[0])
        elif len(seq) == tricks:
            bad(
                "RESOLUTION_INCOMPLETE",
                f"no row decides a hand whose tricks went {' '.join(seq)} (A: the first side to win a trick, B: the other, T: tied)",
                at + ("rows",),
            )
    for i, row in enumerate(rows):
        if (
            i not in used
            and len(row.pattern) <= tricks
            and row.pattern in by_pattern
            and by_pattern[row.pattern][0] == i
        ):
            bad(
                "RESOLUTION_UNREACHABLE",
                f"row {row.id!r} can never apply: an earlier trick already decides every hand it would match",
                at + ("rows", i, "pattern"),
            )


def _check_ladder(
    ladder: tuple[LadderLevel, ...], at: Path, bad: Callable[[str, str, Path], None], strict: bool
) -> None:
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
