"""The page's turn read by OCR from the text lines beside a grid (scanner.turn_text): lines are found along
both directions and stacked, each in the two turns its direction allows, in one picture; the words read per
turn decide only on a clear lead; without an OCR engine nothing changes."""
from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont
from test_orient import CELL, FONT, N, _instructions, _page, _turned

from scanner import orient, turn_text


def test_whole_lines_are_boxed_one_by_one():
    page, quad = _instructions(seed=0)
    frame = orient.frame(page, quad, N, cell=orient.FRAME_CELL)
    boxes = turn_text.line_boxes(orient.ink(frame, cell=orient.FRAME_CELL), cell=orient.FRAME_CELL, n=N)
    assert 4 <= len(boxes) <= 6  # five lines (a wide word gap may split one)
    heights = [h for _, _, _, h in boxes]
    assert max(heights) < 2 * min(heights)  # single lines, none merged with its neighbour


@pytest.mark.parametrize("turn", [0, 1, 2, 3])
def test_lines_are_offered_upright_in_the_turn_the_page_has(turn):
    """The pictures offered for the page's own turn hold the lines upright: the same pixels as the
    upright page's, whichever way the photo holds it."""
    page, quad = _instructions(seed=1)
    upright = turn_text.line_pictures(page, quad, N)
    image, corners = _turned(page, quad, turn)
    pictures = turn_text.line_pictures(image, corners, N)
    assert len(pictures[turn]) == len(upright[0]) >= 3
    whole = [p for p in pictures[turn] if p.shape[1] < turn_text.MAX_WIDTH]  # (a long line's cut keeps its start
    assert whole  # as the photo has it)
    for seen in whole:  # each is one of the upright lines (resampled, so not bit for bit)
        alike = [_apart(seen, want) for want in upright[0] if want.shape == seen.shape]
        over = [_apart(seen, np.rot90(want, k=2)) for want in upright[0] if want.shape == seen.shape]
        assert alike and min(alike) < 0.5 * min(over)  # far closer to an upright line than to one upside down


def _apart(a: np.ndarray, b: np.ndarray, *, shift: int = 4) -> float:
    """Mean absolute difference of two pictures of one shape, the least over shifts of up to ``shift`` pixels
    (a box found in a turned picture can land a pixel or two off)."""
    h, w = a.shape
    s = shift
    return min(float(np.mean(np.abs(a[s:h - s, s:w - s].astype(int) - b[s + dy:h - s + dy, s + dx:w - s + dx])))
               for dy in range(-s, s + 1) for dx in range(-s, s + 1))


def test_the_sheet_stacks_every_line_with_paper_between():
    pictures = {0: [np.zeros((30, 100), np.uint8)], 2: [np.zeros((30, 60), np.uint8), np.zeros((20, 80), np.uint8)]}
    sheet, spans = turn_text.sheet(pictures)
    assert [q for q, _, _ in spans] == [0, 2, 2]
    for (_, top, bottom), (_, nxt, _) in zip(spans, spans[1:]):
        assert nxt - bottom == turn_text.GAP
        assert (sheet[bottom:nxt] == 255).all()
    assert sheet.shape == (turn_text.GAP + 30 + 30 + 20 + 3 * turn_text.GAP, 100 + 2 * turn_text.GAP)


def test_words_are_credited_to_the_turn_whose_line_they_stand_on():
    """A fake engine reads confident words on the rows of turn 2 only: its characters count for turn 2."""
    page, quad = _instructions(seed=2)
    image, corners = _turned(page, quad, 2)

    pictures = turn_text.line_pictures(image, corners, N)

    def read_words(picture):
        _, spans = turn_text.sheet(pictures)
        out = []
        for q, top, bottom in spans:
            conf = 95.0 if q == 2 else 30.0
            out.append(("Binairo", conf, 30, top + 2, 100, bottom - top - 4))
        return out

    vote = turn_text.picture_vote(pictures, read_words=read_words)
    assert vote.scores[2] == 7 * len(vote.words[2])  # 7 letters a word
    assert vote.scores[2] > 0 and vote.scores[0] == vote.scores[1] == vote.scores[3] == 0


