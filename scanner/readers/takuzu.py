"""The Takuzu (binairo) reader: even ruled grids of 4..20 cells a side holding 0/1 digits, or white (0) and
black (1) circles.

    fit mesh -> dewarp -> ink per cell -> the marks' shapes: circles or digits?
      circles: black = filled core, white = ring around paper (measured, ``scanner.circles``)
      digits:  the engine reads 0..9; only 0 and 1 are Takuzu values, the mass it gives other digits is
               kept out of the likelihood (so a Sudoku's 2..9 make a poor Takuzu reading)

The puzzle's turn: digits are read in the four quarter turns and the most likely kept; circles look the
same every way up, so the text of the page around the grid decides: the shape of its lines
(``scanner.orient``), and when that does not tell, its words read by OCR (``scanner.turn_text``; skipped for
a reading another kind's far outweighs, ``far_behind``; for circles read only when the reading solves or is
returned, ``GridReading.settle``: the turn changes neither the likelihood, nor whether it solves, nor the
overlay); when neither tells surely, the grid is given in the
likeliest turn (``orient.likely_turn``: as seen in the photo unless the weak evidence, or the words' lean,
clearly outweighs that) with ``turn_known`` false (the overlay is right either way).
Digits decide the turn alone when one turn reads clearly best; a 0 and a 1 can look alike upside down, so
when another turn comes close the 1s' flags tell upright from upside down (``ones_turn``), else the page's
text decides, and when neither can, every close turn is returned:
Takuzu's rules hold in every turn, so they all solve and the photo is reported unreadable, not upside down --
except when the two close turns are each other upside down and read the same (bar 1s, oval 0s): either
draws the same answer into the photo, so the likelier (the one the page's words lean to, when they do) is
given with ``turn_known`` false, as circles are.
"""
from __future__ import annotations

import math

import numpy as np

from solver.puzzle import Cell, Grid, Puzzle, Relation

from .. import cells as cells_stage
from .. import circles, rectify, revise
from ..ocr.glyph import STATS, encloses_hole, normalise_all
from ..page_turn import page_orientation, page_quarter, page_words, turn_or_guess
from . import GridReading, cells_log_likelihood, turned_grid
from .ruled import (_turn, dewarp_gray, engine_read, fit_of, fitted_mesh, local_contrast, readings_key, second_look,
                    ungrained)

SIZES = tuple(range(4, 21, 2))  #: even sizes the solver takes
READ_CELL = 40  #: pixels per cell of the dewarped picture the marks are read from
DIGITS = "0123456789"  #: what the engine is asked to tell apart (only 0 and 1 are Takuzu values)
UPRIGHT_PRIOR = 2.3  #: log-odds that a puzzle is photographed as printed rather than turned (a tie-break)
OUTER_SLACK = 0.3  #: share of a cell an outer crossing may lie off the spacing of the inner ones
GLYPHS_CIRCLES = {"0": "white circle", "1": "black circle"}  #: how a circle print's labels are drawn


def regular_outer(mesh: rectify.Mesh, *, slack: float = OUTER_SLACK) -> rectify.Mesh:
    """``mesh`` with its outer crossings checked against the inner ones: along every line across the grid, a
    first or last crossing lying off the quadratic (perspective, curl) through the others by more than
    ``slack`` of the local cell is put on it, unless it then lies as far off its outer line's course (through
    that line's other crossings). Shaded givens and marks beside the border, or a page edge or shadow, can pull
    an outer ruled line a cell away while the inner lines are found right; an inner line misfitted beside the
    border sends the others' spacing off at their ends while the outer line runs true.

    The rows are checked first, then the columns, on the rows' corrections; a crossing a row has put right is
    left alone by its column: an outer line bent as a whole agrees with itself and would put its corner
    back where the bent line left it."""
    n = mesh.n
    pts = mesh.points.copy()
    if n < 4:
        return mesh
    moved = set()
    for axis in (0, 1):
        lines = pts if axis == 0 else pts.transpose(1, 0, 2)  # lines[i, k]: crossing k along line i (a view)
        put = []  # (line, end, where the crossing was) of this pass's corrections
        for i in range(n + 1):
            for end, inner in ((0, slice(1, n + 1)), (n, slice(0, n))):
                at = (i, end) if axis == 0 else (end, i)
                if at in moved:
                    continue
                want = _course(lines[i], inner, end)
                step = float(np.linalg.norm(lines[i, 1] - lines[i, 2] if end == 0 else lines[i, n - 1] - lines[i, n - 2]))
                if np.linalg.norm(lines[i, end] - want) > slack * step:
                    put.append((i, end, lines[i, end].copy()))
                    lines[i, end] = want
        # a corrected crossing must lie on the outer line's course too (through its other crossings, corrected):
        # an inner line misfitted near the border (pulled by a row of marks, or a strong curl) sends the
        # spacing of the lines across it off at their ends, where the outer line itself runs true
        for i, end, was in put:
            border = lines[:, end]
            others = np.arange(n + 1) != i
            step = float(np.linalg.norm(border[i + 1] - border[i] if i < n else border[i] - border[i - 1]))
            if np.linalg.norm(border[i] - _course(border, others, i)) > slack * step:
                border[i] = was
            else:
                moved.add((i, end) if axis == 0 else (end, i))
    return rectify.Mesh(n, pts)


