"""The progress bar on a terminal: pages done, puzzles solved, failures, the rate (tqdm).

Quiet (no bar, tqdm not even imported) when stderr is not a terminal or with ``--quiet``; failure lines are
then written straight through, and with a bar through ``tqdm.write`` so they do not tear it.
"""
from __future__ import annotations

import io
import os
from typing import Callable, TextIO


def wanted(file: TextIO, *, enabled: bool) -> bool:
    """Whether to draw a bar on ``file``: asked for and a terminal."""
    if not enabled:
        return False
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError):
        return False


def _columns(file: TextIO) -> int:
    """The terminal's width in columns (0 when it does not say)."""
    try:
        return os.get_terminal_size(file.fileno()).columns
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return 0


class Progress:
    def __init__(self, *, total: int, enabled: bool, file: TextIO):
        self.bar = None
        if wanted(file, enabled=enabled) and total > 0:
            from tqdm import tqdm

            width = {"dynamic_ncols": True} if _columns(file) > 0 else {"ncols": 100, "nrows": 24}  # a pty of size 0x0
            self.bar = tqdm(total=total, unit="page", file=file, smoothing=0.1, desc="pages", **width)

    def update(self, tally) -> None:
        if self.bar is not None:
            self.bar.set_postfix(solved=tally.solved, failed=len(tally.failed) + len(tally.no_puzzle),
                                 refresh=False)
            self.bar.update(1)

    def write(self, sink: Callable[[str], None], line: str) -> None:
        """``sink(line)``, with the bar cleared around it."""
        if self.bar is None:
            sink(line)
            return
        with self.bar.external_write_mode():
            sink(line)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
