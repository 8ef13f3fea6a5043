"""Stage 1, load: an image file as a BGR array in its upright orientation, plus a smaller copy for detection.

Refuses bad files with ``InputError`` before decoding when the header already
tells (empty, not an image, 1x1, too many pixels), and after decoding when the
data is truncated or corrupt.
"""
from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np

from solver.errors import InputError

MAX_PIXELS = 120_000_000  #: larger images are refused from their header (a 20000x20000 image needs 1.2 GB)
MIN_SIDE = 32  #: smaller images cannot hold a readable grid
DETECT_LONG_SIDE = 1100  #: long side of the copy used to find the grid

#: ``Loaded.prefetch`` decodes the full picture in a background thread. A process that already keeps every
#: core busy with one page per process (the batch workers) turns this off, so one process uses one core.
BACKGROUND_DECODE = True


class Loaded:
    """The photo: ``small`` (h, w, 3) uint8 BGR upright (EXIF applied) with its long side about
    ``DETECT_LONG_SIDE``, decoded at reduced size straight from the file; ``scale`` = small / full; and
    ``image`` (H, W, 3) the full-resolution picture, decoded on first use (``prefetch`` starts that in a
    background thread, as OpenCV decodes without holding the GIL). ``borrowed``: ``image`` is the caller's
    array (``from_array``), never drawn on in place (see ``canvas``)."""

    def __init__(self, data: bytes, small: np.ndarray, scale: float, *, name: str, max_pixels: int,
                 image: np.ndarray | None = None, borrowed: bool = False):
        self.small = small
        self.scale = scale
        self.borrowed = borrowed
        self._data = data
        self._name = name
        self._max_pixels = max_pixels
        self._image = image
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        #: results the kind readers share for this photo (e.g. a candidate's fitted mesh: with ``--kind auto``
        #: several readers take the same grid), keyed by what they were computed from
        self.memo: dict = {}

    def prefetch(self) -> None:
        """Start decoding the full-resolution picture in the background (no-op when done or started, and
        when ``BACKGROUND_DECODE`` is off: it is then decoded on first use)."""
        if BACKGROUND_DECODE and self._image is None and self._thread is None:
            self._thread = threading.Thread(target=self._decode, daemon=True)
            self._thread.start()

    def _decode(self) -> None:
        try:
            self._image = decode(self._data, name=self._name, max_pixels=self._max_pixels)
        except BaseException as err:  # re-raised in the caller's thread
            self._error = err

    @property
    def image(self) -> np.ndarray:
        if self._image is None:
            if self._thread is not None:
                self._thread.join()
            else:
                self._decode()
            if self._error is not None:
                raise self._error
            self._data = b""
        return self._image

    def canvas(self) -> np.ndarray:
        """The full-resolution picture to draw on: ``image`` itself when this object owns it and it is not
        the detection copy ``small``, else a copy of it."""
        image = self.image
        return image.copy() if self.borrowed or image is self.small else image


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's start-of-frame segment."""
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h = int.from_bytes(data[i + 5:i + 7], "big")
            w = int.from_bytes(data[i + 7:i + 9], "big")
            return w, h
        i += 2 + length
    return None


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) read from the file header without decoding the pixels, or None when unknown.

    JPEG and PNG are parsed here; other formats through Pillow's lazy open (header only).
    """
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    try:
        import io

        from PIL import Image

        Image.MAX_IMAGE_PIXELS = None  # our own limit applies
        with Image.open(io.BytesIO(data)) as im:
            return int(im.size[0]), int(im.size[1])
    except Exception:
        return None


def decode(data: bytes, *, name: str = "image", max_pixels: int = MAX_PIXELS,
           flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """The upright BGR image (H, W, 3) uint8 held in ``data`` (an encoded JPEG/PNG/TIFF/WebP/BMP file).

    ``cv2.imdecode`` with ``IMREAD_COLOR`` (or a reduced colour flag) applies the EXIF orientation.
    """
    if not data:
        raise InputError(f"{name}: the file is empty")
    size = header_size(data)
    if size is not None:
        w, h = size
        if w * h > max_pixels:
            raise InputError(f"{name}: the image is too large ({w}x{h} pixels; at most {max_pixels // 1_000_000} megapixels)")
        if min(w, h) < MIN_SIDE:
            raise InputError(f"{name}: the image is too small ({w}x{h} pixels) to hold a puzzle")
    buf = np.frombuffer(data, dtype=np.uint8)
    try:
        image = cv2.imdecode(buf, flags)
    except cv2.error:
        image = None
    if image is None or image.size == 0:
        raise InputError(f"{name}: not an image we can decode (truncated, corrupt or an unknown format)")
    h, w = image.shape[:2]
    if flags == cv2.IMREAD_COLOR and h * w > max_pixels:
        raise InputError(f"{name}: the image is too large ({w}x{h} pixels)")
    if flags == cv2.IMREAD_COLOR and min(h, w) < MIN_SIDE:
        raise InputError(f"{name}: the image is too small ({w}x{h} pixels) to hold a puzzle")
    if _looks_truncated(data, image):
        raise InputError(f"{name}: the image data is truncated")
    return image


def _looks_truncated(data: bytes, image: np.ndarray) -> bool:
    """A JPEG whose end-of-image marker is missing and whose bottom rows are a flat fill (libjpeg pads with grey)."""
    if not data.startswith(b"\xff\xd8"):
        return False
    if data.rstrip(b"\x00\n\r ").endswith(b"\xff\xd9"):
        return False
    tail = image[-max(2, image.shape[0] // 16):]
    return float(tail.std()) < 1.0


def downscale(image: np.ndarray, *, long_side: int = DETECT_LONG_SIDE) -> tuple[np.ndarray, float]:
    """``image`` (H, W[, C]) shrunk (area interpolation) so its long side is about ``long_side``; and the scale.

    Large images shrink by a whole factor (much faster with area interpolation).
    """
    h, w = image.shape[:2]
    long = max(h, w)
    if long <= long_side:
        return image, 1.0
    if long <= 1.5 * long_side:
        scale = long_side / long
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        return cv2.resize(image, size, interpolation=cv2.INTER_AREA), scale
    k = max(2, round(long / long_side))
    small = cv2.resize(image, None, fx=1.0 / k, fy=1.0 / k, interpolation=cv2.INTER_AREA)
    return small, 1.0 / k


def _reduction(size: tuple[int, int] | None, long_side: int) -> int:
    """The largest JPEG decoding reduction (1, 2, 4, 8) that keeps the long side at least ``long_side``."""
    if size is None:
        return 1
    long = max(size)
    for k in (8, 4, 2):
        if long / k >= long_side:
            return k
    return 1


_REDUCED = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}


def load(path: Path, *, max_pixels: int = MAX_PIXELS, long_side: int = DETECT_LONG_SIDE,
         prefetch: bool = False) -> Loaded:
    """Read ``path`` (raises ``InputError`` with a one-line message) and make the detection copy.

    A large JPEG is decoded at 1/2, 1/4 or 1/8 size for detection (libjpeg scales while decoding, much
    cheaper than a full decode); the full picture is decoded only when asked for (``Loaded.image``), or,
    with ``prefetch``, in the background from the start (``Loaded.prefetch``: beside the reduced decoding,
    so it is done sooner, before the reader first needs it).
    """
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read it ({err.strerror or err})") from None
    name = str(path)
    size = header_size(data) if data.startswith(b"\xff\xd8") else None
    k = _reduction(size, long_side)
    if k == 1:
        image = decode(data, name=name, max_pixels=max_pixels)
        small, scale = downscale(image, long_side=long_side)
        return Loaded(data, small, scale, name=name, max_pixels=max_pixels, image=image)
    loaded = Loaded(data, np.zeros((0, 0, 3), np.uint8), 1.0, name=name, max_pixels=max_pixels)
    if prefetch:
        loaded.prefetch()
    reduced = decode(data, name=name, max_pixels=max_pixels, flags=_REDUCED[k])
    w, h = size
    if (reduced.shape[0] > reduced.shape[1]) != (h > w):  # EXIF turned it by a quarter
        w, h = h, w
    scale = reduced.shape[1] / w
    loaded.small, extra = downscale(reduced, long_side=long_side)
    loaded.scale = scale * extra
    return loaded


def from_array(image: np.ndarray, *, name: str = "image", long_side: int = DETECT_LONG_SIDE,
               borrowed: bool = True) -> Loaded:
    """An already decoded picture ``image`` (H, W, 3) uint8 BGR (a rendered PDF page, a TIFF frame) with its
    detection copy. ``image`` is kept, not copied; ``borrowed``: never changed (``Loaded.canvas`` copies it),
    else it may be drawn on. ``InputError`` when it is too small to hold a puzzle; ``ValueError`` when it is
    not an (H, W, 3) uint8 array."""
    image = np.asarray(image)
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"{name}: expected an (H, W, 3) uint8 BGR picture, got {image.shape} {image.dtype}")
    h, w = image.shape[:2]
    if min(h, w) < MIN_SIDE:
        raise InputError(f"{name}: the image is too small ({w}x{h} pixels) to hold a puzzle")
    small, scale = downscale(image, long_side=long_side)
    return Loaded(b"", small, scale, name=name, max_pixels=max(MAX_PIXELS, h * w), image=image, borrowed=borrowed)
