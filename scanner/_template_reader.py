"""A stand-in digit reader used only while ``scanner.ocr`` (the real engines) is not importable.

Template matching against digits rendered from the installed TrueType fonts.
Same interface as the real engines: ``read(cells, *, alphabet)``.
"""
from __future__ import annotations

import glob

import cv2
import numpy as np

_SIZE = (20, 28)  # (w, h) of a normalised glyph


def _normalise(img: np.ndarray) -> np.ndarray | None:
    ink = img < 128
    if not ink.any():
        return None
    ys, xs = np.nonzero(ink)
    crop = (255 - img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]).astype(np.float32)
    h, w = crop.shape
    scale = min(_SIZE[1] / h, _SIZE[0] / max(w, h * 0.25))
    crop = cv2.resize(crop, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    out = np.zeros((_SIZE[1], _SIZE[0]), np.float32)
    y0, x0 = (_SIZE[1] - crop.shape[0]) // 2, (_SIZE[0] - crop.shape[1]) // 2
    out[y0:y0 + crop.shape[0], x0:x0 + crop.shape[1]] = crop[: _SIZE[1], : _SIZE[0]]
    out -= out.mean()
    return out / (np.linalg.norm(out) + 1e-6)


class TemplateReader:
    name = "template"

    def __init__(self) -> None:
        from PIL import Image, ImageDraw, ImageFont

        fonts = [f for f in sorted(glob.glob("/usr/share/fonts/truetype/**/*.ttf", recursive=True))
                 if "Mono" not in f and "Math" not in f][:40]
        self.templates: dict[str, list[np.ndarray]] = {}
        for path in fonts:
            try:
                font = ImageFont.truetype(path, 40)
            except OSError:
                continue
            for ch in "0123456789ABCDEFG":
                im = Image.new("L", (64, 64), 255)
                ImageDraw.Draw(im).text((10, 5), ch, font=font, fill=0)
                g = _normalise(np.array(im))
                if g is not None:
                    self.templates.setdefault(ch, []).append(g)

    def read(self, cells: list[np.ndarray], *, alphabet: str) -> list[list[tuple[str, float]]]:
        labels = [ch for ch in alphabet if ch in self.templates]
        bank = np.stack([t for ch in labels for t in self.templates[ch]]).reshape(-1, _SIZE[0] * _SIZE[1])
        owner = np.array([i for i, ch in enumerate(labels) for _ in self.templates[ch]])
        out = []
        for cell in cells:
            g = _normalise(cell)
            if g is None:
                out.append([(".", 1.0)])
                continue
            sims = bank @ g.reshape(-1)
            best = np.array([sims[owner == i].max() for i in range(len(labels))])
            p = np.exp((best - best.max()) * 25.0)
            p /= p.sum()
            order = np.argsort(-p)
            out.append([(labels[i], float(p[i])) for i in order[:4]])
        return out
