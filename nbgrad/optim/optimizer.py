"""Optimizer: parameter groups, per-parameter state, zero_grad and PyTorch's state-dict layout."""
import copy
from collections import defaultdict

from .._layout import is_contiguous, is_dense, order_of_strides
from .._tensor import Tensor
from ..ops._graph import copy_raw
from ..autograd.grad_mode import no_grad
from ..nn.parameter import zero_grads


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class: holds `param_groups` (list of dicts with 'params' and hyper-parameters) and
    `state` (a dict keyed by parameter)."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {type(params).__name__}")
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the "
                            "ordering of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        raise NotImplementedError

    def _step_each(self, closure, update, update_many=None):
        """A built-in optimizer's step: the closure's loss (with grad), then, with no grad,
        update(group, state, k) for each parameter that has a gradient, k being its
        kernel views (_Kernel); the parameter's version moves as an in-place op's would.
        update_many(group, params), when given, first updates what it can of a group's
        parameters with a gradient in a multi-tensor kernel (bumping their versions) and
        returns the ones it left to update()."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                if update_many is not None and params:
                    params = update_many(group, params)
                for p in params:
                    k = _Kernel(p)
                    update(group, self.state[p], k)
                    k.done()
                    _bump_version(p)
        return loss

    def _closure_loss(self, closure):
        if closure is None:
            return None
        from ..autograd.grad_mode import enable_grad
        with enable_grad():
            return closure()

    # -- state dicts (PyTorch's layout: parameters become their index across groups) --
    def state_dict(self):
        index = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        # as PyTorch: the groups are deep-copied, state tensors are taken as they are
        # (cast to each parameter's dtype/device when those differ)
        state_dict = dict(state_dict)
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = {}
        for g, s in zip(groups, saved_groups):
            for old, p in zip(s["params"], g["params"]):
                id_map[old] = p
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            key = int(k) if isinstance(k, str) and k.lstrip("-").isdigit() else k
            if key in id_map:
                p = id_map[key]
                state[p] = {name: self._cast_state(p, name, value) for name, value in v.items()}
            else:
                state[k] = copy.deepcopy(v)
        new_groups = []
        for g, s in zip(groups, saved_groups):
            s = dict(s)
            s["params"] = g["params"]
            new_groups.append(s)
        self.state = state
        self.param_groups = new_groups

    @staticmethod
    def _cast_state(param, name, value):
        if not isinstance(value, Tensor):
            return value
        if name == "step":   # kept as saved: a float32 scalar tensor
            return value
        if value.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\n" + f"Parameter Group {i}"
            for key in sorted(group.keys()):
                if key != "params":
                    s += "\n" + f"    {key}: {group[key]}"
        return s + "\n)"


class _Kernel:
    """The views a fused update kernel gets for p, its gradient and its state buffers:
    contiguous views over their memory.  A contiguous p is used as it is; a dense
    permuted p (a transposed weight) is viewed in its memory order, written in place,
    with its state kept in p's layout (PyTorch: zeros_like(p, preserve_format)); any
    other p is updated through a contiguous copy written back afterwards."""

    def __init__(self, p):
        self.p = p
        self.order = None
        if not p.is_contiguous() and is_dense(p._shape, p._stride) and min(p._stride, default=0) >= 0:
            self.order = order_of_strides(p._shape, p._stride)
            self.target, self.write_back = p, None
        else:
            self.target, self.write_back = _in_place_target(p)

    def view(self, t):
        """t's backend view for the kernel (t of p's shape, in p's layout or contiguous)."""
        if self.order is None:
            return t._view_tuple()
        order = self.order
        buf, off, shape, strides = t._view_tuple()
        v = (buf, off, tuple([shape[d] for d in order]), tuple([strides[d] for d in order]))
        if not is_contiguous(v[2], v[3]):
            raise RuntimeError("optimizer state is not laid out as its parameter")
        return v

    def grad(self):
        g = self.p.grad
        if g.dtype is not self.p.dtype:
            g = g.to(self.p.dtype)
        if self.order is None:
            return g.contiguous()
        if g._stride != self.p._stride:
            g = copy_raw(g, self.p._stride)
        return g

    def new_state(self, zero):
        """A new state buffer of p's shape, dtype, device and kernel layout."""
        from .._creation import empty, zeros
        make = zeros if zero else empty
        t = make(self.p.shape, dtype=self.p.dtype, device=self.p.device)
        if self.order is not None:
            t._stride = tuple(self.p._stride)     # uniform (or unwritten) values: a re-stride
        return t

    def state(self, t):
        """t (a loaded state buffer) re-laid as the kernel needs it, or t itself."""
        if t is None or self.order is None or t._stride == self.p._stride:
            return t
        return copy_raw(t, self.p._stride)

    def done(self):
        if self.write_back is not None:
            self.write_back()


def _contiguous_grad(p):
    """p.grad as a contiguous tensor of p's dtype (for the fused kernels)."""
    g = p.grad
    if g.dtype is not p.dtype:
        g = g.to(p.dtype)
    return g.contiguous()


def _in_place_target(p):
    """(tensor to update, write-back or None): a contiguous stand-in when p is not contiguous."""
    if p.is_contiguous():
        return p, None
    tmp = p.detach().contiguous()   # a contiguous copy (clone would keep the strides)
    return tmp, (lambda: p.detach().copy_(tmp))


def _write(dst, src):
    """dst's values replaced by src's (same shape, new memory): a raw store, as a fused
    update kernel's, so that versions move only where the kernels' do (_bump_version)."""
    dst._backend().copy(src._view_tuple(), dst._view_tuple())


def _bump_version(p):
    p._vc.value += 1   # as an in-place op would: saved copies of p are now stale


__all__ = ["Optimizer", "required", "no_grad"]
