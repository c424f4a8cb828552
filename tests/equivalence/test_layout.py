"""Result memory layout follows the operands' layout, as PyTorch's TensorIterator.

Expected (shape, strides) were recorded by running PyTorch 2.13 on the same programs.
Elementwise results take their operands' layout (a transposed input gives a transposed
result); reductions, softmax, matmul, contiguous() and masked_fill are row-major;
clone/to(dtype)/*_like keep it (preserve_format); a leaf's .grad obeys the gradient
layout contract.
"""
import numpy as np
import pytest

import nbgrad as nb
try:
    from nbgrad._layout import layout_of, preserve_strides
except ImportError:             # NBGRAD_TESTS_AGAINST_TORCH=1 (see tests/conftest.py)
    layout_of = preserve_strides = None

T = lambda: nb.ones(2, 3).t()                       # (3,2) strides (1,3)
P = lambda: nb.ones(2, 3, 4).permute(2, 0, 1)       # (4,2,3) strides (1,12,4)
CL = lambda: nb.ones(2, 4, 5, 3).permute(0, 3, 1, 2)   # channels-last (2,3,4,5)
ND = lambda: nb.ones(4, 6).t()[::2]                 # non-dense (3,4) strides (2,6)
S1 = lambda: nb.ones(3, 1, 2).permute(2, 1, 0)      # (2,1,3) strides (1,2,2)
R1 = lambda: nb.ones(3, 1).t()                      # (1,3) strides (1,1)
PROGRAMS = {
 "t_add_scalar": lambda: T() + 1,
 "t_exp": lambda: T().exp(),
 "t_neg": lambda: -T(),
 "t_add_contig": lambda: T() + nb.ones(3, 2),
 "contig_add_t": lambda: nb.ones(3, 2) + T(),
 "t_add_t": lambda: T() + T(),
 "t_mul_row": lambda: T() * nb.ones(2),
 "t_mul_col": lambda: T() * nb.ones(3, 1),
 "bcast_col_row": lambda: nb.ones(3, 1) + nb.ones(1, 4),
 "bcast_t_col_row": lambda: nb.ones(1, 3).t() + nb.ones(4, 1).t(),
 "perm3_add_scalar": lambda: P() + 1,
 "perm3_sub_contig": lambda: P() - nb.ones(4, 2, 3),
 "perm3_add_bias": lambda: P() + nb.ones(3),
 "perm3_exp": lambda: P().exp(),
 "cl_add_scalar": lambda: CL() + 1,
 "cl_relu": lambda: CL().relu(),
 "cl_add_bias": lambda: CL() + nb.ones(5),
 "cl_add_chan": lambda: CL() * nb.ones(3, 1, 1),
 "nondense_add": lambda: ND() + 1,
 "nondense_exp": lambda: ND().exp(),
 "size1_add": lambda: S1() + 1,
 "size1_exp": lambda: S1().exp(),
 "size1_add_vec": lambda: S1() + nb.ones(3),
 "r1_exp": lambda: R1().exp(),
 "r1_add": lambda: R1() + 1,
 "r1_gt": lambda: R1() > 0,
 "r1_rsub": lambda: 2 - R1(),
 "r1_pow2": lambda: R1().pow(2),
 "r1_clamp": lambda: R1().clamp(0, 1),
 "expand_row_add": lambda: nb.ones(3).expand(2, 3) + 1,
 "expand_col_exp": lambda: nb.ones(3, 1).expand(3, 4).exp(),
 "int_t_add_float": lambda: nb.ones(2, 3, dtype=nb.int32).t() + 1.5,
 "int_t_exp": lambda: nb.ones(2, 3, dtype=nb.int32).t().exp(),
 "t_gt_scalar": lambda: T() > 0,
 "t_eq_contig": lambda: T() == nb.ones(3, 2),
 "t_where_scalar": lambda: nb.where(T() > 0, T(), 0.0),
 "t_where_contig_cond": lambda: nb.where(nb.ones(3, 2) > 0, T(), T()),
 "t_clamp": lambda: T().clamp(0, 1),
 "t_clamp_tensor": lambda: T().clamp(nb.zeros(3, 2), nb.ones(3, 2)),
 "t_pow_scalar": lambda: T().pow(3),
 "scalar_pow_t": lambda: 2 ** T(),
 "t_pow_t": lambda: T().pow(T()),
 "t_maximum": lambda: nb.maximum(T(), nb.ones(3, 2)),
 "t_masked_fill": lambda: T().masked_fill(T() > 0, 2.0),
 "t_logical_not": lambda: (T() > 0).logical_not(),
 "t_div_scalar": lambda: T() / 2,
 "t_float_to_double": lambda: T().double(),
 "perm3_to_int": lambda: P().to(nb.int64),
 "nondense_double": lambda: ND().double(),
 "nondense_clone": lambda: ND().clone(),
 "perm3_clone": lambda: P().clone(),
 "perm3_contiguous": lambda: P().contiguous(),
 "nondense_zeros_like": lambda: nb.zeros_like(ND()),
 "perm3_sum1": lambda: P().sum(1),
 "perm3_sum1_keepdim": lambda: P().sum(1, keepdim=True),
 "perm3_sum2_keepdim": lambda: P().sum(2, keepdim=True),
 "perm3_mean0": lambda: P().mean(0),
 "perm3_amax1": lambda: P().amax(1),
 "perm3_max1_values": lambda: P().max(1)[0],
 "perm3_max1_indices": lambda: P().max(1)[1],
 "perm3_argmax1": lambda: P().argmax(1),
 "perm3_softmax1": lambda: P().softmax(1),
 "perm3_log_softmax2": lambda: P().log_softmax(2),
 "mm_t_t": lambda: nb.ones(2, 3).t().mm(nb.ones(4, 2).t()),
 "empty_t_add": lambda: nb.ones(0, 3).t() + 1,
 "empty_t_exp": lambda: nb.ones(0, 3).t().exp(),
 "empty_col_add": lambda: nb.ones(0, 1) + 1,
}

