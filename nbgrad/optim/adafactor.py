"""Adafactor (Shazeer & Stern, 2018) as PyTorch's `torch.optim.Adafactor` defines it: lr caps
the relative step size rho_t = min(lr, 1/sqrt(t)) and scales the decoupled weight decay; the
second moment of a parameter with two or more dims is factored over its last two dims (a row
factor `row_var` of shape [..., m, 1] and a column factor `col_var` of shape [..., 1, n]),
that of a 1-D or 0-D parameter is kept whole (`variance`); eps1 (None: the parameter dtype's
machine epsilon) bounds the estimate from below, eps2 the parameter RMS that scales a step.

The update is PyTorch's single-tensor one, op for op as Tensor ops under no_grad, the state
buffers and the parameter written raw (optimizer.py's _write).  `foreach` is kept as a flag
and does not change the arithmetic: PyTorch's foreach path (taken only with foreach=True)
scales the update before adding it, one rounding more, so its float32 results can differ
from these by an ulp or two.

Departures: nbgrad has no complex dtypes nor sparse gradients, so PyTorch's refusals of those
cannot arise; a bad hyper-parameter is refused at construction, as in PyTorch.
"""
from .._tensor import Tensor
from .optimizer import Optimizer, _bump_version, _write
from ..autograd.grad_mode import no_grad


def _to_scalar(x):
    """A learning rate given as a one-element tensor, as a Python number (PyTorch's _to_scalar)."""
    return x.item() if isinstance(x, Tensor) else x


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        from .._creation import tensor
        for group in self.param_groups:
            group.setdefault("foreach", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = tensor(float(p_state["step"]))

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                # as PyTorch's loop: eps1=None takes the machine epsilon of the first updated
                # parameter's dtype and keeps it for the rest of the group
                eps1 = group["eps"][0]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if eps1 is None:
                        from .._dtype import finfo
                        eps1 = finfo(p.dtype).eps
                    self._update(group, self.state[p], p, eps1)
                    _bump_version(p)
        return loss

    @staticmethod
    def _init_state(state, grad):
        from .._creation import tensor, zeros, zeros_like
        state["step"] = tensor(0.0)           # a float32 scalar tensor, as PyTorch's
        if grad.dim() > 1:
            row_shape = list(grad.shape)
            row_shape[-1] = 1
            state["row_var"] = zeros(row_shape, dtype=grad.dtype, device=grad.device)
            col_shape = list(grad.shape)
            col_shape[-2] = 1
            state["col_var"] = zeros(col_shape, dtype=grad.dtype, device=grad.device)
        else:
            state["variance"] = zeros_like(grad)

    def _update(self, group, state, p, eps1):
        grad = p.grad
        if len(state) == 0:
            self._init_state(state, grad)
        if grad.dtype is not p.dtype:
            grad = grad.to(p.dtype)
        if group["maximize"]:
            grad = -grad
        lr = _to_scalar(group["lr"])
        d, weight_decay, eps2 = group["d"], group["weight_decay"], group["eps"][1]
        state["step"] += 1
        step = state["step"].item()
        one_minus_beta2 = step ** group["beta2_decay"]
        rho = min(lr, 1 / (step ** 0.5))
        # the step scale reads the parameter before its weight decay
        alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho
        param = p * (1 - lr * weight_decay) if weight_decay != 0 else p
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            # the mean of g * g along a dim as PyTorch computes it: norm, squared, / size
            row_mean = grad.norm(dim=-1, keepdim=True).square() / grad.size(-1)
            row_var_new = row_var.lerp(row_mean, one_minus_beta2)
            _write(row_var, row_var_new)
            col_mean = grad.norm(dim=-2, keepdim=True).square() / grad.size(-2)
            col_var_new = col_var.lerp(col_mean, one_minus_beta2)
            _write(col_var, col_var_new)
            var_estimate = row_var_new @ col_var_new
            var_estimate = var_estimate / row_var_new.mean(dim=-2, keepdim=True).clamp(min=eps1)
        else:
            variance = state["variance"]
            var_estimate = variance.lerp(grad * grad, one_minus_beta2)
            _write(variance, var_estimate)
        # eps1 squared: the square root is taken next
        update = var_estimate.clamp(min=eps1 * eps1).rsqrt() * grad
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
        _write(p, param.add(update, alpha=-alpha / denom))


__all__ = ["Adafactor"]
