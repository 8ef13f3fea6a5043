"""The Futoshiki reader: n x n (4..9) digits 1..n and an inequality sign (or none) between every two neighbours.

Two printed layouts:

- *lattice*: one ruled grid, the signs sitting on the cell borders; found by the ruled-line finder
  (``grid_find``), its mesh fitted here (``fit_lattice``: n + 1 evenly spaced long strokes, so a title bar or a
  sign on a line cannot pull one line alone);
- *boxes*: separate square boxes with the signs in the gaps; found here (``find``, ``scanner.boxes_find``),
  its mesh from the boxes' lattice.

Both are dewarped to a *pitch picture* (cell ``(row, col)`` owns a P x P square, the printed box its
central share) where the signs are read (``scanner.signs``); the digits are read from the boxes cut out of
it. The turn of the print comes from the digits (the rules cannot tell: a Futoshiki turned is a Futoshiki),
and the signs are turned with the cells: a ``<`` in a photo turned 90 degrees reads as a ``∧``. A print with no
digit given has only its page to tell its turn (``scanner.page_turn``); else it is given as likeliest, with the
turn unknown (its answer is drawn right into the photo either way: a sign's tip points at the smaller cell
whichever way up).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from solver.puzzle import Cell, Grid, Puzzle, Relation

from .. import boxes_find, page_turn, rectify, signs
from .. import cells as cells_stage
from ..grid_find import gray_of, ink_mask, page, same_quad, share_in
from ..rectify import Mesh
from . import GridReading, cells_log_likelihood, ruled, turned_grid
from .ruled import _turn, dewarp_gray, sharpen

SIZES = tuple(range(4, 10))
FRAMED = tuple(range(4, 21))  #: ruled candidates looked at: other sizes may be a frame around a lattice and its title
READ_CELL = 40  #: pixels per box of the picture the digits are read from
SIGN_PITCH = 64  #: pixels per cell (box + gap) of the picture the signs are read from (ruled lattice)
SIGN_GAP = 28  #: boxes layout: at least this many pixels of gap between boxes (so at most 112 per cell)


def sign_pitch(box: float) -> int:
    """Pixels per cell of the pitch picture: ``SIGN_PITCH``, more when narrow gaps between boxes hold the signs."""
    if box >= 0.95:
        return SIGN_PITCH
    return int(np.clip(round(SIGN_GAP / max(1.0 - box, 1e-3)), SIGN_PITCH, 112))
DIGITS = "123456789"  #: what the engine is asked to tell apart (digits above n are kept out of the likelihood)
MESH_STRAY = 0.25  #: a followed lattice line further than this share of a cell from the even lattice is not trusted
LINE_SEEN = 0.25  #: a lattice line is seen at a row/column of cells where this share of its strip is line ink
MIN_LINES_SEEN = 0.6  #: a ruled candidate whose lines are seen at fewer of their crossings is not read
MIN_SIGNS = 1.0  #: a grid whose expected number of signs is below this is not read as a Futoshiki
#: ... nor one whose signs, read on another reader's dewarped picture of it, number under this (``plainly_unsigned``)
SCREEN_SIGNS = 0.3

#: (the detection copy searched last, its box grids, its box fields): ``find`` -> ``accepts``/``read``
_found: list = [None, [], []]


def _boxes_in(small: np.ndarray) -> list[boxes_find.BoxGrid]:
    if _found[0] is not small:
        _found[0], (_found[1], _found[2]) = small, boxes_find.find_arrangements(small)
    return _found[1]


def _fields_in(small: np.ndarray) -> list[boxes_find.BoxField]:
    _boxes_in(small)
    return _found[2]


#: a ruled n x n lattice with this share of its area on boxes that make no square grid (``boxes_find.BoxField``)
#: and run to more than n in a row or column is a lattice of their outlines: part of a boxes print that is not
#: all there (the photo cuts it off), no puzzle
ON_FIELD = 0.5


def on_box_field(small: np.ndarray, quad: np.ndarray, n: int) -> bool:
    """Whether the quad (4, 2) (x, y) of a ruled n x n candidate in the detection copy ``small`` lies mostly
    (``ON_FIELD``) on boxes standing apart that make no square grid and number more than n along a side: a 4 x 4
    lattice found on the outlines of a 6 x 6 boxes print cut off at the photo's edge (four columns of six
    boxes left) was read and solved as a 4 x 4."""
    return any(max(field.cols, field.rows) > n and share_in(np.asarray(quad, np.float32), field.quad) >= ON_FIELD
               for field in _fields_in(small))


def _box_grid(candidate, small=None):
    """The box grid found (by ``find``) at ``candidate``'s quad, or None (then it is a ruled lattice)."""
    grids = _found[1] if small is None else _boxes_in(small)
    for grid in grids:
        if same_quad(grid.quad(), np.asarray(candidate.quad, np.float32)):
            return grid
    return None