def test_only_a_clear_lead_decides_and_a_smaller_one_guesses():
    t = turn_text
    sure = t.SURE_CHARS + t.SURE_MARGIN
    assert t.decide((0.0, 0.0, sure, 0.0)) == (2, 2)
    behind = 10.0  # a runner-up this far behind is outweighed only past SURE_LEAD times it plus SURE_MARGIN
    lead = t.SURE_LEAD * behind + t.SURE_MARGIN
    assert t.decide((behind, 0.0, lead + 1, 0.0)) == (2, 2)
    assert t.decide((behind, 0.0, lead - 1, 0.0)) == (None, 2)  # close behind: a guess, not sure
    guess = t.GUESS_CHARS + t.GUESS_MARGIN
    assert guess < t.SURE_CHARS
    assert t.decide((0.0, guess, 0.0, 0.0)) == (None, 1)
    assert t.decide((0.0, 0.0, 0.0, t.GUESS_CHARS - 1)) == (None, None)  # too few characters to guess
    assert t.decide((0.0, 0.0, 0.0, len("ZeroOne"))) == (None, 3)  # a title word alone: a guess
    assert t.decide((0.0, 0.0, len("Level"), 0.0)) == (None, 2)
    assert t.decide((0.0, 2.0, 0.0, len("ZeroOne"))) == (None, None)  # ... unless another turn reads something
    assert t.decide((0.0, 0.0, 0.0, 0.0)) == (None, None)
    assert t.decide((30.0, 0.0, 30.0, 0.0)) == (None, None)  # two turns read alike


def test_no_engine_leaves_the_orientation_as_it_was(monkeypatch):
    monkeypatch.setattr(turn_text, "_reader", lambda: None)
    page, quad = _instructions(seed=3, lines=2)
    found = orient.Orientation(None, 1.0, 0.5, 2)
    assert turn_text.refine(found, page, quad, N) is found
    sure = orient.Orientation(2, 1.0, -5.0, 30)
    assert turn_text.refine(sure, page, quad, N) is sure


@pytest.mark.parametrize("failure", [RuntimeError("tesseract failed"),
                                     ValueError("invalid literal for int() with base 10: 'x'")])
def test_an_engine_failing_or_answering_oddly_leaves_it_undecided(monkeypatch, failure):
    """Any failure of the optional OCR (the engine's own, or a cv2 or parse error) means no words."""
    def broken(picture):
        raise failure

    monkeypatch.setattr(turn_text, "_reader", lambda: broken)
    page, quad = _instructions(seed=3)
    found = orient.Orientation(None, 1.0, 0.5, 2)
    assert turn_text.refine(found, page, quad, N) is found


def test_a_tesseract_failing_on_its_version_check_counts_as_missing(monkeypatch):
    """pytesseract raises CalledProcessError for a program failing ``--version`` and SystemExit for one too
    old: both are a missing engine (a one-line error for ``--engine tesseract``, no words for the turn)."""
    import subprocess

    pytesseract = pytest.importorskip("pytesseract")
    from solver.errors import ScanSolveError
    from scanner.ocr import tesseract

    for failure in (subprocess.CalledProcessError(127, ["tesseract", "--version"]), SystemExit(1)):
        def version(failure=failure):
            raise failure

        monkeypatch.setattr(pytesseract, "get_tesseract_version", version)
        with pytest.raises(ScanSolveError):
            tesseract._pytesseract()


def test_unparsable_lines_of_the_words_table_are_left_out(monkeypatch):
    import subprocess
    from types import SimpleNamespace

    from scanner.ocr import tesseract

    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    table = "\n".join([header, "5\t1\t1\t1\t1\t1\t10\t20\t30\t12\t91.5\tEvery",
                        "5\t1\t1\t1\t1\t2\tx\t20\t30\t12\t90\tbroken", "5\t1\t1\t1\t1\t3\t50\t20\t9\t12\t-1\t "])
    fake = SimpleNamespace(pytesseract=SimpleNamespace(tesseract_cmd="tesseract"))
    monkeypatch.setitem(tesseract._engines, "eng", None)  # no engine in this process: the program is asked
    monkeypatch.setattr(tesseract, "tool", lambda: fake)
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: SimpleNamespace(returncode=0, stdout=table.encode(), stderr=b""))
    assert tesseract.read_words(np.full((40, 80), 255, np.uint8)) == [("Every", 91.5, 10, 20, 30, 12)]


