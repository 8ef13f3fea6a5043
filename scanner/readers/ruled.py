"""Reading a ruled grid with one symbol per cell (Sudoku digits, Takuzu 0/1): shared by those readers.

    fit mesh -> dewarp -> ink per cell -> read the inked cells (turning by 90/180/270 when they read poorly)
"""
from __future__ import annotations

import cv2
import numpy as np

from .. import cells as cells_stage
from .. import rectify
from .. import revise
from . import GridReading

READ_CELL = 48  #: pixels per cell of the dewarped picture the symbols are read from
#: How far to trust each engine's probabilities: a reading's probabilities are raised to 1 / T and
#: renormalised. The font-trained classifier is under-confident on real photos (its cells read at p 0.7-0.9
#: are right 99.5 % of the time); T = 0.5 maximised the likelihood of the true labels in both halves of a
#: 2-fold split (odd / even image numbers) of the real training photos' cells. Engines not listed: T = 1.
ENGINE_TEMPERATURE = {"classifier": 0.5}
#: The detection copy is read when its cells are at least this share of ``cell`` pixels (reading 12 MP photos
#: from a coarser copy cost exact reads on the generated set), else the full picture (waits for its decoding).
SMALL_ENOUGH = 1.2
WIDE = "0123456789"  #: symbols always asked about, whatever the puzzle's alphabet
#: Share of an engine's "empty" vote believed for a cell whose ink shows a glyph (``cells.combine``).
DOT_TRUST = 0.3
#: A confidently read grid is still read turned when a sample of TURN_SAMPLE of its inked cells reads within
#: TURN_MARGIN (mean log-probability) as well turned (``_sample_fits``).
TURN_SAMPLE, TURN_MARGIN = 12, 0.15
#: ... unless it reads almost perfectly upright: its fit is above TURN_CHECKED, or its symbols stand TURN_CLEAR
#: clear of their runners-up (``clear_of``): a 16x16 number print's two-digit numbers read as the product of
#: their halves' readings (p 0.8 - 0.9, the rest on no symbol of the alphabet), which lowers its fit to -0.02 ..
#: -0.03 with no rival in sight. On the dev sets, the turned 9x9 prints read upright above ``orientations``' ``sure``
#: stood -0.038 .. -0.068 clear (10 grids); upright 16x16 prints -0.0054 or better, but for a blurred one (-0.022)
TURN_CHECKED, TURN_CLEAR = -0.02, -0.01
#: A turn is not read whole when, on that sample, it reads so much worse than the best turn that its
#: likelihood (scaled to all inked cells) would fall this far below the best's (``_hopeless``): twice what
#: could still matter to the choice (revise.MAX_COST + revise.RIVAL_MARGIN), the sample being a sample.
HOPELESS = 2.0 * (revise.MAX_COST + revise.RIVAL_MARGIN)
SAMPLE_SHARE = 6  #: ... the sample then takes at least one inked cell in SAMPLE_SHARE (many cells: a larger sample)
#: Share of a cell trimmed off each side before looking for ink when a cell may hold two glyphs side by side
#: (they come closer to the lines than one; ``cells.measure`` trims 0.1 by default).
PAIR_TRIM = 0.07
#: A crop handed to the engine keeps the pixels within this many (a square's side) of its glyph's ink
#: (``cells.measure``'s ``halo``; 3 before): a blurred glyph keeps its soft edge, so the engine's own
#: thresholds find its strokes -- as on the unmasked photo cells it was trained on -- rather than an edge
#: cut where the page-wide ink level happened to fall, which moved with a pixel of mesh error.
GLYPH_HALO = 7
#: A 16x16 grid's crop also keeps the thin strokes joined to its glyph that are darker than their surroundings by
#: this share of the print's contrast (``cells.measure``'s ``faint``; the ink level is ``cells.INK_SHARE``): its
#: cells are the smallest read, and the thin arms of a serif E or F (a G's bar) blur paler than the page-wide ink
#: level, which cut them off and left a stem read as a sure "1" (a C for a G).
FAINT_SHARE = 0.2
#: A cell whose crop reads best as this is read again whole (``read_cells``): a stem left of a cut glyph reads so;
#: so is one whose crop reads best as a symbol the puzzle never prints (a 6 whose pale upper stroke the crop cut
#: off reads as a 0 in a Sudoku)
SECOND_OPINION = "1"
#: ... when the crop whitened ink beside its glyph (``whitened_ink``): a blot of this many pixels or more that
#: the whole cell shows darker than halfway from the paper to the glyph's darkest (``cells.FRAGMENT_AREA``: no
#: speck of the paper's grain). A clean, uncut 1 shows nothing more whole than its paper's grain, on which the
#: engine may take a piece of the glyph for all of it (held-out 8 sudoku_950036 r7c2: read whole as a 3 at 0.42,
#: the mean made the cell even and a rival reading solved)
WHITENED_AREA = cells_stage.FRAGMENT_AREA
#: Any cell is read again whole when its crop whitened a blot joined to the glyph (within a pixel of what the
#: crop kept) of at least this share of the glyph's ink: glare or a pale print cut the glyph at the ink level
#: and the crop kept a piece that reads confidently as another digit (a 6's lower bowl as a 3, a 3's as a 5;
#: on clean prints the blots joined to a glyph are a few pixels of its soft edge, 3-4 % of its ink)
CUT_SHARE = 0.3


