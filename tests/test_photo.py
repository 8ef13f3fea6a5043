"""The photo pipeline on rendered grids: grid finding, cell count, overlay safety, bad inputs, revision."""
from __future__ import annotations

import os
import stat
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from scanner import grid_find, load, overlay, photo, rectify
from scanner.ocr.fake import FakeEngine
from scanner.revise import revise
from solver import kinds
from solver.api import solve
from solver.errors import InputError, NoPuzzleError
from solver.puzzle import Puzzle

CELL = 60
PAPER = 235
TRUE_QUAD = np.array([[210, 140], [1010, 180], [960, 930], [170, 880]], np.float32)  # (x, y), clockwise


def render_grid(givens, *, cell: int = CELL) -> np.ndarray:
    """A flat printed Sudoku (uint8 gray, white paper, black lines and digits), with a white margin."""
    n = len(givens)
    side = n * cell
    pad = cell
    img = np.full((side + 2 * pad, side + 2 * pad), PAPER, np.uint8)
    for i in range(n + 1):
        t = 4 if i % 3 == 0 else 1
        p = pad + i * cell
        cv2.line(img, (pad, p), (pad + side, p), 0, t)
        cv2.line(img, (p, pad), (p, pad + side), 0, t)
    for r in range(n):
        for c in range(n):
            v = givens[r][c]
            if v is not None:
                org = (pad + c * cell + cell // 4, pad + (r + 1) * cell - cell // 5)
                cv2.putText(img, str(v), org, cv2.FONT_HERSHEY_SIMPLEX, cell / 40, 0, 3, cv2.LINE_AA)
    return img


def photo_of(givens, *, shape=(1080, 1200)) -> np.ndarray:
    """The grid warped by a known homography onto its page (BGR), outer corners at ``TRUE_QUAD``."""
    flat = render_grid(givens)
    pad, side = CELL, len(givens) * CELL
    src = np.array([[pad, pad], [pad + side, pad], [pad + side, pad + side], [pad, pad + side]], np.float32)
    h = cv2.getPerspectiveTransform(src, TRUE_QUAD)
    page = cv2.warpPerspective(flat, h, (shape[1], shape[0]), flags=cv2.INTER_LINEAR, borderValue=PAPER)
    noise = np.random.default_rng(0).normal(0, 3, page.shape)
    page = np.clip(page.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    return cv2.cvtColor(page, cv2.COLOR_GRAY2BGR)


@pytest.fixture(scope="module")
def sudoku() -> Puzzle:
    return kinds.get("sudoku").generate(9, seed=1)


@pytest.fixture
def photo_file(tmp_path, sudoku) -> Path:
    path = tmp_path / "grid.png"
    cv2.imwrite(str(path), photo_of(sudoku.givens))
    return path


def _labels(givens) -> list[str]:
    """What a perfect reader says for the filled cells, in the row-major order the pipeline asks."""
    return [str(v) for row in givens for v in row if v is not None]


def test_grid_found_with_corners_and_cell_count(sudoku):
    image = photo_of(sudoku.givens)
    found = grid_find.find_grids(image)
    assert found, "no grid found"
    assert found[0].size == 9
    mesh = rectify.fit_mesh(image, found[0].quad, found[0].size)
    assert np.abs(mesh.quad - TRUE_QUAD).max() < 4.0


def test_inner_box_is_not_taken_for_the_grid(sudoku):
    found = grid_find.find_grids(photo_of(sudoku.givens))
    assert [c.size for c in found] == [9]  # the 3x3 boxes inside are dropped


def test_line_count_for_other_sizes():
    for n in (4, 6, 8):
        flat = cv2.cvtColor(render_grid([[None] * n for _ in range(n)]), cv2.COLOR_GRAY2BGR)
        found = grid_find.find_grids(flat, sizes=range(4, 21))
        assert found and found[0].size == n


def test_scan_photo_reads_solves_and_draws(photo_file, sudoku, tmp_path):
    before = photo_file.read_bytes()
    out = tmp_path / "out"
    [record] = photo.scan_photo(photo_file, out_dir=out, reader=FakeEngine(_labels(sudoku.givens)))
    assert record["status"] == "solved"
    assert record["givens"] == sudoku.givens
    assert record["solution"] == solve(sudoku).solution
    assert np.abs(np.array(record["quad"]) - TRUE_QUAD).max() < 4.0
    written = Path(record["overlay"])
    assert written == out / "grid.solved.jpg" and written.exists()
    assert photo_file.read_bytes() == before
    drawn = cv2.imread(str(written))
    assert drawn.shape == cv2.imread(str(photo_file)).shape
    assert set(record["timings"]) >= {"load", "find", "mesh", "ink", "read", "revise", "overlay"}


def test_debug_pictures_have_stable_names(photo_file, sudoku, tmp_path):
    dbg = tmp_path / "dbg"
    photo.scan_photo(photo_file, draw=False, debug_dir=dbg, reader=FakeEngine(_labels(sudoku.givens)))
    assert {"01_quad.jpg", "02_rectified.png", "03_cells.png", "04_overlay.jpg"} <= {p.name for p in dbg.iterdir()}


def test_unreadable_writes_nothing(photo_file, sudoku, tmp_path):
    labels = _labels(sudoku.givens)
    labels[0] = labels[1]  # two equal digits in row 1, with full confidence: nothing can fix it
    [record] = photo.scan_photo(photo_file, reader=FakeEngine(labels))
    assert record["status"] == "unreadable" and record["overlay"] is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grid.png"]


def test_overlay_never_overwrites_the_input(tmp_path):
    src = tmp_path / "a.jpg"
    cv2.imwrite(str(src), np.full((64, 64, 3), 200, np.uint8))
    before = src.read_bytes()
    with pytest.raises(InputError):
        overlay.write_jpeg(np.zeros((64, 64, 3), np.uint8), src, source=src)
    assert src.read_bytes() == before
    assert overlay.overlay_path(src, None).name == "a.solved.jpg"


def test_overlay_file_gets_the_usual_permissions(tmp_path, monkeypatch):
    """The overlay is written through a private temporary file, but lands with the mode any new file of the
    process gets (0666 less its umask, read once at import)."""
    assert overlay._UMASK == overlay._umask()  # the mask read at import is the process's
    for mask, mode in ((0o022, 0o644), (0o077, 0o600)):
        monkeypatch.setattr(overlay, "_UMASK", mask)
        out = overlay.write_jpeg(np.zeros((64, 64, 3), np.uint8), tmp_path / f"a{mask}.solved.jpg")
        assert stat.S_IMODE(out.stat().st_mode) == mode
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def _png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))


