"""Growing part of a ruled grid to the whole grid (scanner.lattice_grow), and find_grids taking the grown grid
when a cluster of empty cells is all it found of it."""
from __future__ import annotations

import cv2
import numpy as np

from scanner import grid_find, lattice_grow
from test_grid_find import _lattice, _page

CELL = 50


def _circle_print(*, warp: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 10 x 10 thin-ruled grid (one-pixel lines and border) whose cells hold black discs but in its bottom-right
    5 x 5 block, under a title bar standing on its top border and running on past it; optionally warped by the
    (3, 3) homography ``warp``. Returns (picture, the grid's corners, the empty block's corners)."""
    img = _page((900, 1200))
    corners = _lattice(img, 10, 300, 200, CELL, thick=1, border=1)
    cv2.rectangle(img, (300, 140), (900, 199), 60, -1)
    rng = np.random.default_rng(3)
    for r in range(10):
        for c in range(10):
            if (r < 5 or c < 5) and rng.random() < 0.7:
                cv2.circle(img, (300 + c * CELL + CELL // 2, 200 + r * CELL + CELL // 2), 18, 20, -1)
    block = np.array([[550, 450], [800, 450], [800, 700], [550, 700]], np.float32)
    if warp is not None:
        img = cv2.warpPerspective(img, warp, (img.shape[1], img.shape[0]), borderValue=235)
        corners, block = (cv2.perspectiveTransform(q.reshape(-1, 1, 2), warp).reshape(4, 2) for q in (corners, block))
    return img, corners, block


def _near(quad: np.ndarray, corners: np.ndarray) -> bool:
    return float(np.abs(quad - corners).max()) < 0.02 * float(np.linalg.norm(corners[0] - corners[1]))


def test_a_block_of_empty_cells_grows_to_its_whole_grid_and_not_into_the_title_bar():
    img, corners, block = _circle_print()
    grown = lattice_grow.grow(img, block, 5)
    assert grown is not None
    quad, size = grown
    assert size == 10 and _near(quad, corners)


def test_a_photographed_grid_grows_along_its_perspective():
    warp = cv2.getPerspectiveTransform(np.array([[0, 0], [1200, 0], [1200, 900], [0, 900]], np.float32),
                                       np.array([[60, 30], [1150, 80], [1120, 880], [20, 820]], np.float32))
    img, corners, block = _circle_print(warp=warp)
    grown = lattice_grow.grow(img, block, 5)
    assert grown is not None and grown[1] == 10 and _near(grown[0], corners)


def test_a_whole_grid_does_not_grow():
    img, corners, _ = _circle_print()
    assert lattice_grow.grow(img, corners, 10) is None  # its lines end at its border; the bar is no row


def test_find_grids_takes_the_grown_grid_of_a_cluster_whose_lines_run_on(monkeypatch):
    img, corners, block = _circle_print()
    # the cluster of empty cells is all that is found of the grid (no outline of it, no lattice searched)
    monkeypatch.setattr(grid_find, "_outlines", lambda gray, **kw: ([], []))
    monkeypatch.setattr(grid_find, "cell_cluster_quads", lambda gray, **kw: [block] if not kw["lines_only"] else [])
    monkeypatch.setattr(grid_find, "lattices_near", lambda gray, quad, **kw: [])
    assert [(c.size, _near(c.quad, corners)) for c in grid_find.find_grids(img)] == [(10, True)]
    monkeypatch.setattr(lattice_grow, "grow", lambda *a, **k: None)
    assert grid_find.find_grids(img) == []  # the 5 x 5 block alone is no grid: its lines run on


def test_a_small_square_cluster_in_an_outline_with_no_grid_is_grown(monkeypatch):
    """An outline nothing was found in (here the grid with its title bar, askew) holding only a 3 x 3 cluster
    of whole cells (too few to be checked as a grid): the cluster is grown to the grid."""
    img, corners, _ = _circle_print()
    outline = np.array([[300, 140], [900, 140], [800, 700], [300, 700]], np.float32)
    three = np.array([[650, 550], [800, 550], [800, 700], [650, 700]], np.float32)
    monkeypatch.setattr(grid_find, "_outlines", lambda gray, **kw: ([outline], []))
    monkeypatch.setattr(grid_find, "cell_cluster_quads", lambda gray, **kw: [])
    monkeypatch.setattr(grid_find, "lattices_near", lambda gray, quad, **kw: [])
    monkeypatch.setattr(grid_find, "_cell_clusters", lambda gray, **kw: [(9, three, (3, 3))])
    assert grid_find.check(img, outline)[0] == 0  # the outline is no grid
    assert [(c.size, _near(c.quad, corners)) for c in grid_find.find_grids(img)] == [(10, True)]
    monkeypatch.setattr(grid_find, "_cell_clusters", lambda gray, **kw: [(9, three + np.float32([350, 0]), (3, 3))])
    assert grid_find.find_grids(img) == []  # (a cluster lying in no outline is not grown)


def test_a_lattice_of_more_rows_than_columns_grows_and_follows_the_lines_it_drifts_off():
    """A 4 x 6 part of a photographed 10 x 10 grows to it; the lattice fitted to the lines it sees as it grows
    (an 8 x 9 part of a 20 x 20 extended 12 cells drifted off its far lines: retired held-out ho4 9620002)."""
    warp = cv2.getPerspectiveTransform(np.array([[0, 0], [1200, 0], [1200, 900], [0, 900]], np.float32),
                                       np.array([[60, 30], [1150, 80], [1120, 880], [20, 820]], np.float32))
    img, corners, _ = _circle_print(warp=warp)
    part = np.array([[600, 400], [800, 400], [800, 700], [600, 700]], np.float32)  # columns 6..9, rows 4..9
    part = cv2.perspectiveTransform(part.reshape(-1, 1, 2), warp).reshape(4, 2)
    grown = lattice_grow.grow(img, part, (4, 6))
    assert grown is not None and grown[1] == 10 and _near(grown[0], corners)


def test_a_lattice_stopped_short_of_a_square_by_a_broken_line_is_squared_where_its_lines_run_on():
    """The line under the grid's first row broken for most of its length: the lattice stops growing there with
    10 columns and 8 rows, its column lines running on above it; it is squared on that end to the grid."""
    img, corners, block = _circle_print()
    for x in range(300, 900, CELL):  # 70 % of the line gone, in pieces
        img[247:254, x + 8:x + 43] = 235
    grown = lattice_grow.grow(img, block, 5)
    assert grown is not None
    quad, size = grown
    assert size == 10 and _near(quad, corners)



def test_squared_on_the_one_end_where_the_lines_run_on_and_only_a_few_cells_short():
    assert lattice_grow.squared((-1, 17, -7, 7), (0.7, 0.0)) == (-1, 17, -11, 7)  # 18 x 14: rows on top
    assert lattice_grow.squared((-1, 17, -7, 7), (0.0, 0.3)) == (-1, 17, -7, 11)  # (a soft photo's faint lines)
    assert lattice_grow.squared((0, 8, 0, 10), (0.05, 0.9)) == (0, 10, 0, 10)  # 8 x 10: columns on the right
    assert lattice_grow.squared((-1, 17, -7, 7), (0.7, 0.5)) == (-1, 17, -7, 7)  # which end: not told
    assert lattice_grow.squared((-1, 17, -7, 7), (0.7, 0.15)) == (-1, 17, -7, 7)
    assert lattice_grow.squared((-1, 17, -7, 7), (0.1, 0.0)) == (-1, 17, -7, 7)  # ended at both
    assert lattice_grow.squared((0, 18, 0, 12), (0.9, 0.0)) == (0, 18, 0, 12)  # 6 of 18 missing: too many
