"""The synthetic test bed: ground truth agrees with the solver, and the corners sit on the drawn grid."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

import scanner.synth as synth
from scanner.report import puzzle_from_record
from solver import kinds
from solver.api import solve

CASES = [("sudoku", 9, "print", 1), ("sudoku", 4, "photo", 2), ("futoshiki", 5, "photo", 3),
         ("futoshiki", 6, "scan", 4), ("takuzu", 8, "photo", 5), ("takuzu", 6, "scan", 6)]


@pytest.fixture(scope="module")
def rendered():
    return {case: synth.render(case[0], seed=case[3], size=case[1], mode=case[2]) for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}{c[1]}-{c[2]}")
def test_truth_is_the_unique_solution(rendered, case):
    _, rec, _ = rendered[case]
    for p in rec["puzzles"]:
        puzzle = puzzle_from_record(p)
        result = solve(puzzle)
        assert result.status == "solved"
        assert result.solution == p["solution"]
        assert kinds.get(p["kind"]).is_solution(puzzle, p["solution"])
    assert rec["kind"] == case[0] and rec["size"] == case[1]
    assert all(len(row) == rec["size"] for row in rec["givens"])


def _rectified(img: np.ndarray, corners, side: int = 360) -> np.ndarray:
    """The grid warped to a square by its truth corners: outer lines land on the square's border."""
    grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).astype(np.float32)
    dst = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    H = cv2.getPerspectiveTransform(np.float32(corners), dst)
    return cv2.warpPerspective(grey, H, (side + 1, side + 1), flags=cv2.INTER_LINEAR)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}{c[1]}-{c[2]}")
def test_corners_sit_on_the_outer_grid_line(rendered, case):
    img, rec, _ = rendered[case]
    sq = _rectified(img, rec["corners"])
    side = sq.shape[0] - 1
    paper = np.percentile(sq, 90)
    # Along each outer edge (away from the corners) the line is dark; 4 % of the side inwards it is lighter.
    span = slice(int(0.1 * side), int(0.9 * side))
    edges = [sq[0, span], sq[side, span], sq[span, 0], sq[span, side]]
    inside = [sq[int(0.04 * side), span], sq[int(0.96 * side), span], sq[span, int(0.04 * side)], sq[span, int(0.96 * side)]]
    for edge, inner in zip(edges, inside):
        if rec["style"]["layout"] == "boxes":  # separate boxes: the edge is dark along each box, not in the gaps
            assert np.median(edge) < paper - 0.25 * paper or np.percentile(edge, 30) < 0.75 * paper
        else:
            assert np.median(edge) < 0.75 * paper
        assert np.median(inner) > np.median(edge)


def test_same_seed_same_image():
    a, ra, _ = synth.render("takuzu", seed=11, size=6, mode="photo")
    b, rb, _ = synth.render("takuzu", seed=11, size=6, mode="photo")
    assert ra == rb and np.array_equal(a, b)


def _given_contrast(sq: np.ndarray, givens: list[list]) -> float:
    """Mean ink in the middle of given cells minus that of empty cells (rectified square ``sq``)."""
    n = len(givens)
    cell = (sq.shape[0] - 1) / n
    ink = np.array([[255 - sq[int((r + 0.3) * cell):int((r + 0.7) * cell), int((c + 0.3) * cell):int((c + 0.7) * cell)].mean()
                     for c in range(n)] for r in range(n)])
    mask = np.array([[v is not None for v in row] for row in givens])
    return float(ink[mask].mean() - ink[~mask].mean())


@pytest.mark.parametrize("turn", [90, 180])
def test_corner_order_follows_the_grid_when_turned(turn):
    """Warped by its corners in grid order, a turned photo shows its givens where the truth says, not turned."""
    img, rec, _ = synth.render("takuzu", seed=21, size=8, mode="photo", turn=turn)
    assert rec["capture"]["turn_deg"] == turn
    sq = _rectified(img, rec["corners"])
    right = _given_contrast(sq, rec["givens"])
    assert right > 20
    for k in (1, 2, 3):
        turned = np.rot90(np.array(rec["givens"], dtype=object), k).tolist()
        if turned != rec["givens"]:
            assert _given_contrast(sq, turned) < right


def test_shrink_moves_the_corners():
    img, rec, _ = synth.render("sudoku", seed=5, size=6, mode="print")
    small, srec = synth.shrink(img, rec, 500)
    assert max(small.shape[:2]) == 500
    sq_big, sq_small = _rectified(img, rec["corners"], 200), _rectified(small, srec["corners"], 200)
    assert np.abs(sq_big - sq_small).mean() < 12
