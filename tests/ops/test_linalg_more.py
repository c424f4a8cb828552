"""More linear algebra (nbgrad/ops/linalg_more.py): LU, triangular and Cholesky solves, pinv,
lstsq, matrix_rank, cond, matrix_exp, the _ex variants, multi_dot, vdot/vecdot, vander,
tensorinv/tensorsolve, logdet, cdist/dist, renorm, adjoint.  Values against NumPy/SciPy or
PyTorch 2.13's (recorded here as literals), gradients against finite differences (float64),
PyTorch's node names, dtypes and errors."""
import math
import warnings

import numpy as np
import pytest
import scipy.linalg as sla

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(31)
L = nbgrad.linalg

A3 = [[2., 1, 3], [4, -1, 0.5], [-2, 5, 1]]
W34 = [[1., 2, 3, 4], [2, 0, 1, -1], [0, 1, -2, 3]]


def leaf(a):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def t64(a):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64))


def tri(n, upper, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    a = np.triu(a) if upper else np.tril(a)
    i = np.arange(n)
    a[..., i, i] = np.sign(a[..., i, i]) * (1 + np.abs(a[..., i, i]))
    return a


def spd(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def node(t):
    return type(t.grad_fn).__name__


# -- LU ------------------------------------------------------------------------------------------
def test_lu_factor_matches_pytorch_literals():
    LU, piv = L.lu_factor(t64(A3))
    np.testing.assert_allclose(LU.numpy(), [[4.0, -1.0, 0.5], [-0.5, 4.5, 1.25],
                                            [0.5, 0.3333333333333333, 2.3333333333333335]], rtol=1e-15)
    assert piv.dtype == nbgrad.int32 and piv.tolist() == [2, 3, 3]
    assert LU.stride() == (1, 3)                       # LAPACK's column-major, as PyTorch's
    LU, piv = L.lu_factor(t64(W34))                    # wide
    np.testing.assert_allclose(LU.numpy(), [[2.0, 0.0, 1.0, -1.0], [0.5, 2.0, 2.5, 4.5], [0.0, 0.5, -3.25, 0.75]])
    assert piv.tolist() == [2, 2, 3]
    LU, piv = L.lu_factor(t64(W34).T)                  # tall
    np.testing.assert_allclose(LU.numpy(), [[4.0, -1.0, 3.0], [0.25, 2.25, -0.75],
                                            [0.75, 0.7777777777777777, -3.666666666666667],
                                            [0.5, 0.2222222222222222, 0.09090909090909091]], rtol=1e-14)
    assert piv.tolist() == [4, 4, 3]


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5), (3, 6, 2), (1, 1)])
def test_lu_matches_scipy_and_reconstructs(shape):
    a = RNG.standard_normal(shape)
    P, Lo, U = L.lu(t64(a))
    np.testing.assert_allclose((P @ Lo @ U).numpy(), a, rtol=1e-12, atol=1e-13)
    for b in range(int(np.prod(shape[:-2])) if len(shape) > 2 else 1):
        ab = a[b] if len(shape) > 2 else a
        p_ref, l_ref, u_ref = sla.lu(ab)
        pick = (lambda x: x[b]) if len(shape) > 2 else (lambda x: x)
        np.testing.assert_allclose(pick(P.numpy()), p_ref)
        np.testing.assert_allclose(pick(Lo.numpy()), l_ref, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(pick(U.numpy()), u_ref, rtol=1e-12, atol=1e-14)
    LU, piv = L.lu_factor(t64(a))
    P2, L2, U2 = nbgrad.lu_unpack(LU, piv)
    assert np.array_equal(P2.numpy(), P.numpy()) and np.array_equal(L2.numpy(), Lo.numpy())


def test_lu_gradients_and_nodes():
    for shape in [(3, 3), (3, 5), (5, 3), (2, 3, 3)]:
        a = leaf(RNG.standard_normal(shape))
        LU, piv = L.lu_factor(a)
        assert node(LU) == "LinalgLuFactorExBackward0" and piv.grad_fn is None
        assert gradcheck(lambda x: L.lu_factor(x)[0], (a,))
        P, Lo, U = L.lu(a)
        assert P.grad_fn is None and node(Lo) == "LinalgLuBackward0" and node(U) == "LinalgLuBackward0"
        assert gradcheck(lambda x: L.lu(x)[1:], (a,))
        assert gradcheck(lambda x: nbgrad.lu_unpack(x, piv)[1:], (a,))
    a = leaf(RNG.standard_normal((3, 3)))
    assert gradgradcheck(lambda x: L.lu_factor(x)[0], (a,))
    assert node(nbgrad.lu_unpack(*L.lu_factor(a))[1]) == "LuUnpackBackward0"


def test_lu_factor_ex_info_and_singular_errors():
    s = t64([[[1., 0], [0, 1]], [[1., 2], [2, 4]]])
    LU, piv, info = L.lu_factor_ex(s)
    assert info.dtype == nbgrad.int32 and info.tolist() == [0, 2]
    np.testing.assert_allclose(LU.numpy()[1], [[2.0, 4.0], [0.5, 0.0]])
    assert piv.tolist() == [[1, 2], [2, 2]]
    msg = (r"torch.linalg.lu_factor: \(Batch element 1\): U\[2,2\] is zero and using it on lu_solve would result in "
           r"a division by zero. If you still want to perform the factorization, consider calling linalg.lu\(A, "
           r"pivot\) or linalg.lu_factor_ex\(A, pivot\)")
    with pytest.raises(RuntimeError, match=msg):
        L.lu_factor(s)
    with pytest.raises(RuntimeError, match="torch.linalg.lu_factor_ex:"):
        L.lu_factor_ex(s, check_errors=True)
    with pytest.raises(NotImplementedError, match="\"lu_cpu\" not implemented for 'Long'"):
        L.lu_factor(nbgrad.ones(2, 2, dtype=nbgrad.int64))
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented on the CPU"):
        L.lu_factor(t64(A3), pivot=False)
    LU, piv, info = nbgrad.lu(s, get_infos=True)
    assert info.tolist() == [0, 2]


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_all_forms(left, adjoint):
    a = RNG.standard_normal((2, 4, 4))
    b = RNG.standard_normal((3, 1, 4, 2) if left else (3, 1, 2, 4))
    LU, piv = L.lu_factor(t64(a))
    X = L.lu_solve(LU, piv, t64(b), left=left, adjoint=adjoint)
    op = np.swapaxes(a, -1, -2) if adjoint else a
    ref = np.linalg.solve(op, b) if left else np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2),
                                                                          np.swapaxes(b, -1, -2)), -1, -2)
    np.testing.assert_allclose(X.numpy(), ref, rtol=1e-11, atol=1e-12)
    LUl, B = leaf(LU.numpy()[0]), leaf(b[0, 0])
    out = L.lu_solve(LUl, piv[0], B, left=left, adjoint=adjoint)
    assert node(out) == "LinalgLuSolveBackward0"
    assert gradcheck(lambda lu_, b_: L.lu_solve(lu_, piv[0], b_, left=left, adjoint=adjoint), (LUl, B))


