"""nn.attention: SDPBackend (PyTorch's names and values) and sdpa_kernel: which backend lists let
F.scaled_dot_product_attention run on CPU and which raise (PyTorch 2.13 CPU's behaviour, recorded:
no MATH and no FLASH_ATTENTION -> "No viable backend"; FLASH_ATTENTION alone -> runs where the
CPU flash kernel takes the inputs, else warnings and "No available kernel"), state restored on exit."""
import math
import warnings

import numpy as np
import pytest

import nbgrad

F = nbgrad.nn.functional
attention = nbgrad.nn.attention
SDPBackend, sdpa_kernel = attention.SDPBackend, attention.sdpa_kernel
B = SDPBackend

NO_VIABLE = ("No viable backend for scaled_dot_product_attention was found. This is likely due to turning off both "
             "the math kernel and the fused kernels.")
NO_KERNEL = "No available kernel.  Aborting execution."


def _qkv(q_shape=(2, 3, 4, 8), kv_shape=(2, 3, 5, 8), dtype=None):
    g = np.random.default_rng(0)
    dtype = dtype or nbgrad.float32
    return tuple(nbgrad.tensor(g.standard_normal(s), dtype=dtype) for s in (q_shape, kv_shape, kv_shape))


def _reference(q, k, v):
    qn, kn, vn = (t.double().numpy() for t in (q, k, v))
    s = qn @ np.swapaxes(kn, -1, -2) / math.sqrt(qn.shape[-1])
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ vn


def test_enum_as_pytorch():
    assert {m.name: int(m) for m in SDPBackend.__members__.values()} == {
        "ERROR": -1, "MATH": 0, "FLASH_ATTENTION": 1, "EFFICIENT_ATTENTION": 2, "CUDNN_ATTENTION": 3,
        "OVERRIDEABLE": 4}
    assert SDPBackend.MATH.name == "MATH" and SDPBackend.MATH.value == 0
    assert repr(SDPBackend.MATH) == "<SDPBackend.MATH: 0>" and str(SDPBackend.FLASH_ATTENTION) == \
        "SDPBackend.FLASH_ATTENTION"
    assert SDPBackend(2) == SDPBackend.EFFICIENT_ATTENTION
    assert not isinstance(SDPBackend.MATH, int) and SDPBackend.MATH != 0
    assert SDPBackend.__name__ == "SDPBackend"


