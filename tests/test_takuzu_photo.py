"""Takuzu from a photo: digit and circle prints read exactly, circles told apart, kinds told apart (--kind auto)."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from scanner import cells as cells_stage
from scanner import circles
from scanner.photo import scan_photo
from scanner.readers import takuzu
from scanner.synth import write_sample

CIRCLES = "circles (black = 1, white = 0)"


def _truth(path):
    return json.loads(path.with_suffix(".json").read_text())["puzzles"][0]


def _sample(tmp_path, kind, seed, size, style=None):
    return write_sample(tmp_path, f"{kind}_{seed}", kind, seed=seed, size=size, mode="photo", turn=0, two=False,
                        style=style, long_side=1400)


def _cell_picture(marks: list[str], *, cell: int = 40) -> np.ndarray:
    """A 1-row ruled strip (cell, len * cell) uint8 with each mark drawn: 'ring', 'disc', '0', '1', '' (empty)."""
    img = np.full((cell, cell * len(marks)), 235, np.uint8)
    for i, m in enumerate(marks):
        cx, cy = i * cell + cell // 2, cell // 2
        if m == "ring":
            cv2.circle(img, (cx, cy), 13, 20, 2, cv2.LINE_AA)
        elif m == "disc":
            cv2.circle(img, (cx, cy), 13, 20, -1, cv2.LINE_AA)
        elif m:
            cv2.putText(img, m, (cx - 7, cy + 9), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 20, 2, cv2.LINE_AA)
        cv2.rectangle(img, (i * cell, 0), ((i + 1) * cell - 1, cell - 1), 20, 1)
    return img


def _marks(kinds):
    from scanner import cells

    picture = _cell_picture(kinds)
    # ink of a 1-row strip: measure works on square grids, so stack the strip into an n x n picture
    n = len(kinds)
    square = np.vstack([picture] * n)
    inks = cells.measure(square, n, cell=40)[0]
    dark = circles.darkness(square, cell=40)
    return [circles.mark(ink.crop, circles.cell_interior(dark, 0, c, cell=40)) if ink.crop is not None else None
            for c, ink in enumerate(inks)]


def test_rings_discs_and_digits_told_apart():
    ring, disc, zero, one, empty = _marks(["ring", "disc", "0", "1", ""])
    assert empty is None
    assert ring.round and disc.round
    assert not zero.round and not one.round  # a printed 0 is taller than wide, a 1 narrow
    assert circles.black_probability(disc) > 0.95
    assert circles.black_probability(ring) < 0.05
    assert circles.circle_probability(ring) > 0.9 and circles.circle_probability(disc) > 0.9
    assert circles.is_circle_grid([ring, disc, None, ring])
    assert not circles.is_circle_grid([zero, one, one, zero])


def test_a_bold_print_of_round_zeros_is_no_circle_grid():
    """A bold serif's 0s count as round (aspect 0.81 .. 0.86), six of a grid's eight marks; its 1s are narrow. The
    marks are not square as printed circles are: digits, not black circles."""
    zero, wide_zero, one = (circles.Extent(width=w, height=0.656) for w in (0.531, 0.5625, 0.406))
    assert zero.round and wide_zero.round and not one.round
    assert not circles.is_circle_grid([zero, wide_zero] * 3 + [one] * 2)
    ring, disc = circles.Extent(width=0.62, height=0.60), circles.Extent(width=0.64, height=0.64)
    assert circles.is_circle_grid([ring, disc] * 3 + [one] * 2)


def test_extent_is_the_marks_extent():
    # the reader tells circles from digits by ``extent`` alone (no radial profile): the same width, height and
    # roundness as ``mark``'s, and None where it is None
    from scanner import cells

    kinds = ["ring", "disc", "0", "1", "", "ring", "1"]
    square = np.vstack([_cell_picture(kinds)] * len(kinds))
    inks = cells.measure(square, len(kinds), cell=40)
    dark = circles.darkness(square, cell=40)
    for r, row in enumerate(inks):
        for c, ink in enumerate(row):
            if ink.crop is None:
                continue
            m, e = circles.mark(ink.crop, circles.cell_interior(dark, r, c, cell=40)), circles.extent(ink.crop)
            assert (m is None) == (e is None)
            if m is not None:
                assert (e.width, e.height, e.round) == (m.width, m.height, m.round)
    assert circles.extent(np.full((30, 30), 255, np.uint8)) is None

def test_digit_candidates_keep_other_digits_out_of_the_likelihood():
    from scanner.cells import CellInk

    ink = CellInk(height=0.6, p_filled=1.0, crop=np.zeros((4, 4), np.uint8))
    sure = takuzu.digit_candidates(ink, [("1", 0.97), ("7", 0.02), (".", 0.01)])
    foreign = takuzu.digit_candidates(ink, [("5", 0.9), ("0", 0.06), (".", 0.04)])
    assert sure[0][0] == 1 and sure[0][1] > 0.95
    assert foreign[0][1] < 0.1  # a 5 is no Takuzu value: the reading is unlikely, not renormalised to a sure 0


def test_digit_takuzu_photo_read_exactly(tmp_path):
    path = _sample(tmp_path, "takuzu", 11, 6, {"symbols": "digits"})
    rec = scan_photo(path, kind="auto", out_dir=tmp_path)[0]
    truth = _truth(path)
    assert (rec["kind"], rec["status"]) == ("takuzu", "solved")
    assert rec["givens"] == truth["givens"] and rec["solution"] == truth["solution"]
    assert rec["overlay"] and (tmp_path / "takuzu_11.solved.jpg").exists()


def test_circle_takuzu_photo_read_exactly_and_drawn_as_circles(tmp_path, monkeypatch):
    path = _sample(tmp_path, "takuzu", 12, 8, {"symbols": CIRCLES})
    drawn = {}
    from scanner import overlay

    real = overlay.draw_digits

    def spy(image, mesh, labels, **kw):
        drawn.update(labels)
        return real(image, mesh, labels, **kw)

    monkeypatch.setattr(overlay, "draw_digits", spy)
    rec = scan_photo(path, kind="auto", out_dir=tmp_path)[0]
    truth = _truth(path)
    assert (rec["kind"], rec["status"]) == ("takuzu", "solved")
    assert rec["givens"] == truth["givens"]
    assert drawn and set(drawn.values()) == {"white circle", "black circle"}
    for (r, c), label in drawn.items():
        assert label == ("black circle" if truth["solution"][r][c] == 1 else "white circle")


@pytest.mark.parametrize("kind, seed, style", [("takuzu", 15, {"symbols": "digits"}), ("sudoku", 13, None)])
def test_six_by_six_takuzu_and_sudoku_told_apart(tmp_path, kind, seed, style):
    path = _sample(tmp_path, kind, seed, 6, style)
    rec = scan_photo(path, kind="auto", draw=False)[0]
    assert rec["kind"] == kind
    assert rec["status"] == "solved" and rec["givens"] == _truth(path)["givens"]


def test_digit_turns_close_together_are_left_to_the_page_or_the_rules():
    """A 0 and a 1 can look alike upside down: the turn as seen wins when the digits lean its way at all,
    the page's text decides a close call, and without it every close turn is offered (the rules' check then
    finds them rivals)."""
    read = lambda *scores: [(s, q, f"cands{q}") for q, s in enumerate(scores)]  # noqa: E731
    assert [q for _, q, _ in takuzu.plausible_turns(read(-3.0, -40.0, -3.5, -50.0), None)] == [0]
    close = takuzu.plausible_turns(read(-3.0, -40.0, -0.5, -50.0), None)  # 180 leads by less than the prior
    assert sorted(q for _, q, _ in close) == [0, 2]
    assert [q for _, q, _ in takuzu.plausible_turns(close, 2)] == [2]
    assert [q for _, q, _ in takuzu.plausible_turns(read(-9.0, -40.0, -0.5, -50.0), None)] == [2]  # clear
    # the page decides a close call even when the turn as seen leads by a little (glyphs that are the same
    # upside down, e.g. a bar 1 and an oval 0): the prior is only a tie-break when the page cannot tell
    leaning_upright = read(-5.6, -150.0, -5.7, -180.0)
    assert [q for _, q, _ in takuzu.close_turns(leaning_upright)] == [0, 2]
    assert [q for _, q, _ in takuzu.plausible_turns(leaning_upright, 2)] == [2]
    assert [q for _, q, _ in takuzu.plausible_turns(leaning_upright, None)] == [0]
    assert [q for _, q, _ in takuzu.plausible_turns(leaning_upright, 1)] == [0]  # a page turn no digit allows


def test_a_turn_the_upright_prior_keeps_in_play_is_left_to_the_page_too():
    """Glyphs reading better upside down by more than the rival margin but less than the upright prior (serif 1s'
    feet, glare): only the upside-down reading is close, yet the turn as seen stays in play -- so the page is
    asked (``contested_turns``), and its word chooses between them (retired tkfind8 takuzu_940623, an upright
    20 x 20 read 180 degrees turned)."""
    read = lambda *scores: [(s, q, f"cands{q}") for q, s in enumerate(scores)]  # noqa: E731
    leaning_down = read(-4.2, -150.0, -1.2, -180.0)
    assert [q for _, q, _ in takuzu.close_turns(leaning_down)] == [2]
    assert [q for _, q, _ in takuzu.contested_turns(leaning_down)] == [2, 0]
    assert [q for _, q, _ in takuzu.plausible_turns(leaning_down, 0)] == [0]
    assert [q for _, q, _ in takuzu.plausible_turns(leaning_down, 2)] == [2]
    assert sorted(q for _, q, _ in takuzu.plausible_turns(leaning_down, None)) == [0, 2]
    clearly_down = read(-9.0, -150.0, -1.2, -180.0)  # beyond the prior: the glyphs decide, the page is not asked
    assert [q for _, q, _ in takuzu.contested_turns(clearly_down)] == [2]


def test_a_reading_that_is_the_same_upside_down_is_told():
    cell = lambda v: [(v, 0.9), (None, 0.1)]  # noqa: E731
    grid = [[cell(0), cell(None)], [cell(1), cell(1)]]
    turned = [[cell(1), cell(1)], [cell(None), cell(0)]]  # grid seen upside down
    assert takuzu.same_upside_down(grid, turned)
    assert not takuzu.same_upside_down(grid, [[cell(1), cell(1)], [cell(0), cell(None)]])


@pytest.mark.parametrize("seed", [14, 15])  # a page whose text tells the turn, and one whose text does not
def test_a_turned_circle_print_never_claims_a_wrong_turn(tmp_path, seed):
    """Circles look alike every way up: the record either gives the page's turn (the text tells it) and the
    puzzle as printed, or says the turn is unknown and gives the puzzle as seen in the photo (or as the text's
    weak evidence has it, ``orient.likely_turn``: upside down)."""
    path = write_sample(tmp_path, f"takuzu_{seed}", "takuzu", seed=seed, size=8, mode="photo", turn=180, two=False,
                        style={"symbols": CIRCLES}, long_side=1400)
    rec = scan_photo(path, kind="takuzu", out_dir=tmp_path)[0]
    truth = _truth(path)
    assert rec["status"] == "solved"
    if rec["turn_known"]:
        assert rec["turn"] == 180 and rec["givens"] == truth["givens"]
    elif rec["turn"] == 180:  # a guess
        assert rec["givens"] == truth["givens"]
    else:
        assert rec["turn"] == 0
        assert rec["givens"] == [row[::-1] for row in truth["givens"][::-1]]


def test_an_outer_line_pulled_off_the_grid_is_put_back_on_the_inner_spacing():
    """A mesh whose left border was pulled most of a cell outwards at its top (a shaded given, the page's
    edge) gets its outer crossings back where the evenly spaced inner lines put them; a right mesh is kept."""
    from scanner.rectify import Mesh

    n, cell = 8, 30.0
    k = np.arange(n + 1) * cell
    right = Mesh(n, np.stack(np.meshgrid(k + 100.0, k + 50.0), axis=-1))
    pulled = right.points.copy()
    pulled[:3, 0, 0] -= [25.0, 18.0, 12.0]  # the left line's top crossings (x) pulled outwards
    fixed = takuzu.regular_outer(Mesh(n, pulled))
    assert np.abs(fixed.points - right.points).max() < 1e-6
    assert np.abs(takuzu.regular_outer(right).points - right.points).max() < 1e-9


def _glyph_crops(marks: list[str], *, cell: int = 40) -> list[np.ndarray]:
    """One crop (cell, cell) uint8 per mark of ``_cell_picture``, the ruled lines trimmed off."""
    strip = _cell_picture(marks, cell=cell)
    return [np.where(strip[3:cell - 3, i * cell + 3:(i + 1) * cell - 3] < 128, 0, 255).astype(np.uint8)
            for i in range(len(marks))]


@pytest.mark.parametrize("marks, binary", [
    (["0", "1", "1", "0", "1", "0", "0", "1", "1", "0"], True),
    (["ring", "disc", "disc", "ring", "disc", "ring", "ring", "disc"], True),
    (["1", "2", "3", "4", "5", "6", "7", "8", "9", "1", "2", "3"], False),
    (["1", "1", "1", "7", "1", "1", "1", "4", "1", "1"], False),  # a Sudoku never prints 0
    (["10", "1", "11", "12", "13", "1", "14", "15", "16", "10", "1", "12"], False),  # a 16x16 number print
    (["0", "1", "0", "1"], False),  # too few cells to tell
])
def test_a_binary_grid_is_told_from_a_sudoku_by_a_sample_of_its_cells(marks, binary):
    from scanner.photo import get_engine
    from scanner.readers import sudoku

    assert sudoku.looks_binary(get_engine("auto"), _glyph_crops(marks)) == binary


def test_a_glyph_washed_out_by_glare_is_stretched_to_ink_and_paper_stays_paper():
    cell, n = 40, 12
    img = np.full((n * cell, n * cell), 200, np.uint8)
    for k in range(n + 1):  # ruled lines
        img[min(k * cell, n * cell - 1), :] = 60
        img[:, min(k * cell, n * cell - 1)] = 60
    cv2.line(img, (20, 10), (20, 30), 40, 3)  # a 1 in the shade
    cv2.line(img, (9 * cell + 20, 10), (9 * cell + 20, 30), 40, 3)  # a 1 that the glare will wash out
    glare = img[:, 6 * cell:].astype(np.float32)
    img[:, 6 * cell:] = (255 - (255 - glare) * 0.3).astype(np.uint8)  # bright, little contrast left
    assert img[20, 9 * cell + 20] > 150
    out = takuzu.local_contrast(img, cell=cell)
    assert out[20, 9 * cell + 20] < 100 and out[20, 20] < 100
    assert out[20, 10 * cell + 20] > 200 and out[20, cell + 20] > 200  # empty cells, either side


def test_a_faint_or_wide_ring_or_a_grey_disc_the_ink_misses_is_read_as_a_circle():
    """Rings about each cell's centre: a thin light ring wider than the trimmed cell (its arcs run into the
    margin, where the ink measure takes them for ruled lines) reads as a white circle, a disc printed grey as a
    black one; paper and a shaded cell as neither."""
    cell, n = 40, 4
    gray = np.full((n * cell, n * cell), 235, np.uint8)
    for i in range(n + 1):
        cv2.line(gray, (i * cell, 0), (i * cell, n * cell), 40, 2)
        cv2.line(gray, (0, i * cell), (n * cell, i * cell), 40, 2)
    centre = lambda r, c: (c * cell + cell // 2, r * cell + cell // 2)
    cv2.circle(gray, centre(0, 0), 17, 150, 1)  # wide, thin and light
    cv2.circle(gray, centre(1, 1), 12, 40, 2)  # an ordinary white circle
    cv2.circle(gray, centre(2, 2), 12, 40, -1)  # a black disc
    gray[3 * cell + 3:4 * cell - 3, 3 * cell + 3:4 * cell - 3] = 200  # a shaded cell
    cv2.circle(gray, centre(2, 0), 12, 150, -1)  # a black disc printed grey
    dark = circles.darkness(gray, cell=cell)
    samples = circles.centre_samples(dark, n, cell=cell)
    profiles = circles.centre_profiles(dark, n, cell=cell, samples=samples)
    paper = np.ones((n, n), bool)
    paper[[1, 2, 2], [1, 2, 0]] = False  # the marks the ink measure finds (not the wide thin ring: it misses that)
    p = circles.ring_probabilities(samples, paper, cell=cell)
    q = np.vectorize(circles.disc_probability)(circles.disc_contrast(profiles, cell=cell))
    assert p[0, 0] > 0.9 and p[1, 1] > 0.99
    assert p[2, 2] < 0.01 and p[3, 3] < 0.01 and p[0, 1] < 0.01 and p[3, 0] < 0.01 and p[2, 0] < 0.01
    assert q[2, 2] > 0.99 and q[2, 0] > 0.9
    assert q[0, 0] < 0.01 and q[1, 1] < 0.01 and q[3, 3] < 0.01 and q[0, 1] < 0.01
    # the median profiles handed in (as the reader does) are those it would take itself: the same, exactly
    assert np.array_equal(circles.ring_probabilities(samples, paper, cell=cell, profiles=profiles), p)
    empty_ink = cells_stage.CellInk(height=0.0, p_filled=0.0, crop=None)
    assert takuzu.circle_candidates(empty_ink, None, float(p[0, 0]), float(q[0, 0]))[0][0] == 0
    assert takuzu.circle_candidates(empty_ink, None, float(p[2, 0]), float(q[2, 0]))[0][0] == 1
    assert takuzu.circle_candidates(empty_ink, None, float(p[0, 1]), float(q[0, 1]))[0][0] is None


def test_an_outer_line_bent_as_a_whole_gets_its_corners_back_from_the_rows():
    """The right border bowed inwards at both ends (its own crossings agree with each other): the rows across
    it put its corners back, and its column does not undo them."""
    from scanner.rectify import Mesh

    n, cell = 8, 30.0
    k = np.arange(n + 1) * cell
    right = Mesh(n, np.stack(np.meshgrid(k + 100.0, k + 50.0), axis=-1))
    bent = right.points.copy()
    bent[:, n, 0] += [-22.0, -12.0, -5.0, 0.0, 0.0, 0.0, -5.0, -12.0, -22.0]
    fixed = takuzu.regular_outer(Mesh(n, bent))
    assert np.abs(fixed.points[[0, n], n] - right.points[[0, n], n]).max() < 1e-6
    assert np.abs(fixed.points - right.points).max() <= takuzu.OUTER_SLACK * cell


def test_a_true_outer_line_is_not_bent_to_an_inner_line_misfitted_beside_it():
    """The line above the last row followed askew (its left end a quarter cell low, its right end as high: pulled
    by a row of marks, or a strong curl) sends the columns' spacing off at their ends; the bottom border runs
    true through its own crossings and is kept, and so is the rest."""
    from scanner.rectify import Mesh

    n, cell = 6, 30.0
    k = np.arange(n + 1) * cell
    right = Mesh(n, np.stack(np.meshgrid(k + 100.0, k + 50.0), axis=-1))
    askew = right.points.copy()
    askew[n - 1, :, 1] += np.linspace(7.0, -7.0, n + 1)
    fixed = takuzu.regular_outer(Mesh(n, askew))
    assert np.abs(fixed.points - askew).max() < 1e-9


@pytest.mark.parametrize("marks, takuzu_like", [
    (["0", "1", "1", "0", "1", "0", "0", "1", "1", "0", "0", "1", "0", "1", "1", "0"], True),
    (["2", "3", "4", "5", "6", "7", "8", "9", "2", "3", "4", "5", "6", "7", "8", "9"], False),
    (["2", "3", "4", "5", "6", "7", "8", "9", "2", "3"] + [None] * 6, True),  # too few inked cells to be sure
])
def test_a_grid_of_other_digits_is_read_no_further_as_a_takuzu(marks, takuzu_like):
    from scanner.cells import CellInk
    from scanner.photo import get_engine

    crops = iter(_glyph_crops([m for m in marks if m is not None]))
    flat = [CellInk(height=0.6, p_filled=1.0, crop=next(crops)) if m is not None else CellInk(0.0, 0.0, None)
            for m in marks]
    inks = [flat[r * 4:(r + 1) * 4] for r in range(4)]
    readings = takuzu.read_digits(inks, get_engine("auto"))
    assert bool(readings) == takuzu_like
    if takuzu_like and marks[0] == "0":
        assert readings[0][1] == 0 and [[c[0][0] for c in row] for row in readings[0][2]][0] == [0, 1, 1, 0]


@pytest.mark.parametrize("seed, size, style", [(11, 6, {"symbols": "digits"}), (12, 8, {"symbols": CIRCLES})])
def test_readings_carry_the_marks_own_word_on_which_cells_hold_one(tmp_path, seed, size, style):
    """``GridReading.filled`` (upright, as the candidates): the photo stage refuses corrections made while a
    plainly printed mark is read as nothing (``photo.SURE_MARK``)."""
    from scanner import grid_find, load, photo
    from scanner.timing import Timer

    path = _sample(tmp_path, "takuzu", seed, size, style)
    truth = _truth(path)
    loaded = load.load(path)
    cand = next(c for c in grid_find.find_grids(loaded.small) if c.size == size)
    [reading] = takuzu.READER.read(loaded, cand, photo.get_engine("auto"), timer=Timer())
    given = np.array([[v is not None for v in row] for row in truth["givens"]])
    assert reading.filled.shape == (size, size) and reading.turn == 0  # an upright print: truth as read
    assert np.all(reading.filled[given] >= photo.SURE_MARK) and np.all(reading.filled[~given] < photo.SURE_MARK)


def test_thin_rings_drawn_oval_or_off_the_centre_read_as_white_circles():
    """A thin grey ring a little oval (the photo's perspective) or off the cell's centre (the mesh a little off)
    passes each radius in only some directions: found per direction it reads as a white circle; paper does not."""
    cell, n = 40, 6
    rings = [(1, 1), (2, 4), (4, 2)]
    for axes, off in (((15, 11), (0, 0)), ((13, 13), (3, 2))):
        gray = np.full((n * cell, n * cell), 225, np.float32)
        for i in range(n + 1):
            cv2.line(gray, (i * cell, 0), (i * cell, n * cell), 60, 2)
            cv2.line(gray, (0, i * cell), (n * cell, i * cell), 60, 2)
        for r, c in rings:
            cv2.ellipse(gray, (c * cell + cell // 2 + off[0], r * cell + cell // 2 + off[1]), axes, 0, 0, 360, 150, 1)
        gray = np.clip(gray + np.random.default_rng(3).normal(0, 8, gray.shape), 0, 255).astype(np.uint8)
        samples = circles.centre_samples(circles.darkness(gray, cell=cell), n, cell=cell)
        p = circles.ring_probabilities(samples, np.ones((n, n), bool), cell=cell)
        assert all(p[r, c] > 0.99 for r, c in rings), (axes, off)
        assert max(p[r, c] for r in range(n) for c in range(n) if (r, c) not in rings) < 0.01


@pytest.mark.parametrize("seed, size, style", [(11, 6, {"symbols": "digits"}), (12, 8, {"symbols": CIRCLES})])
def test_a_floor_above_every_reading_gives_none_and_one_below_changes_nothing(tmp_path, seed, size, style):
    """``takes_floor``: told a floor above its likeliest reading the reader gives none (no reading of it could
    matter beside another kind's solved one); a floor below changes no reading."""
    from scanner import grid_find, load, photo
    from scanner.timing import Timer

    path = _sample(tmp_path, "takuzu", seed, size, style)
    loaded = load.load(path)
    cand = next(c for c in grid_find.find_grids(loaded.small) if c.size == size)
    engine = photo.get_engine("auto")
    free = takuzu.READER.read(loaded, cand, engine, timer=Timer())
    best = max(r.log_likelihood() for r in free)
    assert takuzu.READER.read(loaded, cand, engine, timer=Timer(), floor=best + 1.0) == []
    below = takuzu.READER.read(loaded, cand, engine, timer=Timer(), floor=best - 1.0)
    assert [(r.turn, r.log_likelihood()) for r in below] == [(r.turn, r.log_likelihood()) for r in free]


def test_marks_at_once_are_marks_one_by_one():
    # the reader measures a circle grid's marks together (``circles.marks``): the same ``Mark`` as ``mark``
    # cell by cell, to the last bit, on circles, digits and random blots (and None where it gives None)
    from scanner import cells

    kinds = ["ring", "disc", "0", "1", "", "ring", "disc", "1"]
    square = np.vstack([_cell_picture(kinds)] * len(kinds))
    inks = cells.measure(square, len(kinds), cell=40)
    dark = circles.darkness(square, cell=40)
    at = [(r, c) for r, row in enumerate(inks) for c, ink in enumerate(row) if ink.crop is not None]
    crops = [inks[r][c].crop for r, c in at]
    darks = [circles.cell_interior(dark, r, c, cell=40) for r, c in at]
    rng = np.random.default_rng(4)
    for _ in range(40):  # blots anywhere in the crop, off centre, and one crop with no ink
        crop = np.full((32, 32), 255, np.uint8)
        y, x = rng.integers(0, 28, 2)
        crop[y:y + rng.integers(1, 20), x:x + rng.integers(1, 20)] = rng.integers(0, 127)
        crops.append(crop)
        darks.append(rng.random((32, 32)).astype(np.float32))
    crops.append(np.full((32, 32), 255, np.uint8))
    darks.append(np.zeros((32, 32), np.float32))
    want = [circles.mark(crop, d) for crop, d in zip(crops, darks)]
    assert circles.marks(crops, darks) == want
    assert want[-1] is None and sum(m is not None and m.round for m in want) >= 4
