"""Drawing primitives for printed pages (Pillow): ruled lines with known centres, centred glyphs, signs.

Coordinates are page pixels ``(x, y)`` with pixel centres on integers (OpenCV's
convention). A ruled line is a filled rectangle of whole pixels; the functions
return the exact centre of the ink they drew, so that grid corners are known
to a fraction of a pixel.
"""
from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from . import fonts

INK = (22, 22, 24)


def line_span(pos: float, width: int) -> tuple[int, int, float]:
    """The first and last pixel of a ``width``-pixel line centred near ``pos``, and its exact centre."""
    first = int(round(pos - (width - 1) / 2))
    last = first + width - 1
    return first, last, (first + last) / 2


def vline(draw: ImageDraw.ImageDraw, x: float, y0: float, y1: float, width: int, fill=INK) -> float:
    """A vertical line from ``y0`` to ``y1``; returns its centre x."""
    a, b, centre = line_span(x, width)
    draw.rectangle([a, int(round(y0)), b, int(round(y1))], fill=fill)
    return centre


def hline(draw: ImageDraw.ImageDraw, y: float, x0: float, x1: float, width: int, fill=INK) -> float:
    """A horizontal line from ``x0`` to ``x1``; returns its centre y."""
    a, b, centre = line_span(y, width)
    draw.rectangle([int(round(x0)), a, int(round(x1)), b], fill=fill)
    return centre


def text_centred(draw: ImageDraw.ImageDraw, text: str, font, cx: float, cy: float, fill=INK) -> None:
    """``text`` with its ink box centred on ``(cx, cy)`` (digits sit in the middle of their cell)."""
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    draw.text((cx - (left + right) / 2, cy - (top + bottom) / 2), text, font=font, fill=fill)


def glyph_mask(text: str, font, *, rotate: int = 0) -> Image.Image:
    """An 'L' mask of ``text``'s ink, cropped, rotated by ``rotate`` degrees counter-clockwise (multiples of 90)."""
    left, top, right, bottom = font.getbbox(text)
    im = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(im).text((2 - left, 2 - top), text, font=font, fill=255)
    im = im.crop(im.getbbox() or (0, 0, 1, 1))
    return im.rotate(rotate, expand=True) if rotate else im


def paste_centred(canvas: Image.Image, mask: Image.Image, cx: float, cy: float, fill=INK) -> None:
    w, h = mask.size
    canvas.paste(fill, (int(round(cx - w / 2)), int(round(cy - h / 2))), mask)


def chevron(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, direction: str, width: int,
            fill=INK, *, opening: float = 0.55) -> None:
    """A drawn chevron pointing ``direction`` (``left``/``right``/``up``/``down``): two strokes meeting at the tip.

    The tip points at the smaller cell, as the printed ``<`` does.
    """
    h = size / 2
    s = h * opening
    pts = {
        "left": [(cx + h, cy - s * 2), (cx - h, cy), (cx + h, cy + s * 2)],
        "right": [(cx - h, cy - s * 2), (cx + h, cy), (cx - h, cy + s * 2)],
        "up": [(cx - s * 2, cy + h), (cx, cy - h), (cx + s * 2, cy + h)],
        "down": [(cx - s * 2, cy - h), (cx, cy + h), (cx + s * 2, cy - h)],
    }[direction]
    draw.line(pts, fill=fill, width=width, joint="curve")


def sign_mask(kind: str, direction: str, font, size: float) -> Image.Image:
    """A glyph-made sign pointing ``direction``: ``glyph`` uses ``<``/``>`` turned for vertical pairs, ``vcaret`` uses ``V``."""
    rotate = {"left": 0, "up": -90, "right": 180, "down": 90}[direction]
    if kind == "vcaret" and direction in ("up", "down"):
        return glyph_mask("V", font, rotate=0 if direction == "down" else 180)
    return glyph_mask("<", font, rotate=rotate)


def ellipse(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, *, fill=None, outline=None, width: int = 1):
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=fill, outline=outline, width=width)


def shade(rng: np.random.Generator, *, colour: bool) -> tuple[int, int, int]:
    """A light tint for shaded cells: grey, or a pale spot colour."""
    if not colour:
        g = int(rng.integers(196, 232))
        return (g, g, g)
    base = np.array([(200, 220, 245), (250, 235, 190), (235, 210, 225), (215, 235, 210)][int(rng.integers(4))])
    return tuple(int(v) for v in np.clip(base + rng.integers(-10, 10, 3), 0, 255))


def font_for(rng, style: dict):
    return fonts.Font(style["font"], style.get("serif", False), style.get("bold", False), False) if style.get("font") else None
