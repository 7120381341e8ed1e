"""Build hook: ship spec/, schema/ and conformance/ inside the wheel as vitou_ref/_data/."""

from __future__ import annotations

from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

DATA = ("spec", "schema", "conformance")


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        # The sdist keeps the checkout's layout (spec/ at the top, where the
        # wheel built from it looks for it); only the wheel moves the data
        # into the package.
        if self.target_name != "wheel":
            return
        # An editable install reads them from the checkout instead; copying
        # them into site-packages would shadow the package being edited.
        if version != "editable":
            for name in DATA:
                build_data["force_include"][name] = f"vitou_ref/_data/{name}"
