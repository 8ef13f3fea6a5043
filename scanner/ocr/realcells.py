"""Real cells cut from the labelled Sudoku photos (evaluation data, dev only).

The dataset (``../shared/datasets/sudoku_photos/train``) holds ``imageN.jpg``,
``imageN.dat`` (two header lines, then 9 rows of 9 digits, 0 = empty) and
``outlines.csv`` with the four grid corners (x, y) per photo, top-left first,
clockwise. A 4-point warp and a uniform 9x9 split are enough to cut the cells.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

#: Side of the rectified grid in pixels (9 cells of 48 px).
GRID_SIDE = 432
#: Fraction of the cell side trimmed from every edge (as the photo pipeline does).
MARGIN = 0.08


@dataclass(frozen=True)
class PhotoCells:
    """The 81 cells of one photo: ``cells[i]`` is row ``i // 9``, col ``i % 9``."""

    name: str
    cells: list[np.ndarray]  # grayscale uint8, H x W
    labels: list[str]  # "1".."9" or "." for an empty cell


def read_outlines(folder: Path) -> dict[str, np.ndarray]:
    """Photo name -> 4x2 float32 corners (x, y), top-left first, clockwise."""
    out = {}
    with open(folder / "outlines.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            pts = [float(row[f"p{i}_{a}"]) for i in range(1, 5) for a in "xy"]
            out[row["filepath"]] = np.array(pts, np.float32).reshape(4, 2)
    return out


def read_dat(path: Path) -> list[str]:
    """The 81 labels of a ``.dat`` file, row by row ("." for 0)."""
    rows = [line.split() for line in path.read_text().splitlines()[2:] if line.strip()]
    digits = [d for row in rows[:9] for d in row[:9]]
    if len(digits) != 81:
        raise ValueError(f"{path}: expected 9 rows of 9 digits")
    return ["." if d == "0" else d for d in digits]


def cut_cells(gray: np.ndarray, corners: np.ndarray, *, n: int = 9, side: int = GRID_SIDE,
              margin: float = MARGIN, turns: int = 0) -> list[np.ndarray]:
    """Warp the quadrilateral ``corners`` (4x2, x/y) of ``gray`` to a square and split it n x n.

    ``turns``: quarter turns (``np.rot90``) applied to the square before splitting.
    Returns n*n cell images, row by row, each trimmed by ``margin`` of its side.
    """
    dst = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    warped = cv2.warpPerspective(gray, m, (side, side), flags=cv2.INTER_AREA)
    warped = np.ascontiguousarray(np.rot90(warped, turns))
    step = side / n
    trim = int(round(step * margin))
    cells = []
    for r in range(n):
        for c in range(n):
            y0, x0 = int(round(r * step)), int(round(c * step))
            y1, x1 = int(round((r + 1) * step)), int(round((c + 1) * step))
            cells.append(warped[y0 + trim:y1 - trim, x0 + trim:x1 - trim].copy())
    return cells


#: EXIF orientation -> the rotation (np.rot90 turns) that brings the displayed picture back to the
#: stored pixels' orientation. In this dataset the outlines are given in the displayed (EXIF-rotated)
#: picture while the puzzle stands upright in the stored pixels.
_UNDO_EXIF = {3: 2, 6: 1, 8: 3}


def exif_orientation(path: Path) -> int:
    from PIL import Image

    try:
        with Image.open(path) as im:
            return int(im.getexif().get(274, 1) or 1)
    except (OSError, ValueError):
        return 1


def load_photos(folder: Path, *, limit: int | None = None) -> list[PhotoCells]:
    """Every labelled photo of ``folder`` with an outline, sorted by name."""
    outlines = read_outlines(folder)
    photos = []
    for name in sorted(outlines, key=lambda s: (len(s), s)):
        img = cv2.imread(str(folder / name), cv2.IMREAD_GRAYSCALE)
        dat = folder / (Path(name).stem + ".dat")
        if img is None or not dat.exists():
            continue
        turns = _UNDO_EXIF.get(exif_orientation(folder / name), 0)
        photos.append(PhotoCells(name, cut_cells(img, outlines[name], turns=turns), read_dat(dat)))
        if limit and len(photos) >= limit:
            break
    return photos
