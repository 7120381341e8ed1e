"""The referee's desk in headless Chromium: a hand entered by clicking, ruled, branched, compared, saved, reloaded."""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from browser import DESKTOP, PHONE, Page, page
from deskserver import served
from helpers import ROOT

from vitou_ref.audit.audit import audit
from vitou_ref.audit.record import load_record

DISPUTES = ROOT / "conformance" / "disputes"
SCREENSHOT = ROOT / "docs" / "images" / "desk.png"  # the docs' picture, written when VITOU_DESK_SCREENSHOT is set
SECTION_05 = {"N": ["AS", "7H", "8C"], "E": ["9C", "KD", "JH"], "S": ["10H", "QS", "8D"], "W": ["7C", "AD", "9S"]}


def _choose(p: Page, selector: str, value: str) -> None:
    assert (
        p.evaluate(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)}); el.value = "
            f"{json.dumps(value)}; return el.value; }})()"
        )
        == value
    )


def _press(p: Page, within: str, label: str) -> None:
    """Click the button under ``within`` whose words begin with ``label``, and wait for the page it leads to."""
    script = (
        f"(() => {{ const b = [...document.querySelectorAll({json.dumps(within + ' button')})]"
        f".find(b => b.textContent.trim().startsWith({json.dumps(label)})); if (!b) return false; "
        "b.setAttribute('data-press', ''); return true; })()"
    )
    assert p.evaluate(script), f"no button {label!r} in {within}"
    p.click("[data-press]", loads=True)


def _text(p: Page, selector: str) -> str:
    return str(p.evaluate(f"document.querySelector({json.dumps(selector)}).textContent"))


def _rulings(p: Page) -> list[Any]:
    return list(
        p.evaluate(
            "[...document.querySelectorAll('#rulings ol.rulings > li')].map(li => [li.value, li.className, "
            "li.className === 'illegal' ? (li.textContent.match(/error ([A-Z_]+)/) || [])[1] : null])"
        )
    )


def _enter_section_05(p: Page) -> None:
    _choose(p, "#game-form [name=ruleset]", "vitou/1.0.0")
    _choose(p, "#game-form [name=dealer]", "W")
    _press(p, "#game-form", "Set the game")
    for cards in SECTION_05.values():  # the picker moves to the next seat once a seat has its three cards
        for card in cards:
            p.click(f'#pick-form button[name=card][value="{card}"]', loads=True)
    for label in ("North opens at 3", "North plays A♠", "East raises to 6", "East plays 9♣", "South refuses"):
        _press(p, "#legal", label)


def test_the_section_05_example_entered_by_clicking_is_east_west_3_by_refusal() -> None:
    # §05, bid.refusal_value: South refuses East's 6 alone; East-West score the preceding value, 3.
    with served() as s, page(s.url, DESKTOP) as p:
        _enter_section_05(p)
        assert _rulings(p) == [[n, "legal", None] for n in range(1, 6)]
        five = _text(p, 'ol.rulings > li[value="5"]')
        assert "East-West score 3 by refusal" in five
        assert "rule bid.refusal (Only the immediate follower refuses)" in five
        assert "East-West 3" in _text(p, "#summary")
        assert s.desk.branch.data["actions"][-1] == {"seat": "S", "act": "refuse"}


def test_an_illegal_action_a_what_if_and_a_comparison_and_the_record_saved_and_reloaded_byte_for_byte() -> None:
    with served() as s, page(s.url, DESKTOP) as p:
        _enter_section_05(p)
        _press(p, "#desk-5", "What if, from action 5")  # had West refused instead, then South played on
        assert "what if at 5" in _text(p, "#branches")
        _choose(p, "#typed [name=text]", "W refuse")
        _press(p, "#typed", "Enter")
        # bid.refusal: East bid, and the immediate follower (clockwise) is South, not West.
        five = _text(p, 'ol.rulings > li[value="5"]')
        assert _rulings(p)[4] == [5, "illegal", "REFUSE_NOT_FOLLOWER"]
        assert "rule bid.refusal" in five and "Only the immediate follower" in five
        _press(p, "#legal", "South plays 10♥")
        _choose(p, "#compare-form [name=ruleset]", "vitou-partners-tie/1.0.0")
        _press(p, "#compare-form", "Compare")
        heads = p.evaluate("[...document.querySelectorAll('#side-by-side th')].map(th => th.textContent)")
        assert heads[2:] == ["vitou/1.0.0", "vitou-partners-tie/1.0.0"]
        assert p.evaluate("document.querySelectorAll('#side-by-side tbody tr').length") == 7  # six actions, the score
        saved = p.evaluate("fetch('record.yaml').then(r => r.text())")
        assert "W refuse" in saved
        _choose(p, "#load-form textarea", saved)
        _press(p, "#load-form", "Load the record")
        assert p.evaluate("fetch('record.yaml').then(r => r.text())") == saved
        assert len(s.desk.branches) == 3


