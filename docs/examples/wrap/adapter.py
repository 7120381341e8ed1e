"""Protocol v1 around cardgame.py, an engine of Le Truc written without the protocol in mind: one bridge per gap."""

import json
import re
import sys

from cardgame import PACK, RANKS, Game, NotAllowed

RULESETS = ["le-truc/1.0.0", "le-truc/1.1.0"]  # 1.1.0 answers as 1.0.0 does
SEATS = ("A", "B")
LEVELS = (2, 4, 6, 8, 10, 12)  # the ladder, as the protocol writes a raise's "to"
FIELDS = {"play": {"seat", "act", "card"}, "raise": {"seat", "act", "to"}, "accept": {"seat", "act"}}
FIELDS["refuse"] = FIELDS["accept"]
OUTCOME = "--outcome" in sys.argv[1:]  # the outcome level: refusals carry the engine's own words
ENGINE, ADAPTER = "engine", "adapter"
COUNTS = {ENGINE: 0, ADAPTER: 0}


class Unusable(Exception):
    """A setup the match cannot start from: the request is errored."""


# ---------------------------------------------------------------- bridge: the deal


class ScriptedGame(Game):
    """Gap: the engine deals for itself from a seed; the protocol's setup gives every deal.

    The least intrusive hook: the engine deals in one method, deal_hand(), so this subclass overrides that method
    alone and hands out the setup's deals in order. The engine's code is untouched. It also keeps the exact cards
    of each hand, which the engine does not need (it plays ranks) and the protocol does.
    """

    def __init__(self, deals, dealer, scores):
        self.script = list(deals)
        self.out_of_deals = False  # a hand is due and the setup holds no deal for it: the case ends there
        self.dealt = 0  # hands begun so far
        super().__init__(seed=0, dealer=dealer, scores=scores)

    def deal_hand(self):
        self.dealt += 1
        if not self.script:
            self.out_of_deals = True
            self.exact = {seat: [] for seat in SEATS}
            return {seat: [] for seat in SEATS}
        deal = self.script.pop(0)
        self.exact = {seat: list(deal[seat]) for seat in SEATS}
        return {seat: list(deal[seat]) for seat in SEATS}


def setup_of(setup):
    """The deals, the first dealer and the score of a setup; Unusable when it cannot be used."""
    if ("dealer" in setup) == ("draw" in setup):
        raise Unusable("give one first dealer: dealer or draw")
    dealer = setup["dealer"] if "dealer" in setup else settle_draw(setup["draw"])
    if dealer not in SEATS:
        raise Unusable("the dealer is A or B")
    scores = setup.get("score", {})
    if not isinstance(scores, dict) or not set(scores) <= set(SEATS):
        raise Unusable("a score maps A and B to points")
    if not all(type(p) is int and 0 <= p < 12 for p in scores.values()):
        raise Unusable("a score is whole points, 0 to 11")
    deals = setup.get("deals")
    if not isinstance(deals, list) or not all(is_deal(d) for d in deals):
        raise Unusable("deals: a list of {A: 3 cards, B: 3 cards}, six different cards of the 40")
    return deals, dealer, {seat: scores.get(seat, 0) for seat in SEATS}


def is_deal(deal):
    if not (isinstance(deal, dict) and set(deal) == set(SEATS)):
        return False
    if not all(isinstance(deal[s], list) and len(deal[s]) == 3 for s in SEATS):
        return False
    cards = deal["A"] + deal["B"]
    return all(isinstance(c, str) and c in PACK for c in cards) and len(set(cards)) == 6


def settle_draw(rounds):
    """Each player draws a card; the lower rank deals, equal ranks draw again (the engine draws from its seed)."""
    if not isinstance(rounds, list) or not rounds:
        raise Unusable("a draw is a list of rounds")
    for i, drawn in enumerate(rounds):
        if not (isinstance(drawn, dict) and set(drawn) == set(SEATS)):
            raise Unusable("each round of the draw is {A: card, B: card}")
        if not all(isinstance(c, str) and c in PACK for c in drawn.values()) or drawn["A"] == drawn["B"]:
            raise Unusable("a round draws two different cards of the 40")
        a, b = (RANKS.index(drawn[s][:-1]) for s in SEATS)
        if a != b:
            if i != len(rounds) - 1:
                raise Unusable("the draw goes on after it settled the dealer")
            return "A" if a > b else "B"  # a higher index is a lower rank
    raise Unusable("the draw ends on equal ranks: no dealer")


