"""Adagrad (lr_decay, weight decay, initial accumulator value, eps, maximize): PyTorch's
single-tensor update as Tensor ops under no_grad, written raw as the fused optimizers write.
As in PyTorch, every parameter's state (step, sum) exists from construction."""
from .optimizer import Optimizer, _write


def _adagrad(p, grad, state_sum, step, lr, lr_decay, weight_decay, eps, maximize):
    d = -grad if maximize else grad
    if weight_decay != 0:
        d = d.add(p, alpha=weight_decay)
    clr = lr / (1 + (step - 1) * lr_decay)
    s = state_sum.addcmul(d, d, value=1)    # state_sum.addcmul_(grad, grad, value=1)
    _write(state_sum, s)
    std = s.sqrt() + eps
    _write(p, p.addcdiv(d, std, value=-clr))     # param.addcdiv_(grad, std, value=-clr)


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if fused:
            raise RuntimeError("Adagrad(fused=True) is not supported by nbgrad")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(group, self.state[p], p)

    @staticmethod
    def _init_state(group, state, p):
        from .._creation import full_like, tensor
        state["step"] = tensor(0.0)
        state["sum"] = full_like(p.detach(), group["initial_accumulator_value"])

    def step(self, closure=None):
        return self._step_each(closure, self._update)

    def _update(self, group, state, k):
        if len(state) == 0:         # a group added after construction
            self._init_state(group, state, k.p)
        state["sum"] = k.state(state["sum"])
        state["step"] += 1
        _adagrad(k.target, k.grad(), state["sum"], state["step"].item(), group["lr"], group["lr_decay"],
                 group["weight_decay"], group["eps"], group["maximize"])
