"""samples/: every image has ground truth that parses, agrees with the solver, and a line in the README."""
from __future__ import annotations

import json

import pytest

from scanner.report import puzzle_from_record
from solver.api import solve
from conftest import SAMPLES

# overlays the README's first command writes beside a sample (NAME.solved.jpg) are outputs, not samples
IMAGES = sorted(p for p in SAMPLES.rglob("*")
                if p.suffix.lower() in {".jpg", ".jpeg", ".png"} and ".solved." not in p.name)


def test_there_are_samples_of_every_kind_and_a_demo():
    folders = {p.parent.name for p in IMAGES}
    assert {"sudoku", "futoshiki", "takuzu", "real"} <= folders
    assert (SAMPLES / "sudoku" / "demo.jpg").exists()


def test_samples_stay_small():
    assert sum(p.stat().st_size for p in SAMPLES.rglob("*") if p.is_file()) < 8_000_000


@pytest.mark.parametrize("image", IMAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_sample_has_truth_and_a_readme_line(image):
    readme = (SAMPLES / "README.md").read_text()
    assert f"{image.parent.name}/{image.name}" in readme
    js, dat = image.with_suffix(".json"), image.with_suffix(".dat")
    assert js.exists() or dat.exists()
    if dat.exists():
        rows = [ln.split() for ln in dat.read_text().splitlines()[2:] if ln.strip()]
        assert len(rows) == 9 and all(len(r) == 9 and all(v.isdigit() for v in r) for r in rows)
        assert image.name in (image.parent / "outlines.csv").read_text()
        return
    rec = json.loads(js.read_text())
    assert rec["image"] == image.name
    for p in rec["puzzles"]:
        result = solve(puzzle_from_record(p))
        assert result.status == "solved" and result.solution == p["solution"]
        xs, ys = zip(*p["corners"])
        if p["in_frame"]:
            assert 0 <= min(xs) and max(xs) < rec["width"] and 0 <= min(ys) and max(ys) < rec["height"]