def _rotate_cell(cell: Cell, n: int, quarter: int) -> Cell:
    """Where cell ``(row, col)`` of a picture is after turning the picture ``quarter`` x 90 degrees clockwise."""
    r, c = cell
    for _ in range(quarter % 4):
        r, c = c, n - 1 - r
    return r, c


def turn_relations(read: dict, n: int, quarter: int) -> list:
    """The relation candidates (``GridReading.relations``) of sign readings ``{(a, b): options}`` (picture
    cells, options over tip "low"/"high"/None) seen after turning the picture ``quarter`` x 90 degrees
    clockwise: cells moved, and every tip kept pointing at the same (smaller) cell."""
    out = []
    for (a, b), options in read.items():
        ra, rb = _rotate_cell(a, n, quarter), _rotate_cell(b, n, quarter)
        first, second = (ra, rb) if ra < rb else (rb, ra)
        ops = []
        for tip, p in options:
            if tip is None:
                ops.append((None, p))
            else:
                smaller = ra if tip == "low" else rb
                ops.append(("<" if smaller == first else ">", p))
        out.append(((first, second), ops))
    out.sort(key=lambda t: t[0])
    return out


def digit_candidates(ink: cells_stage.CellInk, reading, n: int) -> list:
    """A cell's candidates [(1..n | None, p), ...] best first, from its ink and the engine's reading over
    1..9 and "." (the mass on digits above n is kept out: they make a poor reading, e.g. of a turned print)."""
    if reading is None:
        return [(None, 1.0)]
    p = dict(reading)
    filled = ink.p_filled
    scores = {v: filled * p.get(str(v), 0.0) for v in range(1, n + 1)}
    scores[None] = (1.0 - filled) + filled * p.get(".", 0.0)
    return sorted(((v, max(s, 1e-6)) for v, s in scores.items()), key=lambda t: -t[1])


#: A quarter turn is read whole only while a sample of its inked cells leaves it a chance of being the likeliest
#: (``read_digits``): samples of TURN_CHUNKS cells (evenly spread), grown one after the other
TURN_CHUNKS = (4, 12)
#: ... the sample's sum of log p must fall this far below the likeliest turn read whole to drop the turn. The sum
#: is a bound of the whole turn's only nearly: every cell adds a log p <= 0, but the sample is read with the
#: upright cells' contrast reference (``ClassifierEngine.grid_reference``) and the whole turn with its own, which
#: differs in the last digits. On 161 grids (the bench's futoshiki pages, retired held-out 9's, dev7's first 60)
#: a sample's sum came at most 0.0066 below the same cells read whole (a cell 0.0044): the slack covers that
#: seven times over, not by proof
BOUND_SLACK = 0.05


