"""nbgrad.linalg: values against NumPy, gradients against finite differences (float64,
batched; gauge-invariant losses for svd/eigh, as PyTorch's own tests), grad_fn names,
layouts and errors as PyTorch 2.13 gives them (recorded; no torch here)."""
import math

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

LA = nbgrad.linalg
RNG = np.random.default_rng(7)


def t(a, **kw):
    return nbgrad.tensor(np.asarray(a), **kw)


def leaf(*shape):
    return t(RNG.standard_normal(shape), requires_grad=True)


def spd(*shape):
    a = RNG.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym(x):
    """A symmetric input built from x (eigh/cholesky read one triangle: PyTorch's tests
    differentiate through A + A^H)."""
    return x + x.mT


def col_outer(m):
    """u_j u_j^T for each column u_j of m: invariant under the columns' signs."""
    return m.mT.unsqueeze(-1) * m.mT.unsqueeze(-2)


# -- values ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-10), (np.float32, 1e-4)])
def test_inv_det_slogdet_solve_match_numpy(dtype, tol):
    a = RNG.standard_normal((2, 3, 4, 4)).astype(dtype)
    b = RNG.standard_normal((2, 3, 4, 2)).astype(dtype)
    A, B = t(a), t(b)
    np.testing.assert_allclose(LA.inv(A).numpy(), np.linalg.inv(a), rtol=tol, atol=tol)
    np.testing.assert_allclose(LA.det(A).numpy(), np.linalg.det(a), rtol=tol, atol=tol)
    sign, logabs = LA.slogdet(A)
    ref_sign, ref_log = np.linalg.slogdet(a)
    np.testing.assert_array_equal(sign.numpy(), ref_sign)
    np.testing.assert_allclose(logabs.numpy(), ref_log, rtol=tol, atol=tol)
    np.testing.assert_allclose(LA.solve(A, B).numpy(), np.linalg.solve(a, b), rtol=tol * 10, atol=tol * 10)
    assert LA.inv(A).dtype == A.dtype and LA.det(A).shape == (2, 3)


def test_inputs_are_read_through_their_strides():
    a = RNG.standard_normal((3, 5, 5))
    A = t(a).mT[:, 1:, ::2][:, :3]          # a strided (3, 3, 3) view
    ref = np.swapaxes(a, -1, -2)[:, 1:, ::2][:, :3]
    np.testing.assert_allclose(LA.inv(A).numpy(), np.linalg.inv(ref), atol=1e-10)
    np.testing.assert_allclose(LA.det(A).numpy(), np.linalg.det(ref), atol=1e-10)
    np.testing.assert_allclose(LA.svdvals(A).numpy(), np.linalg.svd(ref, compute_uv=False), atol=1e-10)


def test_results_are_laid_out_batched_column_major_as_pytorch():
    # PyTorch 2.13: inv/solve/cholesky/svd/qr/eigh results of (2, 3, 3) have strides (9, 1, 3)
    A = t(spd(2, 3, 3))
    assert LA.inv(A).stride() == (9, 1, 3)
    assert LA.cholesky(A).stride() == (9, 1, 3)
    assert LA.cholesky(A, upper=True).stride() == (9, 1, 3)
    assert LA.solve(A, t(RNG.standard_normal((2, 3, 2)))).stride() == (6, 1, 3)
    U, S, Vh = LA.svd(t(RNG.standard_normal((2, 4, 3))))
    assert (U.stride(), S.stride(), Vh.stride()) == ((16, 1, 4), (3, 1), (9, 1, 3))
    Q, R = LA.qr(t(RNG.standard_normal((2, 4, 3))))
    assert (Q.stride(), R.stride()) == ((12, 1, 4), (9, 1, 3))
    w, v = LA.eigh(A)
    assert (w.stride(), v.stride()) == ((3, 1), (9, 1, 3))


