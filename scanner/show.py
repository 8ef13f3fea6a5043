"""Terminal output: a record as a heading and text grids."""
from __future__ import annotations

from solver import kinds

from .report import puzzle_from_record


def _side_by_side(left: str, right: str, gap: str = "    ") -> str:
    a, b = left.splitlines(), right.splitlines()
    width = max((len(s) for s in a), default=0)
    rows = max(len(a), len(b))
    a += [""] * (rows - len(a))
    b += [""] * (rows - len(b))
    return "\n".join(f"{x.ljust(width)}{gap}{y}".rstrip() for x, y in zip(a, b))


def heading(record: dict) -> str:
    where = record.get("source") or "<stdin>"
    if "page" in record:
        where += f"#{record['page']}"
    n = record["size"]
    parts = [f"{where} [{record['index'] + 1}]: {record['kind']} {n}x{n}", record["status"]]
    if record["status"] == "solved":
        parts[-1] = "solved (unique solution)"
    if record.get("difficulty"):
        parts.append(f"difficulty: {record['difficulty']}")
    parts.append(f"{record['seconds'] * 1000:.1f} ms")
    text = ", ".join(parts)
    if record.get("reason"):
        text += f"\n  {record['reason']}"
    if record.get("changed"):
        text += "\n  reading revised by the rules: " + ", ".join(str(c) for c in record["changed"])
    if record.get("overlay"):
        text += f"\n  overlay written to {record['overlay']}"
    return text


def describe(record: dict, *, with_puzzle: bool = False) -> str:
    """Heading, then the solution grid (with the puzzle beside it when ``with_puzzle``)."""
    lines = [heading(record)]
    kind = kinds.get(record["kind"])
    puzzle = puzzle_from_record(record)
    grids = []
    if record["status"] == "solved":
        grids = [record["solution"]]
    elif record["status"] == "ambiguous":
        grids = record.get("solutions") or []
    if not grids or with_puzzle:
        puzzle_text = kind.format_grid(puzzle)
    for i, grid in enumerate(grids):
        text = kind.format_grid(puzzle, grid)
        if with_puzzle:
            text = _side_by_side(puzzle_text, text)
        if len(grids) > 1:
            lines.append(f"solution {i + 1} of at least {len(grids)}:")
        lines.append(text)
    if not grids:
        lines.append(puzzle_text)
    return "\n".join(lines)
