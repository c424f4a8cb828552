"""The classes API fuzz seed 58 found (PyTorch 2.13's behaviour recorded): a short list index
holding a tensor, a sequence, a slice, an ellipsis or None is a tuple of indices (x[[t, 0]] is
x[t, 0]; nbgrad read it as one index tensor, a wrong result); index_fill, index_copy and index_add
read no index where their iteration is empty, and index_add of more than one dim refuses an index
with a RuntimeError; binary_cross_entropy_with_logits' target gradient alone, its input broadcast;
F.dropout & co. are PyTorch's Python over ATen's dropout ops, whose parser reads input, p and
train (and an int input keeps its dtype at p = 1); nn.functional's Python reads before its op
(an attribute of a non-tensor, `if inplace:`, fractional_max_pool's argument types before the
kernel's lengths, binary_cross_entropy_with_logits' op after its equal sizes); torch.norm hands
out= to the linalg function it calls, and takes it fifth by position; addcdiv's tensor1 gradient
over an integral tensor2 is refused (ATen's Scalar / Tensor divides in place in tensor2's dtype).
(Not mirrored: polygamma of an order past int32, which ATen's kernel truncates; logit's gradient
for a NaN eps, which differs between ATen's vectorised and scalar loops.)"""
import warnings

import pytest

import nbgrad

F = nbgrad.nn.functional


def _quietly(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def test_a_short_list_of_tensors_sequences_or_slices_is_a_tuple_of_indices():
    x = nbgrad.arange(6).reshape(2, 3)
    with pytest.warns(UserWarning, match="^Using a non-tuple sequence for multidimensional indexing is deprecated"):
        assert x[[nbgrad.tensor(1), 0]].tolist() == 3
    assert _quietly(lambda: x[[[0, 1], [1, 0]]]).tolist() == [1, 3]
    assert _quietly(lambda: x[[nbgrad.tensor([1, 0]), nbgrad.tensor([2, 2])]]).tolist() == [5, 2]
    assert _quietly(lambda: x[[0, slice(None)]]).tolist() == [0, 1, 2]
    assert _quietly(lambda: x[[0, None]]).tolist() == [[0, 1, 2]]
    assert _quietly(lambda: x[[(0, 1), 1]]).tolist() == [1, 4]
    # a list of numbers stays one index; so does a sequence of 32 items or more
    assert x[[1, 0]].tolist() == [[3, 4, 5], [0, 1, 2]]
    assert x[[[0]] * 32].shape == (32, 1, 3)
    with pytest.raises(IndexError, match="^too many indices for tensor of dimension 2$"):
        _quietly(lambda: x[[[0]] * 31])
    with pytest.raises(IndexError, match="^tensors used as indices must be long, int, byte or bool tensors$"):
        _quietly(lambda: x[[nbgrad.zeros(2)]])
    y = nbgrad.zeros(2, 3)
    _quietly(lambda: y.__setitem__([nbgrad.tensor(1), nbgrad.tensor(2)], 5.0))
    assert y.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 5.0]]
    w = nbgrad.arange(6.0).reshape(2, 3).requires_grad_()
    _quietly(lambda: w[[nbgrad.tensor([1, 0]), 1]]).sum().backward()
    assert w.grad.tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]


def test_index_fill_copy_and_add_read_no_index_of_an_empty_iteration():
    assert nbgrad.index_fill(nbgrad.zeros(2, 0), 0, nbgrad.tensor([0, 1, 2]), 3).shape == (2, 0)
    assert nbgrad.zeros(2, 0).index_fill_(0, nbgrad.tensor([5]), nbgrad.tensor(3.0)).shape == (2, 0)
    assert nbgrad.zeros(2, 0).index_copy(0, nbgrad.tensor([5]), nbgrad.zeros(1, 0)).shape == (2, 0)
    assert nbgrad.zeros(0, 2).index_add(0, nbgrad.tensor([5]), nbgrad.zeros(1, 2)).shape == (0, 2)
    # an iteration over a self empty along dim reaches past its (clone's) storage: as_strided's check
    with pytest.raises(RuntimeError, match="^setStorage: sizes \\[3, 2\\], strides \\[0, 1\\], storage offset 0, and "
                                           "itemsize 8 requiring a storage size of 16 are out of bounds for storage "
                                           "of size 0$"):
        nbgrad.index_fill(nbgrad.zeros(0, 2, dtype=nbgrad.float64), 0, nbgrad.tensor([0, 1, 2]), 3)
    with pytest.raises(RuntimeError, match="^setStorage: sizes \\[2, 3\\], strides \\[0, 1\\], storage offset 12, "):
        nbgrad.zeros(4, 3)[4:].index_copy_(0, nbgrad.tensor([1, 5]), nbgrad.zeros(2, 3))
    x = nbgrad.zeros(2, 0, requires_grad=True)
    assert type(x.index_fill(0, nbgrad.tensor([5]), 3).grad_fn).__name__ == "IndexFillBackward0"


