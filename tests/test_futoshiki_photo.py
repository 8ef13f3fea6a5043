"""Futoshiki from a photo: both printed layouts read exactly, signs turned with the page, the rules revise a sign."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from scanner import photo, revise, signs
from scanner.readers import futoshiki
from scanner.synth import render, write_sample
from solver.api import solve


def _relations(rels) -> set:
    return {(tuple(r["a"]), tuple(r["b"]), r["op"]) for r in rels}


def _print(tmp_path, layout: str, signs_style: str, *, seed: int, size: int, quarter: int = 0):
    """A flat print of a generated Futoshiki, turned ``quarter`` x 90 degrees clockwise; (path, truth)."""
    img, rec, _ = render("futoshiki", seed=seed, size=size, mode="print", two=False,
                         style={"layout": layout, "signs": signs_style, "shaded_givens": False})
    img = np.ascontiguousarray(np.rot90(img, k=-quarter))
    path = tmp_path / f"{layout}_{signs_style}_{quarter}.png"
    cv2.imwrite(str(path), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    return path, rec["puzzles"][0]


@pytest.mark.parametrize("layout, signs_style, seed, size", [
    ("lattice", "glyph", 3, 5), ("lattice", "chevron", 4, 7), ("boxes", "vcaret", 5, 6), ("boxes", "glyph", 6, 4),
])
def test_rendered_futoshiki_reads_exactly(tmp_path, layout, signs_style, seed, size):
    path, truth = _print(tmp_path, layout, signs_style, seed=seed, size=size)
    [record] = photo.scan_photo(path, kind="futoshiki", draw=False)
    assert record["kind"] == "futoshiki" and record["size"] == size
    assert record["givens"] == truth["givens"]
    assert _relations(record["relations"]) == _relations(truth["relations"])
    assert record["status"] == "solved" and record["solution"] == truth["solution"]


@pytest.mark.parametrize("quarter", [0, 1])
def test_boxes_layout_draws_into_the_printed_boxes(tmp_path, quarter):
    from scanner import load, rectify
    from scanner.timing import Timer
    path, _ = _print(tmp_path, "boxes", "vcaret", seed=5, size=6, quarter=quarter)
    loaded = load.load(path)
    cands = futoshiki.READER.find(loaded.small)
    [reading] = futoshiki.READER.read(loaded, cands[0], photo.get_engine("auto"), timer=Timer())
    assert reading.turn == quarter
    # the ink's own word on which cells hold a mark, turned upright with the digits (it lets the photo stage
    # refuse corrections made while a plainly printed mark is read as nothing)
    givens = np.array([[cell[0][0] is not None for cell in row] for row in reading.cands])
    assert reading.filled.shape == (6, 6) and givens.any()
    assert np.all(reading.filled[givens] >= photo.SURE_MARK) and np.all(reading.filled[~givens] < photo.SURE_MARK)
    cells = rectify.cell_quads(reading.mesh)
    for r in range(6):
        for c in range(6):
            box, cell = reading.boxes[r, c], cells[r, c]
            # the same upright cell: corners in the same order, the box inside its (larger) mesh cell
            assert np.all(np.linalg.norm(box - cell, axis=1) < 0.6 * np.linalg.norm(cell[0] - cell[1]))
            assert cv2.contourArea(box.astype(np.float32)) < cv2.contourArea(cell.astype(np.float32))


def test_auto_kind_recognises_a_boxes_futoshiki(tmp_path):
    path, truth = _print(tmp_path, "boxes", "chevron", seed=7, size=5)
    [record] = photo.scan_photo(path, kind="auto", draw=False)
    assert record["kind"] == "futoshiki" and record["solution"] == truth["solution"]


@pytest.mark.parametrize("quarter", [1, 3])
def test_turned_print_reads_signs_upright(tmp_path, quarter):
    path, truth = _print(tmp_path, "lattice", "chevron", seed=8, size=6, quarter=quarter)
    [record] = photo.scan_photo(path, kind="futoshiki", draw=False)
    assert record["turn"] == 90 * quarter
    assert record["givens"] == truth["givens"]
    assert _relations(record["relations"]) == _relations(truth["relations"])


def test_turning_a_sign_keeps_its_tip_on_the_smaller_cell():
    # picture: r0c0 < r0c1 (tip "low": towards the left cell); turned 90 degrees clockwise, r0c0 goes to
    # r0c3 and r0c1 to r1c3 of a 4x4 grid, so the sign becomes a vertical one with its tip up: r0c3 < r1c3
    read = {((0, 0), (0, 1)): [("low", 0.9), (None, 0.1)]}
    [((a, b), options)] = futoshiki.turn_relations(read, 4, 1)
    assert (a, b) == ((0, 3), (1, 3)) and options[0] == ("<", 0.9)
    [((a, b), options)] = futoshiki.turn_relations(read, 4, 2)  # upside down: r3c3 > r3c2, i.e. r3c2 > r3c3
    assert (a, b) == ((3, 2), (3, 3)) and options[0] == (">", 0.9)


def test_sign_direction_from_shape():
    # a drawn "<" (tip left) and ">" in a pitch picture of two cells; vertical turned copies
    pitch = 64
    pic = np.full((pitch, 2 * pitch), 255, np.uint8)
    cx, cy = pitch, pitch // 2
    cv2.polylines(pic, [np.array([[cx + 10, cy - 12], [cx - 10, cy], [cx + 10, cy + 12]])], False, 0, 3)
    grid = np.pad(pic, ((0, pitch), (0, 0)), constant_values=255)  # a 2 x 2 grid, the sign in its top row
    got = signs.read_signs(grid, 2, pitch=pitch, box=1.0)
    assert got[((0, 0), (0, 1))][1][0][0] == "low" and got[((0, 0), (0, 1))][1][0][1] > 0.9
    flipped = np.pad(pic[:, ::-1], ((0, pitch), (0, 0)), constant_values=255)
    got = signs.read_signs(flipped, 2, pitch=pitch, box=1.0)
    assert got[((0, 0), (0, 1))][1][0][0] == "high"
    assert got[((0, 0), (1, 0))][1][0][0] is None
    # turned to a vertical pair: tip up (the upper cell is the smaller)
    turned = np.ascontiguousarray(np.rot90(grid, k=-1))  # the "<" turned clockwise points up, in column 1
    got = signs.read_signs(turned, 2, pitch=pitch, box=1.0)
    assert got[((0, 1), (1, 1))][1][0][0] == "low"


def test_a_flipped_doubtful_sign_is_revised_by_the_rules(tmp_path):
    path, truth = _print(tmp_path, "lattice", "glyph", seed=3, size=5)
    from scanner import load
    from scanner.timing import Timer
    loaded = load.load(path)
    cand = [c for c in photo.grid_find.find_grids(loaded.small) if futoshiki.READER.accepts(c)][0]
    [reading] = futoshiki.READER.read(loaded, cand, photo.get_engine("auto"), timer=Timer())
    true_rels = _relations(truth["relations"])
    # flip one true sign: its runner-up (the true direction) stays fairly likely
    i = next(i for i, ((a, b), opts) in enumerate(reading.relations) if opts[0][0] is not None)
    (a, b), opts = reading.relations[i]
    flip = {"<": ">", ">": "<"}[opts[0][0]]
    reading.relations[i] = ((a, b), [(flip, 0.7), (opts[0][0], 0.29), (None, 0.01)])
    rev = revise.revise(reading.cands, futoshiki.READER.make_puzzle, solve, relation_cands=reading.relations)
    assert rev.status == "solved"
    assert {(r.a, r.b, r.op) for r in rev.relations} == true_rels
    assert rev.relation_changes == [((a, b), flip, opts[0][0])]
    # a sign missed altogether (read as none, the sign a runner-up) is put back the same way
    reading.relations[i] = ((a, b), [(None, 0.7), (opts[0][0], 0.29), (flip, 0.01)])
    rev = revise.revise(reading.cands, futoshiki.READER.make_puzzle, solve, relation_cands=reading.relations)
    assert rev.status == "solved" and {(r.a, r.b, r.op) for r in rev.relations} == true_rels


@pytest.mark.parametrize("turn", [90, 180])
def test_a_print_with_no_digit_given_takes_its_turn_from_the_page(tmp_path, turn):
    """Signs turned are signs still, so with no digit given the print's own marks cannot tell its turn: it is
    never claimed as seen: the page's text tells it here (without it the turn is given as unknown)."""
    path = write_sample(tmp_path, f"nodigit_{turn}", "futoshiki", seed=4, size=4, mode="photo", turn=turn,
                        two=False, long_side=1400)
    truth = json.loads(path.with_suffix(".json").read_text())["puzzles"][0]
    assert all(v is None for row in truth["givens"] for v in row)  # the case in point: signs only
    [record] = photo.scan_photo(path, kind="auto", draw=False)
    assert record["kind"] == "futoshiki" and record["status"] == "solved"
    told = record["turn_known"] and record["turn"] == turn
    assert told and _relations(record["relations"]) == _relations(truth["relations"])
    assert record["solution"] == truth["solution"]


def test_a_grid_of_separate_boxes_is_read_by_the_futoshiki_reader_alone(tmp_path, monkeypatch):
    """A layout only the Futoshiki reader's own finder sees (boxes with gaps between them) is its kind's own: no
    Sudoku or Takuzu is printed so, and reading it as one only costs time (or makes a rival)."""
    from scanner import grid_find, load
    from scanner.readers import sudoku, takuzu
    path, truth = _print(tmp_path, "boxes", "vcaret", seed=5, size=6)
    small = load.load(path).small
    assert not any(c.size == 6 for c in grid_find.find_grids(small))  # the ruled-line finder does not see it
    read = []
    for reader in (sudoku.READER, takuzu.READER):
        monkeypatch.setattr(reader, "read", lambda *a, kind=reader.kind, **k: read.append(kind) or [])
    [record] = photo.scan_photo(path, kind="auto", draw=False)
    assert read == [] and record["kind"] == "futoshiki" and record["solution"] == truth["solution"]
