"""torch.linalg.ldl_factor / ldl_factor_ex / ldl_solve (nbgrad/ops/linalg_ldl.py): LD, the
pivots and the solutions against PyTorch 2.13's (recorded here as literals, bit for bit) and
against SciPy's LAPACK (?sytrf's pivots, LD to rounding) and NumPy (solutions), batches,
PyTorch's errors, out= and the missing derivatives."""
import os
import warnings

import numpy as np
import pytest
from scipy.linalg import lapack

import nbgrad

L = nbgrad.linalg
RNG = np.random.default_rng(7)
AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"

# a zero diagonal: 2x2 pivots
A1 = [[0., 1, 2, 3], [1, 0, 4, 5], [2, 4, 0, 6], [3, 5, 6, 0]]
LD1 = [[0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 0.0, 0.0], [2.0, 0.6666666666666666, -8.0, 0.0],
       [1.6666666666666665, 0.3333333333333333, 0.16666666666666663, -3.1111111111111107]]
B1 = [[1., -2.], [0.5, 3.], [-1., 0.25], [2., 1.]]
X1 = [[-0.8928571428571429, 3.544642857142857], [0.3571428571428572, -1.736607142857143],
      [0.4821428571428571, -0.1584821428571429], [-0.10714285714285715, 0.017857142857143016]]
# a 2x2 block first, then 1x1 pivots
A3 = [[1e-3, 2., 0.5, -1., 3.], [2., 1e-3, 1., 2., -1.], [0.5, 1., 4., 0.3, 0.2], [-1., 2., 0.3, -2., 1.],
      [3., -1., 0.2, 1., 0.5]]
LD3 = [[0.001, 0.0, 0.0, 0.0, 0.0], [3.0, 0.5, 0.0, 0.0, 0.0],
       [0.03889104950275016, 0.1666537029834991, 3.947223734651925, 0.0, 0.0],
       [0.3889104950275016, -0.3334629701650092, 0.04363506051283899, -1.2851421218454278, 0.0],
       [-0.4444691371742875, 0.6668148230457248, 0.27585758426080653, -0.6545603378416637, 1.8069977672466941]]
X3 = [[-0.14931926235762777, 0.1116453735465702], [0.1116453735465702, 0.5534041148947797],
      [-0.05698702316081475, -0.16846692880848038], [0.3743787582514392, 0.36223638440849387],
      [0.39324361400035457, -0.2201500087834573]]


def t64(a):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64))


def sym(n, batch=(), dtype=np.float64):
    a = RNG.standard_normal(batch + (n, n))
    return (a + np.swapaxes(a, -1, -2)).astype(dtype)


def np_of(t):
    return t.detach().numpy()


def unpack(LD, piv):
    """(P L) and D of A = (P L) D (P L)^T from sytrf's lower factorization (LAPACK's
    convention: a 2x2 block at k, k+1 carries -(row swapped with k+1))."""
    n = LD.shape[0]
    M = np.eye(n)        # accumulates P_1 L_1 P_2 L_2 ...
    D = np.zeros((n, n))
    k = 0
    while k < n:
        s = 1 if piv[k] > 0 else 2
        p = abs(piv[k]) - 1
        P = np.eye(n)
        P[[k + s - 1, p]] = P[[p, k + s - 1]]
        Lk = np.eye(n)
        Lk[k + s:, k:k + s] = LD[k + s:, k:k + s]
        D[k:k + s, k:k + s] = LD[k:k + s, k:k + s]
        if s == 2:
            D[k, k + 1] = D[k + 1, k] = LD[k + 1, k]
        M = M @ P @ Lk
        k += s
    return M, D