def test_lu_solve_errors():
    LU, piv = L.lu_factor(t64(A3))
    with pytest.raises(RuntimeError, match=r"linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32"):
        L.lu_solve(LU, piv.long(), t64(np.ones((3, 1))))
    with pytest.raises(RuntimeError, match=r"Incompatible shapes of A and B for the equation XA = B \(3x3 and 3x2\)"):
        L.lu_solve(LU, piv, t64(np.ones((3, 2))), left=False)
    with pytest.raises(RuntimeError, match="The input tensor B must have at least 2 dimensions"):
        L.lu_solve(LU, piv, t64(np.ones(3)))


# -- triangular solves -------------------------------------------------------------------------------
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular_matches_scipy(upper, left, unit):
    a = tri(4, upper, (2,))
    b = RNG.standard_normal((3, 1, 4, 2) if left else (3, 1, 2, 4))
    X = L.solve_triangular(t64(a), t64(b), upper=upper, left=left, unitriangular=unit)
    assert X.shape == (3, 2, 4, 2) if left else (3, 2, 2, 4)
    for i in range(3):
        for j in range(2):
            if left:
                ref = sla.solve_triangular(a[j], b[i, 0], lower=not upper, unit_diagonal=unit)
            else:
                ref = sla.solve_triangular(a[j].T, b[i, 0].T, lower=upper, unit_diagonal=unit).T
            np.testing.assert_allclose(X.numpy()[i, j], ref, rtol=1e-12, atol=1e-13)
    A, B = leaf(a[0]), leaf(b[0, 0])
    out = L.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit)
    assert node(out) == "LinalgSolveTriangularBackward0"
    f = lambda x, y: L.solve_triangular(x, y, upper=upper, left=left, unitriangular=unit)   # noqa: E731
    assert gradcheck(f, (A, B))
    g = nbgrad.autograd.grad(out.sum(), A)[0].numpy()
    assert np.all((np.tril(g, -1) if upper else np.triu(g, 1)) == 0)       # the gradient is triangular
    if unit:
        assert np.all(np.diag(g) == 0)


def test_solve_triangular_second_derivative_singular_and_errors():
    A, B = leaf(tri(3, True)), leaf(RNG.standard_normal((3, 2)))
    assert gradgradcheck(lambda x, y: L.solve_triangular(x, y, upper=True), (A, B))
    X = L.solve_triangular(t64(np.triu(np.ones((2, 2))) - np.diag([0, 1])), t64(np.ones((2, 1))), upper=True)
    assert not np.isfinite(X.numpy()).all()                      # no error for a zero diagonal, as LAPACK
    with pytest.raises(RuntimeError, match=r"linalg.solve_triangular: Incompatible shapes of A and B for the "
                                           r"equation AX = B \(3x3 and 2x2\)"):
        L.solve_triangular(t64(np.eye(3)), t64(np.eye(2)), upper=True)
    with pytest.raises(RuntimeError, match="A must be batches of square matrices, but they are 2 by 3 matrices"):
        L.solve_triangular(t64(np.ones((2, 3))), t64(np.eye(2)), upper=True)
    with pytest.raises(NotImplementedError, match="\"triangular_solve_cpu\" not implemented for 'Half'"):
        L.solve_triangular(nbgrad.eye(2).half(), nbgrad.eye(2).half(), upper=True)
    # PyTorch solves in A's dtype
    assert L.solve_triangular(nbgrad.eye(2), nbgrad.eye(2, dtype=nbgrad.float64), upper=True).dtype == nbgrad.float32


@pytest.mark.parametrize("transpose", [False, True])
def test_triangular_solve(transpose):
    a, b = tri(3, True, (2,)), RNG.standard_normal((2, 3, 2))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        X, M = nbgrad.triangular_solve(t64(b), t64(a), transpose=transpose)
    ref = np.linalg.solve(np.swapaxes(a, -1, -2) if transpose else a, b)
    np.testing.assert_allclose(X.numpy(), ref, rtol=1e-12)
    assert np.array_equal(M.numpy(), a)
    B, A = leaf(b), leaf(a)
    out = nbgrad.triangular_solve(B, A, upper=True, transpose=transpose)
    assert node(out.solution) == node(out.cloned_coefficient) == "TriangularSolveBackward0"
    assert gradcheck(lambda y, x: nbgrad.triangular_solve(y, x, True, transpose), (B, A))
    assert out.solution.shape == t64(b).triangular_solve(t64(a))[0].shape


