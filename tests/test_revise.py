"""The search for a reading (scanner.revise): what bounds it."""
from __future__ import annotations

import time

import pytest

from scanner import revise
from solver import kinds
from solver.api import solve
from solver.puzzle import Puzzle


def _doubtful_reading():
    """A 9x9 reading whose every given is doubtful (p 0.6, runner-up: empty), so the search goes on past the raw
    reading looking for rivals; and its make_puzzle."""
    puzzle = kinds.get("sudoku").generate(9, seed=5)
    cands = [[[(v, 0.6), (None, 0.4)] if v is not None else [(None, 0.99), (1, 0.01)] for v in row]
             for row in puzzle.copy_grid()]

    def make(grid, relations=()):
        return Puzzle("sudoku", 9, grid, box=(3, 3))
    return cands, make


def test_search_bound_is_cpu_time_so_waiting_does_not_change_the_outcome():
    cands, make = _doubtful_reading()
    quick = revise.revise(cands, make, solve, max_solves=12)

    def slow_solve(puzzle):  # a loaded machine: every call waits (wall time passes, this thread's CPU does not)
        time.sleep(0.01)
        return solve(puzzle)
    waited = revise.revise(cands, make, slow_solve, max_solves=12, max_seconds=0.05)
    assert waited.solves == quick.solves == 12 and waited.ended == quick.ended == "solves"
    assert (waited.status, waited.grid) == (quick.status, quick.grid)


def test_search_reports_the_time_bound_when_cpu_time_runs_out():
    cands, make = _doubtful_reading()

    def busy_solve(puzzle):
        end = time.thread_time() + 0.01
        while time.thread_time() < end:
            pass
        return solve(puzzle)
    rev = revise.revise(cands, make, busy_solve, max_solves=1000, max_seconds=0.03)
    assert rev.ended == "time" and 2 <= rev.solves < 20


def test_default_cpu_bound_grows_with_the_cells_of_large_grids():
    assert revise.cpu_bound(4) == revise.cpu_bound(9) == revise.MAX_SECONDS
    assert revise.cpu_bound(20) == pytest.approx(revise.MAX_SECONDS * 400 / 81)
    assert revise.cpu_bound(20) > revise.cpu_bound(16) > revise.MAX_SECONDS


def test_default_bound_is_used_when_none_is_given(monkeypatch):
    cands, make = _doubtful_reading()
    monkeypatch.setattr(revise, "MAX_SECONDS", 0.03)

    def busy_solve(puzzle):
        end = time.thread_time() + 0.01
        while time.thread_time() < end:
            pass
        return solve(puzzle)
    rev = revise.revise(cands, make, busy_solve, max_solves=1000)
    assert rev.ended == "time" and 2 <= rev.solves < 20


def _sudoku_make(n, box):
    def make(grid, relations=()):
        return Puzzle("sudoku", n, grid, box=box)
    return make


def test_clash_cores_are_disjoint_minimal_and_clash_alone():
    grid = kinds.get("sudoku").generate(9, seed=7).copy_grid()
    givens = [(r, c) for r in range(9) for c in range(9) if grid[r][c] is not None]
    (r1, c1), (r2, c2) = givens[0], givens[-1]
    grid[r1][(c1 + 4) % 9] = grid[r1][c1]  # a second copy of a given in its row
    grid[(r2 + 4) % 9][c2] = grid[r2][c2]  # and of another in its column
    make, check = _sudoku_make(9, (3, 3)), kinds.get("sudoku").check_givens
    calls = []

    def clashes(cells):
        calls.append(1)
        only = [[v if (r, c) in cells else None for c, v in enumerate(row)] for r, row in enumerate(grid)]
        return check(make(only)) is not None
    cores = revise.clash_cores(grid, clashes, limit=4)
    assert sorted(sorted(core) for core in cores) == sorted([sorted([(r1, c1), (r1, (c1 + 4) % 9)]),
                                                            sorted([(r2, c2), ((r2 + 4) % 9, c2)])])
    assert all(clashes(core) and not any(clashes(core - {cell}) for cell in core) for core in cores)
    assert len(calls) < 80  # halving: far fewer checks than one per given and core


