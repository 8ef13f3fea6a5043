"""Stage 6, overlay: the answer drawn into the photo, in perspective, and written safely.

Each missing digit is rendered upright in a square patch, then warped into its
cell's quad (from the mesh, so curled paper is followed) and blended into the
full-resolution photo, in a colour chosen to stand out from both the paper and
the print.
"""
from __future__ import annotations

import functools
import os
import re
import tempfile
import threading
from pathlib import Path

import cv2
import numpy as np

from solver.errors import InputError

from .rectify import Mesh, cell_quads

#: Colours offered for the digits (BGR): red, blue, green, magenta.
PALETTE = ((30, 30, 220), (200, 80, 0), (40, 150, 20), (170, 30, 170))


_D65_WHITE = np.array([0.950456, 1.0, 1.088754])
_RGB_TO_XYZ = np.array([[0.412453, 0.357580, 0.180423],
                        [0.212671, 0.715160, 0.072169],
                        [0.019334, 0.119193, 0.950227]])


def _lab(bgr) -> np.ndarray:
    """CIE Lab of one 8-bit BGR colour on OpenCV's 8-bit scale (L * 255 / 100, a + 128, b + 128).

    Computed here rather than by ``cv2.cvtColor``, whose first Lab conversion in a process builds tables
    for ~0.13 s: that was most of a cold ``scan-solve``'s overlay stage.
    """
    rgb = np.asarray(bgr, np.float64)[::-1] / 255.0
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    t = _RGB_TO_XYZ @ linear / _D65_WHITE
    f = np.where(t > 0.008856, np.cbrt(t), 7.787 * t + 16.0 / 116.0)
    lightness = 116.0 * f[1] - 16.0 if t[1] > 0.008856 else 903.3 * t[1]
    return np.array([lightness * 255.0 / 100.0, 500.0 * (f[0] - f[1]) + 128.0, 200.0 * (f[1] - f[2]) + 128.0],
                    np.float32)


def pick_colour(image: np.ndarray, quad: np.ndarray) -> tuple[int, int, int]:
    """The palette colour (BGR) farthest (in Lab) from both the paper and the ink inside ``quad`` (4, 2) (x, y)
    of ``image`` (H, W, 3)."""
    x0, y0 = np.maximum(quad.min(axis=0).astype(int), 0)
    x1, y1 = quad.max(axis=0).astype(int)
    region = image[y0:y1 + 1, x0:x1 + 1]
    step = max(1, int(np.sqrt(region.shape[0] * region.shape[1] / 40000)))
    pixels = region[::step, ::step].reshape(-1, 3)
    if len(pixels) == 0:
        return PALETTE[0]
    gray = _mean_gray(pixels)
    paper = np.median(pixels[gray >= np.percentile(gray, 60)], axis=0)
    dark = pixels[gray <= np.percentile(gray, 8)]
    # the ink's colour: the most saturated of the dark pixels tells coloured print from black
    ink = np.median(dark, axis=0) if len(dark) else np.zeros(3)
    paper_lab, ink_lab = _lab(paper.astype(np.uint8)), _lab(ink.astype(np.uint8))

    def distance(colour) -> float:
        lab = _lab(colour)
        return min(np.linalg.norm(lab - paper_lab), 1.5 * np.linalg.norm(lab[1:] - ink_lab[1:]) + 0.3 * abs(lab[0] - ink_lab[0]))

    return max(PALETTE, key=distance)


def _mean_gray(pixels: np.ndarray) -> np.ndarray:
    """(N,) float32 ``pixels.astype(np.float32).mean(axis=1)`` of ``pixels`` (N, 3) uint8, the same values:
    numpy's float32 mean of 3 whole numbers is their sum (exact) over 3 in float32; summed as whole numbers
    here, ~0.2 ms rather than ~1.3 ms for the ~43 000 pixels ``pick_colour`` sampled on a 20x20 page (numpy
    reduces over an axis of 3 slowly)."""
    total = pixels[:, 0].astype(np.uint16)
    total += pixels[:, 1]
    total += pixels[:, 2]
    gray = total.astype(np.float32)
    gray /= np.float32(3.0)
    return gray


