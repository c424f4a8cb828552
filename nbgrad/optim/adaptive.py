"""Adamax, NAdam, RAdam and Adadelta: PyTorch's single-tensor updates (what its CPU runs:
foreach is for CUDA tensors) op for op as Tensor ops under no_grad, each state buffer and
the parameter written raw as the fused optimizers write them (optimizer.py's _write).
As in PyTorch, a step counter (and NAdam's mu_product) is a float32 scalar tensor."""
from .optimizer import Optimizer, _write


def _check(lr, eps, betas=None, weight_decay=0.0):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if betas is not None:
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _scalar_state(value):
    from .._creation import tensor
    return tensor(float(value))          # a float32 scalar tensor, as PyTorch's


def _weight_decay(group, p, d):
    """(parameter, gradient) after NAdam's and RAdam's weight decay: the parameter scaled
    (decoupled_weight_decay, PyTorch's param.mul_), else weight_decay * p added to the gradient."""
    lr, wd = group["lr"], group["weight_decay"]
    if wd == 0:
        return p, d
    if group["decoupled_weight_decay"]:
        return p * (1 - lr * wd), d
    return p, d.add(p, alpha=wd)


def _moments(group, state, d):
    """Adam's moment updates, written into the state: exp_avg.lerp_(d, 1 - beta1) and
    exp_avg_sq.mul_(beta2).addcmul_(d, d, value=1 - beta2); their new values."""
    beta1, beta2 = group["betas"]
    m = state["exp_avg"].lerp(d, 1 - beta1)
    _write(state["exp_avg"], m)
    v = (state["exp_avg_sq"] * beta2).addcmul(d, d, value=1 - beta2)
    _write(state["exp_avg_sq"], v)
    return m, v


class _Adaptive(Optimizer):
    """The shared step: state made on first use (its buffers zeros in the parameter's layout)."""

    _buffers = ()
    _scalars = (("step", 0.0),)

    def step(self, closure=None):
        return self._step_each(closure, self._update)

    def _update(self, group, state, k):
        if len(state) == 0:
            for name, value in self._scalars:
                state[name] = _scalar_state(value)
            for name in self._buffers:
                state[name] = k.new_state(zero=True)
        for name in self._buffers:
            state[name] = k.state(state[name])
        state["step"] += 1
        g = k.grad()
        self._apply(group, state, k.target, -g if group["maximize"] else g, state["step"].item())


class Adamax(_Adaptive):
    _buffers = ("exp_avg", "exp_inf")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    @staticmethod
    def _apply(group, state, p, d, step):
        from ..ops.elementwise import maximum
        beta1, beta2 = group["betas"]
        if group["weight_decay"] != 0:
            d = d.add(p, alpha=group["weight_decay"])
        m = state["exp_avg"].lerp(d, 1 - beta1)
        _write(state["exp_avg"], m)
        u = maximum(state["exp_inf"] * beta2, d.abs() + group["eps"])
        _write(state["exp_inf"], u)
        clr = group["lr"] / (1 - beta1 ** step)
        _write(p, p.addcdiv(m, u, value=-clr))


class NAdam(_Adaptive):
    _buffers = ("exp_avg", "exp_avg_sq")
    _scalars = (("step", 0.0), ("mu_product", 1.0))

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    @staticmethod
    def _apply(group, state, p, d, step):
        beta1, beta2 = group["betas"]
        lr, decay = group["lr"], group["momentum_decay"]
        bias_correction2 = 1 - beta2 ** step
        q, d = _weight_decay(group, p, d)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * decay))
        state["mu_product"] *= mu                  # float32, as PyTorch's scalar state
        m, v = _moments(group, state, d)
        denom = (v / bias_correction2).sqrt() + group["eps"]
        mu_product = state["mu_product"].item()
        mu_product_next = mu_product * mu_next
        q = q.addcdiv(d, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
        q = q.addcdiv(m, denom, value=-lr * mu_next / (1.0 - mu_product_next))
        _write(p, q)


class RAdam(_Adaptive):
    _buffers = ("exp_avg", "exp_avg_sq")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

    @staticmethod
    def _apply(group, state, p, d, step):
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        q, d = _weight_decay(group, p, d)
        m, v = _moments(group, state, d)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = m / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
        if rho_t > 5.0:
            # the variance is tractable: the rectified adaptive step
            adaptive_lr = bias_correction2 ** 0.5 / (v.sqrt() + group["eps"])
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            q = q.add(corrected * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            q = q.add(corrected * lr, alpha=-1.0)
        _write(p, q)


class Adadelta(_Adaptive):
    _buffers = ("square_avg", "acc_delta")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check(lr, eps, None, weight_decay)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    @staticmethod
    def _apply(group, state, p, d, step):
        rho, eps = group["rho"], group["eps"]
        if group["weight_decay"] != 0:
            d = d.add(p, alpha=group["weight_decay"])
        sa = (state["square_avg"] * rho).addcmul(d, d, value=1 - rho)
        _write(state["square_avg"], sa)
        std = (sa + eps).sqrt()
        delta = (state["acc_delta"] + eps).sqrt() / std * d
        ad = (state["acc_delta"] * rho).addcmul(delta, delta, value=1 - rho)
        _write(state["acc_delta"], ad)
        _write(p, p.add(delta, alpha=-group["lr"]))