# -- Cholesky solves ----------------------------------------------------------------------------------
CHOL = [[2., 0.5, 0.3], [0.4, 1.5, -0.2], [-0.1, 0.7, 1.2]]
CHOL_GRAD = {False: [[-0.24624228395061729, -0.3232936986192082, -0.3006660087424745],
                     [-0.13626543209876535, -0.1789041054622009, -0.1663824057403598],
                     [-0.4699074074074075, -0.6169456411465479, -0.5737649212677185]],
             True: [[-0.045717592592592615, -0.42129629629629645, -0.6597222222222224],
                    [-0.04738967121056243, -0.43670481824417007, -0.6838509516460906],
                    [-0.09893308202589168, -0.9116871356310015, -1.4276419431584366]]}


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse(upper):
    s = spd(4, (2,))
    c = np.linalg.cholesky(s)
    c = np.swapaxes(c, -1, -2) if upper else c
    b = RNG.standard_normal((3, 1, 4, 2))
    X = nbgrad.cholesky_solve(t64(b), t64(c), upper)
    np.testing.assert_allclose(X.numpy(), np.linalg.solve(s, b), rtol=1e-11)
    np.testing.assert_allclose(nbgrad.cholesky_inverse(t64(c), upper).numpy(), np.linalg.inv(s), rtol=1e-11)
    C, B = leaf(c[0]), leaf(b[0, 0])
    assert node(nbgrad.cholesky_solve(B, C, upper)) == "CholeskySolveBackward0"
    assert node(C.cholesky_inverse(upper)) == "CholeskyInverseBackward0"
    # PyTorch's gradient for the factor is not masked to its triangle (the forward reads only that
    # triangle): finite differences agree through a triangular parametrisation
    tr = (lambda x: x.triu()) if upper else (lambda x: x.tril())    # noqa: E731
    assert gradcheck(lambda y, x: nbgrad.cholesky_solve(y, tr(x), upper), (B, C))
    assert gradcheck(lambda x: nbgrad.cholesky_inverse(tr(x), upper), (C,))
    assert gradgradcheck(lambda x: nbgrad.cholesky_inverse(tr(x), upper), (C,))
    # ... and is PyTorch's full matrix (recorded from torch 2.13 for this input)
    C2 = leaf(CHOL)
    nbgrad.cholesky_inverse(C2, upper).sum().backward()
    np.testing.assert_allclose(C2.grad.numpy(), CHOL_GRAD[upper], rtol=1e-12)


def test_cholesky_solve_errors():
    with pytest.raises(RuntimeError, match="b should have at least 2 dimensions, but has 1 dimensions instead"):
        nbgrad.cholesky_solve(t64(np.ones(3)), t64(np.eye(3)))
    with pytest.raises(RuntimeError, match="Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 "
                                           "but each b matrix is 2 by 1"):
        nbgrad.cholesky_solve(t64(np.ones((2, 1))), t64(np.eye(3)))
    with pytest.raises(NotImplementedError, match="\"cholesky_inverse_out_cpu\" not implemented for 'Long'"):
        nbgrad.cholesky_inverse(nbgrad.ones(2, 2, dtype=nbgrad.int64))


# -- logdet, pinv, matrix_rank, cond ---------------------------------------------------------------
def test_logdet():
    a = RNG.standard_normal((3, 4, 4))
    out = nbgrad.logdet(t64(a)).numpy()
    sign, logabs = np.linalg.slogdet(a)
    np.testing.assert_allclose(out[sign > 0], logabs[sign > 0], rtol=1e-12)
    assert np.isnan(out[sign < 0]).all()
    assert np.isnan(nbgrad.logdet(t64([[-1., 0], [0, 2]])).item())
    assert nbgrad.logdet(t64([[1., 2], [2, 4]])).item() == -math.inf
    x = leaf(spd(3))
    assert node(x.logdet()) == "WhereBackward0"
    assert gradcheck(nbgrad.logdet, (x,)) and gradgradcheck(nbgrad.logdet, (x,))
    with pytest.raises(RuntimeError, match="logdet: Low precision dtypes not supported. Got Half"):
        nbgrad.logdet(nbgrad.eye(2).half())