EXPECTED = {
    't_add_scalar': ((3, 2), (1, 3)),
    't_exp': ((3, 2), (1, 3)),
    't_neg': ((3, 2), (1, 3)),
    't_add_contig': ((3, 2), (1, 3)),
    'contig_add_t': ((3, 2), (2, 1)),
    't_add_t': ((3, 2), (1, 3)),
    't_mul_row': ((3, 2), (1, 3)),
    't_mul_col': ((3, 2), (1, 3)),
    'bcast_col_row': ((3, 4), (4, 1)),
    'bcast_t_col_row': ((3, 4), (4, 1)),
    'perm3_add_scalar': ((4, 2, 3), (1, 12, 4)),
    'perm3_sub_contig': ((4, 2, 3), (1, 12, 4)),
    'perm3_add_bias': ((4, 2, 3), (1, 12, 4)),
    'perm3_exp': ((4, 2, 3), (1, 12, 4)),
    'cl_add_scalar': ((2, 3, 4, 5), (60, 1, 15, 3)),
    'cl_relu': ((2, 3, 4, 5), (60, 1, 15, 3)),
    'cl_add_bias': ((2, 3, 4, 5), (60, 1, 15, 3)),
    'cl_add_chan': ((2, 3, 4, 5), (60, 1, 15, 3)),
    'nondense_add': ((3, 4), (1, 3)),
    'nondense_exp': ((3, 4), (1, 3)),
    'size1_add': ((2, 1, 3), (1, 2, 2)),
    'size1_exp': ((2, 1, 3), (1, 2, 2)),
    'size1_add_vec': ((2, 1, 3), (1, 2, 2)),
    'r1_exp': ((1, 3), (3, 1)),
    'r1_add': ((1, 3), (1, 1)),
    'r1_gt': ((1, 3), (1, 1)),
    'r1_rsub': ((1, 3), (1, 1)),
    'r1_pow2': ((1, 3), (3, 1)),
    'r1_clamp': ((1, 3), (3, 1)),
    'expand_row_add': ((2, 3), (3, 1)),
    'expand_col_exp': ((3, 4), (4, 1)),
    'int_t_add_float': ((3, 2), (1, 3)),
    'int_t_exp': ((3, 2), (1, 3)),
    't_gt_scalar': ((3, 2), (1, 3)),
    't_eq_contig': ((3, 2), (1, 3)),
    't_where_scalar': ((3, 2), (1, 3)),
    't_where_contig_cond': ((3, 2), (2, 1)),
    't_clamp': ((3, 2), (1, 3)),
    't_clamp_tensor': ((3, 2), (1, 3)),
    't_pow_scalar': ((3, 2), (1, 3)),
    'scalar_pow_t': ((3, 2), (2, 1)),
    't_pow_t': ((3, 2), (1, 3)),
    't_maximum': ((3, 2), (1, 3)),
    't_masked_fill': ((3, 2), (2, 1)),
    't_logical_not': ((3, 2), (1, 3)),
    't_div_scalar': ((3, 2), (1, 3)),
    't_float_to_double': ((3, 2), (1, 3)),
    'perm3_to_int': ((4, 2, 3), (1, 12, 4)),
    'nondense_double': ((3, 4), (1, 3)),
    'nondense_clone': ((3, 4), (1, 3)),
    'perm3_clone': ((4, 2, 3), (1, 12, 4)),
    'perm3_contiguous': ((4, 2, 3), (6, 3, 1)),
    'nondense_zeros_like': ((3, 4), (1, 3)),
    'perm3_sum1': ((4, 3), (3, 1)),
    'perm3_sum1_keepdim': ((4, 1, 3), (3, 3, 1)),
    'perm3_sum2_keepdim': ((4, 2, 1), (2, 1, 1)),
    'perm3_mean0': ((2, 3), (3, 1)),
    'perm3_amax1': ((4, 3), (3, 1)),
    'perm3_max1_values': ((4, 3), (3, 1)),
    'perm3_max1_indices': ((4, 3), (3, 1)),
    'perm3_argmax1': ((4, 3), (3, 1)),
    'perm3_softmax1': ((4, 2, 3), (6, 3, 1)),
    'perm3_log_softmax2': ((4, 2, 3), (6, 3, 1)),
    'mm_t_t': ((3, 4), (4, 1)),
    'empty_t_add': ((3, 0), (1, 3)),
    'empty_t_exp': ((3, 0), (1, 1)),
    'empty_col_add': ((0, 1), (1, 0)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_result_layout_matches_pytorch(name):
    r = PROGRAMS[name]()
    shape, strides = EXPECTED[name]
    assert tuple(r.shape) == shape
    assert tuple(r.stride()) == strides


def _np(x):
    return np.asarray(x.tolist())


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_permuted_results_hold_the_right_values(name):
    """The values are the same whatever the layout: flatten() reads them in index order."""
    r = PROGRAMS[name]()
    flat = r.reshape(-1)
    assert _np(flat).tolist() == _np(r).reshape(-1).tolist()
    assert _np(r.contiguous()).tolist() == _np(r).tolist()


def test_values_of_permuted_ops_against_numpy():
    rng = np.random.default_rng(0)
    base = rng.standard_normal((5, 3, 4)).astype(np.float32)
    a = nb.from_numpy(base.copy()).permute(1, 2, 0)            # strides (4, 1, 12)
    an = np.transpose(base, (1, 2, 0))
    b = nb.from_numpy(base[::-1].copy()).permute(1, 2, 0)
    bn = np.transpose(base[::-1], (1, 2, 0))
    np.testing.assert_allclose((a + b).numpy(), an + bn, rtol=1e-6)
    np.testing.assert_allclose((a * b[:, :1]).numpy(), an * bn[:, :1], rtol=1e-6)
    np.testing.assert_allclose(a.exp().numpy(), np.exp(an), rtol=1e-6)
    np.testing.assert_allclose(nb.where(a > 0, a, b).numpy(), np.where(an > 0, an, bn))
    np.testing.assert_allclose(a.clamp(-0.5, 0.5).numpy(), np.clip(an, -0.5, 0.5))
    np.testing.assert_allclose(a.double().numpy(), an.astype(np.float64))
    np.testing.assert_allclose((a + 1).reshape(-1).numpy(), (an + 1).reshape(-1), rtol=1e-6)
    assert (a + 1).stride() == (4, 1, 12)


def test_transposed_result_view_raises_as_pytorch():
    a = nb.ones(2, 3).t()
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
        (a + 1).view(6)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        nb.ones(2, 3, 4).permute(2, 0, 1).exp().view(-1)
    assert (nb.ones(3, 2) + a).view(-1).shape == (6,)       # the first operand decides


def test_data_ptr_offsets_follow_the_layout():
    y = nb.ones(2, 3).t().exp()
    assert (y[1].data_ptr() - y.data_ptr()) // 4 == 1       # PyTorch: 1 and 3
    assert (y[:, 1].data_ptr() - y.data_ptr()) // 4 == 3


def _leaf(make):
    return make().detach().requires_grad_()


def test_leaf_grad_has_the_leaf_layout():
    # recorded in PyTorch: AccumulateGrad's layout contract
    x = _leaf(lambda: nb.randn(3, 4).t())
    (x * 2).sum().backward()
    assert x.grad.stride() == (1, 4)
    x = _leaf(lambda: nb.randn(3, 4).t())
    x.exp().sum().backward()
    assert x.grad.stride() == (1, 4)
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.detach().numpy()), rtol=1e-6)
    x = _leaf(lambda: nb.randn(3, 4).t())
    x.sum().backward()
    assert x.grad.stride() == (1, 4)
    x = _leaf(lambda: nb.randn(3, 4))
    x.T.exp().sum().backward()
    assert x.grad.stride() == (4, 1)
    x = _leaf(lambda: nb.randn(4, 3)[:, :2])                # not dense: contiguous grad
    (x * 2).sum().backward()
    assert x.grad.stride() == (2, 1)
    x = _leaf(lambda: nb.randn(2, 3, 4).permute(2, 0, 1))
    (x * nb.ones(4, 2, 3)).backward(nb.ones(4, 2, 3))
    assert x.grad.stride() == (1, 12, 4)
    assert x.grad.tolist() == nb.ones(4, 2, 3).tolist()


