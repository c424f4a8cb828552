"""Adam and AdamW (betas, eps, weight decay, amsgrad, maximize): one fused kernel per
parameter (the backend's `adam_step` acceleration), else PyTorch's single-tensor formula as
Tensor ops."""
from ..ops._graph import accelerated, capturing
from .optimizer import Optimizer, _write


def _adam_composed(p, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay,
                   amsgrad, maximize, decoupled_weight_decay):
    """The fallback of the backend's adam_step (under no_grad): PyTorch's _single_tensor_adam,
    out of place, then p and the state written raw as the kernel writes them."""
    from ..ops.elementwise import maximum
    d = -grad if maximize else grad
    param = p
    if weight_decay != 0:
        if decoupled_weight_decay:
            param = param * (1 - lr * weight_decay)
        else:
            d = d.add(param, alpha=weight_decay)
    # PyTorch's ops one by one (lerp, addcmul and addcdiv each one op: a float16/bfloat16
    # state rounds once per op, as PyTorch's kernels round it)
    m = exp_avg.lerp(d, 1 - beta1)                          # exp_avg.lerp_(grad, 1 - beta1)
    v = (exp_avg_sq * beta2).addcmul(d, d, value=1 - beta2)  # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, ...)
    _write(exp_avg, m)
    _write(exp_avg_sq, v)
    if amsgrad:
        v = maximum(max_exp_avg_sq, v)
        _write(max_exp_avg_sq, v)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    denom = v.sqrt() / (bias_correction2 ** 0.5) + eps
    # param.addcdiv_(exp_avg, denom, value=-step_size)
    if isinstance(step_size, (int, float)):
        _write(p, param.addcdiv(m, denom, value=-step_size))     # param.addcdiv_(exp_avg, denom, value=-step_size)
    else:
        # nbgrad.compile's capture: the step and lr are graph inputs (0-dim tensors), which
        # addcdiv's Python-number value cannot be
        _write(p, param + (-step_size) * (m / denom))


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused)
        if self._decoupled:
            defaults["decoupled_weight_decay"] = True
        super().__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure, self._update)

    @staticmethod
    def _update(group, state, k):
        from .._creation import tensor
        beta1, beta2 = group["betas"]
        amsgrad = group["amsgrad"]
        if len(state) == 0:
            # PyTorch keeps `step` as a float32 scalar tensor; the moments are
            # zeros_like(p, memory_format=torch.preserve_format)
            state["step"] = tensor(0.0)
            state["exp_avg"] = k.new_state(zero=True)
            state["exp_avg_sq"] = k.new_state(zero=True)
            if amsgrad:
                state["max_exp_avg_sq"] = k.new_state(zero=True)
        for name in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
            if name in state:
                state[name] = k.state(state[name])
        state["step"] += 1
        grad = k.grad()
        mx = state.get("max_exp_avg_sq") if amsgrad else None
        rec = capturing()
        if rec is None:
            step, lr = state["step"].item(), group["lr"]
        else:
            # nbgrad.compile captures this step: the step count and the learning rate are
            # inputs of the graph (a compiled call reads them then), the update Tensor ops
            from .. import _dtype as D
            step = state["step"].to(D.float64)
            lr = rec.scalar_input(lambda g=group: g["lr"], D.float64, k.target.device, (group, "lr"))
        args = (step, lr, beta1, beta2, group["eps"], group["weight_decay"], amsgrad,
                group["maximize"], group.get("decoupled_weight_decay", False))
        if rec is None and accelerated(k.target, "adam_step"):
            k.target._backend().adam_step(
                k.view(k.target), k.view(grad), k.view(state["exp_avg"]),
                k.view(state["exp_avg_sq"]), None if mx is None else k.view(mx), *args)
        else:
            _adam_composed(k.target, grad, state["exp_avg"], state["exp_avg_sq"], mx, *args)


class AdamW(Adam):
    """Adam with decoupled weight decay (p *= 1 - lr * weight_decay before the update)."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused)
