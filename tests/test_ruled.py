"""The ruled-grid reader's stages (scanner.readers.ruled): a second look for pale glyphs, turns read."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from scanner import cells
from scanner.readers import ruled, sudoku

CELL = 48


def _grid_picture(n: int, glyphs: dict, *, paper: int = 235, glare: tuple | None = None) -> np.ndarray:
    """A dewarped grid (n * CELL square, gray): ruled lines, and ``glyphs`` {(row, col): (text, gray level)};
    ``glare`` (row, col, strength): light washing the print out around that cell's centre."""
    pic = np.full((n * CELL, n * CELL), paper, np.uint8)
    for i in range(n + 1):
        p = min(i * CELL, n * CELL - 1)
        cv2.line(pic, (p, 0), (p, n * CELL - 1), 20, 2)
        cv2.line(pic, (0, p), (n * CELL - 1, p), 20, 2)
    for (r, c), (text, level) in glyphs.items():
        cv2.putText(pic, text, (c * CELL + 13, r * CELL + 37), cv2.FONT_HERSHEY_SIMPLEX, 1.1, level, 3)
    if glare is not None:
        r, c, strength = glare
        yy, xx = np.mgrid[0:n * CELL, 0:n * CELL]
        g = strength * np.exp(-(((yy - (r + 0.5) * CELL) ** 2 + (xx - (c + 0.5) * CELL) ** 2) / (2 * (2.5 * CELL) ** 2)))
        pic = (pic * (1.0 - g) + 255.0 * g).astype(np.uint8)
    return cv2.GaussianBlur(pic, (3, 3), 0)


def test_second_look_finds_a_pale_glyph_the_page_wide_ink_level_misses():
    glyphs = {(r, (3 * r) % 9): (str(r + 1), 15) for r in range(9)}
    glyphs[(4, 7)] = ("7", 15)
    pic = _grid_picture(9, glyphs, glare=(4, 7, 0.65))  # washed out by glare: far paler than the rest
    first = cells.measure(pic, 9, cell=CELL)
    assert first[4][7].crop is None  # what the second look is for
    inks = ruled.second_look(pic, first, cell=CELL)
    assert inks[4][7].crop is not None and inks[4][7].p_filled > 0.5
    marked = {(r, c) for r in range(9) for c in range(9) if inks[r][c].crop is not None}
    assert marked == set(glyphs)  # nothing found in the empty cells
    assert all(inks[r][c] is first[r][c] for r, c in glyphs if (r, c) != (4, 7))  # the rest kept as measured


def test_second_look_leaves_a_clean_print_alone():
    pic = _grid_picture(9, {(r, (2 * r) % 9): (str(r + 1), 15) for r in range(9)})
    first = cells.measure(pic, 9, cell=CELL)
    assert ruled.second_look(pic, first, cell=CELL) is first


def test_hopeless_turns_are_the_ones_far_below_the_best_scaled_to_every_inked_cell():
    inked = 100
    fits = [(-0.05, inked), (-0.06, inked), (-0.6, inked), (-0.05 - ruled.HOPELESS / inked * 1.01, inked)]
    assert [ruled._hopeless(fits, q) for q in range(4)] == [False, False, True, True]
    few = [(f, 10) for f, _ in fits]  # the same means over a small grid: too little at stake to drop any
    assert not any(ruled._hopeless(few, q) for q in range(4))


