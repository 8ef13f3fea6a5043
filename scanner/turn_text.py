"""Which way up a page is, read by an OCR engine from the text lines beside a grid.

``scanner.orient`` reads the shape of text lines (ascenders against descenders), which needs many lines;
a puzzle's own title and two instruction lines, large or bold, are too few for it. An OCR engine reads
them either way up and is sure of the words only the right way up. The text lines around the grid are
found in the grid's frame (``orient.frame``, ``orient.ink``) along both directions, warped again from
the photo at a resolution the engine reads well, and each is read in the two turns its direction allows
(text along the rows: upright or upside down; along the columns: turned a quarter either way), one
direction's lines stacked in ONE picture for one engine call: first the direction most of the page's lines
run (``refine``), the other only when those do not decide; each turn scores the characters of the words
read with confidence.

    quad -> frame ink -> text line boxes (one direction) -> crops at LINE_HEIGHT px, two turns stacked
    -> one engine call -> words per turn -> confident characters per turn -> Vote (-> the other direction)
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import cv2
import numpy as np

from . import orient
from .grid_find import gray_of

LINE_HEIGHT = 32  #: pixels a text line's box (ascenders to descenders) is read at
PAD = 0.3  #: share of a line's height added around its box
MAX_LINES = 4  #: lines read per direction (the longest)
MAX_LARGE = 2  #: lines in large print (``large_print``) read per direction besides (the longest)
MAX_WIDTH = 640  #: most pixels of one line read (at LINE_HEIGHT)
GAP = 20  #: paper between the stacked lines
#: Tesseract's page segmentation: 11 = sparse text, every word wherever it stands. As one block of lines (6), a
#: few dark or noisy rows among the stacked lines made it leave whole clear lines out; on 323 undecided grids
#: the two decided or guessed as many (233 / 234), none wrong, 11 with the wrong turns' scores further behind
PSM = 11
#: whether Tesseract reads a line of low confidence again inverted (light print on dark; ``tessedit_do_invert``,
#: its default): every line read the wrong way up is of low confidence, so half the lines were recognised twice, for
#: nothing -- ``_clean`` turns light print on a dark bar dark on light before. Off, on the 90 grids whose words
#: were read (dev7 takuzu and takuzu_big, retired held-outs 6 and 7 main and takuzu_big, 3 speed bench pages) the
#: engine took 18 % less time (thread CPU), and both directions' scores per turn were the same on every one
INVERT = False
MIN_SEEN = 12.0  #: photo pixels a line's box must be tall to be read (an OCR engine reads no smaller print)
ONE_LINE = 2.4  #: a joined run taller than this many glyph heights holds several lines (not read)


@dataclass(frozen=True)
class Vote:
    """``scores``: per quarter turn (0..3, clockwise in the image) the evidence that the page is turned so
    (confident characters read with the page turned upright from it); ``words``: the words read per turn."""

    scores: tuple[float, float, float, float]
    words: tuple[tuple[tuple[str, float], ...], ...]


def line_boxes(mask: np.ndarray, *, cell: int, n: int, margin: float = orient.MARGIN) -> list[tuple[int, int, int, int]]:
    """(x, y, w, h) boxes of the whole text lines running along the rows in a frame's ink ``mask`` (S, S) bool,
    the grid in its middle left out (``orient.joined_runs``): a joined run at least 3 glyphs long, 3 times as
    long as tall and at most ``ONE_LINE`` glyphs tall; the lines in large print (``large_print``) first, then
    the others (``line_sets``)."""
    large, rest = line_sets(mask, cell=cell, n=n, margin=margin)
    return large + rest


def line_sets(mask: np.ndarray, *, cell: int, n: int, margin: float = orient.MARGIN) -> tuple[list, list]:
    """(the lines in large print, the others) of ``line_boxes``, a line found by both among the large only."""
    parts = orient.frame_components(mask, cell=cell, n=n, margin=margin)  # (found once for both kinds of print)
    found = orient.joined_runs(mask, cell=cell, n=n, margin=margin, min_glyphs=3, components=parts)
    if found is None:
        return [], []
    runs = large_print(mask, found, cell=cell, n=n, margin=margin, components=parts)
    large = [] if runs is None else [b for b in _line_runs(runs) if _lettered(runs.keep, b)]
    return large, [b for b in _line_runs(found) if not any(_inside(b, a) for a in large)]


#: a line in large print holds at least LETTERS glyphs and is at most SOLID ink: a picture's dark edge or a
#: bar's end, pieces of glyph size, are no line of text
LETTERS, SOLID = 3, 0.6


def _lettered(keep: np.ndarray, box) -> bool:
    """Whether the ``box`` (x, y, w, h) of the glyph pixels ``keep`` (S, S) bool reads as a line of letters
    (``LETTERS``, ``SOLID``)."""
    x, y, w, h = box
    part = keep[y:y + h, x:x + w].astype(np.uint8)
    count, _ = cv2.connectedComponents(part, connectivity=8)
    return count - 1 >= LETTERS and float(part.mean()) <= SOLID


def _inside(box, other, share: float = 0.5) -> bool:
    """Whether at least ``share`` of ``box`` (x, y, w, h) lies in ``other``."""
    x, y, w, h = box
    ox, oy, ow, oh = other
    dx = min(x + w, ox + ow) - max(x, ox)
    dy = min(y + h, oy + oh) - max(y, oy)
    return dx > 0 and dy > 0 and dx * dy >= share * w * h


def _line_runs(found: orient.Runs) -> list[tuple[int, int, int, int]]:
    """(x, y, w, h) boxes of the runs of ``found`` that are whole text lines (``line_boxes``)."""
    out = []
    for x, y, ww, hh, _ in found.boxes[1:].tolist():  # (plain numbers: hundreds of runs, most of them no line)
        if ww < 3 * hh or hh < 3 or ww < 3 * found.tall or hh > ONE_LINE * found.tall:
            continue
        out.append((int(x), int(y), int(ww), int(hh)))
    return out


#: a glyph this many times the page's median glyph height is large print (a puzzle's title, a headline), up to
#: LARGE_TALLEST cells tall and LARGE_WIDEST wide (two letters touching): a big grid's cells are small beside its title
LARGE, LARGE_TALLEST, LARGE_WIDEST = 2.0, 3.0, 4.0


def large_print(mask: np.ndarray, found: orient.Runs, *, cell: int, n: int, margin: float = orient.MARGIN,
                components: tuple[np.ndarray, np.ndarray] | None = None) -> orient.Runs | None:
    """The glyphs of the frame's ink ``mask`` at least ``LARGE`` times the median glyph height of ``found``
    (``orient.joined_runs`` of the mask; ``components``: the mask's ``orient.frame_components`` when already
    found) joined into runs by their own height; None when fewer than 3. Joined by the page's small body print,
    a puzzle's title, 4..6 times as tall, was split letter from letter or taken for several lines (``ONE_LINE``)
    and never read, while the body print around it was too small to be read (``MIN_SEEN``); above a 20 x 20
    grid its letters stand taller than a cell."""
    return orient.joined_runs(mask, cell=cell, n=n, margin=margin, min_glyphs=3, shortest=LARGE * found.tall,
                              tallest=LARGE_TALLEST, widest=LARGE_WIDEST, components=components)


def _crop(gray: np.ndarray, to_frame: np.ndarray, box, *, size: int, quarter: int) -> np.ndarray:
    """The box (x, y, w, h) of the frame (in the frame turned ``quarter`` x 90 degrees counter-clockwise,
    ``size`` pixels a side) warped from the photo ``gray`` (H, W) uint8 at LINE_HEIGHT pixels for the box's height, turned back so
    the line runs along the rows (gray uint8)."""
    x, y, w, h = box
    pad = PAD * h
    x0, y0, x1, y1 = x - pad, y - pad, x + w + pad, y + h + pad
    s = LINE_HEIGHT / h
    # frame-turned coordinates -> frame coordinates (np.rot90 k times counter-clockwise of an S x S picture)
    corners = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    pts = corners.copy()
    for _ in range(quarter):  # undo one counter-clockwise turn: (x', y') = (y, S - 1 - x) <- (x, y)
        pts = np.stack([size - 1 - pts[:, 1], pts[:, 0]], axis=1)
    out_w, out_h = int(round((x1 - x0) * s)), int(round((y1 - y0) * s))
    dst = np.float32([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]])
    h_frame = cv2.getPerspectiveTransform(pts.astype(np.float32), dst)
    warp = h_frame @ to_frame
    crop = cv2.warpPerspective(gray, warp, (out_w, out_h), flags=cv2.INTER_CUBIC,
                               borderMode=cv2.BORDER_REPLICATE)
    return crop[:, :MAX_WIDTH]


#: a line picture's ink and paper levels: these percentiles of its pixels after a light blur (``_clean``)
INK_LEVEL, PAPER_LEVEL = 2.0, 90.0
LEAST_CONTRAST = 24.0  #: gray levels between the two below which a line picture is not stretched (no text)


def _clean(crop: np.ndarray) -> np.ndarray:
    """A line picture normalised to its paper: dark text on white, lighting evened out, then blurred a little
    and stretched from its ink level to its paper level (``INK_LEVEL``, ``PAPER_LEVEL``): blurred or
    low-contrast print (grey text on a grey, grainy page) that the engine read as noise reads as words. Light
    text on a dark bar (a puzzle's title printed white on colour: the picture's border, beyond the line's box,
    dark against the letters) is turned dark on light."""
    k = max(3, int(LINE_HEIGHT * 0.8)) | 1
    paper = cv2.dilate(crop, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    out = np.clip(crop.astype(np.float32) / np.maximum(paper.astype(np.float32), 1.0) * 255.0, 0, 255)
    b = max(2, int(0.5 * PAD * LINE_HEIGHT))  # the outer half of the padding around the line: paper, or the bar
    border = np.concatenate([out[:b].ravel(), out[-b:].ravel(), out[:, :b].ravel(), out[:, -b:].ravel()])
    if np.median(border) < 128.0:  # light print on a dark bar (a shadow is evened out by the paper's level)
        smooth = 255.0 - cv2.GaussianBlur(crop.astype(np.float32), (3, 3), 0)
    else:
        smooth = cv2.GaussianBlur(out, (3, 3), 0)
    low, high = np.percentile(smooth, [INK_LEVEL, PAPER_LEVEL])
    if high - low < LEAST_CONTRAST:
        return out.astype(np.uint8)
    return np.clip((smooth - low) * (255.0 / (high - low)), 0, 255).astype(np.uint8)


def _frame_ink(gray: np.ndarray, to_frame: np.ndarray, *, size: int, cell: int) -> np.ndarray:
    """(size, size) bool ink of the frame (``orient.ink``), the photo's edge pixels carried on past it: paper
    beyond the edge taken for white made the photo's own paper beside it read as ink, and a text line cut
    by the edge joined to that band. Nothing beyond the edge is ink."""
    picture = cv2.warpPerspective(gray, to_frame, (size, size), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
    inside = cv2.warpPerspective(np.full(gray.shape, 255, np.uint8), to_frame, (size, size),
                                 flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    inside = cv2.erode(inside, np.ones((3, 3), np.uint8))
    return orient.ink(picture, cell=cell) & (inside > 0)


@dataclass(frozen=True)
class _Frame:
    """A grid's frame as ``line_pictures`` reads it: the photo in gray, the photo -> frame homography, the
    frame's side and pixels per cell, the pixels per cell as seen, and the frame's ink (``_frame_ink``)."""

    gray: np.ndarray
    to_frame: np.ndarray
    size: int
    cell: int
    seen: float
    mask: np.ndarray


def _frame(image: np.ndarray, quad: np.ndarray, n: int, *, cell: int = orient.FRAME_CELL) -> _Frame:
    quad = np.asarray(quad, np.float64).reshape(4, 2)
    cell, seen = orient.frame_cell(quad, n, cell=cell)
    to_frame, size = orient.frame_transform(quad, n, cell=cell)
    gray = gray_of(image)  # once: the photo is large
    return _Frame(gray, to_frame, size, cell, seen, _frame_ink(gray, to_frame, size=size, cell=cell))


def _axis_pictures(frame: _Frame, axis: int, n: int) -> dict:
    """{quarter: [line picture, ...]} of the lines along the rows (``axis`` 0: quarters 0 and 2) or along the
    columns (1: quarters 1 and 3) of ``frame`` (``line_pictures``)."""
    large, rest = line_sets(frame.mask if axis == 0 else np.rot90(frame.mask, k=1), cell=frame.cell, n=n)
    legible = [[b for b in boxes if b[3] * frame.seen / frame.cell >= MIN_SEEN]  # too small in the photo to be read
               for boxes in (large, rest)]
    # the longest, and the longest in large print besides (a puzzle's title is short beside body text)
    boxes = sorted(legible[0], key=lambda b: -b[2])[:MAX_LARGE] + sorted(legible[1], key=lambda b: -b[2])[:MAX_LINES]
    crops = [_clean(_crop(frame.gray, frame.to_frame, b, size=frame.size, quarter=axis)) for b in boxes]
    # along the rows: upright = turn 0; along the columns (the mask turned counter-clockwise): turn 1
    return {axis: crops, axis + 2: [np.ascontiguousarray(np.rot90(c, k=2)) for c in crops]}


def line_pictures(image: np.ndarray, quad: np.ndarray, n: int, *, cell: int = orient.FRAME_CELL) -> dict:
    """{quarter: [line picture, ...]}: the longest text lines beside the grid (``quad`` (4, 2) (x, y) as seen,
    ``n`` cells) read as if the page were turned ``quarter`` x 90 degrees clockwise in ``image`` (so the
    picture is upright for the right quarter)."""
    frame = _frame(image, quad, n, cell=cell)
    out = {}
    for axis in (0, 1):
        out.update(_axis_pictures(frame, axis, n))
    return out


def sheet(pictures: dict) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """All line pictures stacked in one white picture, one a row; [(quarter, top, bottom), ...] of each row."""
    rows = [(q, p) for q in sorted(pictures) for p in pictures[q]]
    if not rows:
        return np.full((1, 1), 255, np.uint8), []
    width = max(p.shape[1] for _, p in rows) + 2 * GAP
    height = GAP + sum(p.shape[0] + GAP for _, p in rows)
    out = np.full((height, width), 255, np.uint8)
    spans = []
    y = GAP
    for q, p in rows:
        out[y:y + p.shape[0], GAP:GAP + p.shape[1]] = p
        spans.append((q, y, y + p.shape[0]))
        y += p.shape[0] + GAP
    return out, spans


#: a word counts when read with at least this confidence (0..100) and holding at least WORD_LETTERS letters:
#: text read the wrong way up gives short words of low confidence, its letters' shapes being no letters
WORD_CONF = 80.0
WORD_LETTERS = 2


def confident_chars(words) -> int:
    """Letters and digits of the ``words`` [(text, confidence), ...] read with confidence (``WORD_CONF``,
    ``WORD_LETTERS``)."""
    return sum(sum(ch.isalnum() for ch in text) for text, conf in words
               if conf >= WORD_CONF and sum(ch.isalpha() for ch in text) >= WORD_LETTERS)


def picture_vote(pictures: dict, *, read_words) -> Vote:
    """The ``Vote`` of the line ``pictures`` {quarter: [picture, ...]} (``line_pictures``, ``_axis_pictures``),
    all stacked in one picture (``sheet``) read in one ``read_words(picture) -> [(text, conf, x, y, w, h),
    ...]`` call (``scanner.ocr.tesseract.read_words``); quarters without pictures score 0."""
    picture, spans = sheet(pictures)
    per: list[list[tuple[str, float]]] = [[], [], [], []]
    if spans:
        for text, conf, x, y, w, h in read_words(picture):
            middle = y + h / 2
            for quarter, top, bottom in spans:
                if top - GAP / 2 <= middle <= bottom + GAP / 2:
                    per[quarter].append((text, conf))
                    break
    scores = tuple(float(confident_chars(words)) for words in per)
    return Vote(scores, tuple(tuple(words) for words in per))


#: the text decides the turn (``orient.Orientation.turn``, surely) when the best turn's confident characters
#: number at least SURE_CHARS and SURE_LEAD times those of any other turn plus SURE_MARGIN; it gives the likely
#: turn (``Orientation.read``, a guess) at GUESS_CHARS and GUESS_LEAD times plus GUESS_MARGIN. On the 157 grids
#: ``orient.page_turn`` left undecided on dev pages (turn dev / val, tk dev, synth300; the true corners; the bounds
#: were set here) 103 decided, 11 guessed, none wrong, 43 left; a wrong turn's score never came past a third of
#: the right one's (at most 20 characters against 95); checked on 151 others (the retired held-outs, turn nat):
#: 100 decided, 9 guessed, 0 wrong, 42 left; and 15 fresh ones (seeds 895000..): 9, 1, 0, 5
#: kept when lines in large print were added and each line's contrast stretched: on the first puzzle of 1,305 dev
#: pages (retired held-outs, fresh dev sets) a decided turn was wrong 0 times.
#: GUESS_CHARS, GUESS_MARGIN were 10, 6: a page whose only legible line is a puzzle's title or its level ("Zero-One",
#: "Level": 7 and 5 characters; retired held-out 8 takuzu_951603, dev7 981200, circle prints turned a quarter) was
#: left as seen. On the 315 Takuzu grids of the retired held-outs 1..8 and dev7 (main and big; the true corners)
#: that the lines' shape left undecided, a wrong turn never scored more than 4 where the right one scored under 17,
#: nor led by the guess's margin anywhere: at 5, 5 the words guess 285 right (256 at 10, 6), none wrong. (Read
#: the wrong way up, 26 confident words of 5 or more characters came among 1,668 the right way: "spjoy",
#: "NZNAVL" -- never alone.)
SURE_CHARS, SURE_LEAD, SURE_MARGIN = 24.0, 3.0, 12.0
GUESS_CHARS, GUESS_LEAD, GUESS_MARGIN = 5.0, 2.0, 5.0


def decide(scores) -> tuple[int | None, int | None]:
    """(sure turn or None, likely turn or None) from a ``Vote``'s ``scores`` (``SURE_*``, ``GUESS_*``)."""
    order = sorted(range(4), key=lambda q: -scores[q])
    best, runner = scores[order[0]], scores[order[1]]
    sure = best >= SURE_CHARS and best >= SURE_LEAD * runner + SURE_MARGIN
    likely = best >= GUESS_CHARS and best >= GUESS_LEAD * runner + GUESS_MARGIN
    return (order[0] if sure else None), (order[0] if likely else None)