def test_pinv():
    ref = [[-0.03792569659442759, 0.509287925696596, 0.20356037151702888],
           [0.05030959752321983, 0.03869969040247636, 0.05650154798761595],
           [0.17724458204334276, -0.09442724458203935, -0.27786377708978105],
           [0.10139318885448946, -0.07585139318885628, 0.12925696594427138]]
    np.testing.assert_allclose(L.pinv(t64(W34)).numpy(), ref, rtol=1e-12)
    for shape in [(2, 5, 3), (3, 5), (4, 4)]:
        a = RNG.standard_normal(shape)
        np.testing.assert_allclose(L.pinv(t64(a)).numpy(), np.linalg.pinv(a), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(nbgrad.pinverse(t64(a)).numpy(), np.linalg.pinv(a), rtol=1e-10, atol=1e-12)
        x = leaf(a)
        assert node(L.pinv(x)) == "LinalgPinvBackward0"
        assert gradcheck(L.pinv, (x,))
    s = spd(4)
    np.testing.assert_allclose(L.pinv(t64(s), hermitian=True).numpy(), np.linalg.inv(s), rtol=1e-10)
    r = np.outer([1., 2, 3], [1., -1])                                    # rank 1: small values cut
    np.testing.assert_allclose(L.pinv(t64(r)).numpy(), np.linalg.pinv(r), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(L.pinv(t64(A3), rtol=0.5).numpy(), np.linalg.pinv(np.array(A3), rcond=0.5),
                               rtol=1e-10, atol=1e-14)
    with pytest.raises(RuntimeError, match=r"linalg.pinv\(Long\{\[2, 2\]\}\): expected a tensor with 2 or more "
                                           "dimensions of float, double, cfloat or cdouble types"):
        L.pinv(nbgrad.ones(2, 2, dtype=nbgrad.int64))


def test_matrix_rank():
    assert L.matrix_rank(t64([[1., 2], [2, 4]])).item() == 1
    r = L.matrix_rank(t64(RNG.standard_normal((3, 4, 5))))
    assert r.dtype == nbgrad.int64 and r.tolist() == [4, 4, 4]
    a = np.diag([3., 1, 1e-3])
    assert L.matrix_rank(t64(a), atol=0.01).item() == 2
    assert L.matrix_rank(t64(a), rtol=0.5).item() == 1
    assert L.matrix_rank(t64(a), tol=2.0).item() == 1
    assert L.matrix_rank(t64(-a), hermitian=True).item() == 3
    assert L.matrix_rank(t64(np.zeros((2, 0, 3)))).tolist() == [0, 0]


def test_cond():
    ords = [None, 1, -1, 2, -2, math.inf, -math.inf, "fro", "nuc"]
    ref = [4.148519974126534, 6.476190476190475, 2.196428571428571, 4.148519974126534, 0.24104982168021227,
           6.857142857142856, 2.75, 5.6963072833781245, 12.912980599795947]
    for p, r in zip(ords, ref):
        assert L.cond(t64(A3), p).item() == pytest.approx(r, rel=1e-12)
    x = leaf(A3)
    assert node(L.cond(x)) == "SqueezeBackward1" and node(L.cond(x, "nuc")) == "MulBackward0"
    assert node(L.cond(x, 1)) == "NanToNumBackward0"
    assert gradcheck(L.cond, (x,)) and gradcheck(lambda a: L.cond(a, "nuc"), (x,))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        L.cond(x, 1).backward()          # PyTorch's cond writes inf into inv_ex's saved result in place
    assert L.cond(t64([[1., 2], [2, 4]]), 1).item() == math.inf
    with pytest.raises(RuntimeError, match="linalg.cond got an invalid norm type: 3"):
        L.cond(x, 3)
    with pytest.raises(RuntimeError, match=r"linalg.cond\(ord=1.000000\): A must be batches of square matrices"):
        L.cond(t64(W34), 1.0)


# -- matrix_exp and the _ex variants -------------------------------------------------------------
def test_matrix_exp():
    a = np.array(A3)
    np.testing.assert_allclose(L.matrix_exp(t64(a / 4)).numpy(), [
        [1.7258683656485518, 0.8683487412574515, 1.146318674837591],
        [1.1621643030812197, 1.1478850994868428, 0.5857304796089611],
        [0.006197770757801951, 1.2348434721924364, 1.2932434377092763]], rtol=1e-13)
    np.testing.assert_allclose(nbgrad.matrix_exp(t64(a)).numpy(), [
        [34.80585862258567, 39.53954103852553, 36.198031654291945],
        [27.569694566092696, 30.719745719443573, 28.33294885290273],
        [19.39746875980852, 22.152549353008418, 19.885455293275026]], rtol=1e-12)
    b = RNG.standard_normal((2, 5, 5)) * 3
    np.testing.assert_allclose(L.matrix_exp(t64(b)).numpy(), np.stack([sla.expm(m) for m in b]), rtol=1e-10)
    assert L.matrix_exp(t64(np.zeros((3, 3)))).numpy().tolist() == np.eye(3).tolist()
    x = leaf(RNG.standard_normal((2, 3, 3)))
    assert node(x.matrix_exp()) == "LinalgMatrixExpBackward0"
    assert gradcheck(L.matrix_exp, (x,)) and gradgradcheck(L.matrix_exp, (leaf(RNG.standard_normal((3, 3))),))
    with pytest.raises(RuntimeError, match="linalg.matrix_exp: Expected a floating point or complex tensor as "
                                           "input. Got Long"):
        L.matrix_exp(nbgrad.ones(2, 2, dtype=nbgrad.int64))


def test_ex_variants():
    s = t64([[[1., 0], [0, 1]], [[1., 2], [2, 4]]])
    inv, info = L.inv_ex(s)
    assert info.dtype == nbgrad.int32 and info.tolist() == [0, 2]
    x, info = L.solve_ex(s, t64(np.ones((2, 2, 1))))
    assert info.tolist() == [0, 2] and x.numpy()[0].ravel().tolist() == [1.0, 1.0]
    assert not np.isfinite(x.numpy()[1]).all()
    with pytest.raises(nbgrad.linalg.LinAlgError, match=r"linalg.inv_ex: \(Batch element 1\)"):
        L.inv_ex(s, check_errors=True)
    with pytest.raises(nbgrad.linalg.LinAlgError, match=r"torch.linalg.solve_ex: \(Batch element 1\)"):
        L.solve_ex(s, t64(np.ones((2, 2, 1))), check_errors=True)
    Lc, info = L.cholesky_ex(t64(-np.eye(2)))
    assert info.item() == 1
    a = leaf(spd(3))
    out = L.cholesky_ex(a)
    assert node(out.L) == "LinalgCholeskyExBackward0" and out.info.grad_fn is None
    assert node(L.inv_ex(a).inverse) == "LinalgInvExBackward0"
    assert node(L.solve_ex(a, t64(np.ones(3))).result) == "LinalgSolveExBackward0"
    assert gradcheck(lambda m: L.cholesky_ex((m + m.mT) / 2, upper=True)[0], (a,))


# -- products -----------------------------------------------------------------------------------------
def test_multi_dot_and_chain_matmul():
    for dims in [(2, 3, 4), (5, 1, 4, 2), (3, 4, 2, 6, 2), (2, 2, 2, 2, 2, 2)]:
        ms = [RNG.standard_normal((dims[i], dims[i + 1])) for i in range(len(dims) - 1)]
        ref = np.linalg.multi_dot(ms)
        xs = [leaf(m) for m in ms]
        out = L.multi_dot(xs)
        np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
        assert node(out) == "ViewBackward0" and out.grad_fn.next_functions[0][0].name() == "MmBackward0"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_allclose(nbgrad.chain_matmul(*xs).detach().numpy(), ref, rtol=1e-12)
        assert gradcheck(lambda *a: L.multi_dot(a), tuple(xs))
    v, w = RNG.standard_normal(3), RNG.standard_normal(4)
    m = RNG.standard_normal((3, 4))
    out = L.multi_dot([t64(v), t64(m), t64(w)])
    assert out.shape == () and out.item() == pytest.approx(v @ m @ w)
    # the cheaper order of three: (10x1)(1x10)(10x1) multiplies the last two first
    a, b, c = t64(np.ones((10, 1))), t64(np.ones((1, 10))), t64(np.ones((10, 1)))
    assert L.multi_dot([a, b, c]).tolist() == (np.ones((10, 1)) * 10).tolist()
    with pytest.raises(RuntimeError, match="multi_dot\\(\\): expected at least 2 tensors but got 1"):
        L.multi_dot([a])
    with pytest.raises(RuntimeError, match="multi_dot\\(\\): tensor 1 must be 2D but got 1D"):
        L.multi_dot([a, t64(np.ones(1)), c])
    with pytest.raises(RuntimeError, match=r"multi_dot\(\): tensors 0 and 1 with shapes \[10, 1\] and \[10, 1\] "
                                           "cannot be multiplied"):
        L.multi_dot([a, c])
    with pytest.raises(RuntimeError, match="but tensor 0 is double and tensor 1 float"):
        L.multi_dot([a, b.float()])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert node(nbgrad.chain_matmul(leaf(np.eye(2)))) == "CloneBackward0"


def test_vdot_vecdot_vander():
    a, b = RNG.standard_normal(5), RNG.standard_normal(5)
    x, y = leaf(a), leaf(b)
    out = nbgrad.vdot(x, y)
    assert out.item() == pytest.approx(a @ b) and node(out) == "VdotBackward0"
    assert gradcheck(nbgrad.vdot, (x, y)) and x.vdot(y).item() == out.item()
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        nbgrad.vdot(t64(np.ones((2, 2))), t64(np.ones(2)))
    with pytest.raises(RuntimeError, match="dot : expected both vectors to have same dtype, but found Double and "
                                           "Float"):
        nbgrad.vdot(t64(np.ones(2)), nbgrad.ones(2))
    m1, m2 = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 4))
    v = L.vecdot(leaf(m1), leaf(m2))
    np.testing.assert_allclose(v.detach().numpy(), (m1 * m2).sum(-1), rtol=1e-12)
    assert node(v) == "SumBackward1"
    np.testing.assert_allclose(L.vecdot(t64(m1), t64(m2), dim=-2).numpy(), (m1 * m2).sum(-2), rtol=1e-12)
    with pytest.raises(RuntimeError, match="linalg.vecdot: Expected a floating point or complex tensor as input"):
        L.vecdot(nbgrad.ones(2, dtype=nbgrad.int64), nbgrad.ones(2, dtype=nbgrad.int64))
    xv = RNG.standard_normal((2, 4))
    out = L.vander(leaf(xv))
    np.testing.assert_allclose(out.detach().numpy(), np.stack([np.vander(r, increasing=True) for r in xv]),
                               rtol=1e-12)
    assert node(out) == "CatBackward0" and L.vander(t64(xv), N=6).shape == (2, 4, 6)
    assert gradcheck(lambda t: L.vander(t, N=5), (leaf(xv),))
    iv = L.vander(nbgrad.tensor([1, 2, 3]))
    assert iv.dtype == nbgrad.int64 and iv.tolist() == [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    with pytest.raises(RuntimeError, match="N must be greater than 1."):
        L.vander(t64(xv), N=1)


def test_tensorinv_tensorsolve_diagonal_adjoint_matrix_power():
    a = RNG.standard_normal((4, 6, 8, 3))
    np.testing.assert_allclose(L.tensorinv(t64(a)).numpy(), np.linalg.tensorinv(a), rtol=1e-9, atol=1e-12)
    with pytest.raises(RuntimeError, match=r"prod\(self.shape\[ind:\]\) == prod\(self.shape\[:ind\]\), but got "
                                           "144 != 4"):
        L.tensorinv(t64(a), 1)
    with pytest.raises(nbgrad.linalg.LinAlgError, match="^inv: The diagonal element 2 is zero"):
        L.tensorinv(t64([[1., 2], [2, 4]]), 1)
    s, b = RNG.standard_normal((2, 3, 6)), RNG.standard_normal((2, 3))
    np.testing.assert_allclose(L.tensorsolve(t64(s), t64(b)).numpy(), np.linalg.tensorsolve(s, b), rtol=1e-10)
    s2 = RNG.standard_normal((6, 2, 3))
    np.testing.assert_allclose(L.tensorsolve(t64(s2), t64(b), dims=(0,)).numpy(),
                               np.linalg.tensorsolve(s2, b, axes=(0,)), rtol=1e-10)
    m = RNG.standard_normal((2, 3, 4))
    assert np.array_equal(L.diagonal(t64(m), offset=1).numpy(), np.diagonal(m, 1, -2, -1))
    x = leaf(m)
    assert np.array_equal(nbgrad.adjoint(x).detach().numpy(), np.swapaxes(m, -1, -2))
    assert node(x.adjoint()) == "TransposeBackward0"
    with pytest.raises(RuntimeError, match="tensor.adjoint\\(\\) is only supported on matrices or batches of "
                                           "matrices. Got 1-D tensor."):
        nbgrad.adjoint(t64(np.ones(3)))
    q = RNG.standard_normal((2, 3, 3))
    for n in (-2, 0, 1, 3, 6):
        np.testing.assert_allclose(L.matrix_power(t64(q), n).numpy(), np.linalg.matrix_power(q, n), rtol=1e-10)


def test_lstsq():
    b = [[1., 2], [0, 1], [3, -1], [2, 2]]
    out = L.lstsq(t64(W34).T, t64(b), driver="gelsd")
    np.testing.assert_allclose(out.solution.numpy(), [[0.6965944272445822, 0], [0.07430340557275528, 1.0],
                                                      [-0.3715170278637767, 1.0000000000000004]], atol=1e-13)
    np.testing.assert_allclose(out.residuals.numpy(), [1.238390092879257, 0.0], atol=1e-12)
    assert out.rank.item() == 3 and out.rank.dtype == nbgrad.int64
    np.testing.assert_allclose(out.singular_values.numpy(), [5.775033761909562, 3.7218808074881164,
                                                             1.6723003030724692], rtol=1e-12)
    gy = L.lstsq(t64(W34).T, t64(b))                  # gelsy: no residuals, no singular values
    assert gy.residuals.shape == (0,) and gy.singular_values.shape == (0,) and gy.rank.item() == 3
    for m, n in [(5, 3), (3, 5), (4, 4)]:
        A, B = leaf(RNG.standard_normal((2, m, n))), leaf(RNG.standard_normal((2, m, 2)))
        ref = np.stack([np.linalg.lstsq(A.detach().numpy()[i], B.detach().numpy()[i], rcond=None)[0]
                        for i in range(2)])
        x = L.lstsq(A, B).solution
        np.testing.assert_allclose(x.detach().numpy(), ref, rtol=1e-10, atol=1e-12)
        assert node(x) == "LinalgLstsqBackward0"
        assert gradcheck(lambda a_, b_: L.lstsq(a_, b_).solution, (A, B))
    v = L.lstsq(t64(W34).T, t64(np.ones(4)))
    assert v.solution.shape == (3,)
    with pytest.raises(RuntimeError, match=r"torch.linalg.lstsq: input.size\(-2\) should match other.size\(-1\)"):
        L.lstsq(t64(W34).T, t64(np.ones(3)))
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of"):
        L.lstsq(t64(W34).T, t64(b), driver="x")


# -- distances -----------------------------------------------------------------------------------------
CDIST = {0: [[1.0, 2.0], [2.0, 2.0], [2.0, 2.0]], 1: [[1.0, 2.0], [3.0, 6.0], [1.0, 4.0]],
         1.5: [[1.0, 1.5874010519681994], [2.4472608147714756, 4.762203155904598],
               [0.7937005259840998, 3.2244124899218174]],
         2: [[1.0, 1.4142135623730951], [2.23606797749979, 4.242640687119285],
             [0.7071067811865476, 2.9154759474226504]],
         math.inf: [[1.0, 1.0], [2.0, 3.0], [0.5, 2.5]]}


@pytest.mark.parametrize("p", list(CDIST))
def test_cdist_values_and_nodes(p):
    x1, x2 = t64([[0., 1], [2, -1], [1.5, 0.5]]), t64([[1., 1], [-1, 2]])
    np.testing.assert_allclose(nbgrad.cdist(x1, x2, p).numpy(), CDIST[p], rtol=1e-14)
    a, b = leaf(RNG.standard_normal((2, 4, 3))), leaf(RNG.standard_normal((5, 3)))
    out = nbgrad.cdist(a, b, p)
    assert out.shape == (2, 4, 5) and node(out) == "CdistBackward0"
    if p:
        assert gradcheck(lambda u, w: nbgrad.cdist(u, w, p), (a, b))


def test_cdist_matrix_product_path():
    a, b = RNG.standard_normal((2, 30, 3)), RNG.standard_normal((4, 3))
    ref = np.sqrt(((a[:, :, None, :] - b[None, None]) ** 2).sum(-1))
    x, y = leaf(a), leaf(b)
    out = nbgrad.cdist(x, y)                              # more than 25 rows: the matmul formula
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-10)
    assert node(out) == "ViewBackward0" and out.grad_fn.next_functions[0][0].name() == "EuclideanDistBackward0"
    assert gradcheck(nbgrad.cdist, (x, y))
    small = nbgrad.cdist(leaf(a[:, :3]), y, compute_mode="use_mm_for_euclid_dist")
    assert small.grad_fn.next_functions[0][0].name() == "EuclideanDistBackward0"
    assert node(nbgrad.cdist(x, y, compute_mode="donot_use_mm_for_euclid_dist")) == "CdistBackward0"
    with pytest.raises(ValueError, match="x is not a valid value for compute_mode"):
        nbgrad.cdist(x, y, compute_mode="x")
    with pytest.raises(RuntimeError, match="X1 and X2 must have the same number of columns. X1: 3 X2: 2"):
        nbgrad.cdist(x, t64(np.ones((2, 2))))
    with pytest.raises(RuntimeError, match="cdist only supports floating-point dtypes, X1 got: Long"):
        nbgrad.cdist(nbgrad.ones(2, 2, dtype=nbgrad.int64), nbgrad.ones(2, 2))


