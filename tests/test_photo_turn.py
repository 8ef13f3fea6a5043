"""Turned photos: the grid is read upright and the record says how it lay in the image (``quad``, ``turn``)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner import photo
from scanner.ocr.engine import ranked
from solver import kinds

from test_photo import TRUE_QUAD, photo_of


def _box(img: np.ndarray) -> np.ndarray:
    """The dark glyph of ``img`` cut to its bounding box and resized to 24 x 16, as floats 0..1 (1 = ink)."""
    ink = img < 128
    rows, cols = np.nonzero(ink.any(axis=1))[0], np.nonzero(ink.any(axis=0))[0]
    if not len(rows):
        return np.zeros((24, 16), np.float32)
    cut = (255 - img[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]).astype(np.float32) / 255
    return cv2.resize(cut, (16, 24), interpolation=cv2.INTER_AREA)


class TemplateEngine:
    """Reads digits by matching upright templates drawn in the test grid's font: turned digits match poorly."""

    name = "template"

    def __init__(self):
        self.templates = {}
        for d in "123456789":
            img = np.full((80, 80), 255, np.uint8)
            cv2.putText(img, d, (15, 65), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 0, 3, cv2.LINE_AA)
            self.templates[d] = _box(img)

    def read(self, cells, *, alphabet):
        out = []
        for cell in cells:
            g = _box(np.asarray(cell))
            dist = {d: float(np.abs(g - t).mean()) for d, t in self.templates.items() if d in alphabet}
            out.append(ranked({d: np.exp(-60 * v) for d, v in dist.items()}, alphabet))
        return out


@pytest.fixture(scope="module")
def sudoku():
    return kinds.get("sudoku").generate(9, seed=1)


@pytest.mark.parametrize("quarter", [0, 1, 2, 3])
def test_turned_photo_reads_upright_and_reports_image_corners(tmp_path, sudoku, quarter):
    upright = photo_of(sudoku.givens)
    image = np.ascontiguousarray(np.rot90(upright, k=-quarter))  # the page turned quarter x 90 degrees clockwise
    path = tmp_path / "turned.png"
    cv2.imwrite(str(path), image)
    [record] = photo.scan_photo(path, draw=False, reader=TemplateEngine())
    assert record["givens"] == sudoku.givens and record["status"] == "solved"
    assert record["turn"] == 90 * quarter
    # the true corners, carried through the same turn, ordered as the image shows them
    h, w = upright.shape[:2]
    pts = TRUE_QUAD.astype(np.float64)
    for _ in range(quarter):  # (x, y) -> (h - 1 - y, x) for one clockwise quarter turn of an h-tall image
        pts = np.stack([h - 1 - pts[:, 1], pts[:, 0]], axis=1)
        h, w = w, h
    start = int(np.argmin(pts.sum(axis=1)))
    expected = np.roll(pts, -start, axis=0)
    assert np.abs(np.array(record["quad"]) - expected).max() < 4.0