def _digit_patch(text: str, side: int) -> np.ndarray:
    """(side, side) uint8 alpha 0..255 with ``text`` centred, about 60 % of the side tall (narrower for
    two digits, e.g. a 16x16 print's "13", to stay within 80 % of the side)."""
    font = cv2.FONT_HERSHEY_DUPLEX
    thickness = max(1, round(side / 18))
    (w, h), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = min(0.6 * side / h, 0.8 * side / w)
    w, h = round(w * scale), round(h * scale)
    patch = np.zeros((side, side), np.uint8)
    org = ((side - w) // 2, (side + h) // 2)
    cv2.putText(patch, text, org, font, scale, 255, thickness, cv2.LINE_AA)
    return patch


OUTLINE_SIDE = 256  #: side of the square a label is rendered in before its outline is traced


def _circle_patch(filled: bool, side: int) -> np.ndarray:
    """(side, side) uint8 alpha: a disc (``filled``) or a ring, about 60 % of the side across."""
    patch = np.zeros((side, side), np.uint8)
    centre, radius = (side // 2, side // 2), round(0.3 * side)
    cv2.circle(patch, centre, radius, 255, -1 if filled else max(2, round(side / 14)), cv2.LINE_AA)
    return patch


#: Labels drawn as shapes instead of text (e.g. a Takuzu printed with circles: white circle 0, black circle 1).
SHAPES = {"white circle": lambda side: _circle_patch(False, side),
          "black circle": lambda side: _circle_patch(True, side)}


@functools.lru_cache(maxsize=64)
def label_outline(text: str) -> tuple[np.ndarray, ...]:
    """The outline of ``text`` drawn upright in a unit square: contours (P, 2) float64 (x, y) in 0..1, outer
    edges and holes alike (filled together, the holes stay open)."""
    patch = SHAPES[text](OUTLINE_SIDE) if text in SHAPES else _digit_patch(text, OUTLINE_SIDE)
    contours, _ = cv2.findContours((patch >= 128).astype(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_TC89_L1)
    return tuple(c.reshape(-1, 2).astype(np.float64) / OUTLINE_SIDE for c in contours)


@functools.lru_cache(maxsize=64)
def label_points(text: str) -> tuple[np.ndarray, tuple[int, ...]]:
    """(every point of ``label_outline(text)``'s contours, one after another (P, 1, 2) float64, each contour's
    number of points): the outline carried into a cell in one ``cv2.perspectiveTransform`` call."""
    contours = label_outline(text)
    points = np.concatenate(contours).reshape(-1, 1, 2)
    points.flags.writeable = False
    return points, tuple(len(c) for c in contours)


def draw_digits(image: np.ndarray, mesh: Mesh, digits: dict[tuple[int, int], str], *,
                colour: tuple[int, int, int] | None = None, inplace: bool = False,
                quads: np.ndarray | None = None, touched: list | None = None) -> np.ndarray:
    """``image`` (H, W, 3) with ``digits`` {(row, col): text} drawn into the cells of ``mesh`` (its points in
    ``image`` pixels); a copy unless ``inplace``. ``touched`` (a list), when given, receives the rows
    ``(top, bottom)`` (bottom excluded) outside which no pixel was changed.

    Each label's outline is carried into its cell's quad by the cell's homography and filled there
    (antialiased, sub-pixel): only the glyph's own pixels are touched, however large the photo.
    """
    out = image if inplace else image.copy()
    if not digits:
        return out
    colour = tuple(int(v) for v in (colour or pick_colour(image, mesh.quad)))
    quads = cell_quads(mesh) if quads is None else quads  # (n, n, 4, 2): printed boxes when given
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    shift = 4
    # each label's contours carried at once (``label_points``), every point rounded at once: the same
    # numbers (point by point) with a few calls rather than three per contour (~1600 on a 20x20 page)
    carried, counts = [], []
    for (r, c), text in digits.items():
        h = cv2.getPerspectiveTransform(unit, quads[r, c].astype(np.float32))
        points, sizes = label_points(text)
        carried.append(cv2.perspectiveTransform(points, h))
        counts += sizes
    whole = np.round(np.concatenate(carried).reshape(-1, 2) * (1 << shift)).astype(np.int32)
    polygons = np.split(whole, np.cumsum(counts)[:-1])
    # one call per cell would do as well; one for all keeps each glyph's holes open (even-odd filling)
    cv2.fillPoly(out, polygons, colour, cv2.LINE_AA, shift)
    if touched is not None and len(whole):
        ys = whole[:, 1]
        # antialiased edges reach a pixel beyond the outline
        touched.append((int(ys.min() >> shift) - 2, int(ys.max() >> shift) + 3))
    return out


def overlay_path(source: Path, out_dir: Path | None) -> Path:
    """Where the overlay of ``source`` goes: ``<stem>.solved.jpg`` beside it or in ``out_dir``."""
    folder = Path(out_dir) if out_dir is not None else Path(source).parent
    return folder / f"{Path(source).stem}.solved.jpg"


#: Encode a picture of at least this many pixels in two halves at once (``encode_jpeg``); 0 = never.
SPLIT_PIXELS = 2_000_000


def _segments(data: bytes) -> tuple[int, int, int]:
    """In a baseline JPEG ``data``: the offset of its SOF0 segment's marker, where the entropy-coded scan
    starts (after the SOS header), and the largest sampling factors (h, v) of its components."""
    i, sof, hv = 2, -1, (1, 1)
    while i + 4 <= len(data) and data[i] == 0xFF:
        marker = data[i + 1]
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if marker == 0xC0:
            sof = i
            count = data[i + 9]
            factors = [data[i + 11 + 3 * k] for k in range(count)]
            hv = (max(f >> 4 for f in factors), max(f & 15 for f in factors))
        elif marker in (0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            return -1, -1, hv  # not baseline: not split
        if marker == 0xDA:
            return sof, i + 2 + length, hv
        i += 2 + length
    return -1, -1, hv


def encode_jpeg(image: np.ndarray, *, quality: int = 90, split: bool = True) -> bytes:
    """``image`` (H, W, 3) uint8 encoded as a JPEG file. A large picture (``SPLIT_PIXELS``; ``split``) is
    encoded as its top and bottom halves at once, in two threads, and the halves joined into one file:
    both are encoded with a restart marker after every row of MCUs (the entropy coding starts afresh
    there), the top one ending at a row of MCUs that is a multiple of 8 (the restart markers count 0..7),
    so its scan followed by the marker of its last row and the bottom one's scan is the whole picture's
    scan -- the same bytes as one encoding with those restarts, decoding to the same pixels as without."""
    params = [cv2.IMWRITE_JPEG_QUALITY, quality]
    h, w = image.shape[:2]
    if not split or h * w < SPLIT_PIXELS or image.ndim != 3:
        ok, buf = cv2.imencode(".jpg", image, params)
        return buf.tobytes() if ok else b""
    mcu = 16  # rows and columns of a 4:2:0 MCU (checked below against the encoded file)
    rows = max(1, int(round(h / 2 / (8 * mcu)))) * 8 * mcu
    restart = params + [cv2.IMWRITE_JPEG_RST_INTERVAL, -(-w // mcu)]
    if rows >= h:
        ok, buf = cv2.imencode(".jpg", image, params)
        return buf.tobytes() if ok else b""
    bottom: list = []
    thread = threading.Thread(target=lambda: bottom.append(cv2.imencode(".jpg", image[rows:], restart)))
    thread.start()
    ok_top, top = cv2.imencode(".jpg", image[:rows], restart)
    thread.join()
    ok_bottom, low = bottom[0] if bottom else (False, None)
    top_b, low_b = (top.tobytes(), low.tobytes()) if ok_top and ok_bottom else (b"", b"")
    sof, scan, hv = _segments(top_b)
    sof_low, scan_low, _ = _segments(low_b)
    same_head = (sof >= 0 and scan_low == scan and sof_low == sof and hv == (2, 2)
                 and top_b[:sof + 5] == low_b[:sof + 5] and top_b[sof + 7:scan] == low_b[sof + 7:scan]
                 and top_b.endswith(b"\xff\xd9") and low_b.endswith(b"\xff\xd9"))
    if not same_head:  # another subsampling or header than assumed: encode whole
        ok, buf = cv2.imencode(".jpg", image, params)
        return buf.tobytes() if ok else b""
    head = top_b[:sof + 5] + h.to_bytes(2, "big") + top_b[sof + 7:scan]
    return head + top_b[scan:-2] + b"\xff\xd7" + low_b[scan:]


_RESTART = re.compile(rb"\xff[\xd0-\xd7]")  #: a restart marker in an entropy-coded scan (its 0xff bytes are stuffed)


def _scan_rows(data: bytes, rows: int) -> tuple[bytes, list[bytes]] | None:
    """(header, each row of MCUs' entropy-coded bytes, markers left out) of a JPEG ``data`` encoded by
    ``encode_jpeg`` in two halves (a restart marker after every row of MCUs, 4:2:0), or None when it is not
    laid out so (``rows`` rows of MCUs expected)."""
    sof, scan, hv = _segments(data)
    if sof < 0 or hv != (2, 2) or not data.endswith(b"\xff\xd9"):
        return None
    pieces = _RESTART.split(data[scan:-2])
    return (data[:scan], pieces) if len(pieces) == rows else None


def encode_changed(previous: bytes, image: np.ndarray, top: int, bottom: int, *, quality: int = 90,
                   split: bool = True) -> bytes:
    """``encode_jpeg(image, quality=quality)`` (the same bytes) when ``previous`` is that of a picture that
    differs from ``image`` (H, W, 3) only in the rows ``top`` .. ``bottom - 1`` (another puzzle's answer drawn
    into the page): the rows of MCUs holding no changed pixel are taken from ``previous``'s scan (each is one
    restart interval, coded afresh) and only those covering the change are encoded (in two parts at once when
    large enough); the restart markers (counting 0..7) are written afresh between the rows. Encoded whole
    when ``previous`` is not laid out so (a small picture, a picture encoded in one piece), or not ``split``
    (then as ``encode_jpeg``: in one piece)."""
    h, w = image.shape[:2]
    mcu = 16
    top, bottom = max(0, top), min(h, bottom)
    if bottom <= top:
        return previous  # nothing changed
    if not split or image.ndim != 3 or h * w < SPLIT_PIXELS:
        return encode_jpeg(image, quality=quality, split=split)
    rows = -(-h // mcu)
    got = _scan_rows(previous, rows)
    if got is None:
        return encode_jpeg(image, quality=quality)
    head, pieces = got
    start = top // mcu * mcu  # the first row of MCUs encoded (its marker is numbered as in the whole file below)
    stop = min(h, -(-bottom // mcu) * mcu)  # past the last changed row of MCUs
    params = [cv2.IMWRITE_JPEG_QUALITY, quality, cv2.IMWRITE_JPEG_RST_INTERVAL, -(-w // mcu)]
    middle = start + max(1, int(round((stop - start) / 2 / mcu))) * mcu
    bands = [(start, middle), (middle, stop)] if middle < stop and (stop - start) * w >= SPLIT_PIXELS // 2 \
        else [(start, stop)]
    encoded: list = [None] * len(bands)

    def encode(i: int) -> None:
        a, b = bands[i]
        encoded[i] = cv2.imencode(".jpg", image[a:b], params)

    threads = [threading.Thread(target=encode, args=(i,)) for i in range(1, len(bands))]
    for thread in threads:
        thread.start()
    encode(0)
    for thread in threads:
        thread.join()
    new = []
    sof = _segments(head)[0]
    for (a, b), (ok, buf) in zip(bands, encoded):
        part = _scan_rows(buf.tobytes() if ok else b"", -(-(b - a) // mcu))
        if part is None or part[0][:sof + 5] != head[:sof + 5] or part[0][sof + 7:] != head[sof + 7:]:
            return encode_jpeg(image, quality=quality)  # another header than the whole picture's
        new += part[1]
    pieces = pieces[:start // mcu] + new + pieces[start // mcu + len(new):]
    out = [head]
    for i, piece in enumerate(pieces):
        out.append(piece)
        if i + 1 < len(pieces):
            out.append(bytes((0xFF, 0xD0 + i % 8)))
    out.append(b"\xff\xd9")
    return b"".join(out)


def _umask() -> int:
    """The process's file-creation mask: from /proc where it is shown (no change to the process's state),
    else read by setting it and putting it back."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _umask()  #: read once, at import (setting it to read it is not safe while other threads create files)


def encode_overlay(image: np.ndarray, *, quality: int = 90, previous: bytes | None = None,
                   rows: tuple[int, int] | None = None) -> bytes:
    """``image`` (H, W, 3) as the JPEG file an overlay is written as (``encode_jpeg``; in one piece in a batch
    worker, one page per process: no second thread). ``previous``: the file of the same picture before the
    rows ``rows`` (top, bottom) changed, whose other rows it reuses (``encode_changed``)."""
    from . import load

    if previous is not None and rows is not None:
        return encode_changed(previous, image, *rows, quality=quality, split=load.BACKGROUND_DECODE)
    return encode_jpeg(image, quality=quality, split=load.BACKGROUND_DECODE)


def write_jpeg(image: np.ndarray, target: Path, *, source: Path | None = None, quality: int = 90,
               data: bytes | None = None) -> Path:
    """Encode ``image`` (H, W, 3) as JPEG to ``target`` via a temporary file and a rename (``data``: its
    encoding, ``encode_overlay``'s, when already made).

    Refuses (``InputError``) when ``target`` is the input ``source`` itself.
    """
    target = Path(target)
    if source is not None and (target.resolve() == Path(source).resolve()
                               or (target.exists() and os.path.samefile(target, source))):
        raise InputError(f"{target}: refusing to overwrite the input photo")
    if data is None:
        data = encode_overlay(image, quality=quality)
    if not data:
        raise InputError(f"{target}: could not encode the overlay")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o666 & ~_UMASK)  # as open() would make it (mkstemp's is private: 0600)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return target
