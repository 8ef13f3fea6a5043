"""``python -m scanner.batch.bench``: batch throughput with 1 and 2 jobs, and a fault run.

Throughput: ``--pages`` 12-megapixel pages (``--distinct`` different synthetic newspaper pages from
``scanner.synth``, enlarged to 12 MP and JPEG-encoded; the rest are hard links to them) are read with
``--jobs 1`` and ``--jobs 2`` in alternating rounds (1-2, 2-1, ...) so both see the same background load
on a shared machine. Printed per setting: pages per second, CPU seconds per page (the workers' own count,
and the whole process tree's from /proc), how many workers were busy and on how much of a core each ran
(below 1: other programs held the cores), peak resident memory; then the ratio against the targets.

Fault run: a folder of ``--fault-images`` such pages of which 5 % are corrupt (truncated, empty, not an
image), plus a 20-page PDF of synthetic pages rendered at ``--fault-dpi`` (600: the largest pages):
every good page must come back processed, every bad one reported, nothing lost, peak memory under 1 GB
(the exit status is 1 otherwise).

Each batch runs in a child process (``--measure``) that samples the resident memory and CPU time of its
whole process tree (itself, the fork server, the workers) from ``/proc`` every 50 ms. Pages are cached in
``--cache`` (made on the first run).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

MEGAPIXELS = 12e6
CORRUPT_SHARE = 0.05
PDF_PAGES = 20


# -- the page cache ----------------------------------------------------------------------------------------

def page_name(seed: int, kind: str = "sudoku") -> str:
    """The cached page's file name (Sudoku pages keep the name they always had)."""
    return f"page_{seed:04d}.jpg" if kind == "sudoku" else f"{kind}_{seed:04d}.jpg"


def _render_page(job: tuple) -> str:
    """Render synthetic page ``seed`` of ``kind`` (default Sudoku), enlarge it to 12 MP, write it as JPEG
    (quality 90); its path."""
    import cv2

    from scanner import synth

    folder, seed, kind = (*job, "sudoku")[:3]
    path = Path(folder) / page_name(seed, kind)
    if path.exists():
        return str(path)
    cv2.setNumThreads(1)
    img, _, _ = synth.render(kind, seed=seed, mode="photo" if seed % 4 else "scan")
    h, w = img.shape[:2]
    f = (MEGAPIXELS / (h * w)) ** 0.5
    big = cv2.resize(cv2.cvtColor(img, cv2.COLOR_RGB2BGR), (round(w * f), round(h * f)),
                     interpolation=cv2.INTER_LINEAR)
    ok, buf = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(buf.tobytes())
    os.replace(tmp, path)
    return str(path)


def distinct_pages(cache: Path, count: int, *, jobs: int, kind: str = "sudoku") -> list[Path]:
    """``count`` distinct 12 MP pages of ``kind`` in ``cache`` (made once, reused afterwards)."""
    from multiprocessing import get_context

    cache.mkdir(parents=True, exist_ok=True)
    todo = [(str(cache), seed, kind) for seed in range(count)]
    missing = [j for j in todo if not (cache / page_name(j[1], kind)).exists()]
    if missing:
        print(f"bench: rendering {len(missing)} synthetic 12 MP {kind} pages into {cache} ...", file=sys.stderr)
        with get_context("spawn").Pool(jobs) as pool:
            pool.map(_render_page, missing)
    return [Path(_render_page(j)) for j in todo]


def link_folder(folder: Path, sources: list[Path], count: int) -> list[Path]:
    """``folder`` holding ``count`` pages: hard links (copies when links fail) cycling through ``sources``."""
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for i in range(count):
        target = folder / f"p{i:04d}.jpg"
        if not target.exists():
            try:
                os.link(sources[i % len(sources)], target)
            except OSError:
                shutil.copy(sources[i % len(sources)], target)
        made.append(target)
    return made


def make_pdf(path: Path, sources: list[Path], *, dpi: int = 300) -> Path:
    """A PDF with one page per source image (embedded as JPEG by Pillow, ``dpi`` sets the page size)."""
    from PIL import Image

    if path.exists():
        return path
    tmp = path.with_suffix(".tmp")
    first, *rest = [Image.open(p) for p in sources]
    first.save(tmp, format="PDF", save_all=True, append_images=rest, resolution=dpi)
    for im in [first, *rest]:
        im.close()
    os.replace(tmp, path)
    return path


def _in_child(fn, *args):
    """``fn(*args)`` in a fresh process, so its memory does not count in the measured batches' peaks
    (Linux keeps a process's peak RSS across fork and exec)."""
    from multiprocessing import get_context

    with get_context("spawn").Pool(1) as pool:
        return pool.apply(fn, args)


