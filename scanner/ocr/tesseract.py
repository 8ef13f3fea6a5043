"""Tesseract as a digit reader: the one module that talks to the external ``tesseract`` tool.

All the marked cells of a grid are normalised (``glyph.normalise``), drawn black
on white in rows of nine with gaps, and read in ONE call (hOCR with character
boxes, page segmentation mode 6, the alphabet as whitelist); every recognised symbol
is mapped back to its cell by the position of its box. Cells without a mark as
dark and tall as a glyph are "." without asking Tesseract. ``per_cell=True`` asks once per cell instead
(mode 10), the slow way, kept to measure the difference.

``read_words``: the words of a picture of text lines with their confidences and boxes, in one call
(``scanner.turn_text`` reads which way up a page is from them), by one Tesseract kept in the process (the
tesserocr package) or, without it, by the tesseract program.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import threading

import cv2
import numpy as np

from solver.errors import ExitCode, ScanSolveError

from .engine import EMPTY, Reading, check_alphabet, ranked
from .features import grid_reference
from .glyph import STATS, Glyph, normalise

#: Glyph tile side for Tesseract (the glyph's longer side is ``INNER`` of it) and the gap between tiles.
TILE = 56
INNER = 40
GAP = 16
PER_ROW = 9
#: Page segmentation: 6 = a block of text lines (the tiles' rows); 10 = a single character.
PSM_BATCH = 6
PSM_CELL = 10
#: Tesseract has no notion of "empty": a cell is sent only when its mark is at least this dark
#: relative to the grid's typical glyph and this tall relative to the cell.
MARK_CONTRAST = 0.5
MARK_HEIGHT = 0.25
#: Probability given to "." when Tesseract finds nothing where the cell has a mark.
MISSED_EMPTY = 0.5
#: seconds one batch call may take before the grid is given up as unreadable: a bound for a stuck program, far
#: above the ~1 s a 16 x 16 grid's batch takes
ENGINE_TIMEOUT = 30.0
_CHAR = re.compile(r"x_bboxes (\d+) (\d+) (\d+) (\d+); x_conf ([\d.]+)[^>]*>([^<]*)<")


def _pytesseract():
    try:
        import pytesseract
    except ImportError:
        raise ScanSolveError("the tesseract engine needs the pytesseract package (pip install pytesseract)",
                             exit_code=ExitCode.USAGE) from None
    try:
        pytesseract.get_tesseract_version()
    except (pytesseract.TesseractNotFoundError, OSError, subprocess.CalledProcessError, ValueError, SystemExit):
        # missing, failing on --version, or too old (pytesseract exits on a version it does not support)
        raise ScanSolveError("the tesseract engine needs the tesseract program (e.g. apt install tesseract-ocr); "
                             "or use --engine classifier", exit_code=ExitCode.USAGE) from None
    return pytesseract


def _tile(image: np.ndarray) -> np.ndarray:
    """Black glyph on white, binarised at half the glyph's ink strength."""
    return np.where(image > 0.5, 0, 255).astype(np.uint8)


def _scores(text: str, conf: float, alphabet: str) -> dict[str, float]:
    p = min(0.99, max(0.05, conf / 100.0))
    others = [s for s in list(alphabet) + [EMPTY] if s != text]
    scores = {s: (1.0 - p) / len(others) for s in others}
    scores[text] = p
    return scores


def _missed(alphabet: str) -> dict[str, float]:
    scores = {s: (1.0 - MISSED_EMPTY) / len(alphabet) for s in alphabet}
    scores[EMPTY] = MISSED_EMPTY
    return scores


def _is_mark(glyph: Glyph, reference: float) -> bool:
    """Worth asking Tesseract: about as dark as the grid's glyphs and at least a quarter cell tall."""
    if glyph.blank:
        return False
    stats = dict(zip(STATS, glyph.stats))
    return stats["contrast"] >= MARK_CONTRAST * reference and stats["height"] >= MARK_HEIGHT


