"""A 0/1 print's turn told by its 1s (scanner.readers.takuzu.ones_turn): an upright 1's flag stands left of its
stem, so a print the digits read alike either way up is told upright from upside down."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from scanner.cells import CellInk
from scanner.readers import takuzu, turned_grid

FONTS = ["/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"]


def _glyph(text: str, font: str) -> np.ndarray:
    """``text`` drawn dark on light in a 32 x 32 crop, as ``cells.measure`` hands it over."""
    try:
        face = ImageFont.truetype(font, 26)
    except OSError:
        pytest.skip("DejaVu fonts not installed")
    img = Image.new("L", (32, 32), 255)
    ImageDraw.Draw(img).text((16, 16), text, font=face, fill=0, anchor="mm")
    return np.asarray(img)


@pytest.mark.parametrize("font", FONTS)
def test_a_one_leans_left_upright_and_right_upside_down_and_a_zero_not_at_all(font):
    one = _glyph("1", font)
    assert takuzu.one_lean(one) > 0.05
    assert takuzu.one_lean(np.rot90(one, k=2)) < -0.05
    assert takuzu.one_lean(_glyph("0", font)) is None  # no narrow stem


def _print(quarter: int):
    """(inks as seen, the two close digit readings, upright and upside down) of a 6 x 6 print of 1s and 0s
    photographed turned ``quarter`` x 90 degrees clockwise."""
    rng = np.random.default_rng(quarter)
    values = rng.choice([0, 1, None], size=(6, 6), p=[0.3, 0.3, 0.4])
    crops = {0: _glyph("0", FONTS[0]), 1: _glyph("1", FONTS[0])}
    upright = [[CellInk(0.7, 1.0, crops[v]) if v is not None else CellInk(0.0, 0.0, None) for v in row] for row in values]
    seen = turned_grid(upright, quarter)  # the cells as seen, each crop turned clockwise too
    seen = [[CellInk(i.height, i.p_filled, None if i.crop is None else np.rot90(i.crop, k=-quarter)) for i in row]
            for row in seen]
    cands = [[[(v, 0.9), (None, 0.1)] for v in row] for row in values.tolist()]
    at = (-quarter) % 4  # the quarter turn that makes the photo upright
    readings = [(-0.1, at, cands), (-0.15, (at + 2) % 4, turned_grid(cands, 2))]
    return seen, readings


@pytest.mark.parametrize("quarter", [0, 1, 2, 3])
def test_the_ones_tell_which_of_two_readings_upside_down_from_each_other_stands_upright(quarter):
    seen, readings = _print(quarter)
    assert takuzu.ones_turn(seen, readings) == ((-quarter) % 4, (-quarter) % 4)
    swapped = [(readings[0][0], readings[1][1], readings[1][2]), (readings[1][0], readings[0][1], readings[0][2])]
    assert takuzu.ones_turn(seen, swapped) == ((-quarter) % 4, (-quarter) % 4)  # whichever the digits favour


def test_the_ones_tell_nothing_when_a_quarter_turn_is_close_too():
    seen, readings = _print(0)
    assert takuzu.ones_turn(seen, readings + [(-0.12, 1, readings[0][2])]) == (None, None)
