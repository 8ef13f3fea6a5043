"""``python -m scanner.synth --out DIR --count N --seed S --kind {sudoku,futoshiki,takuzu,all}``:
write N synthetic puzzle images of each kind, each with its ground-truth JSON beside it."""
from __future__ import annotations

import argparse
import os
import sys
import time
from multiprocessing import Pool
from pathlib import Path

from . import KINDS, MODES, write_sample


def _init() -> None:
    import cv2

    cv2.setNumThreads(1)  # one image per process: no thread oversubscription


def _one(job: tuple) -> tuple[str, str, float, float]:
    out, stem, kind, seed, size, mode = job
    start, cpu = time.perf_counter(), time.process_time()
    path = write_sample(Path(out), stem, kind, seed=seed, size=size, mode=mode)
    return kind, str(path), time.perf_counter() - start, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m scanner.synth", description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder to write images and .json into")
    p.add_argument("--count", type=int, default=10, metavar="N", help="images per kind (default 10)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="first seed; image i uses seed S + i")
    p.add_argument("--kind", choices=KINDS + ("all",), default="all")
    p.add_argument("--size", type=int, help="grid size (default: a common size of the kind, drawn at random)")
    p.add_argument("--mode", choices=MODES, help="photo, scan or print (default: 3 photos to 1 scan, at random)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    args = p.parse_args(argv)
    kinds = KINDS if args.kind == "all" else (args.kind,)
    if args.size is not None:
        from .puzzles import sizes

        bad = [k for k in kinds if args.size not in sizes(k)]
        if bad:
            p.error(f"--size {args.size} is not a size of {', '.join(bad)} "
                    f"({'; '.join(f'{k}: {sizes(k)}' for k in bad)})")
    args.out.mkdir(parents=True, exist_ok=True)
    jobs = [(str(args.out), f"{kind}_{args.seed + i:06d}", kind, args.seed + i, args.size, args.mode)
            for kind in kinds for i in range(args.count)]
    start = time.perf_counter()
    per_kind: dict[str, list[float]] = {}
    with Pool(max(1, args.jobs), initializer=_init) as pool:
        for kind, path, secs, cpu in pool.imap_unordered(_one, jobs):
            per_kind.setdefault(kind, []).append(cpu)
            print(f"{path}  {secs:.1f}s wall  {cpu:.1f}s cpu", file=sys.stderr)
    wall = time.perf_counter() - start
    total = sum(len(v) for v in per_kind.values())
    print(f"wrote {total} images into {args.out} in {wall:.0f} s wall with {args.jobs} jobs "
          f"({60 * total / max(wall, 1e-9):.0f} images/min)")
    for kind, cpus in per_kind.items():
        print(f"  {kind}: {len(cpus)} images, {sum(cpus) / len(cpus):.2f} s CPU each "
              f"= {60 * len(cpus) / max(sum(cpus), 1e-9):.0f} images per CPU-minute")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