def corrupt(path: Path, how: int) -> str:
    """Replace ``path`` (a hard link: unlinked first) by a broken file; what was done."""
    data = path.read_bytes()
    path.unlink()
    if how % 3 == 0:
        path.write_bytes(data[: len(data) // 2])
        return "truncated JPEG"
    if how % 3 == 1:
        path.write_bytes(b"")
        return "empty file"
    path.write_bytes(os.urandom(4096))
    return "random bytes named .jpg"


# -- one measured batch (child process) ------------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def tree_sample(root: int) -> tuple[int, dict[int, float]]:
    """Resident memory (kB) of ``root`` and all its descendants, and each one's CPU seconds so far, from
    /proc (0 and nothing where unreadable)."""
    total, cpu, stack, seen = 0, {}, [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            cpu[pid] = (int(fields[11]) + int(fields[12])) / _TICK  # utime + stime
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as fh:
                    stack.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError, IndexError):
            continue
    return total, cpu


def measure(folder: list[str], out: str, jobs: int, dpi: float) -> dict:
    """Run one batch in this process; its figures (seconds, pages, outcomes, CPU, memory)."""
    from .run import run_batch
    from .worker import Options

    peak = [0]
    cpu: dict[int, float] = {}
    stop = threading.Event()
    me = os.getpid()

    def sample() -> None:
        while not stop.is_set():
            rss, seen = tree_sample(me)
            peak[0] = max(peak[0], rss)
            for pid, seconds in seen.items():
                cpu[pid] = max(cpu.get(pid, 0.0), seconds)
            stop.wait(0.05)

    own_before = time.process_time()
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    records: list[dict] = []
    start = time.perf_counter()
    tally = run_batch(folder, opts=Options(out=out, dpi=dpi), jobs=jobs, quiet=True, emit=records.append,
                      error=lambda line: None)
    seconds = time.perf_counter() - start
    stop.set()
    sampler.join()
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu.pop(me, None)
    return {
        "jobs": jobs, "seconds": seconds, "pages": tally.pages, "puzzles": tally.puzzles,
        "by_status": tally.by_status, "no_puzzle": len(tally.no_puzzle), "failed": tally.failed,
        "pages_seen": sorted({f"{r['source']}#{r.get('page')}" for r in records}),
        "processed": sorted({f"{r['source']}#{r.get('page')}" for r in records
                             if r.get("kind") is not None or r.get("exit_code") == 8}),
        "rss_self_mb": own / 1024, "rss_tree_peak_mb": peak[0] / 1024,
        "worker_peak_mb": tally.worker_peak_mb, "cpu_seconds": tally.cpu_seconds,
        "worker_seconds": tally.worker_seconds,
        # the main process (sampler included) and its children (fork server, workers; a last < 50 ms missed)
        "main_cpu_seconds": time.process_time() - own_before, "children_cpu_seconds": sum(cpu.values()),
    }


def _run_child(inputs: list[str], out: Path, jobs: int, dpi: float = 200.0) -> dict:
    cmd = [sys.executable, "-m", "scanner.batch.bench", "--measure", "--jobs", str(jobs), "--out", str(out),
           "--dpi", str(dpi), *inputs]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"bench: the measured batch failed:\n{proc.stderr}")
    shutil.rmtree(out, ignore_errors=True)
    return json.loads(proc.stdout.splitlines()[-1])


def _load() -> str:
    try:
        one, five, _ = os.getloadavg()
        return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"
    except OSError:
        return "load average unknown"


# -- the command ---------------------------------------------------------------------------------------

def _throughput(args, sources: list[Path], work: Path) -> None:
    rounds = max(1, args.rounds)
    per_round = args.pages // rounds
    keys = ("pages", "seconds", "cpu_seconds", "worker_seconds", "main_cpu_seconds", "children_cpu_seconds")
    totals = {jobs: dict.fromkeys(keys, 0.0) for jobs in (1, 2)}
    peak = {1: 0.0, 2: 0.0}
    for k in range(rounds):  # alternate 1 and 2 jobs so both see the same background load
        folder = work / f"throughput{k}"
        link_folder(folder, sources[: args.distinct], per_round)
        for jobs in ((1, 2) if k % 2 == 0 else (2, 1)):
            r = _run_child([str(folder)], work / f"out{jobs}", jobs)
            for key in keys:
                totals[jobs][key] += r[key]
            peak[jobs] = max(peak[jobs], r["rss_tree_peak_mb"])
            print(f"  round {k + 1}, --jobs {jobs}: {r['pages']} pages in {r['seconds']:.1f} s = "
                  f"{r['pages'] / r['seconds']:.2f} pages/s; worker CPU {r['cpu_seconds'] / r['pages']:.3f} s/page; "
                  f"puzzles {r['puzzles']} ({r['by_status']['solved']} solved), no puzzle {r['no_puzzle']}, "
                  f"failed {len(r['failed'])}; {_load()}")
    rate = {jobs: t["pages"] / t["seconds"] for jobs, t in totals.items()}
    print(f"\nthroughput, {int(totals[2]['pages'])} pages of 12 MP per setting, {rounds} alternating rounds:")
    for jobs, t in totals.items():
        n = t["pages"]
        busy = t["worker_seconds"] / t["seconds"]
        share = t["cpu_seconds"] / max(t["worker_seconds"], 1e-9)
        print(f"  --jobs {jobs}: {rate[jobs]:5.2f} pages/s | CPU s/page: worker {t['cpu_seconds'] / n:.3f}, "
              f"whole process tree {(t['children_cpu_seconds'] + t['main_cpu_seconds']) / n:.3f} | wall s/page in a "
              f"worker {t['worker_seconds'] / n:.3f} | {busy:.2f} workers busy, each on {share:.2f} of a core | "
              f"peak RSS {peak[jobs]:.0f} MB")
    ok = rate[2] / rate[1] >= 1.8 and rate[2] >= 4
    print(f"  RATIO {rate[2] / rate[1]:.2f} (2 jobs / 1 job; target >= 1.8); 2 jobs {rate[2]:.2f} pages/s "
          f"(target >= 4): {'met' if ok else 'NOT met'}")
    cpu1, cpu2 = (totals[j]["cpu_seconds"] / totals[j]["pages"] for j in (1, 2))
    print(f"  on 2 idle cores the workers alone would give {1 / cpu1:.2f} and {2 / cpu2:.2f} pages/s (ratio "
          f"{2 * cpu1 / cpu2:.2f}); a worker on less than 1.00 of a core was waiting for cores other programs held")


def _faults(args, sources: list[Path], work: Path) -> int:
    folder = work / "faults"
    images = link_folder(folder, sources[: args.distinct], args.fault_images)
    n_bad = max(1, round(CORRUPT_SHARE * len(images)))
    step = len(images) // n_bad
    bad = {}
    for k in range(n_bad):
        victim = images[k * step + step // 2]
        bad[str(victim)] = corrupt(victim, k)
    pdf = _in_child(make_pdf, args.cache / f"book{PDF_PAGES}.pdf", sources[:PDF_PAGES])
    shutil.copy(pdf, folder / "book.pdf")
    r = _run_child([str(folder)], work / "outf", 2, dpi=args.fault_dpi)
    expected = {f"{p}#1" for p in map(str, images) if p not in bad}
    expected |= {f"{folder / 'book.pdf'}#{i}" for i in range(1, PDF_PAGES + 1)}
    reported_bad = {name.split("#")[0] for name, _ in r["failed"]}
    lost = expected - set(r["processed"])
    print(f"\nfaults: {len(images)} images ({n_bad} corrupt: {', '.join(sorted(set(bad.values())))}) + a "
          f"{PDF_PAGES}-page PDF rendered at {args.fault_dpi:g} dpi (pages capped at 36 MP) = "
          f"{len(images) + PDF_PAGES} pages in {r['seconds']:.1f} s with 2 jobs")
    print(f"  good pages processed: {len(expected) - len(lost)} of {len(expected)}"
          + (f" (lost: {sorted(lost)[:5]})" if lost else ""))
    print(f"  bad files reported: {len(reported_bad & set(bad))} of {len(bad)}")
    for name, reason in r["failed"]:
        print(f"    {name}: {reason.split(': ', 1)[-1]}")
    print(f"  puzzles {r['puzzles']} {r['by_status']}, pages without a puzzle {r['no_puzzle']}")
    print(f"  PEAK RSS {r['rss_tree_peak_mb']:.0f} MB for the whole process tree (sampled every 50 ms; target < 1024); "
          f"getrusage: main {r['rss_self_mb']:.0f} MB, largest worker {r['worker_peak_mb']:.0f} MB")
    return int(bool(lost) or len(reported_bad & set(bad)) != len(bad) or r["rss_tree_peak_mb"] >= 1024)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m scanner.batch.bench", description=__doc__.split("\n")[0])
    p.add_argument("--pages", type=int, default=200, help="pages in the throughput runs (default 200)")
    p.add_argument("--distinct", type=int, default=40, help="different synthetic pages among them (default 40)")
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "scan-solve-bench",
                   help="folder the generated pages are kept in (default: %(default)s)")
    p.add_argument("--fault-images", type=int, default=40, help="images in the fault run's folder (default 40)")
    p.add_argument("--fault-dpi", type=float, default=600.0,
                   help="resolution the fault run's PDF is rendered at (default 600: the memory worst case)")
    p.add_argument("--rounds", type=int, default=2,
                   help="split the throughput pages into rounds, alternating 1 and 2 jobs (default 2)")
    p.add_argument("--skip-throughput", action="store_true")
    p.add_argument("--skip-faults", action="store_true")
    p.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--jobs", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--dpi", type=float, default=200.0, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    p.add_argument("inputs", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.inputs, str(args.out), args.jobs, args.dpi)))
        return 0

    cores = os.cpu_count() or 1
    print(f"bench: {cores} cores, {_load()} (the ratio needs 2 otherwise idle cores)")
    sources = distinct_pages(args.cache / "pages", max(args.distinct, PDF_PAGES), jobs=min(2, cores))
    work = Path(tempfile.mkdtemp(prefix="scan-solve-bench-"))
    code = 0
    try:
        if not args.skip_throughput:
            _throughput(args, sources, work)
        if not args.skip_faults:
            code = _faults(args, sources, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
