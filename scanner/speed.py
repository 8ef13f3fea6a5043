"""``python -m scanner.speed``: seconds per photo and per pipeline stage, in-process and from a cold start.

In-process: every photo is read ``--repeat`` times by ``scanner.photo.scan_photo`` (overlay drawn and
encoded, as the CLI does) in this one warm process, after one warm-up read; a photo's time is the best of
its repeats (the machine may be shared: the best is the least disturbed). Printed per kind and size:
photos, median / p90 / max milliseconds, the median CPU time of the reading thread (its best of the
repeats; the background decoding and encoding threads not counted), the median CPU time of the whole process
(``proc``: every thread's, the decoding and encoding threads' and OpenCV's own too; its best of the repeats), and the
median of each stage (``timings`` of the ``--json`` record: load, find, mesh, read, revise, overlay, encode ...).
``--slowest N`` also lists the N photos that took the reading thread the most CPU time, each with its longest
stages: where to look first.

Cold start: ``scan-solve --json`` run as a new process on ``--cold`` of the photos, twice each; wall
seconds median and max (imports, model loading and the first OpenCV calls included; modules compiled, as
installed, by an untimed first run).

``--against TREE``: the photos are also read by another checkout of this project (an earlier revision, say
the one that met a budget), both trees in their own processes, ``--rounds`` times in turn; printed per kind:
each tree's median of the photos' best reading-thread CPU, and the median and max of this tree's CPU over
TREE's photo by photo, then the photos this tree takes longest on. On a shared machine whose speed drifts,
figures measured then by TREE carry over to this tree by these ratios, not by the milliseconds.

The photos: the images given, or by default ``--pages`` synthetic newspaper pages of each kind
(``scanner.synth``, seeds 0.., enlarged to 12 megapixels and JPEG-encoded, cached in ``--cache``).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scanner.batch.bench import distinct_pages

KINDS = ("sudoku", "futoshiki", "takuzu")


def _ms(values: list[float], q: float) -> float:
    values = sorted(values)
    return 1000 * values[min(len(values) - 1, int(q * len(values)))]


def measure_in_process(photos: list[Path], *, repeat: int, out: Path) -> list[dict]:
    """One row per photo: kind, size (of its first record, "none" when nothing was read), best seconds,
    and the stage timings of that best read."""
    from scanner import photo
    from solver.errors import ScanSolveError

    def read(path: Path) -> tuple[float, float, float, list[dict]]:
        start, cpu, proc = time.perf_counter(), time.thread_time(), time.process_time()
        try:
            records = photo.scan_photo(path, out_dir=out)
        except ScanSolveError:
            records = []
        return time.perf_counter() - start, time.thread_time() - cpu, time.process_time() - proc, records

    read(photos[0])  # warm-up: imports, models, first OpenCV calls
    rows = []
    for path in photos:
        runs = [read(path) for _ in range(repeat)]
        seconds, _, _, records = min(runs, key=lambda t: t[0])
        first = records[0] if records else {}
        rows.append({"photo": str(path), "kind": first.get("kind", "none"), "size": first.get("size", 0),
                     "grids": len(records), "seconds": seconds, "cpu": min(t[1] for t in runs),
                     "proc": min(t[2] for t in runs), "timings": first.get("timings", {})})
    return rows


def measure_cold(photos: list[Path], *, out: Path) -> list[float]:
    """Wall seconds of ``scan-solve --json`` as a new process, twice on each of ``photos``.

    The processes may write their bytecode (``PYTHONDONTWRITEBYTECODE`` is dropped from their environment)
    and one untimed run comes first, as an installed package has its modules compiled: a development
    environment that forbids writing bytecode would otherwise time compiling every module edited since."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run(path: Path) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "scanner", "--json", "--out", str(out), str(path)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
        return time.perf_counter() - start

    if photos:
        run(photos[0])
    return [run(path) for _ in range(2) for path in photos]


