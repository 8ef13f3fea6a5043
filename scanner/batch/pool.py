"""Pages across worker processes, a bounded number in flight, surviving workers that die.

``concurrent.futures.ProcessPoolExecutor`` breaks as a whole when one worker dies (a segfault in native code,
the OOM killer): every page in flight then fails with ``BrokenProcessPool`` and nobody knows which page
killed it. Here those pages become *suspects*: the pool is restarted and each suspect is run again alone;
a suspect that kills its worker alone is the culprit and gets a failure record, the others their results.
Workers are started from a fork server that has the photo pipeline imported, so a restart is cheap.
"""
from __future__ import annotations

import multiprocessing
import os
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Iterable, Iterator

from solver.errors import ExitCode

from . import worker
from .units import Unit

CRASH_REASON = ("the worker process reading this page died (a crash in native code or out of memory); "
                "run alone again, it died again")


#: Thread pools of numeric libraries, one thread each in the workers (the MLP digit reader's matrix products
#: would otherwise use every core in every worker). Set before the fork server starts; a user's own
#: settings win.
SINGLE_THREAD_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _context():
    for name in SINGLE_THREAD_ENV:
        os.environ.setdefault(name, "1")
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["scanner.batch.worker", "scanner.photo"])
        return ctx
    return multiprocessing.get_context("spawn")


WORKER_THREADS = 1  #: OpenCV threads per worker: ``--jobs N`` uses N cores, parallel across pages only


class Pool:
    """Runs ``worker.run_page`` over units with ``jobs`` processes; see the module docstring."""

    def __init__(self, opts: worker.Options, *, jobs: int, in_flight: int | None = None):
        self.opts = opts
        self.jobs = max(1, jobs)
        self.limit = max(self.jobs, in_flight or 2 * self.jobs)
        self.restarts = 0
        self._ctx = _context()
        self._executor: ProcessPoolExecutor | None = None

    def _start(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=self.jobs, mp_context=self._ctx,
                initializer=worker.init,
                initargs=(WORKER_THREADS, os.environ.get(worker.CRASH_ENV)))
        return self._executor

    def _restart(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        self.restarts += 1

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _crashed(self, unit: Unit) -> worker.PageResult:
        return worker.PageResult(unit, [worker.failure_record(unit, f"{unit.name}: {CRASH_REASON}", ExitCode.SOFTWARE)])

    @staticmethod
    def _outcome(future: Future, unit: Unit):
        """The page's result, None when its worker pool broke, a failure record for any other error."""
        try:
            return future.result()
        except BrokenProcessPool:
            return None
        except Exception as err:  # e.g. a result that cannot be sent back: the page fails, not the batch
            return worker.PageResult(unit, [worker.failure_record(
                unit, f"{unit.name}: internal error: {type(err).__name__}: {err}", ExitCode.SOFTWARE)])

    def _alone(self, unit: Unit) -> worker.PageResult:
        """Run a suspect with nothing else in flight; a death now is its own."""
        outcome = self._outcome(self._start().submit(worker.run_page, unit, self.opts), unit)
        if outcome is None:
            self._restart()
            return self._crashed(unit)
        return outcome

    def map(self, units: Iterable[Unit]) -> Iterator[worker.PageResult]:
        """A ``PageResult`` for every unit, in completion order."""
        todo = iter(units)
        flying: dict[Future, Unit] = {}
        suspects: deque[Unit] = deque()
        exhausted = False
        while True:
            while suspects:
                yield self._alone(suspects.popleft())
            while not exhausted and len(flying) < self.limit:
                unit = next(todo, None)
                if unit is None:
                    exhausted = True
                    break
                flying[self._start().submit(worker.run_page, unit, self.opts)] = unit
            if not flying:
                return
            done, _ = wait(flying, return_when=FIRST_COMPLETED)
            broken = False
            for future in done:
                unit = flying.pop(future)
                outcome = self._outcome(future, unit)
                if outcome is None:
                    broken = True
                    suspects.append(unit)
                else:
                    yield outcome
            if broken:
                for future, unit in list(flying.items()):  # the executor fails them all; keep what finished
                    outcome = self._outcome(future, unit)
                    if outcome is None:
                        suspects.append(unit)
                    else:
                        yield outcome
                flying.clear()
                self._restart()
