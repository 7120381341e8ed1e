"""Small helpers to write scenarios compactly; expectations stay in the tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vitou_ref import Match, load_ruleset
from vitou_ref.engine.tables import tables_for
from vitou_ref.protocol.server import run_case

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec" / "vitou-1.0.0.yaml"
BASE = "vitou/1.0.0"


def deal(text: str) -> dict[str, list[str]]:
    """'N: AS 7H 8C | E: 9C KD JH | ...' -> {"N": ["AS", "7H", "8C"], ...}"""
    out: dict[str, list[str]] = {}
    for part in text.split("|"):
        seat, cards = part.split(":")
        out[seat.strip()] = cards.split()
    return out


def acts(text: str) -> list[dict[str, Any]]:
    """'N r3, N AS, E r6, E 9C, S refuse, NS play_hand, N pass, W sig:ten' -> protocol actions."""
    out: list[dict[str, Any]] = []
    if not text.strip():
        return out
    for token in text.split(","):
        who, what = token.split()
        if what in ("refuse", "pass"):
            out.append({"seat": who, "act": what})
        elif what.startswith("r"):  # no card starts with r: r3, r12, rbaraque
            level = what[1:]
            out.append({"seat": who, "act": "raise", "to": int(level) if level.isdigit() else level})
        elif what in ("play_hand", "decline_hand") and len(who) == 2:
            out.append({"side": who, "act": what})
        elif what == "play_hand":
            out.append({"seat": who, "act": "play_hand"})
        elif what.startswith("sig:"):
            out.append({"seat": who, "act": "signal", "signal": what[4:]})
        else:
            out.append({"seat": who, "act": "play", "card": what})
    return out


def run(
    actions: str | list[dict[str, Any]],
    deals: list[str],
    dealer: str | None = "W",
    score: dict[str, int] | None = None,
    ruleset: str = BASE,
    draw: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """The protocol response for one case, through the reference in process."""
    setup: dict[str, Any] = {"deals": [deal(d) for d in deals]}
    if dealer is not None:
        setup["dealer"] = dealer
    if draw is not None:
        setup["draw"] = draw
    if score is not None:
        setup["score"] = score
    t = tables_for(load_ruleset(ruleset))
    return run_case(t, setup, acts(actions) if isinstance(actions, str) else actions, 1)


def match(deals: list[str], dealer: str = "W", score: dict[str, int] | None = None, ruleset: str = BASE) -> Match:
    return Match(load_ruleset(ruleset), dealer=dealer, deals=[deal(d) for d in deals], score=score)


def events(response: dict[str, Any]) -> list[dict[str, Any]]:
    """Every event of every accepted step, in order."""
    return [e for s in response["steps"] if s["ok"] for e in s["events"]]


def errors(response: dict[str, Any]) -> list[str | None]:
    """Per step: None if accepted, else its error code."""
    return [None if s["ok"] else s["error"] for s in response["steps"]]


def plays(seat: str, cards: str) -> list[dict[str, Any]]:
    return [{"seat": seat, "act": "play", "card": c} for c in cards.split()]


def legal_set(items: list[dict[str, Any]]) -> set[tuple[tuple[str, Any], ...]]:
    return {tuple(sorted(a.items())) for a in items}
