"""Exit codes and the exceptions that carry them.

Every failure the user can cause is an exception carrying an ``ExitCode``; the
CLI turns them into one error line and that exit code in a single place.
"""
from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes of ``scan-solve`` (documented in the README)."""

    OK = 0  #: every puzzle solved with a unique solution
    SOFTWARE = 1  #: an internal error (a bug): please report it
    USAGE = 2  #: bad command-line arguments
    INPUT = 3  #: an input file is missing, unreadable, empty, or not an image/text we know
    MALFORMED = 4  #: puzzle text that cannot be parsed (the message names line and column)
    IMPOSSIBLE = 5  #: a puzzle has no solution, or its givens contradict each other
    AMBIGUOUS = 6  #: a puzzle has more than one solution
    UNREADABLE = 7  #: a puzzle grid was found in the image but could not be read reliably
    NO_PUZZLE = 8  #: no puzzle grid was found in the image


#: When several puzzles end differently, the process exits with the most severe.
SEVERITY = [
    ExitCode.OK,
    ExitCode.AMBIGUOUS,
    ExitCode.IMPOSSIBLE,
    ExitCode.UNREADABLE,
    ExitCode.NO_PUZZLE,
    ExitCode.MALFORMED,
    ExitCode.INPUT,
    ExitCode.USAGE,
    ExitCode.SOFTWARE,
]


def worst(codes) -> ExitCode:
    """The most severe of ``codes`` (``OK`` for none)."""
    return max((ExitCode(c) for c in codes), key=SEVERITY.index, default=ExitCode.OK)


class ScanSolveError(Exception):
    """An error the user can act on; ``str(err)`` is the one-line message."""

    exit_code = ExitCode.SOFTWARE

    def __init__(self, message: str, *, exit_code: ExitCode | None = None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class InputError(ScanSolveError):
    """An input file is missing, unreadable or of an unknown kind."""

    exit_code = ExitCode.INPUT


class ParseError(ScanSolveError):
    """Malformed puzzle text; ``line`` and ``col`` are 1-based (0 when not known)."""

    exit_code = ExitCode.MALFORMED

    def __init__(self, message: str, *, line: int = 0, col: int = 0, source: str = ""):
        self.reason, self.line, self.col, self.source = message, line, col, source
        super().__init__(self._render())

    def _render(self) -> str:
        where = self.source or "<text>"
        if self.line:
            where += f":{self.line}"
            if self.col:
                where += f":{self.col}"
        return f"{where}: {self.reason}"

    def located(self, *, source: str = "", line_offset: int = 0) -> "ParseError":
        """The same error with a file name and with line numbers shifted by ``line_offset``."""
        line = self.line + line_offset if self.line else 0
        return ParseError(self.reason, line=line, col=self.col, source=source or self.source)


class UnreadableError(ScanSolveError):
    exit_code = ExitCode.UNREADABLE


class NoPuzzleError(ScanSolveError):
    exit_code = ExitCode.NO_PUZZLE
