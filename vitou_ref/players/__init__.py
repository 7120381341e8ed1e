"""Players as plug-ins: each sees only its seat's Observation and chooses an action; the arena plays them."""

from .base import KINDS, Player, make_player

__all__ = ["KINDS", "Player", "make_player"]
