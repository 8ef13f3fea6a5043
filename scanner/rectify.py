"""Stage 3, rectify: from a found quad to a straight, evenly ruled picture of the grid.

The 4-point warp straightens a flat grid; curled paper still bends the ruled
lines, so each line is then followed across the grid (its position is measured
in every row / column of cells and smoothed by a quadratic), giving a *mesh*
of line crossings. The mesh maps the uniform grid (cell ``(row, col)`` is the
square ``[row*C, (row+1)*C) x [col*C, (col+1)*C)``) back to the photo, for
reading (``dewarp``) and for drawing (``cell_quads``).

Points are ``(x, y)``; the mesh is indexed ``[line_row, line_col]``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .grid_find import ink_mask, page, square_corners

FIT_CELL = 32  #: pixels per cell of the square the lines are followed in
FIT_MARGIN = 0.04  #: share of the side left around the quad there
#: Side of the neighbourhood a pixel must be darker than to count as ink on the inner lines, in cells: under a
#: cell, so a shaded cell is paper inside (only its rim, which lies on the ruled line, shows).
INK_BLOCK = 0.5
#: Share of a strip's pixels that must be ink where a line is followed for that station to be trusted.
CLEAR = 0.45
#: ... and for an inner line to count in the spacing the outer lines are checked against (``_regular_ends``):
#: a one-pixel ruled line, solid, shows about 0.33 after the 3-pixel blur of the profiles.
SPACING_CLEAR = 0.3
#: Share of a cell an outer line may lie off the inner lines' spacing (``_regular_ends``) ...
END_SLACK = 0.15
#: ... and at most this share of the grid's side.
END_SLACK_SIDE = 0.025
#: Widest ink across a line, in cells, that the inner lines are followed on (bold discs, circles' sides running
#: across the line and shaded cells are wider).
LINE_WIDTH = 0.3
#: Gray levels that thin ink must be darker than the paper either side of it (across the line).
LINE_HAT = 4
#: Share of a cell a station may lie off the fit through the others before it is left out of a line's fit
#: (``_outliers``): a line pulled onto a disc's rim, a bold mark or a title bar at one station, the rest clean.
OUTLIER = 0.1
#: ... and how many times closer to their own fit the other stations must lie.
OUTLIER_APART = 6.0
#: How many stations, farthest off the fit through the others first, are tried as the one pulled away: a station
#: pulled next to an end lies less far off than the end itself, whose fit through the others is an extrapolation.
OUTLIER_TRIED = 3
#: Share of the strongest ink in an outer line's window that a separate run of ink must reach to count as a
#: second thing there (``_runs``): a caption's text line or a frame just beside the border.
RUN_SHARE = 0.5
#: An inner line too faint to count in the spacing (``SPACING_CLEAR``) at 4 stations counts all the same when it
#: is found over ``FAINT_FLOOR`` at all stations but one (3 at least) within ``COHERENT`` of a cell of a straight
#: line through them: a faint gray ruled line of a small grid. Where there is no line, the strongest pixel of the
#: window lies anywhere in it, from station to station.
FAINT_FLOOR = 0.15
COHERENT = 0.02


@dataclass
class Mesh:
    """A found grid: ``n`` cells a side; ``points`` (n + 1, n + 1, 2) float64 (x, y) line crossings in the
    pixels of the image it was fitted on; ``quad`` (4, 2) its outer corners, top-left first, clockwise."""

    n: int
    points: np.ndarray

    @property
    def quad(self) -> np.ndarray:
        p = self.points
        return np.array([p[0, 0], p[0, -1], p[-1, -1], p[-1, 0]], dtype=np.float32)

    def scaled(self, factor: float) -> "Mesh":
        """The same mesh in the pixels of the image scaled by ``factor``."""
        return Mesh(self.n, self.points * factor)

    def rotated(self, quarter_turns: int) -> "Mesh":
        """The mesh re-indexed so that the grid is read turned by ``quarter_turns`` x 90 degrees clockwise."""
        return Mesh(self.n, np.rot90(self.points, k=-quarter_turns, axes=(0, 1)).copy())


def _follow(profile_strips: np.ndarray, expected: np.ndarray, *, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Positions (L, K) of L lines in K strips: in each strip's profile (K, S), the strongest ink near each
    expected position (L,); also the strength there (L, K).

    (every line's windows at once: (K, L, W), each window's centre and peak taken along its own W pixels as line
    by line, the same values)"""
    side = profile_strips.shape[1]
    offsets = np.arange(-int(tol), int(tol) + 1)
    idx = np.clip(np.round(expected).astype(int)[:, None] + offsets[None, :], 0, side - 1)  # (L, W)
    window = profile_strips[:, idx]  # (K, L, W)
    return (np.ascontiguousarray(_centre(window, idx).T, dtype=np.float64),
            np.ascontiguousarray(window.max(axis=-1).T, dtype=np.float64))


