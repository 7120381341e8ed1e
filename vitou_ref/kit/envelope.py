"""Envelope cases: raw protocol lines, each with the answer it must get, and the sentinel that counts them."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..present import escape
from ..protocol import wire as _wire
from ..rules.errors import InputError
from ..rules.model import freeze, thaw
from ..rules.plurals import counted
from ..rules.registry import shipped_names
from ..rules.versions import Ref, concrete_names, parse_ref
from .answerbounds import message_breach
from .placeholders import BY_NAME, CannotFill, values_for
from .templating import fill_json, fill_text, used
from .templating import problem as placeholder_problem

if TYPE_CHECKING:
    from ..rules.model import Ruleset
    from ..rules.yamlsafe import Document

RULESET = "$ruleset"  # in a json line (a string) or a text line (anywhere), the name of the ruleset the case runs under
# Characters of an answer a report shows: enough for every answer the shipped lines must get, whole, so that
# the field that differs is in the report; a bound still, since the answer is the implementation's.
SHOWN_ANSWER = 2000
NONE = "none"  # the answer of a line that gets none
STOP_SHOWN = '{"cmd":"stop"}'  # a stop line, when the line itself is not at hand
HANDSHAKE = "protocol"  # the answer of a start line that can be used: {protocol: 1}, the handshake
EXIT = "exit"  # the answer of a stop line: none, and the process's exit status (docs/reference/protocol.md: 0)


def sentinel(seq: int) -> bytes:
    """The harness's own last line: a run without a ruleset, whose errored answer carries ``seq``."""
    return b'{"cmd":"run","seq":' + str(seq).encode() + b"}\n"


@dataclass(frozen=True)
class Line:
    """One line to send (``kind`` json, text, hex or fill) and the answer it must get."""

    kind: str
    value: Any
    answer: Any  # NONE, {errored: true, seq}, {seq, steps}, or, for a stop line, {exit: 0}

    @property
    def exit_status(self) -> int | None:
        """The status the process must exit with after this line (a stop line), or None: it serves on."""
        answer = thaw(self.answer)
        return answer[EXIT] if isinstance(answer, dict) and EXIT in answer else None

    def to_bytes(self, ruleset: str) -> bytes:
        """The line as sent, newline included."""
        if self.kind == "json":
            value = _named(thaw(self.value), ruleset)
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        if self.kind == "text":
            return str(self.value).replace(RULESET, ruleset).encode() + b"\n"
        if self.kind == "hex":
            return bytes.fromhex(str(self.value)) + b"\n"
        head, tail = str(self.value["head"]).encode(), str(self.value.get("tail", "")).encode()
        fill = str(self.value.get("byte", "a")).encode() * max(0, int(self.value["size"]) - len(head) - len(tail))
        return head + fill + tail + b"\n"

    def filled(self, values: Mapping[str, Any]) -> Line:
        """The line with its placeholders replaced by ``values`` (kit/placeholders.py); CannotFill if one has none."""
        if self.kind == "json":
            return Line("json", freeze(fill_json(thaw(self.value), values)), self.answer)
        if self.kind == "text":
            return Line("text", fill_text(str(self.value), values), self.answer)
        return self

    def shown(self) -> str:
        """The line as a report names it: whole, escaped, for the field that made the difference may be its last;
        a fill line (up to megabytes of one byte) by its size and head."""
        if self.kind == "fill":
            return f"a line of {self.value['size']:,} bytes starting {self.value['head']!r}"
        text = self.value
        if self.kind == "json":
            text = json.dumps(thaw(self.value), separators=(",", ":"), ensure_ascii=False)  # as to_bytes sends it
        return f"{self.kind} {escape.text(str(text))}"


