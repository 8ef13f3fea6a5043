"""Seconds per named stage of the photo pipeline."""
from __future__ import annotations

import time
from contextlib import contextmanager


class Timer:
    """Seconds spent per named stage (summed when a stage runs several times)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

    def rounded(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in self.seconds.items()}
