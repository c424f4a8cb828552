"""The classes API fuzz seeds 52 and 53 found (PyTorch 2.13's behaviour recorded): F.embedding's
padding_idx parsed as a SymInt by torch.embedding; Tensor.count_nonzero's dims by position;
lu_unpack with no pivots to read (k = 0), and its L and U in LU's dtype; F.pad's amounts parsed
as a SymInt list, also where an op calls it (local_response_norm of a float size), and max_unpool's
computed output size; linalg.vecdot of two vectors is vdot; torch.tensor of a tensor refuses
pin_memory; F.embedding_bag's old argument order and its offsets' dim() read by its Python; the
sizes autograd saves before an op's checks (unfold's, lu_unpack's); cumulative_trapezoid's
maybe_wrap_dim of a 0-dim y.  (Not mirrored, PyTorch's bugs: nanmedian of an expanded input reads
the wrong elements; the orthogonal polynomials of a NaN x return an uninitialised 0.)"""
import warnings

import pytest

import nbgrad

F = nbgrad.nn.functional


def test_embedding_parses_padding_idx_as_a_symint():
    weight = nbgrad.arange(9.0).reshape(3, 3)
    for padding_idx in (0.0, 1.5):
        with pytest.raises(TypeError, match="^embedding\\(\\): argument 'padding_idx' \\(position 3\\) must be int, "
                                            "not float$"):
            F.embedding(nbgrad.tensor([0, 1]), weight, padding_idx)
    with pytest.raises(TypeError, match="^embedding\\(\\): argument 'padding_idx' \\(position 3\\) must be int, not "
                                        "Tensor$"):
        F.embedding(nbgrad.zeros(1, 1, 1), weight, nbgrad.zeros(1, requires_grad=True))
    w = weight.clone().requires_grad_()
    out = F.embedding(nbgrad.tensor([0, 1]), w, nbgrad.tensor([1]))
    assert out.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    out.sum().backward()
    assert w.grad.tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]     # (row 1 is the padding)


def test_count_nonzero_takes_its_dims_by_position():
    x = nbgrad.ones(2, 2, 2, 2)
    assert x.count_nonzero(-2, 1).tolist() == [[4, 4], [4, 4]]
    with pytest.raises(IndexError, match="^Dimension out of range \\(expected to be in range of \\[-4, 3\\], but got "
                                         "4\\)$"):
        x.count_nonzero(-2, 4)


def test_lu_unpack_without_pivots_to_read_and_in_lus_dtype():
    P, L, U = nbgrad.lu_unpack(nbgrad.zeros(3, 2, 0), nbgrad.zeros(5, dtype=nbgrad.int32))
    assert P.shape == (3, 2, 2) and P[1].tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert L.shape == (3, 2, 0) and U.shape == (3, 0, 0)
    LU = nbgrad.arange(4).reshape(2, 2)
    P, L, U = nbgrad.lu_unpack(LU, nbgrad.ones(2, dtype=nbgrad.int32))
    assert (L.dtype, U.dtype) == (nbgrad.int64, nbgrad.int64)
    assert L.tolist() == [[1, 0], [2, 1]] and U.tolist() == [[0, 1], [0, 3]]
    assert nbgrad.lu_unpack(LU.bool(), nbgrad.ones(2, dtype=nbgrad.int32)).L.dtype == nbgrad.bool
    with pytest.raises(IndexError, match="^Dimension specified as -1 but tensor has no dimensions$"):
        nbgrad.lu_unpack(nbgrad.zeros((), requires_grad=True), nbgrad.zeros(1, dtype=nbgrad.int32))
    with pytest.raises(RuntimeError, match="^torch.lu_unpack: Expected tensor with 2 or more dimensions"):
        nbgrad.lu_unpack(nbgrad.zeros(()), nbgrad.zeros(1, dtype=nbgrad.int32))


