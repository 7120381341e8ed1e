"""Headless Chromium for tests that look at pages: the DOM after scripts ran, screenshots, horizontal scroll."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Chromium's own --window-size cannot go below 500 px in headless mode (a 390 px window lays out at
# 500), so pages are driven through the DevTools protocol on a pipe, where the viewport is exact.
TIMEOUT = 60.0
PHONE = 390
DESKTOP = 1280
HEIGHT = 844
_SETTLED = "new Promise(r => document.fonts.ready.then(() => requestAnimationFrame(() => setTimeout(r, 0))))"


def chromium_path() -> str:
    """The Chromium to use; the calling test is skipped, with the reason, when there is none."""
    path = shutil.which("chromium")
    if path is None:
        pytest.skip(
            "Chromium is not installed: these tests look at pages in headless Chromium (apt-get install chromium)"
        )
    return path


class Page:
    """One page loaded in its own headless Chromium, in a viewport of an exact size."""

    def __init__(self, proc: subprocess.Popen[bytes], to_browser: int, from_browser: int) -> None:
        self._proc, self._out, self._in = proc, to_browser, from_browser
        self._buffer, self._next_id, self._session = b"", 0, ""
        self._events: list[dict[str, Any]] = []
        self._deadline = time.monotonic() + TIMEOUT

    def _send(self, method: str, params: dict[str, Any] | None = None, *, session: bool = True) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._receive()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"Chromium refused {method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self._events.append(reply)

    def _receive(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = self._deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                raise TimeoutError(f"Chromium did not answer within {TIMEOUT:.0f} s")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def _wait_for(self, event: str) -> None:
        while not any(e.get("method") == event for e in self._events):
            self._events.append(self._receive())

    def open(self, html_path: Path | str, width: int, height: int) -> None:
        (target,) = [t for t in self._send("Target.getTargets", session=False)["targetInfos"] if t["type"] == "page"]
        attached = self._send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, session=False)
        self._session = attached["sessionId"]
        self._send("Page.enable")
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        self._send("Emulation.setDeviceMetricsOverride", metrics)
        self.navigate(html_path)

    def navigate(self, where: Path | str) -> None:
        """Load a file, or an address (``http://...``, ``file://...?query``), and wait until it is loaded and settled."""
        url = (
            where if isinstance(where, str) and where.startswith(("http", "file:")) else Path(where).resolve().as_uri()
        )
        self._events = [e for e in self._events if e.get("method") != "Page.loadEventFired"]
        self._send("Page.navigate", {"url": url})
        self._wait_for("Page.loadEventFired")
        self.evaluate(_SETTLED)

    def click(self, selector: str, *, loads: bool = False) -> None:
        """Click the element ``selector`` picks; with ``loads``, wait for the page it leads to (a form sent)."""
        self._events = [e for e in self._events if e.get("method") != "Page.loadEventFired"]
        found = self.evaluate(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)}); "
            "if (!el) return false; el.click(); return true; })()"
        )
        if not found:
            raise LookupError(f"nothing on the page matches {selector}")
        if loads:
            self._wait_for("Page.loadEventFired")
            self.evaluate(_SETTLED)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        reply = self._send("Runtime.evaluate", params)
        if "exceptionDetails" in reply:
            raise RuntimeError(f"the page's script failed: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def media(self, kind: str) -> None:
        """Lay the page out for ``print`` or ``screen``, as the browser would."""
        self._send("Emulation.setEmulatedMedia", {"media": kind})

    def dom(self) -> str:
        """The document as it stands after its scripts ran."""
        return str(self.evaluate("document.documentElement.outerHTML"))

    def scroll_width(self) -> int:
        """How wide the document is: more than the viewport's width means a horizontal scroll."""
        return int(self.evaluate("document.documentElement.scrollWidth"))

    def screenshot(self, png_path: Path) -> Path:
        """What the viewport shows, as a PNG; the path is printed so that a failing test's picture can be found."""
        png_path = Path(png_path)
        png_path.parent.mkdir(parents=True, exist_ok=True)
        png_path.write_bytes(base64.b64decode(self._send("Page.captureScreenshot", {"format": "png"})["data"]))
        print(f"screenshot: {png_path}")
        return png_path


def _high(fd: int) -> int:
    """The same pipe end on a descriptor above 4, so that moving the child's ends onto 3 and 4 clobbers neither."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


@contextlib.contextmanager
def page(html_path: Path | str, width: int, height: int = HEIGHT) -> Iterator[Page]:
    """A page (a file, or an ``http://`` address) loaded in a width x height viewport, scripts run, fonts loaded."""
    chromium = chromium_path()
    commands_r, commands_w = map(_high, os.pipe())
    replies_r, replies_w = map(_high, os.pipe())

    def pipes_on_3_and_4() -> None:  # Chromium reads the protocol on fd 3 and answers on fd 4
        os.dup2(commands_r, 3)
        os.dup2(replies_w, 4)

    with tempfile.TemporaryDirectory(prefix="vitou-chromium-") as profile:
        args = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--remote-debugging-pipe"]
        proc = subprocess.Popen(
            [chromium, *args, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=pipes_on_3_and_4,  # noqa: PLW1509 - the only way to hand a child fds 3 and 4
            start_new_session=True,
        )
        os.close(commands_r)
        os.close(replies_w)
        try:
            loaded = Page(proc, commands_w, replies_r)
            loaded.open(html_path, width, height)
            yield loaded
        finally:
            _close(proc, commands_w, replies_r)


def _close(proc: subprocess.Popen[bytes], commands_w: int, replies_r: int) -> None:
    os.close(commands_w)  # a closed pipe ends the browser
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        os.close(replies_r)


def dump_dom(html_path: Path, width: int) -> str:
    """The page's DOM after its scripts ran, in a viewport width CSS pixels wide."""
    with page(html_path, width) as p:
        return p.dom()


def screenshot(html_path: Path, png_path: Path, width: int, height: int) -> Path:
    """A PNG of the page in a width x height viewport; its path is printed."""
    with page(html_path, width, height) as p:
        return p.screenshot(png_path)


def scroll_width(html_path: Path, width: int) -> int:
    """The document's scrollWidth in a viewport width CSS pixels wide: width or less means no horizontal scroll."""
    with page(html_path, width) as p:
        return p.scroll_width()