def _named(value: Any, ruleset: str) -> Any:
    if value == RULESET:
        return ruleset
    if isinstance(value, list):
        return [_named(v, ruleset) for v in value]
    if isinstance(value, dict):
        return {k: _named(v, ruleset) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class EnvelopeCase:
    """Lines and their answers, run under every ruleset certified: the protocol's, not a ruleset's."""

    id: str
    title: str
    topic: str
    rulesets: tuple[str, ...]  # () for every ruleset, as the shipped cases; a suite's own case may name some
    lines: tuple[Line, ...]
    source: str = ""
    line: int = 0
    note: str | None = None
    raw: Any = field(default=None, compare=False, repr=False)
    clauses: tuple[str, ...] = ()  # envelope cases pin the protocol, no clause of the rules
    group: str = "envelope"
    cannot_apply: str | None = None  # why a ruleset may have no value for one of its placeholders

    @functools.cached_property
    def refs(self) -> tuple[Ref, ...]:
        return tuple(parse_ref(r) for r in self.rulesets)

    def applies_to(self, ruleset: str) -> bool:
        return not self.refs or any(r.matches(ruleset) for r in self.refs)

    def under(self, ruleset: str, rules: Ruleset | None = None) -> EnvelopeCase | str:
        """The case as sent under ``ruleset`` (``rules``: its rules, if at hand), its placeholders filled; or the
        reason it cannot apply there, for a verdict that counts it skipped: it still counts."""
        if not self.applies_to(ruleset):
            return f"the case is written for {', '.join(self.rulesets)} only"
        values = values_for(ruleset, rules)
        try:
            lines = tuple(line.filled(values) for line in self.lines)
        except CannotFill as exc:  # the case's own words where its rules lack a value it says some may lack
            why = self.cannot_apply if exc.partial and self.cannot_apply else exc.why
            return f"it cannot apply under {ruleset}: {why}"
        return dataclasses.replace(self, lines=lines)

    def concrete_rulesets(self) -> list[str]:
        return concrete_names(self.refs, shipped_names())

    @property
    def stops(self) -> bool:
        """Whether the case ends with ``stop``: the process it runs on exits, so it runs after every other."""
        return bool(self.lines) and self.lines[-1].exit_status is not None

    def to_json(self) -> dict[str, Any]:
        return thaw(self.raw)  # type: ignore[no-any-return]


def envelope_under(ruleset: str) -> str:
    """The envelope under one ruleset, as verdicts and reports name it: every envelope case runs under each."""
    return f"envelope under {ruleset}"


def by_ruleset(placed: Iterable[tuple[EnvelopeCase, str]]) -> dict[str, list[str]]:
    """The ids of envelope cases placed under rulesets, per ruleset: a run's plan of its envelope."""
    out: dict[str, list[str]] = {}
    for case, ruleset in placed:
        out.setdefault(ruleset, []).append(case.id)
    return out


# ------------------------------------------------------------------ loading


def envelope_cases(doc: Document, name: str) -> list[EnvelopeCase]:
    """The envelope cases of a loaded file (one whose top level has ``envelope``); InputError otherwise."""
    from ..rules.schema import validate  # as for the cases: not needed when the suite comes from the cache

    problems = validate(doc, "envelope")
    if problems:
        raise InputError(problems)
    cases = []
    for i, raw in enumerate(doc.data["envelope"]):
        where = ("envelope", i)
        for k, ref in enumerate(raw.get("rulesets", ())):
            try:
                parse_ref(ref)
            except ValueError as exc:
                problems.append(doc.problem("FIXTURE_RULESET", str(exc), (*where, "rulesets", k)))
        lines = []
        partial = []
        for j, item in enumerate(raw["send"]):
            kind = next(k for k in ("json", "text", "hex", "fill") if k in item)
            problem = _stop_problem(item, kind, last=j == len(raw["send"]) - 1)
            if problem is not None:
                problems.append(doc.problem("ENVELOPE_STOP", problem, (*where, "send", j)))
            for word, as_key in used(kind, item[kind]):
                problem = placeholder_problem(word, as_key)
                if problem is not None:
                    problems.append(doc.problem("ENVELOPE_PLACEHOLDER", problem, (*where, "send", j, kind)))
                partial += [word] if word in BY_NAME and BY_NAME[word].partial else []
            lines.append(Line(kind, freeze(item[kind]), freeze(item["answer"])))
        problem = _cannot_apply_problem(partial, raw.get("cannot_apply"))
        if problem is not None:
            problems.append(doc.problem("ENVELOPE_PLACEHOLDER", problem, where))
        line = doc.locate(where)[0] or 0
        cases.append(
            EnvelopeCase(
                raw["id"], raw["title"], raw["topic"], tuple(raw.get("rulesets", ())), tuple(lines), name, line,
                raw.get("note"), freeze(raw), cannot_apply=raw.get("cannot_apply"),
            )
        )  # fmt: skip
    if problems:
        raise InputError(problems)
    return cases


def _cannot_apply_problem(partial: list[str], cannot_apply: str | None) -> str | None:
    """A case that uses a placeholder some ruleset has no value for says why it cannot apply; no other case does."""
    if partial and not cannot_apply:
        return f"{', '.join(dict.fromkeys(partial))}: some ruleset has none, so the case says why in cannot_apply"
    if cannot_apply and not partial:
        return "cannot_apply is for a case whose placeholders some ruleset cannot fill; every ruleset fills these"
    return None


def _stop_problem(item: Mapping[str, Any], kind: str, last: bool) -> str | None:
    """Why a line's stop, or its exit answer, is misplaced: a stop line is a case's last, answered by an exit."""
    stop = kind == "json" and isinstance(item["json"], dict) and item["json"].get("cmd") == "stop"
    exits = isinstance(item["answer"], dict) and EXIT in item["answer"]
    if stop and not (last and exits):
        return "a stop line ends the process: it is the last line of its case, and its answer is {exit: 0}"
    if exits and not stop:
        return 'only a stop line ({"cmd":"stop"}) is answered by an exit'
    return None


# ------------------------------------------------------------------ judging


def judge_answer(line: Line, raw: bytes | None, index: int, bounds: bool = True, codes: bool = True) -> str | None:
    """Why ``raw`` (an answer line, None for none) is not the answer ``line`` must get, or None.

    ``bounds``: an errored answer's message is held to the protocol's bounds (kit/answerbounds.py). ``codes``: a
    rejected step is held to its code (the code level); without, any refusal passes, as at the outcome level.
    """
    want = thaw(line.answer)
    where = f"line {index + 1} ({line.shown()})"
    if want == NONE:
        return None if raw is None else f"{where} must get no answer; got {_shown_raw(raw)}"
    if raw is None:
        return f"{where} got no answer"
    try:
        got = _wire.loads(raw, strict=True)
    except _wire.WireError as exc:
        return f"{where}: the answer is not JSON ({exc.message}): {_shown_raw(raw)}"
    if not isinstance(got, dict):
        return f"{where}: the answer is not a JSON object: {_shown_raw(raw)}"
    if HANDSHAKE in want:
        return _handshake_problem(where, got)
    if not _wire.same(got.get("seq"), want["seq"]) or "seq" not in got:
        return f"{where}: expected seq {_wire.dumps(want['seq'])}, got {_shown_seq(got)}"
    if want.get("errored") is True:
        return _errored_problem(where, got, bounds)
    if "errored" in got:
        return f"{where}: expected the answer to a run, got an errored answer: {_shown_raw(raw)}"
    return _steps_problem(where, got, want["steps"], codes)


def _handshake_problem(where: str, got: Mapping[str, Any]) -> str | None:
    """Why ``got`` is not the answer to a start that can be used (strictness.md, Answers), or None; a seq in it,
    like any field the answer to start does not name, is not judged."""
    shown = escape.text(_wire.dumps(got), SHOWN_ANSWER)
    rulesets = got.get("rulesets")
    if not _wire.same(got.get(HANDSHAKE), 1):
        return f"{where}: expected the answer to start, whose protocol is the integer 1; got {shown}"
    if not isinstance(rulesets, list) or not all(isinstance(r, str) for r in rulesets):
        return f"{where}: the answer to start has rulesets, a list of strings; got {shown}"
    if not isinstance(got.get("implementation"), dict):
        return f"{where}: the answer to start has implementation, an object; got {shown}"
    return None


def _errored_problem(where: str, got: Mapping[str, Any], bounds: bool = True) -> str | None:
    if got.get("errored") is not True:
        return f"{where}: expected an errored answer, got {escape.text(_wire.dumps(got), SHOWN_ANSWER)}"
    breach = message_breach(got) if bounds else None
    return None if breach is None else f"{where}: {breach.sentence}"


def _steps_problem(where: str, got: Mapping[str, Any], want: Sequence[str], codes: bool = True) -> str | None:
    steps = got.get("steps")
    if not isinstance(steps, list) or len(steps) != len(want):
        steps_text = escape.text(_wire.dumps(steps), SHOWN_ANSWER)
        return f"{where}: expected {counted(len(want), 'step', 'steps')}, got {steps_text}"
    for k, (step, expected) in enumerate(zip(steps, want, strict=True)):
        ok = isinstance(step, dict) and step.get("ok") is True
        code = step.get("error") if isinstance(step, dict) and step.get("ok") is False else None
        actual = "ok" if ok else code if isinstance(code, str) else None
        refused = isinstance(step, dict) and step.get("ok") is False
        if actual != expected and (codes or expected == "ok" or not refused):
            shown = escape.text(_wire.dumps(step), SHOWN_ANSWER)
            return f"{where}, step {k + 1}: expected {expected}, got {shown}"
    return None


def _shown_raw(raw: bytes) -> str:
    return escape.text(raw[: 4 * SHOWN_ANSWER].decode("utf-8", errors="replace"), SHOWN_ANSWER)


def _shown_seq(got: Mapping[str, Any]) -> str:
    return escape.text(_wire.dumps(got["seq"]), 40) if "seq" in got else "none"


def judge_sentinel(raw: bytes, seq: int) -> str | None:
    """Why ``raw`` is not the sentinel's errored answer: the lines before got more or fewer answers than stated."""
    line = Line("text", sentinel(seq).decode().strip(), freeze({"errored": True, "seq": seq}))
    # Only the count of answers is judged here: a message's bounds are judged on the case's own lines, and the
    # sentinel taking them for a missing answer would read on for answers that never come.
    problem = judge_answer(line, raw, 0, bounds=False)
    if problem is None:
        return None
    return (
        "after the case's lines, the next answer is not the errored answer to the harness's own line "
        f'{{"cmd":"run","seq":{seq}}}: a line got more or fewer answers than one ({_shown_raw(raw)})'
    )


def reference_answers(server: Any, case: EnvelopeCase, ruleset: str, seq: int) -> tuple[list[bytes], int]:
    """The reference's answer lines to a case's lines and the sentinel, served in-process from one input, and
    the status its serving returned (the adapter's exit status)."""
    import io

    data = b"".join(line.to_bytes(ruleset) for line in case.lines) + sentinel(seq)
    out = io.BytesIO()
    status = server.serve(io.BytesIO(data), out)
    return out.getvalue().splitlines(), status


def judge_exit(index: int, status: int | None, printed: bytes, waited: float, line: Line | None = None) -> str | None:
    """Why a process did not end as a stop line asks (exit status 0, nothing printed), or None.

    ``status`` is None when it was still running ``waited`` seconds after the line; negative when a signal ended it.
    ``line``: the stop line, shown whole (its other fields too, which may be what the process answered).
    """
    where = f"line {index + 1} ({line.shown() if line is not None else STOP_SHOWN})"
    if printed:
        return f"{where} must get no answer; got {_shown_raw(printed)}"
    if status is None:
        return (
            f"{where}: the process was still running {waited:g} s after stop; "
            "at stop it exits with status 0 (docs/reference/protocol.md)"
        )
    if status < 0:
        return f"{where}: the process was ended by signal {-status} after stop, instead of exiting with status 0"
    if status != 0:
        return f"{where}: the process exited with status {status} at stop; at stop it exits with status 0"
    return None


def judge_reference(case: EnvelopeCase, answers: list[bytes], seq: int, status: int = 0) -> str | None:
    """The first way the answer lines (in order, sentinel's last) and the serving's status break the case, or None."""
    pending = list(answers)
    for i, line in enumerate(case.lines):
        if line.exit_status is not None:  # stop: nothing more is answered, not even the sentinel
            return judge_exit(i, status, b"\n".join(pending), 0, line)
        raw = None if thaw(line.answer) == NONE else (pending.pop(0) if pending else b"")
        problem = judge_answer(line, raw, i)
        if problem is not None:
            return problem
    if len(pending) != 1:
        answers_left = counted(len(pending), "answer", "answers")
        return f"{answers_left} after the case's lines; exactly one, the sentinel's, was expected"
    return judge_sentinel(pending[0], seq)


def load_envelope_path(path: str | os.PathLike[str]) -> list[EnvelopeCase]:
    from ..rules.yamlsafe import load_path

    name = Path(os.fspath(path)).name
    return envelope_cases(load_path(os.fspath(path), display=name), name)


__all__ = [
    "EnvelopeCase",
    "Line",
    "envelope_cases",
    "judge_answer",
    "judge_exit",
    "judge_reference",
    "judge_sentinel",
    "reference_answers",
    "sentinel",
]
