"""A reader read after another kind's reading has solved is told the floor below which its readings cannot matter
(``photo._read_candidate``, ``takes_floor``); giving none below it changes nothing."""
from __future__ import annotations

from scanner import photo, revise
from scanner.timing import Timer
from solver import kinds
from solver.api import solve

from fakes import FixedReader
from test_photo_reach import _cands, _reading, _same


class FloorReader(FixedReader):
    """A fixed reader that takes ``floor``: it notes the floors it is told and gives none of its readings below."""

    takes_floor = True

    def __init__(self, readings):
        super().__init__(readings)
        self.floors = []

    def read(self, loaded, candidate, engine, *, timer, floor=None):
        self.floors.append(floor)
        return [r for r in self.readings if floor is None or r.log_likelihood() >= floor]


def _sure(seed: int):
    puzzle = kinds.get("takuzu").generate(6, seed=seed)
    return _reading([[[(v, 0.999), (1 - v, 0.001)] if v is not None else [(None, 0.999), (0, 0.001)] for v in row]
                     for row in puzzle.givens])


def _run(readers):
    calls = []

    def counted(p):
        calls.append(1)
        return solve(p)
    got = photo._read_candidate(None, readers, loaded=None, engine=None, source="x", index=0, solve=counted,
                                timer=Timer())
    return got, len(calls)


def _doubtful(cands, p: float):
    """``cands`` with every cell's best candidate at ``p``."""
    return [[[(cell[0][0], p), (cell[1][0], 1.0 - p)] for cell in row] for row in cands]


def test_a_reading_far_behind_a_solved_one_is_not_needed_and_the_choice_stays():
    sure, far = _sure(5), _reading(_doubtful(_cands(4), 0.7))
    assert far.log_likelihood() < sure.log_likelihood() - revise.RIVAL_MARGIN
    told = FloorReader([far])
    got, solves = _run([FixedReader([sure]), told])
    was, solves_was = _run([FixedReader([sure]), FixedReader([far])])
    assert told.floors == [sure.log_likelihood() - got[2].cost - revise.RIVAL_MARGIN]
    assert got[1] is was[1] is sure and _same(got[2], was[2]) and got[2].status == "solved"
    assert solves == solves_was  # the revision made to tell the floor is not made again


def test_a_reading_within_the_floor_is_given_and_weighed_as_before():
    sure, near = _sure(5), _reading(_cands(3))  # a few doubtful marks: ambiguous, within the margin of ``sure``
    assert near.log_likelihood() > sure.log_likelihood() - revise.RIVAL_MARGIN
    told = FloorReader([near])
    got, _ = _run([FixedReader([sure]), told])
    was, _ = _run([FixedReader([sure]), FixedReader([near])])
    assert told.floors[0] is not None
    assert got[1] is was[1] and _same(got[2], was[2])


def test_no_floor_before_any_reading_solves():
    unsure = _reading([[[(None, 0.99), (0, 0.01)]] * 6 for _ in range(6)])  # no givens: no reading solves
    told = FloorReader([_sure(5)])
    got, _ = _run([FixedReader([unsure]), told])
    assert told.floors == [None] and got[2].status == "solved" and got[1] is told.readings[0]
