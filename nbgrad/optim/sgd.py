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
        return self._step_each(closure, self._update, self._update_many)

    def _update_many(self, group, params):
        """PyTorch's foreach step: all of a group's parameters in the backend's multi-tensor
        kernel (sgd_step_many, each element as sgd_step updates it) when they are contiguous,
        of one dtype and device, with contiguous gradients of that dtype and momentum buffers
        all present or all new; otherwise none of them (returned, for the per-parameter path,
        which keeps the order of the updates)."""
        first = params[0]
        if group["foreach"] is False or not accelerated(first, "sgd_step"):
            return params
        backend = first._backend()
        many = getattr(backend, "sgd_step_many", None)
        dtype, device = first._dtype, first._storage.device
        if many is None:
            return params
        momentum = group["momentum"]
        states = self.state
        bufs = [] if momentum != 0 else None
        init = None
        for p in params:
            g = p.grad
            if (p._dtype is not dtype or p._storage.device is not device or g._dtype is not dtype
                    or not p.is_contiguous() or not g.is_contiguous()):
                return params
            if momentum != 0:
                buf = states[p].get("momentum_buffer") if p in states else None
                if init is None:
                    init = buf is None
                if (buf is None) is not init or (buf is not None and (
                        buf._dtype is not dtype or buf._storage.device is not device or not buf.is_contiguous())):
                    return params
                bufs.append(buf)
        if momentum != 0 and init:
            from .._creation import empty
            bufs = [empty(p.shape, dtype=dtype, device=p.device) for p in params]
        many([p._view_tuple() for p in params], [p.grad._view_tuple() for p in params],
             None if bufs is None else [b._view_tuple() for b in bufs],
             bool(init), group["lr"], group["weight_decay"], momentum, group["dampening"], group["nesterov"],
             group["maximize"])
        for i, p in enumerate(params):
            state = states[p]       # (an entry for every updated parameter, as the per-parameter path)
            if momentum != 0:
                state["momentum_buffer"] = bufs[i]
            p._vc.value += 1        # as an in-place op would: saved copies of p are now stale
        return ()

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

