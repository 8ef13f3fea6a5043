"""Precomputed tables of every valid Takuzu line, one table per even size.

A *line* (a row or a column) is an int whose bit ``p`` is the value of the
cell at position ``p``. A line is *valid* when it holds ``n/2`` ones and
``n/2`` zeros and no three equal values side by side. For ``n = 20`` there
are 8196 valid lines, so a set of lines fits in one Python int
used as a bitset over line indices (bit ``k`` = ``LineTable.lines[k]``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np


@dataclass(frozen=True)
class LineTable:
    """All valid lines of size ``n`` and, per position, which of them hold a 0 or a 1 there.

    ``has[p][v]`` is the bitset of line indices whose cell ``p`` is ``v``;
    ``index[line]`` is the index of a line; ``everything`` is the bitset of all lines.
    """

    n: int
    lines: tuple[int, ...]
    index: dict
    has: tuple[tuple[int, int], ...]
    everything: int

    def candidates(self, mask: int, value: int) -> int:
        """The bitset of valid lines that agree with the known cells (``mask``) and their ``value``."""
        cand = self.everything
        has = self.has
        p = 0
        while mask:
            if mask & 1:
                cand &= has[p][(value >> p) & 1]
            mask >>= 1
            p += 1
        return cand


def line_masks(givens) -> tuple[list[int], list[int], list[int], list[int]]:
    """The known cells of ``givens`` (``n`` rows of 0/1/None) as line bitmasks: per row the mask of known
    cells and the mask of ones, then the same per column."""
    n = len(givens)
    rm, rv, cm, cv = [0] * n, [0] * n, [0] * n, [0] * n
    for r, row in enumerate(givens):
        for c, v in enumerate(row):
            if v is not None:
                rm[r] |= 1 << c
                cm[c] |= 1 << r
                if v:
                    rv[r] |= 1 << c
                    cv[c] |= 1 << r
    return rm, rv, cm, cv


def _valid_lines(n: int) -> list[int]:
    """Every valid line of size ``n``, ascending: grown a position at a time, all partial lines at once (each
    with its count of ones, its last value and the run that value ends), keeping those that can still hold
    ``n/2`` of each value and end in no run of three. In numpy: a 20x20's 8196 lines in ~2 ms, where one
    Python call per partial line took ~40 ms, on the first 20x20 of a process (a cold start)."""
    half = n // 2
    line = np.zeros(1, np.int64)
    ones = np.zeros(1, np.int64)
    last = np.full(1, -1, np.int64)
    run = np.zeros(1, np.int64)
    for pos in range(n):
        grown = []
        for v in (0, 1):
            count = ones + v
            new_run = np.where(last == v, run + 1, 1)
            ok = (count <= half) & (pos + 1 - count <= half) & (new_run <= 2)
            grown.append((line[ok] | (v << pos), count[ok], np.full(int(ok.sum()), v, np.int64), new_run[ok]))
        line, ones, last, run = (np.concatenate(parts) for parts in zip(*grown))
    return np.sort(line).tolist()


def _bitset(bits: np.ndarray) -> int:
    """``bits`` (k,) of 0 / 1 as one int whose bit ``i`` is ``bits[i]``."""
    return int.from_bytes(np.packbits(bits.astype(np.uint8), bitorder="little").tobytes(), "little")


@lru_cache(maxsize=None)
def table(n: int) -> LineTable:
    """The ``LineTable`` of size ``n`` (even, 4..20), built once."""
    if n % 2 or n < 2:
        raise ValueError(f"Takuzu lines have an even size, not {n}")
    lines = _valid_lines(n)
    values = np.array(lines, np.int64)
    everything = (1 << len(lines)) - 1
    has = []
    for p in range(n):
        ones = _bitset((values >> p) & 1)  # bit k set when lines[k] has a 1 at position p
        has.append((everything & ~ones, ones))
    return LineTable(
        n=n,
        lines=tuple(lines),
        index={line: k for k, line in enumerate(lines)},
        has=tuple(has),
        everything=everything,
    )
