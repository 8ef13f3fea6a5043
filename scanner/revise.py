"""Stage 5, revise: let the rules check the reading.

Each cell has candidates ``[(value or None, probability), ...]`` best first;
kinds with relations (Futoshiki) also give each neighbouring pair candidates
``[("<" | ">" | None, probability), ...]``. The raw reading takes every cell's
and every pair's best candidate. When those givens clash, or
have no or several solutions, the cheapest sets of changes (a cell swapped to a
runner-up; cost = log(p_best / p_runner_up), summed) are tried best-first
until a reading with exactly one solution turns up. A reading is accepted only
when it is clearly the most likely one: few changes, a small total cost, and no
second uniquely solvable reading nearly as likely with a different solution -- drawing a wrong
answer confidently is worse than saying the photo could not be read.
"""
from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from solver.puzzle import Grid, Puzzle, Relation, Result

Candidates = list[tuple[Optional[int], float]]
Cell = tuple[int, int]
Pair = tuple[Cell, Cell]
RelationCandidates = list[tuple[Pair, list[tuple[Optional[str], float]]]]  #: per pair (a upper/left), best first

MAX_CHANGES = 2  #: more changed cells than this is no longer a reading of the photo (every further change
#: allowed multiplies the readings tried, and with them the chance that a wrong one happens to be valid)
MAX_COST = 6.0  #: total log-odds a revision may cost (~ e**6 = 400 times less likely than the raw reading)
RIVAL_MARGIN = 2.3  #: a second unique reading within this cost (10x likelihood) of the best makes the photo unreadable
MAX_SOLVES = 80  #: bound on solver calls
MAX_SECONDS = 0.5  #: safety bound on the CPU time this thread spends searching (MAX_SOLVES is the bound that
#: normally ends it; CPU time, not wall time, so that other processes' load does not change the outcome: under
#: load on the dev sets the wall-time bound ended 5-7 of ~950 searches, some of them on a different outcome)
#: The CPU clock is read after each solver call and every CLOCK_EVERY readings tried, not before each reading:
#: reading a thread's CPU time is a system call (~20 us idle, far more on a loaded machine), dearer than
#: checking that a reading's givens clash.
CLOCK_EVERY = 32
#: grids larger than this many cells get a CPU bound in proportion (a 20x20 Takuzu whose reading leaves a given
#: missing has ambiguous readings that each take the solver 10-90 ms to prove so, against ~1 ms for a 9x9)
BOUND_CELLS = 81
MAX_ALTERNATIVES = 30  #: runner-ups considered (the cheapest)
MAX_KNOWN = 256  #: grids kept to show later readings ambiguous without the solver (``Witnesses``)
MIN_ALT_P = 1e-4  #: runner-ups less likely than this are never tried
MISSED_TRIES = 40  #: ``missed_rival``: the missed marks looked at, at most


@dataclass
class Revision:
    """The outcome: ``status`` "solved" (unique reading and solution) or "unreadable"; ``grid`` the givens read;
    ``result`` the solver's Result for them (None when unreadable without one); ``changes`` the cells changed
    from the raw reading as ``((row, col), raw_value, new_value)``; ``cost`` their summed log-odds;
    ``reason`` why unreadable; ``solves`` solver calls made; ``relations`` the relations read and
    ``relation_changes`` the pairs changed as ``((a, b), raw_op, new_op)`` (op None = no sign); ``ended``
    what ended the search for readings."""

    status: str
    grid: Grid
    result: Optional[Result]
    changes: list[tuple[Cell, Optional[int], Optional[int]]] = field(default_factory=list)
    cost: float = 0.0
    reason: Optional[str] = None
    solves: int = 0
    relations: tuple[Relation, ...] = ()
    relation_changes: list[tuple[Pair, Optional[str], Optional[str]]] = field(default_factory=list)
    ended: str = "done"  #: what ended the search: "done", "solves" (MAX_SOLVES) or "time" (MAX_SECONDS)
    nodes: int = 0  #: solver search nodes visited, summed over the calls
    tries: int = 0  #: readings looked at (the ones that clash too)
    proven: int = 0  #: readings shown ambiguous by two solutions already found, without a solver call


def raw_reading(cands: list[list[Candidates]]) -> Grid:
    """Every cell's best candidate (n x n)."""
    return [[cell[0][0] for cell in row] for row in cands]


