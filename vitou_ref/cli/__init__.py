"""The vitou command: one module per command group, each parsing its options and calling plain functions."""

from .main import build_parser, console, main

__all__ = ["build_parser", "console", "main"]
