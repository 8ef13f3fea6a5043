"""Which way up a printed page is, from the text around a grid.

A puzzle printed with symbols that look the same every way up (Takuzu's circles) cannot tell its own
orientation; the page around it can. The region around the grid is warped into the grid's frame (the grid
axis-aligned, so text near it runs along the rows or the columns) and read as four pictures, one per quarter
turn; in the upright one

- text runs in rows: the ink's row profile alternates lines and gaps while its column profile is flat;
- each text line has more ink above its x-height band (ascenders, capitals, digits) than below it
  (descenders), the asymmetry of Latin script; read as the shape of the line's row profile about its centroid
  (a fitted antisymmetric filter, ``line_vote``), which survives the 4..8 pixel x-heights photos give.

    quad -> frame warp -> ink (paper-normalised, ruled lines removed) -> tiles -> per tile: line direction,
    lines, each line's up / down vote -> votes per quarter turn -> Orientation

When the tiles' votes do not decide, whole text lines are read too (``text_lines``: glyphs joined along
the tiles' line direction, right up to the grid's border, where a puzzle's own title and instructions stand
and which the tiles leave out), each scored by ``line_score``; the two kinds of evidence together may decide
when they do not contradict each other (``MIN_JOINT_Z``).

Costs a warp of about (n + 2 * MARGIN) * FRAME_CELL pixels a side and a few array passes (a few tens of ms;
the whole lines, when needed, a few tens more).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from .cells import opencv_alone
from .grid_find import gray_of

FRAME_CELL = 44  #: most pixels per grid cell of the frame picture (fewer when the photo has fewer)
MARGIN = 7.0  #: cells of page read around the grid on every side
TILE = 4  #: tile side in cells (several text lines, little enough that curl keeps them straight)
INK = 0.72  #: a pixel darker than this share of the local paper is ink
STRIPS = 4  #: vertical strips a tile's lines are straightened by
SLOPES = np.arange(-3.0, 3.01, 0.5)  #: line slopes tried, pixels per strip
MIN_LINES = 12  #: text lines that must be measured before an orientation is trusted
MIN_AGREE = 0.65  #: share of the measured text lines that must run the same way (rows or columns)
MIN_Z = 3.5  #: (up votes - down votes) / sqrt(lines) needed to tell up from down
#: share of the measured lines that must run the same way for the tiles to decide alone; below it (down to
#: MIN_AGREE) the whole lines are read too, as when the tiles are not sure of up and down. Dev 8100132, a circle
#: print turned a quarter, sideways body text beside a shadow band: 38 lines, 0.655 along the rows, decided
#: upright at z 3.89 (its words read the right turn); the other 40 sure decisions on that set's circle prints
#: agreed 0.72-1.0, all right
TILES_AGREE = 0.75
#: tile votes and whole-line scores, (z_tiles + z_lines) / sqrt(2), needed to tell up from down when the tiles
#: alone do not (and the two do not point opposite ways). Calibrated on 488 generated Takuzu pages (seeds
#: 7000..9999 and 50000.. for the fit, 10000.. held apart): none decided wrong at 3.5 once contradicting
#: evidence is refused, decided pages 342 -> 385; 4.0 keeps a margin.
MIN_JOINT_Z = 4.0
CONTRADICT_Z = 1.0  #: a tile z this strong against the lines' direction vetoes the joint decision
#: A best guess when the text does not tell surely (``likely_turn``): phones photograph pages upright about 4 in
#: 5 times, so a guess leaves the photo's orientation only on evidence that clearly outweighs that: the tiles'
#: lines, GUESS_LINES or more of them running one way in at least MIN_AGREE of the measured lines, read upside
#: down at (joint) z <= -GUESS_Z; or running along the columns (a page turned sideways) in at least
#: GUESS_SIDE_AGREE of them at |z| >= GUESS_SIDE_Z (a misjudged line direction reads mostly noise as up / down).
#: Undecided grids of the retired held-outs, synth300 and tk dev (truth corners, 622 pages, 48 undecided by the
#: text): the tiles guessed 4 right, and one upright page turned on 3 lines (now too few); the joint evidence
#: along the direction where it was the stronger (a second reading, dropped) guessed 5 upright pages turned and
#: none right.
GUESS_Z = 2.5
GUESS_LINES = 10
GUESS_SIDE_Z = 2.0
GUESS_SIDE_AGREE = 0.9


@dataclass(frozen=True)
class Orientation:
    """``turn``: quarter turns (0..3) the page is turned clockwise in the image (1: the tops of the letters
    point right), None when the text does not tell surely; ``agree``: share of the text running the chosen
    way; ``z``: up / down evidence, (votes for - votes against) / sqrt(lines); ``lines``: text lines measured;
    ``line_z``: the whole text lines' evidence
    (``text_lines``, ``line_score``) when the tiles alone did not decide, else 0; ``axis``: the text runs
    along the grid's rows (0) or columns (1), as most of the measured lines do, whether sure or not (0 when
    no line was measured); ``contradicted``: the tiles and the whole lines point opposite ways
    (``CONTRADICT_Z``); when the tiles alone did not decide, ``evidence``: the joint up evidence (tiles and
    whole lines) along the rows and along the columns (``turn_text.against_shape``);
    ``read``: when the turn is not sure, the turn an OCR engine reads the page's text lines in, if it leans
    clearly one way (``scanner.turn_text``; None when not asked or undecided), a guess ``likely_turn`` takes."""

    turn: int | None
    agree: float
    z: float
    lines: int
    line_z: float = 0.0
    axis: int = 0
    contradicted: bool = False
    evidence: tuple[float, float] = (0.0, 0.0)
    read: int | None = None

    @property
    def sure(self) -> bool:
        return self.turn is not None


def frame_cell(quad: np.ndarray, n: int, *, cell: int = FRAME_CELL) -> tuple[int, float]:
    """(pixels per cell the frame is read at, pixels per cell as seen) for the grid with corners ``quad``
    (4, 2) (x, y) of ``n`` cells: ``cell`` at most, fewer when the image has fewer (16 at least)."""
    quad = np.asarray(quad, np.float64).reshape(4, 2)
    seen = float(np.linalg.norm(quad[0] - quad[2]) + np.linalg.norm(quad[1] - quad[3])) / (2 * 1.4142 * n)
    return int(max(16, min(cell, round(seen)))), seen


def frame_transform(quad: np.ndarray, n: int, *, cell: int = FRAME_CELL,
                    margin: float = MARGIN) -> tuple[np.ndarray, int]:
    """(the (3, 3) homography from the image to the frame, the frame's side S = (n + 2 * margin) * cell): the
    grid with corners ``quad`` (4, 2) (x, y) top-left, top-right, bottom-right, bottom-left fills the frame's
    middle square, axis-aligned."""
    side = n * cell
    m = margin * cell
    size = int(round(side + 2 * m))
    dst = np.float32([[m, m], [m + side, m], [m + side, m + side], [m, m + side]])
    return cv2.getPerspectiveTransform(np.float32(quad), dst), size


def frame(image: np.ndarray, quad: np.ndarray, n: int, *, cell: int = FRAME_CELL,
          margin: float = MARGIN) -> np.ndarray:
    """The page around the grid (gray, (S, S), ``frame_transform``) of ``image`` (H, W[, 3]), paper beyond
    the image's edge."""
    h, size = frame_transform(quad, n, cell=cell, margin=margin)
    return cv2.warpPerspective(gray_of(image), h, (size, size), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=255)


#: ceil(INK * max(paper, 1)) for every uint8 paper level (the darkest gray that is not ink, plus one)
_INK_LEVELS = np.ceil(np.float32(INK) * np.maximum(np.arange(256, dtype=np.float32), np.float32(1.0))).astype(np.uint8)


def ink(gray: np.ndarray, *, cell: int) -> np.ndarray:
    """(H, W) bool ink of a frame picture: darker than ``INK`` of the local paper, with long ruled lines
    (longer than two cells) taken out."""
    k = int(cell) | 1
    paper = cv2.dilate(gray, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    paper = cv2.blur(paper, (k, k))  # uint8
    # gray < INK * paper for whole-number gray is gray < ceil(INK * paper): one table look-up per pixel
    mask = cv2.compare(gray, cv2.LUT(paper, _INK_LEVELS), cv2.CMP_LT)  # 255 = ink
    long = 2 * cell
    lines = line_opening(mask, long, axis=1)
    lines |= line_opening(mask, long, axis=0)
    lines = cv2.dilate(lines, np.ones((3, 3), np.uint8))
    return cv2.bitwise_and(mask, cv2.bitwise_not(lines)) > 0


RUN_STEP = 8  #: pixels between the samples ``line_opening`` screens rows (columns) by


def line_opening(mask: np.ndarray, long: int, *, axis: int) -> np.ndarray:
    """``cv2.morphologyEx(mask, cv2.MORPH_OPEN, line)`` of ``mask`` (H, W) uint8 0 / 255 by a line ``long``
    pixels long along ``axis`` (1: along the rows, a (long, 1) rectangle; 0: down the columns), the same
    pixels, opened only on the rows (columns) that can keep any. The opening treats each row (column) alone,
    and OpenCV's erosion counts the picture's outside as ink: a row keeps ink only where it has a run of
    ``long`` pixels, or of ``long // 2`` at the picture's edge (an edge pixel's window holds that many inside).
    Such a run covers ``long // RUN_STEP`` (at the edge ``long // 2 // RUN_STEP``, the first or last ones)
    consecutive samples taken every ``RUN_STEP`` pixels; a row without is all 0. Most of a frame's rows are
    text, not rules: the ink's two openings took ~7.4 ms of CPU together on the frames of 42 Takuzu pages
    (880..1500 pixels a side), ~2.7 ms so (checked equal there and on random rules of every length)."""
    if long < 2 * RUN_STEP or mask.shape[axis] < long:
        return cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(
            cv2.MORPH_RECT, (long, 1) if axis == 1 else (1, long)))

    def span(start, stop):  # (samples start:stop of every row (column), along ``axis``)
        return (slice(None), slice(start, stop)) if axis == 1 else (slice(start, stop),)

    samples = (mask[:, ::RUN_STEP] if axis == 1 else mask[::RUN_STEP]) > 0  # every RUN_STEP-th pixel along
    need, edge = long // RUN_STEP, long // 2 // RUN_STEP
    count = samples.shape[axis] - need + 1
    inside = samples[span(0, count)].copy()  # ``need`` consecutive samples inked, from each sample on
    for i in range(1, need):
        inside &= samples[span(i, i + count)]
    lines = np.flatnonzero(inside.any(axis=axis) | samples[span(None, edge)].all(axis=axis)
                           | samples[span(-edge, None)].all(axis=axis))
    out = np.zeros_like(mask)
    if len(lines):
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (long, 1))
        if axis == 1:
            out[lines] = cv2.morphologyEx(mask[lines], cv2.MORPH_OPEN, kernel)
        else:  # (the columns opened as rows, turned: OpenCV's row and column openings treat pixels alike)
            out[:, lines] = cv2.morphologyEx(np.ascontiguousarray(mask.T[lines]), cv2.MORPH_OPEN, kernel).T
    return out