def format_rows(rows: list[dict]) -> str:
    """The per kind-and-size table (milliseconds)."""
    stages: list[str] = []
    for row in rows:
        stages += [s for s in row["timings"] if s not in stages]
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["kind"], row["size"]), []).append(row)
    head = ["kind", "size", "photos", "median", "p90", "max", "cpu", "proc"] + stages
    lines = [head]
    for (kind, size), group in sorted(groups.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        secs = [r["seconds"] for r in group]
        cpu = [r["cpu"] for r in group if "cpu" in r]
        proc = [r["proc"] for r in group if "proc" in r]
        line = [kind, f"{size}x{size}" if size else "-", str(len(group)),
                f"{_ms(secs, 0.5):.0f}", f"{_ms(secs, 0.9):.0f}", f"{_ms(secs, 1.0):.0f}",
                f"{_ms(cpu, 0.5):.0f}" if cpu else "-", f"{_ms(proc, 0.5):.0f}" if proc else "-"]
        for s in stages:
            vals = [r["timings"][s] for r in group if s in r["timings"]]
            line.append(f"{1000 * statistics.median(vals):.0f}" if vals else "-")
        lines.append(line)
    secs = [r["seconds"] for r in rows]
    cpu = [r["cpu"] for r in rows if "cpu" in r]
    proc = [r["proc"] for r in rows if "proc" in r]
    lines.append(["all", "", str(len(rows)), f"{_ms(secs, 0.5):.0f}", f"{_ms(secs, 0.9):.0f}",
                  f"{_ms(secs, 1.0):.0f}", f"{_ms(cpu, 0.5):.0f}" if cpu else "-",
                  f"{_ms(proc, 0.5):.0f}" if proc else "-"] + [""] * len(stages))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(line, widths)) for line in lines)


def measure_trees(photos: list[Path], trees: list[Path], *, rounds: int, repeat: int) -> list[dict]:
    """Per tree (checkouts of this project), the photo's row (``measure_in_process``'s) with the least reading-thread
    CPU over ``rounds`` runs; the trees run in turn, each in its own process (its own modules, from its own folder)."""
    best: list[dict] = [{} for _ in trees]
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for i, tree in enumerate(trees):
                out = Path(tmp) / f"{i}_{r}.jsonl"
                env = dict(os.environ, PYTHONPATH=str(tree))
                subprocess.run([sys.executable, "-m", "scanner.speed", *map(str, photos), "--repeat", str(repeat),
                                "--cold", "0", "--json", str(out)], cwd=tree, env=env, check=True,
                               stdout=subprocess.DEVNULL)
                for line in out.read_text().splitlines():
                    row = json.loads(line)
                    if row["photo"] not in best[i] or row["cpu"] < best[i][row["photo"]]["cpu"]:
                        best[i][row["photo"]] = row
    return best


def format_against(ours: dict, theirs: dict, *, name: str, slowest: int = 5) -> str:
    """Per kind (of this tree's reading): photos, each tree's median CPU (ms), and the median and max of this tree's
    CPU over ``theirs`` (``name``) photo by photo; then the ``slowest`` photos of this tree with both CPUs."""
    shared = [p for p in ours if p in theirs]
    lines = [f"against {name}: best reading-thread CPU per photo, ms; ratio = this tree / {name}, photo by photo"]
    for kind in sorted({ours[p]["kind"] for p in shared}):
        group = [p for p in shared if ours[p]["kind"] == kind]
        ratios = sorted(ours[p]["cpu"] / theirs[p]["cpu"] for p in group)
        mine, other = (statistics.median(rows[p]["cpu"] for p in group) for rows in (ours, theirs))
        lines.append(f"{kind:>9}  photos {len(group)}  this {1000 * mine:.0f}  {name} {1000 * other:.0f}"
                     f"  ratio median {statistics.median(ratios):.2f} max {ratios[-1]:.2f}")
    for p in sorted(shared, key=lambda p: -ours[p]["cpu"])[:slowest]:
        row = ours[p]
        lines.append(f"  {Path(p).name}  {row['kind']} {row['size']}x{row['size']}  this {1000 * row['cpu']:.0f}"
                     f"  {name} {1000 * theirs[p]['cpu']:.0f}  ratio {row['cpu'] / theirs[p]['cpu']:.2f}")
    return "\n".join(lines)


