"""Train the shipped digit classifier on cells rendered from the installed fonts and on labelled photo cells.

    python -m scanner.ocr.train --photos ../shared/datasets/sudoku_photos/train --out scanner/models/digits.npz
    python -m scanner.ocr.train --photos ../shared/datasets/sudoku_photos/train --letter-grids 3000 \
        --out scanner/models/letters.npz

(the shipped digit model and letter model, with the defaults ``--seed 0 --grids 3000 --epochs 20 --hidden 192
--photo-weight 2``; without ``--photos``: fonts only). The digit model's classes are 0..9 and "." (empty); the
letter model adds A..G, which a 16x16 Sudoku may print for 10..16, learnt from ``--letter-grids`` grids
printing 1..9 and A..G (the digit grids are the same with or without them). The letter model reads only
alphabets holding a letter: trained alone it read the real photos' digits a little worse (4-fold end to end
153 vs 154 exact, 149 vs 152 solved). ``python -m scanner.ocr.crossval``
compares the two end to end, cross-validated by puzzle.)

Deterministic for a given ``--seed`` and set of installed fonts (the work is
split into chunks seeded by their index, so ``--jobs`` does not change the
result). The font families in ``fonts.HELD_OUT_FAMILIES`` are never used.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

from .engine import EMPTY
from .features import DIM, feature_rows
from .fonts import digit_fonts, is_held_out
from .glyph import normalise
from .mlp import MLP, train
from .synth import grid_cells

SYMBOLS = "0123456789"
#: The letters a 16x16 Sudoku prints for 10..16 (only ever allowed in such a grid's alphabet), and the symbols of
#: the synthetic grids that print them.
LETTERS = "ABCDEFG"
LETTER_GRID_SYMBOLS = "123456789" + LETTERS
CLASSES = SYMBOLS + LETTERS + EMPTY
CHUNK = 50  # grids per work unit
LETTER_GRIDS = 3000  #: letter grids of the shipped letter model (``--letter-grids``; 0 for the digit model)

_FONTS: list[dict[str, np.ndarray]] = []
_LETTER_FONTS: list[dict[str, np.ndarray]] = []


def training_fonts(symbols: str = SYMBOLS) -> dict[str, dict[str, np.ndarray]]:
    return {name: g for name, g in digit_fonts(symbols).items() if not is_held_out(name)}


def _chunk(args: tuple[int, int, int, bool]) -> tuple[np.ndarray, np.ndarray]:
    """One work unit: ``n_grids`` digit grids, or (``letters``) grids of a 16x16 letter print (1..9, A..G), each
    seeded by its own stream (the digit grids are the same whether letter grids are added or not)."""
    seed, chunk, n_grids, letters = args
    rng = np.random.default_rng([seed, chunk, 1] if letters else [seed, chunk])
    fonts = _LETTER_FONTS if letters else _FONTS
    xs, ys = [], []
    for _ in range(n_grids):
        font = fonts[int(rng.integers(len(fonts)))]
        if letters:
            font = {s: font[s] for s in LETTER_GRID_SYMBOLS}
        cells = grid_cells(font, rng, n=int(rng.integers(4, 41)))
        glyphs = [normalise(c) for c, _ in cells]
        x = feature_rows(glyphs)
        keep = [i for i, g in enumerate(glyphs) if not g.blank]
        xs.append(x[keep])
        ys.append(np.array([CLASSES.index(cells[i][1]) for i in keep], np.int64))
    return np.vstack(xs) if xs else np.zeros((0, DIM), np.float32), np.concatenate(ys)


def synthetic_set(*, seed: int, grids: int, letter_grids: int = 0, jobs: int = 2,
                  log=print) -> tuple[np.ndarray, np.ndarray]:
    """Features and class indices of ``grids`` synthetic digit grids and ``letter_grids`` grids printing 1..9 and
    A..G (blank cells left out)."""
    global _FONTS, _LETTER_FONTS
    fonts = training_fonts()
    _FONTS = [fonts[k] for k in sorted(fonts)]
    lfonts = training_fonts(SYMBOLS + LETTERS) if letter_grids else {}
    _LETTER_FONTS = [lfonts[k] for k in sorted(lfonts)]
    log(f"{len(_FONTS)} training fonts, {len(_LETTER_FONTS)} with letters")
    work = [(seed, i, min(CHUNK, grids - i * CHUNK), False) for i in range((grids + CHUNK - 1) // CHUNK)]
    work += [(seed, i, min(CHUNK, letter_grids - i * CHUNK), True)
             for i in range((letter_grids + CHUNK - 1) // CHUNK)]
    t = time.time()
    if jobs > 1:
        with mp.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_chunk, work)
    else:
        parts = [_chunk(w) for w in work]
    x = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    log(f"{len(x)} samples in {time.time() - t:.0f} s; per class {np.bincount(y, minlength=len(CLASSES)).tolist()}")
    return x, y


def fit(x: np.ndarray, y: np.ndarray, *, seed: int, epochs: int = 20, hidden: tuple[int, ...] = (192,),
        log=print) -> MLP:
    rng = np.random.default_rng([seed, 1_000_003])
    mean = x.mean(axis=0)
    scale = 1.0 / (x.std(axis=0) + 0.05)
    # the model's classes: those of CLASSES the samples hold (no letter samples: a digit model, 0..9 and ".")
    present = np.unique(y)
    classes = "".join(CLASSES[i] for i in present)
    y = np.searchsorted(present, y)
    model = MLP.new([x.shape[1], *hidden, len(classes)], classes, mean=mean, scale=scale, rng=rng)
    t = time.time()
    train(model, x, y, epochs=epochs, rng=rng, log=log)
    log(f"trained in {time.time() - t:.0f} s")
    return model


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scanner.ocr.train", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "models" / "digits.npz")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--grids", type=int, default=3000, help="synthetic digit grids (about 20 cells each)")
    ap.add_argument("--letter-grids", type=int, default=0,
                    help=f"synthetic grids of a 16x16 letter print (1..9 and A..G); the letter model: {LETTER_GRIDS}")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--hidden", type=int, nargs="+", default=[192])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", type=Path, help="reuse/store the synthetic features in this .npz")
    ap.add_argument("--photos", type=Path, help="also train on the labelled cells of these Sudoku photos "
                    "(a folder like ../shared/datasets/sudoku_photos/train)")
    ap.add_argument("--photo-weight", type=int, default=2, help="times each photo cell is repeated")
    args = ap.parse_args(argv)
    if args.cache and args.cache.exists():
        with np.load(args.cache) as z:
            x, y = z["x"], z["y"]
    else:
        x, y = synthetic_set(seed=args.seed, grids=args.grids, letter_grids=args.letter_grids, jobs=args.jobs)
        if args.cache:
            np.savez(args.cache, x=x, y=y)
    photos = 0
    if args.photos:
        from .evaluate_cells import photo_training_rows
        from .realcells import load_photos

        shots = load_photos(args.photos)
        xr, yr = photo_training_rows(shots)
        x = np.vstack([x] + [xr] * args.photo_weight)
        y = np.concatenate([y] + [yr] * args.photo_weight)
        photos = len(shots)
        print(f"{len(xr)} cells from {photos} photos, weight {args.photo_weight}")
    model = fit(x, y, seed=args.seed, epochs=args.epochs, hidden=tuple(args.hidden))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.out, seed=args.seed, grids=args.grids, letter_grids=args.letter_grids, epochs=args.epochs,
               photos=photos)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