def test_words_do_not_decide_surely_against_the_lines_shape(monkeypatch):
    """A clear lead of the words for a turn decides it, unless the lines' shape leans clearly the other way
    along that direction (an upside-down solution box beside little upright text): then it is the guess."""
    monkeypatch.setattr(turn_text, "decide", lambda scores: (2, 2))
    monkeypatch.setattr(turn_text, "picture_vote", lambda *a, **k: turn_text.Vote((0.0, 0.0, 40.0, 0.0), ((),) * 4))
    monkeypatch.setattr(turn_text, "_reader", lambda: (lambda picture: []))
    page, quad = _instructions(seed=3)
    leaning_up = orient.Orientation(None, 1.0, 1.0, 6, evidence=(orient.GUESS_Z + 0.5, 0.0))
    found = turn_text.refine(leaning_up, page, quad, N)
    assert (found.turn, found.read) == (None, 2)
    unclear = orient.Orientation(None, 1.0, 0.5, 6, evidence=(1.0, 0.2))
    found = turn_text.refine(unclear, page, quad, N)
    assert (found.turn, found.read) == (2, 2)
    assert turn_text.against_shape(leaning_up, 0) is False and turn_text.against_shape(leaning_up, 2) is True


def test_a_likely_turn_read_from_the_words_is_the_guess():
    found = orient.Orientation(None, 1.0, 3.0, 30, axis=0, read=3)
    assert orient.likely_turn(found) == 3
    assert not found.sure


def _no_tesseract() -> bool:
    from scanner.ocr import tesseract
    return tesseract.words_engine() is None


@pytest.mark.tesseract
@pytest.mark.parametrize("turn", [0, 1, 2, 3])
def test_tesseract_reads_two_lines_of_instructions_the_right_way_up(turn):
    """Two lines above the grid, too few for the lines' shapes (``orient``), are read the right way up."""
    if _no_tesseract():  # asked here, not when the tests are collected (it starts an engine)
        pytest.skip("neither tesserocr nor the tesseract program is installed")
    page, quad = _instructions(seed=5, lines=2)
    image, corners = _turned(page, quad, turn)
    found = turn_text.refine(orient.Orientation(None, 1.0, 0.0, 2), image, corners, N)
    assert found.read == turn, found


def test_a_missing_tesseract_is_asked_for_once_and_then_left_alone(monkeypatch):
    from solver.errors import ScanSolveError
    from scanner.ocr import tesseract

    asked = []

    def missing():
        asked.append(1)
        raise ScanSolveError("the tesseract engine needs the tesseract program")

    monkeypatch.setattr(tesseract, "tool", missing)
    monkeypatch.setitem(tesseract._engines, "eng", None)  # nor the engine in this process (tesserocr)
    monkeypatch.setattr(turn_text, "_MISSING", [])
    page, quad = _instructions(seed=4)
    found = orient.Orientation(None, 1.0, 0.5, 2)
    assert turn_text.refine(found, page, quad, N) is found
    assert turn_text.refine(found, page, quad, N) is found
    assert len(asked) == 1


def _dim_cut_page(*, angle: float = 4.0):
    """The instructions page on dim paper (below 0.72 of white), turned ``angle`` degrees and cut by the photo's
    edge just above the grid, so the edge runs obliquely through the instructions: (image, grid corners)."""
    page, quad = _instructions(seed=0)
    dim = (page.astype(np.float32) * 0.68).astype(np.uint8)
    h, w = dim.shape
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    image = cv2.warpAffine(dim, turn, (w, h), borderMode=cv2.BORDER_REPLICATE)
    corners = np.hstack([quad, np.ones((4, 1))]) @ turn.T
    top = int(corners[:, 1].min()) - 50  # through the lines of instructions above the grid
    return image[top:], corners - np.float64([0, top])


