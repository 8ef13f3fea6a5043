"""Exact Takuzu solving: line-table propagation, then search.

State: for every row ``r`` a known-cells mask ``rm[r]`` and values ``rv[r]``
(bit ``c`` = cell ``(r, c)``), the same for columns (bit ``r``), and for every
line the bitset of valid lines (``lines.LineTable``) still possible for it.

*Propagation* keeps each line's candidate set equal to the valid lines that agree
with its known cells and differ from every line of the same direction that is
already determined; a cell on which all of a line's candidates agree is forced.
*Search* first probes the lines with few candidates (a candidate whose propagation
fails is dropped), then branches on the line with the fewest candidates, one branch
per candidate.
"""
from __future__ import annotations

import random
from typing import Callable, Optional

from ..puzzle import Grid, Puzzle, Result
from .lines import LineTable, line_masks, table

# A state: [row masks, row values, column masks, column values, row candidates, column candidates].
State = list


def initial_state(givens: Grid) -> tuple[State, LineTable]:
    """The state holding ``givens`` (``n`` rows of 0/1/None), not yet propagated."""
    n = len(givens)
    T = table(n)
    rm, rv, cm, cv = line_masks(givens)
    rc = [T.candidates(rm[i], rv[i]) for i in range(n)]
    cc = [T.candidates(cm[i], cv[i]) for i in range(n)]
    return [rm, rv, cm, cv, rc, cc], T


MEMO_SIZE = 100_000  #: bound of the per-size memo of the cells a candidate set agrees on
_AGREED: dict[int, dict[int, tuple[int, int]]] = {}


def propagate(st: State, queue: set, T: LineTable) -> bool:
    """Propagate the lines in ``queue`` (ids: rows ``0..n-1``, columns ``n..2n-1``) to a fixpoint.

    Mutates ``st``; returns False on a contradiction (a line with no candidate left).
    """
    rm, rv, cm, cv, rc, cc = st
    n = T.n
    has = T.has
    lines = T.lines
    full = (1 << n) - 1
    agreed = _AGREED.setdefault(n, {})
    while queue:
        L = queue.pop()
        if L < n:
            i = L
            sm, sv, sc, xm, xv, xc, xoff, soff = rm, rv, rc, cm, cv, cc, n, 0
        else:
            i = L - n
            sm, sv, sc, xm, xv, xc, xoff, soff = cm, cv, cc, rm, rv, rc, 0, n
        cand = sc[i]
        if not cand:
            return False
        mask = sm[i]
        if not cand & (cand - 1):
            # Determined: no other line of this direction may be the same.
            for j in range(n):
                if j != i and sc[j] & cand:
                    other = sc[j] & ~cand
                    if not other:
                        return False
                    sc[j] = other
                    queue.add(soff + j)
            if mask == full:
                continue
            line = lines[cand.bit_length() - 1]
            new = full & ~mask
            sm[i] = full
            sv[i] = line
        else:
            known = agreed.get(cand)
            if known is None:
                # The positions where every candidate holds a 0, or every candidate a 1.
                zeros = ones = 0
                for p in range(n):
                    hp = has[p]
                    if not cand & hp[1]:
                        zeros |= 1 << p
                    elif not cand & hp[0]:
                        ones |= 1 << p
                if len(agreed) >= MEMO_SIZE:
                    agreed.clear()
                known = agreed[cand] = (zeros | ones, ones)
            new = known[0] & ~mask
            val = known[1] & new
            if not new:
                continue
            sm[i] = mask | new
            line = sv[i] | val
            sv[i] = line
        bit = 1 << i
        hi = has[i]
        while new:
            low = new & -new
            new ^= low
            p = low.bit_length() - 1
            xm[p] |= bit
            if line & low:
                xv[p] |= bit
                other = xc[p] & hi[1]
            else:
                other = xc[p] & hi[0]
            if other != xc[p]:
                if not other:
                    return False
                xc[p] = other
                queue.add(xoff + p)
    return True


def to_grid(st: State, n: int) -> Grid:
    rm, rv = st[0], st[1]
    return [[(rv[r] >> c) & 1 if (rm[r] >> c) & 1 else None for c in range(n)] for r in range(n)]


def _bits(cand: int) -> list[int]:
    """Indices of the set bits of ``cand``, lowest first."""
    out = []
    while cand:
        low = cand & -cand
        out.append(low.bit_length() - 1)
        cand ^= low
    return out


