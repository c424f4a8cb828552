"""nbgrad.custom_op: a user's own Numba kernels as an op with a graph node and a backward.

    @numba.njit
    def laplace_fwd(u, out):                    # reads and writes NumPy arrays
        for i in range(1, u.shape[0] - 1):
            out[i] = u[i - 1] - 2 * u[i] + u[i + 1]

    @numba.njit
    def laplace_bwd(grad, u, out, grad_u):      # grad_u arrives zero-filled
        for i in range(1, u.shape[0] - 1):
            grad_u[i - 1] += grad[i]
            grad_u[i] -= 2 * grad[i]
            grad_u[i + 1] += grad[i]

    laplace = nbgrad.custom_op("laplace", laplace_fwd, laplace_bwd)
    y = laplace(u)                              # y.grad_fn: <LaplaceBackward ...>

The contract:
  forward(*args, out)                  args: the call's arguments, tensors as arrays
                                       aliasing their memory, numbers as they are;
                                       out: the zero-filled result to write.
  backward(grad, *args, out, *grads)   grads: one zero-filled array per argument (of its
                                       shape and dtype; a number's is a 0-dim array),
                                       to write d loss / d argument into.
  output(*specs) -> shape | (shape, dtype)
                                       specs: each tensor's shape, each number itself;
                                       default: the first tensor's shape and dtype.
  contiguous=True                      the kernels index their arrays as C-contiguous:
                                       strided tensors (and the gradient) are copied
                                       first; else they arrive with their own strides.
  cuda_forward/cuda_backward, launch   @cuda.jit kernels of the same signatures for CUDA
                                       tensors (always given contiguous device arrays),
                                       launched as kernel[griddim, blockdim]; launch is
                                       that pair, or a function of the specs giving it
                                       (default: one thread per element of the result).
  composite_backward(grad, *args, out) -> one gradient per argument, written with nbgrad
                                       Tensor ops: what a backward under create_graph=True
                                       runs (differentiable again), and the backward when
                                       no kernel is given.  Without it, create_graph=True
                                       raises.
  input_dtypes                         the dtypes the kernels take (others: TypeError).

The node (`<Name>Backward`, from the op's name) saves the tensor arguments and the
result with their versions: changing one in place before backward raises as for any
op.  Errors name the op: a refused dtype, a device mismatch, an `output` that raised or
returned no shape, a kernel that raised or would not compile for the arguments.
"""
import math

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import Node
from ._graph import backend_of, needs_grad, new_tensor, record


def _camel(name):
    head = name.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
    return "".join(part[:1].upper() + part[1:] for part in head.split("_") if part)


def _is_number(a):
    return isinstance(a, (int, float))