def _course(points: np.ndarray, through, at: int) -> np.ndarray:
    """(x, y) at index ``at`` of the quadratic (perspective, curl) through the crossings ``points[through]``
    (``points`` (n + 1, 2) along one line; ``through`` a slice or a boolean mask of its indices)."""
    index = np.arange(len(points), dtype=np.float64)
    coef = np.polyfit(index[through], points[through], 2).T.tolist()  # x's and y's coefficients along the line
    # (``np.polyval`` of each at one point, in plain floats: the same products and sums)
    return np.array([rectify.poly_value(coef[0], float(at)), rectify.poly_value(coef[1], float(at))])


def dewarped(loaded, cand, *, timer, cell: int = READ_CELL):
    """(mesh in detection-copy pixels, dewarped gray picture (n * cell, n * cell)) of candidate ``cand``."""
    n = cand.size
    with timer.stage("mesh"):
        mesh_small = regular_outer(fitted_mesh(loaded, cand))
    with timer.stage("dewarp"):
        picture = dewarp_gray(loaded, mesh_small, cell=cell)
    return mesh_small, picture


#: a digit running into the trimmed-off margin (a tall 1 in a large print, a mesh a little off) is looked at again
#: with only this much trimmed (``cells.measure``), as the Sudoku reader does (circle prints are measured as
#: before: their marks' shapes are measured on the interior the usual trim leaves)
RETRIM = cells_stage.WIDE_TRIM


def digit_candidates(ink: cells_stage.CellInk, reading, *, faint: bool = False, holed: bool | None = None,
                     zero_odds: float = 1.0) -> list:
    """A cell's candidates [(0 | 1 | None, p), ...] best first from its ink and the engine's reading over
    0..9 and "." (None when the engine did not look at it). ``faint``: the cell's ink was found only on the
    picture stretched per neighbourhood (``ruled.second_look``), where the grain of a dark shadow can make a
    blob: what the engine reads there as neither 0 nor 1 counts as nothing. ``holed`` (``glyph_holes``): the
    glyph encloses paper (True: a 1 never does, its share weighed by ``ONE_HOLED``), or is centred and does not
    (False: its 0's share weighed by ``zero_odds``, the grid's ``unholed_zero_odds``); the mass of 0 and 1
    together stays the engine's."""
    if reading is None:
        return [(None, 1.0)]
    p = dict(reading)
    filled = ink.p_filled
    p0, p1 = p.get("0", 0.0), p.get("1", 0.0)
    nothing = max(0.0, 1.0 - p0 - p1) if faint else p.get(".", 0.0)
    if holed is not None and p0 + p1 > 0.0:
        w0, w1 = (p0, p1 * ONE_HOLED) if holed else (p0 * zero_odds, p1)
        p0, p1 = (p0 + p1) * w0 / (w0 + w1), (p0 + p1) * w1 / (w0 + w1)
    scores = {0: filled * p0, 1: filled * p1, None: (1.0 - filled) + filled * nothing}
    # the mass on 2..9 is not renormalised away: a grid of other digits is a poor Takuzu
    return sorted(((v, max(s, 1e-6)) for v, s in scores.items()), key=lambda t: -t[1])


