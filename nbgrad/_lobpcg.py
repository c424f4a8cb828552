"""torch.lobpcg: the k largest (or smallest) eigenpairs of a symmetric positive definite
generalized eigenproblem A X = B X E by Knyazev's Locally Optimal Block Preconditioned
Conjugate Gradient method, "basic" [Knyazev2001] or "ortho" (an orthogonal basis of the
search space, [StathopoulosEtal2002], [DuerschEtal2018]; the default).

A port of PyTorch's torch/_lobpcg.py (2.13) over nbgrad's public ops (matmul, linalg.eigh,
linalg.cholesky, linalg.solve_triangular, linalg.qr, indexing), step for step: the same
iteration, convergence test, tracker interface (the LOBPCG worker's iparams / fparams /
bparams / ivars / fvars / bvars / tvars, A, B, iK, E, X, S, R; bvars["force_stop"]), the
same errors (AssertionError for shapes, ValueError when m < 3 n) and the same quirks (the
"basic" method writes its iterates into the X given; an "ortho" run stopped after one
step returns zero eigenvalues; any method other than "ortho" is "basic").

When A (or B) requires grad, A is symmetrized ((A + A^T) / 2, as PyTorch does) and the
result comes from LOBPCGAutogradFunction, whose backward is PyTorch's: the complete-eigenspace
formula when k = m, else the solution of a Sylvester equation on the orthogonal complement
of U's columns; B must be None there (ValueError otherwise, as PyTorch).

Departures from PyTorch: the random initial X comes from nbgrad's generator, so for the same
seed the iterates differ from PyTorch's (the eigenpairs agree to the tolerance, the vectors
up to sign); the backward's basis of the complement of span(U) is the complete QR's last
m - k columns of U instead of a random matrix projected onto it (any basis gives the same
gradient; this one draws no random numbers); sparse inputs are not supported (nbgrad has no
sparse tensors) and there is no TorchScript path.
"""
import math

__all__ = ["lobpcg"]


def _nb():
    import nbgrad
    return nbgrad


# -- torch._linalg_utils -----------------------------------------------------------------
def _get_floating_dtype(A):
    nb = _nb()
    dtype = A.dtype
    if dtype in (nb.float16, nb.float32, nb.float64):
        return dtype
    return nb.float32


def _matmul(A, B):
    """A B, with A None standing for the identity."""
    if A is None:
        return B
    return _nb().matmul(A, B)


def _bform(X, A, Y):
    """X^T A Y."""
    return _matmul(X.mT, _matmul(A, Y))


def _qform(A, S):
    """S^T A S."""
    return _bform(S, A, S)


def _basis(A):
    """An orthonormal basis of A's columns."""
    return _nb().linalg.qr(A).Q


def _symeig(A, largest=False):
    """A's eigenpairs, ascending, or descending when largest."""
    nb = _nb()
    if largest is None:
        largest = False
    E, Z = nb.linalg.eigh(A, UPLO="U")
    if largest:
        E = nb.flip(E, dims=(-1,))
        Z = nb.flip(Z, dims=(-1,))
    return E, Z


# -- the backward ------------------------------------------------------------------------
def _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U):
    nb = _nb()
    # F_ij = (d_j - d_i)^{-1} for i != j, F_ii = 0
    F = D.unsqueeze(-2) - D.unsqueeze(-1)
    F.diagonal(dim1=-2, dim2=-1).fill_(float("inf"))
    F.pow_(-1)
    # A.grad = U (D.grad + (U^T U.grad * F)) U^T
    Ut = U.mT.contiguous()
    return nb.matmul(U, nb.matmul(nb.diag_embed(D_grad) + nb.matmul(Ut, U_grad) * F, Ut))


