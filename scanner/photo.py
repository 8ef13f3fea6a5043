"""A photo in, one record per puzzle out: the pipeline as a list of named stages.

    load -> find grids -> read (per kind: mesh, dewarp, ink, symbols) -> revise by the rules -> solve
         -> overlay (+ debug pictures, timings)

Every stage is a function on arrays in its own module; what is particular to
a puzzle kind lives in its reader (``scanner.readers``). This file only
chains them, times them and builds the contract records (``scanner.report``).
"""
from __future__ import annotations

import dataclasses
import functools
import time
from pathlib import Path
from typing import Callable

import numpy as np

from solver.api import grade, solve as solve_puzzle
from solver.errors import NoPuzzleError, ScanSolveError
from solver.puzzle import Puzzle

from . import debug, grid_find, load as load_stage, overlay, readers, revise as revise_stage
from .readers import GridReading
from .report import puzzle_record
from .timing import Timer

__all__ = ["scan_photo", "scan_image", "get_engine", "Timer"]

SURE_MARK = 0.5  #: ink this sure that a cell holds a mark makes it a given, whatever the digit reader says


@functools.lru_cache(maxsize=4)
def get_engine(name: str):
    """The digit reader ``name`` from ``scanner.ocr`` (loaded once per process)."""
    from .ocr import get_engine as ocr_engine

    return ocr_engine(name)


def _kind_function(kind: str, name: str):
    """The kind's function ``name`` (``check_givens``: its cheap clash check; ``is_solution``: its independent
    solution check), or None while the kind does not provide it."""
    from solver import kinds

    try:
        return getattr(kinds.get(kind), name, None)
    except ImportError:
        return None


def _changed_text(rev: revise_stage.Revision) -> list[str]:
    def show(v):
        return "empty" if v is None else str(v)

    out = [f"r{r + 1}c{c + 1} {show(old)}->{show(new)}" for (r, c), old, new in rev.changes]
    for ((r1, c1), (r2, c2)), old, new in rev.relation_changes:
        out.append(f"r{r1 + 1}c{c1 + 1}/r{r2 + 1}c{c2 + 1} {old or 'none'}->{new or 'none'}")
    return out


def image_quad(reading: GridReading) -> list[list[float]]:
    """The grid's corners (x, y) in full-resolution pixels in IMAGE orientation: the corner nearest the
    image's top-left first, then clockwise on screen (whatever way the printed puzzle is turned)."""
    quad = grid_find.order_corners(reading.mesh.quad)
    return [[round(float(x), 1), round(float(y), 1)] for x, y in quad]


def _read_candidate(cand, chosen, loaded, engine, *, source: str, index: int, solve, timer: Timer):
    """Read ``cand`` with every accepting reader (every interpretation), revise them by the rules and choose
    (see ``scanner.readers``). Returns (reader, reading, revision), or None when no reader takes it.

    A reader taking a ``floor`` (``takes_floor``) read after another reader's reading has solved is told the
    log-likelihood below which its readings cannot matter (``floor``): the best solved score so far less
    ``revise.RIVAL_MARGIN``. Readings below it would be neither revised nor the likeliest, so it may return
    none once it knows all of its own would fall below (the revisions made to tell the floor are kept). The
    readers taking none read first (in ``chosen``'s order), so that the others may be told one."""
    readings: list = []
    done: dict = {}  # the revisions made, by (reading, corrections' reach)
    answers: dict = {}  # the solver's answers in the revision of a reading still to settle (``turned_solve``)
    revise_all = functools.partial(_revise_all, source=source, index=index, solve=solve, timer=timer, done=done,
                                   answers=answers)
    for reader in sorted(chosen, key=lambda r: bool(getattr(r, "takes_floor", False))):
        if not reader.accepts(cand):
            continue
        options = {}
        if readings and getattr(reader, "takes_floor", False):
            solved, _ = revise_all(readings)
            if solved:
                options["floor"] = solved[0][0] - revise_stage.RIVAL_MARGIN
        readings += [(reader, reading) for reading in reader.read(loaded, cand, engine, timer=timer, **options)]
    if not readings:
        return None
    solved, first = revise_all(readings)
    if not solved:
        if first[1].settle is not None:
            reader, reading, _ = first
            first = _settled(reader, reading, functools.partial(_make, reader, source=source, index=index),
                             turned_solve(solve, answers.get(id(reading), {}), reader.kind), timer)
        return first
    score, reader, reading, rev = solved[0]
    likeliest = max(r.log_likelihood() for _, r in readings)
    doubt = distrusted(reading, rev, score, likeliest)
    if doubt is not None:
        return reader, reading, dataclasses.replace(rev, status="unreadable", reason=doubt)
    answer = (reader.kind, reading.turn, rev.result.solution)
    turned = []  # rivals that are this print read in another turn, with the same answer in the photo
    for other_score, other_reader, other_reading, other in solved[1:]:
        if (score - other_score <= revise_stage.RIVAL_MARGIN
                and (other_reader.kind, other_reading.turn, other.result.solution) != answer):
            if other_reader.kind == reader.kind and same_in_photo(reading, rev, other_reading, other):
                turned.append((other_score, other_reader, other_reading, other))
                continue
            rev = dataclasses.replace(rev, status="unreadable",
                                      reason="two different readings of the photo both make a valid puzzle")
            break
    else:
        if turned:
            # one answer drawn in the photo whichever way up the print is read (a 0 / 1 print read alike upside
            # down, but for a cell or two): given as seen, when that is among them and trusted as the likeliest
            # is, with the turn unknown
            reader, reading, rev = next(((r, g, v) for s, r, g, v in turned
                                         if g.turn == 0 and distrusted(g, v, s, likeliest) is None),
                                        (reader, reading, rev))
            reading = dataclasses.replace(reading, turn_known=False)
    return reader, reading, rev