def read_digits(inks, engine) -> list[tuple[float, int, list]]:
    """``[(log-likelihood, quarter, candidates), ...]`` most likely first: the cells read in every quarter turn
    that may be the likeliest (the first is the likeliest of all four, ties to the lower quarter).

    The upright cells are read whole; the turned ones first on samples of their inked cells (``TURN_CHUNKS``)
    when the engine reads a cell alike in any batch given the grid's contrast reference (``grid_reference``):
    a turn whose sample's log-likelihood (nearly a bound of its whole one: every cell adds a log p <= 0, each read
    to the last digits as the whole turn reads it -- ``BOUND_SLACK``) already falls ``BOUND_SLACK`` below a turn
    read whole cannot be the likeliest and is read no further. A turn read whole is read as all four were before
    (its inked cells in one batch), so the likeliest reads the same."""
    n = len(inks)
    temperature = ruled.temperature(engine)

    def whole(quarter: int) -> tuple[float, int, list]:
        grid = inks if quarter == 0 else _turn(inks, quarter)
        todo = [(r, c) for r in range(n) for c in range(n) if grid[r][c].crop is not None]
        got = engine.read([grid[r][c].crop for r, c in todo], alphabet=DIGITS) if todo else []
        got = dict(zip(todo, [sharpen(g, temperature) for g in got]))
        cands = [[digit_candidates(grid[r][c], got.get((r, c)), n) for c in range(n)] for r in range(n)]
        return cells_log_likelihood(cands), quarter, cands

    out = [whole(0)]
    inked = [(r, c) for r in range(n) for c in range(n) if inks[r][c].crop is not None]
    if not inked:
        return out
    turns = [1, 2, 3]
    sums, counts = {q: 0.0 for q in turns}, {q: 0 for q in turns}
    if callable(getattr(engine, "grid_reference", None)):
        reference = engine.grid_reference([inks[r][c].crop for r, c in inked])
        order, taken = _spread_order(inked), 0
        for size in TURN_CHUNKS:
            turns = [q for q in turns if sums[q] >= max(t[0] for t in out) - BOUND_SLACK]
            chunk = order[taken:size]
            if not turns or not chunk:
                break
            crops = [np.ascontiguousarray(np.rot90(inks[r][c].crop, k=-q)) for q in turns for r, c in chunk]
            got = iter(engine.read(crops, alphabet=DIGITS, reference=reference))
            for q in turns:
                for r, c in chunk:
                    sums[q] += math.log(max(digit_candidates(inks[r][c], sharpen(next(got), temperature), n)[0][1],
                                            1e-12))
                    counts[q] += 1
            taken = size
            if size == TURN_CHUNKS[0]:  # the likeliest-looking turn read whole first: the bar rises soonest
                best = max(turns, key=lambda q: (sums[q] / counts[q], -q))
                if sums[best] >= max(t[0] for t in out) - BOUND_SLACK:
                    out.append(whole(best))
                    turns.remove(best)
    # the rest read whole, likeliest-looking first, each only while it may still be the likeliest
    for q in sorted(turns, key=lambda q: (-sums[q] / max(counts[q], 1), q)):
        if sums[q] >= max(t[0] for t in out) - BOUND_SLACK:
            out.append(whole(q))
    out.sort(key=lambda t: (-t[0], t[1]))
    return out


def _spread_order(cells: list) -> list:
    """``cells`` reordered so that the first k of them, for each sample size k of ``TURN_CHUNKS``, are spread
    over the grid (``ruled.spread``): the first chunk's, then the second's among the rest, ..., then the rest."""
    out: list = []
    for size in TURN_CHUNKS:
        if size > len(out):
            out += ruled.spread([c for c in cells if c not in out], size - len(out))
    return out + [c for c in cells if c not in out]


