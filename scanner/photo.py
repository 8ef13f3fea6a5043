"""A photo in, one record per puzzle out: the pipeline as a list of named stages.

    load -> find grids -> fit mesh -> dewarp -> ink per cell -> read digits
         -> revise by the rules -> solve -> overlay (+ debug pictures, timings)

Every stage is a function on arrays in its own module; this file only chains
them, times them and builds the contract records (``scanner.report``).
"""
from __future__ import annotations

import functools
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from solver.api import grade, solve as solve_puzzle
from solver.errors import NoPuzzleError, ScanSolveError
from solver.puzzle import Grid, Puzzle

from . import cells as cells_stage
from . import debug, grid_find, load as load_stage, overlay, rectify, revise as revise_stage
from .report import puzzle_record

READ_CELL = 40  #: pixels per cell of the dewarped picture the digits are read from
SUDOKU_BOXES = {4: (2, 2), 6: (2, 3), 9: (3, 3), 16: (4, 4)}
SUDOKU_ALPHABET = "123456789ABCDEFG"  #: labels of the values 1..16 (16x16 grids print A..G for 10..16)


class Timer:
    """Seconds spent per named stage (summed when a stage runs several times)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

    def rounded(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in self.seconds.items()}


@dataclass
class Reading:
    """One grid read from the photo: its mesh in full-resolution pixels, the dewarped picture and the
    per-cell candidates ``[(value or None, p), ...]`` (n x n)."""

    mesh: rectify.Mesh
    picture: np.ndarray
    cands: list
    timer: Timer = field(default_factory=Timer)


@functools.lru_cache(maxsize=4)
def get_engine(name: str):
    """The digit reader ``name`` from ``scanner.ocr`` (loaded once per process)."""
    from .ocr import get_engine as ocr_engine

    return ocr_engine(name)


def ink_gray(image: np.ndarray) -> np.ndarray:
    """(H, W) uint8 where coloured print (red, blue digits) is as dark as black: the darkest channel."""
    return image if image.ndim == 2 else np.min(image, axis=2)


def sudoku_puzzle(grid: Grid, *, source: str = "", index: int = 0) -> Puzzle:
    n = len(grid)
    return Puzzle(kind="sudoku", size=n, givens=[list(r) for r in grid], box=SUDOKU_BOXES[n],
                  source=source, index=index)


def read_grid(full: np.ndarray, small: np.ndarray, scale: float, cand: grid_find.Candidate, engine, *,
              alphabet: str, timer: Timer) -> Reading:
    """Fit the mesh of ``cand`` (found in ``small``), dewarp, measure the ink and read the filled cells."""
    n = cand.size
    with timer.stage("mesh"):
        mesh_small = rectify.fit_mesh(small, cand.quad, n)
    with timer.stage("dewarp"):
        # read from the detection copy when the grid is large enough there, else from full resolution
        side_small = float(np.linalg.norm(mesh_small.quad[0] - mesh_small.quad[2])) / 1.414
        if side_small >= 1.2 * n * READ_CELL or scale >= 1.0:
            source, mesh_src = small, mesh_small
        else:
            source, mesh_src = full, mesh_small.scaled(1.0 / scale)
        picture = ink_gray(rectify.dewarp(source, mesh_src, cell=READ_CELL))
    with timer.stage("ink"):
        inks = cells_stage.measure(picture, n, cell=READ_CELL)
    with timer.stage("read"):
        quarter, inks, cands = orient_and_read(inks, engine, alphabet=alphabet)
    mesh_full = mesh_small.scaled(1.0 / scale).rotated(quarter)
    picture = np.ascontiguousarray(np.rot90(picture, k=-quarter))
    return Reading(mesh=mesh_full, picture=picture, cands=cands, timer=timer)


def read_cells(inks, engine, *, alphabet: str) -> list:
    """Candidates (n x n) for the cells: the engine reads only the cells with ink."""
    n = len(inks)
    todo = [(r, c) for r in range(n) for c in range(n) if inks[r][c].crop is not None]
    labels = engine.read([inks[r][c].crop for r, c in todo], alphabet=alphabet) if todo else []
    got = dict(zip(todo, labels))
    return [[cells_stage.combine(inks[r][c], got.get((r, c)), alphabet=alphabet) for c in range(n)]
            for r in range(n)]


def _turn(inks, quarter: int):
    """The ink grid (n x n of CellInk) as seen after turning the photo ``quarter`` x 90 degrees clockwise."""
    grid = np.empty((len(inks), len(inks)), dtype=object)
    for r, row in enumerate(inks):
        for c, ink in enumerate(row):
            crop = None if ink.crop is None else np.ascontiguousarray(np.rot90(ink.crop, k=-quarter))
            grid[r, c] = cells_stage.CellInk(ink.height, ink.p_filled, crop)
    return np.rot90(grid, k=-quarter).tolist()


def _fit(cands) -> float:
    """Mean log-probability of the best candidate over the cells with ink (how well the digits read)."""
    probs = [cell[0][1] for row in cands for cell in row if cell[0][0] is not None]
    return float(np.mean(np.log(probs))) if probs else -np.inf


def orient_and_read(inks, engine, *, alphabet: str, sure: float = -0.1):
    """Read the cells upright; when the digits read poorly, also turned by 90/180/270 degrees, keeping the
    orientation whose digits read best. Returns (quarter turns clockwise, inks, candidates)."""
    cands = read_cells(inks, engine, alphabet=alphabet)
    best = (_fit(cands), 0, inks, cands)
    if best[0] >= sure:
        return 0, inks, cands
    for quarter in (1, 2, 3):
        turned = _turn(inks, quarter)
        turned_cands = read_cells(turned, engine, alphabet=alphabet)
        score = _fit(turned_cands)
        if score > best[0] + 0.5:  # a clear margin: the upright reading is kept on near-ties
            best = (score, quarter, turned, turned_cands)
    return best[1], best[2], best[3]


def _clash_check(kind: str):
    """The kind's cheap ``check_givens`` (None while the kind does not provide it)."""
    from solver import kinds

    try:
        return getattr(kinds.get(kind), "check_givens", None)
    except ImportError:
        return None