def test_pad_amounts_and_computed_sizes_are_parsed_as_ints():
    with pytest.raises(TypeError, match="^pad\\(\\): argument 'pad' failed to unpack the object at pos 2 with error "
                                        "\"type must be tuple of ints,but got float\"$"):
        F.pad(nbgrad.zeros(2, 3), (1, 1.0))
    with pytest.raises(TypeError, match="^pad\\(\\): argument 'pad' \\(position 2\\) must be tuple of ints, but found "
                                        "element of type float at pos 0$"):
        F.pad(nbgrad.zeros(2, 3), (1.0, 1))
    with pytest.raises(TypeError, match="^pad\\(\\): argument 'pad'"):
        F.local_response_norm(nbgrad.zeros(1, 2, 3, 4), 0.5, k=2)
    with pytest.raises(TypeError, match="^max_unpool2d\\(\\): argument 'output_size' \\(position 3\\) must be tuple "
                                        "of ints, but found element of type float at pos 0$"):
        F.max_unpool1d(nbgrad.ones(1, 3), nbgrad.zeros(1, 3, dtype=nbgrad.int64), 2, 1.5)
    assert F.pad(nbgrad.zeros(2, 3), [1, True]).shape == (2, 5)


def test_vecdot_of_two_vectors_is_vdot():
    x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = nbgrad.linalg.vecdot(x, nbgrad.tensor([4.0, 5.0, 6.0]), dim=5)      # (dim not read)
    assert out.item() == 32.0 and type(out.grad_fn).__name__ == "VdotBackward0"
    with pytest.raises(RuntimeError, match="^inconsistent tensor size"):
        nbgrad.linalg.vecdot(nbgrad.zeros(0), nbgrad.zeros(1), dim=1)


