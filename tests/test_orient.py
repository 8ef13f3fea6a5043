"""Page orientation from the text around a grid (scanner.orient): every quarter turn of a printed page is
told, and a page without text is left undecided."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from scanner import orient
from scanner.synth import text

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
N = 8  #: cells of the grid
CELL = 40  #: page pixels per cell


def _blank_page():
    """A blank page (PIL image and its drawing context) with room for the grid and 6 cells of margin."""
    img = Image.new("L", (2 * 6 * CELL + N * CELL,) * 2, 245)
    return img, ImageDraw.Draw(img)


def _page(*, with_text: bool = True, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """(page (H, W) uint8 with a ruled N x N grid in its middle and columns of text around it, grid corners
    (4, 2) (x, y) clockwise from top-left)."""
    rng = np.random.default_rng(seed)
    img, draw = _blank_page()
    w, h = img.size
    x0 = y0 = 6 * CELL
    side = N * CELL
    if with_text:
        try:
            font = ImageFont.truetype(FONT, 13)
        except OSError:
            pytest.skip("DejaVu fonts not installed")
        col_w = 150
        for cx in range(10, w - col_w, col_w + 12):
            y = 10
            for line in text.wrap(" ".join(text.paragraph(rng) for _ in range(12)), font, col_w):
                if y > h - 20:
                    break
                if not (x0 - 10 < cx + col_w and cx < x0 + side + 10 and y0 - 20 < y < y0 + side + 10):
                    draw.text((cx, y), line, font=font, fill=20)
                y += 17
    return np.asarray(img), _draw_grid(draw, x0, y0)


def _draw_grid(draw, x0: int, y0: int) -> np.ndarray:
    """Rule an N x N grid with its top-left corner at (x0, y0); its corners (4, 2) (x, y), clockwise."""
    side = N * CELL
    for i in range(N + 1):
        draw.line([(x0 + i * CELL, y0), (x0 + i * CELL, y0 + side)], fill=20, width=2)
        draw.line([(x0, y0 + i * CELL), (x0 + side, y0 + i * CELL)], fill=20, width=2)
    return np.float64([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]])


def _turned(page: np.ndarray, quad: np.ndarray, turn: int) -> tuple[np.ndarray, np.ndarray]:
    """The page turned ``turn`` quarter turns clockwise, and the grid's corners in it (clockwise from the
    image's top-left corner)."""
    h, w = page.shape
    out = np.ascontiguousarray(np.rot90(page, k=-turn))
    pts = quad.copy()
    for _ in range(turn):  # one clockwise quarter turn: (x, y) -> (h - 1 - y, x)
        pts = np.stack([h - 1 - pts[:, 1], pts[:, 0]], axis=1)
        h, w = w, h
    pts = np.roll(pts, turn, axis=0)  # the corner now top-left comes first
    return out, pts


@pytest.mark.parametrize("turn", [0, 1, 2, 3])
def test_every_quarter_turn_is_told(turn):
    page, quad = _page()
    image, corners = _turned(page, quad, turn)
    found = orient.page_turn(image, corners, N)
    assert found.turn == turn, found
    assert found.axis == turn % 2  # text along the rows (0, 180) or the columns (90, 270)
    assert found.lines >= orient.MIN_LINES
    assert orient.likely_turn(found) == turn  # a sure turn is the likeliest


def test_a_page_without_text_is_not_decided():
    page, quad = _page(with_text=False)
    found = orient.page_turn(page, quad, N)
    assert found.turn is None
    assert not found.sure


def test_a_line_votes_up_and_its_flip_votes_down():
    """A text line's vote has the sign of its tops' direction, and turning the line over negates it exactly."""
    try:
        font = ImageFont.truetype(FONT, 12)
    except OSError:
        pytest.skip("DejaVu fonts not installed")
    img = Image.new("L", (400, 24), 255)
    ImageDraw.Draw(img).text((4, 4), "The ruled grid holds both digits", font=font, fill=0)
    ink = np.asarray(img) < 128
    rows = np.nonzero(ink.any(axis=1))[0]
    profile = ink.sum(axis=1)[rows[0] - 2:rows[-1] + 3]
    up = orient.line_vote(profile)
    assert up > 0
    assert orient.line_vote(profile[::-1]) == pytest.approx(-up)