# ---------------------------------------------------------------- the form of an action


def malformed(action):
    """The codes of the action's form, which come first in the error list and which the engine never sees."""
    if not isinstance(action, dict) or not isinstance(action.get("act"), str) or action["act"] not in FIELDS:
        return "ACTION_MALFORMED"
    if set(action) != FIELDS[action["act"]] or not isinstance(action["seat"], str):
        return "ACTION_MALFORMED"
    to = action.get("to")
    if action["act"] == "raise" and not (isinstance(to, str) or (isinstance(to, int) and not isinstance(to, bool))):
        return "ACTION_MALFORMED"
    if action["seat"] not in SEATS:
        return "UNKNOWN_SEAT"
    if action["act"] == "play" and action["card"] not in PACK:
        return "CARD_MALFORMED"
    if action["act"] == "raise" and (isinstance(to, str) or to not in LEVELS):
        return "UNKNOWN_BID"
    return None


# ---------------------------------------------------------------- bridge: who acts


def not_their_turn(game, action):
    """Gap: the protocol names the seat of each action; the engine applies every move to its current player.

    So an action by the other seat never reaches the engine: it would be taken as the current player's. The
    adapter refuses it with the first code of the error list, below NO_DEAL, that holds for that act, as the
    engine's public state says (is a raise waiting?). Returns None when the seat may act, or when nobody may:
    once the match is won, the engine refuses every move itself.
    """
    current = game.current_player
    if current is None or action["seat"] == current:
        return None
    waiting = game.proposed is not None
    act = action["act"]
    if act == "play":
        return "RAISE_AWAITS_ANSWER" if waiting else "NOT_YOUR_TURN"
    if act == "raise":
        return "RAISE_OWN_WAITING" if waiting else "BID_OUT_OF_TURN"
    if act == "accept":
        return "ACCEPT_NOT_ANSWERER" if waiting else "ACCEPT_NO_RAISE"
    return "REFUSE_NOT_FOLLOWER" if waiting else "REFUSE_NO_BID"


# ---------------------------------------------------------------- bridge: coarse moves


def too_coarse(game, action):
    """Gap: the engine plays a rank, not a card, and raises without a level.

    Only where the engine would take the move does the adapter check what the engine cannot see: that the seat
    holds that very card (of two 3s, the engine plays either), and that "to" is the level the raise proposes.
    A move the engine would refuse goes to the engine, which says why.
    """
    if action["act"] == "play":
        card = action["card"]
        if card[:-1] in game.options() and card not in game.exact[action["seat"]]:
            return "CARD_NOT_HELD"
    if action["act"] == "raise" and "raise" in game.options() and action["to"] != game.next_level():
        return "RAISE_JUMP"
    return None


def apply(game, action):
    """The action as the engine's move; NotAllowed when the engine refuses it."""
    act = action["act"]
    if act == "play":
        card, dealt = action["card"], game.dealt
        game.play(card[:-1])
        if game.dealt == dealt:  # not when the card ended the hand: the next deal's cards are in place
            game.exact[action["seat"]].remove(card)
    elif act == "raise":
        game.raise_()
    elif act == "accept":
        game.accept()
    else:
        game.fold()


# ---------------------------------------------------------------- bridge: free-text refusals

# The engine's messages, by what they say, and the code of each. A message not listed is passed on as it is:
# at the code level it fails its case, which is better than a guessed code.
MESSAGES = [
    (r"game is over", "MATCH_OVER"),
    (r"raise is waiting", "RAISE_AWAITS_ANSWER"),
    (r"^You have no ", "CARD_NOT_HELD"),
    (r"cannot go past", "RAISE_PAST_TOP"),
    (r"no raise to accept", "ACCEPT_NO_RAISE"),
    (r"no raise to fold", "REFUSE_NO_BID"),
]


def code_of(message):
    if OUTCOME:
        return message  # the outcome level judges that the engine refused, not why
    return next((code for pattern, code in MESSAGES if re.search(pattern, message)), message)


# ---------------------------------------------------------------- counting who decided


def refused(error, by):
    """A rejected step, marked with who decided it: the harness counts the marks and judges nothing by them."""
    COUNTS[by] += 1
    return {"ok": False, "error": error, "by": by}


