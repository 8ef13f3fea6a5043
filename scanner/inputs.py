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


def read_text(path: Path) -> str:
    """The file's text (UTF-8, or Latin-1 as a fallback); ``InputError`` for binary data."""
    data = path.read_bytes()
    if b"\x00" in data:
        raise InputError(f"{path}: binary data, neither a puzzle text nor an image we can read")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def expand(paths: list[str]) -> Iterator[Path]:
    """The inputs in order, folders replaced by the images and PDFs they hold (recursively, sorted)."""
    for name in paths:
        path = Path(name)
        if name != "-" and path.is_dir():
            found = sorted(
                p for p in path.rglob("*")
                if p.is_file() and (p.suffix.lower() in IMAGE_SUFFIXES or p.suffix.lower() == ".pdf")
                and ".solved." not in p.name
            )
            if not found:
                raise InputError(f"{path}: the folder holds no images")
            yield from found
        else:
            yield path


def is_same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
