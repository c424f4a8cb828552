"""F.scaled_dot_product_attention and nn.MultiheadAttention against NumPy references (masks,
causal, scale, fully masked rows, grouped heads, dropout), gradients by finite differences,
PyTorch's parameter names, initialisation, repr and errors; the CUDA backend (simulator)."""
import math

import numpy as np
import pytest

import nbgrad

from ._cuda import requires_cuda

nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck


def np_softmax_rows(x):
    """Softmax over the last dim; a row that is -inf throughout gives zeros (PyTorch's SDPA)."""
    out = np.zeros_like(x)
    m = np.max(x, -1, keepdims=True)
    live = np.isfinite(m)[..., 0]
    e = np.exp(x[live] - m[live])
    out[live] = e / e.sum(-1, keepdims=True)
    return out


def np_sdpa(q, k, v, mask=None, is_causal=False, scale=None):
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    if is_causal:
        mask = np.tril(np.ones((q.shape[-2], k.shape[-2]), bool))
    if mask is not None:
        s = s + (np.where(mask, 0.0, -np.inf) if mask.dtype == bool else mask)
    return np_softmax_rows(s) @ v


rng = np.random.default_rng(0)
Q, K, V = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 5, 6))
BOOL = rng.random((3, 5)) > 0.4
BOOL[1] = False                                   # a fully masked row: zeros out, no gradient
BOOL[0, 0] = True
FLOAT = rng.standard_normal((2, 3, 5))


@pytest.mark.parametrize("kw", [dict(), dict(is_causal=True), dict(attn_mask=BOOL), dict(attn_mask=FLOAT),
                                dict(scale=0.3), dict(scale=-0.2, attn_mask=BOOL)],
                         ids=["plain", "causal", "bool", "float", "scale", "negative-scale-bool"])
def test_sdpa_values_and_gradients(kw):
    np_kw = dict(kw)
    mask = np_kw.pop("attn_mask", None)
    ref = np_sdpa(Q, K, V, mask, **np_kw)
    if mask is not None:
        kw = dict(kw, attn_mask=nbgrad.tensor(mask))
    q, k, v = (nbgrad.tensor(a, requires_grad=True) for a in (Q, K, V))
    out = F.scaled_dot_product_attention(q, k, v, **kw)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12, atol=1e-14)
    assert out.shape == (2, 3, 6) and type(out.grad_fn).__name__ == "UnsafeViewBackward0"
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, **kw), (q, k, v))
    if mask is BOOL:
        out.sum().backward()
        np.testing.assert_array_equal(q.grad.numpy()[:, 1], 0)       # zeros, not NaN
        assert np.isfinite(k.grad.numpy()).all()


def test_sdpa_broadcast_batch_dims_and_grouped_heads():
    q = rng.standard_normal((2, 4, 3, 2))
    k, v = rng.standard_normal((1, 2, 5, 2)), rng.standard_normal((1, 2, 5, 3))
    out = F.scaled_dot_product_attention(nbgrad.tensor(q), nbgrad.tensor(k), nbgrad.tensor(v), enable_gqa=True)
    ref = np_sdpa(q, np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)
    # without grouping, leading dims broadcast (1 against 2)
    k4, v4 = rng.standard_normal((1, 4, 5, 2)), rng.standard_normal((1, 4, 5, 3))
    out = F.scaled_dot_product_attention(nbgrad.tensor(q), nbgrad.tensor(k4), nbgrad.tensor(v4))
    np.testing.assert_allclose(out.numpy(), np_sdpa(q, k4, v4), rtol=1e-12)


def test_sdpa_dropout_zeroes_and_rescales_weights():
    # with v the identity, the output is the (dropped-out) weights themselves
    q, k = rng.standard_normal((1, 4, 3)), rng.standard_normal((1, 6, 3))
    weights = np_sdpa(q, k, np.eye(6)[None])
    nbgrad.manual_seed(0)
    out = F.scaled_dot_product_attention(nbgrad.tensor(q), nbgrad.tensor(k), nbgrad.eye(6, dtype=nbgrad.float64)[None],
                                         dropout_p=0.25).numpy()
    kept = out != 0
    assert 0 < kept.sum() < out.size
    np.testing.assert_allclose(out[kept], weights[kept] / 0.75, rtol=1e-12)
    zero = F.scaled_dot_product_attention(nbgrad.tensor(q), nbgrad.tensor(k), nbgrad.tensor(np.eye(6)[None]),
                                          dropout_p=1.0)
    np.testing.assert_array_equal(zero.numpy(), 0)


