"""The human-style technique ladder (Tatham-style grading).

Techniques, easiest first (their names are the grades): naked single, hidden
single, locked candidates, naked pair, hidden pair, naked triple, hidden
triple, x-wing, swordfish, xy-wing. ``explain`` always applies the easiest
technique that makes progress, then starts again from the easiest; the grade
is the hardest technique used, or ``"needs search"`` when the ladder stalls
before the grid is full.
"""
from __future__ import annotations

from itertools import combinations
from typing import Callable, Optional

from ..puzzle import Explanation, Puzzle, Step
from .geometry import Geometry, geometry


def _bits(mask: int) -> list[int]:
    """The values (1-based) in a candidate mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length())
        mask ^= low
    return out


def _and_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


class Board:
    """Values and candidates while solving by hand: ``cand[i]`` is 0 once cell i is filled."""

    def __init__(self, puzzle: Puzzle):
        self.geo: Geometry = geometry(puzzle.size, puzzle.box)
        n = self.n = puzzle.size
        self.values = [v for row in puzzle.givens for v in row]
        self.cand = [0 if v is not None else self.geo.full for v in self.values]
        for i, v in enumerate(self.values):
            if v is not None:
                self._clear_peers(i, 1 << (v - 1))
        self.name = [f"r{i // n + 1}c{i % n + 1}" for i in range(n * n)]

    def _clear_peers(self, i: int, bit: int) -> None:
        for p in self.geo.peers[i]:
            self.cand[p] &= ~bit

    def place(self, i: int, v: int) -> None:
        self.values[i] = v
        self.cand[i] = 0
        self._clear_peers(i, 1 << (v - 1))

    def eliminate(self, removals: list[tuple[int, int]]) -> None:
        for i, v in removals:
            self.cand[i] &= ~(1 << (v - 1))

    def cells_text(self, cells) -> str:
        return _and_list([self.name[i] for i in cells])

    def step(self, technique: str, text: str, *, place: Optional[tuple[int, int]] = None,
             removals: Optional[list[tuple[int, int]]] = None) -> Step:
        """Apply a placement or eliminations and describe it as a ``Step``."""
        n = self.n
        if place is not None:
            self.place(*place)
            i, v = place
            return Step(technique, text, placements=[((i // n, i % n), v)])
        removals = sorted(set(removals or []))
        self.eliminate(removals)
        return Step(technique, text, eliminations=[((i // n, i % n), v) for i, v in removals])


def naked_single(bd: Board) -> Optional[Step]:
    for i, c in enumerate(bd.cand):
        if c and not c & (c - 1):
            v = c.bit_length()
            return bd.step("naked single", f"{bd.name[i]} = {v}: the only candidate left", place=(i, v))
    return None


def hidden_single(bd: Board) -> Optional[Step]:
    geo = bd.geo
    for u, unit in enumerate(geo.units):
        ones = twos = 0
        for i in unit:
            c = bd.cand[i]
            twos |= ones & c
            ones |= c
        once = ones & ~twos
        if once:
            v = _bits(once)[0]
            bit = 1 << (v - 1)
            i = next(i for i in unit if bd.cand[i] & bit)
            return bd.step("hidden single", f"{bd.name[i]} = {v}: the only place for {v} in {geo.unit_names[u]}",
                           place=(i, v))
    return None


def locked_candidates(bd: Board) -> Optional[Step]:
    """Pointing (a box's v all in one line) and claiming (a line's v all in one box)."""
    geo, n = bd.geo, bd.n
    for u in range(2 * n, 3 * n):  # pointing
        box = geo.units[u]
        for v in range(1, n + 1):
            bit = 1 << (v - 1)
            cells = [i for i in box if bd.cand[i] & bit]
            if len(cells) < 2:
                continue
            for line, key in ((0, lambda i: i // n), (n, lambda i: i % n)):
                keys = {key(i) for i in cells}
                if len(keys) == 1:
                    lu = line + keys.pop()
                    removals = [(j, v) for j in geo.units[lu] if j not in box and bd.cand[j] & bit]
                    if removals:
                        return bd.step("locked candidates",
                                       f"{v} in {geo.unit_names[u]} lies only in {geo.unit_names[lu]}, so {v} goes "
                                       f"from {bd.cells_text(j for j, _ in removals)}", removals=removals)
    for u in range(2 * n):  # claiming
        line = geo.units[u]
        for v in range(1, n + 1):
            bit = 1 << (v - 1)
            cells = [i for i in line if bd.cand[i] & bit]
            if len(cells) < 2:
                continue
            boxes = {geo.box_of[i] for i in cells}
            if len(boxes) == 1:
                bu = 2 * n + boxes.pop()
                removals = [(j, v) for j in geo.units[bu] if j not in line and bd.cand[j] & bit]
                if removals:
                    return bd.step("locked candidates",
                                   f"{v} in {geo.unit_names[u]} lies only in {geo.unit_names[bu]}, so {v} goes "
                                   f"from {bd.cells_text(j for j, _ in removals)}", removals=removals)
    return None


def _naked_subset(k: int, name: str) -> Callable[[Board], Optional[Step]]:
    def technique(bd: Board) -> Optional[Step]:
        geo = bd.geo
        for u, unit in enumerate(geo.units):
            open_cells = [i for i in unit if bd.cand[i]]
            small = [i for i in open_cells if bd.cand[i].bit_count() <= k]
            for group in combinations(small, k):
                union = 0
                for i in group:
                    union |= bd.cand[i]
                if union.bit_count() != k:
                    continue
                removals = [(j, v) for j in open_cells if j not in group for v in _bits(bd.cand[j] & union)]
                if removals:
                    vals = [str(x) for x in _bits(union)]
                    return bd.step(name, f"{bd.cells_text(group)} hold only {{{', '.join(vals)}}} between them "
                                   f"({name} in {geo.unit_names[u]}), so {_and_list(vals)} go from "
                                   f"{bd.cells_text(sorted({j for j, _ in removals}))}", removals=removals)
        return None

    technique.__name__ = name.replace(" ", "_")
    return technique


def _hidden_subset(k: int, name: str) -> Callable[[Board], Optional[Step]]:
    def technique(bd: Board) -> Optional[Step]:
        geo, n = bd.geo, bd.n
        for u, unit in enumerate(geo.units):
            where: dict[int, int] = {}
            for v in range(1, n + 1):
                bit = 1 << (v - 1)
                pos = 0
                for k_, i in enumerate(unit):
                    if bd.cand[i] & bit:
                        pos |= 1 << k_
                if 2 <= pos.bit_count() <= k:
                    where[v] = pos
            for group in combinations(sorted(where), k):
                pos = 0
                for v in group:
                    pos |= where[v]
                if pos.bit_count() != k:
                    continue
                keep = sum(1 << (v - 1) for v in group)
                cells = [unit[k_] for k_ in range(n) if pos >> k_ & 1]
                removals = [(i, v) for i in cells for v in _bits(bd.cand[i] & ~keep)]
                if removals:
                    return bd.step(name, f"{_and_list([str(v) for v in group])} fit only {bd.cells_text(cells)} in "
                                   f"{geo.unit_names[u]} ({name}), so the other candidates go from those cells",
                                   removals=removals)
        return None

    technique.__name__ = name.replace(" ", "_")
    return technique


def _fish(k: int, name: str) -> Callable[[Board], Optional[Step]]:
    def technique(bd: Board) -> Optional[Step]:
        n = bd.n
        for v in range(1, n + 1):
            bit = 1 << (v - 1)
            for base_is_row in (True, False):
                def cell(a: int, b: int) -> int:
                    return a * n + b if base_is_row else b * n + a
                lines = {}
                for a in range(n):
                    pos = 0
                    for b in range(n):
                        if bd.cand[cell(a, b)] & bit:
                            pos |= 1 << b
                    if 2 <= pos.bit_count() <= k:
                        lines[a] = pos
                for group in combinations(sorted(lines), k):
                    cover = 0
                    for a in group:
                        cover |= lines[a]
                    if cover.bit_count() != k:
                        continue
                    removals = [(cell(a, b), v) for b in range(n) if cover >> b & 1
                                for a in range(n) if a not in group and bd.cand[cell(a, b)] & bit]
                    if removals:
                        base, cross = ("rows", "columns") if base_is_row else ("columns", "rows")
                        covers = [str(b + 1) for b in range(n) if cover >> b & 1]
                        return bd.step(name, f"{v} in {base} {_and_list([str(a + 1) for a in group])} lies only in "
                                       f"{cross} {_and_list(covers)} ({name}), so {v} goes from "
                                       f"{bd.cells_text(j for j, _ in removals)}", removals=removals)
        return None

    technique.__name__ = name.replace(" ", "_")
    return technique


def xy_wing(bd: Board) -> Optional[Step]:
    geo = bd.geo
    peers = [set(p) for p in geo.peers]
    bivalue = [i for i, c in enumerate(bd.cand) if c.bit_count() == 2]
    for pivot in bivalue:
        pc = bd.cand[pivot]
        wings = [i for i in geo.peers[pivot] if bd.cand[i].bit_count() == 2 and bd.cand[i] != pc
                 and (bd.cand[i] & pc).bit_count() == 1]
        for x, y in combinations(wings, 2):
            cx, cy = bd.cand[x], bd.cand[y]
            z = cx & cy
            if z.bit_count() != 1 or z & pc or (cx | cy) & pc != pc:
                continue
            vz = z.bit_length()
            removals = [(j, vz) for j in peers[x] & peers[y] if j != pivot and bd.cand[j] & z]
            if removals:
                removals.sort()
                return bd.step("xy-wing", f"xy-wing: {bd.name[pivot]} holds {{{', '.join(map(str, _bits(pc)))}}}, "
                               f"so {bd.name[x]} or {bd.name[y]} is {vz}; {vz} goes from "
                               f"{bd.cells_text(j for j, _ in removals)}", removals=removals)
    return None


#: The ladder, easiest first; each technique's name is its grade.
LADDER: tuple[tuple[str, Callable[[Board], Optional[Step]]], ...] = (
    ("naked single", naked_single),
    ("hidden single", hidden_single),
    ("locked candidates", locked_candidates),
    ("naked pair", _naked_subset(2, "naked pair")),
    ("hidden pair", _hidden_subset(2, "hidden pair")),
    ("naked triple", _naked_subset(3, "naked triple")),
    ("hidden triple", _hidden_subset(3, "hidden triple")),
    ("x-wing", _fish(2, "x-wing")),
    ("swordfish", _fish(3, "swordfish")),
    ("xy-wing", xy_wing),
)
GRADES = tuple(name for name, _ in LADDER)


def explain(puzzle: Puzzle, *, max_steps: Optional[int] = None) -> Explanation:
    """Solve like a person: the steps taken, the grade, the grid reached and whether it is full.

    The grade is the hardest technique used (``"none"`` when the grid is already
    full), or ``"needs search"`` when no technique applies before the grid is full.
    """
    bd = Board(puzzle)
    steps: list[Step] = []
    hardest = -1
    stalled = False
    while None in bd.values and (max_steps is None or len(steps) < max_steps):
        if any(v is None and not c for v, c in zip(bd.values, bd.cand)):
            stalled = True  # a cell has no candidate left: the givens contradict each other
            break
        for level, (_, technique) in enumerate(LADDER):
            step = technique(bd)
            if step is not None:
                steps.append(step)
                hardest = max(hardest, level)
                break
        else:
            stalled = True
            break
    n = bd.n
    grid = [bd.values[r * n:(r + 1) * n] for r in range(n)]
    complete = None not in bd.values
    if stalled:
        grade = "needs search"
    else:
        grade = GRADES[hardest] if hardest >= 0 else "none"
    return Explanation(steps=steps, grade=grade, grid=grid, complete=complete)
