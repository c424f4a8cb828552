"""Loss math of one row or one element (cross-entropy, NLL, MSE, BCE-with-logits), for both devices.

Buffers are contiguous and 1-D; a (M, C) matrix is a flat buffer read row by
row (row i starts at i * c).  Per-element functions take and return scalars
(an array argument per element would keep a helper out of line).  Everything is computed in float64, as
PyTorch's CPU kernels accumulate row sums.  The backends own the loops (a
row after another on the CPU, a thread per row or element on the GPU) and
the sums the op layer needs.
"""
import math

from numba.extending import register_jitable

_scalar = register_jitable(error_model="numpy")

# exp(x) of a float64 overflows just above this; 1 / (1 + exp(x)) is then 0 (below 6e-309 already)
# (the guard keeps the CUDA simulator, which runs math.exp in Python, from raising).
_EXP_MAX = 709.78


@_scalar
def class_weight(weight, has_weight, t):
    if has_weight:
        return float(weight[t])
    return 1.0


@_scalar
def row_logsumexp(x, base, c):
    """log(sum_j exp(x[base + j])) over a row of c logits (the max shifted out; NaN wins)."""
    mx = -math.inf
    for j in range(c):
        v = float(x[base + j])   # float64 as Numba unifies mx (float(): also in plain Python)
        if v > mx or v != v:
            mx = v
    acc = 0.0
    for j in range(c):
        acc += math.exp(float(x[base + j]) - mx)
    return mx + math.log(acc) if mx > -math.inf else float(mx)


@_scalar
def row_cross_entropy(x, base, c, t, weight, has_weight, smoothing, lse):
    """(w[t] * nll, the label-smoothing term sum_c w_c * -logp_c (0 without smoothing), w[t]) of one row."""
    wt = class_weight(weight, has_weight, t)
    nll = wt * (lse - float(x[base + t]))
    smooth = 0.0
    if smoothing != 0.0:
        for j in range(c):
            smooth += class_weight(weight, has_weight, j) * (lse - float(x[base + j]))
    return nll, smooth, wt


@_scalar
def row_loss(nll, smooth, smoothing, c):
    """loss_i = (1-eps) * w[t] * -logp[t] + eps/C * sum_c w_c * -logp_c"""
    return (1.0 - smoothing) * nll + smoothing / c * smooth


@_scalar
def cross_entropy_grad(xj, lse, a, b, wsum, wj, is_target):
    """d/dx_j of a*(lse - x_t) + b*sum_k w_k*(lse - x_k): a*(p_j - [j == t]) + b*(p_j*W - w_j)."""
    return cross_entropy_grad_of_p(math.exp(float(xj) - lse), a, b, wsum, wj, is_target)


@_scalar
def cross_entropy_grad_of_p(p, a, b, wsum, wj, is_target):
    """cross_entropy_grad with p_j = exp(x_j - lse) given (the CPU computes it with its
    vectorisable exp, nbgrad/backends/_shared/fast_math.py)."""
    g = a * p + b * (p * wsum - wj)
    if is_target:
        g -= a
    return g


@_scalar
def scale_at(coef, coef_is_scalar, i):
    return coef[0] if coef_is_scalar else coef[i]


@_scalar
def squared_error(x, y):
    d = float(x) - float(y)
    return d * d


@_scalar
def softplus_neg(x):
    """log(1 + exp(-x)), stable for large |x|"""
    return max(-x, 0.0) + math.log1p(math.exp(-abs(x)))


@_scalar
def bce_logits(x, y, w, pw, has_pw):
    """l = ((1-y)*x + (1 + (pw-1)*y) * softplus(-x)) * w of one element (pw read only with has_pw)."""
    xi = float(x)
    yi = float(y)
    lw = 1.0 + (float(pw) - 1.0) * yi if has_pw else 1.0
    return ((1.0 - yi) * xi + lw * softplus_neg(xi)) * float(w)


@_scalar
def bce_logits_grads(x, y, w, pw, has_pw, k):
    """(dl/dx, dl/dy) of one element, times k."""
    xi = float(x)
    yi = float(y)
    k = k * float(w)
    sig_neg = 1.0 / (1.0 + math.exp(xi)) if xi <= _EXP_MAX else 0.0  # sigmoid(-x)
    if has_pw:
        p = float(pw)
        lw = 1.0 + (p - 1.0) * yi
        return ((1.0 - yi) - lw * sig_neg) * k, (-xi + (p - 1.0) * softplus_neg(xi)) * k
    return ((1.0 - yi) - sig_neg) * k, -xi * k
