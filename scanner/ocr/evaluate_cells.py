"""Measure the digit-reading engines on real cells cut from the labelled Sudoku photos.

    python -m scanner.ocr.evaluate_cells [--per-cell-photos 10] [--cv 5]

For every photo the engines read the same 81 cells one after the other, so
their timings are measured side by side under the same machine load. Printed
per engine: accuracy on the cells holding a digit, the empty-vs-digit
confusion, the misread pairs, whole grids read exactly, the correct label
among the first two candidates, and milliseconds per grid. ``--cv K`` also
trains K models on fonts + the other folds' photos (folds group photos of the
same puzzle; ``--cv-by series`` holds out a whole camera series instead) and
compares them with the font-only model on each held-out fold.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .engine import EMPTY, Reading
from .realcells import PhotoCells, load_photos

DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "sudoku_photos" / "train"
ALPHABET = "123456789"


@dataclass
class Tally:
    name: str
    cells: int = 0
    digits: int = 0
    digits_right: int = 0
    empties: int = 0
    empty_as_digit: int = 0
    digit_as_empty: int = 0
    digit_as_digit: int = 0
    all_right: int = 0
    top2: int = 0
    grids: int = 0
    grids_exact: int = 0
    ms: list[float] = field(default_factory=list)
    pairs: Counter = field(default_factory=Counter)

    def add(self, truth: list[str], readings: list[Reading], ms: float | None = None) -> None:
        exact = True
        for t, r in zip(truth, readings):
            got = r[0][0]
            self.cells += 1
            self.all_right += got == t
            self.top2 += t in (r[0][0], r[1][0] if len(r) > 1 else None)
            exact &= got == t
            if t == EMPTY:
                self.empties += 1
                self.empty_as_digit += got != EMPTY
            else:
                self.digits += 1
                self.digits_right += got == t
                self.digit_as_empty += got == EMPTY
                if got not in (t, EMPTY):
                    self.digit_as_digit += 1
                    self.pairs[(t, got)] += 1
            if t == EMPTY and got != EMPTY:
                self.pairs[(t, got)] += 1
            elif got == EMPTY and t != EMPTY:
                self.pairs[(t, got)] += 1
        self.grids += 1
        self.grids_exact += exact
        if ms is not None:
            self.ms.append(ms)

    def lines(self) -> list[str]:
        pct = lambda a, b: f"{100.0 * a / b:6.2f} %" if b else "   n/a"
        out = [
            f"{self.name}: {self.grids} grids, {self.cells} cells ({self.digits} digits, {self.empties} empty)",
            f"  digit cells read right       {pct(self.digits_right, self.digits)}  ({self.digits - self.digits_right} wrong)",
            f"  all cells read right         {pct(self.all_right, self.cells)}",
            f"  right label in first two     {pct(self.top2, self.cells)}",
            f"  grids read exactly           {pct(self.grids_exact, self.grids)}  ({self.grids_exact}/{self.grids})",
            f"  empty read as a digit        {self.empty_as_digit:5d} of {self.empties}",
            f"  digit read as empty          {self.digit_as_empty:5d} of {self.digits}",
            f"  digit read as another digit  {self.digit_as_digit:5d} of {self.digits}",
        ]
        if self.ms:
            out.append(f"  ms per grid of 81 cells      median {np.median(self.ms):7.1f}   mean {np.mean(self.ms):7.1f}")
        if self.pairs:
            top = ", ".join(f"{t}->{g} x{n}" for (t, g), n in self.pairs.most_common(12))
            out.append(f"  confusions (truth->read)     {top}")
        return out


def side_by_side(photos: list[PhotoCells], engines: list, *, per_cell=None, per_cell_photos: int = 0) -> list[Tally]:
    """Every engine on every photo (interleaved); ``per_cell`` only on the first ``per_cell_photos``."""
    tallies = [Tally(e.name) for e in engines]
    slow = Tally(per_cell.name) if per_cell is not None else None
    paired = [Tally(f"{e.name} (same {per_cell_photos} grids)") for e in engines] if slow else []
    for k, photo in enumerate(photos):
        for e, tally, pair in zip(engines, tallies, paired or [None] * len(engines)):
            t = time.perf_counter()
            readings = e.read(photo.cells, alphabet=ALPHABET)
            ms = 1000 * (time.perf_counter() - t)
            tally.add(photo.labels, readings, ms)
            if pair is not None and k < per_cell_photos:
                pair.add(photo.labels, readings, ms)
        if slow is not None and k < per_cell_photos:
            t = time.perf_counter()
            readings = per_cell.read(photo.cells, alphabet=ALPHABET)
            slow.add(photo.labels, readings, 1000 * (time.perf_counter() - t))
    return tallies + ([slow] + paired if slow else [])


def puzzle_folds(photos: list[PhotoCells], k: int) -> list[int]:
    """A fold number per photo; photos of the same puzzle (same labels) share a fold."""
    puzzles = sorted({"".join(p.labels) for p in photos})
    rng = np.random.default_rng(12345)
    order = rng.permutation(len(puzzles))
    fold_of = {puzzles[i]: j % k for j, i in enumerate(order)}
    return [fold_of["".join(p.labels)] for p in photos]


def series_folds(photos: list[PhotoCells]) -> list[int]:
    """Fold 0 for the photos imageN with N < 1000, fold 1 for the rest (the dataset's two camera series)."""
    return [int("".join(ch for ch in p.name if ch.isdigit()) or 0) >= 1000 for p in photos]


def photo_training_rows(photos: list[PhotoCells]) -> tuple[np.ndarray, np.ndarray]:
    """Features and class indices of the marked (non-blank) cells of ``photos``."""
    from .features import feature_rows
    from .glyph import normalise
    from .train import CLASSES

    xs, ys = [], []
    for p in photos:
        glyphs = [normalise(c) for c in p.cells]
        x = feature_rows(glyphs)
        keep = [i for i, g in enumerate(glyphs) if not g.blank]
        xs.append(x[keep])
        ys.append(np.array([CLASSES.index(p.labels[i]) for i in keep], np.int64))
    return np.vstack(xs), np.concatenate(ys)


def cross_validate(photos: list[PhotoCells], k: int, *, cache: Path | None, seed: int, epochs: int,
                   grids: int, repeat_photos: int, by: str = "puzzle", letter_grids: int = 0) -> list[Tally]:
    """Font-only model vs fonts + other folds' photos, on each held-out fold.

    ``by="puzzle"``: K folds, photos of one puzzle together; ``by="series"``: the two camera series.
    """
    from .classifier import ClassifierEngine
    from .train import fit, synthetic_set

    if cache and cache.exists():
        with np.load(cache) as z:
            xs, ys = z["x"], z["y"]
    else:
        xs, ys = synthetic_set(seed=seed, grids=grids, letter_grids=letter_grids)
        if cache:
            np.savez(cache, x=xs, y=ys)
    if by == "series":
        folds, k = [int(f) for f in series_folds(photos)], 2
    else:
        folds = puzzle_folds(photos, k)
    base = ClassifierEngine(model=fit(xs, ys, seed=seed, epochs=epochs, log=lambda *_: None))
    t_font, t_mix = Tally(f"fonts only, {k}-fold by {by}"), Tally(f"fonts + photos, {k}-fold by {by}")
    for f in range(k):
        train_p = [p for p, g in zip(photos, folds) if g != f]
        test_p = [p for p, g in zip(photos, folds) if g == f]
        xr, yr = photo_training_rows(train_p)
        x = np.vstack([xs] + [xr] * repeat_photos)
        y = np.concatenate([ys] + [yr] * repeat_photos)
        mixed = ClassifierEngine(model=fit(x, y, seed=seed, epochs=epochs, log=lambda *_: None))
        for p in test_p:
            t_font.add(p.labels, base.read(p.cells, alphabet=ALPHABET))
            t_mix.add(p.labels, mixed.read(p.cells, alphabet=ALPHABET))
        print(f"fold {f + 1}/{k}: {len(test_p)} photos; fonts only {t_font.grids_exact}, "
              f"fonts + photos {t_mix.grids_exact} grids exact so far", flush=True)
    return [t_font, t_mix]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scanner.ocr.evaluate_cells", description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--model", type=Path, help="classifier model (default: the shipped one)")
    ap.add_argument("--limit", type=int, help="only the first N photos")
    ap.add_argument("--no-tesseract", action="store_true")
    ap.add_argument("--per-cell-photos", type=int, default=8,
                    help="photos also read with one Tesseract call per cell (slow; 0: none)")
    ap.add_argument("--cv", type=int, default=0, help="K-fold comparison of fonts-only vs fonts+photos training")
    ap.add_argument("--cv-by", choices=("puzzle", "series"), default="puzzle",
                    help="fold photos by puzzle (K folds) or by camera series (2 folds)")
    ap.add_argument("--cv-cache", type=Path, help="synthetic features cache (.npz) for --cv")
    ap.add_argument("--cv-repeat", type=int, default=2, help="weight of the photo cells in --cv training")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--grids", type=int, default=3000)
    ap.add_argument("--letter-grids", type=int, default=0, help="synthetic 16x16 letter grids (1..9, A..G; 3000: the letter model)")
    args = ap.parse_args(argv)
    if not (args.data / "outlines.csv").exists():
        print(f"no labelled photos at {args.data}", file=sys.stderr)
        return 2
    photos = load_photos(args.data, limit=args.limit)
    from . import get_engine

    engines = [get_engine("classifier", **({"model_path": args.model} if args.model else {}))]
    per_cell = None
    if not args.no_tesseract:
        engines.append(get_engine("tesseract"))
        if args.per_cell_photos:
            per_cell = get_engine("tesseract", per_cell=True)
    for e in engines:  # warm up (model load, first process spawn)
        e.read(photos[0].cells[:3], alphabet=ALPHABET)
    tallies = side_by_side(photos, engines, per_cell=per_cell, per_cell_photos=args.per_cell_photos)
    for t in tallies:
        print("\n".join(t.lines()))
    if args.cv:
        for t in cross_validate(photos, args.cv, cache=args.cv_cache, seed=args.seed, epochs=args.epochs,
                                grids=args.grids, repeat_photos=args.cv_repeat, by=args.cv_by,
                                letter_grids=args.letter_grids):
            print("\n".join(t.lines()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
