"""Runs of small pictures keep OpenCV to the calling thread (``cells.opencv_alone``), with the same results."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner import cells
from scanner.ocr import get_engine, glyph


@pytest.fixture
def opencv_threads():
    """Sets OpenCV's thread count for a test, restored afterwards."""
    before = cv2.getNumThreads()
    yield cv2.setNumThreads
    cv2.setNumThreads(before)


def _cells(count: int, seed: int = 3) -> list[np.ndarray]:
    """``count`` varied cells: strokes of several sizes and places on grainy paper, line remnants, blanks, a
    sliver."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count - 1):
        h, w = int(rng.integers(20, 70)), int(rng.integers(10, 70))
        cell = np.clip(rng.normal(210, 6, (h, w)), 0, 255).astype(np.uint8)
        if i % 5:
            x, y = int(rng.integers(0, w // 2 + 1)), int(rng.integers(0, h // 2 + 1))
            cv2.line(cell, (x, y), (w - 1 - x // 2, h - 1 - y // 2), int(rng.integers(20, 120)), 1 + i % 3)
            cv2.circle(cell, (w // 2, h // 2), max(2, min(h, w) // 5), 40, 1 + i % 2)
        if i % 7 == 0:
            cell[:2, :] = 60  # a ruled line's remnant
        out.append(cell)
    return out + [np.full((3, 30), 200, np.uint8)]


def _same(a: glyph.Glyph, b: glyph.Glyph) -> bool:
    return a.blank == b.blank and np.array_equal(a.image, b.image) and np.array_equal(a.stats, b.stats)


def test_opencv_is_alone_inside_and_as_before_after(opencv_threads):
    opencv_threads(2)
    with cells.opencv_alone():
        assert cv2.getNumThreads() == 1
    assert cv2.getNumThreads() == 2
    with pytest.raises(ValueError), cells.opencv_alone():
        raise ValueError("fails inside")
    assert cv2.getNumThreads() == 2
    opencv_threads(1)  # already alone (the batch workers): left so
    with cells.opencv_alone():
        assert cv2.getNumThreads() == 1
    assert cv2.getNumThreads() == 1


def test_serial_and_parallel_labelling_agree(opencv_threads):
    """The premise: OpenCV labels blobs the same on one thread as on two (an upgrade that broke it would move
    results between the batch workers, one thread each, and a single photo read in-process)."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        h, w = (int(v) for v in rng.integers(8, 90, 2))
        blobs = cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), float(rng.uniform(0.5, 3)))
        image = (blobs > rng.uniform(0.45, 0.55)).astype(np.uint8)
        got = []
        for threads in (1, 2):
            opencv_threads(threads)
            got.append(cv2.connectedComponentsWithStats(image, connectivity=8))
        (n1, labels1, stats1, cent1), (n2, labels2, stats2, cent2) = got
        assert n1 == n2 and np.array_equal(labels1, labels2) and np.array_equal(stats1, stats2)
        assert np.array_equal(cent1, cent2, equal_nan=True)


def test_a_batch_of_glyphs_is_normalised_alone_and_alike(opencv_threads, monkeypatch):
    opencv_threads(2)
    batch = _cells(60)
    alone = [glyph.normalise(c) for c in batch]
    seen = set()
    plain = glyph._normalised  # (the batch's glyphs are found together)
    monkeypatch.setattr(glyph, "_normalised", lambda cells, **kw: seen.add(cv2.getNumThreads()) or plain(cells, **kw))
    together = glyph.normalise_all(batch)
    assert seen == {1} and cv2.getNumThreads() == 2
    assert len(together) == len(batch) and all(_same(a, b) for a, b in zip(alone, together))
    assert any(g.blank for g in together) and not all(g.blank for g in together)


def test_cells_are_measured_alone_and_alike(opencv_threads, monkeypatch):
    rng = np.random.default_rng(2)
    n, cell = 6, 40
    gray = np.clip(rng.normal(215, 5, (n * cell, n * cell)), 0, 255).astype(np.uint8)
    for k in range(0, n * n, 3):
        r, c = divmod(k, n)
        cv2.putText(gray, str(1 + k % 9), (c * cell + 12, r * cell + 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 30, 2)
    opencv_threads(1)
    before = cells.measure(gray, n, cell=cell)
    opencv_threads(2)
    seen = set()
    plain = cells._central_glyph
    monkeypatch.setattr(cells, "_central_glyph", lambda *a, **kw: seen.add(cv2.getNumThreads()) or plain(*a, **kw))
    after = cells.measure(gray, n, cell=cell)
    assert seen == {1} and cv2.getNumThreads() == 2
    for row_a, row_b in zip(before, after):
        for a, b in zip(row_a, row_b):
            assert a.height == b.height and a.p_filled == b.p_filled
            assert (a.crop is None) == (b.crop is None) and (a.crop is None or np.array_equal(a.crop, b.crop))
    assert sum(ink.crop is not None for row in after for ink in row) >= 6


def test_the_engine_keeps_each_glyph_once_and_reuses_it():
    engine = get_engine("classifier")
    batch = _cells(60, seed=5)
    first = engine.glyphs(batch[:30])
    again = engine.glyphs(batch + [batch[0].copy()])
    assert all(a is b for a, b in zip(first, again))  # kept from the first call
    assert again[-1] is again[0]  # the same pixels: the same glyph
    assert all(_same(g, glyph.normalise(c)) for g, c in zip(again, batch))
    assert engine.glyph(batch[40]) is again[40]
