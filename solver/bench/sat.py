"""A SAT reference for the benchmark (python-sat with CaDiCaL, or pycosat).

Benchmark-only: ``pip install python-sat`` (the ``bench`` extra). Each kind is
encoded once per size into a persistent solver; a puzzle's givens are
assumptions, and uniqueness is proven by a second call with a clause blocking
the first model, switched on by a fresh activation literal.
"""
from __future__ import annotations

from itertools import combinations
from typing import Optional

from solver.puzzle import Grid, Puzzle


class _Encoding:
    """Variables and clauses of one (kind, size); ``cell_literals`` maps a model back to a grid."""

    def __init__(self, puzzle: Puzzle):
        self.kind, self.n = puzzle.kind, puzzle.size
        self.clauses: list[list[int]] = []
        self.top = 0
        if self.kind == "takuzu":
            self._takuzu()
        else:
            self._latin(puzzle.box if self.kind == "sudoku" else None)

    # -- helpers
    def _new(self) -> int:
        self.top += 1
        return self.top

    def _exactly_one(self, lits: list[int]) -> None:
        self.clauses.append(list(lits))
        self.clauses.extend([-a, -b] for a, b in combinations(lits, 2))

    # -- Latin squares (Sudoku, Futoshiki)
    def var(self, r: int, c: int, v: int) -> int:
        n = self.n
        return (r * n + c) * n + (v - 1) + 1

    def _latin(self, box: Optional[tuple[int, int]]) -> None:
        n = self.n
        self.top = n * n * n
        rng = range(n)
        for r in rng:
            for c in rng:
                self._exactly_one([self.var(r, c, v) for v in range(1, n + 1)])
        for v in range(1, n + 1):
            for i in rng:
                self._exactly_one([self.var(i, c, v) for c in rng])
                self._exactly_one([self.var(r, i, v) for r in rng])
            if box:
                br, bc = box
                for r0 in range(0, n, br):
                    for c0 in range(0, n, bc):
                        self._exactly_one([self.var(r, c, v) for r in range(r0, r0 + br) for c in range(c0, c0 + bc)])

    def relation_clauses(self, puzzle: Puzzle) -> list[list[int]]:
        n, out = self.n, []
        for rel in puzzle.relations:
            lo, hi = rel.smaller_greater()
            for va in range(1, n + 1):
                for vb in range(1, va + 1):  # forbid value(lo) >= value(hi)
                    out.append([-self.var(*lo, va), -self.var(*hi, vb)])
        return out

    # -- Takuzu
    def tvar(self, r: int, c: int) -> int:
        return r * self.n + c + 1

    def _takuzu(self) -> None:
        from pysat.card import CardEnc, EncType

        n = self.n
        self.top = n * n
        lines = [[self.tvar(r, c) for c in range(n)] for r in range(n)]
        lines += [[self.tvar(r, c) for r in range(n)] for c in range(n)]
        for line in lines:
            for i in range(n - 2):
                a, b, c = line[i:i + 3]
                self.clauses += [[a, b, c], [-a, -b, -c]]
            card = CardEnc.equals(lits=line, bound=n // 2, top_id=self.top, encoding=EncType.seqcounter)
            self.top = max(self.top, card.nv)
            self.clauses += card.clauses
        for group in (lines[:n], lines[n:]):
            for la, lb in combinations(group, 2):
                diffs = []
                for x, y in zip(la, lb):
                    d = self._new()
                    self.clauses += [[-d, x, y], [-d, -x, -y]]
                    diffs.append(d)
                self.clauses.append(diffs)

    # -- puzzles
    def given_literals(self, puzzle: Puzzle) -> list[int]:
        lits = []
        for r, row in enumerate(puzzle.givens):
            for c, v in enumerate(row):
                if v is None:
                    continue
                if self.kind == "takuzu":
                    lits.append(self.tvar(r, c) if v else -self.tvar(r, c))
                else:
                    lits.append(self.var(r, c, v))
        return lits

    def grid(self, model: list[int]) -> Grid:
        true = {lit for lit in model if lit > 0}
        n = self.n
        if self.kind == "takuzu":
            return [[1 if self.tvar(r, c) in true else 0 for c in range(n)] for r in range(n)]
        return [[next(v for v in range(1, n + 1) if self.var(r, c, v) in true) for c in range(n)] for r in range(n)]

    def blocking(self, puzzle: Puzzle, grid: Grid) -> list[int]:
        out = []
        for r, c in puzzle.empty_cells():
            if self.kind == "takuzu":
                out.append(-self.tvar(r, c) if grid[r][c] else self.tvar(r, c))
            else:
                out.append(-self.var(r, c, grid[r][c]))
        return out


class SatReference:
    """Solve puzzles to 'no / unique / several solutions' with a SAT solver."""

    def __init__(self, name: str = "cadical195"):
        from pysat.solvers import Solver

        self._Solver, self.name = Solver, name
        self._cache: dict[tuple, tuple[_Encoding, object]] = {}

    def prepare(self, puzzle: Puzzle) -> None:
        """Build the encoding for the puzzle's kind and size (not timed)."""
        key = (puzzle.kind, puzzle.size, puzzle.box)
        if key not in self._cache:
            enc = _Encoding(puzzle)
            self._cache[key] = (enc, self._Solver(name=self.name, bootstrap_with=enc.clauses))

    def solve(self, puzzle: Puzzle) -> tuple[str, list[Grid]]:
        """``("solved"|"ambiguous"|"impossible", solutions)``."""
        self.prepare(puzzle)
        enc, sat = self._cache[(puzzle.kind, puzzle.size, puzzle.box)]
        act = enc._new()
        extra = enc.relation_clauses(puzzle) if puzzle.kind == "futoshiki" else []
        for clause in extra:
            sat.add_clause([-act] + clause)
        assumptions = enc.given_literals(puzzle) + [act]
        if not sat.solve(assumptions=assumptions):
            sat.add_clause([-act])
            return "impossible", []
        first = enc.grid(sat.get_model())
        sat.add_clause([-act] + enc.blocking(puzzle, first))
        if sat.solve(assumptions=assumptions):
            second = enc.grid(sat.get_model())
            sat.add_clause([-act])
            return "ambiguous", [first, second]
        sat.add_clause([-act])
        return "solved", [first]

    def close(self) -> None:
        for _, sat in self._cache.values():
            sat.delete()