#: ``digit_candidates``: the odds of a 1 against a 0 for a glyph that encloses paper (``glyph.encloses_hole``: on
#: 19982 dev cells 2 of 10042 1s did, 99.84 % of the 0s)
ONE_HOLED = 0.02
#: a glyph lying off its cell's centre by more than this share of the cell (either way) tells nothing by having no
#: hole: a 0 half cut away by a misfitted mesh is an unholed ")" (dev: such halves at 0.09 .. 0.12; 98 % of 1s
#: within 0.08)
HOLE_CENTRE = 0.06
#: ``unholed_zero_odds``: the grid's sure 0s (this share of the 0/1 mass or more) tell how often its 0s show no
#: hole (a bold print blurred shut), counted with ``ZERO_PRIOR_WEIGHT`` made-up 0s of which ``ZERO_PRIOR`` lack one;
#: the odds stay ``ZERO_ODDS_FLOOR`` or more. The held-out URW Gothic's bare 1s read as 0 at up to 0.4, 0s
#: without a hole read as 0 at 0.25 and more
SURE_ZERO, ZERO_PRIOR, ZERO_PRIOR_WEIGHT, ZERO_ODDS_FLOOR = 0.9, 0.05, 4.0, 0.02


def glyph_holes(engine, crops: list) -> list[bool | None]:
    """Per crop: True when its glyph encloses paper, False when it lies centred (``HOLE_CENTRE``) and does not,
    None else (no glyph). The engine's own glyphs when it keeps them (the classifier: those of the crops it
    has just read), else normalised here."""
    glyphs = engine.glyphs(crops) if hasattr(engine, "glyphs") else normalise_all(crops)
    dx, dy = STATS.index("dx"), STATS.index("dy")
    out: list[bool | None] = []
    for g in glyphs:
        if g.blank:
            out.append(None)
        elif encloses_hole(g):
            out.append(True)
        else:
            out.append(False if max(abs(float(g.stats[dx])), abs(float(g.stats[dy]))) <= HOLE_CENTRE else None)
    return out


def unholed_zero_odds(readings: list, holed: list) -> float:
    """The odds ``digit_candidates`` weighs an unholed 0 by: the share of the grid's sure 0s (``SURE_ZERO``;
    ``readings`` the engine's, ``holed`` their ``glyph_holes``) that enclose no hole, smoothed by the prior."""
    sure = [h for reading, h in zip(readings, holed) if h is not None and _zero_share(reading) >= SURE_ZERO]
    odds = (sum(not h for h in sure) + ZERO_PRIOR * ZERO_PRIOR_WEIGHT) / (len(sure) + ZERO_PRIOR_WEIGHT)
    return max(ZERO_ODDS_FLOOR, odds)


def _zero_share(reading) -> float:
    p = dict(reading)
    p0, p1 = p.get("0", 0.0), p.get("1", 0.0)
    return p0 / (p0 + p1) if p0 + p1 > 0.0 else 0.0


def circle_candidates(ink: cells_stage.CellInk, m: circles.Mark | None, ring: float = 0.0,
                      disc: float = 0.0) -> list:
    """A cell's candidates from its ink and its mark's shape: black circle 1, white circle 0; ``ring`` / ``disc``:
    the probability that a ring / a disc about the cell's centre is a white / black circle
    (``circles.ring_probabilities``, ``disc_probability``), which wins when the ink saw less (a thin or faint
    ring, or one wider than the trimmed cell, broken into arcs; a disc printed grey or in shadow)."""
    if ink.crop is None or m is None:
        filled, black = 0.0, 0.0
    else:
        filled = ink.p_filled * circles.circle_probability(m)
        black = circles.black_probability(m)
    if max(ring, disc) > filled:
        filled, black = (ring, 0.0) if ring >= disc else (disc, 1.0)
    if filled <= 0.0:
        return [(None, 1.0)]
    scores = {1: filled * black, 0: filled * (1.0 - black), None: 1.0 - filled}
    return sorted(((v, max(s, 1e-6)) for v, s in scores.items()), key=lambda t: -t[1])


def _log_likelihood(cands) -> float:
    return sum(math.log(max(cell[0][1], 1e-12)) for row in cands for cell in row)


TURN_SAMPLE = 12  #: inked cells read in every quarter turn before whole turns are read
#: a turn whose sample reads this much worse per cell (mean log p) than the best turn's is not read whole: on 367
#: generated digit grids (seeds 7000.., 10000.., 50000.., 700000..) every turn within RIVAL_MARGIN + 3 of the
#: likeliest whole reading came within 0.47 of the best sample; the turns left out are 6.6 below (median)
TURN_SCREEN = 1.5
#: a print whose sample (``TURN_SAMPLE`` inked cells) reads worse than this per cell (mean log p as 0 / 1) in
#: its best turn is not a Takuzu, and is read no further (``read_digits`` gives nothing). On 969 dev photos
#: (synth300, tk dev, dev16, dev20, fut dev, sud dev10k, ocr4 s16, train) every digit grid read as a Takuzu with a
#: full sample came at -0.04 or above but two misfound ones (-2.8, -2.98, unreadable either way); 16 x 16 Sudoku
#: prints read -1.2 .. -5.6 (59 of 61 below -3), other 4..8 grids of 1..9 down to -8
NOT_BINARY = -3.0


