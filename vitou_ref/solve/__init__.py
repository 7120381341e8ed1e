"""The card play of a hand solved under perfect information, from the compiled tables, and its figures."""
