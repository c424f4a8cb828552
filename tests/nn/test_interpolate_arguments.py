"""F.interpolate's arguments read as PyTorch reads them: its Python's checks in its order
(input.dim() read first: a non-tensor is an AttributeError), then the sizes parsed where its
dispatch hands them to the op (upsample_nearest1d, ...), whose parser refuses a float size, a
bool size and a tensor scale factor.  Messages recorded from PyTorch 2.13."""
import numpy as np
import pytest

import nbgrad

F = nbgrad.nn.functional
X = nbgrad.ones(1, 1, 4)


@pytest.mark.parametrize("kw, shape", [
    (dict(size=nbgrad.tensor(8)), (1, 1, 8)), (dict(size=nbgrad.tensor([8])), (1, 1, 8)),
    (dict(size=np.int64(8)), (1, 1, 8)), (dict(size=(nbgrad.tensor(8),)), (1, 1, 8)),
    (dict(scale_factor=np.float64(2)), (1, 1, 8)), (dict(scale_factor=True), (1, 1, 4)),
])
def test_sizes_and_scales_the_op_takes(kw, shape):
    assert F.interpolate(X, **kw).shape == shape


@pytest.mark.parametrize("kw", [dict(size=8.0), dict(size=True), dict(size=nbgrad.tensor(8.0)),
                                dict(scale_factor=nbgrad.tensor(2.0)), dict(scale_factor="2")])
def test_sizes_and_scales_the_ops_parser_refuses(kw):
    # (all were taken: 8.0 as 8, True as a size of 1, a tensor or a string as a scale factor)
    with pytest.raises(TypeError, match=r"^upsample_nearest1d\(\) received an invalid combination of arguments"):
        F.interpolate(X, **kw)


def test_checks_in_pytorchs_order():
    # the rank before the sizes' values: a 2-D input with a tensor size is the rank's error
    with pytest.raises(NotImplementedError, match=r"^Input Error: Only 3D, 4D and 5D input Tensors supported "
                                                  r"\(got 2D\)"):
        F.interpolate(nbgrad.ones(1, 3), size=nbgrad.ones(2, 3))
    with pytest.raises(NotImplementedError, match="^Got 3D input, but bilinear mode needs 4D input$"):
        F.upsample_bilinear(X, [nbgrad.ones(2, 2, dtype=nbgrad.bool)])
    with pytest.raises(AttributeError, match="'int' object has no attribute"):
        F.interpolate(3, size=2)
    with pytest.raises(ValueError, match="^align_corners option can only be set with the interpolating modes"):
        F.interpolate((1, 2), size=2, align_corners=True)
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        F.interpolate(X, size=4, recompute_scale_factor=nbgrad.ones(2))


@pytest.mark.parametrize("scale", [float("inf"), 1e30])
def test_a_scale_whose_size_overflows_int64_is_refused(scale):
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without overflow$"):
        F.interpolate(X, scale_factor=scale)