class CustomOpBackward(Node):
    """The node of a custom op; subclassed per op for its name (`LaplaceBackward`)."""

    op = None

    def backward(self, g):
        op = self.op
        saved = self.saved_tensors
        tensors, out = saved[:-1], saved[-1]
        args = list(self.args)
        for pos, t in zip(self.tensor_positions, tensors):
            args[pos] = t
        wanted = [self.needs_input_grad(i) for i in range(len(tensors))]
        if not any(wanted):
            return (None,) * len(tensors)
        recorded = is_grad_enabled() and (g.requires_grad or any(t.requires_grad for t in tensors))
        kernel = op.cuda_backward if g._storage.device.type == "cuda" else op.backward
        if recorded or kernel is None:
            if op.composite_backward is None:
                if recorded:
                    raise RuntimeError(
                        f"custom op '{op.name}': its backward kernel is not differentiable, so "
                        "create_graph=True needs a composite_backward= written with nbgrad Tensor "
                        "ops (a second derivative of this op is otherwise unavailable)")
                raise RuntimeError(f"custom op '{op.name}' has no backward for {g.device.type} tensors: "
                                   "pass backward= (or cuda_backward=) or composite_backward=")
            grads = op.composite_backward(g, *args, out)
            if isinstance(grads, Tensor) or grads is None:
                grads = (grads,)
            grads = tuple(grads)
            if len(grads) != len(args):
                raise RuntimeError(f"custom op '{op.name}': composite_backward returned {len(grads)} "
                                   f"gradients for {len(args)} arguments")
            result = []
            for i, (pos, w) in enumerate(zip(self.tensor_positions, wanted)):
                gi = grads[pos] if w else None
                if gi is not None:
                    self._check_gradient(i, gi, tensors[i])
                result.append(gi)
            return tuple(result)
        # the user's kernel: zero-filled gradient buffers, written by it
        device = g.device
        be = backend_of(g)
        grad_bufs = [new_tensor(be.empty(a.numel(), a._dtype.np), a._shape, a._dtype, device)
                     if isinstance(a, Tensor) else new_tensor(be.empty(1, D.float64.np), (), D.float64, device)
                     for a in args]
        cuda = device.type == "cuda"
        with no_grad():
            g_in = g.contiguous() if (op.contiguous or cuda) else g
            views = ([g_in._view_tuple()] + [op._kernel_arg(a, cuda) for a in args] + [out._view_tuple()]
                     + [b._view_tuple() for b in grad_bufs])
        launch = None
        if cuda:
            specs = [tuple(a.shape) if isinstance(a, Tensor) else a for a in args]
            launch = op._launch(specs, out.numel())
        op._run(be, kernel, "backward", views, args, launch, len(grad_bufs))
        return tuple(grad_bufs[pos] if w else None for pos, w in zip(self.tensor_positions, wanted))


    def _check_gradient(self, i, grad, inp):
        """PyTorch's validate_outputs: a gradient has the input's shape or one the input's
        shape expands to (the engine sums it down)."""
        if not isinstance(grad, Tensor):
            raise TypeError(f"custom op '{self.op.name}': composite_backward must return tensors or None, "
                            f"got {type(grad).__name__} for argument {self.tensor_positions[i]}")
        want, got = tuple(inp.shape), tuple(grad.shape)
        expandable = len(want) <= len(got) and all(
            w == g or w == 1 for w, g in zip(reversed(want), reversed(got)))
        if not expandable:
            raise RuntimeError(f"Function {self.name()} returned an invalid gradient at index {i} - got "
                               f"[{', '.join(map(str, got))}] but expected shape compatible with "
                               f"[{', '.join(map(str, want))}]")


