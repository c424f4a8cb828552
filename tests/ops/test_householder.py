"""torch.geqrf and torch.linalg.householder_product (torch.orgqr, Tensor.orgqr): values
against NumPy (numpy.linalg.qr(mode='raw') is LAPACK's geqrf, transposed) and explicit
products of reflectors, gradients against finite differences (float64, first and second
order) and PyTorch's recorded values, layouts, grad_fn names, out= and errors as PyTorch 2.13
gives them (recorded; no torch here)."""
import numpy as np
import pytest

import nbgrad

LA = nbgrad.linalg
RNG = np.random.default_rng(11)


def t(a, **kw):
    return nbgrad.tensor(np.asarray(a), **kw)


def raw_qr(x):
    """NumPy's LAPACK geqrf of each matrix of x (..., m, n): (a, tau) as geqrf returns them."""
    m, n = x.shape[-2:]
    flat = x.reshape((int(np.prod(x.shape[:-2])), m, n))
    a = np.empty_like(flat)
    tau = np.empty((flat.shape[0], min(m, n)), x.dtype)
    for b in range(flat.shape[0]):
        h, tb = np.linalg.qr(flat[b].astype(np.float64), mode="raw")
        a[b], tau[b] = h.T, tb
    return a.reshape(x.shape), tau.reshape(x.shape[:-2] + (min(m, n),))


