"""The printing fonts: the TrueType/OpenType files of Debian's font packages, tagged by style.

A font is picked by role (``digits``, ``body``, ``headline``, ``label``) from a
seeded ``numpy.random.Generator`` so that a seed always gives the same page.
The catalogue is the sorted list of installed files whose names we know; when
none is installed (a user machine without the packages) Pillow's own scalable
default font stands in.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from PIL import ImageFont

FONT_DIRS = (
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/truetype/liberation2",
    "/usr/share/fonts/truetype/liberation",
    "/usr/share/fonts/truetype/freefont",
    "/usr/share/fonts/opentype/urw-base35",
    "/usr/share/fonts/truetype/noto",
)
# Families whose look suits printed puzzles and newspaper text (no mono, math, italics or symbols).
_KNOWN = re.compile(
    r"^(DejaVu(Sans|Serif)(Condensed)?|Liberation(Sans|Serif)|Free(Sans|Serif)(Bold)?|NimbusSans(Narrow)?|NimbusRoman"
    r"|C059|P052|URWBookman|URWGothic|Noto(Sans|Serif))(-(Regular|Bold|Roman|Book|Demi|Light))?\.(ttf|otf)$"
)


@dataclass(frozen=True)
class Font:
    path: str
    serif: bool
    bold: bool
    condensed: bool

    @property
    def name(self) -> str:
        return Path(self.path).stem

    def tags(self) -> list[str]:
        return [t for t, on in (("serif", self.serif), ("sans", not self.serif),
                                ("bold", self.bold), ("condensed", self.condensed)) if on]


def _classify(path: Path) -> Font:
    stem = path.stem
    serif = bool(re.search(r"Serif|Roman|C059|P052|Bookman", stem))
    bold = bool(re.search(r"Bold|Demi", stem))
    condensed = bool(re.search(r"Condensed|Narrow", stem))
    return Font(str(path), serif, bold, condensed)


@functools.lru_cache(maxsize=1)
def catalogue() -> tuple[Font, ...]:
    """Every known installed font, sorted by path (stable across runs)."""
    found = []
    for d in FONT_DIRS:
        p = Path(d)
        if p.is_dir():
            found += [f for f in p.iterdir() if _KNOWN.match(f.name)]
    return tuple(_classify(f) for f in sorted(found))


def pick(rng, *, serif=None, bold=None, condensed=None) -> Font | None:
    """A random font with the given tags (None: either); any font when none has them; None when none installed."""
    fonts = catalogue()
    if not fonts:
        return None
    ok = [f for f in fonts if (serif is None or f.serif == serif) and (bold is None or f.bold == bold)
          and (condensed is None or f.condensed == condensed)]
    pool = ok or list(fonts)
    return pool[int(rng.integers(len(pool)))]


@functools.lru_cache(maxsize=256)
def _load(path: str | None, size: int):
    if path is None:
        return ImageFont.load_default(size=size)
    return ImageFont.truetype(path, size)


def load(font: Font | None, size: float) -> ImageFont.FreeTypeFont:
    """The font at ``size`` pixels (em size), cached per process."""
    return _load(font.path if font else None, max(4, int(round(size))))


def load_like(font, size: float):
    """``font`` (as returned by ``load``) at another size."""
    path = getattr(font, "path", None)
    return _load(path if isinstance(path, str) else None, max(4, int(round(size))))
