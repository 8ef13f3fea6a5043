"""Grid finding (scanner.grid_find): grids whose outline is not their own (a frame that also holds the title,
cells missing a row), faint lines, a stray mark midway, and no shifted copy of a found grid."""
from __future__ import annotations

import cv2
import numpy as np

from scanner import grid_find, strokes

PAPER = 235


def _page(shape=(900, 1000)) -> np.ndarray:
    noise = np.random.default_rng(1).normal(0, 3, shape)
    return np.clip(PAPER + noise, 0, 255).astype(np.uint8)


def _lattice(img: np.ndarray, n: int, x0: int, y0: int, cell: int, *, ink: int = 20, thick: int = 2,
             border: int = 3, dashed: bool = False) -> np.ndarray:
    """Draw an n x n ruled lattice at (x0, y0) on ``img``; returns its corners (4, 2) (x, y)."""
    side = n * cell
    for i in range(n + 1):
        t = border if i in (0, n) else thick
        p = i * cell
        if dashed and 0 < i < n:  # knocked-out gaps at every cell's middle, where a sign sits
            for k in range(n):
                a, b = k * cell, (k + 1) * cell
                gap = cell // 5
                for lo, hi in ((a, a + cell // 2 - gap), (a + cell // 2 + gap, b)):
                    cv2.line(img, (x0 + lo, y0 + p), (x0 + hi, y0 + p), ink, t)
                    cv2.line(img, (x0 + p, y0 + lo), (x0 + p, y0 + hi), ink, t)
        else:
            cv2.line(img, (x0, y0 + p), (x0 + side, y0 + p), ink, t)
            cv2.line(img, (x0 + p, y0), (x0 + p, y0 + side), ink, t)
    return np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float32)


def _found(img: np.ndarray, corners: np.ndarray, n: int, *, tol: float = 0.03) -> bool:
    side = float(np.linalg.norm(corners[0] - corners[1]))
    return any(c.size == n and np.abs(c.quad - corners).max() < tol * side for c in grid_find.find_grids(img))


def test_lattice_in_a_frame_that_also_holds_the_title_is_found():
    img = _page()
    corners = _lattice(img, 6, 250, 120, 80, dashed=True)
    for k in range(6):  # the lattice's bottom line is inside the frame: knocked out like the others
        cx = 250 + 80 * k + 40
        img[595:606, cx - 16:cx + 16] = PAPER
    # the frame: the lattice's top and sides run on down around the title under it
    cv2.line(img, (250, 600), (250, 760), 20, 3)
    cv2.line(img, (730, 600), (730, 760), 20, 3)
    cv2.line(img, (250, 760), (730, 760), 20, 3)
    cv2.putText(img, "Futoshiki  No 7512", (280, 700), cv2.FONT_HERSHEY_DUPLEX, 1.4, 20, 3)
    outline = grid_find.quads(img)[0]
    assert grid_find.check(img, outline)[0] == 0  # the frame itself is no grid
    assert _found(img, corners, 6)


def test_lattice_is_proposed_inside_an_outline_joined_to_a_title_bar():
    img = _page()
    corners = _lattice(img, 16, 200, 100, 36, thick=1)
    for i in range(0, 17, 4):  # box lines
        cv2.line(img, (200 + 36 * i, 100), (200 + 36 * i, 676), 20, 3)
        cv2.line(img, (200, 100 + 36 * i), (776, 100 + 36 * i), 20, 3)
    cv2.rectangle(img, (200, 678), (776, 742), 60, -1)  # a dark title bar just under the bottom border
    cv2.putText(img, "Le sudoku", (220, 724), cv2.FONT_HERSHEY_DUPLEX, 1.2, 230, 2)
    outline = grid_find.quads(img)[0]
    assert outline[:, 1].max() > 730 and grid_find.check(img, outline)[0] == 0  # grid and bar: no grid
    proposed = grid_find.lattices_near(img, outline)
    assert any(np.abs(q - corners).max() < 8 for q in proposed)
    assert _found(img, corners, 16)


def test_16x16_grid_of_faint_blurred_thin_lines_is_found():
    img = _page()
    corners = _lattice(img, 16, 200, 120, 30, ink=180, thick=1, border=3)
    for i in range(0, 17, 4):  # box lines
        cv2.line(img, (200 + 30 * i, 120), (200 + 30 * i, 600), 20, 3)
        cv2.line(img, (200, 120 + 30 * i), (680, 120 + 30 * i), 20, 3)
    blurred = cv2.GaussianBlur(img, (0, 0), sigmaX=0.5, sigmaY=2.0)  # shaken along the lines' normal
    assert _found(blurred, corners, 16)


def test_a_long_mark_midway_between_lines_does_not_hide_a_4x4_grid():
    img = _page()
    corners = _lattice(img, 4, 250, 150, 130)
    cv2.line(img, (250 + 65, 160), (250 + 65, 618), 20, 6)  # show-through of a rule half a cell from a line
    assert _found(img, corners, 4)


def test_grid_inside_a_page_border_is_found_once_not_shifted():
    img = _page()
    cv2.rectangle(img, (60, 60), (940, 840), 20, 3)  # a page border: no grid of its own
    corners = _lattice(img, 5, 250, 200, 100)
    found = grid_find.find_grids(img)
    assert [c.size for c in found] == [5]
    assert np.abs(found[0].quad - corners).max() < 10


def test_even_runs_finds_evenly_spaced_peaks_and_not_divisors():
    profile = np.zeros(480)
    for i in range(10):  # 9 cells of 40 from 60
        profile[60 + 40 * i - 1:60 + 40 * i + 2] = 0.9
    runs = grid_find.even_runs(profile)
    assert (9, 60.0, 420.0) in [(n, round(a), round(b)) for n, a, b, _ in runs]
    # no run skips a line: lines 80 apart have a peak midway
    assert not any(n == 4 and round(b - a) == 320 for n, a, b, _ in runs)


def test_overlap_share_of_two_outlines_of_one_grid_and_of_separate_grids():
    import numpy as np

    square = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], float)
    skewed = square + np.array([[8, 12], [0, 0], [0, 0], [2, 0]])  # one corner off by a tenth of the side
    beside = square + [110, 0]
    assert grid_find.overlap_share(square, skewed) > 0.9
    assert grid_find.overlap_share(square, beside) == 0.0
    assert grid_find.overlap_share(square, square * 0.5) == 1.0  # a box inside: all of the smaller


