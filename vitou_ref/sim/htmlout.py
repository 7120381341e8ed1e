"""A simulation as one self-contained HTML page: the figures side by side, and the charts as HTML bars, no script."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..present import escape
from ..present.page import document
from .compare import Chart, charts, label, rows
from .plot import colour
from .textout import header

# The charts are HTML and CSS bars, drawn with or without matplotlib: the page
# is the same whatever is installed, reflows to a phone's width, and its
# numbers are text that can be read, searched and copied.
CSS = """
:root{--measure:60rem}
th[scope=row]{min-width:8rem}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.ci{display:block;font-size:.8rem;color:var(--muted)}
td.sig{font-weight:700;background:#fff3dc}
tr.section th{background:#e8ecf6}
th.sub{padding-left:1.5rem;font-weight:400}
.legend{display:flex;flex-wrap:wrap;gap:.3rem 1rem;padding:0;margin:.5rem 0;list-style:none;font-size:.9rem}
.key{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:-.1em}
.chart{margin:.5rem 0 1.5rem}
.cat{display:grid;grid-template-columns:minmax(5rem,14rem) 1fr;gap:.5rem;align-items:center;padding:.15rem 0;
border-top:1px solid #eee}
.cat>span{font-size:.85rem}
.bars{min-width:0}
.bar{display:flex;align-items:center;gap:.3rem;height:.95rem;font-size:.75rem;font-variant-numeric:tabular-nums}
.bar i{display:block;height:.7rem;min-width:1px}
@media (max-width:40rem){.cat{grid-template-columns:6.5rem 1fr}}
.short .cat{grid-template-columns:2.5rem 1fr}
@media print{.bar i{print-color-adjust:exact;-webkit-print-color-adjust:exact}}
"""


def _e(text: Any) -> str:
    return escape.html(str(text))


def page(rep: Mapping[str, Any]) -> str:
    """The whole page: nothing fetched, nothing run, so that it can be mailed, archived or printed."""
    names = [r["ruleset"] for r in rep["rulesets"]]
    versus = " vs ".join(str(n) for n in names)
    body = [
        "<h2>Figures</h2>",
        _table(rep, names),
        *_paired(rep),
        "<h2>Charts</h2>",
        _legend(names),
        *(_chart(c, names) for c in charts(rep)),
    ]
    return document(
        lang="en",
        title=f"Simulation: {versus}",
        kind="Simulation",
        heading=versus,
        provenance=header(rep),
        body=body,
        footer=f"vitou {rep['vitou']}",
        css=CSS,
    )


def _table(rep: Mapping[str, Any], names: list[str]) -> str:
    out = ['<div class="scroll"><table>', "<thead><tr><th>figure: value [95% interval]</th>"]
    out += [f'<th scope="col">{_e(n)}</th>' for n in names]
    out.append("</tr></thead><tbody>")
    for r in rows(rep):
        if r.section:
            out.append(f'<tr class="section"><th colspan="{len(names) + 1}">{_e(r.label)}</th></tr>')
            continue
        sub = ' class="sub"' if r.label.startswith("  ") else ""
        cells = []
        for i, c in enumerate(r.cells):
            sig = 0 < i <= len(r.marks) and r.marks[i - 1]
            mark = ' <abbr title="differs significantly from the first ruleset">*</abbr>' if sig else ""
            value, _, ci = c.partition(" [")
            ci = f'<span class="ci">[{_e(ci)}</span>' if ci else ""
            cells.append(f'<td class="num{" sig" if sig else ""}">{_e(value)}{mark}{ci}</td>')
        out.append(f'<tr><th scope="row"{sub}>{_e(r.label.strip())}</th>{"".join(cells)}</tr>')
    out.append("</tbody></table></div>")
    if len(names) > 1:
        m = rep["method"]
        out.append(
            f'<p class="meta">* (shaded): differs from {_e(names[0])} at the {m["level"]:.0%} level: paired on the '
            "same deals for a figure a match has one value of; otherwise "
            f"{_e(m['share_differences'])} for shares, {_e(m['mean_differences'])} for means. {_e(m['caveat'])}.</p>"
        )
    return "\n".join(out)


def _paired(rep: Mapping[str, Any]) -> list[str]:
    """The paired differences (the same deals under two rulesets) and the kinds' advantage, with both intervals."""
    found = []
    for d in rep["differences"]:
        for t in d["figures"]:
            if t.get("paired"):
                whose = f"{d['ruleset']} minus {d['baseline']}"
                found.append((label(t["figure"], rep).strip(), whose, t["paired"], t["paired"]["unpaired_ci95"]))
    for r in rep["rulesets"]:
        if r.get("first_kind_advantage"):
            found.append(("first kind's win share minus the second's", r["ruleset"], r["first_kind_advantage"], None))
    if not found:
        return []
    out = ['<h2>Paired on the same deals</h2><div class="scroll"><table>']
    out.append("<thead><tr><th>difference</th><th>value [95% interval]</th></tr></thead>")
    for what, whose, f, unpaired in found:
        lo, hi = f["ci95"]
        sig = " sig" if f["significant"] else ""
        un = f'<span class="ci">unpaired [{unpaired[0]:+.4g} to {unpaired[1]:+.4g}]</span>' if unpaired else ""
        out.append(
            f'<tr><th scope="row">{_e(what)}<span class="ci">{_e(whose)}</span></th><td class="num{sig}">'
            f'{f["difference"]:+.4g}<span class="ci">[{lo:+.4g} to {hi:+.4g}]</span>{un}</td></tr>'
        )
    out.append("</table></div>")
    forms = ", ".join(dict.fromkeys(f["form"] for _, _, f, _ in found))
    m = rep["method"]
    out.append(
        f'<p class="meta">{_e(forms)} form, over {_e(found[0][2]["deals"])} deals; shaded: significant at the '
        f"{m['level']:.0%} level. {_e(m['paired_differences'])}.</p>"
    )
    return out


def _legend(names: list[str]) -> str:
    keys = "".join(
        f'<li><span class="key" style="background:{colour(i)}"></span>{_e(n)}</li>' for i, n in enumerate(names)
    )
    return f'<ul class="legend">{keys}</ul>'


def _chart(chart: Chart, names: list[str]) -> str:
    top = max((s for n in names for s in chart.shares[n]), default=0.0) or 1.0
    short = " short" if all(len(c) <= 4 for c in chart.categories) else ""  # numbers need no wide label column
    out = [f'<section class="chart{short}"><h3>{_e(chart.title)}</h3>']
    out.append(f'<p class="meta">{_e(chart.axis)}; bars: % of {_e(chart.unit)}</p>')
    for k, cat in enumerate(chart.categories):
        bars = []
        for i, n in enumerate(names):
            s = chart.shares[n][k]
            width = 85 * s / top  # room left beside the longest bar for its number
            bars.append(
                f'<div class="bar" title="{_e(n)}: {100 * s:.1f}%">'
                f'<i style="width:{width:.2f}%;background:{colour(i)}"></i>{100 * s:.1f}%</div>'
            )
        out.append(f'<div class="cat"><span>{_e(cat)}</span><div class="bars">{"".join(bars)}</div></div>')
    out.append("</section>")
    return "\n".join(out)


__all__ = ["page"]
