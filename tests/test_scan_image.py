"""``scan_image``: the photo pipeline on an already decoded picture (a PDF page, a TIFF frame), and the
loading it shares with ``scan_photo``."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from conftest import SAMPLES
from scanner import load, photo
from solver.errors import InputError, NoPuzzleError

TWO = SAMPLES / "sudoku" / "scan_two_puzzles.jpg"

SAME_FIELDS = ("index", "kind", "size", "givens", "relations", "status", "solution", "quad", "turn", "changed")


def test_scan_image_reads_a_picture_like_scan_photo_reads_its_file(tmp_path):
    by_file = photo.scan_photo(TWO, out_dir=tmp_path / "file")
    image = cv2.imread(str(TWO), cv2.IMREAD_COLOR)
    before = image.copy()
    by_array = photo.scan_image(image, source="book.pdf", overlay_path=tmp_path / "page" / "book.p3.solved.jpg")
    assert len(by_file) == len(by_array) == 2
    for a, b in zip(by_file, by_array):
        assert {k: a[k] for k in SAME_FIELDS} == {k: b[k] for k in SAME_FIELDS}
        assert b["source"] == "book.pdf" and a["source"] == str(TWO)
    assert [Path(r["overlay"]).name for r in by_file] == ["scan_two_puzzles.solved.jpg", "scan_two_puzzles.2.solved.jpg"]
    assert [Path(r["overlay"]).name for r in by_array] == ["book.p3.solved.jpg", "book.p3.2.solved.jpg"]
    for a, b in zip(by_file, by_array):  # the same drawing on the same pixels
        assert np.array_equal(cv2.imread(a["overlay"]), cv2.imread(b["overlay"]))
    assert np.array_equal(image, before), "the caller's picture was drawn on"


def test_scan_image_without_an_overlay_path_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    image = cv2.imread(str(TWO), cv2.IMREAD_COLOR)
    records = photo.scan_image(image, source="page")
    assert records and all(r["overlay"] is None for r in records)
    assert not list(tmp_path.rglob("*"))


def test_scan_image_names_its_source_in_errors():
    blank = np.full((600, 800, 3), 255, np.uint8)
    with pytest.raises(NoPuzzleError, match=r"^book\.pdf#2: no puzzle grid found"):
        photo.scan_image(blank, source="book.pdf#2")
    with pytest.raises(InputError, match="too small"):
        photo.scan_image(blank[:10], source="strip")
    with pytest.raises(ValueError, match="uint8"):
        photo.scan_image(blank.astype(np.float32), source="floats")


def test_from_array_keeps_the_picture_and_draws_on_a_copy():
    image = np.zeros((2400, 3300, 3), np.uint8)
    loaded = load.from_array(image, name="page")
    assert loaded.image is image and max(loaded.small.shape) <= 1.5 * load.DETECT_LONG_SIDE
    assert loaded.scale == pytest.approx(loaded.small.shape[1] / 3300, rel=1e-3)
    assert loaded.canvas() is not image and np.array_equal(loaded.canvas(), image)


def test_without_background_decoding_the_full_picture_is_decoded_on_first_use(tmp_path, monkeypatch):
    big = np.zeros((2600, 3600, 3), np.uint8)
    cv2.rectangle(big, (400, 300), (3000, 2300), (255, 255, 255), -1)
    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), big)
    monkeypatch.setattr(load, "BACKGROUND_DECODE", False)
    loaded = load.load(path)
    loaded.prefetch()
    assert loaded._thread is None  # no thread started: batch workers use one core each
    assert loaded.image.shape == (2600, 3600, 3)
    canvas = loaded.canvas()
    assert canvas is loaded.image  # the file's own decode is drawn on in place


def test_scan_image_may_draw_on_the_picture_itself_to_save_a_copy(tmp_path):
    image = cv2.imread(str(TWO), cv2.IMREAD_COLOR)
    before = image.copy()
    records = photo.scan_image(image, source="page", overlay_path=tmp_path / "page.solved.jpg", overwrite=True)
    assert records[0]["overlay"] and not np.array_equal(image, before)
    assert load.from_array(image, borrowed=False).canvas() is image
