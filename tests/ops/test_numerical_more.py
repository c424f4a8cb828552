"""torch.gradient, torch.histogramdd, torch.vander and the native_* normalisation / dropout
ops: values and dtypes against PyTorch 2.13's (recorded here as literals) and NumPy's,
gradients against finite differences (float64), PyTorch's errors."""
import os

import numpy as np
import pytest

import nbgrad

gradcheck = nbgrad.autograd.gradcheck

RNG = np.random.default_rng(31)
AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"


def leaf(a, dtype=None):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), dtype=dtype or nbgrad.float64, requires_grad=True)


def values(ts):
    return [t.tolist() for t in ts]


# -- torch.gradient -------------------------------------------------------------------------------
X = [[1., 4., 9., 16., 25.], [2., -1., 0.5, 3., 7.], [0., 1., 0., 1., 3.]]
C0, C1 = [0., 0.5, 2.], [-1., 0., 0.25, 1.5, 4.]
# PyTorch 2.13's results for X (float64)
GRADIENT_RECORDED = {
    (1, "unit"): [[[1.0, -5.0, -8.5, -13.0, -18.0], [-0.5, -1.5, -4.5, -7.5, -11.0], [-2.0, 2.0, -0.5, -2.0, -4.0]],
                  [[3.0, 4.0, 6.0, 8.0, 9.0], [-3.0, -0.75, 2.0, 3.25, 4.0], [1.0, 0.0, 0.0, 1.5, 2.0]]],
    (1, "scalars"): [[[2.0, -10.0, -17.0, -26.0, -36.0], [-1.0, -3.0, -9.0, -15.0, -22.0],
                      [-4.0, 4.0, -1.0, -4.0, -8.0]],
                     [[1.0, 1.3333333333333333, 2.0, 2.6666666666666665, 3.0],
                      [-1.0, -0.25, 0.6666666666666666, 1.0833333333333333, 1.3333333333333333],
                      [0.3333333333333333, 0.0, 0.0, 0.5, 0.6666666666666666]]],
    (1, "coordinates"): [[[2.0, -10.0, -17.0, -26.0, -36.0],
                          [1.1666666666666665, -7.166666666666666, -12.833333333333334, -19.833333333333332,
                           -27.666666666666668],
                          [-1.3333333333333333, 1.3333333333333333, -0.3333333333333333, -1.3333333333333333,
                           -2.6666666666666665]],
                         [[3.0, 16.6, 17.6, 4.933333333333334, 3.6], [-3.0, 4.2, 5.333333333333334, 1.866666666666667,
                                                                     1.6],
                          [1.0, -3.0, -3.2, 0.8, 0.8]]],
    (2, "unit"): [[[2.5, -8.5, -12.5, -18.5, -25.0], [-0.5, -1.5, -4.5, -7.5, -11.0], [-3.5, 5.5, 3.5, 3.5, 3.0]],
                  [[2.0, 4.0, 6.0, 8.0, 10.0], [-5.25, -0.75, 2.0, 3.25, 4.75], [2.0, 0.0, 0.0, 1.5, 2.5]]],
    (2, "scalars"): [[[5.0, -17.0, -25.0, -37.0, -50.0], [-1.0, -3.0, -9.0, -15.0, -22.0], [-7.0, 11.0, 7.0, 7.0, 6.0]],
                     [[0.6666666666666666, 1.3333333333333333, 2.0, 2.6666666666666665, 3.3333333333333335],
                      [-1.75, -0.25, 0.6666666666666666, 1.0833333333333333, 1.5833333333333333],
                      [0.6666666666666666, 0.0, 0.0, 0.5, 0.8333333333333334]]],
    (2, "coordinates"): [[[2.833333333333333, -12.833333333333332, -21.166666666666668, -32.166666666666664,
                           -44.333333333333336],
                          [1.1666666666666665, -7.166666666666666, -12.833333333333334, -19.833333333333332,
                           -27.666666666666668],
                          [-3.833333333333333, 9.833333333333332, 12.166666666666666, 17.166666666666668,
                           22.333333333333336]],
                         [[-10.600000000000001, 16.6, 17.6, 4.933333333333334, 2.2666666666666657],
                          [-10.2, 4.2, 5.333333333333334, 1.866666666666667, 1.333333333333333],
                          [5.0, -3.0, -3.2, 0.8, 0.8]]],
}


