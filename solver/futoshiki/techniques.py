"""Human-style solving: a ladder of techniques ordered by difficulty.

``explain`` always applies the easiest technique that makes progress, one
deduction per step, and grades the puzzle by the hardest technique it needed
(``"needs search"`` when the ladder stalls before the grid is full).

The ladder, easiest first:

- ``latin single``: from the placed values alone, a cell whose row and column
  already hold every other value, or the one cell of a row/column where a value
  can go because every other empty cell sees it in its column/row;
- ``naked single``: a cell left with one candidate after earlier eliminations;
- ``inequality bounds``: a sign cuts a cell's candidates by its neighbour's
  range (a cell smaller than a neighbour that is at most 5 is at most 4);
- ``inequality chains``: the signs, followed through any cells, make several
  cells of one row or column greater (or smaller) than a cell; they hold that
  many different values, which bounds the cell beyond what each sign gives;
- ``hidden single``: the only cell of a row/column whose candidates hold a value;
- ``naked pair``/``hidden pair``/``naked triple``/``hidden triple``: the usual
  subset eliminations within a row or column.
"""
from __future__ import annotations

from itertools import combinations
from typing import Callable, Optional

from ..puzzle import Explanation, Grid, Puzzle, Step
from .propagate import Board, board_of

LATIN_SINGLE = "latin single"
NAKED_SINGLE = "naked single"
INEQUALITY_BOUNDS = "inequality bounds"
INEQUALITY_CHAINS = "inequality chains"
HIDDEN_SINGLE = "hidden single"
NAKED_PAIR = "naked pair"
HIDDEN_PAIR = "hidden pair"
NAKED_TRIPLE = "naked triple"
HIDDEN_TRIPLE = "hidden triple"
NEEDS_SEARCH = "needs search"

#: Technique names, easiest first; ``NEEDS_SEARCH`` is harder than all of them.
LADDER = (LATIN_SINGLE, NAKED_SINGLE, INEQUALITY_BOUNDS, INEQUALITY_CHAINS, HIDDEN_SINGLE,
          NAKED_PAIR, HIDDEN_PAIR, NAKED_TRIPLE, HIDDEN_TRIPLE)


def difficulty_rank(grade: str) -> int:
    """The position of ``grade`` on the ladder (``NEEDS_SEARCH`` ranks last)."""
    return LADDER.index(grade) if grade in LADDER else len(LADDER)


def _name(i: int, n: int) -> str:
    return f"r{i // n + 1}c{i % n + 1}"


def _values(mask: int) -> list[int]:
    return [v + 1 for v in range(mask.bit_length()) if mask >> v & 1]


def _listed(mask: int) -> str:
    return ",".join(map(str, _values(mask)))


class _State:
    """The grid being solved: placed values and each cell's candidate bitmask (bit v-1 for v)."""

    def __init__(self, puzzle: Puzzle, board: Board):
        self.n, self.board = puzzle.size, board
        n = self.n
        self.value = [v or 0 for row in puzzle.givens for v in row]
        self.cand = [board.full] * (n * n)
        self.broken = False
        self.placed = 0  #: placements so far
        self.latin_done = -1  #: the value of ``placed`` when ``latin_single`` last found nothing
        for i, v in enumerate(self.value):
            if v:
                self._place(i, v)
        self.unit_names = [f"row {r + 1}" for r in range(n)] + [f"column {c + 1}" for c in range(n)]
        self.greater_in_unit, self.smaller_in_unit = _chains(board)

    def _place(self, i: int, v: int) -> None:
        bit = 1 << (v - 1)
        if not self.cand[i] & bit:
            self.broken = True
        self.value[i], self.cand[i] = v, bit
        self.placed += 1
        for p in self.board.peers[i]:
            if self.value[p] == v:
                self.broken = True
            if self.cand[p] & bit and not self.value[p]:
                self.cand[p] &= ~bit
                if not self.cand[p]:
                    self.broken = True

    def apply(self, step: Step) -> None:
        n = self.n
        for (r, c), v in step.eliminations:
            i = r * n + c
            self.cand[i] &= ~(1 << (v - 1))
            if not self.cand[i]:
                self.broken = True
        for (r, c), v in step.placements:
            self._place(r * n + c, v)

    def full(self) -> bool:
        return all(self.value)

    def grid(self) -> Grid:
        n = self.n
        return [[self.value[r * n + c] or None for c in range(n)] for r in range(n)]

    def cell(self, i: int) -> tuple[int, int]:
        return divmod(i, self.n)

    def placement(self, technique: str, i: int, v: int, why: str) -> Step:
        return Step(technique, f"{_name(i, self.n)} = {v}: {why}", placements=[(self.cell(i), v)])

    def elimination(self, technique: str, i: int, mask: int, why: str) -> Step:
        text = f"{_name(i, self.n)} ≠ {_listed(mask)}: {why}"
        return Step(technique, text, eliminations=[(self.cell(i), v) for v in _values(mask)])


