"""One page of a multi-page document as pixels: PDF pages rasterised by pypdfium2, TIFF pages by Pillow.

Runs inside the workers, one page at a time, so a batch never holds more than one page per worker.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from solver.errors import InputError

DEFAULT_DPI = 200  #: newspaper print is read well from 200 dpi (a 9x9 grid of 8 cm gets ~70 px cells)
MAX_PAGE_PIXELS = 36_000_000  #: about A4 or Letter at 600 dpi; a larger page is rendered at a lower dpi (memory)


def pdf_page(path: Path, page: int, *, dpi: float = DEFAULT_DPI, max_pixels: int = MAX_PAGE_PIXELS) -> np.ndarray:
    """Page ``page`` (1-based) of the PDF at ``path`` as (H, W, 3) uint8 BGR at ``dpi`` (lowered when the
    page would exceed ``max_pixels``). ``InputError`` for an encrypted or broken document or page."""
    import pypdfium2 as pdfium

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
            bitmap = pdf_page_.render(scale=scale, fill_color=(255, 255, 255, 255))
            image = np.array(bitmap.to_numpy(), copy=True)  # owns its memory after the document closes
        except pdfium.PdfiumError as err:
            raise InputError(f"{path}#{page}: the page cannot be rendered ({err})") from None
    finally:
        doc.close()
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    elif image.shape[2] == 4:
        image = np.ascontiguousarray(image[:, :, :3])
    return image


def tiff_page(path: Path, page: int) -> np.ndarray:
    """Frame ``page`` (1-based) of the TIFF at ``path`` as (H, W, 3) uint8 BGR. ``InputError`` when broken."""
    from PIL import Image, ImageOps

    try:
        with Image.open(path) as im:
            im.seek(page - 1)
            frame = ImageOps.exif_transpose(im.convert("RGB"))
            rgb = np.asarray(frame)
    except EOFError:
        raise InputError(f"{path}#{page}: the TIFF has fewer pages") from None
    except Exception as err:  # Pillow raises OSError, ValueError, SyntaxError... for broken frames
        raise InputError(f"{path}#{page}: the page cannot be decoded ({type(err).__name__}: {err})") from None
    return np.ascontiguousarray(rgb[:, :, ::-1])
