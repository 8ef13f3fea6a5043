"""``python -m solver.bench``: solve every collection and generated set, ours side by side with a SAT reference.

Per set it prints: count, solved and verified (unique solution proven and
re-checked by ``is_solution``), mean / p99 / max milliseconds per puzzle
including the uniqueness proof, the reference's mean and max, and the ratio
ours/reference of the means. Ours and the reference run interleaved, puzzle by
puzzle, so machine noise hits both alike.
"""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np

from solver import kinds
from solver.api import solve

from .sets import DEFAULT_DATA, collection_sets, generated_sets


def _reference(name: str):
    if name == "none":
        return None
    try:
        from .sat import SatReference

        return SatReference(name)
    except ImportError:
        print("(python-sat is not installed: pip install python-sat; running without the SAT reference)")
        return None


def bench_set(name: str, puzzles, ref, repeat: int) -> dict:
    ours, theirs, verified, statuses, mismatches = [], [], 0, {}, 0
    for p in puzzles:
        kind = kinds.of(p)
        if ref is not None:
            ref.prepare(p)
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            result = kind.solve(p)
            best = min(best, time.perf_counter() - t0)
        ours.append(best)
        statuses[result.status] = statuses.get(result.status, 0) + 1
        checked = solve(p)  # the public path: re-checks with is_solution
        if checked.status == "solved" and kind.is_solution(p, checked.solution):
            if p.known_solution is None or checked.solution == p.known_solution:
                verified += 1
        if ref is not None:
            best = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                status, _sols = ref.solve(p)
                best = min(best, time.perf_counter() - t0)
            theirs.append(best)
            mismatches += status != result.status
    ms = np.array(ours) * 1000
    row = {
        "set": name, "count": len(puzzles), "verified": verified,
        "mean": ms.mean(), "p99": np.percentile(ms, 99), "max": ms.max(), "statuses": statuses,
    }
    if theirs:
        ref_ms = np.array(theirs) * 1000
        row.update(ref_mean=ref_ms.mean(), ref_max=ref_ms.max(), ratio=ms.mean() / ref_ms.mean(), mismatches=mismatches)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m solver.bench", description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of the text collections")
    ap.add_argument("--count", type=int, default=30, help="puzzles per generated set")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="run only sets whose name contains this")
    ap.add_argument("--reference", default="cadical195", help="pysat solver name, or 'none'")
    ap.add_argument("--repeat", type=int, default=1, help="time each puzzle this many times, keep the best")
    args = ap.parse_args(argv)
    ref = _reference(args.reference)
    if not args.data.is_dir():
        print(f"(no collections at {args.data}; generated sets only)")
    header = f"{'set':32} {'count':>5} {'ok':>5} {'mean ms':>8} {'p99 ms':>8} {'max ms':>8}"
    if ref is not None:
        header += f" {'ref mean':>8} {'ref max':>8} {'ours/ref':>8}"
    print(header)
    failures = 0
    sets = list(collection_sets(args.data)) if args.data.is_dir() else []
    for name, puzzles in sets + list(generated_sets(args.count, args.seed)):
        if args.only and args.only not in name:
            continue
        gc.collect()
        row = bench_set(name, puzzles, ref, args.repeat)
        failures += row["count"] - row["verified"]
        line = f"{name:32} {row['count']:5d} {row['verified']:5d} {row['mean']:8.2f} {row['p99']:8.2f} {row['max']:8.2f}"
        if "ref_mean" in row:
            line += f" {row['ref_mean']:8.2f} {row['ref_max']:8.2f} {row['ratio']:8.2f}"
            if row["mismatches"]:
                line += f"  ({row['mismatches']} verdicts differ from the reference!)"
        if row["verified"] != row["count"]:
            line += f"  statuses: {row['statuses']}"
        print(line, flush=True)
    if ref is not None:
        ref.close()
    print("all puzzles solved, verified and unique" if not failures else f"{failures} puzzles NOT solved uniquely")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
