"""Stage 7, debug pictures: each stage's picture under a stable name in the ``--debug`` folder.

- ``01_quad.jpg``: the detection image, every confirmed candidate (thin) and the chosen grid's mesh (thick);
- ``02_rectified.png``: the dewarped grid the cells are cut from;
- ``03_cells.png``: the dewarped grid with the decisions: empty (nothing), filled (the value read, green when
  sure, orange when doubtful), revised cells in red;
- ``04_overlay.jpg``: the answer drawn on the detection copy (only when solved).

With several grids in a photo, the second one's pictures carry a ``g2_`` prefix, and so on.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .rectify import Mesh


def _write(folder: Path, name: str, image: np.ndarray) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / name), image)


def quad_picture(image: np.ndarray, candidates, mesh: Mesh | None) -> np.ndarray:
    """(H, W, 3) ``image`` with candidate quads (x, y) in blue and the chosen mesh in green."""
    pic = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    for cand in candidates:
        cv2.polylines(pic, [np.round(cand.quad).astype(np.int32)], True, (255, 120, 0), 1, cv2.LINE_AA)
        cv2.putText(pic, f"n={cand.size}", tuple(int(v) for v in cand.quad[0]), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                    (255, 120, 0), 1, cv2.LINE_AA)
    if mesh is not None:
        p = np.round(mesh.points).astype(np.int32)
        for i in range(mesh.n + 1):
            cv2.polylines(pic, [p[i, :]], False, (0, 200, 0), 1, cv2.LINE_AA)
            cv2.polylines(pic, [np.ascontiguousarray(p[:, i])], False, (0, 200, 0), 1, cv2.LINE_AA)
        cv2.polylines(pic, [np.round(mesh.quad).astype(np.int32)], True, (0, 200, 0), 2, cv2.LINE_AA)
    return pic


def cells_picture(grid: np.ndarray, cell: int, cands, changes) -> np.ndarray:
    """The dewarped ``grid`` (N, N) with each cell's best candidate written in its corner."""
    pic = cv2.cvtColor(grid, cv2.COLOR_GRAY2BGR)
    changed = {rc: new for rc, _, new in changes}
    for r, row in enumerate(cands):
        for c, options in enumerate(row):
            value, p = options[0]
            if (r, c) in changed:
                value, colour = changed[(r, c)], (0, 0, 255)
            else:
                colour = (0, 160, 0) if p >= 0.8 else (0, 140, 255)
            if value is None and (r, c) not in changed:
                continue
            label = "." if value is None else str(value)
            cv2.putText(pic, label, (c * cell + 2, r * cell + cell // 3), cv2.FONT_HERSHEY_SIMPLEX,
                        cell / 90, colour, 1, cv2.LINE_AA)
    return pic


def write_stage(folder: Path | None, name: str, image: np.ndarray) -> None:
    """Write one stage picture (nothing when no debug folder was asked for)."""
    if folder is not None and image is not None:
        _write(Path(folder), name, image)
