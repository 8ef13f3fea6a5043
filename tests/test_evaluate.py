"""The evaluation command: matching quads, scoring reads, and the table (with a stub reader)."""
from __future__ import annotations

import copy

import pytest

from scanner import evaluate
from conftest import SAMPLES

SQUARE = [[10, 10], [110, 10], [110, 110], [10, 110]]


def test_quad_error_ignores_start_corner_and_direction():
    assert evaluate.quad_error(SQUARE, SQUARE) == 0
    assert evaluate.quad_error(SQUARE[2:] + SQUARE[:2], SQUARE) == 0
    assert evaluate.quad_error(SQUARE[::-1], SQUARE) == 0
    shifted = [[x + 4, y] for x, y in SQUARE]
    assert evaluate.quad_error(shifted, SQUARE) == pytest.approx(0.04)


def _truth():
    givens = [[1, None, None, None], [None, None, 1, None], [None, 1, None, None], [None, None, None, 1]]
    solution = [[1, 2, 3, 4], [3, 4, 1, 2], [4, 1, 2, 3], [2, 3, 4, 1]]
    t = {"kind": "sudoku", "size": 4, "givens": givens, "relations": [], "solution": solution, "corners": SQUARE}
    return evaluate.Truth(SAMPLES / "none.jpg", [t])


def _record(truth, **changes):
    p = truth.puzzles[0]
    rec = {"kind": p["kind"], "size": p["size"], "givens": copy.deepcopy(p["givens"]), "relations": [],
           "status": "solved", "solution": copy.deepcopy(p["solution"]), "quad": SQUARE}
    rec.update(changes)
    return rec


def test_a_perfect_read_scores_everything():
    t = _truth()
    s = evaluate.score_image(t, [_record(t)], tolerance=0.05)["sudoku"]
    assert (s["found"], s["cells_correct"], s["exact"], s["solved_right"], s["wrong"], s["no_answer"]) == (1, 16, 1, 1, 0, 0)


def test_a_misread_solved_puzzle_is_a_wrong_answer_not_no_answer():
    t = _truth()
    bad = _record(t)
    bad["givens"][0][1] = 2
    bad["solution"] = [[1, 2, 4, 3], [4, 3, 1, 2], [3, 1, 2, 4], [2, 4, 3, 1]]
    s = evaluate.score_image(t, [bad], tolerance=0.05)["sudoku"]
    assert (s["cells_correct"], s["exact"], s["wrong"], s["no_answer"]) == (15, 0, 1, 0)


def test_unreadable_or_nothing_found_is_no_answer_and_far_quads_are_not_found():
    t = _truth()
    far = _record(t, status="unreadable", solution=None, quad=[[x + 30, y] for x, y in SQUARE])
    s = evaluate.score_image(t, [far], tolerance=0.05)["sudoku"]
    assert (s["found"], s["no_answer"], s["wrong"]) == (0, 1, 0)
    s = evaluate.score_image(t, [], tolerance=0.05)["sudoku"]
    assert (s["found"], s["cells_correct"], s["no_answer"]) == (0, 0, 1)


def test_an_overlay_on_a_misread_puzzle_counts_apart():
    t = _truth()
    rec = _record(t, status="ambiguous", solution=None, overlay="x.jpg")
    rec["givens"][0][0] = None
    s = evaluate.score_image(t, [rec], tolerance=0.05)["sudoku"]
    assert (s["wrong_overlay"], s["no_answer"]) == (1, 1)


def test_a_turned_answer_counts_apart_only_when_the_record_says_the_turn_is_unknown():
    import numpy as np

    t = _truth()
    p = t.puzzles[0]
    half = {"givens": np.rot90(np.array(p["givens"], dtype=object), 1).tolist(),
            "solution": np.rot90(np.array(p["solution"]), 1).tolist(), "overlay": "x.solved.jpg"}
    s = evaluate.score_image(t, [_record(t, turn_known=False, **half)], tolerance=0.05)["sudoku"]
    assert (s["turned"], s["wrong"], s["wrong_overlay"], s["solved_right"], s["exact"]) == (1, 0, 0, 0, 0)
    s = evaluate.score_image(t, [_record(t, turn_known=True, **half)], tolerance=0.05)["sudoku"]
    assert (s["turned"], s["wrong"]) == (0, 1)  # the reader claimed to know the turn: a wrong answer
    missed = dict(half, givens=[row[:] for row in half["givens"]])
    r, c = next((r, c) for r, row in enumerate(missed["givens"]) for c, v in enumerate(row) if v is not None)
    missed["givens"][r][c] = None  # a given missed: the answer in the photo is still right, the overlay is not
    s = evaluate.score_image(t, [_record(t, turn_known=False, **missed)], tolerance=0.05)["sudoku"]
    assert (s["turned"], s["wrong"], s["wrong_overlay"]) == (1, 0, 1)
    wrong = dict(half, solution=[row[::-1] for row in half["solution"]])
    s = evaluate.score_image(t, [_record(t, turn_known=False, **wrong)], tolerance=0.05)["sudoku"]
    assert (s["turned"], s["wrong"]) == (0, 1)


