"""Newspaper page composition: puzzle blocks (title, difficulty, grid, rules) set among text columns,
headlines and halftone pictures.

Page geometry is planned in millimetres and drawn at ``ppm`` pixels per
millimetre on white paper (the camera or scanner adds the paper's tint).
Returns the page as an (H, W, 3) uint8 RGB array and, for each puzzle, the
exact grid corners in page pixels ``[[x, y], ...]`` (top-left first, clockwise).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw

from . import fonts, ink, layout_futoshiki, layout_sudoku, layout_takuzu, text

LAYOUTS = {"sudoku": layout_sudoku, "futoshiki": layout_futoshiki, "takuzu": layout_takuzu}


@dataclass
class Item:
    """One puzzle to print: the puzzle, its solution, the grid side in mm and its print style."""

    kind: str
    puzzle: object
    solution: list
    difficulty: str
    grid_mm: float
    style: dict = field(default_factory=dict)
    corners: list = field(default_factory=list)
    block: tuple = ()  #: (x0, y0, x1, y1) mm of the whole puzzle block on the page


def grid_mm(kind: str, size: int, rng) -> float:
    """A printed grid side in millimetres typical for the kind and size."""
    if kind == "sudoku":
        return float({4: rng.uniform(40, 65), 6: rng.uniform(50, 80), 9: rng.uniform(70, 120),
                      16: rng.uniform(110, 160)}[size])
    if kind == "futoshiki":
        return float(size * rng.uniform(10, 17))
    return float(min(150.0, size * rng.uniform(6.5, 11)))


def _halftone(rng, w: int, h: int, ppm: float) -> np.ndarray:
    """An (h, w) ink-coverage picture (0 paper .. 1 ink) screened as a 45-degree dot halftone."""
    small = rng.random((6, 6)).astype(np.float32)
    from cv2 import GaussianBlur, INTER_CUBIC, resize  # OpenCV only for image making

    tone = resize(small, (w, h), interpolation=INTER_CUBIC)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for _ in range(int(rng.integers(1, 4))):  # a few soft shapes: heads, buildings, cars from afar
        cx, cy, rx, ry = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.1, 0.4) * w, rng.uniform(0.1, 0.5) * h
        tone += float(rng.uniform(-0.6, 0.8)) * (((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2 < 1)
    tone = GaussianBlur(tone, (0, 0), max(1.0, 0.01 * w))
    tone = np.clip((tone - tone.min()) / (np.ptp(tone) + 1e-6) * rng.uniform(0.6, 1.0) + rng.uniform(0, 0.2), 0, 1)
    period = max(1.5, ppm / rng.uniform(3.0, 4.0))  # 75-100 lines per inch
    u = (xx + yy) / (period * np.sqrt(2))
    v = (xx - yy) / (period * np.sqrt(2))
    d = np.hypot(u - np.round(u), v - np.round(v))
    radius = np.sqrt(tone / np.pi)
    return np.clip((radius - d) * period + 0.5, 0, 1)


class _Columns:
    """The page's text columns and the vertical spans in each already taken."""

    def __init__(self, x0: float, width: float, col_w: float, gutter: float):
        self.lefts = []
        x = x0
        while x < x0 + width:
            self.lefts.append(x)
            x += col_w + gutter
        self.col_w, self.gutter = col_w, gutter
        self.taken: list[list[tuple[float, float]]] = [[] for _ in self.lefts]

    def take(self, x0: float, x1: float, y0: float, y1: float) -> None:
        for i, left in enumerate(self.lefts):
            if left < x1 and left + self.col_w > x0:
                self.taken[i].append((y0, y1))

    def free(self, i: int, top: float, bottom: float) -> list[tuple[float, float]]:
        spans, y = [], top
        for a, b in sorted(self.taken[i]):
            if a > y:
                spans.append((y, a))
            y = max(y, b)
        if y < bottom:
            spans.append((y, bottom))
        return spans


