"""ATen ops PyTorch keeps at the top level (torch.convolution, conv_tbc, the rnn cells,
frobenius_norm/nuclear_norm, native_channel_shuffle, max_pool1d_with_indices, nonzero_static)
and the deprecated torch.range, as PyTorch 2.13 gives them: values against NumPy, gradients
against finite differences, node names and messages recorded from it."""
import warnings

import numpy as np
import pytest

import nbgrad as T
from nbgrad.autograd.gradcheck import gradcheck


def _r(*shape, seed=0):
    return T.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)


def test_conv_tbc_is_a_time_batch_channel_convolution():
    x, w, b = _r(5, 2, 3), _r(3, 3, 4, seed=1), _r(4, seed=2)
    out = T.conv_tbc(x, w, b, 1)
    assert tuple(out.shape) == (5, 2, 4) and out.grad_fn.name() == "ConvTbcBackward0"
    xp = np.pad(x.detach().numpy(), ((1, 1), (0, 0), (0, 0)))
    want = b.detach().numpy() + sum(np.einsum("tbc,co->tbo", xp[k:k + 5], w.detach().numpy()[k]) for k in range(3))
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12)
    assert gradcheck(lambda x, w, b: T.conv_tbc(x, w, b, 1), (x, w, b))
    assert tuple(T.conv_tbc(x, w, b, -1).shape) == (1, 2, 4)
    for args, message in (((x[0], w, b), "Input must have 3 dims: time, batch, in_channel"),
                          ((x, w[0], b), "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."),
                          ((x, w, b[None]), "Bias must be 1-D"),
                          ((x, w[:, :2], b), r"Input dim 2 \(input channels\) is not == dim 1 in the weight tensor"),
                          ((x, w, b[:3]), r"Bias size must equal dim 2 in the weight tensor \(output channels\)."),
                          ((x, _r(9, 3, 4), b), r"Trying to create tensor with negative dimension -3: \[-3, 2, 4\]")):
        with pytest.raises(RuntimeError, match="^" + message):
            T.conv_tbc(*args)


def test_convolution_picks_the_conv_of_the_weights_rank():
    x, w, b = _r(2, 4, 5, 5), _r(4, 2, 3, 3, seed=1), _r(4, seed=2)
    out = T.convolution(x, w, b, [1, 1], [1, 0], [1, 1], False, [0, 0], 2)
    np.testing.assert_array_equal(out.detach().numpy(),
                                  T.nn.functional.conv2d(x, w, b, 1, (1, 0), 1, 2).detach().numpy())
    assert out.grad_fn.name() == "ConvolutionBackward0"
    x1, w1 = _r(2, 4, 6), _r(4, 3, 3, seed=3)
    out = T.convolution(x1, w1, None, [2], [1], [1], True, [1], 1)
    assert tuple(out.shape) == (2, 3, 12)
    np.testing.assert_array_equal(out.detach().numpy(), T.nn.functional.conv_transpose1d(
        x1, w1, None, 2, 1, 1, 1, 1).detach().numpy())
    with pytest.raises(RuntimeError, match="^weight should have at least three dimensions$"):
        T.convolution(x1, w1[0], None, [1], [0], [1], False, [0], 1)


