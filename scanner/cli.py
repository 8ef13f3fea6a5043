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
    p.add_argument("--out", type=Path, metavar="DIR", help="write overlays into DIR (default: beside each photo)")
    p.add_argument("--no-overlay", action="store_true", help="do not write overlay images")
    p.add_argument("--debug", type=Path, metavar="DIR", help="write each stage's picture into DIR")
    p.add_argument("--engine", default="auto", choices=("auto", "classifier", "tesseract"),
                   help="digit reader for photos (default: auto)")
    p.add_argument("--version", action="version", version="scan-solve 0.1.0")
    return p


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


def run(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise InputError(f"--out {args.out}: exists and is not a folder")
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
