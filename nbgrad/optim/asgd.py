"""ASGD (averaged SGD): PyTorch's single-tensor update (what its CPU runs) op for op as
Tensor ops under no_grad, the parameter and the average ax written raw (optimizer.py's
_write). Its step, eta and mu are float32 scalar tensors, read back as Python floats where
PyTorch reads them (.item()), so their rounding is PyTorch's."""
from .optimizer import Optimizer, _write


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                 differentiable=False, capturable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def step(self, closure=None):
        return self._step_each(closure, self._update)

    @staticmethod
    def _update(group, state, k):
        if len(state) == 0:
            from .._creation import tensor
            device = k.p.device                         # PyTorch keeps all three on the parameter's device
            state["step"] = tensor(0.0, device=device)
            state["eta"] = tensor(float(group["lr"]), device=device)
            state["mu"] = tensor(1.0, device=device)
            state["ax"] = k.new_state(zero=True)
        state["ax"] = k.state(state["ax"])
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        g = k.grad()
        d = -g if group["maximize"] else g
        p, ax = k.target, state["ax"]
        state["step"] += 1
        if group["weight_decay"] != 0:
            d = d.add(p, alpha=group["weight_decay"])
        eta = state["eta"].item()
        q = p.mul(1 - lambd * eta)                      # param.mul_(1 - lambd * eta)
        q = q.add(d, alpha=-eta)                        # param.add_(grad, alpha=-eta)
        _write(p, q)
        if state["mu"].item() != 1:
            _write(ax, ax.add(q.sub(ax).mul(state["mu"])))   # ax.add_(param.sub(ax).mul_(mu))
        else:
            _write(ax, q)
        step = state["step"].item()
        state["eta"].fill_(lr / ((1 + lambd * lr * step) ** alpha))
        state["mu"].fill_(1 / max(1, step - t0))
