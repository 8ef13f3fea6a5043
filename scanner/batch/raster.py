"""One page of a multi-page document as pixels: PDF pages rasterised by pypdfium2, TIFF pages by Pillow.

Runs inside the workers, one page at a time, so a batch never holds more than one page per worker.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from solver.errors import InputError

DEFAULT_DPI = 200  #: newspaper print is read well from 200 dpi (a 9x9 grid of 8 cm gets ~70 px cells)
MAX_PAGE_PIXELS = 36_000_000  #: about A4 or Letter at 600 dpi; a larger page is rendered at a lower dpi (memory)


def pdf_page(path: Path, page: int, *, dpi: float = DEFAULT_DPI, max_pixels: int = MAX_PAGE_PIXELS) -> np.ndarray:
    """Page ``page`` (1-based) of the PDF at ``path`` as (H, W, 3) uint8 BGR at ``dpi`` (lowered when the
    page would exceed ``max_pixels``). ``InputError`` for an encrypted or broken document or page."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as err:
        if "password" in str(err).lower():
            raise InputError(f"{path}: the PDF is encrypted (a password is needed)") from None
        raise InputError(f"{path}: not a PDF we can open ({err})") from None
    try:
        if not 1 <= page <= len(doc):
            raise InputError(f"{path}#{page}: the PDF has {len(doc)} pages")
        try:
            pdf_page_ = doc[page - 1]
            w_pt, h_pt = pdf_page_.get_size()
            scale = dpi / 72.0
            if w_pt * h_pt * scale * scale > max_pixels:
                scale = float(np.sqrt(max_pixels / (w_pt * h_pt)))
                while np.ceil(w_pt * scale) * np.ceil(h_pt * scale) > max_pixels:  # pixels are whole
                    scale *= 0.995
            pixels: list[np.ndarray] = []
            bitmap = pdf_page_.render(scale=scale, fill_color=(255, 255, 255, 255),
                                      force_bitmap_format=pdfium_c.FPDFBitmap_BGR,
                                      bitmap_maker=functools.partial(_numpy_bitmap, pixels))
            bitmap.close()
            image = pixels[0]
        except pdfium.PdfiumError as err:
            raise InputError(f"{path}#{page}: the page cannot be rendered ({err})") from None
    finally:
        doc.close()
    return image


def _numpy_bitmap(pixels: list, width: int, height: int, format: int, rev_byteorder: bool = False):
    """A pdfium bitmap (BGR, 3 bytes a pixel) drawing straight into a new numpy array, appended to ``pixels``:
    the page is rendered without a copy, into memory numpy owns."""
    import ctypes

    import pypdfium2 as pdfium

    array = np.empty((height, width, 3), np.uint8)
    pixels.append(array)
    buffer = (ctypes.c_ubyte * array.size).from_buffer(array)
    return pdfium.PdfBitmap.new_native(width, height, format, rev_byteorder, buffer=buffer, stride=3 * width)


def tiff_page(path: Path, page: int, *, max_pixels: int = MAX_PAGE_PIXELS) -> np.ndarray:
    """Frame ``page`` (1-based) of the TIFF at ``path`` as (H, W, 3) uint8 BGR, upright (its orientation tag
    applied), shrunk by a whole factor when it has more than ``max_pixels``. ``InputError`` when broken.

    The page is held about twice (a 600 dpi A4 frame: 35 MP, 105 MB in colour): Pillow's decoded frame (one
    byte per pixel when black-and-white or grey) and the BGR result; Pillow's decoder may briefly need a
    third copy. (Taking a colour frame whole out of Pillow held about 4.5 copies at its peak.)
    """
    from PIL import Image, ImageOps

    from ..load import MAX_PIXELS

    Image.MAX_IMAGE_PIXELS = None  # our own limits apply
    try:
        with Image.open(path) as im:
            im.seek(page - 1)
            w, h = im.size
            if w * h > MAX_PIXELS:
                raise InputError(f"{path}#{page}: the page is too large ({w}x{h} pixels)")
            im.load()
            ImageOps.exif_transpose(im, in_place=True)  # a no-op where Pillow turned the frame while loading
            grey = im.mode in ("1", "L")
            mode = "L" if grey else "RGB"
            frame = im if im.mode == mode else im.convert(mode)
            if w * h > max_pixels:
                frame = frame.reduce(int(np.ceil(np.sqrt(w * h / max_pixels))))
            return _bgr(frame, grey=grey)
    except EOFError:
        raise InputError(f"{path}#{page}: the TIFF has fewer pages") from None
    except InputError:
        raise
    except Exception as err:  # Pillow raises OSError, ValueError, SyntaxError... for broken frames
        raise InputError(f"{path}#{page}: the page cannot be decoded ({type(err).__name__}: {err})") from None


BAND_BYTES = 1 << 24  #: pixels are taken out of Pillow in bands of about this size


def _bgr(frame, *, grey: bool) -> np.ndarray:
    """The Pillow picture ``frame`` (mode L or RGB) as (H, W, 3) uint8 BGR, band by band: Pillow hands
    pixels over as bytes (a whole picture at once would hold two more copies of it for a moment)."""
    import cv2

    w, h = frame.size
    out = np.empty((h, w, 3), np.uint8)
    code = cv2.COLOR_GRAY2BGR if grey else cv2.COLOR_RGB2BGR
    band = max(1, BAND_BYTES // (3 * w))
    for y in range(0, h, band):
        part = np.asarray(frame.crop((0, y, w, min(h, y + band))))
        cv2.cvtColor(part, code, dst=out[y:y + part.shape[0]])
    return out


_ORIENTATION = 0x0112  #: the TIFF/EXIF orientation tag


def _transposes() -> dict:
    from PIL import Image

    T = Image.Transpose
    return {2: T.FLIP_LEFT_RIGHT, 3: T.ROTATE_180, 4: T.FLIP_TOP_BOTTOM, 5: T.TRANSPOSE, 6: T.ROTATE_270,
            7: T.TRANSVERSE, 8: T.ROTATE_90}