def test_dist():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal(4)
    for p in (0, 1, 2, 3.5, math.inf):
        d = nbgrad.dist(leaf(a), leaf(b), p)
        assert d.item() == pytest.approx(np.linalg.norm((a - b).ravel(), p), rel=1e-12)
        assert node(d) == "DistBackward0"
    assert gradcheck(lambda u, w: nbgrad.dist(u, w, 3), (leaf(a), leaf(b)))
    assert nbgrad.dist(nbgrad.ones(2), nbgrad.zeros(2, dtype=nbgrad.int64)).dtype == nbgrad.float32
    with pytest.raises(RuntimeError, match="norm\\(\\): input dtype should be either floating point or complex. "
                                           "Got Long instead."):
        nbgrad.dist(nbgrad.ones(2, dtype=nbgrad.int64), nbgrad.ones(2, dtype=nbgrad.int64))


def test_renorm():
    ref = [[1.6035674086174048, 0.8017837043087024, 2.405351112926107],
           [2.889260404493245, -0.7223151011233112, 0.3611575505616556],
           [-1.0954450950103325, 2.7386127375258313, 0.5477225475051662]]
    np.testing.assert_allclose(nbgrad.renorm(t64(A3), 2, 0, 3.0).numpy(), ref, rtol=1e-14)
    x = leaf(RNG.standard_normal((3, 4, 2)))
    for p, d in [(1, 0), (2, 1), (3, -1), (math.inf, 0)]:
        out = x.renorm(p, d, 0.8)
        assert node(out) == "RenormBackward0"
        assert gradcheck(lambda t: nbgrad.renorm(t, p, d, 0.8), (x,))
    y = t64(A3)
    assert y.renorm_(2, 0, 3.0) is y and np.allclose(y.numpy(), ref)
    with pytest.raises(RuntimeError, match="renorm: expected maxnorm to be >= 0 but got -1"):
        nbgrad.renorm(t64(A3), 2, 0, -1)
    with pytest.raises(RuntimeError, match="renorm: input needs at least 2 dimensions, got 1 dimensions"):
        nbgrad.renorm(t64(np.ones(3)), 2, 0, 1.0)
    with pytest.raises(RuntimeError, match="renorm: non-positive-norm not supported"):
        nbgrad.renorm(t64(A3), 0, 0, 1.0)


