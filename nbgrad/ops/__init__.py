"""The op registry: every op is a function (forward + its backward node) in one of these
modules; this file binds them as Tensor methods, operators and in-place forms."""
from .. import _dtype as D
from .._tensor import Tensor
from . import copying, elementwise as E, indexing as I, inplace as IP, linalg as L, reduction as R, views as V
from . import sorting as S
from . import linalg_decomp as LD
from .inplace import apply_inplace, check_inplace
from ._graph import broadcast_shapes, needs_grad, record_pair
from .tabled import check_lerp_dtypes, computed_dtype

# -- in-place forms: out-of-place op + write (see inplace.py) ----------------------------------------
# needs_old=False where the op's backward does not save its first input.
from .optable import ROWS as _ROWS, TABLE as _TABLE

_INPLACE = {
    "add_": (E.add, False), "sub_": (E.sub, False), "mul_": (E.mul, True), "div_": (E.div, True),
    "pow_": (E.pow, True), "remainder_": (E.remainder, True), "floor_divide_": (E.floor_divide, False),
    "clamp_": (E.clamp, True), "clamp_min_": (E.clamp_min, True), "clamp_max_": (E.clamp_max, True),
    "clip_": (E.clamp, True),
    "relu_": (E.relu, False), "neg_": (E.neg, False), "abs_": (E.abs, True), "sign_": (E.sign, False), "sgn_": (E.sgn, True), "floor_": (E.floor, False),
    "ceil_": (E.ceil, False), "round_": (E.round, False), "trunc_": (E.trunc, False),
    "square_": (E.square, True),
    "scatter_": (I.scatter, False), "scatter_add_": (I.scatter_add, False), "index_add_": (I.index_add, False),
    "atan2_": (E.atan2, True), "logical_not_": (E.logical_not, False), "bitwise_and_": (E.bitwise_and, False),
    "bitwise_or_": (E.bitwise_or, False),
}


# ... and the op table's: whether the old value is needed is read off the row's derivatives
_INPLACE.update({row.name + "_": (getattr(E, row.name), row.needs_old) for row in _ROWS
                 if row.inplace and row.where == "torch"})
# lerp_ with a tensor weight is the lerp_tensor row, whose weight gradient reads the input
_INPLACE["lerp_"] = (E.lerp, _TABLE["lerp"].needs_old or _TABLE["lerp_tensor"].needs_old)


# In-place forms of PyTorch's promoting binary ops: the promoted dtype must cast to the
# target's before any kernel runs, so that error comes before the kernel's dtype check
# (int.bitwise_and_(2.5): "result type Float can't be cast", not "not implemented").
# (sub_ is not one: its bool check comes first.)
_PROMOTING = frozenset({"add_", "mul_", "pow_", "remainder_", "floor_divide_", "bitwise_and_", "bitwise_or_"})
# ... and the op table's binary rows (hypot_, xlogy_, lerp_), whose result may also be the
# default float dtype (lerp_ refuses another dtype of `end` first; its 0-dim weight tensor
# still takes part in the result type, a number weight does not)
_PROMOTING_ROWS = {row.name + "_": row for row in _ROWS
                   if row.inplace and row.where == "torch" and len(row.inputs) > 1}


def _check_promoted_cast(self, others, row=None):
    if all(isinstance(o, Tensor) and o._dtype is self._dtype for o in others):
        return
    dt = D.result_type_of((self, *others))
    if row is not None:
        dt = computed_dtype(row, dt)
    if not D.can_cast(dt, self._dtype):
        raise RuntimeError(f"result type {D.scalar_type_name(dt)} can't be cast to the desired output type "
                           f"{D.scalar_type_name(self._dtype)}")


# Memory overlap refused between the written tensor and its tensor arguments (see
# inplace.check_overlap): indexing ops refuse any (masked_fill_ lives in inplace.py).
_OVERLAP = {"scatter_": "any", "scatter_add_": "any", "index_add_": "any"}


def _check_output_shape(self, operands):
    """An elementwise in-place op writes self's shape: the operands must broadcast to it."""
    shapes = [t._shape for t in operands if isinstance(t, Tensor) and t._shape != self._shape]
    if shapes:
        shape = broadcast_shapes(self._shape, *shapes)
        if shape != self._shape:
            raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the broadcast shape {list(shape)}")


def _keyword_names(fn):
    """The keywords fn accepts (None: any), for the in-place forms' argument errors."""
    import inspect
    if getattr(fn, "keywords", None) is not None:
        return fn.keywords
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


# In-place ops PyTorch's autograd does not know: no check_inplace, the history stays as it was.
_NOT_DIFFERENTIABLE = frozenset({"logical_and", "logical_or", "logical_xor", "logical_not"})



def _clamp_bounds(name, args, kwargs):
    """(min, max) of a clamp_/clamp_min_/clamp_max_ call by position or keyword, or None for
    a call the general path is to take (and judge)."""
    names = ("min", "max") if name == "clamp" else ("min",) if name == "clamp_min" else ("max",)
    if len(args) > len(names) or any(k not in names[len(args):] for k in kwargs):
        return None
    given = dict(zip(names, args))
    given.update(kwargs)
    return given.get("min"), given.get("max")


def _positional_counts(fn):
    """(how many positional arguments fn takes after its first, the names of those required),
    or (None, ()) where it takes *args or has no readable signature."""
    import inspect
    try:
        params = list(inspect.signature(fn).parameters.values())[1:]
    except (TypeError, ValueError):
        return None, ()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return None, ()
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    from ._signatures import TORCH_PARAMS
    theirs = TORCH_PARAMS.get(fn.__name__, ())[1:]       # (PyTorch's names: add_'s b is its other)
    return len(positional), tuple(theirs[i] if i < len(theirs) else p.name
                                  for i, p in enumerate(positional) if p.default is p.empty)


