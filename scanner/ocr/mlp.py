"""A small multilayer perceptron in numpy: ReLU hidden layers, softmax output.

The model file (``.npz``) holds the input standardisation (``mean``, ``scale``),
the layers ``w0, b0, w1, b1, ...`` (stored as float16 to keep it small) and the
class labels (``classes``, one string of single-character labels).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class MLP:
    mean: np.ndarray
    scale: np.ndarray
    weights: list[np.ndarray]
    biases: list[np.ndarray]
    classes: str
    temperature: float = 1.0

    @classmethod
    def new(cls, dims: list[int], classes: str, *, mean: np.ndarray, scale: np.ndarray,
            rng: np.random.Generator) -> "MLP":
        ws = [(rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32) for a, b in zip(dims, dims[1:])]
        bs = [np.zeros(b, np.float32) for b in dims[1:]]
        return cls(mean.astype(np.float32), scale.astype(np.float32), ws, bs, classes)

    def logits(self, x: np.ndarray) -> np.ndarray:
        """N x D features -> N x C logits."""
        h = (x - self.mean) * self.scale
        for w, b in zip(self.weights[:-1], self.biases[:-1]):
            h = np.maximum(h @ w + b, 0.0)
        return h @ self.weights[-1] + self.biases[-1]

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """N x D features -> N x C class probabilities (rows sum to 1)."""
        z = self.logits(x) / self.temperature
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def save(self, path: Path, **meta) -> None:
        arrays = {"mean": self.mean.astype(np.float32), "scale": self.scale.astype(np.float32),
                  "classes": np.array(self.classes), "temperature": np.float32(self.temperature)}
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            arrays[f"w{i}"] = w.astype(np.float16)
            arrays[f"b{i}"] = b.astype(np.float32)
        for k, v in meta.items():
            arrays[f"meta_{k}"] = np.array(v)
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: Path) -> "MLP":
        with np.load(path, allow_pickle=False) as z:
            n = sum(1 for k in z.files if k.startswith("w"))
            return cls(z["mean"], z["scale"], [z[f"w{i}"].astype(np.float32) for i in range(n)],
                       [z[f"b{i}"] for i in range(n)], str(z["classes"]), float(z["temperature"]))


def train(model: MLP, x: np.ndarray, y: np.ndarray, *, epochs: int, rng: np.random.Generator,
          batch: int = 256, lr: float = 2e-3, weight_decay: float = 1e-4, smoothing: float = 0.05,
          log=None) -> MLP:
    """Fit ``model`` to features ``x`` (N x D) and class indices ``y`` with Adam and cross-entropy."""
    params = model.weights + model.biases
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    b1, b2, eps = 0.9, 0.999, 1e-8
    n_cls = len(model.classes)
    xs = ((x - model.mean) * model.scale).astype(np.float32)
    step = 0
    n_layers = len(model.weights)
    for epoch in range(epochs):
        rate = lr * 0.5 * (1 + np.cos(np.pi * epoch / epochs))
        order = rng.permutation(len(xs))
        total = 0.0
        for start in range(0, len(xs), batch):
            idx = order[start:start + batch]
            h = [xs[idx]]
            for w, b in zip(model.weights[:-1], model.biases[:-1]):
                h.append(np.maximum(h[-1] @ w + b, 0.0))
            z = h[-1] @ model.weights[-1] + model.biases[-1]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            target = np.full_like(p, smoothing / n_cls)
            target[np.arange(len(idx)), y[idx]] += 1.0 - smoothing
            total += float(-(target * np.log(p + 1e-9)).sum())
            g = (p - target) / len(idx)
            gw, gb = [None] * n_layers, [None] * n_layers
            for i in range(n_layers - 1, -1, -1):
                gw[i] = h[i].T @ g + weight_decay * model.weights[i]
                gb[i] = g.sum(axis=0)
                if i:
                    g = (g @ model.weights[i].T) * (h[i] > 0)
            step += 1
            for j, (p_, g_) in enumerate(zip(params, gw + gb)):
                m1[j] = b1 * m1[j] + (1 - b1) * g_
                m2[j] = b2 * m2[j] + (1 - b2) * g_ * g_
                p_ -= rate * (m1[j] / (1 - b1 ** step)) / (np.sqrt(m2[j] / (1 - b2 ** step)) + eps)
        if log:
            log(f"epoch {epoch + 1}/{epochs}: loss {total / len(xs):.4f}")
    return model
