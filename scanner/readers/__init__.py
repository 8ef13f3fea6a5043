"""Kind readers: what is particular to reading one puzzle kind from a found grid.

``scanner.photo`` owns everything the kinds share -- loading, finding grid
candidates, revising the reading by the rules, solving, drawing, debug
pictures. A *reader* owns the rest, behind this protocol (one module per kind,
``scanner/readers/<kind>.py``, exposing ``READER``)::

    class Reader(Protocol):
        kind: str                      # "sudoku", "futoshiki", "takuzu" (solver.kinds name)
        def accepts(self, candidate) -> bool
        def read(self, loaded, candidate, engine, *, timer) -> list[GridReading]
        def make_puzzle(self, grid, relations=(), *, source="", index=0) -> Puzzle
        def labels(self, puzzle, solution) -> dict[(row, col), str]
        # optional:
        def find(self, small) -> list[grid_find.Candidate]
        takes_floor: bool              # read(..., floor=None) takes a floor (below)

- ``accepts(candidate)``: cheap, by the candidate's cell count
  (``candidate.size``) and nothing else costly; the candidate is a
  ``grid_find.Candidate`` found in the detection copy ``small``.
- ``read(...)``: ``loaded`` is the ``scanner.load.Loaded`` photo: ``small``
  (h, w, 3) uint8 BGR upright detection copy, ``scale`` = small / full, and
  ``image`` the full-resolution picture (decoded on first access: touch it
  only when the detection copy is too coarse to read); returns the plausible
  interpretations as ``GridReading`` objects (below): usually one, several
  when the reader is unsure how the grid is turned; an empty list when the
  candidate is not this kind after all. Time sub-stages with
  ``timer.stage("mesh")`` etc. ``engine`` is a ``scanner.ocr`` engine.
- ``make_puzzle(grid, relations)``: the ``solver.puzzle.Puzzle`` for a grid of
  givens (n x n, None empty) and a tuple of ``Relation`` (Futoshiki only).
- ``labels(puzzle, solution)``: the text drawn into each cell the photo
  leaves empty (e.g. Sudoku 16x16 draws "A".."G" for 10..16).
- ``find(small)`` (optional): extra grid candidates the ruled-line finder
  misses (e.g. Futoshiki boxes with gaps between them); they are read by that
  reader alone (a layout the ruled-line finder cannot see is its kind's own:
  no Sudoku or Takuzu is printed as separate boxes).
- ``takes_floor`` (optional, true): ``read`` takes ``floor`` (a log-likelihood
  or None). A reader read after another reader's reading of the grid has
  solved is told ``floor`` = that reading's score less ``revise.RIVAL_MARGIN``:
  no reading below it can matter (it is neither revised nor the likeliest), so
  the reader may return none once it knows every reading it would return
  falls below (e.g. from the cells read so far: each cell's log p is <= 0) and
  skip what is left (the page's text for the turn, say).

Choosing among interpretations (every accepting reader's, with ``--kind auto``
every reader present): each is revised by the rules (``scanner.revise``);
among those that end with exactly one solution the most likely one wins --
likelihood = sum of log p of every cell's (pair's) chosen candidate. When a
second interpretation with a different solution comes within
``revise.RIVAL_MARGIN`` of it, the photo is unreadable. Interpretations are
revised most likely first and the rest skipped once none can catch up.
"""
from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from typing import Callable, Optional, Protocol

import numpy as np

from solver.puzzle import Cell, Grid, Puzzle, Relation

from ..rectify import Mesh

Candidates = list[tuple[Optional[object], float]]  #: (value or None, probability), best first

#: Kinds with a reader module (``scanner/readers/<kind>.py``); missing modules are skipped.
KINDS = ("sudoku", "futoshiki", "takuzu")


