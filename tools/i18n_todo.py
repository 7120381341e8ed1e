"""Lists what a language file of spec/i18n still lacks (or translates from changed English), with the English.

Usage: python tools/i18n_todo.py fr|pt|ru
       python tools/i18n_todo.py --stamp fr|pt|ru   record that the file translates today's English
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vitou_ref import load_ruleset, shipped_names
from vitou_ref.audit.i18n import missing, stamp


def main() -> int:
    args = sys.argv[1:]
    rules = [load_ruleset(n) for n in shipped_names()]
    if len(args) == 2 and args[0] == "--stamp":
        print(f"{stamp(rules, args[1])} text(s) stamped", file=sys.stderr)
        return 0
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    todo = list(missing(rules, args[0]))
    for where, text in todo:
        print(f"{where}\n    {text}")
    print(f"{len(todo)} text(s) missing", file=sys.stderr)
    return 1 if todo else 0


if __name__ == "__main__":
    raise SystemExit(main())
