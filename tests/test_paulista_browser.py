"""A Truco Paulista hand at the desk in headless Chromium, by clicks alone, at phone and desktop widths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser import DESKTOP, PHONE, Page, page
from deskserver import served

FOLD = {"A": ["QS", "3H", "5C"], "B": ["QC", "2S", "4D"], "turn_up": "7D"}  # §8, the first worked example


def _choose(p: Page, selector: str, value: str) -> None:
    script = (
        f"(() => {{ const el = document.querySelector({json.dumps(selector)}); el.value = {json.dumps(value)}; "
        "return el.value; })()"
    )
    assert p.evaluate(script) == value


def _press(p: Page, within: str, label: str) -> None:
    """Click the button under ``within`` whose words are ``label`` (or begin with it), and wait for the page."""
    script = (
        f"(() => {{ const bs = [...document.querySelectorAll({json.dumps(within + ' button')})]; "
        f"const b = bs.find(b => b.textContent.trim().replace(/\\s+/g, ' ') === {json.dumps(label)}) "
        f"|| bs.find(b => b.textContent.trim().replace(/\\s+/g, ' ').startsWith({json.dumps(label)})); "
        "if (!b) return false; b.setAttribute('data-press', ''); return true; })()"
    )
    assert p.evaluate(script), f"no button {label!r} in {within}: " + str(
        p.evaluate(f"[...document.querySelectorAll({json.dumps(within + ' button')})].map(b => b.textContent)")
    )
    p.click("[data-press]", loads=True)


def _text(p: Page, selector: str) -> str:
    return str(p.evaluate(f"document.querySelector({json.dumps(selector)}).textContent.replace(/\\s+/g, ' ')"))


def _rulings(p: Page) -> list[Any]:
    return list(
        p.evaluate(
            "[...document.querySelectorAll('#rulings ol.rulings > li')].map(li => [li.value, li.className, "
            "li.textContent.replace(/\\s+/g, ' ')])"
        )
    )


def _fits(p: Page, width: int) -> None:
    """Nothing wider than the window: no horizontal scroll, and each pack button wide enough for a finger."""
    assert p.scroll_width() <= width
    smallest = p.evaluate(
        "Math.min(...[...document.querySelectorAll('#pick-form button.card')].map(b => b.getBoundingClientRect().width))"
    )
    assert smallest is None or smallest >= 28 or smallest == float("inf"), smallest


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_first_worked_example_by_clicks_with_its_turn_up_a_face_down_card_and_a_concession(
    width: int, tmp_path: Path
) -> None:
    with served() as s, page(s.url, width) as p:
        _choose(p, "#game-form [name=ruleset]", "truco-paulista/1.0.0")
        p.click("#game-form button.primary", loads=True)
        _choose(p, "#game-form [name=dealer]", "B")  # A leads: the player who did not deal (§1)
        p.click("#game-form button.primary", loads=True)
        _fits(p, width)
        for seat in ("A", "B"):  # the picker goes on to the next seat once a seat has its three
            for card in FOLD[seat]:
                p.click(f'#pick-form button[name=card][value="{card}"]', loads=True)
        # Then the turn-up, the picker's last place.
        assert p.evaluate("document.querySelector('#pick-form input[value=turn_up]').checked")
        p.click('#pick-form button[name=card][value="7D"]', loads=True)
        assert s.desk.branch.data["deals"] == [FOLD]
        assert "turn-up 7♦: the manilhas are Q♦ Q♠ Q♥ Q♣" in _text(p, "#next")
        for label in ("A plays 3♥", "B raises to 3", "A raises to 6", "B accepts", "B plays 2♠", "A plays Q♠"):
            _press(p, "#legal", label)
        _press(p, "#legal", "B plays Q♣ face down")  # B hides the manilha of clubs: A wins trick 2 and the hand
        assert "trick 2: won by A" in _text(p, "#last") and "A wins the hand and scores 6" in _text(p, "#last")
        # A concession after the hand, from the menus: the hand was over.
        _choose(p, "#other-form [name=who]", "B")
        _choose(p, "#other-form [name=what]", "concede")
        _press(p, "#other-form", "Record it")
        r = {n: (cls, text) for n, cls, text in _rulings(p)}
        assert [r[n][0] for n in range(1, 9)] == ["legal"] * 7 + ["illegal"]
        assert "NO_DEAL" in r[8][1] and "rule tp.hand (" in r[8][1] and "conceded" not in r[8][1]
        assert "B plays a card face down" in r[7][1] and "rule tp.face_down (" in r[7][1] and "Q♣" not in r[7][1]
        _fits(p, width)
        p.screenshot(tmp_path / f"paulista-{width}.png")
