"""The *_copy functions (torch.permute_copy, torch.split_copy, ...), torch.fill, and the var-args
of view/reshape/permute/expand/zeros/... given by their keyword, as PyTorch 2.13 gives them
(values, node names, gradients, out= behaviour and messages recorded from it)."""
import warnings

import pytest

import nbgrad as T


def _x():
    return T.arange(6.).view(2, 3).requires_grad_()


def _weights(t):
    return T.arange(float(t.numel())).view(t.shape)


# (call, shape, values, node name, x.grad after (result * arange).sum().backward())
SINGLE = [
    (lambda x: T.alias_copy(x), (2, 3), [[0, 1, 2], [3, 4, 5]], "AliasBackward0_copy", [[0, 1, 2], [3, 4, 5]]),
    (lambda x: T.diagonal_copy(x, 1), (2,), [1, 5], "DiagonalBackward0_copy", [[0, 0, 0], [0, 0, 1]]),
    (lambda x: T.expand_copy(x.view(1, 2, 3), (2, 2, 3)), (2, 2, 3), [[[0, 1, 2], [3, 4, 5]]] * 2,
     "ExpandBackward0_copy", [[6, 8, 10], [12, 14, 16]]),
    (lambda x: T.permute_copy(x, (1, 0)), (3, 2), [[0, 3], [1, 4], [2, 5]], "PermuteBackward0_copy",
     [[0, 2, 4], [1, 3, 5]]),
    (lambda x: T.select_copy(x, 0, 1), (3,), [3, 4, 5], "SelectBackward0_copy", [[0, 0, 0], [0, 1, 2]]),
    (lambda x: T.slice_copy(x, 1, 0, 2), (2, 2), [[0, 1], [3, 4]], "SliceBackward0_copy", [[0, 1, 0], [2, 3, 0]]),
    (lambda x: T.slice_copy(x), (2, 3), [[0, 1, 2], [3, 4, 5]], "SliceBackward0_copy", [[0, 1, 2], [3, 4, 5]]),
    (lambda x: T.squeeze_copy(x.view(1, 2, 3)), (2, 3), [[0, 1, 2], [3, 4, 5]], "SqueezeBackward0_copy",
     [[0, 1, 2], [3, 4, 5]]),
    (lambda x: T.squeeze_copy(x.view(1, 2, 3), 0), (2, 3), [[0, 1, 2], [3, 4, 5]], "SqueezeBackward1_copy",
     [[0, 1, 2], [3, 4, 5]]),
    (lambda x: T.squeeze_copy(x.view(1, 2, 3), (0,)), (2, 3), [[0, 1, 2], [3, 4, 5]], "SqueezeBackward2_copy",
     [[0, 1, 2], [3, 4, 5]]),
    (lambda x: T.t_copy(x), (3, 2), [[0, 3], [1, 4], [2, 5]], "TBackward0_copy", [[0, 2, 4], [1, 3, 5]]),
    (lambda x: T.transpose_copy(x, 0, 1), (3, 2), [[0, 3], [1, 4], [2, 5]], "TransposeBackward0_copy",
     [[0, 2, 4], [1, 3, 5]]),
    (lambda x: T.unfold_copy(x, 1, 2, 1), (2, 2, 2), [[[0, 1], [1, 2]], [[3, 4], [4, 5]]], "UnfoldBackward0_copy",
     [[0, 3, 3], [4, 11, 7]]),
    (lambda x: T.unsqueeze_copy(x, 0), (1, 2, 3), [[[0, 1, 2], [3, 4, 5]]], "UnsqueezeBackward0_copy",
     [[0, 1, 2], [3, 4, 5]]),
    (lambda x: T.view_copy(x, (-1, 2)), (3, 2), [[0, 1], [2, 3], [4, 5]], "ViewBackward0_copy",
     [[0, 1, 2], [3, 4, 5]]),
    # (ATen's view_copy reshapes what cannot be viewed)
    (lambda x: T.view_copy(x.t(), (6,)), (6,), [0, 3, 1, 4, 2, 5], "ViewBackward0_copy", [[0, 2, 4], [1, 3, 5]]),
    (lambda x: T.as_strided_copy(x, (2, 2), (1, 2), 1), (2, 2), [[1, 3], [2, 4]], "AsStridedBackward0_copy",
     [[0, 0, 2], [1, 3, 0]]),
]


@pytest.mark.parametrize("case", range(len(SINGLE)))
def test_a_copy_has_the_views_values_in_new_memory_and_its_node(case):
    call, shape, values, node, grad = SINGLE[case]
    x = _x()
    r = call(x)
    assert tuple(r.shape) == shape and r.tolist() == values
    assert r._base is None and r.is_contiguous() and r.data_ptr() != x.data_ptr()
    assert r.grad_fn.name() == node and r.grad_fn.next_functions[0][0] is not None
    (r * _weights(r)).sum().backward()
    assert x.grad.tolist() == grad
    before = x.tolist()
    r.detach().zero_()                      # (a copy: x keeps its values)
    assert x.tolist() == before


