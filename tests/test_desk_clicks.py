"""A referee at the desk in headless Chromium, by clicks alone: the §05 example in French, a dispute in Portuguese."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from browser import DESKTOP, PHONE, Page, page
from deskserver import served
from helpers import ROOT

SHOTS = ROOT / "docs" / "images"  # the desk pages' pictures, written when VITOU_DESK_SCREENSHOT is set


def _choose(p: Page, selector: str, value: str) -> None:
    """Choose ``value`` in the menu ``selector``, as a person does from the list it opens."""
    script = (
        f"(() => {{ const el = document.querySelector({json.dumps(selector)}); el.value = {json.dumps(value)}; "
        "return el.value; })()"
    )
    assert p.evaluate(script) == value


def _press(p: Page, within: str, label: str) -> None:
    """Click the button under ``within`` whose words are ``label`` (or begin with it), and wait for the page."""
    script = (
        f"(() => {{ const bs = [...document.querySelectorAll({json.dumps(within + ' button')})]; "
        f"const b = bs.find(b => b.textContent.trim() === {json.dumps(label)}) "
        f"|| bs.find(b => b.textContent.trim().startsWith({json.dumps(label)})); "
        "if (!b) return false; b.setAttribute('data-press', ''); return true; })()"
    )
    assert p.evaluate(script), f"no button {label!r} in {within}: " + str(
        p.evaluate(f"[...document.querySelectorAll({json.dumps(within + ' button')})].map(b => b.textContent)")
    )
    p.click("[data-press]", loads=True)


def _text(p: Page, selector: str) -> str:
    return str(p.evaluate(f"document.querySelector({json.dumps(selector)}).textContent.replace(/\\s+/g, ' ')"))


def _set_game(p: Page, lang: str) -> None:
    _choose(p, "#game-form [name=lang]", lang)
    _choose(p, "#game-form [name=ruleset]", "vitou/1.0.0")
    _choose(p, "#game-form [name=dealer]", "W")  # North leads: left of the dealer (§02)
    p.click("#game-form button.primary", loads=True)


def _seen(p: Page, selector: str) -> bool:
    """Whether the element is in the window as the page is shown: where the referee's eyes already are."""
    box = f"document.querySelector({json.dumps(selector)}).getBoundingClientRect()"
    return bool(p.evaluate(f"(() => {{ const r = {box}; return r.top >= 0 && r.top < innerHeight; }})()"))


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_section_05_example_as_the_text_tells_it_in_french_by_clicks(width: int, tmp_path: Path) -> None:
    # §05 (French edition): « Nord annonce 3 et joue ; Est relance à 6 et joue. Sud, le suivant immédiat, refuse
    # sans consulter Nord. Est–Ouest marquent 3, la valeur acceptée auparavant. » The text names no card: none is
    # recorded. §03: « Le refus donne au camp annonceur la valeur précédente : 1 pour un refus de 3, 3 pour 6 »:
    # East–West 3, by the clause of the refusal's value (bid.refusal_value); South may refuse as the immediate
    # follower, alone (bid.refusal).
    with served() as s, page(s.url, width) as p:
        _set_game(p, "fr")
        assert p.evaluate("document.documentElement.lang") == "fr"
        _press(p, "#pick-form", "Toutes les cartes restant à choisir non relevées")
        assert s.desk.branch.data["deals"] == [{seat: ["?", "?", "?"] for seat in "NESW"}]
        for label in (
            "Nord ouvre à 3",
            "Nord joue une carte non relevée",
            "Est relance à 6",
            "Est joue une carte non relevée",
            "Sud refuse",
        ):
            _press(p, "#legal", label)
        last = _text(p, "#last")
        assert "le camp Est-Ouest marque 3 sur refus" in last
        assert "règle bid.refusal (" in last and "règle bid.refusal_value (" in last
        assert "Est-Ouest 3" in _text(p, "#summary")
        assert _seen(p, "#last")  # the ruling shows where the action was entered, at either width
        assert p.scroll_width() <= width
        assert s.desk.branch.data["actions"] == [
            {"seat": "N", "act": "raise", "to": 3},
            {"seat": "N", "act": "play", "card": "?"},
            {"seat": "E", "act": "raise", "to": 6},
            {"seat": "E", "act": "play", "card": "?"},
            {"seat": "S", "act": "refuse"},
        ]
        p.evaluate("document.querySelectorAll('#last details').forEach(d => d.open = true)")
        shot = p.screenshot(tmp_path / f"desk-fr-{width}.png")
        if os.environ.get("VITOU_DESK_SCREENSHOT"):
            SHOTS.mkdir(exist_ok=True)
            (SHOTS / f"desk-fr-section-05-{width}.png").write_bytes(shot.read_bytes())