def distrusted(reading: GridReading, rev: revise_stage.Revision, score: float, likeliest: float) -> str | None:
    """Why a solved reading (its ``score``: log-likelihood less the corrections' cost) is not to be trusted,
    beside the ``likeliest`` raw reading of the photo; None when it is."""
    if rev.changes and reading.filled is not None and any(
            rev.grid[r][c] is None and reading.filled[r, c] >= SURE_MARK
            for r in range(reading.size) for c in range(reading.size)):
        # corrections were needed while a plainly printed mark is read as nothing: the givens are not all
        # known, and a puzzle missing givens is easily made unique by a wrong correction
        return "a printed mark could not be read, and the rest needed corrections"
    if score < likeliest - revise_stage.MAX_COST:
        # the photo reads far better as another kind or turn, which has no valid reading: do not trust this one
        return "the likeliest reading of the photo makes no valid puzzle"
    return None


def same_in_photo(first: GridReading, first_rev: revise_stage.Revision, second: GridReading,
                  second_rev: revise_stage.Revision) -> bool:
    """Whether two solved readings of one grid, read in other turns, give the same solution in the photo (each
    reading's grid is the photo's turned ``turn`` quarters clockwise, ``readers.turned_grid``)."""
    if first.turn == second.turn:
        return False
    as_seen = [np.rot90(np.array(r.result.solution, dtype=object), k=g.turn)
               for g, r in ((first, first_rev), (second, second_rev))]
    return as_seen[0].shape == as_seen[1].shape and bool((as_seen[0] == as_seen[1]).all())


def _revise_all(readings: list, *, source: str, index: int, solve, timer: Timer, done: dict, answers: dict):
    """(solved, first) of the (reader, reading) pairs ``readings``: revised most likely first, the rest left once
    none can come near the best solved one; ``solved`` = [(log-likelihood less the corrections' cost, reader,
    reading, revision), ...] best first, ``first`` the likeliest's (reader, reading, revision). ``done`` keeps
    the revisions made, for another call on more readings (``_read_candidate``)."""
    solved: list[tuple[float, object, GridReading, revise_stage.Revision]] = []
    first = None
    for reader, reading in sorted(readings, key=lambda rr: -rr[1].log_likelihood()):
        if solved and reading.log_likelihood() < solved[0][0] - revise_stage.RIVAL_MARGIN:
            break  # no later interpretation can come near the best solved one
        max_cost = revise_stage.MAX_COST if not solved else reach(reading.log_likelihood(), solved[0][0])
        key = (id(reading), max_cost)
        if key not in done:
            make = functools.partial(_make, reader, source=source, index=index)
            kept = answers.setdefault(id(reading), {}) if reading.settle is not None else None
            rev = _revised(reader, reading, make, solve if kept is None else _kept_solve(solve, kept), timer,
                           max_cost=max_cost)
            got = (reader, reading, rev)
            if reading.settle is not None and rev.status == "solved":
                # its turn, left to tell until now (a circle print's page words), which changes neither the
                # likelihood nor whether it solves: told only for a reading that solved (or is returned unsolved)
                got = _settled(reader, reading, make, turned_solve(solve, kept, reader.kind), timer,
                               max_cost=max_cost)
            done[key] = (reading, got)  # (the reading kept alive: its id stays its own)
        reader, reading, rev = done[key][1]
        first = first or (reader, reading, rev)
        if rev.status == "solved":
            solved.append((reading.log_likelihood() - rev.cost, reader, reading, rev))
            solved.sort(key=lambda t: -t[0])
    return solved, first


