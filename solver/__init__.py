"""Puzzle model, text formats, rules and exact solvers for Sudoku, Futoshiki and Takuzu.

Pure Python (+ numpy); never imports OpenCV. The main entry points:

- ``read_puzzles(text, kind="auto")``: every puzzle in a text;
- ``solve(puzzle)``: an exact, independently verified ``Result``;
- ``kinds.get(name)``: a kind's own parse / format / check / solve / explain.
"""
from .errors import ExitCode, ParseError, ScanSolveError
from .puzzle import Cell, Explanation, Grid, Puzzle, Relation, Result, Step
from .api import read_puzzles, solve, sniff_kind

__all__ = [
    "Cell", "ExitCode", "Explanation", "Grid", "ParseError", "Puzzle", "Relation",
    "Result", "ScanSolveError", "Step", "read_puzzles", "sniff_kind", "solve",
]