def test_grad_accumulates_into_the_leaf_layout():
    x = _leaf(lambda: nb.randn(3, 4).t())
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.stride() == (1, 4)
    assert x.grad.tolist() == (nb.ones(4, 3) * 5).tolist()


def test_row_major_operands_keep_row_major_results():
    x = nb.ones(4, 4)
    for r in (x + x, x * 2.0, x + nb.ones(4), x.exp(), x > x, nb.where(x > 0, x, x)):
        assert r.stride() == (4, 1)


@pytest.mark.skipif(layout_of is None, reason="nbgrad's own geometry helpers")
def test_layout_of_rules():
    # same shapes, all dense with one stride tuple: those strides exactly
    assert layout_of((3, 2), [((3, 2), (1, 3))]) == ((1, 0), (1, 3))
    # different strides: the first operand decides
    assert layout_of((3, 2), [((3, 2), (2, 1)), ((3, 2), (1, 3))]) is None
    assert layout_of((3, 2), [((3, 2), (1, 3)), ((3, 2), (2, 1))]) == ((1, 0), (1, 3))
    # a Python number never decides but makes the shapes differ
    assert layout_of((1, 3), [((1, 3), (1, 1))]) is None
    assert layout_of((1, 3), [((1, 3), (1, 1)), None]) == ((1, 0), (1, 1))
    # channels-last
    assert layout_of((2, 3, 4, 5), [((2, 3, 4, 5), (60, 1, 15, 3))]) == ((0, 2, 3, 1), (60, 1, 15, 3))


@pytest.mark.skipif(layout_of is None, reason="nbgrad's own geometry helpers")
def test_preserve_strides_rules():
    assert preserve_strides((3, 2), (1, 3)) == (1, 3)          # dense: kept
    assert preserve_strides((3, 4), (2, 6)) == (1, 3)          # not dense: same order, dense
    assert preserve_strides((3, 4), (4, 1)) == (4, 1)
    assert preserve_strides((2, 3), (0, 1)) == (3, 1)          # broadcast: row-major


def test_losses_with_reduction_none_follow_the_elementwise_rule():
    F = nb.nn.functional
    x, y = nb.randn(2, 3).t(), nb.randn(3, 2)
    # recorded in PyTorch 2.13
    assert F.mse_loss(x, y, reduction="none").stride() == (1, 3)
    assert F.mse_loss(y, x, reduction="none").stride() == (2, 1)
    np.testing.assert_allclose(F.mse_loss(x, y, reduction="none").numpy(),
                               (x.numpy() - y.numpy()) ** 2, rtol=1e-6)
    assert F.l1_loss(x, y, reduction="none").stride() == (1, 3)
    p = nb.rand(2, 3).t()
    assert F.binary_cross_entropy_with_logits(x, nb.rand(3, 2), reduction="none").stride() == (2, 1)
    assert F.binary_cross_entropy_with_logits(nb.randn(3, 2), p, reduction="none").stride() == (1, 3)


