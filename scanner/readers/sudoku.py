"""The Sudoku reader: square ruled grids of 4, 6, 9 or 16 cells a side, one printed symbol per given."""
from __future__ import annotations

import functools

from solver.puzzle import Cell, Grid, Puzzle, Relation

import cv2
import numpy as np

from .. import circles, revise
from .. import cells as cells_stage
from ..cells import opencv_alone
from .ruled import engine_read, read_ruled, readings_key, spread

BOXES = {4: (2, 2), 6: (2, 3), 9: (3, 3), 16: (4, 4)}  #: box shape (rows, cols) per size
ALPHABET = "123456789ABCDEFG"  #: printed labels of the values 1..16 (16x16 grids print A..G for 10..16)
#: The fewest givens a Sudoku with exactly one solution can have, by size: 4 on a 4x4 (proven by hand, the
#: grids' symmetries leave two to check), 17 on a 9x9 (McGuire, Tugemann and Civario 2014, an exhaustive
#: search); any other size n needs at least n - 1 (``least_givens``).
MIN_GIVENS = {4: 4, 9: 17}


def least_givens(n: int) -> int:
    """The fewest givens an n x n Sudoku with exactly one solution can have: ``MIN_GIVENS``, else n - 1 -- with
    two values given nowhere, swapping them in a solution gives another."""
    return MIN_GIVENS.get(n, n - 1)


class SudokuReader:
    kind = "sudoku"

    def accepts(self, candidate) -> bool:
        return candidate.size in BOXES

    takes_floor = True  #: ``read`` takes ``floor`` (``scanner.photo._read_candidate``)

    def read(self, loaded, candidate, engine, *, timer, floor: float | None = None):
        """The grid read as a Sudoku (``ruled.read_ruled``). Told a ``floor`` (another kind's reading has solved
        at ``floor + revise.RIVAL_MARGIN``), it reads no symbol when too few cells hold ink for any reading to
        solve (``least_givens``: a revision only changes inked cells) and that solved reading scores
        ``revise.MAX_COST`` or better: readings that cannot solve then matter nowhere (they are no rival, and
        none, however likely, is ``MAX_COST`` above it: log-likelihoods are <= 0)."""
        n = candidate.size
        give_up = None
        if floor is not None and floor + revise.RIVAL_MARGIN >= -revise.MAX_COST:
            def give_up(inks) -> bool:
                return sum(ink.crop is not None for row in inks for ink in row) < least_givens(n)
        style: dict = {}
        crops_reader = functools.partial(read_numbers, style=style) if n > 9 else engine_read
        screen = None
        if n % 2 == 0:  # a binary puzzle (Takuzu) has an even size: an odd grid is not screened for one
            screened: list = []  # the first look's crops, found not binary
            screen = functools.partial(_screen_binary, engine, screened=screened)
            crops_reader = _unless_binary(crops_reader, screened=screened)
        try:
            readings = read_ruled(loaded, candidate, engine, alphabet=ALPHABET[:n], values=tuple(range(1, n + 1)),
                                  timer=timer, crops_reader=crops_reader, pairs=n > 9, screen=screen,
                                  give_up=give_up)
        except _NotSudoku:
            return []
        if style.get("letters", 1.0) < 0.5:  # a number print: the answers are drawn as 10..16 too
            for reading in readings:
                reading.glyphs = {ALPHABET[9 + d]: str(10 + d) for d in range(7)}
        loaded.memo[readings_key(candidate)] = readings
        return readings

    def make_puzzle(self, grid: Grid, relations: tuple[Relation, ...] = (), *, source: str = "",
                    index: int = 0) -> Puzzle:
        n = len(grid)
        return Puzzle(kind="sudoku", size=n, givens=[list(r) for r in grid], box=BOXES[n],
                      source=source, index=index)

    def labels(self, puzzle: Puzzle, solution: Grid) -> dict[Cell, str]:
        n = puzzle.size
        return {(r, c): ALPHABET[solution[r][c] - 1]
                for r in range(n) for c in range(n) if puzzle.givens[r][c] is None}


class _NotSudoku(Exception):
    """Raised by ``_unless_binary``'s reader when the grid's marks are plainly a binary puzzle's."""


#: Cells sampled (spread over the grid) to tell a binary puzzle, and the share of them that must read as
#: 0 / 1 (or look like circles) for the grid to be given up.
BINARY_SAMPLE, BINARY_SHARE = 16, 0.9
CIRCLE_IOU = 0.9  #: overlap (intersection / union) of a circle's filled blot with the ellipse of its bounding box


