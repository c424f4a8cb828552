"""torch.svd, torch.qr, torch.cholesky and the predicates and identities of a real strided
tensor, as PyTorch 2.13 gives them (values, node names and strides recorded from it)."""
import warnings

import numpy as np
import pytest

import nbgrad as T


def _a():
    return T.tensor([[2.0, 1.0], [1.0, 3.0], [0.5, -1.0]], requires_grad=True)


def test_svd_returns_v_and_its_gradient_flows():
    a = _a()
    U, S, V = T.svd(a)
    assert (tuple(U.shape), tuple(S.shape), tuple(V.shape)) == ((3, 2), (2,), (2, 2))
    assert U.grad_fn.name() == "LinalgSvdBackward0" and V.grad_fn.name() == "TransposeBackward0"
    assert V.grad_fn.next_functions[0][1] == 2              # Vh, LinalgSvdBackward0's third output
    assert [t.stride() for t in (U, S, V)] == [(1, 3), (1,), (2, 1)]
    assert type(T.svd(a)).__name__ == "svd"
    np.testing.assert_allclose((U @ T.diag(S) @ V.t()).detach().numpy(), a.detach().numpy(), atol=1e-6)
    (U.sum() + S.sum() + V.sum()).backward()
    np.testing.assert_allclose(a.grad.flatten().tolist(), [-0.00542, -0.20402, -0.29121, 1.41334, 0.53751, -1.33557],
                               atol=1e-5)
    U, S, V = T.svd(a, some=False)
    assert (tuple(U.shape), tuple(V.shape)) == ((3, 3), (2, 2))


def test_svd_without_uv_gives_zero_u_and_v():
    U, S, V = T.svd(_a(), compute_uv=False)
    assert U.tolist() == [[0.0] * 3] * 3 and V.tolist() == [[0.0] * 2] * 2 and not U.requires_grad
    assert S.grad_fn.name() == "LinalgSvdBackward0"
    assert [t.stride() for t in (U, S, V)] == [(3, 1), (1,), (1, 2)]


def test_qr_and_its_deprecation_warning():
    a = _a()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        Q, R = T.qr(a)
    assert (tuple(Q.shape), tuple(R.shape)) == ((3, 2), (2, 2)) and Q.grad_fn.name() == "LinalgQrBackward0"
    assert type(T.qr(a)).__name__ == "qr"
    Q, R = T.qr(a, some=False)
    assert (tuple(Q.shape), tuple(R.shape)) == ((3, 3), (3, 2))


@pytest.mark.parametrize("upper, value", [(False, [[2.0, 0.0], [0.5, 1.658312439918518]]),
                                          (True, [[2.0, 0.5], [0.0, 1.658312439918518]])])
def test_cholesky_node_and_gradient(upper, value):
    A = T.tensor([[4.0, 1.0], [1.0, 3.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        L = T.cholesky(A, upper=upper)
    assert L.grad_fn.name() == "CholeskyBackward0" and L.stride() == (1, 2) and L.tolist() == value
    g = T.autograd.grad(L.sum(), A)[0]
    assert g.stride() == (1, 2)
    np.testing.assert_allclose(g.flatten().tolist(), [0.206344, 0.174622, 0.174622, 0.301511], atol=1e-6)


def test_predicates():
    a = _a()
    assert (T.is_complex(a), a.is_complex(), T.is_same_size(a, a), T.is_signed(a), T.is_conj(a), T.is_neg(a)) == \
        (False, False, True, True, False, False)
    assert [T.tensor([1], dtype=d).is_signed() for d in (T.uint8, T.bool, T.int8)] == [False, False, True]
    assert T.is_nonzero(T.tensor([1.5])) and not T.is_nonzero(T.tensor([[0]]))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        T.is_nonzero(T.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        T.is_nonzero(T.tensor([]))
    b = T.arange(6.0).reshape(2, 3)
    assert (b.is_sparse, b.is_quantized, b.is_meta, b.is_nested, b.is_mkldnn, b.is_sparse_csr) == (False,) * 6
    assert b.layout == T.strided and repr(T.strided) == "nbgrad.strided"
    assert b.is_pinned() is False and b.is_shared() is False and b.to_dense() is b
    assert T.get_device(b) == -1 and b.char().dtype == T.int8


def test_real_tensors_are_their_own_conjugate_and_have_no_imaginary_part():
    a = _a()
    assert all(f(a) is a for f in (T.conj, T.resolve_conj, T.resolve_neg, T.conj_physical, T.real))
    assert a.conj() is a and a.real is a
    for f in (lambda: T.imag(a), lambda: a.imag):
        with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes."):
            f()


def test_narrow_copy_is_a_copy():
    b = T.arange(6.0).reshape(2, 3)
    nc = T.narrow_copy(b, 1, 1, 2)
    assert nc.tolist() == [[1.0, 2.0], [4.0, 5.0]] and nc.is_contiguous() and nc._base is None
    assert b.narrow_copy(0, 1, 1).tolist() == [[3.0, 4.0, 5.0]]
    nc[0, 0] = 9.0
    assert b[0, 1].item() == 1.0


def test_errors_of_a_vector():
    with pytest.raises(RuntimeError, match="linalg.svd: input should have at least 2 dimensions, but has 1 "
                                           "dimensions instead"):
        T.svd(T.ones(3))
    with pytest.raises(RuntimeError, match="^cholesky: The input tensor A must have at least 2 dimensions."):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            T.cholesky(T.ones(3))
