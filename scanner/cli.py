"""The ``scan-solve`` command line: inputs in, grids and overlays out, exit codes in one place."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from solver import kinds
from solver.api import grade, read_puzzles, solve
from solver.errors import ExitCode, InputError, ScanSolveError, worst

from . import inputs
from .report import dumps, puzzle_from_record, puzzle_record
from .show import describe

DEFAULT_DPI = 200  #: PDF pages (kept equal to scanner.batch.raster.DEFAULT_DPI, which imports numpy)

STATUS_CODES = {
    "solved": ExitCode.OK,
    "ambiguous": ExitCode.AMBIGUOUS,
    "impossible": ExitCode.IMPOSSIBLE,
    "unreadable": ExitCode.UNREADABLE,
}

EPILOG = """exit codes:
  0 every puzzle solved (unique)     5 no solution / contradictory givens
  1 internal error                    6 more than one solution
  2 bad arguments                     7 grid found but not read reliably
  3 unreadable input file             8 no puzzle grid found in the image
  4 malformed puzzle text
When puzzles end differently the most severe code is returned (order: 1 2 3 4 8 7 5 6 0)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit code USAGE
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        raise SystemExit(ExitCode.USAGE)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="scan-solve",
        description="Read a Sudoku, Futoshiki or Takuzu from a photo, scan or text file, solve it, "
        "and draw the answer into the photo.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="photos/scans (JPEG, PNG, TIFF, WebP, BMP), puzzle text files, folders, or - for text on stdin")
    p.add_argument("--kind", choices=("auto",) + kinds.NAMES, default="auto",
                   help="puzzle kind (default: recognised from the content)")
    p.add_argument("--json", action="store_true", help="print JSON Lines, one object per puzzle")
    p.add_argument("--explain", action="store_true", help="print the human-style solving steps and the grade")
    p.add_argument("--hint", action="store_true", help="print only the next human-style step")
    p.add_argument("--out", type=Path, metavar="DIR", help="write overlays into DIR (default: beside each photo); in batch mode mirroring "
                   "the input folders, with DIR/report.jsonl")
    p.add_argument("--no-overlay", action="store_true", help="do not write overlay images")
    p.add_argument("--debug", type=Path, metavar="DIR", help="write each stage's picture into DIR")
    p.add_argument("--engine", default="auto", choices=("auto", "classifier", "tesseract"),
                   help="digit reader for photos (default: auto)")
    batch = p.add_argument_group("batch (folders, PDFs, multi-page TIFFs, several images)")
    batch.add_argument("--jobs", type=_positive, metavar="N",
                       help="worker processes reading pages in parallel (default: the number of cores)")
    batch.add_argument("--glob", metavar="PATTERN", help="in folders, take only the files matching PATTERN "
                       "(e.g. '*.pdf'; default: every image and PDF, recursively)")
    batch.add_argument("--dpi", type=_positive_float, metavar="DPI",
                       help=f"resolution PDF pages are rendered at (default {DEFAULT_DPI})")
    batch.add_argument("--resume", action="store_true",
                       help="skip the pages whose results are already in --out DIR's report.jsonl")
    batch.add_argument("--quiet", action="store_true", help="no progress bar (it is shown only on a terminal)")
    batch.add_argument("--page-timeout", type=_seconds, metavar="SECONDS",
                       help="stop a page still being read after SECONDS and report it as failed (default 300)")
    p.add_argument("--version", action="version", version="scan-solve 0.1.0")
    return p


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 10 <= value <= 1200:
        raise argparse.ArgumentTypeError(f"between 10 and 1200: {text}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0: {text}")
    return value


def _explain_lines(record: dict, *, hint: bool) -> list[str]:
    puzzle = puzzle_from_record(record)
    explanation = kinds.get(record["kind"]).explain(puzzle, max_steps=1 if hint else None)
    steps = [step.text for step in explanation.steps]
    if hint:
        return [f"hint: {steps[0]}" if steps else "hint: no step found by the human techniques; the puzzle needs search"]
    lines = [f"{i + 1:3d}. {s}" for i, s in enumerate(steps)]
    lines.append(f"grade: {explanation.grade}" + ("" if explanation.complete else " (the steps above stall)"))
    return lines


def solve_text(text: str, *, source: str, kind: str) -> list[dict]:
    """A record for every puzzle in ``text``."""
    records = []
    for puzzle in read_puzzles(text, kind=kind, source=source):
        start = time.perf_counter()
        result = solve(puzzle)
        difficulty = grade(puzzle, result)
        records.append(puzzle_record(puzzle, result, difficulty=difficulty, seconds=time.perf_counter() - start))
    return records


