"""okfpro: a Git-backed knowledge workspace for coding agents and the humans who work with them."""

__version__ = "0.1.0"