class CustomOp:
    """A user op over Numba kernels (see this module's docstring); call it on tensors."""

    def __init__(self, name, forward, backward=None, *, output=None, contiguous=False, cuda_forward=None,
                 cuda_backward=None, launch=None, composite_backward=None, input_dtypes=None):
        if not isinstance(name, str) or not name:
            raise TypeError("custom_op: name must be a non-empty string")
        self.name = name
        self.forward = forward
        self.backward = backward
        self.output = output
        self.contiguous = bool(contiguous)
        self.cuda_forward = cuda_forward
        self.cuda_backward = cuda_backward
        self.launch = launch
        self.composite_backward = composite_backward
        self.input_dtypes = None if input_dtypes is None else tuple(D.to_dtype(d) for d in input_dtypes)
        self.node_class = type(_camel(name) + "Backward", (CustomOpBackward,), {"op": self, "__module__": __name__})
        self.__name__ = name

    def __repr__(self):
        return f"<nbgrad.custom_op '{self.name}'>"

    # -- pieces ------------------------------------------------------------------------
    def _fail(self, exc_type, message):
        return exc_type(f"custom op '{self.name}': {message}")

    def _kernel_arg(self, a, cuda):
        """A tensor as the view its kernel reads (contiguous where declared, and on CUDA),
        a number as it is."""
        if not isinstance(a, Tensor):
            return a
        if (self.contiguous or cuda) and not a.is_contiguous():
            a = a.contiguous()
        return a._view_tuple()

    def _output_spec(self, args, specs):
        if self.output is None:
            first = next(a for a in args if isinstance(a, Tensor))
            return tuple(first.shape), first.dtype
        try:
            spec = self.output(*specs)
        except (ValueError, TypeError, RuntimeError, IndexError) as exc:
            raise type(exc)(f"custom op '{self.name}': {exc}") from exc
        dtype = None
        if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], D.dtype):
            spec, dtype = spec
        if dtype is None:
            dtype = next(a for a in args if isinstance(a, Tensor)).dtype
        try:
            shape = tuple(int(s) for s in spec)
            ok = all(s >= 0 for s in shape) and all(float(s) == int(s) for s in spec)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise self._fail(ValueError, f"output= returned {spec!r}, expected a shape (a tuple of "
                                         "non-negative ints) or (shape, dtype)")
        return shape, dtype

    def _launch(self, specs, n):
        launch = self.launch
        if launch is None:
            threads = 128
            return (max(1, -(-n // threads)), threads)
        return launch(*specs) if callable(launch) else launch

    def _run(self, be, kernel, which, views, args, launch, n_outputs):
        """The kernel on the views (the last n_outputs zero-filled first), its failures
        reported under the op's name."""
        try:
            be.run_user_kernel(kernel, views, launch, n_outputs)
        except Exception as exc:
            kinds = [f"{a.dtype} tensor of shape {tuple(a.shape)}" if isinstance(a, Tensor) else type(a).__name__
                     for a in args]
            if isinstance(exc, TypeError) or type(exc).__name__ in ("TypingError", "NumbaTypeError"):
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                raise self._fail(TypeError, f"the {which} kernel does not accept the arguments "
                                            f"({', '.join(kinds)}): {first}") from exc
            raise self._fail(RuntimeError, f"the {which} kernel raised {type(exc).__name__}: {exc}") from exc

    # -- the call ----------------------------------------------------------------------
    def __call__(self, *args):
        # (a call on a few small tensors is mostly this Python: U2 times it against a built-in
        # op on 16 elements, so the checks below touch each argument once)
        tensors, positions = [], []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                tensors.append(a)
                positions.append(i)
            elif not _is_number(a):
                raise self._fail(TypeError, f"argument {i} must be a tensor or a Python number, "
                                            f"got {type(a).__name__}")
        if not tensors:
            raise self._fail(TypeError, "needs at least one tensor argument")
        first = tensors[0]
        first_device = first._storage.device
        if len(tensors) > 1 or self.input_dtypes is not None:
            self._check_tensors(tensors, positions, first_device)
        cuda = first_device.type == "cuda"
        kernel = self.cuda_forward if cuda else self.forward
        if kernel is None:
            raise self._fail(RuntimeError, f"has no kernel for {first_device.type} tensors"
                                           + (" (pass cuda_forward=)" if cuda else ""))
        specs = None
        if self.output is None:
            shape, dtype = first._shape, first._dtype
        else:
            specs = [a._shape if isinstance(a, Tensor) else a for a in args]
            shape, dtype = self._output_spec(args, specs)
        be = backend_of(first)
        # the output starts as zeros (the contract): a zero-filled buffer, which _run need not fill
        out = new_tensor(be.full(math.prod(shape), dtype.np, 0), shape, dtype, first.device)
        launch = None
        if cuda:
            launch = self._launch(specs or [a._shape if isinstance(a, Tensor) else a for a in args],
                                  math.prod(shape))
        if self.contiguous or cuda:
            with no_grad():
                views = [self._kernel_arg(a, cuda) for a in args]
        else:
            views = [a._view_tuple() if isinstance(a, Tensor) else a for a in args]
        views.append(out._view_tuple())
        self._run(be, kernel, "forward", views, args, launch, 0)
        if dtype.is_floating_point and needs_grad(*tensors):
            node = record(self.node_class, tensors, (out,), args=tuple(None if isinstance(a, Tensor) else a
                                                                        for a in args),
                          tensor_positions=tuple(positions))
            node.save(*tensors, out, outputs=(out,))
        return out

    def _check_tensors(self, tensors, positions, first_device):
        """One device for all tensors, and dtypes the kernels take."""
        device = tensors[0].device
        for i, t in zip(positions, tensors):
            if t._storage.device is not first_device and t.device != device:
                raise self._fail(RuntimeError, f"expected all tensors on one device, but argument {i} is on "
                                               f"{t.device} and argument {positions[0]} on {device}")
            if self.input_dtypes is not None and t.dtype not in self.input_dtypes:
                raise self._fail(TypeError, f"argument {i} has dtype {t.dtype}, expected one of "
                                            f"{', '.join(str(d) for d in self.input_dtypes)}")


def custom_op(name, forward, backward=None, **options):
    """A user op over Numba kernels: see nbgrad/ops/custom.py for the contract."""
    return CustomOp(name, forward, backward, **options)