def test_solve_vector_and_broadcast_right_hand_sides():
    a = RNG.standard_normal((2, 3, 3))
    A = t(a)
    v = RNG.standard_normal(3)
    x = LA.solve(A, t(v))                             # a vector for every matrix
    assert x.shape == (2, 3)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, np.broadcast_to(v[:, None], (2, 3, 1)))[..., 0])
    bv = RNG.standard_normal((2, 3))                  # a batch of vectors: B.shape == A.shape[:-1]
    np.testing.assert_allclose(LA.solve(A, t(bv)).numpy(), np.linalg.solve(a, bv[..., None])[..., 0])
    b = RNG.standard_normal((4, 1, 3, 2))             # batch dims broadcast
    x = LA.solve(A, t(b))
    assert x.shape == (4, 2, 3, 2)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(np.broadcast_to(a, (4, 2, 3, 3)), np.broadcast_to(b, (4, 2, 3, 2))))
    # left=False solves X A = B
    b2 = RNG.standard_normal((2, 5, 3))
    np.testing.assert_allclose(LA.solve(A, t(b2), left=False).numpy() @ a, b2, atol=1e-10)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_reconstructs_and_matches_numpy(shape, full):
    a = RNG.standard_normal(shape)
    U, S, Vh = LA.svd(t(a), full_matrices=full)
    u, s, vh = np.linalg.svd(a, full_matrices=full)
    assert U.shape == u.shape and S.shape == s.shape and Vh.shape == vh.shape
    np.testing.assert_allclose(S.numpy(), s, atol=1e-12)
    k = s.shape[-1]
    rebuilt = (U.numpy()[..., :k] * S.numpy()[..., None, :]) @ Vh.numpy()[..., :k, :]
    np.testing.assert_allclose(rebuilt, a, atol=1e-12)
    np.testing.assert_allclose(np.abs(U.numpy()), np.abs(u), atol=1e-10)
    np.testing.assert_allclose(LA.svdvals(t(a)).numpy(), s, atol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_matches_numpy(shape, mode):
    a = RNG.standard_normal(shape)
    Q, R = LA.qr(t(a), mode=mode)
    q, r = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    np.testing.assert_allclose(R.numpy(), r, atol=1e-12)
    if mode == "r":
        assert Q.shape == (0,)
    else:
        np.testing.assert_allclose(Q.numpy(), q, atol=1e-12)
        np.testing.assert_allclose(Q.numpy() @ R.numpy(), a, atol=1e-12)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_reads_one_triangle(upper):
    # LAPACK's uplo: the lower triangle, or with upper=True the upper one; the other is ignored
    a = spd(2, 4, 4)
    junk = a + (np.tril if upper else np.triu)(RNG.standard_normal((4, 4)), -1 if upper else 1)
    L = LA.cholesky(t(junk), upper=upper).numpy()
    ref = np.linalg.cholesky(a)
    np.testing.assert_allclose(L, np.swapaxes(ref, -1, -2) if upper else ref, atol=1e-12)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_reads_one_triangle(uplo):
    a = RNG.standard_normal((2, 4, 4))
    w, v = LA.eigh(t(a), UPLO=uplo)
    ref_w, ref_v = np.linalg.eigh(a, UPLO=uplo)
    np.testing.assert_allclose(w.numpy(), ref_w, atol=1e-12)
    np.testing.assert_allclose(np.abs(v.numpy()), np.abs(ref_v), atol=1e-10)
    np.testing.assert_allclose(LA.eigvalsh(t(a), UPLO=uplo).numpy(), ref_w, atol=1e-12)


def test_cross_matches_numpy_with_broadcasting_and_dim():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((1, 3))
    np.testing.assert_allclose(LA.cross(t(a), t(b)).numpy(), np.cross(a, b))
    a2, b2 = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 5))
    np.testing.assert_allclose(LA.cross(t(a2), t(b2), dim=0).numpy(), np.cross(a2, b2, axis=0))
    ints = LA.cross(t(np.array([1, 0, 0])), t(np.array([0, 1, 0])))
    assert ints.dtype == nbgrad.int64 and ints.tolist() == [0, 0, 1]


MATRIX_ORDS = ["fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2]


@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norm_matches_numpy(ord):
    a = RNG.standard_normal((2, 3, 4))
    ref = np.linalg.norm(a, ord=ord, axis=(-2, -1))
    np.testing.assert_allclose(LA.matrix_norm(t(a), ord).numpy(), ref, atol=1e-12)
    kept = LA.matrix_norm(t(a), ord, dim=(0, 2), keepdim=True)
    np.testing.assert_allclose(kept.numpy(), np.linalg.norm(a, ord=ord, axis=(0, 2), keepdims=True), atol=1e-12)
    np.testing.assert_allclose(LA.norm(t(a[0]), ord).numpy(), np.linalg.norm(a[0], ord=ord), atol=1e-12)


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, 0, math.inf, -math.inf, -1])
def test_vector_norm_matches_numpy(ord):
    a = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(LA.vector_norm(t(a), ord, dim=1).numpy(), np.linalg.norm(a, ord, axis=1), atol=1e-12)
    # over everything (PyTorch flattens: not NumPy's matrix norm)
    np.testing.assert_allclose(LA.vector_norm(t(a), ord).numpy(), np.linalg.norm(a.ravel(), ord), atol=1e-12)


