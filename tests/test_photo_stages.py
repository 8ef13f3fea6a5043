"""Stage-level checks of the photo pipeline: loading large JPEGs, grid finding next to other print, the mesh's
outer lines, two-digit cells, grids that are no puzzle, the engine's votes."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner import cells, grid_find, load, photo, rectify
from scanner.ocr.fake import FakeEngine
from scanner.readers import ruled, sudoku
from scanner.revise import Revision
from solver import kinds

from test_photo import CELL, PAPER, TRUE_QUAD, _labels, photo_of, render_grid


@pytest.fixture(scope="module")
def puzzle():
    return kinds.get("sudoku").generate(9, seed=3)


def test_large_jpeg_is_found_on_a_reduced_decode_and_decoded_fully_on_demand(tmp_path, puzzle):
    page = cv2.resize(photo_of(puzzle.givens), (3600, 3240), interpolation=cv2.INTER_LINEAR)
    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), page, [cv2.IMWRITE_JPEG_QUALITY, 85])
    loaded = load.load(path)
    assert max(loaded.small.shape[:2]) <= 1.5 * load.DETECT_LONG_SIDE
    assert loaded.scale == pytest.approx(loaded.small.shape[1] / 3600, rel=1e-3)
    loaded.prefetch()
    assert loaded.image.shape == (3240, 3600, 3)
    [record] = photo.scan_photo(path, draw=False, reader=FakeEngine(_labels(puzzle.givens)))
    expected = TRUE_QUAD * np.array([3600 / 1200, 3240 / 1080], np.float32)
    assert np.abs(np.array(record["quad"]) - expected).max() < 12.0  # 12 px of a 2400 px grid


def test_grid_joined_to_a_text_frame_by_a_stray_rule_is_found(puzzle):
    image = photo_of(puzzle.givens)
    gray = image.copy()
    # a column rule beside the grid, joined to its bottom border by a stray horizontal stroke
    cv2.line(gray, (1080, 40), (1080, 1060), (20, 20, 20), 3)
    cv2.line(gray, (960, 930), (1080, 930), (20, 20, 20), 3)
    for y in range(60, 1040, 28):  # text in the column
        cv2.putText(gray, "lorem ipsum", (1090, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (30, 30, 30), 1)
    found = grid_find.find_grids(gray)
    assert found and found[0].size == 9
    assert np.abs(found[0].quad - TRUE_QUAD).max() < 8.0


def test_line_mask_keeps_ruled_lines_and_drops_text_and_specks():
    mask = np.zeros((400, 400), np.uint8)
    cv2.line(mask, (20, 50), (380, 52), 255, 2)  # a ruled line, slightly tilted
    cv2.line(mask, (200, 80), (200, 380), 255, 2)
    cv2.putText(mask, "3 8 5 2 6", (30, 200), cv2.FONT_HERSHEY_SIMPLEX, 0.5, 255, 1)  # body-text size
    mask[300:303, 50:53] = 255  # a speck
    lines = grid_find.line_mask(mask, length=27)  # the default on a 1100-pixel detection copy
    assert lines[51, 100] and lines[300, 200]
    assert not lines[180:205, 30:150].any() and not lines[300:303, 50:53].any()


def test_outer_line_is_not_pulled_onto_a_title_bar(puzzle):
    image = photo_of(puzzle.givens)
    # a dark title bar touching the top border from above
    bar = np.array([[210, 100], [1010, 140], [1010, 180], [210, 140]], np.int32)
    cv2.fillPoly(image, [bar], (60, 60, 60))
    mesh = rectify.fit_mesh(image, TRUE_QUAD + np.float32([[0, -8], [0, -8], [0, 0], [0, 0]]), 9)
    assert np.abs(mesh.quad - TRUE_QUAD).max() < 4.0


def test_two_digit_cells_read_as_ten_to_sixteen():
    crop = np.full((40, 40), 255, np.uint8)
    cv2.putText(crop, "1", (4, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 0, 2)
    cv2.putText(crop, "3", (20, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 0, 2)
    single = np.full((40, 40), 255, np.uint8)
    cv2.putText(single, "7", (12, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 0, 2)
    parts, p_pair = sudoku.split_glyphs(crop)
    assert len(parts) == 2 and p_pair > 0.9
    assert sudoku.split_glyphs(single)[1] < 0.3

    def engine(i, cell):  # whole cells read "8" (wrongly) and "7"; the halves of the pair "1" and "3"
        return "87"[i] if cell.shape[1] == 40 else "13.."[i]

    readings = sudoku.read_numbers(FakeEngine(engine), [crop, single], alphabet=sudoku.ALPHABET)
    assert readings[0][0][0] == "D" and readings[0][0][1] > 0.9  # 13 is printed "13", labelled D
    assert readings[1][0] == ("7", 1.0)


def test_touching_two_digits_are_cut_and_a_ruled_remnant_is_dropped():
    crop = np.full((40, 40), 255, np.uint8)
    cv2.putText(crop, "1", (6, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 0, 2)
    cv2.putText(crop, "6", (18, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 0, 2)
    crop[26:31, 8:24] = 0  # serifs joining the glyphs: no empty column between them
    crop[:, 0:2] = 0  # a ruled line along the left edge
    parts, p_pair = sudoku.split_glyphs(crop)
    assert len(parts) == 2 and p_pair > 0.5
    assert (parts[0][:, :2] == 255).all()  # the line is gone
    assert (parts[0] < 128).any() and (parts[1] < 128).any()


def test_a_grid_with_no_empty_cell_is_no_puzzle(puzzle):
    full = kinds.get("sudoku").solve(puzzle).solution
    assert photo.not_a_puzzle(Revision("solved", full, None))
    assert photo.not_a_puzzle(Revision("solved", puzzle.givens, None)) is None
    nearly_empty = [[None] * 9 for _ in range(9)]
    nearly_empty[0][0] = 5
    assert photo.not_a_puzzle(Revision("unreadable", nearly_empty, None))


def test_a_grid_filled_but_for_a_few_cells_is_a_printed_solution_not_a_puzzle(puzzle):
    # a printed solution cut by the photo's edge, or with a mark unread, reads with a few cells empty: no
    # answer is drawn into it; a puzzle with half its cells given still is one
    full = kinds.get("sudoku").solve(puzzle).solution
    cut = [row[:] for row in full]
    for c in range(9):
        cut[0][c] = None  # the top row lost past the photo's edge: 72 of 81 filled
    assert "72 of its 81 cells filled" in photo.not_a_puzzle(Revision("solved", cut, None))
    half = [[v if (r * 9 + c) % 2 else None for c, v in enumerate(row)] for r, row in enumerate(full)]
    assert photo.not_a_puzzle(Revision("solved", half, None)) is None


def test_a_takuzu_solution_whose_white_circles_went_unseen_is_no_puzzle():
    # a printed solution beside the puzzle, its thin white circles too faint to read: only its black ones are
    # seen, half the grid of one symbol; a puzzle gives both symbols
    solution = kinds.get("takuzu").solve(kinds.get("takuzu").generate(10, seed=3)).solution
    blacks = [[v if v == 1 else None for v in row] for row in solution]
    assert "50 of its 100 cells hold one symbol" in photo.not_a_puzzle(Revision("solved", blacks, None))
    givens = kinds.get("takuzu").generate(10, seed=3).givens
    assert len({v for row in givens for v in row if v is not None}) == 2
    assert photo.not_a_puzzle(Revision("solved", givens, None)) is None
    few = [[v if v == 1 and r < 3 else None for v in row] for r, row in enumerate(solution)]  # 15 ones: a puzzle may
    assert photo.not_a_puzzle(Revision("solved", few, None)) is None


def test_engine_votes_sharpened_and_empty_vote_on_a_glyph_partly_believed():
    reading = [("1", 0.3), (".", 0.6), ("7", 0.1)]
    sharp = ruled.sharpen(reading, 0.5)
    assert [label for label, _ in sharp] == [".", "1", "7"]
    assert sharp[0][1] == pytest.approx(0.36 / 0.46)
    ink = cells.CellInk(height=0.6, p_filled=1.0, crop=None)
    cands = cells.combine(ink, reading, alphabet="123456789", dot_trust=0.3)
    assert cands[0][0] == 1  # the glyph is there: the reader's "empty" no longer wins
    assert dict(cands)[None] == pytest.approx(0.18)


def test_symbols_outside_the_alphabet_lower_the_likelihood():
    ink = cells.CellInk(height=0.6, p_filled=1.0, crop=None)
    reading = [("8", 0.9), ("1", 0.1)]
    kept = cells.combine(ink, reading, alphabet="1234", renormalise=False)
    renorm = cells.combine(ink, reading, alphabet="1234")
    assert dict(kept)[1] == pytest.approx(0.1) and dict(renorm)[1] == pytest.approx(1.0)


def test_revision_needing_more_corrections_than_allowed_is_unreadable(puzzle):
    from scanner.revise import revise
    from solver.api import solve
    from solver.puzzle import Puzzle

    grid = puzzle.copy_grid()
    cands = [[[(v, 0.99), (None if v is not None else 1, 0.01)] for v in row] for row in grid]
    filled = [(r, c) for r in range(9) for c in range(9) if grid[r][c] is not None]
    for r, c in filled[:3]:  # three doubtful misreads, each clashing with its row: the truth is 3 changes away
        wrong = next(v for v in range(1, 10) if v != grid[r][c] and v in grid[r])
        cands[r][c] = [(wrong, 0.6), (grid[r][c], 0.4)]
    make = lambda g, rels=(): Puzzle("sudoku", 9, g, box=(3, 3))  # noqa: E731
    assert revise(cands, make, solve, max_changes=3).grid == grid  # found when 3 corrections are allowed
    rev = revise(cands, make, solve)  # the default allows 2 and only looks one further for rivals
    assert rev.status == "unreadable" and rev.grid != grid


def test_two_glyphs_side_by_side_are_both_kept_when_cells_may_hold_pairs():
    picture = np.full((48, 48), 235, np.uint8)
    cv2.putText(picture, "1", (4, 34), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 20, 2)  # off the centre, near the line
    cv2.putText(picture, "4", (22, 34), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 20, 2)
    picture[:, :2] = picture[:2, :] = 20  # ruled lines
    single = cells.measure(picture, 1, cell=48)[0][0]
    both = cells.measure(picture, 1, cell=48, trim=ruled.PAIR_TRIM, pairs=True)[0][0]
    ink = lambda crop: np.nonzero((crop < 128).any(axis=0))[0]  # noqa: E731
    assert ink(both.crop)[0] < ink(single.crop)[0]  # the "1" is in the crop only with pairs
    assert both.p_filled > 0.9


def test_ruled_lines_meeting_in_a_cell_corner_are_no_mark_but_a_ring_is():
    cell = 48
    corner = np.full((cell, cell), 235, np.uint8)
    corner[40:44, 6:44] = 20  # the bottom line and the right line of a slightly shifted mesh: an L
    corner[6:44, 40:44] = 20
    ring = np.full((cell, cell), 235, np.uint8)
    cv2.circle(ring, (24, 24), 18, 20, 3)
    assert cells.measure(corner, 1, cell=cell)[0][0].p_filled < 0.1
    assert cells.measure(ring, 1, cell=cell)[0][0].p_filled > 0.9


def test_a_glyph_running_into_the_trimmed_margin_is_looked_at_again_whole():
    cell = 48
    picture = np.full((cell, cell), 235, np.uint8)
    picture[3:44, 17:31] = 20  # a tall glyph reaching past the usual 10 % trim at both ends
    trimmed = cells.measure(picture, 1, cell=cell)[0][0]
    whole = cells.measure(picture, 1, cell=cell, retrim=cells.WIDE_TRIM)[0][0]
    dark_rows = lambda crop: int((crop < 128).any(axis=1).sum())  # noqa: E731
    assert dark_rows(whole.crop) > dark_rows(trimmed.crop)
    assert trimmed.p_filled == whole.p_filled  # the decision filled / empty does not change


def test_a_ruled_lattice_inside_a_box_grid_of_another_size_is_no_puzzle_of_its_own():
    from types import SimpleNamespace

    from scanner import photo

    def cand(x, y, side, size):
        return SimpleNamespace(quad=np.float32([[x, y], [x + side, y], [x + side, y + side], [x, y + side]]), size=size)

    boxes9 = cand(100, 100, 360, 9)
    part4 = cand(120, 180, 160, 4)  # four of its boxes a side, read as a ruled 4x4
    twin9 = cand(102, 101, 358, 9)  # the same grid seen as ruled: same size, kept (the readers choose)
    beside = cand(500, 100, 160, 4)  # another puzzle beside it
    assert photo.unnested([part4, twin9, beside], [boxes9]) == [twin9, beside, boxes9]
    assert photo.unnested([part4], []) == [part4]


def test_a_ruled_lattice_mostly_on_a_box_grid_of_another_size_is_no_puzzle_of_its_own():
    from types import SimpleNamespace

    from scanner import photo

    def cand(x, y, side, size):
        return SimpleNamespace(quad=np.float32([[x, y], [x + side, y], [x + side, y + side], [x, y + side]]), size=size)

    boxes7 = cand(100, 100, 360, 7)
    straddling = cand(120, 360, 160, 4)  # its last boxes and the text lines under them (5/8 of it on the grid)
    touching = cand(440, 100, 160, 4)  # a puzzle beside it, an outline a little over its edge (1/8 on it)
    assert photo.unnested([straddling, touching], [boxes7]) == [touching, boxes7]
