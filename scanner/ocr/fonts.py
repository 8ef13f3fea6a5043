"""The installed fonts that draw the digits, and their glyphs rendered once at high resolution.

Used only for training (``scanner.ocr.train``) and tests: the fonts are found
with ``fc-list``, each digit is rendered with Pillow at ``SIZE`` px, and fonts
whose digits look the same as an already accepted font's (the many Noto script
fonts share Noto Sans' digits) are dropped.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

#: Font size in pixels of the master renderings.
SIZE = 64
#: Font families kept out of training, to measure how the model does on unseen type.
HELD_OUT_FAMILIES = ("URW Gothic", "Noto Serif Display")
#: Symbol and picture fonts whose code points for the digits draw something else.
NOT_DIGITS = ("Standard Symbols", "D050000L", "Symbols", "Nushu", "Dingbats", "Emoji")


@dataclass(frozen=True)
class Font:
    path: str
    family: str
    style: str

    @property
    def name(self) -> str:
        return f"{self.family} {self.style}".strip()


def installed_fonts() -> list[Font]:
    """Every TrueType/OpenType font ``fc-list`` knows, sorted by path (deterministic)."""
    try:
        out = subprocess.run(["fc-list", "--format", "%{file}|%{family[0]}|%{style[0]}\n"],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    fonts = {}
    for line in out.splitlines():
        parts = line.split("|")
        if len(parts) != 3 or not parts[0].lower().endswith((".ttf", ".otf")):
            continue
        if any(bad in parts[1] for bad in NOT_DIGITS):
            continue
        fonts[parts[0]] = Font(*parts)
    return [fonts[p] for p in sorted(fonts)]


def render(font: Font, text: str, *, size: int = SIZE) -> np.ndarray | None:
    """``text`` in ``font`` as a tightly cropped uint8 ink mask (255 = ink), or None."""
    from PIL import Image, ImageDraw, ImageFont

    try:
        pil_font = ImageFont.truetype(font.path, size)
    except OSError:
        return None
    left, top, right, bottom = pil_font.getbbox(text)
    if right <= left or bottom <= top:
        return None
    img = Image.new("L", (right - left + 8, bottom - top + 8), 0)
    ImageDraw.Draw(img).text((4 - left, 4 - top), text, font=pil_font, fill=255)
    arr = np.asarray(img)
    ys, xs = np.nonzero(arr > 32)
    if len(ys) == 0:
        return None
    return arr[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


def _signature(glyphs: list[np.ndarray]) -> np.ndarray:
    return np.concatenate([cv2.resize(g, (12, 16), interpolation=cv2.INTER_AREA).ravel() / 255.0 for g in glyphs])


def digit_fonts(symbols: str = "0123456789", *, tolerance: float = 0.04) -> dict[str, dict[str, np.ndarray]]:
    """Font name -> {symbol: master glyph} for the fonts that draw all ``symbols`` distinctly.

    A font is left out when one of its glyphs is missing (drawn as the same
    box as an unassigned code point), or when its glyphs differ from an already
    accepted font's by less than ``tolerance`` (mean absolute difference).
    """
    accepted: dict[str, dict[str, np.ndarray]] = {}
    signatures: list[np.ndarray] = []
    for font in installed_fonts():
        glyphs = [render(font, s) for s in symbols]
        if any(g is None for g in glyphs):
            continue
        missing = render(font, "\ue000")
        sig = _signature(glyphs)  # type: ignore[arg-type]
        if missing is not None and any(g.shape == missing.shape and np.array_equal(g, missing) for g in glyphs):
            continue
        per = sig.reshape(len(symbols), -1)
        if min(np.abs(per[i] - per[j]).mean() for i in range(len(symbols)) for j in range(i)) < 0.02:
            continue  # two symbols drawn alike: placeholder boxes
        if any(np.abs(sig - other).mean() < tolerance for other in signatures):
            continue
        signatures.append(sig)
        accepted[font.name if font.name not in accepted else f"{font.name} ({Path(font.path).stem})"] = dict(
            zip(symbols, glyphs))  # type: ignore[arg-type]
    return accepted


def is_held_out(name: str) -> bool:
    return any(name.startswith(f) for f in HELD_OUT_FAMILIES)
