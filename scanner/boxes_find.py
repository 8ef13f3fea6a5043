"""Find grids printed as separate square boxes (Futoshiki's boxes layout), which show no ruled lines to follow.

    ink mask -> light box interiors (square components) -> neighbours on a lattice -> lattice indices by
    walking neighbour steps -> homography lattice -> image -> outer quad through the corner boxes

The lattice coordinates ``(u, v)`` (col, row) put box ``(row, col)``'s centre at ``(col, row)``: one unit
is the *pitch* (box plus gap). Points are ``(x, y)`` in the image searched; cells are ``(row, col)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .grid_find import Candidate, ink_mask, light_regions, linked_groups, page, page_mask

SIZES = tuple(range(4, 10))  #: boxes grids looked for (Futoshiki 4..9)
SIZE_SPREAD = 0.15  #: a box interior's side is within this log ratio of its nearest neighbours' median side
MIN_SEEN = 0.6  #: share of the n x n boxes that must be seen (shaded givens, signs touching boxes hide some)
MIN_GAP = 1.15  #: pitch / interior side above which the boxes stand apart (a ruled lattice is ~1.05)


@dataclass
class BoxGrid:
    """Boxes on a lattice: ``n`` a side; ``homography`` (3, 3) maps lattice ``(u, v)`` to image ``(x, y)``;
    ``interior`` the light inside of a box and ``box`` its outline (line centres), both in pitch units;
    ``centres`` (n, n, 2) measured box centres (x, y) (NaN where a box was not seen)."""

    n: int
    homography: np.ndarray
    interior: float
    box: float
    centres: np.ndarray

    def to_image(self, uv: np.ndarray) -> np.ndarray:
        """(..., 2) lattice points to image (x, y), homography plus the measured centres' local residual."""
        uv = np.asarray(uv, np.float64)
        flat = uv.reshape(-1, 2)
        xy = cv2.perspectiveTransform(flat.reshape(-1, 1, 2), self.homography).reshape(-1, 2)
        return (xy + self._residual(flat)).reshape(uv.shape)

    def _residual(self, uv: np.ndarray) -> np.ndarray:
        """Residual of the measured centres from the homography, interpolated (inverse-distance, nearest
        boxes) at lattice points ``uv`` (P, 2): follows curled paper between the boxes."""
        n = self.n
        grid_u, grid_v = np.meshgrid(np.arange(n), np.arange(n))
        pts = np.stack([grid_u.ravel(), grid_v.ravel()], 1).astype(np.float64)
        cen = self.centres.reshape(-1, 2)
        ok = ~np.isnan(cen).any(axis=1)
        if ok.sum() < 4:
            return np.zeros_like(uv)
        pts, cen = pts[ok], cen[ok]
        pred = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.homography).reshape(-1, 2)
        res = cen - pred
        d2 = ((uv[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2)
        w = np.exp(-d2 / 0.8)
        w /= np.maximum(w.sum(axis=1, keepdims=True), 1e-9)
        return w @ res

    def quad(self) -> np.ndarray:
        """(4, 2) float32 outer corners of the arrangement (the outer box lines), top-left first, clockwise."""
        h, m = self.box / 2.0, self.n - 1 + self.box / 2.0
        lo = -h
        return self.to_image(np.array([[lo, lo], [m, lo], [m, m], [lo, m]])).astype(np.float32)

    def candidate(self) -> Candidate:
        q = self.quad()
        return Candidate(quad=q, size=self.n, score=float(np.isfinite(self.centres[..., 0]).mean()),
                         area=float(cv2.contourArea(q)))


def _interiors(gray: np.ndarray, masks: dict | None = None):
    """Light, square, well-filled components of the non-ink: (x, y, w, h, cx, cy) rows (K, 6). Taken from the
    ink as it is and closed (a thin box outline broken by the downscaling lets its inside leak out; closing
    fattens a digit in a small box too much), one row per box. ``masks``: the page's kept masks
    (``grid_find.page``: the ink mask and its light regions are the ruled-grid finder's)."""
    masks = {} if masks is None else masks
    mask = page_mask(gray, False, masks)
    plain = _light_squares(mask.shape, *light_regions(gray, False, masks))
    closed = _light_squares(mask.shape, *_regions(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))))
    if len(plain) and len(closed):
        side = np.sqrt(plain[:, 2] * plain[:, 3])
        dist = np.hypot(closed[:, None, 4] - plain[None, :, 4], closed[:, None, 5] - plain[None, :, 5])
        closed = closed[(dist >= 0.3 * side[None, :]).all(axis=1)]
    return np.concatenate([plain, closed]) if len(closed) else plain


