"""Light, paper and sensor effects shared by the camera and the scanner (float32 images in 0..1, (H, W, 3)).

Smooth fields (light, shadows, glare, mottling) are computed on a coarse
lattice and enlarged, which keeps a 12-megapixel photo to about a second.
"""
from __future__ import annotations

import cv2
import numpy as np

_COARSE = 192  # long side of the lattice smooth fields are computed on


def _coarse_xy(h: int, w: int) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    k = max(h, w) / _COARSE
    ch, cw = max(2, int(round(h / k))), max(2, int(round(w / k)))
    yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
    return xx * (w / cw), yy * (h / ch), (cw, ch)


def _grow(field: np.ndarray, h: int, w: int) -> np.ndarray:
    return cv2.resize(field.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)


def smooth_field(rng, h: int, w: int, *, cells: int = 4, amplitude: float = 1.0) -> np.ndarray:
    """A smooth random (h, w) field in about [-amplitude, amplitude] (bicubic upscale of a coarse noise)."""
    small = rng.uniform(-1, 1, (cells, cells)).astype(np.float32)
    _, _, (cw, ch) = _coarse_xy(h, w)
    return _grow(cv2.resize(small, (cw, ch), interpolation=cv2.INTER_CUBIC) * amplitude, h, w)


def ink_and_paper(img: np.ndarray, *, ink_black: float) -> np.ndarray:
    """Printed page (0 ink .. 1 paper) -> reflectance, in place: ink is never quite black."""
    img *= np.float32(1 - ink_black)
    img += np.float32(ink_black)
    return img


def texture(rng, h: int, w: int, *, amount: float) -> np.ndarray:
    """Paper fibres and mottling: an (h, w) gain around 1."""
    grain = normal(rng, (h, w)) * np.float32(amount)
    grain = cv2.GaussianBlur(grain, (0, 0), 0.8)
    grain += smooth_field(rng, h, w, cells=int(rng.integers(8, 20)), amplitude=amount * 0.8) + 1
    return grain


def illumination(rng, h: int, w: int, *, strength: float) -> np.ndarray:
    """Uneven light: a tilted gradient, a smooth blotch field and vignetting; (h, w) gain around 1."""
    xx, yy, (cw, ch) = _coarse_xy(h, w)
    xx, yy = xx / w, yy / h
    ang = rng.uniform(0, 2 * np.pi)
    grad = (np.cos(ang) * (xx - 0.5) + np.sin(ang) * (yy - 0.5)) * strength
    blotch = cv2.resize(rng.uniform(-1, 1, (3, 3)).astype(np.float32), (cw, ch), interpolation=cv2.INTER_CUBIC)
    vignette = 1 - rng.uniform(0.0, 0.35) * ((xx - 0.5) ** 2 + (yy - 0.5) ** 2) * 2
    return _grow((1 + grad + blotch * strength * 0.5) * vignette, h, w)


def shadow_band(rng, h: int, w: int) -> np.ndarray:
    """A soft shadow (a hand, the phone, a lamp arm): a half-plane or stripe; (h, w) gain <= 1."""
    xx, yy, _ = _coarse_xy(h, w)
    ang = rng.uniform(0, 2 * np.pi)
    d = np.cos(ang) * (xx - rng.uniform(0.2, 0.8) * w) + np.sin(ang) * (yy - rng.uniform(0.2, 0.8) * h)
    soft = rng.uniform(0.01, 0.08) * max(h, w)
    if rng.random() < 0.5:
        inside = 1 / (1 + np.exp(-d / soft))
    else:
        half = rng.uniform(0.05, 0.25) * max(h, w)
        inside = 1 / (1 + np.exp((np.abs(d) - half) / soft))
    return _grow(1 - rng.uniform(0.25, 0.6) * inside, h, w)


def glare(rng, h: int, w: int) -> np.ndarray:
    """A specular highlight: an additive soft blob, (h, w)."""
    xx, yy, _ = _coarse_xy(h, w)
    cx, cy = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
    rx, ry = rng.uniform(0.05, 0.3) * w, rng.uniform(0.05, 0.3) * h
    return _grow(rng.uniform(0.2, 0.7) * np.exp(-(((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2)), h, w)


def blur(rng, img: np.ndarray, *, sigma: float, motion: float = 0.0) -> np.ndarray:
    if sigma > 0.25:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    if motion >= 2:
        k = np.zeros((int(motion) | 1, int(motion) | 1), np.float32)
        k[k.shape[0] // 2, :] = 1
        m = cv2.getRotationMatrix2D((k.shape[1] / 2 - 0.5, k.shape[0] / 2 - 0.5), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, m, k.shape[::-1])
        img = cv2.filter2D(img, -1, k / max(k.sum(), 1e-6))
    return img


def soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """A wide Gaussian blur of a smooth (h, w) float32 field, done at reduced size (for shadows and glows)."""
    h, w = mask.shape
    k = max(1, int(sigma / 3))
    if k == 1:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    small = cv2.resize(mask, (max(1, w // k), max(1, h // k)), interpolation=cv2.INTER_AREA)
    return _grow(cv2.GaussianBlur(small, (0, 0), sigma / k), h, w)


def normal(rng, shape: tuple[int, ...]) -> np.ndarray:
    """Standard normal float32 noise (OpenCV's generator, seeded from ``rng`` so that seeds stay reproducible)."""
    cv2.setRNGSeed(int(rng.integers(2**31)))
    out = np.empty(shape, np.float32)
    cv2.randn(out, 0.0, 1.0)
    return out


def sensor(rng, img: np.ndarray, *, noise: float, sharpen: float) -> np.ndarray:
    """Phone processing: unsharp mask, shot + read noise (stronger in the dark; colour noise is blotchy)."""
    if sharpen > 0:
        img = cv2.addWeighted(img, 1 + sharpen, cv2.GaussianBlur(img, (0, 0), 1.5), -sharpen, 0)
    h, w = img.shape[:2]
    chroma = normal(rng, (max(1, h // 2), max(1, w // 2), 3))
    noise_img = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
    noise_img *= np.float32(0.6)
    noise_img += normal(rng, (h, w))[..., None]
    grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    scale = cv2.sqrt(np.maximum(grey, 0))
    scale += np.float32(0.5)
    noise_img *= scale[..., None]
    return cv2.scaleAdd(noise_img, float(noise), img)


def to_uint8(img: np.ndarray, *, gamma: float = 1.0) -> np.ndarray:
    out = cv2.convertScaleAbs(img, alpha=255.0)  # saturating, rounds; negatives clip to 0 after abs? see below
    out[img < 0] = 0
    if gamma != 1.0:
        lut = (np.power(np.arange(256) / 255.0, gamma) * 255 + 0.5).astype(np.uint8)
        out = cv2.LUT(out, lut)
    return out
