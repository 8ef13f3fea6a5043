"""A batch run: units out of the inputs, pages through the worker pool, records out in input order.

Text puzzle files and files that failed to open are handled in this process (they need no pixels); every
image page goes to the pool. Records are printed on stdout in input order (a page finishing early waits
for the pages before it), appended to ``DIR/report.jsonl`` as pages finish (so an interrupted batch can
``--resume``), counted for the progress bar and the summary on stderr.
"""
from __future__ import annotations

import os
import sys
import time
from collections import deque
from pathlib import Path
from typing import Callable, Optional, TextIO

from solver.errors import ScanSolveError

from . import resume as resume_mod
from .progress import Progress
from .summary import Tally
from .units import Unit, make_units
from .worker import Options, PageResult, failure_record


def _main_side(unit: Unit, kind: str) -> PageResult:
    """A unit needing no worker: a text puzzle file, or a file that could not be opened."""
    if unit.error is not None:
        return PageResult(unit, [failure_record(unit, unit.error, unit.exit_code)])
    from .. import inputs
    from ..cli import solve_text

    try:
        text = sys.stdin.read() if unit.path == "-" else inputs.read_text(Path(unit.path))
        records = solve_text(text, source=unit.path, kind=kind)
    except ScanSolveError as err:
        return PageResult(unit, [failure_record(unit, str(err), err.exit_code)])
    for record in records:
        record["page"] = unit.page
    return PageResult(unit, records)


class _Report:
    """``DIR/report.jsonl``: rewritten with the records kept by ``--resume``, then appended line by line."""

    def __init__(self, folder: Optional[Path], kept: list[dict], dumps: Callable[[dict], str]):
        self.path = None if folder is None else folder / resume_mod.REPORT_NAME
        self._fh: Optional[TextIO] = None
        self._dumps = lambda record: dumps(resume_mod.stamped(record))
        if self.path is None:
            return
        folder.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for record in kept:
                fh.write(self._dumps(record) + "\n")
        os.replace(tmp, self.path)
        self._fh = open(self.path, "a", encoding="utf-8")

    def write(self, records: list[dict]) -> None:
        if self._fh is not None:
            self._fh.write("".join(self._dumps(r) + "\n" for r in records))
            self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()


def run_batch(files: list[str], *, opts: Options, jobs: int, glob: Optional[str] = None, resume: bool = False,
              quiet: bool = False, emit: Callable[[dict], None], error: Callable[[str], None],
              stderr: TextIO = sys.stderr) -> Tally:
    """Process every page of ``files``; ``emit`` gets each record (input order), ``error`` each failure line.

    Returns the tally (its ``worst()`` is the exit code). Raises ``ScanSolveError`` only for ``--resume``
    without ``--out``; every other fault (an empty folder too) is a failure record and the batch goes on.
    """
    from ..report import dumps

    start = time.perf_counter()
    out = Path(opts.out) if opts.out else None
    if resume and out is None:
        raise ScanSolveError("--resume needs --out DIR (the folder whose report.jsonl lists the finished pages)",
                             exit_code=2)
    units = list(make_units(files, glob=glob))
    done = resume_mod.done_pages(out / resume_mod.REPORT_NAME) if (resume and out) else {}
    tally = Tally()
    kept: list[dict] = []
    todo: list[tuple[int, Unit]] = []
    for seq, unit in enumerate(units):
        key = resume_mod.page_key(unit.path, unit.page)
        if key in done:
            kept.extend(done[key])
            tally.add(done[key], resumed=True)
        else:
            todo.append((seq, unit))
    report = _Report(out, kept, dumps)
    order = [seq for seq, _ in todo]
    waiting: dict[int, list[dict]] = {}
    next_i = 0
    seqs: dict[Unit, deque] = {}
    for seq, unit in todo:  # a unit comes back from its worker as an equal copy; the same file twice is two
        seqs.setdefault(unit, deque()).append(seq)
    progress = Progress(total=len(todo), enabled=not quiet, file=stderr)

    def finish(result: PageResult, seq: int) -> None:
        nonlocal next_i
        tally.add(result.records)
        tally.cpu_seconds += result.cpu
        tally.worker_seconds += result.wall
        tally.worker_peak_mb = max(tally.worker_peak_mb, result.peak_mb)
        report.write(result.records)
        for record in result.records:
            if record.get("kind") is None and "error" in record:
                progress.write(error, record["error"])
        progress.update(tally)
        waiting[seq] = result.records
        while next_i < len(order) and order[next_i] in waiting:
            for record in waiting.pop(order[next_i]):
                emit(record)
            next_i += 1

    try:
        pooled = []
        for seq, unit in todo:
            if unit.form == "text" or unit.error is not None:
                finish(_main_side(unit, opts.kind), seqs[unit].popleft())
            else:
                pooled.append(unit)
        if pooled:
            from .pool import Pool

            with Pool(opts, jobs=jobs) as pool:
                for result in pool.map(pooled):
                    finish(result, seqs[result.unit].popleft())
    finally:
        progress.close()
        report.close()
    tally.seconds = time.perf_counter() - start
    tally.report = str(report.path) if report.path else None
    return tally

