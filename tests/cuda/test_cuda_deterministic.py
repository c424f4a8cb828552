"""nbgrad.use_deterministic_algorithms(True) on the GPU: the scatters that add with atomics
(index_add_, index_put_(accumulate=True), put_, the backward of gather and indexing) take the
serial in-order loop, so their float sums are the CPU's, bit for bit."""
import numpy as np
import pytest

import nbgrad
from cuda_available import requires_cuda


@requires_cuda
def test_deterministic_scatter_takes_the_serial_loop(monkeypatch):
    from nbgrad.backends.cuda import indexing

    class Refuse:            # stands for the kernel: launched as kernel[blocks, threads](...)
        def __getitem__(self, launch):
            raise AssertionError("the atomic scatter ran under use_deterministic_algorithms(True)")

    src = np.float32([1e8, 1.0, -1e8, 0.5, 3.0, 1e-3])
    idx = [0, 0, 0, 1, 0, 1]
    want = nbgrad.zeros(2).index_add_(0, nbgrad.tensor(idx), nbgrad.tensor(src))
    monkeypatch.setattr(indexing, "_put_accumulate_atomic", Refuse())
    nbgrad.use_deterministic_algorithms(True)
    try:
        got = nbgrad.zeros(2, device="cuda").index_add_(0, nbgrad.tensor(idx, device="cuda"),
                                                        nbgrad.tensor(src, device="cuda"))
        x = nbgrad.tensor(src, device="cuda", requires_grad=True)
        x[nbgrad.tensor([0, 0, 2], device="cuda")].sum().backward()
    finally:
        nbgrad.use_deterministic_algorithms(False)
    assert got.cpu().tolist() == want.tolist()
    assert x.grad.cpu().tolist() == [2.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    with pytest.raises(AssertionError, match="atomic scatter ran"):
        nbgrad.zeros(2, device="cuda").index_add_(0, nbgrad.tensor(idx, device="cuda"),
                                                  nbgrad.tensor(src, device="cuda"))
