"""Futoshiki grid finding and sign reading on drawn pictures: the lattice fit is not pulled by a title bar, the
box finder takes shaded or half-hidden boxes but never a ruled grid, signs survive broken strokes and digits."""
from __future__ import annotations

import cv2
import numpy as np

from scanner import boxes_find, signs
from scanner.readers import futoshiki


def _lattice(n: int, cell: int, *, x0: int = 60, y0: int = 120, bar_gap: float | None = None) -> np.ndarray:
    """A white picture with an n x n ruled lattice at (x0, y0), a heavier outer border, and optionally a
    solid title bar ending ``bar_gap`` cells above the top line."""
    side = n * cell
    pic = np.full((y0 + side + 60, x0 + side + 60), 255, np.uint8)
    if bar_gap is not None:
        bottom = int(y0 - bar_gap * cell)
        cv2.rectangle(pic, (x0 - 10, bottom - 40), (x0 + side + 10, bottom), 40, -1)
    for i in range(n + 1):
        w = 4 if i in (0, n) else 1
        cv2.line(pic, (x0 + i * cell, y0), (x0 + i * cell, y0 + side), 0, w)
        cv2.line(pic, (x0, y0 + i * cell), (x0 + side, y0 + i * cell), 0, w)
    return pic


def test_lattice_fit_is_not_pulled_by_a_title_bar_and_corrects_the_quad():
    n, cell, x0, y0 = 6, 50, 60, 120
    pic = _lattice(n, cell, x0=x0, y0=y0, bar_gap=0.25)
    side = n * cell
    # the quad as a finder might give it: off by up to 0.15 cell, its top edge towards the bar
    quad = np.array([[x0 + 5, y0 - 7], [x0 + side - 4, y0 - 6], [x0 + side + 6, y0 + side + 3],
                     [x0 - 3, y0 + side + 5]], np.float32)
    mesh, seen = futoshiki.fit_lattice(pic, quad, n)
    k = np.arange(n + 1)
    truth = np.stack(np.meshgrid(x0 + k * cell, y0 + k * cell), axis=-1)
    assert np.abs(mesh.points - truth).max() < 0.06 * cell
    assert seen > 0.9


def test_lattice_fit_sees_no_lines_in_a_text_block():
    rng = np.random.default_rng(1)
    pic = np.full((400, 400), 255, np.uint8)
    for row in range(40, 360, 18):  # lines of "words": short dark runs
        x = 40
        while x < 350:
            w = int(rng.integers(8, 40))
            cv2.rectangle(pic, (x, row), (min(x + w, 360), row + 8), 30, -1)
            x += w + int(rng.integers(5, 10))
    quad = np.array([[40, 40], [360, 40], [360, 360], [40, 360]], np.float32)
    _, seen = futoshiki.fit_lattice(pic, quad, 7)
    assert seen < futoshiki.MIN_LINES_SEEN


def _boxes(n: int, *, box: int = 40, gap: int = 22, shaded=(), x0: int = 50, y0: int = 50) -> np.ndarray:
    pitch = box + gap
    pic = np.full((y0 + n * pitch + 50, x0 + n * pitch + 50), 255, np.uint8)
    for r in range(n):
        for c in range(n):
            x, y = x0 + c * pitch, y0 + r * pitch
            if (r, c) in shaded:
                cv2.rectangle(pic, (x, y), (x + box, y + box), 150, -1)
            cv2.rectangle(pic, (x, y), (x + box, y + box), 0, 2)
    return pic


def test_box_finder_takes_a_grid_with_shaded_boxes():
    shaded = {(0, 1), (1, 3), (2, 0), (2, 4), (3, 2), (4, 4), (5, 1), (5, 5)}
    [grid] = boxes_find.find_boxes(_boxes(6, shaded=shaded))
    assert grid.n == 6


def test_box_finder_never_takes_the_cells_of_a_ruled_grid():
    pic = _lattice(9, 40)
    assert boxes_find.find_boxes(pic) == []


