"""A reading revised behind a solved one is searched only as far as it could matter (``photo.reach``): solved
at a cost that keeps it within ``revise.RIVAL_MARGIN`` of the best, and that reading's rivals."""
from __future__ import annotations

import math
import random

import numpy as np

from scanner import photo, rectify, revise
from scanner.readers import GridReading, takuzu
from scanner.timing import Timer
from solver import kinds
from solver.api import solve

from fakes import FixedReader


def _cands(seed: int):
    """A 6x6 Takuzu reading: a generated puzzle's givens, some doubtful (the other value the runner-up), a few
    empty cells read as a faint mark; or a sparse reading of a few doubtful marks (ambiguous every way)."""
    rng = random.Random(seed)
    if seed % 3 == 0:
        givens = [[None] * 6 for _ in range(6)]
        for r, c in rng.sample([(r, c) for r in range(6) for c in range(6)], 7):
            givens[r][c] = rng.randint(0, 1)
    else:
        givens = kinds.get("takuzu").generate(6, seed=seed).givens
    cands = []
    for row in givens:
        cands.append([])
        for v in row:
            if v is None:
                p = rng.choice([0.995, 0.99, 0.95])
                cands[-1].append([(None, p), (rng.randint(0, 1), 1.0 - p)])
            else:
                p = rng.choice([0.999, 0.99, 0.97, 0.9, 0.8])
                cands[-1].append([(v, p), (1 - v, 1.0 - p)])
    return cands


def _make(grid, relations=()):
    return takuzu.READER.make_puzzle(grid, relations)


def _likelihood(cands) -> float:
    return sum(math.log(cell[0][1]) for row in cands for cell in row)


def _same(a: revise.Revision, b: revise.Revision) -> bool:
    return (a.status, a.grid, a.changes, a.cost, a.reason, a.tries, a.solves + a.proven) == \
           (b.status, b.grid, b.changes, b.cost, b.reason, b.tries, b.solves + b.proven)


def test_a_revision_searched_to_reach_ends_as_the_whole_search_whenever_it_could_matter():
    check, proof = kinds.get("takuzu").check_givens, kinds.get("takuzu").is_solution
    mattered = shorter = 0
    for seed in range(12):
        cands = _cands(seed)
        ll = _likelihood(cands)
        whole = revise.revise(cands, _make, solve, clash=check, max_seconds=60.0, is_solution=proof)
        for ahead in (0.0, 0.8, 1.6, 2.3):  # the best solved reading's score this far above this one's likelihood
            best = ll + ahead
            cut = revise.revise(cands, _make, solve, clash=check, max_seconds=60.0, is_solution=proof,
                                max_cost=photo.reach(ll, best))
            within = ll - (best - revise.RIVAL_MARGIN)

            def matters(rev):
                return rev.status == "solved" and rev.cost <= within
            assert matters(cut) == matters(whole)
            if matters(whole):
                mattered += 1
                assert _same(cut, whole)
            shorter += cut.tries < whole.tries
    assert mattered >= 8 and shorter >= 8


def _reading(cands) -> GridReading:
    n = len(cands)
    ys, xs = np.mgrid[0:n + 1, 0:n + 1].astype(np.float32) * 40.0
    return GridReading(mesh=rectify.Mesh(n, np.stack([xs, ys], axis=-1)), turn=0, cands=cands, fit=0.0,
                       picture=np.zeros((n * 40, n * 40), np.uint8), cell=40)


def test_photo_stage_searches_a_reading_behind_a_solved_one_less_and_chooses_the_same(monkeypatch):
    puzzle = kinds.get("takuzu").generate(6, seed=5)
    sure = _reading([[[(v, 0.999), (1 - v, 0.001)] if v is not None else [(None, 0.999), (0, 0.001)] for v in row]
                     for row in puzzle.givens])
    behind = _reading(_cands(3))  # a few doubtful marks: ambiguous every way, within the margin of ``sure``
    assert sure.log_likelihood() - revise.RIVAL_MARGIN < behind.log_likelihood() < sure.log_likelihood()
    calls = []

    def counted(p):
        calls.append(1)
        return solve(p)
    run = dict(loaded=None, engine=None, source="x", index=0, solve=counted, timer=Timer())
    got = photo._read_candidate(None, [FixedReader([sure, behind])], **run)
    cut = len(calls)
    monkeypatch.setattr(photo, "reach", lambda likelihood, best: revise.MAX_COST)  # the search as it was
    calls.clear()
    was = photo._read_candidate(None, [FixedReader([sure, behind])], **run)
    assert got[1] is was[1] is sure and _same(got[2], was[2]) and got[2].status == "solved"
    assert cut < len(calls)
