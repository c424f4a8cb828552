"""torch.special's regularized incomplete gamma functions (gammainc, gammaincc; torch.igamma,
torch.igammac and Tensor.igamma/igamma_/igammac/igammac_), its Bessel and Airy functions and its
orthogonal polynomials, with PyTorch's signatures, argument errors and out=.

Each is an op table row (nbgrad/ops/optable.py) whose kernel is the backend's scalar function
(backends/_shared/special_more.py, PyTorch's algorithms).  igamma and igammac are
differentiable in x only: their node (IgammaBackward0, IgammacBackward0) raises PyTorch's
NotImplementedError when the gradient of a is wanted, and two integer operands are refused (no
promotion).  The Bessel functions and the polynomials have no derivative in PyTorch: their
results never require grad, and out= takes an argument that requires grad.
"""
from .._tensor import Tensor
from ._dtype_rules import check_sub
from . import _out
from . import tabled as _tabled
from .optable import TABLE


def _type_name(v):
    return type(v).__name__


def _parse(name, params, args, kwargs, aliases=None):
    """PyTorch's argument parser for `name(Tensor p0, ..., *, Tensor out=None)`: the tensors
    in order and out.  aliases: {keyword: parameter} it also accepts."""
    if len(args) > len(params):
        s = "" if len(params) == 1 else "s"
        raise TypeError(f"{name}() takes {len(params)} positional argument{s} but {len(args)} were given")
    values = list(args) + [None] * (len(params) - len(args))
    given = [True] * len(args) + [False] * (len(params) - len(args))
    out = None
    unexpected = None
    for key, v in kwargs.items():
        key2 = (aliases or {}).get(key, key)
        if key2 == "out":
            out = v
        elif key2 not in params:
            unexpected = unexpected or key
        elif given[params.index(key2)]:
            raise TypeError(f"{name}() got multiple values for argument '{key2}'")
        else:
            values[params.index(key2)], given[params.index(key2)] = v, True
    for i, p in enumerate(params):       # (a missing argument is named before an unknown keyword)
        if not given[i]:
            raise TypeError(f'{name}() missing 1 required positional arguments: "{p}"')
    if unexpected is not None:
        raise TypeError(f"{name}() got an unexpected keyword argument '{unexpected}'")
    for i, p in enumerate(params):
        if not isinstance(values[i], Tensor):
            raise TypeError(f"{name}(): argument '{p}' (position {i + 1}) must be Tensor, not "
                            f"{_type_name(values[i])}")
    if out is not None and not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {_type_name(out)}")
    return values, out


def _write(name, result, out, inputs):
    """out= as PyTorch's TensorIterator ops: the result type must cast to out's, out is resized
    and written (one version bump)."""
    _out.RULES["cast"](name, result._dtype, out)
    if out._shape == result._shape:
        from .inplace import check_overlap
        check_overlap(out, tuple(t for t in inputs if isinstance(t, Tensor)))
    _out.resize_output(out, result._shape)
    return _out.write(out, result)


# -- the regularized incomplete gamma functions --------------------------------------------------
def _refusing_a(row_name):
    base = _tabled.NODES[row_name]

    def backward(self, grad):
        if self.needs_input_grad(0):
            raise NotImplementedError(f"the derivative for '{row_name}: input' is not implemented.")
        # (derivatives.yaml's (self - 1) * log(other), in self's own dtype: a bool self is sub's refusal)
        check_sub(self.saved_tensors[0], 1)
        return base.backward(self, grad)
    node = type(base.__name__, (base,), {"backward": backward, "__qualname__": base.__name__,
                                         "__module__": __name__})
    _tabled.NODES[row_name] = node
    return node


IgammaBackward0 = _refusing_a("igamma")
IgammacBackward0 = _refusing_a("igammac")


def _igamma_op(row_name, a, x):
    return _tabled.apply(TABLE[row_name], (a, x), {})


def _incomplete_gamma(public, row_name):
    def fn(*args, **kwargs):
        (a, x), out = _parse(public, ("input", "other"), args, kwargs)
        if out is None:
            return _igamma_op(row_name, a, x)
        _out.check_no_grad(row_name, (a, x), (out,))
        return _write(public, _igamma_op(row_name, a, x), out, (a, x))
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = (f"{public}(input, other, *, out=None): the regularized "
                  f"{'lower' if row_name == 'igamma' else 'upper'} incomplete gamma function of a = input "
                  "at x = other (differentiable in other only).")
    return fn


