"""Precomputed tables of every valid Takuzu line, one table per even size.

A *line* (a row or a column) is an int whose bit ``p`` is the value of the
cell at position ``p``. A line is *valid* when it holds ``n/2`` ones and
``n/2`` zeros and no three equal values side by side. For ``n = 20`` there
are a few thousand valid lines, so a set of lines fits in one Python int
used as a bitset over line indices (bit ``k`` = ``LineTable.lines[k]``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


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
    half = n // 2
    out: list[int] = []

    def extend(pos: int, line: int, ones: int, run_value: int, run: int) -> None:
        if pos == n:
            out.append(line)
            return
        for v in (0, 1):
            count = ones + v
            if count > half or (pos + 1 - count) > half:
                continue
            new_run = run + 1 if v == run_value else 1
            if new_run > 2:
                continue
            extend(pos + 1, line | (v << pos), count, v, new_run)

    extend(0, 0, 0, -1, 0)
    return sorted(out)


@lru_cache(maxsize=None)
def table(n: int) -> LineTable:
    """The ``LineTable`` of size ``n`` (even, 4..20), built once."""
    if n % 2 or n < 2:
        raise ValueError(f"Takuzu lines have an even size, not {n}")
    lines = _valid_lines(n)
    has = []
    for p in range(n):
        # Bit k of the int is set when lines[k] has a 1 at position p.
        ones = int("".join("1" if (line >> p) & 1 else "0" for line in reversed(lines)), 2)
        everything = (1 << len(lines)) - 1
        has.append((everything & ~ones, ones))
    return LineTable(
        n=n,
        lines=tuple(lines),
        index={line: k for k, line in enumerate(lines)},
        has=tuple(has),
        everything=(1 << len(lines)) - 1,
    )