def test_layer_norm_result_is_row_major():
    F = nb.nn.functional
    x = nb.randn(2, 3, 4).permute(2, 0, 1)
    out = F.layer_norm(x, (3,))
    assert out.stride() == (6, 3, 1)                        # PyTorch: (6, 3, 1)
    xn = x.numpy()
    ref = (xn - xn.mean(-1, keepdims=True)) / np.sqrt(xn.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)


def test_sort_keeps_the_input_layout():
    x = nb.randn(2, 3).t()
    v, i = x.sort(0)
    assert v.stride() == (1, 3) and i.stride() == (1, 3)    # PyTorch: (1, 3) (1, 3)
    assert x.sort(1)[0].stride() == (1, 3)
    assert x.argsort(0).stride() == (1, 3)
    assert x.topk(1, 0)[0].stride() == (2, 1)               # PyTorch: (2, 1)
    p = nb.randn(3, 4, 5).permute(2, 0, 1)
    pn = p.numpy()
    for d in range(3):
        v, i = p.sort(d)
        assert v.stride() == (1, 20, 5)
        np.testing.assert_array_equal(v.numpy(), np.sort(pn, axis=d))
        np.testing.assert_array_equal(i.numpy(), np.argsort(pn, axis=d, kind="stable"))


@pytest.mark.skipif(not hasattr(nb, "fuse"), reason="nbgrad.fuse is nbgrad's own")
def test_fused_function_lays_out_as_the_unfused_ops():
    @nb.fuse
    def f(x, w):
        return (x * w + 1).tanh() * x

    for make in (lambda: nb.randn(2, 3).t(), lambda: nb.randn(2, 3, 4).permute(2, 0, 1)):
        x = make().detach().requires_grad_()
        w = make().detach().requires_grad_()
        x2 = x.detach().requires_grad_()
        w2 = w.detach().requires_grad_()
        y = f(x, w)
        y2 = (x2 * w2 + 1).tanh() * x2
        assert y.stride() == y2.stride() == x.stride()      # PyTorch's unfused: x's strides
        g = nb.randn(*y.shape)
        y.backward(g)
        y2.backward(g)
        np.testing.assert_allclose(y.detach().numpy(), y2.detach().numpy(), rtol=1e-6)
        np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy(), rtol=1e-5, atol=1e-6)
        assert x.grad.stride() == x.stride()


# ---- backward formulas in PyTorch's operand order: the first operand that is not
# broadcast decides a gradient's layout (seen through autograd.grad), and PyTorch's
# masks decide special values.  Expected values and strides recorded in PyTorch 2.13
# with x = tensor([[0.3, 1.2, -0.2], [-0.7, 0.0, 0.9]]).t() (strides (1, 3)).
_X = [[0.3, 1.2, -0.2], [-0.7, 0.0, 0.9]]

GRAD_LAYOUTS = {
    # name: (function, strides of d sum(f(x)) / dx, of d f(x)/dx . ones)
    "rsqrt": (lambda x: x.abs().rsqrt(), (2, 1), (2, 1)),
    "acos": (lambda x: (x * 0.1).acos(), (1, 3), (2, 1)),
    "relu": (lambda x: x.relu(), (1, 3), (1, 3)),
    "erf": (lambda x: x.erf(), (1, 3), (1, 3)),
    "reciprocal": (lambda x: x.reciprocal(), (2, 1), (2, 1)),
    "pow2": (lambda x: x.pow(2), (1, 3), (2, 1)),
    "pow3": (lambda x: x.pow(3), (1, 3), (2, 1)),
    "square": (lambda x: x.square(), (1, 3), (2, 1)),
    "pow_tensor": (lambda x: x.abs().pow(x), (1, 3), (2, 1)),
    "maximum": (lambda x: nb.maximum(nb.zeros(3, 2), x), (2, 1), (2, 1)),
    "exp": (lambda x: x.exp(), (1, 3), (2, 1)),
    "tanh": (lambda x: x.tanh(), (1, 3), (2, 1)),
    # the activations: PyTorch's softplus_backward iterates over (grad, x), leaky_relu_backward
    # and threshold_backward over (x, grad)
    "softplus": (lambda x: nb.nn.functional.softplus(x, beta=0.5, threshold=1.0), (1, 3), (2, 1)),
    "softplus_default": (lambda x: nb.nn.functional.softplus(x), (1, 3), (2, 1)),
    "leaky_relu": (lambda x: nb.nn.functional.leaky_relu(x, 0.1), (1, 3), (1, 3)),
    "elu": (lambda x: nb.nn.functional.elu(x), (1, 3), (2, 1)),
    "gelu": (lambda x: nb.nn.functional.gelu(x), (1, 3), (2, 1)),
    "gelu_tanh": (lambda x: nb.nn.functional.gelu(x, approximate='tanh'), (1, 3), (2, 1)),
    "silu": (lambda x: nb.nn.functional.silu(x), (1, 3), (2, 1)),
    "mish": (lambda x: nb.nn.functional.mish(x), (1, 3), (2, 1)),
    "hardtanh": (lambda x: nb.nn.functional.hardtanh(x, -0.5, 0.5), (1, 3), (2, 1)),
    "sigmoid": (lambda x: x.sigmoid(), (1, 3), (2, 1)),
    "log1p": (lambda x: x.abs().log1p(), (1, 3), (2, 1)),
    "atan": (lambda x: x.atan(), (1, 3), (2, 1)),
    "sin": (lambda x: x.sin(), (1, 3), (2, 1)),
    "abs": (lambda x: x.abs(), (1, 3), (2, 1)),
    "clamp": (lambda x: x.clamp(-0.5, 0.5), (1, 3), (1, 3)),
    # recorded from PyTorch 2.13: threshold_backward and leaky_relu_backward (rrelu) iterate over
    # (x, grad), _prelu_kernel_backward over (x, weight, grad), log_sigmoid_backward writes into
    # empty_like(grad); the others' backward kernels over (grad, x)
    "hardswish": (lambda x: nb.nn.functional.hardswish(x), (1, 3), (2, 1)),
    "hardsigmoid": (lambda x: nb.nn.functional.hardsigmoid(x), (1, 3), (2, 1)),
    "selu": (lambda x: nb.nn.functional.selu(x), (1, 3), (2, 1)),
    "celu": (lambda x: nb.nn.functional.celu(x, 0.5), (1, 3), (2, 1)),
    "logsigmoid": (lambda x: nb.nn.functional.logsigmoid(x), (2, 1), (2, 1)),
    "softshrink": (lambda x: nb.nn.functional.softshrink(x, 0.5), (1, 3), (2, 1)),
    "hardshrink": (lambda x: nb.nn.functional.hardshrink(x, 0.5), (1, 3), (2, 1)),
    "threshold": (lambda x: nb.nn.functional.threshold(x, 0.5, 2.0), (1, 3), (1, 3)),
    "rrelu": (lambda x: nb.nn.functional.rrelu(x), (1, 3), (1, 3)),
    "prelu": (lambda x: nb.nn.functional.prelu(x, nb.tensor([0.25, 0.5])), (1, 3), (1, 3)),
}


