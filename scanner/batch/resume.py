"""``--resume``: which pages the output folder's ``report.jsonl`` already holds finished results for.

A page counts as done when its records are in the report, none of them is a crash or an internal error
(those are tried again), and every overlay a record names still exists. A torn last line (a batch killed
while writing) is ignored, so that page is simply read again.

Records keep the paths as given (``source``, ``overlay``: relative when the user's were), and in the report
each also holds ``cwd``, the working folder those paths start from; so the same folder given as ``in``,
``./in``, ``/abs/in`` or from another working folder is recognised.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from solver.errors import ExitCode

REPORT_NAME = "report.jsonl"
RETRY_CODES = {int(ExitCode.SOFTWARE)}
CWD_FIELD = "cwd"  #: report.jsonl only: the working folder a record's relative paths start from


def _resolved(path: str, cwd: Optional[str]) -> str:
    return os.path.realpath(os.path.join(cwd or os.getcwd(), path))


def page_key(source: str, page: Optional[int], *, cwd: Optional[str] = None) -> tuple[str, Optional[int]]:
    """The page's identity: its file's resolved path (``cwd``: the folder a relative ``source`` is in)."""
    return (_resolved(source, cwd) if source != "-" else "-", page)


def stamped(record: dict) -> dict:
    """``record`` as written to the report: with ``cwd`` (this process's working folder, unless it has one)."""
    return record if CWD_FIELD in record else {**record, CWD_FIELD: os.getcwd()}


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
        key = page_key(record["source"], record.get("page"), cwd=record.get(CWD_FIELD))
        pages.setdefault(key, []).append(record)
    return pages


def finished(records: list[dict]) -> bool:
    """Whether a page's records are final: no crash or internal error, every named overlay present."""
    for record in records:
        if record.get("exit_code") in RETRY_CODES:
            return False
        if record.get("overlay") and not Path(_resolved(record["overlay"], record.get(CWD_FIELD))).exists():
            return False
    return True


def done_pages(path: Path) -> dict[tuple, list[dict]]:
    """The finished pages of the report at ``path`` with their records."""
    return {key: recs for key, recs in read_report(path).items() if finished(recs)}
