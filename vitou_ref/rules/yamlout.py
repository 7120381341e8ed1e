"""YAML as this package writes it: no anchors or aliases, block text for multi-line strings, keys in order."""

from __future__ import annotations

import re
from typing import Any

import yaml

# What a terminal obeys, or what hides or reorders text: the characters vitou_ref/present/escape.py's text() shows
# as escapes (newline aside, which YAML lays out itself); a test holds the two to the same set. The emitter
# escapes most of them, but leaves the bidirectional controls raw, as printable: a string holding any is written
# double-quoted with every character beyond ASCII escaped, which YAML reads back as the same string.
UNSHOWN = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff\ud800-\udfff]"
)


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # a value shared in memory is written out each time it appears

    def write_double_quoted(self, text: str, split: bool = True) -> None:
        if not UNSHOWN.search(text):
            super().write_double_quoted(text, split)
            return
        keep, self.allow_unicode = self.allow_unicode, False  # every character beyond ASCII as an escape
        try:
            super().write_double_quoted(text, split)
        finally:
            self.allow_unicode = keep


def _text(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    if UNSHOWN.search(data):
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"')
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _text)


def dump(data: Any, width: int = 100, flow: bool | None = None) -> str:
    """``flow=None`` writes innermost lists and mappings on one line, ``False`` everything in block style."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=width, default_flow_style=flow)