def _most_constrained(st: State, n: int) -> Optional[int]:
    """The undetermined line with the fewest candidates (id as in ``propagate``), or None when all are."""
    best, best_count = None, 0
    for off, cands in ((0, st[4]), (n, st[5])):
        for i, cand in enumerate(cands):
            if cand & (cand - 1):
                count = cand.bit_count()
                if best is None or count < best_count:
                    best, best_count = off + i, count
                    if count == 2:
                        return best
    return best


PROBE_WIDTHS = (4, 8, 16, 32)  #: probe lines with at most this many candidates, narrowest first
#: candidate lines a random fill (``random_solution``) may probe before it starts afresh. Random branching is
#: heavy-tailed: of 100 seeds a size, all but one or two fill a 16x16 or 20x20 in under 40 nodes (about 3,000
#: probes), yet 20x20 seed 88 probed over 200,000 without end, and the generator hung (synth seed 2946004).
#: Well past every fill that ends (~40 s of probing), so a seed that finished before gives the same grid.
RESTART_WORK = 1_000_000


class OverBudget(Exception):
    """The search used up the work budget it was given (see ``search``)."""


def _probe_line(st: State, T: LineTable, line: int, budget: Optional[list] = None) -> Optional[bool]:
    """Try each candidate of ``line`` by propagation and drop those that fail.

    Returns None when every candidate survives, True when some were dropped (``st``
    is then propagated), False on a contradiction.
    """
    n = T.n
    which, i = (4, line) if line < n else (5, line - n)
    cand = st[which][i]
    if budget is not None:
        budget[0] -= cand.bit_count()
        if budget[0] < 0:
            raise OverBudget
    keep = 0
    for k in _bits(cand):
        child = [st[0][:], st[1][:], st[2][:], st[3][:], st[4][:], st[5][:]]
        child[which][i] = 1 << k
        if propagate(child, {line}, T):
            keep |= 1 << k
    if keep == cand:
        return None
    st[which][i] = keep
    return bool(keep) and propagate(st, {line}, T)


def probe(st: State, T: LineTable, budget: Optional[list] = None) -> bool:
    """Line probing: sweep the lines of one width band until it learns nothing, then widen.

    A one-level lookahead run at every search node: a candidate whose propagation
    fails is dropped. It turns most branching into propagation on hard puzzles. Mutates ``st``;
    False on a contradiction.
    """
    n = T.n
    fruitless: dict[int, int] = {}  # line -> its candidates when probing it last taught nothing
    w = 0
    while w < len(PROBE_WIDTHS):
        width = PROBE_WIDTHS[w]
        learnt = False
        for line in range(2 * n):
            cand = st[4][line] if line < n else st[5][line - n]
            if not 1 < cand.bit_count() <= width or fruitless.get(line) == cand:
                continue
            outcome = _probe_line(st, T, line, budget)
            if outcome is False:
                return False
            if outcome:
                learnt = True
            else:
                fruitless[line] = cand
        if not learnt:
            w += 1  # this width is exhausted: widen
    return True


def search(
    st: State, T: LineTable, *, limit: int = 2, order: Optional[Callable[[list[int]], list[int]]] = None,
    budget: Optional[int] = None,
) -> tuple[list[Grid], int]:
    """Up to ``limit`` solutions reachable from the propagated state ``st``, and the nodes visited.

    ``order`` reorders a line's candidate indices before branching (for random generation);
    ``budget`` bounds the candidate lines probed, raising ``OverBudget`` past it.
    """
    work = None if budget is None else [budget]
    n = T.n
    solutions: list[Grid] = []
    nodes = 0
    # Depth-first; each frame is (state, branching line id, candidate indices left to try).
    stack: list[tuple[State, int, list[int]]] = []

    def push(state: State) -> bool:
        """Open a frame for ``state``; True when it is already a solution."""
        if not probe(state, T, work):
            return False
        line = _most_constrained(state, n)
        if line is None:
            solutions.append(to_grid(state, n))
            return True
        which = 4 if line < n else 5
        ks = _bits(state[which][line if line < n else line - n])
        ks = order(ks) if order else ks
        ks.reverse()  # popped from the end
        stack.append((state, line, ks))
        return False

    nodes += 1
    if push(st) and len(solutions) >= limit:
        return solutions, nodes
    while stack:
        cur, line, ks = stack[-1]
        if not ks:
            stack.pop()
            continue
        k = ks.pop()
        nodes += 1
        child = [cur[0][:], cur[1][:], cur[2][:], cur[3][:], cur[4][:], cur[5][:]]
        if line < n:
            child[4][line] = 1 << k
        else:
            child[5][line - n] = 1 << k
        if propagate(child, {line}, T) and push(child) and len(solutions) >= limit:
            break
    return solutions, nodes