def test_vector_norm_dtype_computes_in_that_dtype():
    x = t(np.array([3.0, 4.0], np.float32))
    out = LA.vector_norm(x, dtype=nbgrad.float64)
    assert out.dtype == nbgrad.float64 and out.item() == 5.0


def test_norm_dispatch_as_pytorch():
    a = RNG.standard_normal((2, 3, 4))
    # no ord: the 2-norm of everything, whatever the dims
    np.testing.assert_allclose(LA.norm(t(a)).numpy(), np.sqrt((a ** 2).sum()))
    np.testing.assert_allclose(LA.norm(t(a), 3, dim=1).numpy(), np.linalg.norm(a, 3, axis=1))
    # Tensor.norm / nbgrad.norm: a number p is always a vector norm, 'nuc' a matrix norm
    np.testing.assert_allclose(t(a[0]).norm(2).numpy(), np.sqrt((a[0] ** 2).sum()))
    np.testing.assert_allclose(t(a[0]).norm(p="nuc").numpy(), np.linalg.norm(a[0], "nuc"))
    np.testing.assert_allclose(nbgrad.norm(t(a), 1, dim=2, keepdim=True).numpy(), np.abs(a).sum(2, keepdims=True))


def test_empty_matrices():
    assert LA.det(nbgrad.ones(0, 0)).item() == 1.0
    assert LA.inv(nbgrad.ones(2, 0, 0)).shape == (2, 0, 0)
    U, S, Vh = LA.svd(nbgrad.ones(0, 3))
    assert U.shape == (0, 0) and S.shape == (0,)
    np.testing.assert_array_equal(Vh.numpy(), np.eye(3))
    assert LA.inv(nbgrad.ones(0, 3, 3)).shape == (0, 3, 3)


def test_tensor_methods_and_top_level_names():
    a = RNG.standard_normal((3, 3))
    A = t(a)
    np.testing.assert_allclose(A.det().item(), np.linalg.det(a))
    np.testing.assert_allclose(nbgrad.det(A).item(), np.linalg.det(a))
    np.testing.assert_allclose(A.inverse().numpy(), np.linalg.inv(a))
    np.testing.assert_allclose(nbgrad.inverse(A).numpy(), np.linalg.inv(a))
    assert nbgrad.slogdet(A).logabsdet.item() == pytest.approx(np.linalg.slogdet(a)[1])
    assert LA.svd(A)._fields == ("U", "S", "Vh") and LA.qr(A)._fields == ("Q", "R")
    assert LA.eigh(t(spd(3, 3)))._fields == ("eigenvalues", "eigenvectors")


# -- grad_fn names (PyTorch 2.13) ----------------------------------------------------------
def test_grad_fn_names():
    A, B = leaf(3, 3), leaf(3, 2)
    P = sym(leaf(3, 3)) + 6 * nbgrad.eye(3, dtype=nbgrad.float64)
    names = {
        "LinalgInvExBackward0": [LA.inv(A), nbgrad.inverse(A), A.inverse()],
        "LinalgDetBackward0": [LA.det(A), A.det()],
        "LinalgSlogdetBackward0": list(LA.slogdet(A)),
        "LinalgSolveExBackward0": [LA.solve(A, B), LA.solve(A, B[:, 0])],
        "LinalgSvdBackward0": list(LA.svd(A)) + [LA.svdvals(A)],
        "LinalgQrBackward0": list(LA.qr(A)) + [LA.qr(A, mode="r").R],
        "LinalgCholeskyExBackward0": [LA.cholesky(P), LA.cholesky(P, upper=True)],
        "LinalgEighBackward0": list(LA.eigh(P)) + [LA.eigvalsh(P)],
        "LinalgCrossBackward0": [LA.cross(A, B[:, :1].expand(3, 3))],
        "LinalgVectorNormBackward0": [LA.vector_norm(A), LA.norm(A), LA.matrix_norm(A), A.norm(), A.norm(1, dim=0)],
        "SumBackward1": [LA.matrix_norm(A, "nuc"), A.norm(p="nuc")],
        "AmaxBackward0": [LA.matrix_norm(A, o) for o in (math.inf, 1, 2)],
        "AminBackward0": [LA.matrix_norm(A, o) for o in (-math.inf, -1, -2)],
    }
    for name, outs in names.items():
        for out in outs:
            assert out.grad_fn.name() == name


