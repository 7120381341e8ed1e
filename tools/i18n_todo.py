"""Lists what a language file of spec/i18n still lacks, with the English text to translate.

Usage: python tools/i18n_todo.py fr|pt|ru
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vitou_ref import load_ruleset, shipped_names
from vitou_ref._i18n import missing


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    todo = list(missing([load_ruleset(n) for n in shipped_names()], sys.argv[1]))
    for where, text in todo:
        print(f"{where}\n    {text}")
    print(f"{len(todo)} text(s) missing", file=sys.stderr)
    return 1 if todo else 0


if __name__ == "__main__":
    raise SystemExit(main())
