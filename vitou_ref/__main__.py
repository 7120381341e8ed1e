"""``python -m vitou_ref`` runs the vitou command."""

from .cli.main import console

if __name__ == "__main__":  # importing the module (a tool, a test) must not run the command
    console()
