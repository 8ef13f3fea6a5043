"""The classifier's matrix products run on one OpenBLAS thread (``classifier.blas_alone``), with the same results."""
from __future__ import annotations

import numpy as np
import pytest

from scanner.ocr import classifier


@pytest.fixture
def blas_threads():
    """OpenBLAS's thread count setter (returns the count before), the count restored after the test; skips
    where numpy's BLAS is not an OpenBLAS that has it."""
    local = classifier._blas_local_threads()
    if local is None:
        pytest.skip("numpy's BLAS has no openblas_set_num_threads_local")
    before = local(1)
    local(before)
    yield local
    local(before)


def _count(local) -> int:
    """OpenBLAS's thread count now (read by setting it and setting it back)."""
    now = local(1)
    local(now)
    return now


def test_blas_is_alone_inside_and_as_before_after(blas_threads):
    blas_threads(2)
    with classifier.blas_alone():
        assert _count(blas_threads) == 1
        with classifier.blas_alone():  # nested: still alone, and the outer block restores
            assert _count(blas_threads) == 1
        assert _count(blas_threads) == 1
    assert _count(blas_threads) == 2
    with pytest.raises(ValueError), classifier.blas_alone():
        raise ValueError("fails inside")
    assert _count(blas_threads) == 2


def test_the_classifiers_products_are_the_same_alone(blas_threads):
    """Alone, the products are repeatable and equal the shared ones to float32 rounding: OpenBLAS's kernels may
    sum a row in another order when the rows are shared between threads, or when a row sits elsewhere in the
    batch (seen with OpenBLAS 0.3.31 on an AVX2 AMD EPYC), so the readings promise closeness, not bits."""
    blas_threads(2)
    model = classifier.load_model()
    rng = np.random.default_rng(5)
    for rows in (1, 12, 100, 300):
        x = rng.normal(0.0, 1.0, (rows, len(model.mean))).astype(np.float32)
        shared = model.probabilities(x)
        with classifier.blas_alone():
            alone = model.probabilities(x)
            again = model.probabilities(x)
        assert np.array_equal(alone, again)
        np.testing.assert_allclose(shared, alone, rtol=1e-4, atol=1e-7)


def test_overlapping_blocks_of_two_threads_restore_once_the_last_leaves(blas_threads):
    import threading

    blas_threads(2)
    inside, leave = threading.Event(), threading.Event()

    def other():
        with classifier.blas_alone():
            inside.set()
            leave.wait(5)

    t = threading.Thread(target=other)
    with classifier.blas_alone():
        t.start()
        assert inside.wait(5)
    assert _count(blas_threads) == 1  # this thread left, the other is still inside
    leave.set()
    t.join(5)
    assert _count(blas_threads) == 2


def test_a_forked_child_gets_its_own_lock():
    import os

    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    before = classifier._blas_lock
    pid = os.fork()
    if pid == 0:
        os._exit(0 if classifier._blas_lock is not before and not classifier._blas_lock.locked() else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and classifier._blas_lock is before