def test_float32_results_keep_their_dtype():
    a = RNG.standard_normal((3, 3)).astype(np.float32)
    t = nbgrad.tensor(a)
    for out in [L.pinv(t), L.matrix_exp(t), L.lu_factor(t)[0], L.solve_triangular(t, t, upper=True),
                L.cond(t), nbgrad.cdist(t, t), nbgrad.logdet(t @ t.T)]:
        assert out.dtype == nbgrad.float32
    np.testing.assert_allclose(L.pinv(t).numpy(), np.linalg.pinv(a.astype(np.float64)), rtol=2e-4, atol=1e-5)


def test_out_arguments():
    a = t64(tri(3, True))
    o = nbgrad.empty(0, dtype=nbgrad.float64)
    assert L.solve_triangular(a, t64(np.ones((3, 2))), upper=True, out=o) is o and o.shape == (3, 2)
    LU, P = nbgrad.empty(3, 3, dtype=nbgrad.float64), nbgrad.empty(3, dtype=nbgrad.int32)
    r = L.lu_factor(a, out=(LU, P))
    assert r[0] is LU and P.tolist() == L.lu_factor(a).pivots.tolist()
    o = nbgrad.empty(0, dtype=nbgrad.int64)
    L.matrix_rank(a, out=o)
    assert o.item() == 3
    with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic "
                                           "differentiation, but one of the arguments requires grad"):
        L.pinv(leaf(A3), out=nbgrad.empty(0, dtype=nbgrad.float64))