def _spacing(kind):
    if kind == "unit":
        return {}
    if kind == "scalars":
        return {"spacing": [0.5, 3.]}
    return {"spacing": [nbgrad.tensor(C0, dtype=nbgrad.float64), nbgrad.tensor(C1, dtype=nbgrad.float64)]}


@pytest.mark.parametrize("edge_order", [1, 2])
@pytest.mark.parametrize("kind", ["unit", "scalars", "coordinates"])
def test_gradient_values_match_pytorch(edge_order, kind):
    x = nbgrad.tensor(X, dtype=nbgrad.float64)
    out = nbgrad.gradient(x, edge_order=edge_order, **_spacing(kind))
    assert isinstance(out, tuple) and len(out) == 2
    for got, want in zip(out, GRADIENT_RECORDED[(edge_order, kind)]):
        assert got.dtype == nbgrad.float64 and got.shape == (3, 5)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


def test_gradient_matches_numpy():
    a = RNG.standard_normal((4, 6))
    xs = np.cumsum(RNG.uniform(0.5, 2.0, 6))
    for edge_order in (1, 2):
        got = nbgrad.gradient(nbgrad.tensor(a), spacing=[nbgrad.tensor(xs)], dim=1, edge_order=edge_order)
        np.testing.assert_allclose(got[0].numpy(), np.gradient(a, xs, axis=1, edge_order=edge_order), rtol=1e-12)
        got = nbgrad.gradient(nbgrad.tensor(a), spacing=0.25, edge_order=edge_order)
        for g, w in zip(got, np.gradient(a, 0.25, edge_order=edge_order)):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-12)


def test_gradient_dims_and_spacing_forms():
    x = nbgrad.tensor(X, dtype=nbgrad.float64)
    unit = GRADIENT_RECORDED[(1, "unit")]
    (g1,) = nbgrad.gradient(x, dim=1)
    np.testing.assert_allclose(g1.numpy(), unit[1], rtol=1e-12)
    (g1,) = nbgrad.gradient(x, dim=-1, spacing=[2.0])
    np.testing.assert_allclose(g1.numpy(), np.array(unit[1]) / 2, rtol=1e-12)
    g1, g0 = nbgrad.gradient(x, dim=(1, 0), spacing=4)          # in the order of dim
    np.testing.assert_allclose(g1.numpy(), np.array(unit[1]) / 4, rtol=1e-12)
    np.testing.assert_allclose(g0.numpy(), np.array(unit[0]) / 4, rtol=1e-12)
    (g,) = nbgrad.gradient(nbgrad.arange(4.), spacing=nbgrad.tensor(2.))     # a 0-dim tensor is a number
    assert g.tolist() == [0.5, 0.5, 0.5, 0.5]
    assert nbgrad.gradient(nbgrad.tensor(2.)) == ()
    assert nbgrad.gradient(nbgrad.arange(4.), dim=[]) == ()


