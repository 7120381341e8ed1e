"""The one layout of every HTML page: doctype, the shared stylesheet, the shared header and footer, anchors."""

from __future__ import annotations

from collections.abc import Sequence

from . import escape

PRODUCT = "vitou"
STYLE_ID = "vitou-style"  # the shared stylesheet's element, the same text on every page; a page's own rules follow it

# Every page: one measure of text, tables that scroll inside their box on a phone, one header, printable.
# A page sets --measure for what it shows (wide tables, prose) and adds a few rules of its own.
CSS = """
:root{color-scheme:light;--fg:#1a1a1a;--muted:#555;--line:#c9c9c9;--soft:#f4f3f0;--accent:#7b2d26;--measure:52rem}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);
background:#fff}
.masthead,main,.colophon{max-width:var(--measure);margin:0 auto;padding:0 1rem}
.masthead{padding-top:.9rem;margin-bottom:1.2rem}
.masthead::after{content:"";display:block;margin-top:.5rem;border-bottom:3px solid var(--accent)}
.brand{display:flex;flex-wrap:wrap;align-items:baseline;gap:0 .6rem;margin:0}
.product{font-weight:700;font-size:1.05rem;letter-spacing:.02em;color:var(--accent)}
.kind{font-size:.8rem;font-weight:600;letter-spacing:.08em;text-transform:uppercase;color:var(--muted)}
.masthead h1{margin:.25rem 0 .35rem}
.provenance{margin:.15rem 0;font-size:.9rem;color:var(--muted)}
h1,h2,h3,h4{line-height:1.25;overflow-wrap:anywhere}
h1{font-size:1.6rem}
h2{font-size:1.3rem;margin-top:2.2rem;padding-bottom:.2rem;border-bottom:2px solid var(--line)}
h3{font-size:1.08rem;margin-top:1.6rem}
h4{font-size:.95rem;margin:.4rem 0 .2rem}
p,li,dt,dd,summary,blockquote,figcaption{overflow-wrap:anywhere}
a{color:#1a56a8}
.meta{font-size:.9rem;color:var(--muted)}
code,pre{font-family:"DejaVu Sans Mono",ui-monospace,Menlo,Consolas,monospace;font-size:.88em}
code{background:var(--soft);padding:0 .25rem;border-radius:3px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);padding:.4rem;margin:0;font-size:.8rem;
max-height:28rem;overflow:auto}
.scroll{overflow-x:auto;max-width:100%;margin:0 0 1rem}
table{border-collapse:collapse;font-size:.9rem}
th,td{padding:.3rem .5rem;border:1px solid var(--line);text-align:left;vertical-align:top;overflow-wrap:break-word}
thead th{background:#efefed;font-weight:600}
details{border:1px solid var(--line);border-radius:4px;margin:.4rem 0;padding:.3rem .6rem}
details[open]{background:#fcfcfb}
summary{cursor:pointer}
blockquote{margin:.4rem 0;padding:.2rem .8rem;border-left:3px solid #c9a66b;background:#f8f3ea}
.card{white-space:nowrap;font-family:"DejaVu Sans","Segoe UI Symbol","Noto Sans Symbols2",sans-serif;font-size:.95em}
.card.red{color:#b3261e}
.colophon{margin-top:2.5rem;margin-bottom:1.5rem;padding-top:.5rem;border-top:1px solid var(--line);font-size:.85rem;
color:var(--muted)}
.colophon p{margin:.2rem 0}
@media (max-width:40rem){.masthead,main,.colophon{padding-left:.6rem;padding-right:.6rem}h1{font-size:1.35rem}
h2{font-size:1.18rem}}
@media print{body{font-size:11pt}.masthead,main,.colophon{max-width:none;padding-left:0;padding-right:0}
a{color:inherit;text-decoration:none}h2,h3,h4{break-after:avoid}pre{max-height:none}.scroll{overflow:visible}}
"""


def anchor(kind: str, ident: str | int) -> str:
    """The id of a thing on a page (a clause, an example), the same in HTML and in Markdown, safe in a URL."""
    return f"{kind}-{ident}".replace(".", "-").replace("/", "-")


def document(
    *,
    lang: str,
    title: str,
    kind: str,
    heading: str,
    provenance: Sequence[str],
    body: Sequence[str],
    footer: str,
    css: str = "",
    intro: Sequence[str] = (),
    refresh: str | None = None,
) -> str:
    """A whole page: no script, no file or address outside it, so that it can be mailed, archived or printed.

    ``title``, ``kind`` (what the page is: "Audit"), ``heading``, the
    ``provenance`` lines and ``footer`` are plain text, escaped here; ``body``
    and ``intro`` (more of the header) are HTML the page made. ``refresh``:
    an address the browser goes on to at once (a page that only leads there).
    """
    e = escape.html
    own = f'\n<style class="page-style">{css}</style>' if css else ""
    header = [
        '<header class="masthead">',
        f'<p class="brand"><span class="product">{PRODUCT}</span> <span class="kind">{e(kind)}</span></p>',
        f"<h1>{e(heading)}</h1>",
        *(f'<p class="provenance">{e(line)}</p>' for line in provenance),
        *intro,
        "</header>",
    ]
    return (
        "\n".join(
            [
                "<!DOCTYPE html>",
                f'<html lang="{e(lang)}"><head><meta charset="utf-8">',
                '<meta name="viewport" content="width=device-width, initial-scale=1">',
                *([f'<meta http-equiv="refresh" content="0;url={e(refresh)}">'] if refresh else []),
                f"<title>{e(title)}</title>",
                f'<style id="{STYLE_ID}">{CSS}</style>{own}</head><body>',
                *header,
                "<main>",
                *body,
                "</main>",
                f'<footer class="colophon"><p>{e(footer)}</p></footer>',
                "</body></html>",
            ]
        )
        + "\n"
    )


__all__ = ["CSS", "PRODUCT", "STYLE_ID", "anchor", "document"]
