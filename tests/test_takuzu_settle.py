"""A circle print's turn told by the page's words only for a reading that solves or is returned
(``GridReading.settle``): the words cost 100-200 ms and change neither the likelihood, nor whether the grid
solves, nor the overlay."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scanner import grid_find, load, orient, page_turn, photo, rectify
from scanner.readers import GridReading, takuzu
from scanner.timing import Timer
from solver import kinds
from solver.api import solve

from fakes import FixedReader

from test_takuzu_photo import CIRCLES, _sample


@pytest.fixture(scope="module")
def circle_print(tmp_path_factory):
    return _sample(tmp_path_factory.mktemp("settle"), "takuzu", 12, 8, {"symbols": CIRCLES})


def _read_circles(path, monkeypatch, shape_turn):
    """The Takuzu reader's readings of an upright 8x8 circle print whose page's text shape tells ``shape_turn``
    (None: does not tell) and whose words tell the page is upside down; and the words' calls so far."""
    calls = []

    def words(found, image, quad, n):
        calls.append(n)
        return dataclasses.replace(found, turn=2)

    monkeypatch.setattr(page_turn.orient, "page_turn", lambda image, quad, n: orient.Orientation(shape_turn, 0.5, 0.0, 3))
    monkeypatch.setattr(page_turn.turn_text, "refine", words)
    loaded = load.load(path)
    cand = next(c for c in grid_find.find_grids(loaded.small) if c.size == 8)
    return takuzu.READER.read(loaded, cand, photo.get_engine("auto"), timer=Timer()), calls


def _values(reading):
    return np.array([[cell[0][0] for cell in row] for row in reading.cands], dtype=object)


def test_circle_turn_left_to_the_words_is_settled_on_demand(circle_print, monkeypatch):
    [reading], calls = _read_circles(circle_print, monkeypatch, None)
    assert calls == [] and reading.settle is not None  # no words read yet
    assert reading.turn == 0 and not reading.turn_known  # the shape's likeliest turn meanwhile: as seen
    settled = reading.settle()
    assert calls == [8] and settled.settle is None
    assert settled.turn == 2 and settled.turn_known  # the words: upside down
    assert (_values(settled) == np.rot90(_values(reading), k=2)).all()
    assert np.allclose(settled.filled, np.rot90(reading.filled, k=2))
    assert settled.log_likelihood() == pytest.approx(reading.log_likelihood(), abs=1e-9)
    assert photo.image_quad(settled) == photo.image_quad(reading)  # the same grid in the photo
    assert np.allclose(settled.mesh.points, reading.mesh.rotated(2).points)


def test_circle_turn_the_text_shape_tells_needs_no_words(circle_print, monkeypatch):
    [reading], calls = _read_circles(circle_print, monkeypatch, 1)  # tops of the letters pointing right
    assert reading.settle is None and calls == []
    assert reading.turn == 1 and reading.turn_known


def _reading(givens, p: float, *, settle=None) -> GridReading:
    n = len(givens)
    cands = [[[(v, p), (1 - v, 1.0 - p)] if v is not None else [(None, p), (0, 1.0 - p)] for v in row]
             for row in givens]
    ys, xs = np.mgrid[0:n + 1, 0:n + 1].astype(np.float32) * 40.0
    mesh = rectify.Mesh(n, np.stack([xs, ys], axis=-1))
    return GridReading(mesh=mesh, turn=0, cands=cands, fit=float(np.log(p)), picture=np.zeros((n * 40, n * 40), np.uint8),
                       cell=40, settle=settle)


def test_photo_stage_settles_a_reading_only_when_it_solves_near_the_best():
    puzzle = kinds.get("takuzu").generate(6, seed=5)
    calls = []
    turned = [list(row) for row in np.rot90(np.array(puzzle.givens, dtype=object), k=2)]

    def settle():
        calls.append(1)
        return dataclasses.replace(_reading(turned, 0.92), turn=2, turn_known=True)

    # p 0.92: every runner-up beyond revise.RIVAL_MARGIN (no rival reading), yet the whole reading more than
    # the margin below ``sure``'s
    lazy = _reading(puzzle.givens, 0.92, settle=settle)
    sure = _reading(puzzle.givens, 0.999)  # another reading, far likelier, that solves
    run = dict(loaded=None, engine=None, source="x", index=0, solve=solve, timer=Timer())
    reader, reading, rev = photo._read_candidate(None, [FixedReader([sure]), FixedReader([lazy])], **run)
    assert reading is sure and rev.status == "solved" and calls == []  # never revised: its turn never asked
    reader, reading, rev = photo._read_candidate(None, [FixedReader([lazy])], **run)
    assert calls == [1] and reading.turn == 2 and reading.settle is None  # revised as settled: the answer's turn
    assert rev.status == "solved" and rev.grid == turned


def test_photo_stage_asks_the_words_only_for_a_reading_that_solves_or_is_returned():
    puzzle = kinds.get("takuzu").generate(6, seed=5)
    calls = []
    clash = [[0, 0, 0] + [None] * 3] + [[None] * 6 for _ in range(5)]  # three 0s side by side: no solution

    def settle():
        calls.append(1)
        return dataclasses.replace(_reading([list(row) for row in np.rot90(np.array(clash, dtype=object), k=2)],
                                            0.92), turn=2, turn_known=True)

    lazy = _reading(clash, 0.92, settle=settle)  # a circle reading that does not solve, in its provisional turn
    close = _reading(puzzle.givens, 0.93)  # another kind's reading, within the margin, that solves
    run = dict(loaded=None, engine=None, source="x", index=0, solve=solve, timer=Timer())
    reader, reading, rev = photo._read_candidate(None, [FixedReader([close]), FixedReader([lazy])], **run)
    assert reading is close and rev.status == "solved" and calls == []  # revised, unsolved: its turn never asked
    reader, reading, rev = photo._read_candidate(None, [FixedReader([lazy])], **run)
    assert calls == [1] and reading.turn == 2 and reading.settle is None  # returned unsolved: told first
    assert rev.status != "solved"