# -- gradients ---------------------------------------------------------------------------
def test_gradcheck_inv_det_slogdet_batched():
    A = leaf(2, 3, 3)
    assert gradcheck(LA.inv, (A,))
    assert gradcheck(LA.det, (A,))
    assert gradcheck(lambda x: LA.slogdet(x).logabsdet, (A,))
    assert gradgradcheck(LA.inv, (leaf(3, 3),))
    assert gradgradcheck(LA.det, (leaf(2, 3, 3),))


def test_det_gradient_of_a_singular_matrix_is_its_cofactor_matrix():
    # exactly singular (its LU, of A^T as PyTorch factors a contiguous A, meets an exact zero
    # pivot): the gradient is the cofactor matrix, the value PyTorch gives with create_graph=True
    a = np.array([[1.0, 2.0, 1.0], [2.0, 4.0, 0.0], [3.0, 6.0, 1.0]])
    A = t(a, requires_grad=True)
    d = LA.det(A)
    assert d.item() == 0.0
    d.backward()
    cof = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) for j in range(3)]
                    for i in range(3)])
    np.testing.assert_allclose(A.grad.numpy(), cof, atol=1e-12)
    # a batch holding an exactly singular matrix beside a regular one
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    A = t(np.stack([s, np.eye(2) * 2]), requires_grad=True)
    LA.det(A).sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), [[[4.0, -2.0], [-2.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]]], atol=1e-12)
    assert gradcheck(LA.det, (t(a, requires_grad=True),))


@pytest.mark.parametrize("a_shape,b_shape", [((3, 3), (3, 2)), ((2, 3, 3), (2, 3)), ((3, 3), (3,)),
                                             ((3, 3), (2, 3, 2)), ((2, 1, 3, 3), (4, 3, 1))])
def test_gradcheck_solve(a_shape, b_shape):
    A, B = leaf(*a_shape), leaf(*b_shape)
    assert gradcheck(LA.solve, (A, B))


def test_gradgradcheck_solve():
    assert gradgradcheck(LA.solve, (leaf(3, 3), leaf(3, 2)))


@pytest.mark.parametrize("upper", [False, True])
def test_gradcheck_cholesky(upper):
    eye = nbgrad.eye(3, dtype=nbgrad.float64)
    fn = lambda x: LA.cholesky(x @ x.mT + 3 * eye, upper=upper)  # noqa: E731
    assert gradcheck(fn, (leaf(2, 3, 3),))
    assert gradgradcheck(fn, (leaf(3, 3),))


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_gradcheck_qr(shape, mode):
    if mode == "complete" and shape[-2] > shape[-1]:
        pytest.skip("not differentiable (tested below)")
    assert gradcheck(lambda x: LA.qr(x, mode=mode), (leaf(*shape),))
    assert gradcheck(lambda x: LA.qr(x, mode=mode).Q, (leaf(*shape),))
    assert gradcheck(lambda x: LA.qr(x, mode=mode).R, (leaf(*shape),))


def _svd_invariants(full):
    def fn(x):
        U, S, Vh = LA.svd(x, full_matrices=full)
        k = S.shape[-1]
        return S, col_outer(U[..., :k]), col_outer(Vh[..., :k, :].mT)
    return fn


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("full", [False, True])
def test_gradcheck_svd_gauge_invariant(shape, full):
    assert gradcheck(_svd_invariants(full), (leaf(*shape),))


def test_gradcheck_svdvals_and_second_order():
    assert gradcheck(LA.svdvals, (leaf(2, 4, 3),))
    assert gradgradcheck(LA.svdvals, (leaf(3, 4),))
    assert gradgradcheck(_svd_invariants(False), (leaf(4, 3),))


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_gradcheck_eigh_gauge_invariant(uplo):
    def fn(x):
        w, v = LA.eigh(sym(x), UPLO=uplo)
        return w, col_outer(v)
    assert gradcheck(fn, (leaf(2, 3, 3),))
    assert gradcheck(lambda x: LA.eigvalsh(sym(x), UPLO=uplo), (leaf(4, 4),))
    assert gradgradcheck(fn, (leaf(3, 3),))