def _block_size(item: Item, rng) -> dict:
    g = item.grid_mm
    title_h = float(np.clip(g * rng.uniform(0.08, 0.13), 6, 14))
    rules_lines = int(rng.integers(0, 4)) if rng.random() < 0.7 else 0
    pad = float(rng.uniform(2, 6))
    return {"title_h": title_h, "rules_lines": rules_lines, "pad": pad,
            "w": g + 2 * pad, "h": title_h + g + rules_lines * 3.4 + 2 * pad + 2}


def _draw_block(canvas, draw, item: Item, geo: dict, x0: float, y0: float, ppm: float, rng) -> None:
    """Title bar, difficulty label, the grid and the rules text; sets ``item.corners`` and ``item.block``."""
    P = lambda v: v * ppm  # noqa: E731 (mm to px)
    w, h, pad, title_h = geo["w"], geo["h"], geo["pad"], geo["title_h"]
    colour_bar = rng.random() < 0.3
    bar_rgb = tuple(int(v) for v in [(190, 30, 60), (20, 70, 150), (30, 30, 30), (200, 90, 20), (120, 40, 140)][int(rng.integers(5))])
    tfont = fonts.load(fonts.pick(rng, bold=True, condensed=None), P(title_h * 0.7))
    lfont = fonts.load(fonts.pick(rng, bold=bool(rng.random() < 0.5)), P(title_h * 0.5))
    title = text.TITLES[item.kind][int(rng.integers(len(text.TITLES[item.kind])))]
    level = text.LEVELS[item.difficulty][int(rng.integers(len(text.LEVELS[item.difficulty])))]
    if rng.random() < 0.3:
        level = f"{level}   Nr. {int(rng.integers(100, 9999))}"
    ty = y0 + pad
    if colour_bar:
        draw.rectangle([P(x0), P(ty), P(x0 + w), P(ty + title_h)], fill=bar_rgb)
        fg = (255, 255, 255)
    else:
        fg = bar_rgb if rng.random() < 0.35 else ink.INK
    room = P(w - 2 * pad) * 0.92
    used = tfont.getlength(title) + lfont.getlength(level)
    if used > room:  # a narrow block: smaller title and label
        tfont = fonts.load_like(tfont, tfont.size * room / used)
        lfont = fonts.load_like(lfont, lfont.size * room / used)
    draw.text((P(x0 + pad), P(ty + title_h / 2)), title, font=tfont, fill=fg, anchor="lm")
    draw.text((P(x0 + w - pad), P(ty + title_h / 2)), level, font=lfont, fill=fg, anchor="rm")
    gx, gy = x0 + (w - item.grid_mm) / 2, ty + title_h + 2
    item.corners = LAYOUTS[item.kind].render(canvas, item.puzzle, item.style, x=P(gx), y=P(gy), side=P(item.grid_mm), ppm=ppm)
    if geo["rules_lines"]:
        n = item.puzzle.size
        box = f"{item.puzzle.box[0]}x{item.puzzle.box[1]}" if item.puzzle.box else ""
        sym = "0 or 1" if not item.style.get("symbols", "").startswith("circles") else "a black or a white circle"
        rules = text.RULES[item.kind].format(n=n, box=box, sym=sym)
        rfont = fonts.load(fonts.pick(rng, serif=bool(rng.random() < 0.5), bold=False), P(2.6))
        for i, line in enumerate(text.wrap(rules, rfont, P(item.grid_mm))[: geo["rules_lines"]]):
            draw.text((P(gx), P(gy + item.grid_mm + 2 + i * 3.4)), line, font=rfont, fill=ink.INK)
    if rng.random() < 0.4:
        draw.rectangle([P(x0), P(y0), P(x0 + w), P(y0 + h)], outline=ink.INK, width=max(1, int(P(0.25))))
    item.block = (x0, y0, x0 + w, y0 + h)