def test_lattice_quad_outlines_the_whole_lattice_when_cells_are_missing():
    # a 7 x 7 lattice of cells seen in perspective, its corner cell and a few others missing (marks, glare)
    h = np.array([[30.0, 4.0, 200.0], [-3.0, 28.0, 150.0], [0.0004, 0.0002, 1.0]])
    grid = np.stack(np.meshgrid(np.arange(7.0), np.arange(7.0)), -1).reshape(-1, 2)  # (col, row)
    seen = np.ones(len(grid), bool)
    seen[[0, 1, 7, 24, 48]] = False  # the top-left corner cell, its neighbours and the bottom-right one
    centres = cv2.perspectiveTransform(grid[seen].reshape(-1, 1, 2), h).reshape(-1, 2)
    dist = np.hypot(*(centres[:, None] - centres[None, :]).transpose(2, 0, 1))
    near = (dist < 1.7 * 28) & (dist > 0)
    quad = grid_find.lattice_quad(centres, np.full(len(centres), 26.0), near)
    box = np.array([[-0.5, -0.5], [6.5, -0.5], [6.5, 6.5], [-0.5, 6.5]])
    want = cv2.perspectiveTransform(box.reshape(-1, 1, 2), h).reshape(4, 2)
    assert np.abs(quad - want).max() < 0.1 * 28 + 2  # (edges of the cells: half a cell side, not a pitch)


def test_grid_whose_top_line_runs_along_a_dark_title_bar_is_found():
    img = _page()
    corners = _lattice(img, 16, 200, 140, 30, ink=150, thick=1, border=1)
    cv2.rectangle(img, (200, 95), (680, 136), 50, -1)  # the title bar, 4 px above the top line
    cv2.line(img, (200, 95), (200, 140), 150, 1)  # the frame's sides run on up around the bar
    cv2.line(img, (680, 95), (680, 140), 150, 1)
    img = cv2.GaussianBlur(img, (0, 0), 1.2)
    assert _found(img, corners, 16)


