"""``python -m vitou_ref`` runs the vitou command."""

from .cli import console

console()
