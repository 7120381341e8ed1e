"""Le Truc for two players, A and B: a small engine written for a club's own table, not for any protocol."""

import random

RANKS = ["3", "2", "A", "K", "Q", "J", "7", "6", "5", "4"]  # highest first; suits never count
SUITS = ["S", "H", "D", "C"]
PACK = [rank + suit for rank in RANKS for suit in SUITS]  # 40 cards: no 10, 9 or 8
TOP = 12  # no raise goes past 12
TARGET = 12  # the first to 12 points wins


class NotAllowed(Exception):
    """A move the rules do not allow now; the message is for the player."""


def other(player):
    return "B" if player == "A" else "A"


def beats(card, against):
    return RANKS.index(card[:-1]) < RANKS.index(against[:-1])


class Game:
    """A match of Le Truc. Every move is made by the current player; the game deals for itself from its seed."""

    def __init__(self, seed=None, dealer=None, scores=None):
        self.rng = random.Random(seed)
        self.dealer = dealer or self.rng.choice(["A", "B"])
        self.scores = dict(scores or {"A": 0, "B": 0})
        self.winner = None  # of the match
        self.history = []  # ("trick", n, winner), ("hand", winner, points, how, scores), ("match", winner)
        self.new_hand()

    # ------------------------------------------------------------ the deal

    def deal_hand(self):
        """Shuffle the pack and deal three cards each, one at a time, the dealer's opponent first."""
        pack = list(PACK)
        self.rng.shuffle(pack)
        return {other(self.dealer): pack[0:6:2], self.dealer: pack[1:6:2]}

    def new_hand(self):
        self.hands = self.deal_hand()
        self.stake = 1
        self.proposed = None  # the level a waiting raise proposes
        self.raiser = None  # who made it
        self.leader = self.turn = other(self.dealer)  # the player who did not deal leads
        self.table = []  # the cards of the trick in play
        self.tricks = []  # the winner of each trick so far, None for a spoilt one

    # ------------------------------------------------------------ what the table sees

    @property
    def current_player(self):
        """Who acts now: the player a raise waits on, else the player due to play; None once the match is won."""
        if self.winner:
            return None
        return other(self.raiser) if self.proposed else self.turn

    def next_level(self):
        """The level a raise would propose now, or None when the stake cannot go higher."""
        basis = self.proposed or self.stake
        if basis >= TOP:
            return None
        return 2 if basis == 1 else basis + 2

    def options(self):
        """What the current player may do: the ranks they can play, "raise", "accept", "fold"."""
        if self.winner:
            return []
        raising = ["raise"] if self.next_level() else []
        if self.proposed:
            return ["accept", "fold"] + raising
        ranks = [card[:-1] for card in self.hands[self.turn]]
        return list(dict.fromkeys(ranks)) + raising

    # ------------------------------------------------------------ moves

    def play(self, rank):
        """The current player plays a card of that rank."""
        self._still_on()
        if self.proposed:
            raise NotAllowed("Not allowed now: a raise is waiting for its answer.")
        hand = self.hands[self.turn]
        card = next((c for c in hand if c[:-1] == rank), None)
        if card is None:
            raise NotAllowed(f"You have no {rank}.")
        hand.remove(card)
        self.table.append((self.turn, card))
        if len(self.table) == 1:
            self.turn = other(self.turn)
        else:
            self._end_trick()

    def raise_(self):
        """The current player raises the stake one level, or raises again a raise waiting on them."""
        self._still_on()
        level = self.next_level()
        if level is None:
            raise NotAllowed(f"Not allowed now: the stake cannot go past {TOP}.")
        if self.proposed:
            self.stake = self.proposed  # raising again accepts the waiting raise
        self.proposed, self.raiser = level, self.current_player

    def accept(self):
        self._still_on()
        if not self.proposed:
            raise NotAllowed("Not allowed now: there is no raise to accept.")
        self.stake, self.proposed, self.raiser = self.proposed, None, None

    def fold(self):
        self._still_on()
        if not self.proposed:
            raise NotAllowed("Not allowed now: there is no raise to fold.")
        self._end_hand(self.raiser, self.stake, "folded")  # the stake before the folded raise

    # ------------------------------------------------------------ inside

    def _still_on(self):
        if self.winner:
            raise NotAllowed("The game is over.")

    def _end_trick(self):
        (first, led), (second, answer) = self.table
        won = None  # two cards of one rank spoil the trick: its leader leads again
        if led[:-1] != answer[:-1]:
            won = first if beats(led, answer) else second
        self.tricks.append(won)
        self.history.append(("trick", len(self.tricks), won))
        self.table = []
        self.leader = self.turn = won or first
        decided, winner = self._hand_result()
        if decided:
            self._end_hand(winner, self.stake if winner else 0, "played")

    def _hand_result(self):
        """(decided, winner): two tricks win, a spoilt trick counting for the first player who won one."""
        first = next((w for w in self.tricks if w), None)
        for player in ("A", "B"):
            if sum(1 for w in self.tricks if w == player or (w is None and player == first)) >= 2:
                return True, player
        return len(self.tricks) == 3, None  # three spoilt tricks: nobody wins

    def _end_hand(self, winner, points, how):
        if winner:
            self.scores[winner] += points
        self.history.append(("hand", winner, points, how, dict(self.scores)))
        self.dealer = other(self.dealer)
        if winner and self.scores[winner] >= TARGET:
            self.winner = winner
            self.history.append(("match", winner))
        else:
            self.new_hand()
