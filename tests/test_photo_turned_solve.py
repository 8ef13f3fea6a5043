"""A settled reading's revision takes the solver's answers of its provisional one, turned (``photo.turned_solve``):
the same puzzles in another quarter turn, which Takuzu's rules treat alike."""
from __future__ import annotations

import dataclasses

import numpy as np

from scanner import photo, revise
from scanner.readers import takuzu
from scanner.timing import Timer
from solver import kinds
from solver.api import solve
from solver.puzzle import Puzzle

from fakes import FixedReader
from test_photo_reach import _cands, _reading


def _turned(grid, quarter: int):
    return np.rot90(np.array(grid, dtype=object), k=-quarter).tolist()


def test_a_turned_puzzle_gets_the_kept_answer_turned_and_an_unknown_one_is_solved():
    generated = kinds.get("takuzu").generate(6, seed=4)
    sparse = [[None] * 6 for _ in range(6)]
    sparse[0][0], sparse[2][3] = 1, 0
    clash = [[0, 0, 0, None, None, None]] + [[None] * 6 for _ in range(5)]
    kept, calls = {}, []

    def counted(puzzle):
        calls.append(1)
        return solve(puzzle)
    record = photo._kept_solve(counted, kept)
    for givens in (generated.givens, sparse, clash):
        record(Puzzle("takuzu", 6, givens))
    assert len(calls) == 3 and len(kept) == 3
    again = photo.turned_solve(counted, kept, "takuzu")
    for quarter in range(4):
        for givens in (generated.givens, sparse, clash):
            puzzle = Puzzle("takuzu", 6, _turned(givens, quarter))
            got, truth = again(puzzle), solve(puzzle)
            assert got.status == truth.status and got.solution == truth.solution
            assert all(kinds.get("takuzu").is_solution(puzzle, s) for s in got.solutions)
    assert len(calls) == 3  # every one answered from the kept answers
    other = [list(row) for row in sparse]
    other[5][5] = 1
    again(Puzzle("takuzu", 6, other))
    assert len(calls) == 4  # a puzzle not kept is solved
    assert photo.turned_solve(counted, kept, "sudoku") is counted  # a kind whose boxes may not turn: no answers


def test_a_circle_reading_returned_unsolved_is_revised_settled_without_the_solver():
    cands = _cands(9)  # a few doubtful marks: ambiguous every way, unsolved
    settled = _reading([[list(cell) for cell in row] for row in _turned(cands, 2)])
    settled = dataclasses.replace(settled, turn=2)
    lazy = dataclasses.replace(_reading(cands), settle=lambda: settled)
    calls = []

    def counted(puzzle):
        calls.append(1)
        return solve(puzzle)
    run = dict(loaded=None, engine=None, source="x", index=0, timer=Timer())
    reader, reading, rev = photo._read_candidate(None, [FixedReader([lazy])], solve=counted, **run)
    assert reading is settled and rev.status != "solved"
    provisional = revise.revise(cands, takuzu.READER.make_puzzle, solve,
                                clash=kinds.get("takuzu").check_givens, is_solution=kinds.get("takuzu").is_solution)
    assert len(calls) == provisional.solves  # the settled revision called no solver
    plain = revise.revise(settled.cands, takuzu.READER.make_puzzle, solve,
                          clash=kinds.get("takuzu").check_givens, is_solution=kinds.get("takuzu").is_solution)
    assert (rev.status, rev.grid, rev.changes, rev.cost, rev.reason, rev.tries) == \
           (plain.status, plain.grid, plain.changes, plain.cost, plain.reason, plain.tries)