_MISSING: list[bool] = []  #: set once the OCR engine was found missing (not asked again)


def _reader():
    """Tesseract's ``read_words`` (in this process, else the program), or None when no Tesseract is installed."""
    if _MISSING:
        return None
    from .ocr import tesseract
    if tesseract.words_engine() is None:  # missing, failing or too old: the turn is told without it
        _MISSING.append(True)
        return None
    return functools.partial(tesseract.read_words, psm=PSM, invert=INVERT)


def against_shape(found: orient.Orientation, turn: int) -> bool:
    """Whether the text lines' shape (``found``, undecided) leans clearly away from ``turn``: its best guess
    (``orient.likely_turn``) another turn, or its joint evidence along ``turn``'s direction at least
    ``orient.GUESS_Z`` the other way."""
    guess = orient.likely_turn(found)
    if guess not in (0, turn):
        return True
    axis = turn % 2
    z = found.evidence[axis]
    return abs(z) >= orient.GUESS_Z and orient.turn_of(axis, z) != turn


def refine(found: orient.Orientation, image: np.ndarray, quad: np.ndarray, n: int) -> orient.Orientation:
    """``found`` (``orient.page_turn``'s reading of the grid with corners ``quad`` (4, 2) (x, y, as seen) of
    ``n`` cells in ``image`` (H, W[, 3])) with what the text lines read by OCR add when it is not sure: the
    turn when they tell it surely, else the likely turn (``read``) when they lean clearly one way. Unchanged
    when sure already or when no OCR engine is installed. The words never decide surely against the lines'
    shape where that leans clearly another way (``against_shape``: say an upside-down solution box beside
    little upright text); they give the likely turn then.

    The lines running the way most of the page's lines run (``found.axis``) are read first, in one engine call;
    the others, in a second call, only when those do not decide surely: then the two directions' scores are
    weighed together as one ``Vote``. On the 323 grids ``orient.page_turn`` left undecided in the dev
    collections the first direction alone decided 154 of the 211 the words decided (read by the program); a
    second call costs no more than its lines, the engine being kept in the process. The price: a decision by
    the first direction is not weighed against the other's words (which, read, might have left it unsure);
    on those 323 grids none was decided wrong either way."""
    if found.turn is not None:
        return found
    read_words = _reader()
    if read_words is None:
        return found
    try:
        frame = _frame(image, quad, n)
        first = picture_vote(_axis_pictures(frame, found.axis, n), read_words=read_words).scores
        decided = _weighed(found, first)
        if decided.turn is not None:
            return decided
        other = picture_vote(_axis_pictures(frame, 1 - found.axis, n), read_words=read_words).scores
    except Exception:  # noqa: BLE001 -- the engine failed, timed out or answered oddly on this picture: a hint
        return found  # only, so no words
    return _weighed(found, tuple(a + b for a, b in zip(first, other)))


def _weighed(found: orient.Orientation, scores) -> orient.Orientation:
    """``found`` with the words' ``scores`` per quarter weighed in (``decide``, ``against_shape``)."""
    sure, likely = decide(scores)
    if sure is not None and not against_shape(found, sure):
        return dataclasses.replace(found, turn=sure, read=sure)
    if sure is not None:
        return dataclasses.replace(found, read=sure)
    return dataclasses.replace(found, read=likely)
