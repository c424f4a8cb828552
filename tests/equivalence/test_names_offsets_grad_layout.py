"""Regression tests for differences the differential tester found (values recorded from
PyTorch 2.13): the gradient layout contract of .grad, storage offsets of empty slices,
grad_fn names of whole-tensor setitem / fill_ / tensor_split / matmul with vectors."""
import pytest

import nbgrad as T
from nbgrad.autograd import gradcheck


def name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


# -- .grad follows the leaf's layout (PyTorch's "gradient layout contract") -------------------
def test_grad_of_transposed_leaf_has_its_strides():
    x = T.ones(3, 4, dtype=T.float64).t().detach().requires_grad_()
    (x * 2).sum().backward()
    assert x.grad.stride() == (1, 4)
    x = T.ones(3, 4, dtype=T.float64).t().detach().requires_grad_()
    x.sum().backward()                      # the incoming gradient is an expanded scalar
    assert x.grad.stride() == (1, 4)
    assert x.grad.tolist() == [[1.0] * 3] * 4


def test_grad_from_create_graph_is_dense_not_expanded():
    x = T.ones(4, dtype=T.float64, requires_grad=True)
    x.sum().backward(create_graph=True)
    assert x.grad.stride() == (1,)
    assert x.grad.requires_grad is False
    x.grad.add_(1.0)                        # writable: no two elements share memory
    assert x.grad.tolist() == [2.0] * 4


def test_grad_of_expanded_leaf_is_contiguous():
    x = T.ones(3, 1, dtype=T.float64).expand(3, 4).detach().requires_grad_()
    (x * 1).sum().backward()
    assert x.grad.stride() == (4, 1)


def test_non_contiguous_incoming_gradient_is_copied_to_the_leaf_layout():
    x = T.ones(2, 3, dtype=T.float64, requires_grad=True)
    g = T.arange(6, dtype=T.float64).view(3, 2).t()
    x.backward(g)
    assert x.grad.stride() == (3, 1)
    assert x.grad.tolist() == g.tolist()


# -- offsets of empty slices -----------------------------------------------------------------
@pytest.mark.parametrize("index, offset", [((slice(-1, -1, 2), -2), 2), ((slice(1, 1), 0), 2),
                                           ((slice(5, None), 1), 5), ((0, slice(2, 2)), 2)])
def test_empty_slice_keeps_pytorchs_storage_offset(index, offset):
    x = T.zeros(2, 2)
    assert x[index].storage_offset() == offset


# -- setitem over the whole tensor writes the tensor itself ---------------------------------------
@pytest.mark.parametrize("index", [Ellipsis, (), slice(None), (slice(None), slice(None)), (Ellipsis, slice(None)),
                                   slice(0, 2)])
def test_whole_setitem_is_fill_or_copy_of_the_tensor(index):
    y = T.ones(2, 3, requires_grad=True) * 1
    y[index] = 1.0
    assert name(y) == "FillBackward3"
    y = T.ones(2, 3, requires_grad=True) * 1
    y[index] = T.ones(3)
    assert name(y) == "CopyBackwards"
    y = T.ones(2, 3, requires_grad=True) * 1
    y[index] = T.tensor(2.0)
    assert name(y) == "FillBackward3"


def test_partial_setitem_is_copyslices():
    y = T.ones(2, 3, requires_grad=True) * 1
    y[0:1] = 1.0
    assert name(y) == "CopySlices"
    y = T.ones(2, 3, requires_grad=True) * 1
    y[None] = 1.0
    assert name(y) == "CopySlices"


def test_setitem_false_writes_nothing():
    y = T.ones(2, 3, requires_grad=True) * 1
    v = y._version
    y[False] = 5.0
    assert name(y) == "MulBackward0" and y._version == v and y.tolist() == [[1.0] * 3] * 2


def test_zero_dim_whole_setitem_is_copy():
    y = T.tensor(1.0, requires_grad=True) * 1
    y[...] = 3.0
    assert name(y) == "CopyBackwards" and y.item() == 3.0


def test_fill_names_and_value_gradient():
    y = T.ones(2, 3, requires_grad=True) * 1
    y.fill_(2.0)
    assert name(y) == "FillBackward2"
    w = T.tensor(2.0, requires_grad=True)
    y = T.ones(2, 3) * 1
    y.fill_(w)
    assert name(y) == "FillBackward3"
    (y * T.arange(6.0).view(2, 3)).sum().backward()
    assert w.grad.item() == 15.0
    w = T.tensor(2.0, requires_grad=True)
    y = T.ones(2, 3) * 1
    y[...] = w
    (y * T.arange(6.0).view(2, 3)).sum().backward()
    assert w.grad.item() == 15.0


