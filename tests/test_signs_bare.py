"""Windows read as bare (signs.bare) are exactly those ``measure`` would find nothing in, or fewer."""
import cv2
import numpy as np
import pytest

from scanner import cells as cells_stage
from scanner import signs


def _grid(n: int, pitch: int, *, box: float, seed: int) -> np.ndarray:
    """A pitch picture: lines (lattice) or box outlines, digits of random sizes near the borders, some signs."""
    rng = np.random.default_rng(seed)
    pic = np.full((n * pitch, n * pitch), 235, np.uint8)
    half = box * pitch / 2
    for r in range(n):
        for c in range(n):
            cx, cy = (c + 0.5) * pitch, (r + 0.5) * pitch
            if box >= 0.95:
                cv2.line(pic, (c * pitch, 0), (c * pitch, n * pitch), 20, 2)
                cv2.line(pic, (0, r * pitch), (n * pitch, r * pitch), 20, 2)
            else:
                cv2.rectangle(pic, (int(cx - half), int(cy - half)), (int(cx + half), int(cy + half)), 20, 2)
            if rng.random() < 0.6:  # a digit, sometimes wide enough to reach the window's middle
                w, h = rng.integers(6, int(0.45 * pitch)), rng.integers(10, int(0.4 * pitch))
                cv2.putText(pic, str(rng.integers(1, 10)), (int(cx - w / 2), int(cy + h / 2)),
                            cv2.FONT_HERSHEY_SIMPLEX, h / 22, 10, 2)
            if c + 1 < n and rng.random() < 0.3:  # a chevron on the border to the right
                x, y, d = (c + 1) * pitch, int(cy + rng.integers(-6, 7)), int(rng.integers(5, 10))
                cv2.polylines(pic, [np.array([[x + d, y - d], [x - d, y], [x + d, y + d]])], False, 0, 2)
    return cv2.GaussianBlur(pic, (0, 0), 0.8)


@pytest.mark.parametrize("box", [1.0, 0.7])
@pytest.mark.parametrize("seed", range(6))
def test_read_signs_is_every_pair_measured(box, seed):
    n, pitch = 6, 48 if box >= 0.95 else 90
    pic = _grid(n, pitch, box=box, seed=seed)
    got = signs.read_signs(pic, n, pitch=pitch, box=box)
    # the definition: every pair measured (as read_signs did before it told bare windows)
    if box < 0.95:
        pic = cv2.GaussianBlur(pic, (0, 0), signs.BLUR * pitch)
    norm = cells_stage.normalise(pic, cell=pitch)
    level = cells_stage.ink_level(norm)
    ink = norm < (level if box >= 0.95 else signs.FAINT * level + (1.0 - signs.FAINT))
    dark = np.clip((1.0 - norm) / max(1.0 - level, 1e-3), 0.0, 1.0)
    wins = [signs.window(ink, a, b, pitch=pitch, box=box) for a, b in signs.pairs(n)]
    told = signs.bare(wins, pitch=pitch, box=box)
    assert 0 < sum(told) < len(told)  # some windows told bare, some measured
    for (a, b), win, empty in zip(signs.pairs(n), wins, told):
        shape = signs.measure(win, pitch=pitch, box=box, dark=signs.window(dark, a, b, pitch=pitch, box=box))
        assert repr(got[(a, b)]) == repr((shape, signs.options(shape)))
        if empty:
            assert shape == signs.SignShape(0.0, 0.0)


def test_ink_reaching_the_window_middle_is_measured():
    pitch = 48
    win = np.zeros((37, 29), bool)
    win[:, 14] = True  # a ruled line where the mesh puts it: erased
    assert signs.bare([win], pitch=pitch, box=1.0) == [True]
    win[18, 20:22] = True  # ink right of the line, within 0.2 of a cell of the centre: a sign's core may lie there
    assert signs.bare([win], pitch=pitch, box=1.0) == [False]
    win[18, 20:22] = False
    win[18, 26:29] = True  # a digit's edge by the window's end: no core can be centred there
    assert signs.bare([win], pitch=pitch, box=1.0) == [True]