def test_sdpa_errors():
    q = nbgrad.randn(2, 3, 4)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=nbgrad.ones(3, 3, dtype=nbgrad.bool), is_causal=True)
    with pytest.raises(RuntimeError, match="Expected query, key, and value to have the same dtype, but got "
                                           "query.dtype: float key.dtype: double"):
        F.scaled_dot_product_attention(q, q.double(), q)


# -- MultiheadAttention --------------------------------------------------------------------------
def np_mha(m, query, key, value, key_padding_mask=None, attn_mask=None, average=True):
    """nn.MultiheadAttention's computation for (L, N, E) inputs, from its parameters."""
    P = {name: p.detach().numpy() for name, p in m.named_parameters()}
    E, H = m.embed_dim, m.num_heads
    d = E // H
    if "in_proj_weight" in P:
        wq, wk, wv = np.split(P["in_proj_weight"], 3)
    else:
        wq, wk, wv = P["q_proj_weight"], P["k_proj_weight"], P["v_proj_weight"]
    bq, bk, bv = np.split(P["in_proj_bias"], 3) if "in_proj_bias" in P else (0, 0, 0)
    q, k, v = query @ wq.T + bq, key @ wk.T + bk, value @ wv.T + bv
    L, N, _ = q.shape
    extra = 0
    if "bias_k" in P:
        k = np.concatenate([k, np.broadcast_to(P["bias_k"], (1, N, E))])
        v = np.concatenate([v, np.broadcast_to(P["bias_v"], (1, N, E))])
        extra += 1
    heads = lambda t: t.reshape(t.shape[0], N, H, d).transpose(1, 2, 0, 3)       # noqa: E731  (N, H, S, d)
    q, k, v = heads(q), heads(k), heads(v)
    if m.add_zero_attn:
        k = np.concatenate([k, np.zeros((N, H, 1, d))], 2)
        v = np.concatenate([v, np.zeros((N, H, 1, d))], 2)
        extra += 1
    S = k.shape[2]
    bias = np.zeros((N, H, L, S))
    if attn_mask is not None:
        am = np.where(attn_mask, -np.inf, 0.0) if attn_mask.dtype == bool else attn_mask
        am = np.pad(am, [(0, 0)] * (am.ndim - 1) + [(0, extra)])
        bias = bias + (am.reshape(N, H, L, S) if am.ndim == 3 else am)
    if key_padding_mask is not None:
        kp = np.where(key_padding_mask, -np.inf, 0.0) if key_padding_mask.dtype == bool else key_padding_mask
        bias = bias + np.pad(kp, [(0, 0), (0, extra)])[:, None, None, :]
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(d) + bias
    w = np.exp(s - s.max(-1, keepdims=True))
    w = w / w.sum(-1, keepdims=True)
    out = (w @ v).transpose(2, 0, 1, 3).reshape(L, N, E)
    out = out @ P["out_proj.weight"].T + P.get("out_proj.bias", 0)
    return out, (w.mean(1) if average else w)


def make_mha(**kw):
    nbgrad.manual_seed(0)
    m = nn.MultiheadAttention(**kw).double()
    if kw.get("bias", True):
        with nbgrad.no_grad():               # non-zero biases, so that a bias mix-up would show
            m.in_proj_bias.copy_(nbgrad.randn(3 * kw["embed_dim"], dtype=nbgrad.float64))
            m.out_proj.bias.copy_(nbgrad.randn(kw["embed_dim"], dtype=nbgrad.float64))
    return m


L, S, N = 3, 5, 2
KPM = np.zeros((N, S), bool)
KPM[0, 1] = KPM[1, 4] = True
AM = rng.random((L, S)) > 0.8
AM[:, 0] = False


