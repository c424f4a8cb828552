"""torch.lobpcg (nbgrad/_lobpcg.py): eigenpairs of symmetric positive definite (generalized)
problems against NumPy's / SciPy's eigh, both methods, largest and smallest, batches,
PyTorch's errors and quirks, the tracker, and the gradient (LOBPCGAutogradFunction) against
finite differences of eigh's."""
import numpy as np
import pytest
import scipy.linalg as sla

import nbgrad

RNG = np.random.default_rng(11)


def spd(m, shift=None):
    a = RNG.standard_normal((m, m))
    return a @ a.T + (m if shift is None else shift) * np.eye(m)


def check_pairs(E, X, w, V, k, largest, rtol=1e-8, vtol=1e-6):
    """E, X against the k largest / smallest of eigh's (w ascending, V's columns)."""
    idx = np.arange(len(w))[::-1][:k] if largest else np.arange(k)
    E, X = E.numpy(), X.numpy()
    np.testing.assert_allclose(E, w[idx], rtol=rtol)
    for j, i in enumerate(idx):
        sign = np.sign(X[:, j] @ V[:, i])
        np.testing.assert_allclose(sign * X[:, j], V[:, i], atol=vtol)


@pytest.mark.parametrize("method", ["ortho", "basic"])
@pytest.mark.parametrize("largest", [True, False])
def test_eigenpairs_of_spd_matrices(method, largest):
    A = spd(15)
    w, V = np.linalg.eigh(A)
    X0 = nbgrad.tensor(RNG.standard_normal((15, 3)))
    E, X = nbgrad.lobpcg(nbgrad.tensor(A), k=3, X=X0, largest=largest, method=method)
    assert E.shape == (3,) and X.shape == (15, 3) and E.dtype == X.dtype == nbgrad.float64
    check_pairs(E, X, w, V, 3, largest)


def test_random_start_and_defaults():
    A = spd(12)
    w, V = np.linalg.eigh(A)
    E, X = nbgrad.lobpcg(nbgrad.tensor(A))               # k = 1, the largest
    assert E.shape == (1,) and X.shape == (12, 1)
    check_pairs(E, X, w, V, 1, True)
    E, X = nbgrad.lobpcg(nbgrad.tensor(A), k=2, n=4, largest=False)
    assert E.shape == (2,) and X.shape == (12, 2)
    check_pairs(E, X, w, V, 2, False)


def test_generalized_problem_with_B():
    A, B = spd(14), spd(14)
    w, V = sla.eigh(A, B)                              # V's columns B-orthonormal
    for largest in (True, False):
        E, X = nbgrad.lobpcg(nbgrad.tensor(A), k=2, B=nbgrad.tensor(B), X=nbgrad.tensor(RNG.standard_normal((14, 2))),
                             largest=largest)
        check_pairs(E, X, w, V, 2, largest)


def test_batches_and_float32():
    A = np.stack([spd(12), spd(12)])
    E, X = nbgrad.lobpcg(nbgrad.tensor(A), k=2, X=nbgrad.tensor(RNG.standard_normal((2, 12, 2))))
    assert E.shape == (2, 2) and X.shape == (2, 12, 2)
    for b in range(2):
        w, V = np.linalg.eigh(A[b])
        check_pairs(E[b], X[b], w, V, 2, True)
    E, X = nbgrad.lobpcg(nbgrad.tensor(A[0], dtype=nbgrad.float32), k=2, largest=False)
    assert E.dtype == X.dtype == nbgrad.float32
    w, V = np.linalg.eigh(A[0])
    check_pairs(E, X, w, V, 2, False, rtol=1e-4, vtol=2e-2)


def test_errors_as_pytorch():
    A = nbgrad.tensor(spd(12))
    with pytest.raises(ValueError, match=r"LOBPCG algorithm is not applicable when the number of A rows \(=12\) is "
                                         r"smaller than 3 x the number of requested eigenpairs \(=5\)"):
        nbgrad.lobpcg(A, k=5)
    with pytest.raises(ValueError, match=r"requested eigenpairs \(=5\)"):
        nbgrad.lobpcg(A, k=1, n=5)
    with pytest.raises(ValueError, match=r"requested eigenpairs \(=5\)"):
        nbgrad.lobpcg(A, X=nbgrad.randn(12, 5, dtype=nbgrad.float64))
    with pytest.raises(AssertionError, match=r"X shape mismatch: got .*\[11, 2\]\), expected \(12, 2\)"):
        nbgrad.lobpcg(A, X=nbgrad.randn(11, 2, dtype=nbgrad.float64))
    with pytest.raises(AssertionError, match=r"A must be square, got shape .*\[12, 13\]"):
        nbgrad.lobpcg(nbgrad.randn(12, 13))
    with pytest.raises(AssertionError, match=r"A and B must have same shape, got .*\[12, 12\]\) vs .*\[11, 11\]\)"):
        nbgrad.lobpcg(A, B=nbgrad.eye(11, dtype=nbgrad.float64))
    E, X = nbgrad.lobpcg(A, k=4)                       # m = 3 n is allowed
    assert E.shape == (4,)