igamma = _incomplete_gamma("igamma", "igamma")
igammac = _incomplete_gamma("igammac", "igammac")
gammainc = _incomplete_gamma("special_gammainc", "igamma")
gammaincc = _incomplete_gamma("special_gammaincc", "igammac")


def _method(row_name):
    def method(self, *args, **kwargs):
        (x,), out = _parse(row_name, ("other",), args, kwargs)
        if out is not None:
            raise TypeError(f"{row_name}() got an unexpected keyword argument 'out'")
        return _igamma_op(row_name, self, x)
    method.__name__ = method.__qualname__ = row_name
    return method


def _inplace(row_name):
    def method(self, *args, **kwargs):
        from . import _check_output_shape, _check_promoted_cast
        from .inplace import apply_inplace
        (x,), out = _parse(row_name + "_", ("other",), args, kwargs)
        if out is not None:
            raise TypeError(f"{row_name}_() got an unexpected keyword argument 'out'")

        def precheck():
            _check_output_shape(self, (x,))
            _check_promoted_cast(self, (x,), TABLE[row_name])
        return apply_inplace(self, lambda old, other: _igamma_op(row_name, old, other), x,
                             needs_old=TABLE[row_name].needs_old, precheck=precheck)
    method.__name__ = method.__qualname__ = row_name + "_"
    return method


TENSOR_METHODS = {"igamma": _method("igamma"), "igammac": _method("igammac"),
                  "igamma_": _inplace("igamma"), "igammac_": _inplace("igammac")}


# -- the Bessel and Airy functions --------------------------------------------------------------
def _unary(name, param):
    public = "special_" + name
    aliases = {"x": "input"} if param == "input" else None      # (PyTorch's parser takes x= for self too)

    def fn(*args, **kwargs):
        (x,), out = _parse(public, (param,), args, kwargs, aliases)
        result = _tabled.apply(TABLE[name], (x,), {})
        return result if out is None else _write(public, result, out, (x,))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.special.{name}({param}, *, out=None) (no derivative, as PyTorch's)."
    return fn


bessel_j0 = _unary("bessel_j0", "input")
bessel_j1 = _unary("bessel_j1", "input")
bessel_y0 = _unary("bessel_y0", "input")
bessel_y1 = _unary("bessel_y1", "input")
modified_bessel_i0 = _unary("modified_bessel_i0", "input")
modified_bessel_i1 = _unary("modified_bessel_i1", "input")
modified_bessel_k0 = _unary("modified_bessel_k0", "input")
modified_bessel_k1 = _unary("modified_bessel_k1", "input")
scaled_modified_bessel_k0 = _unary("scaled_modified_bessel_k0", "x")
scaled_modified_bessel_k1 = _unary("scaled_modified_bessel_k1", "x")
spherical_bessel_j0 = _unary("spherical_bessel_j0", "x")
airy_ai = _unary("airy_ai", "x")


# -- the orthogonal polynomials -----------------------------------------------------------------
def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, complex)


def _polynomial(name):
    public = "special_" + name

    def invalid(args, kwargs):
        from ._argument_check import described_call
        return TypeError(f"{public}() received an invalid combination of arguments - got "
                         f"{described_call(args, kwargs)}, but expected one of:\n"
                         " * (Tensor x, Tensor n, *, Tensor out = None)\n"
                         " * (Number x, Tensor n, *, Tensor out = None)\n"
                         " * (Tensor x, Number n, *, Tensor out = None)\n")

    def fn(*args, **kwargs):
        values = dict(zip(("x", "n"), args))
        out = kwargs.get("out")
        if len(args) > 2 or any(k not in ("x", "n", "out") or k in values for k in kwargs) or \
                len(values) + sum(k in ("x", "n") for k in kwargs) != 2:
            raise invalid(args, kwargs)
        values.update({k: v for k, v in kwargs.items() if k != "out"})
        x, n = values["x"], values["n"]
        if not (isinstance(x, Tensor) and (isinstance(n, Tensor) or _is_number(n))
                or _is_number(x) and isinstance(n, Tensor)) or not (out is None or isinstance(out, Tensor)):
            raise invalid(args, kwargs)
        result = _tabled.apply(TABLE[name], (x, n), {})
        return result if out is None else _write(public, result, out, (x, n))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.special.{name}(x, n, *, out=None): x a tensor or a number, n a tensor or a number."
    return fn


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _polynomial("hermite_polynomial_h")
hermite_polynomial_he = _polynomial("hermite_polynomial_he")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l")
legendre_polynomial_p = _polynomial("legendre_polynomial_p")

SPECIAL = ("gammainc", "gammaincc", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai", "chebyshev_polynomial_t",
           "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p")