@pytest.mark.parametrize("ctor, fwd", [
    (dict(embed_dim=4, num_heads=2), dict()),
    (dict(embed_dim=4, num_heads=2), dict(key_padding_mask=KPM, attn_mask=AM)),
    (dict(embed_dim=4, num_heads=2), dict(key_padding_mask=KPM, average_attn_weights=False)),
    (dict(embed_dim=4, num_heads=1, bias=False), dict(attn_mask=rng.standard_normal((L, S)))),
    (dict(embed_dim=4, num_heads=2), dict(attn_mask=rng.standard_normal((N * 2, L, S)),
                                          key_padding_mask=rng.standard_normal((N, S)))),
    (dict(embed_dim=4, num_heads=2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True),
     dict(key_padding_mask=KPM, attn_mask=AM, average_attn_weights=False)),
], ids=["plain", "masks", "per-head", "no-bias-float-mask", "3d-float-masks", "kdim-vdim-bias-kv-zero-attn"])
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_against_numpy(ctor, fwd, need_weights):
    m = make_mha(**ctor)
    x = rng.standard_normal((L, N, 4))
    kx = rng.standard_normal((S, N, ctor.get("kdim", 4)))
    vx = rng.standard_normal((S, N, ctor.get("vdim", 4)))
    ref_out, ref_w = np_mha(m, x, kx, vx, fwd.get("key_padding_mask"), fwd.get("attn_mask"),
                            fwd.get("average_attn_weights", True))
    t_fwd = {k: (nbgrad.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in fwd.items()}
    out, w = m(nbgrad.tensor(x), nbgrad.tensor(kx), nbgrad.tensor(vx), need_weights=need_weights, **t_fwd)
    np.testing.assert_allclose(out.detach().numpy(), ref_out, rtol=1e-10, atol=1e-12)
    if need_weights:
        np.testing.assert_allclose(w.detach().numpy(), ref_w, rtol=1e-10, atol=1e-12)
    else:
        assert w is None


def test_mha_batch_first_unbatched_and_gradients():
    m = make_mha(embed_dim=4, num_heads=2, batch_first=True)
    x = rng.standard_normal((N, L, 4))
    ref, ref_w = np_mha(m, x.transpose(1, 0, 2), x.transpose(1, 0, 2), x.transpose(1, 0, 2))
    xt = nbgrad.tensor(x, requires_grad=True)
    out, w = m(xt, xt, xt)
    np.testing.assert_allclose(out.detach().numpy(), ref.transpose(1, 0, 2), rtol=1e-10)
    assert w.shape == (N, L, L)
    assert gradcheck(lambda t: m(t, t, t)[0], (xt,))
    assert gradcheck(lambda t: m(t, t, t, key_padding_mask=nbgrad.tensor(KPM[:, :L]), need_weights=False)[0], (xt,))
    # the parameters' gradients, through the packed in_proj_weight
    w_in = m.in_proj_weight
    m(xt, xt, xt)[0].sum().backward()
    assert w_in.grad.shape == (12, 4) and np.abs(w_in.grad.numpy()).sum() > 0
    # unbatched: (L, E)
    single = m(xt[0], xt[0], xt[0])
    np.testing.assert_allclose(single[0].detach().numpy(), out[0].detach().numpy(), rtol=1e-12)
    assert single[1].shape == (L, L)


def test_mha_parameters_init_and_repr():
    m = nn.MultiheadAttention(8, 2)
    assert list(m.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    assert m.q_proj_weight is None and m.bias_k is None and m._qkv_same_embed_dim and m.head_dim == 4
    assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, "
                       "out_features=8, bias=True)\n)")
    bound = math.sqrt(6 / (8 + 24))                                 # xavier_uniform over (3E, E)
    w = m.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    np.testing.assert_array_equal(m.in_proj_bias.detach().numpy(), 0)
    np.testing.assert_array_equal(m.out_proj.bias.detach().numpy(), 0)
    m2 = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True, bias=False)
    assert list(m2.state_dict()) == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k", "bias_v",
                                     "out_proj.weight"]
    assert m2.k_proj_weight.shape == (8, 3) and m2.bias_k.shape == (1, 1, 8) and m2.in_proj_weight is None
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)