def test_a_grid_with_bent_lines_is_counted():
    # curled paper: the horizontal lines sag by near half a cell in the middle, the vertical ones stay straight
    img = _page((700, 700))
    n, cell, x0, y0 = 18, 26, 116, 116
    side = n * cell
    xs = np.arange(x0, x0 + side + 1)
    sag = 0.45 * cell * (1 - ((xs - x0 - side / 2) / (side / 2)) ** 2)
    for i in range(n + 1):
        ys = np.round(y0 + i * cell + sag).astype(np.int32)
        cv2.polylines(img, [np.stack([xs, ys], 1).reshape(-1, 1, 2)], False, 30, 1)
        cv2.line(img, (x0 + i * cell, y0), (x0 + i * cell, y0 + side), 30, 1)
    quad = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float32)
    assert grid_find.check(img, quad)[0] == n


def test_faint_marks_midway_make_no_grid_of_twice_the_size():
    rows = np.zeros(480)
    for i in range(19):  # lines of a 9 x 9 grid, and fainter ink (digits, halftone) midway in every cell
        rows[40 + 22 * i - 1:40 + 22 * i + 2] = 0.95 if i % 2 == 0 else 0.6
    assert grid_find.count_cells(rows, rows, span=(40.0, 40.0 + 22 * 18))[0] == 9
    rows[40 + 22 * np.arange(1, 19, 2)] = 0.95  # as strong as the others: they are lines
    assert grid_find.count_cells(rows, rows, span=(40.0, 40.0 + 22 * 18))[0] == 18


def _kept_in_either_order(first, second) -> list[list]:
    """What ``grid_find._keep`` keeps of two candidates offered one after the other, in both orders."""
    out = []
    for order in ((first, second), (second, first)):
        kept: list = []
        for cand in order:
            grid_find._keep(kept, cand)
        out.append(kept)
    return out


def test_an_outline_whose_lines_show_evenly_wins_over_a_bent_twin_of_the_same_size():
    # a bent count scores its lines where it followed them: an outline half a row off at one corner can score
    # higher than the true outline, whose even spacing confirms it (a 20 x 20 grid's border along a title bar)
    true = np.array([[100, 100], [540, 100], [540, 540], [100, 540]], np.float32)
    off = true.copy()
    off[3, 1] -= 11  # a bottom corner half a cell high
    straight = grid_find.Candidate(quad=true, size=20, score=0.58, area=440.0 ** 2)
    bent = grid_find.Candidate(quad=off, size=20, score=0.70, area=430.0 * 440, bent=True)
    for kept in _kept_in_either_order(straight, bent):
        assert [k.quad is true for k in kept] == [True]
    # of another size the bent one still needs only the clearer lines (curled paper: the even count misled)
    other = grid_find.Candidate(quad=true, size=10, score=0.5, area=440.0 ** 2)
    kept = [other]
    grid_find._keep(kept, bent)
    assert kept == [bent]


def test_a_faint_run_beside_a_line_does_not_hide_it_from_even_runs():
    # 20 cells of 18 px; beside one line, across a 2-px dip, a faint plateau (stray ink of a column of marks):
    # taken with the line for one wide peak, it put the line in the plateau's middle and no run of 20 was found
    profile = np.zeros(480)
    for i in range(21):
        profile[58 + 18 * i - 1:58 + 18 * i + 2] = 0.8
    line = 58 + 18 * 9
    profile[line - 10:line - 3] = 0.24
    runs = grid_find.even_runs(profile, edge=2)
    assert (20, 58.0, 418.0) in [(n, round(a), round(b)) for n, a, b, _ in runs]


def test_an_outline_half_a_row_off_whose_lines_show_only_bent_gives_way_to_the_lattice_in_it():
    # a 20 x 20 grid whose outline was found with its top edge half a row low (its border lost along a title
    # bar) and kept as found bent: the lattice proposed in and around it, its lines evenly spaced, replaces it
    img = _page()
    corners = _lattice(img, 20, 200, 150, 25, thick=1, border=2)
    off = corners.copy()
    off[:2, 1] += 12
    bent = grid_find.Candidate(quad=off, size=20, score=0.76, area=float(cv2.contourArea(off)), bent=True)
    kept = [bent]
    assert grid_find._search(img, off, kept, sizes=(20,), replacing=bent)
    assert len(kept) == 1 and not kept[0].bent
    assert np.abs(kept[0].quad - corners).max() < 5