def test_gradient_integer_inputs_give_the_default_float_dtype():
    xi = nbgrad.tensor([[1, 5, 2, 8], [3, 3, 9, 1], [0, 4, 4, 7]])
    g = nbgrad.gradient(xi, spacing=2, edge_order=2)
    assert [t.dtype for t in g] == [nbgrad.float32, nbgrad.float32]
    assert values(g) == [[[2.25, -1.75, 6.5, -6.75], [-0.25, -0.25, 0.5, -0.25], [-2.75, 1.25, -5.5, 6.25]],
                         [[3.75, 0.25, 0.75, 5.25], [-1.5, 1.5, -0.5, -7.5], [3.0, 1.0, 0.75, 2.25]]]
    g = nbgrad.gradient(xi, spacing=[nbgrad.tensor([1, 2, 5]), nbgrad.tensor([0, 1, 3, 7])])
    assert [t.dtype for t in g] == [nbgrad.float32, nbgrad.float32]
    np.testing.assert_allclose(values(g), [[[2.0, -2.0, 7.0, -7.0], [1.25, -1.4166666269302368, 4.833333492279053, -4.75],
                                            [-1.0, 0.3333333432674408, -1.6666666269302368, 2.0]],
                                           [[4.0, 2.1666665077209473, -0.5000000596046448, 1.5],
                                            [0.0, 1.0, 1.3333333730697632, -2.0],
                                            [4.0, 2.6666667461395264, 0.25, 0.75]]], rtol=1e-6)
    (g,) = nbgrad.gradient(xi.to(nbgrad.int16), dim=1)
    assert g.dtype == nbgrad.float32
    assert g.tolist() == [[4.0, 0.5, 1.5, 6.0], [0.0, 3.0, -1.0, -8.0], [4.0, 2.0, 1.5, 3.0]]
    # coordinates promote with the values as tensors do
    assert nbgrad.gradient(xi.double(), spacing=[nbgrad.tensor([1, 2, 5])], dim=0)[0].dtype == nbgrad.float64
    assert nbgrad.gradient(xi.float(), spacing=[nbgrad.tensor([1., 2, 5], dtype=nbgrad.float64)],
                           dim=0)[0].dtype == nbgrad.float64


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_gradcheck(edge_order):
    a = RNG.standard_normal((4, 5))
    assert gradcheck(lambda t: nbgrad.gradient(t, edge_order=edge_order), (leaf(a),))
    assert gradcheck(lambda t: nbgrad.gradient(t, spacing=[0.3, 2.0], edge_order=edge_order), (leaf(a),))
    c0, c1 = np.cumsum(RNG.uniform(0.5, 2, 4)), np.cumsum(RNG.uniform(0.5, 2, 5))
    # gradients flow to the coordinates too
    assert gradcheck(lambda t, u, v: nbgrad.gradient(t, spacing=[u, v], edge_order=edge_order),
                     (leaf(a), leaf(c0), leaf(c1)))
    out = nbgrad.gradient(leaf(a), dim=0)[0]
    assert out.requires_grad and out.grad_fn.name() == "CatBackward0"


