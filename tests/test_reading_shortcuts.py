"""Shortcuts that spare work without changing a reading: the Futoshiki reader's sign screen, the classifier's
kept glyphs, the split JPEG encoding of the overlay, the grid finder's line count (every size at once) and
groups of cells, the glyphs' gradient histograms."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner import load, overlay, photo
from scanner.ocr import get_engine
from scanner.ocr import classifier as classifier_module
from scanner.readers import futoshiki, ruled
from scanner.synth import render


def _print_path(tmp_path, kind: str, *, seed: int, size: int, style: dict | None = None):
    img, rec, _ = render(kind, seed=seed, size=size, mode="print", two=False, style=style)
    path = tmp_path / f"{kind}_{size}.png"
    cv2.imwrite(str(path), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    return path, rec["puzzles"][0]


def _memo_of_read(path, monkeypatch) -> list:
    """The ``Loaded.memo`` of every photo the reader loads while reading ``path`` (kind auto)."""
    seen = []
    original = load.load

    def keep(*args, **kwargs):
        loaded = original(*args, **kwargs)
        seen.append(loaded)
        return loaded
    monkeypatch.setattr(load, "load", keep)
    records = photo.scan_photo(path, draw=False)
    return records, seen


def test_a_sudoku_print_is_plainly_unsigned_and_read_as_before(tmp_path, monkeypatch):
    path, truth = _print_path(tmp_path, "sudoku", seed=11, size=9)
    records, [loaded] = _memo_of_read(path, monkeypatch)
    assert records[0]["kind"] == "sudoku" and records[0]["givens"] == truth["givens"]
    pictures = [k for k in loaded.memo if k[0] == "ruled_picture"]
    assert pictures, "the Sudoku reader leaves its dewarped picture for the other readers"

    class Cand:  # the candidate the picture was read from, as the screen looks it up
        quad = np.frombuffer(pictures[0][1], np.float32).reshape(4, 2)
        size = pictures[0][2]
    assert futoshiki.plainly_unsigned(loaded, Cand())
    # no picture at hand: nothing is judged
    assert not futoshiki.plainly_unsigned(load.from_array(np.full((64, 64, 3), 255, np.uint8)), Cand())


def test_a_lattice_futoshiki_the_sudoku_reader_also_takes_is_not_screened_out(tmp_path, monkeypatch):
    path, truth = _print_path(tmp_path, "futoshiki", seed=3, size=6, style={"layout": "lattice", "signs": "glyph",
                                                                              "shaded_givens": False})
    records, [loaded] = _memo_of_read(path, monkeypatch)
    assert any(k[0] == "ruled_picture" and k[2] == 6 for k in loaded.memo)  # the Sudoku reader looked first
    assert records[0]["kind"] == "futoshiki" and records[0]["givens"] == truth["givens"]
    assert records[0]["status"] == "solved" and records[0]["solution"] == truth["solution"]


def test_kept_glyphs_read_as_fresh_ones(monkeypatch):
    rng = np.random.default_rng(5)
    cells = [np.full((40, 40), 220, np.uint8) for _ in range(6)]
    for i, cell in enumerate(cells):
        cv2.putText(cell, str(i + 1), (10, 32), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 30, 3)
        cell[:] = np.clip(cell + rng.normal(0, 4, cell.shape), 0, 255).astype(np.uint8)
    engine = get_engine("classifier")
    first = engine.read(cells, alphabet="123456789")
    calls = []
    original = classifier_module.normalise_all
    monkeypatch.setattr(classifier_module, "normalise_all", lambda cs: calls.extend(cs) or original(cs))
    again = engine.read(cells[::-1], alphabet="123456789")  # the same cells (kept), in another order
    assert not calls
    _assert_same_readings(again[::-1], first)  # to float rounding: a row's sum may depend on its place in the batch
    fresh = classifier_module.ClassifierEngine(model=engine.model).read(cells, alphabet="123456789")
    assert fresh == first and len(calls) == len(cells)


def _assert_same_readings(got, expected) -> None:
    """The same labels in the same order, each probability equal to float32 rounding."""
    assert [[label for label, _ in r] for r in got] == [[label for label, _ in r] for r in expected]
    assert [[p for _, p in r] for r in got] == [pytest.approx([p for _, p in r], rel=1e-5, abs=1e-8) for r in expected]


@pytest.mark.parametrize("shape", [(1000, 2500), (1601, 1299), (2048, 1536)])
def test_a_split_encoding_decodes_to_the_pixels_of_one_encoding(shape):
    rng = np.random.default_rng(1)
    image = cv2.GaussianBlur(rng.integers(0, 256, (*shape, 3), dtype=np.uint8), (0, 0), 3)
    cv2.putText(image, "r3c5", (40, shape[0] // 2), cv2.FONT_HERSHEY_SIMPLEX, 6, (30, 30, 220), 12)
    data = overlay.encode_jpeg(image, quality=90)
    ok, whole = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(decoded, cv2.imdecode(whole, cv2.IMREAD_COLOR))
    ok, restarts = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90, cv2.IMWRITE_JPEG_RST_INTERVAL,
                                                -(-shape[1] // 16)])
    assert data == restarts.tobytes()  # the two halves' scans joined are the whole picture's scan


def test_a_small_picture_is_encoded_whole():
    image = np.full((300, 400, 3), 200, np.uint8)
    ok, whole = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert overlay.encode_jpeg(image, quality=90) == whole.tobytes()
    big = np.full((1600, 1300, 3), 200, np.uint8)
    ok, whole = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert overlay.encode_jpeg(big, quality=90, split=False) == whole.tobytes()


def test_a_glyph_quantile_is_the_order_statistic_np_partition_gives():
    from scanner.ocr.glyph import _quantile

    rng = np.random.default_rng(2)
    for _ in range(20):
        a = np.maximum(rng.normal(0.0, 0.3, (48, 40)).astype(np.float32), 0.0)  # mostly exact zeros, as ink is
        for q in (0.5, 0.997, 0.0, 1.0):
            k = min(a.size - 1, int(q * (a.size - 1) + 0.5))
            assert _quantile(a, q) == float(np.partition(a.ravel(), k)[k])


def test_closing_8_bit_pixels_gives_the_values_closing_their_float_copy_gives():
    from scanner import cells

    rng = np.random.default_rng(3)
    image = cv2.GaussianBlur(rng.integers(0, 256, (120, 90), dtype=np.uint8), (0, 0), 2)
    for k in (3, 25, 73):
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
        as_float = cv2.morphologyEx(image.astype(np.float32), cv2.MORPH_CLOSE, kernel)
        assert np.array_equal(cells.closing(image, k=k).astype(np.float32), as_float)
        assert np.array_equal(cells.closing(image.astype(np.float64), k=k), as_float)  # other types: as float32


def test_peaks_near_is_the_highest_value_in_each_window():
    from scanner.grid_find import _peaks_near

    rng = np.random.default_rng(4)
    for trial in range(60):
        size = int(rng.integers(1, 500))
        profiles = rng.random((2, size)) * (1.0 if trial % 2 else rng.choice([-1.0, 1.0], (2, size)))
        pos = rng.uniform(-20, size + 20, int(rng.integers(0, 120)))
        tol = rng.uniform(0, 50, len(pos)) if trial % 3 else float(rng.uniform(0, 50))
        got = _peaks_near(profiles, pos, tol)
        lo = np.maximum(0, np.round(pos - tol).astype(int))
        hi = np.minimum(size, np.round(pos + tol).astype(int) + 1)
        widest = max(1, int((hi - lo).max(initial=1)))
        for k in range(len(pos)):
            if hi[k] <= lo[k]:
                assert (got[:, k] == 0.0).all()
                continue
            want = profiles[:, lo[k]:hi[k]].max(axis=1)
            if hi[k] - lo[k] < widest:  # the window is padded with zeros up to the widest
                want = np.maximum(want, 0.0)
            assert np.array_equal(got[:, k], want)


def _ruled_profiles(rng, *, side: int, margin: float, noise: float):
    """A random grid size n, its n + 1 line positions and row / column profiles (side,): noise up to ``noise``
    everywhere, the lines 0.3..1.0 at the positions of n even cells between the margins."""
    n = int(rng.choice([4, 6, 9, 12, 16, 20]))
    at = np.round(margin + (side - 1 - 2 * margin) * np.arange(n + 1) / n).astype(int)
    rows, cols = rng.random(side) * noise, rng.random(side) * noise
    rows[at] = rng.uniform(0.3, 1.0, n + 1)
    cols[at] = rng.uniform(0.3, 1.0, n + 1)
    return n, at, rows, cols


def test_count_cells_tests_every_size_as_one_size_at_a_time_does():
    from scanner import grid_find

    rng = np.random.default_rng(6)
    side, margin = 480, 14.4
    for trial in range(40):
        n, _, rows, cols = _ruled_profiles(rng, side=side, margin=margin, noise=0.4)
        for sizes in (grid_find.SIZES, (n,), (n // 2, n)):
            got = grid_find.count_cells(rows, cols, span=(margin, side - 1 - margin), sizes=sizes)
            # one size at a time: the largest that fits (halved when every other line is much fainter)
            fits = [m for m in sizes if grid_find.count_cells(rows, cols, span=(margin, side - 1 - margin),
                                                               sizes=(m,))[0] == m]
            assert (got[0] in fits) if fits else got == (0, 0.0)
            if got[0] == max(fits, default=0) and fits:
                alone = grid_find.count_cells(rows, cols, span=(margin, side - 1 - margin), sizes=(got[0],))
                assert got == alone


def _count_cells_reference(rows, cols, *, span, sizes, level):
    """count_cells written plainly, one size and one expected line at a time (the rule of its docstring): an
    independent reference for the vectorised one."""
    from scanner import grid_find

    def peak(profile, at, tol):
        lo, hi = max(0, int(np.round(at - tol))), min(len(profile), int(np.round(at + tol)) + 1)
        return float(profile[lo:hi].max()) if hi > lo else 0.0

    start, stop = span
    fits = {}
    for n in sizes:
        step = (stop - start) / n
        peaks = np.array([[peak(p, start + step * i, max(2.0, 0.22 * step)) for i in range(n + 1)] for p in (rows, cols)])
        mids = np.array([[peak(p, start + step * (i + 0.5), 0.15 * step) for i in range(n)] for p in (rows, cols)])
        inner = peaks[:, 1:-1]
        strong = max(level, 0.8 * float(np.median(inner))) if inner.size else level
        if ((inner >= level).mean() >= 0.85 and int((mids >= strong).sum()) <= max(1.0, 0.2 * n)
                and peaks[:, [0, -1]].min() >= level * 0.8):
            fits[n] = (float(inner.mean() - mids.mean()), peaks)
    if not fits:
        return 0, 0.0
    n = max(fits)
    while n % 2 == 0 and n // 2 in fits and fits[n][1][:, 0::2].mean() - fits[n][1][:, 1::2].mean() > grid_find.ALTERNATE:
        n //= 2
    return n, fits[n][0]


def test_count_cells_matches_a_plain_reference():
    from scanner import grid_find

    rng = np.random.default_rng(7)
    side, margin = 480, 14.4
    span = (margin, side - 1 - margin)
    for trial in range(60):
        n, at, rows, cols = _ruled_profiles(rng, side=side, margin=margin, noise=0.5)
        if trial % 3 == 0:  # every other line faint: n / 2 may be taken
            rows[at[1::2]] *= 0.6
            cols[at[1::2]] *= 0.6
        for sizes in (grid_find.SIZES, (n,), (n // 2, n)):
            for level in (grid_find.LINE_LEVEL, 0.35):
                got = grid_find.count_cells(rows, cols, span=span, sizes=sizes, level=level)
                want = _count_cells_reference(rows, cols, span=span, sizes=sizes, level=level)
                assert got[0] == want[0] and got[1] == pytest.approx(want[1], abs=1e-12), (trial, sizes, level)


def test_gradient_histograms_count_only_the_pixels_with_a_gradient_in_their_order():
    from scanner.ocr.features import BINS, BLOCKS, _hog
    from scanner.ocr.glyph import SIDE

    rng = np.random.default_rng(8)
    images = (rng.random((30, SIDE, SIDE)) * (rng.random((30, SIDE, SIDE)) > 0.7)).astype(np.float32)
    images[3] = 0.0  # a blank glyph: no gradient anywhere
    gy, gx = np.gradient(images, axis=(1, 2))
    mag = np.hypot(gx, gy)
    b = np.minimum((np.mod(np.arctan2(gy, gx), np.pi) / np.pi * BINS).astype(np.int64), BINS - 1)
    block = np.minimum(np.arange(SIDE) // (SIDE // BLOCKS), BLOCKS - 1)
    want = np.zeros((len(images), BLOCKS * BLOCKS * BINS), np.float32)
    for i in range(len(images)):  # every pixel, zeros too, one after another
        for r in range(SIDE):
            for c in range(SIDE):
                want[i, (block[r] * BLOCKS + block[c]) * BINS + b[i, r, c]] += mag[i, r, c]
    want /= np.linalg.norm(want, axis=1, keepdims=True) + 1e-6
    assert np.array_equal(_hog(images), want)


def test_linked_groups_label_chains_of_neighbours_alike_and_nothing_else():
    from scanner.grid_find import linked_groups

    rng = np.random.default_rng(9)
    for k in (0, 1, 7, 60, 200):
        near = rng.random((k, k)) < 3.0 / max(k, 1)
        near = near | near.T
        np.fill_diagonal(near, False)
        labels = linked_groups(near)
        # the groups by a walk from node to node: same label exactly within a walk's reach
        seen = np.full(k, -1)
        for start in range(k):
            if seen[start] >= 0:
                continue
            todo, seen[start] = [start], start
            while todo:
                node = todo.pop()
                for other in np.nonzero(near[node])[0]:
                    if seen[other] < 0:
                        seen[other] = start
                        todo.append(other)
        assert all((labels[a] == labels[b]) == (seen[a] == seen[b]) for a in range(k) for b in range(k))
