"""nn.RNN / LSTM / GRU and their cells against a NumPy forward written from PyTorch's documented
equations (gate order, GRU's reset inside the new gate, LSTM projections), gradients by finite
differences in float64, PyTorch's parameter names, shapes, init, repr, errors and node names;
a CUDA smoke test."""
import math
import warnings

import numpy as np
import pytest

import nbgrad

from ._cuda import requires_cuda

nn = nbgrad.nn
gradcheck = nbgrad.autograd.gradcheck


def sig(x):
    return 1 / (1 + np.exp(-x))


def np_cell(mode, x, h, c, P, sfx):
    """One step from the documented equations; P maps parameter names to arrays."""
    w_ih, w_hh = P["weight_ih" + sfx], P["weight_hh" + sfx]
    b_ih, b_hh = P.get("bias_ih" + sfx, 0.0), P.get("bias_hh" + sfx, 0.0)
    gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
    if mode in ("RNN_TANH", "RNN_RELU"):
        pre = gi + gh
        return (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)), None
    if mode == "GRU":
        H = h.shape[-1]
        r = sig(gi[:, :H] + gh[:, :H])
        z = sig(gi[:, H:2 * H] + gh[:, H:2 * H])
        n = np.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
        return (1 - z) * n + z * h, None
    H = c.shape[-1]
    g = gi + gh
    i, f, gg, o = sig(g[:, :H]), sig(g[:, H:2 * H]), np.tanh(g[:, 2 * H:3 * H]), sig(g[:, 3 * H:])
    c = f * c + i * gg
    h = o * np.tanh(c)
    if "weight_hr" + sfx in P:
        h = h @ P["weight_hr" + sfx].T
    return h, c


def np_rnn(m, x, h0=None, c0=None):
    """The whole module for (L, N, H_in) input: layers, directions, outputs, final states."""
    P = {n: p.detach().numpy() for n, p in m.named_parameters()}
    D = 2 if m.bidirectional else 1
    H = m.proj_size or m.hidden_size
    Lyr, N = m.num_layers, x.shape[1]
    h0 = np.zeros((Lyr * D, N, H)) if h0 is None else h0
    c0 = np.zeros((Lyr * D, N, m.hidden_size)) if c0 is None else c0
    hn, cn = [], []
    for layer in range(Lyr):
        outs = []
        for d in range(D):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            h, c = h0[layer * D + d], c0[layer * D + d]
            seq = [None] * x.shape[0]
            for t in (range(x.shape[0] - 1, -1, -1) if d else range(x.shape[0])):
                h, c = np_cell(m.mode, x[t], h, c, P, sfx)
                seq[t] = h
            outs.append(np.stack(seq))
            hn.append(h)
            cn.append(c)
        x = np.concatenate(outs, -1)
    return x, np.stack(hn), (np.stack(cn) if m.mode == "LSTM" else None)


CASES = [
    (nn.RNN, dict()),
    (nn.RNN, dict(nonlinearity="relu", num_layers=2, bidirectional=True)),
    (nn.LSTM, dict()),
    (nn.LSTM, dict(num_layers=2, bidirectional=True, bias=False)),
    (nn.LSTM, dict(proj_size=2)),
    (nn.GRU, dict()),
    (nn.GRU, dict(num_layers=2, bidirectional=True)),
]
IDS = [f"{c.__name__}-{kw}" for c, kw in CASES]


def _make(cls, kw):
    nbgrad.manual_seed(0)
    return cls(3, 4, **kw).double()