class TurnedCrops:
    """The crops of a grid's cells turned ``quarter`` x 90 degrees clockwise (``grid``: n x n ``cells.CellInk`` at
    their turned places, their crops as seen), each turned when first asked for and kept (the very pixels
    ``ruled._turn`` gives): a turn screened out after its sample (``read_digits``) needs a dozen of them, and
    the cells' reading needs none of the inks' other pictures turned."""

    def __init__(self, grid: list, quarter: int):
        self.grid, self.quarter, self._turned = grid, quarter, {}

    def at(self, places: list) -> list[np.ndarray]:
        """The turned crops (h, w) uint8 of the cells at ``places`` [(row, col), ...] (turned places; inked cells)."""
        out = []
        for rc in places:
            if rc not in self._turned:
                crop = self.grid[rc[0]][rc[1]].crop
                self._turned[rc] = crop if self.quarter == 0 else np.ascontiguousarray(np.rot90(crop, k=-self.quarter))
            out.append(self._turned[rc])
        return out


def read_digits(inks, engine, *, faint: np.ndarray | None = None) -> list[tuple[float, int, list]]:
    """[(log-likelihood, quarter, candidates), ...] best first: the cells read in the quarter turns (the photo
    turned ``quarter`` x 90 degrees clockwise) that a sample of ``TURN_SAMPLE`` inked cells, read in all four,
    does not rule out (``TURN_SCREEN``): a 1 or a 0 lying on its side reads as no digit at all. Empty when a
    full sample reads as 0s and 1s in no turn (``NOT_BINARY``): the grid is no Takuzu. ``faint`` (n, n) bool:
    the cells inked only on a second look (``digit_candidates``)."""
    n = len(inks)
    faint = np.zeros((n, n), bool) if faint is None else faint
    inked = [r * n + c for r in range(n) for c in range(n) if inks[r][c].crop is not None and not faint[r, c]]
    sample = {inked[int(i)] for i in np.linspace(0, len(inked) - 1, min(TURN_SAMPLE, len(inked)))} if inked else set()
    turns = []
    for quarter in range(4):
        grid = turned_grid(inks, quarter)  # each cell's ink at its turned place (its crop turned in ``crops``)
        crops = TurnedCrops(grid, quarter)
        weak = np.rot90(faint, k=-quarter)
        where = np.rot90(np.arange(n * n).reshape(n, n), k=-quarter)  # the photo's cell at each turned place
        todo = [(r, c) for r in range(n) for c in range(n) if grid[r][c].crop is not None]
        first = [rc for rc in todo if where[rc] in sample]
        got = dict(zip(first, engine_read(engine, crops.at(first), alphabet=DIGITS) if first else []))
        probe = [math.log(max(digit_candidates(grid[r][c], got[(r, c)], faint=weak[r, c])[0][1], 1e-12))
                 for r, c in first]
        turns.append((float(np.mean(probe)) if probe else 0.0, quarter, grid, crops, todo, got, weak))
    best = max(t[0] for t in turns)
    if len(sample) >= TURN_SAMPLE and best < NOT_BINARY:
        return []  # no turn reads as 0s and 1s: the digits of some other puzzle (a 16 x 16 Sudoku's 1..16, A..G)
    out = []
    for probe, quarter, grid, crops, todo, got, weak in turns:
        if probe < best - TURN_SCREEN:
            continue
        rest = [rc for rc in todo if rc not in got]
        got.update(zip(rest, engine_read(engine, crops.at(rest), alphabet=DIGITS) if rest else []))
        holed = dict(zip(todo, glyph_holes(engine, crops.at(todo)) if todo else []))
        odds = unholed_zero_odds([got[rc] for rc in todo], [holed[rc] for rc in todo])
        cands = [[digit_candidates(grid[r][c], got.get((r, c)), faint=weak[r, c], holed=holed.get((r, c)),
                                   zero_odds=odds) for c in range(n)] for r in range(n)]
        out.append((_log_likelihood(cands), quarter, cands))
    return sorted(out, key=lambda t: -t[0])