def _chains(board: Board) -> tuple[list[list[tuple[int, list[int]]]], list[list[tuple[int, list[int]]]]]:
    """Per cell and unit: the cells of the unit the signs make greater (smaller) than it, when 2 or more."""
    n = board.n
    unit_of = [[] for _ in range(n * n)]  # type: list[list[int]]
    for u, unit in enumerate(board.units):
        for i in unit:
            unit_of[i].append(u)

    def reach(start: int, step: tuple[tuple[int, ...], ...]) -> set[int]:
        seen, stack = set(), [start]
        while stack:
            for j in step[stack.pop()]:
                if j not in seen:
                    seen.add(j)
                    stack.append(j)
        return seen

    results = []
    for step in (board.above, board.below):
        per_cell: list[list[tuple[int, list[int]]]] = []
        for i in range(n * n):
            reached = reach(i, step) if step[i] else set()
            found = []
            for u in unit_of[i]:
                inside = sorted(j for j in board.units[u] if j in reached)
                if len(inside) >= 2:
                    found.append((u, inside))
            per_cell.append(found)
        results.append(per_cell)
    return results[0], results[1]


# --- the techniques ----------------------------------------------------------------------------


def latin_single(s: _State) -> Optional[Step]:
    if s.latin_done == s.placed:
        return None  # nothing placed since the last fruitless look: it depends on placed values only
    n, full, value = s.n, s.board.full, s.value
    row_vals, col_vals = [0] * n, [0] * n  # the values placed in each row / column
    rows_with, cols_with = [0] * (n + 1), [0] * (n + 1)  # per value: the rows / columns holding it
    empty_in_row, empty_in_col = [0] * n, [0] * n  # bitmasks of empty columns / rows
    for i, v in enumerate(value):
        r, c = divmod(i, n)
        if v:
            row_vals[r] |= 1 << (v - 1)
            col_vals[c] |= 1 << (v - 1)
            rows_with[v] |= 1 << r
            cols_with[v] |= 1 << c
        else:
            empty_in_row[r] |= 1 << c
            empty_in_col[c] |= 1 << r
    for i, v in enumerate(value):
        if not v:
            left = full & ~(row_vals[i // n] | col_vals[i % n])
            if left and not left & (left - 1):
                return s.placement(LATIN_SINGLE, i, left.bit_length(),
                                   f"the only value not yet in row {i // n + 1} or column {i % n + 1}")
    for is_row in (True, False):
        for k in range(n):
            missing = full & ~(row_vals[k] if is_row else col_vals[k])
            for v in _values(missing):
                spots = empty_in_row[k] & ~cols_with[v] if is_row else empty_in_col[k] & ~rows_with[v]
                if spots and not spots & (spots - 1):
                    j = spots.bit_length() - 1
                    i = k * n + j if is_row else j * n + k
                    unit = f"row {k + 1}" if is_row else f"column {k + 1}"
                    return s.placement(LATIN_SINGLE, i, v, f"the only place for {v} in {unit} "
                                                           f"(every other empty cell there sees a {v})")
    s.latin_done = s.placed
    return None


def naked_single(s: _State) -> Optional[Step]:
    for i, c in enumerate(s.cand):
        if not s.value[i] and c and not c & (c - 1):
            return s.placement(NAKED_SINGLE, i, c.bit_length(), "the only candidate left")
    return None


def inequality_bounds(s: _State) -> Optional[Step]:
    n, board = s.n, s.board
    for i in range(n * n):
        if s.value[i]:
            continue
        c = s.cand[i]
        for j in board.above[i]:
            top = s.cand[j].bit_length()  # the largest value j can take
            cut = c & ~((1 << (top - 1)) - 1)
            if cut:
                what = f"= {s.value[j]}" if s.value[j] else f"at most {top}"
                return s.elimination(INEQUALITY_BOUNDS, i, cut,
                                     f"it is smaller than {_name(j, n)}, which is {what}")
        for j in board.below[i]:
            cj = s.cand[j]
            bottom = (cj & -cj).bit_length()  # the smallest value j can take
            cut = c & ((1 << bottom) - 1)
            if cut:
                what = f"= {s.value[j]}" if s.value[j] else f"at least {bottom}"
                return s.elimination(INEQUALITY_BOUNDS, i, cut,
                                     f"it is greater than {_name(j, n)}, which is {what}")
    return None


def inequality_chains(s: _State) -> Optional[Step]:
    n = s.n
    for i in range(n * n):
        if s.value[i]:
            continue
        c = s.cand[i]
        for u, cells in s.greater_in_unit[i]:
            union = 0
            for j in cells:
                union |= s.cand[j]
            values = _values(union)
            k = len(cells)
            if len(values) < k:
                continue  # a contradiction the other techniques will expose
            limit = values[-k]  # the least the smallest of k different values can be
            cut = c & ~((1 << (limit - 1)) - 1)
            if cut:
                names = ", ".join(_name(j, n) for j in cells)
                return s.elimination(INEQUALITY_CHAINS, i, cut,
                                     f"the signs make {names} of {s.unit_names[u]} greater than it; "
                                     f"they hold {k} different values from {{{_listed(union)}}}, "
                                     f"so the smallest is at most {limit}")
        for u, cells in s.smaller_in_unit[i]:
            union = 0
            for j in cells:
                union |= s.cand[j]
            values = _values(union)
            k = len(cells)
            if len(values) < k:
                continue
            limit = values[k - 1]  # the most the largest of k different values can be at least
            cut = c & ((1 << limit) - 1)
            if cut:
                names = ", ".join(_name(j, n) for j in cells)
                return s.elimination(INEQUALITY_CHAINS, i, cut,
                                     f"the signs make {names} of {s.unit_names[u]} smaller than it; "
                                     f"they hold {k} different values from {{{_listed(union)}}}, "
                                     f"so the largest is at least {limit}")
    return None


def hidden_single(s: _State) -> Optional[Step]:
    for u, unit in enumerate(s.board.units):
        placed = 0
        for i in unit:
            if s.value[i]:
                placed |= 1 << (s.value[i] - 1)
        for v in _values(s.board.full & ~placed):
            bit = 1 << (v - 1)
            spots = [i for i in unit if not s.value[i] and s.cand[i] & bit]
            if len(spots) == 1:
                return s.placement(HIDDEN_SINGLE, spots[0], v,
                                   f"the only cell of {s.unit_names[u]} that can still hold {v}")
    return None


def _naked_subset(size: int, technique: str) -> Callable[[_State], Optional[Step]]:
    def find(s: _State) -> Optional[Step]:
        n = s.n
        for u, unit in enumerate(s.board.units):
            empty = [i for i in unit if not s.value[i]]
            if len(empty) <= size:
                continue
            small = [i for i in empty if 2 <= s.cand[i].bit_count() <= size]
            for group in combinations(small, size):
                union = 0
                for i in group:
                    union |= s.cand[i]
                if union.bit_count() != size:
                    continue
                elims = [((i // n, i % n), v) for i in empty if i not in group
                         for v in _values(s.cand[i] & union)]
                if elims:
                    names = ", ".join(_name(i, n) for i in group)
                    text = (f"{names} of {s.unit_names[u]} hold {{{_listed(union)}}} between them, "
                            f"so no other cell there can: " +
                            "; ".join(f"{_name(r * n + c, n)} ≠ {v}" for (r, c), v in elims))
                    return Step(technique, text, eliminations=elims)
        return None

    return find


def _hidden_subset(size: int, technique: str) -> Callable[[_State], Optional[Step]]:
    def find(s: _State) -> Optional[Step]:
        n = s.n
        for u, unit in enumerate(s.board.units):
            empty = [i for i in unit if not s.value[i]]
            if len(empty) <= size:
                continue
            where = {}
            for v in range(1, n + 1):
                spots = frozenset(i for i in empty if s.cand[i] >> (v - 1) & 1)
                if 2 <= len(spots) <= size:
                    where[v] = spots
            for group in combinations(sorted(where), size):
                cells = frozenset().union(*(where[v] for v in group))
                if len(cells) != size:
                    continue
                keep = sum(1 << (v - 1) for v in group)
                elims = [((i // n, i % n), v) for i in sorted(cells) for v in _values(s.cand[i] & ~keep)]
                if elims:
                    names = ", ".join(_name(i, n) for i in sorted(cells))
                    values = ",".join(map(str, group))
                    text = (f"in {s.unit_names[u]} the values {values} fit only in {names}, "
                            f"so those cells hold nothing else: " +
                            "; ".join(f"{_name(r * n + c, n)} ≠ {v}" for (r, c), v in elims))
                    return Step(technique, text, eliminations=elims)
        return None

    return find


TECHNIQUES: tuple[tuple[str, Callable[[_State], Optional[Step]]], ...] = (
    (LATIN_SINGLE, latin_single),
    (NAKED_SINGLE, naked_single),
    (INEQUALITY_BOUNDS, inequality_bounds),
    (INEQUALITY_CHAINS, inequality_chains),
    (HIDDEN_SINGLE, hidden_single),
    (NAKED_PAIR, _naked_subset(2, NAKED_PAIR)),
    (HIDDEN_PAIR, _hidden_subset(2, HIDDEN_PAIR)),
    (NAKED_TRIPLE, _naked_subset(3, NAKED_TRIPLE)),
    (HIDDEN_TRIPLE, _hidden_subset(3, HIDDEN_TRIPLE)),
)


def explain(puzzle: Puzzle, *, max_steps: Optional[int] = None) -> Explanation:
    """Solve like a person: the steps, the grade and the grid reached.

    Stops after ``max_steps`` steps when given (``complete`` is then False and
    the grade is the hardest technique used so far).
    """
    state = _State(puzzle, board_of(puzzle))
    steps: list[Step] = []
    hardest_used = -1
    while not state.broken and not state.full():
        if max_steps is not None and len(steps) >= max_steps:
            break
        for rank, (_, find) in enumerate(TECHNIQUES):
            step = find(state)
            if step is not None:
                break
        else:
            break
        state.apply(step)
        steps.append(step)
        hardest_used = max(hardest_used, rank)
    complete = state.full() and not state.broken
    stalled = not complete and (max_steps is None or len(steps) < max_steps)
    if stalled:
        grade = NEEDS_SEARCH
    else:
        grade = LADDER[hardest_used] if hardest_used >= 0 else LATIN_SINGLE
    return Explanation(steps, grade, state.grid(), complete)