def _screen_binary(engine, inked: list, crops_of, *, screened: list) -> None:
    """Raise ``_NotSudoku`` when the inked cells ``inked`` of the first look ((row, col), row by row; ``crops_of``
    gives their crops: ``cells.measure``'s ``look``) are plainly a Takuzu's (``looks_binary``), before the second
    look at its empty cells (``ruled.second_look``) is paid for; else keep their crops in ``screened``
    (``_unless_binary`` need not look at them again). Only the sample's crops are built for the screen:
    ``looks_binary`` looks at no other (its sample of the sample, at most ``BINARY_SAMPLE``, is the whole of it),
    so a 16x16 grid given up builds 16 crops rather than 60 - 100."""
    if looks_binary(engine, crops_of(spread(inked, BINARY_SAMPLE))):
        raise _NotSudoku
    screened[:] = crops_of(inked)


def _unless_binary(crops_reader, *, screened: list = ()):
    """``crops_reader`` that first (on its first call: the upright cells) reads a sample of the inked cells
    and raises ``_NotSudoku`` when they are plainly a Takuzu's (``looks_binary``), so that the whole grid is
    not read (four ways round) as a Sudoku for nothing -- unless they are the very crops ``screened`` (found not
    binary by ``_screen_binary``: the second look changed nothing)."""
    first = [True]

    def read(engine, crops, *, alphabet):
        if first[0]:
            first[0] = False
            same = len(crops) == len(screened) and all(a is b for a, b in zip(crops, screened))
            if not same and looks_binary(engine, crops):
                raise _NotSudoku
        return crops_reader(engine, crops, alphabet=alphabet)
    return read


def looks_binary(engine, crops: list, *, sample: int = BINARY_SAMPLE, share: float = BINARY_SHARE) -> bool:
    """Whether the inked cells ``crops`` (each (h, w) uint8, dark on white) are plainly a binary puzzle's: of a
    sample of them spread over the grid (at least 6), ``share`` or more read as 0 or 1 (upright or a quarter
    turned; a single glyph, not a pair) with a fifth or more 0s -- a Sudoku never prints 0 -- or are circles
    (``_is_circle``: no digit or letter fills its bounding ellipse so)."""
    if len(crops) < 6:
        return False
    chosen = spread(crops, sample)
    need = share * len(chosen)
    if at_least(need, _is_circle, chosen):
        return True
    for turned in (chosen, [np.ascontiguousarray(np.rot90(c)) for c in chosen]):
        tops = [reading[0] for reading in engine_read(engine, turned, alphabet="0123456789")]
        if sum(label in "01" for label, _ in tops) < need:
            continue  # too few 0s and 1s whatever their shapes (the pair test is the costly part)
        single = [_split(c)[1] < 0.5 for c in turned]
        binary = [ok and label in "01" for ok, (label, p) in zip(single, tops)]
        zeros = sum(ok and label == "0" and p > 0.5 for ok, (label, p) in zip(single, tops))
        if sum(binary) >= need and zeros >= 0.2 * len(chosen):
            return True
    return False


def at_least(need: float, test, items: list) -> bool:
    """Whether ``need`` or more of ``items`` pass ``test`` (``sum(map(test, items)) >= need``), testing no more
    of them once the count is settled either way (a Sudoku's digits fail the circle test one after another)."""
    passed, left = 0, len(items)
    for item in items:
        if passed >= need or passed + left < need:
            break
        passed += bool(test(item))
        left -= 1
    return passed >= need


def _is_circle(crop: np.ndarray) -> bool:
    """Whether a cell crop (h, w) uint8 holds a printed circle, black or white: its largest blot of ink (parted
    from the paper or a shaded cell's tint by Otsu's threshold) is round (``circles.ROUND_ASPECT``), spans
    ``circles.ROUND_SPAN`` of the crop, and with its holes filled covers the ellipse of its bounding box and
    little more (a bold digit or letter leaves much of that ellipse bare, or its corners spill outside it;
    a shaded square, too)."""
    if int(crop.max()) - int(crop.min()) < 60:
        return False
    _, ink = cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if count < 2:
        return False
    big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[big, :4])
    side = float(max(crop.shape))
    lo, hi = circles.ROUND_ASPECT
    if not (lo <= w / h <= hi and circles.ROUND_SPAN <= min(w, h) / side):
        return False
    blot = np.pad((labels[y:y + h, x:x + w] == big).astype(np.uint8), 1)
    outside = blot.copy()
    cv2.floodFill(outside, None, (0, 0), 2)
    filled = outside[1:-1, 1:-1] != 2
    yy, xx = np.mgrid[0:h, 0:w]
    ellipse = ((xx - (w - 1) / 2.0) / (w / 2.0)) ** 2 + ((yy - (h - 1) / 2.0) / (h / 2.0)) ** 2 <= 1.0
    return float((filled & ellipse).sum()) / max(float((filled | ellipse).sum()), 1.0) >= CIRCLE_IOU