def test_boxes_cut_off_by_the_photo_make_a_field_and_no_lattice_on_them_is_read():
    """A 6 x 6 boxes print of which the photo keeps four columns: no box grid, but a field of 4 x 6 boxes; a
    ruled 4 x 4 lattice found on four rows of its box outlines lies on the field (six boxes long: more than 4), a
    lattice beside it does not."""
    box, gap, x0, y0 = 40, 22, 50, 50
    pic = _boxes(6, box=box, gap=gap, x0=x0, y0=y0)[:, :x0 + 4 * (box + gap) - gap // 2]
    grids, fields = boxes_find.find_arrangements(pic)
    assert grids == [] and [(f.cols, f.rows) for f in fields] == [(4, 6)]
    pitch = box + gap
    top, left, side = y0 + 2 * pitch, x0, 4 * pitch - gap
    on = np.array([[left, top], [left + side, top], [left + side, top + side], [left, top + side]], np.float32)
    assert futoshiki.on_box_field(pic, on, 4)
    assert not futoshiki.on_box_field(pic, on + np.float32([400, 0]), 4)
    assert not futoshiki.on_box_field(pic, on, 6)  # a lattice as large as the field is not part of it
    assert boxes_find.find_arrangements(_boxes(6))[1] == []  # a whole grid is no field


def _pitch_picture(n: int, pitch: int) -> np.ndarray:
    pic = np.full((n * pitch, n * pitch), 255, np.uint8)
    for i in range(1, n):
        cv2.line(pic, (i * pitch, 0), (i * pitch, n * pitch), 0, 2)
        cv2.line(pic, (0, i * pitch), (n * pitch, i * pitch), 0, 2)
    return pic


def test_a_sign_split_by_its_line_and_off_centre_still_reads():
    pitch = 64
    pic = _pitch_picture(2, pitch)
    # a "<" between r0c0 and r0c1, drawn across the vertical line and 8 px below the row's middle
    cx, cy = pitch, pitch // 2 + 8
    cv2.polylines(pic, [np.array([[cx + 9, cy - 11], [cx - 9, cy], [cx + 9, cy + 11]])], False, 0, 2)
    got = signs.read_signs(pic, 2, pitch=pitch, box=1.0)
    (tip, p), *_ = got[((0, 0), (0, 1))][1]
    assert tip == "low" and p > 0.9


def test_a_digit_near_a_border_is_no_sign():
    pitch = 64
    pic = _pitch_picture(2, pitch)
    # a large "0"-like ring in r1c0 reaching close to the border above it
    cv2.ellipse(pic, (pitch // 2, pitch + 30), (16, 24), 0, 0, 360, 0, 4)
    got = signs.read_signs(pic, 2, pitch=pitch, box=1.0)
    assert got[((0, 0), (1, 0))][1][0][0] is None


def test_faint_broken_chevron_in_a_box_gap_reads():
    pitch, box = 100, 0.7
    n = 2
    pic = np.full((n * pitch, n * pitch), 255, np.uint8)
    half = box * pitch / 2
    for r in range(n):
        for c in range(n):
            cx, cy = (c + 0.5) * pitch, (r + 0.5) * pitch
            cv2.rectangle(pic, (int(cx - half), int(cy - half)), (int(cx + half), int(cy + half)), 0, 2)
    # a light ">" (tip right: the right cell is smaller) in the gap of the top row, its lower stroke broken
    cx, cy = pitch, pitch // 2
    cv2.line(pic, (cx - 8, cy - 10), (cx + 8, cy), 120, 2)
    cv2.line(pic, (cx + 8, cy), (cx + 2, cy + 4), 120, 2)
    cv2.line(pic, (cx - 2, cy + 6), (cx - 8, cy + 10), 120, 2)
    got = signs.read_signs(pic, n, pitch=pitch, box=box)
    assert got[((0, 0), (0, 1))][1][0][0] == "high"
    assert got[((1, 0), (1, 1))][1][0][0] is None


def test_a_lattice_line_fitted_past_the_pictures_edge_is_not_seen_and_raises_nothing():
    # twelve cells whose lines run a little wider than the quad says, and ink along the picture's far edge:
    # the even fit puts the last line past the edge, where there is no profile to refine it on (a crash that
    # lost a whole 12x12 Takuzu page once)
    n, cell, margin = 12, 20, 20
    side = 2 * margin + n * cell
    lines = np.zeros((side, side), np.float32)
    for k in range(n + 1):
        at = int(round(margin + 6 + k * cell * 1.09))
        if at < side:
            lines[at, :] = 1.0
    lines[-3:, :] = 1.0
    pos, seen = futoshiki._line_positions(lines, n, cell, margin)
    assert pos.shape == (n + 1, n) and pos[-1].min() >= side  # fitted past the edge, kept where fitted
    assert seen == n / (n + 1)  # every line seen but that one
    assert np.allclose(pos[:-1, 0], margin + 6 + np.arange(n) * cell * 1.09, atol=1.0)


def test_boxes_nearly_all_in_one_column_place_no_field():
    # five boxes down one column and one beside them: their homography is nonsense away from that column (a
    # quad collapsed to a point, or one far larger than the boxes), which could hide a real grid beside them
    lone = np.array([[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [1, 2]])
    assert boxes_find._field(lone, lone * 40.0 + 100) is None
    full = np.array([[c, r] for r in range(5) for c in range(2)])
    field = boxes_find._field(full, full * 40.0 + 100)
    assert (field.cols, field.rows) == (2, 5)
    assert np.allclose(field.quad, [[80, 80], [160, 80], [160, 280], [80, 280]])


def _fit_by_slices(horiz: np.ndarray, vert: np.ndarray, n: int, x0: float, y0: float, x1: float, y1: float) -> float:
    """The frame's lattice fit by its definition: each line's band of columns c-2..c+2 sliced out and averaged."""
    def along(lines, first, last, lo, hi):
        step = (last - first) / n
        inside, outside = [], []
        for i in range(n + 1):
            c = int(round(first + i * step))
            band = lines[:, max(0, c - 2):c + 3].max(axis=1) > 0
            a, b = int(round(lo)), int(round(hi))
            inside.append(band[a:b + 1].mean())
            beyond = np.concatenate([band[max(0, a - int(step)):a], band[b + 1:b + 1 + int(step)]])
            outside.append(beyond.mean() if len(beyond) else 0.0)
        return float(np.mean(inside) - np.mean(outside))
    return min(along(vert, x0, x1, y0, y1), along(horiz.T, y0, y1, x0, x1))


def test_the_frame_lattice_fit_counts_its_bands_once_and_gives_the_same_floats():
    rng = np.random.default_rng(5)
    for _ in range(300):
        h, w = (int(v) for v in rng.integers(20, 90, 2))
        horiz, vert = (((rng.random((h, w)) < rng.uniform(0.0, 0.3)) * 255).astype(np.uint8) for _ in range(2))
        n = int(rng.integers(4, 10))
        x0, x1 = sorted(rng.uniform(1, w - 2, 2))
        y0, y1 = sorted(rng.uniform(1, h - 2, 2))
        bands = (futoshiki._Bands(vert), futoshiki._Bands(horiz.T))  # shared across the lattices of one outline
        for fit in (futoshiki._lattice_fit(horiz, vert, n, x0, y0, x1, y1),
                    futoshiki._lattice_fit(horiz, vert, n, x0, y0, x1, y1, bands=bands)):
            assert repr(fit) == repr(_fit_by_slices(horiz, vert, n, x0, y0, x1, y1))
        full = _fit_by_slices(horiz, vert, n, x0, y0, x1, y1)
        for bar in (-0.5, 0.0, 0.1, 0.5, 1.0):  # told what it would take: the fit, or a bound of it not taken
            got = futoshiki._lattice_fit(horiz, vert, n, x0, y0, x1, y1, bands=bands, wanted=lambda s: s >= bar)
            assert repr(got) == repr(full) or full <= got < bar
    pic = _lattice(6, 50)  # a drawn lattice: a fit near 1 either way
    mask = (pic < 128).astype(np.uint8) * 255
    horiz = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((1, 16), np.uint8))
    vert = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((16, 1), np.uint8))
    fit = futoshiki._lattice_fit(horiz, vert, 6, 60.0, 120.0, 360.0, 420.0)
    assert fit > 0.9 and repr(fit) == repr(_fit_by_slices(horiz, vert, 6, 60.0, 120.0, 360.0, 420.0))
