"""What a worker process does with one page: make its pixels, read every grid, solve, draw; records out.

``run_page`` never raises for a page's own faults (a corrupt file, no grid, a bug in a stage, running out of
memory): each becomes a failure record for that page. Only the death of the process (a crash in native
code, the kernel's OOM killer) escapes, and the pool reports that page (``scanner.batch.pool``).
"""
from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from solver.errors import ExitCode, ScanSolveError

from .units import Unit

#: Test hooks: a page whose file name contains this environment variable's value kills its worker (SIGSEGV),
#: or hangs it (sleeps for an hour).
CRASH_ENV = "SCAN_SOLVE_TEST_CRASH"
HANG_ENV = "SCAN_SOLVE_TEST_HANG"
DEFAULT_TIMEOUT = 300.0  #: seconds a page may take (a 600 dpi page takes a few seconds) before its worker is stopped


@dataclass(frozen=True)
class Options:
    """How pages are processed (the batch's command-line options, picklable)."""

    out: Optional[str] = None  #: overlays go to ``out/<rel folder>/``; None: beside each input
    kind: str = "auto"
    engine: str = "auto"
    draw: bool = True
    dpi: float = 200.0
    max_grids: int = 16
    debug: Optional[str] = None
    timeout: Optional[float] = DEFAULT_TIMEOUT  #: per page, in seconds (None: no limit)


@dataclass
class PageResult:
    """The records of one page: its puzzles, or one failure record. (Grids that are no puzzle, a printed
    solution or a table, are dropped by the photo pipeline itself; a page with nothing else fails with
    ``NoPuzzleError`` naming why.)"""

    unit: Unit
    records: list = field(default_factory=list)
    cpu: float = 0.0  #: CPU seconds the worker spent on the page
    wall: float = 0.0  #: seconds from the page's start to its end in the worker
    peak_mb: float = 0.0  #: the worker process's peak resident memory so far (MB)


def failure_record(unit: Unit, message: str, code: ExitCode | int, *, seconds: float = 0.0) -> dict:
    """The record of a page that gave no puzzle: the contract's fields, ``page``, ``error`` and ``exit_code``."""
    return {
        "source": unit.path, "index": 0, "kind": None, "size": None, "givens": None, "relations": [],
        "status": "unreadable", "solution": None, "difficulty": None, "seconds": round(seconds, 6),
        "page": unit.page, "error": message, "exit_code": int(code),
    }


_marks: dict[str, str] = {}


def hook_marks() -> dict[str, str]:
    """The test hooks' marks as this process sees them (passed to workers: a fork server started earlier
    does not share later changes to the environment)."""
    return {env: os.environ[env] for env in (CRASH_ENV, HANG_ENV) if os.environ.get(env)}


def init(threads: int, marks: Optional[dict[str, str]] = None) -> None:
    """Worker start: OpenCV's own threads limited so workers do not fight for the cores (with one thread,
    no background decoding either: one worker uses one core); the test hooks' marks."""
    import cv2

    from .. import load

    cv2.setNumThreads(max(1, threads))
    load.BACKGROUND_DECODE = threads > 1  # one page per process: no decoding thread beside the reading one
    _marks.clear()
    _marks.update(marks or {})