def ink_gray(image: np.ndarray) -> np.ndarray:
    """(H, W) uint8 where coloured print (red, blue digits) is as dark as black: the darkest channel (taken
    pairwise: the same values, ten times faster than a reduction along the last axis)."""
    if image.ndim == 2:
        return image
    darkest = image[..., 0]
    for k in range(1, image.shape[2]):
        darkest = np.minimum(darkest, image[..., k])
    return np.ascontiguousarray(darkest)


def dewarp_gray(loaded, mesh_small, *, cell: int) -> np.ndarray:
    """The grid of ``mesh_small`` (a mesh in detection-copy pixels) dewarped to (n * cell, n * cell) gray
    (``ink_gray``): read from the detection copy when its cells are large enough there (``SMALL_ENOUGH``),
    else from the full-resolution picture."""
    n = mesh_small.n
    side_small = float(np.linalg.norm(mesh_small.quad[0] - mesh_small.quad[2])) / 1.414
    if side_small >= SMALL_ENOUGH * n * cell or loaded.scale >= 1.0:
        source, mesh_src = loaded.small, mesh_small
    else:
        source, mesh_src = loaded.image, mesh_small.scaled(1.0 / loaded.scale)
    return ink_gray(rectify.dewarp(source, mesh_src, cell=cell))


def fitted_mesh(loaded, cand) -> rectify.Mesh:
    """``rectify.fit_mesh`` of candidate ``cand`` on ``loaded.small``, fitted once per photo and candidate
    (``loaded.memo``): with ``--kind auto`` the Sudoku and Takuzu readers both take grids of 4, 6 and 16 cells.
    The mesh is shared: derive new ones from it, never change its points in place."""
    key = ("fit_mesh", cand.quad.tobytes(), cand.size)
    if key not in loaded.memo:
        loaded.memo[key] = rectify.fit_mesh(loaded.small, cand.quad, cand.size)
    return loaded.memo[key]


def picture_key(cand) -> tuple:
    """``loaded.memo`` key of the dewarped gray picture ``(picture, cell)`` ``read_ruled`` read candidate
    ``cand`` from (on ``fitted_mesh``): another reader of the same grid may look at it (never change it)."""
    return ("ruled_picture", cand.quad.tobytes(), cand.size)


def ruled_picture(loaded, cand, *, cell: int = READ_CELL) -> tuple[rectify.Mesh, np.ndarray]:
    """(``fitted_mesh``, the grid dewarped on it to gray ``(n * cell, n * cell)``) of candidate ``cand``: made once
    per photo (``picture_key``) by whichever reader looks first -- ``read_ruled``, or the Futoshiki reader's
    screen (``futoshiki.plainly_unsigned``) when it reads a grid first -- the same picture either way."""
    mesh_small = fitted_mesh(loaded, cand)
    got = loaded.memo.get(picture_key(cand))
    if got is None or got[1] != cell:
        got = loaded.memo[picture_key(cand)] = (dewarp_gray(loaded, mesh_small, cell=cell), cell)
    return mesh_small, got[0]


