"""Simulation for variant designers: matches played by kinds of players, counted, compared, charted and merged."""
