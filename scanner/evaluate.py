"""``python -m scanner.evaluate DIR...``: run the photo reader over images with ground truth and score it.

Ground truth beside each image ``NAME.jpg`` (or .png ...):

- ``NAME.json``: the test bed's record (``scanner.synth.truth``): every puzzle
  with ``kind``, ``size``, ``givens``, ``relations``, ``solution``, ``corners``;
- ``NAME.dat``: the real Sudoku photos' format (2 header lines, then 9 rows of
  9 digits, 0 empty); the solution is the solver's unique solution of those
  givens, and the corners come from ``outlines.csv`` in the same folder when it
  lists the image.

Printed per kind and overall: images; puzzles; grids found (a read quad whose
corners are all within ``--tolerance`` (5 %) of the grid side from the true
ones; where the truth has no corners, a record of the right kind and size);
cells read correctly (empty read as empty counts, a missed grid counts every
cell wrong); relation signs read correctly (of the true signs, plus the
number of spurious ones); puzzles read exactly (every given and sign right, and
the status not ``unreadable``); puzzles solved correctly;
WRONG answers (a ``solved`` status whose solution differs from the truth, or
an overlay drawn on a misread puzzle): the worst outcome, counted apart from
"no answer" (not found, unreadable, ambiguous, impossible, or an error);
"turn unknown": solved right as seen in the photo but turned against the print
(its solution is a turned copy of the true one),
where the record says ``turn_known: false`` (circle prints look the same every
way up; the overlay is right, the grids are in the photo's orientation) --
neither right nor WRONG; "extra answers": records solved where the truth has no puzzle (a quad
matching no true grid, say a grid's inner box or a misplaced outline): an answer drawn where none belongs,
counted under the record's kind and apart from WRONG (which scores the true puzzles); and the median / max
seconds per image.

The reader is ``scanner.photo.scan_photo``; while it does not exist a stub
that reads nothing stands in, and the table says so.
"""
from __future__ import annotations

import argparse
import csv
import inspect
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Callable, Optional

import numpy as np

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".bmp"}
KINDS = ("sudoku", "futoshiki", "takuzu")


# ----------------------------------------------------------------------------- ground truth

@dataclass
class Truth:
    """One image's expected puzzles (each a dict: kind, size, givens, relations, solution, corners or None);
    ``outside``: the puzzles the photo cuts off (not scored; an answer read there is no extra answer)."""

    image: Path
    puzzles: list[dict]
    outside: list[dict] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.puzzles[0]["kind"]


#: the fields of each record kept in the per-image JSON Lines (enough to see why a puzzle was missed)
READ_FIELDS = ("kind", "size", "status", "reason", "givens", "relations", "quad", "turn", "turn_known")


def _read_outlines(folder: Path) -> dict[str, list[list[float]]]:
    path = folder / "outlines.csv"
    if not path.exists():
        return {}
    out = {}
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            pts = [[float(row[f"p{i}_x"]), float(row[f"p{i}_y"])] for i in range(1, 5)]
            out[Path(row["filepath"]).name] = pts
    return out


def _unique_solution(kind: str, size: int, givens: list) -> Optional[list]:
    from solver.api import solve
    from solver.puzzle import Puzzle

    box = {4: (2, 2), 6: (2, 3), 9: (3, 3), 16: (4, 4)}.get(size) if kind == "sudoku" else None
    result = solve(Puzzle(kind=kind, size=size, givens=givens, box=box))
    return result.solution if result.status == "solved" else None


def read_dat(path: Path, corners: Optional[list]) -> dict:
    """A real photo's ``.dat`` truth (header, header, 9 rows of 9 digits) as a truth puzzle."""
    rows = [ln.split() for ln in path.read_text().splitlines()[2:] if ln.strip()]
    givens = [[int(v) or None for v in row] for row in rows]
    size = len(givens)
    if size != 9 or any(len(r) != 9 for r in givens):
        raise ValueError(f"{path}: expected 9 rows of 9 digits after two header lines")
    return {"kind": "sudoku", "size": 9, "givens": givens, "relations": [],
            "solution": _unique_solution("sudoku", 9, givens), "corners": corners, "in_frame": True}


