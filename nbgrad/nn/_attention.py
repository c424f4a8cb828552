"""Attention as compositions of Tensor ops: F.scaled_dot_product_attention (PyTorch's math
path: q and k^T each scaled by sqrt(scale), an additive mask, a softmax that gives zeros for a
fully masked row, dropout, @ v) and F.multi_head_attention_forward (nn.MultiheadAttention's
computation: packed or separate input projections, bias_k/bias_v, add_zero_attn, key padding
and attention masks, weights averaged over heads or not)."""
import math

from .. import _dtype as D
from .._tensor import Tensor
from ..ops import elementwise as _E
from .attention import _check_sdpa_backend    # the backends sdpa_kernel enabled (PyTorch's CPU rule)


def _bool_to_additive(mask, dtype):
    """A bool mask where True keeps a position -> 0 there and -inf elsewhere (SDPA's convention)."""
    from .._creation import full_like
    zeros = full_like(mask, 0.0, dtype=dtype)
    return zeros.masked_fill(mask.logical_not(), float("-inf"))


def _causal_mask(L, S, device):
    from .._creation import arange
    return arange(L, device=device).unsqueeze(-1) >= arange(S, device=device)


def _safe_softmax(x, dim):
    """softmax, with zeros (not NaN) for a row that is -inf throughout (PyTorch's _safe_softmax),
    and no gradient (not NaN) through such a row: it is softmaxed as zeros, then replaced."""
    masked_rows = (x == float("-inf")).all(dim, keepdim=True)
    zero = x.new_zeros(())
    out = _E.where(masked_rows, zero, x).softmax(dim)
    return _E.where(masked_rows, zero, out)


def _repeat_heads(t, r):
    """t.repeat_interleave(r, dim=-3): each key/value head shared by r query heads."""
    shape = tuple(t.shape)
    grown = t.unsqueeze(-3).expand(*shape[:-2], r, *shape[-2:])
    return grown.reshape(*shape[:-3], shape[-3] * r, *shape[-2:])


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) @ v over the last two dims (any leading batch dims that broadcast).
    attn_mask: bool (True: attend) or float (added); is_causal: the lower-triangular bool mask."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{D.cpp_type_name(query.dtype)} key.dtype: {D.cpp_type_name(key.dtype)} and value.dtype: "
                           f"{D.cpp_type_name(value.dtype)} instead.")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"scaled_dot_product_attention: expected a floating point query, got {query.dtype}")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must be at least 2-D")
    _check_sdpa_backend(query, key, value, attn_mask, dropout_p, enable_gqa)
    if attn_mask is not None and is_causal:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if enable_gqa:
        hq, hk = query.shape[-3], key.shape[-3]
        if hq % hk:
            raise RuntimeError("number of heads in key/value must divide number of heads in query")
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hk)
    L, S = query.shape[-2], key.shape[-2]
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    factor = math.sqrt(abs(scale))
    q = query * (-factor if scale < 0 else factor)
    if is_causal:
        attn_mask = _causal_mask(L, S, query.device)
    if attn_mask is not None and attn_mask.dtype is D.bool_:
        attn_mask = _bool_to_additive(attn_mask, query.dtype)
    attn = q @ (key.transpose(-2, -1) * factor)
    if attn_mask is not None:
        attn = attn + attn_mask
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        from .functional import dropout
        attn = dropout(attn, dropout_p, True)
    return attn @ value


# -- multi-head attention -----------------------------------------------------------------------
def _canonical_mask(mask, name, dtype, other_dtype=None, other_name=""):
    """A bool mask (True: masked out, nn.MultiheadAttention's convention) as 0 / -inf of dtype;
    a float mask as it is.  With other_dtype (the other mask's), PyTorch's deprecation warning
    when the two differ."""
    if mask is None:
        return None
    if mask.dtype is not D.bool_ and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other_dtype is not None and mask.dtype is not other_dtype:
        from .._warnings import warn_user
        warn_user(f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both instead.",
                  stacklevel=3)
    if mask.dtype is D.bool_:
        from .._creation import zeros
        return zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """The ranks F.multi_head_attention_forward accepts, checked in PyTorch's order and with its
    messages (which read key.dim() and value.dim(): a non-tensor there is an AttributeError, as
    in PyTorch).  Returns whether the inputs are batched."""
    if query.dim() == 3:
        kind, rank, mask_rank = "batched (3-D)", 3, 2
    elif query.dim() == 2:
        kind, rank, mask_rank = "unbatched (2-D)", 2, 1
    else:
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
                             "query tensor")
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {rank}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != mask_rank:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {mask_rank}-D but "
                             f"found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        if rank == 2 and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
    return rank == 3


def _in_projection_packed(q, k, v, w, b):
    """One GEMM for self-attention (q, k, v the same object), two for encoder-decoder attention
    (k and v the same), three otherwise: PyTorch's packed projection, whose errors (a weight
    that is not 3E x E) come from the same ops."""
    from .functional import linear
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b).unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v):
    """Separate projection weights, their shapes checked as PyTorch checks them."""
    from .functional import linear
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for name, t, shape in (("query weights", w_q, (Eq, Eq)), ("key weights", w_k, (Eq, Ek)),
                           ("value weights", w_v, (Eq, Ev)), ("query bias", b_q, (Eq,)),
                           ("key bias", b_k, (Eq,)), ("value bias", b_v, (Eq,))):
        if t is not None and tuple(t.shape) != shape:
            raise AssertionError(f"expecting {name} shape of {shape}, but got {t.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _static_projection(static, name, rows, head_dim):
    if static.size(0) != rows:
        raise AssertionError(f"expecting {name}.size(0) of {rows}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Inputs (L, N, E) or unbatched (L, E); returns (output, weights or None).  PyTorch's
    computation step for step, its checks in its order and with its messages."""
    from .functional import dropout, linear, pad
    from .._creation import zeros
    from ..ops.indexing import cat
    from ..ops.more import baddbmm
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len, _, _ = key.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", query.dtype,
                                       None if attn_mask is None else attn_mask.dtype, "attn_mask")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None        # the hint alone: scaled_dot_product_attention builds the causal mask
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
        for name, w in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                        ("v_proj_weight", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name} is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        k = _static_projection(static_k, "static_k", bsz * num_heads, head_dim)
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        v = _static_projection(static_v, "static_v", bsz * num_heads, head_dim)
    if add_zero_attn:
        shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(shape, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1) \
            .reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = q_scaled.bmm(k.transpose(-2, -1))
        weights = weights.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = weights.bmm(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None
