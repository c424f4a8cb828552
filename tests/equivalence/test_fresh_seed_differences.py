"""Regression tests for the differences the differential tester found on fresh seeds (17 to 61)
after the first round (values recorded from PyTorch 2.13): which in-place writes honour a
view's creation meta, retain_grad across a regenerated view history, the write-back of
CopySlices through a broadcast window, squeeze's gradient (unsqueeze_to) and the strides
of as_strided's gradient."""
import math
import re

import numpy as np
import pytest

import nbgrad as T

_NO_GRAD_VIEW = "A view was created in no_grad mode and is being modified inplace with grad mode enabled"
_INTERNAL = "more than one element of the written-to tensor refers to a single memory location"


# -- check_inplace: fill_ with a tensor asks every operand, copy_ asks the written dtype ------
def test_fill_from_grad_tensor_into_no_grad_view_of_bool_tensor_raises():
    b = T.tensor([False, True, False])
    with T.no_grad():
        v = b.narrow(-1, 0, 2)
    s = T.tensor(0.5, dtype=T.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=_NO_GRAD_VIEW):
        v[-1::1] = s                # a 0-dim value: PyTorch's setitem is fill_(Tensor)
    assert b.tolist() == [False, True, False]       # nothing written


def test_copy_into_no_grad_view_of_bool_tensor_is_not_checked():
    x = T.tensor([[1.0, 0.0, 2.0]], dtype=T.float64, requires_grad=True)
    b = T.zeros(1, 3, dtype=T.bool)
    with T.no_grad():
        v = b[0:1]
    v[...] = x                      # same shape: copy_, which only differentiable dtypes check
    assert b.tolist() == [[True, False, True]]
    assert not b.requires_grad and b.grad_fn is None


# -- retain_grad looks at the stored history only, and follows a regenerated one ------------
def test_retain_grad_on_no_grad_view_after_base_changed_is_a_no_op():
    x = T.tensor([1.0], requires_grad=True)
    y = T.stack([x, x], -1)
    with T.no_grad():
        v = y.squeeze(-1)
        y[()] = 2
    v.retain_grad()                 # PyTorch: is_leaf on the stored grad_fn, no error
    assert v.retains_grad is False
    with pytest.raises(RuntimeError, match="its base or another view of its base has been modified"):
        v.grad_fn


def test_retain_grad_moves_to_the_regenerated_view_history():
    x = T.zeros(3, 2, dtype=T.float64, requires_grad=True)
    p = x.prod()
    v = x.flatten(0, -1)
    v.retain_grad()
    with T.no_grad():
        v[...] = p
    v.mean().backward()
    assert v.grad is not None and v.grad.tolist() == pytest.approx([1 / 6] * 6)
    assert x.grad.flatten().tolist() == pytest.approx([1 / 6] * 6)


# -- CopySlices writes the old history's gradient back through the view's window ------------
def test_backward_through_index_put_on_expanded_view_raises_internal_overlap():
    a = T.tensor([1.0], dtype=T.float64, requires_grad=True)
    b = T.tensor([1.56], dtype=T.float64)
    v = T.matmul(a, b).expand(2)
    v[T.tensor([1, -1])] = b        # allowed: index_put_ does not check its target
    m = v.mean()
    with pytest.raises(RuntimeError, match=_INTERNAL):
        m.backward()
    assert a.grad is None


