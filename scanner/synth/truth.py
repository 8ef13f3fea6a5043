"""Ground truth beside each image: the ``--json`` record of every printed puzzle plus where its grid is.

The file ``NAME.json`` holds one object: the primary puzzle's contract record
(``kind``, ``size``, ``givens`` with null for empty, ``relations``, ``status``
"solved", ``solution``, ``difficulty``...), its ``corners`` and ``style``, and
``puzzles``: the same for every puzzle on the page (one or two), each with
``in_frame`` (all four corners inside the image). Image-level facts sit in
``image``, ``mode``, ``seed``, ``page`` and ``capture``.

``corners``: the four outer corners of the grid, image pixels ``[[x, y], ...]``
(pixel centres on integers), at the centre of the outer ruled line (or the
outer box outline), in *grid* order: the corner at cell r1c1 first, then
r1cN, rNcN, rNc1 (clockwise on the printed page; when the photo is turned by
90/180 degrees the first corner is not the image's top-left).
Takuzu circles: a black circle is 1, a white circle is 0.
``page.distractors`` lists grids printed on the page that are not puzzles
(a small filled "yesterday's solution" grid), with their corners too.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from solver.puzzle import Result

from ..report import puzzle_record


def public_style(style: dict) -> dict:
    """The style without private rendering details (font paths)."""
    return {k: v for k, v in style.items() if not k.startswith("_")}


def puzzle_truth(item, corners: np.ndarray, width: int, height: int, *, source: str, index: int) -> dict:
    item.puzzle.source, item.puzzle.index = source, index
    rec = puzzle_record(item.puzzle, Result("solved", [item.solution]), difficulty=item.difficulty)
    rec.pop("seconds", None)
    pts = [[round(float(x), 3), round(float(y), 3)] for x, y in corners]
    rec["corners"] = pts
    rec["in_frame"] = all(0 <= x <= width - 1 and 0 <= y <= height - 1 for x, y in pts)
    rec["style"] = public_style(item.style)
    return rec


def record(items, corners, *, image: str, width: int, height: int, mode: str, seed: int, page: dict,
           capture: dict) -> dict:
    puzzles = [puzzle_truth(it, c, width, height, source=image, index=i) for i, (it, c) in enumerate(zip(items, corners))]
    top = dict(puzzles[0])
    top.update({"image": image, "width": width, "height": height, "mode": mode, "seed": seed,
                "page": page, "capture": capture, "puzzles": puzzles})
    return top


def write(path: Path, rec: dict) -> None:
    path.write_text(json.dumps(rec, ensure_ascii=False, indent=None, separators=(", ", ": ")) + "\n")


def read(path: Path) -> dict:
    return json.loads(Path(path).read_text())
