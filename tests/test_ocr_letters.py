"""16x16 Sudoku printed with letters: the generator's letter style and the classifier's letter classes A..G."""
from __future__ import annotations

import numpy as np
import pytest

from scanner.ocr import EMPTY, get_engine
from scanner.readers import sudoku
from scanner.synth import layout_sudoku
from solver.puzzle import Puzzle
from test_ocr import _font, printed_cell

SIXTEEN = sudoku.ALPHABET  # "123456789ABCDEFG"


@pytest.fixture(scope="module")
def classifier():
    return get_engine("classifier")


def _puzzle(n: int, seed: int) -> Puzzle:
    rng = np.random.default_rng(seed)
    givens = [[int(v) if rng.random() < 0.4 else None for v in rng.integers(1, n + 1, n)] for _ in range(n)]
    box = {9: (3, 3), 16: (4, 4)}[n]
    return Puzzle(kind="sudoku", size=n, givens=givens, box=box)


def test_letters_are_read_by_the_letter_model_only(classifier):
    assert set("0123456789ABCDEFG" + EMPTY) <= set(classifier.model_for(SIXTEEN).classes)
    for alphabet in ("01", "1234", "123456", "123456789", "0123456789"):  # 4x4..9x9 read as before letters
        assert classifier.model_for(alphabet) is classifier.model
    assert not set("ABCDEFG") & set(classifier.model.classes)


@pytest.mark.parametrize("font_name", ["DejaVu Sans Bold", "Liberation Serif Regular"])
def test_letters_are_read_in_a_16x16_alphabet(classifier, font_name):
    font = _font(font_name)
    cells, truth = [], []
    for side in (28, 48):
        for s in "ABCDEFG":
            cells.append(printed_cell(font, s, side=side, shift=(side // 25, -side // 30)))
            truth.append(s)
    got = [r[0][0] for r in classifier.read(cells, alphabet=SIXTEEN)]
    assert np.mean([g == t for g, t in zip(got, truth)]) >= 0.85, list(zip(truth, got))


def test_digits_keep_their_reading_when_letters_are_allowed(classifier):
    # 8 / B, 6 / G, 0 / D look alike: a digit print stays a digit in a 16x16 alphabet.
    font = _font("Liberation Sans Regular")
    cells = [printed_cell(font, d, side=40) for d in "123456789"]
    nine = [r[0][0] for r in classifier.read(cells, alphabet="123456789")]
    sixteen = [r[0][0] for r in classifier.read(cells, alphabet=SIXTEEN)]
    assert nine == list("123456789")
    assert sixteen == nine


def test_letters_never_answer_a_digit_alphabet(classifier):
    font = _font("DejaVu Sans Book")
    readings = classifier.read([printed_cell(font, s, side=40) for s in "BDG"], alphabet="123456789")
    assert all({label for label, _ in r} == set("123456789" + EMPTY) for r in readings)


def test_synth_letter_style_only_for_16x16_and_printed_as_letters():
    styles = {layout_sudoku._symbol_style(_puzzle(16, s)) for s in range(20)}
    assert styles == {"letters", "numbers"}
    assert "symbols" not in layout_sudoku.random_style(np.random.default_rng(1), _puzzle(9, 1))
    assert layout_sudoku.printed(12, {"symbols": "letters"}) == "C"
    assert layout_sudoku.printed(12, {"symbols": "numbers"}) == "12"
    assert layout_sudoku.printed(7, {"symbols": "letters"}) == "7"


def test_synth_letter_choice_draws_nothing_from_the_image_stream():
    # The style of a 16x16 print draws as many numbers from the image's generator as before the letter
    # choice existed (the same as a 9x9 print's style): every later draw, hence every seed's image, is unchanged.
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    layout_sudoku.random_style(a, _puzzle(16, 3))
    layout_sudoku.random_style(b, _puzzle(9, 3))
    assert a.random() == b.random()


def _glyphs(text: str, *, scale: float = 0.9, thick: int = 2) -> np.ndarray:
    import cv2

    crop = np.full((40, 40), 255, np.uint8)
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    cv2.putText(crop, text, ((40 - w) // 2, (40 + h) // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, 0, thick)
    return crop


def test_a_16x16_grid_reads_as_one_print_style():
    from scanner.ocr.fake import FakeEngine

    wide = cv2_resize_wide(_glyphs("A", scale=1.1))  # one wide glyph: splittable, its halves read "1" "3"
    pair = _glyphs("13")
    assert sudoku.split_glyphs(wide)[1] > 0.5 and sudoku.split_glyphs(pair)[1] > 0.5

    def engine(i, cell):  # whole cells read as told; the halves (read in pairs, left first) as "1" then "3"
        return whole[i] if cell.shape[1] == 40 else "13"[i % 2]

    whole = ["A"] * 6 + ["7"]
    style: dict = {}
    letters = sudoku.read_numbers(FakeEngine(engine), [wide] * 6 + [_glyphs("7")], alphabet=SIXTEEN, style=style)
    assert [r[0][0] for r in letters] == whole  # a letter print: A, not the 13 of its halves
    assert style["letters"] > 0.5  # the answers are drawn as letters
    whole = ["8"] * 6 + ["7"]
    style = {}
    numbers = sudoku.read_numbers(FakeEngine(engine), [pair] * 6 + [_glyphs("7")], alphabet=SIXTEEN, style=style)
    assert [r[0][0] for r in numbers] == ["D"] * 6 + ["7"]  # a number print: 13 (labelled D)
    assert style["letters"] < 0.5  # ... and its answers drawn as 10..16


def test_two_digit_labels_fit_their_cell():
    from scanner import overlay

    for text in ("7", "13", "16"):
        patch = overlay._digit_patch(text, 100)
        cols = np.nonzero((patch > 0).any(axis=0))[0]
        assert cols[0] > 0 and cols[-1] < 99 and cols[-1] - cols[0] <= 82


def cv2_resize_wide(crop: np.ndarray) -> np.ndarray:
    import cv2

    ink = np.nonzero((crop < 128).any(axis=0))[0]
    glyph = crop[:, ink[0]:ink[-1] + 1]
    wide = cv2.resize(glyph, (34, 40), interpolation=cv2.INTER_NEAREST)
    out = np.full((40, 40), 255, np.uint8)
    out[:, 3:37] = wide
    return out
