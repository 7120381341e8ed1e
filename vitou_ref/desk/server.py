"""The desk's HTTP server: loopback only, the secret on every request, the host and origin checked, bodies bounded."""

from __future__ import annotations

import secrets
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

from ..audit.auditpage import CSS as AUDIT_CSS
from ..audit.auditpage import page as audit_page
from ..present.page import CSS as SHARED_CSS
from .forms import SCRIPT
from .ops import MAX_BODY, TIMEOUT, apply, check_form, csp, log_error, read_number
from .state import Desk
from .view import CSS, render
from .words import Refused


class Handler(BaseHTTPRequestHandler):
    """Every request: the secret first, then the host and origin, then the body; a refusal never changes the desk."""

    desk: ClassVar[Desk]
    secret: ClassVar[str]
    bound: ClassVar[list[int]]  # the port, once the server is bound
    timeout = TIMEOUT  # a client that sends nothing does not hold a thread
    server_version = "vitou-desk"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # one referee, no access log to keep
        pass

    def _route(self) -> str:
        """What the request asks for under the secret, or Refused: the secret is on every request."""
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        prefix = f"/{self.secret}/"
        given = path[1 : len(prefix) - 1] if path.startswith("/") else ""
        if not secrets.compare_digest(given.encode("utf-8", "replace"), self.secret.encode()) or not path.startswith(
            prefix
        ):
            raise Refused(403, "refused.secret")
        hosts = {f"127.0.0.1:{self.bound[0]}", f"localhost:{self.bound[0]}"}
        if self.headers.get("Host") not in hosts:  # another name for this address: a rebinding page
            raise Refused(403, "refused.host")
        return path[len(prefix) :]

    def _same_origin(self) -> None:
        hosts = {f"http://127.0.0.1:{self.bound[0]}", f"http://localhost:{self.bound[0]}"}
        origin = self.headers.get("Origin")
        if origin is not None and origin not in hosts:
            raise Refused(403, "refused.origin")
        if self.headers.get("Sec-Fetch-Site") not in (None, "same-origin", "none"):
            raise Refused(403, "refused.origin")

    def do_GET(self) -> None:
        try:
            route = self._route()
            with self.desk.lock:
                self._get(route)
        except Refused as exc:
            self._refused(exc)
        except Exception:
            log_error()
            self._refused(Refused(500, "refused.bug"))

    def _refused(self, exc: Refused) -> None:
        """A refusal, in the desk's language: the page of a request the desk does not act on."""
        self._send(exc.status, exc.words(self.desk.lang).encode(), "text/plain; charset=utf-8")

    def _get(self, route: str) -> None:
        desk = self.desk
        if route == "":
            html = render(desk, self.secret)
            desk.notice, desk.info = [], []  # said once: a reload shows the records, not an old refusal
            self._send(200, html.encode(), "text/html; charset=utf-8", csp(SHARED_CSS, CSS))
        elif route == "desk.js":
            self._send(200, SCRIPT.encode(), "text/javascript; charset=utf-8")
        elif route == "record.yaml":
            self._send(200, desk.yaml().encode(), "application/yaml; charset=utf-8", attach="record.yaml")
        elif route == "audit.html":
            html = audit_page(desk.check(desk.branch.data).audit, desk.lang)
            policy = csp(SHARED_CSS, AUDIT_CSS)
            self._send(200, html.encode(), "text/html; charset=utf-8", policy, attach="audit.html")
        else:
            raise Refused(404, "refused.page")

    def do_POST(self) -> None:
        try:
            route = self._route()
            self._same_origin()
            if route != "do":
                raise Refused(404, "refused.page")
            op, form = check_form(self._body())
            if not secrets.compare_digest(form.get("token", [""])[0].encode("utf-8", "replace"), self.secret.encode()):
                raise Refused(403, "refused.token")
            with self.desk.lock:
                self.desk.info = []
                anchor = apply(self.desk, op, form)
            self.send_response(303)
            self.send_header("Location", f"/{self.secret}/#{anchor}")
            self.send_header("Content-Length", "0")
            self._common()
            self.end_headers()
        except Refused as exc:
            self._refused(exc)
        except Exception:
            log_error()
            self._refused(Refused(500, "refused.bug"))

    def _body(self) -> bytes:
        """The form's bytes, all of them, or Refused; on any refusal the connection is closed, its body unread."""
        keep = self.close_connection
        self.close_connection = True  # as the request had it again only once the whole body is read
        lengths = self.headers.get_all("Content-Length") or []
        if self.headers.get("Transfer-Encoding") or not lengths:
            raise Refused(411, "refused.length")
        if len(lengths) > 1:  # two lengths: which one ends the request is what a smuggled request relies on
            raise Refused(400, "refused.lengths")
        length, why = read_number(lengths[0], "Content-Length", "number.length", 0, None)
        if length is None:
            raise Refused(400, why.key, **dict(why.params))
        if length > MAX_BODY:
            raise Refused(413, "refused.big", n=MAX_BODY)
        kind = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if kind != "application/x-www-form-urlencoded":
            raise Refused(415, "refused.type")
        try:
            body = self.rfile.read(length)
        except TimeoutError:  # the client stopped sending: the form never came whole
            raise Refused(408, "refused.slow", n=int(self.timeout or 0)) from None
        if len(body) < length:
            raise Refused(400, "refused.short", got=len(body), n=length)
        self.close_connection = keep
        return body

    def _common(self) -> None:
        self.send_header("Cache-Control", "no-store")
        # The secret is in the address: no other site sees it; "no-referrer" would make the form's Origin "null".
        self.send_header("Referrer-Policy", "same-origin")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")

    def _send(self, status: int, body: bytes, kind: str, policy: str | None = None, attach: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", policy or "default-src 'none'")
        if attach:
            self.send_header("Content-Disposition", f'attachment; filename="{attach}"')
        self._common()
        self.end_headers()
        self.wfile.write(body)


HOST = "127.0.0.1"  # the loopback interface only: the desk is for the person at this machine


class _Server(ThreadingHTTPServer):
    """The standard server, quiet when a browser goes away mid-answer: a closed tab is no error of the desk."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return  # the peer hung up or went silent: nothing to tell the referee
        super().handle_error(request, client_address)


def serve(desk: Desk, port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """A server bound to the loopback interface, and the page's address with its secret."""
    secret = secrets.token_urlsafe(24)
    bound: list[int] = []

    class DeskHandler(Handler):
        pass

    DeskHandler.desk, DeskHandler.secret = desk, secret
    DeskHandler.bound = bound
    server = _Server((HOST, port), DeskHandler)
    bound.append(server.server_address[1])
    return server, f"http://{HOST}:{bound[0]}/{secret}/"


__all__ = ["HOST", "Handler", "serve"]