def test_lines_cut_by_the_photo_edge_on_dim_paper_are_found():
    """The frame beyond the photo's edge must not count as white paper: dim paper beside it read as ink, a
    band the lines the edge crosses joined (one run several lines tall, not read)."""
    image, corners = _dim_cut_page()
    pictures = turn_text.line_pictures(image, corners, N)
    assert len(pictures[0]) >= 4  # the lines below the one cut (a page frame warped on white found 2 here)


@pytest.mark.parametrize("axis", [0, 1])
def test_the_lines_the_page_mostly_runs_along_are_read_first_and_alone_when_they_decide(monkeypatch, axis):
    """``refine`` reads the lines along ``found.axis`` first (their two turns, one call); the other direction
    is read, in a second call, only when those do not decide surely, and then both directions' scores are
    weighed together."""
    page, quad = _instructions(seed=3)
    calls = []

    def fake_vote(pictures, *, read_words):
        calls.append(sorted(pictures))
        return turn_text.Vote(tuple(table.get(q, 0.0) if q in pictures else 0.0 for q in range(4)), ((),) * 4)

    monkeypatch.setattr(turn_text, "picture_vote", fake_vote)
    monkeypatch.setattr(turn_text, "_reader", lambda: (lambda picture: []))
    found = orient.Orientation(None, 1.0, 0.0, 2, axis=axis)
    table = {axis + 2: 40.0}  # a clear lead along the first direction: one call
    assert turn_text.refine(found, page, quad, N).turn == axis + 2
    assert calls == [[axis, axis + 2]]
    calls.clear()
    other = 1 - axis
    table = {axis: 4.0, other: 30.0}  # unsure along the first: the second is read and weighed with it
    assert turn_text.decide((4.0, 0.0, 0.0, 0.0)) == (None, None)
    assert turn_text.refine(found, page, quad, N).turn == other
    assert calls == [[axis, axis + 2], [other, other + 2]]


def _title_page(*, seed: int = 6, size: int = 56):
    """The body-print page of ``test_orient._page`` with a title in print ``size`` pixels high (56: five times
    as tall as the body print, a cell) just above the grid, where a puzzle's title stands: (page, grid
    corners)."""
    page, quad = _page(seed=seed)
    img = Image.fromarray(page.copy())
    draw = ImageDraw.Draw(img)
    x0, y0 = quad[0]
    draw.rectangle([x0, y0 - 2 * size, x0 + N * CELL, y0 - 4], fill=245)  # clear the body print there
    draw.text((x0 + 4, y0 - 6), "Binary Puzzle", font=ImageFont.truetype(FONT, size), fill=20, anchor="ld")
    return np.asarray(img), quad


@pytest.mark.parametrize("size", [56, 84])  # the title's letters about a cell tall, and half as tall again
def test_a_title_in_large_print_among_small_body_print_is_a_line_of_its_own(size):
    """Joined by the body print's glyph height, a title five times as tall was cut letter from letter or
    taken for several lines; it is found as one line of large print -- also when its letters stand taller
    than a cell (a big grid's title)."""
    page, quad = _title_page(size=size)
    frame = orient.frame(page, quad, N, cell=orient.FRAME_CELL)
    large, rest = turn_text.line_sets(orient.ink(frame, cell=orient.FRAME_CELL), cell=orient.FRAME_CELL, n=N)
    assert rest  # the body print's lines
    tall = [b for b in large if b[3] > 30]
    assert len(tall) == 1  # the title, whole
    x, y, w, h = tall[0]
    m = orient.MARGIN * orient.FRAME_CELL
    assert y + h < m < y + h + 40 and abs(x - m) < 30 and w > 4 * h  # just above the grid, from its left edge


def _line(text: str, *, ink: int, paper: int) -> tuple[np.ndarray, np.ndarray]:
    """(a line picture as ``_crop`` cuts it -- the line's box and PAD of its height around -- with ``text`` in
    ``ink`` on ``paper``, the letters' mask)."""
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 1.0, 3)
    pad = int(turn_text.PAD * h) + 2
    word = np.full((h + 2 * pad, w + 2 * pad), paper, np.uint8)
    cv2.putText(word, text, (pad, pad + h), cv2.FONT_HERSHEY_SIMPLEX, 1.0, ink, 3)
    return word, word == ink