@pytest.mark.parametrize("kwargs, x_shape, exc, message", [
    ({"edge_order": 3}, (3, 4), RuntimeError, "torch.gradient only supports edge_order=1 and edge_order=2."),
    ({"spacing": [1., 2., 3.]}, (3, 4), RuntimeError,
     "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to 'self.dim() = 2', "
     "since dim argument was not given, but got a list of length 3"),
    ({"spacing": [1.], "dim": [0, 1]}, (3, 4), RuntimeError,
     "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have the same "
     "length, but got a spacing argument of length 1 and a dim argument of length 2."),
    ({"dim": [0, -2]}, (3, 4), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    ({"dim": 3}, (3, 4), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    ({"edge_order": 2}, (2, 4), RuntimeError,
     "torch.gradient expected each dimension size to be at least edge_order+1"),
    ({"dim": 0}, (1, 4), RuntimeError, "torch.gradient expected each dimension size to be at least edge_order+1"),
    ({"dim": 5, "edge_order": 3}, (3, 1), RuntimeError,
     "torch.gradient only supports edge_order=1 and edge_order=2."),
])
def test_gradient_errors(kwargs, x_shape, exc, message):
    with pytest.raises(exc) as info:
        nbgrad.gradient(nbgrad.ones(x_shape), **kwargs)
    assert str(info.value) == message


def test_gradient_argument_errors():
    with pytest.raises(RuntimeError, match="torch.gradient does not support uint8 input."):
        nbgrad.gradient(nbgrad.ones(3, dtype=nbgrad.uint8))
    with pytest.raises(RuntimeError, match="with two bool tensors is not supported"):
        nbgrad.gradient(nbgrad.ones(3, dtype=nbgrad.bool))
    with pytest.raises(RuntimeError, match="torch.gradient expected each element of spacing to have one dimension, "
                                           "but got an element with 2 dimensions!"):
        nbgrad.gradient(nbgrad.ones(3), spacing=[nbgrad.ones(3, 1)])
    with pytest.raises(TypeError, match=r"gradient\(\) received an invalid combination of arguments"):
        nbgrad.gradient(nbgrad.ones(3), spacing=nbgrad.ones(3))
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument 1, but got int"):
        nbgrad.gradient(nbgrad.ones(3), spacing=[2, nbgrad.ones(3)])


# -- torch.histogramdd ----------------------------------------------------------------------------
def test_histogramdd_recorded_examples():
    pts = nbgrad.tensor([[0., 1.], [1., 0.], [2., 0.], [2., 2.]])
    r = nbgrad.histogramdd(pts, bins=[3, 3], weight=nbgrad.tensor([1., 2., 4., 8.]))
    assert type(r).__name__ == "histogramdd" and r.hist is r[0] and isinstance(r.bin_edges, tuple)
    assert r.hist.tolist() == [[0., 1., 0.], [2., 0., 0.], [4., 0., 8.]]
    assert r.hist.dtype == nbgrad.float32 and len(r.bin_edges) == 2
    for e in r.bin_edges:
        np.testing.assert_allclose(e.numpy(), [0., 0.6666667, 1.3333333, 2.], rtol=1e-6)
    r = nbgrad.histogramdd(pts, bins=2, range=[0., 1., 0., 1.], density=True)
    assert r.hist.tolist() == [[0., 2.], [2., 0.]]
    assert [e.tolist() for e in r.bin_edges] == [[0., 0.5, 1.], [0., 0.5, 1.]]
    edges = [nbgrad.tensor([0., 1, 2]), nbgrad.tensor([-1., 0.5, 3])]
    r = nbgrad.histogramdd(pts, bins=edges)
    assert r.hist.tolist() == [[0., 1.], [2., 1.]]
    assert r.bin_edges[0] is edges[0] and r.bin_edges[1] is edges[1]       # given edges come back as given
    # a point range widened by 0.5 each way, no data gives 0..1, no dims a 0-dim count
    r = nbgrad.histogramdd(nbgrad.ones(3, 2, dtype=nbgrad.float64), bins=2)
    assert r.hist.dtype == nbgrad.float64 and r.hist.tolist() == [[0., 0.], [0., 3.]]
    assert [e.tolist() for e in r.bin_edges] == [[0.5, 1., 1.5]] * 2
    r = nbgrad.histogramdd(nbgrad.zeros(0, 2), bins=2)
    assert r.hist.tolist() == [[0., 0.], [0., 0.]] and r.bin_edges[1].tolist() == [0., 0.5, 1.]
    r = nbgrad.histogramdd(nbgrad.ones(3, 0), bins=[])
    assert r.hist.shape == () and r.hist.item() == 0.0 and r.bin_edges == ()
    # outside the edges, NaN and inf count nowhere; the last edge is inside
    r = nbgrad.histogramdd(nbgrad.tensor([[1., 0.], [float("inf"), 0.], [float("nan"), 0.5], [0.5, 1.]]), bins=2,
                           range=[0., 1., 0., 1.])
    assert r.hist.tolist() == [[0., 0.], [1., 1.]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogramdd_matches_numpy(dtype):
    dt = getattr(nbgrad, dtype)
    x = RNG.standard_normal((60, 3)).astype(dtype)
    w = RNG.uniform(0, 1, 60).astype(dtype)
    for bins, kwargs, np_kwargs in [
            ([3, 4, 2], {}, {}),
            (4, {"weight": nbgrad.tensor(w)}, {"weights": w}),
            ([2, 3, 2], {"range": [-1, 1, -0.5, 0.5, 0, 2], "density": True},
             {"range": [(-1, 1), (-0.5, 0.5), (0, 2)], "density": True})]:
        r = nbgrad.histogramdd(nbgrad.tensor(x), bins, **kwargs)
        want, want_edges = np.histogramdd(x.astype(np.float64), bins=bins, **np_kwargs)
        assert r.hist.dtype == dt
        np.testing.assert_allclose(r.hist.numpy(), want, rtol=1e-5 if dtype == "float32" else 1e-12)
        for e, we in zip(r.bin_edges, want_edges):
            np.testing.assert_allclose(e.numpy(), we, rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-6)
    # explicit (uneven) edges, points with more than two dims flattened
    edges = [np.array([-2., -1., 0., 1.5, 3.], dtype), np.array([-1., 0., 1.], dtype), np.array([-5., 5.], dtype)]
    r = nbgrad.histogramdd(nbgrad.tensor(x).reshape(6, 10, 3), [nbgrad.tensor(e) for e in edges],
                           weight=nbgrad.tensor(w).reshape(6, 10), density=True)
    want, _ = np.histogramdd(x, bins=edges, weights=w, density=True)
    np.testing.assert_allclose(r.hist.numpy(), want, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_histogramdd_has_no_derivative():
    x = nbgrad.ones(3, 2, requires_grad=True)
    r = nbgrad.histogramdd(x, bins=2)
    assert r.hist.requires_grad and r.bin_edges[0].requires_grad
    assert r.hist.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::_histogramdd_from_bin_cts is not implemented"):
        r.hist.sum().backward()
    r = nbgrad.histogramdd(x, bins=[nbgrad.tensor([0., 1.])] * 2)
    assert r.hist.requires_grad and not r.bin_edges[0].requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::_histogramdd_from_bin_tensors is not implemented"):
        r.hist.sum().backward()


@pytest.mark.parametrize("make, exc, message", [
    (lambda: nbgrad.histogramdd(nbgrad.ones(3), bins=2), RuntimeError,
     "torch.histogramdd: input tensor should have at least 2 dimensions"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=[2, 2, 2]), RuntimeError,
     "histogramdd: The size of bins must be equal to the innermost dimension of the input."),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=[2, 0]), RuntimeError,
     "torch.histogram(): bins must be > 0, but got 0 for dimension 1"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=[2, -1]), RuntimeError,
     "torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in the bins tensor for "
     "dimension 1"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=[2, -2]), RuntimeError,
     "number of steps must be non-negative"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2, dtype=nbgrad.int64), bins=2), NotImplementedError,
     "\"histogramdd\" not implemented for 'Long'"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=2, range=[0., 1.]), RuntimeError,
     "torch.histogramdd: for a 2-dimensional histogram range should have 4 elements, but got 2"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=2, range=[0., 1., 2., 1.]), RuntimeError,
     "torch.histogramdd: min should not exceed max, but got min 2 max 1 for dimension 1"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=2, range=[0., 1., 2., float("inf")]), RuntimeError,
     "torch.histogramdd: dimension 1's range [2, inf] is not finite"),
    (lambda: nbgrad.histogramdd(nbgrad.tensor([[1., float("nan")]]), bins=2), RuntimeError,
     "torch.histogramdd: dimension 1's range [nan, nan] is not finite"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=2, weight=nbgrad.ones(3, 2)), RuntimeError,
     "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor excluding "
     "its innermost dimension, but got input with shape [3, 2] and weight with shape [3, 2]"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=2, weight=nbgrad.ones(3, dtype=nbgrad.float64)),
     RuntimeError, "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the "
     "same dtype, but got input(float), and weight(double)"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=[nbgrad.tensor([0., 1]), nbgrad.tensor([[0., 1]])]),
     RuntimeError, "torch.histogramdd: bins tensor should have one dimension, but got 2 dimensions in the bins "
     "tensor for dimension 1"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=[nbgrad.tensor([0., 1]),
                                                         nbgrad.tensor([0., 1], dtype=nbgrad.float64)]),
     RuntimeError, "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with "
     "dtype float and bins for dimension 1 with dtype double"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=[nbgrad.tensor([0., 1]), nbgrad.tensor([1.])]),
     RuntimeError, "torch.histogram(): bins must be > 0, but got 0 for dimension 1"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=[nbgrad.tensor([0., 1])]), RuntimeError,
     "torch.histogramdd: expected 2 sequences of bin edges for a 2-dimensional histogram but got 1"),
    (lambda: nbgrad.histogramdd(nbgrad.ones(3, 2), bins=[2.5, 2]), TypeError,
     "expected Tensor as element 0 in argument 1, but got float"),
])
def test_histogramdd_errors(make, exc, message):
    with pytest.raises(exc) as info:
        make()
    assert str(info.value) == message


