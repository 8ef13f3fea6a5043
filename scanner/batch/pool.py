"""Pages across worker processes, one page per worker at a time, surviving workers that die or hang.

Each worker is a process with its own pipe: the pool hands it one page, waits for the result, hands it the
next. So the pool always knows which page each worker holds and since when (``concurrent.futures`` knows
neither: a dead worker breaks its whole pool, and a task cannot be stopped):

- a worker that dies (a crash in native code, the kernel's OOM killer) is replaced, and its page is run once
  more alone (nothing else in flight, so other pages' memory is not to blame); dying again, it fails with
  that reason;
- a page still not done after ``timeout`` seconds has its worker killed and replaced, and fails with that
  reason (not tried again: it would most likely hang again).

Memory is bounded by one page per worker. Workers start from a fork server that has the photo pipeline
imported, so replacing one is cheap.
"""
from __future__ import annotations

import multiprocessing
import os
import time
from collections import deque
from multiprocessing.connection import wait
from typing import Iterable, Iterator, Optional

from solver.errors import ExitCode

from . import worker
from .units import Unit

CRASH_REASON = ("the worker process reading this page died (a crash in native code or out of memory); "
                "run alone again, it died again")
WORKER_THREADS = 1  #: OpenCV threads per worker: ``--jobs N`` uses N cores, parallel across pages only
STOP_GRACE = 5.0  #: seconds a worker is given to exit when asked before it is killed

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


def timeout_reason(seconds: float) -> str:
    return f"timed out: still not done after {seconds:g} s, its worker was stopped"


class _Worker:
    """One worker process, its end of the pipe, and the page it holds (``unit``, given at ``since``)."""

    def __init__(self, ctx, opts: worker.Options):
        here, there = ctx.Pipe()
        self.process = ctx.Process(target=worker.serve, name="scan-solve-worker", daemon=True,
                                   args=(there, opts, WORKER_THREADS, worker.hook_marks()))
        self.process.start()
        there.close()
        self.conn = here
        self.unit: Optional[Unit] = None
        self.since = 0.0
        self.alone = False

    def give(self, unit: Unit, *, alone: bool = False) -> None:
        self.unit, self.since, self.alone = unit, time.monotonic(), alone
        self.conn.send(unit)

    def receive(self) -> Optional[worker.PageResult]:
        """The page's result when the worker sent one; None when it died."""
        try:
            if self.conn.poll():
                return self.conn.recv()
        except (EOFError, OSError):
            return None
        except Exception as err:  # a result that cannot be read back: the page fails, not the batch
            return _failed(self.unit, f"internal error: {type(err).__name__}: {err}")
        return None

    def stop(self, *, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.process.join(STOP_GRACE)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


def _failed(unit: Unit, reason: str) -> worker.PageResult:
    return worker.PageResult(unit, [worker.failure_record(unit, f"{unit.name}: {reason}", ExitCode.SOFTWARE)])


class Pool:
    """Runs ``worker.run_page`` over units with ``jobs`` processes; see the module docstring."""

    def __init__(self, opts: worker.Options, *, jobs: int, timeout: Optional[float] = None):
        self.opts = opts
        self.jobs = max(1, jobs)
        self.timeout = opts.timeout if timeout is None else timeout
        self.replaced = 0  #: workers that died or were stopped and replaced
        self._ctx = _context()
        self._workers: set[_Worker] = set()
        self._idle: list[_Worker] = []

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker (killed when it is still on a page)."""
        for w in list(self._workers):
            w.stop(kill=w.unit is not None)
        self._workers.clear()
        self._idle.clear()

    def _give(self, idle: list[_Worker], unit: Unit, *, alone: bool = False) -> _Worker:
        """An idle worker (a new one when none is left) that now holds ``unit``."""
        while True:
            if idle:
                w = idle.pop()
            else:
                w = _Worker(self._ctx, self.opts)
                self._workers.add(w)
            try:
                w.give(unit, alone=alone)
                return w
            except OSError:  # it died while idle (e.g. the OOM killer): the page goes to another
                self._drop(w, kill=True)

    def _drop(self, w: _Worker, *, kill: bool) -> None:
        self._workers.discard(w)
        self.replaced += 1
        w.stop(kill=kill)

    def map(self, units: Iterable[Unit]) -> Iterator[worker.PageResult]:
        """A ``PageResult`` for every unit, in completion order. Workers get their next pages before the
        results of their last ones are passed on, so they never wait for the caller."""
        todo = iter(units)
        idle = self._idle
        busy: list[_Worker] = []
        suspects: deque[Unit] = deque()

        def hand_out() -> None:
            while len(busy) < self.jobs:
                if suspects:
                    if not busy:  # a page whose worker died runs again with nothing beside it
                        busy.append(self._give(idle, suspects.popleft(), alone=True))
                    return
                unit = next(todo, None)
                if unit is None:
                    return
                busy.append(self._give(idle, unit))

        while True:
            hand_out()
            if not busy:
                return
            wait_for = None
            if self.timeout:
                wait_for = max(0.0, min(w.since for w in busy) + self.timeout - time.monotonic())
            ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=wait_for))
            now = time.monotonic()
            results = []
            for w in list(busy):
                unit = w.unit
                if w.conn in ready or w.process.sentinel in ready:
                    busy.remove(w)
                    result = w.receive()
                    if result is not None:
                        w.unit = None
                        idle.append(w)
                        results.append(result)
                        continue
                    self._drop(w, kill=True)
                    if w.alone:
                        results.append(_failed(unit, CRASH_REASON))
                    else:
                        suspects.append(unit)
                elif self.timeout and now - w.since >= self.timeout:
                    busy.remove(w)
                    self._drop(w, kill=True)
                    results.append(_failed(unit, timeout_reason(self.timeout)))
            hand_out()
            yield from results