#: kinds whose rules hold alike in every quarter turn of the grid (no boxes, no relations): the puzzle turned has
#: the solutions turned, so a settled reading's revision (the same puzzles turned) may take the answers of its
#: provisional one (``turned_solve``)
TURNABLE = ("takuzu",)


def _kept_solve(solve, kept: dict):
    """``solve``, its answers kept in ``kept`` by the puzzle's givens (puzzles without relations)."""
    def run(puzzle):
        result = solve(puzzle)
        if not puzzle.relations:
            kept[_grid_key(puzzle.givens)] = result
        return result
    return run


def turned_solve(solve, kept: dict, kind: str):
    """``solve`` for the revision of a reading settled in another turn (``GridReading.settle``): a puzzle whose
    givens are those of a puzzle in ``kept`` (the provisional reading's revision, ``_kept_solve``) turned by
    quarter turns gets that answer with its solutions turned alike -- checked by the kind's ``is_solution``
    --, for kinds in ``TURNABLE``; any other puzzle is solved. The settled revision then ends as solving every
    puzzle would: the same status for every reading tried (a turned unique solution is the unique one; two
    ambiguous ones are two), only the pair of solutions shown for an ambiguous reading may be another. The
    settled revision of a circle print returned unsolved repeated the whole search (0.2 s on a 14x14)."""
    check = _kind_function(kind, "is_solution") if kind in TURNABLE else None
    if not kept or check is None:
        return solve

    def run(puzzle):
        if not puzzle.relations:
            for quarter in range(4):
                result = kept.get(_grid_key(np.rot90(np.array(puzzle.givens, dtype=object), k=quarter).tolist()))
                if result is None:
                    continue
                solutions = [np.rot90(np.array(s, dtype=object), k=-quarter).tolist() for s in result.solutions]
                if all(check(puzzle, s) for s in solutions):
                    return dataclasses.replace(result, solutions=solutions)
        return solve(puzzle)
    return run


def _grid_key(grid) -> tuple:
    return tuple(tuple(row) for row in grid)


def reach(likelihood: float, best: float) -> float:
    """The costliest corrections the revision of a reading of log-likelihood ``likelihood`` need look at when a
    reading scoring ``best`` (log-likelihood less its corrections' cost) has solved: the reading then matters
    only solved at a cost within ``revise.RIVAL_MARGIN`` of that score (a rival, or the new best), and its
    search for rivals of such a reading goes no further than that cost plus the margin. Any revision that
    ends solved at such a cost ends so, the same, when searched no further (``revise`` tries readings
    cheapest first and stops once none can be a rival); a reading of another kind's few digits, ambiguous
    every way, is no longer searched to ``MAX_COST``. A hair over, for the sums' rounding."""
    within = likelihood - (best - revise_stage.RIVAL_MARGIN)
    return min(revise_stage.MAX_COST, within + revise_stage.RIVAL_MARGIN + 1e-6)


def _revised(reader, reading, make, solve, timer, *, max_cost: float = revise_stage.MAX_COST) -> revise_stage.Revision:
    """``reading``'s revision by the rules of ``reader``'s kind (``scanner.revise``), corrections costing at most
    ``max_cost`` looked at."""
    with timer.stage("revise"):
        return revise_stage.revise(reading.cands, make, solve, relation_cands=reading.relations,
                                   clash=_kind_function(reader.kind, "check_givens"),
                                   is_solution=_kind_function(reader.kind, "is_solution"),
                                   max_cost=max_cost)


def _settled(reader, reading, make, solve, timer, *, max_cost: float = revise_stage.MAX_COST):
    """(reader, ``reading`` in its settled turn, its revision)."""
    reading = reading.settle()
    return reader, reading, _revised(reader, reading, make, solve, timer, max_cost=max_cost)


def _make(reader, grid, relations=(), *, source: str, index: int) -> Puzzle:
    return reader.make_puzzle(grid, relations, source=source, index=index)