def solve(puzzle: Puzzle) -> Result:
    """Exact solve with a uniqueness proof: ``solved`` / ``ambiguous`` / ``impossible``."""
    st, T = initial_state(puzzle.givens)
    n = T.n
    if not propagate(st, set(range(2 * n)), T):
        return Result("impossible", reason="the givens leave some line without a valid completion", nodes=1)
    solutions, nodes = _two_solutions(st, T)
    if not solutions:
        return Result("impossible", reason="no grid satisfies every rule with these givens", nodes=nodes)
    if len(solutions) == 1:
        return Result("solved", solutions=solutions, nodes=nodes)
    return Result("ambiguous", solutions=solutions, nodes=nodes)


#: candidate lines the search for two solutions probes in its own order before it tries random ones. Branching
#: in one fixed order is heavy-tailed like a random fill's (``RESTART_WORK``): a 20 x 20 with 4 givens (a photo's
#: table read as a grid, dev 8320043) probed over 200,000 (9 minutes) without finding a solution, while a random
#: order finds two at once. Readings of 465 generated Takuzu (6x6 .. 20x20), each with a given dropped or flipped
#: (1,862 puzzles), probed at most 3,470, the collections' puzzles none (propagation solves them).
ORDERED_WORK = 10_000
RESTARTS = 4  #: random orders tried (each within ORDERED_WORK) before the fixed order goes on without bound


def _two_solutions(st: State, T: LineTable) -> tuple[list[Grid], int]:
    """Up to two solutions from the propagated ``st`` and the nodes visited (``search``, limit 2): in the fixed
    order within ``ORDERED_WORK``; past it, in the first of ``RESTARTS`` random orders (the same ones every run)
    that ends within that bound; else in the fixed order to the end. Exact either way: a search that ends has
    found two solutions or seen the whole tree. The nodes are those of the search that ended."""
    def fresh() -> State:
        return [part[:] for part in st]

    try:
        return search(fresh(), T, limit=2, budget=ORDERED_WORK)
    except OverBudget:
        pass
    rng = random.Random(T.n)
    for _ in range(RESTARTS):
        try:  # (a random order that ends within its bound has searched the whole tree: its count is exact)
            return search(fresh(), T, limit=2, order=lambda ks: rng.sample(ks, len(ks)), budget=ORDERED_WORK)
        except OverBudget:
            continue
    return search(st, T, limit=2)


def propagated(givens: Grid) -> Optional[Grid]:
    """The grid reached by propagation alone (None on a contradiction)."""
    st, T = initial_state(givens)
    if not propagate(st, set(range(2 * T.n)), T):
        return None
    return to_grid(st, T.n)


def has_solution(givens: Grid, *, budget: Optional[int] = None) -> Optional[bool]:
    """Whether ``givens`` have a solution; None when the ``budget`` (see ``search``) runs out first."""
    st, T = initial_state(givens)
    if not propagate(st, set(range(2 * T.n)), T):
        return False
    try:
        return bool(search(st, T, limit=1, budget=budget)[0])
    except OverBudget:
        return None


def random_solution(n: int, rng: random.Random, *, restart_work: int = RESTART_WORK) -> Grid:
    """A random valid full grid of size ``n``, by search with random branching, started afresh (the same
    ``rng`` going on) whenever a try probes ``restart_work`` candidate lines without finding one."""
    def shuffled(ks: list[int]) -> list[int]:
        rng.shuffle(ks)
        return ks

    while True:
        st, T = initial_state([[None] * n for _ in range(n)])
        propagate(st, set(range(2 * n)), T)
        try:
            solutions, _ = search(st, T, limit=1, order=shuffled, budget=restart_work)
        except OverBudget:
            continue
        return solutions[0]
