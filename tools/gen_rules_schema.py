"""Writes schema/rules.schema.json and schema/profile.schema.json: the per-rule data schemas are easier to keep as Python."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from vitou_ref.rules.cards import Rank, Suit
from vitou_ref.rules.conditions import ACTS
from vitou_ref.rules.versions import VERSION_PATTERN

SIDE_REL = {"enum": ["next", "previous"]}
ID = {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_-]{0,15}$"}
# Any rank and suit of the French 52-card pack: a ruleset's deck clause picks its own.
RANK = {"enum": [r.value for r in Rank]}
SUIT = {"enum": [s.value for s in Suit]}
TEXT = {"type": "string", "minLength": 1}


def obj(props: dict, required: list[str] | None = None) -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": props,
        "required": list(props) if required is None else required,
    }


RULE_DATA: dict[str, dict] = {
    "deck": obj(
        {
            "suits": {
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": obj({"id": SUIT, "name": TEXT, "symbol": TEXT}),
            },
            "ranks": {"type": "array", "minItems": 2, "uniqueItems": True, "items": RANK},
        }
    ),
    "rank_order": obj({"highest_first": {"type": "array", "minItems": 2, "uniqueItems": True, "items": RANK}}),
    "seats": obj(
        {
            "seats": {
                "type": "array",
                "minItems": 2,
                "items": obj({"id": ID, "name": TEXT}),
            },
            "sides": {
                "type": "array",
                "minItems": 2,
                "items": obj(
                    {
                        "id": ID,
                        "name": TEXT,
                        "seats": {"type": "array", "minItems": 1, "items": ID},
                    }
                ),
            },
        }
    ),
    "direction": obj({"next": {"enum": ["left", "right"]}}),
    "draw": obj({"dealer": {"enum": ["lowest", "highest"]}}),
    "redraw": obj({"who": {"enum": ["tied", "all"]}}),
    "deal": obj({"cards_each": {"type": "integer", "minimum": 1, "maximum": 16}, "first": SIDE_REL}),
    "dealer_rotation": obj({"passes": SIDE_REL}),
    "first_lead": obj({"leader": {"enum": ["next_to_dealer", "dealer"]}}),
    "trick_compare": obj({"by": {"const": "rank"}}),
    "trick_tie": obj(
        {
            "same_side": {"enum": ["tie", "first_played_wins"]},
            "next_leader": {"enum": ["previous_leader", "eldest"]},
        }
    ),
    "resolution": obj(
        {
            "tricks": {"type": "integer", "minimum": 1, "maximum": 8},
            "rows": {
                "type": "array",
                "minItems": 1,
                "items": obj(
                    {
                        "id": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,16}$"},
                        "pattern": {
                            "type": "array",
                            "minItems": 1,
                            "items": {"enum": ["A", "B", "T"]},
                        },
                        "winner": {"enum": ["A", "B", "none", "eldest"]},
                        "text": TEXT,
                        "quote": TEXT,
                    },
                    required=["id", "pattern", "winner", "text"],
                ),
            },
        }
    ),
    # Optional (vitou_ref/rules/settings.py OPTIONAL_RULES): unbound, it is {at: end_of_trick}. cut_short_answer
    # (optional too: stands_accepted) says whether a bid's answer the stop would cut short may still be given.
    "hand_stop": obj(
        {
            "at": {"enum": ["end_of_trick", "as_soon_as_determined"]},
            "cut_short_answer": {"enum": ["stands_accepted", "may_be_given"]},
        },
        required=["at"],
    ),
    "ladder": obj(
        {
            "base": {"type": "integer", "minimum": 0},
            "levels": {
                "type": "array",
                "minItems": 1,
                "items": obj(
                    {
                        "bid": {
                            "oneOf": [
                                {"type": "integer", "minimum": 1},
                                {"type": "string", "pattern": "^[a-z][a-z_]*$"},
                            ]
                        },
                        "value": {"oneOf": [{"type": "integer", "minimum": 0}, {"const": "match"}]},
                        "refused": {"type": "integer", "minimum": 0},
                    }
                ),
            },
        }
    ),
    "jumps": obj({"allowed": {"type": "boolean"}}),
    "opening": obj(
        {
            "tricks": {
                "oneOf": [
                    {"const": "any"},
                    {
                        "type": "array",
                        "minItems": 1,
                        "uniqueItems": True,
                        "items": {"type": "integer", "minimum": 1},
                    },
                ]
            }
        }
    ),
    "last_position": obj({"bids": {"enum": ["forbidden", "allowed"]}}),
    "raise_side": obj({"by": {"enum": ["opposite", "any"]}}),
    "later_raise": obj({"allowed": {"type": "boolean"}}),
    # Optional (vitou_ref/rules/settings.py OPTIONAL_RULES): unbound, it is {by: seat_in_turn}.
    "bid_timing": obj({"by": {"enum": ["seat_in_turn", "any_seat"]}}),
    # Optional (vitou_ref/rules/settings.py OPTIONAL_RULES): unbound, it is Vitou's way, after the bidder's
    # card and by playing. Before any card (Le Truc), by an explicit accept, a fold or a raise again.
    "bid_answer": {
        **obj(
            {
                "when": {"enum": ["after_bidders_card", "before_any_card"]},
                "accept": {"enum": ["by_playing", "explicit"]},
                "raise_again": {"enum": ["accepts_and_proposes"]},
            },
            ["when", "accept"],
        ),
        "description": "When a bid is answered and how: after the bidder's card, by the answerer's card (accept) "
        "or a refusal (Vitou); or before any card, by an explicit accept, a refusal (a fold) or a raise again, "
        "after which the player whose turn the raises interrupted plays (Le Truc). A raise given as the answer "
        "accepts the bid it answers and proposes the next level, in both.",
    },
    "refusal": obj(
        {
            "by": {"enum": ["immediate_follower", "any_opponent"]},
            "pays": {"enum": ["bidders", "refusers"]},
        }
    ),
    "target": obj(
        {
            "points": {"type": "integer", "minimum": 1},
            "scores": {
                "enum": ["pass", "stop"],
                "description": "pass (the default): a score may pass the target; stop: points beyond the target "
                "are not counted.",
                "default": "pass",
            },
        },
        ["points"],
    ),
    "twenty": obj({"enabled": {"type": "boolean"}, "at": {"type": "integer", "minimum": 1}}),
    "twenty_bids": obj({"bids": {"enum": ["closed", "open"]}}),
    "twenty_decline": obj({"opponents": {"type": "integer", "minimum": 0}}),
    "twenty_play": obj(
        {
            "win": {"type": "integer", "minimum": 0},
            "win_takes_match": {"type": "boolean"},
            "lose": {"type": "integer", "minimum": 0},
        }
    ),
    "twenty_twenty": obj(
        {
            "enabled": {"type": "boolean"},
            "question": {
                "enum": ["asked", "none"],
                "description": "asked (the default): the 20-20 question is asked (twenty_twenty_ask); none: the "
                "hand is played at once, led as any hand, with no question.",
                "default": "asked",
            },
        },
        ["enabled"],
    ),
    "twenty_twenty_bids": obj({"bids": {"enum": ["closed", "open"]}}),
    "twenty_twenty_signals": obj({"signals": {"enum": ["forbidden", "allowed"]}}),
    "twenty_twenty_ask": obj({"first": {"enum": ["next_to_dealer", "dealer"]}}),
    "twenty_twenty_play": obj(
        {
            "win": {"type": "integer", "minimum": 0},
            "leader": {"enum": ["next_to_dealer", "first_to_play"]},
        }
    ),
    "twenty_twenty_all_pass": obj({"dealer": {"enum": ["passes", "stays"]}}),
    "twenty_twenty_all_tied": obj({"dealer": {"enum": ["passes", "stays"]}}),
    "signals_allowed": obj({"allowed": {"enum": ["always", "never"]}}),
    # Truco Paulista's, optional (vitou_ref/rules/settings.py OPTIONAL_RULES): unbound, no card is turned up and
    # none is played face down.
    "turn_up": {
        **obj(
            {
                "circle": {"type": "array", "minItems": 2, "uniqueItems": True, "items": RANK},
                "suits_lowest_first": {"type": "array", "minItems": 1, "uniqueItems": True, "items": SUIT},
            }
        ),
        "description": "One card turned face up on the table each hand, dealt after the hands and belonging to "
        "nobody. The manilha rank is the rank after the turn-up's in the circle (after the last comes the first); "
        "the manilhas beat every other card, ordered among themselves by suit, lowest first.",
    },
    "face_down": {
        **obj({"from_trick": {"type": "integer", "minimum": 1, "maximum": 8}}),
        "description": "From this trick on, a card may be played face down: it never wins a trick (it loses to "
        "any card played face up), two face-down cards tie, and only its player sees it.",
    },
    # Only a game with the act concede binds it (ACT_RULES).
    "concede": {
        **obj({"by": {"enum": ["seat_to_act"]}}),
        "description": "Conceding the hand (the act concede): who may, and what the other side scores. "
        "seat_to_act: the seat due to act, or the side deciding at a special score; the other side scores what "
        "the position gives (the stake; the stake before a raise that waits on the conceding seat; what a hand "
        "played at a special score is worth; what declining it gives).",
    },
    "signals": obj(
        {
            "gestures": {
                "type": "array",
                "items": obj(
                    {
                        "id": {"type": "string", "pattern": "^[a-z][a-z_]*$"},
                        "gesture": TEXT,
                        "means": TEXT,
                    }
                ),
            },
        }
    ),
}

CLAUSE_ID = {"type": "string", "pattern": "^[a-z0-9][a-z0-9_]*(\\.[a-z0-9][a-z0-9_]*)+$"}


def clause_schema() -> dict:
    branches = []
    for rule in RULE_DATA:
        branches.append(
            {
                "if": {"properties": {"rule": {"const": rule}}, "required": ["rule"]},
                "then": {
                    "properties": {"data": {"$ref": f"#/$defs/data/{rule}"}},
                    "required": ["data"],
                },
            }
        )
    branches.append(
        {
            "if": {"not": {"required": ["rule"]}},
            "then": {"not": {"required": ["data"]}},
        }
    )
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "section", "title", "text"],
        "properties": {
            "id": {"$ref": "#/$defs/clause_id"},
            "section": {
                "type": "string",
                "pattern": "^[0-9]{1,2}$",
                "description": "The section of the rules text the clause comes from: 01 to 06 for Vitou's, "
                "the section's number for another text's (Le Truc: 1 to 5).",
            },
            "title": TEXT,
            "text": TEXT,
            "quote": TEXT,
            "clarifications": {
                "type": "array",
                "uniqueItems": True,
                "items": {"type": "integer", "minimum": 1},
            },
            "rule": {"enum": sorted(RULE_DATA)},
            "data": {"type": "object"},
            "origin": {"$ref": "#/$defs/name", "description": "the ruleset that wrote this clause (resolved profiles)"},
        },
        "allOf": branches,
    }


def rules_schema() -> dict:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://vitou.invalid/schema/rules.schema.json",
        "title": "Vitou ruleset",
        "description": "A complete Vitou ruleset: clauses, clarifications and error codes.",
        "type": "object",
        "additionalProperties": False,
        "required": ["format", "ruleset", "versioning", "changelog", "clauses", "clarifications", "errors"],
        "properties": {
            "format": {"const": 1},
            "ruleset": {"$ref": "#/$defs/ruleset"},
            "versioning": TEXT,
            "changelog": {"$ref": "#/$defs/changelog"},
            "clauses": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/clause"}},
            "clarifications": {"type": "array", "items": {"$ref": "#/$defs/clarification"}},
            "errors": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/error"}},
            "profile": {
                "description": "Present in a resolved profile: where it came from.",
                "type": "object",
                "additionalProperties": False,
                "required": ["extends", "base_hash"],
                "properties": {
                    "extends": {"$ref": "#/$defs/name"},
                    "base_hash": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
                    "decisions": {"type": "array", "items": {"$ref": "#/$defs/decision"}},
                },
            },
        },
        "$defs": {
            "clause_id": CLAUSE_ID,
            "name": {
                "type": "string",
                "pattern": f"^[a-z][a-z0-9-]{{0,63}}/{VERSION_PATTERN}$",
            },
            "decision": {
                "type": "object",
                "additionalProperties": False,
                "required": ["topic", "decision", "reason"],
                "properties": {
                    "topic": TEXT,
                    "decision": TEXT,
                    "reason": TEXT,
                    "clauses": {"type": "array", "items": {"$ref": "#/$defs/clause_id"}},
                },
            },
            "version": {
                "type": "string",
                "pattern": f"^{VERSION_PATTERN}$",
            },
            "ruleset": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "version", "title"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[a-z][a-z0-9-]{0,63}$"},
                    "version": {"$ref": "#/$defs/version"},
                    "title": TEXT,
                    "summary": TEXT,
                    "source": TEXT,
                },
            },
            "changelog": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["version", "date", "changes"],
                    "properties": {
                        "version": {"$ref": "#/$defs/version"},
                        "date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                        "changes": {"type": "array", "minItems": 1, "items": TEXT},
                    },
                },
            },
            "clause": clause_schema(),
            "clarification": {
                "type": "object",
                "additionalProperties": False,
                "required": ["number", "title", "clauses", "ruling", "reason"],
                "properties": {
                    "number": {"type": "integer", "minimum": 1},
                    "title": TEXT,
                    "clauses": {"type": "array", "items": {"$ref": "#/$defs/clause_id"}},
                    "ruling": TEXT,
                    "reason": TEXT,
                    "origin": {"$ref": "#/$defs/name"},
                },
            },
            "error": {
                "type": "object",
                "additionalProperties": False,
                "required": ["code", "clause", "summary"],
                "properties": {
                    "code": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
                    "clause": {"$ref": "#/$defs/clause_id"},
                    "summary": TEXT,
                    "condition": {
                        "type": "string",
                        "pattern": "^[a-z][a-z_]*$",
                        "description": "The named condition the interpreter evaluates for this code.",
                    },
                    "acts": {
                        "type": "array",
                        "minItems": 1,
                        "uniqueItems": True,
                        "items": {"enum": list(ACTS)},
                        "description": "The acts the condition judges: play, raise, accept (where a raise is "
                        "accepted explicitly), refuse, signal; decide_play "
                        "and decide_decline (the side at twenty: play_hand, decline_hand); call_pass and call_play "
                        "(the seat asked at 20-20: pass, play_hand); concede (the seat due to act gives up the hand).",
                    },
                    "when": {
                        **TEXT,
                        "description": "The exact condition in words: when an action of one of these acts gets "
                        "this code, every code above it having been ruled out.",
                    },
                    "origin": {
                        "$ref": "#/$defs/name",
                        "description": "the profile that restated this code's words (resolved profiles)",
                    },
                },
            },
            "data": RULE_DATA,
        },
    }


def profile_schema() -> dict:
    rules = "https://vitou.invalid/schema/rules.schema.json"
    clause = {"$ref": rules + "#/$defs/clause"}
    clar = {"$ref": rules + "#/$defs/clarification"}
    cid = {"$ref": rules + "#/$defs/clause_id"}

    def op(key: str, value: dict, **extra: dict) -> dict:
        props = {key: value, **extra}
        return {
            "type": "object",
            "additionalProperties": False,
            "required": [key, *[k for k in extra if k in ("with", "clause")]],
            "properties": props,
        }

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://vitou.invalid/schema/profile.schema.json",
        "title": "Vitou profile",
        "description": "A variant: a base ruleset changed clause by clause. Nothing is merged silently.",
        "type": "object",
        "additionalProperties": False,
        "required": ["format", "profile", "changelog", "operations"],
        "properties": {
            "format": {"const": 1},
            "profile": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "version", "title", "extends"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[a-z][a-z0-9-]{0,63}$"},
                    "version": {"$ref": rules + "#/$defs/version"},
                    "title": TEXT,
                    "summary": TEXT,
                    "extends": {"$ref": rules + "#/$defs/name"},
                },
            },
            "versioning": TEXT,
            "changelog": {"$ref": rules + "#/$defs/changelog"},
            "decisions": {"type": "array", "items": {"$ref": rules + "#/$defs/decision"}},
            "operations": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "oneOf": [
                        op("replace", cid, **{"with": clause}),
                        op("add", clause, after=cid),
                        op("remove", cid, reason=TEXT),
                        op("add_clarification", clar),
                        op("replace_clarification", {"type": "integer", "minimum": 1}, **{"with": clar}),
                        op("remove_clarification", {"type": "integer", "minimum": 1}, reason=TEXT),
                        op("rebind_error", {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"}, clause=cid, reason=TEXT),
                        # A code's words follow the profile's rules: its summary, its `when`, or both, restated.
                        {
                            **op(
                                "restate_error",
                                {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
                                summary=TEXT,
                                when=TEXT,
                                reason=TEXT,
                            ),
                            "anyOf": [{"required": ["summary"]}, {"required": ["when"]}],
                        },
                    ]
                },
            },
        },
    }


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    status = 0
    for name, schema in (("rules", rules_schema()), ("profile", profile_schema())):
        out = root / "schema" / f"{name}.schema.json"
        text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
        if "--check" in sys.argv[1:]:
            if not out.exists() or out.read_text(encoding="utf-8") != text:
                print(f"{out.name} is out of date; run tools/gen_rules_schema.py", file=sys.stderr)
                status = 1
        else:
            out.write_text(text, encoding="utf-8")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