def _regions(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(stats, centroids) of the 4-connected regions without ink in ``mask`` (H, W) uint8."""
    _, _, stats, cents = cv2.connectedComponentsWithStats(255 - mask, connectivity=4)
    return stats, cents


def _light_squares(shape: tuple, stats: np.ndarray, cents: np.ndarray) -> np.ndarray:
    """The rows (x, y, w, h, cx, cy) of the regions (``stats`` (K, 5), ``cents`` (K, 2)) of a picture of
    ``shape`` (H, W) that may be a box's inside: square, well filled, not touching the picture's edge."""
    h_img, w_img = shape[:2]
    long_side = max(h_img, w_img)
    x, y, w, h, area = (stats[:, i].astype(np.float64) for i in range(5))
    fill = area / np.maximum(1.0, w * h)
    aspect = w / np.maximum(1.0, h)
    ok = ((w >= long_side / 120) & (h >= long_side / 120) & (w <= long_side / 4) & (h <= long_side / 4)
          & (aspect > 0.7) & (aspect < 1.43) & (fill > 0.5) & (x > 0) & (y > 0)
          & (x + w < w_img) & (y + h < h_img))
    idx = np.nonzero(ok)[0]
    return np.stack([x[idx], y[idx], w[idx], h[idx], cents[idx, 0], cents[idx, 1]], 1).reshape(-1, 6)


def _groups(boxes: np.ndarray) -> list[np.ndarray]:
    """Indices of boxes linked by neighbour steps (similar size, centres 1.15..2.2 sides apart). A box with
    a like neighbour closer than that is a cell of a ruled grid (whose cells would link diagonally): left out."""
    size = np.sqrt(boxes[:, 2] * boxes[:, 3])
    cx, cy = boxes[:, 4], boxes[:, 5]
    dist = np.hypot(cx[:, None] - cx[None, :], cy[:, None] - cy[None, :])
    ratio = size[:, None] / size[None, :]
    big = np.maximum(size[:, None], size[None, :])
    alike = (ratio > 0.75) & (ratio < 1.33)
    ruled = ((dist <= MIN_GAP * big) & alike & ~np.eye(len(boxes), dtype=bool)).any(axis=1)
    near = (dist > MIN_GAP * big) & (dist < 2.2 * big) & alike & ~ruled[:, None] & ~ruled[None, :]
    roots = linked_groups(near)
    # (counted at once: on a ruled grid's page most of several hundred boxes stand alone, each its own group)
    labels, counts = np.unique(roots, return_counts=True)
    return [np.nonzero(roots == r)[0] for r, k in zip(labels.tolist(), counts.tolist()) if k >= SIZES[0] ** 2 - 2]


def _alike(boxes: np.ndarray, *, k: int = 4) -> np.ndarray:
    """(K,) bool: the boxes (rows of ``_interiors``) whose side is close to the median side of their ``k``
    nearest neighbours (perspective makes far boxes smaller, but neighbours alike)."""
    side = np.sqrt(boxes[:, 2] * boxes[:, 3])
    cen = boxes[:, 4:6]
    dist = np.hypot(cen[:, None, 0] - cen[None, :, 0], cen[:, None, 1] - cen[None, :, 1])
    np.fill_diagonal(dist, np.inf)
    near = np.argsort(dist, axis=1)[:, :k]
    return np.abs(np.log(side / np.median(side[near], axis=1))) < SIZE_SPREAD


def _lattice_indices(cen: np.ndarray, size: np.ndarray) -> np.ndarray | None:
    """(K, 2) integer (col, row) of every box, from walking unit steps between neighbours; None when the
    steps do not make one consistent lattice."""
    k = len(cen)
    d = cen[None, :, :] - cen[:, None, :]
    dist = np.hypot(d[..., 0], d[..., 1])
    np.fill_diagonal(dist, np.inf)
    pitch = float(np.median(dist.min(axis=1)))
    # the lattice's axis angle, from the nearest-neighbour steps (angles modulo 90 degrees)
    steps = d[dist < 1.3 * pitch]
    angles = np.arctan2(steps[:, 1], steps[:, 0])
    axis = float(np.angle(np.mean(np.exp(4j * angles)))) / 4.0
    e1 = np.array([np.cos(axis), np.sin(axis)])
    e2 = np.array([-np.sin(axis), np.cos(axis)])
    idx = np.full((k, 2), np.iinfo(np.int32).min, dtype=np.int64)
    start = int(np.argmin(cen.sum(axis=1)))
    idx[start] = (0, 0)
    queue = [start]
    seen = np.zeros(k, bool)
    seen[start] = True
    while queue:
        i = queue.pop()
        for j in np.nonzero(dist[i] < 1.35 * pitch)[0]:
            step = d[i, j] / max(dist[i, j], 1e-9)
            a, b = float(step @ e1), float(step @ e2)
            if max(abs(a), abs(b)) < 0.85:
                continue  # a diagonal step
            move = (int(np.sign(a)), 0) if abs(a) > abs(b) else (0, int(np.sign(b)))
            want = (idx[i, 0] + move[0], idx[i, 1] + move[1])
            if seen[j]:
                if tuple(idx[j]) != want:
                    return None
                continue
            idx[j] = want
            seen[j] = True
            queue.append(j)
    if not seen.all():
        return None
    idx -= idx.min(axis=0)
    if len({tuple(p) for p in idx}) != k:
        return None
    return idx


def _trim(idx: np.ndarray) -> np.ndarray:
    """(K,) bool: the boxes left after dropping outer rows and columns of the lattice ``idx`` (K, 2) that hold
    only a stray box or two (a light patch of the page beside the grid linked to it)."""
    keep = np.ones(len(idx), bool)
    changed = True
    while changed and keep.sum() > 0:
        changed = False
        for axis in (0, 1):
            values = idx[keep, axis]
            counts = np.bincount(values - values.min())
            full = np.median(counts)
            for end in (values.min(), values.max()):
                if (values == end).sum() < 0.5 * full:
                    keep &= idx[:, axis] != end
                    changed = True
                    break
    return keep


@dataclass
class BoxField:
    """Boxes on a lattice that make no square grid (``cols`` x ``rows`` of them, e.g. a boxes print the photo
    cuts off): ``quad`` (4, 2) float32 their outer corners (x, y), top-left first, clockwise. A lattice of
    ruled lines found on such boxes is part of a puzzle that is not all there, not a puzzle of its own."""

    cols: int
    rows: int
    quad: np.ndarray


def find_boxes(image: np.ndarray, *, sizes=SIZES) -> list[BoxGrid]:
    """Box grids in ``image`` (H, W[, 3]): n x n square boxes standing apart on a lattice, largest first."""
    return find_arrangements(image, sizes=sizes)[0]


def find_arrangements(image: np.ndarray, *, sizes=SIZES) -> tuple[list[BoxGrid], list[BoxField]]:
    """``find_boxes``'s grids, and the arrangements of boxes that make no square grid (``BoxField``: more
    rows than columns or the other way round, even after the stray boxes beside them are dropped)."""
    gray, masks = page(image)
    boxes = _interiors(gray, masks)
    if len(boxes) < sizes[0] ** 2:
        return [], []
    out, fields = [], []
    for members in _groups(boxes):
        sub = boxes[members]
        sub = sub[_alike(sub)]  # light patches of other sizes linked in
        cen = sub[:, 4:6]
        size = np.sqrt(sub[:, 2] * sub[:, 3])
        idx = _lattice_indices(cen, size)
        if idx is None:
            continue
        if idx[:, 0].max() != idx[:, 1].max() or idx.max() + 1 not in sizes:
            keep = _trim(idx)  # not square: stray boxes beside the grid?
            sub, cen, size, idx = sub[keep], cen[keep], size[keep], idx[keep] - idx[keep].min(axis=0)
        if not len(idx):
            continue
        n = int(idx.max()) + 1
        if idx[:, 0].max() != idx[:, 1].max():
            field = _field(idx, cen)
            if field is not None:
                fields.append(field)
            continue
        if n not in sizes or len(sub) < MIN_SEEN * n * n:
            continue
        hom, _ = cv2.findHomography(idx.astype(np.float64), cen.astype(np.float64), 0)
        if hom is None:
            continue
        # interior side in pitch units: box bounding boxes measured against the local pitch
        centres = np.full((n, n, 2), np.nan)
        centres[idx[:, 1], idx[:, 0]] = cen
        ux = cv2.perspectiveTransform((idx + [[0.5, 0.0]]).reshape(-1, 1, 2).astype(np.float64), hom).reshape(-1, 2)
        lx = cv2.perspectiveTransform((idx - [[0.5, 0.0]]).reshape(-1, 1, 2).astype(np.float64), hom).reshape(-1, 2)
        local = np.hypot(*(ux - lx).T)
        interior = float(np.median(size / np.maximum(local, 1e-9)))
        if not 0.35 < interior < 1 / MIN_GAP:
            continue
        line = _line_width(gray, hom, interior)
        out.append(BoxGrid(n=n, homography=hom, interior=interior, box=interior + line, centres=centres))
    out.sort(key=lambda g: -cv2.contourArea(g.quad()))
    return out, fields


def _field(idx: np.ndarray, cen: np.ndarray) -> BoxField | None:
    """The ``BoxField`` of boxes at lattice ``idx`` (K, 2) (col, row) with centres ``cen`` (K, 2) (x, y), or
    None when too few of its boxes are seen (``MIN_SEEN``) to call it a lattice of boxes, or too few off one
    line to place its corners (two rows and two columns holding two boxes each: boxes nearly all in one row or
    column give a homography, and so a quad, that is nonsense away from that line)."""
    cols, rows = int(idx[:, 0].max()) + 1, int(idx[:, 1].max()) + 1
    if min(cols, rows) < 2 or len(idx) < MIN_SEEN * cols * rows:
        return None
    for axis in (0, 1):
        _, counts = np.unique(idx[:, axis], return_counts=True)
        if np.count_nonzero(counts >= 2) < 2:
            return None
    hom, _ = cv2.findHomography(idx.astype(np.float64), cen.astype(np.float64), 0)
    if hom is None:
        return None
    corners = np.array([[-0.5, -0.5], [cols - 0.5, -0.5], [cols - 0.5, rows - 0.5], [-0.5, rows - 0.5]])
    quad = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), hom).reshape(4, 2).astype(np.float32)
    if not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
        return None
    return BoxField(cols=cols, rows=rows, quad=quad)


def _line_width(gray: np.ndarray, hom: np.ndarray, interior: float, *, pitch_px: int = 60) -> float:
    """The box outline's line width in pitch units, measured on the first box row rectified."""
    side = pitch_px
    # lattice (-0.5..0.5) of box (0, 0) onto a side x side square
    src = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float64)
    dst = cv2.perspectiveTransform(src.reshape(-1, 1, 2), hom).reshape(-1, 2).astype(np.float32)
    warp = cv2.getPerspectiveTransform(dst, np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32))
    patch = cv2.warpPerspective(gray, warp, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    mask = ink_mask(patch, block=(side // 2) | 1, offset=6) > 0
    # the left box edge just outside the interior: ink run length along the middle rows
    mid = mask[side // 3: 2 * side // 3]
    edge = int(round((0.5 - interior / 2) * side))
    lo, hi = max(0, edge - side // 6), min(side, edge + 2)
    widths = mid[:, lo:hi].sum(axis=1)
    return float(np.clip(np.median(widths) / side, 0.005, 0.12))
