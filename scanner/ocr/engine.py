"""What every digit-reading engine provides, and turning class scores into ranked candidates."""
from __future__ import annotations

from typing import Protocol

import numpy as np

#: The label meaning "empty / not a symbol of the alphabet".
EMPTY = "."

#: A cell's reading: (label, probability) pairs, best first; labels are the alphabet's symbols and ".".
Reading = list[tuple[str, float]]


class Engine(Protocol):
    name: str

    def read(self, cells: list[np.ndarray], *, alphabet: str) -> list[Reading]:
        """One reading per cell image (grayscale uint8 H x W, dark ink on light paper), in order."""


def ranked(scores: dict[str, float], alphabet: str) -> Reading:
    """The alphabet's symbols and "." with ``scores`` renormalised over them, best first.

    Symbols missing from ``scores`` get probability 0; when every allowed score
    is 0 the cell is read as empty.
    """
    labels = list(dict.fromkeys(alphabet)) + [EMPTY]
    vals = np.array([max(0.0, float(scores.get(s, 0.0))) for s in labels])
    total = vals.sum()
    if total <= 0:
        vals = np.array([0.0] * (len(labels) - 1) + [1.0])
    else:
        vals = vals / total
    order = sorted(range(len(labels)), key=lambda i: (-vals[i], i))
    return [(labels[i], float(vals[i])) for i in order]


def check_alphabet(alphabet: str) -> None:
    if not alphabet or EMPTY in alphabet or len(set(alphabet)) != len(alphabet):
        raise ValueError(f"alphabet must be distinct symbols without {EMPTY!r}: {alphabet!r}")
