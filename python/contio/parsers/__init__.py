"""Parsers of other tools' text output (for people and other tools; contio itself reads JSON)."""