#: a grid the Sudoku reader has read upright (``ruled.readings_key``) as plainly another puzzle's digits is not
#: read as a Takuzu: its cells read confidently (mean log p over the read cells >= SCREEN_FIT, the Sudoku
#: reader's own "sure" being -0.1) as SCREEN_SYMBOLS or more different symbols, 1s among them at most the share
#: SCREEN_ONES -- a binary print holds two symbols, and read as a Sudoku its 0s have nowhere to go (0 is no
#: Sudoku symbol). On the dev sets (synth300, sud dev10k, ocr4 s16, h4, tk dev, dev16, turn nat, bench pages)
#: the 48 16 x 16 grids the Sudoku reader read upright and the Takuzu reader gave nothing (``NOT_BINARY``) came at
#: fit -0.106 .. 0 with 16 symbols and 1s 0.03 .. 0.12 of the cells; the 4 it did read (2 Takuzu prints, 2
#: Sudoku grids whose readings lost) at fit -0.33 .. -1.31; the other grids it read were never read upright by
#: the Sudoku reader (turned, or circles: ``sudoku.looks_binary``). Sizes 4 and 6 hold too few symbols to pass:
#: this spares reading a 16 x 16 Sudoku (~100 ms) as a Takuzu only to find it none.
SCREEN_FIT, SCREEN_SYMBOLS, SCREEN_ONES = -0.2, 8, 0.2


def plainly_other_digits(loaded, candidate) -> bool:
    """Whether the Sudoku reader's upright reading of ``candidate`` (kept in ``loaded.memo``) is plainly another
    puzzle's digits (``SCREEN_FIT``, ``SCREEN_SYMBOLS``, ``SCREEN_ONES``). False when there is none."""
    upright = [r for r in loaded.memo.get(readings_key(candidate), ()) if r.turn == 0]
    if not upright:
        return False
    best = [cell[0] for row in upright[0].cands for cell in row if cell[0][0] is not None]
    if len(best) < TURN_SAMPLE:
        return False
    fit = float(np.mean([math.log(max(p, 1e-12)) for _, p in best]))
    symbols = len({v for v, p in best if p >= 0.5})
    ones = sum(1 for v, _ in best if v == 1)
    return fit >= SCREEN_FIT and symbols >= SCREEN_SYMBOLS and ones <= SCREEN_ONES * len(best)


def close_turns(readings: list) -> list:
    """The digit readings (``read_digits``) within ``revise.RIVAL_MARGIN`` of the likeliest, by the digits
    alone: the turns the glyphs cannot tell apart (a 0 and a 1 can look alike upside down)."""
    best = max(t[0] for t in readings)
    return [t for t in readings if t[0] > best - revise.RIVAL_MARGIN]


def contested_turns(readings: list) -> list:
    """The digit readings (``read_digits``) the turn is chosen among: the close ones (``close_turns``) and those
    the upright prior keeps in play (``plausible_turns`` without the page), the likeliest first. A print whose
    glyphs read a little better upside down (serif 1s' feet, glare over a few cells) is such a case: its
    upside-down reading is the likeliest by more than ``revise.RIVAL_MARGIN`` and nothing else is close, but
    not by ``UPRIGHT_PRIOR`` more -- the 1s and the page are asked there too."""
    seen = {t[1] for t in close_turns(readings)} | {t[1] for t in plausible_turns(readings, None)}
    return sorted((t for t in readings if t[1] in seen), key=lambda t: -t[0])


def plausible_turns(readings: list, page: int | None) -> list:
    """The digit readings (``read_digits``) worth offering: when the digits cannot tell the turn
    (``contested_turns``) the one the page's text points to (``page``, a quarter) if it is among those;
    else the likeliest alone when no other turn comes within ``revise.RIVAL_MARGIN`` of it, the turn as seen
    getting ``UPRIGHT_PRIOR`` (so it wins whenever the digits lean its way at all); else every close one, so
    that the rules' check finds them rivals and the photo is unreadable rather than read upside down."""
    def score(t):
        return t[0] + (UPRIGHT_PRIOR if t[1] == 0 else 0.0)

    if page is not None:
        paged = [t for t in contested_turns(readings) if t[1] == page]
        if paged:
            return paged
    readings = sorted(readings, key=lambda t: -score(t))
    return [t for t in readings if score(t) > score(readings[0]) - revise.RIVAL_MARGIN]


