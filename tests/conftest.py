"""Shared fixtures: where the optional datasets beside the project are."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SHARED = ROOT.parent / "shared" / "datasets"


def shared_path(*parts: str) -> Path:
    """A path under ``../shared/datasets``; the calling test is skipped when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared datasets are only beside the project in development and CI)")
    return path


@pytest.fixture
def puzzles_dir() -> Path:
    return shared_path("puzzles")


@pytest.fixture
def sudoku_photos_dir() -> Path:
    return shared_path("sudoku_photos", "train")