def test_histogramdd_refuses_a_tensor_of_bins():
    with pytest.raises(TypeError, match=r"histogramdd\(\) received an invalid combination of arguments"):
        nbgrad.histogramdd(nbgrad.ones(3, 1), bins=nbgrad.tensor([0., 1., 2.]))


# -- torch.vander ---------------------------------------------------------------------------------
def test_vander_values_and_dtypes():
    x = nbgrad.tensor([1., 2., 3., -1.5])
    v = nbgrad.vander(x)
    assert v.dtype == nbgrad.float32
    assert v.tolist() == [[1., 1., 1., 1.], [8., 4., 2., 1.], [27., 9., 3., 1.], [-3.375, 2.25, -1.5, 1.]]
    assert nbgrad.vander(x, N=3, increasing=True).tolist() == [[1., 1., 1.], [1., 2., 4.], [1., 3., 9.],
                                                                [1., -1.5, 2.25]]
    np.testing.assert_array_equal(nbgrad.vander(x, N=6).numpy(), np.vander(x.numpy(), 6))
    assert nbgrad.vander(x, N=0).shape == (4, 0) and nbgrad.vander(x, N=0).dtype == nbgrad.float32
    assert nbgrad.vander(x, N=1).tolist() == [[1.], [1.], [1.], [1.]]
    assert nbgrad.vander(nbgrad.ones(0)).shape == (0, 0)
    # integer and bool inputs give int64 (cumprod's promotion), floats keep their dtype
    i8 = nbgrad.vander(nbgrad.tensor([1, 2, 3], dtype=nbgrad.int8))
    assert i8.dtype == nbgrad.int64 and i8.tolist() == [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    b = nbgrad.vander(nbgrad.tensor([True, False]))
    assert b.dtype == nbgrad.int64 and b.tolist() == [[1, 1], [0, 1]]
    assert nbgrad.vander(nbgrad.tensor([1, 2, 3], dtype=nbgrad.uint8), N=2).tolist() == [[1, 1], [2, 1], [3, 1]]
    assert nbgrad.vander(nbgrad.tensor([1., 2.], dtype=nbgrad.float64)).dtype == nbgrad.float64


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch 2.13's torch.vander cannot backward (its cumprod's saved result "
                    "is overwritten by the copy_ that follows: 'modified by an inplace operation'); nbgrad gives "
                    "the gradient (that of torch.linalg.vander)")
