"""The in-process digit classifier: glyph normalisation, features and the shipped MLP.

The shipped model ``scanner/models/digits.npz`` is trained by ``python -m
scanner.ocr.train --photos ../shared/datasets/sudoku_photos/train`` on digits
rendered from the installed fonts with heavy augmentation, empty cells, and
the labelled cells of the dataset's training photos (its test photos come from
the same newspapers and phones). End to end, 4-fold by puzzle
(``python -m scanner.ocr.crossval``), this beat the font-only model: 154 vs 143
of 159 photos read exactly, 152 vs 137 solved right, 0 wrong answers for both
(pipeline of commit 7364c37).
Classes are single characters, "." for empty. Reading restricts the answer to the alphabet asked for.
An alphabet holding a letter A..G (a 16x16 Sudoku printing 10..16 as letters) is read with the letter model
``scanner/models/letters.npz`` (the same training plus 3000 synthetic letter grids; loaded when first
needed); every other alphabet with the digit model, so 4x4..9x9 grids read exactly as before it existed.
"""
from __future__ import annotations

import ctypes
import os
import threading
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np

from solver.errors import ExitCode, ScanSolveError

from .engine import EMPTY, Reading, check_alphabet, ranked_rows
from .features import feature_rows, grid_reference
from .glyph import normalise_all
from .mlp import MLP

MODEL_PATH = Path(__file__).resolve().parent.parent / "models" / "digits.npz"
LETTER_MODEL_PATH = MODEL_PATH.with_name("letters.npz")
#: Probability of "empty" for a cell holding no mark at all.
BLANK_EMPTY = 0.995
#: Normalised glyphs an engine keeps for cells read again (``ClassifierEngine.glyph``; ~6 KB each; a photo's
#: readers make a few hundred, and ``scanner.photo`` has them forgotten before each photo); all are dropped when
#: this many are kept.
GLYPHS_KEPT = 2048


@lru_cache(maxsize=4)
def load_model(path: Path = MODEL_PATH) -> MLP:
    try:
        return MLP.load(path)
    except (OSError, KeyError, ValueError) as err:
        raise ScanSolveError(f"digit model {path} cannot be loaded ({err}); reinstall scan-solve",
                             exit_code=ExitCode.SOFTWARE) from None