def test_the_rnn_cells_are_one_step_of_nns_cells():
    x, h, c = _r(3, 4), _r(3, 5, seed=1), _r(3, 5, seed=2)
    cell = T.nn.LSTMCell(4, 5).double()
    hy, cy = T.lstm_cell(x, (h, c), cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    want = cell(x, (h, c))
    np.testing.assert_array_equal(hy.detach().numpy(), want[0].detach().numpy())
    np.testing.assert_array_equal(cy.detach().numpy(), want[1].detach().numpy())
    assert (hy.grad_fn.name(), cy.grad_fn.name()) == ("MulBackward0", "AddBackward0")
    gru = T.nn.GRUCell(4, 5).double()
    np.testing.assert_array_equal(T.gru_cell(x, h, gru.weight_ih, gru.weight_hh, gru.bias_ih, gru.bias_hh)
                                  .detach().numpy(), gru(x, h).detach().numpy())
    rnn = T.nn.RNNCell(4, 5, nonlinearity="relu").double()
    out = T.rnn_relu_cell(x, h, rnn.weight_ih, rnn.weight_hh, rnn.bias_ih, rnn.bias_hh)
    assert out.grad_fn.name() == "ReluBackward0"
    np.testing.assert_array_equal(out.detach().numpy(), rnn(x, h).detach().numpy())
    assert T.rnn_tanh_cell(x, h, rnn.weight_ih, rnn.weight_hh).grad_fn.name() == "TanhBackward0"
    assert gradcheck(lambda x, h: T.gru_cell(x, h, gru.weight_ih, gru.weight_hh), (x, h))


@pytest.mark.parametrize("call, message", [
    (lambda x, h: T.rnn_tanh_cell(x, h, T.ones(5, 3), T.ones(5, 5)),
     "input has inconsistent input_size: got 4 expected 3"),
    (lambda x, h: T.rnn_tanh_cell(x, h[:2], T.ones(5, 4), T.ones(5, 5)),
     "Input batch size 3 doesn't match hidden0 batch size 2"),
    (lambda x, h: T.rnn_tanh_cell(x, h, T.ones(5, 4), T.ones(5, 6)),
     r"weight_ih first dim must be 1 \* hidden_size = 6, but got 5"),
    (lambda x, h: T.lstm_cell(x, (h,), T.ones(20, 4), T.ones(20, 5)), "lstm_cell expects two hidden states"),
    (lambda x, h: T.lstm_cell(x, (h, h), T.ones(20, 4), T.ones(19, 5)),
     r"weight_hh first dim must be 4 \* hidden_size = 20, but got 19"),
    # (gru_cell checks its hidden state before its weights)
    (lambda x, h: T.gru_cell(x, h, T.ones(14, 4), T.ones(15, 6)), "hidden0 has inconsistent hidden_size: got 5, "
                                                                 "expected 6"),
    (lambda x, h: T.gru_cell(x, h, T.ones(15, 4), T.ones(14, 5)),
     r"weight_hh first dim must be 3 \* hidden_size = 15, but got 14"),
])
def test_the_cells_check_in_atens_order(call, message):
    with pytest.raises(RuntimeError, match="^" + message + "$"):
        call(T.ones(3, 4), T.ones(3, 5))


def test_frobenius_and_nuclear_norms():
    x = _r(2, 3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = T.frobenius_norm(x, (1, 2))
        n = T.nuclear_norm(x, (0, 2), True)
        with pytest.raises(RuntimeError, match="^Expected at most 2 dimensions, but got 3 dimensions instead.$"):
            T.frobenius_norm(x, (0, 1, 2))
        with pytest.raises(RuntimeError, match="^linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2$"):
            T.nuclear_norm(x, (0, 1, 2))
        np.testing.assert_allclose(T.nuclear_norm(x[0]).item(),
                                   np.linalg.svd(x[0].detach().numpy(), compute_uv=False).sum(), rtol=1e-12)
    np.testing.assert_allclose(f.detach().numpy(), np.sqrt((x.detach().numpy() ** 2).sum((1, 2))), rtol=1e-12)
    assert f.grad_fn.name() == "NormBackward1" and tuple(n.shape) == (1, 3, 1)
    # matrix_norm's keepdim is ATen's: a last dim added, then the permutation undone
    assert [n.grad_fn.name(), n.grad_fn.next_functions[0][0].name()] == ["PermuteBackward0", "UnsqueezeBackward0"]
    sv = np.linalg.svd(x.detach().numpy().transpose(1, 0, 2), compute_uv=False).sum(-1)
    np.testing.assert_allclose(n.detach().numpy().reshape(-1), sv, rtol=1e-12)


def test_native_channel_shuffle_has_no_derivative():
    x = T.arange(12.).view(1, 4, 3).requires_grad_()
    out = T.native_channel_shuffle(x, 2)
    assert out.tolist() == T.channel_shuffle(x, 2).tolist() and out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::native_channel_shuffle is not implemented$"):
        out.sum().backward()
    with pytest.raises(RuntimeError, match="^Number of channels must be divisible by groups. Got 4 channels and 3 "
                                           "groups.$"):
        T.native_channel_shuffle(x, 3)


def test_max_pool1d_with_indices():
    x = T.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0]]], requires_grad=True)
    out, idx = T.max_pool1d_with_indices(x, 2)
    assert out.tolist() == [[[3.0, 5.0]]] and idx.tolist() == [[[1, 3]]] and out.grad_fn.name() == "SqueezeBackward1"
    out, idx = T.max_pool1d_with_indices(x, 2, 2, 1, 1, True)
    assert out.tolist() == [[[1.0, 3.0, 5.0]]] and idx.tolist() == [[[0, 1, 3]]]