def test_gradcheck_cross():
    assert gradcheck(LA.cross, (leaf(4, 3), leaf(1, 3)))
    assert gradcheck(lambda a, b: LA.cross(a, b, dim=0), (leaf(3, 2), leaf(3, 2)))


@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_gradcheck_matrix_norm(ord):
    assert gradcheck(lambda x: LA.matrix_norm(x, ord), (leaf(2, 3, 4),))
    assert gradcheck(lambda x: LA.matrix_norm(x, ord, dim=(2, 0), keepdim=True), (leaf(3, 2, 4),))


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, math.inf, -math.inf])
def test_gradcheck_vector_norm(ord):
    assert gradcheck(lambda x: LA.vector_norm(x, ord, dim=(0, 2)), (leaf(2, 3, 4),))
    assert gradcheck(lambda x: x.norm(ord, dim=1, keepdim=True), (leaf(2, 3),))


def test_vector_norm_with_dtype_differentiates_to_the_input_dtype():
    x = t(np.array([3.0, 4.0], np.float32), requires_grad=True)
    LA.vector_norm(x, dtype=nbgrad.float64).backward()
    assert x.grad.dtype == nbgrad.float32
    np.testing.assert_allclose(x.grad.numpy(), [0.6, 0.8], rtol=1e-6)


# -- errors (PyTorch 2.13's types and messages) ----------------------------------------------
def test_linalg_error_is_a_runtime_error():
    assert issubclass(LA.LinAlgError, RuntimeError)


def test_singular_matrices():
    s = t(np.array([[1.0, 2.0], [2.0, 4.0]]))
    msg = ("linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the "
           "input matrix is singular.")
    with pytest.raises(LA.LinAlgError) as e:
        LA.inv(s)
    assert str(e.value) == msg
    batch = nbgrad.stack([nbgrad.eye(2, dtype=nbgrad.float64), s])
    with pytest.raises(LA.LinAlgError, match=r"^linalg\.inv: \(Batch element 1\): The diagonal element 2 is zero"):
        LA.inv(batch)
    with pytest.raises(LA.LinAlgError, match=r"^torch\.linalg\.solve: The solver failed because the input matrix is singular\.$"):
        LA.solve(s, nbgrad.ones(2, 1, dtype=nbgrad.float64))
    with pytest.raises(LA.LinAlgError, match=r"^torch\.linalg\.solve: \(Batch element 1\): The solver failed"):
        LA.solve(batch, nbgrad.ones(2, 2, 1, dtype=nbgrad.float64))
    # det and slogdet of a singular matrix are values, not errors
    assert LA.det(s).item() == 0.0
    sign, logabs = LA.slogdet(s)
    assert sign.item() == 0.0 and logabs.item() == -math.inf


def test_cholesky_of_a_matrix_that_is_not_positive_definite():
    bad = t(np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(LA.LinAlgError) as e:
        LA.cholesky(bad)
    assert str(e.value) == ("linalg.cholesky: The factorization could not be completed because the input is not "
                            "positive-definite (the leading minor of order 2 is not positive-definite).")
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 1\): .* leading minor of order 1 "):
        LA.cholesky(t(np.stack([np.eye(2), -np.eye(2)])))


@pytest.mark.parametrize("fn,name", [(LA.inv, "linalg.inv"), (LA.det, "linalg.det"), (LA.cholesky, "linalg.cholesky"),
                                     (LA.eigh, "linalg.eigh"), (LA.slogdet, "linalg.slogdet")])
def test_shape_errors(fn, name):
    with pytest.raises(RuntimeError, match=rf"^{name}: A must be batches of square matrices, but they are 2 by 3 matrices$"):
        fn(nbgrad.ones(2, 3))
    with pytest.raises(RuntimeError, match=rf"^{name}: The input tensor A must have at least 2 dimensions\.$"):
        fn(nbgrad.ones(3))