# -- tensor_split: one slice per part ----------------------------------------------------------
def test_tensor_split_parts_are_slices():
    x = T.arange(6.0).requires_grad_()
    parts = x.tensor_split([4, 1, -1])
    assert [p.tolist() for p in parts] == [[0.0, 1.0, 2.0, 3.0], [], [1.0, 2.0, 3.0, 4.0], [5.0]]
    assert [p.storage_offset() for p in parts] == [0, 4, 1, 5]
    assert [name(p) for p in parts] == ["SliceBackward0"] * 4
    sum(p.sum() for p in parts).backward()
    assert x.grad.tolist() == [1.0, 2.0, 2.0, 2.0, 1.0, 1.0]
    assert [p.tolist() for p in T.arange(7).tensor_split(3)] == [[0, 1, 2], [3, 4], [5, 6]]


def test_tensor_split_zero_sections_raises():
    with pytest.raises(RuntimeError, match="number of sections must be larger than 0, got 0"):
        T.arange(2.0).tensor_split(0)


# -- matmul with a vector ----------------------------------------------------------------------
def test_matmul_vector_names_and_gradients():
    a = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
    m = T.arange(6.0, dtype=T.float64).view(3, 2).requires_grad_()
    b = T.arange(18.0, dtype=T.float64).view(2, 3, 3).requires_grad_()
    assert name(a @ m) == "SqueezeBackward4"
    y1, y2 = b @ a, a @ b
    assert name(y1) == name(y2) == "UnsafeViewBackward0"
    assert y1._base is None and y2._base is None
    assert y1.tolist() == [[8.0, 26.0, 44.0], [62.0, 80.0, 98.0]]
    assert y2.tolist() == [[24.0, 30.0, 36.0], [78.0, 84.0, 90.0]]
    assert gradcheck(lambda a, b: (b @ a, a @ b, a @ b.transpose(1, 2)), (a, b))
    with pytest.raises(RuntimeError, match="size mismatch"):
        T.ones(2, 3, 4) @ T.ones(3)


def test_vector_matrix_product_is_squeezed_in_place():
    a = T.ones(3, requires_grad=True)
    y = a @ T.arange(6.0).view(3, 2)
    assert y._version == 1 and y._base is None and name(y) == "SqueezeBackward4"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "MmBackward0"
    y.sum().backward()
    assert a.grad.tolist() == [1.0, 5.0, 9.0]


def test_retained_grad_is_a_contiguous_copy():
    x = T.ones(2, 3, requires_grad=True)
    z = x * 2
    z.retain_grad()
    z.sum().backward(create_graph=True)
    assert z.grad.stride() == (3, 1)


def test_chunk_of_empty_dim_keeps_the_number_of_chunks():
    parts = T.zeros(0, requires_grad=True).chunk(2)
    assert len(parts) == 2 and [name(p) for p in parts] == ["SplitWithSizesBackward0"] * 2
    assert [name(p) for p in T.zeros(0, requires_grad=True).chunk(1)] == ["SplitWithSizesBackward0"]
    assert [name(p) for p in T.zeros(4, requires_grad=True).chunk(2)] == ["SplitBackward0"] * 2


