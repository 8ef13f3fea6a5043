"""A crop read as a 1 is read again whole (``ruled.read_cells``): when the whole cell reads otherwise, both stay."""
from __future__ import annotations

import numpy as np
import pytest

from scanner import cells
from scanner.readers import ruled

ALPHABET, VALUES = "123456789", tuple(range(1, 10))


class _TwoViews:
    """An engine that reads the crops holding a dark pixel in their left third as ``whole`` and the others
    as ``crop`` (a stem left of a cut 7: the bar's left part is whitened)."""

    name = "classifier"  # sharpened by ruled.ENGINE_TEMPERATURE like the real one

    def __init__(self, crop, whole):
        self.crop, self.whole, self.calls = crop, whole, 0

    def read(self, crops, *, alphabet):
        self.calls += 1
        return [list(self.whole if (c[:, :c.shape[1] // 3] < 128).any() else self.crop) for c in crops]


def _cut_seven() -> cells.CellInk:
    crop = np.full((38, 38), 255, np.uint8)
    crop[5:35, 20:24] = 30  # the stem
    whole = crop.copy()
    whole[4:7, 6:24] = 30  # the bar, whose left part the crop lost
    return cells.CellInk(height=0.8, p_filled=1.0, crop=crop, whole=whole)


def _read(ink, engine):
    return ruled.read_cells([[ink]], engine, alphabet=ALPHABET, values=VALUES)[0][0]


def test_a_crop_read_as_1_whose_whole_cell_reads_7_keeps_both_unsharpened():
    engine = _TwoViews(crop=[("1", 0.8), ("7", 0.2)], whole=[("7", 0.9), ("1", 0.1)])
    cands = dict(_read(_cut_seven(), engine))
    assert cands[7] > 0.5 and cands[1] > 0.4  # the mean of the two raw readings: 0.55 and 0.45
    alone = dict(_read(cells.CellInk(0.8, 1.0, _cut_seven().crop), engine))  # no whole picture: sharpened
    assert alone[1] > 0.9 and alone[7] < 0.1


def test_a_1_that_reads_1_whole_too_stays_sharpened():
    engine = _TwoViews(crop=[("1", 0.8), ("7", 0.2)], whole=[("1", 0.7), ("7", 0.3)])
    cands = dict(_read(_cut_seven(), engine))
    assert cands[1] > 0.9
    assert engine.calls == 2  # read again, found alike


def test_a_clean_1_whose_whole_cell_shows_only_the_paper_s_grain_is_not_read_again():
    ink = _cut_seven()
    rng = np.random.default_rng(3)
    grain = np.clip(rng.normal(235, 8, ink.crop.shape), 0, 255).astype(np.uint8)  # no pixel near halfway
    whole = np.where(ink.crop < 255, ink.crop, grain).astype(np.uint8)
    engine = _TwoViews(crop=[("1", 0.8), ("7", 0.2)], whole=[("7", 0.9), ("1", 0.1)])
    engine_left = _TwoViews(crop=[("1", 0.8), ("7", 0.2)], whole=[("7", 0.9), ("1", 0.1)])
    whole[4:7, 6:9] = 30  # a speck of 9 pixels left of the stem: ink the crop lost
    assert ruled.whitened_ink(ink.crop, whole)
    cands = dict(_read(cells.CellInk(0.8, 1.0, ink.crop, np.where(whole == 30, grain, whole)), engine))
    assert cands[1] > 0.9 and engine.calls == 1  # the sharpened 1, not read whole
    cands = dict(_read(cells.CellInk(0.8, 1.0, ink.crop, whole), engine_left))
    assert cands[7] > 0.5 and engine_left.calls == 2


def test_whitened_ink_counts_blots_not_scattered_pixels():
    crop = np.full((38, 38), 255, np.uint8)
    crop[5:35, 20:24] = 60  # the glyph: halfway from the paper is 157
    whole = crop.copy()
    whole[2, 2] = whole[10, 5] = whole[30, 8] = whole[20, 33] = whole[12, 30] = 100  # five lone dark pixels
    assert not ruled.whitened_ink(crop, whole)
    whole[30:32, 8:10] = 150  # a blot of four, darker than halfway
    assert ruled.whitened_ink(crop, whole)
    whole[30:32, 8:10] = 170  # ... paler than halfway: grain
    assert not ruled.whitened_ink(crop, whole)


def test_a_crop_read_as_a_symbol_the_puzzle_never_prints_is_read_again_whole():
    # a 6 whose pale upper stroke the crop cut off reads as a 0, which no Sudoku prints
    engine = _TwoViews(crop=[("0", 0.8), ("5", 0.15), ("6", 0.05)], whole=[("6", 0.9), ("0", 0.1)])
    cands = dict(_read(_cut_seven(), engine))
    assert engine.calls == 2 and max(cands, key=cands.get) == 6
    alone = dict(_read(cells.CellInk(0.8, 1.0, _cut_seven().crop), engine))  # no whole picture
    assert alone[5] > alone[6]


def test_other_digits_are_read_again_only_when_the_crop_cut_a_large_piece_off_the_glyph():
    seven = _cut_seven()
    speck = seven.whole.copy()
    speck[4:7, 6:24] = 255
    speck[2:5, 2:5] = 30  # 9 pixels apart from the glyph: no piece of it
    for whole, read_again in ((seven.crop, False), (speck, False), (seven.whole, True)):
        engine = _TwoViews(crop=[("5", 0.8), ("6", 0.2)], whole=[("6", 0.9), ("5", 0.1)])
        cands = dict(_read(cells.CellInk(0.8, 1.0, seven.crop, whole), engine))
        assert engine.calls == (2 if read_again else 1)
        assert (cands[6] > 0.5) if read_again else (cands[5] > 0.9)
    lost, joined, glyph = ruled.whitened_blots(seven.crop, seven.whole)
    assert lost == joined == 3 * 14 + 4 and glyph == 30 * 4  # the bar but where it meets the stem: 0.38 of the glyph


def test_mean_reading_averages_labels_missing_from_one_as_zero():
    got = ruled.mean_reading([("1", 0.6), ("7", 0.4)], [("7", 0.8), ("4", 0.2)])
    assert [label for label, _ in got] == ["7", "1", "4"]
    assert [p for _, p in got] == pytest.approx([0.6, 0.3, 0.1])


def test_measure_keeps_the_whole_picture_beside_the_whitened_crop():
    picture = np.full((48, 48), 235, np.uint8)
    picture[10:40, 22:27] = 20  # a glyph
    picture[30:33, 8:12] = 20  # a speck apart from it, whitened in the crop
    plain = cells.measure(picture, 1, cell=48)[0][0]
    kept = cells.measure(picture, 1, cell=48, keep_whole=True)[0][0]
    assert plain.whole is None and np.array_equal(plain.crop, kept.crop)
    assert (kept.whole < 128).sum() > (kept.crop < 128).sum()