def test_a_straight_grid_in_a_larger_outline_found_bent_of_another_size_wins():
    # a frame around a 14 x 14 grid and its title, counted bent as 16 (its border and title lines taken for
    # rows): the grid whose lines show evenly spaced both ways inside it is the puzzle, whatever the scores
    grid = np.array([[130, 160], [522, 160], [522, 552], [130, 552]], np.float32)
    frame = np.array([[100, 100], [550, 100], [550, 580], [100, 580]], np.float32)
    straight = grid_find.Candidate(quad=grid, size=14, score=0.60, area=392.0 ** 2)
    bent = grid_find.Candidate(quad=frame, size=16, score=0.72, area=450.0 * 480, bent=True)
    for kept in _kept_in_either_order(straight, bent):
        assert kept == [straight]


def test_a_bent_outline_holding_a_much_smaller_straight_grid_is_no_frame_of_it():
    # a curled 16 x 16 grid with a straight 9 x 9 lattice found on a part of it: no frame counts 7 rows more
    # than the grid it holds, so the scores decide (the bent 16 is far the better)
    part = np.array([[100, 100], [340, 100], [340, 340], [100, 340]], np.float32)
    outline = np.array([[90, 90], [530, 90], [530, 530], [90, 530]], np.float32)
    straight = grid_find.Candidate(quad=part, size=9, score=0.40, area=240.0 ** 2)
    bent = grid_find.Candidate(quad=outline, size=16, score=0.90, area=440.0 ** 2, bent=True)
    for kept in _kept_in_either_order(straight, bent):
        assert kept == [bent]


def test_an_outline_found_by_both_sources_counts_once_among_the_searched(monkeypatch):
    # a frame found by the ink and again by the long strokes, a few pixels apart, is searched as each but takes
    # one of the SEARCH_OUTLINES searches, so the third outline after it (the grid's own) is searched too
    def square(x0, y0, side, lean=0.0):
        return np.array([[x0, y0], [x0 + side, y0 + lean], [x0 + side, y0 + side], [x0, y0 + side]], np.float32)

    frame, twin, inner, grid = square(100, 100, 600), square(100, 100, 600, lean=9), square(120, 150, 560), \
        square(140, 180, 500)
    monkeypatch.setattr(grid_find, "_outlines",
                        lambda gray, lines_only=False, **_: ([twin] if lines_only else [frame, inner, grid], []))
    monkeypatch.setattr(grid_find, "cell_cluster_quads", lambda *a, **k: [])
    monkeypatch.setattr(grid_find, "_check", lambda *a, **k: (0, 0.0, (), False))  # no outline is a grid itself
    searched = []
    monkeypatch.setattr(grid_find, "_search", lambda gray, quad, kept, **k: searched.append(quad) or False)
    grid_find.find_grids(_page())
    assert grid_find.same_quad(frame, twin) and not grid_find.same_quad(frame, inner)
    assert grid_find.SEARCH_OUTLINES == 3
    assert [q.tolist() for q in searched] == [q.tolist() for q in (frame, twin, inner, grid)]


def test_a_small_celled_grid_outlined_around_its_bold_border_is_found_on_the_border_centre():
    # a 20 x 20 of 11 px cells with a 7 px border: the ink outline hugs the border's outer edge, 4 px off the
    # line's centre at each side, so every inner line's even position drifts towards the ends (up to a third of
    # a cell) and the midway check sees lines there
    img = _page((576, 1024))
    corners = _lattice(img, 20, 300, 150, 11, thick=1, border=5)
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    outline = grid_find.quads(img)[0]
    assert np.abs(outline - corners).max() >= 3 and grid_find.check(img, outline)[0] == 0
    centred = grid_find.centred_outline(img, outline)
    assert centred is not None and np.abs(centred - corners).max() < 0.5
    assert _found(img, corners, 20, tol=0.005)