def readings_key(cand, kind: str = "sudoku") -> tuple:
    """``loaded.memo`` key of the readings (``GridReading`` list) the ``kind`` reader gave candidate ``cand``:
    another reader of the same grid may look at them (never change them)."""
    return ("readings", kind, cand.quad.tobytes(), cand.size)


def read_ruled(loaded, cand, engine, *, alphabet: str, values: tuple, timer,
               cell: int = READ_CELL, crops_reader=None, pairs: bool = False, screen=None,
               give_up=None) -> list[GridReading]:
    """Fit the mesh of ``cand`` (found in ``loaded.small``), dewarp, measure the ink and read the filled cells.

    ``alphabet[i]`` is the printed symbol of the value ``values[i]``. Returns the upright reading, and when
    its symbols read poorly also the readings turned by 90/180/270 degrees (the rules pick among them).
    ``crops_reader(engine, crops, alphabet=)`` replaces ``engine_read`` (e.g. to read two-digit numbers);
    ``pairs``: a cell may print two glyphs side by side (``cells.measure``), read closer to its lines.
    ``screen(inked, crops_of)``: a look at the first measure's ink before its crops are built (``cells.measure``'s
    ``look``: the inked cells, row by row, and the crops of those asked for), and so before the second look; it may
    raise to give the grid up. ``give_up(inks)``: true when the measured ink (both looks) is reason enough to read
    nothing (no reading is returned).
    """
    n = cand.size
    small, scale = loaded.small, loaded.scale
    with timer.stage("mesh"):
        mesh_small = fitted_mesh(loaded, cand)
    with timer.stage("dewarp"):
        _, picture = ruled_picture(loaded, cand, cell=cell)
    with timer.stage("ink"):
        opts = dict(retrim=cells_stage.WIDE_TRIM, halo=GLYPH_HALO,
                    **({"trim": PAIR_TRIM, "pairs": True, "faint": FAINT_SHARE} if pairs else {"keep_whole": True}))
        inks = cells_stage.measure(picture, n, cell=cell, look=screen, **opts)
        inks = second_look(picture, inks, cell=cell, **opts)
    if give_up is not None and give_up(inks):
        return []
    with timer.stage("read"):
        turned = orientations(inks, engine, alphabet=alphabet, values=values, crops_reader=crops_reader)
    mesh_full = mesh_small.scaled(1.0 / scale)
    filled = np.array([[ink.p_filled for ink in row] for row in inks])
    return [GridReading(mesh=mesh_full.rotated(quarter), turn=(-quarter) % 4, cands=cands, fit=fit_of(cands),
                        picture=np.ascontiguousarray(np.rot90(picture, k=-quarter)), cell=cell,
                        filled=np.rot90(filled, k=-quarter))
            for quarter, cands in turned]


GLARE_SPAN = 30.0  #: least paper-to-ink span (gray levels) a neighbourhood is stretched over (``local_contrast``)


#: ``second_look`` measures again only when an empty cell's middle (SECOND_TRIM of the cell off each side)
#: holds a pixel darker than SECOND_DARK in the stretched picture (ink there is darker than ~0.55 x paper).
SECOND_TRIM, SECOND_DARK = 0.15, 150
#: ... on the picture stretched against the darkest print over this many cells (``local_contrast``): glare
#: is seldom wider, and over 3 cells the darker lines beyond it kept a washed-out glyph pale
SECOND_FLOOR = 2.0