def test_every_shipped_dispute_loads_and_shows_the_rulings_vitou_audit_gives() -> None:
    names = sorted(path.name for path in DISPUTES.glob("[0-9]*.yaml"))
    with served() as s, page(s.url, DESKTOP) as p:
        for name in names:
            record, rules = load_record(str(DISPUTES / name))
            kit = audit(record, rules, go_on=True)
            _choose(p, "#dispute-form select", name)
            _press(p, "#dispute-form", "Load")
            assert name in _text(p, "h1")
            assert _rulings(p) == [[r.n, "legal" if r.legal else "illegal", r.code] for r in kit.rulings], name


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_page_reads_at_phone_and_desktop_widths(width: int, tmp_path: Path) -> None:
    with served() as s, page(s.url, width) as p:
        assert p.scroll_width() <= width  # the empty desk: the card grid wraps
        _enter_section_05(p)
        _choose(p, "#compare-form [name=ruleset]", "vitou-partners-tie/1.0.0")
        _press(p, "#compare-form", "Compare")
        assert p.scroll_width() <= width
        assert p.evaluate("document.getElementById('vitou-style') !== null")  # the kit's shared layout
        p.evaluate("document.querySelector('#desk-5 details').open = true")  # the refusal's clause, in its words
        p.evaluate("document.getElementById('rulings').scrollIntoView()")
        shot = p.screenshot(tmp_path / f"desk-{width}.png")
        if width == DESKTOP and os.environ.get("VITOU_DESK_SCREENSHOT"):
            SCREENSHOT.write_bytes(shot.read_bytes())


def _choose_file(p: Page, selector: str, path: Path) -> str:
    """Choose ``path`` in the file control ``selector`` as a person does, and wait for the box it fills."""
    found = p._send("Runtime.evaluate", {"expression": f"document.querySelector({json.dumps(selector)})"})
    p._send("DOM.setFileInputFiles", {"files": [str(path)], "objectId": found["result"]["objectId"]})
    filled = (
        f"new Promise(r => {{ const box = document.querySelector({json.dumps(selector)}).form.elements.text; "
        "const wait = () => box.value ? r(box.value) : setTimeout(wait, 20); wait(); })"
    )
    return str(p.evaluate(filled))


def test_a_rules_file_chosen_in_the_upload_control_is_checked_as_spec_check_checks_it(tmp_path: Path) -> None:
    published = (ROOT / "spec" / "vitou-1.0.0.yaml").read_text(encoding="utf-8")
    reused = tmp_path / "reused.yaml"
    reused.write_text(published.replace("title: ", "title: Not ", 1), encoding="utf-8")
    club = tmp_path / "club.yaml"
    partners = (ROOT / "spec" / "profiles" / "vitou-partners-tie-1.0.0.yaml").read_text(encoding="utf-8")
    club.write_text(partners.replace("id: vitou-partners-tie", "id: club-nice"), encoding="utf-8")
    with served() as s, page(s.url, DESKTOP) as p:
        p.click("#rules-form summary")
        assert "vitou spec check" in _text(p, "#rules-form")
        assert _choose_file(p, "#rules-form input[type=file]", reused).startswith(published[:40])
        _press(p, "#rules-form", "Use this ruleset")
        problems = _text(p, "#problems")
        assert "VERSION_REUSED" in problems and "reused.yaml" in problems  # the file's name, as the person chose it
        assert s.desk.custom == {} and p.evaluate("document.querySelector('#game-form select').value") == "vitou/1.1.0"
        p.click("#rules-form summary")
        _choose_file(p, "#rules-form input[type=file]", club)
        _press(p, "#rules-form", "Use this ruleset")
        assert p.evaluate("document.getElementById('problems')") is None
        assert p.evaluate("document.querySelector('#game-form select').value") == "club-nice/1.0.0"
        assert "club-nice/1.0.0" in _text(p, ".provenance")
        assert p.scroll_width() <= DESKTOP


def test_the_file_the_browser_is_opened_on_leads_to_the_desk(tmp_path: Path) -> None:
    from vitou_ref.desk.launch import launch_file

    blank = tmp_path / "blank.html"
    blank.write_text("", encoding="utf-8")
    with served() as s, launch_file(s.url) as opened, page(blank, DESKTOP) as p:
        p._send("Page.navigate", {"url": opened.as_uri()})  # as a browser started on the file: not waited for
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(RuntimeError):  # the page is between the file and the desk
                if p.evaluate("location.href + ' ' + document.readyState") == f"{s.url} complete":
                    break
            time.sleep(0.05)
        assert p.evaluate("location.href") == s.url
        assert p.evaluate("document.getElementById('game-form') !== null")


def test_a_chosen_file_over_what_the_desk_reads_is_said_at_once_and_not_sent(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("# " + "a" * (1024 * 1024) + "\n", encoding="utf-8")
    with served() as s, page(s.url, DESKTOP) as p:
        p.click("#rules-form summary")
        found = p._send("Runtime.evaluate", {"expression": "document.querySelector('#rules-form input[type=file]')"})
        p._send("DOM.setFileInputFiles", {"files": [str(big)], "objectId": found["result"]["objectId"]})
        said = p.evaluate("document.querySelector('#rules-form input[type=file]').validationMessage")
        assert "over 1 MiB" in said
        assert p.evaluate("document.querySelector('#rules-form textarea').value") == ""
        p.click("#rules-form button")  # the form is not sent while its file is refused
        assert p.evaluate("location.href") == s.url and s.desk.custom == {}