def alternatives(cands: list[list[Candidates]], relation_cands: RelationCandidates = (), *,
                 limit: int | None = MAX_ALTERNATIVES) -> list[tuple[float, object, object]]:
    """The cheapest runner-ups ``(cost, slot, value)``, cheapest first; a slot is a cell ``(row, col)`` or
    ``("pair", i)`` for ``relation_cands[i]``; at most ``limit`` of them (None: all)."""
    alts = []
    for r, row in enumerate(cands):
        for c, cell in enumerate(row):
            best_p = cell[0][1]
            for value, p in cell[1:]:
                if p >= MIN_ALT_P:
                    alts.append((math.log(best_p / p), (r, c), value))
    for i, (_, options) in enumerate(relation_cands):
        best_p = options[0][1]
        for op, p in options[1:]:
            if p >= MIN_ALT_P:
                alts.append((math.log(best_p / p), ("pair", i), op))
    alts.sort(key=lambda t: t[0])
    return alts[:limit]


def _relations(pairs: RelationCandidates, ops: list[Optional[str]]) -> tuple[Relation, ...]:
    return tuple(Relation(a, b, op) for ((a, b), _), op in zip(pairs, ops) if op is not None)


def _subsets(alts, *, max_changes: int, max_cost: float):
    """Subsets of ``alts`` (sorted by cost) in non-decreasing total cost, at most one change per cell."""
    if not alts:
        return
    heap = [(alts[0][0], (0,))]
    while heap:
        cost, idx = heapq.heappop(heap)
        if cost > max_cost:
            return
        cells = [alts[i][1] for i in idx]
        if len(set(cells)) == len(cells):
            yield cost, idx
        last = idx[-1]
        if last + 1 < len(alts):
            # replace the last element by the next one; or extend by the next one
            heapq.heappush(heap, (cost - alts[last][0] + alts[last + 1][0], idx[:-1] + (last + 1,)))
            if len(idx) < max_changes:
                heapq.heappush(heap, (cost + alts[last + 1][0], idx + (last + 1,)))


def symmetric(grid: Grid) -> list[Grid]:
    """``grid`` (n x n, full, integers) turned, mirrored and with its values' order reversed (every different
    one of the 16, ``grid`` first): grids the rules of every kind here may hold as well as ``grid`` -- a
    Sudoku's or Futoshiki's rows and columns, a Takuzu's lines, keep what they held; not givens, boxes that
    are not square, nor relations (``revise``'s ``is_solution`` checks each one it uses)."""
    out: list[Grid] = []
    for variant in _symmetric(np.array(grid, np.int64)):
        if variant.tolist() not in out:
            out.append(variant.tolist())
    return out


def _symmetric(grid: np.ndarray) -> list[np.ndarray]:
    """``symmetric`` on an (n, n) integer array (repeats kept)."""
    values = np.unique(grid)
    reverse = values[::-1][np.searchsorted(values, grid)]
    return [np.rot90(h, k) for g in (grid, reverse) for h in (g, g.T) for k in range(4)]


class Witnesses:
    """Full grids known to keep a kind's rules -- solutions of the readings solved, and their ``symmetric``
    ones that keep them (checked when used) -- to show a reading ambiguous without the solver: two of them
    keep its givens and both solve it (``is_solution(puzzle, grid)``, the kind's independent check). At most
    ``MAX_KNOWN`` are kept."""

    def __init__(self, n: int, is_solution: Callable[[Puzzle, Grid], bool]):
        self.grids = np.zeros((MAX_KNOWN, n, n), np.int64)
        self.count = 0
        self.seen: set[bytes] = set()
        self.is_solution = is_solution
        self.pending: list[Grid] = []  #: solutions given, kept when first needed (most searches need none)

    def add(self, solution: Grid) -> None:
        """Keep ``solution`` and its ``symmetric`` grids (the ones not kept yet, while there is room)."""
        self.pending.append(solution)

    def _keep(self, solution: Grid) -> None:
        for variant in _symmetric(np.array(solution, np.int64)):
            key = variant.tobytes()
            if self.count < MAX_KNOWN and key not in self.seen:
                self.seen.add(key)
                self.grids[self.count] = variant
                self.count += 1

    def two_solve(self, puzzle: Puzzle, grid: Grid) -> bool:
        """Whether two of the grids kept solve ``puzzle``, whose givens are ``grid`` (n x n, None empty)."""
        if self.count + len(self.pending) < 2:
            return False
        for solution in self.pending:
            self._keep(solution)
        self.pending.clear()
        at = [(r, c, v) for r, row in enumerate(grid) for c, v in enumerate(row) if v is not None]
        rows = np.array([t[0] for t in at], np.int64)
        cols = np.array([t[1] for t in at], np.int64)
        values = np.array([t[2] for t in at], np.int64)
        hits = 0
        for i in np.flatnonzero((self.grids[:self.count, rows, cols] == values).all(axis=1)):
            if self.is_solution(puzzle, self.grids[i].tolist()):
                hits += 1
                if hits == 2:
                    return True
        return False