def local_contrast(gray: np.ndarray, *, cell: int, floor_cells: float = 3.0) -> np.ndarray:
    """``gray`` (H, W) uint8 stretched so that each neighbourhood's paper is white and its darkest print (the
    ruled lines, the marks, over ``floor_cells`` cells) black: a glyph washed out by glare, or printed paler
    than the lines, reads as ink like the rest (spans under ``GLARE_SPAN`` levels are not stretched further,
    so empty paper stays paper)."""
    k = int(1.5 * cell) | 1
    paper = cv2.blur(cells_stage.closing(gray, k=k).astype(np.float32), (k, k))  # closed in 8 bits: same values
    w = int(floor_cells * cell) | 1
    floor = cv2.blur(cells_stage.erosion(gray, k=w).astype(np.float32), (w, w))
    # (gray - (paper - span)) / span clipped to 0..1, x 255, worked in place (the same float32 steps)
    span = np.maximum(np.subtract(paper, floor, out=floor), GLARE_SPAN, out=floor)
    out = np.subtract(gray, np.subtract(paper, span, out=paper), dtype=np.float32)
    np.divide(out, span, out=out)
    np.clip(out, 0.0, 1.0, out=out)
    return np.multiply(out, 255, out=out).astype(np.uint8)


#: a picture whose paper grain (``cells.paper_grain``) is over GRAINY of its print's contrast (1 - its darkest
#: print) is smoothed before its ink is measured (``ungrained``): stretched per neighbourhood (``local_contrast``),
#: the grain of a noisy, blurred photo's paper reaches the ink level in clumps a glyph's height across, read as
#: marks; and a circle print's thin rings (white circles) drown in it. On 122 pictures of dev d11 the grain was
#: 0.0001 .. 0.054 of the contrast (26 over 0.03); two pages with phantom marks (a 20 x 20 and a 16 x 16, noise 0.03
#: under motion blur) 0.066 and 0.080; a 20 x 20 circle print missing 5 of its rings (noise 0.03) 0.038
GRAINY = 0.03
SMOOTH = 1.0 / 40  #: the smoothing's Gaussian sigma, in cells (a pixel at 40 pixels a cell: under a stroke's width)


def ungrained(gray: np.ndarray, *, cell: int) -> np.ndarray:
    """``gray`` (H, W) uint8 of a grid of ``cell`` px cells, smoothed (``SMOOTH``) when its paper is grainy beside
    its print (``GRAINY``); else ``gray`` itself."""
    norm = cells_stage.normalise(gray, cell=cell)
    dark = cells_stage.dark_print(norm)
    if cells_stage.paper_grain(norm, cells_stage.level_below(dark)) <= GRAINY * max(1.0 - dark, 1e-6):
        return gray
    return cv2.GaussianBlur(gray, (0, 0), SMOOTH * cell)


def second_look(picture: np.ndarray, inks: list, *, cell: int, **measure_opts) -> list:
    """``inks`` (n x n ``cells.CellInk`` measured on ``picture``) with the cells found empty looked at again
    on the picture stretched per neighbourhood (``local_contrast``): a pale glyph (glare, a lighter print, a
    faint photo) that the page-wide ink level missed is taken from there. Cells already holding ink keep
    their crops (the stretch thickens strokes, and a 5 so thickened may read as a 6) unless the stretched
    picture shows the glyph FRAGMENT_GAIN times taller: glare washed out part of the glyph, and the piece left at the
    page-wide level reads confidently as another digit (a bold 8 whose upper loop is gone reads as a 9)."""
    n = len(inks)
    stretched = local_contrast(picture, cell=cell, floor_cells=SECOND_FLOOR)
    cut = round(SECOND_TRIM * cell)
    if not any((ink.crop is None or _faded(ink.crop))
               and (stretched[r * cell + cut:(r + 1) * cell - cut, c * cell + cut:(c + 1) * cell - cut] < SECOND_DARK).any()
               for r, row in enumerate(inks) for c, ink in enumerate(row)):
        return inks  # no empty or faded cell shows anything dark even stretched: nothing to measure again
    # a cell's new measure is taken when it holds a glyph and the old none, or one FRAGMENT_GAIN times less tall:
    # only those glyphs are measured (``least``), the other cells keep their old measure
    again = cells_stage.measure(stretched, n, cell=cell, **measure_opts,
                                least=[[FRAGMENT_GAIN * a.height if a.crop is not None else
                                        cells_stage.DIGIT_HEIGHT - cells_stage.DOUBT_BAND for a in row] for row in inks])
    if all(b.crop is None for row_b in again for b in row_b):
        return inks
    return [[b if b.crop is not None else a for a, b in zip(row_a, row_b)] for row_a, row_b in zip(inks, again)]


