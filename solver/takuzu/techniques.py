"""Human-style Takuzu solving: a ladder of techniques ordered by difficulty.

1. ``pairs``: two equal neighbours ``xx`` make the cells on both ends the opposite;
2. ``gaps``: ``x.x`` makes the middle cell the opposite;
3. ``counts``: a line holding its ``n/2`` of one value gets the other in every empty cell;
4. ``count gaps``: a value is ruled out of a cell when no valid completion of the line has it
   there (typically: it would leave the line's remaining cells forced into three in a row);
5. ``finished lines``: a value is ruled out when the line could then only repeat a finished line.

Each round applies every deduction of the easiest technique that finds one, then
starts again from the easiest. ``explain`` stalls with ``needs search`` when no
technique applies to an unfinished grid.
"""
from __future__ import annotations

from typing import Optional

from ..puzzle import Cell, Explanation, Grid, Puzzle, Step
from .lines import line_masks, table

TECHNIQUES = ("pairs", "gaps", "counts", "count gaps", "finished lines")
NEEDS_SEARCH = "needs search"

Line = tuple[str, int, list[Cell]]  # ("row" | "column", 1-based number, cells in order)


def _name(cell: Cell) -> str:
    return f"r{cell[0] + 1}c{cell[1] + 1}"


def _lines(n: int) -> list[Line]:
    rows = [("row", r + 1, [(r, c) for c in range(n)]) for r in range(n)]
    cols = [("column", c + 1, [(r, c) for r in range(n)]) for c in range(n)]
    return rows + cols


def _pairs(grid: Grid, line: Line) -> list[Step]:
    _, _, cells = line
    vals = [grid[r][c] for r, c in cells]
    out = []
    for i in range(len(cells) - 1):
        x = vals[i]
        if x is None or vals[i + 1] != x:
            continue
        for j in (i - 1, i + 2):
            if 0 <= j < len(cells) and vals[j] is None:
                text = f"{_name(cells[j])} = {1 - x}: {_name(cells[i])} and {_name(cells[i + 1])} are both {x} (pair)"
                out.append(Step("pairs", text, [(cells[j], 1 - x)]))
    return out


def _gaps(grid: Grid, line: Line) -> list[Step]:
    _, _, cells = line
    vals = [grid[r][c] for r, c in cells]
    out = []
    for i in range(len(cells) - 2):
        x = vals[i]
        if x is not None and vals[i + 2] == x and vals[i + 1] is None:
            text = f"{_name(cells[i + 1])} = {1 - x}: it sits between two {x}s at {_name(cells[i])} and {_name(cells[i + 2])} (gap)"
            out.append(Step("gaps", text, [(cells[i + 1], 1 - x)]))
    return out


def _counts(grid: Grid, line: Line) -> list[Step]:
    kind, number, cells = line
    vals = [grid[r][c] for r, c in cells]
    half = len(cells) // 2
    out = []
    for x in (0, 1):
        if vals.count(x) == half:
            for cell, v in zip(cells, vals):
                if v is None:
                    text = f"{_name(cell)} = {1 - x}: {kind} {number} already has its {half} {x}s (count)"
                    out.append(Step("counts", text, [(cell, 1 - x)]))
    return out


def _line_bits(grid: Grid, cells: list[Cell]) -> tuple[int, int]:
    mask = value = 0
    for p, (r, c) in enumerate(cells):
        v = grid[r][c]
        if v is not None:
            mask |= 1 << p
            value |= v << p
    return mask, value


def _lookahead_clash(vals: list[Optional[int]], cells: list[Cell]) -> Optional[str]:
    """Fill ``vals`` by counts, pairs and gaps within the line; describe the first clash, or None."""
    vals = list(vals)
    n = len(vals)
    half = n // 2
    while True:
        for i in range(n - 2):
            x = vals[i]
            if x is not None and vals[i + 1] == x and vals[i + 2] == x:
                return f"force three {x}s at {_name(cells[i])}..{_name(cells[i + 2])}"
        for x in (0, 1):
            if vals.count(x) > half:
                return f"need more than {half} {x}s"
        if None not in vals:
            return None
        full = [x for x in (0, 1) if vals.count(x) == half]
        if full:
            vals = [1 - full[0] if v is None else v for v in vals]
            continue
        for i in range(n):
            if vals[i] is not None:
                continue
            forced = {1 - vals[a] for a, b in ((i - 2, i - 1), (i + 1, i + 2), (i - 1, i + 1))
                      if 0 <= a and b < n and vals[a] is not None and vals[a] == vals[b]}
            if len(forced) == 2:
                return f"leave no valid value for {_name(cells[i])}"
            if forced:
                vals[i] = forced.pop()
                break
        else:
            return None


