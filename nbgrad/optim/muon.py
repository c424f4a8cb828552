"""Muon (Keller Jordan's "MomentUm Orthogonalized by Newton-Schulz") as PyTorch's
`torch.optim.Muon` defines it, for 2-D parameters only: a momentum buffer (`momentum_buffer`,
Nesterov by default), the update orthogonalised by a quintic Newton-Schulz iteration
(coefficients a, b, c; `ns_steps` rounds), decoupled weight decay lr * weight_decay, and the
learning rate scaled by the matrix's shape (`adjust_lr_fn`: "original", sqrt(max(1, A/B)), or
"match_rms_adamw", 0.2 * sqrt(max(A, B))).

PyTorch runs the Newton-Schulz iteration in bfloat16.  nbgrad has no bfloat16 dtype, so the
iteration runs in float32 with every result rounded to the nearest bfloat16 value (ties to
even, as PyTorch's conversion), each op computed as PyTorch's bfloat16 kernels compute it: in
float32, rounded to bfloat16 once (a matrix product's sum of exact products accumulated in
float32; an addmm's beta * C + alpha * (A @ B) in float32, then rounded).  The values are PyTorch's except where a
float32 sum, accumulated in another order than oneDNN's, falls on the other side of a
bfloat16 rounding boundary: then one element differs by one bfloat16 ulp and the difference
carries through the remaining rounds (rare on small matrices; bounded by a few bfloat16 ulps
of the update, times the learning rate, in the parameter).

Departures: the Newton-Schulz arguments (ns_steps >= 100, not three coefficients) and a
parameter that is not 2-D (one added by add_param_group, which PyTorch does not check) are
refused at the start of step(), before anything is written, where PyTorch refuses them in the
middle of a group's updates.  nbgrad has no complex dtypes nor sparse gradients.
"""
import math

from .._tensor import Tensor
from .optimizer import Optimizer, _bump_version, _write
from ..autograd.grad_mode import no_grad

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _round_bf16(x):
    """float32 tensor x rounded to the nearest bfloat16 value (ties to even), as float32:
    the bit pattern plus 0x7FFF plus the lowest kept bit, its low 16 bits cleared.  NaN stays
    NaN (the sum could carry a NaN's payload into the exponent: an infinity)."""
    from .. import _dtype as D
    from ..ops.elementwise import where
    bits = x.contiguous().view(D.int32)
    rounded = ((bits + (0x7FFF + ((bits >> 16) & 1))) & -65536).view(D.float32)
    return where(x.isnan(), x, rounded)


def _check(group, grad):
    """PyTorch's refusals for one parameter's update, in its order: a gradient that is not
    2-D (_single_tensor_muon), then _zeropower_via_newtonschulz's arguments."""
    if grad.ndim != 2:
        raise ValueError("Param gradient must be a 2D matrix")
    if group["ns_steps"] >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(group["ns_coefficients"]) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """The orthogonalised grad (a float32 tensor of bfloat16 values): PyTorch's quintic
    Newton-Schulz iteration, X <- a X + (b A + c A A) X with A = X X^T, on a wide matrix
    (a tall one transposed), X first divided by its Frobenius norm (at least eps)."""
    from .. import _dtype as D
    a, b, c = ns_coefficients
    x = _round_bf16(grad.to(D.float32))   # grad.bfloat16(): a float64 grad via float32, as c10 converts
    tall = grad.size(0) > grad.size(1)
    if tall:
        x = x.T
    # the norm of bfloat16 values accumulates in float (here float64: the sum of squares is
    # then exact to far below a bfloat16 ulp) and is rounded to bfloat16
    norm = _round_bf16(x.to(D.float64).norm().to(D.float32))
    norm = _round_bf16(norm.clamp(min=eps))
    x = _round_bf16(x / norm)
    for _ in range(ns_steps):
        gram = _round_bf16(x @ x.T)
        gram_update = _round_bf16(gram * b + (gram @ gram) * c)      # addmm(gram, gram, gram, beta=b, alpha=c)
        x = _round_bf16(x * a + gram_update @ x)                     # addmm(x, gram_update, x, beta=a)
    if tall:
        x = x.T
    return x


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(A, B))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS, ns_steps=DEFAULT_NS_STEPS,
                 adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        with no_grad():
            # every refusal before the first write
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        _check(group, p.grad)
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    self._update(group, self.state[p], p)
                    _bump_version(p)
        return loss

    @staticmethod
    def _update(group, state, p):
        from .. import _dtype as D
        from .._creation import zeros_like
        grad = p.grad
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = zeros_like(grad)
        buf = state["momentum_buffer"]
        momentum = group["momentum"]
        lr = group["lr"].item() if isinstance(group["lr"], Tensor) else group["lr"]
        new_buf = buf.lerp(grad, 1 - momentum)
        _write(buf, new_buf)
        update = grad.lerp(new_buf, momentum) if group["nesterov"] else new_buf
        update = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], p.shape)
        # param.mul_ then param.add_(bfloat16 update): the sum in the promoted type
        # (float32 for a float16 parameter, float64 for a float64 one)
        param = p * (1 - lr * group["weight_decay"])
        work = D.float64 if p.dtype is D.float64 else D.float32
        new = param.to(work).add(update.to(work), alpha=-adjusted_lr)
        _write(p, new.to(p.dtype))


__all__ = ["Muon"]