def cpu_bound(n: int) -> float:
    """Seconds of CPU time a search for the reading of an n x n grid may take by default: ``MAX_SECONDS``, in
    proportion to the cells over ``BOUND_CELLS`` (a 20x20's proofs of ambiguity cost 10-90 ms a solver call)."""
    return MAX_SECONDS * max(1.0, n * n / BOUND_CELLS)


def revise(
    cands: list[list[Candidates]],
    make_puzzle: Callable[[Grid, tuple[Relation, ...]], Puzzle],
    solve: Callable[[Puzzle], Result],
    *,
    relation_cands: RelationCandidates = (),
    clash: Callable[[Puzzle], Optional[str]] | None = None,
    max_changes: int = MAX_CHANGES,
    rival_changes: int | None = None,
    max_cost: float = MAX_COST,
    rival_margin: float = RIVAL_MARGIN,
    max_solves: int = MAX_SOLVES,
    max_seconds: float | None = None,
    prune: bool = True,
    is_solution: Callable[[Puzzle, Grid], bool] | None = None,
) -> Revision:
    """The most likely reading of ``cands`` (n x n candidate lists) whose puzzle has exactly one solution.

    ``make_puzzle(grid, relations)`` builds the puzzle for a grid of givens and a tuple of ``Relation``
    (from ``relation_cands``: per neighbouring pair, its sign candidates); ``solve`` is
    ``solver.api.solve``; ``clash`` (optional, cheap) names a rule the givens break,
    to skip the solver for readings that clash.

    A reading is accepted with at most ``max_changes`` changes, but rivals are looked for among readings
    with up to ``rival_changes`` (default one more): a reading is only trusted when no likely reading
    just beyond what may be accepted contradicts it. The search ends after ``max_solves`` solver calls, or
    ``max_seconds`` of this thread's CPU time (default ``MAX_SECONDS``, more for grids over ``BOUND_CELLS``).

    When the raw reading's givens clash (and no relation may change), the readings that leave one of its
    clashes as it is are skipped unchecked (``clash_cores``; ``clash`` must only forbid: givens that clash
    still clash with more beside them), and the search is not made at all when more clashes lie apart than
    changes may be made; ``prune=False`` checks every reading (same outcome, slower).

    ``is_solution(puzzle, grid)`` (optional: the kind's independent check) lets the search skip the solver
    for a reading that two different full grids already known both solve (``Witnesses``: the solutions of the
    readings tried before -- an ambiguous one gives two -- and their turned, mirrored and value-reversed
    grids): it is ambiguous, as the solver would say. Such a reading counts against ``max_solves`` as the call
    it replaces, so the outcome is the same as without (a Takuzu reader's reading of a Futoshiki's few digits
    is ambiguous, and so is nearly every correction of it: 35 solver calls, 15 with this).
    """
    rival_changes = max_changes + 1 if rival_changes is None else max(rival_changes, max_changes)
    raw = raw_reading(cands)
    raw_ops = [options[0][0] for _, options in relation_cands]
    alts = alternatives(cands, relation_cands)
    found: list[tuple[float, Grid, Result, tuple, tuple]] = []
    solves = 0
    first_result: Optional[Result] = None
    ended = "done"
    nodes = tries = proven = 0
    known = Witnesses(len(cands), is_solution) if is_solution is not None else None

    def attempt(cost: float, idx: tuple) -> bool:
        """Try the reading ``idx`` changes; False when its givens clash."""
        nonlocal solves, first_result, nodes, tries, proven
        tries += 1
        grid, ops = _changed(raw, raw_ops, [alts[i][1:] for i in idx])
        relations = _relations(relation_cands, ops)
        puzzle = make_puzzle(grid, relations)
        if clash is not None and clash(puzzle):
            return False
        if known is not None and known.two_solve(puzzle, grid):
            proven += 1
            return True
        solves += 1
        result = solve(puzzle)
        nodes += getattr(result, "nodes", 0) or 0
        if known is not None:
            for solution in result.solutions:
                known.add(solution)
        if not idx:
            first_result = result
        if result.status == "solved":
            found.append((cost, grid, result, idx, relations))
        return True

    cores: list[frozenset] = []
    if not attempt(0.0, ()) and prune and not any(slot[0] == "pair" for _, slot, _ in alts):
        def clashes(cells) -> bool:
            only = [[v if (r, c) in cells else None for c, v in enumerate(row)] for r, row in enumerate(raw)]
            return clash(make_puzzle(only, _relations(relation_cands, raw_ops))) is not None
        cores = clash_cores(raw, clashes, limit=rival_changes + 1)
    if len(cores) > rival_changes:
        pass  # more clashes apart than changes allowed: no reading within reach has givens that agree
    elif not found or (alts and alts[0][0] <= rival_margin):
        # a raw reading that solves is searched past only when some runner-up lies within ``rival_margin``
        # of its cell's (pair's) best: no other reading could be a rival (a cell at p 0.89 with its runner-up
        # at 0.10 is as open as one at 0.6; a 16x16's E read as B so, left unsearched, solved to a wrong answer)
        if max_seconds is None:
            max_seconds = cpu_bound(len(cands))
        deadline = time.thread_time() + max_seconds
        solves_clocked = solves
        for k, (cost, idx) in enumerate(_subsets(alts, max_changes=rival_changes, max_cost=max_cost)):
            if solves + proven >= max_solves:
                ended = "solves"
                break
            if (k % CLOCK_EVERY == 0 or solves > solves_clocked) and time.thread_time() > deadline:
                ended = "time"
                break
            solves_clocked = solves
            if found and cost > found[0][0] + rival_margin:
                break
            if cores and not all(any(alts[i][1] in core for i in idx) for core in cores):
                continue  # leaves a clash of the raw reading as it is
            attempt(cost, idx)
            if any(f[2].solution != found[0][2].solution for f in found[1:]):
                break
    if not found:
        why = "no reading of the givens within a few likely corrections has exactly one solution"
        if first_result is not None and first_result.status == "ambiguous" and not alts:
            why = "the givens read have more than one solution"
        return Revision("unreadable", raw, first_result, reason=why, solves=solves,
                        relations=_relations(relation_cands, raw_ops), ended=ended, nodes=nodes, tries=tries,
                        proven=proven)
    cost, grid, result, idx, relations = found[0]
    if len(idx) > max_changes:
        return Revision("unreadable", raw, first_result, solves=solves, relations=_relations(relation_cands, raw_ops),
                        ended=ended, nodes=nodes, tries=tries, proven=proven,
                        reason="the likeliest valid reading needs more corrections than a photo may be read with")
    slots = {alts[i][1] for i in idx}
    changes = [((r, c), raw[r][c], grid[r][c]) for (r, c) in sorted(s for s in slots if s[0] != "pair")]
    new_ops = {alts[i][1][1]: alts[i][2] for i in idx if alts[i][1][0] == "pair"}
    rel_changes = [(relation_cands[i][0], raw_ops[i], op) for i, op in sorted(new_ops.items())]
    extra = dict(solves=solves, relations=relations, relation_changes=rel_changes, ended=ended, nodes=nodes,
                 tries=tries, proven=proven)
    if any(f[0] - cost <= rival_margin and f[2].solution != result.solution for f in found[1:]) or (
            first_result is not None and first_result.status == "ambiguous"
            and missed_rival(cands, relation_cands, raw, raw_ops, result.solution, make_puzzle, solve, clash=clash,
                             within=cost + rival_margin, known=known,
                             deadline=time.thread_time() + cpu_bound(len(cands)))):
        return Revision("unreadable", grid, result, changes, cost,
                        reason="two different readings of the photo both make a valid puzzle", **extra)
    return Revision("solved", grid, result, changes, cost, **extra)


