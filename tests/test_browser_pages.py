"""The Chromium helper itself: scripts run before the DOM is read, the viewport is exact, screenshots are PNGs."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from browser import PHONE, dump_dom, page, screenshot, scroll_width

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>t</title>
<style>body{margin:0;font:16px sans-serif} .wide{width:600px;height:40px;background:#c33}
.phone{display:none;background:#36c;height:40px} @media (max-width:480px){.phone{display:block}}</style></head>
<body><p id="p">before</p><div class="phone">phone</div>{extra}
<script>document.getElementById("p").textContent = "after " + innerWidth;</script></body></html>"""


def _write(tmp_path: Path, name: str, extra: str = "") -> Path:
    path = tmp_path / name
    path.write_text(PAGE.replace("{extra}", extra), encoding="utf-8")
    return path


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_dom_is_read_after_the_scripts_ran_in_a_viewport_of_the_width_asked(tmp_path: Path) -> None:
    # 390 is below the 500 px that Chromium's --window-size allows in headless mode: the width must still be exact.
    dom = dump_dom(_write(tmp_path, "p.html"), PHONE)
    assert '<p id="p">after 390</p>' in dom


def test_scroll_width_tells_a_page_that_fits_from_one_that_scrolls(tmp_path: Path) -> None:
    assert scroll_width(_write(tmp_path, "fits.html"), PHONE) == PHONE
    assert scroll_width(_write(tmp_path, "wide.html", '<div class="wide"></div>'), PHONE) == 600
    assert scroll_width(_write(tmp_path, "wide.html", '<div class="wide"></div>'), 1280) == 1280


def test_media_queries_see_the_viewport(tmp_path: Path) -> None:
    html = _write(tmp_path, "p.html")
    query = "getComputedStyle(document.querySelector('.phone')).display"
    with page(html, PHONE) as p:
        assert p.evaluate(query) == "block"
    with page(html, 1280) as p:
        assert p.evaluate(query) == "none"


def test_a_screenshot_is_a_png_of_the_viewport(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    shots = tmp_path_factory.mktemp("browser-screenshots")
    png = screenshot(_write(tmp_path, "p.html", '<div class="wide"></div>'), shots / "phone.png", PHONE, 300)
    assert _png_size(png) == (PHONE, 300)
    assert f"screenshot: {png}" in capsys.readouterr().out