@pytest.mark.parametrize("name", sorted(GRAD_LAYOUTS))
def test_gradient_layout_follows_pytorchs_backward_formula(name):
    f, by_sum, by_ones = GRAD_LAYOUTS[name]
    x = nb.tensor(_X).t().detach().requires_grad_()
    (g,) = nb.autograd.grad(f(x).sum(), x)
    assert g.stride() == by_sum
    x = nb.tensor(_X).t().detach().requires_grad_()
    y = f(x)
    (g,) = nb.autograd.grad(y, x, nb.ones(y.shape))
    assert g.stride() == by_ones


def _grad(f, values):
    x = nb.tensor(values, requires_grad=True)
    (g,) = nb.autograd.grad(f(x).sum(), x)
    return g.tolist()


def test_pow_tensor_exponent_zero_has_zero_derivative():
    # d/dx x**y at x = 0, y = 0: PyTorch masks exponent == 0 (0 * 0**-1 would be nan)
    assert _grad(lambda x: x.pow(x), [0.0, 1.0]) == [0.0, 1.0]
    g = _grad(lambda x: x.abs().pow(x), [0.0])
    assert g == [0.0]


def test_pow_scalar_base_zero_and_negative():
    assert _grad(lambda x: 0.0 ** x, [-1.0, 0.0, 2.0]) == [-np.inf, 0.0, 0.0]
    assert all(np.isnan(_grad(lambda x: (-2.0) ** x, [1.0, 2.0, 0.5])))
    np.testing.assert_allclose(_grad(lambda x: 2.0 ** x, [1.0, 2.0, 0.5]),
                               [1.3862943649291992, 2.7725887298583984, 0.9802581071853638], rtol=1e-6)


def test_maximum_minimum_nan_pass_the_whole_gradient():
    assert _grad(lambda x: nb.maximum(x, nb.ones(3)), [np.nan, 1.0, 2.0]) == [1.0, 0.5, 1.0]
    assert _grad(lambda x: nb.minimum(x, nb.ones(3)), [np.nan, 1.0, 0.0]) == [1.0, 0.5, 1.0]
    x = nb.tensor([0.5, 1.0], requires_grad=True)
    y = nb.tensor([1.0, 1.0], requires_grad=True)
    ga, gb = nb.autograd.grad(nb.maximum(x, y).sum(), (x, y))
    assert ga.tolist() == [0.0, 0.5] and gb.tolist() == [1.0, 0.5]


def test_zero_derivatives_are_zeros_not_grad_times_zero():
    # PyTorch: zeros_like(grad) -- an infinite incoming gradient still gives 0
    assert _grad(lambda x: x.sign() * np.inf, [1.0, -1.0, 0.0]) == [0.0, 0.0, 0.0]
    assert _grad(lambda x: x.floor() * np.inf, [1.5, -1.0]) == [0.0, 0.0]
    assert _grad(lambda x: x.pow(0) * np.inf, [1.0, 2.0, 3.0]) == [0.0, 0.0, 0.0]


def test_retained_grad_is_a_contiguous_clone():
    # PyTorch's retain_grad hook: grad.clone(contiguous_format)
    x = nb.randn(3, 2).t().detach().requires_grad_()
    y = x * 2
    y.retain_grad()
    y.exp().sum().backward()
    assert y.grad.stride() == (3, 1)
    assert y.grad.grad_fn is None
    np.testing.assert_allclose(y.grad.numpy(), np.exp(y.detach().numpy()), rtol=1e-6)


def test_create_graph_grads_are_recorded_copies_in_the_leaf_layout():
    # PyTorch 2.13: x.grad.grad_fn is CopyBackwards, the retained grad's CloneBackward0
    x = nb.randn(3, 2).t().detach().requires_grad_()
    y = x * 2
    y.retain_grad()
    y.exp().sum().backward(create_graph=True)
    assert y.grad.stride() == (3, 1) and type(y.grad.grad_fn).__name__ == "CloneBackward0"
    assert x.grad.stride() == (1, 2) and type(x.grad.grad_fn).__name__ == "CopyBackwards"
    fn, _ = x.grad.grad_fn.next_functions[1]
    assert x.grad.grad_fn.next_functions[0] == (None, 0) and type(fn).__name__ == "MulBackward0"
    # a gradient with no history is copied, not recorded
    x = nb.randn(3, 2).t().detach().requires_grad_()
    (x * 2).sum().backward(create_graph=True)
    first = x.grad
    assert first.grad_fn is None and not first.requires_grad and first.stride() == (1, 2)
    (x * x).sum().backward(create_graph=True)
    assert x.grad is not first and x.grad.stride() == (1, 2)          # x.grad + new: x.grad's layout
    assert type(x.grad.grad_fn).__name__ == "AddBackward0"
    # double backward still goes through the copy
    x = nb.randn(3, requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    (gg,) = nb.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 6 * x.detach().numpy(), rtol=1e-6)