def scan_photo(path: Path, *, kind: str = "auto", out_dir: Path | None = None, debug_dir: Path | None = None,
               engine: str = "auto", draw: bool = True,
               solve: Callable[[Puzzle], object] = solve_puzzle, max_grids: int = 4, reader=None) -> list[dict]:
    """Records (``scanner.report.puzzle_record`` + ``quad``, ``turn``, ``overlay``, ``changed``,
    ``confidence``, ``timings``) for the puzzles in the photo at ``path``.

    ``reader`` (a digit engine object) replaces the engine named by ``engine``;
    ``solve`` replaces ``solver.api.solve``; ``max_grids`` bounds the puzzles
    read from one photo (largest grid first). A grid that is no puzzle (every cell filled, e.g. a printed
    solution; or hardly any symbol and no valid reading, e.g. a table) gives no record. Raises ``InputError``
    for a file that is not a usable image and ``NoPuzzleError`` when no grid is found. An unreadable puzzle
    gives a record with status ``unreadable`` and no overlay. Overlays: ``<stem>.solved.jpg`` beside the
    photo or in ``out_dir``, ``<stem>.<k>.solved.jpg`` for the k-th grid.
    """
    path = Path(path)
    chosen = _readers(kind, path)
    start = time.perf_counter()
    timer = Timer()
    with timer.stage("load"):
        # with an overlay to draw, the full picture decodes in the background while the grid is found and read
        loaded = load_stage.load(path, prefetch=draw)
    return _scan_loaded(loaded, chosen, source=str(path), overlay_to=overlay.overlay_path(path, out_dir),
                        input_path=path, debug_dir=debug_dir, engine=engine, draw=draw, solve=solve,
                        max_grids=max_grids, reader=reader, timer=timer, start=start)


def scan_image(image: np.ndarray, *, source: str, overlay_path: Path | None = None, kind: str = "auto",
               engine: str = "auto", draw: bool = True, max_grids: int = 4, debug_dir: Path | None = None,
               solve: Callable[[Puzzle], object] = solve_puzzle, reader=None, overwrite: bool = False) -> list[dict]:
    """``scan_photo`` on an already decoded picture ``image`` (H, W, 3) uint8 BGR (a rendered PDF page, a
    TIFF frame): ``source`` names it in the records and messages; the first grid's overlay is written to
    ``overlay_path`` (``DIR/<name>.solved.jpg``; the k-th grid's to ``DIR/<name>.<k>.solved.jpg``), none
    when it is None or ``draw`` is false. ``image`` is not changed (overlays are drawn on a copy) unless
    ``overwrite``: then they are drawn on ``image`` itself (no copy of a large page)."""
    chosen = _readers(kind, source)
    start = time.perf_counter()
    timer = Timer()
    with timer.stage("load"):
        loaded = load_stage.from_array(image, name=source, borrowed=not overwrite)
    return _scan_loaded(loaded, chosen, source=source, overlay_to=overlay_path, input_path=None,
                        debug_dir=debug_dir, engine=engine, draw=draw and overlay_path is not None, solve=solve,
                        max_grids=max_grids, reader=reader, timer=timer, start=start)


def _readers(kind: str, source) -> list:
    try:
        return readers.active(kind)
    except ImportError:
        raise NoPuzzleError(f"{source}: reading a {kind} from a photo is not supported yet") from None


def nth_overlay(first: Path, index: int) -> Path:
    """Where the overlay of grid ``index`` (0-based) goes when the first grid's goes to ``first``:
    ``<name>.solved.jpg`` -> ``<name>.<index + 1>.solved.jpg``."""
    if index == 0:
        return first
    name, tail = first.name, ".solved.jpg"
    if name.endswith(tail):
        return first.with_name(f"{name[:-len(tail)]}.{index + 1}{tail}")
    return first.with_name(f"{first.stem}.{index + 1}{first.suffix}")


def unnested(found: list, own: list) -> list:
    """``found`` (``grid_find`` candidates) then ``own`` (candidates a kind's own finder found: Futoshiki's box
    grids), less the found ones lying inside one of ``own`` of another size, or mostly on it (``NESTED``).
    Puzzles do not nest or overlap: a ruled lattice inside a box grid, or on its last boxes and the lines of
    text beside them, is part of it (its boxes' edges taken for lines), never a puzzle of its own -- read, it
    could be solved and drawn there."""
    return [f for f in found if not any(o.size != f.size and (grid_find.inside(f.quad, o.quad)
                                                              or grid_find.share_in(f.quad, o.quad) >= NESTED)
                                        for o in own)] + own