def find_truths(folders: list[Path]) -> list[Truth]:
    """Every image under ``folders`` (recursively) that has a ``.json`` or ``.dat`` truth beside it."""
    truths = []
    for folder in folders:
        folder = Path(folder)
        images = [folder] if folder.is_file() else sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
        outlines: dict[Path, dict] = {}
        for img in images:
            js, dat = img.with_suffix(".json"), img.with_suffix(".dat")
            if js.exists():
                rec = json.loads(js.read_text())
                if rec.get("image", img.name) != img.name:
                    continue  # another picture of the same name (a stale copy): the truth is not its
                every = rec.get("puzzles", [rec])
                puzzles = [p for p in every if p.get("in_frame", True)]
                if puzzles:
                    truths.append(Truth(img, puzzles, [p for p in every if not p.get("in_frame", True)]))
            elif dat.exists():
                table = outlines.setdefault(img.parent, _read_outlines(img.parent))
                truths.append(Truth(img, [read_dat(dat, table.get(img.name))]))
    return truths


# ----------------------------------------------------------------------------- the reader

def _stub(path, **_options) -> list[dict]:
    """Stands in for the photo reader while it does not exist: finds nothing."""
    return []


def get_reader() -> tuple[Callable, str]:
    """``scanner.photo.scan_photo`` when it exists, else the stub; and its name for the table."""
    try:
        from scanner.photo import scan_photo
    except ImportError:
        return _stub, "STUB (scanner.photo is missing: reads nothing)"
    return scan_photo, "scanner.photo.scan_photo"


def _call(reader: Callable, path: Path, **options) -> list[dict]:
    try:
        accepted = inspect.signature(reader).parameters
        if not any(p.kind == p.VAR_KEYWORD for p in accepted.values()):
            options = {k: v for k, v in options.items() if k in accepted}
    except (TypeError, ValueError):
        pass
    return reader(path, **options)


# ----------------------------------------------------------------------------- scoring

def quad_error(quad, corners) -> float:
    """Largest corner distance between a read quad and the true corners, over the quad's 4 rotations and
    its reversal (the reader may start at another corner), as a fraction of the true grid side."""
    q = np.asarray(quad, float).reshape(4, 2)
    t = np.asarray(corners, float).reshape(4, 2)
    side = float(np.mean(np.linalg.norm(t - np.roll(t, -1, axis=0), axis=1)))
    best = np.inf
    for cand in (q, q[::-1]):
        for k in range(4):
            best = min(best, float(np.max(np.linalg.norm(np.roll(cand, k, axis=0) - t, axis=1))))
    return best / max(side, 1e-9)


def _rels(rels) -> set:
    return {(tuple(r["a"]), tuple(r["b"]), r["op"]) for r in rels or ()}


def _match(truths: list[dict], records: list[dict], tolerance: float) -> list[tuple[dict, Optional[dict], bool]]:
    """Pair each true puzzle with at most one record: by quad when the truth has corners, else by kind, size and
    agreeing givens."""
    left = list(records)
    out = []
    for t in truths:
        best, found = None, False
        if t.get("corners"):
            scored = [(quad_error(r["quad"], t["corners"]), i) for i, r in enumerate(left) if r.get("quad") is not None]
            if scored:
                err, i = min(scored)
                if err <= tolerance:
                    best, found = left.pop(i), True
        elif left:
            # No annotated outline (a few real photos): the record of the same kind and size whose givens agree
            # with the truth's in most cells stands for it; where it is cannot be checked, so "found" is its kind
            # and size being right.
            same = [(_agreement(r.get("givens"), t["givens"]), i) for i, r in enumerate(left)
                    if r.get("kind") == t["kind"] and r.get("size") == t["size"]]
            if same:
                _, i = max(same)
                best, found = left.pop(i), True
        if best is None and len(truths) == 1 and left and left[0].get("quad") is None:
            best = left.pop(0)  # a reader that gives no quad: take its single answer
        out.append((t, best, found))
    return out


def _agreement(grid, truth) -> int:
    """How many cells of ``grid`` (None when the reader gave no givens) hold what ``truth`` holds."""
    if grid is None:
        return 0
    return sum(a == b for row, true_row in zip(grid, truth) for a, b in zip(row, true_row))