def missed_rival(cands: list[list[Candidates]], relation_cands: RelationCandidates, raw: Grid, raw_ops: list,
                 chosen: Grid, make_puzzle, solve, *, within: float, clash=None, known: Witnesses | None = None,
                 deadline: float = math.inf, limit: int = MISSED_TRIES) -> bool:
    """Whether one mark the raw reading (``raw``, ``raw_ops``: ambiguous) missed, at a cost (log-odds, as
    ``alternatives``) of ``within`` or less, makes a valid puzzle whose solution is not ``chosen`` (the
    revision's): a given in an empty cell, or a sign on a pair read without one, that ``chosen`` breaks. The
    ``limit`` cheapest are looked at, until this thread's CPU clock passes ``deadline``; those two grids
    ``known`` solve (``Witnesses``) are ambiguous without the solver.

    ``revise`` looks for rivals among the cheapest ``MAX_ALTERNATIVES`` runner-ups up to ``MAX_COST``; an
    ambiguous reading lacks marks, and the cells and gaps of a big grid each leave a faint chance of one, so
    the mark the photo hides may lie past both while a speck's chance picked the revision (a 16 x 16 circle
    print's given washed out by glare, 0.0012 a 0, the 31st runner-up, lost to a speck's 0.0038 that picked
    the other solution)."""
    def breaks(slot, value) -> bool:  # a mark where the raw reading has none, that ``chosen`` does not keep
        if slot[0] == "pair":
            (a, b), _ = relation_cands[slot[1]]
            return raw_ops[slot[1]] is None and not Relation(a, b, value).holds(chosen[a[0]][a[1]], chosen[b[0]][b[1]])
        return raw[slot[0]][slot[1]] is None and value != chosen[slot[0]][slot[1]]

    marks = [(slot, value) for cost, slot, value in alternatives(cands, relation_cands, limit=None)
             if cost <= within and breaks(slot, value)]  # (cheapest first)
    for slot, value in marks[:limit]:
        if time.thread_time() > deadline:
            break
        grid, ops = _changed(raw, raw_ops, [(slot, value)])
        puzzle = make_puzzle(grid, _relations(relation_cands, ops))
        if (clash is not None and clash(puzzle) is not None) or (known is not None and known.two_solve(puzzle, grid)):
            continue
        result = solve(puzzle)
        if result.status == "solved" and result.solution != chosen:
            return True
        if known is not None:
            for solution in result.solutions:
                known.add(solution)
    return False