def _polynomial_coefficients_given_roots(roots):
    """The coefficients (a_0, ..., a_{n-1}, 1) of prod_i (x - r_i), by Horner's steps on
    copies (so that each step is its own node when roots require grad)."""
    poly_order = roots.shape[-1]
    poly_coeffs_shape = list(roots.shape)
    # one extra coefficient for the vectorized steps below
    poly_coeffs_shape[-1] += 2
    poly_coeffs = roots.new_zeros(poly_coeffs_shape)
    poly_coeffs[..., 0] = 1
    poly_coeffs[..., -1] = 1
    for i in range(1, poly_order + 1):
        poly_coeffs_new = poly_coeffs.clone() if roots.requires_grad else poly_coeffs
        out = poly_coeffs_new.narrow(-1, poly_order - i, i + 1)
        out -= roots.narrow(-1, i - 1, 1) * poly_coeffs.narrow(-1, poly_order - i + 1, i + 1)
        poly_coeffs = poly_coeffs_new
    return poly_coeffs.narrow(-1, 1, poly_order + 1)


def _polynomial_value(poly, x, zero_power, transition):
    """poly(x) by Horner's rule; transition(val, x, c) is one step, x val + c x^0."""
    res = zero_power.clone()
    for k in range(poly.size(-1) - 2, -1, -1):
        res = transition(res, x, poly[..., k])
    return res


def _matrix_polynomial_value(poly, x, zero_power=None):
    nb = _nb()

    def transition(curr_poly_val, x, poly_coeff):
        res = x.matmul(curr_poly_val)
        res.diagonal(dim1=-2, dim2=-1).add_(poly_coeff.unsqueeze(-1))
        return res

    if zero_power is None:
        zero_power = nb.eye(x.size(-1), x.size(-1), dtype=x.dtype, device=x.device).view(
            *([1] * len(list(x.shape[:-2]))), x.size(-1), x.size(-1))
    return _polynomial_value(poly, x, zero_power, transition)


def _vector_polynomial_value(poly, x, zero_power=None):
    nb = _nb()

    def transition(curr_poly_val, x, poly_coeff):
        return nb.addcmul(poly_coeff.unsqueeze(-1), x, curr_poly_val)

    if zero_power is None:
        zero_power = x.new_ones(1).expand(x.shape)
    return _polynomial_value(poly, x, zero_power, transition)


def _complement_basis(U):
    """Orthonormal columns spanning the orthogonal complement of U's (orthonormal) columns:
    the last m - k columns of U's complete QR (PyTorch projects a random matrix onto the
    complement instead; the gradient does not depend on the basis)."""
    nb = _nb()
    Q = nb.linalg.qr(U, mode="complete").Q
    return Q[..., U.size(-1):]


def _symeig_backward_partial_eigenspace(D_grad, U_grad, A, D, U, largest):
    nb = _nb()
    Ut = U.mT.contiguous()
    U_ortho = _complement_basis(U)
    U_ortho_t = U_ortho.mT.contiguous()

    # the characteristic polynomial of D (its diagonal: the roots)
    chr_poly_D = _polynomial_coefficients_given_roots(D)

    # the explicit solution of the Sylvester equation
    #   U_ortho^T A U_ortho dX - dX D = -U_ortho^T A U
    # (Hu and Cheng 2006, "The polynomial solution to the Sylvester matrix equation"), its
    # series accumulated without powers of A
    U_grad_projected = U_grad
    series_acc = U_grad_projected.new_zeros(U_grad_projected.shape)
    for k in range(1, chr_poly_D.size(-1)):
        poly_D = _vector_polynomial_value(chr_poly_D[..., k:], D)
        series_acc += U_grad_projected * poly_D.unsqueeze(-2)
        U_grad_projected = A.matmul(U_grad_projected)

    chr_poly_D_at_A = _matrix_polynomial_value(chr_poly_D, A)
    chr_poly_D_at_A_to_U_ortho = nb.matmul(U_ortho_t, nb.matmul(chr_poly_D_at_A, U_ortho))
    # positive-definite when not largest, or largest and k even (distinct eigenvalues):
    # else negative-definite
    sign = -1 if (largest and (k % 2 == 1)) else +1
    L = nb.linalg.cholesky(sign * chr_poly_D_at_A_to_U_ortho)

    res = _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U)
    res -= U_ortho.matmul(sign * nb.cholesky_solve(U_ortho_t.matmul(series_acc), L)).matmul(Ut)
    return res


def _symeig_backward(D_grad, U_grad, A, D, U, largest):
    if U.size(-1) == U.size(-2):
        return _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U)
    return _symeig_backward_partial_eigenspace(D_grad, U_grad, A, D, U, largest)


