"""The k-th overlay of a page re-encodes only the rows of MCUs its answer changed (overlay.encode_changed)."""
import cv2
import numpy as np
import pytest

from scanner import overlay
from scanner.rectify import Mesh


def _page(shape, seed=1):
    rng = np.random.default_rng(seed)
    return cv2.GaussianBlur(rng.integers(0, 256, (*shape, 3), dtype=np.uint8), (0, 0), 3)


@pytest.mark.parametrize("shape, rows", [
    ((1601, 1299), (700, 900)),      # a band inside the picture
    ((1601, 1299), (0, 40)),         # at the top
    ((1601, 1299), (1580, 1601)),    # at the bottom, its last row of MCUs part-filled
    ((1601, 1299), (127, 129)),      # across a marker cycle's first row
    ((1601, 1299), (200, 260)),      # from a row of MCUs inside a marker cycle (MCU row 12)
    ((2048, 1536), (420, 1900)),     # two parts, neither starting a marker cycle
    ((2048, 1536), (300, 1900)),     # most of the picture: encoded in two parts at once
    ((2048, 1536), (0, 2048)),       # all of it
])
def test_a_changed_band_reencoded_gives_the_bytes_of_a_whole_encoding(shape, rows):
    image = _page(shape)
    before = overlay.encode_jpeg(image, quality=90)
    top, bottom = rows
    image[top:bottom, 100:600] = 255 - image[top:bottom, 100:600]
    assert overlay.encode_changed(before, image, top, bottom, quality=90) == overlay.encode_jpeg(image, quality=90)


def test_an_unchanged_picture_keeps_its_file_and_one_encoded_whole_is_encoded_again():
    image = _page((1601, 1299))
    before = overlay.encode_jpeg(image, quality=90)
    assert overlay.encode_changed(before, image, 50, 50) is before
    whole = overlay.encode_jpeg(image, quality=90, split=False)  # no restart markers: nothing to reuse
    image[10:20] = 0
    assert overlay.encode_changed(whole, image, 10, 20, quality=90) == overlay.encode_jpeg(image, quality=90)
    assert overlay.encode_changed(whole, image, 10, 20, split=False) == overlay.encode_jpeg(image, split=False)


def test_drawing_reports_the_rows_it_may_change():
    image = _page((1200, 1000))
    k = np.arange(10, dtype=np.float64)
    mesh = Mesh(9, np.stack(np.meshgrid(200 + 60 * k, 500 + 55 * k), axis=-1) + [[0.0, 0.0]])
    labels = {(r, c): str(1 + (r + c) % 9) for r in range(9) for c in range(9) if (r * c) % 3 == 0}
    touched = []
    drawn = overlay.draw_digits(image, mesh, labels, touched=touched)
    (top, bottom), = touched
    changed = np.flatnonzero((drawn != image).any(axis=(1, 2)))
    assert top <= changed[0] and changed[-1] < bottom and bottom - top < 9 * 55 + 10


def test_a_pages_second_overlay_is_the_whole_pictures_encoding(tmp_path, monkeypatch):
    from conftest import SAMPLES
    from scanner import photo

    made = []
    reuse = overlay.encode_changed

    def checked(previous, image, top, bottom, **options):
        data = reuse(previous, image, top, bottom, **options)
        made.append((data == overlay.encode_jpeg(image, quality=options.get("quality", 90)), bottom - top))
        return data
    monkeypatch.setattr(overlay, "SPLIT_PIXELS", 200_000)  # the sample is a small scan: encode it in parts too
    monkeypatch.setattr(overlay, "encode_changed", checked)
    records = photo.scan_photo(SAMPLES / "sudoku" / "scan_two_puzzles.jpg", out_dir=tmp_path)
    assert len(records) == 2 and all(r["overlay"] for r in records)
    (same, rows), = made
    assert same and 0 < rows < cv2.imread(records[1]["overlay"]).shape[0] / 2