def test_the_pieces_share_one_node_under_the_copys_name():
    x = _x()
    pieces = T.unbind_copy(x)
    assert isinstance(pieces, tuple) and [p.tolist() for p in pieces] == [[0, 1, 2], [3, 4, 5]]
    assert pieces[0].grad_fn is pieces[1].grad_fn and pieces[0].grad_fn.name() == "UnbindBackward0_copy"
    assert [p._base for p in pieces] == [None, None]
    (pieces[0] + 2 * pieces[1]).sum().backward()
    assert x.grad.tolist() == [[1, 1, 1], [2, 2, 2]]
    x = _x()
    a, b = T.split_with_sizes_copy(x, [1, 2], 1)
    assert a.grad_fn.name() == "SplitWithSizesBackward0_copy" and b.tolist() == [[1, 2], [4, 5]]
    (a.sum() + 2 * b.sum()).backward()
    assert x.grad.tolist() == [[1, 2, 2], [1, 2, 2]]
    parts = T.split_copy(x, 2, 1)
    assert parts[0].grad_fn.name() == "SplitBackward0_copy" and [p.shape[1] for p in parts] == [2, 1]
    assert [p.tolist() for p in T.unbind_copy(T.arange(6).view(2, 3), 1)] == [[0, 3], [1, 4], [2, 5]]


def test_detach_copy_requires_grad_without_a_derivative():
    x = _x()
    d = T.detach_copy(x)
    assert d.requires_grad and d.grad_fn.name() == "torch::autograd::NotImplemented" and d._base is None
    with pytest.raises(RuntimeError, match="^derivative for aten::detach_copy is not implemented$"):
        d.sum().backward()
    with T.no_grad():
        assert not T.permute_copy(x, (1, 0)).requires_grad and not T.detach_copy(x).requires_grad