def test_dtype_errors():
    ints = nbgrad.ones(2, 2, dtype=nbgrad.int64)
    for fn, name in [(LA.inv, "linalg.inv"), (LA.det, "linalg.det"), (LA.svd, "linalg.svd"), (LA.qr, "linalg.qr"),
                     (LA.cholesky, "linalg.cholesky"), (LA.vector_norm, "linalg.vector_norm"),
                     (LA.matrix_norm, "linalg.matrix_norm"), (LA.slogdet, "linalg.slogdet")]:
        with pytest.raises(RuntimeError, match=rf"^{name}: Expected a floating point or complex tensor as input\. Got Long$"):
            fn(ints)
    with pytest.raises(NotImplementedError, match="\"linalg_eigh_cpu\" not implemented for 'Long'"):
        LA.eigh(ints)
    half = nbgrad.ones(2, 2, dtype=nbgrad.float16)
    with pytest.raises(RuntimeError, match=r"^linalg\.inv: Low precision dtypes not supported\. Got Half$"):
        LA.inv(half)
    with pytest.raises(NotImplementedError, match="\"linalg_svd_cpu\" not implemented for 'Half'"):
        LA.svdvals(half)
    with pytest.raises(NotImplementedError, match="\"lu_cpu\" not implemented for 'Half'"):
        LA.det(half)
    with pytest.raises(RuntimeError, match=r"^linalg\.solve: Expected A and B to have the same dtype, but found A of "
                                           r"type Float and B of type Double instead$"):
        LA.solve(nbgrad.eye(2), nbgrad.ones(2, dtype=nbgrad.float64))
    x = nbgrad.ones(3, dtype=nbgrad.float64)
    with pytest.raises(RuntimeError, match=r"should be convertible without narrowing to the specified dtype \(Float\)"):
        LA.vector_norm(x, dtype=nbgrad.float32)
    with pytest.raises(RuntimeError, match=r"dtype should be floating point or complex, but got Long"):
        LA.vector_norm(x, dtype=nbgrad.int64)


def test_argument_errors():
    with pytest.raises(RuntimeError, match=r"^linalg\.solve: Incompatible shapes of A and B for the equation AX = B \(2x2 and 3x1\)$"):
        LA.solve(nbgrad.eye(2), nbgrad.ones(3))
    with pytest.raises(RuntimeError, match=r"must match the size of tensor b"):
        LA.solve(nbgrad.eye(2).expand(3, 2, 2), nbgrad.ones(4, 2, 1))
    with pytest.raises(RuntimeError, match=r"^qr received unrecognized mode 'foo' but expected one of 'reduced' "
                                           r"\(default\), 'r', or 'complete'$"):
        LA.qr(nbgrad.ones(2, 2), mode="foo")
    with pytest.raises(RuntimeError, match=r"^Expected UPLO argument to be 'L' or 'U', but got X$"):
        LA.eigh(nbgrad.eye(2), UPLO="X")
    with pytest.raises(RuntimeError, match=r"^linalg\.cross: inputs dimension -1 must have length 3\. Got 2 and 2$"):
        LA.cross(nbgrad.ones(2), nbgrad.ones(2))
    with pytest.raises(RuntimeError, match=r"^linalg\.cross: inputs must have the same number of dimensions\.$"):
        LA.cross(nbgrad.ones(2, 3), nbgrad.ones(4, 1, 3))
    with pytest.raises(RuntimeError, match=r"^expected scalar type Float but found Double$"):
        LA.cross(nbgrad.ones(3), nbgrad.ones(3, dtype=nbgrad.float64))
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: Order 3 not supported\.$"):
        LA.matrix_norm(nbgrad.ones(3, 3), 3)
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: Order foo not supported\.$"):
        LA.matrix_norm(nbgrad.ones(3, 3), "foo")
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: The input tensor A must have at least 2 dimensions\.$"):
        LA.norm(nbgrad.ones(3), "fro")
    with pytest.raises(RuntimeError, match=r"^linalg\.norm: If dim is not specified but ord is, the input must be 1D "
                                           r"or 2D\. Got 3D\.$"):
        LA.norm(nbgrad.ones(3, 3, 3), 2)
    with pytest.raises(RuntimeError, match=r"^linalg\.norm: If dim is specified, it must be of length 1 or 2\. Got \[0, 1, 2\]$"):
        LA.norm(nbgrad.ones(3, 3, 3), dim=(0, 1, 2))


def test_qr_backward_errors():
    x = leaf(3, 2)
    with pytest.raises(RuntimeError, match=r"^The derivative of linalg\.qr depends on Q, which is not computed when "
                                           r"mode='r'\."):
        LA.qr(x, mode="r").R.sum().backward()
    with pytest.raises(RuntimeError, match=r"^The QR decomposition is not differentiable when mode='complete' and "
                                           r"nrows > ncols\.$"):
        LA.qr(x, mode="complete").Q.sum().backward()