def _count_gaps(grid: Grid, line: Line) -> list[Step]:
    kind, number, cells = line
    T = table(len(cells))
    mask, value = _line_bits(grid, cells)
    cand = T.candidates(mask, value)
    if not cand:
        return []
    vals = [grid[r][c] for r, c in cells]
    out = []
    for p, cell in enumerate(cells):
        if vals[p] is not None:
            continue
        for x in (0, 1):
            if not cand & T.has[p][x]:
                trial = list(vals)
                trial[p] = x
                clash = _lookahead_clash(trial, cells)
                why = f"would {clash} in {kind} {number}" if clash else f"would leave no valid way to complete {kind} {number}"
                text = f"{_name(cell)} = {1 - x}: a {x} there {why} (count gaps)"
                out.append(Step("count gaps", text, [(cell, 1 - x)]))
    return out


def _finished_lines(grid: Grid, lines: list[Line]) -> list[Step]:
    out = []
    n = len(grid)
    T = table(n)
    for kind in ("row", "column"):
        group = [line for line in lines if line[0] == kind]
        finished = {}
        for _, number, cells in group:
            mask, value = _line_bits(grid, cells)
            if mask == (1 << n) - 1 and value in T.index:
                finished[T.index[value]] = number
        for _, number, cells in group:
            mask, value = _line_bits(grid, cells)
            if mask == (1 << n) - 1:
                continue
            cand = T.candidates(mask, value)
            rest = cand
            for k in finished:
                rest &= ~(1 << k)
            if not rest or rest == cand:
                continue
            for p, cell in enumerate(cells):
                if (mask >> p) & 1:
                    continue
                for x in (0, 1):
                    if cand & T.has[p][x] and not rest & T.has[p][x]:
                        copies = [finished[k] for k in sorted(finished) if (cand >> k) & 1 and (T.lines[k] >> p) & 1 == x]
                        named = " or ".join(f"{kind} {m}" for m in copies)
                        text = f"{_name(cell)} = {1 - x}: with a {x} there, {kind} {number} could only repeat {named} (finished lines)"
                        out.append(Step("finished lines", text, [(cell, 1 - x)]))
    return out


def _find(technique: str, grid: Grid, lines: list[Line]) -> list[Step]:
    if technique == "finished lines":
        return _finished_lines(grid, lines)
    finder = {"pairs": _pairs, "gaps": _gaps, "counts": _counts, "count gaps": _count_gaps}[technique]
    return [step for line in lines for step in finder(grid, line)]


def explain(puzzle: Puzzle, *, max_steps: Optional[int] = None) -> Explanation:
    """Solve like a person: the easiest technique that applies, every time; grade = hardest used."""
    grid = puzzle.copy_grid()
    n = puzzle.size
    lines = _lines(n)
    steps: list[Step] = []
    hardest = -1
    stalled = False
    while any(v is None for row in grid for v in row):
        if max_steps is not None and len(steps) >= max_steps:
            break
        for level, technique in enumerate(TECHNIQUES):
            found = _find(technique, grid, lines)
            if found:
                break
        else:
            stalled = True
            break
        placed: dict[Cell, int] = {}
        for step in found:
            (cell, v), = step.placements
            if cell in placed:
                if placed[cell] != v:  # the givens contradict each other: no honest way on
                    stalled = True
                continue
            if max_steps is not None and len(steps) >= max_steps:
                break
            placed[cell] = v
            steps.append(step)
        if stalled:
            break
        for (r, c), v in placed.items():
            grid[r][c] = v
        hardest = max(hardest, level)
    complete = all(v is not None for row in grid for v in row)
    if stalled and not complete:
        grade = NEEDS_SEARCH
    else:
        grade = TECHNIQUES[max(hardest, 0)]
    return Explanation(steps=steps, grade=grade, grid=grid, complete=complete and not stalled)


def grade(puzzle: Puzzle) -> str:
    """``explain(puzzle).grade`` without the steps: the same rounds (every deduction of the easiest technique
    that finds one, then from the easiest again; two deductions for one cell that disagree stall it) made on
    the lines' bitmasks (``lines.line_masks``), with no step or text built -- a 16 x 16 grid's grade in a
    few milliseconds rather than ~20."""
    n = puzzle.size
    full = (1 << n) - 1
    rm, rv, cm, cv = line_masks(puzzle.givens)
    hardest = -1
    memo: dict = {}  # a line's placements by technique and line: most lines are the same round after round
    while any(m != full for m in rm):
        for level in range(len(TECHNIQUES)):
            zeros, ones = _placements(level, rm, rv, cm, cv, n, memo)
            if any(zeros) or any(ones):
                break
        else:
            return NEEDS_SEARCH
        if any(z & o for z, o in zip(zeros, ones)):
            return NEEDS_SEARCH  # the givens contradict each other (``explain`` stalls)
        for r in range(n):
            new = zeros[r] | ones[r]
            rm[r] |= new
            rv[r] |= ones[r]
            while new:
                low = new & -new
                new ^= low
                c = low.bit_length() - 1
                cm[c] |= 1 << r
                if ones[r] & low:
                    cv[c] |= 1 << r
        hardest = max(hardest, level)
    return TECHNIQUES[max(hardest, 0)]