def _autograd_function():
    """LOBPCGAutogradFunction (made once, on first use: nbgrad.autograd is loaded by then)."""
    global _LOBPCGAutogradFunction
    if _LOBPCGAutogradFunction is not None:
        return _LOBPCGAutogradFunction
    nb = _nb()

    class LOBPCGAutogradFunction(nb.autograd.Function):
        @staticmethod
        def forward(ctx, A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
                    method=None, tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
            A = A.contiguous()
            if B is not None:
                B = B.contiguous()
            D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                           ortho_bparams)
            ctx.save_for_backward(A, B, D, U)
            ctx.largest = largest
            return D, U

        @staticmethod
        def backward(ctx, D_grad, U_grad):
            A_grad = B_grad = None
            grads = [None] * 14
            A, B, D, U = ctx.saved_tensors
            largest = ctx.largest
            if B is not None:
                raise ValueError("lobpcg.backward does not support backward with B != I yet.")
            if largest is None:
                largest = True
            A_grad = _symeig_backward(D_grad, U_grad, A, D, U, largest)
            grads[0] = A_grad
            grads[2] = B_grad
            return tuple(grads)

    _LOBPCGAutogradFunction = LOBPCGAutogradFunction
    return LOBPCGAutogradFunction


_LOBPCGAutogradFunction = None


# -- the front end -----------------------------------------------------------------------
def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """torch.lobpcg: (E (*, k), X (*, m, k)), the k largest (largest=True, the default) or
    smallest eigenvalues of A X = B X E and their eigenvectors, for symmetric A (*, m, m)
    and symmetric positive definite B (None: the identity).  X: the initial (*, m, n)
    approximation (random when None, n defaulting to k); iK: a preconditioner; niter: the
    most iterations (1000; -1: until convergence); tol: the residual tolerance
    (sqrt(eps) of A's dtype); method: "ortho" (default) or "basic"; tracker(worker): called
    after each iteration step; ortho_*params: "ortho"'s parameters (ortho_i_max,
    ortho_j_max, ortho_tol, ortho_tol_drop, ortho_tol_replace, ortho_use_drop)."""
    if A.requires_grad or (B is not None and B.requires_grad):
        # A's gradient is made symmetric by symmetrizing A first (so is B's)
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if (B is not None) else None
        return _autograd_function().apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest, method, tracker,
                                          ortho_iparams, ortho_fparams, ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                   ortho_bparams)


def _lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
            tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    nb = _nb()
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")

    dtype = _get_floating_dtype(A)
    device = A.device
    if tol is None:
        feps = {nb.float32: 1.2e-07, nb.float64: 2.23e-16}[dtype]
        tol = feps ** 0.5

    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]

    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than "
                         f"3 x the number of requested eigenpairs (={n})")

    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        if ortho_iparams is not None:
            iparams.update(ortho_iparams)
        if ortho_fparams is not None:
            fparams.update(ortho_fparams)
        if ortho_bparams is not None:
            bparams.update(ortho_bparams)
        iparams["ortho_i_max"] = iparams.get("ortho_i_max", 3)
        iparams["ortho_j_max"] = iparams.get("ortho_j_max", 3)
        fparams["ortho_tol"] = fparams.get("ortho_tol", tol)
        fparams["ortho_tol_drop"] = fparams.get("ortho_tol_drop", tol)
        fparams["ortho_tol_replace"] = fparams.get("ortho_tol_replace", tol)
        bparams["ortho_use_drop"] = bparams.get("ortho_use_drop", False)

    if len(A.shape) > 2:
        N = math.prod(A.shape[:-2])
        bA = A.reshape((N,) + tuple(A.shape[-2:]))
        bB = B.reshape((N,) + tuple(A.shape[-2:])) if B is not None else None
        bX = X.reshape((N,) + tuple(X.shape[-2:])) if X is not None else None
        bE = nb.empty((N, k), dtype=dtype, device=device)
        bXret = nb.empty((N, m, k), dtype=dtype, device=device)
        for i in range(N):
            A_ = bA[i]
            B_ = bB[i] if bB is not None else None
            X_ = nb.randn((m, n), dtype=dtype, device=device) if bX is None else bX[i]
            if not (len(X_.shape) == 2 and tuple(X_.shape) == (m, n)):
                raise AssertionError(f"X_ shape mismatch: got {X_.shape}, expected {(m, n)}")
            iparams["batch_index"] = i
            worker = LOBPCG(A_, B_, X_, iK, iparams, fparams, bparams, method, tracker)
            worker.run()
            bE[i] = worker.E[:k]
            bXret[i] = worker.X[:, :k]
        return bE.reshape(tuple(A.shape[:-2]) + (k,)), bXret.reshape(tuple(A.shape[:-2]) + (m, k))

    X = nb.randn((m, n), dtype=dtype, device=device) if X is None else X
    if not (len(X.shape) == 2 and tuple(X.shape) == (m, n)):
        raise AssertionError(f"X shape mismatch: got {X.shape}, expected {(m, n)}")
    worker = LOBPCG(A, B, X, iK, iparams, fparams, bparams, method, tracker)
    worker.run()
    return worker.E[:k], worker.X[:, :k]


