"""Shortcuts in the glyph and ink stages give the values the plain computation gives."""
import cv2
import numpy as np

from scanner import cells
from scanner.ocr import glyph


def _plain_line_ink(ink: np.ndarray) -> np.ndarray:
    """``glyph._line_ink`` by its definition: every opening taken on the whole picture."""
    h, w = ink.shape
    out = np.zeros_like(ink)
    for frac, band in ((0.55, True), (0.9, False)):
        horiz = cv2.morphologyEx(ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (max(3, int(w * frac)), 1)))
        vert = cv2.morphologyEx(ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, max(3, int(h * frac)))))
        if band:
            horiz[h // 4:h - h // 4, :] = 0
            vert[:, w // 4:w - w // 4] = 0
        out = np.maximum(out, np.maximum(horiz, vert))
    return cv2.dilate(out, np.ones((3, 3), np.uint8))


def _random_ink(rng: np.random.Generator) -> np.ndarray:
    """Ink (h, w) float32 >= 0, mostly zeros, with runs of ink of any length, often from an edge."""
    h, w = int(rng.integers(8, 100)), int(rng.integers(8, 100))
    ink = (rng.random((h, w)) * (rng.random((h, w)) < rng.uniform(0.0, 1.0))).astype(np.float32)
    for _ in range(int(rng.integers(0, 6))):
        length = int(rng.integers(1, max(h, w) + 1))
        along_rows = rng.random() < 0.5
        side = w if along_rows else h
        start = 0 if rng.random() < 0.3 else max(0, side - length) if rng.random() < 0.4 else int(rng.integers(0, side))
        run = slice(start, start + length)
        line = int(rng.integers(0, h if along_rows else w))
        target = ink[line, run] if along_rows else ink[run, line]
        target[:] = rng.uniform(0.01, 1.0, target.shape)
    return ink


def test_line_ink_taken_on_the_rows_that_may_hold_a_line_is_the_plain_opening():
    rng = np.random.default_rng(11)
    found = 0
    for _ in range(3000):
        ink = _random_ink(rng)
        fast = glyph._line_ink(ink)
        plain = _plain_line_ink(ink)
        found += fast is not None
        assert (np.zeros_like(ink) if fast is None else fast).tobytes() == plain.tobytes()
    assert found > 1000  # the lines were there to find


def test_a_line_cut_short_by_the_picture_end_is_found_as_the_plain_opening_finds_it():
    ink = np.zeros((48, 48), np.float32)
    ink[3, :24] = 0.5  # half a row from the left edge: within the windows OpenCV cuts short there
    ink[45, 30:] = 0.7  # the last 18 pixels: too short for any window
    fast = glyph._line_ink(ink)
    assert fast is not None and fast[3, 0] == 0.5 and fast.tobytes() == _plain_line_ink(ink).tobytes()


def test_16_bit_labels_are_the_32_bit_ones():
    rng = np.random.default_rng(12)
    for _ in range(300):
        h, w = int(rng.integers(1, 120)), int(rng.integers(1, 120))
        picture = (rng.random((h, w)) < rng.uniform(0.05, 0.7)).astype(np.uint8)
        wide = cv2.connectedComponentsWithStats(picture, connectivity=8)
        narrow = cv2.connectedComponentsWithStats(picture, connectivity=8, ltype=cells.label_type(h * w))
        assert narrow[0] == wide[0] and narrow[1].dtype == np.uint16
        assert np.array_equal(narrow[1], wide[1]) and np.array_equal(narrow[2], wide[2])
        assert narrow[3].tobytes() == wide[3].tobytes()
    assert cells.label_type(2 * 65535) == cv2.CV_32S


def test_dark_print_is_numpys_percentile():
    rng = np.random.default_rng(13)
    for i in range(200):
        h, w = int(rng.integers(1, 300)), int(rng.integers(1, 300))
        if i % 3 == 0:
            picture = rng.random((h, w)).astype(np.float32)
        elif i % 3 == 1:  # paper with ruled lines, few dark pixels
            picture = np.clip(rng.normal(0.95, 0.03, (h, w)), 0, 1).astype(np.float32)
            picture[::int(rng.integers(20, 60)), :] = rng.uniform(0.1, 0.5)
            picture[:, ::int(rng.integers(20, 60))] = rng.uniform(0.1, 0.5)
        else:  # many ties
            picture = (np.round(rng.random((h, w)) * 4) / 4).astype(np.float32)
        assert cells.dark_print(picture) == float(np.percentile(picture, 1.5))


def _grid_picture(rng: np.random.Generator, n: int, cell: int) -> np.ndarray:
    """A gray grid (n * cell a side): ruled lines, glyph-like blots and strokes in some cells, noise."""
    side = n * cell
    gray = rng.normal(215, 6, (side, side))
    for k in range(n + 1):  # lines a little off the cells' edges, of any thickness (remnants inside the cells)
        at = int(np.clip(k * cell + rng.integers(-5, 6), 0, side - 1))
        thick = int(rng.integers(1, 4))
        gray[at:at + thick, :] -= 120
        at = int(np.clip(k * cell + rng.integers(-5, 6), 0, side - 1))
        gray[:, at:at + thick] -= 120
    for r in range(n):
        for c in range(n):
            if rng.random() < 0.45:
                y, x = r * cell + int(rng.integers(cell // 5, cell // 2)), c * cell + int(rng.integers(cell // 5, cell // 2))
                gray[y:y + int(rng.integers(3, cell // 2)), x:x + int(rng.integers(2, cell // 3))] -= rng.uniform(40, 160)
                if rng.random() < 0.5:  # a second glyph beside it, a bar, a faint stroke
                    gray[y:y + cell // 3, x + cell // 4:x + cell // 4 + 3] -= rng.uniform(30, 160)
                if rng.random() < 0.3:
                    gray[y - 2:y, x - 4:x + cell // 2] -= rng.uniform(20, 60)
    return np.clip(gray, 0, 255).astype(np.uint8)


def test_measure_of_the_whole_grid_at_once_is_measure_cell_by_cell(monkeypatch):
    rng = np.random.default_rng(14)
    cases = []
    for i in range(12):
        n, cell = (16, 48) if i % 2 else (9, 40)
        gray = _grid_picture(rng, n, cell)
        opts = ({"trim": 0.07, "pairs": True, "faint": 0.2, "retrim": 0.04, "halo": 7} if i % 2
                else {"retrim": 0.04, "halo": 7, "keep_whole": True})
        if i % 3 == 0:
            size = cell - 2 * max(1, round(opts.get("trim", 0.1) * cell))  # least as heights can be: k / size
            opts["least"] = [[float(rng.choice([0.0, 0.2, 0.4, 0.7, *(k / size for k in range(8, 20))]))
                              for _ in range(n)] for _ in range(n)]
        cases.append((gray, n, cell, opts))
    at_once = [cells.measure(gray, n, cell=cell, **opts) for gray, n, cell, opts in cases]
    monkeypatch.setattr(cells, "_interiors", lambda *args, **kwargs: None)
    one_by_one = [cells.measure(gray, n, cell=cell, **opts) for gray, n, cell, opts in cases]
    found = 0
    for grid_a, grid_b in zip(at_once, one_by_one):
        for a, b in zip((x for row in grid_a for x in row), (x for row in grid_b for x in row)):
            assert (a.height, a.p_filled) == (b.height, b.p_filled)
            for pa, pb in ((a.crop, b.crop), (a.whole, b.whole)):
                assert (pa is None and pb is None) or (pa.shape == pb.shape and pa.tobytes() == pb.tobytes())
            found += a.crop is not None
    assert found > 300  # glyphs were there to measure


def test_measure_with_retrim_gives_the_plain_crops_too():
    # the Takuzu reader measures once with ``retrim`` and takes the plain measure from it (``plain``,
    # ``cells.without_retrim``): the same cells, crops and wholes as measuring without ``retrim``
    rng = np.random.default_rng(15)
    looked_again = 0
    for i in range(16):
        n, cell = (16, 40) if i % 2 else (10, 40)
        gray = _grid_picture(rng, n, cell)
        opts = {"halo": 3} if i % 3 else {"trim": 0.07, "faint": 0.2, "halo": 7, "keep_whole": True}
        plain: dict = {}
        wide = cells.measure(gray, n, cell=cell, retrim=cells.WIDE_TRIM, plain=plain, **opts)
        got, want = cells.without_retrim(wide, plain), cells.measure(gray, n, cell=cell, **opts)
        for a, b in zip((x for row in got for x in row), (x for row in want for x in row)):
            assert (a.height, a.p_filled) == (b.height, b.p_filled)
            for pa, pb in ((a.crop, b.crop), (a.whole, b.whole)):
                assert (pa is None and pb is None) or (pa.shape == pb.shape and pa.tobytes() == pb.tobytes())
        looked_again += len(plain)
    assert looked_again >= 10  # glyphs running into the trimmed-off margin were there
