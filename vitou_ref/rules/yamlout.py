"""YAML as this package writes it: no anchors or aliases, block text for multi-line strings, keys in order."""

from __future__ import annotations

from typing import Any

import yaml


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # a value shared in memory is written out each time it appears


def _text(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _text)


def dump(data: Any, width: int = 100, flow: bool | None = None) -> str:
    """``flow=None`` writes innermost lists and mappings on one line, ``False`` everything in block style."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=width, default_flow_style=flow)
