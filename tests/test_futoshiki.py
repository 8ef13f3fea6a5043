"""Futoshiki: text formats, rules, exact solving, the technique ladder and the generator.

Small puzzles are cross-checked against a brute force over all 576 Latin
squares of order 4, which shares nothing with the solver.
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import pytest
from hypothesis import given, settings, strategies as st

from solver import api, kinds
from solver import futoshiki as F
from solver.errors import ParseError
from solver.futoshiki import techniques as T
from solver.futoshiki.propagate import board_of
from solver.puzzle import Puzzle, Relation


def puzzle(givens, relations=()) -> Puzzle:
    n = len(givens)
    grid = [[v or None for v in row] for row in givens]
    return Puzzle("futoshiki", n, grid, tuple(sorted(relations, key=lambda r: (r.a, r.b))))


@lru_cache(maxsize=None)
def latin_squares_4() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every Latin square of order 4 (576 of them), by plain enumeration."""
    perms = list(itertools.permutations(range(1, 5)))
    out = []

    def extend(rows):
        if len(rows) == 4:
            out.append(tuple(rows))
            return
        for p in perms:
            if all(p[c] != row[c] for row in rows for c in range(4)):
                extend(rows + [p])

    extend([])
    return tuple(out)


def brute_force(p: Puzzle) -> list[tuple[tuple[int, ...], ...]]:
    """The solutions of a 4x4 puzzle, by trying every Latin square."""
    def fits(sq):
        if any(p.givens[r][c] not in (None, sq[r][c]) for r in range(4) for c in range(4)):
            return False
        return all(rel.holds(sq[rel.a[0]][rel.a[1]], sq[rel.b[0]][rel.b[1]]) for rel in p.relations)

    return [sq for sq in latin_squares_4() if fits(sq)]


# --- the kind interface --------------------------------------------------------------------------


def test_the_package_is_a_kind():
    kind = kinds.get("futoshiki")
    assert kind.NAME == "futoshiki" and kind.SIZES == (4, 5, 6, 7, 8, 9)
    for name in ("parse", "format_grid", "format_line", "check_givens", "solve", "is_solution",
                 "explain", "generate"):
        assert callable(getattr(kind, name)), name


# --- formats ----------------------------------------------------------------------------------

GRID_TEXT = """\
# a 4x4 with a sign of every kind
1 .<. .
      v
. . . .
^
.>. . 3
    ∧
. .<. .
"""


def test_printed_grid_is_read_cell_by_cell_and_sign_by_sign():
    [p] = F.parse(GRID_TEXT, source="x.txt")
    assert p.size == 4 and p.kind == "futoshiki" and p.line == 2 and p.source == "x.txt"
    assert p.givens == [[1, None, None, None], [None] * 4, [None, None, None, 3], [None] * 4]
    assert set(p.relations) == {
        Relation((0, 1), (0, 2), "<"),
        Relation((0, 3), (1, 3), ">"),  # v: the upper cell is the greater
        Relation((1, 0), (2, 0), "<"),  # ^: the upper cell is the smaller
        Relation((2, 0), (2, 1), ">"),
        Relation((2, 2), (3, 2), "<"),  # ∧ like ^
        Relation((3, 1), (3, 2), "<"),
    }


def test_grid_and_game_id_describe_the_same_puzzle():
    [p] = F.parse(GRID_TEXT)
    line = F.format_line(p)
    assert line == "4:1,0,0L,0D,0,0,0,0,0UR,0,0,3,0,0,0UL,0,"
    [q] = F.parse(line)
    assert (q.givens, q.relations) == (p.givens, p.relations)
    assert F.parse(F.format_grid(q))[0].relations == p.relations