def test_result_layouts_are_pytorchs():
    # recorded from torch 2.13: LAPACK's column-major results, row-major where PyTorch transposes
    a, b = t64(tri(3, True)), t64(RNG.standard_normal((2, 3, 4)))
    assert L.solve_triangular(a, b, upper=True).stride() == (12, 1, 3)
    assert L.solve_triangular(a, b.mT, upper=True, left=False).stride() == (12, 1, 4)
    LU, piv = L.lu_factor(a)
    assert L.lu_solve(LU, piv, b).stride() == (12, 1, 3)
    assert L.lu_solve(LU, piv, b.mT, left=False).stride() == (12, 3, 1)
    assert [t.stride() for t in L.lu(t64(RNG.standard_normal((4, 2))))] == [(4, 1), (2, 1), (2, 1)]
    assert L.lstsq(t64(RNG.standard_normal((2, 5, 3))), t64(RNG.standard_normal((2, 5, 4)))).solution.stride() == \
        (20, 1, 5)
    assert L.lstsq(t64(RNG.standard_normal((2, 5, 3))), t64(RNG.standard_normal((2, 5)))).solution.stride() == (5, 1)
    assert nbgrad.cholesky_inverse(a).stride() == (1, 3) and L.pinv(t64(RNG.standard_normal((2, 4, 3)))).stride() == \
        (12, 4, 1)


