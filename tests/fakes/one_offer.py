"""An engine of one game: the reference, offering only the rulesets named on its command line.

Usage: python one_offer.py RULESET [RULESET ...]
"""

from __future__ import annotations

import json
import sys

from vitou_ref.adapter import build_server


def main() -> int:
    offered = sys.argv[1:]
    server = build_server()
    for line in sys.stdin:
        answer = server.handle(line)
        if answer is None:
            return 0  # stop: exit with status 0, as the protocol asks
        if answer.get("protocol") == 1 and "rulesets" in answer:
            answer["rulesets"] = offered
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