def test_format_grid_is_tathams_text_layout_without_trailing_spaces():
    [p] = F.parse(GRID_TEXT)
    assert F.format_grid(p).splitlines() == ["1 .<. .", "      v", ". . . .", "^", ".>. . 3", "    ^", ". .<. ."]
    filled = [[1, 2, 3, 4], [2, 1, 4, 3], [4, 3, 1, 2], [3, 4, 2, 1]]
    assert F.format_grid(p, filled).splitlines()[0] == "1 2<3 4"
    assert F.format_line(p, filled).startswith("4:1,2,3L,4D,")


def test_several_puzzles_blank_sign_rows_comments_and_empty_cell_spellings():
    text = "4:0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n\n# next\n1 0 _ .\n\n. . . .\n\n. . . .\n\n. . . 4\n"
    first, second = F.parse(text)
    assert first.given_count() == 0 and first.relations == ()
    assert second.line == 4 and second.givens[0] == [1, None, None, None] and second.givens[3][3] == 4
    assert (first.index, second.index) == (0, 1)


def test_tatham_extras_difficulty_suffix_and_skip_letters():
    [p] = F.parse("4dk:b2R,0,0,0,0,0,0,0,0,c0U,0\n")  # b skips 2 cells, c skips 3; no trailing comma
    assert p.givens[0] == [None, None, 2, None]
    assert set(p.relations) == {Relation((0, 2), (0, 3), ">"), Relation((2, 2), (3, 2), "<")}


MALFORMED = [
    # text, line, col, words in the message
    ("1 . . .\n\n. . . .\n\n\n. . . .", 5, 0, "ends after 2 of its 4 rows"),
    ("1 . . .\n\n. . . .\n. . . .", 4, 1, "a cell row where the sign row"),
    ("1 . . ..\n", 1, 8, "odd length"),
    ("1 . .\n\n. . .\n\n. . .", 1, 5, "sizes are 4 to 9"),
    ("1 . . .\n\n. 5 . .\n\n. . . .\n\n. . . .", 3, 3, "larger than the grid size 4"),
    ("1 . x .\n", 1, 5, "where a cell belongs"),
    ("1 . .|.\n", 1, 6, "between two cells"),
    ("1 . . .\n\n. . .\n", 3, 6, "has 5"),
    ("1 . . .\n ^\n", 2, 2, "between two columns"),
    ("1 . . .\n      ^ v\n", 2, 9, "right of the last column"),
    ("1 . . .\n  x\n", 2, 3, "between two cell rows"),
    ("1 . . .\n\n. . . .\n\n. . . .\n\n. . . .\nv\n", 8, 1, "points off"),
    ("3:0,0,0,0,0,0,0,0,0,", 1, 1, "sizes are 4 to 9"),
    ("4a:0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,", 1, 2, "adjacent"),
    ("4:0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", 1, 32, "only 15 of the 16"),
    ("4:0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", 1, 35, "more than the 16"),
    ("4:0,0,7,0,0,0,0,0,0,0,0,0,0,0,0,0,", 1, 7, "larger than the grid size"),
    ("4:0U,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,", 1, 4, "points off the grid"),
    ("4:0,0,0,0R,0,0,0,0,0,0,0,0,0,0,0,0,", 1, 10, "points off the grid"),
    ("4:0,0,0X,0,0,0,0,0,0,0,0,0,0,0,0,0,", 1, 8, "expected a flag"),
    ("4:0,,0,0,0,0,0,0,0,0,0,0,0,0,0,0,", 1, 5, "expected a number"),
    ("4:0R,0L,0,0,0,0,0,0,0,0,0,0,0,0,0,0,", 1, 1, "greater than the other"),
]


@pytest.mark.parametrize("text, line, col, words", MALFORMED)
def test_malformed_text_names_line_and_column(text, line, col, words):
    with pytest.raises(ParseError) as info:
        F.parse("\n# header\n" + text)
    err = info.value
    assert words in err.reason
    assert (err.line, err.col) == (line + 2, col)


def test_read_puzzles_finds_the_futoshiki_kind():
    [p] = api.read_puzzles(GRID_TEXT, source="g.txt")
    assert p.kind == "futoshiki" and p.source == "g.txt"
    [q] = api.read_puzzles(F.format_line(p))
    assert q.relations == p.relations


