"""Offline image recipes (no registry needed) and the builder that reuses unchanged images."""
