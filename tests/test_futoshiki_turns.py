"""Futoshiki's digit turn: turns read on a sample first and dropped only when they cannot be the likeliest."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from scanner import photo
from scanner.ocr import get_engine
from scanner.ocr.fake import FakeEngine
from scanner.readers import futoshiki, ruled
from scanner.synth import render


def _inks(tmp_path, monkeypatch, *, seed: int, size: int, quarter: int):
    """The cells' ink (n x n ``CellInk``) the Futoshiki reader reads its digits from, for a generated print turned
    ``quarter`` x 90 degrees clockwise."""
    img, _, _ = render("futoshiki", seed=seed, size=size, mode="print", two=False,
                       style={"layout": "lattice", "signs": "glyph", "shaded_givens": False})
    path = tmp_path / f"futoshiki_{seed}_{quarter}.png"
    cv2.imwrite(str(path), cv2.cvtColor(np.ascontiguousarray(np.rot90(img, k=-quarter)), cv2.COLOR_RGB2BGR))
    seen = []
    original = futoshiki.read_digits

    def keep(inks, engine):
        seen.append(inks)
        return original(inks, engine)
    monkeypatch.setattr(futoshiki, "read_digits", keep)
    photo.scan_photo(path, kind="futoshiki", draw=False)
    assert seen
    return seen[0]


def _every_turn_whole(inks, engine) -> list:
    """The reading of every quarter turn, each turn's inked cells in one batch (``read_digits`` before it
    sampled), most likely first."""
    n, out = len(inks), []
    for quarter in range(4):
        grid = inks if quarter == 0 else ruled._turn(inks, quarter)
        todo = [(r, c) for r in range(n) for c in range(n) if grid[r][c].crop is not None]
        got = engine.read([grid[r][c].crop for r, c in todo], alphabet=futoshiki.DIGITS)
        got = dict(zip(todo, [ruled.sharpen(g, ruled.temperature(engine)) for g in got]))
        cands = [[futoshiki.digit_candidates(grid[r][c], got.get((r, c)), n) for c in range(n)] for r in range(n)]
        out.append((sum(math.log(max(cell[0][1], 1e-12)) for row in cands for cell in row), quarter, cands))
    return sorted(out, key=lambda t: -t[0])


@pytest.mark.parametrize("seed, size, quarter", [(21, 6, 0), (22, 7, 1), (23, 5, 2)])
def test_the_likeliest_turn_reads_as_when_every_turn_is_read_whole(tmp_path, monkeypatch, seed, size, quarter):
    inks = _inks(tmp_path, monkeypatch, seed=seed, size=size, quarter=quarter)
    engine = get_engine("auto")
    everything = _every_turn_whole(inks, engine)
    got = futoshiki.read_digits(inks, engine)
    assert got[0] == everything[0]
    assert got[0][1] == (-quarter) % 4  # the print is read upright
    # the turns left out could not have been the likeliest, and a clear print leaves some out
    assert len(got) < 4
    whole = {q: s for s, q, _ in everything}
    assert all(s == whole[q] for s, q, _ in got)


def test_a_sample_read_with_the_grids_reference_reads_as_in_the_whole_batch(tmp_path, monkeypatch):
    inks = _inks(tmp_path, monkeypatch, seed=24, size=7, quarter=0)
    engine = get_engine("auto")
    crops = [ink.crop for row in inks for ink in row if ink.crop is not None]
    assert len(crops) >= 6
    whole = engine.read(crops, alphabet=futoshiki.DIGITS)
    reference = engine.grid_reference(crops)
    part = engine.read(crops[1::3], alphabet=futoshiki.DIGITS, reference=reference)
    for a, b in zip(whole[1::3], part):
        assert [s for s, _ in a] == [s for s, _ in b]
        assert np.allclose([p for _, p in a], [p for _, p in b], atol=1e-6)


def test_an_engine_without_a_reference_has_every_turn_read_whole(tmp_path, monkeypatch):
    inks = _inks(tmp_path, monkeypatch, seed=21, size=6, quarter=0)
    got = futoshiki.read_digits(inks, FakeEngine(lambda i, cell: "1"))
    assert sorted(q for _, q, _ in got) == [0, 1, 2, 3]