def process(path: Path, args) -> list[dict]:
    """Records for one input (a text file, stdin or a photo); raises ScanSolveError."""
    if str(path) == "-":
        return solve_text(sys.stdin.read(), source="-", kind=args.kind)
    what = inputs.sniff_file(path)
    if what == "text":
        return solve_text(inputs.read_text(path), source=str(path), kind=args.kind)
    if what == "pdf":
        raise InputError(f"{path}: PDF input is not supported yet")
    from . import photo  # OpenCV is imported only for images

    return photo.scan_photo(
        path, kind=args.kind, out_dir=args.out, debug_dir=args.debug, engine=args.engine,
        draw=not args.no_overlay,
    )


def _error_record(path: Path, err: ScanSolveError) -> dict:
    return {
        "source": str(path), "index": 0, "kind": None, "size": None, "givens": None, "relations": [],
        "status": "unreadable", "solution": None, "difficulty": None, "seconds": 0.0,
        "error": str(err), "exit_code": int(err.exit_code),
    }


def _is_batch(args) -> bool:
    """Batch mode: a folder, a PDF, a multi-page TIFF, more than one image, or a batch option given.
    One photo and text files keep the single-file behaviour and output."""
    if args.jobs is not None or args.resume or args.glob or args.dpi is not None or args.page_timeout is not None:
        return True
    images = 0
    for name in args.files:
        path = Path(name)
        if name == "-":
            continue
        if path.is_dir():
            return True
        try:
            what = inputs.sniff_file(path)
        except ScanSolveError:
            continue  # reported by whichever path runs
        if what == "pdf":
            return True
        if what == "image":
            images += 1
            if inputs.is_tiff(path):
                from .batch.units import tiff_pages

                try:
                    if tiff_pages(path) > 1:
                        return True
                except ScanSolveError:
                    pass
    return images > 1


def _write_record(record: dict, args, out) -> None:
    """One record on stdout: a JSON line, or the heading and grids (with steps when asked)."""
    wants_steps = (args.explain or args.hint) and record["status"] != "unreadable"
    steps = _explain_lines(record, hint=args.hint) if wants_steps else []
    if args.json:
        if steps:
            record["steps"] = steps
        out.write(dumps(record) + "\n")
    else:
        out.write(describe(record, with_puzzle="quad" in record) + "\n")
        if steps:
            out.write("\n".join(steps) + "\n")
        out.write("\n")


def _cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def run_batch(args) -> int:
    """Batch mode: every page of every input through the worker pool; summary on stderr."""
    from .batch.run import run_batch as batch
    from .batch.worker import Options

    opts = Options(out=str(args.out) if args.out else None, kind=args.kind, engine=args.engine,
                   draw=not args.no_overlay, dpi=args.dpi or DEFAULT_DPI,
                   debug=str(args.debug) if args.debug else None,
                   **({"timeout": args.page_timeout} if args.page_timeout else {}))
    out = sys.stdout

    def emit(record: dict) -> None:
        if record.get("kind") is None:  # a page without a puzzle: its error line went to stderr
            if args.json:
                out.write(dumps(record) + "\n")
        else:
            _write_record(record, args, out)
        out.flush()

    def error(line: str) -> None:
        sys.stderr.write(f"scan-solve: error: {line}\n")
        sys.stderr.flush()

    jobs = args.jobs or _cores()
    tally = batch(args.files, opts=opts, jobs=jobs, glob=args.glob, resume=args.resume, quiet=args.quiet,
                  emit=emit, error=error)
    sys.stderr.write(tally.text(seconds=tally.seconds, jobs=jobs, report=tally.report) + "\n")
    return int(tally.worst())


def run(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise InputError(f"--out {args.out}: exists and is not a folder")
    if _is_batch(args):
        return run_batch(args)
    codes: list[ExitCode] = []
    out = sys.stdout
    try:
        paths = list(inputs.expand(args.files))
    except ScanSolveError as err:
        sys.stderr.write(f"scan-solve: error: {err}\n")
        return int(err.exit_code)
    for path in paths:
        try:
            records = process(path, args)
        except ScanSolveError as err:
            sys.stderr.write(f"scan-solve: error: {err}\n")
            codes.append(err.exit_code)
            if args.json:
                out.write(dumps(_error_record(path, err)) + "\n")
            continue
        for record in records:
            codes.append(STATUS_CODES.get(record["status"], ExitCode.SOFTWARE))
            _write_record(record, args, out)
        out.flush()
    return int(worst(codes))


def main(argv: list[str] | None = None) -> int:
    """Console entry point: every error becomes one line and its exit code, never a traceback."""
    try:
        code = run(argv)
    except ScanSolveError as err:
        sys.stderr.write(f"scan-solve: error: {err}\n")
        code = int(err.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("scan-solve: interrupted\n")
        code = 130
    except BrokenPipeError:
        code = 0
    except Exception as err:  # a bug: one line unless asked for the traceback
        if os.environ.get("SCAN_SOLVE_TRACEBACK"):
            raise
        sys.stderr.write(f"scan-solve: internal error: {type(err).__name__}: {err} "
                         "(set SCAN_SOLVE_TRACEBACK=1 for details)\n")
        code = int(ExitCode.SOFTWARE)
    return code


if __name__ == "__main__":
    sys.exit(main())
