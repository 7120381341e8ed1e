"""The package version, in one place: hatch reads it here, and every room may import it."""

__version__ = "1.0.0"