def box_picture(picture: np.ndarray, n: int, *, pitch: int, box: float, cell: int = READ_CELL) -> np.ndarray:
    """(n * cell, n * cell) picture of the boxes only, cut out of the pitch picture (n*P, n*P) and put edge to
    edge, so a boxes print reads like a ruled grid (its box outlines become the cell borders)."""
    t = (np.arange(cell) + 0.5) / cell  # 0..1 across a box
    local = (0.5 + (t - 0.5) * box) * pitch  # pixels from the cell's start in the pitch picture
    coords = (np.arange(n)[:, None] * pitch + local[None, :]).reshape(-1).astype(np.float32) - 0.5
    mx = np.tile(coords[None, :], (len(coords), 1))
    my = np.ascontiguousarray(mx.T)
    return cv2.remap(picture, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def box_quads(grid: boxes_find.BoxGrid, quarter: int, *, factor: float) -> np.ndarray:
    """(n, n, 4, 2) the printed boxes' corners (x, y) scaled by ``factor``, indexed upright after turning the
    picture ``quarter`` x 90 degrees clockwise (top-left corner first, clockwise), as ``Mesh.rotated`` indexes."""
    n, h = grid.n, grid.box / 2.0
    out = np.zeros((n, n, 4, 2))
    for r in range(n):
        for c in range(n):
            corners = grid.to_image(np.array([[[c - h, r - h], [c + h, r - h]], [[c - h, r + h], [c + h, r + h]]]))
            turned = Mesh(1, corners * factor).rotated(quarter).points
            out[_rotate_cell((r, c), n, quarter)] = [turned[0, 0], turned[0, 1], turned[1, 1], turned[1, 0]]
    return out


def uniform_mesh(quad: np.ndarray, n: int) -> Mesh:
    """The n x n mesh of evenly spaced crossings of the flat quad (4, 2) (x, y), top-left first, clockwise."""
    unit = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    h = cv2.getPerspectiveTransform(unit, np.asarray(quad, np.float32))
    k = np.arange(n + 1, dtype=np.float64)
    grid = np.stack(np.meshgrid(k, k), axis=-1).reshape(-1, 1, 2)
    return Mesh(n, cv2.perspectiveTransform(grid, h).reshape(n + 1, n + 1, 2))


FIT_REACH = 0.3  #: a lattice line is looked for this share of a cell either side of where the found quad puts it
FIT_LOCAL = 0.08  #: then each crossing this share of a cell either side of its column's (row's) even spacing


def _even_fit(profile: np.ndarray, n: int, start: float, cell: float, *, reach: float, spread: float):
    """(first, step) of the n + 1 evenly spaced positions along ``profile`` (S,) with the most ink, the first
    within ``reach`` pixels of ``start`` and the step within ``spread`` (share) of ``cell``."""
    firsts = start + np.arange(-reach, reach + 0.25, 0.5)
    steps = cell * (1.0 + np.linspace(-spread, spread, 2 * max(1, int(spread * cell * 4)) + 1))
    pos = firsts[:, None, None] + steps[None, :, None] * np.arange(n + 1)[None, None, :]
    score = np.interp(pos, np.arange(len(profile)), profile).sum(axis=2)
    i, j = np.unravel_index(int(np.argmax(score)), score.shape)
    return float(firsts[i]), float(steps[j])


def _line_positions(lines: np.ndarray, n: int, cell: int, margin: int) -> tuple[np.ndarray, float]:
    """(n + 1, n) positions (pixels across) of the n + 1 lines at every cell station along, in a square
    picture of line ink ``lines`` (side, side) float, lines running along the second axis; and the share of
    those crossings where the line's ink was seen."""
    profiles = np.stack([lines[:, margin + j * cell: margin + (j + 1) * cell].mean(axis=1) for j in range(n)])
    profiles = cv2.blur(profiles, (3, 1))
    first, step = _even_fit(profiles.mean(axis=0), n, margin, cell, reach=FIT_REACH * cell, spread=0.06)
    out = np.zeros((n + 1, n))
    k = np.arange(n + 1)
    axis = np.arange(profiles.shape[1])
    local = max(1, int(round(FIT_LOCAL * cell)))
    seen = 0
    for j in range(n):
        f, s = _even_fit(profiles[j], n, first, step, reach=0.12 * cell, spread=0.03)
        even = f + s * k
        for i, e in enumerate(even):
            lo, hi = int(round(e)) - local, int(round(e)) + local + 1
            seg = profiles[j, max(0, lo):hi]
            if seg.size == 0:  # the even fit put the line past the picture's edge: not seen, left where fitted
                out[i, j] = e
                continue
            w = np.clip(seg - 0.5 * seg.max(), 0.0, None)
            seen += seg.max() >= LINE_SEEN
            out[i, j] = e if seg.max() < 0.15 or w.sum() == 0 else float((axis[max(0, lo):hi] * w).sum() / w.sum())
    return out, seen / float((n + 1) * n)


def _smooth(pos: np.ndarray, stations: np.ndarray, cell: int) -> list:
    """Quadratic per line of its positions (n + 1, n) along the stations, one crossing far off left out."""
    coefs = []
    for row in pos:
        c = np.polyfit(stations, row, 2)
        off = np.abs(np.polyval(c, stations) - row)
        if off.max() > 0.06 * cell and len(row) > 4:
            keep = off < off.max()
            c = np.polyfit(stations[keep], row[keep], 2)
        coefs.append(c)
    return coefs


def fit_lattice(image: np.ndarray, quad: np.ndarray, n: int) -> tuple[Mesh, float]:
    """The line crossings of an n x n ruled lattice near ``quad`` (4, 2) (x, y) of ``image`` (H, W[, 3]).

    Rectified on the quad with a cell of margin, the ink of long straight strokes kept (signs and digits are
    short), and per row (column) of cells the n + 1 lines fitted as evenly spaced ones with the most ink (so
    a title bar, a frame or a thick outer line near one end cannot pull a single line), each crossing then
    refined locally; the lines smoothed as quadratics and intersected. Also returns the share of line
    crossings (lines x rows/columns of cells) where the line's ink was seen: low when no lattice is there."""
    gray = gray_of(image)
    side_px = float(np.linalg.norm(np.asarray(quad[0]) - quad[2])) / math.sqrt(2.0) / n
    cell = int(np.clip(round(side_px), 24, 56))
    margin = cell
    side = n * cell + 2 * margin
    dst = np.array([[margin, margin], [margin + n * cell, margin], [margin + n * cell, margin + n * cell],
                    [margin, margin + n * cell]], np.float32)
    h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    square = cv2.warpPerspective(gray, h, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    mask = ink_mask(square, block=2 * cell + 1, offset=6)
    reach = max(3, cell // 3)
    horiz = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((1, 3), np.uint8)),
                             cv2.MORPH_OPEN, np.ones((1, reach), np.uint8)).astype(np.float32) / 255.0
    vert = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 1), np.uint8)),
                            cv2.MORPH_OPEN, np.ones((reach, 1), np.uint8)).astype(np.float32) / 255.0
    stations = margin + (np.arange(n) + 0.5) * cell
    hpos, hseen = _line_positions(horiz, n, cell, margin)
    vpos, vseen = _line_positions(vert.T, n, cell, margin)
    hcoef = _smooth(hpos, stations, cell)  # y of horizontal line i at x
    vcoef = _smooth(vpos, stations, cell)  # x of vertical line k at y
    pts = np.zeros((n + 1, n + 1, 2))
    for i in range(n + 1):
        for k in range(n + 1):
            x, y = margin + k * cell, margin + i * cell
            for _ in range(3):
                x = np.polyval(vcoef[k], y)
                y = np.polyval(hcoef[i], x)
            pts[i, k] = (x, y)
    back = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(h)).reshape(n + 1, n + 1, 2)
    return Mesh(n, back), min(hseen, vseen)


