"""A batch is ranked at once (``engine.ranked_rows``, the classifier's) exactly as one cell is ranked by the
definition (``_one``), and ``engine.ranked`` (one cell) is that too."""
import numpy as np
import pytest

from scanner.ocr.engine import EMPTY, ranked, ranked_rows

CLASSES = list("0123456789ABCDEFG.")


def _one(scores: dict, alphabet: str) -> list:
    """A cell's ranking by the definition, one symbol at a time: each allowed symbol's score (0 when missing,
    NaN or negative) over their sum, best first, ties in the alphabet's order; empty when nothing scores."""
    labels = list(dict.fromkeys(alphabet)) + [EMPTY]
    vals = np.array([max(0.0, float(scores.get(s, 0.0))) for s in labels])
    total = vals.sum()
    vals = np.array([0.0] * (len(labels) - 1) + [1.0]) if total <= 0 else vals / total
    order = sorted(range(len(labels)), key=lambda i: (-vals[i], i))
    return [(labels[i], float(vals[i])) for i in order]


@pytest.mark.parametrize("alphabet", ["123456789ABCDEFG", "0123456789", "1234", "01", "123456789ABCDEFG0"])
def test_batch_ranking_is_the_per_cell_ranking(alphabet):
    rng = np.random.default_rng(7)
    probs = np.vstack([
        rng.dirichlet(np.full(len(CLASSES), 0.05), size=40),       # sure readings, many near-zero scores
        np.round(rng.random((40, len(CLASSES))), 1),               # ties: kept in the alphabet's order
        np.zeros((3, len(CLASSES))),                               # nothing scores: read as empty
    ])
    probs[rng.random(probs.shape) < 0.1] = 0.0
    got = ranked_rows(probs, CLASSES, alphabet)
    want = [_one(dict(zip(CLASSES, row)), alphabet) for row in probs]
    assert got == want
    assert [ranked(dict(zip(CLASSES, row)), alphabet) for row in probs] == want
    assert all(type(p) is float for reading in got for _, p in reading)
    assert [[repr(p) for _, p in r] for r in got] == [[repr(p) for _, p in r] for r in want]  # the very floats


def test_a_class_the_model_lacks_scores_zero():
    probs = np.array([[0.2, 0.8]])
    assert ranked_rows(probs, ["1", "."], "12") == [[(".", 0.8), ("1", 0.2), ("2", 0.0)]]
    assert ranked_rows(np.zeros((0, 2)), ["1", "."], "12") == []