@st.composite
def any_puzzles(draw):
    """Arbitrary givens and signs (not necessarily solvable): what the formats must carry."""
    n = draw(st.integers(4, 9))
    flat = draw(st.lists(st.integers(0, n), min_size=n * n, max_size=n * n))
    givens = [flat[r * n:(r + 1) * n] for r in range(n)]
    pairs = [((r, c), (r, c + 1)) for r in range(n) for c in range(n - 1)]
    pairs += [((r, c), (r + 1, c)) for r in range(n - 1) for c in range(n)]
    signs = draw(st.lists(st.sampled_from(" <>"), min_size=len(pairs), max_size=len(pairs)))
    return puzzle(givens, [Relation(a, b, op) for (a, b), op in zip(pairs, signs) if op != " "])


@settings(max_examples=60, deadline=None)
@given(any_puzzles())
def test_printed_grid_round_trips(p):
    [q] = F.parse(F.format_grid(p))
    assert (q.size, q.givens, q.relations) == (p.size, p.givens, p.relations)


@settings(max_examples=60, deadline=None)
@given(any_puzzles())
def test_game_id_round_trips(p):
    line = F.format_line(p)
    [q] = F.parse(line)
    assert (q.size, q.givens, q.relations) == (p.size, p.givens, p.relations)
    assert F.format_line(q) == line


@settings(max_examples=20, deadline=None)
@given(st.lists(any_puzzles(), min_size=1, max_size=3), st.booleans())
def test_several_puzzles_round_trip_in_one_text(ps, as_lines):
    text = "\n\n".join(F.format_line(p) if as_lines else F.format_grid(p) for p in ps) + "\n"
    qs = F.parse(text)
    assert [(q.givens, q.relations) for q in qs] == [(p.givens, p.relations) for p in ps]


# --- rules -----------------------------------------------------------------------------------

SOLUTION = [[1, 2, 3, 4], [2, 1, 4, 3], [4, 3, 1, 2], [3, 4, 2, 1]]


def test_is_solution_checks_every_rule():
    p = puzzle([[1, 0, 0, 0]] + [[0] * 4] * 3, [Relation((0, 3), (1, 3), ">")])
    assert F.is_solution(p, SOLUTION)
    assert not F.is_solution(p, [row[::-1] for row in SOLUTION])  # breaks the given
    q = puzzle([[0] * 4] * 4, [Relation((0, 0), (0, 1), ">")])
    assert not F.is_solution(q, SOLUTION)  # breaks the sign
    bad = [row[:] for row in SOLUTION]
    bad[3] = [3, 4, 1, 2]  # column clash
    assert not F.is_solution(puzzle([[0] * 4] * 4), bad)
    assert not F.is_solution(puzzle([[0] * 4] * 4), SOLUTION[:3])
    assert not F.is_solution(puzzle([[0] * 4] * 4), [[v + 0.0 for v in row] for row in SOLUTION])


@pytest.mark.parametrize("givens, rels, words", [
    ([[1, 0, 1, 0]] + [[0] * 4] * 3, [], "two 1s in row 1"),
    ([[0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 2, 0, 0]], [], "two 2s in column 2"),
    ([[3, 2, 0, 0]] + [[0] * 4] * 3, [Relation((0, 0), (0, 1), "<")], "break the sign r1c1 < r1c2"),
    ([[0] * 4] * 4, [Relation((0, 0), (0, 1), "<"), Relation((0, 1), (1, 1), "<"),
                     Relation((1, 0), (1, 1), ">"), Relation((0, 0), (1, 0), ">")],
     "cycle r1c1 < r1c2 < r2c2 < r2c1 < r1c1"),
    ([[3, 0, 0, 0]] + [[0] * 4] * 3, [Relation((0, 0), (0, 1), "<"), Relation((0, 1), (0, 2), "<")],
     "r1c1 = 3 leaves room for 1 greater value"),
    ([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]],
     [Relation((2, 2), (2, 3), ">"), Relation((2, 1), (2, 2), "<"), Relation((2, 0), (2, 1), "<")],
     "chain r3c3 > r3c2 > r3c1 needs 2"),
])
def test_check_givens_names_the_clash(givens, rels, words):
    p = puzzle(givens, rels)
    assert words in F.check_givens(p)
    assert F.solve(p).status == "impossible"
    assert api.solve(p).contradiction


