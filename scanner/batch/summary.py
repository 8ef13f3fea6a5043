"""The end-of-batch summary: pages, puzzles by outcome, pages without a puzzle, failed pages and why."""
from __future__ import annotations

from dataclasses import dataclass, field

from solver.errors import ExitCode

STATUS_CODES = {
    "solved": ExitCode.OK,
    "ambiguous": ExitCode.AMBIGUOUS,
    "impossible": ExitCode.IMPOSSIBLE,
    "unreadable": ExitCode.UNREADABLE,
}
MAX_LISTED = 20  #: failed pages listed by name; the rest are counted (report.jsonl has them all)


def record_code(record: dict) -> ExitCode:
    """The exit code a record stands for (a failure record carries its own)."""
    if "exit_code" in record:
        return ExitCode(record["exit_code"])
    return STATUS_CODES.get(record.get("status"), ExitCode.SOFTWARE)


def page_name(record: dict) -> str:
    page = record.get("page")
    return record["source"] if page is None else f"{record['source']}#{page}"


@dataclass
class Tally:
    """Counts over the records of a batch (``add`` them page by page)."""

    pages: int = 0
    resumed: int = 0
    puzzles: int = 0
    by_status: dict = field(default_factory=lambda: dict.fromkeys(STATUS_CODES, 0))
    no_puzzle: list = field(default_factory=list)
    failed: list = field(default_factory=list)  #: (page name, reason)
    codes: list = field(default_factory=list)
    seconds: float = 0.0
    report: str | None = None
    cpu_seconds: float = 0.0  #: CPU time the workers spent on the pages read in this run
    worker_seconds: float = 0.0  #: wall time the workers spent on those pages
    worker_peak_mb: float = 0.0  #: the largest worker's peak resident memory

    def add(self, records: list[dict], *, resumed: bool = False) -> None:
        self.pages += 1
        self.resumed += resumed
        for record in records:
            code = record_code(record)
            self.codes.append(code)
            if record.get("kind") is not None:
                self.puzzles += 1
                self.by_status[record["status"]] = self.by_status.get(record["status"], 0) + 1
            elif code == ExitCode.NO_PUZZLE:
                self.no_puzzle.append(page_name(record))
            else:
                self.failed.append((page_name(record), record.get("error", "failed")))

    @property
    def solved(self) -> int:
        return self.by_status.get("solved", 0)

    def worst(self) -> ExitCode:
        from solver.errors import worst

        return worst(self.codes)

    def text(self, *, seconds: float, jobs: int, report: str | None = None) -> str:
        fresh = self.pages - self.resumed
        rate = fresh / seconds if seconds > 0 else 0.0
        head = f"batch: {self.pages} page{'s' * (self.pages != 1)}"
        if self.resumed:
            head += f" ({self.resumed} already done, skipped by --resume)"
        head += f"; {fresh} read in {seconds:.1f} s ({rate:.2f} pages/s, {jobs} job{'s' * (jobs != 1)})"
        lines = [head]
        statuses = ", ".join(f"{k} {v}" for k, v in self.by_status.items())
        lines.append(f"  puzzles found: {self.puzzles} ({statuses})")
        lines.append(f"  pages without a puzzle: {len(self.no_puzzle)}")
        lines.append(f"  failed pages: {len(self.failed)}")
        for name, reason in self.failed[:MAX_LISTED]:
            reason = reason[len(name) + 2:] if reason.startswith(name + ": ") else reason
            lines.append(f"    {name}: {reason}")
        if len(self.failed) > MAX_LISTED:
            lines.append(f"    ... and {len(self.failed) - MAX_LISTED} more" + (f" (see {report})" if report else ""))
        if report:
            lines.append(f"  report: {report}")
        return "\n".join(lines)