# -- zero derivatives are zeros; edges of atan2, softmax of 0-dim, cat of empties ---------------------
def test_zero_derivative_is_zeros_not_g_times_zero():
    x = T.zeros(2, 2, dtype=T.float64, requires_grad=True)
    s = x.sum()
    s[()] = 0                       # fill: zero derivative w.r.t. the old value
    s.sqrt().backward(create_graph=True)      # an infinite incoming gradient
    assert x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    x = T.tensor([1.5, -0.5], dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad((x.ceil() * 3).sum(), [x], create_graph=True)
    assert g.tolist() == [0.0, 0.0] and g.requires_grad is False


def test_atan2_gradient_at_the_origin_is_zero():
    x = T.zeros(1, dtype=T.float64, requires_grad=True)
    y = T.zeros(1, dtype=T.float64, requires_grad=True)
    T.atan2(x, y).sum().backward()
    assert x.grad.tolist() == [0.0] and y.grad.tolist() == [0.0]
    a = T.tensor([0.3, -1.2], dtype=T.float64, requires_grad=True)
    b = T.tensor([0.7, 0.4], dtype=T.float64, requires_grad=True)
    from nbgrad.autograd import gradgradcheck
    assert gradcheck(T.atan2, (a, b)) and gradgradcheck(T.atan2, (a, b))


def test_softmax_of_zero_dim_propagates_nan():
    vals = [1.5, float("nan"), float("inf"), -float("inf")]
    out = [T.tensor(v, dtype=T.float64).softmax(0).item() for v in vals]
    assert out[0] == 1.0 and all(o != o for o in out[1:])
    out = [T.tensor(v).log_softmax(0).item() for v in vals[:3]]
    assert out[0] == 0.0 and all(o != o for o in out[1:])


def test_gradient_of_empty_inputs_to_cat_is_an_empty_tensor():
    v0 = T.tensor([], dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(T.cat([v0, v0]).sum(), [v0], allow_unused=True)
    assert g is not None and g.shape == (0,)
    a = T.ones(2, 2, requires_grad=True)
    e = T.zeros(0, requires_grad=True)          # a legacy empty, skipped by cat
    T.cat([a, e, a], 1).sum().backward()
    assert a.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]] and e.grad.shape == (0,)


def test_leaf_that_stopped_requiring_grad_gets_no_grad():
    x = T.zeros(2, 2, dtype=T.float64, requires_grad=True)
    y = T.maximum(x, x)
    x.requires_grad_(False)
    y.mean().backward()
    assert x.grad is None


# -- found by the 20,000-program live run after the merges -------------------------------------
def test_expand_gives_new_leading_size_one_dims_pytorchs_stride():
    a = T.ones(2, 1, 3)
    assert a.expand(1, 2, 3, 3).stride() == (6, 3, 0, 1)
    assert a.expand(2, 1, 2, 4, 3).stride() == (0, 6, 3, 0, 1)
    assert T.tensor(1.0).expand(2, 1).stride() == (0, 0)
    assert a.expand(1, 2, 3, 3).narrow(0, 0, 0).stride() == (6, 3, 0, 1)


def test_max_dim_of_zero_dim_saves_the_returned_indices():
    x = T.ones((), dtype=T.float64, requires_grad=True)
    v, i = (x * 1).max(-1)
    i.fill_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        v.backward()


def test_retain_grad_follows_an_in_place_op():
    x = T.tensor([2.0, 3.0], requires_grad=True)
    y = x * 1
    y.retain_grad()
    y.reciprocal_()
    (y * T.tensor([1.0, 2.0])).sum().backward()
    assert y.grad.tolist() == [1.0, 2.0]           # the gradient of y's new value
    assert x.grad.tolist() == [-0.25, -0.222222238779068]     # float32, recorded from PyTorch
    b = T.tensor([2.0, 3.0], requires_grad=True) * 1
    b.retain_grad()
    b[0].mul_(3)
    (b * T.tensor([1.0, 2.0])).sum().backward()
    assert b.grad.tolist() == [1.0, 2.0]