# The invented dispute: a tied first trick, a raise from last position, a card played once the hand was decided.
DISPUTE = {"N": ["10H", "7C", "8D"], "E": ["9S", "KD", "JH"], "S": ["7H", "QS", "8C"], "W": ["10S", "AD", "9C"]}


def _rulings(p: Page) -> list[Any]:
    return list(
        p.evaluate(
            "[...document.querySelectorAll('#rulings ol.rulings > li')].map(li => [li.value, li.className, "
            "li.textContent.replace(/\\s+/g, ' ')])"
        )
    )


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_an_invented_dispute_in_portuguese_by_clicks_gives_the_right_grounds(width: int, tmp_path: Path) -> None:
    with served() as s, page(s.url, width) as p:
        _set_game(p, "pt")
        for cards in DISPUTE.values():  # the picker goes on to the next seat once a seat has its three
            for card in cards:
                p.click(f'#pick-form button[name=card][value="{card}"]', loads=True)
        assert s.desk.branch.data["deals"] == [DISPUTE]
        for label in ("Norte joga 10", "Este joga 9", "Sul joga 7", "Oeste joga 10", "Norte joga 7", "Este joga K"):
            _press(p, "#legal", label)
        _press(p, "#legal", "Sul joga Q")
        _choose(p, "#other-form [name=who]", "W")  # West, last to play to trick 2, opens at 3
        _choose(p, "#other-form [name=what]", "r3")
        _press(p, "#other-form", "Registá-la")
        _press(p, "#legal", "Oeste joga A")
        _choose(p, "#other-form [name=who]", "N")  # North plays on once the hand is decided
        _choose(p, "#other-form [name=what]", "8D")
        _press(p, "#other-form", "Registá-la")
        r = {n: (cls, text) for n, cls, text in _rulings(p)}
        assert [r[n][0] for n in range(1, 11)] == ["legal"] * 7 + ["illegal", "legal", "illegal"]
        # 4: §02 « Cartas máximas iguais empatam a vaza »: 10♥ and 10♠ are the highest (§01: 10 first), a tie.
        assert "vaza 1: empatada" in r[4][1] and "regra trick.tie (" in r[4][1]
        # 8: §03 « Antes de jogar, salvo se for o último da vaza atual, pode abrir em 3 »: West plays last to
        # trick 2 (North led it again after the tie, §02), so may not open: RAISE_FROM_LAST, bid.not_last.
        assert "RAISE_FROM_LAST" in r[8][1] and "regra bid.not_last (" in r[8][1]
        # 9: A♦ beats K♦, Q♠ and 7♣ (§01: A above K and Q); §02 « Se a primeira vaza empatar, o vencedor da segunda
        # ganha a mão »: East–West win the hand, worth 1 with no bid (§03 « Sem proposta, a mão vale 1 »).
        assert "vaza 2: ganha por Oeste" in r[9][1] and "Este-Oeste ganha a mão e marca 1" in r[9][1]
        assert "regra trick.rank_only (" in r[9][1] and "regra hand.resolution (" in r[9][1]
        # 10: §02 « Pare assim que o resultado estiver definido »: the hand ended on action 9; the ground is the
        # clause that stops it there (hand.resolution), not that the next hand has not been dealt (deal.packet).
        assert "regra hand.resolution (" in r[10][1] and "deal.packet" not in r[10][1]
        assert "terminou na ação 9" in r[10][1]
        # What the rules would have given instead of West's raise: West's two cards, each winning trick 2 and
        # the hand for East–West (A♦ and 9♣ both beat K♦, Q♠ and 7♣), 1 point.
        whatif = _text(p, "#whatif-8")
        assert whatif.count("Este-Oeste marca 1 ponto") == 2
        assert p.scroll_width() <= width
        shot = p.screenshot(tmp_path / f"desk-pt-{width}.png")
        if os.environ.get("VITOU_DESK_SCREENSHOT"):
            SHOTS.mkdir(exist_ok=True)
            (SHOTS / f"desk-pt-dispute-{width}.png").write_bytes(shot.read_bytes())
