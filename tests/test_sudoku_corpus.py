"""Sudoku on the shared puzzle collections (skipped when ../shared/datasets is absent)."""
from __future__ import annotations

import pytest

import solver.sudoku as sudoku
from solver.api import solve as api_solve
from conftest import shared_path

COLLECTIONS = ["top95.txt", "hardest.txt", "easy50.txt", "p096_sudoku.txt"]


def _load(name: str):
    path = shared_path("puzzles", "sudoku", name)
    return sudoku.parse(path.read_text(), source=name)


@pytest.mark.parametrize("name", COLLECTIONS)
def test_collection_solves_uniquely_and_verified(name):
    puzzles = _load(name)
    assert len(puzzles) >= 10
    for p in puzzles:
        result = api_solve(p)  # re-checks every solution with the independent is_solution
        assert result.status == "solved", (name, p.index, result.reason)
        assert sudoku.is_solution(p, result.solution)


def test_p096_and_easy50_are_the_same_puzzles():
    assert [p.givens for p in _load("p096_sudoku.txt")] == [p.givens for p in _load("easy50.txt")]


def test_easy50_mostly_graded_by_singles():
    grades = [sudoku.explain(p).grade for p in _load("easy50.txt")]
    singles = sum(g in ("naked single", "hidden single") for g in grades)
    assert singles >= len(grades) * 0.7, grades


@pytest.mark.parametrize("name", ["top95.txt", "hardest.txt"])
def test_explain_is_sound_on_hard_collections(name):
    """Every placement of the ladder is the unique solution's value; no elimination removes it."""
    for p in _load(name)[:20]:
        solution = sudoku.solve(p).solution
        expl = sudoku.explain(p)
        for step in expl.steps:
            for (r, c), v in step.placements:
                assert solution[r][c] == v, step.text
            for (r, c), v in step.eliminations:
                assert solution[r][c] != v, step.text
        assert expl.complete == (expl.grid == solution)
        assert expl.complete or expl.grade == "needs search"