def _inplace_method(fn, needs_old, overlap="partial", name=None, arity=True):
    row = _PROMOTING_ROWS.get(fn.__name__ + "_")
    differentiable = fn.__name__ not in _NOT_DIFFERENTIABLE
    promoting = fn.__name__ + "_" in _PROMOTING or row is not None
    elementwise = overlap == "partial"
    lerp = fn.__name__ == "lerp"
    tensor_only = fn.__name__ in ("atan2", "hypot")

    accepted = _keyword_names(fn)
    # written straight into self's memory when nothing is recorded (no copy, no planning):
    # add_/sub_/mul_/div_ by E.binary_into_, a row that is one unary kernel by E.unary_into_
    direct = fn.__name__ if fn.__name__ in E._DIRECT_OPS else None
    scaled = fn.__name__ in ("add", "sub")
    unary = _TABLE.get(fn.__name__)
    unary = unary.kernel if (unary is not None and unary.kernel and len(unary.inputs) == 1 and not unary.params
                             and not (unary.refuses and (D.float32 in unary.refuses[0] or D.float64 in unary.refuses[0]))) \
        else None

    clamping = fn.__name__ if fn.__name__ in ("clamp", "clamp_min", "clamp_max") else None   # (E.clamp_into_)
    # (arity=False: a form that maps its arguments to fn's itself, polygamma_)
    most, required = _positional_counts(fn) if arity else (None, ())
    if fn.__name__ in ("add", "sub", "div"):
        most = 1        # (alpha and rounding_mode are keyword-only in PyTorch's in-place forms)

    def method(self, *args, **kwargs):
        if direct is not None and len(args) == 1 and (not kwargs or (scaled and len(kwargs) == 1 and "alpha" in kwargs)) \
                and E.binary_into_(direct, self, args[0], kwargs["alpha"] if kwargs else 1):
            return self
        if unary is not None and not args and not kwargs and E.unary_into_(unary, self):
            return self
        if scaled and len(args) == 2 and not kwargs:
            # add_(Number alpha, Tensor other), deprecated, whose other takes a number too (as
            # E._alpha_by_position's): x.add_(2.0, False) is x + 2.0 * False
            alpha = number_first(method.__name__, args[0], () if is_number(args[1]) else args[1:])
            if alpha is not None:
                args, kwargs = args[1:], {"alpha": alpha}
        if clamping is not None:
            bounds = _clamp_bounds(clamping, args, kwargs)
            if bounds is not None and E.clamp_into_(self, *bounds):
                return self
        if kwargs and accepted is not None:
            for k in kwargs:
                if k not in accepted:
                    raise TypeError(f"{method.__name__}() got an unexpected keyword argument '{k}'")
        # PyTorch's argument parser, before anything reads the arguments (the leaf, overlap and
        # shape checks would otherwise speak first: x.trunc_(y) is a TypeError, whatever y)
        if most is not None and len(args) > most:
            # (PyTorch's parser counts the arguments after self)
            if not most:
                raise TypeError(f"Tensor.{method.__name__}() takes no arguments ({len(args)} given)")
            raise TypeError(f"{method.__name__}() takes {most} positional argument{'s' if most > 1 else ''} but "
                            f"{len(args)} were given")
        if required and not kwargs and len(args) < len(required):
            missing = required[len(args):]
            raise TypeError(f"{method.__name__}() missing {len(missing)} required positional argument"
                            f"{'s' if len(missing) > 1 else ''}: " + " and ".join(f"'{m}'" for m in missing))
        if tensor_only and args and not isinstance(args[0], Tensor):    # PyTorch's argument parser, first
            raise TypeError(f"{method.__name__}(): argument 'other' (position 1) must be Tensor, "
                            f"not {type(args[0]).__name__}")
        operands = args + tuple(kwargs.values())
        if any(isinstance(o, Tensor) and o._requires_grad and not o._shape for o in operands):
            # (a 0-dim tensor that requires grad is no Number or float to the parser: x.logit_(eps)'s
            # TypeError, before any check of the op's)
            from ._argument_check import argument_error
            error = argument_error(method.__name__, args, kwargs, method=True)
            if error is not None:
                raise error

        def precheck():
            # PyTorch's order, after the autograd and overlap checks: an op's own dtype rule
            # (lerp's), the output's shape, the result dtype's cast, then the kernel's dtypes
            if lerp:
                check_lerp_dtypes(self, *args)
            if elementwise:
                _check_output_shape(self, operands)
            if lerp:
                _check_promoted_cast(self, [a for a in args if isinstance(a, Tensor)], row)
            elif promoting and args and isinstance(args[0], (Tensor, int, float)):
                _check_promoted_cast(self, args[:1], row)
        try:
            if kwargs:
                tensors = tuple(v for v in kwargs.values() if isinstance(v, Tensor))
                return apply_inplace(self, lambda old, *a: fn(old, *a[:len(args)], **kwargs), *args, *tensors,
                                     needs_old=needs_old, overlap=overlap, precheck=precheck,
                                     differentiable=differentiable)
            return apply_inplace(self, fn, *args, needs_old=needs_old, overlap=overlap, precheck=precheck,
                                 differentiable=differentiable)
        except (RuntimeError, ValueError, IndexError) as e:
            raise _parser_error(method.__name__, args, kwargs, e) from e
    method.__name__ = name or fn.__name__ + "_"
    method._parses_first = True     # (its own arity checks, and the parser's on failure, come before any write)
    return method


def _parser_error(name, args, kwargs, error):
    """PyTorch's TypeError when no schema of Tensor.<name> takes these arguments (its parser
    speaks before the leaf, overlap and shape checks that raised `error`), else `error`.  On
    the failure path of the in-place methods' general path only: the hot calls pay nothing."""
    from ._argument_check import argument_error
    return argument_error(name, args, kwargs, method=True) or error


def _reversed(fn):
    def method(self, other):
        return fn(other, self)
    return method


_NUMBER_TYPES = frozenset({int, float, bool})
import numpy as _np  # noqa: E402  (numpy scalars are numbers to the operators, as to PyTorch's)


def _not_implemented_for_non_tensors(fn):
    def method(self, other):
        if type(other) not in _NUMBER_TYPES and not isinstance(other, Tensor) \
                and not hasattr(other, "__index__") and not isinstance(other, (float, _np.generic)):
            return NotImplemented
        return fn(self, other)
    method.__name__ = fn.__name__
    return method


