"""What a compiled function can see and change besides its arguments: its *state*.

Found by reachability from the call's arguments, the function's closure cells, the
globals its code names and a bound method's object: tensors, modules (their parameters,
buffers and `training` flags), optimizers (their parameters, hyper-parameters and state)
and containers of these.  Each place a tensor can sit is a *slot* (an argument, a
parameter, `p.grad`, `optimizer.state[p]['momentum_buffer']`, a module buffer, a closure
cell): read before and after the captured call, the slots say what the call rebound
(`p.grad` to a new tensor) and which tensors it changed in place (their versions), which
the compiled call then does again.  Python numbers among these (hyper-parameters, closure
constants) are guarded: a changed learning rate retraces rather than going stale.
"""
import types

from .._tensor import Tensor

_MAX_DEPTH = 3


class Slot:
    """One place a tensor can sit: get() reads it, set(t) rebinds it (None: cannot).
    kind: 'arg' (a tensor of the call's arguments: a new one each call is fine),
    'fixed' (a parameter, a captured tensor: must be the same object every call),
    'rebindable' (p.grad, optimizer state, module buffers: the call may rebind it)."""
    __slots__ = ("desc", "get", "set", "kind")

    def __init__(self, desc, get, set_=None, kind="rebindable"):
        self.desc, self.get, self.set, self.kind = desc, get, set_, kind


def _is_module(obj):
    from ..nn.modules.module import Module
    return isinstance(obj, Module)


def _is_optimizer(obj):
    from ..optim.optimizer import Optimizer
    return isinstance(obj, Optimizer)


class State:
    """The slots, number constants and flags reachable from one call."""

    def __init__(self):
        self.slots = []
        self.numbers = []           # (desc, getter, value at capture): guarded by ==
        self.number_sources = {}    # desc -> (id(container), key)
        self.flags = []             # (desc, getter, value): module.training and the like, ==
        self.objects = []           # (desc, getter, object): modules/optimizers, guarded by `is`
        self.current = [(), {}]     # the call's (args, kwargs), read by the argument getters
        self._seen = set()
        self._tensor_seen = set()
        self.modules = []
        self.optimizers = []

    # -- discovery -------------------------------------------------------
    def add_tensor_slot(self, desc, get, set_=None, kind="rebindable"):
        self.slots.append(Slot(desc, get, set_, kind))

    def visit(self, desc, obj, get, depth=0, arg=False):
        if isinstance(obj, Tensor):
            self.add_tensor_slot(desc, get, kind="arg" if arg else "fixed")
            if id(obj) not in self._tensor_seen:
                self._tensor_seen.add(id(obj))
                self.add_tensor_slot(f"{desc}.grad", lambda get=get: get()._grad,
                                     lambda g, get=get: setattr(get(), "_grad", g))
            return
        if isinstance(obj, bool) or isinstance(obj, (int, float)):
            self.numbers.append((desc, get, obj))
            return
        if depth > _MAX_DEPTH:
            return
        if _is_module(obj) or _is_optimizer(obj):
            self.objects.append((desc, get, obj))
            if id(obj) in self._seen:
                return
            self._seen.add(id(obj))
            (self._module if _is_module(obj) else self._optimizer)(desc, obj)
        elif isinstance(obj, (list, tuple, dict)):
            if not arg:
                # a captured container: its length and element identities are guarded by
                # the slots and numbers found in it
                if id(obj) in self._seen:
                    return
                self._seen.add(id(obj))
            items = obj.items() if isinstance(obj, dict) else enumerate(obj)
            found = len(self.slots) + len(self.numbers) + len(self.objects)
            flag = (f"len({desc})", lambda get=get: _length(get()), len(obj))
            self.flags.append(flag)
            for k, item in list(items):
                if isinstance(k, (str, int)):
                    self.visit(f"{desc}[{k!r}]", item, lambda get=get, k=k: get()[k], depth + 1, arg)
            if found == len(self.slots) + len(self.numbers) + len(self.objects):
                self.flags.remove(flag)      # nothing of the step's in it: its length is not the step's

    def _module(self, desc, mod):
        self.modules.append(mod)
        for name, m in mod.named_modules():
            prefix = f"{desc}.{name}" if name else desc
            self.flags.append((f"{prefix}.training", lambda m=m: m.training, m.training))
            for pname, p in m._parameters.items():
                if p is None:
                    continue
                self.visit(f"{prefix}.{pname}", p, lambda m=m, pname=pname: m._parameters.get(pname))
                self.objects.append((f"{prefix}.{pname}", lambda m=m, pname=pname: m._parameters.get(pname), p))
            for bname, b in m._buffers.items():
                if b is None:
                    continue
                d = f"{prefix}.{bname}"
                if id(b) not in self._tensor_seen:
                    self._tensor_seen.add(id(b))
                self.add_tensor_slot(d, lambda m=m, bname=bname: m._buffers.get(bname),
                                     lambda t, m=m, bname=bname: m._buffers.__setitem__(bname, t))

    def _optimizer(self, desc, opt):
        self.optimizers.append(opt)
        for gi, group in enumerate(opt.param_groups):
            for key, val in group.items():
                if key == "params":
                    self.flags.append((f"len({desc}.param_groups[{gi}]['params'])",
                                       lambda g=group: len(g["params"]), len(val)))
                    for pi, p in enumerate(val):
                        get = lambda g=group, pi=pi: g["params"][pi]      # noqa: E731
                        self.visit(f"{desc}.param_groups[{gi}]['params'][{pi}]", p, get)
                        self.objects.append((f"{desc}.param_groups[{gi}]['params'][{pi}]", get, p))
                elif isinstance(val, (int, float, bool)) or (isinstance(val, tuple) and all(
                        isinstance(v, (int, float)) for v in val)):
                    d = f"{desc}.param_groups[{gi}][{key!r}]"
                    self.numbers.append((d, lambda g=group, k=key: g.get(k), val))
                    self.number_sources[d] = (id(group), key)
        self.flags.append((f"{desc}.state", lambda o=opt: _state_shape(o), _state_shape(opt)))
        self.slots += self.state_slots(opt, desc)
        for p, st in list(opt.state.items()):
            pdesc = f"{desc}.state[{_param_index(opt, p)}]"
            for k, v in list(st.items()):
                if isinstance(v, (int, float)) and not isinstance(v, Tensor):
                    self.numbers.append((f"{pdesc}[{k!r}]", lambda st=st, k=k: st.get(k), v))

    @staticmethod
    def state_slots(opt, desc):
        """A slot per tensor of the optimizer's state (read before a capture, and again after
        it for the entries a first step made: rebound by every compiled call)."""
        out = []
        for p, st in list(opt.state.items()):
            pdesc = f"{desc}.state[{_param_index(opt, p)}]"
            for k, v in list(st.items()):
                if isinstance(v, Tensor):
                    out.append(Slot(f"{pdesc}[{k!r}]", lambda st=st, k=k: st.get(k),
                                    lambda t, st=st, k=k: st.__setitem__(k, t)))
        return out