class LOBPCG:
    """Worker class of LOBPCG methods (PyTorch's torch._lobpcg.LOBPCG): the iteration's
    state, which a tracker reads and may stop (bvars["force_stop"] = True)."""

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker):
        nb = _nb()
        self.A = A
        self.B = B
        self.iK = iK
        self.iparams = iparams
        self.fparams = fparams
        self.bparams = bparams
        self.method = method
        self.tracker = tracker
        m = iparams["m"]
        n = iparams["n"]
        self.X = X
        self.E = nb.zeros((n,), dtype=X.dtype, device=X.device)
        self.R = nb.zeros((m, n), dtype=X.dtype, device=X.device)
        self.S = nb.zeros((m, 3 * n), dtype=X.dtype, device=X.device)
        self.tvars = {}
        self.ivars = {"istep": 0}
        self.fvars = {"_": 0.0}
        self.bvars = {"_": False}

    def __str__(self):
        lines = ["LOBPCG:"]
        lines += [f"  iparams={self.iparams}"]
        lines += [f"  fparams={self.fparams}"]
        lines += [f"  bparams={self.bparams}"]
        lines += [f"  ivars={self.ivars}"]
        lines += [f"  fvars={self.fvars}"]
        lines += [f"  bvars={self.bvars}"]
        lines += [f"  tvars={self.tvars}"]
        lines += [f"  A={self.A}"]
        lines += [f"  B={self.B}"]
        lines += [f"  iK={self.iK}"]
        lines += [f"  X={self.X}"]
        lines += [f"  E={self.E}"]
        return "".join(line + "\n" for line in lines)

    def update(self):
        """Set and update iteration variables."""
        nb = _nb()
        if self.ivars["istep"] == 0:
            X_norm = float(nb.norm(self.X))
            iX_norm = X_norm ** -1
            A_norm = float(nb.norm(_matmul(self.A, self.X))) * iX_norm
            B_norm = float(nb.norm(_matmul(self.B, self.X))) * iX_norm
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = A_norm
            self.fvars["B_norm"] = B_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] = self.ivars["iterations_left"] - 1
        self.ivars["istep"] = self.ivars["istep"] + 1

    def update_residual(self):
        """R = A X - B X E."""
        self.R = _matmul(self.A, self.X) - _matmul(self.B, self.X) * self.E

    def update_converged_count(self):
        """The number of leading converged eigenpairs, by the backward stable criterion of
        [DuerschEtal2018] Sec. 4.3 (a later pair's convergence counts only after all earlier
        ones, keeping the pairs strictly ordered)."""
        nb = _nb()
        prev_count = self.ivars["converged_count"]
        tol = self.fparams["tol"]
        A_norm = self.fvars["A_norm"]
        B_norm = self.fvars["B_norm"]
        E, X, R = self.E, self.X, self.R
        rerr = nb.norm(R, 2, (0,)) / (nb.norm(X, 2, (0,)) * (A_norm + nb.abs(E[: X.shape[-1]]) * B_norm))
        converged = rerr < tol
        count = 0
        for b in converged.tolist():
            if not b:
                break
            count += 1
        if count < prev_count:
            raise AssertionError(f"the number of converged eigenpairs (was {prev_count}, got {count}) cannot "
                                 "decrease")
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def stop_iteration(self):
        """True to stop: forced by the tracker, out of iterations, or k pairs converged."""
        return (self.bvars.get("force_stop", False) or self.ivars["iterations_left"] == 0
                or self.ivars["converged_count"] >= self.iparams["k"])

    def run(self):
        """Run LOBPCG iterations."""
        self.update()
        if self.tracker is not None:
            self.call_tracker()
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.call_tracker()

    def call_tracker(self):
        self.tracker(self)

    # internal methods
    def _update_basic(self):
        """Update or initialize iteration variables when method == "basic"."""
        mm = _nb().matmul
        ns = self.ivars["converged_end"]
        nc = self.ivars["converged_count"]
        n = self.iparams["n"]
        largest = self.bparams["largest"]

        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            M = _qform(_qform(self.A, self.X), Ri)
            E, Z = _symeig(M, largest)
            self.X[:] = mm(self.X, mm(Ri, Z))
            self.E[:] = E
            np = 0
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            W = _matmul(self.iK, self.R)
            self.ivars["converged_end"] = ns = n + np + W.shape[-1]
            self.S[:, n + np:ns] = W
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._get_rayleigh_ritz_transform(S_)
            M = _qform(_qform(self.A, S_), Ri)
            E_, Z = _symeig(M, largest)
            self.X[:, nc:] = mm(S_, mm(Ri, Z[:, : n - nc]))
            self.E[nc:] = E_[: n - nc]
            P = mm(S_, mm(Ri, Z[:, n: 2 * n - nc]))
            np = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            self.S[:, n: n + np] = P
            W = _matmul(self.iK, self.R[:, nc:])
            self.ivars["converged_end"] = ns = n + np + W.shape[-1]
            self.S[:, n + np:ns] = W

    def _update_ortho(self):
        """Update or initialize iteration variables when method == "ortho"."""
        mm = _nb().matmul
        ns = self.ivars["converged_end"]
        nc = self.ivars["converged_count"]
        n = self.iparams["n"]
        largest = self.bparams["largest"]

        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            M = _qform(_qform(self.A, self.X), Ri)
            _E, Z = _symeig(M, largest)
            self.X = mm(self.X, mm(Ri, Z))
            self.update_residual()
            np = 0
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            W = self._get_ortho(self.R, self.X)
            ns = self.ivars["converged_end"] = n + np + W.shape[-1]
            self.S[:, n + np:ns] = W
        else:
            S_ = self.S[:, nc:ns]
            # the Rayleigh-Ritz procedure
            E_, Z = _symeig(_qform(self.A, S_), largest)
            # update E, X, P
            self.X[:, nc:] = mm(S_, Z[:, : n - nc])
            self.E[nc:] = E_[: n - nc]
            P = mm(S_, mm(Z[:, n - nc:], _basis(Z[: n - nc, n - nc:].mT)))
            np = P.shape[-1]
            # check convergence
            self.update_residual()
            nc = self.update_converged_count()
            # update S
            self.S[:, :n] = self.X
            self.S[:, n: n + np] = P
            W = self._get_ortho(self.R[:, nc:], self.S[:, : n + np])
            ns = self.ivars["converged_end"] = n + np + W.shape[-1]
            self.S[:, n + np:ns] = W

    def _get_rayleigh_ritz_transform(self, S):
        """The upper-triangular Ri that reduces (S^T A S) C = (S^T B S) C E to the standard
        problem (Ri^T S^T A S Ri) Z = Z E with C = Ri Z ([DuerschEtal2018]'s Rayleigh-Ritz
        with D M D written as elementwise products): d = diag(S^T B S)^-1/2,
        R^T R = cholesky(d d^T * S^T B S), Ri = R^-1 * d."""
        nb = _nb()
        SBS = _qform(self.B, S)
        d_row = SBS.diagonal(0, -2, -1) ** -0.5
        d_col = d_row.reshape(d_row.shape[0], 1)
        R = nb.linalg.cholesky((SBS * d_row) * d_col, upper=True)
        return nb.linalg.solve_triangular(R, d_row.diag_embed(), upper=True, left=False)

    def _get_svqb(self, U, drop, tau):
        """B-orthonormal U (U^T B U = I): Algorithm 4 of [DuerschPhD2015]; with drop, the
        columns whose contribution to span(U) is small are dropped."""
        nb = _nb()
        if nb.numel(U) == 0:
            return U
        UBU = _qform(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        # drop exactly zero columns first (d ** -0.5 below would fail on them)
        nz = nb.where(abs(d) != 0.0)
        if len(nz) != 1:
            raise AssertionError(f"expected nz to have length 1, got {nz}")
        if len(nz[0]) < len(d):
            U = U[:, nz[0]]
            if nb.numel(U) == 0:
                return U
            UBU = _qform(self.B, U)
            d = UBU.diagonal(0, -2, -1)
            nz = nb.where(abs(d) != 0.0)
            if len(nz[0]) != len(d):
                raise AssertionError(f"expected nz[0] length {len(d)}, got {len(nz[0])}")
        d_col = (d ** -0.5).reshape(d.shape[0], 1)
        DUBUD = (UBU * d_col) * d_col.mT
        E, Z = _symeig(DUBUD)
        t = tau * abs(E).max()
        if drop:
            keep = nb.where(E > t)
            if len(keep) != 1:
                raise AssertionError(f"expected keep to have length 1, got {keep}")
            E = E[keep[0]]
            Z = Z[:, keep[0]]
            d_col = d_col[keep[0]]
        else:
            E[(nb.where(E < t))[0]] = t
        return nb.matmul(U * d_col.mT, Z * E ** -0.5)

    def _get_ortho(self, U, V):
        """B-orthonormal U whose columns are B-orthogonal to V's: Algorithm 3 of
        [DuerschPhD2015] (Algorithm 6 when bparams["ortho_use_drop"]); empty when all of
        U's columns are B-collinear to V."""
        nb = _nb()
        mm = nb.matmul
        m = self.iparams["m"]
        tau_ortho = self.fparams["ortho_tol"]
        tau_drop = self.fparams["ortho_tol_drop"]
        tau_replace = self.fparams["ortho_tol_replace"]
        i_max = self.iparams["ortho_i_max"]
        j_max = self.iparams["ortho_j_max"]
        use_drop = self.bparams["ortho_use_drop"]

        # clean up the variables of the previous call
        for vkey in list(self.fvars.keys()):
            if vkey.startswith("ortho_") and vkey.endswith("_rerr"):
                self.fvars.pop(vkey)
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)

        BV_norm = nb.norm(_matmul(self.B, V))
        BU = _matmul(self.B, U)
        VBU = mm(V.mT, BU)
        i = j = 0
        for i in range(i_max):
            U = U - mm(V, VBU)
            drop = False
            tau_svqb = tau_drop
            for j in range(j_max):
                if use_drop:
                    U = self._get_svqb(U, drop, tau_svqb)
                    drop = True
                    tau_svqb = tau_replace
                else:
                    U = self._get_svqb(U, False, tau_replace)
                if nb.numel(U) == 0:
                    # all of U's columns are B-collinear to V
                    self.ivars["ortho_i"] = i
                    self.ivars["ortho_j"] = j
                    return U
                BU = _matmul(self.B, U)
                UBU = mm(U.mT, BU)
                U_norm = nb.norm(U)
                BU_norm = nb.norm(BU)
                R = UBU - nb.eye(UBU.shape[-1], device=UBU.device, dtype=UBU.dtype)
                R_norm = nb.norm(R)
                rerr = float(R_norm) * float(BU_norm * U_norm) ** -1
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau_ortho:
                    break
            VBU = mm(V.mT, BU)
            VBU_norm = nb.norm(VBU)
            U_norm = nb.norm(U)
            rerr = float(VBU_norm) * float(BV_norm * U_norm) ** -1
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                B = self.B
                if B is None:
                    raise AssertionError("B must not be None")
                raise ValueError(f"Overdetermined shape of U: #B-cols(={B.shape[-1]}) >= #U-cols(={U.shape[-1]}) + "
                                 f"#V-cols(={V.shape[-1]}) must hold")
        self.ivars["ortho_i"] = i
        self.ivars["ortho_j"] = j
        return U
