"""adaptive_max_pool's window reduction as ATen's loop (`val > max || isnan(val)`): the first
largest value, but a window with NaNs takes its last NaN (values, indices and the gradient's
place, recorded from PyTorch 2.13); an output size it cannot allocate is the allocator's
RuntimeError at once (it took hours of Python before)."""
import math
import os

import numpy as np
import pytest

import nbgrad

F = nbgrad.nn.functional
NAN = math.nan


def test_a_window_with_nans_takes_its_last_nan():
    x = nbgrad.tensor([[[1.0, NAN, 3.0, NAN, 2.0]]], requires_grad=True)
    v, i = F.adaptive_max_pool1d(x, 1, return_indices=True)
    assert math.isnan(v.item()) and i.tolist() == [[[3]]]
    v.sum().backward()
    assert x.grad.tolist() == [[[0.0, 0.0, 0.0, 1.0, 0.0]]]
    # windows [0, 3) and [2, 5): the first has one NaN, the second a tie of 3s (the first wins)
    y = nbgrad.tensor([[[NAN, 1.0, 3.0, 3.0, 0.0]]], requires_grad=True)
    v, i = F.adaptive_max_pool1d(y, 2, return_indices=True)
    assert i.tolist() == [[[0, 2]]] and v.tolist()[0][0][1] == 3.0
    assert v.grad_fn.name() == "SqueezeBackward1"


def test_2d_windows_of_unequal_sizes_with_nans():
    a = np.array([[1.0, NAN, 0.5], [NAN, 2.0, 2.0], [0.0, 7.0, NAN]])
    x = nbgrad.tensor(a[None], requires_grad=True)
    v, i = F.adaptive_max_pool2d(x, (2, 2), return_indices=True)
    # windows rows [0,2) x cols [0,2): NaNs at 1 and 3, the last is 3; rows [0,2) x cols [1,3):
    # NaN at 1 only; rows [1,3) x cols [0,2): NaN at 3; rows [1,3) x cols [1,3): NaN at 8
    assert i.tolist() == [[[3, 1], [3, 8]]]
    v.backward(nbgrad.tensor([[[1.0, 2.0], [4.0, 8.0]]]))
    assert x.grad.tolist() == [[[0.0, 2.0, 0.0], [5.0, 0.0, 0.0], [0.0, 0.0, 8.0]]]
    assert v.grad_fn.name() == "AdaptiveMaxPool2DBackward0"
    w = nbgrad.tensor([[[-math.inf, -math.inf], [-math.inf, -math.inf]]])
    assert F.adaptive_max_pool2d(w, 1, return_indices=True)[1].tolist() == [[[0]]]


def test_an_output_it_cannot_allocate_is_the_allocators_error():
    x = nbgrad.randn(3, 3, dtype=nbgrad.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="DefaultCPUAllocator: can.t allocate memory: you tried to allocate "
                                           "51539607552 bytes"):
        F.adaptive_max_pool1d_with_indices(x, 2 ** 31)


@pytest.mark.skipif(os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1",
                    reason="about nbgrad's composition: PyTorch's kernels compute these outputs, for minutes")
@pytest.mark.parametrize("call", [
    lambda: F.adaptive_max_pool1d(nbgrad.randn(3, 1, dtype=nbgrad.float16), 2 ** 31, True),
    lambda: F.adaptive_max_pool3d(nbgrad.randn(1, 2, 2, 2), (1, 1, 2 ** 31)),
    lambda: F.adaptive_avg_pool3d(nbgrad.randn(1, 2, 2, 2), (1, 1, 2 ** 31)),
    lambda: F.adaptive_max_pool3d(nbgrad.randn(1, 2, 2, 2, dtype=nbgrad.float16), (1, 1, 2 ** 30)),
])
def test_composed_windows_past_the_memory_are_refused_before_the_work(call):
    # (nbgrad gathers every window: work PyTorch's kernels do in place is memory here; past
    # the machine's it is the allocator's error at once, where the process was killed)
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        call()
