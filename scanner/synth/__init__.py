"""Synthetic puzzle photos and scans with exact ground truth: the reader's test bed.

``render(kind, seed=...)`` prints one or two puzzles (from the solver's own
generators, proved unique) on a newspaper page and photographs it (``photo``),
scans it (``scan``) or returns the flat print (``print``). It returns the
image as an (H, W, 3) uint8 RGB array, its ground-truth record (see
``scanner.synth.truth``) and how to encode it. Everything is decided by one
``numpy.random.Generator`` seeded from ``seed``: the same seed gives the same
image. ``python -m scanner.synth --help`` writes folders of them.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from . import camera, page, puzzles, scan, truth

KINDS = ("sudoku", "futoshiki", "takuzu")
MODES = ("photo", "scan", "print")
_KIND_CODE = {k: i for i, k in enumerate(KINDS)}


def _item(kind: str, size: int | None, rng) -> page.Item:
    size = size or puzzles.pick_size(kind, rng)
    # 16x16 "hard" takes the generator seconds; papers rarely print them anyway.
    difficulty = str(rng.choice(puzzles.DIFFICULTIES[:2] if size >= 16 else puzzles.DIFFICULTIES))
    puzzle, solution = puzzles.make(kind, size, seed=int(rng.integers(2**31)), difficulty=difficulty)
    item = page.Item(kind, puzzle, solution, difficulty, page.grid_mm(kind, size, rng))
    item.style = page.LAYOUTS[kind].random_style(rng, puzzle)
    return item


def render(kind: str, *, seed: int, size: int | None = None, mode: str | None = None, name: str = "image.jpg",
           turn: int | None = None, style: dict | None = None, two: bool | None = None
           ) -> tuple[np.ndarray, dict, dict]:
    """One image of a ``kind`` puzzle: (RGB array, truth record, {"format": "jpg"|"png", "quality": q}).

    ``turn`` (0/90/180/270) forces the quarter turn of a photo or scan instead of drawing it at random;
    ``style`` overrides entries of the first puzzle's print style (e.g. ``{"layout": "boxes"}``);
    ``two`` forces a second puzzle on the page (True) or none (False).
    """
    rng = np.random.default_rng([seed, _KIND_CODE[kind]])
    mode = mode or str(rng.choice(["photo", "scan"], p=[0.75, 0.25]))
    items = [_item(kind, size, rng)]
    items[0].style.update(style or {})
    second = rng.random() < (0.15 if mode == "photo" else 0.3)
    if second if two is None else two:
        other = kind if rng.random() < 0.5 else str(rng.choice([k for k in KINDS if k != kind]))
        items.append(_item(other, None, rng))
    if mode == "photo":
        plan = camera.plan(rng, items[0].grid_mm)
    elif mode == "scan":
        plan = scan.plan(rng, items[0].grid_mm)
    else:
        m = float(rng.uniform(5, 25))
        plan = {"ppm": float(rng.uniform(7, 12)), "margins": (m, m, m, m)}
    img, page_style = page.compose(items, rng, ppm=plan["ppm"], margins=plan["margins"],
                                   extra_rng=np.random.default_rng([seed, _KIND_CODE[kind], 1]))
    extra = page_style.pop("distractors")
    grids = [np.asarray(it.corners, np.float64) for it in items] + [np.asarray(d["corners"], np.float64) for d in extra]
    if mode == "photo":
        img, corners, capture = camera.photograph(img, grids, rng, plan, turn=turn)
    elif mode == "scan":
        img, corners, capture = scan.scan(img, grids, rng, plan, turn=turn)
    else:
        corners, capture = grids, {"ppm": round(plan["ppm"], 3), "jpeg_quality": None}
    for d, c in zip(extra, corners[len(items):]):
        d["corners"] = [[round(float(x), 3), round(float(y), 3)] for x, y in c]
    corners = corners[:len(items)]
    page_style["distractors"] = extra
    quality = capture.get("jpeg_quality")
    fmt = {"format": "jpg" if quality else "png", "quality": quality}
    name = str(Path(name).with_suffix("." + fmt["format"]))
    h, w = img.shape[:2]
    rec = truth.record(items, corners, image=name, width=w, height=h, mode=mode, seed=seed,
                       page=page_style, capture=capture)
    return img, rec, fmt


def encode(img: np.ndarray, fmt: dict) -> bytes:
    bgr = cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
    if fmt["format"] == "jpg":
        ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(fmt["quality"])])
    else:
        ok, buf = cv2.imencode(".png", bgr, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    if not ok:
        raise RuntimeError("image encoding failed")
    return buf.tobytes()


def write_sample(out_dir: Path, stem: str, kind: str, *, seed: int, size: int | None = None,
                 mode: str | None = None, turn: int | None = None, long_side: int | None = None,
                 quality: int | None = None, style: dict | None = None, two: bool | None = None) -> Path:
    """Render and write ``stem.jpg|png`` and ``stem.json`` into ``out_dir``; returns the image path.

    ``long_side`` shrinks a larger image (corners scaled to match) and ``quality`` forces JPEG at that quality:
    both serve small committed samples.
    """
    out_dir = Path(out_dir)
    img, rec, fmt = render(kind, seed=seed, size=size, mode=mode, name=f"{stem}.jpg", turn=turn, style=style, two=two)
    if long_side and max(img.shape[:2]) > long_side:
        img, rec = shrink(img, rec, long_side)
    if quality:
        fmt = {"format": "jpg", "quality": quality}
        rec["image"] = f"{stem}.jpg"
        for p in rec["puzzles"]:
            p["source"] = rec["image"]
        rec["source"] = rec["image"]
        rec["capture"] = dict(rec["capture"], jpeg_quality=quality)
    path = out_dir / rec["image"]
    path.write_bytes(encode(img, fmt))
    truth.write(out_dir / f"{stem}.json", rec)
    return path


def shrink(img: np.ndarray, rec: dict, long_side: int) -> tuple[np.ndarray, dict]:
    """``img`` resized so that its long side is ``long_side``, with every corner in ``rec`` moved to match."""
    h, w = img.shape[:2]
    f = long_side / max(h, w)
    nw, nh = max(1, round(w * f)), max(1, round(h * f))
    small = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
    fx, fy = nw / w, nh / h  # OpenCV resize: x' = (x + 0.5) * fx - 0.5 (pixel centres on integers)
    move = lambda pts: [[round((x + 0.5) * fx - 0.5, 3), round((y + 0.5) * fy - 0.5, 3)] for x, y in pts]  # noqa: E731
    rec = dict(rec, width=nw, height=nh, corners=move(rec["corners"]))
    rec["puzzles"] = [dict(p, corners=move(p["corners"])) for p in rec["puzzles"]]
    rec["page"] = dict(rec["page"], distractors=[dict(d, corners=move(d["corners"])) for d in rec["page"].get("distractors", [])])
    rec["capture"] = dict(rec["capture"], resized_from=[w, h])
    return small, rec
