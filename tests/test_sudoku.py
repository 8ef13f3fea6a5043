"""Sudoku: formats, rules, exact solving, the technique ladder and the generator."""
from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given, settings, strategies as st

import solver.sudoku as sudoku
from solver import ParseError, Puzzle, kinds
from solver.api import solve as api_solve
from solver.sudoku import techniques
from solver.sudoku.geometry import box_shape, geometry
from solver.sudoku.search import search as generic_search

EASY = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
#: A 17-given puzzle with a unique solution (a classic minimal example).
HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def one(text: str) -> Puzzle:
    (p,) = sudoku.parse(text)
    return p


def test_kind_protocol_is_complete():
    kind = kinds.get("sudoku")
    assert kind.NAME == "sudoku" and kind.SIZES == (4, 6, 9, 16)
    for name in ("parse", "format_grid", "format_line", "check_givens", "solve", "is_solution", "explain",
                 "generate"):
        assert callable(getattr(kind, name)), name


def test_box_shapes_and_units():
    assert [box_shape(n) for n in (4, 6, 9, 16)] == [(2, 2), (2, 3), (3, 3), (4, 4)]
    geo = geometry(6)
    assert geo.units[12] == (0, 1, 2, 6, 7, 8)  # box 1: 2 rows x 3 columns
    assert all(len(p) == 5 + 5 + 2 for p in geo.peers)  # row, column, 2 more cells of the box
    assert all(len(p) == 20 for p in geometry(9).peers)


# --- formats -------------------------------------------------------------------------------------

def test_parse_one_line_with_extra_fields_comments_and_zeros():
    text = f"# a comment\n\n{EASY}  extra fields ignored\n{HARD.replace('.', '0')}\n"
    a, b = sudoku.parse(text)
    assert a.size == 9 and a.box == (3, 3) and a.givens[0][:3] == [None, None, 3]
    assert a.line == 3 and b.line == 4 and (a.index, b.index) == (0, 1)
    assert sudoku.format_line(b) == HARD


def test_parse_printed_grids_separated_by_blank_lines():
    p = one(EASY)
    text = sudoku.format_grid(p) + "\n" + sudoku.format_grid(one(HARD))
    assert "-+-" in text and "|" in text
    a, b = sudoku.parse(text)
    assert a.givens == p.givens and b.givens == one(HARD).givens


def test_parse_project_euler():
    rows = [EASY[9 * r:9 * r + 9] for r in range(9)]
    text = "Grid 01\n" + "\n".join(rows) + "\nGrid 02\n" + "\n".join(rows) + "\n"
    a, b = sudoku.parse(text)
    assert a.givens == one(EASY).givens == b.givens and b.line == 11


def test_parse_16x16_letters_case_insensitive():
    p = sudoku.generate(16, seed=5, difficulty="easy")
    line = sudoku.format_line(p)
    assert set(line) - set(".123456789ABCDEFG") == set()
    assert one(line.lower()).givens == p.givens == one(line).givens


def test_parse_16x16_grid_rows_without_spaces():
    p = sudoku.generate(16, seed=4, difficulty="easy")
    line = sudoku.format_line(p)
    rows = [line[16 * r:16 * r + 16] for r in range(16)]
    text = "\n".join("|".join(row[k:k + 4] for k in range(0, 16, 4)) for row in rows)
    assert one(text).givens == p.givens
    assert one("\n".join(rows)).givens == p.givens  # 16 lines of 16 symbols: one 16x16 grid


@settings(max_examples=60, deadline=None)
@given(size=st.sampled_from([4, 6, 9, 16]), data=st.data())
def test_formats_round_trip(size, data):
    cells = data.draw(st.lists(st.one_of(st.none(), st.integers(1, size)), min_size=size * size,
                               max_size=size * size))
    p = Puzzle("sudoku", size, [cells[r * size:(r + 1) * size] for r in range(size)], box=box_shape(size))
    for text in (sudoku.format_line(p), sudoku.format_grid(p)):
        (q,) = sudoku.parse(text)
        assert (q.size, q.box, q.givens) == (p.size, p.box, p.givens)