#: a found grid with this share of its area on a kind's own grid of another size is part of it: puzzles do not
#: overlap on a page, so more than half of one lying on another is a lattice read in the other's boxes and
#: text (held-out 5's futoshiki_990058: a 4x4 over a 7x7's last boxes and the lines below them)
NESTED = 0.5


def _scan_loaded(loaded: load_stage.Loaded, chosen: list, *, source: str, overlay_to: Path | None,
                 input_path: Path | None, debug_dir: Path | None, engine: str, draw: bool,
                 solve: Callable[[Puzzle], object], max_grids: int, reader, timer: Timer,
                 start: float) -> list[dict]:
    """Find, read, solve and draw every grid of ``loaded`` (see ``scan_photo``); ``input_path`` is the file
    an overlay must never overwrite."""
    with timer.stage("find"):
        found = grid_find.find_grids(loaded.small)
        own = []  # grids a kind's own finder found (Futoshiki's boxes)
        finder: dict = {}  # id of such a grid -> the reader whose finder found it: the only one to read it
        for kind_reader in chosen:
            extra = getattr(kind_reader, "find", None)
            if extra is not None:
                mine = [c for c in extra(loaded.small)
                        if not any(grid_find.same_quad(c.quad, f.quad) for f in found + own)]
                finder.update((id(c), kind_reader) for c in mine)
                own += mine
        found = unnested(found, own)
        candidates = [c for c in found if any(r.accepts(c) for r in chosen)]
    if not candidates:
        debug.write_stage(debug_dir, "01_quad.jpg", debug.quad_picture(loaded.small, found, None))
        raise NoPuzzleError(f"{source}: no puzzle grid found in the image")
    with timer.stage("engine"):
        engine_obj = reader or get_engine(engine)
        if hasattr(engine_obj, "forget"):
            engine_obj.forget()  # what it kept of the last photo's cells (a new photo shares none)
    kept, skipped = [], []
    for cand in candidates:
        if len(kept) >= max_grids:
            break
        readers = [finder[id(cand)]] if id(cand) in finder else chosen
        got = _read_candidate(cand, readers, loaded, engine_obj, source=source, index=len(kept), solve=solve,
                              timer=timer)
        if got is None:
            continue
        why_not = not_a_puzzle(got[2])
        if why_not:
            skipped.append(why_not)
            continue
        kept = keep_one_per_puzzle(kept, got)
    records = []
    canvas = None  # the picture the overlays are drawn on (every grid's answer on one picture)
    encoded = None  # the last overlay file's bytes (of the canvas as it was drawn then)
    for index, (kind_reader, reading, rev) in enumerate(kept):
        puzzle = kind_reader.make_puzzle(rev.grid, rev.relations, source=source, index=index)
        solved = rev.status == "solved"
        difficulty = None
        if solved:
            with timer.stage("grade"):
                try:
                    difficulty = grade(puzzle, rev.result)
                except ScanSolveError:
                    raise
                except Exception:  # grading is a nicety; never lose a solved puzzle over it
                    difficulty = None
        labels = {}  # the answer drawn into each empty cell, in the print's style (e.g. circles)
        if solved:
            labels = {cell: reading.glyphs.get(text, text)
                      for cell, text in kind_reader.labels(puzzle, rev.result.solution).items()}
        out_path = None
        if solved and draw:
            with timer.stage("decode"):
                if canvas is None:  # usually decoded by now in the background; never draw on what is read
                    canvas = loaded.canvas()
                full = canvas
            with timer.stage("overlay"):
                # drawn in place on the canvas (the full picture, unless it is also the detection copy)
                touched: list = []
                drawn = overlay.draw_digits(full, reading.mesh, labels, inplace=True, quads=reading.boxes,
                                            touched=touched)
            with timer.stage("encode"):
                # a later grid's file re-encodes only the rows of MCUs its answer changed
                encoded = overlay.encode_overlay(drawn, previous=encoded, rows=touched[0] if touched else (0, 0))
                out_path = str(overlay.write_jpeg(drawn, nth_overlay(overlay_to, index), source=input_path,
                                                  data=encoded))
        if debug_dir is not None:
            with timer.stage("debug"):
                small_mesh = reading.mesh.scaled(loaded.scale)
                prefix = f"g{index + 1}_" if index else ""
                debug.write_stage(debug_dir, f"{prefix}01_quad.jpg", debug.quad_picture(loaded.small, found, small_mesh))
                debug.write_stage(debug_dir, f"{prefix}02_rectified.png", reading.picture)
                debug.write_stage(debug_dir, f"{prefix}03_cells.png",
                                  debug.cells_picture(reading.picture, reading.cell, reading.cands, rev.changes))
                if solved:
                    debug.write_stage(debug_dir, f"{prefix}04_overlay.jpg",
                                      overlay.draw_digits(loaded.small, small_mesh, labels))
        probs = [cell[0][1] for row in reading.cands for cell in row]
        probs += [options[0][1] for _, options in reading.relations]
        confidence = float(np.exp(-rev.cost)) * min(probs)
        doubt = expected_misreads(reading, rev)
        records.append(puzzle_record(
            puzzle, rev.result if solved else None,
            difficulty=difficulty, seconds=time.perf_counter() - start,
            status="solved" if solved else "unreadable",
            reason=rev.reason, quad=image_quad(reading), turn=90 * reading.turn, turn_known=reading.turn_known,
            overlay=out_path,
            changed=_changed_text(rev), confidence=round(confidence, 4), expected_misreads=round(doubt, 3),
            timings=timer.rounded(),
        ))
    if not records:
        detail = f" (the grid found has {skipped[0]})" if skipped else ""
        raise NoPuzzleError(f"{source}: no puzzle grid found in the image{detail}")
    return records