@pytest.mark.parametrize("bad, name", [(0, "int"), ((B.MATH,), "tuple"), ("math", "str"), (None, "NoneType")])
def test_sdpa_kernel_argument_errors(bad, name):
    with pytest.raises(AssertionError) as info:
        with sdpa_kernel(bad):
            pass
    assert str(info.value) == ("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                               f"{name}")


RUNS = [[B.MATH], [B.FLASH_ATTENTION], [B.MATH, B.FLASH_ATTENTION], [B.MATH, B.EFFICIENT_ATTENTION],
        [B.MATH, B.CUDNN_ATTENTION], [B.MATH, B.OVERRIDEABLE], [B.FLASH_ATTENTION, B.EFFICIENT_ATTENTION],
        [B.FLASH_ATTENTION, B.CUDNN_ATTENTION], [B.FLASH_ATTENTION, B.OVERRIDEABLE],
        [B.EFFICIENT_ATTENTION, B.MATH, B.CUDNN_ATTENTION]]
FAILS = [[], [B.EFFICIENT_ATTENTION], [B.CUDNN_ATTENTION], [B.OVERRIDEABLE], [B.ERROR],
         [B.EFFICIENT_ATTENTION, B.CUDNN_ATTENTION], [B.EFFICIENT_ATTENTION, B.OVERRIDEABLE],
         [B.CUDNN_ATTENTION, B.OVERRIDEABLE], [B.EFFICIENT_ATTENTION, B.CUDNN_ATTENTION, B.OVERRIDEABLE]]


@pytest.mark.parametrize("backends", RUNS, ids=lambda bs: "+".join(b.name for b in bs))
def test_backend_lists_that_run(backends):
    q, k, v = _qkv()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with sdpa_kernel(backends) as ctx:
            out = F.scaled_dot_product_attention(q, k, v)
    assert ctx == {}
    np.testing.assert_allclose(out.numpy(), _reference(q, k, v), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("backends", FAILS, ids=lambda bs: "+".join(b.name for b in bs) or "none")
def test_backend_lists_without_math_or_flash_raise(backends):
    q, k, v = _qkv()
    with sdpa_kernel(backends):
        with pytest.raises(RuntimeError) as info:
            F.scaled_dot_product_attention(q, k, v)
        # with 3-D inputs or dropout as well: the same error (no backend is looked at)
        with pytest.raises(RuntimeError, match="No viable backend"):
            F.scaled_dot_product_attention(q[0], k[0], v[0], dropout_p=0.5)
    assert str(info.value) == NO_VIABLE
    # restored on exit: every backend again
    assert F.scaled_dot_product_attention(q, k, v).shape == (2, 3, 4, 8)


def test_empty_inputs_return_before_any_backend_is_chosen():
    for backends in ([B.EFFICIENT_ATTENTION], [B.FLASH_ATTENTION], []):
        with sdpa_kernel(backends):
            q, k, v = _qkv((2, 3, 0, 8), (2, 3, 5, 8))
            assert F.scaled_dot_product_attention(q, k, v).shape == (2, 3, 0, 8)
            q, k, v = _qkv((3, 4, 8), (3, 0, 8))          # 3-D: not the flash kernel's, but empty
            out = F.scaled_dot_product_attention(q, k, v)
            assert out.shape == (3, 4, 8) and out.abs().sum().item() == 0.0


def _flash_only(q, k, v, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with sdpa_kernel(B.FLASH_ATTENTION):
            try:
                out = F.scaled_dot_product_attention(q, k, v, **kwargs)
            except RuntimeError as e:
                out = e
    return out, [str(w.message).split(" (Triggered")[0] for w in caught], caught


@pytest.mark.parametrize("case, reason", [
    ("3d", "All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: 3, Key dim: 3, "
           "Value dim: 3 instead."),
    ("dropout", "Both fused kernels do not support non-zero dropout."),
    ("3d_dropout", "Both fused kernels do not support non-zero dropout."),
    ("batch", "For dense inputs, both fused kernels require query, key and value to have the same batch_size. "
              "Query.sizes(): [2, 3, 4, 8], Key.sizes(): [1, 3, 5, 8], Value.sizes(): [1, 3, 5, 8] instead. To "
              "broadcast dense inputs, try using unsqueeze and expand_to before passing them into the kernel."),
    ("heads", "For dense input, both fused kernels require query, key and value to have the same num_heads. "
              "Query.sizes(): [2, 3, 4, 8], Key sizes(): [2, 1, 5, 8], Value sizes(): [2, 1, 5, 8] instead. To "
              "broadcast dense inputs, try using unsqueeze and expand_to before passing them into the kernel."),
    ("gqa", "The number of heads in key/value must divide number of heads in query.Got input Key sizes(): 4, "
            "Value sizes(): 4, Query sizes(): 6 instead."),
    ("mask3d", "Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x {KV_seq_len, 1}); 4d - "
               "({Batch, 1} x {Num_heads, 1} x {Q_seq_len, 1}  x {KV_seq_len, 1})"),
    ("mask_rows", None),
    ("mask_grad", None),
    ("vdim", "Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): 8, "
             "Key.size(-1): 8, Value.size(-1): 6 instead."),
    ("stride", "All fused kernels require the last dimension of the input to have stride 1. Got Query.stride(-1): "
               "4, Key.stride(-1): 1, Value.stride(-1): 1"),
])
def test_flash_only_rejections(case, reason):
    q, k, v = _qkv()
    kwargs = {}
    if case == "3d":
        q, k, v = q[0], k[0], v[0]
    elif case == "dropout":
        kwargs = dict(dropout_p=0.3)
    elif case == "3d_dropout":
        q, k, v, kwargs = q[0], k[0], v[0], dict(dropout_p=0.2)
    elif case == "batch":
        k, v = k[:1], v[:1]
    elif case == "heads":
        k, v = k[:, :1], v[:, :1]
    elif case == "gqa":
        q, k, v = _qkv((2, 6, 4, 8), (2, 4, 5, 8))
        kwargs = dict(enable_gqa=True)
    elif case == "mask3d":
        kwargs = dict(attn_mask=nbgrad.ones(3, 4, 5, dtype=nbgrad.bool))
    elif case == "mask_rows":
        kwargs = dict(attn_mask=nbgrad.zeros(2, 5))
    elif case == "mask_grad":
        kwargs = dict(attn_mask=nbgrad.zeros(4, 5, requires_grad=True))
    elif case == "vdim":
        v = _qkv(kv_shape=(2, 3, 5, 6))[2]
    elif case == "stride":
        q = _qkv(q_shape=(2, 3, 8, 4))[0].transpose(-1, -2)
    out, messages, caught = _flash_only(q, k, v, **kwargs)
    assert isinstance(out, RuntimeError) and str(out) == NO_KERNEL
    assert messages == ["Flash attention kernel not used because:"] + ([reason] if reason else [])
    assert all(issubclass(w.category, UserWarning) for w in caught)


@pytest.mark.parametrize("case", ["plain", "gqa", "mask4d", "mask4d_bcast", "mask2d_row", "bool_mask", "float64",
                                  "scale", "causal", "requires_grad", "transposed_seq"])
def test_flash_only_accepts(case):
    q, k, v = _qkv()
    kwargs = {}
    if case == "gqa":
        q, k, v = _qkv((2, 6, 4, 8), (2, 3, 5, 8))
        kwargs = dict(enable_gqa=True)
    elif case == "mask4d":
        kwargs = dict(attn_mask=nbgrad.zeros(2, 1, 4, 5))
    elif case == "mask4d_bcast":
        kwargs = dict(attn_mask=nbgrad.zeros(1, 3, 1, 5))
    elif case == "mask2d_row":
        kwargs = dict(attn_mask=nbgrad.zeros(1, 5))
    elif case == "bool_mask":
        kwargs = dict(attn_mask=nbgrad.ones(4, 5, dtype=nbgrad.bool))
    elif case == "float64":
        q, k, v = _qkv(dtype=nbgrad.float64)
    elif case == "scale":
        kwargs = dict(scale=0.3)
    elif case == "causal":
        kwargs = dict(is_causal=True)
    elif case == "requires_grad":
        q = q.clone().requires_grad_()
    elif case == "transposed_seq":       # stride 1 in the last dim is all the kernel asks
        k = _qkv(kv_shape=(2, 5, 3, 8))[1].transpose(1, 2)
    out, messages, _ = _flash_only(q, k, v, **kwargs)
    assert messages == [] and not isinstance(out, Exception)
    with nbgrad.no_grad():
        expected = F.scaled_dot_product_attention(q, k, v, **kwargs)
    assert nbgrad.allclose(out.detach(), expected, rtol=1e-5, atol=1e-6)


def test_gradient_through_flash_only_context():
    q, k, v = (t.double().requires_grad_() for t in _qkv())
    with sdpa_kernel([B.FLASH_ATTENTION]):
        F.scaled_dot_product_attention(q, k, v).sum().backward()
    grads = [t.grad.clone() for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    F.scaled_dot_product_attention(q, k, v).sum().backward()
    for g, t in zip(grads, (q, k, v)):
        assert nbgrad.allclose(g, t.grad, rtol=1e-12, atol=1e-14)


def test_state_restored_after_exception_and_nesting():
    q, k, v = _qkv()
    with pytest.raises(ValueError, match="inside"):
        with sdpa_kernel(B.EFFICIENT_ATTENTION):
            raise ValueError("inside")
    assert F.scaled_dot_product_attention(q, k, v).shape == (2, 3, 4, 8)
    with sdpa_kernel([B.MATH, B.FLASH_ATTENTION]):
        with sdpa_kernel(B.CUDNN_ATTENTION):
            with pytest.raises(RuntimeError, match="No viable backend"):
                F.scaled_dot_product_attention(q, k, v)
        F.scaled_dot_product_attention(q[0], k[0], v[0])          # MATH is back
        with sdpa_kernel(B.FLASH_ATTENTION):
            with pytest.warns(UserWarning) as record:
                with pytest.raises(RuntimeError, match="No available kernel"):
                    F.scaled_dot_product_attention(q[0], k[0], v[0])
            assert str(record[0].message).startswith("Flash attention kernel not used because:") and len(record) == 2
    # duplicates and set_priority change nothing on CPU
    with sdpa_kernel([B.FLASH_ATTENTION, B.MATH, B.FLASH_ATTENTION], set_priority=True):
        F.scaled_dot_product_attention(q[0], k[0], v[0])
    with sdpa_kernel([B.CUDNN_ATTENTION, B.EFFICIENT_ATTENTION], set_priority=True):
        with pytest.raises(RuntimeError, match="No viable backend"):
            F.scaled_dot_product_attention(q, k, v)
    F.scaled_dot_product_attention(q[0], k[0], v[0])


def test_multihead_attention_inside_sdpa_kernel():
    # MultiheadAttention's need_weights=False path calls scaled_dot_product_attention with 4-D inputs
    nbgrad.manual_seed(0)
    mha = nbgrad.nn.MultiheadAttention(8, 2)
    x = nbgrad.randn(5, 3, 8)
    expected, _ = mha(x, x, x, need_weights=False)
    with sdpa_kernel(B.FLASH_ATTENTION):
        out, _ = mha(x, x, x, need_weights=False)
    assert nbgrad.allclose(out, expected, rtol=1e-5, atol=1e-6)
    with sdpa_kernel(B.EFFICIENT_ATTENTION):
        with pytest.raises(RuntimeError, match="No viable backend"):
            mha(x, x, x, need_weights=False)