def _cuda_or_skip():
    try:
        from nbgrad.backends import get_backend
        get_backend("cuda")
    except (RuntimeError, ImportError) as exc:
        pytest.skip(f"CUDA backend unusable: {exc}")


def test_to_device_preserves_the_layout():
    _cuda_or_skip()
    x = nb.randn(2, 3, 4).permute(2, 0, 1)                   # PyTorch: .to(device) keeps (1, 12, 4)
    xc = x.to("cuda")
    assert xc.stride() == (1, 12, 4)
    np.testing.assert_array_equal(xc.cpu().numpy(), x.numpy())
    assert xc.cpu().stride() == (1, 12, 4)
    z = x[:, :, ::2].cuda()                                  # not dense: dense in the same order
    assert z.stride() == (1, 8, 4)
    np.testing.assert_array_equal(z.cpu().numpy(), x[:, :, ::2].numpy())
    assert nb.ones(3).expand(2, 3).cuda().stride() == (3, 1)


def test_cuda_elementwise_results_follow_the_layout():
    _cuda_or_skip()
    x = nb.randn(2, 3, 4)
    xc = x.cuda().permute(2, 0, 1)
    xn = x.numpy().transpose(2, 0, 1)
    for r, ref in ((xc + 1, xn + 1), (xc.exp(), np.exp(xn)), (nb.where(xc > 0, xc, 0.0), np.where(xn > 0, xn, 0))):
        assert r.stride() == (1, 12, 4)
        np.testing.assert_allclose(r.cpu().numpy(), ref, rtol=1e-5, atol=1e-6)


def test_div_denominator_gradient_rounds_as_pytorch():
    # PyTorch: -grad * ((self / other) / other); -grad * self / (other * other) rounds
    # differently (0.9124146699905396 here)
    a = nb.tensor([-1.1258398294448853], requires_grad=True)
    b = nb.tensor([1.1108161211013794], requires_grad=True)
    (a / b).sum().backward()
    assert b.grad.tolist() == [0.9124146103858948]


@pytest.mark.skipif(layout_of is None, reason="nbgrad's own accumulation helper")
def test_accumulation_into_a_permuted_grad_is_in_place_and_exact():
    from nbgrad.ops.elementwise import accumulate_
    d = nb.randn(3, 4).t()                                   # dense, strides (1, 4)
    ptr, before = d.data_ptr(), d.numpy().copy()
    for src in (nb.randn(4, 3), nb.randn(3), nb.randn(3, 4).t()):
        accumulate_(d, src)
        np.testing.assert_allclose(d.numpy(), before + src.numpy(), rtol=1e-6)
        before = d.numpy().copy()
    assert d.data_ptr() == ptr and d.stride() == (1, 4)


@pytest.mark.parametrize("make", ["Adam", "AdamW", "SGD"])
def test_optimizer_state_takes_the_parameter_layout(make):
    # PyTorch: exp_avg/exp_avg_sq/momentum_buffer are zeros_like(p, preserve_format),
    # (1, 4) for a transposed (4, 3) parameter; the update is the contiguous one's
    opt_cls = getattr(nb.optim, make)
    kw = dict(momentum=0.9) if make == "SGD" else {}
    base = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    p = nb.tensor(base).t().detach().requires_grad_()
    q = nb.tensor(base.T.copy()).requires_grad_()
    o1, o2 = opt_cls([p], lr=0.1, **kw), opt_cls([q], lr=0.1, **kw)
    ptr = p.data_ptr()
    for _ in range(3):
        for par, opt in ((p, o1), (q, o2)):
            opt.zero_grad()
            ((par * par).sum() + par.sum()).backward()
            opt.step()
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6)
    assert p.stride() == (1, 4) and p.data_ptr() == ptr
    for name, buf in o1.state[p].items():
        if name != "step":
            assert buf.stride() == (1, 4), name


def test_tensor_and_random_like_copies_preserve_the_layout():
    # recorded in PyTorch 2.13
    x = nb.randn(2, 3).t()
    assert nb.rand_like(x).stride() == (1, 3)
    assert nb.randn_like(x).stride() == (1, 3)
    assert nb.randint_like(x, 5).stride() == (1, 3)
    assert nb.tensor(x).stride() == (1, 3)
    assert nb.tensor(nb.ones(4, 6).t()[::2]).stride() == (1, 3)
    a = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    t = nb.tensor(a)
    assert t.stride() == (1, 2) and t.tolist() == a.tolist()
    assert nb.tensor(a, dtype=nb.int64).stride() == (1, 2)
    b = np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1)[:, :, ::2]
    t = nb.tensor(b)
    assert t.stride() == (1, 8, 4) and t.tolist() == b.tolist()
    assert x.new_zeros(x.shape).stride() == (2, 1)          # new_*: contiguous


