"""The puzzle sets the benchmark runs: the shared collections and generated ones."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from solver import kinds
from solver.api import read_puzzles
from solver.puzzle import Puzzle

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "puzzles"


def collection_sets(data: Path) -> Iterator[tuple[str, list[Puzzle]]]:
    """``(name, puzzles)`` for every text collection under ``data`` (none when it is absent)."""
    for kind in ("sudoku", "takuzu", "futoshiki"):
        folder = data / kind
        if not folder.is_dir():
            continue
        files = sorted(folder.glob("*.txt"), key=lambda p: (len(p.stem), p.stem))
        for path in files:
            yield f"{kind}/{path.stem}", read_puzzles(path.read_text(), kind=kind, source=str(path))


def generated_sets(count: int, seed: int) -> Iterator[tuple[str, list[Puzzle]]]:
    """Generated sets: Futoshiki 4x4..9x9, Takuzu 16x16 and 20x20, Sudoku 16x16 (deterministic by seed)."""
    plan = [("futoshiki", n, count) for n in range(4, 10)]
    plan += [("takuzu", 16, max(1, count // 2)), ("takuzu", 20, max(1, count // 2))]
    plan += [("sudoku", 16, max(1, count // 5))]
    for kind, n, k in plan:
        gen = kinds.get(kind).generate
        yield f"{kind}/generated-{n}x{n}", [gen(n, seed=seed + i) for i in range(k)]
