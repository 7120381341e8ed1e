"""``python -m vitou_ref`` runs the vitou command."""

from .cli.main import console

console()