def test_index_add_of_more_than_one_dim_refuses_an_index_with_a_runtime_error():
    with pytest.raises(RuntimeError, match="^index -4 is out of bounds for dimension 0 with size 3$"):
        nbgrad.zeros(3, 2).index_add(0, nbgrad.tensor([1, -4, 5]), nbgrad.zeros(3, 2))
    with pytest.raises(RuntimeError, match="^index 5 is out of bounds for dimension 0 with size 2$"):
        nbgrad.zeros(2, 2).index_add_(0, nbgrad.tensor([5]), nbgrad.zeros(1, 2))
    with pytest.raises(IndexError, match="^index out of range in self$"):      # (one dim: the other kernel)
        nbgrad.zeros(2).index_add(0, nbgrad.tensor([-1]), nbgrad.zeros(1))
    out = nbgrad.zeros(3, 2).index_add(1, nbgrad.tensor([1, 1, 0]), nbgrad.arange(9.0).reshape(3, 3), alpha=2)
    assert out.tolist() == [[4.0, 2.0], [10.0, 14.0], [16.0, 26.0]]


def test_bce_with_logits_target_gradient_alone_with_a_broadcast_input():
    x = nbgrad.tensor([[0.5, -1.0, 2.0]], dtype=nbgrad.float64)
    y = nbgrad.tensor([[[1.0, 0.0, 1.0]], [[0.0, 1.0, 0.0]]], dtype=nbgrad.float64, requires_grad=True)
    nbgrad.binary_cross_entropy_with_logits(x, y).sum().backward()       # (ATen's op: no reduction)
    assert y.grad.tolist() == [[[-0.5, 1.0, -2.0]]] * 2
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):     # (input's: in place)
        x2 = x.clone().requires_grad_()
        nbgrad.binary_cross_entropy_with_logits(x2, y).sum().backward()


def test_dropout_family_is_pythons_over_atens_ops():
    x = nbgrad.ones(2, 3)
    for fn, op in ((F.dropout, "dropout"), (F.alpha_dropout, "alpha_dropout"),
                   (F.feature_alpha_dropout, "feature_alpha_dropout"), (F.dropout1d, "feature_dropout"),
                   (F.dropout2d, "feature_dropout")):
        with pytest.raises(TypeError, match=f"^{op}\\(\\): argument 'train' \\(position 3\\) must be bool, not int$"):
            _quietly(lambda: fn(x, 0.5, 1))
    with pytest.raises(TypeError, match="^dropout\\(\\): argument 'input' \\(position 1\\) must be Tensor, not int$"):
        F.dropout(5, 0.5, False)
    with pytest.raises(TypeError, match="^dropout\\(\\): argument 'p' \\(position 2\\) must be float, not Tensor$"):
        F.dropout(x, nbgrad.tensor([0.5]), True)
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        F.dropout(x, 0.0, False, nbgrad.zeros(3))       # (`if inplace:` before the op)
    with pytest.raises(ValueError, match="^dropout probability has to be between 0 and 1, but got 2$"):
        F.dropout(x, 2)
    with pytest.raises(RuntimeError, match="^dropout probability has to be between 0 and 1, but got nan$"):
        F.dropout(x, float("nan"))                      # (F's check lets NaN through, ATen's does not)
    out = F.dropout(nbgrad.arange(4), 1.0, True)        # (times a zero of the input's dtype)
    assert out.dtype == nbgrad.int64 and out.tolist() == [0, 0, 0, 0]
    assert F.dropout(x, 0.5, False) is x
    with pytest.raises(RuntimeError, match="^Feature dropout requires at least 2 dimensions in the input$"):
        _quietly(lambda: F.dropout2d(nbgrad.ones(3), 0.5, True))


