"""From a validated rules document to a checked Ruleset: the semantic checks a schema cannot make."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .conditions import ACTS, CONDITIONS, default_acts, game_acts
from .errors import ENGINE_CODES, REQUIRED_ORDER, InputError
from .model import ChangelogEntry, Clarification, Clause, ErrorCode, Params, Ruleset, freeze
from .problems import Problem
from .settings import BINDABLE, ENDING_RULES, Locate, Path, params_from, stand_in


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
    clauses_raw: list[dict[str, Any]] = data["clauses"]
    ids = _check_references(data, locate, problems)
    acts = game_acts(data["errors"])
    bindings = _bind_rules(clauses_raw, acts, locate, problems)
    _check_errors(data["errors"], ids, locate, problems)
    if problems:
        raise InputError(problems)

    def data_of(rule: str) -> tuple[Any, Path]:
        i = bindings.get(rule)
        if i is None:  # an optional rule, or a switched-off ending's, no clause sets: the data that stands in for it
            return stand_in(rule, _bound(clauses_raw, bindings), acts), ("clauses",)
        return clauses_raw[i]["data"], ("clauses", i, "data")

    params = params_from(data_of, locate, problems, strict)
    if params is not None:
        _check_required_codes(data["errors"], params, data_of, locate, problems)
    if problems:
        raise InputError(problems)
    assert params is not None
    return _ruleset(data, params, bindings, origins=origins, extends=extends, profile=profile)


def _check_references(data: dict[str, Any], locate: Locate, problems: list[Problem]) -> dict[str, int]:
    """Clause ids and clarification numbers used once each, and every reference between them resolved.

    Returns each clause id's index.
    """
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
    return ids


def _bind_rules(
    clauses_raw: list[dict[str, Any]], acts: frozenset[str], locate: Locate, problems: list[Problem]
) -> dict[str, int]:
    """Each rule the interpreter reads, and the index of the one clause that sets it."""
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
    for rule in BINDABLE:  # a rule only a game with its acts has (concede) is missing there too
        if rule not in bindings and stand_in(rule, _bound(clauses_raw, bindings), acts) is None:
            problems.append(locate("RULE_MISSING", _missing_message(rule), ("clauses",)))
    return bindings


def _missing_message(rule: str) -> str:
    if rule in ENDING_RULES:  # say how its clause could go
        switch = ENDING_RULES[rule][0]
        return (
            f"no clause sets the rule {rule!r}; the clauses of an ending may be removed only while it is "
            f"switched off (the rule {switch!r} with enabled: false)"
        )
    return f"no clause sets the rule {rule!r}"


def _bound(clauses_raw: list[dict[str, Any]], bindings: dict[str, int]) -> Callable[[str], Any]:
    """A rule -> the data of the clause that sets it (None if none does)."""
    return lambda rule: clauses_raw[bindings[rule]].get("data") if rule in bindings else None


def _check_errors(errors: list[dict[str, Any]], ids: dict[str, int], locate: Locate, problems: list[Problem]) -> None:
    """The error list: each code once, one the interpreter reports, tied to a clause, in order of precedence."""
    codes: dict[str, int] = {}
    for i, e in enumerate(errors):
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
    _check_conditions(errors, locate, problems)
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


def reachable_codes(params: Params, acts: frozenset[str]) -> frozenset[str]:
    """The codes the interpreter can report under these settings, for a game of these acts.

    A ruleset must define each of them (or some illegal action would be refused with
    no code of its own); it may define the others, which then never apply.
    """
    if_acts = {
        "SIGNAL_UNKNOWN": {"signal"},
        "SIGNAL_FORBIDDEN": {"signal"},
        "UNKNOWN_SIDE": {"decide_play", "decide_decline"},
        "DECISION_WRONG_SIDE": {"decide_play", "decide_decline"},
        "CALL_OUT_OF_TURN": {"call_pass", "call_play"},
        # A stage of its own exists only with the endings' decisions: play, raise and the answers have
        # a place in every stage of the tricks.
        "WRONG_PHASE": {"decide_play", "decide_decline", "call_pass", "call_play"},
        "ACCEPT_NO_RAISE": {"accept"},
        "ACCEPT_NOT_ANSWERER": {"accept"},
        "CONCEDE_OUT_OF_TURN": {"concede"},
    }
    if_settings = {
        "BID_CLOSED_TWENTY": params.twenty_enabled,
        "BID_CLOSED_TWENTY_TWENTY": params.tt_enabled,
        "RAISE_FROM_LAST": not params.last_position_bids,
        "RAISE_OWN_SIDE": params.raise_by == "opposite",
        "RAISE_AWAITS_ANSWER": params.answer_when == "before_any_card",
        "RAISE_OWN_WAITING": params.answer_when == "before_any_card",
        "FACE_DOWN_TOO_EARLY": params.face_down_from > 1,
    }
    out = set()
    for code in ENGINE_CODES:
        if code in if_acts and not if_acts[code] & acts:
            continue
        if not if_settings.get(code, True):
            continue
        out.add(code)
    return frozenset(out)


def _check_required_codes(
    errors: list[dict[str, Any]],
    params: Params,
    data_of: Callable[[str], tuple[Any, Path]],
    locate: Locate,
    problems: list[Problem],
) -> None:
    """Every code the game can reach is defined, and the game has accept exactly where a raise is accepted by it."""
    acts = game_acts(errors)
    listed = {e["code"] for e in errors}
    for code in sorted(reachable_codes(params, acts) - listed):
        problems.append(
            locate(
                "ERROR_CODE_MISSING",
                f"the interpreter reports {code}, but the error list does not define it",
                ("errors",),
            )
        )
    _check_paulista_acts(acts, params, data_of, locate, problems)
    explicit = params.answer_accept == "explicit"
    if explicit != ("accept" in acts):
        at = data_of("bid_answer")[1]
        problems.append(
            locate(
                "BID_ANSWER_ACTS",
                "a raise accepted by an explicit accept needs the act accept among ACTION_MALFORMED's acts"
                if explicit
                else "the act accept exists only where bid_answer accepts a raise explicitly (accept: explicit)",
                at,
            )
        )


def _check_paulista_acts(
    acts: frozenset[str],
    params: Params,
    data_of: Callable[[str], tuple[Any, Path]],
    locate: Locate,
    problems: list[Problem],
) -> None:
    """A concession and the 20-20 question need their acts among the game's, as accept needs a raise answered so."""
    if params.concede and "concede" not in acts:
        problems.append(
            locate(
                "CONCEDE_ACTS",
                "a hand may be conceded (the concede rule) only in a game with the act concede among "
                "ACTION_MALFORMED's acts",
                data_of("concede")[1],
            )
        )
    if params.tt_enabled and params.tt_question and not {"call_pass", "call_play"} <= acts:
        problems.append(
            locate(
                "TWENTY_TWENTY_ACTS",
                "the 20-20 question is asked only in a game with the acts call_pass and call_play among "
                "ACTION_MALFORMED's acts; without them, twenty_twenty's question is none",
                data_of("twenty_twenty")[1],
            )
        )