def _turned_copy(grid, truth) -> bool:
    """Whether ``grid`` is ``truth`` turned by a quarter, a half or three quarters."""
    if grid is None or truth is None:
        return False
    t = np.array(truth, dtype=object)
    return any(np.rot90(t, k).tolist() == grid for k in (1, 2, 3))


#: an answer whose quad lies this close (share of the side) to a puzzle the photo cuts off was read there
OUTSIDE_TOLERANCE = 0.25


def score_image(truth: Truth, records: list[dict], *, tolerance: float) -> dict:
    """Counts for one image (see the module doc)."""
    c = {"puzzles": 0, "found": 0, "cells_correct": 0, "cells_total": 0, "signs_correct": 0, "signs_total": 0,
         "signs_spurious": 0, "exact": 0, "solved_right": 0, "wrong": 0, "wrong_overlay": 0, "no_answer": 0, "turned": 0,
         "extra": 0}
    per_kind: dict[str, dict] = {}
    matched = _match(truth.puzzles, records, tolerance)
    paired = {id(rec) for _, rec, _ in matched if rec is not None}
    for rec in records:
        if id(rec) not in paired and rec.get("status") == "solved" and rec.get("kind") in KINDS:
            cut_off = rec.get("quad") is not None and any(
                p.get("corners") and quad_error(rec["quad"], p["corners"]) <= OUTSIDE_TOLERANCE for p in truth.outside)
            if not cut_off:
                per_kind.setdefault(rec["kind"], dict.fromkeys(c, 0))["extra"] += 1
    for t, rec, found in matched:
        k = per_kind.setdefault(t["kind"], dict.fromkeys(c, 0))
        n = t["size"]
        k["puzzles"] += 1
        k["found"] += found
        k["cells_total"] += n * n
        true_rels = _rels(t.get("relations"))
        k["signs_total"] += len(true_rels)
        if rec is None:
            k["no_answer"] += 1
            continue
        same_shape = rec.get("kind") == t["kind"] and rec.get("size") == n and rec.get("givens") is not None
        if same_shape:
            k["cells_correct"] += sum(rec["givens"][r][col] == t["givens"][r][col] for r in range(n) for col in range(n))
            read_rels = _rels(rec.get("relations"))
            k["signs_correct"] += len(true_rels & read_rels)
            k["signs_spurious"] += len(read_rels - true_rels)
        status = rec.get("status")
        # Read exactly: every given and sign right, and the reader standing by it (a right reading it calls
        # unreadable, say for a rival within the margin, gives the user nothing).
        exact = (same_shape and rec["givens"] == t["givens"] and _rels(rec.get("relations")) == true_rels
                 and status != "unreadable")
        k["exact"] += exact
        # the answer is right in the photo, turned against the print (a given missed or not, as for
        # "solved right"); the print and the page cannot tell which way up it is
        turned = (same_shape and not exact and rec.get("turn_known") is False
                  and _turned_copy(rec.get("solution"), t.get("solution")))
        if turned and status == "solved":
            k["turned"] += 1
            if rec.get("overlay") and not _turned_copy(rec["givens"], t["givens"]):
                k["wrong_overlay"] += 1
            continue
        if status == "solved" and t.get("solution") is not None:
            if rec.get("solution") == t["solution"]:
                k["solved_right"] += 1
            else:
                k["wrong"] += 1
        elif status == "solved" and not exact:
            k["wrong"] += 1  # no unique true solution known: a solve of a misread puzzle is still wrong
        else:
            k["no_answer"] += 1
        if rec.get("overlay") and not exact:
            k["wrong_overlay"] += 1
    return per_kind


def _evaluate_one(job: tuple) -> dict:
    truth, options, tolerance = job
    reader, _ = get_reader()
    kind = truth.kind if options.pop("tell_kind") else "auto"
    error, records = None, []
    start = time.perf_counter()
    try:
        records = _call(reader, truth.image, kind=kind, draw=False, out_dir=None, debug_dir=None, **options)
    except Exception as err:  # ScanSolveError (no grid, unreadable file) or a crash: no answer either way
        error = f"{type(err).__name__}: {err}"
    seconds = time.perf_counter() - start
    per_kind = score_image(truth, records or [], tolerance=tolerance)
    return {
        "image": str(truth.image), "kind": truth.kind, "seconds": round(seconds, 4), "error": error,
        "scores": per_kind,
        "read": [{k: r.get(k) for k in READ_FIELDS} for r in records or []],
    }