def test_python_level_preambles():
    with pytest.raises(RuntimeError, match="^Can't pin tensor constructed from a variable$"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nbgrad.tensor(nbgrad.ones(2), pin_memory=True)
    weight = nbgrad.arange(9.0).reshape(3, 3)
    with pytest.warns(UserWarning, match="Argument order of nn.functional.embedding_bag was changed"):
        out = F.embedding_bag(weight, nbgrad.tensor([0, 1, 2]), nbgrad.tensor([0, 2]))    # (the old order)
    assert out.tolist() == [[1.5, 2.5, 3.5], [6.0, 7.0, 8.0]]
    with pytest.raises(AttributeError, match="^'int' object has no attribute 'dim'$"):
        F.embedding_bag(nbgrad.tensor([0, 1, 2]), weight, 4)


def test_sizes_autograd_saves_and_a_scalar_wrapped_dim():
    with pytest.raises(IndexError, match="^Dimension out of range \\(expected to be in range of \\[-1, 0\\], but got "
                                         "-2\\)$"):
        F.unfold(nbgrad.zeros(3, requires_grad=True), (1, 2, 3))
    with pytest.raises(RuntimeError, match="^It is expected kernel_size equals to 2, but got size 3$"):
        F.unfold(nbgrad.zeros(3, 4, requires_grad=True), (1, 2, 3))
    with pytest.raises(RuntimeError, match="received a bool input for `x` or `y`"):
        nbgrad.cumulative_trapezoid(nbgrad.zeros(()), x=nbgrad.zeros(1, 2, 3, 4, dtype=nbgrad.bool))
    with pytest.raises(IndexError, match="^slice\\(\\) cannot be applied to a 0-dim tensor.$"):
        nbgrad.cumulative_trapezoid(nbgrad.zeros(()), x=nbgrad.zeros(1, 2, 3, 4))


def test_seed_54_parsers_first():
    """Seed 54: F.hardtanh's limits parsed as Numbers before the input's dtype is read;
    max_unpool3d's stride and padding as int lists; an in-place method's 0-dim argument that
    requires grad is no Number (x.logit_(eps)); addmv's size message reads a 0-dim input's
    size(0); F.embedding reads weight.size(0) of whatever weight it was given."""
    with pytest.raises(TypeError, match="^hardtanh\\(\\): argument 'max_val' \\(position 3\\) must be Number, not "
                                        "Tensor$"):
        F.hardtanh(nbgrad.zeros(3, 1, dtype=nbgrad.bool), max_val=nbgrad.tensor([1]))
    assert F.hardtanh(nbgrad.tensor([0.5, 3.0]), max_val=nbgrad.tensor(2.0)).tolist() == [0.5, 2.0]
    with pytest.raises(TypeError, match="^max_unpool3d\\(\\): argument 'stride' \\(position 4\\) must be tuple of "
                                        "ints, but found element of type bool at pos 0$"):
        F.max_unpool3d(nbgrad.zeros(1, 1, 1), nbgrad.zeros(2, 0, dtype=nbgrad.int64), 2, True)
    with pytest.raises(TypeError, match="^logit_\\(\\): argument 'eps' \\(position 1\\) must be float, not Tensor$"):
        nbgrad.zeros(2, 3).logit_(nbgrad.tensor(0.1, requires_grad=True))
    x = nbgrad.full((2,), 0.5)
    assert x.logit_(nbgrad.tensor(0.1)).tolist() == [0.0, 0.0]
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        nbgrad.addmv(nbgrad.tensor(1.0), nbgrad.ones(3, 3), nbgrad.ones(4))
    assert nbgrad.addmv(nbgrad.tensor(1.0), nbgrad.ones(3, 3), nbgrad.ones(3)).tolist() == [4.0, 4.0, 4.0]
    with pytest.raises(AttributeError, match="^'int' object has no attribute 'size'$"):
        F.embedding(nbgrad.tensor([1]), 5, padding_idx=1)


def test_seed_55_products_without_work_and_orders():
    """Seed 55: a bool product without work (an empty result, or no terms) is no dispatch, so no
    refusal: zeros (addmm's copy-then-scale of its input is its cast error); searchsorted checks
    shapes before its dispatch, and an empty input has none; tensordot's dims lists parsed as int
    lists; unflatten of a 0-dim tensor wraps its dim first; x.__iadd__ is add_ itself; histogram's
    range has two elements."""
    b = nbgrad.bool
    assert nbgrad.mm(nbgrad.zeros(2, 0, dtype=b), nbgrad.zeros(0, 3, dtype=b)).tolist() == [[False] * 3] * 2
    assert nbgrad.matmul(nbgrad.zeros(2, 2, 2, 2, dtype=b), nbgrad.zeros(2, 0, dtype=b)).shape == (2, 2, 2, 0)
    assert nbgrad.mv(nbgrad.zeros(2, 0, dtype=b), nbgrad.zeros(0, dtype=b)).tolist() == [False, False]
    assert nbgrad.bmm(nbgrad.zeros(0, 2, 2, dtype=b), nbgrad.zeros(0, 2, 3, dtype=b)).shape == (0, 2, 3)
    assert F.linear(nbgrad.zeros(0, dtype=b), nbgrad.zeros(2, 0, dtype=b)).tolist() == [False, False]
    with pytest.raises(NotImplementedError, match="^\"addmm_impl_cpu_\" not implemented for 'Bool'$"):
        nbgrad.mm(nbgrad.zeros(2, 2, dtype=b), nbgrad.zeros(2, 3, dtype=b))
    with pytest.raises(NotImplementedError, match="^\"dot\" not implemented for 'Bool'$"):
        nbgrad.dot(nbgrad.zeros(0, dtype=b), nbgrad.zeros(0, dtype=b))
    with pytest.raises(RuntimeError, match="^result type Long can't be cast to the desired output type Bool$"):
        nbgrad.addmm(nbgrad.zeros(2, 3, dtype=b), nbgrad.zeros(2, 0, dtype=b), nbgrad.zeros(0, 3, dtype=b))
    assert nbgrad.searchsorted(nbgrad.zeros(4, dtype=b), nbgrad.zeros(2, 0, dtype=b)).shape == (2, 0)
    with pytest.raises(RuntimeError, match="^torch.searchsorted\\(\\): boundaries tensor should be 1 dimension"):
        nbgrad.searchsorted(nbgrad.zeros(2, 4, dtype=b), nbgrad.zeros(3, 1, dtype=b))
    with pytest.raises(TypeError, match="^tensordot\\(\\): argument 'dims_self' \\(position 3\\) must be tuple of "
                                        "ints, but found element of type bool at pos 0$"):
        nbgrad.tensordot(nbgrad.zeros(1, 3, dtype=b), nbgrad.zeros(2, 1, 3), nbgrad.zeros(2, 3, dtype=b))
    with pytest.raises(IndexError, match="^Dimension out of range \\(expected to be in range of \\[-1, 0\\], but got "
                                         "3\\)$"):
        nbgrad.zeros(()).unflatten(3, (4, -3, -3))
    x = nbgrad.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert x.__iadd__(2, nbgrad.ones(3)) is x and x.tolist() == [2.0, 2.0, 2.0]     # (alpha 2, other ones)
    assert x.__imul__(2, nbgrad.ones(3)) is NotImplemented
    with pytest.raises(RuntimeError, match="^torch.histogramdd: for a 1-dimensional histogram range should have 2 "
                                           "elements, but got 1$"):
        nbgrad.histogram(nbgrad.zeros(2, 3, dtype=nbgrad.float64), range=(5,))


def test_seed_56_scatters_refuse_a_history_for_an_integral_result():
    """Seed 56: diagonal_scatter, select_scatter and slice_scatter of an integral or bool input
    with a src that requires grad are autograd's refusal of an integral result.  (Not mirrored:
    torch.cov of a 0-dim input overwrites it with 0.)"""
    src = nbgrad.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^Autograd not support dtype: Long$"):
        nbgrad.diagonal_scatter(nbgrad.zeros(3, 3, dtype=nbgrad.int64), src)
    with pytest.raises(RuntimeError, match="^Autograd not support dtype: Bool$"):
        nbgrad.select_scatter(nbgrad.zeros(2, 3, dtype=nbgrad.bool), src, 0, 0)
    with pytest.raises(RuntimeError, match="^Autograd not support dtype: Bool$"):
        nbgrad.slice_scatter(nbgrad.zeros(2, 3, dtype=nbgrad.bool), nbgrad.ones(2, 3, requires_grad=True))
    out = nbgrad.slice_scatter(nbgrad.zeros(2, 3, dtype=nbgrad.bool), nbgrad.ones(2, 3))
    assert out.dtype == nbgrad.bool and out.all().item()
    y = nbgrad.diagonal_scatter(nbgrad.zeros(3, 3), src * 2)
    y.sum().backward()
    assert src.grad.tolist() == [2.0, 2.0, 2.0]


def test_seed_57_orders_and_integer_divisors():
    """Seed 57: var and std read their dims in order (a repeat before a later dim out of range);
    an integer division by a number that the dtype wraps to 0 is the ZeroDivisionError; ATen's
    embedding under autograd reads weight.size(0) first.  (Not mirrored: pinv with rcond 0 of a
    rank-deficient float32 matrix keeps the roundoff singular value that LAPACK's drivers give
    differently.)"""
    for name in ("std", "var"):
        with pytest.raises(RuntimeError, match="^dim 0 appears multiple times in the list of dims$"):
            getattr(nbgrad.zeros(4), name)(dim=(0, 0, 3))
    for divisor in (256, 2 ** 31):
        with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
            nbgrad.tensor([1, 2], dtype=nbgrad.uint8) % divisor
    assert (nbgrad.tensor([7, 9], dtype=nbgrad.uint8) % 257).tolist() == [0, 0]     # (257 wraps to 1)
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        nbgrad.embedding(nbgrad.zeros((), requires_grad=True), nbgrad.zeros(1, 3, dtype=nbgrad.int64))
    with pytest.raises(RuntimeError, match="^'weight' must be 2-D$"):
        nbgrad.embedding(nbgrad.zeros(()), nbgrad.zeros(1, 3, dtype=nbgrad.int64))