def test_an_outline_on_its_lines_centre_is_not_moved():
    img = _page()
    corners = _lattice(img, 9, 200, 150, 60, border=3)
    assert grid_find.centred_outline(img, corners) is None


def test_a_small_second_puzzle_beside_a_large_one_is_found():
    # a 4 x 4 of 18 px cells (0.6 % of the picture) beside a 9 x 9 filling much of it, its caption's lines just
    # above it and its title below (their letters' strokes run on from its inner lines: no cluster of cells)
    img = _page()
    big = _lattice(img, 9, 100, 100, 70)
    small = _lattice(img, 4, 780, 120, 18, thick=1, border=2)
    for y, text in ((100, "Fill every empty"), (112, "square with 0 or 1"), (214, "Binary Puzzle")):
        cv2.putText(img, text, (772, y), cv2.FONT_HERSHEY_SIMPLEX, 0.4, 20, 1)
    assert cv2.contourArea(small) < grid_find.MIN_AREA_FRACTION * img.size
    assert any(grid_find.same_quad(q, small, tol=0.05) for q in grid_find.quads(img))  # its outline is looked at
    assert _found(img, big, 9) and _found(img, small, 4)


def test_counts_from_shared_peaks_are_count_cells_at_every_level_and_for_each_profile_alone():
    # _check looks each profile's values up once (``_line_peaks``) for both levels and for the one-direction
    # counts of bent lines: the same as count_cells asked each time
    rng = np.random.default_rng(7)
    span = (14.4, 465.6)
    for trial in range(60):
        n = int(rng.integers(4, 21))
        profiles = rng.uniform(0, 0.5, (2, 480))
        for p in profiles:  # a lattice's lines, some faint, and stray ink
            at = np.round(span[0] + (span[1] - span[0]) / n * np.arange(n + 1)).astype(int)
            p[at] = rng.uniform(0.3, 1.0, n + 1)
            p[rng.integers(0, 480, 5)] = rng.uniform(0.4, 1.0, 5)
        rows, cols = profiles
        peaks = grid_find._line_peaks(profiles, *span, grid_find.SIZES)
        for level in (grid_find.LINE_LEVEL, grid_find.WEAK_LEVEL):
            assert grid_find._count(peaks, level=level) == grid_find.count_cells(rows, cols, span=span, level=level)
        assert grid_find._count(peaks.pair(0), level=0.55) == grid_find.count_cells(rows, rows, span=span)
        assert grid_find._count(peaks.pair(1), level=0.55) == grid_find.count_cells(cols, cols, span=span)


def test_the_page_masks_are_shared_by_one_detection_copy_only():
    from scanner import boxes_find

    img = _page()
    _lattice(img, 9, 200, 150, 60)
    gray, kept = grid_find.page(img)
    assert grid_find.page(img)[1] is kept and gray is img  # the same picture: its masks are kept
    copy = img.copy()
    assert grid_find.page(copy)[1] is not kept  # another picture, even an equal one: taken afresh
    found = [(c.size, c.quad.tobytes()) for c in grid_find.find_grids(copy)]
    boxes = boxes_find.find_arrangements(copy)
    assert ("light", False) in grid_find.page(copy)[1]  # the boxes finder took the ruled finder's regions
    assert found == [(c.size, c.quad.tobytes()) for c in grid_find.find_grids(img.copy())] and found
    assert len(boxes_find.find_arrangements(img.copy())[0]) == len(boxes[0])