def _bad_inputs(tmp_path: Path) -> dict[str, Path]:
    good = cv2.imencode(".jpg", np.random.default_rng(1).integers(0, 255, (400, 400, 3), dtype=np.uint8))[1].tobytes()
    files = {
        "empty.jpg": b"",
        "truncated.jpg": good[: len(good) // 3],
        "text.jpg": b"this is not a picture\n" * 20,
        "tiny.png": cv2.imencode(".png", np.zeros((1, 1, 3), np.uint8))[1].tobytes(),
        "huge.png": _png_header(20000, 20000),
    }
    out = {}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        out[name] = tmp_path / name
    return out


def test_bad_inputs_raise_input_error_and_write_nothing(tmp_path):
    files = _bad_inputs(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    for name, path in files.items():
        with pytest.raises(InputError) as err:
            photo.scan_photo(path, reader=FakeEngine())
        assert "\n" not in str(err.value) and str(path) in str(err.value), name
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_no_grid_raises_no_puzzle(tmp_path):
    path = tmp_path / "blank.png"
    cv2.imwrite(str(path), np.full((300, 400, 3), 230, np.uint8))
    with pytest.raises(NoPuzzleError):
        photo.scan_photo(path, reader=FakeEngine())


def test_exif_orientation_is_applied(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    im = Image.new("RGB", (200, 100), (255, 255, 255))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    path = tmp_path / "rot.jpg"
    im.save(path, exif=exif.tobytes())
    assert load.load(path).image.shape[:2] == (200, 100)


def _candidates(grid, *, sure=0.99):
    n = len(grid)
    return [[[(v, sure), (None if v is not None else 1, 1 - sure)] for v in row] for row in grid]


def test_revise_finds_the_flipped_low_confidence_digit(sudoku):
    grid = sudoku.copy_grid()
    cands = _candidates(grid)
    (r, c) = next((r, c) for r in range(9) for c in range(9) if grid[r][c] is not None)
    true = grid[r][c]
    # the reader preferred a wrong digit that clashes with a peer, the true one is its runner-up
    wrong = next(v for v in range(1, 10) if v != true and v in grid[r])
    cands[r][c] = [(wrong, 0.55), (true, 0.40), (None, 0.05)]
    make = lambda g, rels=(): Puzzle("sudoku", 9, g, box=(3, 3))  # noqa: E731
    rev = revise(cands, make, solve)
    assert rev.status == "solved"
    assert rev.changes == [((r, c), wrong, true)]
    assert rev.grid == grid


def test_revise_keeps_a_doubtful_given_that_the_rules_need(sudoku):
    grid = sudoku.copy_grid()
    cands = _candidates(grid)
    # a given read at even odds with "empty": the generator's puzzles are minimal, so without that given there
    # are several solutions and the rules settle it in favour of the digit
    (r, c) = next((r, c) for r in range(9) for c in range(9) if grid[r][c] is not None)
    cands[r][c] = [(None, 0.5), (grid[r][c], 0.5)]
    make = lambda g, rels=(): Puzzle("sudoku", 9, g, box=(3, 3))  # noqa: E731
    rev = revise(cands, make, solve)
    assert rev.status == "solved" and rev.grid == grid


def test_revise_gives_up_on_many_sure_errors(sudoku):
    grid = sudoku.copy_grid()
    cands = _candidates(grid)
    filled = [(r, c) for r in range(9) for c in range(9) if grid[r][c] is not None]
    for r, c in filled[:6]:  # six confidently wrong digits: beyond what revision may change
        cands[r][c] = [(grid[r][c] % 9 + 1, 0.97), (grid[r][c], 0.03)]
    make = lambda g, rels=(): Puzzle("sudoku", 9, g, box=(3, 3))  # noqa: E731
    rev = revise(cands, make, solve)
    assert rev.status == "unreadable" and rev.reason


def test_two_outlines_of_one_puzzle_give_one_record_the_solved_reading():
    from types import SimpleNamespace as NS

    import numpy as np

    from scanner import photo

    square = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], float)
    skewed = square + np.array([[8, 12], [0, 0], [0, 0], [2, 0]])
    beside = square + [150, 0]
    def got(quad, status, n=9):
        return ("reader", NS(mesh=NS(quad=quad)), NS(status=status, grid=[[None] * n] * n))
    kept = photo.keep_one_per_puzzle([], got(skewed, "unreadable"))
    kept = photo.keep_one_per_puzzle(kept, got(beside, "solved"))
    kept = photo.keep_one_per_puzzle(kept, got(square, "solved"))
    assert [(k[1].mesh.quad is square, k[2].status) for k in kept] == [(True, "solved"), (False, "solved")]
    assert photo.keep_one_per_puzzle(kept, got(skewed, "solved")) == kept  # the first solved one stays


def test_of_two_solved_readings_of_one_puzzle_the_larger_grid_stays():
    # a 4x4 lattice found on the last boxes of a 7x7 Futoshiki (and the text under them), read first and
    # solved there: the 7x7 read after it is the puzzle; read the other way round, the 7x7 stays
    from types import SimpleNamespace as NS

    import numpy as np

    from scanner import photo

    seven = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], float)
    part = np.array([[10, 60], [60, 60], [60, 115], [10, 115]], float)
    def got(quad, n):
        return ("reader", NS(mesh=NS(quad=quad)), NS(status="solved", grid=[[None] * n] * n))
    small, large = got(part, 4), got(seven, 7)
    assert photo.keep_one_per_puzzle(photo.keep_one_per_puzzle([], small), large) == [large]
    assert photo.keep_one_per_puzzle(photo.keep_one_per_puzzle([], large), small) == [large]