def serve(conn, opts: "Options", threads: int, marks: dict[str, str]) -> None:
    """A worker process's life: ``init``, then read each unit sent on ``conn`` and send its ``PageResult``
    back, until None or the pipe closes (``scanner.batch.pool``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the batch, which stops its workers
    init(threads, marks)
    while True:
        try:
            unit = conn.recv()
        except (EOFError, OSError):
            return
        if unit is None:
            return
        result = run_page(unit, opts)
        try:
            conn.send(result)
        except (BrokenPipeError, EOFError):
            return
        except Exception as err:  # a record that cannot be pickled: the page fails, the worker goes on
            conn.send(PageResult(unit, [failure_record(
                unit, f"{unit.name}: internal error: {type(err).__name__}: {err}", ExitCode.SOFTWARE)]))


def _overlay_folder(unit: Unit, opts: Options) -> Path:
    if opts.out is None:
        return Path(unit.path).parent
    return Path(opts.out) / Path(unit.rel).parent


def _debug_folder(unit: Unit, opts: Options) -> Optional[Path]:
    if opts.debug is None:
        return None
    return Path(opts.debug) / Path(unit.rel).parent / f"{Path(unit.rel).stem}.p{unit.page}"


def _page_pixels(unit: Unit, opts: Options):
    from . import raster

    if unit.form == "pdf":
        return raster.pdf_page(Path(unit.path), unit.page, dpi=opts.dpi)
    return raster.tiff_page(Path(unit.path), unit.page)


def _scan(unit: Unit, opts: Options) -> list[dict]:
    """The photo pipeline on the unit: an image file through ``scan_photo``, a document page rendered here
    and read by ``scan_image`` (overlay ``<stem>.p<page>.solved.jpg``, source the document's path)."""
    from .. import photo

    common = dict(kind=opts.kind, debug_dir=_debug_folder(unit, opts), engine=opts.engine, draw=opts.draw,
                  max_grids=opts.max_grids)
    if unit.form == "image":
        return photo.scan_photo(Path(unit.path), out_dir=_overlay_folder(unit, opts), **common)
    target = _overlay_folder(unit, opts) / f"{Path(unit.rel).stem}.p{unit.page}.solved.jpg"
    return photo.scan_image(_page_pixels(unit, opts), source=unit.path, overlay_path=target, overwrite=True,
                            **common)


def _named(unit: Unit, message: str) -> str:
    """``message`` starting with the page's name (``file#page``) rather than the file's."""
    if unit.page is not None and message.startswith(unit.path + ": "):
        return f"{unit.name}: {message[len(unit.path) + 2:]}"
    return message


def run_page(unit: Unit, opts: Options) -> PageResult:
    """Read, solve and draw every puzzle on ``unit``'s page; failures become a failure record."""
    name = Path(unit.path).name
    for env, mark in (_marks or hook_marks()).items():
        if mark in name:
            if env == CRASH_ENV:
                os.kill(os.getpid(), signal.SIGSEGV)
            time.sleep(3600)
    cpu, wall = time.process_time(), time.perf_counter()
    result = _run_page(unit, opts)
    result.cpu, result.wall = time.process_time() - cpu, time.perf_counter() - wall
    result.peak_mb = _peak_mb()
    return result


def _peak_mb() -> float:
    """This process's peak resident memory in MB (0 where ``resource`` is missing, e.g. Windows)."""
    try:
        import resource
    except ImportError:
        return 0.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _run_page(unit: Unit, opts: Options) -> PageResult:
    start = time.perf_counter()
    result = PageResult(unit)
    try:
        records = _scan(unit, opts)
    except ScanSolveError as err:
        result.records = [failure_record(unit, _named(unit, str(err)), err.exit_code,
                                         seconds=time.perf_counter() - start)]
        return result
    except MemoryError:
        result.records = [failure_record(unit, f"{unit.name}: out of memory while reading the page",
                                         ExitCode.SOFTWARE, seconds=time.perf_counter() - start)]
        return result
    except Exception as err:  # a bug in a stage: this page fails, the batch goes on
        result.records = [failure_record(unit, f"{unit.name}: internal error: {type(err).__name__}: {err}",
                                         ExitCode.SOFTWARE, seconds=time.perf_counter() - start)]
        return result
    if not records:  # never a page without a line in the report
        records = [failure_record(unit, f"{unit.name}: no puzzle grid found in the image", ExitCode.NO_PUZZLE,
                                  seconds=time.perf_counter() - start)]
    for record in records:
        record["page"] = unit.page
    result.records = records
    return result