def lattice_mesh(image: np.ndarray, quad: np.ndarray, n: int, *, stray: float = MESH_STRAY) -> tuple[Mesh, float]:
    """The fitted mesh of a ruled lattice (``fit_lattice``), unless it strays more than ``stray`` of a cell
    from the flat quad's even lattice (signs on the lines and their knocked-out gaps can pull a followed line
    onto the next one): then the even lattice."""
    followed, seen = fit_lattice(image, quad, n)
    unit = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    back = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), unit)
    pts = cv2.perspectiveTransform(followed.points.reshape(-1, 1, 2), back).reshape(n + 1, n + 1, 2)
    k = np.arange(n + 1, dtype=np.float64)
    even = np.stack(np.meshgrid(k, k), axis=-1)
    if np.abs(pts - even).max() > stray:
        return uniform_mesh(quad, n), seen
    return followed, seen


FRAME_SIDE = 480  #: pixels of the longer side a frame is rectified to when looking for a lattice inside it
FRAME_TRIES = 12  #: the largest lattices (of evenly spaced lines) tried in one outline
FRAME_FIT = 0.5  #: least ``_lattice_fit`` of a lattice found inside a frame
FRAME_LINE = 0.25  #: a row (column) of the rectified frame is a line when this share of its longest ones is line ink


