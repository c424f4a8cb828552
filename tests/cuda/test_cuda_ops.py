"""Ops on both devices against NumPy: elementwise, reductions, softmax, matmul, indexing, random."""
import numpy as np
import pytest

import nbgrad

RNG = np.random.default_rng(0)


def t(a, device, **kw):
    return nbgrad.tensor(a, device=device, **kw)


def host(x):
    return x.cpu().numpy() if x.device.type != "cpu" else x.numpy()


UNARY = {
    "neg": np.negative, "abs": np.abs, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin,
    "cos": np.cos, "tanh": np.tanh, "sigmoid": lambda a: 1 / (1 + np.exp(-a)), "relu": lambda a: np.maximum(a, 0),
    "floor": np.floor, "ceil": np.ceil, "round": np.round, "trunc": np.trunc, "sign": np.sign,
    "reciprocal": np.reciprocal, "square": np.square, "exp2": np.exp2, "log1p": np.log1p, "expm1": np.expm1,
    "rsqrt": lambda a: 1 / np.sqrt(a), "atan": np.arctan, "log2": np.log2,
}


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_matches_numpy(device, op):
    a = RNG.uniform(0.1, 3.0, (2, 3)).astype(np.float32) * np.array([1, -1, 1], np.float32)
    if op in ("log", "sqrt", "log2", "rsqrt", "log1p"):
        a = np.abs(a)
    x = t(a, device)
    got = host(getattr(x, op)())
    np.testing.assert_allclose(got, UNARY[op](a), rtol=1e-5, atol=1e-6)


def test_unary_on_strided_view(device):
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    x = t(a, device).t()[1:, ::2]
    np.testing.assert_allclose(host(x.exp()), np.exp(a.T[1:, ::2]))


def test_special_values(device):
    a = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 2.5, -2.5], np.float32)
    x = t(a, device)
    np.testing.assert_array_equal(host(x.isnan()), np.isnan(a))
    np.testing.assert_array_equal(host(x.isinf()), np.isinf(a))
    np.testing.assert_array_equal(host(x.round()), np.round(a))
    np.testing.assert_array_equal(host(x.sign()), np.nan_to_num(np.sign(a), nan=0.0))


BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow", "atan2", "eq", "lt", "ge"]