# -- values ------------------------------------------------------------------------------------
def test_factor_and_solve_match_pytorch_literals():
    LD, piv, info = L.ldl_factor_ex(t64(A1))
    assert np_of(LD).tolist() == LD1
    assert piv.tolist() == [-4, -4, 3, 4] and piv.dtype == nbgrad.int32
    assert info.tolist() == 0 and info.dtype == nbgrad.int32 and info.dim() == 0
    assert LD.stride() == (1, 4)                    # column-major, as LAPACK leaves it
    X = L.ldl_solve(LD, piv, t64(B1))
    assert np_of(X).tolist() == X1 and X.stride() == (1, 4)
    LD, piv = L.ldl_factor(t64(A3))
    assert np_of(LD).tolist() == LD3 and piv.tolist() == [-5, -5, 3, 4, 5]
    assert np_of(L.ldl_solve(LD, piv, t64(np.eye(5)[:, :2]))).tolist() == X3


def test_float32_matches_pytorch_literals():
    A = nbgrad.tensor([[4., 1.5, -2.], [1.5, -3., 0.7], [-2., 0.7, 0.1]], dtype=nbgrad.float32)
    LD, piv = L.ldl_factor(A)
    expected = np.array([[4.0, 0.0, 0.0], [0.375, -3.5625, 0.0], [-0.5, -0.4070175588130951, -0.30982446670532227]],
                        dtype=np.float32)
    assert LD.dtype == nbgrad.float32 and np.array_equal(np_of(LD), expected) and piv.tolist() == [1, 2, 3]
    X = L.ldl_solve(LD, piv, nbgrad.tensor([[1.], [2.], [3.]]))
    assert np.array_equal(np_of(X), np.array([[-4.244622230529785], [-5.922991752624512], [-13.431488037109375]],
                                             dtype=np.float32))


@pytest.mark.parametrize("n", [1, 2, 7, 30])
def test_pivots_are_sytrfs_and_the_factors_rebuild_A(n):
    for trial in range(3):
        A = sym(n)
        LD, piv = L.ldl_factor(t64(A))
        ld, ipiv, info = lapack.dsytrf(A, lower=1)
        assert info == 0
        assert piv.tolist() == ipiv.tolist()
        np.testing.assert_allclose(np_of(LD), np.tril(ld), rtol=1e-10, atol=1e-12)
        M, D = unpack(np_of(LD), piv.tolist())
        np.testing.assert_allclose(M @ D @ M.T, A, rtol=1e-10, atol=1e-11)


def test_only_the_lower_triangle_is_read():
    A = sym(6)
    B = A.copy()
    B[np.triu_indices(6, 1)] = np.nan
    LD, piv = L.ldl_factor(t64(A))
    LDb, pivb = L.ldl_factor(t64(B))
    assert np.array_equal(np_of(LD), np_of(LDb)) and piv.tolist() == pivb.tolist()
    assert not np.triu(np_of(LD), 1).any()          # LD's upper triangle is zero


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-10), (np.float32, 2e-4)])
def test_solve_against_numpy_with_batches(dtype, tol):
    A = sym(9, (2, 3), dtype)
    B = RNG.standard_normal((2, 3, 9, 4)).astype(dtype)
    nd = nbgrad.float64 if dtype == np.float64 else nbgrad.float32
    LD, piv = L.ldl_factor(nbgrad.tensor(A, dtype=nd))
    assert LD.shape == (2, 3, 9, 9) and LD.stride() == (243, 81, 1, 9) and piv.shape == (2, 3, 9)
    X = L.ldl_solve(LD, piv, nbgrad.tensor(B, dtype=nd))
    assert X.shape == (2, 3, 9, 4) and X.stride() == (108, 36, 1, 9) and X.dtype == nd
    np.testing.assert_allclose(np_of(X), np.linalg.solve(A.astype(np.float64), B.astype(np.float64)),
                               rtol=tol, atol=tol)
    # each matrix of the batch as if alone
    LD0, piv0 = L.ldl_factor(nbgrad.tensor(A[1, 2], dtype=nd))
    assert np.array_equal(np_of(LD0), np_of(LD)[1, 2]) and piv0.tolist() == piv[1, 2].tolist()