def test_pruning_by_clashes_leaves_the_outcome_as_trying_every_reading():
    """Readings of generated grids with misread digits (runner-ups the truth): the search with clash cores
    ends as it does when every reading is checked by the rules one by one (cores only skip readings that
    clash), and checks far fewer readings when the raw reading is hopeless."""
    import random

    check = kinds.get("sudoku").check_givens
    rng = random.Random(3)
    fewer = 0
    for seed in range(12):
        truth = kinds.get("sudoku").generate(9, seed=seed).copy_grid()
        cands = []
        for r, row in enumerate(truth):
            cands.append([])
            for c, v in enumerate(row):
                if v is None:
                    cands[r].append([(None, 0.99), (rng.randint(1, 9), 0.01)])
                elif rng.random() < 0.08 * (seed % 4):
                    wrong = rng.choice([d for d in range(1, 10) if d != v])
                    cands[r].append([(wrong, 0.7), (v, 0.25), (None, 0.05)])
                else:
                    cands[r].append([(v, 0.97), (rng.choice([d for d in range(1, 10) if d != v]), 0.03)])
        make = _sudoku_make(9, (3, 3))
        pruned = revise.revise(cands, make, solve, clash=check)
        every = revise.revise(cands, make, solve, clash=check, max_seconds=60.0, prune=False)
        pruned_all = revise.revise(cands, make, solve, clash=check, max_seconds=60.0)
        assert (pruned_all.status, pruned_all.grid, pruned_all.changes, pruned_all.solves) == \
               (every.status, every.grid, every.changes, every.solves)
        assert (pruned.status, pruned.grid) == (pruned_all.status, pruned_all.grid)
        fewer += pruned_all.tries < every.tries
    assert fewer >= 3


def _misread_that_solves(seed: int = 1):
    """A generated 9x9's givens, a given cell and another digit that, read there instead, still make a puzzle
    with exactly one (another) solution: a misread the rules cannot catch."""
    grid = kinds.get("sudoku").generate(9, seed=seed).copy_grid()
    make = _sudoku_make(9, (3, 3))
    for r, c in ((r, c) for r in range(9) for c in range(9) if grid[r][c] is not None):
        for v in range(1, 10):
            if v != grid[r][c]:
                misread = [row[:] for row in grid]
                misread[r][c] = v
                if solve(make(misread)).status == "solved":
                    return grid, (r, c), v
    raise AssertionError("no such misread in this puzzle")


def _reading_with(grid, cell, wrong, p_wrong, p_true):
    """Candidates reading every given surely (p 0.99) but ``cell``: ``wrong`` at ``p_wrong``, its truth at
    ``p_true`` the runner-up."""
    cands = [[[(v, 0.99), (None, 0.01)] if v is not None else [(None, 0.99), (1, 0.001)] for v in row]
             for row in grid]
    cands[cell[0]][cell[1]] = [(wrong, p_wrong), (grid[cell[0]][cell[1]], p_true), (None, 0.001)]
    return cands


def test_a_sure_looking_misread_with_a_close_runner_up_is_not_trusted():
    """A misread at p 0.89 with the truth at 0.10 (within RIVAL_MARGIN: ~9x less likely): the raw reading
    solves, but the truth makes a valid puzzle with another solution nearly as likely, so the photo is
    unreadable -- no cell below 0.8 is needed for the search to look (a 16x16's E read as B so was drawn)."""
    grid, cell, wrong = _misread_that_solves()
    make = _sudoku_make(9, (3, 3))
    rev = revise.revise(_reading_with(grid, cell, wrong, 0.89, 0.10), make, solve)
    assert rev.status == "unreadable" and "two different readings" in rev.reason


def test_a_raw_reading_with_no_runner_up_within_the_margin_is_not_searched_past():
    grid, cell, wrong = _misread_that_solves()
    make = _sudoku_make(9, (3, 3))
    far = revise.revise(_reading_with(grid, cell, wrong, 0.905, 0.09), make, solve)  # 10.06x: beyond the margin
    assert far.status == "solved" and far.solves == 1 and far.grid[cell[0]][cell[1]] == wrong


def _sparse_takuzu_reading(seed: int):
    """A 6x6 Takuzu reading of a few doubtful marks (another kind's digits read as 0s and 1s): the raw reading
    and nearly every correction of it have many solutions, so the search tries every reading within reach."""
    import random

    rng = random.Random(seed)
    cells = rng.sample([(r, c) for r in range(6) for c in range(6)], 6 + seed % 3)
    cands = [[[(None, 0.99), (0, 0.006), (1, 0.004)] for _ in range(6)] for _ in range(6)]
    for r, c in cells:
        p = rng.choice([0.5, 0.62, 0.75, 0.93, 1.0])
        v = rng.randint(0, 1)
        cands[r][c] = [(v, p), (1 - v, max(1.0 - p, 1e-3)), (None, 1e-3)]

    def make(grid, relations=()):
        return Puzzle("takuzu", 6, grid)
    return cands, make