def test_a_failed_call_leaves_its_input_unchanged():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    A = t(a, requires_grad=True)
    with pytest.raises(LA.LinAlgError):
        LA.inv(A)
    with pytest.raises(LA.LinAlgError):
        LA.cholesky(A)
    np.testing.assert_array_equal(A.detach().numpy(), a)
    assert A.grad is None and A._version == 0


def test_torch_cross_function_and_method():
    rng = np.random.default_rng(5)
    a_np, b_np = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    a = nbgrad.tensor(a_np, requires_grad=True)
    b = nbgrad.tensor(b_np)
    for out in (nbgrad.cross(a, b, dim=1), a.cross(b, 1), nbgrad.cross(input=a, other=b, dim=-1)):
        np.testing.assert_allclose(out.detach().numpy(), np.cross(a_np, b_np, axis=1), rtol=1e-14)
        assert type(out.grad_fn).__name__ == "LinalgCrossBackward0"
    # without dim: the first dim of size 3, with PyTorch's deprecation warning
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        out = nbgrad.cross(nbgrad.tensor(np.eye(3)), nbgrad.tensor(np.ones((3, 3))))
    np.testing.assert_allclose(out.numpy(), np.cross(np.eye(3), np.ones((3, 3)), axis=0))
    with pytest.raises(RuntimeError, match="must have length 3"):
        nbgrad.cross(nbgrad.ones(2, 2), nbgrad.ones(2, 2), dim=1)


@pytest.mark.parametrize("a_shape, b_shape, strides", [
    # recorded from torch 2.13: a batch of solved vectors is the transpose of a row-major
    # (..., n, batch) result
    ((2, 3, 3), (2, 3), (1, 2)), ((4, 2, 3, 3), (4, 2, 3), (6, 1, 2)), ((2, 3, 3), (3,), (1, 2)),
    ((1, 3, 3), (1, 3), (1, 1)), ((3, 3), (3,), (1,)), ((2, 3, 3), (2, 3, 1), (3, 1, 3)),
])
def test_solve_result_layout(a_shape, b_shape, strides):
    rng = np.random.default_rng(6)
    A = rng.standard_normal(a_shape) + 3 * np.eye(3)
    B = rng.standard_normal(b_shape)
    X = nbgrad.linalg.solve(nbgrad.tensor(A), nbgrad.tensor(B))
    assert X.stride() == strides
    vector = len(b_shape) == 1 or len(b_shape) == len(a_shape) - 1
    want = np.linalg.solve(A, B[..., None])[..., 0] if vector else np.linalg.solve(A, B)
    np.testing.assert_allclose(X.numpy(), np.broadcast_to(want, X.shape), rtol=1e-12)


# -- found by the differential tester (seeds 4121, 5122): recorded from torch 2.13 ----------------
def test_det_and_slogdet_gradients_of_an_infinite_upstream_gradient():
    # xlogy(det, 0) is -inf: PyTorch's det backward puts g * det on a diagonal (zeros off it,
    # not 0 * inf) and solves: infinities, no NaN
    a = [[2.94, 0.74], [0.24, 2.12]]
    for fn in (lambda A: A.det(), lambda A: nbgrad.linalg.slogdet(A)[1]):
        A = nbgrad.tensor(a, requires_grad=True)
        (g,) = nbgrad.autograd.grad(fn(A), [A], grad_outputs=nbgrad.tensor(-math.inf))
        assert g.tolist() == [[-math.inf, math.inf], [math.inf, -math.inf]]
    # a finite matrix and a right-hand side with inf / NaN: LAPACK's substitutions
    x = nbgrad.linalg.solve(nbgrad.tensor(a), nbgrad.tensor([[math.inf, 1.0], [math.nan, 2.0]]))
    assert np.isnan(x.numpy()[:, 0]).all()
    np.testing.assert_allclose(x.numpy()[:, 1], [0.1056942567229271, 0.9314308762550354], rtol=1e-6)
    x = nbgrad.linalg.solve(nbgrad.tensor(a, dtype=nbgrad.float64), nbgrad.tensor([[1.0, math.inf], [0.0, 0.0]],
                                                                                  dtype=nbgrad.float64))
    assert x.numpy()[0, 1] == math.inf and x.numpy()[1, 1] == -math.inf