def test_vander_gradients():
    x = leaf(RNG.standard_normal(4))
    assert gradcheck(lambda t: nbgrad.vander(t), (x,))
    assert gradcheck(lambda t: nbgrad.vander(t, N=5, increasing=True), (x,))
    assert nbgrad.vander(x).grad_fn.name() == "FlipBackward0"


def test_vander_flags_and_errors():
    x = leaf(RNG.standard_normal(4))
    assert nbgrad.vander(x).requires_grad and nbgrad.vander(x, N=4, increasing=True).requires_grad
    assert not nbgrad.vander(x, N=1).requires_grad and not nbgrad.vander(x, N=0).requires_grad
    with pytest.raises(RuntimeError, match="N must be non-negative."):
        nbgrad.vander(nbgrad.tensor([1., 2.]), N=-1)
    for bad in (nbgrad.tensor(1.), nbgrad.ones(2, 2)):
        with pytest.raises(RuntimeError, match="x must be a one-dimensional tensor."):
            nbgrad.vander(bad)


# -- native_layer_norm / native_batch_norm / native_group_norm / native_dropout -------------------
XN = [[[1., 2., 4.], [0.5, -1., 3.]], [[2., 2., 5.], [-3., 0., 1.]]]
WN, BN = [2., -1.], [0.5, 1.]


def _close(t, want):
    np.testing.assert_allclose(t.detach().numpy(), want, rtol=1e-12, atol=1e-12)