def test_invalid_pivots_and_non_finite_inputs():
    LU = nbgrad.eye(3, dtype=nbgrad.float64)
    with pytest.raises(RuntimeError, match="pivots passed to lu_unpack must be between 1 and LU.size"):
        nbgrad.lu_unpack(LU, nbgrad.tensor([4, 2, 3], dtype=nbgrad.int32))
    with pytest.raises(RuntimeError, match="Pivots given to lu_solve must all be greater or equal to 1"):
        L.lu_solve(LU, nbgrad.tensor([0, 2, 3], dtype=nbgrad.int32), t64(np.ones((3, 1))))
    with pytest.raises(RuntimeError, match=r"Pivots given to lu_solve must all be smaller or equal to LU.size\(-2\)"):
        L.lu_solve(LU, nbgrad.tensor([4, 2, 3], dtype=nbgrad.int32), t64(np.ones((3, 1))))
    for v in (math.nan, math.inf, 1e200):                   # no endless scaling: NaN, as PyTorch's
        assert np.isnan(L.matrix_exp(t64([[v, 1.], [0, 1]])).numpy()).all()
    LU, piv = L.lu_factor(t64([[math.nan, 1.], [2, 3]]))
    assert piv.dtype == nbgrad.int32 and LU.shape == (2, 2)


def test_singular_inputs_give_pytorchs_infinities():
    # recorded from torch 2.13 (getrf + getrs / trsm on a zero pivot: inf and NaN, info > 0)
    s = t64([[[1., 2], [2, 4]], [[0., 0], [0, 1]], [[1., 1], [1, 1]]])
    inv, info = L.inv_ex(s)
    assert info.tolist() == [2, 1, 2]
    np.testing.assert_array_equal(inv.numpy(), [[[-np.inf, np.inf], [np.inf, -np.inf]], [[np.inf, np.nan], [0, 1]],
                                                [[np.inf, -np.inf], [-np.inf, np.inf]]])
    b = t64(np.arange(12.).reshape(3, 2, 2) + 1)
    x, info = L.solve_ex(s, b)
    np.testing.assert_array_equal(x.numpy(), [[[np.inf, np.nan], [-np.inf, np.nan]], [[np.inf, np.inf], [7, 8]],
                                              [[-np.inf, -np.inf], [np.inf, np.inf]]])
    t = L.solve_triangular(s.tril(), b, upper=False, left=False)
    np.testing.assert_array_equal(t.numpy()[1], [[np.inf, 6], [np.inf, 8]])


def test_cdist_two_norm_matches_pytorchs_bits():
    # recorded from torch 2.13 (its CPU kernel accumulates column by column; the columns past
    # the last full group of 2 (float64) / 4 (float32) with one fma each)
    a64, b64 = [[-0.8, -1.32, -0.25], [0.42, 1.14, 0.11]], [[-0.55, -0.78, 0.75], [1.63, 0.27, -1.23]]
    a32, b32 = [[-0.65, -0.17, 1.66], [0.66, -1.64, -0.01]], [[-0.62, 0.15, -1.61], [0.24, 0.24, 1.58]]
    assert nbgrad.cdist(t64(a64), t64(b64)).tolist() == CDIST_BITS64
    assert nbgrad.cdist(nbgrad.tensor(a32), nbgrad.tensor(b32)).tolist() == CDIST_BITS32


CDIST_BITS64 = [[1.1636580253665594, 3.0648654130320305], [2.244303900990238, 2.0041457032860657]]
CDIST_BITS32 = [[3.285757064819336, 0.9831581711769104], [2.7207534313201904, 2.497779130935669]]


def test_cdist_nan_and_column_by_column_backward(monkeypatch):
    a = t64([[math.nan, 1.], [2., 3.]])
    b = t64([[0., 0.], [2., 3.]])
    # PyTorch: p=0 keeps a NaN difference, p=inf passes over it (std::max from 0), p=1 and 2 spread it
    assert nbgrad.cdist(a, b, 0).tolist()[1] == [2.0, 0.0] and math.isnan(nbgrad.cdist(a, b, 0)[0, 0].item())
    assert nbgrad.cdist(a, b, math.inf).tolist() == [[1.0, 2.0], [3.0, 0.0]]
    import nbgrad.ops.linalg_more as LM
    x, y = leaf(RNG.standard_normal((2, 3, 4))), leaf(RNG.standard_normal((5, 4)))
    ref = [nbgrad.autograd.grad(nbgrad.cdist(x, y, p).sum(), (x, y)) for p in (1.5, 2)]
    monkeypatch.setattr(LM, "_CDIST_DENSE_BACKWARD", 0)          # the column loop
    for p, (gx, gy) in zip((1.5, 2), ref):
        hx, hy = nbgrad.autograd.grad(nbgrad.cdist(x, y, p).sum(), (x, y))
        np.testing.assert_allclose(hx.numpy(), gx.numpy(), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(hy.numpy(), gy.numpy(), rtol=1e-13, atol=1e-15)
    assert gradcheck(lambda u, w: nbgrad.cdist(u, w, 3.0), (x, y))


def test_solve_ex_singular_batch_has_pytorchs_node_and_gradient():
    # recorded from torch 2.13: the solved matrices' gradients, NaN for the singular one, no error
    for left, ref_a in [(True, [[-0.75, -1.75], [-0.75, -1.75]]), (False, [[-1.0, -1.0], [-1.5, -1.5]])]:
        a = leaf(np.stack([np.eye(2) * 2, [[1., 2], [2, 4]]]))
        b = leaf(np.arange(8.).reshape(2, 2, 2) + 1)
        x, info = L.solve_ex(a, b, left=left)
        assert node(x) == "LinalgSolveExBackward0" and info.grad_fn is None
        ga, gb = nbgrad.autograd.grad(x[0].sum(), [a, b])
        np.testing.assert_array_equal(ga.numpy()[0], ref_a)
        assert np.isnan(ga.numpy()[1]).all() and np.isnan(gb.numpy()[1]).all()
        np.testing.assert_array_equal(gb.numpy()[0], [[0.5, 0.5], [0.5, 0.5]])