@pytest.mark.parametrize("cls, kw", CASES, ids=IDS)
def test_forward_against_numpy(cls, kw):
    m = _make(cls, kw)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 2, 3))
    out, hn = m(nbgrad.tensor(x))
    ref_out, ref_h, ref_c = np_rnn(m, x)
    if cls is nn.LSTM:
        hn, cn = hn
        np.testing.assert_allclose(cn.detach().numpy(), ref_c, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out.detach().numpy(), ref_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hn.detach().numpy(), ref_h, rtol=1e-12, atol=1e-14)
    D = 2 if kw.get("bidirectional") else 1
    H = kw.get("proj_size") or 4
    assert out.shape == (5, 2, D * H) and hn.shape == (D * kw.get("num_layers", 1), 2, H)
    # PyTorch's nodes: the outputs stacked over time (concatenated over directions), states stacked
    assert type(out.grad_fn).__name__ == ("CatBackward0" if D == 2 else "StackBackward0")
    assert type(hn.grad_fn).__name__ == "StackBackward0"

    # given initial states, batch_first and unbatched input agree with the same reference
    h0 = rng.standard_normal(tuple(hn.shape))
    c0 = rng.standard_normal((hn.shape[0], 2, 4))
    hx = (nbgrad.tensor(h0), nbgrad.tensor(c0)) if cls is nn.LSTM else nbgrad.tensor(h0)
    ref_out, ref_h, _ = np_rnn(m, x, h0, c0)
    np.testing.assert_allclose(m(nbgrad.tensor(x), hx)[0].detach().numpy(), ref_out, rtol=1e-12, atol=1e-14)
    single_hx = (hx[0][:, 1], hx[1][:, 1]) if cls is nn.LSTM else hx[:, 1]
    single = m(nbgrad.tensor(x[:, 1]), single_hx)
    np.testing.assert_allclose(single[0].detach().numpy(), ref_out[:, 1], rtol=1e-12, atol=1e-14)
    m.batch_first = True
    bf = m(nbgrad.tensor(x.transpose(1, 0, 2)), hx)
    np.testing.assert_allclose(bf[0].detach().numpy(), ref_out.transpose(1, 0, 2), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("cls, kw", CASES, ids=IDS)
def test_gradients(cls, kw):
    nbgrad.manual_seed(0)
    m = cls(2, 3, **{k: (1 if k == "proj_size" else v) for k, v in kw.items()}).double()
    rng = np.random.default_rng(2)
    x = nbgrad.tensor(rng.standard_normal((3, 2, 2)), requires_grad=True)
    D = 2 if kw.get("bidirectional") else 1
    H = 1 if kw.get("proj_size") else 3
    h0 = nbgrad.tensor(rng.standard_normal((D * kw.get("num_layers", 1), 2, H)), requires_grad=True)
    if cls is nn.LSTM:
        c0 = nbgrad.tensor(rng.standard_normal((D * kw.get("num_layers", 1), 2, 3)), requires_grad=True)
        f = lambda a, b, c: (lambda o: (o[0], o[1][0], o[1][1]))(m(a, (b, c)))    # noqa: E731
        assert gradcheck(f, (x, h0, c0))
    else:
        assert gradcheck(lambda a, b: m(a, b), (x, h0))
    # a parameter's gradient too (weight_hh of the last layer, through every step)
    name = [n for n, _ in m.named_parameters() if n.startswith("weight_hh")][-1]
    w = getattr(m, name)

    def through_weight(wv):
        saved = m._parameters[name]
        m._parameters[name] = wv
        try:
            return m(x.detach())[0]
        finally:
            m._parameters[name] = saved
    assert gradcheck(through_weight, (w.detach().clone().requires_grad_(),))


def test_parameter_names_shapes_init_and_repr():
    m = nn.LSTM(3, 5, num_layers=2, bidirectional=True)
    names = [n for n, _ in m.named_parameters()]
    assert names == [f"{k}_l{layer}{s}" for layer in (0, 1) for s in ("", "_reverse")
                     for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    assert m.weight_ih_l0.shape == (20, 3) and m.weight_ih_l1.shape == (20, 10)
    assert m.weight_hh_l1_reverse.shape == (20, 5)
    assert m._flat_weights_names == names and len(m.all_weights) == 4 and m.all_weights[1][0] is m.weight_ih_l0_reverse
    bound = 1 / math.sqrt(5)
    for p in m.parameters():
        v = p.detach().numpy()
        assert np.abs(v).max() <= bound
    assert max(np.abs(p.detach().numpy()).max() for p in m.parameters()) > 0.9 * bound
    assert [n for n, _ in nn.LSTM(3, 4, proj_size=2).named_parameters()] == \
        ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0"]
    assert nn.LSTM(3, 4, proj_size=2).weight_hh_l0.shape == (16, 2)
    assert nn.GRU(3, 4).weight_ih_l0.shape == (12, 3) and not hasattr(nn.RNN(3, 4, bias=False), "bias_ih_l0")
    assert repr(nn.RNN(3, 4)) == "RNN(3, 4)"
    assert repr(nn.LSTM(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.5, bidirectional=True)) == \
        "LSTM(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.5, bidirectional=True)"
    assert repr(nn.LSTM(3, 4, proj_size=2)) == "LSTM(3, 4, proj_size=2)"
    assert repr(nn.GRUCell(3, 4)) == "GRUCell(3, 4)"
    assert repr(nn.RNNCell(3, 4, bias=False, nonlinearity="relu")) == "RNNCell(3, 4, bias=False, nonlinearity=relu)"


def test_dropout_between_layers_only_in_training():
    nbgrad.manual_seed(0)
    m = nn.GRU(3, 4, num_layers=2, dropout=0.5).double()
    x = nbgrad.tensor(np.random.default_rng(3).standard_normal((4, 2, 3)))
    m.eval()
    a = m(x)[0].detach().numpy()
    np.testing.assert_allclose(a, np_rnn(m, x.numpy())[0], rtol=1e-12)
    m.train()
    b = m(x)[0].detach().numpy()
    assert not np.allclose(a, b)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        nn.LSTM(3, 4, dropout=0.2)
    assert "non-zero dropout expects num_layers greater than 1" in str(w[0].message)


def test_errors():
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sig'. Select from 'tanh' or 'relu'."):
        nn.RNN(3, 4, nonlinearity="sig")
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.GRU(3, 4, dropout=1.5)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        nn.GRU(3, 0)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    m = nn.GRU(3, 4)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 2"):
        m(nbgrad.randn(5, 2, 2))
    with pytest.raises(ValueError, match="GRU: Expected input to be 2D or 3D, got 4D instead"):
        m(nbgrad.randn(5, 2, 3, 1))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
        m(nbgrad.randn(5, 2, 3), nbgrad.randn(1, 3, 4))
    with pytest.raises(RuntimeError, match="For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"):
        m(nbgrad.randn(5, 3), nbgrad.randn(1, 2, 4))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 2, 4\), got \[1, 3, 4\]"):
        nn.LSTM(3, 4)(nbgrad.randn(5, 2, 3), (nbgrad.randn(1, 2, 4), nbgrad.randn(1, 3, 4)))
    with pytest.raises(ValueError, match=r"RNN input dtype \(nbgrad.float64\) does not match weight dtype "
                                         r"\(nbgrad.float32\)"):
        m(nbgrad.randn(5, 2, 3, dtype=nbgrad.float64))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        nn.GRUCell(3, 4)(nbgrad.randn(2, 3), nbgrad.randn(3, 4))
    with pytest.raises(ValueError, match="GRUCell: Expected input to be 1D or 2D, got 3D instead"):
        nn.GRUCell(3, 4)(nbgrad.randn(1, 2, 3))


@pytest.mark.parametrize("cls, mode, node", [(nn.RNNCell, "RNN_TANH", "TanhBackward0"),
                                             (nn.LSTMCell, "LSTM", "MulBackward0"),
                                             (nn.GRUCell, "GRU", "AddBackward0")])
def test_cells(cls, mode, node):
    nbgrad.manual_seed(0)
    cell = cls(3, 4).double()
    P = {n + "_l0": p.detach().numpy() for n, p in cell.named_parameters()}
    rng = np.random.default_rng(4)
    x, h, c = rng.standard_normal((2, 3)), rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    ref_h, ref_c = np_cell(mode, x, h, c, P, "_l0")
    hx = (nbgrad.tensor(h), nbgrad.tensor(c)) if mode == "LSTM" else nbgrad.tensor(h)
    xt = nbgrad.tensor(x, requires_grad=True)
    out = cell(xt, hx)
    got_h = out[0] if mode == "LSTM" else out
    np.testing.assert_allclose(got_h.detach().numpy(), ref_h, rtol=1e-12)
    if mode == "LSTM":
        np.testing.assert_allclose(out[1].detach().numpy(), ref_c, rtol=1e-12)
    assert type(got_h.grad_fn).__name__ == node
    assert gradcheck(lambda a: cell(a, hx), (xt,))
    single = cell(xt[0])          # unbatched, zero state
    assert (single[0] if mode == "LSTM" else single).shape == (4,)


@requires_cuda
def test_lstm_on_cuda():
    m = _make(nn.LSTM, dict())
    x = np.random.default_rng(5).standard_normal((2, 1, 3))
    ref = np_rnn(m, x)[0]
    m.cuda()
    out, (h, c) = m(nbgrad.tensor(x, device="cuda"))
    assert out.device.type == "cuda" and h.device.type == "cuda"
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref, rtol=1e-12)