def _fill_column(canvas, draw, rng, x: float, col_w: float, y0: float, y1: float, ppm: float, body: dict) -> None:
    P = lambda v: v * ppm  # noqa: E731
    y = y0
    while y < y1 - 3:
        r = rng.random()
        if r < 0.12 and y1 - y > 25:  # headline
            hfont = fonts.load(body["head_font"], P(float(rng.uniform(4.5, 8))))
            for line in text.wrap(text.headline(rng), hfont, P(col_w))[:3]:
                draw.text((P(x), P(y)), line, font=hfont, fill=ink.INK)
                y += hfont.size / ppm * 1.15
            y += 2
        elif r < 0.22 and y1 - y > 35:  # halftone picture with caption
            ph = float(min(y1 - y - 8, rng.uniform(25, 70)))
            pw, phh = int(P(col_w)), int(P(ph))
            if pw > 4 and phh > 4:
                dots = _halftone(rng, pw, phh, ppm)
                region = np.asarray(canvas.crop((int(P(x)), int(P(y)), int(P(x)) + pw, int(P(y)) + phh)), np.float32)
                region *= (1 - 0.9 * dots)[..., None]
                canvas.paste(Image.fromarray(region.astype(np.uint8)), (int(P(x)), int(P(y))))
            y += ph + 1.5
            draw.text((P(x), P(y)), text.sentence(rng, 6)[: int(col_w / 1.6)], font=body["caption"], fill=ink.INK)
            y += 5
        else:  # a paragraph of justified body text
            lines = text.wrap(text.paragraph(rng), body["font"], P(col_w) - P(2.0))
            for k, line in enumerate(lines):
                if y > y1 - body["lead"]:
                    break
                indent = P(2.0) if k == 0 else 0
                s = line if k == len(lines) - 1 else text.justify(line, body["font"], P(col_w) - indent)
                draw.text((P(x) + indent, P(y)), s, font=body["font"], fill=ink.INK)
                y += body["lead"]
            y += body["lead"] * 0.3


def _solution_grid(canvas, draw, item: Item, cols: "_Columns", ppm: float, rng) -> dict | None:
    """A small filled grid ("yesterday's solution") in a free column beside the first puzzle: a distractor.

    It shows a solved grid of the same kind (the puzzle's solution transposed, so not this puzzle's answer).
    Returns ``{"what", "kind", "size", "corners"}`` (page pixels) or None when no column has room.
    """
    x0, y0, x1, _ = item.block
    side = min(cols.col_w * 0.8, item.grid_mm * 0.45)
    for i, left in enumerate(cols.lefts):
        if left < x1 + 0.5 or left > x1 + cols.col_w + cols.gutter + 1:
            continue
        for a, b in cols.free(i, y0, y0 + side + 14):
            if a <= y0 + 0.5 and b >= y0 + side + 12:
                from solver.puzzle import Puzzle

                n = item.puzzle.size
                grid = [list(row) for row in zip(*item.solution)]
                filled = Puzzle(kind=item.kind, size=n, givens=grid, box=item.puzzle.box)
                style = dict(item.style, shaded_givens=False, box_shading=False, layout="lattice"
                             if item.kind == "futoshiki" else item.style["layout"])
                cap = fonts.load(fonts.pick(rng, bold=True), 3.2 * ppm)
                draw.text((left * ppm, y0 * ppm), str(rng.choice(["Solution", "Lösung", "Yesterday's solution",
                                                                   "Solutions d'hier"])), font=cap, fill=ink.INK)
                corners = LAYOUTS[item.kind].render(canvas, filled, style, x=left * ppm, y=(y0 + 6) * ppm,
                                                    side=side * ppm, ppm=ppm)
                cols.take(left, left + cols.col_w, y0, y0 + side + 9)
                return {"what": "solution grid (distractor)", "kind": item.kind, "size": n, "corners": corners}
    return None