def test_solve_broadcasts_batches_and_takes_other_integer_pivots():
    A = sym(4, (3,))
    B = RNG.standard_normal((4, 2))
    LD, piv = L.ldl_factor(t64(A))
    X = L.ldl_solve(LD, piv, t64(B))                 # a batch of LD, one B
    assert X.shape == (3, 4, 2) and X.stride() == (8, 1, 4)
    np.testing.assert_allclose(np_of(X), np.linalg.solve(A, B), rtol=1e-10, atol=1e-10)
    for dtype in (nbgrad.int64, nbgrad.int16):
        assert np.array_equal(np_of(L.ldl_solve(LD, piv.to(dtype), t64(B))), np_of(X))
    Bs = RNG.standard_normal((2, 4, 2))
    X0 = L.ldl_solve(LD[0], piv[0], t64(Bs))          # one LD, a batch of B
    assert X0.shape == (2, 4, 2)
    np.testing.assert_allclose(np_of(X0), np.linalg.solve(A[0], Bs), rtol=1e-10, atol=1e-10)


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch 2.13 crashes (reads out of bounds) on these")
def test_solve_broadcasts_both_batches():
    A = sym(4, (3,))
    B = RNG.standard_normal((2, 1, 4, 2))
    LD, piv = L.ldl_factor(t64(A))
    X = L.ldl_solve(LD, piv, t64(B))
    assert X.shape == (2, 3, 4, 2) and X.stride() == (24, 8, 1, 4)
    np.testing.assert_allclose(np_of(X), np.linalg.solve(A, B), rtol=1e-10, atol=1e-10)


def test_hermitian_changes_nothing_for_real_matrices():
    A = t64(sym(5))
    LD, piv = L.ldl_factor(A)
    LDh, pivh = L.ldl_factor(A, hermitian=True)
    assert np.array_equal(np_of(LD), np_of(LDh)) and piv.tolist() == pivh.tolist()
    B = t64(RNG.standard_normal((5, 2)))
    assert np.array_equal(np_of(L.ldl_solve(LD, piv, B)), np_of(L.ldl_solve(LD, piv, B, hermitian=True)))


def test_empty_matrices():
    LD, piv, info = L.ldl_factor_ex(nbgrad.zeros(2, 0, 0))
    assert LD.shape == (2, 0, 0) and piv.shape == (2, 0) and info.tolist() == [0, 0]
    X = L.ldl_solve(nbgrad.zeros(0, 0, dtype=nbgrad.float64), nbgrad.zeros(0, dtype=nbgrad.int32),
                    nbgrad.zeros(0, 2, dtype=nbgrad.float64))
    assert X.shape == (0, 2)
    LD, piv = L.ldl_factor(t64(A1))
    assert L.ldl_solve(LD, piv, nbgrad.zeros(4, 0, dtype=nbgrad.float64)).shape == (4, 0)


# -- zero pivots: info ---------------------------------------------------------------------------
def test_zero_pivots_give_info_and_errors_as_pytorch():
    LD, piv, info = L.ldl_factor_ex(nbgrad.zeros(3, 3))
    assert info.tolist() == 1 and piv.tolist() == [1, 2, 3] and not np_of(LD).any()
    LD, piv, info = L.ldl_factor_ex(nbgrad.tensor([[1., 2.], [2., 4.]]))
    assert info.tolist() == 2 and piv.tolist() == [2, 2] and np_of(LD).tolist() == [[4., 0.], [0.5, 0.]]
    batch = nbgrad.stack([nbgrad.eye(3), nbgrad.zeros(3, 3)])
    assert L.ldl_factor_ex(batch).info.tolist() == [0, 1]
    with pytest.raises(RuntimeError, match=r"torch\.linalg\.ldl_factor_ex: Unknown error code: 1\."):
        L.ldl_factor_ex(batch, check_errors=True)
    with pytest.raises(RuntimeError, match=r"torch\.linalg\.ldl_factor: Unknown error code: 2\."):
        L.ldl_factor(nbgrad.tensor([[1., 2.], [2., 4.]]))


