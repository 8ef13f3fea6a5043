"""The rules of Futoshiki, checked directly (shares no code with the search).

A solution is a Latin square of ``1..n`` (every row and column holds each value
once) that keeps the givens and makes every inequality sign true.
"""
from __future__ import annotations

from typing import Optional

from ..puzzle import Cell, Grid, Puzzle


def _name(cell: Cell) -> str:
    return f"r{cell[0] + 1}c{cell[1] + 1}"


def is_solution(puzzle: Puzzle, grid: Grid) -> bool:
    """True when ``grid`` is a full ``n x n`` Latin square of 1..n that keeps the givens and every sign."""
    n = puzzle.size
    if not isinstance(grid, (list, tuple)) or len(grid) != n:
        return False
    if any(not isinstance(row, (list, tuple)) or len(row) != n for row in grid):
        return False
    everything = set(range(1, n + 1))
    for row in grid:
        if any(type(v) is not int for v in row) or set(row) != everything:
            return False
    for c in range(n):
        if {grid[r][c] for r in range(n)} != everything:
            return False
    for r in range(n):
        for c in range(n):
            given = puzzle.givens[r][c]
            if given is not None and grid[r][c] != given:
                return False
    for rel in puzzle.relations:
        (ra, ca), (rb, cb) = rel.a, rel.b
        if abs(ra - rb) + abs(ca - cb) != 1:
            return False
        va, vb = grid[ra][ca], grid[rb][cb]
        if not (va < vb if rel.op == "<" else va > vb):
            return False
    return True


def check_givens(puzzle: Puzzle) -> Optional[str]:
    """A sentence naming a rule the givens and signs already break, or None.

    Checks, in order: a given outside 1..n; one value twice in a row or column;
    a sign between two givens that is false; a cycle of signs
    (``r1c1 < r1c2 < r2c2 < r2c1 < r1c1``); a given that leaves no room for the
    chain of signs above or below it (a 9 with a cell greater than it).
    """
    n = puzzle.size
    g = puzzle.givens
    for r in range(n):
        for c in range(n):
            v = g[r][c]
            if v is not None and not 1 <= v <= n:
                return f"{_name((r, c))} holds {v}, outside 1..{n}"
    for r in range(n):
        seen: dict[int, int] = {}
        for c in range(n):
            v = g[r][c]
            if v is not None:
                if v in seen:
                    return f"two {v}s in row {r + 1} (columns {seen[v] + 1} and {c + 1})"
                seen[v] = c
    for c in range(n):
        seen = {}
        for r in range(n):
            v = g[r][c]
            if v is not None:
                if v in seen:
                    return f"two {v}s in column {c + 1} (rows {seen[v] + 1} and {r + 1})"
                seen[v] = r
    above: dict[Cell, list[Cell]] = {}  # cell -> the neighbours a sign says are greater
    for rel in puzzle.relations:
        small, big = (rel.a, rel.b) if rel.op == "<" else (rel.b, rel.a)
        vs, vb = g[small[0]][small[1]], g[big[0]][big[1]]
        if vs is not None and vb is not None and not vs < vb:
            return f"{_name(small)} = {vs} and {_name(big)} = {vb} break the sign {_name(small)} < {_name(big)}"
        above.setdefault(small, []).append(big)
    cycle = _find_cycle(above)
    if cycle:
        return "the signs form a cycle " + " < ".join(_name(cell) for cell in cycle + [cycle[0]])
    return _room_clash(puzzle, above)


def _find_cycle(above: dict[Cell, list[Cell]]) -> Optional[list[Cell]]:
    """A list of cells each smaller than the next and the last smaller than the first, or None."""
    state: dict[Cell, int] = {}  # 1 on the current path, 2 finished
    for root in sorted(above):
        if state.get(root):
            continue
        path: list[Cell] = [root]
        iters = [iter(above.get(root, ()))]
        state[root] = 1
        while path:
            nxt = next(iters[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                iters.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                iters.append(iter(above.get(nxt, ())))
    return None


def _room_clash(puzzle: Puzzle, above: dict[Cell, list[Cell]]) -> Optional[str]:
    """A given too large for the chain of greater cells above it, or too small for the chain below."""
    n = puzzle.size
    below: dict[Cell, list[Cell]] = {}
    for small, bigs in above.items():
        for big in bigs:
            below.setdefault(big, []).append(small)
    for graph, word in ((above, "greater"), (below, "smaller")):
        longest: dict[Cell, list[Cell]] = {}

        def chain(cell: Cell) -> list[Cell]:  # the longest chain of signs leaving cell (acyclic here)
            if cell not in longest:
                best: list[Cell] = []
                for nxt in graph.get(cell, ()):
                    cand = chain(nxt)
                    if len(cand) > len(best):
                        best = cand
                longest[cell] = [cell] + best
            return longest[cell]

        for r in range(n):
            for c in range(n):
                v = puzzle.givens[r][c]
                if v is None:
                    continue
                path = chain((r, c))
                k = len(path) - 1
                room = n - v if word == "greater" else v - 1
                if k > room:
                    sign = " < " if word == "greater" else " > "
                    return (f"{_name((r, c))} = {v} leaves room for {room} {word} value{'s' * (room != 1)} "
                            f"but the chain {sign.join(_name(x) for x in path)} needs {k}")
    return None