@pytest.mark.parametrize("op", BINARY)
def test_binary_broadcast(device, op):
    a = RNG.uniform(0.5, 2.0, (2, 1, 3))
    b = RNG.uniform(0.5, 2.0, (4, 1))
    ref = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "maximum": np.maximum,
           "minimum": np.minimum, "pow": np.power, "atan2": np.arctan2, "eq": np.equal, "lt": np.less,
           "ge": np.greater_equal}[op](a, b)
    got = host(getattr(nbgrad, op)(t(a, device), t(b, device)))
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_scalar_operands_and_integer_ops(device):
    a = np.array([[7, -7, 5], [0, 3, -2]], np.int64)
    x = t(a, device)
    np.testing.assert_array_equal(host(x // 3), a // 3)
    np.testing.assert_array_equal(host(x % 3), a % 3)
    np.testing.assert_array_equal(host(x * 2 + 1), a * 2 + 1)
    np.testing.assert_array_equal(host(x & 6), a & 6)
    np.testing.assert_allclose(host(x / 2), a / 2)


def test_casts(device):
    a = np.array([-1.7, -0.2, 0.0, 0.6, 2.9], np.float32)
    x = t(a, device)
    np.testing.assert_array_equal(host(x.long()), np.trunc(a).astype(np.int64))
    np.testing.assert_array_equal(host(x.bool()), a != 0)
    np.testing.assert_array_equal(host(x.bool().float()), (a != 0).astype(np.float32))
    assert x.double().dtype is nbgrad.float64


def test_where_and_masked_fill(device):
    a = RNG.normal(size=(3, 4))
    x = t(a, device)
    np.testing.assert_allclose(host(nbgrad.where(x > 0, x, x * 2)), np.where(a > 0, a, a * 2))
    np.testing.assert_allclose(host(x.masked_fill(x < 0, 0.5)), np.where(a < 0, 0.5, a))


@pytest.mark.parametrize("dims", [None, 0, 1, (0, 2), -1])
def test_reductions(device, dims):
    a = RNG.normal(size=(2, 3, 4))
    x = t(a, device)
    nd = None if dims is None else dims
    np.testing.assert_allclose(host(x.sum(nd) if nd is not None else x.sum()), a.sum(axis=nd), rtol=1e-12)
    np.testing.assert_allclose(host(x.mean(nd) if nd is not None else x.mean()), a.mean(axis=nd), rtol=1e-12)
    np.testing.assert_allclose(host(x.amax(nd) if nd is not None else x.amax()), a.max(axis=nd))
    np.testing.assert_allclose(host(x.var(nd) if nd is not None else x.var()), a.var(axis=nd, ddof=1),
                               rtol=1e-10)
    np.testing.assert_allclose(host(x.logsumexp(nd if nd is not None else (0, 1, 2))),
                               np.log(np.exp(a).sum(axis=nd)), rtol=1e-10)


def test_long_sum_uses_partials(device):
    # long rows are split over several blocks and combined in a second pass
    a = RNG.normal(size=700).astype(np.float32)
    np.testing.assert_allclose(host(t(a, device).sum()), a.astype(np.float64).sum(), rtol=1e-5)
    np.testing.assert_allclose(host(t(a, device).mean()), a.astype(np.float64).mean(), rtol=1e-5)


def test_sum_over_columns_of_transpose(device):
    a = RNG.normal(size=(5, 6))
    x = t(a, device).t()
    np.testing.assert_allclose(host(x.sum(0)), a.T.sum(0))
    np.testing.assert_allclose(host(x.prod(1)), a.T.prod(1))


def test_bool_and_int_reductions(device):
    a = np.array([[1, 0, 3], [4, 5, 6]], np.int64)
    x = t(a, device)
    np.testing.assert_array_equal(host(x.sum(1)), a.sum(1))
    np.testing.assert_array_equal(host(x.all(1)), a.all(1))
    np.testing.assert_array_equal(host(x.any(0)), a.any(0))
    np.testing.assert_array_equal(host(x.amin(0)), a.min(0))


def test_max_argmax_ties_and_nan(device):
    a = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, np.nan, 5.0, np.nan]])
    x = t(a, device)
    values, indices = x.max(1)
    np.testing.assert_array_equal(host(indices), [1, 1])
    assert host(values)[0] == 3.0 and np.isnan(host(values)[1])
    np.testing.assert_array_equal(host(x.argmin(1)), [3, 1])
    np.testing.assert_array_equal(host(t(a[:, :1], device).argmax()), 1)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_and_log_softmax(device, dim):
    a = RNG.normal(size=(3, 4)) * 10
    x = t(a, device)
    e = np.exp(a - a.max(dim, keepdims=True))
    ref = e / e.sum(dim, keepdims=True)
    np.testing.assert_allclose(host(x.softmax(dim)), ref, rtol=1e-10)
    np.testing.assert_allclose(host(x.log_softmax(dim)), np.log(ref), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_layouts(device, dtype):
    a = RNG.normal(size=(5, 7)).astype(dtype)
    b = RNG.normal(size=(7, 3)).astype(dtype)
    x, y = t(a, device), t(b, device)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(host(x @ y), a @ b, rtol=tol, atol=tol)
    np.testing.assert_allclose(host(y.t() @ x.t()), b.T @ a.T, rtol=tol, atol=tol)
    np.testing.assert_allclose(host(x[:, ::2] @ y[::2]), a[:, ::2] @ b[::2], rtol=tol, atol=tol)


def test_batched_broadcast_matmul_and_ints(device):
    a = RNG.normal(size=(2, 1, 3, 4))
    b = RNG.normal(size=(3, 4, 2))
    np.testing.assert_allclose(host(t(a, device) @ t(b, device)), a @ b, rtol=1e-12)
    ai = np.arange(6, dtype=np.int64).reshape(2, 3)
    np.testing.assert_array_equal(host(t(ai, device) @ t(ai.T.copy(), device)), ai @ ai.T)
    v = RNG.normal(size=4)
    np.testing.assert_allclose(host(t(v, device).dot(t(v, device))), v @ v)


def test_indexing_gather_scatter(device):
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    x = t(a, device)
    np.testing.assert_array_equal(host(x[1:3, ::2]), a[1:3, ::2])
    np.testing.assert_array_equal(host(x[[0, 2, 2]]), a[[0, 2, 2]])
    np.testing.assert_array_equal(host(x[x > 10]), a[a > 10])
    idx = t(np.array([[0, 5], [1, 1], [2, 0], [3, 3]]), device)
    np.testing.assert_array_equal(host(x.gather(1, idx)), np.take_along_axis(a, np.array([[0, 5], [1, 1], [2, 0], [3, 3]]), 1))
    z = nbgrad.zeros(3, device=device, dtype=nbgrad.float64)
    z.index_add_(0, t(np.array([0, 2, 0]), device), t(np.array([1.0, 2.0, 3.0]), device))
    np.testing.assert_array_equal(host(z), [4.0, 0.0, 2.0])
    y = x.clone()
    y[1, [0, 1]] = 7.0
    ref = a.copy()
    ref[1, [0, 1]] = 7.0
    np.testing.assert_array_equal(host(y), ref)


def test_cat_stack_nonzero(device):
    a = np.array([[0, 1, 0], [2, 0, 3]], np.int64)
    x = t(a, device)
    np.testing.assert_array_equal(host(nbgrad.cat([x, x * 2], 1)), np.concatenate([a, a * 2], 1))
    np.testing.assert_array_equal(host(nbgrad.stack([x, x])), np.stack([a, a]))
    np.testing.assert_array_equal(host(x.nonzero()), np.argwhere(a))
    assert host(t(np.zeros((2, 2)), device).nonzero()).shape == (0, 2)


def test_creation_on_device(device):
    assert nbgrad.zeros(2, 3, device=device).device.type == device
    np.testing.assert_array_equal(host(nbgrad.arange(5, device=device)), np.arange(5))
    np.testing.assert_allclose(host(nbgrad.linspace(0, 1, 5, device=device)), np.linspace(0, 1, 5), rtol=1e-6)
    np.testing.assert_array_equal(host(nbgrad.eye(3, device=device)), np.eye(3))
    np.testing.assert_array_equal(host(nbgrad.full((2,), 3, device=device)), [3, 3])
    np.testing.assert_array_equal(host(nbgrad.ones_like(nbgrad.zeros(2, device=device))), [1.0, 1.0])


def test_random_is_reproducible_and_in_range(device):
    nbgrad.manual_seed(123)
    u1 = host(nbgrad.rand(200, device=device))
    n1 = host(nbgrad.randn(200, device=device, dtype=nbgrad.float64))
    nbgrad.manual_seed(123)
    u2 = host(nbgrad.rand(200, device=device))
    n2 = host(nbgrad.randn(200, device=device, dtype=nbgrad.float64))
    np.testing.assert_array_equal(u1, u2)
    np.testing.assert_array_equal(n1, n2)
    assert u1.min() >= 0 and u1.max() < 1 and 0.35 < u1.mean() < 0.65
    assert -0.3 < n1.mean() < 0.3 and 0.7 < n1.std() < 1.3
    r = host(nbgrad.randint(2, 5, (300,), device=device))
    assert set(np.unique(r)) == {2, 3, 4}
    assert sorted(host(nbgrad.randperm(20, device=device)).tolist()) == list(range(20))


def test_fused_backward_kernels_match_composed(device):
    from nbgrad.backends import get_backend
    be = get_backend(device)
    a = RNG.normal(size=(3, 4))
    b = RNG.normal(size=(3, 4))
    g = RNG.normal(size=(3, 4))
    bufs = [nbgrad.tensor(v, device=device) for v in (g, a, b)]
    views = [x._view_tuple() for x in bufs]
    ga, gb = be.mul_backward(*views)
    np.testing.assert_allclose(nbgrad.Tensor._from_buffer(ga, (3, 4), nbgrad.float64, bufs[0].device).tolist(), g * b)
    np.testing.assert_allclose(nbgrad.Tensor._from_buffer(gb, (3, 4), nbgrad.float64, bufs[0].device).tolist(), g * a)
    x = RNG.normal(size=(5, 3))
    w = RNG.normal(size=(2, 3))
    go = RNG.normal(size=(5, 2))
    tx, tw, tg = (nbgrad.tensor(v, device=device) for v in (x, w, go))
    gx, gw, gbias = be.linear_backward(tg._view_tuple(), tx._view_tuple(), tw._view_tuple())
    dev = tx.device
    np.testing.assert_allclose(nbgrad.Tensor._from_buffer(gx, (5, 3), nbgrad.float64, dev).tolist(), go @ w)
    np.testing.assert_allclose(nbgrad.Tensor._from_buffer(gw, (2, 3), nbgrad.float64, dev).tolist(), go.T @ x)
    np.testing.assert_allclose(nbgrad.Tensor._from_buffer(gbias, (2,), nbgrad.float64, dev).tolist(), go.sum(0))


@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_topk_match_numpy(device, descending):
    a = (RNG.permutation(12).reshape(3, 4) * 0.5 - 2).astype(np.float32)
    x = t(a, device).t()                                   # sort a strided view
    values, indices = x.sort(dim=1, descending=descending)
    order = np.argsort(-a.T if descending else a.T, axis=1, kind="stable")
    np.testing.assert_array_equal(host(indices), order)
    np.testing.assert_array_equal(host(values), np.take_along_axis(a.T, order, axis=1))
    top, top_idx = t(a, device).topk(2, dim=0, largest=not descending)
    ref = np.argsort(-a if not descending else a, axis=0, kind="stable")[:2]
    np.testing.assert_array_equal(host(top_idx), ref)
    assert values.device.type == device
