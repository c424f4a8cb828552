"""SGD with momentum, dampening, Nesterov, weight decay and maximize: one fused kernel per parameter."""
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, _Kernel, _bump_version, required


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
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                momentum = group["momentum"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    k = _Kernel(p)
                    buf = k.state(state.get("momentum_buffer"))
                    init = False
                    if momentum != 0 and buf is None:
                        buf = k.new_state(zero=False)
                        init = True
                    grad = k.grad()
                    k.target._backend().sgd_step(
                        k.view(k.target), k.view(grad), None if buf is None else k.view(buf),
                        init, group["lr"], group["weight_decay"], momentum, group["dampening"],
                        group["nesterov"], group["maximize"])
                    k.done()
                    if momentum != 0:
                        state["momentum_buffer"] = buf
                    _bump_version(p)
        return loss