def _add_operator(self, other):
    """Tensor + other.  A float tensor plus a Python float or int (W8's y = y + 1) or a
    tensor of its dtype (W5's y + x) goes straight to the kernel and its node: the same
    calls E.add makes for it (_scaled_binary with alpha 1, _result_type's fast cases),
    without the two Python frames between."""
    t = type(other)
    dt = self._dtype
    if dt.is_floating_point and (t is float or t is int or (t is Tensor and other._dtype is dt)):
        out = E._binary_raw("add", self, other, dt)
        if needs_grad(self, other):
            record_pair(E.AddBackward0, self, other, out)
        return out
    if t not in _NUMBER_TYPES and not isinstance(other, Tensor) \
            and not hasattr(other, "__index__") and not isinstance(other, (float, _np.generic)):
        return NotImplemented
    return E.add(self, other)


def _rsub(self, other):
    return E.rsub(self, other)


def _rdiv(self, other):
    # PyTorch's Tensor.__rtruediv__: self.reciprocal() * other, for a tensor other too (an
    # explicit x.__rtruediv__(y), a subclass's reflected operator): its values round the
    # reciprocal first, and its grad_fn is MulBackward0
    return E.mul(E.reciprocal(self), other)


def _rpow(self, other):
    return E.pow(other, self)