class ClassifierEngine:
    """Reads cells with the shipped MLP (or the model at ``model_path``); alphabets holding a symbol that model
    lacks (a letter) with the letter model (``letter_model_path``, default the shipped one, when it exists)."""

    name = "classifier"

    def __init__(self, model_path: Path | None = None, *, model: MLP | None = None,
                 letter_model_path: Path | None = None, letter_model: MLP | None = None):
        self.model = model if model is not None else load_model(Path(model_path) if model_path else MODEL_PATH)
        self._letter_model = letter_model
        self._letter_path = Path(letter_model_path) if letter_model_path else LETTER_MODEL_PATH
        self._glyphs: dict = {}  #: normalised glyphs of the cells read lately (``glyph``)

    def glyph(self, cell: np.ndarray):
        """``glyph.normalise`` of ``cell``, kept for the next read of the same pixels: a photo's readers
        read many cells more than once (a sample to choose the turns and the binary screen's sample, then the
        whole grid). Keyed by the cell's shape, type and bytes, so the glyph is the one
        ``normalise`` would give (the features still depend on the batch -- ``features.grid_reference`` --
        unless ``read`` is given the grid's ``reference``)."""
        return self.glyphs([cell])[0]

    def glyphs(self, cells: list[np.ndarray]) -> list:
        """The glyphs of ``cells`` (``glyph``'s, in order), the cells not kept normalised together
        (``glyph.normalise_all``: OpenCV kept to this thread for the run of small pictures)."""
        cells = [np.asarray(c) for c in cells]
        keys = [(c.shape, c.dtype.str, c.tobytes()) for c in cells]
        glyphs = {key: self._glyphs[key] for key in keys if key in self._glyphs}
        todo = {key: cell for key, cell in zip(keys, cells) if key not in glyphs}
        glyphs.update(zip(todo, normalise_all(list(todo.values()))))
        for key in todo:  # kept, as ``glyph`` keeps them
            if len(self._glyphs) >= GLYPHS_KEPT:
                self._glyphs.clear()
            self._glyphs[key] = glyphs[key]
        return [glyphs[key] for key in keys]

    def forget(self) -> None:
        """Drop the kept glyphs (``glyph``): a new photo's cells are not the last one's."""
        self._glyphs.clear()

    def model_for(self, alphabet: str) -> MLP:
        """The digit model, or the letter model when ``alphabet`` holds a symbol only the latter knows."""
        if all(s in self.model.classes for s in alphabet):
            return self.model
        if self._letter_model is None and self._letter_path.exists():
            self._letter_model = load_model(self._letter_path)
        return self._letter_model or self.model

    def grid_reference(self, cells: list[np.ndarray]) -> float:
        """The typical glyph contrast (``features.grid_reference``) of a grid's ``cells``: what ``read`` compares
        each glyph's contrast with when no ``reference`` is given. Given to ``read``, a cell reads the same (to float
        rounding) whichever of the grid's cells share its batch (a sample of them first, the rest only when needed)."""
        return grid_reference(self.glyphs(cells))

    def probabilities(self, cells: list[np.ndarray], *, model: MLP | None = None,
                      reference: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(N x C probabilities over ``model.classes`` (default the digit model), N blank flags) for one grid's
        cells; their contrast is compared with ``reference`` (``grid_reference``; default: these cells')."""
        model = model or self.model
        glyphs = self.glyphs(cells)
        blank = np.array([g.blank for g in glyphs], bool)
        probs = np.zeros((len(cells), len(model.classes)), np.float64)
        if len(cells):
            rows = feature_rows(glyphs, reference=reference)
            with blas_alone():  # a few hundred rows at most
                probs[:] = model.probabilities(rows)
        if blank.any():
            e = model.classes.index(EMPTY)
            probs[blank] = (1.0 - BLANK_EMPTY) / (len(model.classes) - 1)
            probs[np.ix_(blank, [e])] = BLANK_EMPTY
        return probs, blank

    def read(self, cells: list[np.ndarray], *, alphabet: str, reference: float | None = None) -> list[Reading]:
        """The ``Engine`` reading; ``reference``: the grid's typical glyph contrast (``grid_reference`` of all
        its cells) when ``cells`` are only some of them (default: these cells' own)."""
        check_alphabet(alphabet)
        model = self.model_for(alphabet)
        probs, _ = self.probabilities(cells, model=model, reference=reference)
        return ranked_rows(probs, model.classes, alphabet)


@lru_cache(maxsize=1)
def _blas_local_threads():
    """``openblas_set_num_threads(n)`` returning the count before (OpenBLAS >= 0.3.27 names it
    ``openblas_set_num_threads_local``) of the OpenBLAS numpy has loaded, or None (another BLAS, an older
    OpenBLAS, not Linux). Found among the libraries already mapped into the process (``/proc/self/maps``;
    numpy's own first: OpenCV may bring another) and opened without loading anything (``RTLD_NOLOAD``)."""
    try:
        numpy_dir = str(Path(np.__file__).resolve().parent.parent)
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and "/" in line}
        for path in sorted(paths, key=lambda p: (not p.startswith(numpy_dir + "/numpy"), p)):
            try:
                local = ctypes.CDLL(path, mode=os.RTLD_NOLOAD).openblas_set_num_threads_local
            except (OSError, AttributeError):
                continue
            local.argtypes, local.restype = [ctypes.c_int], ctypes.c_int
            return local
    except (OSError, AttributeError):
        pass
    return None


_blas_lock = threading.Lock()


def _new_blas_lock() -> None:
    """A forked child's own lock: a thread of the parent inside ``blas_alone`` may have held it when the
    process forked, and that thread does not exist in the child. (Its count stays: OpenBLAS then stays on one
    thread in the child, which costs nothing here.)"""
    global _blas_lock
    _blas_lock = threading.Lock()


os.register_at_fork(after_in_child=_new_blas_lock)
_blas_users = [0, 0]  #: blocks inside ``blas_alone`` now, and OpenBLAS's thread count before the first


@contextmanager
def blas_alone():
    """OpenBLAS kept to one thread inside the block, as before after it (the count is the library's own:
    other threads' products inside the block run alone too); a no-op without OpenBLAS.

    The classifier multiplies a grid's few hundred feature rows at most: OpenBLAS shares even 12 rows out
    between its threads, and on a busy machine the caller then waits for a helper thread the system has not
    scheduled (12 rows: ~0.1 ms alone, 6-24 ms so, measured while other processes kept both cores busy).
    The products equal the shared ones to float32 rounding (some OpenBLAS kernels sum a row in another order
    when the rows are shared out, or by the row's place in the batch: seen with OpenBLAS 0.3.31 on AVX2)."""
    local = _blas_local_threads()
    if local is None:
        yield
        return
    with _blas_lock:
        if _blas_users[0] == 0:
            _blas_users[1] = local(1)
        _blas_users[0] += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users[0] -= 1
            if _blas_users[0] == 0:
                local(_blas_users[1])