SAME_PUZZLE = 0.5  #: two grids sharing this much of the smaller one's area are two readings of one puzzle


def keep_one_per_puzzle(kept: list, got: tuple) -> list:
    """``kept`` (reader, reading, revision) with ``got`` added, one per puzzle: when ``got``'s grid covers
    most of a kept one's (two finders' outlines of one puzzle, a corner off in one), the solved reading stays;
    of two solved ones the one with more cells (a lattice found on part of a larger grid and solved there is
    not that puzzle, and never takes its place), else the first."""
    for i, (_, reading, rev) in enumerate(kept):
        if grid_find.overlap_share(reading.mesh.quad, got[1].mesh.quad) >= SAME_PUZZLE:
            new = got[2]
            if new.status == "solved" and (rev.status != "solved" or len(new.grid) > len(rev.grid)):
                return kept[:i] + [got] + kept[i + 1:]
            return kept
    return kept + [got]


def expected_misreads(reading: GridReading, rev: revise_stage.Revision) -> float:
    """How many cells (and signs) of the revised reading the reader expects to be wrong: the sum over
    cells of 1 - p(the value kept there)."""
    total = 0.0
    for r, row in enumerate(reading.cands):
        for c, options in enumerate(row):
            total += 1.0 - dict(options).get(rev.grid[r][c], 0.0)
    chosen = {(rel.a, rel.b): rel.op for rel in rev.relations}
    for pair, options in reading.relations:
        total += 1.0 - dict(options).get(chosen.get(pair), 0.0)
    return total


#: a grid with more than this share of its cells filled is a printed solution (one cut by the photo's edge, or
#: with a mark unread), not a puzzle: printed puzzles give at most about half their cells (the puzzle
#: collections' Takuzu up to 0.47, the train photos' Sudoku up to 0.48, the generator's up to 0.51)
NEARLY_FULL = 0.75
#: a grid with this share of its cells or more holding one symbol and no other is a printed solution whose other
#: symbol went unseen (a Takuzu's thin white circles), not a puzzle: printed puzzles give both symbols
ONE_SYMBOL = 0.4


def not_a_puzzle(rev: revise_stage.Revision) -> str | None:
    """Why a grid read is no puzzle to solve (None when it may be one): every cell filled or nearly every one
    (``NEARLY_FULL``), many cells of one symbol and none of another (``ONE_SYMBOL``), or an unreadable grid with
    hardly any symbol (fewer than one cell in 8: a table, a crossword)."""
    n = len(rev.grid)
    values = [v for row in rev.grid for v in row if v is not None]
    filled = len(values)
    if filled == n * n:
        return "no empty cell: a printed solution, not a puzzle"
    if filled > NEARLY_FULL * n * n:
        return f"{filled} of its {n * n} cells filled: a printed solution, not a puzzle"
    if filled >= ONE_SYMBOL * n * n and len(set(values)) == 1:
        return f"{filled} of its {n * n} cells hold one symbol and none another: a printed solution, not a puzzle"
    if rev.status != "solved" and filled < n * n / 8:
        return "hardly any symbol in it: not a puzzle"
    return None