def reflector_product(a, tau):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i column i of a below
    the diagonal after a 1 on it, multiplied out in NumPy (float64)."""
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    batch = int(np.prod(a.shape[:-2]))
    flat, taus = a.reshape((batch, m, n)), tau.reshape((batch, k))
    out = np.empty(flat.shape)
    for b in range(flat.shape[0]):
        q = np.eye(m)
        for i in range(k):
            v = np.zeros(m)
            v[i] = 1.0
            v[i + 1:] = flat[b, i + 1:, i]
            q = q @ (np.eye(m) - taus[b, i] * np.outer(v, v))
        out[b] = q[:, :n]
    return out.reshape(a.shape)


def raises(exc, message, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == message


SHAPES = [(5, 3), (3, 5), (4, 4), (1, 1), (6, 1), (1, 6), (2, 6, 4), (2, 3, 4, 7), (20, 12)]


# -- geqrf: values ------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 2e-5)])
def test_geqrf_is_lapacks(shape, dtype, tol):
    x = RNG.standard_normal(shape).astype(dtype)
    a, tau = nbgrad.geqrf(t(x))
    ref_a, ref_tau = raw_qr(x)
    assert tuple(a.shape) == shape and tuple(tau.shape) == shape[:-2] + (min(shape[-2:]),)
    assert a.dtype == tau.dtype == t(x).dtype
    np.testing.assert_allclose(a.numpy(), ref_a, rtol=tol, atol=tol)
    np.testing.assert_allclose(tau.numpy(), ref_tau, rtol=tol, atol=tol)
    # LAPACK's signs: beta opposite the column's leading entry, tau in [1, 2] or 0
    np.testing.assert_array_equal(np.sign(np.round(a.numpy(), 3)), np.sign(np.round(ref_a, 3)))


@pytest.mark.parametrize("shape", [(6, 4), (4, 4), (3, 2, 5, 3)])
def test_geqrf_reflectors_and_r_give_back_the_matrix(shape):
    x = RNG.standard_normal(shape)
    a, tau = nbgrad.geqrf(t(x))
    Q = LA.householder_product(a, tau).numpy()
    R = np.triu(a.numpy())[..., :shape[-1], :]
    np.testing.assert_allclose(Q @ R, x, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(Q, -1, -2) @ Q, np.broadcast_to(np.eye(shape[-1]), Q.shape[:-2] +
                                                                         (shape[-1],) * 2), atol=1e-12)
    # the same Q as linalg.qr's (both are LAPACK's Householder QR: the same signs)
    np.testing.assert_allclose(Q, LA.qr(t(x)).Q.numpy(), atol=1e-12)


def test_geqrf_of_a_wide_matrix_holds_r_beside_the_square_reflectors():
    x = RNG.standard_normal((3, 6))
    a, tau = nbgrad.geqrf(t(x))
    Q = LA.householder_product(a[:, :3], tau).numpy()
    np.testing.assert_allclose(Q @ np.triu(a.numpy()), x, atol=1e-12)


@pytest.mark.parametrize("scale,dtype", [(1e-300, np.float64), (1e300, np.float64), (1e-30, np.float32),
                                         (1e-40, np.float32), (1e37, np.float32)])
def test_geqrf_of_tiny_and_huge_matrices(scale, dtype):
    # the columns' norms underflow or overflow as plain sums of squares (LAPACK's nrm2 scales;
    # dlarfg rescales a column whose norm is below the safe minimum)
    x = (RNG.uniform(0.5, 1.0, (4, 3)) * scale).astype(dtype)
    a, tau = nbgrad.geqrf(t(x))
    ref_a, ref_tau = raw_qr(x)
    a, ref_a = a.numpy().astype(np.float64), ref_a.astype(np.float64)
    assert np.isfinite(a).all()
    np.testing.assert_allclose(np.triu(a) / scale, np.triu(ref_a) / scale, rtol=1e-4, atol=1e-4)    # R: scaled
    np.testing.assert_allclose(np.tril(a, -1), np.tril(ref_a, -1), rtol=1e-4, atol=1e-4)            # v: O(1)
    np.testing.assert_allclose(tau.numpy(), ref_tau, rtol=1e-4)


def test_geqrf_reads_strided_inputs():
    base = RNG.standard_normal((3, 7, 8))
    x = t(base).mT[:, 1:, ::2]                    # (3, 7, 4) through its strides
    a, tau = nbgrad.geqrf(x)
    ref_a, ref_tau = raw_qr(np.swapaxes(base, -1, -2)[:, 1:, ::2])
    np.testing.assert_allclose(a.numpy(), ref_a, atol=1e-12)
    np.testing.assert_allclose(tau.numpy(), ref_tau, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_geqrf_of_a_rank_one_matrix_stops_at_exact_zeros(dtype):
    # recorded from torch 2.13: the second column is zero after the first reflector, exactly
    a, tau = nbgrad.geqrf(nbgrad.ones(3, 3, dtype=getattr(nbgrad, dtype)))
    assert tau[1:].tolist() == [0.0, 0.0] and a[1:, 1:].tolist() == [[0.0, 0.0], [0.0, 0.0]]
    np.testing.assert_allclose(tau[0].item(), 1 + 1 / np.sqrt(3), rtol=1e-6)
    np.testing.assert_allclose(a[0].tolist(), [-np.sqrt(3)] * 3, rtol=1e-6)
    np.testing.assert_allclose(a[1:, 0].tolist(), [1 / (1 + np.sqrt(3))] * 2, rtol=1e-6)


def test_geqrf_of_zero_columns_is_the_identity_reflector():
    x = np.zeros((4, 2))
    x[0, 1] = 2.0
    a, tau = nbgrad.geqrf(t(x))
    assert tau.tolist() == [0.0, 0.0]          # nothing below a diagonal to zero: H = I
    assert a.numpy().tolist() == x.tolist()


# -- geqrf: layouts, nodes, errors, out= ---------------------------------------------------
@pytest.mark.parametrize("shape,a_strides,tau_strides", [
    # recorded from torch 2.13: LAPACK's batched column-major results
    ((5, 3), (1, 5), (1,)), ((3, 5), (1, 3), (1,)), ((2, 5, 3), (15, 1, 5), (3, 1)),
    ((0, 3), (1, 1), (1,)), ((3, 0), (1, 3), (1,)), ((2, 0, 3), (3, 1, 1), (1, 1))])
def test_geqrf_layouts(shape, a_strides, tau_strides):
    a, tau = nbgrad.geqrf(nbgrad.ones(*shape))
    assert tuple(a.shape) == shape and tuple(tau.shape) == shape[:-2] + (min(shape[-2:]),)
    assert a.stride() == a_strides and tau.stride() == tau_strides


def test_geqrf_returns_its_named_tuple():
    x = nbgrad.tensor(RNG.standard_normal((4, 3)))
    result = nbgrad.geqrf(x)
    assert type(result).__name__ == "geqrf" and isinstance(result, tuple) and len(result) == 2
    assert result.a is result[0] and result.tau is result[1]
    method = x.geqrf()
    assert np.array_equal(method.a.numpy(), result.a.numpy())
    assert np.array_equal(method.tau.numpy(), result.tau.numpy())


def test_geqrf_records_a_node_that_refuses_backward():
    x = nbgrad.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    a, tau = nbgrad.geqrf(x)
    assert a.grad_fn is tau.grad_fn and a.grad_fn.name() == "GeqrfBackward0"
    assert a.requires_grad and tau.requires_grad and not a.is_leaf
    for out in (a, tau):
        raises(NotImplementedError, "the derivative for 'geqrf' is not implemented.",
               lambda: nbgrad.autograd.grad(out.sum(), x))
    with nbgrad.no_grad():
        assert nbgrad.geqrf(x).a.grad_fn is None


def test_geqrf_errors():
    raises(TypeError, "geqrf(): argument 'input' (position 1) must be Tensor, not float", lambda: nbgrad.geqrf(1.0))
    raises(RuntimeError, "torch.geqrf: input must have at least 2 dimensions.", lambda: nbgrad.geqrf(nbgrad.ones(3)))
    raises(RuntimeError, "torch.geqrf: input must have at least 2 dimensions.",
           lambda: nbgrad.geqrf(nbgrad.ones(3, dtype=nbgrad.int64)))
    for dtype, name in ((nbgrad.int64, "Long"), (nbgrad.int32, "Int"), (nbgrad.float16, "Half"),
                        (nbgrad.bool, "Bool")):
        raises(NotImplementedError, f"\"geqrf_cpu\" not implemented for '{name}'",
               lambda: nbgrad.geqrf(nbgrad.ones(3, 3, dtype=dtype)))


def test_geqrf_out():
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    a, tau = nbgrad.geqrf(t(x))
    out = (nbgrad.empty(0), nbgrad.empty(0))
    result = nbgrad.geqrf(t(x), out=out)
    assert type(result).__name__ == "geqrf_out" and result.a is out[0] and result.tau is out[1]
    assert np.array_equal(out[0].numpy(), a.numpy()) and np.array_equal(out[1].numpy(), tau.numpy())
    assert out[0].stride() == (1, 5)       # an empty out of the dtype: LAPACK's layout (torch 2.13)
    # another floating dtype is cast to; its layout is row-major, as resize_output's
    wide = (nbgrad.empty(0, dtype=nbgrad.float64), nbgrad.empty(0))
    nbgrad.geqrf(t(x), out=wide)
    assert wide[0].dtype == nbgrad.float64 and wide[0].stride() == (3, 1)
    np.testing.assert_allclose(wide[0].numpy(), a.numpy())
    batched = (nbgrad.empty(0), nbgrad.empty(0))
    nbgrad.geqrf(t(RNG.standard_normal((2, 5, 3)).astype(np.float32)), out=batched)
    assert batched[0].stride() == (15, 1, 5) and batched[1].stride() == (3, 1)
    raises(RuntimeError, "torch.geqrf: Expected a to be safely castable from Float dtype, but got a with dtype Long",
           lambda: nbgrad.geqrf(t(x), out=(nbgrad.empty(0, dtype=nbgrad.int64), nbgrad.empty(0))))
    raises(RuntimeError, "torch.geqrf: Expected tau to be safely castable from Float dtype, but got tau with dtype "
           "Long", lambda: nbgrad.geqrf(t(x), out=(nbgrad.empty(0), nbgrad.empty(0, dtype=nbgrad.int64))))
    raises(TypeError, "geqrf(): argument 'out' must be tuple of Tensors, not Tensor",
           lambda: nbgrad.geqrf(t(x), out=nbgrad.empty(0)))
    raises(TypeError, "expected tuple of 2 elements but got 1", lambda: nbgrad.geqrf(t(x), out=(nbgrad.empty(0),)))
    raises(TypeError, "expected Tensor as element 1 in argument 1, but got int",
           lambda: nbgrad.geqrf(t(x), out=(nbgrad.empty(0), 1)))
    raises(RuntimeError, "geqrf(): functions with out=... arguments don't support automatic differentiation, but "
           "one of the arguments requires grad.",
           lambda: nbgrad.geqrf(t(x, requires_grad=True), out=(nbgrad.empty(0), nbgrad.empty(0))))


# -- householder_product: values ----------------------------------------------------------
@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (6, 1), (2, 3, 5, 2), (0, 4, 3), (3, 0), (0, 0)])
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 2e-5)])
def test_householder_product_multiplies_the_reflectors(shape, dtype, tol):
    n = shape[-1]
    for k in sorted({0, n // 2, n}):
        a = RNG.standard_normal(shape).astype(dtype)
        tau = RNG.uniform(-1.5, 1.5, shape[:-2] + (k,)).astype(dtype)
        Q = LA.householder_product(t(a), t(tau))
        assert tuple(Q.shape) == shape and Q.dtype == t(a).dtype
        np.testing.assert_allclose(Q.numpy(), reflector_product(a, tau), rtol=tol, atol=tol)


def test_householder_product_reads_below_the_diagonal_only():
    a = RNG.standard_normal((5, 3))
    tau = RNG.uniform(0, 2, 3)
    changed = a + np.triu(RNG.standard_normal((5, 3)))
    np.testing.assert_array_equal(LA.householder_product(t(a), t(tau)).numpy(),
                                  LA.householder_product(t(changed), t(tau)).numpy())


def test_householder_product_reads_strided_inputs():
    base = RNG.standard_normal((2, 4, 7))
    tau_base = RNG.uniform(0, 2, (2, 6))
    a, tau = t(base).mT[:, ::2], t(tau_base)[:, ::2]         # (2, 4, 4) and (2, 3), strided
    np.testing.assert_allclose(LA.householder_product(a, tau).numpy(),
                               reflector_product(np.swapaxes(base, -1, -2)[:, ::2], tau_base[:, ::2]), atol=1e-12)


@pytest.mark.parametrize("shape,strides", [
    # recorded from torch 2.13
    ((5, 3), (1, 5)), ((2, 3, 5, 3), (45, 15, 1, 5)), ((0, 5, 3), (15, 1, 5)), ((5, 0), (1, 5)), ((0, 0), (1, 1)),
    ((2, 0, 0), (1, 1, 1))])
def test_householder_product_layouts(shape, strides):
    tau = nbgrad.ones(*shape[:-2], min(shape[-1], 2))
    assert LA.householder_product(nbgrad.ones(*shape), tau).stride() == strides


def test_orgqr_is_householder_product():
    a = t(RNG.standard_normal((2, 5, 3)))
    tau = t(RNG.uniform(0, 2, (2, 2)))
    Q = LA.householder_product(a, tau).numpy()
    assert np.array_equal(nbgrad.orgqr(a, tau).numpy(), Q)
    assert np.array_equal(a.orgqr(tau).numpy(), Q)
    assert np.array_equal(a.orgqr(input2=tau).numpy(), Q)
    assert np.array_equal(nbgrad.orgqr(input=a, input2=tau).numpy(), Q)
    assert np.array_equal(LA.householder_product(input=a, tau=tau).numpy(), Q)


# -- householder_product: gradients -------------------------------------------------------
def test_householder_product_gradients_as_pytorchs():
    # recorded from torch 2.13 (every value below is exact in binary)
    A = nbgrad.tensor([[1., 2., 3.], [4., -5., 6.], [0.5, 8., -9.], [1., -1., 2.]], dtype=nbgrad.float64,
                      requires_grad=True)
    tau = nbgrad.tensor([0.5, 1.25, -0.75], dtype=nbgrad.float64, requires_grad=True)
    G = nbgrad.tensor([[1., 0., -1.], [2., 1., 0.], [0., -1., 1.], [1., 1., 1.]], dtype=nbgrad.float64)
    Q = LA.householder_product(A, tau)
    assert Q.grad_fn.name() == "LinalgHouseholderProductBackward0"
    np.testing.assert_allclose(Q.tolist(), [[0.5, 2.375, 53.5], [-2.0, 9.25, 198.375], [-0.25, -8.8125, -96.5],
                                            [-0.5, 3.625, 70.625]], rtol=1e-14)
    (Q * G).sum().backward()
    np.testing.assert_allclose(A.grad.tolist(), [[0.0, 0.0, 0.0], [5.84375, 0.0, 0.0], [104.4375, -22.5, 0.0],
                                                 [48.28125, -20.0, 5.484375]], rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(tau.grad.tolist(), [64.875, -41.875, 37.0], rtol=1e-13)


@pytest.mark.parametrize("shape,k", [((5, 3), 2), ((4, 4), 4), ((4, 4), 3), ((2, 5, 3), 3), ((6, 1), 1),
                                     ((2, 1, 4, 2), 2)])
def test_householder_product_gradcheck(shape, k):
    a = t(RNG.standard_normal(shape), requires_grad=True)
    tau = t(RNG.uniform(-1.5, 1.5, shape[:-2] + (k,)), requires_grad=True)
    assert nbgrad.autograd.gradcheck(LA.householder_product, (a, tau))
    assert nbgrad.autograd.gradgradcheck(LA.householder_product, (a, tau))


def test_householder_product_gradient_in_one_argument():
    a = RNG.standard_normal((5, 3))
    tau = RNG.uniform(0, 2, 3)
    A, T = t(a, requires_grad=True), t(tau)
    assert nbgrad.autograd.gradcheck(lambda x: LA.householder_product(x, T), (A,))
    assert nbgrad.autograd.gradgradcheck(lambda x: LA.householder_product(x, T), (A,))
    A, T = t(a), t(tau, requires_grad=True)
    assert nbgrad.autograd.gradcheck(lambda y: LA.householder_product(A, y), (T,))
    assert nbgrad.autograd.gradgradcheck(lambda y: LA.householder_product(A, y), (T,))
    Q = LA.householder_product(A, T)
    assert Q.grad_fn.name() == "LinalgHouseholderProductBackward0"


def test_householder_product_of_geqrf_differentiates_through_q():
    x = RNG.standard_normal((6, 4))
    a, tau = nbgrad.geqrf(t(x))
    A, T = a.detach().requires_grad_(), tau.detach().requires_grad_()
    assert nbgrad.autograd.gradcheck(nbgrad.orgqr, (A, T))
    Q = A.orgqr(T)
    assert Q.grad_fn.name() == "LinalgHouseholderProductBackward0"
    Q.sum().backward()
    # the diagonal and what is above it are not read: no gradient there
    assert np.all(np.triu(A.grad.numpy()) == 0)


def test_householder_product_reads_only_the_first_k_columns():
    A = t(RNG.standard_normal((5, 4)), requires_grad=True)
    tau = t(RNG.uniform(0, 2, 2), requires_grad=True)
    (LA.householder_product(A, tau) ** 2).sum().backward()
    assert np.all(A.grad.numpy()[:, 2:] == 0) and np.any(A.grad.numpy()[:, :2] != 0)


def test_householder_product_of_nothing_gives_no_gradient():
    # recorded from torch 2.13: an empty tau (or input) leaves the gradients undefined
    A = t(RNG.standard_normal((5, 3)), requires_grad=True)
    tau = t(np.zeros(0), requires_grad=True)
    Q = LA.householder_product(A, tau)
    assert Q.grad_fn.name() == "LinalgHouseholderProductBackward0"
    np.testing.assert_array_equal(Q.detach().numpy(), np.eye(5, 3))
    Q.sum().backward()
    assert A.grad is None and tau.grad is None


def test_householder_product_saves_its_result():
    A = t(RNG.standard_normal((4, 3)), requires_grad=True)
    tau = t(RNG.uniform(0, 2, 3), requires_grad=True)
    Q = LA.householder_product(A, tau)
    Q.add_(1)
    with pytest.raises(RuntimeError, match="output 0 of LinalgHouseholderProduct, is at version 1; expected "
                                           "version 0 instead"):
        Q.sum().backward()


# -- householder_product: errors and out= -------------------------------------------------
HP = "torch.linalg.householder_product"


def test_householder_product_errors():
    H = LA.householder_product
    raises(RuntimeError, f"{HP}: input must have at least 2 dimensions.", lambda: H(nbgrad.randn(5), nbgrad.rand(2)))
    raises(RuntimeError, f"{HP}: input.shape[-2] must be greater than or equal to input.shape[-1]",
           lambda: H(nbgrad.randn(3, 5), nbgrad.rand(2)))
    raises(RuntimeError, f"{HP}: input.shape[-1] must be greater than or equal to tau.shape[-1]",
           lambda: H(nbgrad.randn(5, 3), nbgrad.rand(4)))
    raises(RuntimeError, f"{HP}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got [3]",
           lambda: H(nbgrad.randn(2, 5, 3), nbgrad.rand(3, 2)))
    raises(RuntimeError, f"{HP}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got [2, 1]",
           lambda: H(nbgrad.randn(2, 3, 5, 3), nbgrad.rand(2, 1, 2)))
    raises(RuntimeError, f"{HP}: Expected tau to have one dimension less than input, but got tau.ndim equal to 1 "
           "and input.ndim is equal to 3", lambda: H(nbgrad.randn(2, 5, 3), nbgrad.rand(2)))
    raises(RuntimeError, f"{HP}: Expected tau to have one dimension less than input, but got tau.ndim equal to 2 "
           "and input.ndim is equal to 2", lambda: H(nbgrad.randn(5, 3), nbgrad.rand(2, 2)))
    raises(IndexError, "Dimension specified as -1 but tensor has no dimensions",
           lambda: H(nbgrad.randn(5, 3), nbgrad.rand(())))
    raises(RuntimeError, f"{HP}: tau dtype Double does not match input dtype Float",
           lambda: H(nbgrad.randn(5, 3), nbgrad.rand(2, dtype=nbgrad.float64)))
    raises(RuntimeError, f"{HP}: tau dtype Float does not match input dtype Int",
           lambda: H(nbgrad.ones(5, 3, dtype=nbgrad.int32), nbgrad.rand(2)))
    for dtype, name in ((nbgrad.int32, "Int"), (nbgrad.float16, "Half"), (nbgrad.bool, "Bool")):
        raises(NotImplementedError, f"\"orgqr_cpu\" not implemented for '{name}'",
               lambda: H(nbgrad.ones(5, 3, dtype=dtype), nbgrad.ones(2, dtype=dtype)))
    raises(TypeError, "linalg_householder_product(): argument 'tau' (position 2) must be Tensor, not float",
           lambda: H(nbgrad.randn(5, 3), 1.0))
    raises(TypeError, "linalg_householder_product(): argument 'input' (position 1) must be Tensor, not float",
           lambda: H(1.0, nbgrad.rand(2)))
    raises(TypeError, "orgqr(): argument 'input2' (position 2) must be Tensor, not float",
           lambda: nbgrad.orgqr(nbgrad.randn(5, 3), 1.0))
    raises(TypeError, "orgqr(): argument 'input2' (position 1) must be Tensor, not float",
           lambda: nbgrad.randn(5, 3).orgqr(1.0))
    # orgqr's errors are householder_product's
    raises(RuntimeError, f"{HP}: input.shape[-2] must be greater than or equal to input.shape[-1]",
           lambda: nbgrad.orgqr(nbgrad.randn(3, 5), nbgrad.rand(2)))
    raises(RuntimeError, f"{HP}: tau dtype Double does not match input dtype Float",
           lambda: nbgrad.randn(5, 3).orgqr(nbgrad.rand(2, dtype=nbgrad.float64)))


def test_householder_product_out():
    a = t(RNG.standard_normal((5, 3)).astype(np.float32))
    tau = t(RNG.uniform(0, 2, 2).astype(np.float32))
    Q = LA.householder_product(a, tau)
    for fn in (LA.householder_product, nbgrad.orgqr):
        out = nbgrad.empty(0)
        assert fn(a, tau, out=out) is out
        assert np.array_equal(out.numpy(), Q.numpy()) and out.stride() == (1, 5)    # recorded: LAPACK's layout
        wide = nbgrad.empty(0, dtype=nbgrad.float64)
        fn(a, tau, out=wide)
        assert wide.dtype == nbgrad.float64 and wide.stride() == (3, 1)
        np.testing.assert_allclose(wide.numpy(), Q.numpy())
        same_shape = nbgrad.empty(5, 3)
        fn(a, tau, out=same_shape)
        assert same_shape.stride() == (3, 1) and np.array_equal(same_shape.numpy(), Q.numpy())
        raises(RuntimeError, f"{HP}: Expected result to be safely castable from Float dtype, but got result with "
               "dtype Long", lambda: fn(a, tau, out=nbgrad.empty(0, dtype=nbgrad.int64)))
    raises(TypeError, "linalg_householder_product(): argument 'out' must be Tensor, not int",
           lambda: LA.householder_product(a, tau, out=1))
    raises(RuntimeError, "linalg_householder_product(): functions with out=... arguments don't support automatic "
           "differentiation, but one of the arguments requires grad.",
           lambda: LA.householder_product(a.detach().requires_grad_(), tau, out=nbgrad.empty(0)))
