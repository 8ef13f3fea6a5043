"""The words of text lines read by one Tesseract kept in the process (tesserocr), the tesseract program as the
fallback (scanner.ocr.tesseract.read_words, words_engine, tessdata_dir): where the model is found, the same
words either way, failures as errors the caller turns into 'no words', one call at a time across threads."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from scanner.ocr import tesseract

TEXT = ("Fill every empty square", "with a black or a white circle")


def _lines(texts=TEXT) -> np.ndarray:
    """Dark text lines on white paper, ~30 px tall letters: (h, w) uint8."""
    picture = np.full((40 + 60 * len(texts), 720), 255, np.uint8)
    for k, text in enumerate(texts):
        cv2.putText(picture, text, (20, 60 + 60 * k), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 0, 2, cv2.LINE_AA)
    return picture


def _in_process():
    try:
        import tesserocr  # noqa: F401
    except ImportError:  # missing, or its library fails to load
        pytest.skip("tesserocr is not installed")
    if tesseract.words_engine() != "tesserocr":
        pytest.skip("tesserocr is installed but finds no English model")


def _words(picture, **kwargs) -> list[str]:
    return [w[0].lower() for w in tesseract.read_words(picture, psm=11, **kwargs) if w[1] >= 60]


def test_the_engine_in_the_process_reads_the_words_with_their_boxes():
    _in_process()
    picture = _lines()
    words = tesseract.read_words(picture, psm=11)
    assert {"fill", "every", "empty", "square", "black", "white", "circle"} <= {w[0].lower() for w in words}
    for text, conf, x, y, w, h in words:
        assert 0 <= conf <= 100 and 0 <= x and x + w <= picture.shape[1] and 0 <= y and y + h <= picture.shape[0]
    assert tesseract.read_words(picture, psm=11) == words  # the kept engine reads a picture again alike


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="the tesseract program is not installed")
def test_the_program_reads_the_same_words_when_the_process_has_no_engine(monkeypatch):
    picture = _lines()
    in_process = set(_words(picture)) if tesseract.words_engine() == "tesserocr" else None
    monkeypatch.setitem(tesseract._engines, "eng", None)
    program = set(_words(picture))
    words = {"fill", "every", "empty", "square", "black", "white", "circle"}
    assert words <= program
    assert in_process is None or words <= in_process  # both engines (their versions may differ): the words


def test_without_tesserocr_the_program_is_the_engine(monkeypatch):
    monkeypatch.setattr(tesseract, "_engines", {})
    monkeypatch.setitem(sys.modules, "tesserocr", None)  # import fails
    monkeypatch.setattr(tesseract, "tool", lambda: SimpleNamespace())
    assert tesseract.words_engine() == "program"
    assert tesseract._engines == {"eng": None}  # not tried again

    def missing():
        raise tesseract.ScanSolveError("no tesseract program")

    monkeypatch.setattr(tesseract, "tool", missing)
    assert tesseract.words_engine() is None


def test_an_engine_failing_to_start_counts_as_missing(monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("Failed to init API, possibly an invalid tessdata path")

    monkeypatch.setattr(tesseract, "_engines", {})
    monkeypatch.setitem(sys.modules, "tesserocr", SimpleNamespace(PyTessBaseAPI=broken))
    monkeypatch.setattr(tesseract, "tessdata_dirs", lambda lang="eng": ["/nowhere", "/elsewhere"])
    assert tesseract._in_process("eng") is None


def test_a_broken_model_in_one_folder_leaves_the_next_folder_to_try(monkeypatch):
    def start(path, lang):
        if path.startswith("/broken"):
            raise RuntimeError("Failed to init API, possibly an invalid tessdata path")
        return ("engine", path)

    monkeypatch.setattr(tesseract, "_engines", {})
    monkeypatch.setitem(sys.modules, "tesserocr", SimpleNamespace(PyTessBaseAPI=start))
    monkeypatch.setattr(tesseract, "tessdata_dirs", lambda lang="eng": ["/broken", "/good"])
    assert tesseract._in_process("eng") == ("engine", "/good/")


class _FakeEngine:
    """Records the calls; Recognize answers ``ok``; the table has one word."""

    def __init__(self, ok=True):
        self.ok, self.calls, self.inside = ok, [], 0

    def SetPageSegMode(self, psm):  # noqa: N802 -- tesserocr's names
        self.calls.append(("psm", psm))

    def SetImageBytes(self, data, width, height, bpp, bpl):  # noqa: N802
        self.calls.append(("image", len(data), width, height, bpp, bpl))

    def Recognize(self, timeout=0):  # noqa: N802
        self.inside += 1
        assert self.inside == 1, "two threads inside the engine at once"
        threading.Event().wait(0.01)
        self.inside -= 1
        self.calls.append(("recognize", timeout))
        return self.ok

    def GetTSVText(self, page):  # noqa: N802
        return "1\t1\t0\t0\t0\t0\t0\t0\t80\t40\t-1\t\n5\t1\t1\t1\t1\t1\t10\t20\t30\t12\t91.5\tEvery\n5\t1\t1\t1\t1\t2\tx\t1\t1\t1\t9\tbad"

    def Clear(self):  # noqa: N802
        self.calls.append(("clear",))


def test_a_call_sets_the_mode_and_the_gray_picture_and_is_bounded_in_time(monkeypatch):
    fake = _FakeEngine()
    monkeypatch.setitem(tesseract._engines, "eng", fake)
    picture = np.full((40, 80), 255, np.uint8)[:, ::1]
    assert tesseract.read_words(picture, psm=11) == [("Every", 91.5, 10, 20, 30, 12)]
    assert fake.calls == [("psm", 11), ("image", 40 * 80, 80, 40, 1, 80),
                          ("recognize", int(tesseract.WORDS_TIMEOUT * 1000)), ("clear",)]


def test_an_engine_failing_or_timing_out_on_a_picture_is_an_error_and_leaves_it_clear(monkeypatch):
    fake = _FakeEngine(ok=False)
    monkeypatch.setitem(tesseract._engines, "eng", fake)
    with pytest.raises(RuntimeError):
        tesseract.read_words(np.full((40, 80), 255, np.uint8))
    assert fake.calls[-1] == ("clear",)
    with pytest.raises(ValueError):
        tesseract.read_words(np.full((40, 80, 3), 255, np.uint8))


def test_threads_take_turns_with_the_one_engine(monkeypatch):
    fake = _FakeEngine()
    monkeypatch.setitem(tesseract._engines, "eng", fake)
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(tesseract.read_words(np.zeros((20, 20), np.uint8))))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [[("Every", 91.5, 10, 20, 30, 12)]] * 4


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_makes_its_own_engine_and_lock(monkeypatch):
    kept = object()
    monkeypatch.setattr(tesseract, "_engines", {"eng": kept})
    monkeypatch.setattr(tesseract, "_forsaken", [])
    monkeypatch.setattr(tesseract, "_lock", tesseract._lock)
    before = tesseract._lock
    pid = os.fork()  # the hook registered with os.register_at_fork runs in the child
    if pid == 0:
        fresh = tesseract._engines == {} and tesseract._forsaken == [kept] and tesseract._lock is not before
        os._exit(0 if fresh else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert tesseract._engines == {"eng": kept} and tesseract._lock is before  # the parent keeps its own


def test_the_model_folder_is_found_from_the_environment_the_program_or_the_known_places(monkeypatch, tmp_path):
    model = tmp_path / "share" / "tessdata"
    model.mkdir(parents=True)
    (model / "eng.traineddata").write_bytes(b"model")
    monkeypatch.setattr(tesseract, "TESSDATA_DIRS", ())
    for prefix in (model, model.parent):  # the folder itself, or its parent (older Tesseracts)
        monkeypatch.setenv("TESSDATA_PREFIX", str(prefix))
        assert tesseract.tessdata_dir("eng") == str(model)
    monkeypatch.delenv("TESSDATA_PREFIX")
    listing = f'List of available languages in "{model}/" (1):\neng\n'
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: SimpleNamespace(stdout=listing.encode(), stderr=b""))
    assert tesseract.tessdata_dir("eng").rstrip("/") == str(model)
    assert tesseract.tessdata_dir("fra") is None  # named, but holding no French model

    def gone(*a, **k):
        raise FileNotFoundError("tesseract")

    monkeypatch.setattr(subprocess, "run", gone)
    assert tesseract.tessdata_dir("eng") is None
    monkeypatch.setattr(tesseract, "TESSDATA_DIRS", (str(model),))
    assert tesseract.tessdata_dir("eng") == str(model)