def _even_runs(profile: np.ndarray, sizes=SIZES) -> list[tuple[int, float, float]]:
    """Every ``(n, first, last)``: n + 1 evenly spaced line peaks of ``profile`` (S,) with none midway."""
    level = max(0.12, FRAME_LINE * float(profile.max()))
    idx = [i for i in range(1, len(profile) - 1)
           if profile[i] >= level and profile[i] >= profile[i - 1] and profile[i] >= profile[i + 1]]
    groups: list[list[int]] = []
    for i in idx:  # a thick line or a flat top makes several maxima
        if groups and i - groups[-1][-1] <= 3:
            groups[-1].append(i)
        else:
            groups.append([i])
    pos = np.array([float(np.mean(g)) for g in groups])
    runs = []
    if len(pos) < 2:
        return runs

    def nearest(x: np.ndarray) -> np.ndarray:  # distance from each of x to the closest peak
        i = np.clip(np.searchsorted(pos, x), 1, len(pos) - 1)
        return np.minimum(np.abs(pos[i - 1] - x), np.abs(pos[i] - x))

    a, b = np.triu_indices(len(pos), 4)
    for n in sizes:
        step = (pos[b] - pos[a]) / n
        ok = step >= 8
        k = np.arange(n + 1)
        want = pos[a][:, None] + step[:, None] * k[None, :]
        ok &= (nearest(want) <= 0.1 * step[:, None]).all(axis=1)
        mids = want[:, :-1] + step[:, None] / 2
        ok &= (nearest(mids) >= 0.25 * step[:, None]).all(axis=1)
        runs += [(n, float(pos[i]), float(pos[j])) for i, j in zip(a[ok], b[ok])]
    return runs


class _Bands:
    """The line ink ``lines`` (H, W) uint8 seen along bands of columns c-2..c+2 (``_lattice_fit``): per column c
    asked for, ``counts(c)`` (H + 1,) int: how many of the first h rows hold ink in the band, h = 0..H. Counted
    once per column, so the lattices tried in one outline (sharing many lines) count a band's ink by two
    look-ups instead of slicing and averaging it again."""

    def __init__(self, lines: np.ndarray):
        self.lines, self.height = lines, lines.shape[0]
        self._counts: dict[int, np.ndarray] = {}

    def counts(self, c: int) -> np.ndarray:
        if c not in self._counts:
            band = self.lines[:, max(0, c - 2):c + 3].max(axis=1) > 0
            self._counts[c] = np.concatenate([[0], np.cumsum(band)])
        return self._counts[c]

    def share(self, c: int, *spans: slice) -> float:
        """The share of the rows in ``spans`` (slices of the rows) inked in column c's band: nan for none."""
        count = self.counts(c)
        inked = total = 0
        for span in spans:
            rows = range(self.height)[span]
            if len(rows):
                inked += int(count[rows.stop] - count[rows.start])
                total += len(rows)
        return inked / total if total else math.nan


def _lattice_fit(horiz: np.ndarray, vert: np.ndarray, n: int, x0: float, y0: float, x1: float, y1: float,
                 *, bands: tuple | None = None, wanted=None) -> float:
    """How well an n x n lattice spanning (x0, y0)..(x1, y1) explains the line ink ``horiz``/``vert`` (H, W)
    uint8: its lines' ink share inside the span less beyond its ends (a frame's line runs on past a lattice).
    ``bands``: ``(_Bands(vert), _Bands(horiz.T))`` shared by the lattices tried in one outline. ``wanted(fit)``:
    whether the caller would take a lattice of that fit, when it takes none below some fit: then a vertical lines'
    fit it would not take is returned without the horizontal lines' (the fit is the lesser of the two, no more)."""
    if bands is None:
        bands = (_Bands(vert), _Bands(horiz.T))

    def along(lines: _Bands, first: float, last: float, lo: float, hi: float) -> float:
        step = (last - first) / n
        a, b, reach = int(round(lo)), int(round(hi)), int(step)
        inside, outside = [], []
        for i in range(n + 1):
            c = int(round(first + i * step))
            inside.append(lines.share(c, slice(a, b + 1)))
            beyond = lines.share(c, slice(max(0, a - reach), a), slice(b + 1, b + 1 + reach))
            outside.append(0.0 if math.isnan(beyond) else beyond)
        return float(np.mean(inside) - np.mean(outside))

    first = along(bands[0], x0, x1, y0, y1)
    if wanted is not None and not wanted(first):
        return first
    return min(first, along(bands[1], y0, y1, x0, x1))