def _changed(raw: Grid, raw_ops: list, changes: list) -> tuple[Grid, list]:
    """(givens, ops) of the raw reading with ``changes`` [(slot, value), ...] made: a slot is a cell ``(row,
    col)`` or ``("pair", i)`` (as ``alternatives``)."""
    grid, ops = [list(row) for row in raw], list(raw_ops)
    for slot, value in changes:
        if slot[0] == "pair":
            ops[slot[1]] = value
        else:
            grid[slot[0]][slot[1]] = value
    return grid, ops


def clash_cores(grid: Grid, clashes: Callable[[frozenset], bool], *, limit: int) -> list[frozenset]:
    """Up to ``limit`` disjoint sets of given cells of ``grid`` whose givens alone break a rule
    (``clashes(cells)`` tells whether the givens of ``cells`` alone clash), each minimal: every reading
    that keeps the givens of one of them as read clashes too (the rules only forbid, so givens beside a clash
    never mend it), i.e. every reading with agreeing givens changes a cell of each. Found one by one by
    halving (``_core``), each from the givens the earlier ones leave."""
    rest = frozenset((r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v is not None)
    cores: list[frozenset] = []
    while len(cores) < limit and clashes(rest):
        core = frozenset(_core([], sorted(rest), clashes, checked=False))
        cores.append(core)
        rest -= core
    return cores


def _core(base: list, cells: list, clashes: Callable[[frozenset], bool], *, checked: bool) -> list:
    """A minimal part of ``cells`` whose givens clash together with those of ``base`` (``base`` + ``cells``
    clash): halve ``cells``, find what the second half needs beside the first, then what the first needs
    beside that (``checked``: ``base`` alone was just found not to clash... unless it does, then nothing)."""
    if checked and clashes(frozenset(base)):
        return []
    if len(cells) == 1:
        return cells
    half = len(cells) // 2
    first, second = cells[:half], cells[half:]
    need_second = _core(base + first, second, clashes, checked=True)
    need_first = _core(base + need_second, first, clashes, checked=bool(need_second))
    return need_first + need_second
