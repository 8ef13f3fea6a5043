"""The Sudoku reader's own stages (scanner.readers.sudoku): one digit or two in a 16x16 number print's cell."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner.ocr.fake import FakeEngine
from scanner.readers import sudoku


def test_a_wide_single_digit_is_not_lost_to_a_pair_its_halves_do_not_read_as():
    wide = np.full((40, 40), 255, np.uint8)
    cv2.putText(wide, "9", (2, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.3, 0, 3)
    wide = cv2.resize(wide[:, 2:36], (40, 40))  # a bold, wide 9 (a Bookman-like print): taken for a pair by shape
    _, p_pair = sudoku.split_glyphs(wide)
    assert p_pair > 0.3  # a fair chance of a pair by its width (less as the cut crosses two of its strokes)

    def engine(i, cell):  # the whole reads 9; its halves read as no 1 and 0..6 ("7" then "5")
        return "9" if cell.shape[1] == 40 else "75"[i % 2]

    reading = sudoku.read_numbers(FakeEngine(engine), [wide], alphabet=sudoku.ALPHABET)[0]
    assert reading[0][0] == "9" and reading[0][1] > 0.9  # was 1 - p_pair: the pair's share went nowhere
    assert sudoku._pair_weight(p_pair, {"9": 1.0}, {"7": 1.0}, {"5": 1.0}) == 0.0
    assert sudoku._pair_weight(0.9, {"8": 0.5}, {"1": 1.0}, {"3": 1.0}) == pytest.approx(0.9 / (0.9 + 0.05))


def test_a_pale_single_digit_is_not_broken_into_a_pair_at_its_light_joins():
    crop = np.full((42, 42), 255, np.uint8)
    cv2.putText(crop, "2", (10, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 60, 3)
    stroke = crop < 255
    crop[stroke & (np.arange(42)[:, None] > 14)] = 150  # the diagonal and base printed paler than mid-gray
    crop[stroke & (np.arange(42)[:, None] > 30)] = 50
    crop = np.pad(cv2.resize(crop, (30, 42), interpolation=cv2.INTER_NEAREST), ((0, 0), (6, 6)),
                  constant_values=255)  # a digit of the usual width
    parts, p_pair = sudoku.split_glyphs(crop)
    assert p_pair < 0.5  # at mid-gray it broke at the pale diagonal: two glyphs side by side, p 1.0
    assert sudoku._ink_level(crop) > 150 > 128
    black = np.where(crop < 255, 0, 255).astype(np.uint8)
    assert sudoku._ink_level(black) == 128.0  # a print in black ink: the usual mid-gray


def _wide(text: str) -> np.ndarray:
    crop = np.full((40, 40), 255, np.uint8)
    cv2.putText(crop, text, (2, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.3, 0, 3)
    return cv2.resize(crop[:, 2:36], (40, 40))  # a bold, wide print (Bookman-like)


@pytest.mark.parametrize("digit", "28")
def test_a_wide_single_digit_cut_through_two_strokes_is_likely_one_glyph(digit):
    wide = _wide(digit)
    parts, p_pair = sudoku.split_glyphs(wide)
    assert len(parts) == 2  # wide enough to be cut where it is faintest ...
    cut = parts[0].shape[1]
    assert sudoku._strokes_across(sudoku._glyph_ink(wide)[:, cut]) >= 2  # ... through two strokes or more
    assert p_pair < 0.5


def test_strokes_across_a_column_are_its_runs_of_ink():
    column = np.array([0, 1, 1, 0, 0, 1, 0, 1, 1, 1], bool)
    assert sudoku._strokes_across(column) == 3
    assert sudoku._strokes_across(np.zeros(5, bool)) == 0
    assert sudoku._strokes_across(np.ones(5, bool)) == 1


def _narrow_four() -> np.ndarray:
    crop = np.full((40, 40), 255, np.uint8)
    cv2.putText(crop, "4", (6, 32), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 0, 3)
    ink = np.flatnonzero((crop < 128).any(axis=0))
    glyph = cv2.resize(crop[:, ink[0]:ink[-1] + 1], (12, 40))  # a condensed print's narrow 4
    return np.pad(glyph, ((0, 0), (14, 14)), constant_values=255)


@pytest.mark.parametrize("whole, halves_read", [("4", False), ("D", True)])
def test_a_glyph_read_surely_as_one_digit_whole_has_no_halves_read_when_a_pair_could_not_weigh(whole, halves_read):
    crop = _narrow_four()
    _, p_pair = sudoku.split_glyphs(crop)
    assert 0.0 < p_pair < sudoku.PAIR_NEGLIGIBLE  # it might be cut in two, with slight odds
    shapes = []

    def engine(i, cell):
        shapes.append(cell.shape)
        return whole if cell.shape == crop.shape else "17"[i % 2]

    reading = sudoku.read_numbers(FakeEngine(engine), [crop], alphabet=sudoku.ALPHABET)[0]
    assert (len(shapes) > 1) == halves_read  # read as a letter whole, the pair may yet weigh: its halves are read
    if not halves_read:
        assert reading[0] == ("4", 1.0)


def test_a_pair_weighs_no_more_than_its_bound_whatever_its_halves_read():
    from scanner import revise

    # a pair left unread is one no revision could have tried (it costs more than MAX_COST beside a sure reading)
    assert sudoku.PAIR_NEGLIGIBLE <= np.exp(-revise.MAX_COST) + 1e-4
    rng = np.random.default_rng(0)
    for _ in range(500):
        p_pair = float(rng.uniform(0.0, 1.0))
        whole = dict(zip(sudoku.ALPHABET + ".", rng.dirichlet(np.full(17, 0.3))))
        first = dict(zip("0123456789.", rng.dirichlet(np.full(11, 0.3))))
        second = dict(zip("0123456789.", rng.dirichlet(np.full(11, 0.3))))
        bound = sudoku._pair_bound(p_pair, list(whole.items()))
        assert sudoku._pair_weight(p_pair, whole, first, second) <= bound + 1e-12


@pytest.mark.parametrize("kind, seed, style", [("takuzu", 15, {"symbols": "digits"}), ("sudoku", 13, None)])
def test_a_binary_grid_is_given_up_before_the_second_look_and_a_sudoku_screened_once(tmp_path, monkeypatch,
                                                                                      kind, seed, style):
    from scanner import grid_find, load
    from scanner.photo import get_engine
    from scanner.readers import ruled
    from scanner.synth import write_sample
    from scanner.timing import Timer

    path = write_sample(tmp_path, f"{kind}_{seed}", kind, seed=seed, size=6, mode="photo", turn=0, two=False,
                        style=style, long_side=1400)
    loaded = load.load(path, prefetch=False)
    cand = next(c for c in grid_find.find_grids(loaded.small) if c.size == 6)
    looks, screens = [], []
    second_look, looks_binary = ruled.second_look, sudoku.looks_binary
    monkeypatch.setattr(ruled, "second_look", lambda *a, **k: looks.append(1) or second_look(*a, **k))
    monkeypatch.setattr(sudoku, "looks_binary", lambda *a, **k: screens.append(1) or looks_binary(*a, **k))
    readings = sudoku.READER.read(loaded, cand, get_engine("auto"), timer=Timer())
    if kind == "takuzu":
        assert readings == [] and looks == []  # given up on the first look's crops
    else:
        assert readings and looks == [1]
        assert len(screens) == 1  # the second look left the crops as they were: not screened again