def test_nan_takes_lapacks_steps():
    LD, piv, info = L.ldl_factor_ex(nbgrad.tensor([[float("nan"), 1.], [1., 2.]]))
    assert piv.tolist() == [2, 2] and info.tolist() == 2
    ld = np_of(LD)
    assert ld[0].tolist() == [2., 0.] and ld[1, 0] == 0.5 and np.isnan(ld[1, 1])
    LD, piv, info = L.ldl_factor_ex(nbgrad.tensor([[1., float("inf")], [float("inf"), 2.]]))
    assert piv.tolist() == [-2, -2] and info.tolist() == 0 and np_of(LD).tolist() == [[1., 0.], [float("inf"), 2.]]


# -- errors --------------------------------------------------------------------------------------
def test_factor_errors():
    with pytest.raises(RuntimeError, match=r"ldl_factor_ex: A must be batches of square matrices, but they are "
                                           r"3 by 4 matrices"):
        L.ldl_factor(nbgrad.ones(3, 4, dtype=nbgrad.int64))
    with pytest.raises(RuntimeError, match=r"ldl_factor_ex: The input tensor A must have at least 2 dimensions"):
        L.ldl_factor(nbgrad.ones(3))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        L.ldl_factor_ex(nbgrad.ones(3, 3, dtype=nbgrad.int64))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Bool"):
        L.ldl_factor(nbgrad.ones(3, 3, dtype=nbgrad.bool))
    with pytest.raises(NotImplementedError, match="\"ldl_factor_kernel_cpu\" not implemented for 'Half'"):
        L.ldl_factor(nbgrad.ones(3, 3, dtype=nbgrad.float16))
    with pytest.raises(TypeError, match=r"linalg_ldl_factor\(\): argument 'input' \(position 1\) must be Tensor, "
                                        "not list"):
        L.ldl_factor([[1.]])
    with pytest.raises(TypeError, match=r"linalg_ldl_factor_ex\(\): argument 'check_errors' must be bool, not int"):
        L.ldl_factor_ex(nbgrad.eye(2), check_errors=1)
    with pytest.raises(TypeError, match=r"linalg_ldl_factor\(\): argument 'hermitian' must be bool, not int"):
        L.ldl_factor(nbgrad.eye(2), hermitian=1)
    with pytest.raises(TypeError):
        L.ldl_factor(nbgrad.eye(2), True)           # hermitian is keyword-only
    LD, piv = L.ldl_factor(input=nbgrad.eye(2))
    assert piv.tolist() == [1, 2]