# ---- memory formats: recorded in PyTorch 2.13
def test_channels_last_memory_format():
    c = nb.ones(2, 3, 4, 5)
    cl = c.contiguous(memory_format=nb.channels_last)
    assert cl.stride() == (60, 1, 15, 3)
    assert not cl.is_contiguous() and cl.is_contiguous(memory_format=nb.channels_last)
    assert not c.is_contiguous(memory_format=nb.channels_last)
    assert cl.contiguous().stride() == (60, 20, 5, 1)
    assert cl.contiguous(memory_format=nb.channels_last) is cl
    assert c.clone(memory_format=nb.channels_last).stride() == (60, 1, 15, 3)
    assert cl.clone(memory_format=nb.contiguous_format).stride() == (60, 20, 5, 1)
    assert nb.empty(2, 3, 4, 5, memory_format=nb.channels_last).stride() == (60, 1, 15, 3)
    assert nb.empty_like(c, memory_format=nb.channels_last).stride() == (60, 1, 15, 3)
    assert nb.zeros_like(cl, memory_format=nb.contiguous_format).stride() == (60, 20, 5, 1)
    assert nb.ones_like(cl).stride() == (60, 1, 15, 3)
    assert (cl + 1).stride() == (60, 1, 15, 3)
    assert c[:, :, ::2].contiguous(memory_format=nb.channels_last).stride() == (30, 1, 15, 3)
    assert nb.ones(2, 1, 1, 1).contiguous(memory_format=nb.channels_last).stride() == (1, 1, 1, 1)
    assert not nb.empty(0, 3, 4, 5).is_contiguous(memory_format=nb.channels_last)
    x = nb.ones(2, 3, 4, 5, 6).contiguous(memory_format=nb.channels_last_3d)
    assert x.stride() == (360, 1, 90, 18, 3) and x.is_contiguous(memory_format=nb.channels_last_3d)
    assert repr(nb.channels_last).endswith(".channels_last")


def test_memory_format_to_and_errors():
    c = nb.ones(2, 3, 4, 5)
    cl = c.to(memory_format=nb.channels_last)
    assert cl.stride() == (60, 1, 15, 3)
    assert cl.to(memory_format=nb.channels_last) is cl
    assert cl.to(memory_format=nb.contiguous_format).stride() == (60, 20, 5, 1)
    assert c.to(nb.float64, memory_format=nb.channels_last).stride() == (60, 1, 15, 3)
    t = nb.ones(2, 3).t()
    assert t.to(memory_format=nb.contiguous_format) is t      # PyTorch's to_will_alias
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        nb.ones(2, 3).contiguous(memory_format=nb.channels_last)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        nb.empty(2, 3, memory_format=nb.channels_last)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        nb.ones(2, 3).to(memory_format=nb.channels_last)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        nb.empty(2, 3, memory_format=nb.preserve_format)
    x = c.clone().requires_grad_()
    y = x.to(memory_format=nb.channels_last)
    assert type(y.grad_fn).__name__ == "ToCopyBackward0"
    y.relu().sum().backward()
    assert x.grad.stride() == (60, 20, 5, 1) and x.grad.tolist() == c.tolist()


def test_clamp_tensor_bounds_gradient_when_min_exceeds_max():
    # PyTorch's clamp_backward_min_max: where min > max the result is max: min gets no
    # gradient there and max all of it (recorded in PyTorch 2.13)
    x = nb.tensor([-1.0, 0.5, 2.0, 0.3, -1.0], requires_grad=True)
    lo = nb.tensor([0.0, 1.0, 0.0, 0.3, 1.0], requires_grad=True)
    hi = nb.tensor([1.0, 0.0, 1.0, 0.3, 0.0], requires_grad=True)
    gx, glo, ghi = nb.autograd.grad(x.clamp(lo, hi).sum(), (x, lo, hi))
    assert gx.tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]
    assert glo.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert ghi.tolist() == [0.0, 1.0, 1.0, 0.0, 1.0]


def test_clamp_and_maximum_gradient_layouts_with_size_one_dims():
    # the masks are combined in place (logical_and_, masked_fill_) as in PyTorch, so the
    # strides of size-1 dims match too
    a = nb.tensor([[0.05, 0.3]]).t().detach().requires_grad_()          # (2, 1) strides (1, 2)
    (g,) = nb.autograd.grad(a.clamp(-0.1, 0.1), a, nb.ones(2, 1))
    assert g.stride() == (1, 2)
    a = nb.tensor([[0.05, 0.3, 0.2]]).reshape(3, 1, 1).permute(1, 0, 2).detach().requires_grad_()
    (g,) = nb.autograd.grad(nb.maximum(a, nb.zeros(1, 3, 1)), a, nb.ones(1, 3, 1))
    assert g.stride() == (3, 1, 1)


def test_var_gradient_with_no_degrees_of_freedom_is_nan_not_an_error():
    # PyTorch: (2.0 / (n - correction)) * grad * (x - mean), in double: 2 / 0 = inf
    a = nb.ones(3, 1).requires_grad_()
    a.var(1).sum().backward()
    assert all(np.isnan(a.grad.flatten().tolist()))
    a = nb.tensor([[1.0, 2.0]]).requires_grad_()
    a.var(1, correction=2).sum().backward()
    assert a.grad.tolist() == [[-np.inf, np.inf]]


# ---- advanced indexing: PyTorch's index kernel is a TensorIterator over the restrided
# source (0 strides at the indexed dims) and the reshaped index tensors (recorded in 2.13)
_P = lambda: nb.arange(24.).reshape(2, 3, 4).permute(2, 0, 1)      # (4,2,3) strides (1,12,4)
_i = lambda: nb.tensor([0, 1])
INDEX_PROGRAMS = {
 "perm_first": lambda: _P()[_i()],
 "perm_mid": lambda: _P()[:, _i()],
 "perm_last": lambda: _P()[:, :, _i()],
 "perm_two_adjacent": lambda: _P()[_i(), _i()],
 "perm_non_adjacent": lambda: _P()[_i(), :, _i()],
 "perm_2d_index": lambda: _P()[nb.tensor([[0, 1], [1, 0]])],
 "perm_2d_index_t": lambda: _P()[:, nb.tensor([[0, 1], [1, 0]]).t()],
 "t_first": lambda: nb.ones(2, 3).t()[nb.tensor([0, 2])],
 "vec_by_row_index": lambda: nb.arange(3.)[nb.tensor([[0], [1]]).t()],
 "mask": lambda: _P()[_P() > 5],
 "contig": lambda: nb.arange(24.).reshape(2, 3, 4)[:, _i()],
}
INDEX_CASES = {
    'perm_first': ((2, 2, 3), (6, 3, 1)),
    'perm_mid': ((4, 2, 3), (1, 4, 8)),
    'perm_last': ((4, 2, 2), (2, 8, 1)),
    'perm_two_adjacent': ((2, 3), (3, 1)),
    'perm_non_adjacent': ((2, 2), (2, 1)),
    'perm_2d_index': ((2, 2, 2, 3), (12, 6, 3, 1)),
    'perm_2d_index_t': ((4, 2, 2, 3), (1, 4, 8, 16)),
    't_first': ((2, 2), (2, 1)),
    'vec_by_row_index': ((1, 2), (2, 1)),
    'mask': ((18,), (1,)),
    'contig': ((2, 2, 4), (8, 4, 1)),
}


