"""Shared helpers of the tests of nbgrad.autograd.functional and nbgrad.func."""
import numpy as np

import nbgrad


def T(values, requires_grad=False):
    """A float64 tensor."""
    return nbgrad.tensor(np.array(values, dtype=np.float64), requires_grad=requires_grad)


def close(actual, expected, atol=1e-10, rtol=1e-7):
    """Values (tensor, nested tuple/list/dict of tensors) equal to expected (numbers or arrays)."""
    if isinstance(actual, dict):
        assert isinstance(expected, dict) and list(actual) == list(expected)
        for k in actual:
            close(actual[k], expected[k], atol, rtol)
        return
    if isinstance(actual, (tuple, list)):
        assert isinstance(expected, (tuple, list)) and len(actual) == len(expected), (actual, expected)
        for a, e in zip(actual, expected):
            close(a, e, atol, rtol)
        return
    assert isinstance(actual, nbgrad.Tensor), type(actual)
    expected = np.asarray(expected.detach().numpy() if isinstance(expected, nbgrad.Tensor) else expected,
                          dtype=np.float64)
    assert tuple(actual.shape) == expected.shape, (tuple(actual.shape), expected.shape)
    np.testing.assert_allclose(actual.detach().numpy(), expected, atol=atol, rtol=rtol)


def fd_jacobian(f, x, eps=1e-6):
    """Central finite-difference Jacobian of a tensor function of one float64 tensor, shape
    f(x).shape + x.shape (only forward values of f are used)."""
    x0 = x.detach().numpy().astype(np.float64)
    with nbgrad.no_grad():
        out_shape = tuple(f(T(x0)).shape)
        cols = []
        for k in range(x0.size):
            d = np.zeros(x0.size)
            d[k] = eps
            d = d.reshape(x0.shape)
            cols.append((f(T(x0 + d)).numpy() - f(T(x0 - d)).numpy()) / (2 * eps))
    return np.stack(cols, -1).reshape(out_shape + x0.shape)


def flags(tree):
    """requires_grad of every tensor in a nested structure, in order."""
    if isinstance(tree, dict):
        return [f for v in tree.values() for f in flags(v)]
    if isinstance(tree, (tuple, list)):
        return [f for v in tree for f in flags(v)]
    return [tree.requires_grad]