def test_mha_dropout_only_in_training_and_errors():
    m = make_mha(embed_dim=4, num_heads=2, dropout=0.5)
    x = nbgrad.tensor(rng.standard_normal((L, N, 4)))
    m.eval()
    a, b = m(x, x, x)[0], m(x, x, x)[0]
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    np.testing.assert_allclose(a.detach().numpy(), np_mha(m, x.numpy(), x.numpy(), x.numpy())[0], rtol=1e-10)
    m.train()
    _, w = m(x, x, x, average_attn_weights=False)
    assert (w.detach().numpy() == 0).any()
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is nbgrad.Size\(\[2, 2\]\), but should be \(3, 3\)"):
        m(x, x, x, attn_mask=nbgrad.zeros(2, 2, dtype=nbgrad.float64))


@requires_cuda
def test_attention_on_cuda():
    q, k, v = rng.standard_normal((1, 2, 2)), rng.standard_normal((1, 3, 2)), rng.standard_normal((1, 3, 2))
    out = F.scaled_dot_product_attention(*(nbgrad.tensor(a, device="cuda") for a in (q, k, v)), is_causal=True)
    assert out.device.type == "cuda"
    np.testing.assert_allclose(out.cpu().numpy(), np_sdpa(q, k, v, is_causal=True), rtol=1e-12)
    m = make_mha(embed_dim=2, num_heads=1)
    x = rng.standard_normal((2, 1, 2))
    ref = np_mha(m, x, x, x)[0]
    m.cuda()
    xc = nbgrad.tensor(x, device="cuda")
    np.testing.assert_allclose(m(xc, xc, xc)[0].detach().cpu().numpy(), ref, rtol=1e-12)


# -- F.multi_head_attention_forward: PyTorch's checks in its order, is_causal, static_k/v ----------
def _mha_args(m):
    return (4, 2, m.in_proj_weight, m.in_proj_bias, None, None, False, 0.0, m.out_proj.weight, m.out_proj.bias)


def test_mha_forward_shape_checks_speak_as_pytorchs():
    m = make_mha(embed_dim=4, num_heads=2)
    q3, k3 = nbgrad.tensor(rng.standard_normal((L, N, 4))), nbgrad.tensor(rng.standard_normal((S, N, 4)))
    q2, k2 = q3[:, 0], k3[:, 0]
    args = _mha_args(m)
    with pytest.raises(AssertionError, match=r"^For batched \(3-D\) `query`, expected `key` and `value` to be 3-D "
                                             r"but found 2-D and 3-D tensors respectively$"):
        F.multi_head_attention_forward(q3, k2, k3, *args)
    with pytest.raises(AssertionError, match=r"^query should be unbatched 2D or batched 3D tensor but received "
                                             r"4-D query tensor$"):
        F.multi_head_attention_forward(q3[None], k3, k3, *args)
    with pytest.raises(AssertionError, match=r"expected `key_padding_mask` to be `None` or 1-D but found 2-D"):
        F.multi_head_attention_forward(q2, k2, k2, *args, key_padding_mask=nbgrad.tensor(KPM))
    with pytest.raises(AssertionError, match=r"^Expected `attn_mask` shape to be \(2, 3, 5\) but got "):
        F.multi_head_attention_forward(q2, k2, k2, *args, attn_mask=nbgrad.zeros(2, 3, 4))
    with pytest.raises(AssertionError, match=r"^Expected key_padded_mask.shape\[1\] to be 5, but got 4$"):
        F.multi_head_attention_forward(q3, k3, k3, *args, key_padding_mask=nbgrad.tensor(KPM[:, :4]))
    # PyTorch's Python reads key.dim() and value.dim(): a number there is an AttributeError
    with pytest.raises(AttributeError, match="'int' object has no attribute"):
        F.multi_head_attention_forward(q3, 3, k3, *args)
    with pytest.raises(AttributeError, match="'float' object has no attribute"):
        F.multi_head_attention_forward(q2, k2, 2.5, *args)