# -- squeeze's gradient is PyTorch's unsqueeze_to ------------------------------------------
def test_squeeze_gradient_keeps_the_incoming_layout():
    x = T.tensor([[1.0]], requires_grad=True)
    g, = T.autograd.grad(x.squeeze(-1).sum(), [x])
    assert g.stride() == (0, 1) and g.data.narrow(1, 1, 0).storage_offset() == 1
    x = T.zeros(2, 0, dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(x.transpose(0, 1).squeeze(-2).sum(), [x])
    assert g.shape == (2, 0) and g.stride() == (0, 0)


def test_squeeze_that_removes_nothing_passes_the_gradient_itself():
    x = T.tensor([], dtype=T.float64, requires_grad=True)
    v = x.squeeze()
    gv, gx = T.autograd.grad(v.sum(), [v, x])
    assert gv is gx


def test_squeeze_and_unsqueeze_gradients_are_values_and_names():
    x = T.arange(6.0, dtype=T.float64).reshape(1, 2, 1, 3).requires_grad_()
    y = x.squeeze((0, 2)).unsqueeze(1)
    assert y.shape == (2, 1, 3)
    (y * T.arange(6.0, dtype=T.float64).reshape(2, 1, 3)).sum().backward()
    assert x.grad.shape == (1, 2, 1, 3)
    assert x.grad.flatten().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert type(y.grad_fn).__name__ == "UnsqueezeBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "SqueezeBackward2"


# -- as_strided's gradient has the input's strides ------------------------------------------
def test_as_strided_gradient_has_the_input_geometry():
    x = T.ones(2, 2, dtype=T.float64, requires_grad=True)
    col = x.select(-1, -2)                          # strides (2,)
    g, = T.autograd.grad(col.as_strided([1, 2], [1, 1]).round().sum(), [col])
    assert g.stride() == (2,) and not g.is_contiguous()
    assert g.tolist() == [0.0, 0.0]
    g, = T.autograd.grad((col.as_strided([2], [2]) * 3).sum(), [col])
    assert g.stride() == (2,) and g.tolist() == [3.0, 3.0]
    x.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


# -- prod's gradient with two zeros is 0 whatever arrives (PyTorch's shortcut) ---------------
def test_prod_gradient_with_two_zeros_ignores_a_nan_incoming_gradient():
    x = T.tensor([[[1.0, 0.0, 1.19]], [[1.5, -1.35, 0.0]]], requires_grad=True)
    T.remainder(T.tensor(0.0), x.prod()).backward()     # d/db remainder(0, 0) is nan
    assert x.grad.tolist() == [[[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]]]
    x = T.tensor([0.0, 2.0, 0.0], dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(x.prod(), [x], create_graph=True)      # recorded: the general formula
    assert g.tolist() == [0.0, 0.0, 0.0] and g.requires_grad
    x = T.tensor([[0.0, 2.0, 0.0]], dtype=T.float64, requires_grad=True)
    T.remainder(T.tensor(0.0, dtype=T.float64), x.prod(1)).sum().backward()   # prod(dim): no shortcut
    assert all(v != v for v in x.grad.flatten().tolist())


# -- mm with one inner term writes each product (sign of zero) -------------------------------
def test_mm_with_one_inner_term_keeps_the_sign_of_zero_products():
    a = T.zeros(3, 1, dtype=T.float64)
    b = T.tensor([[0.27, 1.0, -1.7]], dtype=T.float64)
    assert (1 / T.mm(a, b)).tolist() == [[float("inf"), float("inf"), float("-inf")]] * 3
    assert (1 / T.mm(T.zeros(2, 2, dtype=T.float64), -T.ones(2, 2, dtype=T.float64))).tolist() == \
        [[float("inf")] * 2] * 2                                    # two terms: +0 + -0 = +0
    assert (1 / T.bmm(T.zeros(1, 2, 1), -T.ones(1, 1, 2))).tolist() == [[[float("inf")] * 2] * 2]


# -- index_put_ / masked_fill_ on an expanded tensor write only their positions --------------
def test_recorded_index_put_on_expanded_tensor_writes_only_the_selected_positions():
    x = T.zeros(1, 2, 1, 3, dtype=T.float64, requires_grad=True)
    s = x.sum()
    g, = T.autograd.grad(s, [x], create_graph=True)             # ones, expanded: one location
    mask = T.tensor([[[[True, False, True]], [[True, True, False]]]])
    with pytest.warns(UserWarning, match="expanded tensors is deprecated"):
        g[mask] = s                                                  # recorded: s requires grad
    assert g.flatten().tolist() == [0.0] * 6


# -- which saved tensors a node keeps (PyTorch's should_compute_output guards) ----------------
def test_mul_of_a_no_grad_view_saves_nothing_so_a_second_backward_works():
    x = T.tensor([[1.0, 1.0, 1.0]], dtype=T.float64, requires_grad=True)
    with T.no_grad():
        v = x[...][()]
    y = v * v                       # both operands have no edge: nothing is saved
    y.sum().backward()
    y.sum().backward()
    assert x.grad is None
    z = v.sin()                     # one input: its operand is saved regardless
    z.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.sum().backward()


def test_accumulating_into_a_leaf_that_became_interior_raises():
    x = T.tensor(0.0, dtype=T.float64, requires_grad=True)
    y = x.exp()
    with T.no_grad():
        x.requires_grad_(False)
    x.atan2_(y)                      # the leaf gets a history after y's edge to it was made
    with pytest.raises(RuntimeError, match="leaf variable has been moved into the graph interior"):
        y[T.tensor(True)].sum().backward()


def test_copy_slices_backward_twice_raises():
    x = T.ones(2, 1, 3, dtype=T.float64, requires_grad=True)
    y = T.cat([x, x], 0)
    y[None, None, ...] = 0.5
    e = y.sum().squeeze().erf()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        e.backward()


def test_as_strided_gradient_of_empty_input_is_unrecorded_contiguous_zeros():
    x = T.tensor([], dtype=T.float64, requires_grad=True)
    v = x.permute(0)
    with T.no_grad():
        v.add_(2.0)
    v.var(0).backward(create_graph=True)
    assert x.grad.shape == (0,) and x.grad.requires_grad is False


# -- a Python-number operand PyTorch saves (as a wrapped-number tensor) is freed too ---------
def test_division_by_a_number_cannot_backward_twice():
    x = T.tensor([[1.0]], dtype=T.float64, requires_grad=True)
    y = x / 1.5
    y.sum().backward()
    z = y @ T.tensor([0.5], dtype=T.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.sum().backward()
    w = T.tensor([1.0], requires_grad=True) * 2.0
    w.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        w.sum().backward()


# -- setitem's autograd check comes before the index check -----------------------------------
def test_setitem_on_no_grad_view_raises_the_view_error_before_the_index_error():
    x = T.zeros(3, dtype=T.float64, requires_grad=True)
    with T.no_grad():
        v = x.as_strided([1, 2], [0, 0])
    with pytest.raises(RuntimeError, match=_NO_GRAD_VIEW):
        v[T.tensor([1, 0])] = 0.0


# -- a view's history is regenerated after its base changed, also once the base stopped
#    requiring grad ----------------------------------------------------------------------------
def test_view_history_regenerated_after_base_stopped_requiring_grad():
    x = T.zeros(2, 3, requires_grad=True)
    v = x[0:2]
    x.requires_grad_(False)
    with T.no_grad():
        x.add_(1.0)
    assert type(v.grad_fn).__name__ == "AsStridedBackward0"


# -- reduction gradients broadcast as PyTorch's (their layouts) ------------------------------
def test_amax_var_and_prod_gradients_have_pytorch_layouts():
    x = T.ones(2, 3, dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(x.T.amax(-1, keepdim=True).mean(), [x])
    assert g.stride() == (3, 1)
    t = x.T.detach().requires_grad_()                      # strides (1, 3)
    g, = T.autograd.grad(t.amax(-1, keepdim=True).mean(), [t])
    assert g.stride() == (1, 3)
    y = T.ones(2, 1, 2, 2).transpose(1, -1).detach().requires_grad_()     # strides (4, 1, 2, 4)
    g, = T.autograd.grad(T.maximum(y.var(-2, keepdim=True), T.zeros(1, 1, 1, 1)).sum(), [y])
    assert g.stride() == (4, 1, 2, 4)
    z = T.zeros(1, 2, 2, 1, dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(z.prod(0).sum(), [z])            # a dim of size 1: g itself, expanded
    assert g.stride() == (0, 0, 0, 0) and g.tolist() == [[[[1.0], [1.0]], [[1.0], [1.0]]]]


# -- abs's gradient goes through sgn, which saves its input (version-checked) ----------------
def test_abs_double_backward_sees_an_in_place_change_through_sgn():
    x = T.ones(2, 3, requires_grad=True)
    s = x.sum()
    _, gx = T.autograd.grad(s.abs(), [s, x], allow_unused=True, create_graph=True)
    s[T.tensor(False)] = 0.19                       # writes nothing, bumps s's version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        gx.sum().backward()
    y = T.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    assert y.sgn().tolist() == [-1.0, 0.0, 1.0] and type(y.sgn().grad_fn).__name__ == "SgnBackward0"


def test_pow_of_a_number_saves_the_exponent():
    x = T.ones(1, 2, 1, 3, dtype=T.float64, requires_grad=True)
    y = 1 ** x
    with T.no_grad():
        x[-1] = y
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.mean().backward()


def test_gradient_of_a_broadcast_empty_operand_has_empty_storage():
    a = T.zeros(2, 0, dtype=T.float64, requires_grad=True)
    b = T.zeros(1, 0, dtype=T.float64, requires_grad=True)
    gb, = T.autograd.grad((a + b).sum(), [b])
    assert gb.shape == (1, 0) and gb.untyped_storage().nbytes() == 0


def test_stack_takes_cat_layout():
    x = T.ones(1, 2, 1, 3).movedim(-1, -3)          # channels-last-like strides
    assert T.stack([x, x], 1).stride()[1:4] == (3, 1, 6)
    y = T.ones(2, 3, 4, 5, 6).permute(0, 4, 1, 2, 3)
    assert T.cat([y, y], 0).stride() == (360, 1, 120, 30, 6)
    assert T.stack([y, y], 1).stride() == (720, 6, 1, 240, 60, 12)


# -- seeds 41/43 -------------------------------------------------------------------------------
def test_stack_of_empty_tensors_has_contiguous_strides():
    e = T.tensor([], dtype=T.float64)
    s = T.stack([e, e], 0)
    assert s.shape == (2, 0) and s.narrow(-2, 2, 0).storage_offset() == 2


def test_masked_setitem_converts_the_value_with_a_range_check():
    i = T.zeros(1, dtype=T.int64)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        i[T.tensor([True])] = T.tensor([[float("nan")]])
    assert i.tolist() == [0]


def test_reductions_of_a_zero_dim_tensor_add_to_positive_zero():
    z = T.tensor(-0.0)
    assert (1 / z.sum()).item() == float("inf") and (1 / z.mean()).item() == float("inf")
    assert (1 / z.prod()).item() == float("-inf") and (1 / z.amax()).item() == float("-inf")


def test_autograd_grad_computes_no_gradient_for_nodes_off_the_inputs_paths():
    w = T.ones(4, requires_grad=True)
    x = T.tensor([-1.35, 0.17, 0.5, 0.87], dtype=T.float64, requires_grad=True)
    v = x.movedim(0, -1)
    r = T.remainder(v, w)
    m = x.mean()
    with T.no_grad():
        v.retain_grad()
    _, gw = T.autograd.grad(r.sum(), [m, w], allow_unused=True)
    assert v.grad is None                   # v's node leads to no input: not run
    assert gw is not None


# -- seed 53 -----------------------------------------------------------------------------------
def test_a_node_checks_every_saved_tensor_before_any_gradient():
    w = T.zeros(3, 2, requires_grad=True)
    v = T.tensor([0.24, 0.93], requires_grad=True)
    y = T.matmul(T.matmul(w, v), T.tensor([2.1, 0.0, -0.7]))
    r = T.remainder(y, T.tensor(0.0, dtype=T.float64, requires_grad=True))     # saves y for the divisor
    y.clamp_(-0.5, 1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        T.autograd.grad(r, [v, w], allow_unused=True)      # the divisor's gradient is not wanted


def test_norm_gradient_takes_the_input_layout():
    x = (2 * T.zeros(3, 2, dtype=T.float64, requires_grad=True)).permute(1, 0)
    g, = T.autograd.grad(x.norm(), [x], create_graph=True)
    assert g.stride() == (1, 2) and g.tolist() == [[0.0] * 3] * 2


def test_setitem_checks_overlap_before_the_mask_shape():
    x = T.zeros(3, dtype=T.int64)
    v = x.as_strided([2], [1])
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        v[T.tensor([True, True, False])] = v
    with pytest.raises(IndexError, match="The shape of the mask"):
        v[T.tensor([True, True, False])] = 1


def test_setitem_checks_the_value_shape_before_the_index_bounds():
    x = T.ones(2, 1, 3).movedim(-1, 1).clamp(min=0.0)
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[2, 3, 1\] cannot be broadcast"):
        x[T.tensor([-3, -1, -2, -2])] = T.ones(2, 3, 1)


def test_in_place_on_an_empty_view_keeps_the_second_order_graph():
    x = T.zeros(1, 2, 1, 3, dtype=T.float64, requires_grad=True)
    y = T.cat([x, x], -1)
    v = y[-1:2:1, 1, 0:-1][None, -1, :-1:2, 1::1]         # empty
    v.log_()
    y[-1:2:1, 1, 0:-1].sum().backward(create_graph=True)
    assert x.grad.requires_grad is True and x.grad.tolist() == [[[[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]]]]


# -- seed 67 -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32"])     # (seed 89: float32 lost it)
@pytest.mark.parametrize("n", [1, 37, 5000])                    # (scalar and vectorised loops)
def test_relu_keeps_negative_zero(dtype, n):
    dt = getattr(T, dtype)
    x = T.tensor([-0.0, 0.0, -1.0, float("nan")] * n, dtype=dt)
    r = x.relu()
    assert [math.copysign(1, v) for v in r.tolist()[:3]] == [-1.0, 1.0, 1.0] and r.tolist()[3] != r.tolist()[3]
    assert math.copysign(1, x[::4].relu()[-1].item()) == -1.0          # strided
    assert (1.08 // r[:2]).tolist() == [-math.inf, math.inf]
    if hasattr(T, "fuse"):
        f = T.fuse(lambda a: a.relu() * 1.0)
        assert math.copysign(1, f(T.tensor([-0.0] * n, dtype=dt))[0].item()) == -1.0


def test_index_gradient_is_a_fresh_tensor_not_a_view():
    # seed 89: a view made in the no-grad backward refused an in-place op later
    v0 = T.tensor([0.0, 0.0, 0.0, 0.0], dtype=T.float64, requires_grad=True)
    v1 = v0[T.tensor([-1])]
    v4, v5 = T.autograd.grad(T.xlogy(v1.mean(-1), -1.63), [v1, v0], allow_unused=True)
    assert v5._base is None and v5.is_contiguous()
    v5.xlogy_(T.tensor([-0.5, float("-inf"), 0.3, 0.0], dtype=T.float64, requires_grad=True))
    assert v5.grad_fn.name() == "XlogyBackward0"


def test_norm_gradient_at_zero_multiplies_the_incoming_gradient_first():
    x = T.zeros(2, 1, 2, 2, dtype=T.float64, requires_grad=True)
    T.rsqrt(x.norm().clone()).mean().backward()          # grad -inf * masked 0 = nan
    assert all(v != v for v in x.grad.flatten().tolist())


def test_batched_matmul_dtype_errors_are_bmms():
    with pytest.raises(NotImplementedError, match="\"bmm\" not implemented for 'Bool'"):
        T.matmul(T.zeros(2, 1, dtype=T.bool), T.zeros(2, 1, 2, dtype=T.int64))
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Bool"):
        T.matmul(T.zeros(2, 2, 1, dtype=T.int64), T.zeros(2, 1, 2, dtype=T.bool))


def test_zero_gradient_of_an_empty_tensor_keeps_the_incoming_strides():
    x = T.tensor([[], []], dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(x.sign().sum(), [x])
    assert g.shape == (2, 0) and g.stride() == (0, 0)          # PyTorch's zeros_like(grad)
    assert g.split(1, -2)[1].storage_offset() == 0


# -- seed 73 (the op table's ops in the generator) ------------------------------------------------
def test_lerp_in_place_with_a_tensor_weight_keeps_the_old_input_for_the_weights_gradient():
    v0 = T.tensor([[1.0], [1.0], [1.0]], dtype=T.float64, requires_grad=True)
    v1 = T.nn.functional.leaky_relu(v0, negative_slope=0.2)
    v1.lerp_(v1, v1)                       # LerpBackward1 saves the old v1 (a copy), and v1 itself
    assert v1.grad_fn.name() == "LerpBackward1"
    with pytest.raises(RuntimeError, match="which is output 0 of LerpBackward1, is at version 1; expected "
                                           "version 0 instead|is at version 1; expected version 0"):
        v1.sum().backward()
    w = T.tensor([0.25, 0.5], dtype=T.float64, requires_grad=True)
    x0 = T.tensor([1.0, 3.0], dtype=T.float64, requires_grad=True)
    x = x0 * 1
    y = T.tensor([2.0, 5.0], dtype=T.float64)
    x.lerp_(y, w)
    x.sum().backward()
    assert w.grad.tolist() == [1.0, 2.0]          # end - the old input
    assert x0.grad.tolist() == [0.75, 0.5]        # 1 - weight


def test_promoting_table_ops_in_place_check_the_result_dtype_before_their_kernel():
    b = T.tensor([True, False])
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        b.hypot_(T.tensor([2, 3]))                # (then hypot's kernel would refuse Long)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Bool"):
        b.xlogy_(2)
    assert b.tolist() == [True, False]


# -- seed 97 ----------------------------------------------------------------------------------
def test_logsumexp_of_a_0_dim_negative_zero_is_positive_zero():
    r = T.tensor(-0.0, dtype=T.float64).logsumexp(-1)        # max + log(1): -0.0 + 0.0
    assert math.copysign(1, r.item()) == 1.0
    assert T.atan2(T.tensor(-0.0, dtype=T.float64), r).item() == 0.0


def test_elementwise_in_place_ops_check_the_output_shape_before_their_kernels_dtypes():
    v0 = T.tensor([[[False, False], [False, True]], [[True, False], [False, True]]])
    v2 = v0.as_strided([2, 1], [1, 1]) > 1
    with pytest.raises(RuntimeError, match=re.escape("output with shape [2, 1] doesn't match the broadcast shape [2, 2, 2]")):
        v2.hypot_(v0)               # (hypot's kernel refuses bool, after this)
    x = T.ones(2)
    with pytest.raises(RuntimeError, match=re.escape("output with shape [2] doesn't match the broadcast shape [2, 2]")):
        x.add_(T.ones(2, 2))
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
        x.lerp_(T.ones(2, 2, dtype=T.float64), 0.5)     # lerp's own dtype rule comes first
    assert x.tolist() == [1.0, 1.0]


# -- the engine's order: PyTorch's ready queue runs the newest node first (seeds 79, 101) -------
def test_a_failed_backward_frees_what_ran_before_it_in_pytorchs_order():
    v0 = T.tensor([1.0, 1.0], dtype=T.float64, requires_grad=True)
    v1 = v0.atan()
    v2 = v1.sin()                       # saves v1 at version 0
    v1.squeeze()[0::1] = -0.5           # v1 becomes CopySlices' output
    v5 = T.minimum(v1, v2).sum()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        v5.backward()                   # CopySlices (newer) ran and was freed before SinBackward0 failed
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        v1.mean().backward()


def test_gradients_add_up_in_pytorchs_order_and_keep_the_first_ones_layout():
    v0 = T.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], dtype=T.float64, requires_grad=True)
    v1 = v0.mean()
    v4 = (v0.T * v1).sum()
    _, g = T.autograd.grad(v4, [v1, v0])
    assert g.stride() == (1, 2) and g.tolist() == [[2.0] * 3] * 2     # (v0.T's gradient came first)
    g, = T.autograd.grad((v0.T * v0.mean()).sum(), [v0])
    assert g.stride() == (3, 1)


def test_hooks_run_in_the_order_of_pytorchs_ready_queue():
    order = []
    x = T.tensor([1.0, 2.0], requires_grad=True)
    b = x * 3
    a = x * 2                            # newer: its branch runs first, though it is a + b's first input
    a.register_hook(lambda g: order.append("a"))
    b.register_hook(lambda g: order.append("b"))
    (a + b).sum().backward()
    assert order == ["a", "b"]


def test_a_stale_multi_output_view_is_refused_before_a_reductions_own_errors():
    # seeds 89 and 109: PyTorch's autograd layer collects the input's history before the
    # kernel checks its arguments
    v0 = T.tensor([[], []], dtype=T.float64, requires_grad=True)
    v1, v2 = v0.split(1, -2)
    with T.no_grad():
        v2 /= 1.0
    with pytest.raises(RuntimeError, match="is a view and its base or another view of its base has been modified"):
        v2.amin((0, -1))
    with pytest.raises(RuntimeError, match="is a view and its base or another view of its base has been modified"):
        v1.min(-1)
    with pytest.raises(IndexError, match="Expected reduction dim"):
        v2.argmax()                  # no history for an integer result: the kernel's error


# -- seed 113 -------------------------------------------------------------------------------------
def test_a_node_without_a_derivative_runs_before_the_others_as_pytorchs_error_nodes():
    # PyTorch numbers its NotImplemented nodes UINT64_MAX: ready, they run (and raise) first,
    # so rsqrt's node had not run, nor been freed, when the backward failed
    v0 = T.tensor([[[1.0], [1.0]]], dtype=T.float64, requires_grad=True)
    v1 = v0.square()
    v3 = v1.rsqrt()
    v5 = v3 + v1 // v0
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        v5.mean().backward()
    g, = T.autograd.grad(v3.sum(), [v1])
    assert g.flatten().tolist() == [-0.5, -0.5]


def test_lerp_in_place_result_type_takes_a_0_dim_weight_tensor_not_a_number():
    b = T.tensor([False, False, True, True])
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        b.lerp_(b, T.tensor(0))
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for 'Bool'"):
        b.lerp_(b, 0.5)
    assert b.tolist() == [False, False, True, True]


def test_broadcast_matmul_of_a_no_grad_view_saves_the_other_operand():
    # seed 131: PyTorch's broadcast matmul gives an operand that requires grad expand/view
    # nodes (whose edge leads nowhere for a no-grad view), so its bmm saves the other one
    v0 = T.tensor([[[1.0], [1.0]]], dtype=T.float64, requires_grad=True)
    with T.no_grad():
        v1 = v0[()]
    v2 = T.tensor([[[-0.05, -1.0, -0.87]]], dtype=T.float64)
    v3 = T.matmul(v1, v2)
    v2 *= T.tensor([[[0.5, -2.45, 0.0]]], dtype=T.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        v3.sum().backward()


def test_slogdet_saves_the_sign_not_logabsdet():
    # seed 311: PyTorch's slogdet backward reads A, the sign and its LU factors; changing
    # logabsdet in place before a backward through the sign is allowed, changing the sign
    # before a backward through logabsdet is refused
    A = T.tensor([[[1.0, 1.0], [1.0, 1.0]], [[2.0, 1.0], [1.0, 3.0]]], dtype=T.float64, requires_grad=True)
    sign, logabsdet = T.linalg.slogdet(A)
    logabsdet[0:2] = 0
    sign[T.tensor([-1, -1, 0])].sum().backward(create_graph=True)
    A = T.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=T.float64, requires_grad=True)
    sign, logabsdet = T.linalg.slogdet(A)
    sign.mul_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        logabsdet.backward()
    A = T.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=T.float64, requires_grad=True)
    T.linalg.slogdet(A)[1].backward()
    np.testing.assert_allclose(A.grad.numpy(), np.linalg.inv(A.detach().numpy()).T, rtol=1e-14)


def test_cross_saves_only_the_operand_a_derivative_reads():
    # seed 311: with only `other` requiring grad, its derivative reads `input` alone, so
    # changing `other` in place before backward is allowed (and the gradient is right)
    a = T.zeros(3, 3, dtype=T.float64)
    b = T.tensor([[-3.45, 1.55, 0.0], [-1.88, 0.83, 0.97], [1.0, -0.62, 2.0]], dtype=T.float64,
                      requires_grad=True)
    c = T.cross(a, b, dim=1)
    with T.no_grad():
        b.fill_(0.11)
    c.tan().mean().backward(create_graph=True)
    np.testing.assert_array_equal(b.grad.detach().numpy(), np.zeros((3, 3)))
    a = T.ones(3, dtype=T.float64, requires_grad=True)
    b = T.tensor([1.0, 2.0, 3.0], dtype=T.float64)
    c = T.cross(a, b, dim=0)
    b.mul_(2)              # a's derivative reads b: refused
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_engine_validates_gradient_shapes():
    # seed 313: a non-leaf squeezed in place under no_grad keeps its node's old shape; the
    # next node's gradient then has a shape the input cannot be expanded to, and PyTorch's
    # engine (validate_outputs) refuses it naming the node
    v0 = T.tensor([0.0], requires_grad=True)
    v1 = v0 + v0
    with T.no_grad():
        v1.squeeze_(0)
    v3 = T.flip(v1, []).flip(())
    with pytest.raises(RuntimeError, match=re.escape(
            "Function FlipBackward0 returned an invalid gradient at index 0 - got [] but expected shape "
            "compatible with [1]")):
        v3.backward()

    class Wrong(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return T.ones(2)            # x has 3 elements
    x = T.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape("returned an invalid gradient at index 0 - got [2] but "
                                                     "expected shape compatible with [3]")):
        Wrong.apply(x).sum().backward()
    # a broadcast gradient (a shape the input expands to) is summed down, as before
    w = T.ones(1, 3, requires_grad=True)

    class Broadcasting(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return T.ones(4, 3)
    Broadcasting.apply(w).sum().backward()
    assert w.grad.tolist() == [[4.0, 4.0, 4.0]]


def test_det_gradient_of_a_1x1_matrix_is_the_incoming_gradient():
    # corpus 1000150: PyTorch's det backward of 1x1 matrices is g expanded, no history of A
    A = T.tensor([[0.0]], dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(A.det(), [A], create_graph=True)
    assert g.tolist() == [[1.0]] and g.requires_grad is False and g.grad_fn is None
    A = T.tensor([[[2.0]], [[3.0]]], dtype=T.float64, requires_grad=True)
    w = T.tensor([2.0, 5.0], dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(A.det(), [A], grad_outputs=w, create_graph=True)
    assert g.tolist() == [[[2.0]], [[5.0]]] and type(g.grad_fn).__name__ == "ExpandBackward0"


def test_cholesky_gradient_is_column_major():
    # seeds 311, 317: PyTorch's cholesky backward ends with a right-sided triangular solve,
    # whose result is column-major; the layout shows in autograd.grad's results
    v0 = T.tensor([[2.66, 0.89], [0.35, 3.2]], dtype=T.float64, requires_grad=True)
    v1 = v0.transpose(-2, -1)
    v2 = v0 + v1
    g0, g1 = T.autograd.grad(T.linalg.cholesky(v2).sum(), [v0, v1])
    assert g0.stride() == (1, 2) and g1.stride() == (1, 2)
    (g,) = T.autograd.grad(T.linalg.cholesky(v2).sum(), [v2], create_graph=True)
    assert g.stride() == (1, 2) and g.requires_grad
    A = v2.detach().numpy()
    # the values: d sum(L) / dA, by central differences in float64
    eps, num = 1e-6, np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            d = np.zeros((2, 2))
            d[i, j] = d[j, i] = eps
            num[i, j] = (np.linalg.cholesky(A + d).sum() - np.linalg.cholesky(A - d).sum()) / (2 * eps)
            if i != j:
                num[i, j] /= 2                      # the symmetric perturbation moved both entries
    np.testing.assert_allclose(g.detach().numpy(), num, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("fn", ["svd", "svdvals"])
def test_svd_of_a_matrix_holding_a_nan_fails_as_pytorchs_lapack(fn):
    # seed 331 (recorded from torch 2.13): a nan makes gesdd fail, an inf gives nans
    nan, inf = float("nan"), float("inf")
    f = getattr(T.linalg, fn)
    with pytest.raises(RuntimeError, match=re.escape("linalg.svd: The algorithm failed to converge because the "
                                                     "input matrix contained non-finite values.")):
        f(T.tensor([[nan, 1.0], [1.0, 2.0]], dtype=T.float64))
    with pytest.raises(T.linalg.LinAlgError, match=re.escape("linalg.svd: (Batch element 1): The algorithm")):
        f(T.tensor([[[1.0, 1.0], [1.0, 2.0]], [[nan, 1.0], [1.0, 2.0]]], dtype=T.float64))
    out = T.linalg.svdvals(T.tensor([[[1.0, 1.0], [1.0, 2.0]], [[inf, 1.0], [1.0, 2.0]]], dtype=T.float64))
    np.testing.assert_allclose(out[0].numpy(), [2.618033988749895, 0.38196601125010515], rtol=1e-12)


def test_erfinv_saves_its_input_not_its_result():
    # seed 337: PyTorch's erfinv backward recomputes erfinv(self), so it saves the input:
    # changing the input in place is refused, changing the result is not
    x = T.tensor([[[0.21]], [[0.54]]], dtype=T.float64, requires_grad=True)
    y = x.erfinv()
    with T.no_grad():
        x -= 0.1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    x = T.tensor([0.21, 0.54], dtype=T.float64, requires_grad=True)
    y = x.erfinv()
    z = y * 1
    with T.no_grad():
        y.zero_()
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.918216969304805, 1.1643524500780384], rtol=1e-14)


def test_number_to_an_integer_tensor_power_with_negative_exponents_is_row_major():
    # seed 31005547: pow(Scalar, Tensor) allocates a row-major result, also on the path that
    # gives integers to negative powers (1, -1 or 0)
    e = T.tensor([[0, 2, -2], [-2, -2, -2]]).transpose(1, 0)
    y = 2 ** e
    assert y.stride() == (2, 1) and y.tolist() == [[1, 0], [4, 0], [0, 0]]
    y = (-1) ** e
    assert y.stride() == (2, 1) and y.tolist() == [[1, 1], [1, 1], [1, 1]]


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_with_a_rounding_mode_saves_self_and_other_as_pytorch_does(mode):
    # seed 33000286: remainder's gradient for other is -grad * self.div(other, floor);
    # PyTorch's DivBackward2 saves other, and self when other needs a gradient, although
    # both gradients are zero: an in-place change of other then fails the double backward
    a = T.tensor(0.25, dtype=T.float64)
    b = T.tensor(-0.5, dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(T.remainder(a, b), [b], create_graph=True)
    with T.no_grad():
        b[...] = 2
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        T.autograd.grad(g, [b], allow_unused=True)
    # a Python-number divisor is saved as a wrapped-number tensor: freed after a backward
    x = T.tensor([1.5, 2.0], dtype=T.float64, requires_grad=True)
    y = T.div(x, 2.0, rounding_mode=mode)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()
    # self is saved only for other's gradient: changing it in place is fine when only
    # self needs one
    x = T.tensor([1.5, 2.0], dtype=T.float64, requires_grad=True)
    y = T.div(x, T.tensor([0.5, 3.0], dtype=T.float64), rounding_mode=mode)
    with T.no_grad():
        x.add_(1.0)
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def _chain(fn):
    """grad_fn names depth-first over next_functions."""
    return [] if fn is None else [fn.name()] + [n for nxt, _ in fn.next_functions for n in _chain(nxt)]


def test_matmul_squeezes_a_batch_of_one_that_requires_grad():
    # seed 36008943: PyTorch's _matmul_impl squeezes a 3-D operand with a batch of one that
    # requires grad when the other's batch differs (the flag, also under no_grad), so the
    # product folds into mm (names and strides recorded from torch 2.13)
    acc = "torch::autograd::AccumulateGrad"
    a = T.tensor(np.arange(12.0).reshape(1, 2, 6), requires_grad=True)
    b = T.tensor(np.arange(12.0).reshape(2, 6, 1) - 5, requires_grad=True)
    out = T.matmul(a, b)
    assert _chain(out.grad_fn) == ["TransposeBackward0", "UnsafeViewBackward0", "MmBackward0", "ViewBackward0",
                                   "TransposeBackward0", acc, "TBackward0", "SqueezeBackward1", acc]
    assert out.shape == (2, 2, 1) and out.stride() == (2, 1, 2)
    np.testing.assert_array_equal(out.detach().numpy(), a.detach().numpy() @ b.detach().numpy())
    b3 = T.tensor(np.arange(36.0).reshape(2, 6, 3) / 7)
    out = T.matmul(a, b3)
    assert out.grad_fn.name() == "CloneBackward0" and out.stride() == (6, 3, 1)
    with T.no_grad():
        assert T.matmul(a, b).stride() == (2, 1, 2)
    # the other side: (2, 2, 6) @ (1, 6, 3) with the second requiring grad
    c = T.tensor(np.arange(18.0).reshape(1, 6, 3), requires_grad=True)
    out = T.matmul(T.tensor(np.ones((2, 2, 6))), c)
    assert _chain(out.grad_fn) == ["UnsafeViewBackward0", "MmBackward0", "SqueezeBackward1", acc]
    out.sum().backward()
    np.testing.assert_array_equal(c.grad.numpy(), np.full((1, 6, 3), 4.0))
    # neither requires grad, or equal batches: the batched product
    assert T.matmul(a.detach(), b).grad_fn.name() == "UnsafeViewBackward0"
    assert T.matmul(a.detach(), b).stride() == (2, 1, 1)


def test_cross_refuses_bool_before_comparing_dtypes():
    # seed 38039248 (torch 2.13): the meta function's broadcast, then the kernel's dispatch on
    # input's dtype (no bool kernel), then its read of other as that dtype
    with pytest.raises(NotImplementedError, match="\"cross\" not implemented for 'Bool'"):
        T.cross(T.ones(3, 2, dtype=T.bool), T.ones(3, 2, dtype=T.float64), dim=0)
    with pytest.raises(NotImplementedError, match="\"cross\" not implemented for 'Bool'"):
        T.cross(T.ones(3, 2, dtype=T.bool), T.ones(3, 2, dtype=T.bool), dim=0)
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Bool"):
        T.cross(T.ones(3, 2, dtype=T.float64), T.ones(3, 2, dtype=T.bool), dim=0)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(4\)"):
        T.cross(T.ones(3, 2, dtype=T.bool), T.ones(3, 4, dtype=T.float64), dim=0)


def test_an_operand_cast_first_lays_out_the_result_by_its_copy():
    # seed 39013194 (torch 2.13): TensorIterator casts the bool operand with .to() (a dense
    # copy in the expanded view's memory order, strides (24, 2, 4, 12, 1)) and orders the
    # result's dims by that copy, not by the view's 0 strides
    v0 = T.tensor([[[[False, False], [True, True]]], [[[False, True], [False, False]]]])
    v2 = v0.transpose(-4, 2).expand(2, -1, 3, -1, 2)
    assert v2.stride() == (0, 2, 0, 4, 1)
    v3 = T.zeros(2, 2, 3, 2, 2, requires_grad=True)
    for out in (T.maximum(v2, v3), v2 + v3, T.mul(v2, v3), v2 == v3):
        assert out.stride() == (24, 2, 4, 12, 1)
    assert (v2.float() + v3).stride() == (24, 2, 4, 12, 1)


def test_a_root_reshaped_in_place_is_checked_against_its_nodes_record():
    # seed 39022179 (torch 2.13): the engine validates a root's gradient against the shape
    # its node recorded; squeezed in place under no_grad, the output's implicit gradient
    # has the new shape, which does not sum to the recorded one
    v0 = T.tensor([1.0], requires_grad=True)
    v1 = v0[T.tensor([0])]
    with T.no_grad():
        v1.squeeze_(-1)
    with pytest.raises(RuntimeError, match=r"^invalid gradient at index 0 - got \[\] but expected shape "
                                           r"compatible with \[1\]$"):
        v1.backward(retain_graph=True)
    x = T.tensor([[1.0, 2.0]], requires_grad=True)
    y = x * 3
    with T.no_grad():
        y.squeeze_(0)
    with pytest.raises(RuntimeError, match=r"got \[2\] but expected shape compatible with \[1, 2\]"):
        y.backward(T.ones(2))
    # one that sums down is fine: unsqueezed, the gradient [1] sums to the recorded []
    x = T.tensor(2.0, requires_grad=True)
    y = x * 3
    with T.no_grad():
        y.unsqueeze_(0)
    y.backward()
    assert x.grad.item() == 3.0


def test_unique_orders_nans_as_pytorchs_unstable_sort():
    # seed 42015487 (torch 2.13): each NaN is a value of its own, and which one gets which
    # index follows the order sort() (not stable: std::sort's) leaves them in
    nan = math.nan
    row = [-0.5, nan, -0.54] * 6 + [0.1, 0.37, -1.23] * 6
    x = T.tensor(row, dtype=T.float32).reshape(1, 2, 3, 2, 3)
    values, inverse, counts = x.unique(return_inverse=True, return_counts=True)
    assert np.array_equal(values.numpy(), np.array([-1.23, -0.54, -0.5, 0.1, 0.37] + [nan] * 6, np.float32),
                          equal_nan=True)
    assert inverse.flatten().tolist() == [2, 10, 1, 2, 9, 1, 2, 8, 1, 2, 7, 1, 2, 6, 1, 2, 5, 1,
                                          3, 4, 0, 3, 4, 0, 3, 4, 0, 3, 4, 0, 3, 4, 0, 3, 4, 0]
    assert counts.tolist() == [6, 6, 6, 6, 6, 1, 1, 1, 1, 1, 1]


def _leaf_grad_set_after_failed_backward(error_node_first, through_mul=False):
    v1 = T.tensor([1.5, 2.0], dtype=T.float64, requires_grad=True)
    v3 = T.tensor([0.5, 1.0], dtype=T.float64, requires_grad=True)
    v2 = v1 // v1                   # floor_divide: an error node (no derivative)
    other = v3 * 2 if through_mul else v3
    v4 = T.atan2(v2, other) if error_node_first else T.atan2(other, v2)
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        v4.sum().backward()
    return v3.grad is not None


def test_error_nodes_and_leaf_sinks_run_in_the_order_their_parent_sends_them():
    # seed 42017968 (torch 2.13): PyTorch numbers both an error node and a leaf's
    # AccumulateGrad UINT64_MAX, so neither runs before the other by number: its ready queue
    # leaves them in the order the parent's edges pushed them; an ordinary node that leads to
    # the leaf runs after the error node, which stops the backward first
    assert _leaf_grad_set_after_failed_backward(error_node_first=True) is False
    assert _leaf_grad_set_after_failed_backward(error_node_first=False) is True
    assert _leaf_grad_set_after_failed_backward(error_node_first=True, through_mul=True) is False
    assert _leaf_grad_set_after_failed_backward(error_node_first=False, through_mul=True) is False


@pytest.mark.parametrize("op", ["unsqueeze_", "t_", "squeeze_", "transpose_"])
def test_retain_grad_stays_on_the_node_before_an_in_place_view_op(op):
    # seed 42014274 (torch 2.13): an in-place view op sets the tensor's history without
    # moving retain_grad (set_history, not rebase_history): .grad is the gradient of the
    # value before the op, in its shape
    v0 = T.tensor([[-0.5, 2.0, -1.0]], dtype=T.float64, requires_grad=True)
    v3 = (v0 * 2).sum(0) if op == "unsqueeze_" else v0 * 2
    v3.retain_grad()
    {"unsqueeze_": lambda: v3.unsqueeze_(-1), "t_": v3.t_, "squeeze_": lambda: v3.squeeze_(0),
     "transpose_": lambda: v3.transpose_(0, 1)}[op]()
    (v3 * T.arange(3, dtype=T.float64).reshape(v3.shape)).sum().backward()
    expected = [0.0, 1.0, 2.0] if op == "unsqueeze_" else [[0.0, 1.0, 2.0]]
    assert v3.grad.tolist() == expected


def test_hooks_after_an_in_place_view_op_join_the_earlier_ones():
    # torch 2.13: hooks registered before unsqueeze_ keep running at the old node; a hook
    # registered after it joins them there when there were any, else goes to the new node
    def run(pre, post):
        v0 = T.tensor([[-0.5, 2.0, -1.0]], dtype=T.float64, requires_grad=True)
        v3 = (v0 * 2).sum(0)
        seen = []
        if pre:
            v3.register_hook(lambda g: seen.append(("pre", tuple(g.shape))))
        v3.unsqueeze_(-1)
        if post:
            v3.register_hook(lambda g: seen.append(("post", tuple(g.shape))))
        (v3 * T.arange(3, dtype=T.float64).reshape(3, 1)).sum().backward()
        return seen
    assert run(True, False) == [("pre", (3,))]
    assert run(False, True) == [("post", (3, 1))]
    assert run(True, True) == [("pre", (3,)), ("post", (3,))]


def test_retain_grad_moves_once_from_where_an_in_place_view_op_left_it():
    # (PyTorch 2.13 fails an internal assert here; nbgrad moves the one retain_grad to the
    # in-place op's node: one gradient, of the tensor's current shape, not two added up)
    v0 = T.tensor([[-0.5, 2.0, -1.0]], dtype=T.float64, requires_grad=True)
    v3 = (v0 * 2).sum(0)
    v3.retain_grad()
    v3.unsqueeze_(-1)
    v3.mul_(2)
    (v3 * T.arange(3, dtype=T.float64).reshape(3, 1)).sum().backward()
    assert v3.grad.tolist() == [[0.0], [1.0], [2.0]]


def test_isclose_of_integers_takes_the_difference_in_the_default_float_dtype():
    # seed 46034098 (torch 2.13): NaN.long() is int64's minimum; PyTorch casts an integer
    # `other` to the default dtype before subtracting, so the difference does not wrap
    a = T.tensor([-9223372036854775808, 5, -9223372036854775807, -2 ** 62, 3], dtype=T.int64)
    b = T.tensor([0, 5, 0, 0, 4], dtype=T.int64)
    assert a.isclose(b).tolist() == [False, True, False, False, False]
    assert a.isclose(b, rtol=0.3).tolist() == [False, True, False, False, True]
    u = T.tensor([0, 200, 5], dtype=T.uint8)
    w = T.tensor([3, 199, 5], dtype=T.uint8)
    assert u.isclose(w, atol=2).tolist() == [False, True, True]
    i8, j8 = T.tensor([-128, 127], dtype=T.int8), T.tensor([127, -128], dtype=T.int8)
    assert i8.isclose(j8, atol=10).tolist() == [False, False]
    assert T.tensor([True, False, True]).isclose(T.tensor([False, False, True]), atol=1).tolist() == [True] * 3


def test_std_backward_keeps_the_incoming_gradients_layout():
    # seed 48023328 (torch 2.13): std_backward fills g / (2 * std) in place where std == 0,
    # so the gradient keeps g's layout (a transposed one here), not the mask's
    v2 = T.tensor([[[0.0, 0.0, 0.0]], [[-3.51, 3.24, 0.0]]], dtype=T.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        v3 = v2.std(-2, correction=1)
    g, = T.autograd.grad(v3.T.mean(), [v2], create_graph=True)
    assert g.stride() == (1, 6, 2)
    x = T.tensor([[1.0, 1.0, 1.0], [0.5, -2.0, 3.0]], dtype=T.float64, requires_grad=True)
    s = x.std(1)
    g, = T.autograd.grad((s * T.tensor([2.0, 3.0], dtype=T.float64)).sum(), [x], create_graph=True)
    assert g[0].tolist() == [0.0, 0.0, 0.0]            # std == 0: masked, not nan
    gg, = T.autograd.grad((g * g).sum(), [x])
    assert np.isfinite(gg.numpy()).all()


# -- as_strided's backward under create_graph is made of PyTorch's ops (seed 50027485) -------
def _graph_lines(fn, depth=0, out=None):
    out = [] if out is None else out
    if fn is None or depth > 5:
        return out
    out.append("  " * depth + fn.name())
    for nxt, _ in fn.next_functions:
        _graph_lines(nxt, depth + 1, out)
    return out


def test_in_place_op_on_a_double_backward_gradient_through_a_regenerated_view():
    # v3's history is regenerated (AsStridedBackward0) after a no_grad write; the gradient
    # create_graph gives v2 is a view of as_strided_backward's storage, which has history
    # (CopySlices), so squaring it in place is allowed: nbgrad had made it a view of a leaf
    v1 = T.tensor([[-0.44, 1.76], [1.0, 1.18], [2.0, 0.26]], dtype=T.float64, requires_grad=True)
    v2 = v1[1, ...]
    v3 = T.repeat_interleave(v2, 1)
    with T.no_grad():
        v3.fill_(0.79)
    v5 = T.nn.functional.elu(v3, alpha=-1.0)
    v7, = T.autograd.grad(v5.sum(), [v2], allow_unused=True, create_graph=True, retain_graph=True)
    assert v7.grad_fn.name() == "SqueezeBackward1"
    assert v7._base.grad_fn.name() == "torch::autograd::CopySlices"
    v7.square_()
    assert v7.grad_fn.name() == "AsStridedBackward0" and v7.tolist() == [1.0, 1.0]
    v7[-1:2].sum().backward(retain_graph=True)
    assert v1.grad.tolist() == [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]


def test_repeat_interleave_of_a_vector_does_not_flatten_it():
    # PyTorch's flatten() returns a 1-D input itself: no ViewBackward0 in the graph
    x = T.tensor([1.0, 2.0], requires_grad=True)
    fn = T.repeat_interleave(x, 2).grad_fn
    names = []
    while fn is not None:
        names.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
    assert names == ["ViewBackward0", "CloneBackward0", "ExpandBackward0", "UnsqueezeBackward0",
                     "torch::autograd::AccumulateGrad"]


@pytest.mark.parametrize("size, stride, offset, chain, second", [
    # a plain window: copied into the storage (CopySlices)
    ([2, 2], [1, 2], 0, ["AsStridedBackward0", "torch::autograd::CopySlices", "MulBackward0", "CosBackward0"],
     [29.48165627, 280.15684542, 508.34635249, 1639.23341221, 0.0, 0.0, 0.0]),
    # a 0-stride dim is summed away first
    ([3], [0], 1, ["AsStridedBackward0", "torch::autograd::CopySlices", "SumBackward1", "MulBackward0"],
     [0.0, 2521.41160881, -0.0, 0.0, 0.0, 0.0, 0.0]),
    # a window that overlaps itself: index_add_
    ([2, 3], [1, 1], 0, ["AsStridedBackward0", "IndexAddBackward0", "ViewBackward0", "MulBackward0"],
     [29.48165627, 1120.62738169, 2033.38540996, 1639.23341221, 0.0, 0.0, 0.0]),
    # a size-1 dim is squeezed
    ([1, 2], [3, 2], 0, ["AsStridedBackward0", "torch::autograd::CopySlices", "SqueezeBackward1", "MulBackward0"],
     [29.48165627, 0.0, 508.34635249, 0.0, 0.0, 0.0, 0.0]),
])
def test_as_strided_double_backward_graph_and_values(size, stride, offset, chain, second):
    x = T.tensor([0.5, 1.5, -2.0, 3.0, 0.25, 1.0, 2.0], dtype=T.float64, requires_grad=True)
    y = (x * x).as_strided(size, stride, offset)
    g, = T.autograd.grad((y.sin() * 3).sum(), [x], create_graph=True)
    assert [line.strip() for line in _graph_lines(g.grad_fn)[2:6]] == chain     # below AddBackward0, MulBackward0
    h, = T.autograd.grad((g * g).sum(), [x])
    assert h.tolist() == pytest.approx(second, rel=1e-9, abs=1e-12)


def test_as_strided_double_backward_of_an_overlapping_input_divides_by_the_count():
    x = T.tensor([0.5, 1.5, -2.0], dtype=T.float64, requires_grad=True)
    y = x.expand(2, 3).as_strided([3], [1], 0)
    g, = T.autograd.grad((y ** 3).sum(), [x], create_graph=True)
    assert g.tolist() == [0.75, 6.75, 12.0]
    assert [line.strip() for line in _graph_lines(g.grad_fn)] == [
        "ViewBackward0", "SumBackward1", "AsStridedBackward0", "DivBackward0", "torch::autograd::CopySlices",
        "MulBackward0"][:len(_graph_lines(g.grad_fn))]
    assert T.autograd.grad(g.sum(), [x])[0].tolist() == [3.0, 9.0, -12.0]


# -- det and slogdet of matrices with NaN or inf (seed 50007058) --------------------------------
_INF, _NAN = float("inf"), float("nan")


@pytest.mark.parametrize("m, row_major, column_major", [
    # (det, sign, logabsdet) of the row-major matrix (factored as A^T) and of a column-major
    # copy of it (factored as it is); sgn(NaN) is 0
    ([[0.19, _NAN], [0.47, 0.19]], (_NAN, 0.0, _NAN), (_NAN, -0.0, _NAN)),
    ([[1.0, _INF], [1.0, 1.0]], (-_INF, -1.0, _INF), (-_INF, -1.0, _INF)),
    ([[0.7887, 1.1023], [_INF, -_INF]], (-_INF, -1.0, _INF), (_NAN, -0.0, _NAN)),
    ([[-0.8389, -_INF], [0.5179, -_INF]], (_NAN, 0.0, _NAN), (_INF, 1.0, _INF)),
    ([[2.0, -_INF], [1.0, 1.0]], (_INF, 1.0, _INF), (_INF, 1.0, _INF)),
    ([[_INF, 1.0], [1.0, 1.0]], (_INF, 1.0, _INF), (_INF, 1.0, _INF)),
])
def test_det_and_slogdet_of_non_finite_matrices_follow_pytorchs_lu(m, row_major, column_major):
    # PyTorch factors A^T for a contiguous A (LAPACK reads its memory as it is), A itself
    # otherwise; NaN and inf then meet as they do in that LU.  Numba's linalg refuses them.
    a = T.tensor(m, dtype=T.float64)
    for x, want in ((a, row_major), (a.t().contiguous().t(), column_major)):
        got = [T.linalg.det(x).item()] + [v.item() for v in T.linalg.slogdet(x)]
        np.testing.assert_array_equal(got, want)


# -- a leaf root is validated against its AccumulateGrad's record (seed 53010471) -----------
@pytest.mark.parametrize("how", ["backward", "grad_of_itself", "grad_of_another"])
def test_a_leaf_squeezed_under_no_grad_after_a_graph_used_it_refuses_a_root_gradient(how):
    v0 = T.tensor([-1.0], requires_grad=True)
    v1 = v0.logsumexp(-1)           # its node holds v0's AccumulateGrad, which recorded [1]
    with T.no_grad():
        v0.squeeze_()
    with pytest.raises(RuntimeError, match=re.escape("invalid gradient at index 0 - got [] but expected shape "
                                                     "compatible with [1]")):
        if how == "backward":
            v0.backward()
        elif how == "grad_of_itself":
            T.autograd.grad(v0, [v0])
        else:
            T.autograd.grad(v0, [v1], allow_unused=True)


def test_a_leaf_unsqueezed_under_no_grad_sums_its_root_gradient_then_accumulates_in_its_shape():
    v0 = T.tensor([-1.0, 2.0], requires_grad=True)
    v1 = v0.logsumexp(-1)
    with T.no_grad():
        v0.unsqueeze_(0)
    v0.backward(T.ones(1, 2))
    assert v0.grad.shape == (1, 2) and v0.grad.tolist() == [[1.0, 1.0]]
    w = T.tensor([-1.0], requires_grad=True)      # no graph used it: a fresh accumulator
    with T.no_grad():
        w.squeeze_()
    w.backward()
    assert w.grad.tolist() == 1.0


# -- det and slogdet of small matrices: PyTorch's LU, bit for bit (seed 56025126) ----------
@pytest.mark.parametrize("m, want", [
    ([[4.14, 0.61, 0.1], [0.0, 4.6899999999999995, -0.62], [0.9, 0.47, 4.44]],
     [86.65361999999999, 1.0, 4.461918792553828]),
    ([[5.04, -0.67, 4.01], [1.25, 5.83, 4.61], [0.95, 4.44, -2.85]], [-192.17788100000004, -1.0, 5.258421406666989]),
    ([[0.33, 4.17, 3.32, -1.54], [-3.54, 0.86, -0.55, 2.01], [2.38, 0.99, -2.59, -3.56], [-0.79, 1.46, -0.15, 2.13]],
     [-156.46955239, -1.0, 5.052861437633707]),
    ([[-1.19, -0.73, -2.82, 4.98, 4.39], [0.77, 2.43, -5.48, -0.33, 4.17], [0.12, -3.08, -3.0, 3.01, -2.35],
      [2.91, -4.67, 1.35, 1.84, 0.71], [-0.12, 2.04, -1.31, 0.78, 0.73]], [-1282.622899668, -1.0, 7.156662400654865]),
    ([[-1.1, -7.7, 5.52, -3.11, 0.23, 2.16, -2.47, 2.48], [1.14, -1.15, -0.97, -5.0, -4.2, -2.59, 6.85, 2.86],
      [5.23, -2.23, 0.58, -1.66, -4.44, -4.88, 3.37, 2.49], [3.77, 3.31, -3.43, 2.54, -2.37, -2.71, -3.56, -0.16],
      [-4.4, -0.61, 3.18, -0.11, 0.46, -0.44, -3.08, -1.09], [1.21, 3.8, 2.14, 2.6, -2.62, 6.55, 0.67, 0.59],
      [-0.41, 3.94, -0.1, -0.15, 4.11, -1.09, -4.61, -0.62], [0.09, -0.8, 6.73, -0.24, 1.4, -3.9, -3.76, 0.34]],
     [77764.12130568989, 1.0, 11.261435438060227]),
])
def test_det_and_slogdet_of_small_matrices_have_pytorchs_bits(m, want):
    # PyTorch factors A^T with MKL's getrf, whose trailing updates are fused multiply-adds;
    # nbgrad's getf2 steps with fma give the same bits far more often than NumPy's LAPACK
    a = T.tensor(m, dtype=T.float64)
    assert [T.linalg.det(a).item()] + [v.item() for v in T.linalg.slogdet(a)] == want
