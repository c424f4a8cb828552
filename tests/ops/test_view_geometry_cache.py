"""view's and reshape's geometry cache (nbgrad/ops/views.py, _view_geometry): a repeated call
gets what the first computed, and arguments that only compare equal to cached ones (a bool,
a float) still fail PyTorch's argument check."""
import numpy as np
import pytest

import nbgrad


def test_repeated_views_and_reshapes_keep_their_geometry_and_nodes():
    x = nbgrad.arange(24.0).reshape(2, 3, 4).requires_grad_()
    for _ in range(3):
        v = x.view(-1, 4)
        assert v.shape == (6, 4) and v.stride() == (4, 1) and type(v.grad_fn).__name__ == "ViewBackward0"
        r = x.transpose(0, 1).reshape(3, -1)          # not viewable: a copy
        assert r.is_contiguous() and type(r.grad_fn).__name__ == "UnsafeViewBackward0"
        a = x[:, :, :2].reshape(6, 2)                  # viewable but not contiguous: _reshape_alias
        assert a.stride() == (4, 1) and type(a.grad_fn).__name__ == "ReshapeAliasBackward0"
        assert x[:, :, :2].view(6, 2).grad_fn.name() == "ViewBackward0"
    np.testing.assert_array_equal(a.detach().numpy(), x.detach().numpy()[:, :, :2].reshape(6, 2))


@pytest.mark.parametrize("bad", [True, 24.0])
def test_an_argument_equal_to_a_cached_int_still_fails(bad):
    x = nbgrad.zeros(24)
    x.view(24)
    x.reshape(24)
    with pytest.raises(TypeError, match="argument 'size'"):
        x.view(bad)
    with pytest.raises(TypeError, match="argument 'shape'"):
        x.reshape(bad)


def test_a_view_that_cannot_be_made_fails_every_time():
    x = nbgrad.zeros(4, 6).t()
    for _ in range(2):
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            x.view(-1)
    assert x.reshape(-1).is_contiguous()


def test_sizes_as_one_sequence_and_numpy_ints():
    x = nbgrad.arange(12.0)
    assert x.view((3, 4)).shape == (3, 4) and x.view([4, 3]).shape == (4, 3)
    assert x.reshape(np.int64(2), 6).shape == (2, 6)
    assert x.view(2, 6).shape == (2, 6)
