"""The figures of a run with their intervals, rulesets side by side, and the tests of each difference.

``report(result)`` is the data ``vitou simulate --format json`` prints; its keys
are stable (new keys may come, none goes or changes meaning):

- ``vitou``, ``seed``, ``matches``, ``ranges`` (``[first, end)`` of each range of
  matches played, 0-based), ``players`` (``kind``, ``against``, ``budget``,
  ``described``), ``seconds`` and ``matches_per_second`` (null for merged runs),
  ``merged_from`` (the files, or []), ``method`` (how intervals and tests are
  made, in words, and ``level``, 0.05); ``form`` (``plain``, or ``duplicate``:
  each deal played twice, every player one seat on the second time), ``deals``
  (the matches of the ranges, each played twice in the duplicate form),
  ``paired`` (false for a merge with a file saved before pairs were counted),
  ``stopping`` (null, or how a run with --until-width stopped: ``until_width``,
  ``figure``, ``checkpoint``, ``max_matches``, ``width``, ``stopped_by``:
  ``width`` or ``max-matches``; with --sprt: ``h0``, ``h1``, ``alpha``,
  ``beta``, ``bounds`` (the LLR's [lower, upper]), ``figure``, ``checkpoint``,
  ``max_matches``, ``llr`` (null while the values have not varied),
  ``decision`` (``H0``, ``H1`` or null), ``stopped_by``: ``sprt`` or
  ``max-matches``);
- ``rulesets``: one object per ruleset, in the order given: ``ruleset``,
  ``twenty_at``, ``matches``, ``hands``; ``hands_per_match`` and
  ``hand_values`` (a mean: ``n``, ``mean``, ``sd``, ``ci95``, and
  ``distribution``, value -> count; hands_per_match adds ``median``, ``min``,
  ``max``; hand_values adds ``not_numeric``, the hands won by a match-winning
  bid, left out of the mean); ``endings`` and ``hand_results`` (name -> a
  share); shares ``first_dealer_side_won``, ``first_kind_won`` (null unless
  two kinds play), ``refusal`` (of hands), ``reached_twenty`` and
  ``reached_twenty_twenty`` (of matches), ``tied_tricks`` (of tricks); a share
  is ``count``, ``of``, ``share``, ``ci95``; ``values_by_refusal``
  (value -> count); ``counts``, the raw counts that merge;
  ``first_kind_advantage`` when two kinds play (the first kind's win share
  minus the second's, per match, over deals: ``form``, ``deals``,
  ``difference``, ``sd``, ``ci95``, ``statistic``, ``p``, ``significant``);
- ``differences``: for each ruleset after the first, ``ruleset``, ``baseline``
  (the first) and ``figures``: a list of ``figure`` (a key above, or
  ``endings/<name>``), ``test`` (``two-proportion z`` or ``Welch t``),
  ``baseline``, ``value``, ``difference``, ``statistic``, ``p``,
  ``significant`` (the unpaired test), and for a figure a match has one value
  of, ``paired``: the same difference deal by deal, ``form``, ``deals``,
  ``difference``, ``sd``, ``ci95``, ``statistic`` (null when every pair differs
  alike), ``p``, ``significant``, ``covariance`` and ``unpaired_ci95``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..rules import reader
from .figures import Figures, order
from .pairedfigs import DUPLICATE_METHOD, PAIRED_METHOD, is_match_figure, kind_advantage, paired_json
from .shards import Result
from .stats import LEVEL, Moments, median, moments, two_proportions, welch, wilson

METHOD = {
    "intervals": "95%",
    "shares": "Wilson score interval",
    "means": "normal approximation, mean ± 1.96 · sample sd / √n",
    "share_differences": "two-proportion z test (pooled), two-sided",
    "mean_differences": "Welch's t test, p from the normal approximation, two-sided",
    "level": LEVEL,
    "caveat": "each figure is tested on its own: among many figures, one in twenty differs at 5% by chance",
    "marks": "a figure a match has one value of is marked by its paired test, any other by its unpaired test",
    "paired_differences": PAIRED_METHOD,
    "duplicate": DUPLICATE_METHOD,
}
PROPORTION, MEAN = "two-proportion z", "Welch t"


def share(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"count": k, "of": n, "share": round(k / n, 4) if n else 0.0, "ci95": [round(lo, 4), round(hi, 4)]}


def mean_of(m: Moments, counts: Mapping[Any, int]) -> dict[str, Any]:
    lo, hi = m.interval()
    dist = {str(k): v for k, v in sorted(counts.items(), key=lambda kv: order(str(kv[0])))}
    return {"n": m.n, "mean": round(m.mean, 3), "sd": round(m.sd, 3), "ci95": [round(lo, 3), round(hi, 3)]} | {
        "distribution": dist
    }


def _by_count(c: Mapping[str, int]) -> list[str]:
    return sorted(c, key=lambda k: (-c[k], k))  # ties by name: the same order however the counts were merged


def numeric_values(f: Figures) -> dict[int, int]:
    return {reader.whole(k): v for k, v in f.values_won.items() if reader.is_whole(k, 16)}


def ruleset_figures(f: Figures, two_kinds: bool) -> dict[str, Any]:
    hands = f.hands
    hp = mean_of(moments(f.hands_per_match), f.hands_per_match)
    hp |= {"median": median(f.hands_per_match), "min": min(f.hands_per_match, default=0)}
    hp["max"] = max(f.hands_per_match, default=0)
    hv = mean_of(moments(numeric_values(f)), f.values_won)
    hv["not_numeric"] = sum(v for k, v in f.values_won.items() if not reader.is_whole(k, 16))
    return {
        "ruleset": f.ruleset,
        "twenty_at": f.twenty_at,
        "matches": f.matches,
        "hands": hands,
        "hands_per_match": hp,
        "endings": {k: share(f.endings[k], f.matches) for k in _by_count(f.endings)},
        "first_dealer_side_won": share(f.first_dealer_side_won, f.matches),
        "first_kind_won": share(f.first_kind_won, f.matches) if two_kinds else None,
        "hand_values": hv,
        "hand_results": {k: share(f.hand_results[k], hands) for k in _by_count(f.hand_results)},
        "refusal": share(f.hand_results["refusal"], hands),
        "reached_twenty": share(f.reached_twenty, f.matches),
        "reached_twenty_twenty": share(f.reached_twenty_twenty, f.matches),
        "tied_tricks": share(f.tied_tricks, f.tricks),
        "values_by_refusal": {k: f.values_by_refusal[k] for k in sorted(f.values_by_refusal, key=order)},
        "counts": f.to_raw(),
    }


def _p_test(name: str, k1: int, n1: int, k2: int, n2: int) -> dict[str, Any]:
    z, p = two_proportions(k1, n1, k2, n2)
    a, b = (k1 / n1 if n1 else 0.0), (k2 / n2 if n2 else 0.0)
    return _test(name, PROPORTION, a, b, z, p, 4)


def _m_test(name: str, a: Moments, b: Moments) -> dict[str, Any]:
    t, p = welch(a, b)
    return _test(name, MEAN, a.mean, b.mean, t, p, 3)


def _test(name: str, test: str, a: float, b: float, stat: float, p: float, digits: int) -> dict[str, Any]:
    return {
        "figure": name,
        "test": test,
        "baseline": round(a, digits),
        "value": round(b, digits),
        "difference": round(b - a, digits),
        "statistic": round(stat, 3),
        "p": float(f"{p:.4g}"),
        "significant": p < LEVEL,
    }


def differences(a: Figures, b: Figures, two_kinds: bool) -> list[dict[str, Any]]:
    """Each figure of ``b`` tested against ``a``'s: the same matches' seeds, under two rulesets."""
    out = [_m_test("hands_per_match", moments(a.hands_per_match), moments(b.hands_per_match))]
    for name in sorted(set(a.endings) | set(b.endings), key=lambda k: (-(a.endings[k] + b.endings[k]), k)):
        out.append(_p_test(f"endings/{name}", a.endings[name], a.matches, b.endings[name], b.matches))
    out.append(_p_test("first_dealer_side_won", a.first_dealer_side_won, a.matches, b.first_dealer_side_won, b.matches))
    if two_kinds:
        out.append(_p_test("first_kind_won", a.first_kind_won, a.matches, b.first_kind_won, b.matches))
    out.append(_m_test("hand_values", moments(numeric_values(a)), moments(numeric_values(b))))
    for name in sorted(set(a.hand_results) | set(b.hand_results)):
        out.append(_p_test(f"hand_results/{name}", a.hand_results[name], a.hands, b.hand_results[name], b.hands))
    refused = a.hand_results["refusal"], b.hand_results["refusal"]
    out.append(_p_test("refusal", refused[0], a.hands, refused[1], b.hands))
    out.append(_p_test("reached_twenty", a.reached_twenty, a.matches, b.reached_twenty, b.matches))
    tt = a.reached_twenty_twenty, b.reached_twenty_twenty
    out.append(_p_test("reached_twenty_twenty", tt[0], a.matches, tt[1], b.matches))
    out.append(_p_test("tied_tricks", a.tied_tricks, a.tricks, b.tied_tricks, b.tricks))
    return out


def report(result: Result) -> dict[str, Any]:
    """Everything ``--format json`` prints (the keys are in this module's docstring)."""
    two = result.lineup.against is not None
    figs = result.figures
    seconds = None if result.seconds is None else round(result.seconds, 3)
    rate = round(result.matches / result.seconds, 1) if result.seconds else None
    rulesets = [ruleset_figures(f, two) for f in figs]
    comparisons: list[dict[str, Any]] = [
        {"ruleset": f.ruleset, "baseline": figs[0].ruleset, "figures": differences(figs[0], f, two)} for f in figs[1:]
    ]
    pairs = result.pairs
    if pairs is not None:  # a merge with a file saved before pairs were counted has the unpaired figures only
        for k, (r, c) in enumerate(zip(rulesets, [None, *comparisons])):  # ruleset 0 is the baseline
            if two:
                r["first_kind_advantage"] = kind_advantage(pairs, k)
            for entry in [] if c is None else c["figures"]:
                if is_match_figure(entry["figure"]):
                    entry["paired"] = paired_json(pairs, entry["figure"], 0, k)
    return {
        "vitou": result.vitou,
        "seed": result.seed,
        "matches": result.matches,
        "ranges": [list(r) for r in result.ranges],
        "players": result.lineup.to_json() | {"described": result.lineup.describe()},
        "seconds": seconds,
        "matches_per_second": rate,
        "merged_from": list(result.sources),
        "method": METHOD,
        "form": result.form,
        "deals": result.deals,
        "paired": pairs is not None,
        "stopping": result.stopping,
        "rulesets": rulesets,
        "differences": comparisons,
    }


@dataclass(frozen=True)
class Row:
    """One line of the side-by-side table: a figure's label, its value in each ruleset, and what the tests said."""

    label: str
    cells: tuple[str, ...]
    marks: tuple[bool, ...] = ()  # per ruleset after the first: is its difference from the first significant
    section: bool = False


LABELS = {
    "hands_per_match": "hands per match (mean)",
    "first_dealer_side_won": "first dealer's side wins",
    "first_kind_won": "{kind} wins (against {against})",
    "hand_values": "value of a hand won (mean)",
    "refusal": "hands decided by a refusal",
    "reached_twenty": "matches reaching {at}",
    "reached_twenty_twenty": "matches reaching {at}-{at}",
    "tied_tricks": "tied tricks",
}


# What is printed is rounded once, from the exact figures: the JSON's values are already rounded (to 4 and
# 3 places), and rounding them again to the places shown can move the last digit (65.853% was shown 65.8).


def pct(s: Mapping[str, Any]) -> str:
    k, n = s["count"], s["of"]
    lo, hi = wilson(k, n)
    return f"{100 * (k / n if n else 0.0):.1f}% [{100 * lo:.1f}–{100 * hi:.1f}]"


def avg(m: Mapping[str, Any]) -> str:
    exact = moments({reader.whole(k): v for k, v in m["distribution"].items() if reader.is_whole(str(k), 16)})
    lo, hi = exact.interval()
    return f"{exact.mean:.2f} [{lo:.2f}–{hi:.2f}]"


def label(key: str, rep: Mapping[str, Any]) -> str:
    if "/" in key:
        return "  " + key.split("/", 1)[1]
    at = "/".join(dict.fromkeys(str(r["twenty_at"]) for r in rep["rulesets"] if r["twenty_at"])) or "0"
    players = rep["players"]
    return LABELS[key].format(at=at, kind=players["kind"], against=players["against"])


def rows(rep: Mapping[str, Any]) -> list[Row]:
    """The figures as rows of a table, one column per ruleset, marked where a difference from the first is
    significant (paired where the figure has pairs, as ``METHOD["marks"]`` says)."""
    rs = rep["rulesets"]
    # A figure a match has one value of is marked by its paired test: the same deals under both rulesets.
    per = [{t["figure"]: t.get("paired", t)["significant"] for t in d["figures"]} for d in rep["differences"]]

    def row(key: str, cell: Any) -> Row:
        return Row(label(key, rep), tuple(cell(r) for r in rs), tuple(bool(p.get(key)) for p in per))

    out = [row("hands_per_match", lambda r: avg(r["hands_per_match"]))]
    out.append(Row("how matches end", tuple("" for _ in rs), section=True))
    endings = [k for r in rs for k in r["endings"]]
    for name in dict.fromkeys(endings):
        out.append(row(f"endings/{name}", lambda r, n=name: pct(r["endings"].get(n) or share(0, r["matches"]))))
    out.append(Row("other figures", tuple("" for _ in rs), section=True))
    out.append(row("first_dealer_side_won", lambda r: pct(r["first_dealer_side_won"])))
    if rep["players"]["against"] is not None:
        out.append(row("first_kind_won", lambda r: pct(r["first_kind_won"])))
    out.append(row("hand_values", lambda r: avg(r["hand_values"])))
    out.append(Row("how hands end (share of hands)", tuple("" for _ in rs), section=True))
    for name in sorted({k for r in rs for k in r["hand_results"]}):
        # A way of ending a hand that one ruleset never saw is 0 of its hands, not 0 of 0.
        out.append(row(f"hand_results/{name}", lambda r, n=name: pct(r["hand_results"].get(n) or share(0, r["hands"]))))
    # The share of hands decided by a refusal is the "refusal" line above; it is not repeated.
    # A game with no twenty-point ending (Le Truc: at 0) has no score to reach: its lines would say "reaching 0".
    twenty = any(r["twenty_at"] for r in rs)
    for key in ("reached_twenty", "reached_twenty_twenty", "tied_tricks") if twenty else ("tied_tricks",):
        out.append(row(key, lambda r, k=key: pct(r[k])))
    return out


@dataclass(frozen=True)
class Chart:
    """One chart: categories along an axis, and for each ruleset the share of its matches (or hands) in each."""

    title: str
    axis: str  # what the categories are
    unit: str  # what the shares are shares of
    categories: tuple[str, ...]
    shares: dict[str, tuple[float, ...]]  # ruleset -> share in each category, 0 to 1


def charts(rep: Mapping[str, Any]) -> list[Chart]:
    """What the charts draw, the same for --plot and the HTML page: distributions as shares, so that rulesets of
    different lengths compare."""
    rs = rep["rulesets"]

    def chart(title: str, axis: str, unit: str, get: Any, cats: list[str]) -> Chart:
        shares = {}
        for r in rs:
            counts, total = get(r)
            shares[r["ruleset"]] = tuple(counts.get(c, 0) / total if total else 0.0 for c in cats)
        return Chart(title, axis, unit, tuple(cats), shares)

    lengths = {
        reader.whole(k) for r in rs for k in r["hands_per_match"]["distribution"]
    }  # mean_of wrote them from counts
    length_cats = [str(n) for n in range(min(lengths, default=0), max(lengths, default=0) + 1)]
    endings = list(dict.fromkeys(k for r in rs for k in r["endings"]))
    values = sorted({k for r in rs for k in r["hand_values"]["distribution"]}, key=order)
    return [
        chart(
            "Match length",
            "hands in the match",
            "matches",
            lambda r: (r["hands_per_match"]["distribution"], r["matches"]),
            length_cats,
        ),
        chart(
            "How matches end",
            "ending",
            "matches",
            lambda r: ({k: v["count"] for k, v in r["endings"].items()}, r["matches"]),
            endings,
        ),
        chart(
            "Value of hands won",
            "points of the hand",
            "hands won",
            lambda r: (r["hand_values"]["distribution"], sum(r["hand_values"]["distribution"].values())),
            values,
        ),
    ]


__all__ = [
    "LABELS",
    "METHOD",
    "Chart",
    "Row",
    "charts",
    "differences",
    "label",
    "report",
    "rows",
    "ruleset_figures",
    "share",
]
