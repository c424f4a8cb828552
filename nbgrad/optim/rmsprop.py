"""RMSprop (alpha, eps, weight decay, momentum, centered, maximize): PyTorch's single-tensor
update as Tensor ops under no_grad, the parameter and its state written raw as the fused
optimizers write them (optimizer.py's _write)."""
from .optimizer import Optimizer, _write


def _rmsprop(p, grad, square_avg, grad_avg, buf, lr, alpha, eps, weight_decay, momentum, centered, maximize):
    d = -grad if maximize else grad
    if weight_decay != 0:
        d = d.add(p, alpha=weight_decay)
    v = (square_avg * alpha).addcmul(d, d, value=1 - alpha)    # square_avg.mul_(alpha).addcmul_(grad, grad, ...)
    _write(square_avg, v)
    if centered:
        # grad_avg.lerp_(grad, 1 - alpha); avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        m = grad_avg.lerp(d, 1 - alpha)
        _write(grad_avg, m)
        avg = v.addcmul(m, m, value=-1).sqrt()
    else:
        avg = v.sqrt()
    avg = avg + eps
    if momentum > 0:
        b = (buf * momentum).addcdiv(d, avg)       # buf.mul_(momentum).addcdiv_(grad, avg)
        _write(buf, b)
        _write(p, p.add(b, alpha=-lr))
    else:
        _write(p, p.addcdiv(d, avg, value=-lr))    # param.addcdiv_(grad, avg, value=-lr)


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure, self._update)

    @staticmethod
    def _update(group, state, k):
        from .._creation import tensor
        if len(state) == 0:
            state["step"] = tensor(0.0)      # a float32 scalar tensor, as PyTorch's
            state["square_avg"] = k.new_state(zero=True)
            if group["momentum"] > 0:
                state["momentum_buffer"] = k.new_state(zero=True)
            if group["centered"]:
                state["grad_avg"] = k.new_state(zero=True)
        for name in ("square_avg", "momentum_buffer", "grad_avg"):
            if name in state:
                state[name] = k.state(state[name])
        state["step"] += 1
        _rmsprop(k.target, k.grad(), state["square_avg"], state.get("grad_avg"), state.get("momentum_buffer"),
                 group["lr"], group["alpha"], group["eps"], group["weight_decay"], group["momentum"],
                 group["centered"], group["maximize"])