@dataclass
class GridReading:
    """One candidate read as one kind.

    - ``mesh``: line crossings (n + 1, n + 1, 2) (x, y) in FULL-resolution pixels, indexed so that
      ``points[0, 0]`` is the printed puzzle's top-left (i.e. already turned upright);
    - ``turn``: quarter turns (0..3) the printed puzzle is turned clockwise in the image;
    - ``cands``: n x n per-cell candidates ``[(value or None, p), ...]``, best first, upright;
    - ``relations``: per-pair relation candidates ``[((cell_a, cell_b), [("<" | ">" | None, p), ...]), ...]``
      (a is the upper/left cell; None = no sign), upright; empty for kinds without relations;
    - ``fit``: how confidently the symbols read (mean log-probability of the best candidate over the
      cells with a symbol; 0 is perfect), for diagnostics;
    - ``picture``: the dewarped upright grid (gray), ``cell`` its pixels per cell (debug pictures);
    - ``filled``: (optional) n x n probabilities, from the ink alone, that a cell holds a mark; a solved
      reading that leaves empty a cell surely marked, after corrections, is not trusted;
    - ``glyphs``: labels the overlay draws as a shape in this print's style (``overlay.SHAPES`` names), e.g. a
      Takuzu printed with circles ``{"0": "white circle", "1": "black circle"}``; empty = draw the text;
    - ``turn_known``: False when neither the print nor the page tells which way up the puzzle is (circles look
      the same every way up): ``turn`` is then a guess, the likeliest turn (circles: ``orient.likely_turn``, the
      photo's own orientation unless the page's text leans clearly another way; digits that read the same upside
      down: the likelier reading; two turns' readings that both solve to one answer in the photo: the photo's
      own orientation, ``scanner.photo.same_in_photo``); the overlay is right either way.
    - ``settle``: (optional) when the turn is still to be told by something costly that changes neither the
      likelihood, nor whether the reading solves, nor the overlay (a circle print's page words): a callable
      ``settle() -> GridReading`` giving this reading in its settled turn. ``scanner.photo`` calls it for a reading
      that solves in its provisional turn (then revised again as settled), or that is returned unsolved, so
      the cost is paid only for readings that are the answer or its rival; None = settled.
    """

    mesh: Mesh
    turn: int
    cands: list
    fit: float
    picture: np.ndarray
    cell: int
    relations: list = field(default_factory=list)
    glyphs: dict = field(default_factory=dict)
    boxes: Optional[np.ndarray] = None  #: (n, n, 4, 2) full-res quads to draw each upright cell's label in, when the printed boxes are not the mesh's cells (Futoshiki boxes with gaps); None = the mesh's cells
    turn_known: bool = True
    filled: Optional[np.ndarray] = None  #: (n, n) how sure the ink is that each cell holds a mark (optional)
    settle: Optional[Callable[[], "GridReading"]] = None  #: this reading in its settled turn (see above); None = settled

    @property
    def size(self) -> int:
        return self.mesh.n

    def log_likelihood(self) -> float:
        """Sum of log p of every cell's and pair's best candidate (the raw reading's likelihood)."""
        pairs = sum(math.log(max(options[0][1], 1e-12)) for _, options in self.relations)
        return cells_log_likelihood(self.cands) + pairs


def turned_grid(grid: list, quarter: int) -> list:
    """An n x n list of lists (a cell's value or candidates each) as seen after turning the picture ``quarter``
    x 90 degrees clockwise."""
    cells = np.empty((len(grid), len(grid)), dtype=object)
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            cells[r, c] = value
    return np.rot90(cells, k=-quarter).tolist()


def cells_log_likelihood(cands) -> float:
    """Sum of log p of every cell's best candidate in ``cands`` (n x n, best first): the cells' part of
    ``GridReading.log_likelihood`` (the same in every turn of the grid)."""
    return sum(math.log(max(cell[0][1], 1e-12)) for row in cands for cell in row)


class Reader(Protocol):
    kind: str

    def accepts(self, candidate) -> bool: ...

    def read(self, loaded, candidate, engine, *, timer) -> list[GridReading]: ...

    def make_puzzle(self, grid: Grid, relations: tuple[Relation, ...] = (), *, source: str = "",
                    index: int = 0) -> Puzzle: ...

    def labels(self, puzzle: Puzzle, solution: Grid) -> dict[Cell, str]: ...


def get(kind: str) -> Reader:
    """The reader of ``kind``; ImportError when that kind has no reader (yet)."""
    if kind not in KINDS:
        raise ImportError(f"no photo reader for {kind!r}")
    module = f"{__name__}.{kind}"
    try:
        return importlib.import_module(module).READER
    except ModuleNotFoundError as err:
        if err.name == module:  # not written yet; a broken reader still raises
            raise ImportError(f"no photo reader for {kind!r} yet") from None
        raise


def active(kind: str = "auto") -> list[Reader]:
    """The readers ``--kind`` selects: one, or every reader present for ``auto``."""
    if kind != "auto":
        return [get(kind)]
    out = []
    for name in KINDS:
        try:
            out.append(get(name))
        except ImportError:
            continue
    return out