def test_nn_functional_python_reads_before_its_op():
    with pytest.raises(AttributeError, match="^'NoneType' object has no attribute 'dim'$"):
        F.fractional_max_pool2d_with_indices(None, -3, nbgrad.zeros(1, 3, dtype=nbgrad.int64))
    with pytest.raises(TypeError, match="^fractional_max_pool2d\\(\\): argument 'output_size' \\(position 3\\) must "
                                        "be tuple of ints, not Tensor$"):
        F.fractional_max_pool2d_with_indices(nbgrad.zeros(1, 1, 1, dtype=nbgrad.float64), (5, 4, 5), nbgrad.zeros(3))
    with pytest.raises(AttributeError, match="^'int' object has no attribute 'softmax'$"):
        F.softmin(5, dim=1)
    with pytest.raises(AttributeError, match="^'torch.dtype' object has no attribute 'size'$|"
                                             "^'dtype' object has no attribute 'size'$"):
        F.gaussian_nll_loss(nbgrad.float64, nbgrad.tensor(1), nbgrad.zeros(4, dtype=nbgrad.bool))
    with pytest.raises(AttributeError, match="object has no attribute 'dim'$"):
        nbgrad.tensordot(nbgrad.zeros(2, 1, 3), nbgrad.float64)
    for call in (lambda: F.celu((5, 2), 0.5, nbgrad.zeros(1, 3, dtype=nbgrad.bool)),
                 lambda: F.hardtanh(5, 1, 2, nbgrad.zeros(1, 3, dtype=nbgrad.bool))):
        with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
            call()
    with pytest.raises(TypeError, match="^binary_cross_entropy_with_logits\\(\\): argument 'weight' \\(position 3\\) "
                                        "must be Tensor, not int$"):
        F.binary_cross_entropy_with_logits(nbgrad.zeros(3, 3, dtype=nbgrad.int64),
                                           nbgrad.zeros(3, 3, dtype=nbgrad.int64), 2)
    with pytest.raises(ValueError, match="^Target size \\(\\w+.Size\\(\\[3, 2\\]\\)\\) must be the same as input size "
                                         "\\(\\w+.Size\\(\\[3, 3\\]\\)\\)$"):
        F.binary_cross_entropy_with_logits(nbgrad.zeros(3, 3), nbgrad.zeros(3, 2), 2)


def test_torch_norm_hands_out_to_the_linalg_function_it_calls():
    out = nbgrad.zeros(2)
    assert nbgrad.norm(nbgrad.ones(2, 3), 2, 1, False, out) is out        # (out is fifth by position)
    assert [round(v, 4) for v in out.tolist()] == [1.7321, 1.7321]
    assert nbgrad.ones(2, 3).norm(2, 1, False, nbgrad.float64).dtype == nbgrad.float64     # (the method's: dtype)
    with pytest.raises(TypeError, match="got multiple values for argument 'p'$"):
        nbgrad.norm(nbgrad.zeros(2, 0), False, p=0, out=nbgrad.zeros(2, 3, requires_grad=True))
    with pytest.raises(TypeError, match="^linalg_vector_norm\\(\\): argument 'dim' \\(position 3\\) must be tuple of "
                                        "ints, not Tensor$"):
        nbgrad.norm(nbgrad.zeros(2, 3, requires_grad=True), True, nbgrad.zeros(2, 3, 4),
                    out=nbgrad.zeros(2, 1, 3, dtype=nbgrad.int64))
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'out'$"):
        nbgrad.ones(2, 3).norm(out=nbgrad.zeros(2))


def test_addcdiv_tensor1_gradient_over_an_integral_tensor2_is_refused():
    # (derivatives.yaml's value / tensor2 is ATen's operator/: a tensor of tensor2's dtype filled
    # with value, then divided in place, which an integral dtype cannot hold)
    t1 = nbgrad.ones(3, requires_grad=True)
    for dtype, name in ((nbgrad.int64, "Long"), (nbgrad.bool, "Bool")):
        out = nbgrad.addcdiv(nbgrad.zeros(3), t1, nbgrad.ones(3, dtype=dtype), value=-1)
        assert out.tolist() == [-1.0, -1.0, -1.0]
        with pytest.raises(RuntimeError, match=f"^result type Float can't be cast to the desired output type {name}$"):
            out.sum().backward()
    x = nbgrad.zeros(3, requires_grad=True)     # (input's gradient alone reads no quotient)
    nbgrad.addcdiv(x, nbgrad.ones(3), nbgrad.ones(3, dtype=nbgrad.int32)).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