def test_out_is_resized_checked_and_carries_no_derivative():
    x = _x()
    out = T.empty(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = T.permute_copy(x, (1, 0), out=out)
    assert r is out and tuple(out.shape) == (3, 2) and out.tolist() == [[0, 3], [1, 4], [2, 5]]
    assert "was resized since it had shape [1]" in str(caught[0].message) and out._version == 1
    assert out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::permute_copy is not implemented$"):
        out.sum().backward()
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
        T.permute_copy(x, (1, 0), out=T.empty(0, dtype=T.float64))
    with pytest.raises(RuntimeError, match=r"^aten::t_copy\(\): functions with out=\.\.\. arguments don't support "
                                           "automatic differentiation, but one of the arguments requires grad."):
        T.t_copy(x, out=T.empty(3, 2, requires_grad=True))
    out = T.zeros(2, 3)
    T.detach_copy(x, out=out)
    assert out.tolist() == [[0, 1, 2], [3, 4, 5]] and out.grad_fn.name() == "torch::autograd::NotImplemented"


def test_pieces_into_out_lists():
    x = T.arange(6.).view(2, 3)
    E = T.empty
    # split_copy: copy_ into each (broadcast and cast, no dtype check), nothing returned
    outs = [E(2, 3), E(1, 3, dtype=T.int64)]
    assert T.split_copy(x, 1, out=outs) is None
    assert outs[0].tolist() == [[0, 1, 2]] * 2 and outs[1].tolist() == [[3, 4, 5]]
    with pytest.raises(RuntimeError, match=r"^split_copy_Tensor_out\(\) expected an out= argument of size 2, got "
                                           "size 1$"):
        T.split_copy(x, 1, out=[E(1, 3)])
    # unbind_copy and split_with_sizes_copy: out's dtype checked, each resized
    outs = [E(1, 3), E(5)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        T.unbind_copy(x, out=outs)
    assert [o.tolist() for o in outs] == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
        T.unbind_copy(x, out=[E(3), E(3, dtype=T.float64)])
    with pytest.raises(RuntimeError, match="^unbind_copy_int_out expected an out= argument of size 2, got size 1$"):
        T.unbind_copy(x, out=[E(3)])
    with pytest.raises(RuntimeError, match=r"^unbind_copy\(\): functions with out="):
        T.unbind_copy(x, out=[E(3, requires_grad=True), E(3)])
    with pytest.raises(RuntimeError, match="^split_with_sizes_copy_out expected an out= argument of size 2, got "
                                           "size 1$"):
        T.split_with_sizes_copy(x, [1, 1], out=[E(2, 3)])


def test_keywords_and_refusals_of_the_copies():
    x = _x()
    assert T.expand_copy(x, size=(2, 2, 3), implicit=True).shape == (2, 2, 3)
    assert [p.shape for p in T.split_copy(x, split_size=2, dim=1)] == [(2, 2), (2, 1)]
    assert T.view_copy(x, dtype=T.int32).dtype == T.int32
    assert T.slice_copy(x, dim=1, start=1, end=3).tolist() == [[1, 2], [4, 5]]
    with pytest.raises(TypeError, match=r"^permute_copy\(\) takes 2 positional arguments but 3 were given$"):
        T.permute_copy(x, 1, 0)


def test_fill_is_a_new_tensor_laid_out_as_its_input():
    x = T.ones(2, 3).t().requires_grad_()
    r = T.fill(x, 2)
    assert r.tolist() == [[2.0, 2.0]] * 3 and r.stride() == (1, 3) and r.grad_fn.name() == "FillBackward0"
    assert x.tolist() == [[1.0, 1.0]] * 3
    v = T.tensor(2.0, requires_grad=True)
    r = T.fill(x, v)
    assert r.grad_fn.name() == "FillBackward1"
    r.sum().backward()
    assert v.grad.item() == 6.0 and x.grad.tolist() == [[0.0, 0.0]] * 3
    assert T.fill(T.arange(3), 2.7).tolist() == [2, 2, 2]
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        T.fill(T.arange(3).to(T.uint8), 300)
    with pytest.raises(RuntimeError, match="^fill_ only supports 0-dimension value tensor but got tensor with 1 "
                                           "dimensions.$"):
        T.fill(x, T.ones(1))


VAR_KEYWORDS = [
    (lambda x: x.view(size=(3, 2)), (3, 2)), (lambda x: x.reshape(shape=(3, 2)), (3, 2)),
    (lambda x: x.expand(size=(2, 2, 3)), (2, 2, 3)), (lambda x: x.permute(dims=(1, 0)), (3, 2)),
    (lambda x: x.repeat(repeats=(1, 2)), (2, 6)), (lambda x: x.new_zeros(size=(2,)), (2,)),
    (lambda x: x.new_ones(size=(2,)), (2,)), (lambda x: x.new_empty(size=(2,)), (2,)),
    (lambda x: x.clone().resize_(size=(6,)), (6,)), (lambda x: x[:1].sum_to_size(size=(1,)), (1,)),
    (lambda x: T.zeros(size=(2,)), (2,)), (lambda x: T.ones(size=(2,)), (2,)), (lambda x: T.empty(size=(2,)), (2,)),
    (lambda x: T.rand(size=(2,)), (2,)), (lambda x: T.randn(size=(2,)), (2,)),
    (lambda x: T.permute(x, dims=(1, 0)), (3, 2)), (lambda x: T.reshape(x, shape=(6,)), (6,)),
    (lambda x: x.split(split_size=1)[0], (1, 3)), (lambda x: x.hsplit(sections=3)[0], (2, 1)),
]


@pytest.mark.parametrize("case", range(len(VAR_KEYWORDS)))
def test_var_args_by_their_keyword(case):
    call, shape = VAR_KEYWORDS[case]
    assert tuple(call(T.arange(6.).view(2, 3)).shape) == shape


def test_var_args_by_keyword_refused_in_the_parsers_words():
    x = T.arange(6.).view(2, 3)
    assert x.view(dtype=T.int32).dtype == T.int32
    with pytest.raises(TypeError, match=r"^view\(\) received an invalid combination of arguments - got \(tuple, "
                                        r"size=tuple\), but expected one of:"):
        x.view((3, 2), size=(3, 2))
    with pytest.raises(TypeError, match=r"^view\(\) received an invalid combination of arguments - got \(int, int, "
                                        r"dtype=torch.dtype\)"):
        x.view(2, 3, dtype=T.int32)
    with pytest.raises(TypeError, match=r"^permute\(\) got multiple values for argument 'dims'$"):
        x.permute(1, dims=(1, 0))
    with pytest.raises(TypeError, match=r"^permute\(\): argument 'dims' must be tuple of ints, not int$"):
        x.permute(dims=1)
    with pytest.raises(TypeError, match=r"^expand\(\) got multiple values for argument 'size'$"):
        x.expand(2, 2, 3, size=(2, 2, 3))


def test_rsub_with_a_positional_alpha_reads_a_tensor_other_as_a_number():
    # rsub(Tensor, Scalar other, Scalar alpha): a 0-dim float64 tensor is a float there, of the
    # default dtype with an integer input (with alpha= it is a tensor operand: float64)
    a, b = T.arange(3), T.tensor(0.5, dtype=T.float64)
    r = T.rsub(a, b, -2)
    assert r.dtype == T.float32 and r.tolist() == [0.5, 2.5, 4.5]
    assert T.rsub(a, b, alpha=-2).dtype == T.float64
