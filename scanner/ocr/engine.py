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
    return ranked_rows(np.array([[float(v) for v in scores.values()]]), list(scores), alphabet)[0]


def ranked_rows(probs: np.ndarray, classes, alphabet: str) -> list[Reading]:
    """``ranked`` for each row of ``probs`` (N x C, scores over ``classes``), the whole batch at once (a class
    listed twice counts its last column): each row's scores over the alphabet's symbols and "." (a NaN or a
    negative score counts 0) divided by their sum, best first, ties in the alphabet's order (a stable sort);
    a row where nothing allowed scores is read as empty."""
    labels = list(dict.fromkeys(alphabet)) + [EMPTY]
    where = {c: i for i, c in enumerate(classes)}
    n = len(probs)
    scores = np.zeros((n, len(labels)), np.float64)
    for j, label in enumerate(labels):
        if label in where:
            scores[:, j] = probs[:, where[label]]
    vals = np.where(scores > 0.0, scores, 0.0)
    totals = vals.sum(axis=1)
    none = totals <= 0
    vals[none] = 0.0
    vals[none, -1] = 1.0
    vals[~none] /= totals[~none, None]
    order = np.argsort(-vals, axis=1, kind="stable")
    values = np.take_along_axis(vals, order, axis=1).tolist()
    return [list(zip([labels[i] for i in row_order], row_values))
            for row_order, row_values in zip(order.tolist(), values)]


def check_alphabet(alphabet: str) -> None:
    if not alphabet or EMPTY in alphabet or len(set(alphabet)) != len(alphabet):
        raise ValueError(f"alphabet must be distinct symbols without {EMPTY!r}: {alphabet!r}")