def test_pytorchs_quirks():
    A = nbgrad.tensor(spd(12))
    # k > n: only n pairs come back
    E, X = nbgrad.lobpcg(A, k=3, n=2)
    assert E.shape == (2,) and X.shape == (12, 2)
    # "ortho" stopped after its first step has not set E yet
    E, X = nbgrad.lobpcg(A, k=2, niter=1)
    assert E.tolist() == [0.0, 0.0]
    # "basic" iterates in the X given
    X0 = nbgrad.tensor(RNG.standard_normal((12, 2)))
    before = X0.clone()
    E, X = nbgrad.lobpcg(A, k=2, X=X0, method="basic")
    assert not nbgrad.equal(X0, before) and nbgrad.equal(X, X0[:, :2])


def test_tracker_sees_the_steps_and_may_stop():
    A = nbgrad.tensor(spd(12))
    steps, rerrs = [], []

    def tracker(worker):
        steps.append(worker.ivars["istep"])
        rerrs.append(worker.tvars["rerr"].clone())
    E, X = nbgrad.lobpcg(A, k=2, tracker=tracker)
    assert steps == list(range(1, len(steps) + 1)) and len(steps) > 2
    assert (rerrs[-1] < 2.23e-16 ** 0.5).all().item()

    def stop(worker):
        steps.append(worker.ivars["istep"])
        if worker.ivars["istep"] == 3:
            worker.bvars["force_stop"] = True
    steps.clear()
    nbgrad.lobpcg(A, k=2, tracker=stop)
    assert steps == [1, 2, 3]


@pytest.mark.parametrize("largest", [True, False])
def test_gradient_against_finite_differences(largest):
    m, k = 10, 2
    A = spd(m, shift=2.0)
    c = RNG.standard_normal(m)

    def f(A):                                           # sign-free in the vectors
        w, V = np.linalg.eigh((A + A.T) / 2)
        if largest:
            w, V = w[::-1], V[:, ::-1]
        return w[:k].sum() + (c * V[:, 0] ** 2).sum() + 0.5 * (c * V[:, 1] ** 2).sum()
    h = 1e-6
    fd = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            Ap, Am = A.copy(), A.copy()
            Ap[i, j] += h
            Am[i, j] -= h
            fd[i, j] = (f(Ap) - f(Am)) / (2 * h)
    Ag = nbgrad.tensor(A, requires_grad=True)
    E, X = nbgrad.lobpcg(Ag, k=k, X=nbgrad.tensor(RNG.standard_normal((m, k))), largest=largest)
    assert type(E.grad_fn).__name__ == "LOBPCGAutogradFunctionBackward" and X.grad_fn is E.grad_fn
    C = nbgrad.tensor(c)
    (E.sum() + (C * X[:, 0] ** 2).sum() + 0.5 * (C * X[:, 1] ** 2).sum()).backward()
    np.testing.assert_allclose(Ag.grad.numpy(), fd, atol=5e-6)


def test_no_gradient_with_B():
    A = nbgrad.tensor(spd(12))
    B = nbgrad.eye(12, dtype=nbgrad.float64, requires_grad=True)
    E, X = nbgrad.lobpcg(A, k=2, B=B)
    assert E.requires_grad
    with pytest.raises(ValueError, match=r"lobpcg.backward does not support backward with B != I yet."):
        E.sum().backward()


def test_gradient_of_the_eigenvalues_alone():
    # d(sum of the k largest eigenvalues)/dA = sum of u u^T over their eigenvectors
    A = spd(12)
    w, V = np.linalg.eigh(A)
    Ag = nbgrad.tensor(A, requires_grad=True)
    E, X = nbgrad.lobpcg(Ag, k=2, X=nbgrad.tensor(RNG.standard_normal((12, 2))))
    E.sum().backward()
    U = V[:, -2:]
    np.testing.assert_allclose(Ag.grad.numpy(), U @ U.T, atol=1e-7)
