"""Glyphs of one grid -> feature rows for the classifier.

A row holds the normalised glyph's pixels, a histogram of its gradient
orientations (HOG-like, on a 4 x 4 layout of blocks) and the glyph's
measurements, among them its ink contrast relative to the grid's typical
glyph contrast (the 90th percentile over the batch): faint show-through from
the other side of the page is as dark as a digit only when looked at alone.
"""
from __future__ import annotations

import numpy as np

from .glyph import SIDE, STATS, Glyph

BLOCKS = 4
BINS = 9
N_STATS = len(STATS) + 2
DIM = SIDE * SIDE + BLOCKS * BLOCKS * BINS + N_STATS


def _hog(images: np.ndarray) -> np.ndarray:
    """N x SIDE x SIDE -> N x (BLOCKS*BLOCKS*BINS) unsigned orientation histograms, L2-normalised."""
    gy, gx = np.gradient(images, axis=(1, 2))
    mag = np.hypot(gx, gy).ravel()
    # only the pixels with a gradient: adding a zero changes no sum (most of a glyph's square is flat), so
    # the angles of the others need not be taken
    at = np.flatnonzero(mag)
    ang = np.mod(np.arctan2(gy.ravel()[at], gx.ravel()[at]), np.pi)
    b = np.minimum((ang / np.pi * BINS).astype(np.int64), BINS - 1)
    n = images.shape[0]
    step = SIDE // BLOCKS
    rows = np.arange(SIDE) // step
    block = (np.minimum(rows, BLOCKS - 1)[:, None] * BLOCKS + np.minimum(rows, BLOCKS - 1)[None, :]).ravel()
    per_image = BLOCKS * BLOCKS * BINS
    out = np.zeros((n, per_image), np.float32)
    # one flat index per pixel (image, block, bin): summed in the pixels' order, as before
    np.add.at(out.reshape(-1), at // (SIDE * SIDE) * per_image + block[at % (SIDE * SIDE)] * BINS + b, mag[at])
    out /= np.linalg.norm(out, axis=1, keepdims=True) + 1e-6
    return out


def grid_reference(glyphs: list[Glyph]) -> float:
    """The grid's typical glyph contrast: the 90th percentile of the cells' peak contrast."""
    peaks = [g.stats[STATS.index("contrast")] for g in glyphs]
    return max(float(np.percentile(peaks, 90)), 0.05) if peaks else 1.0


def feature_rows(glyphs: list[Glyph], *, reference: float | None = None) -> np.ndarray:
    """N x DIM float32 features of ``glyphs`` (all from one grid)."""
    if not glyphs:
        return np.zeros((0, DIM), np.float32)
    ref = grid_reference(glyphs) if reference is None else reference
    images = np.stack([g.image for g in glyphs]).astype(np.float32)
    stats = np.stack([g.stats for g in glyphs]).astype(np.float32)
    s = {name: stats[:, i] for i, name in enumerate(STATS)}
    extra = np.stack([
        np.clip(s["height"], 0, 1.5), np.clip(s["width"], 0, 1.5), np.clip(s["aspect"], 0, 4) / 2,
        s["dx"], s["dy"], s["contrast"], np.log1p(np.maximum(s["snr"], 0)) / 4, s["fill"],
        np.minimum(s["parts"], 4) / 4, np.clip(s["area"], 0, 0.5) * 4,
        np.clip(s["contrast"] / ref, 0, 2), np.array([g.blank for g in glyphs], np.float32),
    ], axis=1)
    return np.hstack([images.reshape(len(glyphs), -1), _hog(images), extra]).astype(np.float32)