def _matmul(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return L.matmul(self, other)


def _rmatmul(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return L.matmul(other, self)


_UNSET = object()     # (an argument not given: PyTorch's parser tells it from its default)


def _refused_reduction(name, dim, keepdim, **more):
    """PyTorch's parser's TypeError for a hot reduction method given keepdim without a dim (no
    overload takes that) or, for max and min, a dim of None."""
    from ._argument_check import argument_error
    args = () if dim is _UNSET else (dim,)
    kwargs = {} if keepdim is _UNSET else {"keepdim": keepdim}
    kwargs.update((k, v) for k, v in more.items() if v is not None)
    error = argument_error(name, args, kwargs, method=True)
    if error is not None:
        raise error


def _plain_dims(dim):
    """An int or a list or tuple of ints: a dim argument the parser takes as it is."""
    return type(dim) is int or (type(dim) in (tuple, list) and all(type(d) is int for d in dim))


def _dims_of(name, dim, keepdim, dtype, axis):
    """(dim, keepdim) of x.sum(...)/x.mean(...): axis= is dim's NumPy name; keepdim without a
    dim is refused, as no overload of PyTorch's takes it, and so are a dtype that is not one and
    a floating-point tensor for dim (before the op reads the input's dtype)."""
    if (dtype is not None and not isinstance(dtype, D.dtype)) or \
            (dim is not _UNSET and dim is not None and not _plain_dims(dim)):
        _refused_reduction(name, dim, keepdim, dtype=dtype)     # (raises where the parser refuses)
    if dim is _UNSET:
        if keepdim is not _UNSET and axis is None:
            _refused_reduction(name, dim, keepdim, dtype=dtype)
        dim = None
    return (dim if axis is None else axis), (False if keepdim is _UNSET else keepdim)


def _sum(self, dim=_UNSET, keepdim=_UNSET, *, dtype=None, axis=None):
    if dim is _UNSET and keepdim is _UNSET and axis is None and dtype is None:
        return R.sum(self, None, False)                     # (the hot call: x.sum())
    return R.sum(self, *_dims_of("sum", dim, keepdim, dtype, axis), dtype=dtype)


def _mean(self, dim=_UNSET, keepdim=_UNSET, *, dtype=None, axis=None):
    if dim is _UNSET and keepdim is _UNSET and axis is None and dtype is None:
        return R.mean(self, None, False)
    return R.mean(self, *_dims_of("mean", dim, keepdim, dtype, axis), dtype=dtype)


def _size_method(fn):
    def method(self, *shape):
        return fn(self, *shape)
    method.__name__ = fn.__name__
    return method


def _uniform_(self, a=0.0, b=1.0, *, generator=None):
    from .._creation import uniform_
    return uniform_(self, a, b)


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    from .._creation import normal_
    return normal_(self, mean, std)


def _random_(self, low=0, high=None, *, generator=None):
    from .._creation import random_
    return random_(self, low, high)


def _bernoulli_(self, p=0.5, *, generator=None):
    from .._creation import bernoulli_
    return bernoulli_(self, p)


def _exponential_(self, lambd=1.0, *, generator=None):
    from .._creation import exponential_
    return exponential_(self, lambd)


def _iop(name):
    fn, needs_old = _INPLACE[name]
    method = _inplace_method(fn, needs_old)

    def iop(self, other, *more, **kwargs):
        if more or kwargs:          # (PyTorch's __iadd__ is add_ itself: x.__iadd__(alpha, other) too;
            try:                    # its parser's TypeError is the operator's NotImplemented)
                return method(self, other, *more, **kwargs)
            except TypeError:
                return NotImplemented
        if not isinstance(other, (Tensor, int, float, bool)):
            return NotImplemented
        return method(self, other)
    return iop


def _setitem(self, index, value):
    I.setitem(self, index, value)


def _positive(self):
    if self._dtype is D.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    from .._creation import tensor
    device = self.device if device is None else device     # (0 is a device: cuda:0)
    return tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


from .._creation import _size_given  # noqa: E402


def _new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    _size_given("new_zeros", size)
    from .._creation import _filled
    from .._dtype import to_dtype
    device = self.device if device is None else device     # (0 is a device: cuda:0)
    return _filled(size, 0, to_dtype(dtype) if dtype is not None else self.dtype, device,
                   requires_grad)


def _new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    _size_given("new_ones", size)
    from .._creation import ones
    device = self.device if device is None else device     # (0 is a device: cuda:0)
    return ones(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def _new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    _size_given("new_empty", size)
    from .._creation import empty
    device = self.device if device is None else device     # (0 is a device: cuda:0)
    return empty(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def _new(self, *args, device=None):
    """The legacy Tensor.new: of self's dtype (and device), an empty tensor of the sizes given
    as ints or a Size, a tensor of the data given (a list or tuple), or the tensor given
    itself when it has self's dtype and device."""
    from .._creation import empty, tensor
    from .._size import Size
    from .._tensor import Tensor
    device = self.device if device is None else device
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype is not self.dtype or other.device != self.device:
            raise TypeError(f"expected {self.type()} (got {other.type()})")
        return other.detach()
    if len(args) == 1 and not isinstance(args[0], (int, Size)):
        return tensor(args[0], dtype=self.dtype, device=device)
    size = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
    return empty(*size, dtype=self.dtype, device=device) if size else empty(0, dtype=self.dtype, device=device)


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    from .._creation import full
    device = self.device if device is None else device     # (0 is a device: cuda:0)
    return full(size, fill_value, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def _tensor_operand(fn, name, param):
    """The hot method x.<name>(other) of fn, refusing a non-tensor operand with the parser's
    TypeError before fn reads self's rank (its error would come first, or an AttributeError)."""
    def method(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument '{param}' (position 1) must be Tensor, not {type(other).__name__}")
        return fn(self, other)
    method.__name__ = name
    return method


def _invert(self):
    """~x: the operator refuses a float tensor itself (bitwise_not's would be its kernel's error)."""
    if self._dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return E.bitwise_not(self)


def _extremum_method(name, fn):
    """x.max(...)/x.min(...): all elements, along a dim, or against a tensor (positional, or
    by its keyword other=); any other form is refused as no overload of PyTorch's takes it (a
    dim of None, keepdim without a dim or beside a tensor, dim= given a tensor)."""
    def method(self, *args, **kwargs):
        if not kwargs:
            if not args:
                return fn(self)
            dim = args[0]
            if len(args) == 1 and dim is not None:
                return fn(self, dim)
            if len(args) == 2 and dim is not None and not isinstance(dim, Tensor):
                return fn(self, dim, args[1])
        from ._argument_check import argument_error
        error = argument_error(name, args, kwargs, method=True)
        if error is not None:
            raise error
        if "other" in kwargs:
            return fn(self, kwargs["other"])
        dim = args[0] if args else kwargs.get("dim", kwargs.get("axis"))       # (and the NumPy names)
        return fn(self, dim, args[1] if len(args) > 1 else kwargs.get("keepdim", kwargs.get("keepdims", False)))
    method.__name__ = name
    return method


_max, _min = _extremum_method("max", R.max), _extremum_method("min", R.min)


def _expand(self, *sizes, size=V._UNGIVEN):
    if size is not V._UNGIVEN:
        sizes = V._by_keyword("expand", sizes, size=size)
    return V.expand(self, *sizes)


def _broadcast_to(self, *sizes, size=V._UNGIVEN):
    """Tensor.broadcast_to: its size by position (one sequence or each size) or by keyword, as
    Tensor.expand's (torch.broadcast_to takes one sequence only)."""
    if size is not V._UNGIVEN:
        sizes = V._by_keyword("broadcast_to", sizes, size=size)
    if not sizes:
        raise TypeError('broadcast_to() missing 1 required positional arguments: "size"')
    return V.expand(self, *sizes)


def _unflatten(self, dim, sizes):
    """Tensor.unflatten: PyTorch's Python first asks `not sizes` (an empty size is its error, a
    tensor's truth its own)."""
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    # (then its parser's: TensorBase.unflatten(int dim, SymInt[] sizes))
    if type(dim) is not int:
        from .._checks import as_symint
        dim = as_symint(dim, "unflatten", "dim", 1, any_dim=False)
    if not isinstance(sizes, (tuple, list)):
        raise TypeError(f"unflatten(): argument 'sizes' (position 2) must be tuple of ints, not {type(sizes).__name__}")
    return V.unflatten(self, dim, sizes)


def _dims_by_position(fn):
    """Tensor.squeeze / squeeze_ / count_nonzero: several dims by position are one int[] dim
    (x.squeeze(0, 1) is x.squeeze((0, 1))); torch.squeeze takes one."""
    def method(self, *dims, **kwargs):
        if (len(dims) > 1 and not all(d.__class__ is int for d in dims)) or (len(dims) == 1 and dims[0] is None) \
                or ("dim" in kwargs and kwargs["dim"] is None):
            # (a None dim, or dims that are not all ints: the parser's refusal, before any dim is read)
            from ._argument_check import argument_error
            error = argument_error(fn.__name__, dims, kwargs, method=True)
            if error is not None:
                raise error
        return fn(self, dims, **kwargs) if len(dims) > 1 else fn(self, *dims, **kwargs)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _dim_required(fn):
    """Tensor.softmax / log_softmax: dim is required (only the functional forms keep the
    legacy implicit dim)."""
    def method(self, dim=None, dtype=None):
        if dim is None:
            raise TypeError(f'{fn.__name__}() missing 1 required positional arguments: "dim"')
        return fn(self, dim, dtype)
    method.__name__ = fn.__name__
    return method


def _repeat(self, *sizes):
    sizes = V._shape_args(sizes, "repeat", "repeats")
    if len(sizes) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    from .._checks import int_tuple
    sizes = int_tuple(sizes, "repeat", "repeats", 1)
    target = [r * n for r, n in zip(sizes, (1,) * (len(sizes) - self.dim()) + tuple(self.shape))]
    for n in target:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {target}")
    if 0 in target:     # (nothing to copy: the interleaved shape below could overflow int64's numel)
        from .._creation import empty
        return empty(target, dtype=self.dtype, device=self.device)
    x = self.reshape((1,) * (len(sizes) - self.dim()) + tuple(self.shape))
    # expand into an interleaved shape, then fold: (r0, n0, r1, n1, ...) -> (r0*n0, ...)
    inter = []
    for r, n in zip(sizes, x.shape):
        inter += [r, n]
    y = x.reshape([v for n in x.shape for v in (1, n)]).expand(inter)
    return y.reshape([r * n for r, n in zip(sizes, x.shape)])


TENSOR_METHODS = {
    # arithmetic and operators
    "add": E.add, "sub": E.sub, "subtract": E.subtract, "mul": E.mul, "multiply": E.mul, "div": E.div,
    "divide": E.div, "true_divide": E.div, "floor_divide": E.floor_divide, "remainder": E.remainder,
    "pow": E.pow, "neg": E.neg, "negative": E.neg, "abs": E.abs, "absolute": E.abs, "exp": E.exp,
    "exp2": E.exp2, "log": E.log, "log2": E.log2, "log10": E.log10, "log1p": E.log1p, "expm1": E.expm1,
    "sqrt": E.sqrt, "rsqrt": E.rsqrt, "sin": E.sin, "cos": E.cos, "tan": E.tan, "asin": E.asin,
    "acos": E.acos, "atan": E.atan, "sinh": E.sinh, "cosh": E.cosh, "tanh": E.tanh, "sigmoid": E.sigmoid,
    "relu": E.relu, "sign": E.sign, "sgn": E.sgn, "floor": E.floor, "ceil": E.ceil, "round": E.round, "trunc": E.trunc,
    "fix": E.trunc, "reciprocal": E.reciprocal, "square": E.square, "erf": E.erf, "atan2": E.atan2,
    "clamp": E.clamp, "clip": E.clamp, "clamp_min": E.clamp_min, "clamp_max": E.clamp_max,
    "maximum": E.maximum, "minimum": E.minimum, "where": lambda self, cond, other: E.where(cond, self, other),
    "masked_fill": E.masked_fill_method, "eq": E.eq, "ne": E.ne, "lt": E.lt, "le": E.le, "gt": E.gt, "ge": E.ge,
    "greater": E.gt, "less": E.lt, "greater_equal": E.ge, "less_equal": E.le, "not_equal": E.ne,
    "logical_and": E.logical_and, "logical_or": E.logical_or, "logical_xor": E.logical_xor,
    "logical_not": E.logical_not, "bitwise_not": E.bitwise_not, "bitwise_and": E.bitwise_and,
    "bitwise_or": E.bitwise_or, "bitwise_xor": E.bitwise_xor, "isnan": E.isnan, "isinf": E.isinf,
    "isfinite": E.isfinite,
    "logit": E.logit, "xlogy": E.xlogy, "hypot": E.hypot, "lerp": E.lerp,
    "hardshrink": E.hardshrink, "prelu": E.prelu,
    # (PyTorch's __radd__ and __rmul__ are add(self, other) and mul(self, other): self first,
    # which decides the result where a float16 op reads its second operand unrounded)
    "__add__": _add_operator, "__radd__": _not_implemented_for_non_tensors(E.add),
    "__sub__": _not_implemented_for_non_tensors(E.sub), "__rsub__": _not_implemented_for_non_tensors(_rsub),
    "__mul__": _not_implemented_for_non_tensors(E.mul), "__rmul__": _not_implemented_for_non_tensors(E.mul),
    "__truediv__": _not_implemented_for_non_tensors(E.div), "__rtruediv__": _not_implemented_for_non_tensors(_rdiv),
    "__floordiv__": _not_implemented_for_non_tensors(E.floor_divide), "__rfloordiv__": _not_implemented_for_non_tensors(_reversed(E.floor_divide)),
    "__mod__": _not_implemented_for_non_tensors(E.remainder), "__rmod__": _not_implemented_for_non_tensors(_reversed(E.remainder)),
    "__pow__": _not_implemented_for_non_tensors(E.pow), "__rpow__": _not_implemented_for_non_tensors(_rpow),
    "__matmul__": _matmul, "__rmatmul__": _rmatmul,
    "__neg__": E.neg, "__pos__": _positive, "__abs__": E.abs, "__invert__": _invert,
    "__eq__": _not_implemented_for_non_tensors(E.eq), "__ne__": _not_implemented_for_non_tensors(E.ne),
    "__lt__": _not_implemented_for_non_tensors(E.lt), "__le__": _not_implemented_for_non_tensors(E.le),
    "__gt__": _not_implemented_for_non_tensors(E.gt), "__ge__": _not_implemented_for_non_tensors(E.ge),
    "__and__": _not_implemented_for_non_tensors(E.bitwise_and), "__or__": _not_implemented_for_non_tensors(E.bitwise_or),
    "__xor__": _not_implemented_for_non_tensors(E.bitwise_xor),
    "__rand__": _not_implemented_for_non_tensors(_reversed(E.bitwise_and)),
    "__ror__": _not_implemented_for_non_tensors(_reversed(E.bitwise_or)),
    "__rxor__": _not_implemented_for_non_tensors(_reversed(E.bitwise_xor)),
    "__iadd__": _iop("add_"), "__isub__": _iop("sub_"), "__imul__": _iop("mul_"), "__itruediv__": _iop("div_"),
    "__ipow__": _iop("pow_"), "__imod__": _iop("remainder_"), "__ifloordiv__": _iop("floor_divide_"),
    "__iand__": _iop("bitwise_and_"), "__ior__": _iop("bitwise_or_"),
    "__getitem__": I.getitem, "__setitem__": _setitem,
    # reductions
    "sum": _sum, "mean": _mean, "prod": R.prod, "max": _max, "min": _min, "amax": R.amax, "amin": R.amin,
    "argmax": R.argmax, "argmin": R.argmin, "all": R.all, "any": R.any, "var": R.var, "std": R.std,
    "logsumexp": R.logsumexp, "norm": LD.tensor_norm_method, "softmax": _dim_required(R.softmax),
    "log_softmax": _dim_required(R.log_softmax),
    "sum_to_size": R.sum_to_size, "sort": S.sort, "argsort": S.argsort, "topk": S.topk,
    # linear algebra
    "matmul": L.matmul, "mm": _tensor_operand(L.mm, "mm", "mat2"), "bmm": _tensor_operand(L.bmm, "bmm", "mat2"),
    "mv": L.mv, "dot": L.dot, "outer": L.outer, "ger": L.outer,
    "det": LD.det, "inverse": LD.inverse, "slogdet": LD.torch_slogdet, "cross": LD.torch_cross,
    # views
    "view": V.view, "view_as": V.view_as, "reshape": V.reshape, "reshape_as": V.reshape_as,
    "flatten": V.flatten, "unflatten": _unflatten, "squeeze": _dims_by_position(V.squeeze), "unsqueeze": V.unsqueeze,
    "transpose": V.transpose, "swapaxes": V.transpose, "swapdims": V.transpose, "permute": V.permute,
    "t": V.t, "movedim": V.movedim, "expand": _expand, "expand_as": V.expand_as, "broadcast_to": _broadcast_to,
    "narrow": V.narrow, "select": V.select, "unbind": V.unbind, "split": V.split, "chunk": V.chunk,
    "tensor_split": V.tensor_split, "diagonal": V.diagonal, "as_strided": V.as_strided, "repeat": _repeat,
    # indexing
    "index_select": I.index_select, "gather": I.gather, "scatter": I.scatter, "scatter_add": I.scatter_add,
    "index_add": I.index_add, "index_put": I.index_put, "index_put_": I.index_put_, "take": I.take,
    "masked_select": I.masked_select, "nonzero": I.nonzero, "nonzero_static": I.nonzero_static,
    "argwhere": I.argwhere,
    # copies and conversions
    "clone": copying.clone, "contiguous": copying.contiguous, "to": copying.to, "type_as": copying.type_as,
    "float": copying.float, "double": copying.double, "half": copying.half, "long": copying.long,
    "bfloat16": copying._conversion("bfloat16", D.bfloat16),
    "int": copying.int, "short": copying.short, "bool": copying.bool, "byte": copying.byte,
    "cpu": copying.cpu, "cuda": copying.cuda,
    # in-place
    "copy_": IP.copy_, "fill_": IP.fill_, "masked_fill_": IP.masked_fill_, "zero_": IP.zero_, "uniform_": _uniform_, "normal_": _normal_,
    "random_": _random_, "bernoulli_": _bernoulli_,
    "exponential_": _exponential_,
    "new_tensor": _new_tensor, "new_zeros": _new_zeros, "new_ones": _new_ones, "new_empty": _new_empty,
    "new_full": _new_full, "new": _new,
}
TENSOR_METHODS.update({name: _inplace_method(fn, needs_old, _OVERLAP.get(name, "partial"), name)
                       for name, (fn, needs_old) in _INPLACE.items()})
# Private: gradient accumulation for the engine and AccumulateGrad (see E.accumulate_).
TENSOR_METHODS["_accumulate_"] = E.accumulate_

TENSOR_PROPERTIES = {"T": V.T, "mT": V.mT, "mH": V.mT, "H": V.T}


# -- rearranging and cumulative ops (rearranging.py, cumulative.py) -------------------------------
from . import cumulative as _C, rearranging as _RA   # noqa: E402


def _triangle_inplace(fn):
    def method(self, diagonal=0):
        return apply_inplace(self, lambda old: fn(old, diagonal), needs_old=False, overlap=None,
                             precheck=lambda: _RA.check_triangle_inplace(self),
                             writer=_RA.triangle_writer(self, diagonal, fn is _RA.tril))
    method.__name__ = fn.__name__ + "_"
    return method


def _scan_inplace(fn, needs_old):
    def method(self, dim, *, dtype=None):
        check_inplace(self)     # PyTorch's autograd check comes before the op's own,
        _C.scan_dim(fn.__name__, self, dim)     # then the dim, then the dtype
        if dtype is not None and D.to_dtype(dtype) is not self._dtype:
            from .._legacy import _c_name
            raise RuntimeError(f"Bad in-place call: input tensor dtype {_c_name(self._dtype)} and output tensor "
                               f"dtype {_c_name(D.to_dtype(dtype))} should match")
        _C.check_scan_dtype(fn.__name__, self, self._dtype)     # (before the overlap check, as PyTorch)
        # the scan in self's own dtype (out of place, an integer input would give int64)
        return apply_inplace(self, lambda old: fn(old, dim, dtype=self._dtype), needs_old=needs_old)
    method.__name__ = fn.__name__ + "_"
    return method


TENSOR_METHODS.update({
    "tril": _RA.tril, "triu": _RA.triu, "tril_": _triangle_inplace(_RA.tril), "triu_": _triangle_inplace(_RA.triu),
    "repeat": _RA.repeat, "flip": _RA.flip, "roll": _RA.roll, "repeat_interleave": _RA.repeat_interleave, "tile": _RA.tile,
    "cumsum": _C.cumsum, "cumprod": _C.cumprod,
    "cumsum_": _scan_inplace(_C.cumsum, False), "cumprod_": _scan_inplace(_C.cumprod, True),
})


# -- comparisons and counting (comparison.py, counting.py) ----------------------------------------
from . import comparison as _CMP, counting as _CNT   # noqa: E402

TENSOR_METHODS.update({
    "equal": _CMP.equal, "isclose": _CMP.isclose, "allclose": _CMP.allclose,
    "unique": _CNT.unique, "bincount": _CNT.bincount, "histc": _CNT.histc,
    "histogram": _CNT.histogram,
})


# -- in-place view ops (inplace_views.py) ---------------------------------------------------------
from . import inplace_views as _IV   # noqa: E402

TENSOR_METHODS.update({
    "unsqueeze_": _IV.unsqueeze_, "squeeze_": _dims_by_position(_IV.squeeze_), "t_": _IV.t_,
    "transpose_": _IV.transpose_,
    "swapaxes_": _IV.transpose_, "swapdims_": _IV.transpose_, "as_strided_": _IV.as_strided_,
    "set_": _IV.set_, "resize_": _IV.resize_, "resize_as_": _IV.resize_as_, "is_set_to": _IV.is_set_to,
})
from . import python_map as _PM   # noqa: E402
TENSOR_METHODS.update({"apply_": _PM.apply_, "map_": _PM.map_, "map2_": _PM.map2_})


# -- issue 14: PyTorch's aliases and more composed functions (more.py) ---------------------------
from . import more as _MORE   # noqa: E402

_ALIASES = {"arccos": "acos", "arcsin": "asin", "arctan": "atan", "arctan2": "atan2", "moveaxis": "movedim",
            "absolute_": "abs_", "divide_": "div_", "multiply_": "mul_", "subtract_": "sub_", "true_divide_": "div_",
            "negative_": "neg_", "arccos_": "acos_", "arcsin_": "asin_", "arctan_": "atan_", "arctan2_": "atan2_",
            "clip_": "clamp_"}
TENSOR_METHODS.update({alias: TENSOR_METHODS[name] for alias, name in _ALIASES.items() if name in TENSOR_METHODS})


def _subtract_(self, other, *alpha_by_position, alpha=1):
    """Tensor.subtract_: sub_ without sub_'s deprecated Number-first overload; its own
    subtract_(Scalar other, Scalar alpha) takes alpha by position (as E.subtract)."""
    if alpha_by_position:
        number, alpha = E.subtract_scalar_arguments("subtract_", (), other, alpha_by_position, alpha, method=True)
        return apply_inplace(self, lambda old: E.sub_scalar_alpha(old, number, alpha), needs_old=False)
    return TENSOR_METHODS["sub_"](self, other, alpha=alpha)


_subtract_.__name__ = "subtract_"
TENSOR_METHODS["subtract_"] = _subtract_
for _op, _names in (("eq", ("eq_",)), ("ne", ("ne_", "not_equal_")), ("lt", ("lt_", "less_")),
                    ("le", ("le_", "less_equal_")), ("gt", ("gt_", "greater_")), ("ge", ("ge_", "greater_equal_"))):
    for _name in _names:
        TENSOR_METHODS[_name] = _inplace_method(_MORE.comparison_inplace_fn(_op), False, name=_name)
for _op in ("logical_and", "logical_or", "logical_xor"):
    TENSOR_METHODS[_op + "_"] = _inplace_method(_MORE.logical_inplace_fn(_op), False, name=_op + "_")
_PROMOTING = _PROMOTING | {"bitwise_xor_"}
TENSOR_METHODS["bitwise_xor_"] = _inplace_method(E.bitwise_xor, False, name="bitwise_xor_")
TENSOR_METHODS["bitwise_not_"] = _inplace_method(E.bitwise_not, False, name="bitwise_not_")
TENSOR_METHODS.update({"ravel": _MORE.ravel, "fliplr": _MORE.fliplr, "flipud": _MORE.flipud,
                       "positive": _MORE.positive})
_MORE_METHODS = ("addmm addmv addr baddbmm addbmm addcmul addcdiv diag diag_embed diagflat trace diff rot90 kron "
                 "inner take_along_dim nan_to_num nansum nanmean count_nonzero heaviside signbit copysign deg2rad "
                 "rad2deg frac fmod logaddexp logaddexp2 matrix_power cummax cummin "
                 "logcumsumexp unfold median nanmedian mode kthvalue quantile nanquantile bernoulli "
                 "multinomial msort").split()
TENSOR_METHODS.update({_name: getattr(_MORE, _name) for _name in _MORE_METHODS})
TENSOR_METHODS["count_nonzero"] = _dims_by_position(_MORE.count_nonzero)
TENSOR_METHODS.update({_name: _MORE.beta_first_method(getattr(_MORE, _name), _name) for _name in _MORE._BETA_FIRST})
TENSOR_METHODS.update(hsplit=_MORE.hsplit_method, vsplit=_MORE.vsplit_method, dsplit=_MORE.dsplit_method)
# the op table's asinh/acosh/atanh/erfc/erfinv rows (their in-place forms come with the rows) and aliases
TENSOR_METHODS.update({"asinh": E.asinh, "acosh": E.acosh, "atanh": E.atanh, "erfc": E.erfc, "erfinv": E.erfinv,
                       "arcsinh": E.asinh, "arccosh": E.acosh, "arctanh": E.atanh,
                       "arcsinh_": TENSOR_METHODS["asinh_"], "arccosh_": TENSOR_METHODS["acosh_"],
                       "arctanh_": TENSOR_METHODS["atanh_"]})


def _addbmm_sizes(batch1=None, batch2=None, *_, **__):
    if isinstance(batch1, Tensor) and isinstance(batch2, Tensor):
        batch1.size(1), batch2.size(2)


# what an ATen in-place kernel reads before its overlap check: addbmm_'s expand_size asks
# batch1.size(1) and batch2.size(2) (a batch of too few dims is their IndexError)
_BEFORE_OVERLAP = {"addbmm_": _addbmm_sizes}


def _more_inplace(fn, name):
    """<name>_: the out-of-place op written into self (its result's shape must be self's);
    addcmul_/addcdiv_ straight into self's memory when nothing is recorded (E.addc_into_)."""
    direct = name[:-1] if name in ("addcmul_", "addcdiv_") else None
    beta_first = name[:-1] in _MORE._BETA_FIRST
    before_overlap = _BEFORE_OVERLAP.get(name)

    def method(self, *args, **kwargs):
        value = number_first(name, args[0], args[1:]) if direct is not None and len(args) == 3 and not kwargs \
            else None
        if value is not None:
            args, kwargs = args[1:], {"value": value}           # addcmul_(Number value, Tensor, Tensor)
        found = _MORE.beta_first(name, args, method=True) if beta_first and not kwargs else None
        if found is not None:           # addmm_(Number beta, [Number alpha,] Tensor mat1, Tensor mat2)
            args, kwargs = found[1:3], {"beta": found[3], "alpha": found[4]}
        if direct is not None and E.addc_into_(direct, self, args, kwargs):
            return self
        tensors = tuple(a for a in args if isinstance(a, Tensor))
        if before_overlap is not None:
            check_inplace(self, *tensors)       # (autograd's check of self first, as apply_inplace's)
            before_overlap(*args, **kwargs)
        try:
            return apply_inplace(self, lambda old, *_: fn(old, *args, **kwargs), *tensors, needs_old=True)
        except (RuntimeError, ValueError, IndexError) as e:
            raise _parser_error(name, args, kwargs, e) from e
    method.__name__ = name
    return method


TENSOR_METHODS.update({_name + "_": _more_inplace(getattr(_MORE, _name), _name + "_") for _name in (
    "addmm addmv addr baddbmm addbmm addcmul addcdiv nan_to_num copysign deg2rad rad2deg frac fmod".split())})
TENSOR_METHODS["nan_to_num_"] = _MORE.integral_identity(TENSOR_METHODS["nan_to_num_"], _MORE.nan_to_num)


# -- scatter_reduce, index_copy, masked_scatter (indexing.py) and more composed functions
# (more_functions.py)
TENSOR_METHODS.update({"scatter_reduce": I.scatter_reduce, "scatter_reduce_": I.scatter_reduce_,
                       "index_copy": I.index_copy, "index_copy_": I.index_copy_,
                       "masked_scatter": I.masked_scatter, "masked_scatter_": I.masked_scatter_})
from . import more_functions as _MF   # noqa: E402
TENSOR_METHODS.update({"aminmax": _MF.aminmax, "cov": _MF.cov, "corrcoef": _MF.corrcoef})

# -- misc-fns: more small functions (misc_functions.py)
from . import misc_functions as _MISC   # noqa: E402
TENSOR_METHODS.update({_name: getattr(_MISC, _name) for _name in (
    "diagonal_scatter select_scatter slice_scatter index_fill index_fill_ index_reduce "
    "index_reduce_ put put_ fill_diagonal_ new_empty_strided split_with_sizes unsafe_chunk unsafe_split "
    "unsafe_split_with_sizes").split()})
TENSOR_METHODS["unique_consecutive"] = _MISC.unique_consecutive_method
from . import misc_elementwise as _MISCE   # noqa: E402
TENSOR_METHODS.update({_name: getattr(_MISCE, _name) for _name in (
    "float_power float_power_ fmax fmin gcd gcd_ lcm lcm_ ldexp ldexp_ frexp nextafter nextafter_ bitwise_left_shift "
    "bitwise_left_shift_ bitwise_right_shift bitwise_right_shift_ isneginf isposinf isreal heaviside_").split()})
TENSOR_METHODS.update({"__lshift__": _MISCE._shift_operator(_MISCE.bitwise_left_shift),
                       "__rshift__": _MISCE._shift_operator(_MISCE.bitwise_right_shift),
                       "__rlshift__": _MISCE._shift_operator(_MISCE._rlshift),
                       "__rrshift__": _MISCE._shift_operator(_MISCE._rrshift),
                       "__ilshift__": _MISCE.bitwise_left_shift_, "__irshift__": _MISCE.bitwise_right_shift_})
TENSOR_METHODS["fix_"] = TENSOR_METHODS["trunc_"]
from .. import _random_more as _RANDOM_MORE   # noqa: E402
TENSOR_METHODS.update({"geometric_": _RANDOM_MORE.geometric_, "log_normal_": _RANDOM_MORE.log_normal_,
                       "cauchy_": _RANDOM_MORE.cauchy_})

# more linear algebra (linalg_more.py)
from . import linalg_more as _LM   # noqa: E402
TENSOR_METHODS.update({"dist": _LM.dist, "renorm": _LM.renorm, "renorm_": _LM.renorm_, "logdet": _LM.logdet,
                       "pinverse": _LM.pinverse, "cholesky_inverse": _LM.cholesky_inverse,
                       "cholesky_solve": _LM.cholesky_solve, "vdot": _LM.vdot,
                       "triangular_solve": _LM.triangular_solve, "matrix_exp": _LM.matrix_exp,
                       "adjoint": _LM.adjoint, "lu": _LM.torch_lu, "lu_solve": _LM.torch_lu_solve})
from . import linalg_householder as _LH   # noqa: E402
TENSOR_METHODS.update({"geqrf": _LH.geqrf, "orgqr": _LH.orgqr_method})

# the special functions (ops/special_functions.py; lgamma_, digamma_, i0_, sinc_ come with the rows)
from . import special_functions as _SF   # noqa: E402
TENSOR_METHODS.update({"lgamma": E.lgamma, "digamma": E.digamma, "i0": E.i0, "sinc": E.sinc, "angle": E.angle,
                       "polygamma": _SF.polygamma_method,
                       "polygamma_": _SF.polygamma_inplace(_inplace_method(E.polygamma, _TABLE["polygamma"].needs_old,
                                                                           name="polygamma_", arity=False)),
                       "mvlgamma": _SF.mvlgamma, "mvlgamma_": _SF.mvlgamma_})
from . import special_functions_more as _SFM   # noqa: E402  (igamma, igammac and their in-place forms)
TENSOR_METHODS.update(_SFM.TENSOR_METHODS)


# PyTorch's top-level linear algebra (torch.svd, qr, cholesky) and a real strided tensor's
# predicates and identities (ops/torch_level.py)
from . import torch_level as _TL   # noqa: E402
TENSOR_METHODS.update(_TL.TENSOR_METHODS)

# PyTorch's keywords (input=/other=/axis=/keepdims=) and argument errors naming the method
from .._checks import is_number  # noqa: E402
from ._signatures import number_first, public_method as _public_method, tensor_methods as _tensor_methods  # noqa: E402
TENSOR_METHODS = _tensor_methods({name: _public_method(fn, name) for name, fn in TENSOR_METHODS.items()})

TENSOR_PROPERTIES.update({flag: (lambda self: False) for flag in _TL.TENSOR_FLAGS})
TENSOR_PROPERTIES.update({"layout": lambda self: _TL.strided, "real": _TL.real, "imag": _TL.imag})


# nbgrad.ops.<namespace>.<op>: the ops a program defined through nbgrad.library (torch.ops.mylib.foo).
# PEP 562: consulted only for names this package does not have; a submodule of the same name wins.
def __getattr__(name):
    import sys
    library = sys.modules.get("nbgrad.library")
    found = None if library is None or name.startswith("_") else library._namespace(name)
    if found is not None:
        import importlib.util
        if importlib.util.find_spec(f"{__name__}.{name}") is None:
            return found
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
