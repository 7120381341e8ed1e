"""``vitou match``, ``fuzz`` and ``mutants``: a random match, and the hunt for divergences."""

from __future__ import annotations

import argparse
import contextlib
import random
import sys

from ..present.escape import text
from . import limits as _limits
from . import options as _o
from .fuzzrun import HYPOTHESIS_HOME, hypothesis_home
from .output import print_json
from .progress import HELP as PROGRESS_HELP
from .progress import ProgressLine


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    _add_match(sub)
    _add_fuzz(sub)
    _add_mutants(sub)


def _add_match(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    match = sub.add_parser(
        "match",
        help="play one random match with the reference and print an account",
        description="Play one random match with the reference and print an account of it, hand by hand. "
        "The same seed tells the same story.",
    )
    match.add_argument("--seed", type=_o.seed, default=None, help="the seed (default: a random one, printed)")
    match.add_argument("--ruleset", default="vitou", help="ruleset id, id/version or file (default: vitou)")
    match.set_defaults(run=cmd_match)


def _add_fuzz(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fz = sub.add_parser(
        "fuzz",
        help="hunt for divergences between an implementation and the reference with random matches",
        description="Random matches, with a share of illegal actions, played on the reference and sent to the "
        "implementation. A divergence does not end the run: each kind of divergence (what its first differing "
        "step shows) is shrunk once to the smallest case that shows it, written as a fixture under --save (the "
        "only files a run writes in the working directory), and set aside, and the search goes on. Hypothesis keeps no example database (a run is "
        f"replayed from its seed), and its caches go to {HYPOTHESIS_HOME}, or to HYPOTHESIS_STORAGE_DIRECTORY "
        "when it is set. Bounded: after a crash, a hang or a broken line the implementation is restarted, at most "
        "R (--max-restarts) times while searching and shrinking, and twice more to check each kind found on a fresh "
        "start; so with S the --start-timeout, T the --timeout and K the kinds found (at most 10: the run stops "
        "at the tenth), faults cost at most (R + 1 + 2K) x (S + T) + 1 s (241 s with the defaults and one kind, "
        "(R + 3) x (S + T) + 1 s), plus T for each answer that comes just within its deadline; with "
        "--max-seconds M nothing is sent after M, and the run ends by M + max(S, T) + 1 s. "
        "Exit status: 0 no divergence but of the kinds --expect lists, 1 a divergence of a new kind or a restart "
        "that changed the identity, 2 the fuzzer could not run.",
    )
    fz.add_argument(
        "--impl", type=_o.command, metavar="COMMAND", help="the implementation (default: the bundled reference)"
    )
    fz.add_argument("--ruleset", default="vitou", metavar="ID", help="ruleset id, id/version or file (default: vitou)")
    fz.add_argument("--examples", type=_o.positive_int, default=2000, metavar="N", help="matches to try (default 2000)")
    fz.add_argument(
        "--seed", type=_o.seed, default=None, metavar="S", help="for a reproducible run (default: random, printed)"
    )
    fz.add_argument(
        "--max-seconds",
        type=_o.positive_seconds,
        default=None,
        metavar="M",
        help="stop after this long, the search, the shrinking and the check on a fresh start all included; "
        "a request or a start under way when the time is up is waited for (default: no limit)",
    )
    fz.add_argument("--timeout", type=_o.positive_seconds, default=10.0, metavar="SEC", help="per request (default 10)")
    fz.add_argument(
        "--start-timeout",
        type=_o.positive_seconds,
        default=30.0,
        metavar="SEC",
        help="for the answer to start (default 30)",
    )
    fz.add_argument(
        "--max-restarts",
        type=_o.count,
        default=3,
        metavar="N",
        help="restarts after a crash or hang while searching and shrinking, as certify's (default 3); when they "
        "are spent, the divergence found so far is reported",
    )
    fz.add_argument(
        "--save",
        metavar="DIR",
        default="fuzz-failures",
        help="the directory the fixture of a divergence is written to, created if needed, under a name no earlier "
        "run has taken; relative to the working directory (default: %(default)s)",
    )
    fz.add_argument(
        "--illegal",
        type=_o.whole_percent,
        default=12,
        metavar="PCT",
        help="share of illegal actions, in percent (default 12)",
    )
    fz.add_argument("--level", choices=("code", "outcome"), help=_o.LEVEL_HELP)
    fz.add_argument(
        "--expect",
        metavar="FILE",
        action="append",
        help="divergences already known, set aside and counted, not reported: a file of kinds, one a line, as fuzz "
        "prints them (kind: ...), or a fixture fuzz saved (repeatable)",
    )
    fz.add_argument("--progress", action="store_true", help=PROGRESS_HELP)
    _limits.add_options(fz)
    fz.set_defaults(run=cmd_fuzz)


def _add_mutants(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mut = sub.add_parser(
        "mutants",
        help="the suite's mutation score: run the suite (and optionally the fuzzer) against deliberately wrong rules",
        description="The suite's mutation score: serve each deliberately wrong version of the rules (a mutant), "
        "run the suite against it, and count the mutants the suite tells apart from the reference. Exit status: "
        "0 the score reaches --min-score, 1 it does not, 2 a mutant could not be run.",
    )
    mut.add_argument(
        "--ruleset",
        default="vitou",
        metavar="ID",
        help="the version of vitou, le-truc or truco-paulista to make the mutants from, and whose cases run (default: vitou, the "
        "latest)",
    )
    mut.add_argument("--only", action="append", metavar="NAME", help="only these mutants (repeatable)")
    mut.add_argument(
        "--fuzz", action="store_true", help="also fuzz each mutant (hypothesis's caches go where vitou fuzz says)"
    )
    mut.add_argument(
        "--fuzz-examples",
        type=_o.positive_int,
        default=400,
        metavar="N",
        help="with --fuzz: matches per mutant (default: 400)",
    )
    mut.add_argument("--seed", type=_o.seed, default=1, help="with --fuzz: the fuzzer's seed (default: 1)")
    mut.add_argument(
        "--min-score", type=_o.percent, default=95.0, metavar="PCT", help="exit 1 below this score (default 95)"
    )
    mut.add_argument(
        "--format", choices=("text", "json", "markdown"), default="text", help="output format (default: text)"
    )
    mut.add_argument("--suite", metavar="DIR|NAME", help="the suite to score; " + _o.SUITE_HELP)
    mut.add_argument("--progress", action="store_true", help=PROGRESS_HELP)
    mut.set_defaults(run=cmd_mutants)


# ----------------------------------------------------------------- commands


def cmd_match(args: argparse.Namespace) -> int:
    return play_match(args.ruleset, args.seed)


def play_match(ruleset: str, seed: int | None) -> int:
    from ..audit.account import account
    from ..engine.match import Match
    from ..rules.registry import load_ruleset

    rules = load_ruleset(ruleset)
    seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    match = Match.random(rules, rng)
    print(f"{rules.name}, seed {seed}")
    print("\n".join(text(line) for line in account(match, rng)))  # the seats' and sides' names: a profile's words
    return 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    from .fuzzrun import fuzz

    return fuzz(
        args.impl,
        args.ruleset,
        examples=args.examples,
        seed=args.seed,
        max_seconds=args.max_seconds,
        timeout=args.timeout,
        start_timeout=args.start_timeout,
        max_restarts=args.max_restarts,
        save=args.save,
        illegal=args.illegal,
        progress=args.progress,
        limits=_limits.from_args(args),
        level=args.level,
        expect=args.expect or [],
    )


def cmd_mutants(args: argparse.Namespace) -> int:
    return mutants(
        args.ruleset,
        args.only,
        fuzz=args.fuzz,
        fuzz_examples=args.fuzz_examples,
        seed=args.seed,
        min_score=args.min_score,
        fmt=args.format,
        suite=args.suite,
        progress=args.progress,
    )


def mutants(
    ruleset: str,
    only: list[str] | None,
    *,
    fuzz: bool,
    fuzz_examples: int,
    seed: int,
    min_score: float,
    fmt: str,
    suite: str | None,
    progress: bool,
) -> int:
    from ..hunt.mutants import BY_NAME, GAMES
    from ..hunt.mutation import Row, render_mutation, run_mutation

    if fuzz_examples < 1 or not 0 <= min_score <= 100:
        print("vitou mutants: --fuzz-examples must be at least 1 and --min-score between 0 and 100", file=sys.stderr)
        return 2
    from ..rules.registry import load_ruleset

    base = load_ruleset(ruleset)
    if base.id not in GAMES or base.extends is not None:
        games = " or ".join(GAMES)
        print(f"vitou mutants: mutants are made from a version of {games}, not {base.name}", file=sys.stderr)
        return 2
    # A name is a mutant of one game only: another game's, or one its version cannot make, would run nothing.
    own = [n for n, m in BY_NAME.items() if m.applies_to(base.version, base.id)]
    unknown = [n for n in only or [] if n not in own]
    if unknown:
        print(
            f"vitou mutants: no mutant {', '.join(unknown)} of {base.name} (its mutants: {', '.join(own)})",
            file=sys.stderr,
        )
        return 2
    total = sum(BY_NAME[n].applies_to(base.version, base.id) for n in only or BY_NAME)
    with ProgressLine(f"mutants {base.name}", total, unit="mutants", failed="not killed", force=progress) as shown:

        def note(row: Row) -> None:
            shown.advance(failed=row.status in ("survived", "not run"))

        with hypothesis_home() if fuzz else contextlib.nullcontext():
            table = run_mutation(base.name, only, fuzz, fuzz_examples, seed, suite_path=suite, progress=note)
    if fmt == "json":
        print_json(table.to_json())
    else:
        sys.stdout.write(render_mutation(table, markdown=fmt == "markdown"))
    if any(r.problem is not None for r in table.rows):
        return 2
    return 0 if table.score >= min_score else 1


__all__ = ["add_parsers", "mutants", "play_match"]