def test_nonzero_static_pads_or_cuts():
    x = T.tensor([[0, 1], [2, 0]])
    assert T.nonzero_static(x, size=3, fill_value=9).tolist() == [[0, 1], [1, 0], [9, 9]]
    assert T.nonzero_static(x, size=1).tolist() == [[0, 1]] and x.nonzero_static(size=0).shape == (0, 2)
    assert T.nonzero_static(T.tensor(3), size=2).shape == (2, 0)
    with pytest.raises(RuntimeError, match="^nonzero_static: 'size' must be an non-negative integer$"):
        T.nonzero_static(x, size=-1)
    with pytest.raises(RuntimeError, match="^nonzero_static: Expected out tensor to have scalar type Long but got "
                                           "scalar typeDouble$"):
        T.nonzero_static(x, size=2, out=T.empty(0, dtype=T.float64))


def test_range_includes_its_end_and_warns():
    with pytest.warns(UserWarning, match="^torch.range is deprecated and will be removed in a future release"):
        r = T.range(1, 4)
    assert r.dtype == T.float32 and r.tolist() == [1.0, 2.0, 3.0, 4.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # computed in double, rounded once into float32 (PyTorch's values, bit for bit)
        assert T.range(0, 1, 0.1).tolist() == [0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896,
                                               0.4000000059604645, 0.5, 0.6000000238418579, 0.699999988079071,
                                               0.800000011920929, 0.8999999761581421, 1.0]
        assert T.range(0.5, 3.7, dtype=T.int64).tolist() == [0, 1, 2, 3]       # (bounds truncated first)
        assert T.range(0, 3, 1.5, dtype=T.int64).tolist() == [0, 1, 2, 3]
        assert T.range(-1.5, 2.25, 0.75, dtype=T.float16).tolist() == [-1.5, -0.75, 0.0, 0.75, 1.5, 2.25]
        assert T.range(1, 4, requires_grad=True).requires_grad
        for args, kwargs, error, message in (
                ((1, 4, 0), {}, RuntimeError, "step must be nonzero"),
                ((0, 2, 0.5), {"dtype": T.int32}, RuntimeError, "step must be nonzero"),   # (PyTorch: SIGFPE)
                ((4, 1), {}, RuntimeError, "upper bound and lower bound inconsistent with step sign"),
                ((1, float("inf")), {}, RuntimeError, "unsupported range: 1 -> inf"),
                ((0, 3), {"dtype": T.bool}, NotImplementedError, "\"range_cpu\" not implemented for 'Bool'"),
                ((1, 4), {"dtype": T.int32, "requires_grad": True}, RuntimeError,
                 "Only Tensors of floating point and complex dtype can require gradients")):
            with pytest.raises(error, match="^" + message.replace("(", r"\(") + "$"):
                T.range(*args, **kwargs)
        with pytest.raises(TypeError, match=r'^range\(\) missing 1 required positional arguments: "end"$'):
            T.range(5)


def test_a_cell_reads_a_zero_dim_input_as_atens_size():
    with pytest.raises(IndexError, match="^Dimension specified as 1 but tensor has no dimensions$"):
        T.rnn_tanh_cell(T.tensor(1.0), T.zeros(3, 5), T.zeros(5, 4), T.zeros(5, 5))
