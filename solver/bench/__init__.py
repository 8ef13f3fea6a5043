"""Solver benchmark: ``python -m solver.bench`` (a command that prints figures, not a test)."""