def test_readings_two_known_solutions_solve_are_not_solved_again_and_the_outcome_stays():
    """``is_solution`` lets the search skip the solver for readings that two solutions already found solve:
    on sparse readings (ambiguous nearly everywhere) every outcome is the one without it, with fewer calls."""
    kind = kinds.get("takuzu")
    saved = 0
    for seed in range(6):
        cands, make = _sparse_takuzu_reading(seed)
        plain = revise.revise(cands, make, solve, clash=kind.check_givens, max_seconds=60.0)
        quick = revise.revise(cands, make, solve, clash=kind.check_givens, max_seconds=60.0,
                              is_solution=kind.is_solution)
        assert (quick.status, quick.grid, quick.changes, quick.cost, quick.reason, quick.tries, quick.ended) == \
               (plain.status, plain.grid, plain.changes, plain.cost, plain.reason, plain.tries, plain.ended)
        assert quick.solves + quick.proven == plain.solves
        saved += quick.proven
    assert saved >= 20


def test_a_reading_proven_ambiguous_counts_against_the_solver_bound():
    kind = kinds.get("takuzu")
    cands, make = _sparse_takuzu_reading(1)
    plain = revise.revise(cands, make, solve, clash=kind.check_givens, max_solves=10)
    quick = revise.revise(cands, make, solve, clash=kind.check_givens, max_solves=10, is_solution=kind.is_solution)
    assert plain.ended == quick.ended == "solves" and quick.solves + quick.proven == 10 and quick.proven > 0
    assert (quick.status, quick.grid, quick.tries) == (plain.status, plain.grid, plain.tries)


def test_symmetric_grids_keep_the_rules():
    for name, n in (("takuzu", 6), ("sudoku", 4), ("sudoku", 9)):
        kind = kinds.get(name)
        solution = solve(kind.generate(n, seed=2)).solution
        empty = Puzzle(name, n, [[None] * n for _ in range(n)], **({"box": (2, 2) if n == 4 else (3, 3)}
                                                                   if name == "sudoku" else {}))
        variants = revise.symmetric(solution)
        assert variants[0] == solution and len(variants) == len({str(v) for v in variants}) > 1
        assert all(kind.is_solution(empty, v) for v in variants)


def _washed_out_given():
    """An 8x8 Takuzu reading that missed one given (washed out: 0.0012 that it holds its value) and saw a speck
    (0.0038 of the other value) in an empty cell where the puzzle's second solution differs: the speck alone
    makes a valid puzzle, of the wrong solution. (cands, make, true solution, the missed cell)."""
    puzzle = kinds.get("takuzu").generate(8, seed=1)
    grid = puzzle.copy_grid()
    truth = solve(puzzle).solution
    missed, speck = (0, 0), (7, 0)  # found by search: without (0, 0) the puzzle has a second solution that the
    # value at (7, 0) picks
    cands = [[[(v, 1.0)] if v is not None else [(None, 1.0)] for v in row] for row in grid]
    cands[missed[0]][missed[1]] = [(None, 0.9988), (truth[missed[0]][missed[1]], 0.0012)]
    cands[speck[0]][speck[1]] = [(None, 0.9962), (1 - truth[speck[0]][speck[1]], 0.0038)]

    def make(g, relations=()):
        return Puzzle("takuzu", 8, g)
    return cands, make, truth, missed


def test_a_speck_that_picks_one_solution_of_an_ambiguous_reading_is_not_trusted_over_a_missed_given():
    cands, make, truth, (r, c) = _washed_out_given()
    rev = revise.revise(cands, make, solve)
    # the speck (cost 5.6, within MAX_COST) is the only runner-up the search tries; the washed-out given (6.7)
    # lies past MAX_COST, but is a rival within RIVAL_MARGIN: two readings, two solutions
    [((sr, sc), _, value)] = rev.changes
    assert rev.status == "unreadable" and "two different readings" in rev.reason and value != truth[sr][sc]
    # a given less likely than the margin allows is no rival: the speck's reading stands
    cands[r][c] = [(None, 0.99995), (truth[r][c], revise.MIN_ALT_P * 1.5)]
    assert revise.revise(cands, make, solve).status == "solved"
    # and with no speck at all, the missed given is put back
    cands[r][c] = [(None, 0.9), (truth[r][c], 0.1)]
    cands[7][0] = [(None, 1.0)]
    rev = revise.revise(cands, make, solve)
    assert rev.status == "solved" and rev.result.solution == truth
