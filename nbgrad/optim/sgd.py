"""SGD with momentum, dampening, Nesterov, weight decay and maximize: one fused kernel per parameter."""
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, _bump_version, _contiguous_grad, _in_place_target, required


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
                    target, write_back = _in_place_target(p)
                    buf = state.get("momentum_buffer")
                    init = False
                    if momentum != 0 and buf is None:
                        buf = _empty_like(target)
                        init = True
                    grad = _contiguous_grad(p)
                    target._backend().sgd_step(
                        target._view_tuple(), grad._view_tuple(), None if buf is None else buf._view_tuple(),
                        init, group["lr"], group["weight_decay"], momentum, group["dampening"],
                        group["nesterov"], group["maximize"])
                    if write_back is not None:
                        write_back()
                    if momentum != 0:
                        state["momentum_buffer"] = buf
                    _bump_version(p)
        return loss


def _empty_like(t):
    from .._creation import empty
    return empty(t.shape, dtype=t.dtype, device=t.device)
