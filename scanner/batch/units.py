"""The units of work of a batch: one per page of every input (an image has one page, a PDF or TIFF many).

Pages are only counted here (PDF: pypdfium2 opens the document without rendering; TIFF: Pillow walks the
frame headers); the pixels are made inside the workers (``scanner.batch.raster``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from solver.errors import InputError, ScanSolveError

from .. import inputs

@dataclass(frozen=True)
class Unit:
    """One page to process.

    ``form``: ``"image"`` (an image file read whole), ``"pdf"``, ``"tiff"`` (a page of a multi-page TIFF) or
    ``"text"`` (a puzzle text file). ``page`` is 1-based, None when the file failed before its pages were
    known (``error`` then says why). ``rel`` is the input's name relative to its folder argument (POSIX).
    """

    path: str
    page: Optional[int]
    pages: int
    form: str
    rel: str
    error: Optional[str] = None
    exit_code: int = 0

    @property
    def name(self) -> str:
        return self.path if self.page is None else f"{self.path}#{self.page}"

    @property
    def key(self) -> tuple[str, Optional[int]]:
        return (self.path, self.page)


def file_form(path: Path) -> str:
    """``"image"``, ``"tiff"``, ``"pdf"`` or ``"text"`` (raises ``InputError`` like ``inputs.sniff_file``)."""
    what = inputs.sniff_file(path)
    return "tiff" if what == "image" and inputs.is_tiff(path) else what


def pdf_pages(path: Path) -> int:
    """Pages in the PDF at ``path``; ``InputError`` for an encrypted, broken or empty document."""
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as err:
        text = str(err)
        if "password" in text.lower():
            raise InputError(f"{path}: the PDF is encrypted (a password is needed)") from None
        raise InputError(f"{path}: not a PDF we can open ({text})") from None
    try:
        n = len(doc)
    finally:
        doc.close()
    if n == 0:
        raise InputError(f"{path}: the PDF has no pages")
    return n


def tiff_pages(path: Path) -> int:
    """Frames in the TIFF at ``path``; ``InputError`` when Pillow cannot read its headers."""
    from PIL import Image

    try:
        with Image.open(path) as im:
            return int(getattr(im, "n_frames", 1))
    except Exception as err:  # Pillow raises several types for broken headers
        raise InputError(f"{path}: not a TIFF we can read ({type(err).__name__}: {err})") from None


def units_of(path: Path, rel: str) -> list[Unit]:
    """The units of one input file (a failed unit with ``error`` set when it cannot be opened)."""
    try:
        form = file_form(path)
        pages = 1
        if form == "pdf":
            pages = pdf_pages(path)
        elif form == "tiff":
            pages = tiff_pages(path)
            if pages == 1:
                form = "image"  # one page: read whole by the photo loader, like any image
    except ScanSolveError as err:
        return [Unit(str(path), None, 0, "unknown", rel, error=str(err), exit_code=int(err.exit_code))]
    return [Unit(str(path), page, pages, form, rel) for page in range(1, pages + 1)]


def _listed(files: list[str], glob: str | None) -> Iterator[tuple[Path, str] | Unit]:
    """Each argument's files (see ``inputs.expand_with_roots``); a failed unit for an empty or unlistable
    folder, so one bad argument does not stop the others."""
    for name in files:
        try:
            found = list(inputs.expand_with_roots([name], glob=glob))
        except ScanSolveError as err:
            yield Unit(name, None, 0, "unknown", Path(name).name, error=str(err), exit_code=int(err.exit_code))
            continue
        yield from found


def make_units(files: list[str], *, glob: str | None = None) -> Iterator[Unit]:
    """Every unit of the inputs, in input order (folders expanded recursively, sorted).

    Two inputs with the same relative name (``a/p.jpg`` and ``b/p.jpg`` given as files) get distinct ``rel``
    names (``p.jpg``, ``_2/p.jpg``) so their outputs do not collide under ``--out``.
    """
    seen: set[str] = set()
    for item in _listed(files, glob):
        if isinstance(item, Unit):
            yield item
            continue
        path, rel = item
        if str(path) == "-":
            yield Unit("-", 1, 1, "text", "-")
            continue
        base, k = rel, 1
        while rel in seen:  # same name from two inputs: the later one's outputs go to a numbered subfolder
            k += 1
            rel = f"_{k}/{base}"
        seen.add(rel)
        yield from units_of(path, rel)
