"""The ``--json`` record: the contract every part of the product keeps.

One JSON object per puzzle (JSON Lines)::

    {"source": "file", "index": 0, "kind": "sudoku", "size": 9,
     "givens": [[5, null, ...], ...],
     "relations": [{"a": [r, c], "b": [r, c], "op": "<"}],
     "status": "solved"|"ambiguous"|"impossible"|"unreadable",
     "solution": [[...]]|null, "difficulty": "...", "seconds": 0.0012}

``null`` marks an empty cell in every kind; ``relations`` is filled only for
Futoshiki (an empty list for the other kinds); ``seconds`` is the time spent
on that puzzle. Fields are only ever added, never renamed: photos add
``quad`` and ``overlay``, batch adds ``page``; ``solutions`` (both grids of an
ambiguous puzzle), ``reason`` and ``box`` are additions too.
"""
from __future__ import annotations

import json
from typing import Any, Optional

from solver.puzzle import Puzzle, Relation, Result

CONTRACT_FIELDS = (
    "source", "index", "kind", "size", "givens", "relations",
    "status", "solution", "difficulty", "seconds",
)


def puzzle_record(
    puzzle: Puzzle,
    result: Optional[Result],
    *,
    difficulty: Optional[str] = None,
    seconds: float = 0.0,
    status: Optional[str] = None,
    reason: Optional[str] = None,
    **extra: Any,
) -> dict:
    """The contract record for one puzzle and its result (``result`` None: nothing solved, e.g. unreadable)."""
    status = status or (result.status if result else "unreadable")
    record: dict[str, Any] = {
        "source": puzzle.source,
        "index": puzzle.index,
        "kind": puzzle.kind,
        "size": puzzle.size,
        "givens": [list(row) for row in puzzle.givens],
        "relations": [rel.to_json() for rel in puzzle.relations],
        "status": status,
        "solution": result.solution if (result and status == "solved") else None,
        "difficulty": difficulty,
        "seconds": round(seconds, 6),
    }
    if result is not None and result.status == "ambiguous":
        record["solutions"] = result.solutions
    why = reason or (result.reason if result else None)
    if why:
        record["reason"] = why
    if puzzle.box:
        record["box"] = list(puzzle.box)
    record.update(extra)
    return record


def puzzle_from_record(record: dict) -> Puzzle:
    """The puzzle a record describes (its givens, relations and geometry)."""
    rels = tuple(Relation(tuple(r["a"]), tuple(r["b"]), r["op"]) for r in record.get("relations") or ())
    box = tuple(record["box"]) if record.get("box") else None
    return Puzzle(
        kind=record["kind"], size=record["size"], givens=[list(r) for r in record["givens"]],
        relations=rels, box=box, source=record.get("source", ""), index=record.get("index", 0),
    )


def dumps(record: dict) -> str:
    """One JSON Lines line (compact, UTF-8)."""
    return json.dumps(record, ensure_ascii=False, separators=(", ", ": "))
