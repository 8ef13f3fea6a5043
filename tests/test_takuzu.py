"""Takuzu: text formats, rules, exact solving, the technique ladder and the generator.

Small puzzles are cross-checked against a brute force over every valid 4x4 and
6x6 grid, built here with plain loops that share nothing with the solver.
"""
from __future__ import annotations

import itertools
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from solver import api, kinds
from solver import takuzu as T
from solver.errors import ParseError
from solver.puzzle import Puzzle
from solver.takuzu import techniques
from conftest import shared_path

TAKUZU_FILES = [f"size{n}level{level}.txt" for n in (6, 8, 10, 12, 14) for level in (1, 2, 3, 4)]


def puzzle(rows: str) -> Puzzle:
    """A puzzle from rows separated by ``/``, ``.`` empty."""
    grid = [[None if ch == "." else int(ch) for ch in row] for row in rows.split("/")]
    return Puzzle("takuzu", len(grid), grid)


def text_of(grid) -> str:
    return "".join(str(v) for row in grid for v in row)


@lru_cache(maxsize=None)
def all_grids(n: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every valid n x n Takuzu grid, by row-wise enumeration with plain checks."""
    def line_ok(line) -> bool:
        text = "".join(map(str, line))
        return "000" not in text and "111" not in text

    rows = [r for r in itertools.product((0, 1), repeat=n) if sum(r) == n // 2 and line_ok(r)]
    out = []

    def extend(chosen):
        if len(chosen) == n:
            cols = list(zip(*chosen))
            if all(sum(c) == n // 2 and line_ok(c) for c in cols) and len(set(cols)) == n:
                out.append(tuple(chosen))
            return
        for r in rows:
            if r in chosen:
                continue
            new = chosen + [r]
            k = len(new)
            if all(sum(c) <= n // 2 and k - sum(c) <= n // 2 and line_ok(c) for c in zip(*new)):
                extend(new)

    extend([])
    return tuple(out)


@lru_cache(maxsize=None)
def grids_with(n: int) -> dict:
    """``{(row, col, value): bitset of the indices in all_grids(n) with that value there}``."""
    out = {}
    for k, g in enumerate(all_grids(n)):
        for r in range(n):
            for c in range(n):
                out[r, c, g[r][c]] = out.get((r, c, g[r][c]), 0) | (1 << k)
    return out


def brute_force(p: Puzzle) -> list:
    """Every valid grid that keeps the givens of ``p``."""
    n = p.size
    keep = (1 << len(all_grids(n))) - 1
    for r in range(n):
        for c in range(n):
            if p.givens[r][c] is not None:
                keep &= grids_with(n)[r, c, p.givens[r][c]]
    return [g for k, g in enumerate(all_grids(n)) if (keep >> k) & 1]


# --- the kind interface --------------------------------------------------------------------------


def test_the_package_is_a_kind():
    kind = kinds.get("takuzu")
    assert kind.NAME == "takuzu"
    assert kind.SIZES == (4, 6, 8, 10, 12, 14, 16, 18, 20)
    for name in ("parse", "format_grid", "format_line", "check_givens", "solve", "is_solution",
                 "explain", "generate"):
        assert callable(getattr(kind, name)), name


def test_the_brute_force_knows_the_grid_counts():
    # 72 valid 4x4 grids and 4140 valid 6x6 grids (OEIS A253316; a check on the test oracle).
    assert len(all_grids(4)) == 72
    assert len(all_grids(6)) == 4140


# --- formats -------------------------------------------------------------------------------------


def test_one_puzzle_a_line_with_its_solution():
    text = "# a comment\n\n.1...0.0........ 0110101001011001\n"
    (p,) = T.parse(text, source="x.txt")
    assert p.size == 4 and p.line == 3 and p.source == "x.txt"
    assert p.givens[0] == [None, 1, None, None] and p.givens[1] == [None, 0, None, 0]
    assert text_of(p.known_solution) == "0110101001011001"


def test_dashes_are_empty_cells_too():
    (a,) = T.parse("-1---0-0--------")
    (b,) = T.parse(".1...0.0........")
    assert a.givens == b.givens


def test_grids_with_spaces_and_blank_lines_between_them():
    text = "0 1 . .\n. . . .\n. . 1 .\n. . . .\n\n# second\n1...\n....\n....\n...0\n"
    first, second = T.parse(text)
    assert first.givens[0] == [0, 1, None, None] and first.givens[2][2] == 1
    assert second.givens[0][0] == 1 and second.givens[3][3] == 0 and second.line == 7


def test_format_grid_and_line():
    p = puzzle("01../..../..1./....")
    assert T.format_grid(p) == "0 1 . .\n. . . .\n. . 1 .\n. . . ."
    assert T.format_line(p) == "01........1....."
    solution = [[0, 1, 1, 0], [1, 0, 0, 1], [0, 1, 1, 0], [1, 0, 0, 1]]
    assert T.format_line(p, solution) == "0110100101101001"


grids = st.integers(min_value=2, max_value=10).flatmap(
    lambda half: st.lists(
        st.lists(st.sampled_from([None, 0, 1]), min_size=2 * half, max_size=2 * half),
        min_size=2 * half, max_size=2 * half,
    )
)


@settings(max_examples=60, deadline=None)
@given(grids)
def test_formats_round_trip(grid):
    p = Puzzle("takuzu", len(grid), grid)
    (from_grid,) = T.parse(T.format_grid(p))
    (from_line,) = T.parse(T.format_line(p))
    assert from_grid.givens == grid and from_line.givens == grid


@pytest.mark.parametrize(
    "text, line, col, words",
    [
        ("0x01............", 1, 2, "unexpected character"),
        ("\n0101..........10 1\n", 2, 18, "solution has 1 cells"),
        ("1...........0... 0110100101101001", 1, 18, "contradicts the given 1 at r1c1"),
        ("................ 0000111100001111", 1, 18, "breaks a rule"),
        ("................ 01101001011010x1", 1, 32, "unexpected character"),
        (".................................", 1, 1, "not a square"),
        ("." * 25, 1, 1, "even size"),
        ("." * 22 * 22, 1, 1, "outside 4..20"),
        ("01\n10\n", 1, 1, "outside 4..20"),
        ("010\n101\n010\n", 1, 1, "even size"),
        ("0101\n10.0\n010\n....\n", 3, 4, "ragged"),
        ("0101\n10.0\n01011\n....\n", 3, 5, "ragged"),
        ("0101\n10.0\n....\n", 1, 1, "not square"),
        ("# c\n0 1 . .\n. . . .\n. . 2 .\n. . . .\n", 4, 5, "unexpected character '2'"),
    ],
)
def test_malformed_text_names_line_and_column(text, line, col, words):
    with pytest.raises(ParseError) as err:
        T.parse(text)
    assert (err.value.line, err.value.col) == (line, col)
    assert words in err.value.reason


def test_read_puzzles_sniffs_takuzu():
    (p,) = api.read_puzzles("0 1 . .\n. . . .\n. . 1 .\n. . . .\n")
    assert p.kind == "takuzu" and p.size == 4
    (q,) = api.read_puzzles("-0----0-00-----0" + "-" * 20 + "\n")
    assert q.kind == "takuzu" and q.size == 6


# --- rules ---------------------------------------------------------------------------------------


def test_check_givens_names_the_broken_rule():
    assert T.check_givens(puzzle("0.../.111/..../....")) == "three 1s in a row at r2c2..r2c4"
    assert T.check_givens(puzzle("0.../0.../1.../0...")) == "more than 2 zeros in column 1 (3)"
    assert T.check_givens(puzzle("0110/..../0110/....")) == "rows 1 and 3 are full and identical"
    assert T.check_givens(puzzle("0.../0.../0.../....")) == "three 0s in a column at r1c1..r3c1"
    assert T.check_givens(puzzle("01../..../..1./....")) is None


def test_is_solution_checks_every_rule():
    good = puzzle("0110/1001/0101/1010")
    assert T.is_solution(puzzle("0.../..../..../...."), good.givens)
    assert not T.is_solution(puzzle("1.../..../..../...."), good.givens)  # a given changed
    assert not T.is_solution(good, [[0, 1, 1, 0], [1, 0, 0, 1], [0, 1, 1, 0], [1, 0, 0, 1]])  # equal rows
    assert not T.is_solution(good, [[0, 1, 1, 0], [1, 0, 0, 1], [0, 1, 0, 1], [1, 0, 1, None]])
    blank = puzzle("....../....../....../....../....../......")
    unbalanced = [[0, 1, 1, 0, 1, 1]] + [[0] * 6] * 5
    assert not T.is_solution(blank, unbalanced)
    assert not T.is_solution(blank, [[1, 1, 1, 0, 0, 0]] * 6)  # triples


# --- solving -------------------------------------------------------------------------------------


def test_a_small_puzzle_is_solved_uniquely():
    p = puzzle("..../.00./1.../.0..")
    result = T.solve(p)
    assert result.status == "solved"
    assert result.solution == [[0, 1, 1, 0], [1, 0, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]]
    assert [list(map(list, g)) for g in brute_force(p)] == [result.solution]


def test_an_empty_grid_is_ambiguous_with_two_valid_solutions():
    p = puzzle("..../..../..../....")
    result = T.solve(p)
    assert result.status == "ambiguous"
    a, b = result.solutions
    assert a != b and T.is_solution(p, a) and T.is_solution(p, b)


def test_consistent_givens_without_a_solution_are_impossible():
    p = puzzle("1.10/.0../...1/..01")
    assert T.check_givens(p) is None
    assert brute_force(p) == []
    assert T.solve(p).status == "impossible"


def test_api_solve_rejects_contradictory_givens():
    result = api.solve(puzzle("0.../.111/..../...."))
    assert result.status == "impossible" and result.contradiction


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([4, 6]), st.integers(0, 10**6), st.floats(0.0, 0.8))
def test_solve_agrees_with_brute_force(n, seed, density):
    import random

    rng = random.Random(seed)
    base = rng.choice(all_grids(n))
    grid = [[base[r][c] if rng.random() < density else None for c in range(n)] for r in range(n)]
    if rng.random() < 0.3:  # now and then a given that may break the solution
        r, c = rng.randrange(n), rng.randrange(n)
        grid[r][c] = rng.randrange(2)
    p = Puzzle("takuzu", n, grid)
    expected = brute_force(p)
    result = T.solve(p)
    want = {0: "impossible", 1: "solved"}.get(len(expected), "ambiguous")
    assert result.status == want
    for solution in result.solutions:
        assert T.is_solution(p, solution)
        assert tuple(map(tuple, solution)) in expected


# --- the human ladder ----------------------------------------------------------------------------


def test_pairs_gaps_and_counts_sentences():
    steps = techniques._pairs(puzzle("....../.00.../....../....../....../......").givens,
                              ("row", 2, [(1, c) for c in range(6)]))
    assert [s.text for s in steps] == [
        "r2c1 = 1: r2c2 and r2c3 are both 0 (pair)",
        "r2c4 = 1: r2c2 and r2c3 are both 0 (pair)",
    ]
    p = puzzle("1.1.0./....../....../....../....../......")
    row = ("row", 1, [(0, c) for c in range(6)])
    assert techniques._gaps(p.givens, row)[0].text == "r1c2 = 0: it sits between two 1s at r1c1 and r1c3 (gap)"
    p = puzzle("0.0..0/....../....../....../....../......")
    texts = [s.text for s in techniques._counts(p.givens, row)]
    assert texts[0] == "r1c2 = 1: row 1 already has its 3 0s (count)"


def test_count_gaps_sees_a_forced_triple():
    # Row 1 = 1....1 needs one more 1: a 1 at r1c2 (or r1c5) leaves three 0s in r1c3..r1c5 (r1c2..r1c4).
    grid = puzzle("1....1/....../....../....../....../......").givens
    steps = techniques._count_gaps(grid, ("row", 1, [(0, c) for c in range(6)]))
    assert [s.placements for s in steps] == [[((0, 1), 0)], [((0, 4), 0)]]
    assert steps[0].text == "r1c2 = 0: a 1 there would force three 0s at r1c3..r1c5 in row 1 (count gaps)"


def test_explain_easy_puzzles_use_easy_techniques_and_match_the_solution():
    p = T.generate(8, seed=4, difficulty="easy")
    explanation = T.explain(p)
    assert explanation.complete and explanation.grade in ("pairs", "gaps", "counts")
    solution = T.solve(p).solution
    assert explanation.grid == solution
    for step in explanation.steps:
        (r, c), v = step.placements[0]
        assert solution[r][c] == v
        assert step.text.startswith(f"r{r + 1}c{c + 1} = {v}: ")


def test_explain_grades_in_ladder_order_and_stalls_with_needs_search():
    order = list(techniques.TECHNIQUES)
    for seed in range(3):
        p = T.generate(10, seed=seed, difficulty="medium")
        e = T.explain(p)
        assert e.complete and e.grade == max((s.technique for s in e.steps), key=order.index)
    stalled = T.explain(puzzle("..../..../..../...."))
    assert stalled.grade == "needs search" and not stalled.complete
    partial = T.explain(T.generate(8, seed=1, difficulty="easy"), max_steps=3)
    assert len(partial.steps) == 3 and not partial.complete


def test_grade_is_explains_grade():
    # the bitmask rounds (``techniques.grade``, what ``api.grade`` asks) against the stepped ladder: generated
    # puzzles of every size and difficulty, with givens taken away (stalls) or one flipped (clashes), random givens
    import random

    rng = random.Random(7)
    grids = []
    for size in range(4, 21, 2):
        for seed in range(2):
            for difficulty in ("easy", "medium", "hard") if size <= 12 else ("medium",):
                givens = T.generate(size, seed=seed, difficulty=difficulty).givens
                known = [(r, c) for r in range(size) for c in range(size) if givens[r][c] is not None]
                fewer = [row[:] for row in givens]
                for r, c in rng.sample(known, 3):
                    fewer[r][c] = None
                flipped = [row[:] for row in givens]
                r, c = rng.choice(known)
                flipped[r][c] = 1 - flipped[r][c]
                grids += [givens, fewer, flipped]
        grids += [[[rng.choice((None, None, None, 0, 1)) for _ in range(size)] for _ in range(size)] for _ in range(5)]
    grades = set()
    for givens in grids:
        p = Puzzle(kind="takuzu", size=len(givens), givens=givens)
        assert techniques.grade(p) == T.explain(p).grade
        grades.add(techniques.grade(p))
    assert {"counts", "count gaps", "finished lines", "needs search"} <= grades, grades
    solved = T.generate(12, seed=3, difficulty="hard")
    assert api.grade(solved, T.solve(solved)) == T.explain(solved).grade

# --- the generator -------------------------------------------------------------------------------


@pytest.mark.parametrize("size, difficulty", [(4, "hard"), (6, "easy"), (8, "medium"), (12, "hard"), (14, "medium")])
def test_generated_puzzles_are_unique_and_deterministic(size, difficulty):
    p = T.generate(size, seed=7, difficulty=difficulty)
    assert p.size == size and T.check_givens(p) is None
    result = T.solve(p)
    assert result.status == "solved" and T.is_solution(p, result.solution)
    assert result.solution == p.known_solution
    assert T.generate(size, seed=7, difficulty=difficulty).givens == p.givens
    assert T.generate(size, seed=8, difficulty=difficulty).givens != p.givens


def test_generate_rejects_bad_arguments():
    with pytest.raises(ValueError):
        T.generate(7, seed=1)
    with pytest.raises(ValueError):
        T.generate(8, seed=1, difficulty="fiendish")


# --- the shared collections ----------------------------------------------------------------------


def _check_collection(name: str, limit):
    path: Path = shared_path("puzzles", "takuzu", name)
    puzzles = T.parse(path.read_text(), source=name)
    assert puzzles
    for p in puzzles[:limit]:
        result = api.solve(p)
        assert result.status == "solved", (name, p.line)
        assert result.solution == p.known_solution, (name, p.line)


@pytest.mark.parametrize("name", TAKUZU_FILES)
def test_shared_collection_first_puzzles(name):
    _check_collection(name, 10)


@pytest.mark.slow
@pytest.mark.parametrize("name", TAKUZU_FILES)
def test_shared_collection_every_puzzle(name):
    _check_collection(name, None)



def test_a_random_fill_that_runs_too_long_starts_afresh(monkeypatch):
    """A try that probes ``RESTART_WORK`` lines without a grid is dropped and the fill starts again, the same
    rng going on, and gives a valid grid; a fill within the budget is the one an unbounded search gives."""
    import random

    from solver.takuzu import search

    real, budgets = search.search, []

    def first_try_runs_long(*args, **kwargs):
        budgets.append(kwargs["budget"])
        if len(budgets) == 1:
            raise search.OverBudget
        return real(*args, **kwargs)

    monkeypatch.setattr(search, "search", first_try_runs_long)
    grid = search.random_solution(12, random.Random(5))
    assert budgets == [search.RESTART_WORK] * 2
    assert T.is_solution(Puzzle(kind="takuzu", size=12, givens=[[None] * 12 for _ in range(12)]), grid)
    monkeypatch.setattr(search, "search", real)

    bounded = search.random_solution(16, random.Random("takuzu-16-1"))
    st, table = search.initial_state([[None] * 16 for _ in range(16)])
    search.propagate(st, set(range(32)), table)
    rng = random.Random("takuzu-16-1")
    unbounded, _ = search.search(st, table, limit=1, order=lambda ks: (rng.shuffle(ks), ks)[1])
    assert bounded == unbounded[0]


def test_a_nearly_empty_grid_whose_fixed_order_search_runs_long_is_shown_ambiguous_by_random_orders():
    """A 20 x 20 with 4 givens (a photo's table read as a grid): the fixed branching order probed over
    200,000 candidate lines (9 minutes) without a solution; random orders find two different ones at once."""
    from solver.takuzu import search as takuzu_search

    givens = [[None] * 20 for _ in range(20)]
    for r, c, v in ((3, 10, 1), (8, 15, 0), (8, 16, 0), (18, 4, 0)):
        givens[r][c] = v
    st, T = takuzu_search.initial_state(givens)
    assert takuzu_search.propagate(st, set(range(40)), T)
    with pytest.raises(takuzu_search.OverBudget):  # the fixed order alone: past its work bound
        takuzu_search.search(st, T, limit=2, budget=takuzu_search.ORDERED_WORK)
    puzzle = Puzzle(kind="takuzu", size=20, givens=givens)
    result = api.solve(puzzle)  # (api.solve re-checks each solution with is_solution)
    assert result.status == "ambiguous" and result.solutions[0] != result.solutions[1]