def compose(items: list[Item], rng: np.random.Generator, *, ppm: float, margins: tuple[float, float, float, float],
            extra_rng: np.random.Generator | None = None) -> tuple[np.ndarray, dict]:
    """The page around ``items`` (margins left, top, right, bottom in mm around the puzzle blocks).

    ``extra_rng`` (when given) decides on and draws a distractor: a small filled solution grid beside the puzzle.

    Fills ``item.corners`` (page pixels) and returns the page and a description of its style.
    """
    col_w = float(rng.uniform(38, 62))
    gutter = float(rng.uniform(3, 5.5))
    geos = [_block_size(it, rng) for it in items]
    side_by_side = len(items) == 2 and rng.random() < 0.6
    # Block positions relative to the first block's top-left (column-aligned).
    span = lambda w: int(np.ceil((w + gutter) / (col_w + gutter)))  # noqa: E731
    offsets, x, y = [], 0.0, 0.0
    for geo in geos:
        offsets.append((x, y))
        if side_by_side:
            x += span(geo["w"]) * (col_w + gutter)
        else:
            y += geo["h"] + float(rng.uniform(4, 20))
    bw = max((ox + span(g["w"]) * (col_w + gutter) - gutter for (ox, _), g in zip(offsets, geos)), default=0.0)
    bh = max((oy + g["h"] for (_, oy), g in zip(offsets, geos)), default=0.0)
    ml, mt, mr, mb = margins
    ncols_left = int(np.ceil(ml / (col_w + gutter)))
    left0 = ncols_left * (col_w + gutter) - ml  # mm of the leftmost column cut off by the page region
    width_mm, height_mm = ml + bw + mr, mt + bh + mb
    W, H = int(np.ceil(width_mm * ppm)), int(np.ceil(height_mm * ppm))
    canvas = Image.new("RGB", (W, H), (255, 255, 255))
    draw = ImageDraw.Draw(canvas)
    cols = _Columns(-left0, width_mm + left0, col_w, gutter)
    for it, geo, (ox, oy) in zip(items, geos, offsets):
        geo["w"] = span(geo["w"]) * (col_w + gutter) - gutter  # the block fills the columns it spans
        bx, by = ml + ox, mt + oy
        cols.take(bx - 1, bx + geo["w"] + 1, by - 3, by + geo["h"] + 3)
        _draw_block(canvas, draw, it, geo, bx, by, ppm, rng)
    distractors = []
    if items and extra_rng is not None and extra_rng.random() < 0.12:  # own generator: the page's draws stay put
        d = _solution_grid(canvas, draw, items[0], cols, ppm, extra_rng)
        if d:
            distractors.append(d)
    serif = bool(rng.random() < 0.75)
    body_mm = float(rng.uniform(2.6, 3.3))
    body = {
        "font": fonts.load(fonts.pick(rng, serif=serif, bold=False, condensed=None if rng.random() < 0.3 else False), body_mm * ppm),
        "caption": fonts.load(fonts.pick(rng, serif=not serif, bold=bool(rng.random() < 0.5)), 2.4 * ppm),
        "head_font": fonts.pick(rng, bold=True),
        "lead": body_mm * float(rng.uniform(1.1, 1.25)),
    }
    rules = rng.random() < 0.4
    for i, left in enumerate(cols.lefts):
        for a, b in cols.free(i, -float(rng.uniform(0, 8)), height_mm):
            _fill_column(canvas, draw, rng, left, col_w, a, b, ppm, body)
        if rules and i:  # a thin rule between two columns, where neither holds a puzzle block
            xr = (left - gutter / 2) * ppm
            for a, b in cols.free(i, 0, height_mm):
                for c, d in cols.free(i - 1, 0, height_mm):
                    if min(b, d) > max(a, c):
                        draw.line([(xr, max(a, c) * ppm), (xr, min(b, d) * ppm)], fill=ink.INK, width=max(1, int(0.2 * ppm)))
    page_style = {"column_mm": round(col_w, 1), "body_font": body["font"].getname()[0], "body_mm": round(body_mm, 2),
                  "column_rules": rules, "side_by_side": side_by_side if len(items) == 2 else None,
                  "distractors": distractors}
    return np.asarray(canvas), page_style
