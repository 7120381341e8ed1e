"""Presentation: what every renderer shares, below the rooms that render; the escaping of each output format."""