def test_signs_are_scored_for_futoshiki():
    rel = [{"a": [0, 0], "b": [0, 1], "op": "<"}, {"a": [1, 0], "b": [2, 0], "op": ">"}]
    t = evaluate.Truth(SAMPLES / "none.jpg", [{"kind": "futoshiki", "size": 3, "givens": [[None] * 3] * 3,
                                              "relations": rel, "solution": None, "corners": SQUARE}])
    read = {"kind": "futoshiki", "size": 3, "givens": [[None] * 3] * 3, "status": "unreadable", "quad": SQUARE,
            "relations": [rel[0], {"a": [0, 1], "b": [0, 2], "op": "<"}]}
    s = evaluate.score_image(t, [read], tolerance=0.05)["futoshiki"]
    assert (s["signs_correct"], s["signs_total"], s["signs_spurious"]) == (1, 2, 1)


def test_the_table_over_samples_with_a_stub_reader(monkeypatch, capsys):
    monkeypatch.setattr(evaluate, "get_reader", lambda: (evaluate._stub, "STUB (test)"))
    code = evaluate.main([str(SAMPLES / "real"), str(SAMPLES / "futoshiki"), "--limit", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "STUB" in out.splitlines()[0]
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    assert rows["sudoku"][1] == "2" and rows["futoshiki"][1] == "2" and rows["all"][1] == "4"
    assert "0/4 (0%)" in out  # the stub finds no grid


def test_real_dat_truth_has_a_unique_solution_and_corners():
    truths = evaluate.find_truths([SAMPLES / "real"])
    assert len(truths) >= 3
    for t in truths:
        p = t.puzzles[0]
        assert p["size"] == 9 and p["solution"] is not None and len(p["corners"]) == 4


def test_a_truth_without_corners_is_matched_by_kind_size_and_givens():
    t = _truth()
    t.puzzles[0]["corners"] = None
    other = _record(t, size=6, quad=[[500, 500], [600, 500], [600, 600], [500, 600]])
    blank = _record(t, givens=[[None] * 4 for _ in range(4)], status="unreadable", solution=None)
    right = _record(t, quad=[[x + 300, y] for x, y in SQUARE])
    s = evaluate.score_image(t, [other, blank, right], tolerance=0.05)["sudoku"]
    assert (s["found"], s["cells_correct"], s["exact"], s["solved_right"], s["wrong"]) == (1, 16, 1, 1, 0)
    s = evaluate.score_image(t, [other], tolerance=0.05)["sudoku"]
    assert (s["found"], s["no_answer"]) == (0, 1)


def test_a_right_reading_called_unreadable_is_not_read_exactly():
    t = _truth()
    s = evaluate.score_image(t, [_record(t, status="unreadable", solution=None)], tolerance=0.05)["sudoku"]
    assert (s["found"], s["cells_correct"], s["exact"], s["no_answer"], s["wrong"]) == (1, 16, 0, 1, 0)


def test_a_solved_record_matching_no_true_grid_is_an_extra_answer():
    t = _truth()
    inner = [[10, 10], [60, 10], [60, 60], [10, 60]]  # say a grid's inner box, read and solved as a puzzle
    s = evaluate.score_image(t, [_record(t), _record(t, quad=inner)], tolerance=0.05)["sudoku"]
    assert (s["found"], s["exact"], s["solved_right"], s["wrong"], s["extra"]) == (1, 1, 1, 0, 1)
    s = evaluate.score_image(t, [_record(t), _record(t, quad=inner, status="unreadable", solution=None)],
                             tolerance=0.05)["sudoku"]
    assert s["extra"] == 0  # nothing drawn
    s = evaluate.score_image(t, [_record(t), _record(t, kind="takuzu", size=6, quad=inner)], tolerance=0.05)
    assert (s["sudoku"]["extra"], s["takuzu"]["extra"], s["takuzu"]["puzzles"]) == (0, 1, 0)


def test_an_answer_on_a_puzzle_the_photo_cuts_off_is_no_extra_answer():
    t = _truth()
    cut = dict(t.puzzles[0], corners=[[200, 200], [300, 200], [300, 300], [200, 300]], in_frame=False)
    t = evaluate.Truth(t.image, t.puzzles, [cut])
    there = _record(t, quad=[[200, 200], [300, 200], [300, 292], [200, 292]])  # the part the photo shows
    elsewhere = _record(t, quad=[[500, 500], [600, 500], [600, 600], [500, 600]])
    s = evaluate.score_image(t, [_record(t), there, elsewhere], tolerance=0.05)["sudoku"]
    assert (s["puzzles"], s["exact"], s["extra"]) == (1, 1, 1)


def test_a_picture_its_truth_does_not_name_is_left_out(tmp_path):
    import json

    truth = {"image": "page.png", "puzzles": [{"kind": "sudoku", "size": 4, "givens": [[None] * 4] * 4,
                                                "relations": [], "solution": None, "corners": SQUARE}]}
    (tmp_path / "page.json").write_text(json.dumps(truth))
    for name in ("page.png", "page.jpg"):
        (tmp_path / name).write_bytes(b"")
    assert [t.image.name for t in evaluate.find_truths([tmp_path])] == ["page.png"]
