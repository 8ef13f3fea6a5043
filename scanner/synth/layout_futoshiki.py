"""A printed Futoshiki in either common layout.

``boxes``: separate square cells with the inequality signs in the gaps between
them; ``lattice``: one ruled grid with the signs sitting on the cell borders.
Signs are font glyphs (``<`` turned for vertical pairs), drawn chevrons, or
``V``/caret shapes for vertical pairs. The tip of a sign points at the smaller cell.
"""
from __future__ import annotations

import numpy as np
from PIL import ImageDraw

from . import fonts, ink
from solver.puzzle import Puzzle

SIGN_STYLES = ("glyph", "chevron", "vcaret")


def random_style(rng: np.random.Generator, puzzle: Puzzle) -> dict:
    font = fonts.pick(rng, serif=bool(rng.random() < 0.35), bold=bool(rng.random() < 0.5), condensed=False)
    sign_font = fonts.pick(rng, serif=bool(rng.random() < 0.3), bold=bool(rng.random() < 0.6), condensed=False)
    layout = "boxes" if rng.random() < 0.5 else "lattice"
    return {
        "layout": layout,
        "signs": SIGN_STYLES[int(rng.integers(3))],
        "font": font.name if font else None, "font_tags": font.tags() if font else [],
        "_font_path": font.path if font else None,
        "_sign_font_path": sign_font.path if sign_font else None,
        "sign_font": sign_font.name if sign_font else None,
        "digit_scale": float(rng.uniform(0.5, 0.72)),
        "gap_ratio": float(rng.uniform(0.35, 0.75)),
        "sign_scale": float(rng.uniform(0.28, 0.42)),
        "thin_mm": float(rng.uniform(0.15, 0.4)),
        "outer_ratio": float(rng.uniform(1.0, 3.0)),
        "knockout": bool(rng.random() < 0.6),
        "shaded_givens": bool(rng.random() < 0.1),
        "shade": list(ink.shade(rng, colour=bool(rng.random() < 0.3))),
    }


def _direction(rel) -> str:
    horizontal = rel.a[0] == rel.b[0]
    if horizontal:
        return "left" if rel.op == "<" else "right"
    return "up" if rel.op == "<" else "down"


def _sign(canvas, draw, style, direction, cx, cy, size, stroke):
    if style["signs"] == "chevron":
        ink.chevron(draw, cx, cy, size * 0.8, direction, stroke, opening=0.5)
        return
    font = fonts.load(fonts.Font(style["_sign_font_path"], False, False, False) if style["_sign_font_path"] else None,
                      size * 1.6)
    mask = ink.sign_mask(style["signs"], direction, font, size)
    scale = size / max(mask.size)
    mask = mask.resize((max(1, round(mask.size[0] * scale)), max(1, round(mask.size[1] * scale))))
    ink.paste_centred(canvas, mask, cx, cy)


def render(canvas, puzzle: Puzzle, style: dict, *, x: float, y: float, side: float, ppm: float) -> list[list[float]]:
    draw = ImageDraw.Draw(canvas)
    n = puzzle.size
    thin = max(1, int(round(style["thin_mm"] * ppm)))
    boxes = style["layout"] == "boxes"
    gap_r = style["gap_ratio"] if boxes else 0.0
    cell = side / (n + (n - 1) * gap_r)
    pitch = cell * (1 + gap_r)
    starts = [i * pitch for i in range(n)]
    outer = max(thin, int(round(thin * style["outer_ratio"])))
    if style["shaded_givens"]:
        for r in range(n):
            for c in range(n):
                if puzzle.givens[r][c] is not None:
                    draw.rectangle([x + starts[c], y + starts[r], x + starts[c] + cell, y + starts[r] + cell],
                                   fill=tuple(style["shade"]))
    if boxes:
        # Each cell its own square: left/right edges of column j at starts[j] and starts[j] + cell.
        xl, xr, yt, yb = [], [], [], []
        for j in range(n):
            xl.append(ink.line_span(x + starts[j], thin)[2])
            xr.append(ink.line_span(x + starts[j] + cell, thin)[2])
            yt.append(ink.line_span(y + starts[j], thin)[2])
            yb.append(ink.line_span(y + starts[j] + cell, thin)[2])
        for r in range(n):
            for c in range(n):
                ink.vline(draw, xl[c], yt[r] - thin / 2, yb[r] + thin / 2, thin)
                ink.vline(draw, xr[c], yt[r] - thin / 2, yb[r] + thin / 2, thin)
                ink.hline(draw, yt[r], xl[c] - thin / 2, xr[c] + thin / 2, thin)
                ink.hline(draw, yb[r], xl[c] - thin / 2, xr[c] + thin / 2, thin)
        centres_x = [(a + b) / 2 for a, b in zip(xl, xr)]
        centres_y = [(a + b) / 2 for a, b in zip(yt, yb)]
        corners = [[xl[0], yt[0]], [xr[-1], yt[0]], [xr[-1], yb[-1]], [xl[0], yb[-1]]]
        sign_size = min(cell * gap_r * 0.9, cell * style["sign_scale"] * 1.2)
    else:
        xs = [ink.vline(draw, x + i * cell, y - outer / 2, y + side + outer / 2, outer if i in (0, n) else thin)
              for i in range(n + 1)]
        ys = [ink.hline(draw, y + i * cell, x - outer / 2, x + side + outer / 2, outer if i in (0, n) else thin)
              for i in range(n + 1)]
        centres_x = [(xs[i] + xs[i + 1]) / 2 for i in range(n)]
        centres_y = [(ys[i] + ys[i + 1]) / 2 for i in range(n)]
        corners = [[xs[0], ys[0]], [xs[n], ys[0]], [xs[n], ys[n]], [xs[0], ys[n]]]
        sign_size = cell * style["sign_scale"]
    stroke = max(1, int(round(sign_size * 0.12)))
    for rel in puzzle.relations:
        (r1, c1), (r2, c2) = rel.a, rel.b
        cx = (centres_x[c1] + centres_x[c2]) / 2
        cy = (centres_y[r1] + centres_y[r2]) / 2
        if not boxes and style["knockout"]:
            h = sign_size * 0.6
            draw.rectangle([cx - h, cy - h, cx + h, cy + h], fill=(255, 255, 255))
        _sign(canvas, draw, style, _direction(rel), cx, cy, sign_size, stroke)
    font = fonts.load(fonts.Font(style["_font_path"], False, False, False) if style["_font_path"] else None,
                      cell * style["digit_scale"] * 1.3)
    for r in range(n):
        for c in range(n):
            v = puzzle.givens[r][c]
            if v is not None:
                ink.text_centred(draw, str(v), font, centres_x[c], centres_y[r])
    return corners