def test_cholesky_of_nan_fails_as_pytorchs_and_reads_the_lower_triangle_only():
    with pytest.raises(nbgrad.linalg.LinAlgError, match="the leading minor of order 1 is not positive-definite"):
        nbgrad.linalg.cholesky(nbgrad.tensor([[math.nan]]))
    with pytest.raises(nbgrad.linalg.LinAlgError, match="order 2 is not"):
        nbgrad.linalg.cholesky(nbgrad.tensor([[4.0, 1.0], [math.nan, 3.0]]))
    L = nbgrad.linalg.cholesky(nbgrad.tensor([[4.0, math.nan], [2.0, 3.0]], dtype=nbgrad.float64))
    np.testing.assert_allclose(L.numpy(), [[2.0, 0.0], [1.0, math.sqrt(2.0)]], rtol=1e-15)
    assert type(nbgrad.linalg.LinAlgError("x")).__name__ == "_LinAlgError"      # torch._C._LinAlgError


def test_cholesky_double_backward_reads_one_triangle_of_L():
    # PyTorch's cholesky_backward solves with solve_triangular: no derivative for L's zero
    # upper triangle through the solves
    v0 = nbgrad.tensor([[[3.25, 0.3], [0.38, 3.25]], [[2.13, -0.1], [-0.75, 2.73]]], dtype=nbgrad.float64,
                       requires_grad=True)
    L = nbgrad.linalg.cholesky(v0 + v0.transpose(-2, -1))
    (g,) = nbgrad.autograd.grad(L.sum(), [v0], create_graph=True)
    (gL,) = nbgrad.autograd.grad(g.mean(), [L])
    np.testing.assert_allclose(gL.numpy(), [[[-0.05004602991519093, 0.050216053740192695],
                                             [-0.053858650697552884, -0.015588172273409029]],
                                            [[-0.11234179998667994, 0.09716603238214755],
                                             [-0.09251147457560703, -0.03399728081123532]]], rtol=1e-12)


@pytest.mark.parametrize("name, expected", [
    ("det", [3.23, 0.2, -0.43, 3.34, 3.32, -0.36, 0.16, 2.43]),
    ("slogdet", [0.297033344982, 0.018392157584, -0.039543138806, 0.307149031653, 0.408605326638,
                 -0.044306601684, 0.019691822971, 0.299069561365])])
def test_det_slogdet_backward_use_the_matrix_factored_at_forward(name, expected):
    # as solve's below: PyTorch's linalg_det_backward and slogdet_backward solve with the
    # saved LU unless create_graph (values from torch 2.13)
    def run(create_graph):
        A = nbgrad.tensor([[[3.34, 0.43], [-0.2, 3.23]], [[2.43, -0.16], [0.36, 3.32]]], dtype=nbgrad.float64,
                          requires_grad=True)
        r = getattr(nbgrad.linalg, name)(A)
        A.data.neg_()
        (g,) = nbgrad.autograd.grad((r[1] if name == "slogdet" else r).sum(), A, create_graph=create_graph)
        return g.flatten().tolist()
    np.testing.assert_allclose(run(False), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(run(True), [-e for e in expected], rtol=0, atol=1e-12)


def test_solve_backward_uses_the_matrix_factored_at_forward():
    # PyTorch's backward solves with the LU saved at forward, so a change of A's data through
    # .data (which autograd does not see) leaves the gradient as it was; under create_graph it
    # solves with A itself (differential seed 12129016762; values from torch 2.13)
    def run(create_graph):
        A = nbgrad.tensor([[[3.34, 0.43], [-0.2, 3.23]], [[2.43, -0.16], [0.36, 3.32]]], dtype=nbgrad.float64,
                          requires_grad=True)
        X = nbgrad.linalg.solve(A, nbgrad.ones(2, 2, dtype=nbgrad.float64))
        A.data.neg_()
        (g,) = nbgrad.autograd.grad(X.mean(), A, create_graph=create_graph)
        return g.flatten().tolist()
    expected = [-0.02030474442220984, -0.025670998305222438, -0.0172264741307961, -0.021779185151077927,
                -0.03900702637601321, -0.023202455344352686, -0.034131148079011554, -0.020302148426308602]
    np.testing.assert_allclose(run(False), expected, rtol=1e-14)
    np.testing.assert_allclose(run(True), [-e for e in expected], rtol=1e-14)
