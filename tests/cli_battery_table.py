"""Where each option of the vitou command is fed the battery: a context per command that makes it quick and
meaningful, and per option what it is (which decides what its runs must do) and a value it accepts.

A context is a command line in shell words, with ``{}`` where the value under test goes (once per value the
option takes). Without a context of its own an option is appended to its command's base. Names in a context
are files of the run's working directory (tests/cli_battery.py's MATERIALS); ``{python}`` is this interpreter.
A command or an option that takes a value and has no entry here fails the coverage test: a new option is
given its context, its role and a good value when it is added.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Role(enum.Enum):
    NUMBER = "number"  # a count, a duration, a seed, a port, a size: ASCII digits only, so Unicode digits exit 2
    CHOICE = "choice"  # argparse choices: no value of the battery is one, so every run exits 2
    INPUT = "input"  # a file, a directory or a name of one, read
    OUTPUT = "output"  # a file or a directory written: the only place a run may write
    TEXT = "text"  # ids, names, globs, a command line, an address


@dataclass(frozen=True)
class Opt:
    role: Role
    good: str = ""  # a value the context accepts, in shell words (two for nargs=2); CHOICE: its first choice
    context: str | None = None  # None: the command's base, then the option and {}
    good_status: tuple[int, ...] = (0, 1)  # what the context exits with the good value


@dataclass(frozen=True)
class Cmd:
    base: str  # the quick, meaningful run of the command, without the command's words
    opts: dict[str, Opt] = field(default_factory=dict)  # by longest option string, or a positional's dest


NUMBER, CHOICE, INPUT, OUTPUT, TEXT = Role.NUMBER, Role.CHOICE, Role.INPUT, Role.OUTPUT, Role.TEXT
LIMITS = {  # certify's and fuzz's limits of the implementation
    "--limit-memory": Opt(NUMBER, "4G"),
    "--limit-cpu": Opt(NUMBER, "3600"),
    "--limit-file-size": Opt(NUMBER, "1G"),
    "--limit-open-files": Opt(NUMBER, "1024"),
}
# simulate's stopping rules need one another: a bounded run that stops early.
UNTIL = "simulate --until-width 0.5 --checkpoint 2 --max-matches 4"
# The bundled reference named as an implementation's command: one word, split by certify and fuzz themselves.
REFERENCE = "'{python} -m vitou_ref.adapter'"

TABLE: dict[str, Cmd] = {
    "spec check": Cmd("rules.yaml", {"files": Opt(INPUT, "rules.yaml", "spec check {}"), "--format": Opt(CHOICE)}),
    "spec diff": Cmd(
        "old.yaml rules.yaml",
        {
            "old": Opt(INPUT, "old.yaml", "spec diff {} rules.yaml"),
            "new": Opt(INPUT, "rules.yaml", "spec diff old.yaml {}"),
            "--format": Opt(CHOICE),
        },
    ),
    "rulesets": Cmd(""),
    "match": Cmd("--seed 1", {"--seed": Opt(NUMBER, "1", "match --seed {}"), "--ruleset": Opt(INPUT, "vitou")}),
    "bench engine": Cmd(
        "--seconds 0.05 --repeat 1",
        {
            "--ruleset": Opt(INPUT, "vitou"),
            "--seconds": Opt(NUMBER, "0.05", "bench engine --repeat 1 --seconds {}"),
            "--repeat": Opt(NUMBER, "1", "bench engine --seconds 0.05 --repeat {}"),
            "--format": Opt(CHOICE),
        },
    ),
    "bench harness": Cmd(
        "--rounds 1", {"--rounds": Opt(NUMBER, "1", "bench harness --rounds {}"), "--format": Opt(CHOICE)}
    ),
    "fixtures check": Cmd(
        "--suite suite.yaml",
        {
            "--suite": Opt(INPUT, "suite.yaml", "fixtures check --suite {}"),
            "--ruleset": Opt(TEXT, "vitou/1.0.0"),
            "--rules": Opt(INPUT, "profile.yaml"),
            "--format": Opt(CHOICE),
        },
    ),
    "fixtures export": Cmd(
        "--suite suite.yaml",
        {
            "--suite": Opt(INPUT, "suite.yaml", "fixtures export --suite {}"),
            "--format": Opt(CHOICE),
            "--output": Opt(OUTPUT, "out.json"),
        },
    ),
    "profile resolve": Cmd(
        "profile.yaml", {"ruleset": Opt(INPUT, "profile.yaml", "profile resolve {}"), "--format": Opt(CHOICE)}
    ),
    "profile diff": Cmd(
        "vitou profile.yaml",
        {
            "a": Opt(INPUT, "vitou", "profile diff {} profile.yaml"),
            "b": Opt(INPUT, "profile.yaml", "profile diff vitou {}"),
            "--format": Opt(CHOICE),
        },
    ),
    "simulate": Cmd(
        "--matches 2",
        {
            "--ruleset": Opt(INPUT, "vitou"),
            "--matches": Opt(NUMBER, "2", "simulate --matches {}"),
            "--seed": Opt(NUMBER, "1"),
            "--first": Opt(NUMBER, "3"),
            "--players": Opt(CHOICE),
            "--against": Opt(CHOICE),
            "--budget": Opt(NUMBER, "1", "simulate --matches 1 --players search --budget {}"),
            "--format": Opt(CHOICE),
            "--output": Opt(OUTPUT, "out.txt"),
            "--plot": Opt(OUTPUT, "chart.svg"),
            "--jobs": Opt(NUMBER, "1"),
            # No cluster is started: the good address is one nobody listens at, refused once Dask gives up.
            "--scheduler": Opt(
                TEXT, "tcp://127.0.0.1:9", "simulate --matches 2 --scheduler-timeout 1 --scheduler {}", (2,)
            ),
            "--scheduler-timeout": Opt(
                NUMBER, "1", "simulate --matches 2 --scheduler tcp://127.0.0.1:9 --scheduler-timeout {}", (2,)
            ),
            "--until-width": Opt(NUMBER, "0.5", "simulate --checkpoint 2 --max-matches 4 --until-width {}"),
            "--sprt": Opt(NUMBER, "2 3", "simulate --checkpoint 2 --max-matches 4 --sprt {} {}"),
            "--until-figure": Opt(TEXT, "hands_per_match", UNTIL + " --until-figure {}"),
            "--checkpoint": Opt(NUMBER, "2", "simulate --until-width 0.5 --max-matches 4 --checkpoint {}"),
            "--max-matches": Opt(NUMBER, "4", "simulate --until-width 0.5 --checkpoint 2 --max-matches {}"),
            "--save": Opt(OUTPUT, "counts-out.json"),
            "--merge": Opt(INPUT, "counts.json", "simulate --merge {}"),
        },
    ),
    "analyze": Cmd(
        "--ruleset vitou --sample 10",
        {
            "--ruleset": Opt(INPUT, "vitou", "analyze --sample 10 --ruleset {}"),
            "--sample": Opt(NUMBER, "10", "analyze --ruleset vitou --sample {}"),
            "--seed": Opt(NUMBER, "1"),
            "--max-positions": Opt(NUMBER, "10000000"),
            "--format": Opt(CHOICE),
        },
    ),
    "record": Cmd(
        "record.yaml",
        {
            "file": Opt(INPUT, "record.yaml", "record {}"),
            "--to": Opt(CHOICE),
            "--from-case": Opt(TEXT, "VT-0001", "record --from-case {}"),
            "--suite": Opt(INPUT, "bundled", "record --from-case VT-0001 --suite {}"),
            "--ruleset": Opt(TEXT, "vitou", "record --from-case VT-0001 --ruleset {}"),
            "--output": Opt(OUTPUT, "out.yaml"),
        },
    ),
    "audit": Cmd(
        "record.yaml",
        {
            "record": Opt(INPUT, "record.yaml", "audit {}"),
            "--dispute": Opt(TEXT, "03", "audit --dispute {}"),
            "--ruleset": Opt(INPUT, "vitou/1.1.0"),
            "--at": Opt(NUMBER, "2"),
            "--lang": Opt(CHOICE),
            "--format": Opt(CHOICE),
            "--output": Opt(OUTPUT, "out.txt"),
            "--compare-ruleset": Opt(INPUT, "vitou/1.1.0"),
        },
    ),
    "rulebook": Cmd(
        "",
        {
            "--ruleset": Opt(INPUT, "vitou"),
            "--lang": Opt(CHOICE),
            "--format": Opt(CHOICE),
            "--suite": Opt(INPUT, "bundled"),
            "--output": Opt(OUTPUT, "out.md"),
        },
    ),
    # The desk serves until Ctrl-C; the runner stops it as soon as it listens. --no-browser: nothing opened.
    "desk": Cmd("--no-browser", {"--port": Opt(NUMBER, "0"), "--save-dir": Opt(OUTPUT, "dir"), "--lang": Opt(CHOICE)}),
    "fuzz": Cmd(
        "--examples 1 --seed 1",
        {
            "--impl": Opt(TEXT, REFERENCE),
            "--ruleset": Opt(INPUT, "vitou"),
            "--examples": Opt(NUMBER, "1", "fuzz --seed 1 --examples {}"),
            "--seed": Opt(NUMBER, "1", "fuzz --examples 1 --seed {}"),
            "--max-seconds": Opt(NUMBER, "20"),
            "--timeout": Opt(NUMBER, "10"),
            "--start-timeout": Opt(NUMBER, "20"),
            "--max-restarts": Opt(NUMBER, "0"),
            "--save": Opt(OUTPUT, "failures"),
            "--expect": Opt(INPUT, "expect.yaml"),  # any text: its lines are kinds, none of which the run meets
            "--illegal": Opt(NUMBER, "12"),
            "--level": Opt(CHOICE),
            **LIMITS,
        },
    ),
    "mutants": Cmd(
        "--only rank-9-above-10",
        {
            "--ruleset": Opt(TEXT, "vitou"),
            "--only": Opt(TEXT, "rank-9-above-10", "mutants --only {}"),
            "--fuzz-examples": Opt(NUMBER, "2", "mutants --only rank-9-above-10 --fuzz --fuzz-examples {}"),
            "--seed": Opt(NUMBER, "1", "mutants --only rank-9-above-10 --fuzz --fuzz-examples 2 --seed {}"),
            "--min-score": Opt(NUMBER, "95"),
            "--format": Opt(CHOICE),
            "--suite": Opt(INPUT, "bundled"),
        },
    ),
    "certify": Cmd(
        "--only VT-0001",
        {
            "--impl": Opt(TEXT, REFERENCE),
            "--ruleset": Opt(TEXT, "vitou"),
            "--suite": Opt(INPUT, "suite.yaml", "certify --suite {}"),
            "--only": Opt(TEXT, "VT-0001", "certify --only {}"),
            "--expect": Opt(INPUT, "expect.yaml"),
            "--report": Opt(OUTPUT, "report-out.jsonl"),
            "--junit": Opt(OUTPUT, "out.xml"),
            "--format": Opt(CHOICE),
            "--save-failed": Opt(OUTPUT, "failed"),
            "--timeout": Opt(NUMBER, "10"),
            "--start-timeout": Opt(NUMBER, "20"),
            "--level": Opt(CHOICE),
            "--max-restarts": Opt(NUMBER, "0"),
            "--rules": Opt(INPUT, "profile.yaml"),
            **LIMITS,
        },
    ),
    "report": Cmd(
        "report.jsonl",
        {
            "files": Opt(INPUT, "report.jsonl", "report {}"),
            "--format": Opt(CHOICE),
            "--output": Opt(OUTPUT, "out.txt"),
            "--rulebook": Opt(INPUT, "rulebook.html", "report report.jsonl --format html --rulebook {}"),
            "--badge": Opt(OUTPUT, "badges"),
        },
    ),
    "adapter": Cmd("", {"--rules": Opt(INPUT, "profile.yaml"), "--mutant": Opt(TEXT, "rank-9-above-10")}),
    "completion": Cmd("bash", {"shell": Opt(CHOICE, context="completion {}")}),
}
