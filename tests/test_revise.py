"""The search for a reading (scanner.revise): what bounds it."""
from __future__ import annotations

import time

from scanner import revise
from solver import kinds
from solver.api import solve
from solver.puzzle import Puzzle


def _doubtful_reading():
    """A 9x9 reading whose every given is doubtful (p 0.6, runner-up: empty), so the search goes on past the raw
    reading looking for rivals; and its make_puzzle."""
    puzzle = kinds.get("sudoku").generate(9, seed=5)
    cands = [[[(v, 0.6), (None, 0.4)] if v is not None else [(None, 0.99), (1, 0.01)] for v in row]
             for row in puzzle.copy_grid()]

    def make(grid, relations=()):
        return Puzzle("sudoku", 9, grid, box=(3, 3))
    return cands, make


def test_search_bound_is_cpu_time_so_waiting_does_not_change_the_outcome():
    cands, make = _doubtful_reading()
    quick = revise.revise(cands, make, solve, max_solves=12)

    def slow_solve(puzzle):  # a loaded machine: every call waits (wall time passes, this thread's CPU does not)
        time.sleep(0.01)
        return solve(puzzle)
    waited = revise.revise(cands, make, slow_solve, max_solves=12, max_seconds=0.05)
    assert waited.solves == quick.solves == 12 and waited.ended == quick.ended == "solves"
    assert (waited.status, waited.grid) == (quick.status, quick.grid)


def test_search_reports_the_time_bound_when_cpu_time_runs_out():
    cands, make = _doubtful_reading()

    def busy_solve(puzzle):
        end = time.thread_time() + 0.01
        while time.thread_time() < end:
            pass
        return solve(puzzle)
    rev = revise.revise(cands, make, busy_solve, max_solves=1000, max_seconds=0.03)
    assert rev.ended == "time" and 2 <= rev.solves < 20