def test_light_print_on_a_dark_bar_is_read_dark_on_light():
    """A title printed white on a coloured bar comes out as dark print on light paper, stretched to full
    contrast; grey print on a grey page is stretched too, and print in a shadow darker than half the page's
    contrast is not taken for light print."""
    word, letters = _line("TAKUZU", ink=230, paper=60)
    out = turn_text._clean(word)
    assert np.median(out) > 200  # the bar is paper
    assert np.mean(out[letters]) < 80  # the letters are ink
    word, letters = _line("Takuzu", ink=120, paper=170)  # grey letters on a grey page
    out = turn_text._clean(word)
    assert np.mean(out[letters]) < 40 and np.median(out[~letters]) > 215
    word, letters = _line("Takuzu", ink=40, paper=230)
    # most of the line in a shadow darker than halfway between its ink and the lit paper
    shade = np.interp(np.arange(word.shape[1]), [0, 0.4 * word.shape[1]], [1.0, 0.35])[None, :]
    out = turn_text._clean((word * shade).astype(np.uint8))
    assert np.mean(out[letters]) < 80 and np.median(out[~letters]) > 200


def test_the_words_are_read_without_a_second_reading_inverted(monkeypatch):
    """Every line read the wrong way up is of low confidence; Tesseract's default reads each such line again
    as light print on dark (``tessedit_do_invert``): the page's words are read without it, by the engine in
    this process (off for the call only, set back even when the call fails) and by the program alike."""
    import subprocess
    from types import SimpleNamespace

    from scanner.ocr import tesseract

    asked = []
    monkeypatch.setattr(turn_text, "_MISSING", [])
    monkeypatch.setattr(tesseract, "words_engine", lambda lang="eng": "program")
    monkeypatch.setattr(tesseract, "read_words", lambda picture, **options: asked.append(options) or [])
    turn_text._reader()(np.full((40, 80), 255, np.uint8))
    assert asked == [{"psm": turn_text.PSM, "invert": False}]
    monkeypatch.undo()

    class Engine:
        def __init__(self, ok):
            self.ok, self.calls = ok, []

        def SetPageSegMode(self, psm):  # noqa: N802 -- tesserocr's names
            pass

        def SetVariable(self, name, value):  # noqa: N802
            self.calls.append((name, value))

        def SetImageBytes(self, *args):  # noqa: N802
            pass

        def Recognize(self, timeout=0):  # noqa: N802
            self.calls.append("recognize")
            return self.ok

        def GetTSVText(self, page):  # noqa: N802
            return ""

        def Clear(self):  # noqa: N802
            pass

    picture = np.full((40, 80), 255, np.uint8)
    for ok in (True, False):
        engine = Engine(ok)
        monkeypatch.setitem(tesseract._engines, "eng", engine)
        try:
            tesseract.read_words(picture, invert=False)
        except RuntimeError:
            assert not ok
        assert engine.calls == [("tessedit_do_invert", "0"), "recognize", ("tessedit_do_invert", "1")]
        engine.calls.clear()
        tesseract.read_words(picture) if ok else None
        assert "tessedit_do_invert" not in str(engine.calls)  # the default call leaves the engine's setting alone

    commands = []
    fake = SimpleNamespace(pytesseract=SimpleNamespace(tesseract_cmd="tesseract"))
    monkeypatch.setitem(tesseract._engines, "eng", None)  # no engine in this process: the program is asked
    monkeypatch.setattr(tesseract, "tool", lambda: fake)
    monkeypatch.setattr(subprocess, "run", lambda command, **k: commands.append(command)
                        or SimpleNamespace(returncode=0, stdout=b"", stderr=b""))
    tesseract.read_words(picture, psm=11, invert=False)
    tesseract.read_words(picture, psm=11)
    assert commands[0][-3:] == ["-c", "tessedit_do_invert=0", "tsv"] and "-c" not in commands[1]
