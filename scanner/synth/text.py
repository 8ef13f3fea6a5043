"""Filler for the newspaper around the puzzles: pseudo-words, headlines, puzzle titles and instructions.

The words are made from random syllables (no copied text); from arm's length
they read as a column of print, which is all the reader ever sees of them.
"""
from __future__ import annotations

import numpy as np

_SYLLABLES = (
    "ka ter in son mo ra li an de ber ung ver sta pro gen tal men or el ist con ri ve na for pe lu mar "
    "the ent ion al re ste ha wo ne sch ei ter to mi lo sa ti dor gra ble vi en pa ro ce mu tes ar ge"
).split()

TITLES = {
    "sudoku": ("SUDOKU", "Sudoku", "Su Doku", "SUDOKU extra", "Sudoku-Zeit", "Le sudoku", "Zahlenrätsel"),
    "futoshiki": ("FUTOSHIKI", "Futoshiki", "Greater Than", "Ungleich", "Inequality", "Futoshiki Puzzle"),
    "takuzu": ("TAKUZU", "Takuzu", "Binairo", "BINERO", "Binary Puzzle", "Zero-One", "Tohu-wa-Vohu"),
}
LEVELS = {
    "easy": ("Easy", "EASY", "leicht", "facile", "★", "Level 1", "Gentle"),
    "medium": ("Medium", "MEDIUM", "mittel", "moyen", "★★", "Level 2", "Moderate"),
    "hard": ("Hard", "HARD", "schwierig", "difficile", "★★★", "Level 3", "Tough", "Fiendish"),
}
RULES = {
    "sudoku": "Fill the grid so that every row, every column and every {box} box holds each number from 1 to {n} exactly once.",
    "futoshiki": "Place the numbers 1 to {n} once in every row and every column. A sign between two squares says "
                 "which of the two numbers is greater: it points at the smaller one.",
    "takuzu": "Fill every empty square with {sym}. No more than two equal neighbours in a line; every row and column "
              "holds as many of one as of the other, and no two rows or two columns are the same.",
}


def word(rng) -> str:
    return "".join(_SYLLABLES[int(i)] for i in rng.integers(len(_SYLLABLES), size=int(rng.integers(1, 4))))


def sentence(rng, words: int) -> str:
    ws = [word(rng) for _ in range(words)]
    for i in range(1, len(ws) - 1):
        if rng.random() < 0.08:
            ws[i] += ","
    ws[0] = ws[0].capitalize()
    return " ".join(ws) + "."


def paragraph(rng) -> str:
    return " ".join(sentence(rng, int(rng.integers(5, 16))) for _ in range(int(rng.integers(2, 7))))


def headline(rng) -> str:
    return " ".join(word(rng).capitalize() if rng.random() < 0.5 else word(rng) for _ in range(int(rng.integers(2, 6))))


def wrap(text: str, font, width: float) -> list[str]:
    """Greedy line breaking of ``text`` to ``width`` pixels in ``font``."""
    lines, line = [], ""
    for w in text.split():
        trial = f"{line} {w}" if line else w
        if line and font.getlength(trial) > width:
            lines.append(line)
            line = w
        else:
            line = trial
    if line:
        lines.append(line)
    return lines


def justify(line: str, font, width: float) -> str:
    """``line`` with spaces added so that it comes close to ``width`` pixels (newspaper justification)."""
    words = line.split(" ")
    gaps = len(words) - 1
    if gaps <= 0:
        return line
    space = max(1.0, font.getlength(" "))
    extra = int((width - font.getlength(line)) / space)
    if extra <= 0 or extra > gaps * 4:
        return line
    out = words[0]
    for i, w in enumerate(words[1:]):
        out += " " * (1 + extra // gaps + (1 if i < extra % gaps else 0)) + w
    return out