def test_native_layer_norm_matches_pytorch():
    x = leaf(XN)
    out, mean, rstd = nbgrad.native_layer_norm(x, [3], None, None, 1e-5)
    _close(out, [[[-1.0690415314502977, -0.26726038286257453, 1.3363019143128718],
                  [-0.2020301378350195, -1.1111657580926075, 1.3131958959276273]],
                 [[-0.7071050134262237, -0.7071050134262237, 1.4142100268524473],
                  [-1.3728105699510502, 0.39223159141458575, 0.9805789785364643]]])
    _close(mean, [[[2.3333333333333335], [0.8333333333333333]], [[3.0], [-0.6666666666666666]]])
    _close(rstd, [[[0.8017811485877232], [0.6060904135050587]], [[0.7071050134262237], [0.5883473871218786]]])
    assert out.requires_grad and not mean.requires_grad and not rstd.requires_grad
    assert mean.dtype == rstd.dtype == nbgrad.float64
    assert out.grad_fn.name() == "NativeLayerNormBackward0"
    _, mean, rstd = nbgrad.native_layer_norm(nbgrad.randn(2, 3, 4), [3, 4], nbgrad.ones(3, 4), None, 1e-5)
    assert mean.shape == rstd.shape == (2, 1, 1) and mean.dtype == nbgrad.float32
    # the first output is the plain op's, its gradient too
    w = leaf(RNG.standard_normal(3))
    assert gradcheck(lambda t, u: nbgrad.native_layer_norm(t, [3], u, None, 1e-5)[0], (leaf(XN), w))
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[3\], expected input with shape \[\*, 3\], but got "
                                           r"input of size\[3, 4\]"):
        nbgrad.native_layer_norm(nbgrad.ones(3, 4), [3], None, None, 1e-5)


def test_native_batch_norm_matches_pytorch():
    x, w, b = leaf(XN), leaf(WN), leaf(BN)
    rm = nbgrad.tensor([0., 1.], dtype=nbgrad.float64)
    rv = nbgrad.tensor([1., 2.], dtype=nbgrad.float64)
    out, save_mean, save_invstd = nbgrad.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
    _close(out, [[[-1.9253498303281584, -0.47013993213126337, 2.4402798642625267],
                  [0.7729620324525548, 1.5902987156233577, -0.5892657728321163]],
                 [[-0.47013993213126337, -0.47013993213126337, 3.895489762459422],
                  [2.6800809598510944, 1.045407593509489, 0.5005164713956206]]])
    _close(save_mean, [2.6666666666666665, 0.08333333333333333])
    _close(save_invstd, [0.7276049490984475, 0.5448911221138685])
    _close(rm, [0.26666666666666666, 0.9083333333333333])
    _close(rv, [1.1266666666666667, 2.2041666666666666])
    assert out.grad_fn.name() == "NativeBatchNormBackward0"
    assert not save_mean.requires_grad and not save_invstd.requires_grad
    # evaluating: PyTorch's CPU kernel saves no statistics (two empty tensors)
    out, save_mean, save_invstd = nbgrad.native_batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5)
    assert save_mean.shape == save_invstd.shape == (0,) and save_mean.dtype == nbgrad.float64
    want = (np.array(XN) - rm.numpy()[:, None]) / np.sqrt(rv.numpy()[:, None] + 1e-5) * np.array(WN)[:, None] \
        + np.array(BN)[:, None]
    _close(out, want)
    # without running statistics, training
    _, m, s = nbgrad.native_batch_norm(nbgrad.randn(4, 3, 2), None, None, None, None, True, 0.1, 1e-5)
    assert m.shape == s.shape == (3,) and m.dtype == nbgrad.float32
    assert gradcheck(lambda t, u, v: nbgrad.native_batch_norm(t, u, v, None, None, True, 0.1, 1e-5)[0],
                     (leaf(XN), leaf(WN), leaf(BN)))
    with pytest.raises(ValueError, match="running_mean and running_var must either both be None or neither be None"):
        nbgrad.native_batch_norm(nbgrad.ones(3, 4), None, None, nbgrad.zeros(4), None, True, 0.1, 1e-5)


