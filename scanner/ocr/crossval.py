"""End-to-end K-fold cross-validation of the digit model on the labelled Sudoku photos.

    python -m scanner.ocr.crossval [--folds 4] [--jobs 2] [--cache synth.npz] [--models DIR [--reuse]]

Folds group photos of the same puzzle (``evaluate_cells.puzzle_folds``,
deterministic). One font-only model is trained, and per fold one model on
fonts + the other folds' photo cells; then the real photo pipeline
(``scanner.photo.scan_photo``, kind "auto", nothing drawn) reads every photo
twice, with the font-only model and with its fold's model, side by side, and
each reading is scored as ``python -m scanner.evaluate`` scores it. Printed:
read exactly, solved right, WRONG answers (wrong solution or an overlay on a
misread puzzle) and no answer, per fold and in total. No model ever reads a
photo whose puzzle it was trained on (the font-only one never saw any photo).
A change to the reading pipeline alone (not to the model or its training) is judged in a minute or two
instead of five: keep the models of a baseline run (``--models DIR``) and read again with ``--reuse``.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .evaluate_cells import DEFAULT_DATA, photo_training_rows, puzzle_folds
from .realcells import load_photos

KEYS = ("puzzles", "exact", "solved_right", "wrong", "wrong_overlay", "no_answer")


def _scan(job: tuple) -> tuple[str, int, dict[str, dict]]:
    """Scores of one photo read with each (label, model path) of the job."""
    from scanner.evaluate import score_image
    from scanner.photo import scan_photo

    from .classifier import ClassifierEngine

    truth, fold, models, tolerance = job
    out = {}
    for label, path in models:
        try:
            records = scan_photo(truth.image, kind="auto", draw=False, reader=ClassifierEngine(path))
        except Exception:  # no grid found, unreadable...: no answer, as scanner.evaluate counts it
            records = []
        per_kind = score_image(truth, records, tolerance=tolerance)
        out[label] = {k: sum(s[k] for s in per_kind.values()) for k in KEYS}
    return truth.image.name, fold, out


def train_models(folder: Path, k: int, workdir: Path, *, seed: int, grids: int, epochs: int,
                 repeat_photos: int, cache: Path | None, letter_grids: int = 0, log=print) -> tuple[Path, list[Path], dict[str, int]]:
    """(font-only model path, per-fold fonts+photos model paths, photo name -> fold)."""
    from .train import fit, synthetic_set

    photos = load_photos(folder)
    folds = puzzle_folds(photos, k)
    if cache and cache.exists():
        with np.load(cache) as z:
            xs, ys = z["x"], z["y"]
    else:
        xs, ys = synthetic_set(seed=seed, grids=grids, letter_grids=letter_grids, log=log)
        if cache:
            np.savez(cache, x=xs, y=ys)
    quiet = lambda *_: None  # noqa: E731
    t = time.time()
    font = workdir / "fonts.npz"
    fit(xs, ys, seed=seed, epochs=epochs, log=quiet).save(font, seed=seed, grids=grids, epochs=epochs, photos=0)
    log(f"font-only model trained in {time.time() - t:.0f} s")
    mixed = []
    for f in range(k):
        t = time.time()
        train_p = [p for p, g in zip(photos, folds) if g != f]
        xr, yr = photo_training_rows(train_p)
        x = np.vstack([xs] + [xr] * repeat_photos)
        y = np.concatenate([ys] + [yr] * repeat_photos)
        path = workdir / f"fold{f}.npz"
        fit(x, y, seed=seed, epochs=epochs, log=quiet).save(path, seed=seed, grids=grids, epochs=epochs,
                                                             photos=len(train_p))
        mixed.append(path)
        log(f"fold {f + 1}/{k}: trained on {len(train_p)} photos ({len(xr)} cells) in {time.time() - t:.0f} s")
    return font, mixed, {p.name: g for p, g in zip(photos, folds)}


def saved_models(folder: Path, k: int, workdir: Path) -> tuple[Path, list[Path], dict[str, int]]:
    """``train_models``'s answer for models an earlier run kept in ``workdir`` (``--models``): the folds are
    the same (``puzzle_folds`` is deterministic), the models are not trained again."""
    paths = [workdir / "fonts.npz"] + [workdir / f"fold{f}.npz" for f in range(k)]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise FileNotFoundError(f"no saved models to reuse: {', '.join(missing)}")
    photos = load_photos(folder)
    return paths[0], paths[1:], {p.name: g for p, g in zip(photos, puzzle_folds(photos, k))}


def _row(label: str, s: dict) -> str:
    wrong = f"{s['wrong']}" + (f" +{s['wrong_overlay']} overlay" if s["wrong_overlay"] else "")
    return (f"{label:<28} {s['puzzles']:>7} {s['exact']:>7} {s['solved_right']:>7} {wrong:>7} {s['no_answer']:>7}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scanner.ocr.crossval", description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--grids", type=int, default=3000, help="synthetic grids (as the shipped model)")
    ap.add_argument("--letter-grids", type=int, default=0, help="synthetic letter grids (3000: the letter model)")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--photo-weight", type=int, default=2, help="times each photo cell is repeated")
    ap.add_argument("--cache", type=Path, help="reuse/store the synthetic features in this .npz")
    ap.add_argument("--models", type=Path, help="keep the trained models in this folder (default: a temporary one)")
    ap.add_argument("--reuse", action="store_true",
                    help="read with the models an earlier run kept in --models (same --data, --folds and training "
                         "options) instead of training them again: for changes to the reading pipeline alone")
    ap.add_argument("--tolerance", type=float, default=0.05)
    args = ap.parse_args(argv)
    if args.reuse and not args.models:
        ap.error("--reuse needs --models (the folder an earlier run kept its models in)")
    if not (args.data / "outlines.csv").exists():
        print(f"no labelled photos at {args.data}", file=sys.stderr)
        return 2
    from scanner.evaluate import find_truths

    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.models or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        if args.reuse:
            font, mixed, fold_of = saved_models(args.data, args.folds, workdir)
        else:
            font, mixed, fold_of = train_models(args.data, args.folds, workdir, seed=args.seed, grids=args.grids,
                                                epochs=args.epochs, repeat_photos=args.photo_weight,
                                                cache=args.cache, letter_grids=args.letter_grids)
        truths = [t for t in find_truths([args.data]) if t.image.name in fold_of]
        jobs = [(t, fold_of[t.image.name], [("fonts only", font), ("fonts + photos", mixed[fold_of[t.image.name]])],
                 args.tolerance) for t in truths]
        t = time.time()
        if args.jobs > 1:
            with mp.get_context("fork").Pool(args.jobs) as pool:
                results = pool.map(_scan, jobs, chunksize=1)
        else:
            results = [_scan(j) for j in jobs]
    print(f"read {len(results)} photos twice in {time.time() - t:.0f} s")
    labels = ("fonts only", "fonts + photos")
    print(f"{args.folds}-fold by puzzle, end to end (scan_photo, kind auto); data {args.data}")
    print(f"{'model':<28} {'puzzles':>7} {'exact':>7} {'solved':>7} {'WRONG':>7} {'no ans':>7}")
    for f in list(range(args.folds)) + [None]:
        for label in labels:
            tot = {k: sum(r[2][label][k] for r in results if f is None or r[1] == f) for k in KEYS}
            print(_row(f"{'all' if f is None else f'fold {f + 1}'}: {label}", tot))
    changed = [(name, r) for name, _, r in results if r[labels[0]]["exact"] != r[labels[1]]["exact"]
               or r[labels[0]]["wrong"] != r[labels[1]]["wrong"]]
    for name, r in changed:
        print(f"  {name}: " + "; ".join(f"{lab} exact {r[lab]['exact']} solved {r[lab]['solved_right']} "
                                         f"wrong {r[lab]['wrong']}" for lab in labels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