class TesseractEngine:
    """Reads cells with Tesseract: one call per grid (or per cell with ``per_cell=True``)."""

    def __init__(self, *, per_cell: bool = False, lang: str = "eng"):
        self.tess = _pytesseract()
        self.per_cell = per_cell
        self.lang = lang
        self.name = "tesseract-per-cell" if per_cell else "tesseract"

    def read(self, cells: list[np.ndarray], *, alphabet: str) -> list[Reading]:
        check_alphabet(alphabet)
        glyphs = [normalise(np.asarray(c), side=TILE, inner=INNER) for c in cells]
        ref = grid_reference(glyphs)
        marked = [i for i, g in enumerate(glyphs) if _is_mark(g, ref)]
        scores: dict[int, dict[str, float]] = {}
        if marked:
            reader = self._read_each if self.per_cell else self._read_batch
            scores = reader([glyphs[i].image for i in marked], alphabet)
            scores = {marked[k]: v for k, v in scores.items()}
        out = []
        marked_set = set(marked)
        for i in range(len(cells)):
            if i not in marked_set:
                out.append(ranked({EMPTY: 1.0}, alphabet))
            else:
                out.append(ranked(scores.get(i) or _missed(alphabet), alphabet))
        return out

    def _chars(self, image: np.ndarray, psm: int, alphabet: str) -> list[tuple[str, float, float, float]]:
        """Tesseract's characters in ``image``: (symbol, confidence 0..100, centre x, centre y)."""
        config = f"--psm {psm} -c tessedit_char_whitelist={alphabet} -c hocr_char_boxes=1"
        try:
            hocr = self.tess.image_to_pdf_or_hocr(image, lang=self.lang, config=config, extension="hocr",
                                                  timeout=ENGINE_TIMEOUT)
        except (RuntimeError, OSError) as err:  # pytesseract's TesseractError, its timeout, a vanished program
            raise ScanSolveError(f"the tesseract engine failed: {str(err).strip()[:120] or type(err).__name__}",
                                 exit_code=ExitCode.UNREADABLE) from None
        out = []
        for x0, y0, x1, y1, conf, text in _CHAR.findall(hocr.decode("utf-8", "replace")):
            text = text.strip()
            if len(text) == 1 and text in alphabet:
                out.append((text, float(conf), (int(x0) + int(x1)) / 2, (int(y0) + int(y1)) / 2))
        return out

    def _read_batch(self, images: list[np.ndarray], alphabet: str) -> dict[int, dict[str, float]]:
        """Read all glyph images in one Tesseract call; index -> scores."""
        n = len(images)
        rows = (n + PER_ROW - 1) // PER_ROW
        pitch = TILE + GAP
        sheet = np.full((GAP + rows * pitch, GAP + min(n, PER_ROW) * pitch), 255, np.uint8)
        for k, img in enumerate(images):
            r, c = divmod(k, PER_ROW)
            y, x = GAP + r * pitch, GAP + c * pitch
            sheet[y:y + TILE, x:x + TILE] = _tile(img)
        best: dict[int, tuple[str, float]] = {}
        for text, conf, cx, cy in self._chars(sheet, PSM_BATCH, alphabet):
            r, c = int((cy - GAP / 2) // pitch), int((cx - GAP / 2) // pitch)
            k = r * PER_ROW + c
            if 0 <= c < PER_ROW and 0 <= k < n and conf > best.get(k, ("", -1.0))[1]:
                best[k] = (text, conf)
        return {k: _scores(text, conf, alphabet) for k, (text, conf) in best.items()}

    def _read_each(self, images: list[np.ndarray], alphabet: str) -> dict[int, dict[str, float]]:
        out: dict[int, dict[str, float]] = {}
        for k, img in enumerate(images):
            sheet = np.full((TILE + 2 * GAP, TILE + 2 * GAP), 255, np.uint8)
            sheet[GAP:GAP + TILE, GAP:GAP + TILE] = _tile(img)
            chars = self._chars(sheet, PSM_CELL, alphabet)
            if chars:
                text, conf, _, _ = max(chars, key=lambda ch: ch[1])
                out[k] = _scores(text, conf, alphabet)
        return out


@functools.lru_cache(maxsize=1)
def tool():
    """pytesseract, once the tesseract program was found (the answer kept once found); raises
    ``ScanSolveError`` when it is missing, fails or is too old (asked again on the next call)."""
    return _pytesseract()


#: seconds one ``read_words`` call may take before it is given up: a bound for a stuck engine, far above the
#: 0.3 .. 0.7 s a call on 16 stacked text lines took on a loaded 2-core machine
WORDS_TIMEOUT = 10.0
#: where Debian's tesseract-ocr-eng (and other systems' packages) keep the models, tried after TESSDATA_PREFIX
TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                 "/usr/share/tessdata", "/usr/local/share/tessdata", "/opt/homebrew/share/tessdata")
_LANGS_AT = re.compile(r'languages in "([^"]+)"')
LIST_TIMEOUT = 10.0  #: seconds ``tesseract --list-langs`` may take (it answers in ~0.1 s): a bound for a stuck program


