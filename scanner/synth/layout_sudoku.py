"""A printed Sudoku: ruled cells, box borders (clearly or barely thicker), givens, optional shading."""
from __future__ import annotations

import zlib

import numpy as np
from PIL import ImageDraw

from . import fonts, ink
from solver.puzzle import Puzzle


#: Share of 16x16 prints that give 10..16 as the letters A..G (the rest print the numbers 10..16).
LETTER_SHARE = 0.5
LETTERS = "ABCDEFG"  #: printed for 10..16 in a letter print (the text format's 1-9A-G)


def _symbol_style(puzzle: Puzzle) -> str:
    """How a 16x16 print writes 10..16: "letters" or "numbers". Drawn from its own random stream (seeded by the
    puzzle's givens, themselves fixed by the image's seed), so that adding this choice left every other random
    draw, hence every existing seed's image, as it was."""
    key = "".join(f"{v or 0:x}" for row in puzzle.givens for v in row).encode()
    return "letters" if np.random.default_rng(zlib.crc32(key)).random() < LETTER_SHARE else "numbers"


def printed(value: int, style: dict) -> str:
    """The text printed for ``value`` in a grid of ``style``."""
    if value >= 10 and style.get("symbols") == "letters":
        return LETTERS[value - 10]
    return str(value)


def random_style(rng: np.random.Generator, puzzle: Puzzle) -> dict:
    font = fonts.pick(rng, serif=bool(rng.random() < 0.35), bold=bool(rng.random() < 0.45),
                      condensed=None if rng.random() < 0.3 else False)
    barely = rng.random() < 0.25
    thin = float(rng.uniform(0.12, 0.35))
    style = {
        "layout": "ruled",
        "font": font.name if font else None, "font_tags": font.tags() if font else [],
        "_font_path": font.path if font else None,
        "digit_scale": float(rng.uniform(0.5, 0.75) if puzzle.size <= 9 else rng.uniform(0.42, 0.55)),
        "thin_mm": thin,
        "box_ratio": float(rng.uniform(1.15, 1.5) if barely else rng.uniform(2.2, 4.5)),
        "box_borders": "barely thicker" if barely else "thick",
        "outer_ratio": float(rng.uniform(1.0, 1.6)),
        "shaded_givens": bool(rng.random() < 0.2),
        "box_shading": bool(rng.random() < 0.1),
        "shade": list(ink.shade(rng, colour=bool(rng.random() < 0.4))),
        "line_grey": int(rng.integers(0, 90)) if rng.random() < 0.3 else 0,
    }
    if puzzle.size > 9:
        style["symbols"] = _symbol_style(puzzle)
    return style


def render(canvas, puzzle: Puzzle, style: dict, *, x: float, y: float, side: float, ppm: float) -> list[list[float]]:
    """Draw ``puzzle`` with its top-left outer corner near ``(x, y)``; returns the 4 corners (centre of the outer line)."""
    draw = ImageDraw.Draw(canvas)
    n = puzzle.size
    br, bc = puzzle.box or (n, n)
    cell = side / n
    thin = max(1, int(round(style["thin_mm"] * ppm)))
    thick = max(thin + (1 if style["box_ratio"] > 1.1 else 0), int(round(thin * style["box_ratio"])))
    outer = max(thick, int(round(thick * style["outer_ratio"])))
    g = style["line_grey"]
    line_ink = (g, g, g)
    shade = tuple(style["shade"])
    if style["box_shading"]:
        for R in range(n // br):
            for C in range(n // bc):
                if (R + C) % 2:
                    draw.rectangle([x + C * bc * cell, y + R * br * cell, x + (C + 1) * bc * cell, y + (R + 1) * br * cell],
                                   fill=shade)
    if style["shaded_givens"]:
        for r in range(n):
            for c in range(n):
                if puzzle.givens[r][c] is not None:
                    draw.rectangle([x + c * cell, y + r * cell, x + (c + 1) * cell, y + (r + 1) * cell], fill=shade)
    xs, ys = [], []
    for i in range(n + 1):
        w = outer if i in (0, n) else thick if i % bc == 0 else thin
        xs.append(ink.vline(draw, x + i * cell, y - outer / 2, y + side + outer / 2, w, fill=line_ink if w == thin else ink.INK))
    for i in range(n + 1):
        w = outer if i in (0, n) else thick if i % br == 0 else thin
        ys.append(ink.hline(draw, y + i * cell, x - outer / 2, x + side + outer / 2, w, fill=line_ink if w == thin else ink.INK))
    font = fonts.load(fonts.Font(style["_font_path"], False, False, False) if style["_font_path"] else None,
                      cell * style["digit_scale"] * 1.3)
    for r in range(n):
        for c in range(n):
            v = puzzle.givens[r][c]
            if v is not None:
                ink.text_centred(draw, printed(v, style), font, (xs[c] + xs[c + 1]) / 2, (ys[r] + ys[r + 1]) / 2)
    return [[xs[0], ys[0]], [xs[n], ys[0]], [xs[n], ys[n]], [xs[0], ys[n]]]
