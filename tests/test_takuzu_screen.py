"""The Takuzu reader's screen on the Sudoku reader's upright reading (``takuzu.plainly_other_digits``): a grid
read plainly as another puzzle's digits is not read again as a Takuzu; and ``ruled.ink_gray``'s pairwise minimum."""
from __future__ import annotations

import types

import cv2
import numpy as np

from scanner import load, photo
from scanner.readers import ruled, takuzu
from scanner.synth import render


def _loaded_with(cands, *, turn: int = 0):
    """A photo whose memo holds one Sudoku reading ``cands`` of a candidate, and the candidate."""
    cand = types.SimpleNamespace(quad=np.zeros((4, 2), np.float32), size=len(cands))
    loaded = load.from_array(np.full((64, 64, 3), 255, np.uint8))
    loaded.memo[ruled.readings_key(cand)] = [types.SimpleNamespace(turn=turn, cands=cands)]
    return loaded, cand


def _grid(values, p: float, n: int = 16):
    """n x n candidates: ``values`` (cycled) as the best of the first cells, the rest empty."""
    cells = [[(values[i % len(values)], p), (None, 1 - p)] if i < len(values) * 8 else [(None, 0.99)]
             for i in range(n * n)]
    return [cells[r * n:(r + 1) * n] for r in range(n)]


def test_a_confident_reading_of_many_symbols_is_plainly_no_takuzu():
    loaded, cand = _loaded_with(_grid(list(range(1, 17)), 0.97))
    assert takuzu.plainly_other_digits(loaded, cand)


def test_ones_and_few_symbols_or_a_poor_fit_or_a_turned_reading_are_left_to_the_takuzu_reader():
    assert not takuzu.plainly_other_digits(*_loaded_with(_grid([1, 1, 1, 4, 5, 6, 7, 8, 9, 10], 0.97)))  # 1s
    assert not takuzu.plainly_other_digits(*_loaded_with(_grid([1, 13], 0.97)))  # two symbols: 0 read as D
    assert not takuzu.plainly_other_digits(*_loaded_with(_grid(list(range(1, 17)), 0.6)))  # poor fit
    assert not takuzu.plainly_other_digits(*_loaded_with(_grid(list(range(1, 17)), 0.97), turn=1))
    assert not takuzu.plainly_other_digits(*_loaded_with(_grid([1, 2, 3, 4], 0.97, n=4)))  # too few symbols
    blank = load.from_array(np.full((64, 64, 3), 255, np.uint8))
    assert not takuzu.plainly_other_digits(blank, types.SimpleNamespace(quad=np.zeros((4, 2), np.float32), size=16))


def _scan_print(tmp_path, monkeypatch, kind: str, *, seed: int, size: int):
    img, rec, _ = render(kind, seed=seed, size=size, mode="print", two=False)
    path = tmp_path / f"{kind}_{size}.png"
    cv2.imwrite(str(path), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    screened = []
    original = takuzu.plainly_other_digits

    def spy(loaded, cand):
        screened.append(original(loaded, cand))
        return screened[-1]
    monkeypatch.setattr(takuzu, "plainly_other_digits", spy)
    return photo.scan_photo(path, draw=False), rec["puzzles"][0], screened


def test_a_16x16_sudoku_print_is_screened_out_and_read_as_a_sudoku(tmp_path, monkeypatch):
    records, truth, screened = _scan_print(tmp_path, monkeypatch, "sudoku", seed=5, size=16)
    assert screened and screened[0]
    assert records[0]["kind"] == "sudoku" and records[0]["givens"] == truth["givens"]


def test_a_takuzu_print_is_not_screened_out(tmp_path, monkeypatch):
    records, truth, screened = _scan_print(tmp_path, monkeypatch, "takuzu", seed=7, size=16)
    assert not any(screened)
    assert records[0]["kind"] == "takuzu" and records[0]["givens"] == truth["givens"]


def test_ink_gray_is_the_darkest_channel():
    rng = np.random.default_rng(3)
    for shape in ((5, 7, 3), (64, 48, 3), (9, 4, 4)):
        image = rng.integers(0, 256, shape, dtype=np.uint8)
        gray = ruled.ink_gray(image)
        assert gray.dtype == np.uint8 and gray.flags.c_contiguous
        assert np.array_equal(gray, image.min(axis=2))
    flat = rng.integers(0, 256, (6, 6), dtype=np.uint8)
    assert ruled.ink_gray(flat) is flat


def test_the_pages_words_are_not_read_for_a_reading_far_behind_another_kinds():
    """``takuzu.far_behind``: a reading the photo stage can never answer with (another kind's reading of the
    grid likelier by more than revise.MAX_COST) is not worth the page's words; without other readings, or
    within MAX_COST of them, it is."""
    from scanner import revise

    n = 8
    cand = types.SimpleNamespace(quad=np.zeros((4, 2), np.float32), size=n)
    ours = [[[(1, 0.5), (None, 0.5)] for _ in range(n)] for _ in range(n)]  # 64 cells at log 0.5: -44.4
    ll = n * n * np.log(0.5)
    loaded = load.from_array(np.full((64, 64, 3), 255, np.uint8))
    assert not takuzu.far_behind(loaded, cand, [ours])
    for other, behind in ((ll + revise.MAX_COST + 1.0, True), (ll + revise.MAX_COST - 1.0, False)):
        loaded.memo[ruled.readings_key(cand, "futoshiki")] = [types.SimpleNamespace(log_likelihood=lambda v=other: v)]
        assert takuzu.far_behind(loaded, cand, [ours]) is behind
    better = [[[(1, 0.99)] for _ in range(n)] for _ in range(n)]
    assert not takuzu.far_behind(loaded, cand, [ours, better])  # the likeliest of the turns counts
