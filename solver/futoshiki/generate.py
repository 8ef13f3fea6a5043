"""Random Futoshiki puzzles with a unique solution, deterministic by seed.

1. a random Latin square (the solution), filled by randomised search;
2. signs on a random third of the neighbour pairs, read off the solution;
3. givens added where two solutions still differ until the puzzle is unique
   (for ``easy``: until propagation alone solves it);
4. givens, then signs (keeping at least a quarter of the pairs signed, like a
   newspaper grid), removed in random order whenever the puzzle stays unique
   (``easy``: stays solvable by propagation alone);
5. ``medium`` then adds givens back until the technique ladder solves it
   without search; ``hard`` keeps the minimal puzzle, which may need search.
"""
from __future__ import annotations

import random
from typing import Optional

from ..puzzle import Grid, Puzzle, Relation
from .formats import MAX_SIZE, MIN_SIZE, NAME
from .propagate import Board, board_of, initial_candidates, propagate
from .search import count_solutions, search_from, to_grid
from .techniques import explain

DIFFICULTIES = ("easy", "medium", "hard")
SIGN_SHARE = (0.25, 1 / 3)  #: the share of neighbour pairs carrying a sign: (floor kept, start)


def random_latin_square(n: int, rng: random.Random) -> Grid:
    """A random ``n x n`` Latin square of 1..n."""
    blank = Puzzle(NAME, n, [[None] * n for _ in range(n)])
    board = board_of(blank)
    while True:
        cand = initial_candidates(blank, board)
        if _random_fill(cand, board, rng):
            return to_grid(cand, n)


def _random_fill(cand: list[int], board: Board, rng: random.Random) -> bool:
    """Fill ``cand`` in place with one random solution; False when the random walk failed."""
    while True:
        open_cells = [i for i, c in enumerate(cand) if c & (c - 1)]
        if not open_cells:
            return True
        fewest = min(cand[i].bit_count() for i in open_cells)
        i = rng.choice([j for j in open_cells if cand[j].bit_count() == fewest])
        options = [1 << v for v in range(board.n) if cand[i] >> v & 1]
        bit = rng.choice(options)
        trial = cand[:]
        trial[i] = bit
        if propagate(trial, [i], board):
            cand[:] = trial
        else:
            cand[i] &= ~bit
            if not cand[i] or not propagate(cand, [i], board):
                return False


def _pairs(n: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    return ([((r, c), (r, c + 1)) for r in range(n) for c in range(n - 1)]
            + [((r, c), (r + 1, c)) for r in range(n - 1) for c in range(n)])


def _sign(solution: Grid, a: tuple[int, int], b: tuple[int, int]) -> Relation:
    return Relation(a, b, "<" if solution[a[0]][a[1]] < solution[b[0]][b[1]] else ">")


def _solvable(puzzle: Puzzle, *, forbid: Optional[tuple[int, int, int]] = None) -> bool:
    """Whether ``puzzle`` has a solution (with ``forbid = (row, col, value)`` ruled out)."""
    board = board_of(puzzle)
    cand = initial_candidates(puzzle, board)
    if forbid is not None:
        r, c, v = forbid
        cand[r * board.n + c] &= ~(1 << (v - 1))
    if not propagate(cand, list(range(len(cand))), board):
        return False
    found: list[list[int]] = []
    search_from(cand, board, found, 1)
    return bool(found)


def _propagation_solves(puzzle: Puzzle) -> bool:
    board = board_of(puzzle)
    cand = initial_candidates(puzzle, board)
    return propagate(cand, list(range(len(cand))), board) and all(not c & (c - 1) for c in cand)


def generate(size: int, *, seed: int, difficulty: str = "medium") -> Puzzle:
    """A random ``size x size`` puzzle with a unique solution, the same for the same arguments."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"Futoshiki sizes are {MIN_SIZE} to {MAX_SIZE}, not {size}")
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, not {difficulty!r}")
    n = size
    rng = random.Random(f"futoshiki/{n}/{difficulty}/{seed}")
    solution = random_latin_square(n, rng)
    pairs = _pairs(n)
    signed = rng.sample(pairs, round(SIGN_SHARE[1] * len(pairs)))
    relations = {pair: _sign(solution, *pair) for pair in signed}
    givens: Grid = [[None] * n for _ in range(n)]

    def puzzle() -> Puzzle:
        rels = tuple(sorted(relations.values(), key=lambda rel: (rel.a, rel.b)))
        return Puzzle(NAME, n, [row[:] for row in givens], rels, known_solution=None)

    easy = difficulty == "easy"
    _add_givens(puzzle, givens, solution, rng, easy=easy)

    # The puzzle is unique with solution S; without one clue any other solution breaks that clue,
    # so it stays unique exactly when no solution has the given's value ruled out or the sign reversed.
    cells = [(r, c) for r in range(n) for c in range(n) if givens[r][c] is not None]
    rng.shuffle(cells)
    for r, c in cells:
        givens[r][c] = None
        if _propagation_solves(puzzle()) if easy else not _solvable(puzzle(), forbid=(r, c, solution[r][c])):
            continue
        givens[r][c] = solution[r][c]
    floor = round(SIGN_SHARE[0] * len(pairs))
    order = list(relations)
    rng.shuffle(order)
    for pair in order:
        if len(relations) <= floor:
            break
        rel = relations.pop(pair)
        if easy:
            keep = not _propagation_solves(puzzle())
        else:
            relations[pair] = Relation(rel.a, rel.b, ">" if rel.op == "<" else "<")
            keep = _solvable(puzzle())
            del relations[pair]
        if keep:
            relations[pair] = rel

    if difficulty == "medium":
        while not explain(puzzle()).complete:
            _add_one_given(puzzle(), givens, solution, rng)
    return puzzle()


def _add_givens(puzzle, givens: Grid, solution: Grid, rng: random.Random, *, easy: bool) -> None:
    """Add givens from the solution until the puzzle is unique (``easy``: solved by propagation)."""
    while True:
        p = puzzle()
        if easy:
            if _propagation_solves(p):
                return
            _add_one_given(p, givens, solution, rng)
            continue
        found, _ = count_solutions(p, limit=2)
        if len(found) == 1:
            return
        n = p.size
        differ = [(i // n, i % n) for i in range(n * n) if found[0][i] != found[1][i]]
        r, c = rng.choice(differ)
        givens[r][c] = solution[r][c]


def _add_one_given(p: Puzzle, givens: Grid, solution: Grid, rng: random.Random) -> None:
    """Give the value of a random cell that propagation leaves most open."""
    board = board_of(p)
    cand = initial_candidates(p, board)
    propagate(cand, list(range(len(cand))), board)
    n = p.size
    most = max(c.bit_count() for c in cand)
    choices = [i for i, c in enumerate(cand) if c.bit_count() == most and givens[i // n][i % n] is None]
    if most == 1 or not choices:
        choices = [i for i in range(n * n) if givens[i // n][i % n] is None]
    r, c = divmod(rng.choice(choices), n)
    givens[r][c] = solution[r][c]