def test_solve_errors_in_pytorchs_order():
    LD, piv = L.ldl_factor(t64(A3))
    B = t64(np.ones((5, 2)))
    S = L.ldl_solve
    with pytest.raises(RuntimeError, match="ldl_solve: The input tensor A must have at least 2 dimensions"):
        S(LD[0].long(), piv, B)
    with pytest.raises(RuntimeError, match="ldl_solve: A must be batches of square matrices, but they are 5 by 2"):
        S(LD[:, :2], piv, B)
    with pytest.raises(RuntimeError, match="ldl_solve: Expected a floating point or complex tensor as input. Got Long"):
        S(LD.long(), piv[:2], B.long())
    with pytest.raises(RuntimeError, match="Expected b and A to have the same dtype, but found b of type Double and "
                                           "A of type Half instead."):
        S(LD.half(), piv[:2], B)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\], but got "
                                         r"-2\)"):
        S(LD, piv[:2].float(), B[:, 0])
    with pytest.raises(IndexError, match="Dimension specified as -2 but tensor has no dimensions"):
        S(LD, piv, t64(1.))
    with pytest.raises(RuntimeError, match="Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is "
                                           "5 by 5 but each b matrix is 4 by 2"):
        S(LD, piv[:2], t64(np.ones((4, 2))))
    with pytest.raises(RuntimeError, match=r"ldl_solve: Expected LD.shape\[:-1\] and pivots.shape to be the same, "
                                           r"but got pivots with shape \[2\] instead"):
        S(LD, piv[:2].float(), B)
    with pytest.raises(RuntimeError, match="ldl_solve: Expected pivots to be integers. Got Float"):
        S(LD.expand(2, 5, 5), piv.expand(2, 5).float(), t64(np.ones((3, 5, 2))))
    with pytest.raises(RuntimeError, match="ldl_solve: Expected pivots to be integers. Got Bool"):
        S(LD, piv.bool(), B)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\) at "
                                           "non-singleton dimension 0"):
        S(LD.expand(2, 5, 5), piv.expand(2, 5) * 0, t64(np.ones((3, 5, 2))))
    with pytest.raises(RuntimeError, match=r"Pivots given to ldl_solve must all satisfy \|pivot\| >= 1"):
        S(LD.half(), piv * 0, B.half())
    with pytest.raises(RuntimeError, match=r"Pivots given to ldl_solve must all satisfy \|pivot\| <= LD.size\(-2\)"):
        S(LD, nbgrad.tensor([6, 1, 2, 3, 4], dtype=nbgrad.int32), B)
    with pytest.raises(NotImplementedError, match="\"ldl_solve_kernel_cpu\" not implemented for 'Half'"):
        S(LD.half(), piv, B.half())
    with pytest.raises(TypeError, match=r"linalg_ldl_solve\(\): argument 'B' \(position 3\) must be Tensor, not list"):
        S(LD, piv, [[1.]])
    with pytest.raises(TypeError, match=r"linalg_ldl_solve\(\): argument 'pivots' \(position 2\) must be Tensor"):
        S(LD, [1], B)


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch 2.13's ?sytrs reads outside its arrays for these pivots")
def test_solve_takes_any_pivots_in_range():
    # pivots no factorization gives (a trailing negative one, mixed signs) stay inside the arrays
    LD, piv = L.ldl_factor(t64(A3))
    B = t64(np.ones((5, 2)))
    for p in ([-2, 2, 3, -1, -5], [-5, -5, -5, -5, -5]):
        X = L.ldl_solve(LD, nbgrad.tensor(p, dtype=nbgrad.int32), B)
        assert X.shape == (5, 2)
    # a negative pivot on the last row is a 1x1 block: as its positive value
    X = L.ldl_solve(LD, nbgrad.tensor([1, 2, 3, 4, -5], dtype=nbgrad.int32), B)
    Y = L.ldl_solve(LD, nbgrad.tensor([1, 2, 3, 4, 5], dtype=nbgrad.int32), B)
    assert np.array_equal(np_of(X), np_of(Y)) and np.isfinite(np_of(X)).all()


