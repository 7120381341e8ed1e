"""The reference pages written from the code and the data at build time: the CLI from its parser, the schemas."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"
# Written by the build, never by hand (docs/.gitignore keeps them out of the repository).
GENERATED = ("cli.md", "schemas.md")


def _escape(text: str) -> str:
    """Text of the parser or a schema as Markdown that shows it as it is (no emphasis, no HTML)."""
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_").replace("<", "&lt;").replace("|", "\\|")


def _usage(parser: argparse.ArgumentParser) -> str:
    return " ".join(parser.format_usage().removeprefix("usage: ").split())


def _option_rows(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
            continue
        metavar = action.metavar or (action.dest.upper() if action.option_strings else action.dest)
        shown = metavar if isinstance(metavar, str) else " ".join(metavar)
        names = ", ".join(action.option_strings) or shown
        if action.option_strings and action.nargs != 0:
            names += f" {shown}"
        help_text = (action.help or "") % {"default": action.default, "prog": parser.prog}
        if action.choices is not None and not isinstance(action.choices, dict):
            help_text += f" (one of: {', '.join(str(c) for c in action.choices)})"
        rows.append(f"| `{names.replace('|', '/')}` | {_escape(help_text)} |")
    return rows


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices.items())
    return []


def _command(path: str, parser: argparse.ArgumentParser, depth: int) -> list[str]:
    out = [f"{'#' * depth} `{path}`", "", f"```text\n{_usage(parser)}\n```", ""]
    if parser.description:
        out += [_escape(parser.description), ""]
    rows = _option_rows(parser)
    if rows:
        out += ["| option | what it does |", "|---|---|", *rows, ""]
    if parser.epilog:
        out += [_escape(parser.epilog), ""]
    for name, child in _subcommands(parser):
        out += _command(f"{path} {name}", child, min(depth + 1, 4))
    return out


def cli_page() -> str:
    """Every command and option of ``vitou``, as its parser has them."""
    from vitou_ref.cli.main import build_parser

    parser = build_parser()
    lines = [
        "# Command-line reference",
        "",
        "Written from the command's own parser when the site is built: every command, every option, its default.",
        "`vitou COMMAND --help` prints the same. Exit statuses are on [their own page](exit-statuses.md).",
        "",
    ]
    for name, child in _subcommands(parser):
        lines += _command(f"vitou {name}", child, 2)
    return "\n".join([*lines, *_plugin_section()])


class _Options:
    """Stands for pytest's parser and its option group: records what the plugin adds, as pytest would be told it."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, dict[str, Any]]] = []

    def getgroup(self, *_args: Any, **_kwargs: Any) -> _Options:
        return self

    def addoption(self, name: str, **kwargs: Any) -> None:
        self.rows.append((name, kwargs))


def _plugin_section() -> list[str]:
    """The options the pytest plugin adds to pytest, from its own pytest_addoption."""
    from vitou_ref.pytest_plugin import pytest_addoption

    options = _Options()
    pytest_addoption(options)  # type: ignore[arg-type]  # the plugin asks only getgroup and addoption of it
    rows = []
    for name, kwargs in options.rows:
        value = kwargs.get("metavar") or "{" + ",".join(kwargs.get("choices") or ("VALUE",)) + "}"
        shown = name if kwargs.get("action") == "store_true" else f"{name} {value}"
        help_text = kwargs.get("help") or ""
        if kwargs.get("choices"):
            help_text += f" (one of: {', '.join(kwargs['choices'])})"
        rows.append(f"| `{shown}` | {_escape(help_text)} |")
    return [
        "",
        "## The pytest plugin",
        "",
        "Installed with vitou, the plugin adds these options to `pytest` (they do nothing unless `--vitou-impl` is",
        "given or a test takes the `vitou_case` fixture); `pytest --help` lists them under *Vitou conformance*.",
        "",
        "| option | what it does |",
        "|---|---|",
        *rows,
        "",
    ]


def _properties(schema: dict[str, Any]) -> list[str]:
    props = schema.get("properties") or {}
    if not props:
        return []
    required = set(schema.get("required") or ())
    rows = ["| field | required | what it is |", "|---|---|---|"]
    for name, sub in props.items():
        desc = sub.get("description", "") if isinstance(sub, dict) else ""
        rows.append(f"| `{name}` | {'yes' if name in required else ''} | {_escape(' '.join(desc.split()))} |")
    return [*rows, ""]


def schemas_page() -> str:
    """Every JSON Schema the project ships, with its title, what it describes and its top-level fields."""
    lines = [
        "# Schemas",
        "",
        "Every JSON Schema of the repository's `schema/` directory, written from the files when the site is built.",
        "The files themselves are the reference; a validator reads them as they are (JSON Schema 2020-12).",
        "",
    ]
    for path in sorted((ROOT / "schema").rglob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        name = path.relative_to(ROOT).as_posix()
        lines += [f"## `{name}`", ""]
        if schema.get("title"):
            lines += [f"**{_escape(schema['title'])}**", ""]
        if schema.get("description"):
            lines += [_escape(" ".join(schema["description"].split())), ""]
        lines += _properties(schema)
    return "\n".join(lines)


def write_pages() -> list[Path]:
    """Writes the generated pages under docs/reference; returns their paths."""
    from docs_rulesets import pages as ruleset_pages  # a page for every shipped ruleset, and their index
    from docs_rulesets import stale_pages

    REFERENCE.mkdir(parents=True, exist_ok=True)
    written = []
    generated = {"cli.md": cli_page(), "schemas.md": schemas_page(), **ruleset_pages()}
    for stale in stale_pages(generated):
        stale.unlink()  # the page of a ruleset no longer shipped
    for name, text in generated.items():
        path = REFERENCE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text + "\n":
            path.write_text(text + "\n", encoding="utf-8")  # unchanged pages keep their time: no rebuild
        written.append(path)
    return written


REPOSITORY = "https://github.com/vitou-game/vitou/tree/main/"
# A Markdown link's target, up to an anchor: ](target) or ](target#anchor).
_LINK = re.compile(r"\]\((?P<target>[^)\s#]+)(?P<anchor>#[^)\s]*)?\)")


def outside_links(docname: str, text: str) -> str:
    """Links from a page to a directory or a Markdown file of the repository outside docs/: to the repository.

    Such a link works on the repository's own pages, which a site cannot hold;
    on the site it leads to the repository. A target that does not exist is
    left as it is, so the build fails on it as on any broken link. Other files
    (a spec, a schema) stay local: the site ships a copy, and works offline.
    """
    page_dir = (ROOT / "docs" / docname).parent

    def to_repository(m: re.Match[str]) -> str:
        target = m.group("target")
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            return m.group(0)
        path = Path(os.path.normpath(page_dir / target))
        inside_docs = path.is_relative_to(ROOT / "docs")
        if inside_docs or not path.is_relative_to(ROOT) or not path.exists():
            return m.group(0)
        if path.is_file() and path.suffix != ".md":
            return m.group(0)
        return f"]({REPOSITORY}{path.relative_to(ROOT).as_posix()}{m.group('anchor') or ''})"

    return _LINK.sub(to_repository, text)


def _source_read(app: Any, docname: str, source: list[str]) -> None:
    source[0] = outside_links(docname, source[0])


def setup(app: Any) -> dict[str, Any]:
    """Sphinx extension: the pages are written before the build reads its sources, and outside links are mapped."""
    sys.path.insert(0, str(ROOT))
    app.connect("config-inited", lambda _app, _config: write_pages())
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
