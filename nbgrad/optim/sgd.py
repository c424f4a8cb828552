"""SGD with momentum, dampening, Nesterov, weight decay and maximize: one fused kernel per
parameter (the backend's `sgd_step` acceleration), else PyTorch's single-tensor formula as
Tensor ops."""
from ..ops._graph import accelerated
from .optimizer import Optimizer, _write, required


def _sgd_composed(p, grad, buf, init_buf, lr, weight_decay, momentum, dampening, nesterov, maximize):
    """The fallback of the backend's sgd_step (under no_grad): PyTorch's _single_tensor_sgd,
    out of place, then p and buf written raw as the kernel writes them."""
    d = -grad if maximize else grad
    if weight_decay != 0:
        d = d.add(p, alpha=weight_decay)
    if momentum != 0:
        b = d if init_buf else buf.mul(momentum).add(d, alpha=1 - dampening)
        _write(buf, b)
        d = d.add(b, alpha=momentum) if nesterov else b
    _write(p, p.add(d, alpha=-lr))


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure, self._update)

    @staticmethod
    def _update(group, state, k):
        momentum = group["momentum"]
        buf = k.state(state.get("momentum_buffer"))
        init = False
        if momentum != 0 and buf is None:
            buf = k.new_state(zero=False)
            init = True
        grad = k.grad()
        args = (init, group["lr"], group["weight_decay"], momentum, group["dampening"],
                group["nesterov"], group["maximize"])
        if accelerated(k.target, "sgd_step"):
            k.target._backend().sgd_step(k.view(k.target), k.view(grad), None if buf is None else k.view(buf), *args)
        else:
            _sgd_composed(k.target, grad, buf, *args)
        if momentum != 0:
            state["momentum_buffer"] = buf

