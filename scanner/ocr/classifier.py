"""The in-process digit classifier: glyph normalisation, features and the shipped MLP.

The shipped model ``scanner/models/digits.npz`` is trained by ``python -m
scanner.ocr.train --photos ../shared/datasets/sudoku_photos/train`` on digits
rendered from the installed fonts with heavy augmentation, empty cells, and
the labelled cells of the dataset's training photos (its test photos come from
the same newspapers and phones). End to end, 4-fold by puzzle
(``python -m scanner.ocr.crossval``), this beat the font-only model: 154 vs 143
of 159 photos read exactly, 152 vs 137 solved right, 0 wrong answers for both
(pipeline of commit 7364c37).
Classes are single characters: 0..9, A..G (the letters of a 16x16 Sudoku's 10..16) and "." for empty.
Reading restricts the answer to the alphabet asked for: a letter is a candidate only when the alphabet holds
it (a 16x16 grid's), otherwise its mass is left out and the rest renormalised.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from solver.errors import ExitCode, ScanSolveError

from .engine import EMPTY, Reading, check_alphabet, ranked
from .features import feature_rows
from .glyph import normalise
from .mlp import MLP

MODEL_PATH = Path(__file__).resolve().parent.parent / "models" / "digits.npz"
#: Probability of "empty" for a cell holding no mark at all.
BLANK_EMPTY = 0.995


@lru_cache(maxsize=4)
def load_model(path: Path = MODEL_PATH) -> MLP:
    try:
        return MLP.load(path)
    except (OSError, KeyError, ValueError) as err:
        raise ScanSolveError(f"digit model {path} cannot be loaded ({err}); reinstall scan-solve",
                             exit_code=ExitCode.SOFTWARE) from None


class ClassifierEngine:
    """Reads cells with the shipped MLP (or the model at ``model_path``)."""

    name = "classifier"

    def __init__(self, model_path: Path | None = None, *, model: MLP | None = None):
        self.model = model if model is not None else load_model(Path(model_path) if model_path else MODEL_PATH)

    def probabilities(self, cells: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(N x C probabilities over ``self.model.classes``, N blank flags) for one grid's cells."""
        glyphs = [normalise(np.asarray(c)) for c in cells]
        blank = np.array([g.blank for g in glyphs], bool)
        probs = np.zeros((len(cells), len(self.model.classes)), np.float64)
        if len(cells):
            probs[:] = self.model.probabilities(feature_rows(glyphs))
        if blank.any():
            e = self.model.classes.index(EMPTY)
            probs[blank] = (1.0 - BLANK_EMPTY) / (len(self.model.classes) - 1)
            probs[np.ix_(blank, [e])] = BLANK_EMPTY
        return probs, blank

    def read(self, cells: list[np.ndarray], *, alphabet: str) -> list[Reading]:
        check_alphabet(alphabet)
        probs, _ = self.probabilities(cells)
        classes = self.model.classes
        return [ranked(dict(zip(classes, row)), alphabet) for row in probs]