def test_no_contour_encloses_more_than_its_point_count_allows():
    # _outlines skips contours of P points with P ** 2 < 6.28 x the least area: none of them could be that large
    rng = np.random.default_rng(5)
    for trial in range(20):
        mask = (cv2.GaussianBlur(rng.uniform(0, 255, (200, 240)).astype(np.uint8), (0, 0), 1 + trial % 6) > 128)
        mask = cv2.dilate(mask.astype(np.uint8) * 255, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        for c in contours:
            assert cv2.contourArea(c) <= len(c) ** 2 / 6.28
    diamond = np.zeros((60, 60), np.uint8)  # a square on its corner, of diagonal steps: near the bound (pi / 4)
    cv2.fillConvexPoly(diamond, np.array([[30, 5], [55, 30], [30, 55], [5, 30]], np.int32), 255)
    [c] = cv2.findContours(diamond, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)[0]
    assert 0.7 * len(c) ** 2 / 6.28 < cv2.contourArea(c) <= len(c) ** 2 / 6.28


def test_a_grid_whose_thin_lines_glare_washed_out_in_its_middle_is_counted_strip_by_strip():
    # glare on a photo: the thin inner lines vanish in a disc over the middle of an 18 x 18 grid (the bold
    # border and the lines beside the disc stay): no row or column shows its line over most of its length
    img = _page((700, 700))
    n, cell, x0, y0 = 18, 26, 116, 116
    corners = _lattice(img, n, x0, y0, cell, ink=60, thick=1, border=3)
    centre = (x0 + n * cell // 2, y0 + n * cell // 2)
    washed = np.zeros_like(img)
    cv2.circle(washed, centre, int(0.3 * n * cell), 255, -1)
    img[washed > 0] = 252
    assert grid_find.count_cells(*grid_find.line_profiles(grid_find.ink_mask(
        grid_find.rectify_square(img, corners, side=480, margin=0.03 * 480), block=31, offset=6)),
        span=(0.03 * 480, 479 - 0.03 * 480))[0] == 0  # the whole lines do not show
    assert grid_find.check(img, corners)[0] == n
    # lines in one corner strip only, the rest of the page bare: still no grid
    bare = _page((700, 700))
    for i in range(n + 1):
        cv2.line(bare, (x0, y0 + i * cell), (x0 + 100, y0 + i * cell), 60, 1)
    assert grid_find.check(bare, corners)[0] == 0


def test_an_outline_with_a_corner_cut_off_is_completed_to_its_grid():
    # glare on a curled page's corner: the border and the lines fade there, and the ink's outline cuts across
    img = _page((800, 800))
    n, cell, x0, y0 = 16, 30, 150, 150
    corners = _lattice(img, n, x0, y0, cell, ink=40, thick=1, border=3)
    side = n * cell
    cut = np.array([[x0 + side - 100, y0 - 10], [x0 + side + 10, y0 - 10], [x0 + side + 10, y0 + 100]], np.int32)
    cv2.fillPoly(img, [cut], PAPER)  # the corner's ink gone (its inner lines too)
    contour = np.array([[x0, y0], [x0 + side - 95, y0], [x0 + side, y0 + 95], [x0 + side, y0 + side],
                        [x0, y0 + side]], np.int32).reshape(-1, 1, 2)
    completed = grid_find._cut_corner_quad(contour)
    assert completed is not None and np.abs(completed - corners).max() < 2
    assert grid_find._cut_corner_quad(corners.astype(np.int32).reshape(-1, 1, 2)) is None  # a square: nothing cut
    assert any(np.abs(q - corners).max() < 4 for q in grid_find.quads(img))  # the page's outline, completed
    assert _found(img, corners, n)


def _profiles(n: int, inner: float) -> tuple[np.ndarray, np.ndarray]:
    """Check-square profiles (rows, cols) of an n x n lattice: bold border lines, inner lines of ``inner`` ink."""
    side, margin = grid_find.CHECK_SIDE, grid_find.CHECK_MARGIN * grid_find.CHECK_SIDE
    step = (side - 1 - 2 * margin) / n
    rows = np.full(side, 0.2)
    for i in range(n + 1):
        at = int(round(margin + i * step))
        rows[at - 1:at + 2] = 0.95 if i in (0, n) else inner
    return rows, rows.copy()


def test_a_centred_even_lattice_of_faint_ruled_lines_is_taken_and_an_odd_one_is_not():
    # a bold border's centred outline around thin lines blurred or washed out (their faintest at 0.48-0.55 on dev
    # 2916000 / 2920005): an even size is no boxes print's 2n - 1 lattice, so faint lines are taken
    assert grid_find._solid_enough(_profiles(16, 0.5), 16)
    assert grid_find._solid_enough(_profiles(20, 0.55), 20)
    assert not grid_find._solid_enough(_profiles(11, 0.7), 11)  # a 6 x 6 boxes print's edges: odd, refused
    assert grid_find._solid_enough(_profiles(9, 0.9), 9)  # solid ruled lines: any size
    assert not grid_find._solid_enough(_profiles(18, 0.28), 18)  # a frame around a grid and its title


def test_a_lattice_whose_lines_run_on_past_its_ends_is_grown_to_the_whole_grid(monkeypatch):
    """A frame inside a grid (a cluster of cells bounded by marks) may have a lattice proposed in it whose lines
    run on past its ends (its own square shows them; the frame's, askew on curled paper, did not): the search
    goes on around that lattice, and finds the whole grid."""
    img = _page()
    corners = _lattice(img, 8, 250, 150, 60)
    frame = corners + np.array([[90, 90], [0, 90], [0, 0], [90, 0]], np.float32)  # cells 1.5 .. 8 each way
    seven = corners + np.array([[60, 60], [0, 60], [0, 0], [60, 0]], np.float32)  # cells 1 .. 8
    real = grid_find.lattices_near
    monkeypatch.setattr(grid_find, "lattices_near", lambda gray, quad, **kw: [seven] if quad is frame
                        else real(gray, quad, **kw))
    assert grid_find.check(img, seven)[0] == 7 and not grid_find._ends_clean(img, seven, 7)
    assert not grid_find._search(img, frame, [], sizes=grid_find.SIZES, grow=False)
    kept: list = []
    assert grid_find._search(img, frame, kept, sizes=grid_find.SIZES)
    assert [k.size for k in kept] == [8] and np.abs(kept[0].quad - corners).max() < 0.03 * 480


def test_mean_along_is_numpys_mean():
    # whole sums taken as integers by OpenCV, divided as numpy divides: the same values, bit for bit, on masks
    # and on the views of their strips
    rng = np.random.default_rng(21)
    for _ in range(300):
        h, w = (int(v) for v in rng.integers(6, 500, 2))
        mask = ((rng.random((h, w)) < rng.random()) * 255).astype(np.uint8)
        for view in (mask, mask[:, 2:w - 3], mask[1:h - 2, :]):
            for axis in (0, 1):
                got, want = strokes.mean_along(view, axis), view.mean(axis=axis)
                assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_strip_peaks_are_the_strips_looked_up_one_by_one():
    # every strip's profiles looked up at once, the highest of each taken: the peaks (values and layout) of the
    # strips looked up one by one, so the counts' sums run alike
    rng = np.random.default_rng(22)
    side = grid_find.CHECK_SIDE
    margin = grid_find.CHECK_MARGIN * side
    span = (margin, side - 1 - margin)
    for _ in range(20):
        mask = ((rng.random((side, side)) < rng.uniform(0.01, 0.2)) * 255).astype(np.uint8)
        for at in rng.integers(0, side, int(rng.integers(5, 25))):
            mask[int(at), :] = 255
            mask[:, int(at)] = 255
        k = 2 * max(2, side // 120) + 1
        across_rows = cv2.dilate(mask, np.ones((k, 1), np.uint8))
        across_cols = cv2.dilate(mask, np.ones((1, k), np.uint8))
        edges = np.linspace(span[0], span[1], grid_find.GLARE_STRIPS + 1).round().astype(int)
        want = None
        for a, b in zip(edges[:-1], edges[1:]):
            profiles = np.stack([across_rows[:, a:b].mean(axis=1), across_cols[a:b, :].mean(axis=0)]) / 255.0
            got = grid_find._line_peaks(profiles, float(span[0]), float(span[1]), grid_find.SIZES)
            want = got if want is None else grid_find._Peaks(got.at, np.maximum(want.lines, got.lines),
                                                             np.maximum(want.mids, got.mids))
        got = grid_find._strip_peaks(mask, span, grid_find.SIZES)
        for g, w in ((got.lines, want.lines), (got.mids, want.mids)):
            assert g.tobytes() == w.tobytes() and g.strides == w.strides and g.shape == w.shape
        assert grid_find._count(got, level=grid_find.LINE_LEVEL) == grid_find._count(want, level=grid_find.LINE_LEVEL)