def tessdata_dir(lang: str = "eng") -> str | None:
    """The first folder ``tessdata_dirs`` names, None when none holds ``lang``'s model."""
    return next(iter(tessdata_dirs(lang)), None)


def tessdata_dirs(lang: str = "eng") -> list[str]:
    """The folders holding ``lang``'s model (``eng.traineddata``), in the order they are tried: TESSDATA_PREFIX
    (the folder or its parent), the known package folders (``TESSDATA_DIRS``), then the one the tesseract
    program names (``tesseract --list-langs``, asked only when none of the others holds it)."""
    prefix = os.environ.get("TESSDATA_PREFIX")
    tried = ([prefix, os.path.join(prefix, "tessdata")] if prefix else []) + list(TESSDATA_DIRS)
    found = [folder for folder in dict.fromkeys(tried) if os.path.isfile(os.path.join(folder, f"{lang}.traineddata"))]
    if found:
        return found
    try:
        done = subprocess.run(["tesseract", "--list-langs"], capture_output=True, timeout=LIST_TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return []
    named = _LANGS_AT.search(done.stdout.decode("utf-8", "replace") + done.stderr.decode("utf-8", "replace"))
    if named and os.path.isfile(os.path.join(named.group(1), f"{lang}.traineddata")):
        return [named.group(1)]
    return []


# The words are read by ONE Tesseract kept in this process (the tesserocr package, which holds the library):
# no program started and no model loaded per call (about 75 ms of the subprocess's cost on a blank picture), no
# PNG written and parsed, and the library lets go of Python's lock while it reads, so a thread may read the
# words while another goes on. The tesseract program is the fallback when tesserocr is missing or fails to start.
# The wheel's library has no OpenMP; one built with it would read on several threads unless OMP_THREAD_LIMIT=1 is
# in the environment (the program is always run so): it is not set from here, as changing the environment while
# other threads run is not safe.
_lock = threading.Lock()  #: one call at a time uses the engine (tesserocr's engines are not thread-safe)
_engines: dict = {}  #: lang -> the tesserocr engine, or None when it could not be made (not tried again)
_forsaken: list = []  #: engines a forked child inherited (maybe mid-read): never used nor freed there


def _forget_after_fork() -> None:
    global _lock
    _lock = threading.Lock()
    _forsaken.extend(_engines.values())
    _engines.clear()


os.register_at_fork(after_in_child=_forget_after_fork)


def _in_process(lang: str):
    """This process's tesserocr engine for ``lang`` (made on first use; with ``_lock`` held), or None when the
    package, its library or the model is missing or the engine fails to start."""
    if lang not in _engines:
        engine = None
        try:
            import tesserocr
        except Exception:  # noqa: BLE001 -- missing or broken: the program is asked instead
            tesserocr = None
        for folder in tessdata_dirs(lang) if tesserocr is not None else ():
            try:  # a broken model in one folder (TESSDATA_PREFIX, say) leaves the next one to try
                engine = tesserocr.PyTessBaseAPI(path=os.path.join(folder, ""), lang=lang)
                break
            except Exception:  # noqa: BLE001 -- failing to start: the next folder, else the program
                engine = None
        _engines[lang] = engine
    return _engines[lang]


def words_engine(lang: str = "eng") -> str | None:
    """What ``read_words`` reads with: "tesserocr" (in this process), "program" (the tesseract program), or
    None when neither is installed."""
    if _engines.get(lang) is not None:  # made already: no wait for a read in another thread
        return "tesserocr"
    with _lock:
        if _in_process(lang) is not None:
            return "tesserocr"
    try:
        tool()
    except ScanSolveError:
        return None
    return "program"


def read_words(picture: np.ndarray, *, psm: int = PSM_BATCH, lang: str = "eng",
               invert: bool = True) -> list[tuple[str, float, int, int, int, int]]:
    """The words Tesseract reads in ``picture`` (h, w) uint8 (dark text on light paper), in ONE call:
    [(text, confidence 0..100, x, y, w, h), ...] with each word's box in ``picture``'s pixels; a line of the
    engine's table that does not parse is left out. Read by this process's own engine (``_in_process``), else
    by the tesseract program (``_read_by_program``). Raises ``ValueError`` for a picture that is not gray,
    ``ScanSolveError`` when neither engine is installed, ``RuntimeError`` when the engine fails or times out
    (``WORDS_TIMEOUT``: in this process it bounds the recognition, not the page layout analysis before it --
    a few ms on the small pictures read here), ``OSError`` when the program cannot be started.
    ``invert=False``: a line read with low confidence is not read again as light print on dark
    (Tesseract's ``tessedit_do_invert``), which costs a second recognition of every such line."""
    picture = np.ascontiguousarray(picture, dtype=np.uint8)
    if picture.ndim != 2:
        raise ValueError(f"a gray picture is read, not one of shape {picture.shape}")
    if picture.size == 0:
        return []  # nothing to read (the library would only complain on stderr)
    with _lock:
        engine = _in_process(lang)
        if engine is not None:
            height, width = picture.shape
            engine.SetPageSegMode(psm)
            try:
                if not invert:  # for this call only: Tesseract's default is set back after it, whatever happens
                    engine.SetVariable("tessedit_do_invert", "0")
                engine.SetImageBytes(picture.tobytes(), width, height, 1, width)
                if not engine.Recognize(timeout=int(WORDS_TIMEOUT * 1000)):
                    raise RuntimeError("tesseract failed or timed out")
                return _words_of(engine.GetTSVText(0))
            finally:
                engine.Clear()
                if not invert:
                    engine.SetVariable("tessedit_do_invert", "1")
    return _read_by_program(picture, psm=psm, lang=lang, invert=invert)


def _read_by_program(picture: np.ndarray, *, psm: int, lang: str,
                     invert: bool = True) -> list[tuple[str, float, int, int, int, int]]:
    """``read_words`` by the tesseract program: the picture piped in as PNG, the program run on one thread
    (OMP_THREAD_LIMIT=1)."""
    tess = tool()
    ok, png = cv2.imencode(".png", picture)
    if not ok:
        raise RuntimeError("could not encode the picture for tesseract")
    command = [tess.pytesseract.tesseract_cmd, "stdin", "stdout", "-l", lang, "--psm", str(psm)]
    command += ([] if invert else ["-c", "tessedit_do_invert=0"]) + ["tsv"]
    try:
        done = subprocess.run(command, input=png.tobytes(), capture_output=True, timeout=WORDS_TIMEOUT,
                              env=dict(os.environ, OMP_THREAD_LIMIT="1"))
    except subprocess.TimeoutExpired:
        raise RuntimeError("tesseract timed out") from None
    if done.returncode != 0:
        raise RuntimeError("tesseract failed: " + done.stderr.decode("utf-8", "replace")[-200:])
    return _words_of(done.stdout.decode("utf-8", "replace"))


def _words_of(table: str) -> list[tuple[str, float, int, int, int, int]]:
    """The words of Tesseract's TSV ``table`` (level 5 lines; the header and lines that do not parse left out)."""
    out = []
    for line in table.splitlines():
        fields = line.split("\t")
        if len(fields) < 12 or fields[0] != "5":  # level 5: a word
            continue
        try:
            text, conf = fields[11].strip(), float(fields[10])
            x, y, w, h = (int(v) for v in fields[6:10])
        except ValueError:
            continue
        if text and conf >= 0:
            out.append((text, conf, x, y, w, h))
    return out