#: a glyph whose stretched measure is this many times taller (its longer extent) is taken from the stretched
#: picture: the page-wide level kept a piece of it (a thicker stroke alone does not make a glyph taller)
FRAGMENT_GAIN = 1.3


def _faded(crop: np.ndarray) -> bool:
    """Whether a glyph crop holds washed-out gray beside its ink (pixels between ink and paper outnumbering a
    third of the ink): glare or a pale print may have cut the glyph to a piece."""
    return np.count_nonzero((crop >= 128) & (crop < 220)) > np.count_nonzero(crop < 128) / 3


def read_cells(inks, engine, *, alphabet: str, values: tuple, crops_reader=None) -> list:
    """Candidates (n x n) for the cells: the engine reads only the cells with ink."""
    n = len(inks)
    todo = [(r, c) for r in range(n) for c in range(n) if inks[r][c].crop is not None]
    crops_reader = crops_reader or engine_read
    labels = crops_reader(engine, [inks[r][c].crop for r, c in todo], alphabet=alphabet) if todo else []
    got = dict(zip(todo, labels))
    # a crop read as a 1 may be what is left of a 7 or a 4 whose paler stroke the crop whitened (it lay apart
    # from the stem at the ink level), and sharpening makes that 1 sure (a 6 so cut reads as a 0, no symbol of
    # the puzzle): when the crop whitened ink the whole cell shows (``whitened_ink``), the whole picture is read
    # too, and when it reads otherwise the cell's reading is the mean of both, unsharpened -- the rules see the rival
    t = temperature(engine)
    again = [(r, c) for r, c in todo if t != 1.0 and inks[r][c].whole is not None and got[r, c]
             and _read_whole(inks[r][c], got[r, c][0][0], alphabet)]
    if again:
        for (r, c), other in zip(again, crops_reader(engine, [inks[r][c].whole for r, c in again], alphabet=alphabet)):
            if other and other[0][0] != got[r, c][0][0]:
                got[r, c] = mean_reading(sharpen(got[r, c], 1.0 / t), sharpen(other, 1.0 / t))
    return [[cells_stage.combine(inks[r][c], got.get((r, c)), alphabet=alphabet, values=values, renormalise=False,
                                 dot_trust=DOT_TRUST) for c in range(n)] for r in range(n)]


def _read_whole(ink: cells_stage.CellInk, label: str, alphabet: str) -> bool:
    """Whether a cell whose crop reads best as ``label`` is read again from its whole picture: a 1 or a
    symbol outside ``alphabet`` whose crop whitened ink (``whitened_ink``), or any glyph whose crop lost a
    piece joined to it of ``CUT_SHARE`` of its ink."""
    blots = whitened_blots(ink.crop, ink.whole)
    if (label == SECOND_OPINION or label not in alphabet + ".") and whitened_ink(ink.crop, ink.whole, blots=blots):
        return True
    _, joined, glyph = blots
    return joined >= max(CUT_SHARE * glyph, WHITENED_AREA)


def whitened_ink(crop: np.ndarray, whole: np.ndarray, *, blots: tuple[int, int, int] | None = None) -> bool:
    """Whether ``crop`` (h, w) uint8, a glyph with the rest whitened, lost ink its ``whole`` picture (the same
    pixels before the whitening) shows: a blot (8-connected) of at least ``WHITENED_AREA`` pixels white in the
    crop and darker in the whole than halfway from the paper (255) to the crop's darkest pixel. ``blots``:
    ``whitened_blots(crop, whole)`` when already known."""
    return (whitened_blots(crop, whole) if blots is None else blots)[0] >= WHITENED_AREA