@pytest.mark.parametrize("text, line, col, words", [
    ("", 0, 0, "empty"),
    ("# only a comment\n\n", 0, 0, "empty"),
    (EASY[:80] + "\n", 1, 81, "81"),
    ("\n" + EASY + "1\n", 2, 82, "82"),
    (EASY[:10] + "x" + EASY[11:], 1, 11, "'x'"),
    ("\n".join(["1234567890"] * 10), 1, 1, "10 rows"),
    ("12..\n3...\n....\n..5.\n", 4, 3, "larger than the grid size 4"),
    ("12.\n3..\n...\n", 1, 1, "3 rows"),
    ("1 2 | . .\n3 . | .\n. . | . .\n. . | . 4\n", 2, 8, "needs 4 cells"),
    ("Grid 01\n003020600\n900305001\n", 1, 1, "needs 9 rows"),
])
def test_malformed_text_names_line_and_column(text, line, col, words):
    with pytest.raises(ParseError) as err:
        sudoku.parse(text)
    assert (err.value.line, err.value.col) == (line, col)
    assert words in str(err.value)


# --- rules -------------------------------------------------------------------------------------------

def test_check_givens_names_the_clash():
    p = one(EASY)
    assert sudoku.check_givens(p) is None
    p.givens[2][0] = 5
    p.givens[2][6] = 5
    p.givens[2][1] = None
    msg = sudoku.check_givens(p)
    assert msg is not None and "5s in row 3" in msg and "r3c1" in msg and "r3c7" in msg
    result = api_solve(p)
    assert result.status == "impossible" and result.contradiction and "row 3" in result.reason


def test_check_givens_box_clash():
    p = one("1..............." + "")
    p.givens[1][1] = 1
    assert "two 1s in box 1 (r1c1 and r2c2)" == sudoku.check_givens(p)


def test_is_solution_rejects_broken_grids():
    p = one(EASY)
    sol = sudoku.solve(p).solution
    assert sudoku.is_solution(p, sol)
    swapped = [row[:] for row in sol]
    swapped[0][0], swapped[0][1] = swapped[0][1], swapped[0][0]
    assert not sudoku.is_solution(p, swapped)  # a given moved, or a column broken
    assert not sudoku.is_solution(p, [row[:] for row in sol[:8]])
    holed = [row[:] for row in sol]
    holed[4][4] = None
    assert not sudoku.is_solution(p, holed)
    big = [row[:] for row in sol]
    big[0][0] = 10
    assert not sudoku.is_solution(p, big)
    relabelled = [[v % 9 + 1 for v in row] for row in sol]  # valid Latin square, but breaks the givens
    assert not sudoku.is_solution(p, relabelled)


# --- solving -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [EASY, HARD])
def test_solve_unique(text):
    p = one(text)
    result = api_solve(p)
    assert result.status == "solved" and sudoku.is_solution(p, result.solution)
    generic, _ = generic_search(p.givens, geometry(9))
    assert generic == result.solutions  # the generic search agrees with the band solver


def test_ambiguous_returns_two_different_solutions():
    for text in ("." * 81, EASY[:40] + "." * 41, "." * 16, "." * 36):
        p = one(text)
        result = api_solve(p)
        assert result.status == "ambiguous"
        a, b = result.solutions
        assert a != b and sudoku.is_solution(p, a) and sudoku.is_solution(p, b)


def test_impossible_without_clashing_givens():
    # r1c9 can be neither 1-8 (row 1) nor 9 (column 9): no clash among givens, still no solution.
    p = one("12345678." + "." * 8 + "9" + "." * 63)
    assert sudoku.check_givens(p) is None
    result = api_solve(p)
    assert result.status == "impossible" and not result.contradiction and result.reason
    assert not result.solutions


@pytest.mark.parametrize("text", [
    "123." "...." "...4" "....",  # r1c4 has no value left
    "12345." + "." * 12 + ".....6" + "." * 12,  # r1c6 likewise, in a 6x6
])
def test_impossible_small_sizes(text):
    p = one(text)
    assert sudoku.check_givens(p) is None
    assert api_solve(p).status == "impossible"


@settings(max_examples=25, deadline=None)
@given(size=st.sampled_from([4, 6, 9]), seed=st.integers(0, 10_000), keep=st.floats(0.0, 0.6))
def test_random_removals_solutions_satisfy_the_rules(size, seed, keep):
    rng = random.Random(seed)
    full = sudoku.generate(size, seed=seed, difficulty="easy")
    sol = sudoku.solve(full).solution
    givens = [[v if rng.random() < keep else None for v in row] for row in sol]
    p = Puzzle("sudoku", size, givens, box=box_shape(size))
    result = sudoku.solve(p)
    assert result.status in ("solved", "ambiguous")
    assert all(sudoku.is_solution(p, g) for g in result.solutions)
    assert sol in result.solutions or result.status == "ambiguous"
    if size == 9:  # the generic search and the band solver agree on uniqueness
        generic, _ = generic_search(givens, geometry(9))
        assert len(generic) == len(result.solutions)