def inner_lattice(small: np.ndarray, quad: np.ndarray):
    """``(n, quad)`` of a ruled lattice (n = 4..9) inside the outline ``quad`` (4, 2) (x, y) of the detection
    copy (a frame that also holds the title, which the ruled-line finder counts as a grid of another size),
    or None. The outline is rectified and the n + 1 evenly spaced long strokes across and along it that best
    make a lattice (as wide as tall, its lines ending at its border) are taken."""
    gray = page(small)[0]  # (``gray_of``, made once for the finders)
    q = np.asarray(quad, np.float64)
    w = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    h = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    k = FRAME_SIDE / max(w, h, 1.0)
    width, height = int(round(w * k)), int(round(h * k))
    pad = 6
    rect = np.array([[pad, pad], [width + pad, pad], [width + pad, height + pad], [pad, height + pad]], np.float32)
    to_rect = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), rect)
    picture = cv2.warpPerspective(gray, to_rect, (width + 2 * pad, height + 2 * pad), flags=cv2.INTER_AREA,
                                  borderMode=cv2.BORDER_REPLICATE)
    mask = ink_mask(picture, block=(FRAME_SIDE // 16) | 1, offset=6)
    reach = FRAME_SIDE // 30
    horiz = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((1, reach), np.uint8))
    vert = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((reach, 1), np.uint8))
    rows = cv2.blur(horiz.astype(np.float32) / 255.0, (1, 3)).mean(axis=1)
    cols = cv2.blur(vert.astype(np.float32) / 255.0, (3, 1)).mean(axis=0)
    across = _even_runs(cols)
    pairs = [(n, x0, y0, x1, y1) for n, y0, y1 in _even_runs(rows) for m, x0, x1 in across
             if m == n and 0.75 < (x1 - x0) / (y1 - y0) < 1.33]
    pairs.sort(key=lambda t: -(t[3] - t[1]) * (t[4] - t[2]))
    best = None
    bands = (_Bands(vert), _Bands(horiz.T))

    def wanted(score: float) -> bool:  # (a lattice of a lesser fit than one taken would not be taken either)
        return score >= FRAME_FIT and (best is None or score > best[0])

    for n, x0, y0, x1, y1 in pairs[:FRAME_TRIES]:
        score = _lattice_fit(horiz, vert, n, x0, y0, x1, y1, bands=bands, wanted=wanted)
        if wanted(score):
            best = (score, n, x0, y0, x1, y1)
    if best is None:
        return None
    _, n, x0, y0, x1, y1 = best
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64).reshape(-1, 1, 2)
    inner = cv2.perspectiveTransform(corners, np.linalg.inv(to_rect)).reshape(4, 2).astype(np.float32)
    if same_quad(inner, np.asarray(quad, np.float32)):
        return None  # the outline is the lattice itself
    return n, inner


#: ruled grid sizes another reader reads too (Sudoku 4, 6, 9; Takuzu 4, 6, 8): their screen (``plainly_unsigned``)
#: dewarps the picture when none is at hand (``ruled.ruled_picture``: the Sudoku reader's, then made once either
#: way; its mesh is the one the Takuzu reader starts from, ``ruled.fitted_mesh``). Sizes 5 and 7 only this reader
#: reads: a grid screened out there would go unread anyway
SHARED_SIZES = (4, 6, 8, 9)


def plainly_unsigned(loaded, candidate, *, dewarp: bool = False) -> bool:
    """Whether the ruled grid ``candidate`` plainly holds no inequality signs, judged on the picture another
    reader dewarps it to (``ruled.ruled_picture``: the Sudoku reader reads grids of 4, 6 and 9 cells): its
    signs read there (``signs.read_signs`` on the cells as they are, every line a border) are expected to
    number under ``SCREEN_SIGNS``. False when no such picture is at hand, unless ``dewarp``: then it is made
    (and kept for that reader). Saves fitting the lattice, dewarping the full picture and reading its signs
    only to find none (``MIN_SIGNS``)."""
    got = loaded.memo.get(ruled.picture_key(candidate))
    if got is None and dewarp:
        got = ruled.ruled_picture(loaded, candidate)[1], ruled.READ_CELL
    if got is None:
        return False
    picture, cell = got
    read = signs.read_signs(picture, candidate.size, pitch=cell, box=1.0)
    return sum(1.0 - dict(opts)[None] for _, opts in read.values()) < SCREEN_SIGNS