def step(game, action):
    """One action: refused by the adapter, refused by the engine, or played."""
    code = malformed(action)
    if code is None and game.out_of_deals:
        code = "NO_DEAL"  # the deal bridge knows the deals ran out; the engine would deal from its seed
    code = code or not_their_turn(game, action) or too_coarse(game, action)
    if code is not None:
        return refused(code, ADAPTER)
    seen = len(game.history)
    try:
        apply(game, action)
    except NotAllowed as refusal:
        return refused(code_of(str(refusal)), ENGINE)
    return {"ok": True, "events": [event(e) for e in game.history[seen:]], "legal": legal(game)}


def legal(game):
    """The engine's options, in the protocol's words: a rank becomes each card of it held, a raise its level."""
    seat = game.current_player
    if seat is None or game.out_of_deals:
        return []
    out = []
    for option in game.options():
        if option == "raise":
            out.append({"seat": seat, "act": "raise", "to": game.next_level()})
        elif option in ("accept", "fold"):
            out.append({"seat": seat, "act": "accept" if option == "accept" else "refuse"})
        else:
            out += [{"seat": seat, "act": "play", "card": c} for c in game.exact[seat] if c[:-1] == option]
    return out


def event(entry):
    """An entry of the engine's history as a protocol event."""
    if entry[0] == "trick":
        return {"event": "trick", "trick": entry[1], "winner": entry[2]}
    if entry[0] == "match":
        return {"event": "match", "winner": entry[1]}
    _, winner, points, how, scores = entry
    reason = "refusal" if how == "folded" else "tricks" if winner else "tied"
    return {"event": "hand", "winner": winner, "points": points, "reason": reason, "score": scores}


# ---------------------------------------------------------------- the protocol


def run(req):
    seq = req["seq"]
    if req.get("ruleset") not in RULESETS:
        return errored(seq, "unknown ruleset")
    if not isinstance(req.get("setup"), dict) or not isinstance(req.get("actions"), list):
        return errored(seq, "a run needs a setup object and an actions array")
    try:
        game = ScriptedGame(*setup_of(req["setup"]))
    except Unusable as exc:
        return errored(seq, str(exc))
    first = legal(game)
    steps = [step(game, action) for action in req["actions"]]
    final = {"score": dict(game.scores), "dealer": game.dealer, "winner": game.winner}
    return {"seq": seq, "legal": first, "steps": steps, "final": final}


def errored(seq, message):
    return {"seq": seq, "errored": True, "message": message}


def answer(req):
    seq = req.get("seq") if type(req.get("seq")) is int else None
    if req.get("cmd") == "start":
        if not (type(req.get("protocol")) is int and req["protocol"] == 1):
            return errored(seq, "this adapter speaks protocol 1")
        hello = {"protocol": 1, "protocol_minor": 1, "rulesets": RULESETS}
        hello["implementation"] = {"name": "cardgame", "version": "1.0", "language": "python"}
        return {**hello, "error_codes": False} if OUTCOME else hello
    if req.get("cmd") == "run":
        return run(req) if seq is not None else errored(None, "a run needs an integer seq")
    return errored(seq, "unknown cmd: the commands are start, run and stop")


def not_json(text):
    """NaN, Infinity and a number out of the double range are not JSON, whatever Python's json module reads."""
    if text in ("NaN", "Infinity", "-Infinity") or float(text) in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is not a JSON number")
    return float(text)


def main():
    for line in sys.stdin.buffer:
        body = line.removeprefix(b"\xef\xbb\xbf")
        if not body.strip(b" \t\r\n"):
            continue
        try:
            req = json.loads(body.decode("utf-8"), parse_constant=not_json, parse_float=not_json)
        except (ValueError, RecursionError):
            req = None
        if not isinstance(req, dict):
            reply = errored(None, "a request is one JSON object")
        elif req.get("cmd") == "stop":
            break
        else:
            try:
                reply = answer(req)
            except Exception as exc:  # a bug costs one answer, not the run
                reply = errored(req.get("seq") if type(req.get("seq")) is int else None, f"internal error: {exc!r}")
        print(json.dumps(reply), flush=True)
    engine, adapter = COUNTS[ENGINE], COUNTS[ADAPTER]  # the adapter's own count, for a harness that keeps none
    print(
        f"cardgame adapter: {engine + adapter} refusals, {engine} by the engine, {adapter} by the adapter",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
