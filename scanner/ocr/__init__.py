"""Digit-reading engines: cell images in, ranked candidate labels with probabilities out.

    from scanner.ocr import get_engine
    engine = get_engine("auto")
    readings = engine.read(cells, alphabet="123456789")

``readings[i]`` is a list of ``(label, probability)`` pairs, best first, over
the alphabet's symbols and "." (empty). Engines: ``classifier`` (in-process
MLP, the default), ``tesseract`` (one Tesseract call per grid) and ``fake``
(for tests).
"""
from __future__ import annotations

from .engine import EMPTY, Engine, Reading, ranked

#: The engine "auto" stands for (chosen by measured accuracy and speed: see evaluate_cells).
AUTO = "classifier"
NAMES = ("auto", "classifier", "tesseract", "fake")


def get_engine(name: str = "auto", **options) -> Engine:
    """The engine called ``name`` (one of ``NAMES``); ``options`` go to its constructor."""
    if name == "auto":
        name = AUTO
    if name == "classifier":
        from .classifier import ClassifierEngine
        return ClassifierEngine(**options)
    if name == "tesseract":
        from .tesseract import TesseractEngine
        return TesseractEngine(**options)
    if name == "fake":
        from .fake import FakeEngine
        return FakeEngine(**options)
    raise ValueError(f"unknown OCR engine {name!r}; known: {', '.join(NAMES)}")


__all__ = ["EMPTY", "Engine", "Reading", "ranked", "get_engine", "NAMES", "AUTO"]
