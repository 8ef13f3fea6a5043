"""A stand-in engine for tests: it answers what it was told, with probability 1."""
from __future__ import annotations

from typing import Callable, Sequence, Union

import numpy as np

from .engine import EMPTY, Reading, check_alphabet

Answer = Union[Sequence[str], Callable[[int, np.ndarray], str]]


class FakeEngine:
    """Reads cell ``i`` as ``labels[i]`` (or ``labels(i, cell)`` when given a function).

    The first candidate has probability 1.0; the other symbols of the alphabet
    and "." follow with probability 0.
    """

    name = "fake"

    def __init__(self, labels: Answer = ()):
        self.labels = labels

    def read(self, cells: list[np.ndarray], *, alphabet: str) -> list[Reading]:
        check_alphabet(alphabet)
        out = []
        for i, cell in enumerate(cells):
            label = self.labels(i, cell) if callable(self.labels) else (
                self.labels[i] if i < len(self.labels) else EMPTY)
            if label != EMPTY and label not in alphabet:
                raise ValueError(f"fake label {label!r} is not in the alphabet {alphabet!r}")
            rest = [s for s in list(alphabet) + [EMPTY] if s != label]
            out.append([(label, 1.0)] + [(s, 0.0) for s in rest])
        return out