# ----------------------------------------------------------------------------- the table

COLUMNS = ("images", "puzzles", "grids found", "cells read", "signs read", "read exactly", "solved right",
           "WRONG answers", "turn unknown", "no answer", "extra answers", "s/img med", "s/img max")


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "-"


def summarise(results: list[dict]) -> list[list[str]]:
    rows = []
    for kind in KINDS + ("all",):
        imgs = [r for r in results if kind == "all" or r["kind"] == kind]
        scores = [s for r in results for k, s in r["scores"].items() if kind == "all" or k == kind]
        if not imgs and not scores:
            continue
        tot = {key: sum(s[key] for s in scores) for key in (scores[0] if scores else {})}
        g = lambda key: tot.get(key, 0)  # noqa: E731
        secs = [r["seconds"] for r in imgs]
        wrong = str(g("wrong")) + (f" +{g('wrong_overlay')} overlay" if g("wrong_overlay") else "")
        signs = _pct(g("signs_correct"), g("signs_total")) + (f" +{g('signs_spurious')} extra" if g("signs_spurious") else "")
        rows.append([kind, str(len(imgs)), str(g("puzzles")), _pct(g("found"), g("puzzles")),
                     _pct(g("cells_correct"), g("cells_total")), signs, _pct(g("exact"), g("puzzles")),
                     _pct(g("solved_right"), g("puzzles")), wrong, str(g("turned")), str(g("no_answer")), str(g("extra")),
                     f"{statistics.median(secs):.2f}" if secs else "-", f"{max(secs):.2f}" if secs else "-"])
    return rows


def format_table(rows: list[list[str]], title: str) -> str:
    header = ["kind", *COLUMNS]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731
    return "\n".join([title, line(header), *[line(r) for r in rows]])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m scanner.evaluate",
                                description="Score the photo reader on folders of images with ground truth.")
    p.add_argument("folders", nargs="+", type=Path, metavar="DIR")
    p.add_argument("--kind", choices=KINDS, help="only images whose (first) puzzle is of this kind")
    p.add_argument("--limit", type=int, metavar="N", help="at most N images of each kind (in name order)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1: seconds stay comparable)")
    p.add_argument("--json", type=Path, metavar="FILE", help="write per-image results as JSON Lines to FILE")
    p.add_argument("--engine", default="auto", help="digit engine passed to the reader (default auto)")
    p.add_argument("--tell-kind", action="store_true", help="pass the true kind to the reader instead of auto")
    p.add_argument("--tolerance", type=float, default=0.05, help="grid found: corner error / grid side (default 0.05)")
    args = p.parse_args(argv)
    truths = find_truths(args.folders)
    if args.kind:
        truths = [t for t in truths if t.kind == args.kind]
    if args.limit:
        seen: dict[str, int] = {}
        truths = [t for t in truths if (seen.__setitem__(t.kind, seen.get(t.kind, 0) + 1) or seen[t.kind]) <= args.limit]
    if not truths:
        print("no images with ground truth (.json or .dat beside them) found", file=sys.stderr)
        return 2
    _, reader_name = get_reader()
    jobs = [(t, {"engine": args.engine, "tell_kind": args.tell_kind}, args.tolerance) for t in truths]
    if args.jobs > 1:
        with Pool(args.jobs) as pool:
            results = pool.map(_evaluate_one, jobs, chunksize=1)
    else:
        results = [_evaluate_one(j) for j in jobs]
    if args.json:
        with args.json.open("w") as fh:
            for r in results:
                fh.write(json.dumps(r, separators=(", ", ": ")) + "\n")
    title = (f"reader: {reader_name}  engine: {args.engine}  kind given: {'yes' if args.tell_kind else 'no (auto)'}  "
             f"grid tolerance: {args.tolerance:.0%} of the side  folders: {' '.join(map(str, args.folders))}")
    print(format_table(summarise(results), title))
    errors: dict[str, int] = {}
    for r in results:
        if r["error"]:
            name = r["error"].split(":")[0]
            errors[name] = errors.get(name, 0) + 1
    if errors:
        print("errors (counted as no answer): " + ", ".join(f"{name} x{n}" for name, n in sorted(errors.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