def test_mha_forward_bias_and_projection_checks():
    m = make_mha(embed_dim=4, num_heads=2)
    q = nbgrad.tensor(rng.standard_normal((L, N, 4)))
    w, b, wo, bo = m.in_proj_weight, m.in_proj_bias, m.out_proj.weight, m.out_proj.bias
    with pytest.raises(AssertionError, match="^bias_k is set but bias_v is None$"):
        F.multi_head_attention_forward(q, q, q, 4, 2, w, b, nbgrad.zeros(1, 1, 4), None, False, 0.0, wo, bo)
    with pytest.raises(AssertionError, match=r"^expecting key weights shape of \(4, 4\), but got .*\[4, 3\]"):
        F.multi_head_attention_forward(q, q, q, 4, 2, None, b, None, None, False, 0.0, wo, bo,
                                       use_separate_proj_weight=True, q_proj_weight=w[:4], k_proj_weight=w[4:8, :3],
                                       v_proj_weight=w[8:])
    with pytest.raises(AssertionError, match="^use_separate_proj_weight is False but in_proj_weight is None$"):
        F.multi_head_attention_forward(q, q, q, 4, 2, None, b, None, None, False, 0.0, wo, bo)


def test_mha_is_causal_hint_without_weights_is_the_causal_mask():
    # PyTorch drops attn_mask when is_causal is set and no weights or padding mask are asked
    # for: scaled_dot_product_attention builds the causal mask itself
    m = make_mha(embed_dim=4, num_heads=2)
    q = nbgrad.tensor(rng.standard_normal((L, N, 4)))
    hint = F.multi_head_attention_forward(q, q, q, *_mha_args(m), attn_mask=nbgrad.zeros(L, L), is_causal=True,
                                          need_weights=False)[0]
    causal = nbgrad.tensor(~np.tril(np.ones((L, L), bool)))           # (True: masked out)
    masked = F.multi_head_attention_forward(q, q, q, *_mha_args(m), attn_mask=causal, need_weights=False)[0]
    np.testing.assert_allclose(hint.detach().numpy(), masked.detach().numpy(), rtol=1e-12)
    unmasked = F.multi_head_attention_forward(q, q, q, *_mha_args(m), need_weights=False)[0]
    assert not np.allclose(hint.detach().numpy(), unmasked.detach().numpy())


def test_mha_static_k_and_v_replace_the_projected_keys_and_values():
    m = make_mha(embed_dim=4, num_heads=2)
    q = nbgrad.tensor(rng.standard_normal((L, N, 4)))
    kv = nbgrad.tensor(rng.standard_normal((S, N, 4)))
    w_k, w_v = m.in_proj_weight[4:8], m.in_proj_weight[8:]
    b_k, b_v = m.in_proj_bias[4:8], m.in_proj_bias[8:]
    heads = lambda t: t.reshape(S, N * 2, 2).transpose(0, 1)          # noqa: E731  (N * H, S, head_dim)
    static_k, static_v = heads(F.linear(kv, w_k, b_k)), heads(F.linear(kv, w_v, b_v))
    for need_weights in (True, False):
        out, w = F.multi_head_attention_forward(q, kv, kv, *_mha_args(m), need_weights=need_weights)
        zeros = nbgrad.zeros(S, N, 4, dtype=nbgrad.float64)
        s_out, s_w = F.multi_head_attention_forward(q, zeros, zeros, *_mha_args(m),
                                                    static_k=static_k, static_v=static_v, need_weights=need_weights)
        np.testing.assert_allclose(s_out.detach().numpy(), out.detach().numpy(), rtol=1e-12)
        if need_weights:
            np.testing.assert_allclose(s_w.detach().numpy(), w.detach().numpy(), rtol=1e-12)
    with pytest.raises(AssertionError, match="^expecting static_k.size\\(0\\) of 4, but got 3$"):
        F.multi_head_attention_forward(q, kv, kv, *_mha_args(m), static_k=static_k[:3], static_v=static_v)
