"""Custom differentiable functions: subclass Function, write forward(ctx, ...) and backward(ctx, ...).

ctx.save_for_backward's tensors are saved as every built-in op's (Node.save), so the
saved-tensor hooks (nbgrad.autograd.graph.saved_tensors_hooks) pack and unpack them too.
"""
from .grad_mode import no_grad
from .node import FREED_MSG, Node, SavedTensorHandle


class FunctionCtx:
    """The `ctx` handed to forward and backward."""

    def save_for_backward(self, *tensors):
        self.to_save = tensors

    def mark_dirty(self, *tensors):
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node of a custom Function: it is also the ctx (as in PyTorch)."""

    _fn_cls = None
    materialize_grads = True

    def name(self):
        return type(self).__name__

    @property
    def saved_tensors(self):
        return Node.saved_tensors.fget(self)

    @property
    def _raw_saved_tensors(self):
        """One handle per saved tensor, for register_hooks (PyTorch's ctx._raw_saved_tensors)."""
        if self._freed:
            raise RuntimeError(FREED_MSG)
        return tuple([SavedTensorHandle(self, i) for i in range(len(self._saved))])

    @property
    def needs_input_grad(self):
        return self._needs_input_grad

    def backward(self, *grads):
        # one gradient per output, as PyTorch passes them: the engine's list ends at the last
        # output that received one (a, b = F.apply(x); a.sum().backward() sends b nothing)
        missing = len(self._out_meta) - len(grads)
        if missing > 0:
            grads = grads + (None,) * missing
        if self.materialize_grads:
            from .._creation import zeros
            grads = tuple(g if g is not None else zeros(shape, dtype=dt) for g, (shape, dt) in zip(grads, self._out_meta))
        out = self._fn_cls.backward(self, *grads)
        if not isinstance(out, tuple):
            out = (out,)
        # one gradient per forward argument; non-tensor arguments get None
        grads = []
        it = iter(out)
        for is_tensor in self._arg_is_tensor:
            g = next(it, None)
            grads.append(g if is_tensor else None)
        return tuple(grads[i] for i in self._tensor_positions)


class FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_fn_cls": cls})


class Function(metaclass=FunctionMeta):
    """Define forward(ctx, *args) and backward(ctx, *grad_outputs) as staticmethods; call apply."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor import Tensor
        from .graph import needs_grad, record
        tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in tensor_positions]
        node = cls._backward_cls.__new__(cls._backward_cls)
        node._needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            outputs = cls.forward(node, *args, **kwargs)
        is_tuple = isinstance(outputs, tuple)
        outs = outputs if is_tuple else (outputs,)
        if needs_grad(*tensors):
            non_diff = getattr(node, "non_differentiable", ())
            new_outs = []
            for o in outs:
                if isinstance(o, Tensor) and any(o is t for t in tensors):
                    o = o.view_as(o) if not any(o is d for d in getattr(node, "dirty_tensors", ())) else o
                new_outs.append(o)
            outs = tuple(new_outs)
            # the same recording as every built-in op's: edges, input metadata, outputs
            # (non-tensor and non-differentiable outputs keep their number, get no grad_fn)
            record(cls._backward_cls, tensors,
                   [o if isinstance(o, Tensor) and not any(o is n for n in non_diff) else None for o in outs],
                   node=node)
            node._arg_is_tensor = [isinstance(a, Tensor) for a in args]
            node._tensor_positions = tensor_positions
            node._out_meta = [(o.shape, o.dtype) if isinstance(o, Tensor) else ((), None) for o in outs]
            saved = getattr(node, "to_save", ())
            node.save(*saved, outputs=outs)
        else:
            saved = getattr(node, "to_save", ())
            node._saved_plain = saved
        # Views returned by a custom Function (an input returned as-is included) may not be
        # modified in place: the view+inplace logic would bypass the custom backward.
        skip = tuple(getattr(node, "non_differentiable", ())) + tuple(getattr(node, "dirty_tensors", ()))
        for o in outs:
            if isinstance(o, Tensor) and o._base is not None and o._dtype.is_floating_point \
                    and not any(o is n for n in skip):
                o._creation_meta = "IN_CUSTOM_FUNCTION"
        return outs if is_tuple else outs[0]


class once_differentiable:
    def __new__(cls, fn):
        return fn