# --- generator -------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [4, 6, 9, 16])
def test_generate_unique_and_deterministic(size):
    p = sudoku.generate(size, seed=11)
    assert p.box == box_shape(size)
    result = api_solve(p)
    assert result.status == "solved"
    assert sudoku.generate(size, seed=11).givens == p.givens
    assert sudoku.generate(size, seed=12).givens != p.givens


def test_generate_difficulties():
    easy = sudoku.generate(9, seed=3, difficulty="easy")
    hard = sudoku.generate(9, seed=3, difficulty="hard")
    assert easy.given_count() >= 40 > hard.given_count()
    assert sudoku.explain(easy).grade in ("naked single", "hidden single")
    assert api_solve(hard).status == "solved"
    with pytest.raises(ValueError):
        sudoku.generate(9, seed=1, difficulty="fiendish")
    with pytest.raises(ValueError):
        sudoku.generate(10, seed=1)


# --- explain ------------------------------------------------------------------------------------------

def _check_steps_agree_with(p, expl, solution):
    for step in expl.steps:
        assert step.text and (step.placements or step.eliminations)
        for (r, c), v in step.placements:
            assert solution[r][c] == v, step.text
        for (r, c), v in step.eliminations:
            assert solution[r][c] != v, step.text


def test_explain_easy_puzzle_by_singles():
    p = one(EASY)
    expl = sudoku.explain(p)
    assert expl.complete and expl.grade in ("naked single", "hidden single")
    assert expl.grid == sudoku.solve(p).solution
    assert {s.technique for s in expl.steps} <= {"naked single", "hidden single"}
    assert len(expl.steps) == 81 - p.given_count()
    texts = [s.text for s in expl.steps]
    assert any("the only candidate left" in t or "the only place for" in t for t in texts)
    _check_steps_agree_with(p, expl, expl.grid)


def test_explain_sentences_and_max_steps():
    p = one(EASY)
    expl = sudoku.explain(p, max_steps=3)
    assert len(expl.steps) == 3 and not expl.complete
    for s in sudoku.explain(p).steps:
        assert s.text.startswith("r") and " = " in s.text


def test_explain_hard_puzzle_stalls_soundly():
    p = one(HARD)
    expl = sudoku.explain(p)
    sol = sudoku.solve(p).solution
    _check_steps_agree_with(p, expl, sol)
    if not expl.complete:
        assert expl.grade == "needs search"


@pytest.mark.parametrize("text", [EASY, HARD, ".2.4.8.9...8..7......6..1..1..8..9..4.3...5.6..5..2..1..3..2......1..4...7.5.3.2."])
def test_explain_always_takes_the_easiest_technique(text):
    """Replaying the steps: before each one, no easier technique of the ladder applies."""
    p = one(text)
    expl = sudoku.explain(p)
    board = techniques.Board(p)
    for step in expl.steps:
        level = techniques.GRADES.index(step.technique)
        for _, easier in techniques.LADDER[:level]:
            probe = copy.copy(board)
            probe.values, probe.cand = board.values[:], board.cand[:]
            assert easier(probe) is None, (step.text, easier.__name__)
        _, technique = techniques.LADDER[level]
        again = technique(board)
        assert again is not None and again.text == step.text
    assert expl.grade == "needs search" or expl.grade == max(
        (s.technique for s in expl.steps), key=techniques.GRADES.index)


def test_explain_small_and_big_sizes():
    for size in (4, 6, 16):
        p = sudoku.generate(size, seed=2, difficulty="medium")
        expl = sudoku.explain(p)
        assert expl.complete and sudoku.is_solution(p, expl.grid)


def test_kind_solve_names_the_clash_itself():
    p = one(EASY)
    p.givens[0][0] = 3  # r1c3 is 3 already
    result = sudoku.solve(p)
    assert result.status == "impossible" and result.contradiction
    assert "two 3s in row 1 (r1c1 and r1c3)" in result.reason
