"""``vitou desk``: the referee's desk, a local web page where a hand is entered as it happened and ruled."""

from __future__ import annotations

import argparse
import sys

LANGS = ("en", "fr", "pt", "ru")


def port_number(text: str) -> int:
    """A TCP port, or 0 for a free one: ASCII digits only, as the one reader reads every number."""
    from ..rules.reader import ReadError, whole

    try:
        return whole(text, lo=0, hi=65535, what="a port (0 for a free one)", max_digits=5)
    except ReadError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    desk = sub.add_parser(
        "desk",
        help="start the referee's desk: enter a disputed hand in a browser and read the rulings",
        description="Start a small web page on 127.0.0.1 for one referee: enter the deal and the actions as they "
        "happened (the legal ones offered at each moment, any other chosen from menus or written in the notation), read "
        "each ruling with its clause, "
        "try what-ifs, compare under another ruleset, save the record and export the audit page. The address, "
        "with its per-run secret, is printed; stop with Ctrl-C.",
    )
    desk.add_argument(
        "--port", type=port_number, default=0, metavar="N", help="the port on 127.0.0.1 (default: a free one)"
    )
    desk.add_argument("--no-browser", action="store_true", help="print the address only; do not open a browser")
    desk.add_argument(
        "--save-dir", metavar="DIR", help="a folder the desk may save records into (default: downloads only)"
    )
    desk.add_argument("--lang", choices=LANGS, default="en", help="the language of the rulings (default: en)")
    desk.set_defaults(run=cmd_desk)


def cmd_desk(args: argparse.Namespace) -> int:
    return run_desk(args.port, open_browser=not args.no_browser, save_dir=args.save_dir, lang=args.lang)


def run_desk(port: int, *, open_browser: bool, save_dir: str | None, lang: str) -> int:
    import contextlib
    import os
    import webbrowser

    from ..desk.launch import launch_file
    from ..desk.server import serve
    from ..desk.state import Desk

    if save_dir is not None and not os.path.isdir(save_dir):
        print(f"vitou desk: --save-dir {save_dir!r} is not a directory", file=sys.stderr)
        return 2
    if save_dir is not None and not os.access(save_dir, os.W_OK | os.X_OK):
        print(f"vitou desk: --save-dir {save_dir!r} is not a folder this user can write into", file=sys.stderr)
        return 2
    desk = Desk(save_dir=os.path.abspath(save_dir) if save_dir else None, lang=lang)
    try:
        server, url = serve(desk, port)
    except OSError as exc:
        print(f"vitou desk: cannot listen on 127.0.0.1:{port}: {exc.strerror}", file=sys.stderr)
        return 2
    # The address is said to this user's terminal only; the browser is given a private file that leads there,
    # never the address itself: a command line is readable by every local user.
    print(f"vitou desk: {url}", flush=True)
    print("(the address holds the secret of this run; stop with Ctrl-C)", flush=True)
    try:
        with launch_file(url, lang) if open_browser else contextlib.nullcontext() as page:
            if page is not None:
                webbrowser.open(page.as_uri())
            server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


__all__ = ["add_parsers", "run_desk"]