def _cut_edge(crop: np.ndarray) -> np.ndarray:
    """The kept pixels of a crop (not pure white) that touch a whited-out one: where the crop's mask cut."""
    kept = crop < 255
    whited = cv2.dilate((~kept).astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return crop[kept & whited]


def test_a_blurred_glyphs_crop_keeps_its_soft_edge_down_to_the_paper():
    pic = cv2.GaussianBlur(_grid_picture(9, {(4, 4): ("3", 15)}), (9, 9), 0)  # a blurred photo's glyph
    tight = cells.measure(pic, 9, cell=CELL, halo=3)[4][4].crop
    wide = cells.measure(pic, 9, cell=CELL, halo=ruled.GLYPH_HALO)[4][4].crop
    assert ((tight < 255) <= (wide < 255)).all() and (wide < 255).sum() > (tight < 255).sum()
    # the tight mask cuts through the blur's gray; the reader's crop ends where the paper begins
    assert np.median(_cut_edge(tight)) < 200 < np.median(_cut_edge(wide))


def test_second_look_takes_a_glyph_glare_cut_to_a_piece_from_the_stretched_picture():
    # a dewarped 9x9 of a generated photo (dev seed 20090): glare washes out the 5 at r3c3 but its lower part
    pic = cv2.imread(str(Path(__file__).parent / "data" / "glare_fragment_9x9.png"), cv2.IMREAD_GRAYSCALE)
    opts = dict(retrim=cells.WIDE_TRIM, halo=ruled.GLYPH_HALO)
    first = cells.measure(pic, 9, cell=CELL, **opts)
    assert first[2][2].crop is not None and first[2][2].height < 0.5  # a piece at the page-wide level...
    inks = ruled.second_look(pic, first, cell=CELL, **opts)
    assert inks[2][2].height >= ruled.FRAGMENT_GAIN * first[2][2].height  # ...the whole of it when stretched
    kept = [(r, c) for r in range(9) for c in range(9) if inks[r][c] is first[r][c] and first[r][c].crop is not None]
    assert len(kept) >= 20  # glyphs whole at the page-wide level keep their crops


def _pale_armed_e(n: int, at: tuple[int, int], *, arms: int) -> np.ndarray:
    """A dewarped n x n grid with black ruled lines and, at cell ``at``, an E whose stem is dark and whose three
    arms are drawn at gray ``arms`` (a thin print's arms, paled by a blurred photo)."""
    pic = _grid_picture(n, {(r, (5 * r) % n): ("4", 15) for r in range(n) if (r, (5 * r) % n) != at})
    r, c = at
    x, y = c * CELL + 18, r * CELL + 12
    for dy in (0, 11, 22):
        cv2.line(pic, (x + 2, y + dy), (x + 13, y + dy), arms, 1)
    cv2.line(pic, (x, y), (x, y + 22), 15, 3)
    return cv2.GaussianBlur(pic, (3, 3), 0)


def test_a_16x16_crop_keeps_the_faint_strokes_joined_to_its_glyph():
    pic = _pale_armed_e(16, (5, 6), arms=150)
    opts = dict(retrim=cells.WIDE_TRIM, halo=ruled.GLYPH_HALO, trim=ruled.PAIR_TRIM, pairs=True)
    plain = cells.measure(pic, 16, cell=CELL, **opts)[5][6].crop
    faint = cells.measure(pic, 16, cell=CELL, faint=ruled.FAINT_SHARE, **opts)[5][6].crop
    cut = round(ruled.PAIR_TRIM * CELL)
    arm_tips = [(12 + dy - cut, 18 + 12 - cut) for dy in (0, 11, 22)]  # (row, col) in the crop
    assert all(plain[p] == 255 for p in arm_tips)  # the page's ink level leaves the stem: a "1"
    assert all(faint[p] < 235 for p in arm_tips)  # kept, pale as they are
    assert ((plain < 255) <= (faint < 255)).all()


def test_faint_strokes_add_nothing_to_a_plain_print():
    pic = _grid_picture(16, {(r, (5 * r) % 16): (str(1 + r % 9), 15) for r in range(16)})
    opts = dict(retrim=cells.WIDE_TRIM, halo=ruled.GLYPH_HALO, trim=ruled.PAIR_TRIM, pairs=True)
    plain = cells.measure(pic, 16, cell=CELL, **opts)
    faint = cells.measure(pic, 16, cell=CELL, faint=ruled.FAINT_SHARE, **opts)
    for row_p, row_f in zip(plain, faint):
        for p, f in zip(row_p, row_f):
            assert (p.crop is None) == (f.crop is None) and p.height == f.height
            assert p.crop is None or np.array_equal(p.crop, f.crop)


def test_faint_strokes_are_not_the_grain_of_the_paper():
    rng = np.random.default_rng(3)
    pic = _grid_picture(16, {(r, (5 * r) % 16): ("4", 15) for r in range(16)}).astype(np.float32)
    pic = np.clip(pic + rng.normal(0, 14, pic.shape), 0, 255).astype(np.uint8)  # a grainy photo's paper
    norm = cells.normalise(pic, cell=CELL)
    dark = float(np.percentile(norm, 1.5))
    level = cells.level_below(dark)
    share = ruled.FAINT_SHARE * (1.0 - dark)
    plain = cells.faint_strokes(norm, cell=CELL, share=share, floor=0.0)
    floored = cells.faint_strokes(norm, cell=CELL, share=share,
                                  floor=cells.FAINT_GRAIN * cells.paper_grain(norm, level))
    paper = np.zeros_like(plain)  # the middles of the empty cells: nothing but paper
    for r in range(16):
        for c in range(16):
            if c != (5 * r) % 16:
                paper[r * CELL + 12:(r + 1) * CELL - 12, c * CELL + 12:(c + 1) * CELL - 12] = True
    assert plain[paper].mean() > 0.005  # the grain's darker specks pass the share alone
    assert floored[paper].mean() < plain[paper].mean() / 20


def _pair_cell_picture(draw) -> np.ndarray:
    """A dewarped 16x16 grid (black lines) with ``draw(picture, x, y)`` drawing in cell r5c6 (its top-left x, y)."""
    pic = _grid_picture(16, {(r, (5 * r) % 16): ("4", 15) for r in range(16) if (r, (5 * r) % 16) != (5, 6)})
    draw(pic, 6 * CELL, 5 * CELL)
    return cv2.GaussianBlur(pic, (3, 3), 0)


PAIR_OPTS = dict(retrim=cells.WIDE_TRIM, halo=ruled.GLYPH_HALO, trim=ruled.PAIR_TRIM, pairs=True)


def test_a_two_digit_numbers_1_touching_the_thick_line_beside_it_is_kept():
    def draw(pic, x, y):
        cv2.rectangle(pic, (x - 2, y), (x + 4, y + CELL), 15, -1)  # a box border, thick into the cell
        cv2.line(pic, (x + 8, y + 12), (x + 8, y + 36), 15, 3)  # the 1's stem ...
        cv2.line(pic, (x + 4, y + 15), (x + 8, y + 12), 15, 2)  # ... its flag joins the border
        cv2.putText(pic, "2", (x + 18, y + 36), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 15, 2)

    crop = cells.measure(_pair_cell_picture(draw), 16, cell=CELL, **PAIR_OPTS)[5][6].crop
    cut = round(ruled.PAIR_TRIM * CELL)
    assert crop[24 - cut, 8 - cut] < 100  # the 1's stem (it went with the border's remnant before)
    assert sudoku.split_glyphs(crop)[1] > 0.5  # read as two glyphs


def test_the_two_1s_of_an_11_standing_apart_are_both_kept():
    def draw(pic, x, y):
        for left in (12, 30):  # narrow 1s, each centred in a digit's width
            cv2.line(pic, (x + left, y + 12), (x + left, y + 36), 15, 3)
            cv2.line(pic, (x + left - 4, y + 15), (x + left, y + 12), 15, 2)

    crop = cells.measure(_pair_cell_picture(draw), 16, cell=CELL, **PAIR_OPTS)[5][6].crop
    cut = round(ruled.PAIR_TRIM * CELL)
    assert crop[24 - cut, 12 - cut] < 100 and crop[24 - cut, 30 - cut] < 100


def _reader_of(best: float, runner_up: float):
    """A crops reader reading every crop, however turned, as "1" at ``best`` and "2" at ``runner_up``; and
    the list of its calls' batch sizes."""
    calls = []

    def read(engine, crops, *, alphabet):
        calls.append(len(crops))
        return [[("1", best), ("2", runner_up)] for _ in crops]
    return read, calls


def test_a_grid_read_with_no_rival_in_sight_is_not_read_turned_though_its_fit_is_below_turn_checked():
    inks = [[cells.CellInk(0.6, 1.0, np.full((20, 20), 255, np.uint8)) for _ in range(4)] for _ in range(4)]
    opts = dict(alphabet="1234", values=(1, 2, 3, 4))
    clear, calls = _reader_of(0.95, 0.001)  # fit log 0.95 = -0.05: between orientations' sure and TURN_CHECKED
    assert [q for q, _ in ruled.orientations(inks, None, crops_reader=clear, **opts)] == [0]
    assert calls == [16]  # read once upright: no sample read turned
    close, calls = _reader_of(0.95, 0.04)  # the same fit, a runner-up in sight: the turns are sampled
    assert [q for q, _ in ruled.orientations(inks, None, crops_reader=close, **opts)] == [0, 1, 2, 3]
    assert len(calls) > 1 and calls[1] == ruled.TURN_SAMPLE  # (every turn reads alike here: all are kept)


def test_clear_of_is_never_below_fit_of_and_zero_without_a_runner_up():
    rng = np.random.default_rng(7)
    for _ in range(50):
        cands = [[sorted(((v, float(p)) for v, p in zip((1, 2, None), rng.dirichlet((1, 1, 1)))), key=lambda t: -t[1])
                  for _ in range(3)] for _ in range(3)]
        if any(cell[0][0] is not None for row in cands for cell in row):
            assert ruled.clear_of(cands) >= ruled.fit_of(cands)
    assert ruled.clear_of([[[(1, 0.8)], [(None, 1.0)]]]) == 0.0


def test_the_glyph_keeps_its_own_ink_when_one_faint_stroke_joins_it():
    mask = np.zeros((20, 20), bool)
    mask[4:16, 8:12] = True  # a thick stem at the page's ink level (too wide to be a faint stroke)
    ink = mask.copy()
    faint = np.zeros_like(mask)
    faint[4:6, 8:18] = True  # one pale arm, joined to the stem's top
    got = cells._with_faint(mask, ink, faint)
    assert got[mask].all()  # nothing of the glyph is lost
    assert got[4:6, 12:18].all()  # the arm is taken in
    assert got.sum() == mask.sum() + 2 * 6
    apart = np.zeros_like(mask)
    apart[18:20, 0:6] = True  # one faint stroke holding none of the glyph: left out
    assert np.array_equal(cells._with_faint(mask, ink, apart), mask)


def test_measure_with_least_gives_the_full_measure_of_the_glyphs_that_tall_and_nothing_else():
    # glyphs of three sizes, some pale under glare, with the 16x16 options (pairs, faint strokes, wide retrim)
    n = 9
    pic = _grid_picture(n, {(r, (4 * r + 1) % n): (str(r + 1) if r % 3 else "1" + str(r), 15) for r in range(n)},
                        glare=(2, 3, 0.5))
    cv2.putText(pic, "8", (6 * CELL + 18, 7 * CELL + 30), cv2.FONT_HERSHEY_SIMPLEX, 0.6, 30, 2)  # a small glyph
    opts = dict(retrim=cells.WIDE_TRIM, halo=ruled.GLYPH_HALO, trim=ruled.PAIR_TRIM, pairs=True,
                faint=ruled.FAINT_SHARE)
    full = cells.measure(pic, n, cell=CELL, **opts)
    heights = sorted({round(ink.height, 3) for row in full for ink in row if ink.crop is not None})
    assert len(heights) >= 3
    least = [[heights[(r + c) % len(heights)] for c in range(n)] for r in range(n)]
    some = cells.measure(pic, n, cell=CELL, **opts, least=least)
    for r in range(n):
        for c in range(n):
            a, b = full[r][c], some[r][c]
            if a.height >= least[r][c]:
                assert b.height == a.height and b.p_filled == a.p_filled
                assert (a.crop is None and b.crop is None) or np.array_equal(a.crop, b.crop)
            else:
                assert b.height == 0.0 and b.crop is None
    assert any(full[r][c].crop is not None and some[r][c].crop is None for r in range(n) for c in range(n))
    assert any(some[r][c].crop is not None for r in range(n) for c in range(n))


def _grainy_grid(noise: float, *, seed: int = 0) -> np.ndarray:
    """An 8 x 8 grid of 40 px cells photographed dark and soft (paper 100, lines 70, two 0s at 40, blurred) under
    sensor grain of ``noise`` gray levels."""
    n, cell = 8, 40
    img = np.full((n * cell, n * cell), 100, np.uint8)
    for i in range(n + 1):
        cv2.line(img, (0, i * cell), (n * cell, i * cell), 70, 1)
        cv2.line(img, (i * cell, 0), (i * cell, n * cell), 70, 1)
    for r, c in ((1, 2), (5, 5)):
        cv2.putText(img, "0", (c * cell + 11, r * cell + 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 40, 2)
    img = cv2.GaussianBlur(img, (0, 0), 1.5)
    noisy = img + np.random.default_rng(seed).normal(0, noise, img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def test_a_grainy_picture_is_smoothed_before_its_ink_is_measured_and_shows_no_phantom_marks():
    pic = _grainy_grid(3.0)

    def inked(gray):
        inks = cells.measure(ruled.local_contrast(gray, cell=40), 8, cell=40)
        return sorted((r, c) for r in range(8) for c in range(8) if inks[r][c].crop is not None)

    assert len(inked(pic)) > 10  # stretched per neighbourhood, the grain clumps into marks
    assert inked(ruled.ungrained(pic, cell=40)) == [(1, 2), (5, 5)]


def test_a_clean_picture_is_not_smoothed():
    pic = _grid_picture(6, {(1, 1): ("1", 30), (4, 2): ("0", 30)})
    assert ruled.ungrained(pic, cell=CELL) is pic