def _centre(window: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The weighted centre (in ``idx`` (W,) positions, or (..., W): each window's own) of the strongest ink of each
    profile ``window`` (..., W): the pixels at 0.8 of its peak and over, so a thick line is located at its middle."""
    weights = np.where(window >= 0.8 * window.max(axis=-1, keepdims=True), window, 0.0)
    return (weights * idx).sum(axis=-1) / np.maximum(weights.sum(axis=-1), 1e-9)


def _follow_lines(strips: list[np.ndarray], expected: np.ndarray, stations: np.ndarray, *, tol: float,
                  level: float) -> np.ndarray:
    """Line positions (L, K), smoothed along each line (``_smooth_lines``): the inner lines followed in
    ``strips[0]`` (profiles of the fine ink mask), the two outer ones in ``strips[1]`` (the broad one) and
    checked against the spacing of the inner lines (``_regular_ends``) -- as smoothed along their length
    where a line was seen at 4 stations or more: a station where an inner line was pulled onto a mark would
    bend the spacing there, and the border put back by it would be bowed."""
    pos, strength = _follow(strips[1], expected, tol=tol)
    inner = slice(1, len(expected) - 1)
    fine_pos, fine_strength = _follow(strips[0], expected, tol=tol)
    # the spacing the outer lines are checked against is that of the inner lines as followed (fine mask):
    # thin lines hardly show in the broad one, and a fit through the few that do, extrapolated, can throw
    # an outer line far off (a title bar just above the grid took the top line half a grid away)
    pos[inner], strength[inner] = fine_pos[inner], fine_strength[inner]
    smooth = pos.copy()
    smooth[inner] = _smooth_lines(pos[inner], strength[inner], expected[inner], stations, level=level)
    # the spacing is taken from the lines as smoothed; one seen at 4 stations only at the spacing's level,
    # smoothed at that level, and one seen at fewer as followed
    seen, faint = (strength >= level).sum(axis=1), (strength >= SPACING_CLEAR).sum(axis=1)
    reference = smooth.copy()
    for i in np.flatnonzero((seen[inner] < 4) & (faint[inner] >= 4)) + 1:
        reference[i] = _smooth_lines(pos[i:i + 1], strength[i:i + 1], expected[i:i + 1], stations,
                                     level=SPACING_CLEAR)[0]
    reference = np.where((faint >= 4)[:, None], reference, pos)
    # a faint line found in place all along (``_coherent``) says the spacing at every station, as its straight
    # line: a 4 x 4 grid of gray lines had one inner line over the spacing's level at most stations, so the
    # spacing went through the other outer line, on a caption, and kept the border on a colour bar
    cell = expected[1] - expected[0]
    for i in np.flatnonzero(faint[inner] < 4) + 1:
        line = _coherent(pos[i], strength[i], stations, tol=COHERENT * cell)
        if line is not None:
            reference[i] = line
            strength[i] = np.maximum(strength[i], SPACING_CLEAR)
    slack = end_slack(len(expected) - 1)
    for end in (0, len(expected) - 1):
        # where the outer line's window holds two separate runs of ink (the border and a caption's text line
        # just under it), the weighted centre lies between them: the run the spacing points at is the line --
        # the spacing of two inner lines or more (through the other outer line it may point at a caption)
        for k in np.flatnonzero(_run_counts(strips[1], expected[end], tol=tol) >= 2):
            runs = _runs(strips[1][k], expected[end], tol=tol)
            if (strength[inner, k] >= SPACING_CLEAR).sum() < 2:
                continue
            spaced = _spacing_at(reference[:, k], strength[:, k], end, level=SPACING_CLEAR)
            if spaced is not None:
                centre, peak = min(runs, key=lambda run: abs(run[0] - spaced[0]))
                if peak >= SPACING_CLEAR:
                    pos[end, k], strength[end, k] = centre, peak
    followed = pos.copy()
    pos, strength = _regular_ends(pos, strength, level=SPACING_CLEAR, slack=slack,
                                  lo=expected[0] - tol, hi=expected[-1] + tol, reference=reference)
    ends = [0, len(expected) - 1]
    smooth[ends] = _smooth_lines(pos[ends], strength[ends], expected[ends], stations, level=level)
    for end in ends:
        # an outer line seen clearly at 2 or 3 stations only is a straight line through them, extrapolated
        # across the grid: a mark beside the border that pulled one of them tilts it (the others as far off
        # as the grid is wide); seen at 4 stations or more at the spacing's level (as put back by the
        # spacing), it is smoothed at that level, as the inner lines' reference is
        if 2 <= (strength[end] >= level).sum() < 4 and (strength[end] >= SPACING_CLEAR).sum() >= 4:
            smooth[end] = _smooth_lines(pos[end:end + 1], strength[end:end + 1], expected[end:end + 1], stations,
                                        level=SPACING_CLEAR)[0]
        # an outer line seen at too few stations (faint, or beside a title bar) is where the quad put it unless
        # the spacing puts it more than ``slack`` away at most stations; one followed off the spacing at most
        # stations (pulled onto print beside the border) is where the spacing puts it
        unseen = (strength[end] >= level).sum() < 2
        put_back = np.mean(pos[end] != followed[end]) > 0.5
        if unseen or put_back:
            spaced = _spaced_end(reference, strength, end, stations, lo=expected[0] - tol, hi=expected[-1] + tol)
            if spaced is None:
                continue
            line, want, step = spaced
            if put_back or np.mean(np.abs(want - expected[end]) > slack * step) > 0.5:
                smooth[end] = line
    # last, each outer line as smoothed against the inner lines' spacing (theirs alone, as in ``reference``: one
    # seen at 4 stations or more at the spacing's level counts at every station, as fitted): a fit through a few
    # stations, extrapolated across the grid, may throw an end of the line far off the spacing (a shadow pulling
    # three stations a little the same way made a straight line through them run a third of a cell off at the
    # ends), and stations put back by a spacing through two lines only (one of them faint, or the other outer
    # line pulled off) may bend a border followed cleanly all along. Where the line lies more than the slack off
    # the spacing, it is fitted again through the stations followed within the slack of it (2 at least), or else
    # it is where the spacing puts it
    counted = (faint >= 4)[:, None] | (strength >= SPACING_CLEAR)
    counted[[0, -1]] = False
    for end in ends:
        spaced = [(k, _spacing_at(reference[:, k], counted[:, k].astype(float), end, level=0.5))
                  for k in range(len(stations))]
        spaced = [(k, got[0], got[1]) for k, got in spaced if got is not None]
        if len(spaced) < 2:
            continue
        at, want, step = (np.array(v) for v in zip(*spaced))
        if not np.any(np.abs(smooth[end, at] - want) > slack * step):
            continue
        on = at[np.abs(followed[end, at] - want) <= slack * step]
        if len(on) >= 2:
            kept = followed[end, on]
            smooth[end] = np.polyval(_polyfit(stations[on], kept), stations)
        else:
            smooth[end] = np.clip(np.polyval(_polyfit(stations[at], want), stations),
                                  expected[0] - tol, expected[-1] + tol)
    return smooth


def _coherent(pos: np.ndarray, strength: np.ndarray, stations: np.ndarray, *, tol: float) -> np.ndarray | None:
    """A faint line's positions (K,) at the K ``stations`` as a straight line through those over ``FAINT_FLOOR``
    (``strength`` (K,)) when they are all stations but one (3 at least) and lie within ``tol`` of it; else None."""
    some = strength >= FAINT_FLOOR
    if some.sum() < max(3, len(stations) - 1):
        return None
    line = np.polyval(_polyfit(stations[some], pos[some], 1), stations)
    return line if np.abs(line[some] - pos[some]).max() <= tol else None


def _degree(x: np.ndarray, y: np.ndarray) -> int:
    """1 or 2: the degree of the polynomial whose fits through all the points (M,) but one predict the one left
    out best (the smaller sum of squared deleted residuals, ``_fit_residuals``); 1 for fewer than 4 points. A
    quadratic through a few points follows one that is off, and thrown beyond them it magnifies that."""
    if len(x) < 4:
        return 1
    press = []
    for degree in (1, 2):
        hat, lever = _hat(tuple(x), degree)
        press.append(float((((y - hat @ y) / lever) ** 2).sum()))
    return 2 if press[1] < press[0] else 1


def _polyfit(x: np.ndarray, y: np.ndarray, degree: int | None = None) -> np.ndarray:
    """``np.polyfit(x, y, degree)`` (default: ``_degree(x, y)``) of the points (M,), read-only. Remembered: a
    station's inner lines are fitted alike for either outer line, and for the spacing each time it is asked, and
    a line is often smoothed through the same stations twice (60 % of a mesh's fits were repeats). Forgotten at
    each ``fit_mesh``: what one grid's fits share."""
    return _polyfit_of(np.asarray(x, np.float64).tobytes(), np.asarray(y, np.float64).tobytes(), degree)


@lru_cache(maxsize=1024)
def _polyfit_of(x: bytes, y: bytes, degree: int | None) -> np.ndarray:
    xs, ys = np.frombuffer(x), np.frombuffer(y)  # (np.polyfit takes them as float64 copies, as it took the arrays)
    coef = np.polyfit(xs, ys, _degree(xs, ys) if degree is None else degree)
    coef.flags.writeable = False
    return coef


@lru_cache(maxsize=512)
def _hat(x: tuple, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """The hat matrix (M, M) of a least-squares polynomial of ``degree`` through points at ``x`` (M values) and
    1 - its diagonal (M,) (the same few station and line sets recur all through a grid)."""
    xa = np.asarray(x, dtype=np.float64)
    xs = (xa - xa.mean()) / max(np.ptp(xa), 1e-9)
    v = np.vander(xs, degree + 1)
    hat = v @ np.linalg.solve(v.T @ v, v.T)
    return hat, np.clip(1.0 - np.diag(hat), 1e-6, None)


def _runs(profile: np.ndarray, expected: float, *, tol: float) -> list[tuple[float, float]]:
    """The separate runs of ink in ``profile`` (S,) within ``tol`` of ``expected``, each over ``RUN_SHARE`` of
    the strongest there: ``(centre, peak)`` each, the centre weighted as ``_follow`` does (``_centre``)."""
    offsets = np.arange(-int(tol), int(tol) + 1)
    idx = np.clip(np.round(expected).astype(int) + offsets, 0, len(profile) - 1)
    window = profile[idx]
    best = window.max()
    if best <= 0:
        return []
    bounds = np.flatnonzero(np.diff(np.r_[0, (window >= RUN_SHARE * best).astype(int), 0]))
    runs = []
    for a, b in zip(bounds[::2], bounds[1::2]):
        runs.append((float(_centre(window[a:b], idx[a:b])), float(window[a:b].max())))
    return runs


def _run_counts(profiles: np.ndarray, expected: float, *, tol: float) -> np.ndarray:
    """(K,) how many runs ``_runs`` finds in each of the K ``profiles`` (K, S) (the same windows and level, every
    profile at once: most windows hold the one line only)."""
    offsets = np.arange(-int(tol), int(tol) + 1)
    idx = np.clip(np.round(expected).astype(int) + offsets, 0, profiles.shape[1] - 1)
    window = profiles[:, idx]
    best = window.max(axis=1)
    above = (window >= RUN_SHARE * best[:, None]).astype(np.int8)
    starts = above[:, 0] + (np.diff(above, axis=1) == 1).sum(axis=1)
    return np.where(best > 0, starts, 0)


def _spaced_end(reference: np.ndarray, strength: np.ndarray, end: int, stations: np.ndarray, *, lo: float,
                hi: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The outer line ``end`` (0 or L - 1) where the inner lines' spacing puts it (``_spacing_at`` on
    ``reference`` (L, K) and ``strength`` (L, K) at each of the K ``stations``): a quadratic along the line
    through those places (K,) within ``lo`` .. ``hi``, with the places and the spacing at the stations that
    had them ((M,) each); None when fewer than half the stations (or 4) had them."""
    spaced = [(s, _spacing_at(reference[:, k], strength[:, k], end, level=SPACING_CLEAR))
              for k, s in enumerate(stations)]
    spaced = [(s, got[0], got[1]) for s, got in spaced if got is not None]
    if len(spaced) < max(4, len(stations) // 2):
        return None
    at, want, step = (np.array(v) for v in zip(*spaced))
    return np.clip(np.polyval(_polyfit(at, want, 2), stations), lo, hi), want, step


def end_slack(n: int) -> float:
    """The share of a cell an outer line of an n x n grid may lie off the inner lines' spacing: ``END_SLACK``,
    but at most ``END_SLACK_SIDE`` of the grid's side (a 4 x 4 grid's cells are large: a text line under it
    pulls its border a tenth of a cell, yet that is over 3 % of the side)."""
    return min(END_SLACK, END_SLACK_SIDE * n)


def _fit_residuals(x: np.ndarray, y: np.ndarray, *, degree: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Residuals (M,) of the points off a least-squares polynomial through them (``degree``; by default a
    quadratic for 5 or more points, else a straight line), and their deleted residuals: how far each lies
    off the same fit through the others."""
    if degree is None:
        degree = 2 if len(x) >= 5 else 1
    hat, lever = _hat(tuple(x), degree)
    resid = y - hat @ y
    return resid, np.abs(resid) / lever


def _outliers(x: np.ndarray, y: np.ndarray, *, tol: float) -> np.ndarray:
    """Which of the points (M,) to leave out of a smooth fit (at most one): the one whose leaving out makes
    the others agree best, when it lies more than ``tol`` off their fit and they agree among themselves
    ``OUTLIER_APART`` times better than that (a point pulled away stands alone; a line that only wiggles, or
    bends more than a quadratic allows, has several points about as far off). A quadratic through all the
    points bends towards the one pulled away, most at an end. The one sought is, for 4 or 5 points, every
    one in turn (a quadratic through them follows any one, and an end point's deleted residual is a mere
    extrapolation); for more, each of the ``OUTLIER_TRIED`` lying farthest off the fit through the others
    (``_fit_residuals``): one pulled away next to an end makes the end's extrapolation lie farther off still."""
    out = np.zeros(len(x), bool)
    if len(x) < 4:
        return out
    degree = 2 if len(x) - 1 >= 5 else 1  # of a fit through all points but one
    _, deleted = _fit_residuals(x, y, degree=degree)
    if deleted.max() <= tol:  # no point lies that far off the fit through the others
        return out
    candidates = range(len(x)) if len(x) <= 5 else np.argsort(-deleted)[:OUTLIER_TRIED]
    best, spread = -1, np.inf
    for i in candidates:
        rest = np.arange(len(x)) != i
        resid, _ = _fit_residuals(x[rest], y[rest], degree=degree)
        if np.abs(resid).max() < spread:
            best, spread = i, float(np.abs(resid).max())
    if deleted[best] > tol and spread * OUTLIER_APART < deleted[best]:
        out[best] = True
    return out


def _regular_ends(pos: np.ndarray, strength: np.ndarray, *, level: float = 0.45, slack: float = END_SLACK,
                  lo: float = -np.inf, hi: float = np.inf,
                  reference: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The outer lines' positions (L, K) checked against the spacing of the clear inner lines: at a
    station where the first (last) line lies off the regular spacing (a quadratic in the line index,
    fitted to the clear lines, as perspective allows) by more than ``slack`` of a cell -- pulled onto a
    title bar, a shadow or a fold beside the border -- it is put where the spacing says (kept within
    ``lo``..``hi``, the window the lines were sought in: an extrapolation is no better than that).
    ``reference`` (L, K): the inner lines' positions the spacing is taken from (default ``pos``; e.g. the
    lines smoothed along their length, so one pulled off at a single station does not bend the spacing; its
    outer lines are not used)."""
    pos, strength = pos.copy(), strength.copy()
    ref = pos if reference is None else reference.copy()
    ref[[0, -1]] = pos[[0, -1]]  # the outer lines are the ones checked: as followed, and as put back
    count = len(pos)
    for k in range(pos.shape[1]):
        for end in (0, count - 1):
            spaced = _spacing_at(ref[:, k], strength[:, k], end, level=level)
            if spaced is None:
                continue
            want, step = spaced
            if abs(pos[end, k] - want) > slack * step:
                pos[end, k] = ref[end, k] = min(max(want, lo), hi)
    return pos, strength


def _spacing_at(ref: np.ndarray, strength: np.ndarray, end: int, *, level: float) -> tuple[float, float] | None:
    """Where the outer line ``end`` (0 or L - 1) of the lines ``ref`` (L,) at one station lies by the spacing of
    the clear ones (``strength`` (L,) >= ``level``; a quadratic in the line index, as perspective allows; the
    other outer line only when too few inner ones are clear), and the spacing there: ``(want, step)``, or None
    when fewer than two lines are clear. The fit is a quadratic only where it predicts each line from the others
    better than a straight one (``_degree``): one line off by a little at the last inner line of a 6 x 6 grid put
    the border 1.8 times as far off through a quadratic (0.8 times through a straight line)."""
    count = len(ref)
    clear = strength >= level
    clear[end] = False
    other = count - 1 - end
    if (clear.sum() - clear[other]) >= 2:
        clear[other] = False  # the other end may be off as well: the inner lines say the spacing
    if clear.sum() < 2:
        return None
    index = np.arange(count, dtype=np.float64)
    coef = _polyfit(index[clear], ref[clear]).tolist()
    slope = [c * float(len(coef) - 1 - i) for i, c in enumerate(coef[:-1])]  # (np.polyder's coefficients)
    return poly_value(coef, float(end)), abs(poly_value(slope, float(end)))


def poly_value(coef: list, x: float) -> float:
    """``np.polyval(coef, x)`` for one point in plain floats: the same products and sums, one at a time."""
    y = 0.0
    for c in coef:
        y = y * x + c
    return y


def _smooth_lines(pos: np.ndarray, strength: np.ndarray, expected: np.ndarray, stations: np.ndarray,
                  *, level: float) -> np.ndarray:
    """Each line (L, K) as a quadratic through its confident stations (linear/expected when too few)."""
    out = np.empty_like(pos)
    step = float(np.median(np.diff(stations))) if len(stations) > 1 else 1.0
    for i in range(len(pos)):
        good = strength[i] >= level
        if good.sum() >= 4:
            # a station pulled far off (onto a mark beside the line) bends a quadratic through them all towards
            # it, and their residuals' median is no guide with few stations: it is found by the fit through the others
            idx = np.flatnonzero(good)
            good[idx[_outliers(stations[idx], pos[i, idx], tol=OUTLIER * step)]] = False
        if good.sum() >= 4:
            coef = _polyfit(stations[good], pos[i, good], 2)
            fitted = np.polyval(coef, stations)
            resid = np.abs(fitted - pos[i])
            keep = good & (resid < max(1.5, 2.5 * np.median(resid[good]) + 0.5))
            if keep.sum() >= 4:
                fitted = np.polyval(_polyfit(stations[keep], pos[i, keep], 2), stations)
            out[i] = fitted
        elif good.sum() >= 2:
            out[i] = np.polyval(_polyfit(stations[good], pos[i, good], 1), stations)
        else:
            out[i] = expected[i]
    return out


#: cells (of the quad's square) a fitted mesh's corner may lie off the quad's: on 767 dev and train grids the ruled
#: ones' came within 0.45; a 4 x 4 circle print whose left line was followed onto the text run beside it, 1.4
MESH_REACH = 0.75


def fit_mesh(image: np.ndarray, quad: np.ndarray, n: int, *, cell: int = FIT_CELL) -> Mesh:
    """The line crossings of the ``n`` x ``n`` grid in ``quad`` (4, 2) (x, y) of ``image`` (H, W[, 3]).

    Rectify with a margin, follow each ruled line (a profile per row/column of
    cells), fit each line, intersect, and map the crossings back to ``image``. When a corner so found lies
    more than ``MESH_REACH`` cells off the quad's, the quad's even lattice is taken instead.
    """
    _polyfit_of.cache_clear()
    gray = page(image)[0]  # (the detection copy's gray picture, as the grid finder took it)
    side_in = n * cell
    margin = round(FIT_MARGIN * side_in) + 2
    side = side_in + 2 * margin
    h = cv2.getPerspectiveTransform(quad.astype(np.float32), square_corners(side, margin=margin))
    square = cv2.warpPerspective(gray, h, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # inner lines are followed on ink against a small neighbourhood; the outer ones against a wide one (a
    # thick border, or one along a dark title bar, is ink there through and through)
    fine = ink_mask(square, block=int(INK_BLOCK * cell) | 1, offset=6)
    broad = (ink_mask(square, block=(2 * cell + 1), offset=6) > 0).astype(np.float32)  # (0 or 1)
    # ... and, for each direction, only where that ink is thin across the lines (black top-hat): a bold disc, a
    # circle's side or a shaded cell beside a line is ink too, and would pull the line onto its rim
    thin = max(3, int(LINE_WIDTH * cell)) | 1
    fine_rows, fine_cols = (((cv2.morphologyEx(square, cv2.MORPH_BLACKHAT, np.ones(k, np.uint8)) > LINE_HAT)
                             & (fine > 0)).astype(np.float32) for k in ((thin, 1), (1, thin)))
    step = (side - 1 - 2 * margin) / n
    expected = margin + step * np.arange(n + 1)
    # strips: one per cell along the line (centre of the strip = station)
    edges = np.round(margin + step * np.arange(n + 1)).astype(int)
    stations = (edges[:-1] + edges[1:]) / 2.0
    # a strip is profiled only near its ends (the line crossings): digits sit in the middle of a cell and
    # would pull the line towards them
    ends = [np.r_[a:a + (b - a) // 4, b - (b - a) // 4:b] for a, b in zip(edges[:-1], edges[1:])]
    row_strips = [cv2.blur(np.stack([m[:, e].mean(axis=1) for e in ends]), (3, 1)) for m in (fine_rows, broad)]
    col_strips = [cv2.blur(np.stack([m[e, :].mean(axis=0) for e in ends]), (3, 1)) for m in (fine_cols, broad)]
    tol = 0.3 * step
    hy = _follow_lines(row_strips, expected, stations, tol=tol, level=CLEAR)  # horizontal lines: y at column stations
    vx = _follow_lines(col_strips, expected, stations, tol=tol, level=CLEAR)  # vertical lines: x at row stations
    # crossings: horizontal line i at x = vertical line k's x near that row (two fixed-point rounds)
    # (every crossing at once; Horner's scheme, as np.polyval)
    hcoef = np.array([_polyfit(stations, hy[i], 2) for i in range(n + 1)])[:, None, :]  # (n + 1, 1, 3)
    vcoef = np.array([_polyfit(stations, vx[k], 2) for k in range(n + 1)])[None, :, :]  # (1, n + 1, 3)
    y = np.repeat(expected[:, None], n + 1, axis=1)
    for _ in range(3):
        x = (vcoef[..., 0] * y + vcoef[..., 1]) * y + vcoef[..., 2]
        y = (hcoef[..., 0] * x + hcoef[..., 1]) * x + hcoef[..., 2]
    pts = np.stack([x, y], axis=-1)
    even = np.stack(np.meshgrid(expected, expected), axis=-1)  # the quad's own lattice
    if np.abs(pts - even)[[0, 0, -1, -1], [0, -1, -1, 0]].max() > MESH_REACH * step:
        pts = even  # a corner followed off the grid its quad was confirmed by (text or a rule beside an outer line)
    back = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(h)).reshape(n + 1, n + 1, 2)
    # a line cannot be seen beyond the frame (there the warp only repeats the edge pixels): a grid running
    # up to the edge is taken to end at it
    back[..., 0] = np.clip(back[..., 0], 0.0, gray.shape[1] - 1.0)
    back[..., 1] = np.clip(back[..., 1], 0.0, gray.shape[0] - 1.0)
    return Mesh(n, back)


def uniform_maps(mesh: Mesh, *, cell: int) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap`` maps (N, N) float32 (N = n * cell): for each pixel of the uniform grid picture, where it
    lies in the image the mesh was fitted on (bilinear inside each cell's quad).

    Worked a row of cells and a coordinate at a time, straight into the map's rows (no (x, y) pairs to split,
    no transposed copy; a row's float64 terms stay in the cache): each value is the very float64 expression
    ``(a (1 - tx) + b tx) (1 - ty) + (d (1 - tx) + c tx) ty`` rounded once to float32, as when worked whole --
    the same maps, about twice as fast."""
    n = mesh.n
    t = (np.arange(cell) + 0.5) / cell  # position inside a cell, 0..1
    p = mesh.points
    # corners of every cell, (n, n, 2) each
    a, b, c, d = p[:-1, :-1], p[:-1, 1:], p[1:, 1:], p[1:, :-1]
    tx = t[None, None, :]  # (1, 1, cell): across a cell
    ty = t[:, None, None]  # (cell, 1, 1): down a cell
    upper, lower = np.empty((cell, n, cell)), np.empty((cell, n, cell))  # a row of cells: (y in it, col, x in it)
    maps = []
    for k in (0, 1):  # x, then y
        top = a[..., k, None] * (1 - tx) + b[..., k, None] * tx  # (n, n, cell): row, col, x in the cell
        bottom = d[..., k, None] * (1 - tx) + c[..., k, None] * tx
        out = np.empty((n * cell, n * cell), np.float32)
        for r in range(n):
            np.multiply(top[r], 1 - ty, out=upper)
            np.multiply(bottom[r], ty, out=lower)
            out[r * cell:(r + 1) * cell] = np.add(upper, lower, out=upper).reshape(cell, n * cell)
        maps.append(out)
    return maps[0], maps[1]


def dewarp(image: np.ndarray, mesh: Mesh, *, cell: int) -> np.ndarray:
    """The grid of ``image`` (H, W[, C]) resampled so every cell is a ``cell`` x ``cell`` square:
    (n * cell, n * cell[, C]), cell ``(row, col)`` at ``[row*cell:(row+1)*cell, col*cell:(col+1)*cell]``."""
    mx, my = uniform_maps(mesh, cell=cell)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def cell_quads(mesh: Mesh) -> np.ndarray:
    """(n, n, 4, 2) (x, y) corners of every cell, top-left first, clockwise."""
    p = mesh.points
    return np.stack([p[:-1, :-1], p[:-1, 1:], p[1:, 1:], p[1:, :-1]], axis=2)