class FutoshikiReader:
    kind = "futoshiki"

    def find(self, small) -> list:
        """Box grids (the boxes layout) in the detection copy, as grid candidates."""
        return [g.candidate() for g in _boxes_in(small)]

    def accepts(self, candidate) -> bool:
        return candidate.size in FRAMED or _box_grid(candidate) is not None

    def read(self, loaded, candidate, engine, *, timer) -> list[GridReading]:
        small, scale = loaded.small, loaded.scale
        grid = _box_grid(candidate, small)
        n, quad = (grid.n, None) if grid is not None else (candidate.size, candidate.quad)
        if grid is None and n in SIZES:
            with timer.stage("signs"):
                if plainly_unsigned(loaded, candidate, dewarp=n in SHARED_SIZES):
                    return []
        if grid is None and on_box_field(small, candidate.quad, n):
            return []
        if grid is None and n not in SIZES:
            with timer.stage("frame"):
                inner = inner_lattice(small, quad)
            if inner is None:
                return []
            n, quad = inner
        with timer.stage("mesh"):
            if grid is None:
                box = 1.0
                mesh_small, seen = lattice_mesh(small, quad, n)
                if seen < MIN_LINES_SEEN:
                    return []  # no ruled lattice there (a block of text, a picture)
                pitch_mesh = mesh_small
            else:
                box = grid.box
                k = np.arange(n + 1) - 0.5
                pitch_mesh = Mesh(n, grid.to_image(np.stack(np.meshgrid(k, k), axis=-1)))
                edge = k.copy()
                edge[0], edge[-1] = -box / 2, n - 1 + box / 2
                mesh_small = Mesh(n, grid.to_image(np.stack(np.meshgrid(edge, edge), axis=-1)))
        pitch = sign_pitch(box)
        with timer.stage("dewarp"):
            picture = dewarp_gray(loaded, pitch_mesh, cell=pitch)
            digits_pic = box_picture(picture, n, pitch=pitch, box=box)
        with timer.stage("signs"):
            read_signs = signs.read_signs(picture, n, pitch=pitch, box=box)
        expected = sum(1.0 - dict(opts)[None] for _, opts in read_signs.values())
        if expected < MIN_SIGNS:
            return []  # no inequality signs: some other ruled grid
        with timer.stage("ink"):
            inks = cells_stage.measure(digits_pic, n, cell=READ_CELL)
        with timer.stage("read"):
            turned = read_digits(inks, engine)
        sign_options = {pair: opts for pair, (_, opts) in read_signs.items()}
        best, quarter, cands = turned[0]
        # the turn comes from the digits alone; a close runner-up turn (few or ambiguous digits) would make a
        # rival reading the rules cannot refute, so only the most likely turn is returned
        turn_known = True
        if not any(cell[0][0] is not None for row in cands for cell in row):  # no digit: every turn reads alike
            upright = turned_grid(cands, -quarter)
            quarter, turn_known = page_turn.turn_or_guess(page_turn.page_orientation(loaded, mesh_small, n,
                                                                                      timer=timer))
            cands = turned_grid(upright, quarter)
        mesh_full = mesh_small.scaled(1.0 / scale)
        relations = turn_relations(sign_options, n, quarter)
        fit = [c[0][1] for row in cands for c in row if c[0][0] is not None]
        readings = [GridReading(mesh=mesh_full.rotated(quarter), turn=(-quarter) % 4, cands=cands,
                            fit=float(np.mean(np.log(fit))) if fit else 0.0,
                            picture=np.ascontiguousarray(np.rot90(digits_pic, k=-quarter)), cell=READ_CELL,
                            relations=relations,
                            boxes=None if grid is None else box_quads(grid, quarter, factor=1.0 / scale),
                            filled=np.rot90(np.array([[ink.p_filled for ink in row] for row in inks]), k=-quarter),
                            turn_known=turn_known)]
        loaded.memo[ruled.readings_key(candidate, "futoshiki")] = readings  # for the Takuzu reader's look
        return readings

    def make_puzzle(self, grid: Grid, relations: tuple[Relation, ...] = (), *, source: str = "",
                    index: int = 0) -> Puzzle:
        return Puzzle(kind="futoshiki", size=len(grid), givens=[list(r) for r in grid],
                      relations=tuple(relations), source=source, index=index)

    def labels(self, puzzle: Puzzle, solution: Grid) -> dict[Cell, str]:
        n = puzzle.size
        return {(r, c): str(solution[r][c]) for r in range(n) for c in range(n) if puzzle.givens[r][c] is None}


READER = FutoshikiReader()