def whitened_blots(crop: np.ndarray, whole: np.ndarray) -> tuple[int, int, int]:
    """``(largest, joined, glyph)``: the pixels of the largest blot (8-connected) white in ``crop`` and darker
    in ``whole`` than halfway from the paper (255) to the crop's darkest pixel (``whitened_ink``), of the largest
    such blot within a pixel of what the crop kept (its pixels under 255), and the crop's pixels so dark."""
    level = (int(crop.min()) + 255) / 2.0
    lost = ((whole < level) & (crop == 255)).view(np.uint8)
    glyph = int(np.count_nonzero(crop < level))
    if np.count_nonzero(lost) < WHITENED_AREA:
        return 0, 0, glyph
    count, labels, stats, _ = cv2.connectedComponentsWithStats(lost, connectivity=8)
    if count < 2:
        return 0, 0, glyph
    near = cv2.dilate((crop < 255).view(np.uint8), np.ones((3, 3), np.uint8))
    touching = np.unique(labels[(near > 0) & (labels > 0)])
    areas = stats[:, cv2.CC_STAT_AREA]
    return int(areas[1:].max()), int(areas[touching].max()) if len(touching) else 0, glyph


def mean_reading(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """The mean of two readings ``[(label, p), ...]`` of one cell (a label missing from one counts 0 there),
    best first."""
    total: dict[str, float] = {}
    for reading in (a, b):
        for label, p in reading:
            total[label] = total.get(label, 0.0) + p / 2.0
    return sorted(total.items(), key=lambda t: -t[1])


def engine_read(engine, crops: list, *, alphabet: str) -> list[list[tuple[str, float]]]:
    """The engine's readings of ``crops`` over ``alphabet`` AND every other digit it knows (so the mass a
    glyph puts outside the puzzle's symbols stays visible), sharpened by ``ENGINE_TEMPERATURE``."""
    wide = alphabet + "".join(d for d in WIDE if d not in alphabet)
    readings = engine.read(crops, alphabet=wide)
    return [sharpen(reading, temperature(engine)) for reading in readings]


def temperature(engine) -> float:
    """The ``ENGINE_TEMPERATURE`` of ``engine`` (1: its readings are taken as they are)."""
    return ENGINE_TEMPERATURE.get(getattr(engine, "name", ""), 1.0)


def sharpen(reading: list[tuple[str, float]], temperature: float) -> list[tuple[str, float]]:
    """An engine's reading ``[(label, p), ...]`` with its probabilities raised to ``1 / temperature`` and
    renormalised (temperature 1: unchanged), best first."""
    if temperature == 1.0 or not reading:
        return reading
    powered = [(label, p ** (1.0 / temperature)) for label, p in reading]
    total = sum(p for _, p in powered) or 1.0
    return sorted(((label, p / total) for label, p in powered), key=lambda t: -t[1])


def _turn(inks, quarter: int):
    """The ink grid (n x n of CellInk) as seen after turning the photo ``quarter`` x 90 degrees clockwise."""
    grid = np.empty((len(inks), len(inks)), dtype=object)
    for r, row in enumerate(inks):
        for c, ink in enumerate(row):
            crop = None if ink.crop is None else np.ascontiguousarray(np.rot90(ink.crop, k=-quarter))
            whole = None if ink.whole is None else np.ascontiguousarray(np.rot90(ink.whole, k=-quarter))
            grid[r, c] = cells_stage.CellInk(ink.height, ink.p_filled, crop, whole)
    return np.rot90(grid, k=-quarter).tolist()


def fit_of(cands) -> float:
    """Mean log-probability of the best candidate over the cells read as holding a symbol (0 = perfect)."""
    probs = [cell[0][1] for row in cands for cell in row if cell[0][0] is not None]
    return float(np.mean(np.log(probs))) if probs else -np.inf


def clear_of(cands) -> float:
    """Mean over the cells read as holding a symbol of log(p1 / (p1 + p2)), p1 the best candidate's
    probability and p2 the runner-up's (0 = no rival anywhere); never below ``fit_of``."""
    pairs = [(cell[0][1], cell[1][1] if len(cell) > 1 else 0.0) for row in cands for cell in row
             if cell[0][0] is not None]
    return float(np.mean([np.log(p1 / (p1 + p2)) for p1, p2 in pairs])) if pairs else -np.inf


def orientations(inks, engine, *, alphabet: str, values: tuple, sure: float = -0.1,
                 crops_reader=None) -> list[tuple[int, list]]:
    """``[(quarter, candidates), ...]``: the cells read upright (quarter 0), and also as seen after turning
    the photo 1, 2, 3 quarter turns clockwise when they read about as well turned on a sample
    (``_sample_fits``; unless they read almost perfectly upright: ``TURN_CHECKED``, ``TURN_CLEAR``), or when
    they read poorly (fit below ``sure``) -- then without the turns (upright too) that read so much worse on a
    larger sample than the best that the rules could never choose them (``_hopeless``)."""
    opts = dict(alphabet=alphabet, values=values, crops_reader=crops_reader)
    cands = read_cells(inks, engine, **opts)
    fit = fit_of(cands)
    keep = [0, 1, 2, 3]
    if fit >= sure:
        checked = fit < TURN_CHECKED and clear_of(cands) < TURN_CLEAR
        fits = _sample_fits(inks, engine, **opts) if checked else None
        if fits is None or max(f for f, _ in fits[1:]) < fits[0][0] - TURN_MARGIN:
            keep = [0]
    else:
        fits = _sample_fits(inks, engine, share=SAMPLE_SHARE, **opts)
        keep = [q for q in keep if not _hopeless(fits, q)]
    return [(q, cands if q == 0 else read_cells(_turn(inks, q), engine, **opts)) for q in keep]


def spread(items: list, count: int) -> list:
    """Up to ``count`` of ``items``, evenly spread over them (the first and the last among them)."""
    return [items[i] for i in np.linspace(0, len(items) - 1, min(count, len(items))).round().astype(int)]


def _hopeless(fits: list[tuple[float, int]], q: int) -> bool:
    """Whether the turn ``q`` reads so much worse on the sample (``_sample_fits``) than the best turn that,
    scaled to every inked cell, its likelihood falls more than ``HOPELESS`` below the best's: then no
    correction could make it the reading chosen (``scanner.photo`` distrusts a reading more than
    ``revise.MAX_COST`` below the likeliest, and rivals count only within ``revise.RIVAL_MARGIN``)."""
    best = max(f for f, _ in fits)
    mean, inked = fits[q]
    return (best - mean) * inked > HOPELESS


def _sample_fits(inks, engine, *, sample: int = TURN_SAMPLE, share: int = 0, **opts) -> list[tuple[float, int]]:
    """Per quarter turn 0..3, ``(fit, inked)``: how well a sample of the inked cells (``sample``, or one in
    ``share`` when more, spread over the grid) reads as seen after turning the photo that many quarter turns
    clockwise (``fit_of``), and how many cells are inked. Some prints read confidently on their side (a 5
    lying down), so a good upright fit alone does not settle the turn."""
    n = len(inks)
    inked = [(r, c) for r in range(n) for c in range(n) if inks[r][c].crop is not None]
    if not inked:
        return [(0.0, 0)] * 4
    sample = max(sample, len(inked) // share) if share else sample
    chosen = spread(inked, sample)
    reader = opts["crops_reader"] or engine_read
    fits = []
    for q in (0, 1, 2, 3):
        crops = [np.ascontiguousarray(np.rot90(inks[r][c].crop, k=-q)) for r, c in chosen]
        got = reader(engine, crops, alphabet=opts["alphabet"])
        fits.append((fit_of([[cells_stage.combine(inks[r][c], reading, alphabet=opts["alphabet"],
                                                  values=opts["values"], renormalise=False, dot_trust=DOT_TRUST)
                              for (r, c), reading in zip(chosen, got)]]), len(inked)))
    return fits
