"""A desk served on a free port in a thread, for the desk's tests, and the requests they send it."""

from __future__ import annotations

import contextlib
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import ThreadingHTTPServer

from vitou_ref.desk.server import serve
from vitou_ref.desk.state import Desk


@dataclass
class Served:
    desk: Desk
    url: str  # the page's address, with the secret
    server: ThreadingHTTPServer

    @property
    def secret(self) -> str:
        return self.url.rstrip("/").rsplit("/", 1)[1]

    @property
    def origin(self) -> str:
        return self.url.split("/", 3)[0] + "//" + self.url.split("/", 3)[2]

    def get(self, route: str = "") -> tuple[int, str]:
        return fetch(self.url + route)

    def post(self, op: str, fields: dict[str, str | list[str]] | None = None, **headers: str) -> tuple[int, str]:
        """The desk's own form sent: its secret in the address and in the form; the page that follows."""
        pairs: list[tuple[str, str]] = [("token", self.secret), ("op", op)]
        for k, v in (fields or {}).items():
            pairs += [(k, x) for x in v] if isinstance(v, list) else [(k, v)]
        body = urllib.parse.urlencode(pairs).encode()
        return fetch(self.url + "do", body, {"Content-Type": "application/x-www-form-urlencoded", **headers})


def fetch(url: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


@contextlib.contextmanager
def served(save_dir: str | None = None) -> Iterator[Served]:
    desk = Desk(save_dir=save_dir)
    server, url = serve(desk, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(desk, url, server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


SECTION_05 = "N: AS 7H 8C; E: 9C KD JH; S: 10H QS 8D; W: 7C AD 9S"


def rulings(html: str) -> list[tuple[int, str, str | None]]:
    """Each ruling on a page: its number, legal or illegal, and the code of an illegal one."""
    out = []
    for m in re.finditer(r'<li value="(\d+)" class="(legal|illegal)"(.*?)<div class="ruling-desk"', html, re.S):
        code = re.search(r"error ([A-Z_]+)", m.group(3))
        out.append((int(m.group(1)), m.group(2), code.group(1) if code and m.group(2) == "illegal" else None))
    return out