def format_slowest(rows: list[dict], count: int, *, stages: int = 5) -> str:
    """The ``count`` photos that took the reading thread the most CPU time (steadier than the wall time on a
    shared machine), slowest first: name, kind and size of the first record (and how many grids gave one),
    wall / cpu / proc milliseconds, and the ``stages`` longest stages of its ``timings`` (the page's, every grid
    read counted)."""
    lines = []
    for row in sorted(rows, key=lambda r: -r.get("cpu", r["seconds"]))[:count]:
        size = f"{row['size']}x{row['size']}" if row["size"] else "-"
        grids = f" ({row['grids']} grids)" if row.get("grids", 1) > 1 else ""
        longest = sorted(row["timings"].items(), key=lambda kv: -kv[1])[:stages]
        lines.append(f"{Path(row['photo']).name}  {row['kind']} {size}{grids}  {1000 * row['seconds']:.0f} ms"
                     f"  cpu {1000 * row.get('cpu', 0.0):.0f}  proc {1000 * row.get('proc', 0.0):.0f}  "
                     + " ".join(f"{name} {1000 * sec:.0f}" for name, sec in longest))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m scanner.speed", description=__doc__.split("\n")[0])
    p.add_argument("photos", nargs="*", type=Path, help="photos to time (default: synthetic 12 MP pages)")
    p.add_argument("--pages", type=int, default=10, help="synthetic pages per kind (default 10)")
    p.add_argument("--repeat", type=int, default=2, help="reads per photo, the best counts (default 2)")
    p.add_argument("--cold", type=int, default=3, help="photos timed from a cold start (default 3)")
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "scan-solve-bench",
                   help="where the synthetic pages are kept")
    p.add_argument("--json", type=Path, help="also write the per-photo rows here (JSON Lines)")
    p.add_argument("--slowest", type=int, default=0, metavar="N",
                   help="also list the N photos that took the most CPU, with their longest stages")
    p.add_argument("--against", type=Path, metavar="TREE",
                   help="also read the photos with the checkout TREE, in turns, and print this tree's CPU over its")
    p.add_argument("--rounds", type=int, default=2, help="with --against: runs of each tree, in turns (default 2)")
    args = p.parse_args(argv)
    photos = list(args.photos)
    if not photos:
        for kind in KINDS:
            photos += distinct_pages(args.cache / "pages", args.pages, jobs=2, kind=kind)
    with tempfile.TemporaryDirectory() as tmp:
        rows = measure_in_process(photos, repeat=args.repeat, out=Path(tmp))
        cold = measure_cold(photos[:: max(1, len(photos) // max(args.cold, 1))][: args.cold], out=Path(tmp))
    print(f"in-process, best of {args.repeat}, milliseconds (cpu: median of the reading thread's own CPU time, "
          f"steadier than the wall time on a shared machine; proc: of the whole process, every thread's; "
          f"stages: median of each over the photos)")
    print(format_rows(rows))
    if args.slowest:
        print(f"slowest {min(args.slowest, len(rows))} by cpu (milliseconds; stages: the longest of the page's):")
        print(format_slowest(rows, args.slowest))
    if cold:
        print(f"cold start (scan-solve --json as a new process), {len(cold)} runs: "
              f"median {statistics.median(cold):.2f} s, max {max(cold):.2f} s")
    if args.against:
        here = Path(__file__).resolve().parent.parent
        ours, theirs = measure_trees(photos, [here, args.against.resolve()], rounds=args.rounds, repeat=args.repeat)
        print(format_against(ours, theirs, name=args.against.name))
    if args.json:
        args.json.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