def _changed_text(changes) -> list[str]:
    def show(v):
        return "empty" if v is None else str(v)

    return [f"r{r + 1}c{c + 1} {show(old)}->{show(new)}" for (r, c), old, new in changes]


def scan_photo(path: Path, *, kind: str = "auto", out_dir: Path | None = None, debug_dir: Path | None = None,
               engine: str = "auto", draw: bool = True,
               solve: Callable[[Puzzle], object] = solve_puzzle, max_grids: int = 1, reader=None) -> list[dict]:
    """Records (``scanner.report.puzzle_record`` + ``quad``, ``overlay``, ``changed``, ``confidence``,
    ``timings``) for the puzzles in the photo at ``path``.

    ``reader`` (an engine object) replaces the engine named by ``engine``; ``solve``
    replaces ``solver.api.solve``; ``max_grids`` bounds the puzzles read from one photo.
    Raises ``InputError`` for a file that is not a usable image and
    ``NoPuzzleError`` when no grid is found. An unreadable puzzle gives a
    record with status ``unreadable`` and no overlay.
    """
    path = Path(path)
    if kind not in ("auto", "sudoku"):
        raise NoPuzzleError(f"{path}: reading a {kind} from a photo is not supported yet")
    start = time.perf_counter()
    timer = Timer()
    with timer.stage("load"):
        loaded = load_stage.load(path)
    with timer.stage("find"):
        candidates = [c for c in grid_find.find_grids(loaded.small) if c.size in SUDOKU_BOXES]
    if not candidates:
        debug.write_stage(debug_dir, "01_quad.jpg", debug.quad_picture(loaded.small, [], None))
        raise NoPuzzleError(f"{path}: no puzzle grid found in the image")
    with timer.stage("engine"):
        reader = reader or get_engine(engine)
    records = []
    for index, cand in enumerate(candidates[:max_grids]):
        n = cand.size
        alphabet = SUDOKU_ALPHABET[:n]
        reading = read_grid(loaded.image, loaded.small, loaded.scale, cand, reader, alphabet=alphabet, timer=timer)
        with timer.stage("revise"):
            make = lambda g: sudoku_puzzle(g, source=str(path), index=index)  # noqa: E731
            clash = _clash_check("sudoku")
            rev = revise_stage.revise(reading.cands, make, solve, clash=clash)
        puzzle = make(rev.grid)
        difficulty = None
        if rev.status == "solved":
            with timer.stage("grade"):
                try:
                    difficulty = grade(puzzle, rev.result)
                except ScanSolveError:
                    raise
                except Exception:  # grading is a nicety; never lose a solved puzzle over it
                    difficulty = None
        out_path = None
        if rev.status == "solved" and draw:
            with timer.stage("overlay"):
                digits = {(r, c): alphabet[rev.result.solution[r][c] - 1]
                          for r in range(n) for c in range(n) if rev.grid[r][c] is None}
                # drawn in place: the decoded photo is not needed afterwards (debug pictures use the small copy)
                drawn = overlay.draw_digits(loaded.image, reading.mesh, digits, inplace=True)
                target = overlay.overlay_path(path, out_dir)
                if index:
                    target = target.with_name(f"{path.stem}.{index + 1}.solved.jpg")
                out_path = str(overlay.write_jpeg(drawn, target, source=path))
        if debug_dir is not None:
            with timer.stage("debug"):
                small_mesh = reading.mesh.scaled(loaded.scale)
                debug.write_stage(debug_dir, "01_quad.jpg", debug.quad_picture(loaded.small, candidates, small_mesh))
                debug.write_stage(debug_dir, "02_rectified.png", reading.picture)
                debug.write_stage(debug_dir, "03_cells.png",
                                  debug.cells_picture(reading.picture, READ_CELL, reading.cands, rev.changes))
        confidence = float(np.exp(-rev.cost)) * min(cell[0][1] for row in reading.cands for cell in row)
        quad = [[round(float(x), 1), round(float(y), 1)] for x, y in reading.mesh.quad]
        records.append(puzzle_record(
            puzzle, rev.result if rev.status == "solved" else None,
            difficulty=difficulty, seconds=time.perf_counter() - start,
            status="solved" if rev.status == "solved" else "unreadable",
            reason=rev.reason, quad=quad, overlay=out_path,
            changed=_changed_text(rev.changes), confidence=round(confidence, 4), timings=timer.rounded(),
        ))
    return records