def _instructions(*, seed: int, lines: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """(page (H, W) uint8 with a ruled N x N grid and nothing but a few lines of instructions just above it
    (where a puzzle's own text stands), grid corners (4, 2) (x, y) clockwise from top-left)."""
    rng = np.random.default_rng(seed)
    img, draw = _blank_page()
    x0 = y0 = 6 * CELL
    side = N * CELL
    try:
        font = ImageFont.truetype(FONT, 13)
    except OSError:
        pytest.skip("DejaVu fonts not installed")
    wrapped = text.wrap(" ".join(text.paragraph(rng) for _ in range(3)), font, side)[:lines]
    y = y0 - 8 - 17 * len(wrapped)
    for line in wrapped:
        draw.text((x0, y), line, font=font, fill=20)
        y += 17
    return np.asarray(img), _draw_grid(draw, x0, y0)


@pytest.mark.parametrize("turn", [0, 1, 2, 3])
def test_whole_lines_beside_the_grid_tell_what_the_tiles_cannot(turn):
    """Five lines of instructions hugging the grid: too little for the tiles alone, told by the whole lines."""
    for seed in (0, 1, 3):
        page, quad = _instructions(seed=seed)
        image, corners = _turned(page, quad, turn)
        found = orient.page_turn(image, corners, N)
        assert found.turn == turn, (seed, found)
        assert found.line_z != 0.0  # the tiles did not decide alone


def test_too_few_lines_are_left_undecided_never_turned_wrong():
    for seed in range(4, 8):
        for lines in (2, 5):
            page, quad = _instructions(seed=seed, lines=lines)
            for turn in (0, 2, 3):
                image, corners = _turned(page, quad, turn)
                found = orient.page_turn(image, corners, N)
                assert found.turn in (None, turn), (seed, lines, found)


def test_whole_lines_are_found_and_score_up_and_down():
    page, quad = _instructions(seed=0)
    cell = CELL
    frame = orient.frame(page, quad, N, cell=cell)
    profiles = orient.text_lines(orient.ink(frame, cell=cell), cell=cell, n=N)
    assert len(profiles) >= 4  # five lines (a wide word gap may split one)
    scores = [orient.line_score(p) for p in profiles]
    assert sum(scores) > 0
    assert [orient.line_score(p[::-1]) for p in profiles] == pytest.approx([-s for s in scores])


def _unsure(*, axis: int, z: float, agree: float = 1.0, lines: int = 30) -> orient.Orientation:
    return orient.Orientation(None, agree, z, lines, axis=axis)


def test_a_guess_leaves_the_photo_upright_unless_the_evidence_clearly_outweighs_that():
    """Undecided text gives a best guess: upside down or sideways only on evidence past the GUESS_* bounds
    (most photos are taken upright), the side and the sign of z choosing among the turns."""
    z, side = orient.GUESS_Z, orient.GUESS_SIDE_Z
    assert orient.likely_turn(_unsure(axis=0, z=-(z + 0.1))) == 2
    assert orient.likely_turn(_unsure(axis=0, z=-(z - 0.1))) == 0
    assert orient.likely_turn(_unsure(axis=0, z=z + 0.1)) == 0
    assert orient.likely_turn(_unsure(axis=1, z=side + 0.1)) == 1  # tops pointing right
    assert orient.likely_turn(_unsure(axis=1, z=-(side + 0.1))) == 3
    assert orient.likely_turn(_unsure(axis=1, z=side - 0.1)) == 0
    assert orient.likely_turn(_unsure(axis=1, z=side + 1, agree=orient.GUESS_SIDE_AGREE - 0.05)) == 0
    assert orient.likely_turn(_unsure(axis=1, z=side + 1, lines=orient.GUESS_LINES - 1)) == 0
    assert orient.likely_turn(_unsure(axis=0, z=-(z + 1), lines=orient.GUESS_LINES - 1)) == 0  # too few lines
    assert orient.likely_turn(orient.Orientation(None, 0.0, 0.0, 0)) == 0  # no text at all
    split = orient.Orientation(None, 1.0, -(z + 1), 30, line_z=-(z + 4), axis=0, contradicted=True)
    assert orient.likely_turn(split) == 0  # tiles and whole lines point opposite ways


def _weighed(rows: float, cols: float, **kw) -> orient.Orientation:
    """Undecided, with most tile lines along the rows but too few to read, and the joint evidence given."""
    return orient.Orientation(None, 0.5, 0.0, 3, axis=0, evidence=(rows, cols), **kw)


def test_the_joint_evidence_alone_never_turns_the_guess():
    """Evidence along either direction without the tiles' lines to back it leaves the photo as seen: on the
    dev pages it guessed upright pages turned (a title bar, a photo's edge) and never a turned one right."""
    for rows, cols in ((0.5, 4.0), (0.5, -4.0), (-4.0, 0.0), (2.0, 4.6)):
        assert orient.likely_turn(_weighed(rows, cols)) == 0
    assert orient.likely_turn(_weighed(0.5, 4.0, read=1)) == 1  # the words' lean is a guess still


def test_a_page_without_text_is_guessed_upright():
    page, quad = _page(with_text=False)
    assert orient.likely_turn(orient.page_turn(page, quad, N)) == 0


def _aligned_profile_stepwise(tile: np.ndarray, *, strips: int = orient.STRIPS) -> np.ndarray:
    """``orient.aligned_profile`` as first written: each strip summed alone, the shifted rows made per call."""
    h, w = tile.shape
    step = w // strips
    parts = np.stack([tile[:, i * step:(i + 1) * step].sum(axis=1) for i in range(strips)]).astype(np.float32)
    shifts = np.round(orient.SLOPES[:, None] * (np.arange(strips) - (strips - 1) / 2.0)).astype(int)
    rows = (np.arange(h)[None, None, :] + shifts[:, :, None]) % h
    totals = parts[np.arange(strips)[None, :, None], rows].sum(axis=1)
    return totals[int(np.argmax((totals * totals).sum(axis=1)))]


def test_aligned_profile_is_the_stepwise_one():
    # the strips summed at once and the shifted rows kept per (height, strips): the same profile, bit for bit,
    # on tiles, turned tiles (views) and text lines' boxes of any width
    rng = np.random.default_rng(3)
    for i in range(60):
        h, w = int(rng.integers(8, 200)), int(rng.integers(8, 400))
        tile = rng.random((h, w)) < rng.uniform(0.02, 0.4)
        tile[rng.integers(0, h, 3)] = True  # a few inked rows: lines
        turned = np.rot90(tile, k=1)
        for t, strips in ((tile, orient.STRIPS), (turned, orient.STRIPS), (tile, int(rng.integers(2, 17)))):
            got, want = orient.aligned_profile(t, strips=strips), _aligned_profile_stepwise(t, strips=strips)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_tiles_agreeing_less_than_tiles_agree_do_not_decide_alone(monkeypatch):
    """Text that runs one way in under TILES_AGREE of the tiles' lines (text running both ways nearly as much:
    a dense sideways body beside short stacks of letters) is not decided on the tiles' up / down alone: the
    whole lines are read too, and this page's still tell its turn."""
    page, quad = _page()
    alone = orient.page_turn(page, quad, N)
    assert alone.turn == 0 and alone.line_z == 0.0  # decided by the tiles alone
    monkeypatch.setattr(orient, "TILES_AGREE", alone.agree + 0.01)
    found = orient.page_turn(page, quad, N)
    assert found.turn == 0 and found.line_z != 0.0


def test_strip_sums_give_each_tiles_own_sums():
    # a frame's strip sums give every tile its row and column ink and its straightened profile (as read along
    # the rows, and turned a quarter for text along the columns), bit for bit as summed over its pixels
    rng = np.random.default_rng(5)
    for width in (16, 23, 44):
        side = width * int(rng.integers(8, 14)) + int(rng.integers(0, width))  # (a remainder left over)
        mask = rng.random((side, side)) < rng.uniform(0.02, 0.4)
        sums = orient.StripSums.of(mask, width)
        t = orient.STRIPS * width
        for y in range(0, side - t + 1, 2 * width):
            for x in range(0, side - t + 1, 2 * width):
                tile = mask[y:y + t, x:x + t]
                strips, bands = sums.tile(y, x, t)
                for got, want in ((strips.sum(axis=1), tile.sum(axis=1)), (bands.sum(axis=0), tile.sum(axis=0))):
                    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
                for parts, turned in ((strips.T, tile), (bands[:, ::-1], np.rot90(tile, k=1))):
                    got, want = orient.straightened(parts.astype(np.float32)), orient.aligned_profile(turned)
                    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_line_vote_is_the_stepwise_one():
    # the reductions called as ufuncs and both sides sampled at once: the same vote, bit for bit
    def stepwise(profile, weights):
        p = profile.astype(np.float64)
        total = p.sum()
        if total <= 0:
            return 0.0
        y = np.arange(len(p), dtype=np.float64)
        centre = float((p * y).sum() / total)
        spread = float(np.sqrt((p * (y - centre) ** 2).sum() / total))
        q = p / p.max()
        above = np.interp(centre - spread * orient.SHAPE_AT, y, q, left=0.0, right=0.0)
        below = np.interp(centre + spread * orient.SHAPE_AT, y, q, left=0.0, right=0.0)
        return float((above - below) @ weights)

    rng = np.random.default_rng(6)
    for i in range(400):
        profile = (rng.random(int(rng.integers(5, 80))) * rng.integers(1, 200)).round().astype(np.float32)
        for weights in (orient.SHAPE_WEIGHTS, orient.LINE_WEIGHTS):
            assert orient.line_vote(profile, weights=weights) == stepwise(profile, weights)


def test_line_votes_are_each_lines_own():
    # lines as long voted at once: each one's vote bit for bit (lengths past numpy's blocks of 8 and 128 too)
    rng = np.random.default_rng(8)
    for length in list(range(3, 40)) + [127, 128, 129, 200]:
        profiles = (rng.random((20, length)) * rng.integers(1, 200, (20, 1))).round().astype(np.float32)
        profiles[0] = 0  # (no ink: no vote)
        profiles[1, :2] = profiles[2, -2:] = 0
        for weights in (orient.SHAPE_WEIGHTS, orient.LINE_WEIGHTS):
            got = orient.line_votes(profiles, weights=weights)
            assert got.tobytes() == np.array([orient.line_vote(p, weights=weights) for p in profiles]).tobytes()


def _tile_votes_stepwise(sums, size, t, grid):
    """``orient.tile_votes`` as first written: tile by tile."""
    row_inks, col_inks = sums.profiles(orient.STRIPS)
    along, votes = np.zeros(2, dtype=int), np.zeros(2)
    for y in range(0, size - t + 1, t // 2):
        for x in range(0, size - t + 1, t // 2):
            if y + t > grid[0] and y < grid[1] and x + t > grid[0] and x < grid[1]:
                continue
            row_ink = row_inks[x // sums.width, y:y + t]
            if not 0.02 <= int(row_ink.sum()) / (t * t) <= 0.35:
                continue
            rows, cols = orient._cv(row_ink), orient._cv(col_inks[y // sums.width, x:x + t])
            if max(rows, cols) < 0.5 or max(rows, cols) < 1.3 * min(rows, cols):
                continue
            axis = 0 if rows > cols else 1
            strips, bands = sums.tile(y, x, t)
            v, k = orient.profile_balance(orient.straightened((strips.T if axis == 0 else bands[:, ::-1])
                                                              .astype(np.float32)))
            along[axis] += k
            votes[axis] += v
    return along, votes


def test_tile_votes_are_the_tile_by_tile_ones():
    # every tile read at once: the same lines and votes as tile by tile, on frames of text turned every way
    rng = np.random.default_rng(9)
    page, quad = _page()
    for turn in range(4):
        image, corners = _turned(page, quad, turn)
        cell, _ = orient.frame_cell(corners, N)
        mask = orient.ink(orient.frame(image, corners, N, cell=cell), cell=cell)
        m, t = int(round(orient.MARGIN * cell)), orient.TILE * cell
        grid = (m - cell // 2, m + N * cell + cell // 2)
        sums = orient.StripSums.of(mask, t // orient.STRIPS)
        size = mask.shape[0]
        got, want = orient.tile_votes(sums, size, t, grid), _tile_votes_stepwise(sums, size, t, grid)
        assert got[0].tolist() == want[0].tolist() and got[1].tobytes() == want[1].tobytes()
        assert want[0].sum() > 0
    for width in (16, 30, 44):  # random ink with lines of text-like rows
        side = width * int(rng.integers(20, 30))
        mask = (rng.random((side, side)) < 0.15) & (np.arange(side)[:, None] % int(rng.integers(6, 14)) < 5)
        mask = mask if width != 30 else mask.T.copy()
        sums = orient.StripSums.of(mask, width)
        t = orient.STRIPS * width
        grid = (side // 2 - 3 * width, side // 2 + 3 * width)
        got, want = orient.tile_votes(sums, side, t, grid), _tile_votes_stepwise(sums, side, t, grid)
        assert got[0].tolist() == want[0].tolist() and got[1].tobytes() == want[1].tobytes()
        assert want[0].sum() > 0