def _check_conditions(errors: list[dict[str, Any]], locate: Locate, problems: list[Problem]) -> None:
    """Each code's condition and acts, where stated: the interpreter's condition, and acts it can judge."""
    game = game_acts(errors)
    stated = [("condition" in e or "acts" in e) for e in errors]
    if any(stated) and not all(stated):
        i = stated.index(False)
        problems.append(
            locate(
                "ERROR_CONDITION_PARTIAL",
                f"error code {errors[i]['code']} states no condition and acts, but others do: "
                "state them for every code or for none",
                ("errors", i),
            )
        )
    for i, e in enumerate(errors):
        cond = CONDITIONS.get(e["code"])
        if cond is None:
            continue  # ERROR_CODE_UNKNOWN says so
        if "condition" in e and e["condition"] != cond.name:
            problems.append(
                locate(
                    "ERROR_CONDITION_UNKNOWN",
                    f"error code {e['code']} is raised by the condition {cond.name!r}, not {e['condition']!r}",
                    ("errors", i, "condition"),
                )
            )
        if "condition" in e and "acts" not in e:
            problems.append(locate("ERROR_ACTS_MISSING", f"error code {e['code']} names no acts", ("errors", i)))
        acts = set(e.get("acts", cond.required & game))
        missing = [a for a in ACTS if a in (cond.required & game) - acts]
        if missing:
            problems.append(
                locate(
                    "ERROR_ACTS_MISSING",
                    f"error code {e['code']} must also judge {', '.join(missing)}: without it, such an action "
                    "could be illegal with no code to say so",
                    ("errors", i, "acts"),
                )
            )
        undefined = [a for a in ACTS if a in acts - cond.defined]
        if undefined:
            problems.append(
                locate(
                    "ERROR_ACTS_UNDEFINED",
                    f"the condition {cond.name!r} of {e['code']} cannot judge {', '.join(undefined)} "
                    f"(it judges {', '.join(a for a in ACTS if a in cond.defined)})",
                    ("errors", i, "acts"),
                )
            )


def _error_code(e: dict[str, Any]) -> ErrorCode:
    cond = CONDITIONS.get(e["code"])
    acts = e.get("acts")
    if acts is None:  # a ruleset that states no acts (Vitou 1.0.0) gets the required set of Vitou's acts
        acts = default_acts(e["code"])
    return ErrorCode(
        e["code"],
        e["clause"],
        e["summary"],
        acts=tuple(a for a in ACTS if a in acts),
        condition=cond.name if cond else "",
        when=e.get("when", ""),
        origin=e.get("origin", ""),
    )


def _ruleset(
    data: dict[str, Any],
    params: Params,
    bindings: dict[str, int],
    *,
    origins: list[str] | None,
    extends: str | None,
    profile: Any,
) -> Ruleset:
    """The checked document as the model: clauses, clarifications, errors and the parameters read from them."""
    rs = data["ruleset"]
    name = f"{rs['id']}/{rs['version']}"
    clauses_raw: list[dict[str, Any]] = data["clauses"]
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
        errors=tuple(_error_code(e) for e in data["errors"]),
        params=params,
        bindings=freeze({rule: clauses_raw[i]["id"] for rule, i in bindings.items()}),
        extends=extends,
        profile=freeze(profile),
        canonical=freeze(data),
    )