def test_consistent_givens_pass_check_givens():
    p = puzzle([[1, 0, 0, 0], [0, 0, 0, 3], [0, 0, 0, 0], [0, 0, 0, 0]], [Relation((0, 0), (0, 1), "<")])
    assert F.check_givens(p) is None


# --- solving ---------------------------------------------------------------------------------

def test_solve_finds_the_unique_solution_of_a_hand_made_4x4():
    # Made from SOLUTION: one given and four signs pin it down (the brute force agrees).
    text = "1 . . .\n\n. . .>.\n      v\n. . . .\n      v\n.<. . .\n"
    [p] = F.parse(text)
    assert brute_force(p) == [tuple(map(tuple, SOLUTION))]
    result = F.solve(p)
    assert result.status == "solved" and result.solution == SOLUTION
    assert F.is_solution(p, result.solution)
    e = F.explain(p)
    assert e.complete and e.grid == SOLUTION


def test_no_signs_and_one_given_is_ambiguous():
    p = puzzle([[1, 0, 0, 0]] + [[0] * 4] * 3)
    result = api.solve(p)
    assert result.status == "ambiguous"
    a, b = result.solutions
    assert a != b and F.is_solution(p, a) and F.is_solution(p, b)


def test_contradicting_signs_without_a_given_clash_are_impossible():
    # Rows 1 and 2 are each forced to 1 2 3 4 by a chain of signs: their columns clash.
    chain = [Relation((r, c), (r, c + 1), "<") for r in (0, 1) for c in range(3)]
    p = puzzle([[0] * 4] * 4, chain)
    assert F.check_givens(p) is None
    assert F.solve(p).status == "impossible" and not brute_force(p)


@st.composite
def small_puzzles(draw):
    """4x4 puzzles with random givens and random (possibly contradicting) signs."""
    square = draw(st.sampled_from(latin_squares_4()))
    cells = draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), unique=True, max_size=6))
    givens = [[0] * 4 for _ in range(4)]
    for r, c in cells:
        givens[r][c] = square[r][c] if draw(st.integers(0, 9)) else draw(st.integers(1, 4))
    pairs = [((r, c), (r, c + 1)) for r in range(4) for c in range(3)]
    pairs += [((r, c), (r + 1, c)) for r in range(3) for c in range(4)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=12))
    rels = []
    for a, b in chosen:
        truthful = draw(st.integers(0, 9)) > 0
        op = "<" if square[a[0]][a[1]] < square[b[0]][b[1]] else ">"
        rels.append(Relation(a, b, op if truthful else "<>".replace(op, "")))
    return puzzle(givens, rels)


@settings(max_examples=150, deadline=None)
@given(small_puzzles())
def test_solver_agrees_with_brute_force_and_every_solution_obeys_the_rules(p):
    result = F.solve(p)
    truth = brute_force(p)
    expected = "impossible" if not truth else "solved" if len(truth) == 1 else "ambiguous"
    assert result.status == expected
    for grid in result.solutions:
        assert F.is_solution(p, grid) and tuple(map(tuple, grid)) in truth
    if result.status == "ambiguous":
        assert result.solutions[0] != result.solutions[1]
    if F.check_givens(p):
        assert result.status == "impossible"


# --- explaining ------------------------------------------------------------------------------