def _runs(on: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) of the runs of True in a 1-D bool array."""
    d = np.diff(np.concatenate([[0], on.astype(np.int8), [0]]))
    return list(zip(np.nonzero(d == 1)[0], np.nonzero(d == -1)[0]))


def aligned_profile(tile: np.ndarray, *, strips: int = STRIPS) -> np.ndarray:
    """(h,) row profile of ``tile`` (h, w) bool with its text lines straightened: the tile's vertical strips'
    profiles shifted by a common slope (whole pixels per strip) chosen to make the sum sharpest (largest sum
    of squares), undoing what skew and curl are left after the frame warp."""
    h, w = tile.shape
    step = w // strips
    # the strips' row sums (whole numbers: summed in any order, the same)
    return straightened(tile[:, :strips * step].reshape(h, strips, step).sum(axis=2).T.astype(np.float32))


def straightened(parts: np.ndarray) -> np.ndarray:
    """``aligned_profile`` of a tile from its strips' row sums ``parts`` (strips, h) float32."""
    strips, h = parts.shape
    totals = parts[_strip_rows(h, strips)].sum(axis=1)  # (slopes, h)
    return totals[int(np.argmax((totals * totals).sum(axis=1)))]


@dataclass(frozen=True)
class StripSums:
    """A frame's ink ``mask`` (S, S) bool summed over runs of ``width`` pixels both ways (``of``): ``across``
    (S', S' // width) int64, each row's ink in each run of ``width`` columns; ``down`` (S' // width, S'), each
    column's ink in each run of ``width`` rows (S' = S less its remainder by ``width``). A tile starting on
    multiples of ``width``, its strips ``width`` wide, has its row and column profiles and its strips' row sums
    (``aligned_profile``) summed from these once per frame rather than from its pixels, tile by overlapping
    tile: whole numbers, the same."""

    width: int
    across: np.ndarray
    down: np.ndarray

    @classmethod
    def of(cls, mask: np.ndarray, width: int) -> "StripSums":
        k = mask.shape[0] // width
        cut = mask[:k * width, :k * width]
        return cls(width, cut.reshape(k * width, k, width).sum(axis=2), cut.reshape(k, width, k * width).sum(axis=1))

    def tile(self, y: int, x: int, side: int) -> tuple[np.ndarray, np.ndarray]:
        """(each row's ink per strip (side, strips), each column's ink per band of rows (strips, side)) of the
        tile ``mask[y:y + side, x:x + side]`` (``y``, ``x`` and ``side`` multiples of ``width``). (One tile's:
        ``tile_votes`` takes every tile's at once, and the tests hold it to this.)"""
        w = self.width
        return self.across[y:y + side, x // w:(x + side) // w], self.down[y // w:(y + side) // w, x:x + side]

    def profiles(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows (k', S'), cols (k', S')) int64, k' = S' // width - count + 1: ``rows[j]`` each row's ink in the
        ``count`` runs of columns from run j on, ``cols[i]`` each column's ink in the ``count`` runs of rows from
        run i on -- every tile's row profile (``rows[x // width, y:y + side]``) and column profile
        (``cols[y // width, x:x + side]``), ``side`` = ``count * width``, at once, each contiguous: the sums of
        ``tile``'s strips and bands (whole numbers: the same in any order of summing)."""
        k = self.across.shape[1]
        before = np.zeros((self.across.shape[0], k + 1), np.int64)  # ink before each run, along each row
        np.cumsum(self.across, axis=1, out=before[:, 1:])
        above = np.zeros((k + 1, self.down.shape[1]), np.int64)  # ink above each run, down each column
        np.cumsum(self.down, axis=0, out=above[1:])
        return np.ascontiguousarray((before[:, count:] - before[:, :-count]).T), above[count:] - above[:-count]


@functools.lru_cache(maxsize=64)
def _strip_rows(h: int, strips: int) -> tuple[np.ndarray, np.ndarray]:
    """(strip index (1, strips, 1), row index (slopes, strips, h)) picking, for every slope of ``SLOPES``,
    strip i's row y + its shift, wrapped (``aligned_profile``; the same for every tile of a frame)."""
    shifts = np.round(SLOPES[:, None] * (np.arange(strips) - (strips - 1) / 2.0)).astype(int)  # (slopes, strips)
    rows = (np.arange(h)[None, None, :] + shifts[:, :, None]) % h  # strip i's row y + shift, wrapped
    which = np.arange(strips)[None, :, None]
    which.flags.writeable = rows.flags.writeable = False
    return which, rows


#: offsets (line standard deviations) from a text line's centroid at which its profile is sampled above and below
SHAPE_AT = np.linspace(0.25, 3.0, 12)
#: weights of (profile above - profile below) at ``SHAPE_AT``: a line whose weighted sum is positive has its tops
#: up. A logistic fit (no intercept: turning a line over negates it) on 25 000 text lines of generated dev pages
#: (seeds 10000..), 77 % of lines right there and on 36 000 lines of other pages (seeds 50000..), against 69 % for
#: the ascender / descender ink balance at the resolutions photos give (x-height 4..8 pixels).
SHAPE_WEIGHTS = np.array([2.55, 0.49, 1.36, 0.62, -1.4, -2.6, -2.7, 2.61, 2.79, 1.0, 0.79, 0.55])


def line_vote(profile: np.ndarray, *, weights: np.ndarray = SHAPE_WEIGHTS) -> float:
    """Up (> 0) or down (< 0) evidence of one text line from its row profile (h,) (a run of inked rows and a
    couple of paper rows either side): the profile in units of the line's own spread about its centroid,
    the part above against the mirrored part below, weighed by ``weights`` (Latin ascenders and
    capitals above the x-height band outweigh descenders below it; blur and size are normalised away)."""
    # (the reductions called as ufuncs and both sides sampled in one call: a tile's lines are many and short,
    # so the calls' overhead is most of the cost; the values are the same)
    p = profile.astype(np.float64)
    total = np.add.reduce(p)
    if total <= 0:
        return 0.0
    y = _positions(len(p))
    centre = float(np.add.reduce(p * y) / total)
    spread = float(np.sqrt(np.add.reduce(p * (y - centre) ** 2) / total))
    q = p / np.maximum.reduce(p)
    sampled = np.interp(centre + spread * _SHAPE_BOTH, y, q, left=0.0, right=0.0)  # (above, then below)
    return float((sampled[:len(SHAPE_AT)] - sampled[len(SHAPE_AT):]) @ weights)


#: ``SHAPE_AT`` above the centre (negated: rows up), then below it
_SHAPE_BOTH = np.concatenate([-SHAPE_AT, SHAPE_AT])
_SHAPE_BOTH.flags.writeable = False


@functools.lru_cache(maxsize=256)
def _positions(length: int) -> np.ndarray:
    """(length,) float64 0, 1, ... (read-only): the rows of a line's profile."""
    y = np.arange(length, dtype=np.float64)
    y.flags.writeable = False
    return y


def line_votes(profiles: np.ndarray, *, weights: np.ndarray = SHAPE_WEIGHTS) -> np.ndarray:
    """(k,) float64 ``line_vote`` of each row of ``profiles`` (k, L) (k lines as long), the same values: each
    row's reductions run over its own L values as a line's do (numpy sums a contiguous row as it sums the
    line alone), ``np.interp`` over the rows 0..L-1 worked out as numpy does it (a sample's slope times its
    distance past the row below, plus that row's value; at the last row its value; beyond either end 0), and
    each line's weighed sum its own product of 12 (as ``line_vote`` takes it)."""
    k, length = profiles.shape
    p = profiles.astype(np.float64)
    total = np.add.reduce(p, axis=1)
    votes = np.zeros(k)
    inked = total > 0
    if not inked.all():  # (no ink: no vote, as ``line_vote``)
        p, total = p[inked], total[inked]
    y = _positions(length)
    centre = np.add.reduce(p * y, axis=1) / total
    spread = np.sqrt(np.add.reduce(p * (y - centre[:, None]) ** 2, axis=1) / total)
    q = p / np.maximum.reduce(p, axis=1)[:, None]
    at = centre[:, None] + spread[:, None] * _SHAPE_BOTH  # (k, 24) rows sampled, above then below
    below = np.minimum(np.maximum(at, 0.0), length - 2.0).astype(np.intp)  # (the row below: at's floor)
    low = np.take_along_axis(q, below, axis=1)
    sampled = (np.take_along_axis(q, below + 1, axis=1) - low) * (at - below) + low
    sampled = np.where(at == length - 1, q[:, -1:], sampled)
    sampled = np.where((at < 0) | (at > length - 1), 0.0, sampled)
    side = len(SHAPE_AT)
    diff = sampled[:, :side] - sampled[:, side:]
    votes[inked] = [float(d @ weights) for d in diff]
    return votes


#: ``line_vote`` weights for whole text lines (``text_lines``): a logistic fit (no intercept) on 34 500 lines of
#: 291 generated Takuzu pages (seeds 7000..9999, 50000..), 77 % of lines right there and 76 % on 25 500 lines of
#: 197 other pages (seeds 10000..), against 75 % for ``SHAPE_WEIGHTS`` (fitted on tile fragments).
LINE_WEIGHTS = np.array([2.61, 1.76, 1.45, -0.04, -0.85, -2.99, -4.34, 2.25, 1.52, -4.94, 0.61, 2.65])
LINE_CLIP = 3.0  #: most evidence (log-odds) one line gives (a page's lines share a font: no line may outvote many)


def line_score(profile: np.ndarray) -> float:
    """Up (> 0) or down (< 0) log-odds of one whole text line from its row profile (``line_vote`` with
    ``LINE_WEIGHTS``), clipped to +-``LINE_CLIP``."""
    return float(np.clip(line_vote(profile, weights=LINE_WEIGHTS), -LINE_CLIP, LINE_CLIP))


@dataclass(frozen=True)
class Runs:
    """Glyphs of a frame's ink joined into runs along the rows (``joined_runs``): ``keep`` (S, S) bool, the
    glyph-sized components' pixels; ``labels`` (S, S) int32, each pixel's run (0: none); ``boxes`` (k, 5)
    OpenCV stats of the runs (x, y, w, h, area; row 0 the background); ``tall``: the glyphs' median height."""

    keep: np.ndarray
    labels: np.ndarray
    boxes: np.ndarray
    tall: float


def _grid_span(cell: int, n: int, margin: float) -> tuple[int, int]:
    """(first, stop) of the frame's rows and columns ``frame_components`` leaves out: the grid (``n`` cells of
    ``cell`` pixels, ``margin`` cells from the frame's edge) and a little more."""
    m = int(round(margin * cell))
    return m - int(0.15 * cell), m + n * cell + int(0.15 * cell)


def frame_components(mask: np.ndarray, *, cell: int, n: int, margin: float = MARGIN) -> tuple[np.ndarray, np.ndarray]:
    """The connected components of a frame's ink ``mask`` (S, S) bool with the grid itself (``n`` cells of
    ``cell`` pixels in the middle) left out: (labels (S, S) int32, stats (K, 5) OpenCV's x, y, w, h, area)."""
    g0, g1 = _grid_span(cell, n, margin)
    marks = mask.astype(np.uint8)
    marks[g0:g1, g0:g1] = 0
    return labelled(marks)


def labelled(marks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(labels (H, W) int32, stats (K, 5) x, y, w, h, area) of the 8-connected components of ``marks`` (H, W)
    uint8, as ``cv2.connectedComponentsWithStats`` gives them, found by the block-based BBDT (Grana) labelling on
    the calling thread (``cells.opencv_alone``). The same labels in the same order: BBDT and this OpenCV's
    default for 8-connectivity (Spaghetti, also on 2 x 2 blocks) both number the components by their first
    block in raster order (checked equal, stats and labels, on the frames of 40 Takuzu and Sudoku pages).
    Faster: on a frame of about 1000 x 1000 pixels the default took 9.4 ms alone, about 10 ms of the
    calling thread in the pipeline when shared with OpenCV's other thread; BBDT alone 3.5 ms."""
    with opencv_alone():
        _, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(marks, 8, cv2.CV_32S, cv2.CCL_BBDT)
    return labels, stats


FEW_GLYPHS = 32  #: glyphs up to this many are painted box by box, more as one lookup over the frame (same pixels)


def joined_runs(mask: np.ndarray, *, cell: int, n: int, margin: float = MARGIN, min_glyphs: int = 3,
                shortest: float = 3.0, tallest: float = 1.2, widest: float = 1.5,
                components: tuple[np.ndarray, np.ndarray] | None = None, quarter: bool = False) -> Runs | None:
    """The glyph-sized components of a frame's ink ``mask`` (S, S) bool (``ink``; text along the rows: turn
    the mask first for the other direction, or see ``quarter``), the grid itself (``n`` cells of ``cell`` pixels
    in the middle) left out, joined along the rows by a gap of about a glyph's height (``Runs``); None when
    fewer than ``min_glyphs`` glyphs are found. A glyph is ``shortest`` pixels to ``tallest`` cells tall and at
    most ``widest`` cells wide. ``components``: the mask's ``frame_components`` when already found.

    ``quarter``: the runs of the mask turned a quarter counter-clockwise (``np.rot90(mask, k=1)``, text along
    the columns), from the unturned ``mask`` and its ``components``: the turned mask's components are the
    same pixels (a component's height its width), and the grid left out the same square, centred in the
    frame (``_grid_span``); the glyphs' pixels are found unturned and turned after. The same ``Runs`` as from
    the turned mask (its labels number the components in another order; only their pixels and sizes count)."""
    if quarter and sum(_grid_span(cell, n, margin)) != mask.shape[0]:  # (not centred: turned, another square)
        return joined_runs(np.rot90(mask, k=1), cell=cell, n=n, margin=margin, min_glyphs=min_glyphs,
                           shortest=shortest, tallest=tallest, widest=widest)
    labels, stats = components if components is not None else frame_components(mask, cell=cell, n=n, margin=margin)
    # (turned a quarter, a component's width is its height and its height its width)
    w, h, area = (stats[:, 3], stats[:, 2], stats[:, 4]) if quarter else (stats[:, 2], stats[:, 3], stats[:, 4])
    glyph = (area >= 3) & (h >= shortest) & (h <= tallest * cell) & (w <= widest * cell)
    glyph[0] = False
    if glyph.sum() < min_glyphs:
        return None
    if glyph.sum() <= FEW_GLYPHS:  # (a few large letters: each one's pixels in its own box)
        keep = np.zeros(labels.shape, bool)
        for i in np.flatnonzero(glyph):
            x, y, ww, hh = stats[i, :4]
            keep[y:y + hh, x:x + ww] |= labels[y:y + hh, x:x + ww] == i
    else:
        keep = np.take(glyph, labels)  # (``glyph[labels]``: the same look-up, ~1 ms less on a frame)
    if quarter:
        keep = np.ascontiguousarray(np.rot90(keep, k=1))
    tall = float(np.median(h[glyph]))
    k = max(3, int(round(1.2 * tall)))
    joined = cv2.dilate(keep.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_RECT, (k, 1)))
    runs, boxes = labelled(joined)
    return Runs(keep, runs, boxes, tall)


def text_lines(mask: np.ndarray, *, cell: int, n: int, margin: float = MARGIN,
               components: tuple[np.ndarray, np.ndarray] | None = None, quarter: bool = False) -> list[np.ndarray]:
    """Row profiles of the whole text lines in a frame's ink ``mask`` (S, S) bool (``ink``; text lines running
    along the rows: turn the mask first for the other direction, or ask for the ``quarter`` turn), right up to
    the grid (``joined_runs``, with the mask's ``components`` when already found): a joined run at least 4 times
    as long as tall and 3 glyphs long is a line. Each profile is straightened (``aligned_profile``) and has two
    paper rows either side."""
    found = joined_runs(mask, cell=cell, n=n, margin=margin, min_glyphs=5, components=components, quarter=quarter)
    if found is None:
        return []
    out = []
    # (the runs' boxes as plain numbers: hundreds of runs, most of them no line, passed over one by one)
    for i, (x, y, ww, hh, _) in enumerate(found.boxes.tolist()[1:], start=1):
        if ww < 4 * hh or hh < 3 or ww < 3 * found.tall:
            continue
        box = np.zeros((hh + 6, ww), bool)
        box[3:-3] = found.keep[y:y + hh, x:x + ww] & (found.labels[y:y + hh, x:x + ww] == i)
        out.append(aligned_profile(box, strips=max(2, min(16, int(ww / (3 * hh))))))
    return out


def profile_balance(prof: np.ndarray) -> tuple[float, int]:
    """(votes up - votes down, lines) over the text lines of a tile read as rows of text, from its straightened
    row profile ``prof`` (h,) (``aligned_profile``): every line (a run of inked rows, not cut by the tile's
    edge) votes by the sign of ``line_vote``. (One tile's: ``tile_votes`` takes every tile's at once, and the
    tests hold it to this.)"""
    if prof.max() <= 0:
        return 0.0, 0
    on = prof > 0.03 * prof.max()
    votes = 0.0
    count = 0
    for a, b in _runs(on):
        if b - a < 4 or a == 0 or b == len(prof):
            continue  # too thin, or cut by the tile's edge
        votes += float(np.sign(line_vote(prof[max(0, a - 2):b + 2])))
        count += 1
    return votes, count


def _cv(profile: np.ndarray) -> float:
    """``profile.std() / profile.mean()`` of a tile's profile (t,) int64, 0 without ink: the reductions numpy's
    ``mean`` and ``std`` make (summed as float64, the mean's deviations squared in place, both divided by the
    count), called as ufuncs -- the same values, without the wrappers' cost. (One profile's: ``tile_votes`` takes
    every tile's at once (``_cvs``), and the tests hold it to this.)"""
    count = len(profile)
    total = np.add.reduce(profile, dtype=np.float64)
    m = float(total / count)
    if not m > 0:
        return 0.0
    dev = profile - np.true_divide(np.add.reduce(profile, dtype=np.float64, keepdims=True), count)
    np.multiply(dev, dev, out=dev)
    return float(np.sqrt(np.add.reduce(dev, dtype=np.float64) / count)) / m


def tile_votes(sums: StripSums, size: int, t: int, grid: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(lines (2,) int, votes (2,) float) of the tiles of a frame (``size`` pixels a side; its ink's strip
    sums ``sums``, strips a quarter tile wide): the text lines measured in the tiles whose text runs along the
    rows / along the columns, and their votes (tops up / tops to the right). Tiles are ``t`` pixels a side,
    every half tile, those overlapping the ``grid`` span (first, stop) both ways left out; a tile is read when
    it has some ink but is no picture, and clear lines one way: its straightened profile
    (``straightened``, turned a quarter counter-clockwise for text along the columns, tops right becoming
    tops up) then gives its lines' balance (``profile_balance``).

    All the tiles at once, each tile's numbers as it alone gives them: the sums of ink are whole numbers (in
    any order the same), the profiles' spreads (``_cv``) are each summed over their own row, and the lines'
    votes are ``line_votes`` of lines as long. (Tile by tile the calls cost ~15 ms a frame.)"""
    width = sums.width
    row_inks, col_inks = sums.profiles(STRIPS)  # every tile's row and column profiles (``tile``'s sums)
    starts = np.arange(0, size - t + 1, t // 2)
    ys, xs = (v.ravel() for v in np.meshgrid(starts, starts, indexing="ij"))  # (tiles in reading order)
    off = ~((ys + t > grid[0]) & (ys < grid[1]) & (xs + t > grid[0]) & (xs < grid[1]))
    ys, xs = ys[off], xs[off]
    span = np.arange(t)
    row_ink = row_inks[(xs // width)[:, None], ys[:, None] + span]  # (tiles, t): ``tile.sum(axis=1)``
    share = row_ink.sum(axis=1) / (t * t)  # (the tile's mean: its ink over its pixels)
    inked = (share >= 0.02) & (share <= 0.35)  # (else paper, or a picture / halftone)
    ys, xs, row_ink = ys[inked], xs[inked], row_ink[inked]
    rows, cols = _cvs(row_ink), _cvs(col_inks[(ys // width)[:, None], xs[:, None] + span])
    high, low = np.maximum(rows, cols), np.minimum(rows, cols)
    clear = ~((high < 0.5) | (high < 1.3 * low))  # (else no clear lines either way)
    ys, xs, axes = ys[clear], xs[clear], np.where(rows[clear] > cols[clear], 0, 1)
    # each tile's strips (STRIPS, t): along the rows its strips' row sums; along the columns, turned a quarter
    # counter-clockwise, its bands' column sums, the last column its first row
    band = np.arange(STRIPS)[None, :, None]
    parts = np.where((axes == 0)[:, None, None],
                     sums.across[ys[:, None, None] + span, (xs // width)[:, None, None] + band],
                     sums.down[(ys // width)[:, None, None] + band, xs[:, None, None] + span[::-1]])
    balance, lines = profile_balances(straightened_all(parts.astype(np.float32)))
    along = np.array([int(lines[axes == a].sum()) for a in (0, 1)])
    votes = np.array([float(balance[axes == a].sum()) for a in (0, 1)])
    return along, votes


def _cvs(profiles: np.ndarray) -> np.ndarray:
    """(k,) ``_cv`` of each row of ``profiles`` (k, t) int64, the same values (each row summed alone)."""
    count = profiles.shape[1]
    total = np.add.reduce(profiles, axis=1, dtype=np.float64)
    mean = total / count
    dev = profiles - mean[:, None]
    np.multiply(dev, dev, out=dev)
    with np.errstate(divide="ignore", invalid="ignore"):
        cv = np.sqrt(np.add.reduce(dev, axis=1, dtype=np.float64) / count) / mean
    return np.where(mean > 0, cv, 0.0)


def straightened_all(parts: np.ndarray) -> np.ndarray:
    """(k, h) float32 ``straightened`` of each of k tiles' strips' row sums ``parts`` (k, strips, h) float32, the
    same profiles: whole numbers, their squares summed exactly in float32 (below 2 ** 24 for tiles up to 200
    pixels), so each tile picks the same slope."""
    k, strips, h = parts.shape
    which, rows = _strip_rows(h, strips)
    totals = parts[:, which, rows].sum(axis=2)  # (k, slopes, h)
    best = np.argmax((totals * totals).sum(axis=2), axis=1)
    return totals[np.arange(k), best]


def profile_balances(profiles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(balance (k,) float, lines (k,) int): ``profile_balance`` of each row of ``profiles`` (k, h) float32 (the
    tiles' straightened profiles), the same numbers (each line's vote by ``line_votes`` with the lines as
    long as it)."""
    k, h = profiles.shape
    on = np.zeros((k, h + 2), np.int8)
    on[:, 1:-1] = profiles > 0.03 * profiles.max(axis=1)[:, None]
    edges = np.diff(on, axis=1)
    tile, start = np.nonzero(edges == 1)  # (runs in order, tile by tile)
    stop = np.nonzero(edges == -1)[1]
    whole = (stop - start >= 4) & (start > 0) & (stop < h)  # (else too thin, or cut by the tile's edge)
    tile, start, stop = tile[whole], start[whole], stop[whole]
    first, last = np.maximum(start - 2, 0), np.minimum(stop + 2, h)
    signs = np.zeros(len(tile))
    for length in np.unique(last - first).tolist():
        same = np.flatnonzero(last - first == length)
        lines = profiles[tile[same, None], first[same, None] + np.arange(length)]
        signs[same] = np.sign(line_votes(lines))
    return np.bincount(tile, signs, minlength=k), np.bincount(tile, minlength=k)


def page_turn(image: np.ndarray, quad: np.ndarray, n: int, *, cell: int = FRAME_CELL) -> Orientation:
    """The page's ``Orientation`` from the text around the grid with corners ``quad`` (4, 2) (x, y; top-left,
    top-right, bottom-right, bottom-left as seen in the image) of ``n`` cells a side in ``image`` (H, W[, 3]).
    The frame is read at ``cell`` pixels per grid cell at most, fewer when the image has fewer."""
    quad = np.asarray(quad, np.float64).reshape(4, 2)
    cell, _ = frame_cell(quad, n, cell=cell)
    mask = ink(frame(image, quad, n, cell=cell), cell=cell)
    size = mask.shape[0]
    m = int(round(MARGIN * cell))
    grid = (m - cell // 2, m + n * cell + cell // 2)
    t = TILE * cell
    # tiles start on whole cells and their strips are a cell wide (TILE cells, STRIPS strips): every tile's sums
    # are taken from the frame's strip sums
    sums = StripSums.of(mask, t // STRIPS)
    along, votes = tile_votes(sums, size, t, grid)
    axis = int(np.argmax(along))
    lines = int(along[axis])
    agree = float(along[axis] / max(along.sum(), 1e-9))
    z = float(votes[axis] / np.sqrt(lines)) if lines else 0.0
    sure = lines >= MIN_LINES and agree >= TILES_AGREE and abs(z) >= MIN_Z
    if sure:
        return Orientation(turn_of(axis, z), round(agree, 3), round(z, 2), lines, axis=axis)
    # the tiles alone cannot tell: read whole text lines too, along both directions (the other one serves
    # ``turn_text.against_shape``: short stacks of letters can outnumber the real lines in the tiles)
    line_zs, joints, splits = [], [], []
    parts = frame_components(mask, cell=cell, n=n)  # (once for both directions: the same components, turned)
    for a in (0, 1):
        scores = [line_score(p) for p in text_lines(mask, cell=cell, n=n, components=parts, quarter=a == 1)]
        tiles_z = float(votes[a] / np.sqrt(along[a])) if along[a] else 0.0
        line_zs.append(float(np.sum(scores) / np.sqrt(len(scores))) if scores else 0.0)
        joints.append(round(float((tiles_z + line_zs[a]) / np.sqrt(2.0)), 2))
        splits.append(bool(np.sign(tiles_z) != np.sign(line_zs[a]) and abs(tiles_z) >= CONTRADICT_Z))
    if agree < MIN_AGREE:  # the text runs both ways: no direction to decide along (the page's words may
        # still, weighed against the evidence along each)
        return Orientation(None, round(agree, 3), joints[axis], lines, round(line_zs[axis], 2), axis=axis,
                           contradicted=splits[axis], evidence=tuple(joints))
    line_z, joint, contradicts = line_zs[axis], joints[axis], splits[axis]
    # the direction the text runs rests on the tiles' lines, as when they decide alone: whole lines are read
    # along it and cannot confirm it (a photo's edge cutting sideways text to short stacks of letters made 10
    # tile lines and the whole lines across those stacks run along the rows: decided upright, turned 90)
    sure = lines >= MIN_LINES and abs(joint) >= MIN_JOINT_Z and not contradicts
    return Orientation(turn_of(axis, joint) if sure else None, round(agree, 3), round(joint, 2), lines,
                       round(line_z, 2), axis=axis, contradicted=contradicts, evidence=tuple(joints))


def likely_turn(found: Orientation) -> int:
    """The likeliest quarter turn (0..3, clockwise in the image) of a page whose ``Orientation`` is ``found``:
    its ``turn`` when sure; else the turn the text lines read in (``read``) when known; else the turn the
    tiles' lines point to when they clearly outweigh the prior that a photo is taken upright (``GUESS_*``),
    not where the tiles and the whole lines contradict each other; else 0 (as seen). A guess, not a finding:
    the caller reports the turn as unknown."""
    if found.turn is not None:
        return found.turn
    if found.read is not None:
        return found.read
    if found.lines < GUESS_LINES or found.contradicted or found.agree < MIN_AGREE:
        return 0
    if found.axis == 0:
        return 2 if found.z <= -GUESS_Z else 0
    side = found.agree >= GUESS_SIDE_AGREE and abs(found.z) >= GUESS_SIDE_Z
    return turn_of(1, found.z) if side else 0


def turn_of(axis: int, z: float) -> int:
    """Quarter turns the page is turned clockwise, for text running along ``axis`` (0: rows) whose tops
    point up-or-left (``z`` > 0) or down-or-right."""
    return (0 if z > 0 else 2) if axis == 0 else (1 if z > 0 else 3)