def test_full_min_max_gradient_is_zero_off_the_extremum_even_for_nan_grad():
    x = T.tensor([[float("nan"), 0.7, -0.97], [1.0, 1.66, -0.5]], dtype=T.float64, requires_grad=True)
    x.min().exp2().backward()              # the incoming gradient is nan
    g = x.grad.tolist()
    assert g[0][0] != g[0][0] and g[0][1:] == [0.0, 0.0] and g[1] == [0.0, 0.0, 0.0]
    x = T.tensor([[1.0, 2.0], [2.0, 0.0]], dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(x.max() ** 2, [x], create_graph=True)
    g.sum().backward()
    assert g.tolist() == [[0.0, 2.0], [2.0, 0.0]] and x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_var_of_one_element_propagates_nan():
    nan = float("nan")
    assert T.tensor(nan).std(0, correction=0).isnan().item()
    assert T.tensor(float("inf")).var(correction=0).isnan().item()
    assert T.tensor(2.0).var(correction=0).item() == 0.0
    assert T.tensor(2.0).var().isnan().item()


def test_remainder_zero_keeps_the_sign_of_the_dividend():
    import math
    r = T.remainder(T.tensor([0.0, -0.0, 3.0, -3.0, 2.5]), -1.0).tolist()
    assert [math.copysign(1.0, v) for v in r[:4]] == [1.0, -1.0, 1.0, -1.0] and r[4] == -0.5
    assert (1.0 // T.remainder(T.tensor(0.0, dtype=T.float64), -1.0)).item() == float("inf")


def test_copy_into_itself_is_allowed_even_when_expanded():
    x = T.zeros(3, 1, 2, dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(x.sum(), [x])
    assert g.stride() == (0, 0, 0)
    g[()] = g                      # PyTorch's copy_: same memory and geometry, nothing to do
    g.copy_(g)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        g.copy_(T.ones(3, 1, 2, dtype=T.float64))


def test_empty_tensor_has_no_internal_overlap():
    v = T.tensor([1]).expand(1, 3)
    v[-1:-1] = v                   # an empty target: nothing to overlap
    assert v.tolist() == [[1, 1, 1]]


def test_view_of_base_changed_then_requiring_grad_regenerates_its_history():
    x = T.ones(3)
    v = x[:2]
    v.neg_()
    x.requires_grad_(True)
    assert name(v) == "AsStridedBackward0" and v.requires_grad and not v.is_leaf
    x = T.ones(3, requires_grad=True)
    v = x[:2]
    with T.no_grad():
        x.mul_(2)
    (v * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 0.0]


def test_masked_setitem_of_one_element_converts_any_dtype():
    v = T.tensor([0.0]) > 0.0
    v[T.tensor([True])] = T.tensor([-0.9])          # PyTorch: masked_fill_(mask, value.item())
    assert v.tolist() == [True]
    w = T.tensor([1, 2])
    w[T.tensor([True, False])] = T.tensor([2.5])
    assert w.tolist() == [2, 2]


def test_remainder_saves_nothing_when_only_self_needs_a_gradient():
    x = T.tensor([[-2.21, -2.56, -0.04]], dtype=T.float64, requires_grad=True)
    y = T.remainder(x, T.tensor([[-0.11, -1.0, -2.7]]))
    y.sum().backward()
    y.mean().backward()            # PyTorch: nothing was saved, so nothing was freed
    assert x.grad.tolist() == [[1.0 + 1.0 / 3] * 3]
    b = T.tensor([[-0.11, -1.0, -2.7]], requires_grad=True)
    z = T.remainder(T.tensor([[1.0, 2.0, 3.0]]), b)
    z.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.sum().backward()


def test_integer_division_by_zero_into_an_empty_result_raises_nothing():
    e = T.tensor([[], []], dtype=T.int64)
    assert T.remainder(e, T.tensor([[0]])).shape == (2, 0)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        T.remainder(T.ones(2, dtype=T.int64), T.tensor([[0]]))


def test_stack_wraps_the_dim_before_comparing_sizes():
    with pytest.raises(IndexError, match="Dimension out of range"):
        T.stack([T.zeros(2, 1), T.zeros(2, 1, 2, 2)], 3)


def test_zero_gradient_keeps_the_incoming_layout():
    x = T.zeros(2, 2, 2, requires_grad=True)
    v = x.movedim(-2, 0)
    g, = T.autograd.grad(v.floor().clamp(min=0.5, max=0.5).sum(), [v], create_graph=True)
    assert g.stride() == (2, 4, 1)


def test_integer_pow_with_negative_exponents_keeps_the_base_layout():
    a = T.tensor([[1, -1, 2], [3, 1, -1]]).t()
    r = a ** T.tensor([[3, 5], [-2, 3], [2, 3]])
    assert r.stride() == (1, 3) and r.tolist() == [[1, 243], [1, 1], [4, -1]]      # recorded from PyTorch


def test_view_requires_grad_follows_its_base_live():
    x = T.tensor([[1.0], [1.0]], requires_grad=True)
    v1 = x.view(2, 1)
    with T.no_grad():
        v2 = v1[...]
    assert v2.requires_grad and v2.grad_fn is None
    x.requires_grad_(False)
    assert not v2.requires_grad
    b = T.zeros(3, 1)
    v = b.reshape(3, 1, 1)              # made before the base required grad
    b.requires_grad_(True)
    y = v - T.ones(3, 1, 1)
    assert y.requires_grad and name(y) == "SubBackward0" and v.is_leaf
    y.sum().backward()                  # the view is no leaf of its own: nothing accumulates
    assert b.grad is None and v.grad is None


def test_negative_zero_operand_is_not_the_cached_positive_zero():
    # found by the tester reusing one process for many programs: Python numbers become
    # cached 0-dim operands, and -0.0 == 0.0 shared one entry
    x = T.tensor([1.0, -2.0])
    assert (x / 0.0).tolist() == [float("inf"), float("-inf")]
    assert (x / -0.0).tolist() == [float("-inf"), float("inf")]
    assert (x / 0.0).tolist() == [float("inf"), float("-inf")]


def test_pow_with_special_exponents_is_sqrt_rsqrt_or_products():
    import math
    x = T.tensor([-0.0, 0.0, 2.0], dtype=T.float64)
    signs = [math.copysign(1.0, v) for v in (x ** 0.5).tolist()[:2]]
    assert signs == [-1.0, 1.0]                       # sqrt(-0.0) is -0.0 (pow gives +0.0)
    assert (x ** -0.5).tolist()[:2] == [float("-inf"), float("inf")]
    assert (x ** -1).tolist()[:2] == [float("-inf"), float("inf")]
    v = T.tensor([-0.0, 2.0], dtype=T.float64, requires_grad=True)
    (v ** 0.5).sum().backward()                       # 0.5 * x ** -0.5: rsqrt(-0.0) is -inf
    assert v.grad.tolist() == [float("-inf"), 0.35355339059327373]


def test_masked_setitem_of_one_element_may_read_its_target():
    x = T.tensor([[1.5]], dtype=T.float64)
    x[T.tensor([[True]])] = x          # PyTorch: masked_fill_(mask, value.item())
    assert x.tolist() == [[1.5]]
    y = T.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        y[T.tensor([True, True])] = y  # two elements: index_put_, which refuses the overlap


def test_no_grad_view_made_a_leaf_by_requires_grad_():
    x = T.tensor([1.0, 1.0], requires_grad=True)
    with T.no_grad():
        v = x.select(0, -1)
    v.requires_grad_(True)
    v.backward()
    assert v.grad.item() == 1.0 and x.grad is None


def test_integer_views_have_no_history_to_protect():
    x = T.tensor([[1.0], [1.0], [1.0]], dtype=T.float64, requires_grad=True)
    mask_part, = (x.t() < 1.0).chunk(1, -2)       # a multi-output view, of a bool tensor
    mask_part[...] = x.t()                         # PyTorch: no autograd check for bool
    assert mask_part.tolist() == [[True, True, True]]
    w = T.zeros(2, 1, 2, 2, dtype=T.float64, requires_grad=True)
    with T.no_grad():
        a, _ = w.unbind(0)
        w.zero_()
    assert a.argmin().item() == 0                  # argmin touches no history


def test_second_order_through_index_put_scatter_and_masked_setitem():
    from nbgrad.autograd import gradgradcheck
    x = T.tensor([0.3, -0.7, 1.1], dtype=T.float64, requires_grad=True)
    v = T.tensor([0.5], dtype=T.float64, requires_grad=True)
    assert gradgradcheck(lambda x, v: (x * 1).erf().index_put((T.tensor([1]),), v).sin(), (x, v))
    assert gradgradcheck(lambda x, v: (x * 1).scatter(0, T.tensor([2]), v).exp(), (x, v))

    def written(x):
        y = x.exp() * 1
        y[T.tensor([0])] = 2.0
        return y.sin()
    assert gradgradcheck(written, (x,))
    # the differential tester's program: a write that selects nothing, then create_graph
    w = T.ones(3, dtype=T.float64, requires_grad=True)
    m = w.mean() * 1
    m[T.tensor(False)] = 1
    g, = T.autograd.grad(m.erf(), [w], create_graph=True)
    g.sum().backward()
    assert w.grad.tolist() == [-0.2767383316137298] * 3      # recorded from PyTorch 2.13


def test_empty_strided():
    t = T.empty_strided((2, 3), (1, 2), dtype=T.float64)
    assert t.shape == (2, 3) and t.stride() == (1, 2) and t.storage_offset() == 0
    assert len(t.untyped_storage().buffer) == 6
    assert T.empty_strided((2, 0), (1, 1)).numel() == 0
    with pytest.raises(RuntimeError, match="mismatch in length of strides and shape"):
        T.empty_strided((2, 3), (1,))
    with pytest.raises(RuntimeError, match="non-negative"):
        T.empty_strided((2,), (-1,))