def _length(obj):
    try:
        return len(obj)
    except TypeError:
        return None


def _param_index(opt, p):
    i = 0
    for group in opt.param_groups:
        for q in group["params"]:
            if q is p:
                return i
            i += 1
    return "?"


def _state_shape(opt):
    """The keys of every parameter's optimizer state (a first step adds them); parameters by
    identity (their identity is guarded too)."""
    return tuple((id(p), tuple(st)) for p, st in opt.state.items())


def code_globals(fn):
    """(name, value) of the globals fn's code (and the code it nests) names."""
    code = fn.__code__
    names, stack = set(), [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    g = fn.__globals__
    return [(n, g[n]) for n in sorted(names) if n in g]


def discover(fn, args, kwargs):
    """The State reachable from one call."""
    st = State()
    cur = st.current
    for i, a in enumerate(args):
        st.visit(f"args[{i}]", a, lambda i=i: cur[0][i], arg=True)
    for k, a in kwargs.items():
        st.visit(f"{k}=", a, lambda k=k: cur[1][k], arg=True)
    target = fn
    if _is_module(fn):
        st.visit("module", fn, lambda fn=fn: fn)
        target = type(fn).forward
    self_obj = getattr(fn, "__self__", None)
    if self_obj is not None and not isinstance(self_obj, types.ModuleType):
        st.visit("self", self_obj, lambda o=self_obj: o)
        target = fn.__func__
    code = getattr(target, "__code__", None)
    for i, d in enumerate(getattr(target, "__defaults__", None) or ()):
        st.visit(f"defaults[{i}]", d, lambda target=target, i=i: target.__defaults__[i])
    for k, d in (getattr(target, "__kwdefaults__", None) or {}).items():
        st.visit(f"defaults[{k!r}]", d, lambda target=target, k=k: target.__kwdefaults__[k])
    if code is not None:
        for name, cell in zip(code.co_freevars, target.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            st.visit(name, value, lambda cell=cell: cell.cell_contents)
        g = target.__globals__
        for name, value in code_globals(target):
            if isinstance(value, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)):
                continue
            st.visit(name, value, lambda g=g, name=name: g.get(name))
    return st