def test_ladder_names_are_ordered_constants():
    assert T.LADDER[:4] == (T.LATIN_SINGLE, T.NAKED_SINGLE, T.INEQUALITY_BOUNDS, T.INEQUALITY_CHAINS)
    assert T.LADDER.index(T.HIDDEN_SINGLE) < T.LADDER.index(T.NAKED_PAIR) < T.LADDER.index(T.HIDDEN_PAIR)
    assert T.difficulty_rank(T.NEEDS_SEARCH) == len(T.LADDER)


def test_chains_bound_a_cell_below_two_greater_cells_of_its_row():
    # r1c2 is smaller than both its neighbours: bounds give r1c2 <= 3, chains give r1c2 <= 2.
    p = puzzle([[0] * 4] * 4, [Relation((0, 0), (0, 1), ">"), Relation((0, 1), (0, 2), "<")])
    e = F.explain(p)
    assert not e.complete and e.grade == T.NEEDS_SEARCH
    techniques = [s.technique for s in e.steps]
    assert techniques[:3] == [T.INEQUALITY_BOUNDS] * 3
    chain = next(s for s in e.steps if s.technique == T.INEQUALITY_CHAINS)
    assert chain.eliminations == [((0, 1), 3)]
    assert chain.text.startswith("r1c2 ≠ 3: the signs make r1c1, r1c3 of row 1 greater than it")


def _check_explanation(p, e, solution):
    n = p.size
    for step in e.steps:
        assert step.technique in T.LADDER and step.text[:1] == "r"
        for (r, c), v in step.placements:
            assert solution[r][c] == v, step.text
        for (r, c), v in step.eliminations:
            assert solution[r][c] != v, step.text
    assert all(e.grid[r][c] in (None, solution[r][c]) for r in range(n) for c in range(n))
    ranks = [T.difficulty_rank(s.technique) for s in e.steps]
    if e.complete:
        assert e.grid == solution and T.difficulty_rank(e.grade) == max(ranks, default=0)
    else:
        assert e.grade == T.NEEDS_SEARCH


@pytest.mark.parametrize("size, seed, difficulty", [(4, 1, "easy"), (5, 2, "medium"), (6, 3, "hard"),
                                                    (7, 4, "medium"), (9, 5, "easy")])
def test_explain_is_sound_and_grades_by_the_hardest_step(size, seed, difficulty):
    p = F.generate(size, seed=seed, difficulty=difficulty)
    solution = F.solve(p).solution
    e = F.explain(p)
    _check_explanation(p, e, solution)
    if difficulty != "hard":
        assert e.complete
    short = F.explain(p, max_steps=3)
    assert len(short.steps) == 3 and not short.complete and short.grade != T.NEEDS_SEARCH


@pytest.mark.parametrize("size, seed", [(5, 11), (7, 12)])
def test_explain_takes_the_easiest_progress_first(size, seed):
    p = F.generate(size, seed=seed, difficulty="hard")
    e = F.explain(p)
    state = T._State(p, board_of(p))
    for step in e.steps:
        for name, find in T.TECHNIQUES[: T.difficulty_rank(step.technique)]:
            assert find(state) is None, f"{name} was possible before: {step.text}"
        state.apply(step)
    assert state.grid() == e.grid


# --- generating ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", F.SIZES)
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_generated_puzzles_are_unique_newspaper_like_and_deterministic(size, difficulty):
    p = F.generate(size, seed=7, difficulty=difficulty)
    assert p.size == size and p.kind == "futoshiki"
    assert F.check_givens(p) is None
    result = api.solve(p)
    assert result.status == "solved"
    pairs = 2 * size * (size - 1)
    assert pairs // 4 - 1 <= len(p.relations) <= pairs // 3 + 1
    assert p.given_count() < size * size // 2
    again = F.generate(size, seed=7, difficulty=difficulty)
    assert (again.givens, again.relations) == (p.givens, p.relations)
    if difficulty == "easy":
        assert F.explain(p).complete


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6))
def test_generated_4x4_puzzles_have_exactly_one_solution_by_brute_force(seed):
    p = F.generate(4, seed=seed)
    [only] = brute_force(p)
    assert F.solve(p).solution == [list(row) for row in only]