def test_native_group_norm_matches_pytorch():
    x, w, b = leaf(XN), leaf(WN), leaf(BN)
    out, mean, rstd = nbgrad.native_group_norm(x, w, b, 2, 2, 3, 1, 1e-5)
    _close(out, [[[-0.20982686337160827, 1.0070191881225772, 3.440711291110948],
                  [1.6591249445593506, 2.5717594831799895, 0.13806738019161868]],
                 [[1.1917138681318993, 1.1917138681318993, 3.6818837934067368],
                  [2.7292846703297484, 1.4841997076923297, 1.06917138681319]]])
    _close(mean, [[1.5833333333333335], [1.1666666666666667]])
    _close(rstd, [[0.6084230257470927], [0.4150283208791396]])
    assert out.grad_fn.name() == "NativeGroupNormBackward0"
    # PyTorch's mean and rstd are differentiable outputs of the op
    assert mean.requires_grad and rstd.requires_grad
    _, mean, rstd = nbgrad.native_group_norm(x, None, None, 2, 2, 3, 2, 1e-5)
    _close(mean, [[2.3333333333333335, 0.8333333333333333], [3.0, -0.6666666666666666]])
    _close(rstd, [[0.8017811485877232, 0.6060904135050587], [0.7071050134262237, 0.5883473871218786]])
    # the input only needs N * C * HxW elements
    out, _, _ = nbgrad.native_group_norm(x.reshape(2, 6), w, b, 2, 2, 3, 1, 1e-5)
    assert out.shape == (2, 6)
    assert gradcheck(lambda t, u, v: nbgrad.native_group_norm(t, u, v, 2, 2, 3, 1, 1e-5)[0],
                     (leaf(XN), leaf(WN), leaf(BN)))
    with pytest.raises(RuntimeError, match=r"Expected X.numel\(\) == N \* C \* HxW to be true, but got false."):
        nbgrad.native_group_norm(nbgrad.randn(2, 6, 5), None, None, 2, 6, 4, 3, 1e-5)
    with pytest.raises(RuntimeError, match="Expected number of channels in input to be divisible by num_groups"):
        nbgrad.native_group_norm(nbgrad.randn(2, 6, 5), None, None, 2, 6, 5, 4, 1e-5)


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch 2.13's NativeGroupNormBackward0 drops the gradients of mean and "
                    "rstd (x.grad stays None after mean.sum().backward()) though they require grad; nbgrad gives "
                    "their true gradients")
def test_native_group_norm_statistics_gradients():
    assert gradcheck(lambda t: nbgrad.native_group_norm(t, None, None, 2, 2, 3, 2, 1e-5)[1:], (leaf(XN),))
    x = leaf(XN)
    _, mean, _ = nbgrad.native_group_norm(x, None, None, 2, 2, 3, 1, 1e-5)
    mean.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 2, 3), 1 / 6), rtol=1e-15)


def test_native_dropout():
    nbgrad.manual_seed(0)
    x = leaf(RNG.standard_normal((40, 50)))
    out, mask = nbgrad.native_dropout(x, 0.3, True)
    assert mask.dtype == nbgrad.bool and mask.shape == x.shape and out.dtype == nbgrad.float64
    assert out.grad_fn.name() == "NativeDropoutBackward0" and not mask.requires_grad
    keep = mask.numpy()
    assert 0.6 < keep.mean() < 0.8
    np.testing.assert_allclose(out.detach().numpy(), np.where(keep, x.detach().numpy() / 0.7, 0.0), rtol=1e-15)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(keep, 1 / 0.7, 0.0), rtol=1e-15)
    out, mask = nbgrad.native_dropout(x, 0.3, None)         # train=None trains
    assert not mask.all().item()
    out, mask = nbgrad.native_dropout(x, 0.5, False)        # not training: a copy, every element kept
    assert mask.all().item() and out is not x and nbgrad.equal(out, x)
    assert out.grad_fn.name() == "NativeDropoutBackward0"
    out, mask = nbgrad.native_dropout(nbgrad.tensor([-1., 2.]), 1.0, True)
    assert out.tolist() == [0., 0.] and np.signbit(out.numpy()).tolist() == [True, False]
    assert mask.tolist() == [False, False]
    out, mask = nbgrad.native_dropout(nbgrad.tensor([-1., 2.]), 0.0, True)
    assert out.tolist() == [-1., 2.] and mask.tolist() == [True, True]
    i_out, i_mask = nbgrad.native_dropout(nbgrad.ones(3, dtype=nbgrad.int64), 0.5, False)
    assert i_out.tolist() == [1, 1, 1] and i_mask.dtype == nbgrad.bool
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\], but got p=-0.5"):
        nbgrad.native_dropout(nbgrad.ones(3), 1.5, True)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        nbgrad.native_dropout(nbgrad.ones(3, dtype=nbgrad.int64), 0.5, True)
