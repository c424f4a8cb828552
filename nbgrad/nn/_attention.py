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
def _canonical_mask(mask, name, dtype):
    """A bool mask (True: masked out, nn.MultiheadAttention's convention) as 0 / -inf of dtype;
    a float mask as it is."""
    if mask is None:
        return None
    if mask.dtype is D.bool_:
        from .._creation import zeros
        return zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _in_projection(q, k, v, w, b, E, w_q=None, w_k=None, w_v=None):
    from .functional import linear
    if w is not None:
        w_q, w_k, w_v = w.chunk(3)
    b_q = b_k = b_v = None
    if b is not None:
        b_q, b_k, b_v = b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Inputs (L, N, E) or unbatched (L, E); returns (output, weights or None) as PyTorch's."""
    from .functional import dropout, linear, pad
    from .._creation import zeros
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k / static_v are not supported")
    is_batched = query.dim() == 3
    if query.dim() not in (2, 3) or key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
                             "query tensor (key and value of the same rank)")
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if tuple(key.shape[:2]) != tuple(value.shape[:2]):
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", query.dtype)
    attn_mask = _canonical_mask(attn_mask, "attn_mask", query.dtype)

    if use_separate_proj_weight:
        q, k, v = _in_projection(query, key, value, None, in_proj_bias, embed_dim, q_proj_weight, k_proj_weight,
                                 v_proj_weight)
    else:
        q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, embed_dim)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        from ..ops.indexing import cat
        k = cat([k, bias_k.expand(1, bsz, embed_dim)])
        v = cat([v, bias_v.expand(1, bsz, embed_dim)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        from ..ops.indexing import cat
        z = zeros((bsz * num_heads, 1, head_dim), dtype=q.dtype, device=q.device)
        k = cat([k, z], dim=1)
        v = cat([v, z], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        key_padding_mask = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1) \
            .reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(head_dim))
        weights = q_scaled @ k.transpose(-2, -1)
        if attn_mask is not None:
            weights = attn_mask + weights              # baddbmm(attn_mask, q_scaled, k^T)
        weights = weights.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        out = weights @ v
        out = out.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
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
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal=False)
    out = out.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
    if not is_batched:
        out = out.squeeze(1)
    return out, None
