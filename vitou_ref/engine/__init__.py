"""The interpreter: cards, actions, events, the rules compiled into tables, and the match's state machine."""
