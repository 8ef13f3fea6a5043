"""A printed Takuzu (binairo): ruled cells holding 0/1 digits, or black (1) and white (0) circles."""
from __future__ import annotations

import numpy as np
from PIL import ImageDraw

from . import fonts, ink
from solver.puzzle import Puzzle


def random_style(rng: np.random.Generator, puzzle: Puzzle) -> dict:
    font = fonts.pick(rng, serif=bool(rng.random() < 0.3), bold=bool(rng.random() < 0.5), condensed=False)
    circles = rng.random() < 0.35
    return {
        "layout": "ruled",
        "symbols": "circles (black = 1, white = 0)" if circles else "digits",
        "font": font.name if font else None, "font_tags": font.tags() if font else [],
        "_font_path": font.path if font else None,
        "digit_scale": float(rng.uniform(0.5, 0.72)),
        "circle_scale": float(rng.uniform(0.55, 0.8)),
        "thin_mm": float(rng.uniform(0.1, 0.3)),
        "outer_ratio": float(rng.uniform(1.0, 3.5)),
        "shaded_givens": bool(rng.random() < 0.15),
        "shade": list(ink.shade(rng, colour=bool(rng.random() < 0.3))),
    }


def render(canvas, puzzle: Puzzle, style: dict, *, x: float, y: float, side: float, ppm: float) -> list[list[float]]:
    draw = ImageDraw.Draw(canvas)
    n = puzzle.size
    cell = side / n
    thin = max(1, int(round(style["thin_mm"] * ppm)))
    outer = max(thin, int(round(thin * style["outer_ratio"])))
    if style["shaded_givens"]:
        for r in range(n):
            for c in range(n):
                if puzzle.givens[r][c] is not None:
                    draw.rectangle([x + c * cell, y + r * cell, x + (c + 1) * cell, y + (r + 1) * cell],
                                   fill=tuple(style["shade"]))
    xs = [ink.vline(draw, x + i * cell, y - outer / 2, y + side + outer / 2, outer if i in (0, n) else thin)
          for i in range(n + 1)]
    ys = [ink.hline(draw, y + i * cell, x - outer / 2, x + side + outer / 2, outer if i in (0, n) else thin)
          for i in range(n + 1)]
    circles = style["symbols"].startswith("circles")
    font = fonts.load(fonts.Font(style["_font_path"], False, False, False) if style["_font_path"] else None,
                      cell * style["digit_scale"] * 1.3)
    ring = max(1, int(round(cell * 0.06)))
    for r in range(n):
        for c in range(n):
            v = puzzle.givens[r][c]
            if v is None:
                continue
            cx, cy = (xs[c] + xs[c + 1]) / 2, (ys[r] + ys[r + 1]) / 2
            if circles:
                rad = cell * style["circle_scale"] / 2
                ink.ellipse(draw, cx, cy, rad, fill=ink.INK if v == 1 else (255, 255, 255), outline=ink.INK, width=ring)
            else:
                ink.text_centred(draw, str(v), font, cx, cy)
    return [[xs[0], ys[0]], [xs[n], ys[0]], [xs[n], ys[n]], [xs[0], ys[n]]]
