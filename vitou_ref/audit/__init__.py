"""Referees' tools: game records and their notation, audits, translations and the rulebook."""