#: The turn a 0/1 print's 1s tell (``ones_turn``): an upright 1's flag stands left of its stem, so more of its
#: ink lies left of the stem than right (a foot, when printed, is even); upside down, right. A 0 tells nothing.
#: Per page z = mean lean / max(sd, ONES_SD) * sqrt(1s), over at least MIN_ONES 1s. On 216 digit pages turned 0 or
#: 180 degrees (retired held-outs 4..6, main and big) 198 leaned the right way at z >= 4, 211 at z >= 2.5, none
#: the wrong way (the least 1.3 the right way): ONES_SURE decides the turn, ONES_GUESS gives the likely one
#: (``turn_known`` false). The upright fonts installed here all lean left; italic ones do not tell.
ONES_SURE, ONES_GUESS, ONES_SD, MIN_ONES = 4.0, 2.5, 0.04, 3
ONE_INK = 0.5  #: a crop pixel this much darker than paper (0..1) is the 1's ink (not its blurred edge)
#: columns holding this share of the fullest column's ink are the stem (at 0.35 the flag or the foot joins it)
ONE_STEM = 0.45


def one_lean(crop: np.ndarray) -> float | None:
    """A glyph's ink left of its stem less its ink right of it, as a share of its ink, in ``crop`` (h, w) uint8
    (dark on light, ``cells.CellInk.crop``): > 0 for an upright 1 (its flag), < 0 upside down; None for a
    glyph with no narrow stem (at most half as wide as the glyph is tall)."""
    ink = (255.0 - crop.astype(np.float64)) / 255.0
    ink[ink < ONE_INK] = 0.0
    cols = ink.sum(axis=0)
    if cols.max() <= 0:
        return None
    rows = np.nonzero(ink.sum(axis=1) > 0)[0]
    stem = np.nonzero(cols >= ONE_STEM * cols.max())[0]
    if stem[-1] - stem[0] + 1 > 0.5 * (rows[-1] - rows[0] + 1):
        return None
    return float((ink[:, :stem[0]].sum() - ink[:, stem[-1] + 1:].sum()) / ink.sum())


def ones_z(inks: list, quarter: int, cands: list) -> float:
    """How surely the 1s of a reading turned ``quarter`` x 90 degrees clockwise (``cands``, turned) stand upright
    (``one_lean`` of each cell read 1, its crop in ``inks`` (n x n ``cells.CellInk``, as seen) turned alike):
    mean / max(sd, ``ONES_SD``) * sqrt(count), 0 with fewer than ``MIN_ONES``."""
    leans = [one_lean(ink.crop) for row, crow in zip(_turn(inks, quarter), cands) for ink, cell in zip(row, crow)
             if cell[0][0] == 1 and ink.crop is not None]
    leans = np.array([v for v in leans if v is not None])
    if len(leans) < MIN_ONES:
        return 0.0
    return float(leans.mean() / max(float(leans.std(ddof=1)), ONES_SD) * math.sqrt(len(leans)))


def ones_turn(inks: list, readings: list) -> tuple[int | None, int | None]:
    """(sure quarter or None, likely quarter or None) the 1s tell between the likeliest of the contested digit
    readings (``contested_turns``) and the one upside down from it -- only when no quarter turn is contested
    (a 1 tells up from down, not a quarter turn)."""
    close = contested_turns(readings)
    quarter = close[0][1]
    if any((t[1] - quarter) % 2 for t in close):
        return None, None
    z = ones_z(inks, quarter, close[0][2])
    told = quarter if z > 0 else (quarter + 2) % 4
    return (told if abs(z) >= ONES_SURE else None), (told if abs(z) >= ONES_GUESS else None)


def same_upside_down(first: list, second: list) -> bool:
    """Whether two readings' candidates (n x n, best first) hold the same values, the second as the first
    turned by 180 degrees: a print that reads alike either way up (the two give the same answer in the photo)."""
    best = [[cell[0][0] for cell in row] for row in first]
    return turned_grid(best, 2) == [[cell[0][0] for cell in row] for row in second]


def far_behind(loaded, candidate, cands_list: list) -> bool:
    """Whether another kind's reading of ``candidate`` (the Sudoku and Futoshiki readers', kept in
    ``loaded.memo``; with ``--kind auto`` they read the grid first) is likelier than each of ``cands_list``
    (n x n candidates, best first) by more than ``revise.MAX_COST``. The photo stage never answers with such a
    reading (solved, it is unreadable: the photo reads far better as another kind), so its turn is not
    worth the page's words (``turn_text``, 100-200 ms): a Futoshiki grid read as circles, say."""
    others = [r.log_likelihood() for kind in ("sudoku", "futoshiki")
              for r in loaded.memo.get(readings_key(candidate, kind), ())]
    if not others or not cands_list:
        return False
    ours = max(cells_log_likelihood(cands) for cands in cands_list)
    return bool(max(others) - revise.MAX_COST > ours)