def _placements(level: int, rm: list[int], rv: list[int], cm: list[int], cv: list[int], n: int,
                memo: dict) -> tuple[list[int], list[int]]:
    """(per row the cells technique ``TECHNIQUES[level]`` sets to 0, per row those it sets to 1) as bitmasks,
    found along the rows and the columns of the grid known as ``line_masks`` gives it (``grade``; ``memo``:
    ``_line_placements``')."""
    zeros, ones = [0] * n, [0] * n
    for along, (masks, values) in enumerate(((rm, rv), (cm, cv))):
        found = _line_placements(level, masks, values, n, memo)
        for i, (z, o) in enumerate(found):
            if along == 0:
                zeros[i] |= z
                ones[i] |= o
                continue
            for bits, out in ((z, zeros), (o, ones)):  # column i's cells: bit r is row r
                while bits:
                    low = bits & -bits
                    bits ^= low
                    out[low.bit_length() - 1] |= 1 << i
    return zeros, ones


def _line_placements(level: int, masks: list[int], values: list[int], n: int,
                     memo: dict) -> list[tuple[int, int]]:
    """Per line (bitmask of its known cells, of its ones) the (cells set to 0, cells set to 1) by technique
    ``TECHNIQUES[level]`` along it: ``_pairs``, ``_gaps``, ``_counts``, ``_count_gaps``, ``_finished_lines``
    (a line's, its finished fellows' too for the last, kept in ``memo``: they depend on nothing else)."""
    full = (1 << n) - 1
    half = n // 2
    T = table(n)
    out = []
    finished = 0  # (finished lines) the line indices of the finished lines
    if level == 4:
        for mask, value in zip(masks, values):
            if mask == full and value in T.index:
                finished |= 1 << T.index[value]
    for mask, ones in zip(masks, values):
        key = (level, mask, ones, finished)
        if key in memo:
            out.append(memo[key])
            continue
        unknown = full & ~mask
        zeros_known = mask & ~ones
        to_zero = to_one = 0
        if unknown:
            if level == 0:
                for same, x in ((ones, 1), (zeros_known, 0)):
                    pair = same & (same >> 1)
                    got = ((pair << 2) | (pair >> 1)) & unknown
                    if x:
                        to_zero |= got
                    else:
                        to_one |= got
            elif level == 1:
                to_zero = ((ones & (ones >> 2)) << 1) & unknown
                to_one = ((zeros_known & (zeros_known >> 2)) << 1) & unknown
            elif level == 2:
                if ones.bit_count() == half:
                    to_zero = unknown
                if zeros_known.bit_count() == half:
                    to_one = unknown
            else:
                cand = T.candidates(mask, ones)
                rest = cand & ~finished
                if cand and (level == 3 or (rest and rest != cand)):
                    for p in range(n):
                        if not (unknown >> p) & 1:
                            continue
                        for x in (0, 1):
                            if level == 3:
                                ruled_out = not cand & T.has[p][x]
                            else:
                                ruled_out = bool(cand & T.has[p][x]) and not rest & T.has[p][x]
                            if ruled_out:
                                if x:
                                    to_zero |= 1 << p
                                else:
                                    to_one |= 1 << p
        memo[key] = (to_zero, to_one)
        out.append((to_zero, to_one))
    return out


def simple_closure(givens: Grid) -> Grid:
    """The grid reached by pairs, gaps and counts alone (bitmask sweeps; for the generator)."""
    n = len(givens)
    half = n // 2
    full = (1 << n) - 1
    rm, rv, cm, cv = line_masks(givens)
    changed = True
    while changed:
        changed = False
        for sm, sv, xm, xv in ((rm, rv, cm, cv), (cm, cv, rm, rv)):
            for i in range(n):
                mask, ones = sm[i], sv[i]
                unknown = full & ~mask
                if not unknown:
                    continue
                zeros = mask & ~ones
                new_zero = _opposite_of(ones, unknown, half)
                new_one = _opposite_of(zeros, unknown, half)
                if new_zero & new_one:
                    return _grid(rm, rv, n)  # contradiction: stop where we are
                new = new_zero | new_one
                if not new:
                    continue
                changed = True
                sm[i] |= new
                sv[i] |= new_one
                while new:
                    low = new & -new
                    new ^= low
                    p = low.bit_length() - 1
                    xm[p] |= 1 << i
                    if new_one & low:
                        xv[p] |= 1 << i
    return _grid(rm, rv, n)


def _opposite_of(same: int, unknown: int, half: int) -> int:
    """Empty cells that must differ from the cells in ``same`` by pairs, gaps or counts."""
    if same.bit_count() == half:
        return unknown
    pair = same & (same >> 1)
    gap = same & (same >> 2)
    return ((pair << 2) | (pair >> 1) | (gap << 1)) & unknown


def _grid(rm: list[int], rv: list[int], n: int) -> Grid:
    return [[(rv[r] >> c) & 1 if (rm[r] >> c) & 1 else None for c in range(n)] for r in range(n)]
