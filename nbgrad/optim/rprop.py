"""Rprop: PyTorch's single-tensor update (what its CPU runs) op for op as Tensor ops under
no_grad -- the sign of grad * prev mapped to etaplus / etaminus / 1, the step sizes scaled
and clamped, the gradient zeroed where the sign flipped -- each state buffer and the
parameter written raw (optimizer.py's _write). The step counter is a float32 scalar tensor."""
from .adaptive import _scalar_state
from .optimizer import Optimizer, _write


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def step(self, closure=None):
        return self._step_each(closure, self._update)

    @staticmethod
    def _update(group, state, k):
        from ..ops.elementwise import where
        if len(state) == 0:
            state["step"] = _scalar_state(0.0)
            state["prev"] = k.new_state(zero=True)
            state["step_size"] = k.new_state(zero=False)
            state["step_size"].fill_(group["lr"])
        for name in ("prev", "step_size"):
            state[name] = k.state(state[name])
        state["step"] += 1
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        g = k.grad()
        d = -g if group["maximize"] else g
        prev, step_size, p = state["prev"], state["step_size"], k.target
        sign = d.mul(prev).sign()
        # sign[sign.gt(0)] = etaplus; sign[sign.lt(0)] = etaminus; sign[sign.eq(0)] = 1
        sign = where(sign.gt(0), etaplus, sign)
        sign = where(sign.lt(0), etaminus, sign)
        sign = where(sign.eq(0), 1, sign)
        _write(step_size, step_size.mul(sign).clamp(step_size_min, step_size_max))
        d = where(sign.eq(etaminus), 0, d)              # grad[sign.eq(etaminus)] = 0
        _write(p, p.addcmul(d.sign(), step_size, value=-1))
        _write(prev, d)