@pytest.mark.parametrize("name", sorted(INDEX_PROGRAMS))
def test_index_result_layout_matches_pytorch(name):
    r = INDEX_PROGRAMS[name]()
    assert (tuple(r.shape), tuple(r.stride())) == INDEX_CASES[name]


def test_index_values_and_gradient_with_a_permuted_result():
    base = np.arange(24.0).reshape(2, 3, 4)
    xn = base.transpose(2, 0, 1)
    x = nb.tensor(base).permute(2, 0, 1).detach().requires_grad_()
    idx = nb.tensor([[0, 1], [1, 0]])
    y = x[:, idx]
    assert y.tolist() == xn[:, [[0, 1], [1, 0]]].tolist()
    (g,) = nb.autograd.grad(y, x, nb.ones(y.shape))
    expected = np.zeros_like(xn)
    np.add.at(expected, (slice(None), np.array([[0, 1], [1, 0]])), 1.0)
    assert g.tolist() == expected.tolist()


def test_descending_sort_and_topk_keep_ties_in_order():
    # recorded in PyTorch 2.13 (CPU): ties keep their original order, NaN first
    x = nb.tensor([np.nan, 1.0, 3.0, np.nan, 3.0, -1.0])
    assert x.sort(descending=True)[1].tolist() == [0, 3, 2, 4, 1, 5]
    assert x.sort()[1].tolist() == [5, 1, 2, 4, 0, 3]
    assert nb.tensor([1.0, 3.0, 3.0, 2.0]).topk(2)[1].tolist() == [1, 2]
    x = nb.tensor([[1.0], [2.0], [3.0]]).expand(3, 3).detach().requires_grad_()
    v, i = x.topk(1, 1)
    assert i.flatten().tolist() == [0, 0, 0]
    (g,) = nb.autograd.grad(v, x, nb.ones(v.shape))
    assert g.tolist() == [[1.0, 0.0, 0.0]] * 3


def test_cat_of_channels_last_inputs_is_channels_last():
    # PyTorch's compute_output_memory_format (recorded in 2.13)
    cl = nb.randn(2, 3, 4, 5).contiguous(memory_format=nb.channels_last)
    c = nb.ones(2, 3, 4, 5)
    assert nb.cat([cl, cl]).stride() == (60, 1, 15, 3)
    assert nb.cat([cl, cl], 1).stride() == (120, 1, 30, 6)
    assert nb.cat([cl, c]).stride() == (60, 20, 5, 1)
    assert nb.cat([c, cl]).stride() == (60, 20, 5, 1)
    t = nb.ones(2, 3).t()
    assert nb.cat([t, t]).stride() == (2, 1) and nb.cat([t, t], 1).stride() == (4, 1)
    r = nb.cat([cl, cl * 2], 1)
    np.testing.assert_array_equal(r.numpy(), np.concatenate([cl.numpy(), cl.numpy() * 2], 1))


@pytest.mark.parametrize("a_t", [False, True])
@pytest.mark.parametrize("b_t", [False, True])
def test_mm_and_linear_gradients_keep_column_major_inputs(a_t, b_t):
    # PyTorch's mm_mat1_backward/mm_mat2_backward: a column-major input gets a
    # column-major gradient (recorded in 2.13)
    rng = np.random.default_rng(0)
    an, bn = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4, 5)).astype(np.float32)
    a = (nb.tensor(an.T.copy()).t() if a_t else nb.tensor(an)).detach().requires_grad_()
    b = (nb.tensor(bn.T.copy()).t() if b_t else nb.tensor(bn)).detach().requires_grad_()
    ga, gb = nb.autograd.grad(a.mm(b), (a, b), nb.ones(3, 5))
    assert ga.stride() == ((1, 3) if a_t else (4, 1)) and gb.stride() == ((1, 4) if b_t else (5, 1))
    np.testing.assert_allclose(ga.numpy(), np.ones((3, 5)) @ bn.T, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gb.numpy(), an.T @ np.ones((3, 5)), rtol=1e-5, atol=1e-5)
    wn = rng.standard_normal((5, 4)).astype(np.float32)
    x = a
    w = (nb.tensor(wn.T.copy()).t() if b_t else nb.tensor(wn)).detach().requires_grad_()
    bias = nb.zeros(5, requires_grad=True)
    gx, gw, gbias = nb.autograd.grad(nb.nn.functional.linear(x, w, bias), (x, w, bias), nb.ones(3, 5))
    assert gx.stride() == ((1, 3) if a_t else (4, 1)) and gw.stride() == ((1, 5) if b_t else (4, 1))
    np.testing.assert_allclose(gx.numpy(), np.ones((3, 5)) @ wn, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gw.numpy(), np.ones((3, 5)).T @ an, rtol=1e-5, atol=1e-5)
    assert gbias.tolist() == [3.0] * 5
