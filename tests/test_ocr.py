"""The digit-reading engines: interface, classifier accuracy on rendered digits, alphabet restriction."""
from __future__ import annotations

import shutil
import time

import cv2
import numpy as np
import pytest

from scanner.ocr import EMPTY, get_engine, ranked
from scanner.ocr.classifier import MODEL_PATH
from scanner.ocr.fonts import installed_fonts, is_held_out, render
from scanner.ocr.mlp import MLP


def _font(name: str):
    for f in installed_fonts():
        if f.name == name:
            return f
    pytest.skip(f"font {name} is not installed")


def printed_cell(font, symbol: str, *, side: int, height: float = 0.6, shift=(0, 0), ink: int = 40,
                 paper: int = 215, blur: float = 0.6, lines: bool = True) -> np.ndarray:
    """A grid cell as the pipeline cuts it: ``symbol`` in ``font`` centred, line remnants at two edges."""
    cell = np.full((side, side), float(paper), np.float32)
    if symbol != EMPTY:
        mask = render(font, symbol).astype(np.float32) / 255.0
        s = height * side / mask.shape[0]
        w = max(1, int(round(mask.shape[1] * s)))
        h = max(1, int(round(mask.shape[0] * s)))
        small = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)
        y0 = (side - h) // 2 + shift[0]
        x0 = (side - w) // 2 + shift[1]
        cell[y0:y0 + h, x0:x0 + w] -= (paper - ink) * small
    if lines:
        t = max(1, side // 25)
        cell[:t, :] = ink + 30
        cell[:, -t:] = ink + 30
    cell = cv2.GaussianBlur(cell, (0, 0), blur)
    return np.clip(cell, 0, 255).astype(np.uint8)


def _accuracy(engine, font, *, sides=(24, 40, 72)) -> float:
    cells, truth = [], []
    for side in sides:
        for d in "123456789":
            cells.append(printed_cell(font, d, side=side, shift=(side // 20, -side // 30)))
            truth.append(d)
        cells.append(printed_cell(font, EMPTY, side=side))
        truth.append(EMPTY)
    got = [r[0][0] for r in engine.read(cells, alphabet="123456789")]
    return float(np.mean([g == t for g, t in zip(got, truth)]))


@pytest.fixture(scope="module")
def classifier():
    return get_engine("classifier")


def test_auto_is_a_real_engine():
    assert get_engine("auto").name in ("classifier", "tesseract")


def test_unknown_engine_is_refused():
    with pytest.raises(ValueError):
        get_engine("nonsense")


def test_classifier_reads_a_training_font(classifier):
    font = _font("DejaVu Sans Bold")
    assert not is_held_out(font.name)
    assert _accuracy(classifier, font) >= 0.95


def test_classifier_reads_a_held_out_font(classifier):
    font = _font("URW Gothic Demi")
    assert is_held_out(font.name)
    assert _accuracy(classifier, font) >= 0.9


def test_batch_gives_one_ranked_reading_per_cell(classifier):
    font = _font("Liberation Sans Regular")
    cells = [printed_cell(font, d, side=s) for d, s in (("5", 30), (EMPTY, 30), ("8", 64))]
    readings = classifier.read(cells, alphabet="123456789")
    assert len(readings) == 3
    for r in readings:
        labels = [label for label, _ in r]
        assert sorted(labels) == sorted("123456789" + EMPTY)
        probs = [p for _, p in r]
        assert probs == sorted(probs, reverse=True)
        assert sum(probs) <= 1.0 + 1e-6
    assert [r[0][0] for r in readings] == ["5", EMPTY, "8"]


def test_alphabet_restricts_the_answer(classifier):
    font = _font("Liberation Sans Regular")
    cells = [printed_cell(font, d, side=40) for d in "1234"]
    readings = classifier.read(cells, alphabet="1234")
    assert [r[0][0] for r in readings] == list("1234")
    assert all({label for label, _ in r} == set("1234" + EMPTY) for r in readings)
    # A 9 cannot be answered in a 4x4 grid: its reading is one of 1-4 or empty.
    nine = classifier.read([printed_cell(font, "9", side=40)], alphabet="1234")[0]
    assert nine[0][0] in "1234" + EMPTY


def test_zero_one_alphabet(classifier):
    font = _font("DejaVu Sans Book")
    cells = [printed_cell(font, d, side=40) for d in "0110"]
    assert [r[0][0] for r in classifier.read(cells, alphabet="01")] == list("0110")


def test_blank_and_tiny_cells_are_empty(classifier):
    cells = [np.full((30, 30), 200, np.uint8), np.full((3, 3), 200, np.uint8)]
    assert [r[0][0] for r in classifier.read(cells, alphabet="123456789")] == [EMPTY, EMPTY]
    assert classifier.read([], alphabet="123456789") == []


def test_fake_engine_answers_what_it_was_told():
    engine = get_engine("fake", labels=["3", EMPTY, "9"])
    cells = [np.zeros((10, 10), np.uint8)] * 3
    readings = engine.read(cells, alphabet="123456789")
    assert engine.name == "fake"
    assert [r[0] for r in readings] == [("3", 1.0), (EMPTY, 1.0), ("9", 1.0)]
    assert all(len(r) == 10 and sum(p for _, p in r) == 1.0 for r in readings)
    by_index = get_engine("fake", labels=lambda i, cell: "1" if i % 2 else EMPTY)
    assert [r[0][0] for r in by_index.read(cells, alphabet="12")] == [EMPTY, "1", EMPTY]


def test_ranked_renormalises_over_the_alphabet():
    r = ranked({"1": 0.2, "7": 0.6, "2": 0.1, EMPTY: 0.1}, "1234")
    assert r[0] == ("1", pytest.approx(0.5))
    assert dict(r)["2"] == pytest.approx(0.25) and dict(r)[EMPTY] == pytest.approx(0.25)
    assert ranked({}, "12")[0] == (EMPTY, 1.0)


def test_model_file_is_small_and_loads_fast():
    path = MODEL_PATH
    assert path.stat().st_size < 2_000_000
    MLP.load(path)  # warm the file cache
    t = time.perf_counter()
    model = MLP.load(path)
    assert time.perf_counter() - t < 0.05
    assert EMPTY in model.classes and set("0123456789") <= set(model.classes)



@pytest.mark.tesseract
@pytest.mark.skipif(shutil.which("tesseract") is None, reason="the tesseract binary is not installed")
def test_tesseract_reads_a_grid_in_one_call():
    font = _font("DejaVu Sans Bold")
    engine = get_engine("tesseract")
    calls = []
    real = engine.tess.image_to_pdf_or_hocr
    engine.tess.image_to_pdf_or_hocr = lambda *a, **k: calls.append(1) or real(*a, **k)
    try:
        cells = [printed_cell(font, d, side=48, lines=False) for d in "1234.5678.9"]
        got = [r[0][0] for r in engine.read(cells, alphabet="123456789")]
    finally:
        engine.tess.image_to_pdf_or_hocr = real
    assert len(calls) == 1
    assert np.mean([g == t for g, t in zip(got, "1234.5678.9")]) >= 0.8


def test_missing_tesseract_is_a_clear_usage_error(monkeypatch):
    pytesseract = pytest.importorskip("pytesseract")
    from solver.errors import ExitCode, ScanSolveError

    monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", "/nonexistent/tesseract")
    with pytest.raises(ScanSolveError) as err:
        get_engine("tesseract")
    assert err.value.exit_code == ExitCode.USAGE and "tesseract" in str(err.value)


def test_the_tesseract_engine_failing_on_a_grid_is_one_clear_unreadable_error():
    """``--engine tesseract``: the program failing or timing out on a grid's batch is a ScanSolveError with the
    unreadable exit code (one line for the user), not a traceback."""
    from types import SimpleNamespace

    from solver.errors import ExitCode, ScanSolveError
    from scanner.ocr import tesseract

    def broken(*args, **kwargs):
        assert kwargs.get("timeout") == tesseract.ENGINE_TIMEOUT
        raise RuntimeError("Tesseract process timeout")

    engine = tesseract.TesseractEngine.__new__(tesseract.TesseractEngine)
    engine.tess, engine.lang, engine.per_cell = SimpleNamespace(image_to_pdf_or_hocr=broken), "eng", False
    with pytest.raises(ScanSolveError) as caught:
        engine._chars(np.full((40, 40), 255, np.uint8), 6, "0123456789")
    assert caught.value.exit_code == ExitCode.UNREADABLE and "timeout" in str(caught.value)
