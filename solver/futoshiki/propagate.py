"""Constraint propagation on candidate bitmasks (no guessing).

Cells are numbered ``i = row * n + col``; a cell's *candidates* are a bitmask
with bit ``v - 1`` set when value ``v`` is still possible. Propagation repeats,
until nothing changes:

- naked singles: a cell with one candidate removes it from its peers;
- inequality bounds: for every sign ``s < g``, ``s`` keeps only values below the
  largest candidate of ``g`` and ``g`` only values above the smallest of ``s``.
  Repeated to a fixed point this carries bounds along chains of signs (a cell
  with a chain of ``k`` greater cells above it ends up ``<= n - k``);
- hidden singles: a value with one possible cell in a row or column goes there.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..puzzle import Puzzle


@dataclass(frozen=True)
class Board:
    """The fixed geometry of one puzzle, as tuples indexed by cell number.

    ``above[i]`` are the cells a sign says are greater than ``i``;
    ``below[i]`` those it says are smaller.
    """

    n: int
    full: int  #: the bitmask of every value 1..n
    peers: tuple[tuple[int, ...], ...]
    units: tuple[tuple[int, ...], ...]  #: rows then columns
    above: tuple[tuple[int, ...], ...]
    below: tuple[tuple[int, ...], ...]
    unit_bits: tuple[int, ...]  #: per cell, the bitmask of its two units (bit u for ``units[u]``)


@lru_cache(maxsize=None)
def _geometry(n: int) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[int, ...]]:
    rows = tuple(tuple(r * n + c for c in range(n)) for r in range(n))
    cols = tuple(tuple(r * n + c for r in range(n)) for c in range(n))
    peers = tuple(
        tuple(j for j in rows[i // n] + cols[i % n] if j != i) for i in range(n * n)
    )
    unit_bits = tuple(1 << (i // n) | 1 << (n + i % n) for i in range(n * n))
    return peers, rows + cols, unit_bits


def board_of(puzzle: Puzzle) -> Board:
    n = puzzle.size
    peers, units, unit_bits = _geometry(n)
    above: list[list[int]] = [[] for _ in range(n * n)]
    below: list[list[int]] = [[] for _ in range(n * n)]
    for rel in puzzle.relations:
        (rs, cs), (rg, cg) = rel.smaller_greater()
        s, g = rs * n + cs, rg * n + cg
        above[s].append(g)
        below[g].append(s)
    return Board(n, (1 << n) - 1, peers, units,
                 tuple(map(tuple, above)), tuple(map(tuple, below)), unit_bits)


def initial_candidates(puzzle: Puzzle, board: Board) -> list[int]:
    """One bitmask per cell: the given's bit, or every value."""
    return [board.full if v is None else 1 << (v - 1) for row in puzzle.givens for v in row]


def propagate(cand: list[int], todo: list[int], board: Board) -> bool:
    """Propagate in place from the changed cells ``todo``; False on a contradiction."""
    peers, above, below, units, full = board.peers, board.above, board.below, board.units, board.full
    unit_bits = board.unit_bits
    while True:
        dirty = 0  # the units where a candidate changed: only they can hold a new hidden single
        while todo:
            i = todo.pop()
            dirty |= unit_bits[i]
            c = cand[i]
            if not c & (c - 1):
                for p in peers[i]:
                    pc = cand[p]
                    if pc & c:
                        pc ^= c
                        if not pc:
                            return False
                        cand[p] = pc
                        todo.append(p)
            if above[i]:
                keep = ~(((c & -c) << 1) - 1)  # the values above i's smallest candidate
                for j in above[i]:
                    cj = cand[j]
                    nj = cj & keep
                    if nj != cj:
                        if not nj:
                            return False
                        cand[j] = nj
                        todo.append(j)
            if below[i]:
                keep = (1 << (c.bit_length() - 1)) - 1  # the values below i's largest candidate
                for j in below[i]:
                    cj = cand[j]
                    nj = cj & keep
                    if nj != cj:
                        if not nj:
                            return False
                        cand[j] = nj
                        todo.append(j)
        for u, unit in enumerate(units):
            if not dirty >> u & 1:
                continue
            once = twice = 0
            for i in unit:
                c = cand[i]
                twice |= once & c
                once |= c
            if once != full:
                return False  # some value has no place left in this unit
            only = once & ~twice
            if only:
                for i in unit:
                    c = cand[i]
                    hit = c & only
                    if hit:
                        if hit & (hit - 1):
                            return False  # one cell is the only place for two values
                        if hit != c:
                            cand[i] = hit
                            todo.append(i)
        if not todo:
            return True