def _reading(mesh_full: rectify.Mesh, picture: np.ndarray, marked: np.ndarray, quarter: int, cands: list, *,
             glyphs: dict, turn_known: bool, settle=None) -> GridReading:
    """The ``GridReading`` of a grid read as seen in the photo (``mesh_full`` in full-resolution pixels,
    ``picture`` the dewarped gray grid, ``marked`` (n, n) the ink's word that a cell holds a mark) given turned
    ``quarter`` x 90 degrees clockwise, ``cands`` already turned so."""
    return GridReading(mesh=mesh_full.rotated(quarter), turn=(-quarter) % 4, cands=cands, fit=fit_of(cands),
                       picture=np.ascontiguousarray(np.rot90(picture, k=-quarter)), cell=READ_CELL,
                       glyphs=dict(glyphs), turn_known=turn_known, filled=np.rot90(marked, k=-quarter),
                       settle=settle)


class TakuzuReader:
    kind = "takuzu"

    def accepts(self, candidate) -> bool:
        return candidate.size in SIZES

    takes_floor = True  #: ``read`` takes ``floor`` (``scanner.photo._read_candidate``)

    def read(self, loaded, candidate, engine, *, timer, floor: float | None = None) -> list[GridReading]:
        n = candidate.size
        if plainly_other_digits(loaded, candidate):
            return []  # a Sudoku's digits (with --kind auto the Sudoku reader has read the grid first)
        mesh_small, picture = dewarped(loaded, candidate, timer=timer)
        with timer.stage("ink"):
            smooth = ungrained(picture, cell=READ_CELL)  # (smoothed only when grainy: ``ruled.GRAINY``)
            stretched = local_contrast(smooth, cell=READ_CELL)
            # measured once for both looks: as a circle print is (``inks``) and with a digit running into the
            # trimmed-off margin looked at again (``first``, ``RETRIM``)
            plain: dict = {}
            first = cells_stage.measure(stretched, n, cell=READ_CELL, retrim=RETRIM, plain=plain)
            inks = cells_stage.without_retrim(first, plain)
        with timer.stage("read"):
            glyphs: dict = {}
            turn_known = True
            settle = None  # a circle reading's turn still to be told by the page's words (``GridReading.settle``)
            # circles or digits, by the marks' extents alone (``circles.extent``: ``mark``'s without its radial
            # profile, which only a circle grid needs)
            if circles.is_circle_grid([circles.extent(ink.crop) for row in inks for ink in row
                                       if ink.crop is not None]):
                dark = circles.darkness(smooth, cell=READ_CELL)  # (as the cells' ink: a ring is thin beside grain)
                inked = [(r, c) for r, row in enumerate(inks) for c, ink in enumerate(row) if ink.crop is not None]
                interiors = [circles.cell_interior(dark, r, c, cell=READ_CELL) for r, c in inked]
                shaped = dict(zip(inked, circles.marks([inks[r][c].crop for r, c in inked], interiors)))
                marks = [[shaped.get((r, c)) for c in range(n)] for r in range(n)]  # (measured together)
                glyphs = GLYPHS_CIRCLES
                samples = circles.centre_samples(dark, n, cell=READ_CELL)
                profiles = circles.centre_profiles(dark, n, cell=READ_CELL, samples=samples)
                paper = np.array([[ink.p_filled < 0.5 for ink in row] for row in inks])
                rings = circles.ring_probabilities(samples, paper, cell=READ_CELL, profiles=profiles)
                # a disc washed out by glare stands out on the picture stretched per neighbourhood, which it
                # darkens to the lines' black: the darker of the two readings of each cell's core counts
                glare = circles.centre_profiles(1.0 - stretched.astype(np.float32) / 255.0, n, cell=READ_CELL)
                discs = np.maximum(circles.disc_contrast(profiles, cell=READ_CELL),
                                   circles.disc_contrast(glare, cell=READ_CELL))
                cands = [[circle_candidates(ink, m, float(rings[r, c]),
                                            circles.disc_probability(float(discs[r, c])))
                          for c, (ink, m) in enumerate(zip(ir, mr))] for r, (ir, mr) in enumerate(zip(inks, marks))]
                if floor is not None and cells_log_likelihood(cands) < floor - 1e-9:  # (summed in another order)
                    return []  # likely in no turn enough to matter beside another kind's solved reading
                # circles look alike every way up: the page's text tells the turn, or it stays unknown and the
                # grid is given as seen -- or as the text's weak evidence has it when that clearly outweighs the
                # odds of an upright photo (``orient.likely_turn``); drawn right in the photo either way
                # The turn changes neither the likelihood, nor whether the grid solves, nor the overlay: only
                # the grid given in the record. So when the text's shape does not tell, the page's words
                # (100-200 ms) are read only for a reading that solves or is returned (``GridReading.settle``):
                # the reading is given in the shape's likeliest turn until then
                found = page_orientation(loaded, mesh_small, n, timer=timer, words=False)
                quarter, turn_known = turn_or_guess(found)
                chosen = [(0.0, quarter, turned_grid(cands, quarter))]
                # the marks' own word that a cell holds a circle (ink, shape, ring or disc), as seen in the photo
                marked = np.array([[1.0 - dict(cell).get(None, 0.0) for cell in row] for row in cands])
                if found.turn is None and not far_behind(loaded, candidate, [cands]):
                    def settle():
                        quarter, known = turn_or_guess(page_words(loaded, mesh_small, n, found, timer=timer))
                        return _reading(mesh_small.scaled(1.0 / loaded.scale), picture, marked, quarter,
                                        turned_grid(cands, quarter), glyphs=GLYPHS_CIRCLES, turn_known=known)
            else:
                # digits: a glyph running into the trimmed-off margin is looked at again, and so is an empty
                # cell on the picture stretched over 2 cells (``ruled.second_look``): a digit in shadow or
                # glare, paler than the grid's darkest print, falls short of the page-wide ink level
                inks = second_look(smooth, first, cell=READ_CELL, retrim=RETRIM)
                faint = np.array([[a.crop is None and b.crop is not None for a, b in zip(ra, rb)]
                                  for ra, rb in zip(first, inks)])
                readings = read_digits(inks, engine, faint=faint)
                # the ink's own word that a cell holds a mark (a blob found only on the second look has none)
                marked = np.array([[0.0 if faint[r, c] else ink.p_filled for c, ink in enumerate(row)]
                                   for r, row in enumerate(inks)])
                if not readings:
                    return []  # other digits than 0 and 1: not a Takuzu
                if floor is not None and readings[0][0] < floor - 1e-9:
                    return []  # no turn likely enough to matter beside another kind's solved reading
                page, lean = None, None
                if len(contested_turns(readings)) > 1:  # the digits cannot tell the turn: their 1s may, else the page
                    page, lean = ones_turn(inks, readings)
                    if page is None:
                        found = page_orientation(loaded, mesh_small, n, timer=timer,
                                                 words=not far_behind(loaded, candidate, [t[2] for t in readings]))
                        page = page_quarter(found)
                        lean = lean if found.read is None else (-found.read) % 4
                chosen = plausible_turns(readings, page)
                if (len(chosen) == 2 and (chosen[0][1] - chosen[1][1]) % 4 == 2
                        and same_upside_down(chosen[0][2], chosen[1][2])):
                    # the print reads the same upside down (bar 1s, oval 0s) and the page cannot tell: either
                    # reading draws the same answer into the photo, so give the likelier with the turn unknown
                    # (the one the page's words lean to, when they do)
                    chosen = [t for t in chosen if t[1] == lean] or chosen
                    chosen, turn_known = chosen[:1], False
        mesh_full = mesh_small.scaled(1.0 / loaded.scale)
        return [_reading(mesh_full, picture, marked, quarter, cands, glyphs=glyphs, turn_known=turn_known,
                         settle=settle)
                for _, quarter, cands in chosen]

    def make_puzzle(self, grid: Grid, relations: tuple[Relation, ...] = (), *, source: str = "",
                    index: int = 0) -> Puzzle:
        return Puzzle(kind="takuzu", size=len(grid), givens=[list(r) for r in grid], source=source, index=index)

    def labels(self, puzzle: Puzzle, solution: Grid) -> dict[Cell, str]:
        n = puzzle.size
        return {(r, c): str(solution[r][c]) for r in range(n) for c in range(n) if puzzle.givens[r][c] is None}


READER = TakuzuReader()
