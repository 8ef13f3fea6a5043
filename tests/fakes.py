"""Stand-ins shared by the tests: a kind reader whose ``read`` gives fixed readings."""
from __future__ import annotations

from scanner.readers import takuzu


class FixedReader:
    """A Takuzu reader (the scanner.readers protocol) whose ``read`` gives fixed readings: the photo stage's
    choice among readings, without a picture."""

    kind = "takuzu"

    def __init__(self, readings):
        self.readings = readings

    def accepts(self, candidate):
        return True

    def read(self, loaded, candidate, engine, *, timer):
        return list(self.readings)

    def make_puzzle(self, grid, relations=(), *, source="", index=0):
        return takuzu.READER.make_puzzle(grid, relations, source=source, index=index)

    def labels(self, puzzle, solution):
        return takuzu.READER.labels(puzzle, solution)