#: Width / height of a cell's ink above which it is as likely two digits side by side as one glyph, and the
#: softness of that judgement (single digits are 0.4 - 0.7 wide, "10" .. "16" about 0.9 - 1.3).
PAIR_ASPECT, PAIR_SOFTNESS = 0.8, 0.06
#: The odds of a pair are multiplied by this when the cut between touching glyphs crosses two strokes or more:
#: on 16x16 number prints (dev seeds 976000.., 977000..) such a cut crossed 2+ strokes in 5 of 71 touching pairs
#: (blurred together at 20-25 px a cell) but in 1051 of 1146 single glyphs cut the same way
CROSSED_ODDS = 0.08


def _ink_level(crop: np.ndarray) -> float:
    """The gray level below which a pixel of ``crop`` (dark glyphs on white, ``cells.measure``'s crop: what
    is not the glyph is already white) is the glyphs' ink: mid-gray, or Otsu's level when higher (a pale
    print: its thin diagonals and joins, lighter than mid-gray, would break one glyph into pieces). The
    glyphs' width / height is still measured on their mid-gray core (``_split``)."""
    if int(crop.min()) >= 128:
        return 128.0
    return max(128.0, float(cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[0]))


def _edges(size: int) -> np.ndarray:
    """(size,) bool: the outer sixth of a crop's columns (rows) at either side."""
    out = np.zeros(size, bool)
    out[:size // 6] = True
    out[size - size // 6:] = True
    return out


def _glyph_ink(crop: np.ndarray, level: float | None = None) -> np.ndarray:
    """The ink (h, w) bool of ``crop`` that belongs to the printed symbols: without remnants of the ruled lines
    (long thin components along an edge, which would join two glyphs or stretch one) and specks (components
    of under 3 % of the ink, or lying outside the band of rows of the tallest glyph). ``level``: the crop's
    ``_ink_level`` when already known."""
    ink = crop < (_ink_level(crop) if level is None else level)
    h, w = ink.shape
    cells_stage.clear_line_remnants(ink, cols=_edges(w), rows=_edges(h))  # a straight remnant in the edge sixths
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink.view(np.uint8), connectivity=8)
    if count < 2:
        return ink  # no ink at all
    listed = stats.tolist()  # (plain numbers: the same values, faster one at a time)
    kept = []
    for i in range(1, count):
        x, y, cw, ch, area = listed[i]
        along_edge = min(x, y, w - x - cw, h - y - ch) <= 1
        if not (along_edge and ((ch >= 0.8 * h and cw <= 0.15 * w) or (cw >= 0.8 * w and ch <= 0.15 * h))):
            kept.append(i)
    if not kept:
        return np.zeros_like(ink)
    total = sum(listed[i][cv2.CC_STAT_AREA] for i in kept)
    tallest = max(kept, key=lambda i: listed[i][cv2.CC_STAT_HEIGHT])
    top, bottom = listed[tallest][cv2.CC_STAT_TOP], listed[tallest][cv2.CC_STAT_TOP] + listed[tallest][cv2.CC_STAT_HEIGHT]
    keep = np.zeros(count, bool)
    for i in kept:
        centre = listed[i][cv2.CC_STAT_TOP] + listed[i][cv2.CC_STAT_HEIGHT] / 2
        keep[i] = listed[i][cv2.CC_STAT_AREA] >= 0.03 * total and top <= centre <= bottom
    return keep[labels]


def split_glyphs(crop: np.ndarray) -> tuple[list[np.ndarray], float]:
    """The crop (h, w) uint8 (dark ink on white) cut into the two glyphs of a two-digit number, left to right,
    and how likely (0..1) the ink is such a pair: ``([crop], 0.0)`` when it cannot be two glyphs.

    The cut is at the empty column nearest the middle of the ink, or, when the glyphs touch (serifs, bold
    type), at the faintest column of its middle third; the likelihood grows with the ink's width / height
    (from a lower width when an empty column parts the glyphs)."""
    parts, p_pair, _ = _split(crop)
    return parts, p_pair


def _split(crop: np.ndarray) -> tuple[list[np.ndarray], float, bool]:
    """``split_glyphs`` and whether an empty column parts the two glyphs (no single letter looks so)."""
    level = _ink_level(crop)
    ink = _glyph_ink(crop, level)
    profile = np.count_nonzero(ink, axis=0)  # ink pixels per column
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(profile)
    if len(cols) < 4 or len(rows) < 4:
        return [crop], 0.0, False
    left, right = int(cols[0]), int(cols[-1]) + 1
    core = ink & (crop < 128)  # the strokes' dark middles: the glyphs' width without a pale print's halo
    rows_c, cols_c = np.flatnonzero(core.any(axis=1)), np.flatnonzero(core.any(axis=0))
    if len(cols_c) >= 4 and len(rows_c) >= 4:
        aspect = (cols_c[-1] + 1 - cols_c[0]) / (rows_c[-1] + 1 - rows_c[0])
    else:
        aspect = (right - left) / (rows[-1] + 1 - rows[0])
    profile = profile[left:right]
    lo, hi = (right - left) // 4, right - left - (right - left) // 4
    empty = np.flatnonzero(profile[lo:hi] == 0) + lo
    if len(empty):
        cut = left + int(empty[np.argmin(np.abs(empty - (right - left) / 2))])
        threshold = PAIR_ASPECT - 0.15
    else:
        lo, hi = (right - left) // 3, right - left - (right - left) // 3
        if hi <= lo:
            return [crop], 0.0, False
        cut = left + lo + int(np.argmin(profile[lo:hi]))
        threshold = PAIR_ASPECT
    # each part's ink is the glyph ink on its side of the cut (what is not glyph ink is whitened)
    heights = []
    for side in (ink[:, :cut], ink[:, cut:]):
        on = np.flatnonzero(side.any(axis=1))
        heights.append(int(on[-1] - on[0]) + 1 if len(on) else 0)
    if min(heights) < 0.5 * max(heights):  # a speck beside a digit, or a 7's bar: not a second digit
        return [crop], 0.0, False
    clean = np.where(ink, crop, np.uint8(255))
    p_pair = 1.0 / (1.0 + np.exp(-(aspect - threshold) / PAIR_SOFTNESS))
    if not len(empty) and _strokes_across(ink[:, cut]) >= 2:
        # two glyphs that touch meet in one place (their serifs, a bold 1's foot); a cut through two or more
        # strokes (the arcs of a wide 2, 3 or 8) more likely halves one glyph
        p_pair = p_pair * CROSSED_ODDS / (p_pair * CROSSED_ODDS + 1.0 - p_pair)
    return [clean[:, :cut], clean[:, cut:]], float(p_pair), bool(len(empty))


def _strokes_across(column: np.ndarray) -> int:
    """The runs of ink (separate strokes) along one column (h,) bool of a glyph's ink."""
    return int(np.count_nonzero(np.diff(column.astype(np.int8), prepend=0) == 1))


LETTERS = ALPHABET[9:]  #: "A".."G": the single glyphs of 10..16 in a letter print
#: Floor of a cell's best probability when weighing how well a grid reads as a letter or a number print.
STYLE_FLOOR = 1e-4


def read_numbers(engine, crops: list, *, alphabet: str, style: dict | None = None) -> list[list[tuple[str, float]]]:
    """Readings over ``alphabet`` (labels "1".."9", "A".."G" for 10..16) of the inked cells of one 16x16 grid,
    which prints 10..16 either as letters A..G or as two digits side by side.

    Each cell is read whole (one glyph) and, when its ink may be two glyphs side by side
    (``split_glyphs``), also cut in two ("1" then 0..6) -- unless its whole reading leaves a pair no weight worth
    reading the halves for (``PAIR_NEGLIGIBLE``). Two readings of the cell follow: as a *letter
    print* (the whole glyph; ink parted into two glyphs is unlikely a letter) and as a *number print* (a
    letter is never printed; whole and pair readings weighed by how likely the ink is a pair). The grid is
    printed one way: the two are mixed by how well the whole grid reads each way (the product over its cells
    of the best candidate's probability), so the halves of a wide A, B or D are not read as 11, 13, 10 in a
    letter print, nor a 12 as a letter in a number print; whether a number print's cell holds one digit or
    two is weighed by how well the ink reads each way (``_pair_weight``). Mass the engine gives symbols
    outside the alphabet stays out (not renormalised). ``style`` (optional) receives ``"letters"``: how likely the grid is a
    letter print (from the first call)."""
    wholes = engine_read(engine, crops, alphabet=alphabet) if crops else []
    with opencv_alone():  # many small pictures
        splits = [_split(crop) for crop in crops]
    # a glyph whose halves could weigh no more than PAIR_NEGLIGIBLE in its reading is read as one glyph
    splits = [([crop], 0.0, False) if 0.0 < p_pair and not parted and _pair_bound(p_pair, whole) < PAIR_NEGLIGIBLE
              else (parts, p_pair, parted) for crop, whole, (parts, p_pair, parted) in zip(crops, wholes, splits)]
    pieces = [part for parts, p, _ in splits if p > 0.0 for part in parts]
    halves = iter(engine_read(engine, pieces, alphabet="0123456789") if pieces else [])
    as_letters, as_numbers = [], []
    for whole, (parts, p_pair, parted) in zip(wholes, splits):
        first = second = {}
        if p_pair > 0.0:
            first, second = dict(next(halves)), dict(next(halves))
            p_pair *= 1.0 - max(first.get(".", 0.0), second.get(".", 0.0))  # a half with nothing: no pair
        single = (1.0 - p_pair) if parted else 1.0
        as_letters.append({label: single * p for label, p in whole})
        w_pair = _pair_weight(p_pair, dict(whole), first, second)
        numbers = {label: (1.0 - w_pair) * p for label, p in whole if label not in LETTERS}
        for d in range(7):
            label = ALPHABET[9 + d]
            numbers[label] = numbers.get(label, 0.0) + w_pair * first.get("1", 0.0) * second.get(str(d), 0.0)
        as_numbers.append(numbers)
    fit = [sum(np.log(max(max(cell.values(), default=0.0), STYLE_FLOOR)) for cell in style)
           for style in (as_letters, as_numbers)]
    w_letters = 1.0 / (1.0 + np.exp(np.clip(fit[1] - fit[0], -50.0, 50.0)))
    if style is not None:
        style.setdefault("letters", float(w_letters))  # the first (upright) read tells the print's style
    out = []
    for letters, numbers in zip(as_letters, as_numbers):
        scores = {label: w_letters * letters.get(label, 0.0) + (1.0 - w_letters) * numbers.get(label, 0.0)
                  for label in {*letters, *numbers}}
        out.append(sorted(((label, p) for label, p in scores.items() if label in alphabet or label == "."),
                          key=lambda t: -t[1]))
    return out


#: The halves of a glyph touching its partner (no empty column between) are not read when a pair could weigh
#: less than this in the cell's number-print reading whatever they read (``_pair_bound``): a single digit, narrow
#: and read surely as 1..9 whole. It is read as one glyph: its pair candidates (10..16) are dropped, and the
#: rest move by at most this share. At e**-6 (``revise.MAX_COST``) a pair candidate so unlikely beside a sure
#: whole reading costs more than a revision may spend, so the revision could not have tried it.
PAIR_NEGLIGIBLE = 0.0025


def _pair_bound(p_pair: float, whole: list[tuple[str, float]]) -> float:
    """The most a pair can weigh in a cell's number-print reading (``_pair_weight``) given its whole reading
    ``whole`` and the shape's odds ``p_pair``: its halves read as a sure 1 and a sure 0..6."""
    single = (1.0 - p_pair) * sum(p for label, p in whole if label in ALPHABET[:9])
    return p_pair / (p_pair + single)


def _pair_weight(p_pair: float, whole: dict, first: dict, second: dict) -> float:
    """How likely a cell of a number print holds two digits (10..16) rather than one, given the shape's odds
    ``p_pair`` and how well each way reads: as one digit 1..9 (``whole``) or as a 1 then a 0..6 (``first``,
    ``second``). A wide single digit (a bold serif 9) is not lost to the pair its width suggests when its
    halves read as no number 10..16 (the pair's odds went to nothing in the alphabet before)."""
    as_pair = p_pair * first.get("1", 0.0) * sum(second.get(str(d), 0.0) for d in range(7))
    as_single = (1.0 - p_pair) * sum(whole.get(label, 0.0) for label in ALPHABET[:9])
    return as_pair / (as_pair + as_single) if as_pair + as_single > 0.0 else p_pair


READER = SudokuReader()
