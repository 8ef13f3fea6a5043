"""What an input path is: an image, a PDF, a text puzzle file, or a folder of them."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from solver.errors import InputError

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".bmp", ".jpe", ".jfif"}
_MAGIC = (
    (b"\xff\xd8\xff", "image"),
    (b"\x89PNG\r\n\x1a\n", "image"),
    (b"II*\x00", "image"),
    (b"MM\x00*", "image"),
    (b"BM", "image"),
    (b"%PDF", "pdf"),
    (b"GIF8", "image"),
)


def sniff_file(path: Path) -> str:
    """``"image"``, ``"pdf"`` or ``"text"`` from the file's first bytes (its name only breaks ties).

    Raises ``InputError`` for a missing, unreadable or empty file, and for a file
    named like an image whose content is not one.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read it ({err.strerror or err})") from None
    if not head:
        raise InputError(f"{path}: the file is empty")
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image"
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return what
    if path.suffix.lower() in IMAGE_SUFFIXES:
        raise InputError(f"{path}: not an image (its content is not {path.suffix.lower()[1:].upper()} data)")
    return "text"


def is_tiff(path: Path) -> bool:
    """Whether the file at ``path`` starts like a TIFF (either byte order)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) in (b"II*\x00", b"MM\x00*")
    except OSError:
        return False


def read_text(path: Path) -> str:
    """The file's text (UTF-8, or Latin-1 as a fallback); ``InputError`` for binary data."""
    data = path.read_bytes()
    if b"\x00" in data:
        raise InputError(f"{path}: binary data, neither a puzzle text nor an image we can read")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _folder_files(folder: Path, glob: str | None) -> list[Path]:
    """Files under ``folder`` (recursive, sorted): images and PDFs, or those matching ``glob``; never overlays."""
    if glob:
        found = (p for p in folder.rglob(glob) if p.is_file())
    else:
        found = (p for p in folder.rglob("*")
                 if p.is_file() and (p.suffix.lower() in IMAGE_SUFFIXES or p.suffix.lower() == ".pdf"))
    return sorted(p for p in found if ".solved." not in p.name and not p.name.startswith("."))


def expand_with_roots(paths: list[str], *, glob: str | None = None) -> Iterator[tuple[Path, str]]:
    """``(file, relative name)`` for every input in order: a folder gives the files it holds (recursively,
    sorted; images and PDFs, or the files matching ``glob``), each named relative to that folder; a file is
    named by its own name. The relative name (POSIX separators) is where its outputs go under ``--out``."""
    for name in paths:
        path = Path(name)
        if name != "-" and path.is_dir():
            found = _folder_files(path, glob)
            if not found:
                what = f"no files matching {glob!r}" if glob else "no images"
                raise InputError(f"{path}: the folder holds {what}")
            for p in found:
                yield p, p.relative_to(path).as_posix()
        else:
            yield path, path.name


def expand(paths: list[str], *, glob: str | None = None) -> Iterator[Path]:
    """The inputs in order, folders replaced by the images and PDFs they hold (recursively, sorted)."""
    for path, _ in expand_with_roots(paths, glob=glob):
        yield path


def is_same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
