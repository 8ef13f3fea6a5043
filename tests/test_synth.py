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


def _rectified(img: np.ndarray, corners, side: int = 360, margin: int = 0) -> np.ndarray:
    """The grid warped to a square by its truth corners (plus ``margin`` pixels around): outer lines land on
    the square's border."""
    grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).astype(np.float32)
    dst = np.float32([[0, 0], [side, 0], [side, side], [0, side]]) + margin
    H = cv2.getPerspectiveTransform(np.float32(corners), dst)
    size = (side + 1 + 2 * margin, side + 1 + 2 * margin)
    return cv2.warpPerspective(grey, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}{c[1]}-{c[2]}")
def test_corners_sit_on_the_outer_grid_line(rendered, case):
    """Across each outer edge the darkest line is where the corners say (within 1 % of the grid side)."""
    img, rec, _ = rendered[case]
    side, m = 400, 24
    sq = _rectified(img, rec["corners"], side, m)
    boxes = rec["style"]["layout"] == "boxes"
    along = slice(m + int(0.1 * side), m + int(0.9 * side))
    # For each edge: rows (or columns) from m - 20 to m + 20 around it, summarised along the edge.
    profiles = {
        "top": sq[m - 20:m + 21, along], "bottom": sq[m + side - 20:m + side + 21, along],
        "left": sq[along, m - 20:m + 21].T, "right": sq[along, m + side - 20:m + side + 21].T,
    }
    for name, band in profiles.items():
        prof = np.percentile(band, 30 if boxes else 50, axis=1)  # boxes: the line shows along each box, not the gaps
        darkest = int(np.argmin(prof)) - 20
        assert abs(darkest) <= 4, f"{name} edge: darkest line {darkest} px (of {side}) away from the corners"
        assert prof.min() < 0.93 * np.max(prof), f"{name} edge: no line"


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
