"""``--resume``: which pages the output folder's ``report.jsonl`` already holds finished results for.

A page counts as done when its records are in the report, none of them is a crash or an internal error
(those are tried again), and every overlay a record names still exists. A torn last line (a batch killed
while writing) is ignored, so that page is simply read again.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from solver.errors import ExitCode

REPORT_NAME = "report.jsonl"
RETRY_CODES = {int(ExitCode.SOFTWARE)}


def page_key(source: str, page: Optional[int]) -> tuple[str, Optional[int]]:
    return (os.path.abspath(source) if source != "-" else "-", page)


def read_report(path: Path) -> dict[tuple, list[dict]]:
    """The records of ``path`` grouped by page key, in file order (no file: nothing)."""
    pages: dict[tuple, list[dict]] = {}
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return pages
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict) or "source" not in record:
            continue
        pages.setdefault(page_key(record["source"], record.get("page")), []).append(record)
    return pages


def finished(records: list[dict]) -> bool:
    """Whether a page's records are final: no crash or internal error, every named overlay present."""
    for record in records:
        if record.get("exit_code") in RETRY_CODES:
            return False
        if record.get("overlay") and not Path(record["overlay"]).exists():
            return False
    return True


def done_pages(path: Path) -> dict[tuple, list[dict]]:
    """The finished pages of the report at ``path`` with their records."""
    return {key: recs for key, recs in read_report(path).items() if finished(recs)}
