"""Sudoku geometry: box shapes, units and peers per size (cached).

Cells are ``(row, col)`` 0-based; inside this package a cell is also a flat
index ``i = row * n + col``. A *unit* is a row, a column or a box (n cells
that must hold 1..n once each); a cell's *peers* share a unit with it.
"""
from __future__ import annotations

from functools import lru_cache

#: Box shape ``(rows, cols)`` for each supported size.
BOX_SHAPES: dict[int, tuple[int, int]] = {4: (2, 2), 6: (2, 3), 9: (3, 3), 16: (4, 4)}
SIZES: tuple[int, ...] = tuple(BOX_SHAPES)


def box_shape(n: int) -> tuple[int, int]:
    """The ``(rows, cols)`` of a box for an n x n Sudoku; ``ValueError`` for an unsupported n."""
    try:
        return BOX_SHAPES[n]
    except KeyError:
        raise ValueError(f"no Sudoku of size {n}; sizes: {', '.join(map(str, SIZES))}") from None


class Geometry:
    """Precomputed tables for one grid size and box shape.

    - ``units``: 3n tuples of flat indices (rows, then columns, then boxes);
    - ``unit_names``: e.g. ``"row 3"``, ``"column 5"``, ``"box 2"`` (1-based);
    - ``cell_units[i]``: the three unit indices of cell i (row, column, box);
    - ``peers[i]``: the flat indices sharing a unit with i (not i itself);
    - ``box_of[i]``: the 0-based box number of cell i (boxes numbered row-major).
    """

    def __init__(self, n: int, box: tuple[int, int]):
        br, bc = box
        if br * bc != n:
            raise ValueError(f"a {br}x{bc} box does not tile a {n}x{n} grid")
        self.n, self.box, self.ncells = n, box, n * n
        self.full = (1 << n) - 1
        rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
        cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
        boxes = []
        for b0 in range(0, n, br):
            for b1 in range(0, n, bc):
                boxes.append(tuple((b0 + r) * n + b1 + c for r in range(br) for c in range(bc)))
        self.units: tuple[tuple[int, ...], ...] = tuple(rows + cols + boxes)
        self.unit_names = tuple(
            [f"row {k + 1}" for k in range(n)] + [f"column {k + 1}" for k in range(n)]
            + [f"box {k + 1}" for k in range(n)]
        )
        self.box_of = [0] * (n * n)
        for k, cells in enumerate(boxes):
            for i in cells:
                self.box_of[i] = k
        self.cell_units = tuple(
            (i // n, n + i % n, 2 * n + self.box_of[i]) for i in range(n * n)
        )
        self.peers = tuple(
            tuple(sorted({j for u in self.cell_units[i] for j in self.units[u]} - {i}))
            for i in range(n * n)
        )


@lru_cache(maxsize=None)
def geometry(n: int, box: tuple[int, int] | None = None) -> Geometry:
    """The cached ``Geometry`` for size n (box shape from ``BOX_SHAPES`` when not given)."""
    return Geometry(n, tuple(box) if box else box_shape(n))


def cell_name(i: int, n: int) -> str:
    """The 1-based name ``r3c5`` of flat cell index i."""
    return f"r{i // n + 1}c{i % n + 1}"
