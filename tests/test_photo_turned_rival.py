"""A digit print read in two turns that both solve, to one answer in the photo (0s and 1s read alike upside
down): answered, as seen, with the turn unknown -- not unreadable; a rival with another answer still is."""
from __future__ import annotations

import numpy as np

from scanner import photo
from scanner.readers import GridReading, takuzu
from scanner.rectify import Mesh
from scanner.timing import Timer

#: a unique 8 x 8 Takuzu (samples/takuzu/photo_digits.json), as printed
GIVENS = [[None, 1, None, 0, None, 0, None, None], [None, 1, None, None, None, None, None, 0],
          [1, None, None, None, None, None, None, 1], [None, 1, None, 1, 0, None, None, None],
          [None, None, 0, None, None, 0, None, None], [None, None, None, None, 1, None, None, None],
          [1, None, None, None, 1, None, None, None], [None, None, None, None, None, 1, None, None]]


def _cands(grid, p: float):
    return [[[(v, p), (1 - v, 1 - p)] if v is not None else [(None, 1.0)] for v in row] for row in grid]


class _Reader(takuzu.TakuzuReader):
    """The Takuzu reader's rules and puzzles, with fixed readings: (turn, candidates) each."""

    def __init__(self, readings):
        self.readings = readings

    def accepts(self, candidate):
        return True

    def read(self, loaded, candidate, engine, *, timer, **options):
        mesh = Mesh(8, np.stack(np.meshgrid(np.arange(9.0), np.arange(9.0)), axis=-1))
        return [GridReading(mesh=mesh, turn=turn, cands=cands, fit=0.0, picture=np.zeros((8, 8), np.uint8), cell=1,
                            filled=filled) for turn, cands, *more in self.readings for filled in (more or [None])]


def _read(readings):
    return photo._read_candidate(object(), [_Reader(readings)], None, None, source="x", index=0,
                                 solve=photo.solve_puzzle, timer=Timer())


def test_the_print_read_upside_down_as_well_is_answered_as_seen_with_the_turn_unknown():
    upside_down = np.rot90(np.array(GIVENS, dtype=object), 2).tolist()
    # the upside-down reading a little likelier (serif 1s' feet), within the rival margin
    _, reading, rev = _read([(0, _cands(GIVENS, 0.97)), (2, _cands(upside_down, 0.99))])
    assert rev.status == "solved"
    assert reading.turn == 0 and not reading.turn_known
    assert rev.result.solution is not None


def test_a_rival_with_another_answer_in_the_photo_still_makes_it_unreadable():
    other = np.array(GIVENS, dtype=object).T  # a puzzle of its own (the print mirrored), not this one turned
    upside_down = np.rot90(other, 2).tolist()
    _, reading, rev = _read([(0, _cands(GIVENS, 0.97)), (2, _cands(upside_down, 0.99))])
    assert rev.status == "unreadable" and "two different readings" in rev.reason


def test_the_reading_as_seen_is_given_only_when_trusted_as_the_likeliest_would_be():
    """The upright reading needed a mark taken out where the ink plainly shows one (a printed mark could not
    be read): not trusted, so the likeliest reading (upside down) is given, the turn unknown all the same."""
    upside_down = np.rot90(np.array(GIVENS, dtype=object), 2).tolist()
    cands = _cands(GIVENS, 0.97)
    cands[7][7] = [(0, 0.6), (None, 0.4)]  # a mark read where the print has none (the solution has 1 there)
    filled = np.zeros((8, 8))
    filled[7, 7] = 1.0  # ... whose ink is plain
    _, reading, rev = _read([(0, cands, filled), (2, _cands(upside_down, 0.99))])
    assert rev.status == "solved" and reading.turn == 2 and not reading.turn_known