# -- autograd --------------------------------------------------------------------------------------
def test_no_derivatives_as_pytorch():
    A = nbgrad.tensor(np.asarray(A3), requires_grad=True)
    LD, piv = L.ldl_factor(A)
    assert LD.requires_grad and not piv.requires_grad
    assert type(LD.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
        LD.sum().backward()
    r = L.ldl_factor_ex(A)
    assert r.LD.requires_grad and not r.info.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
        nbgrad.autograd.grad(r.LD.sum(), A)
    B = nbgrad.tensor(np.ones((5, 2)), requires_grad=True)
    X = L.ldl_solve(LD.detach(), piv, B)
    assert X.requires_grad and type(X.grad_fn).__name__ == "NotImplemented"
    assert len(X.grad_fn.next_functions) == 1          # an edge to B only
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not implemented"):
        X.sum().backward()
    X = L.ldl_solve(LD, piv, B)
    assert len(X.grad_fn.next_functions) == 2
    with nbgrad.no_grad():
        assert not L.ldl_factor(A).LD.requires_grad
        assert not L.ldl_solve(LD, piv, B).requires_grad


# -- out= ------------------------------------------------------------------------------------------
def test_factor_out():
    A = t64(A1)
    o1, o2 = nbgrad.empty(0, dtype=nbgrad.float64), nbgrad.empty(0, dtype=nbgrad.int32)
    r = L.ldl_factor(A, out=(o1, o2))
    assert r.LD is o1 and r.pivots is o2 and type(r).__name__ == "linalg_ldl_factor_out"
    assert np_of(o1).tolist() == LD1 and o1.stride() == (1, 4) and o2.tolist() == [-4, -4, 3, 4]
    o3 = nbgrad.empty(0, dtype=nbgrad.int32)
    r = L.ldl_factor_ex(A, out=(o1, o2, o3))
    assert r.info is o3 and o3.tolist() == 0 and type(r).__name__ == "linalg_ldl_factor_ex_out"
    # an out of the result's shape keeps its layout; another shape is resized column-major
    o1 = nbgrad.zeros(4, 4, dtype=nbgrad.float64)
    L.ldl_factor(A, out=(o1, o2))
    assert o1.stride() == (4, 1) and np_of(o1).tolist() == LD1
    o1 = nbgrad.zeros(2, 2, dtype=nbgrad.float64)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        L.ldl_factor(A, out=(o1, o2))
    assert o1.stride() == (1, 4) and np_of(o1).tolist() == LD1
    assert any("was resized" in str(x.message) for x in w)


def test_factor_out_errors():
    A = t64(A1)
    e64, ei = (lambda: nbgrad.empty(0, dtype=nbgrad.float64)), (lambda: nbgrad.empty(0, dtype=nbgrad.int32))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got float instead"):
        L.ldl_factor(A, out=(nbgrad.empty(0), ei()))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype int, but got long int instead"):
        L.ldl_factor(A, out=(e64(), nbgrad.empty(0, dtype=nbgrad.int64)))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype int, but got float instead"):
        L.ldl_factor_ex(A, out=(e64(), ei(), nbgrad.empty(0)))
    with pytest.raises(TypeError, match="expected tuple of 2 elements but got 1"):
        L.ldl_factor(A, out=(e64(),))
    with pytest.raises(TypeError, match=r"linalg_ldl_factor\(\): argument 'out' must be tuple of Tensors, not "
                                        "Tensor"):
        L.ldl_factor(A, out=e64())
    with pytest.raises(TypeError, match="expected Tensor as element 1 in argument 2, but got int"):
        L.ldl_factor(A, out=(e64(), 3))
    with pytest.raises(RuntimeError, match=r"aten::linalg_ldl_factor_ex\(\): functions with out=\.\.\. arguments "
                                           "don't support automatic differentiation"):
        L.ldl_factor(A, out=(e64().requires_grad_(), ei()))
    # an input that requires grad does not refuse out=: the outs get the NotImplemented node
    o1, o2 = e64(), ei()
    L.ldl_factor(A.clone().requires_grad_(), out=(o1, o2))
    assert o1.requires_grad and type(o1.grad_fn).__name__ == "NotImplemented" and o1._version == 1
    assert not o2.requires_grad


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch writes the outs before raising for info > 0")
def test_factor_out_left_unchanged_on_error():
    o = (nbgrad.zeros(2, 2), nbgrad.zeros(2, dtype=nbgrad.int32))
    with pytest.raises(RuntimeError, match="Unknown error code: 1"):
        L.ldl_factor(nbgrad.zeros(2, 2), out=o)
    assert o[1].tolist() == [0, 0] and o[0]._version == 0


def test_solve_out():
    LD, piv = L.ldl_factor(t64(A1))
    B = t64(B1)
    o = nbgrad.empty(0, dtype=nbgrad.float64)
    assert L.ldl_solve(LD, piv, B, out=o) is o
    assert np_of(o).tolist() == X1 and o.stride() == (1, 4)
    o = nbgrad.empty(4, 2, dtype=nbgrad.float64)
    L.ldl_solve(LD, piv, B, out=o)
    assert o.stride() == (2, 1) and np_of(o).tolist() == X1
    Bc = B.clone()
    assert L.ldl_solve(LD, piv, Bc, out=Bc) is Bc and np_of(Bc).tolist() == X1
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got float instead"):
        L.ldl_solve(LD, piv, B, out=nbgrad.empty(0))
    with pytest.raises(TypeError, match=r"linalg_ldl_solve\(\): argument 'out' must be Tensor, not tuple"):
        L.ldl_solve(LD, piv, B, out=(o,))
    with pytest.raises(RuntimeError, match=r"aten::linalg_ldl_solve\(\): functions with out=\.\.\. arguments"):
        L.ldl_solve(LD, piv, B, out=nbgrad.zeros(4, 2, dtype=nbgrad.float64, requires_grad=True))
