"""PyTorch's special functions: polygamma and mvlgamma with PyTorch's signatures and checks,
and torch.special's own functions (i0e, i1, i1e, zeta, xlog1py, entr, ndtri, ndtr).

The elementwise ones are op table rows (nbgrad/ops/optable.py: lgamma, digamma, polygamma,
i0, sinc, i0e, i1, i1e, zeta, xlog1py, entr, ndtri), whose scalar functions are
backends/_shared/special.py's; here are their public forms.  mvlgamma is PyTorch's
composition (lgamma of x + arange(-p/2 + 1/2, 1/2, 1/2) summed over that last dim, plus
p (p - 1) / 4 log pi) under one node, MvlgammaBackward0, whose backward is PyTorch's
mvlgamma_backward (grad times the digammas' sum, recorded under create_graph); ndtr is
PyTorch's composition (1 + erf(x / sqrt 2)) * 0.5, MulBackward1 as its node.
"""
import math

from .. import _dtype as D
from .._checks import as_symint
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from . import elementwise as E
from . import tabled as _tabled
from ._graph import needs_grad, record
from .optable import TABLE


def _tensor_arg(fn, v, name="input", position=1):
    if not isinstance(v, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not {type(v).__name__}")
    return v


# -- polygamma ---------------------------------------------------------------------------------
def _check_order(n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


def polygamma(n, input):
    """The n-th derivative of digamma (PolygammaBackward0; derivative polygamma(n + 1, x))."""
    n = as_symint(n, "polygamma", "n", 1, any_dim=False)
    _tensor_arg("polygamma", input, "input", 2)
    _check_order(n)
    return _tabled.apply(TABLE["polygamma"], (input,), {"n": n})


def polygamma_method(self, n):
    """Tensor.polygamma(n)."""
    n = as_symint(n, "polygamma", "n", 1, any_dim=False)
    _check_order(n)
    return _tabled.apply(TABLE["polygamma"], (self,), {"n": n})


def polygamma_inplace(generated):
    """Tensor.polygamma_(n): the row's in-place form after PyTorch's argument checks."""
    def polygamma_(self, n):
        n = as_symint(n, "polygamma_", "n", 1, any_dim=False)
        _check_order(n)
        return generated(self, n)
    return polygamma_


# -- mvlgamma ----------------------------------------------------------------------------------
class MvlgammaBackward0(Node):
    def backward(self, grad):
        x, = self.saved_tensors
        # PyTorch's mvlgamma_backward: grad * digamma(x[..., None] + arange(...)).sum(-1)
        return grad * E.digamma(_mvlgamma_args(x, self.p)).sum(-1)


def _mvlgamma_args(x, p):
    from .._creation import arange
    from ._graph import check_result_fits
    check_result_fits(tuple(x.shape) + (p,), x._dtype, x.device)
    return arange(-p / 2. + 0.5, 0.5, 0.5, dtype=x._dtype, device=x.device) + x.unsqueeze(-1)


def _check_mvlgamma(x, p):
    if x._dtype is D.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension p (PyTorch's composition)."""
    x = _tensor_arg("mvlgamma", input)
    p = as_symint(p, "mvlgamma", "p", 2, any_dim=False)
    _check_mvlgamma(x, p)
    with no_grad():
        xf = x if x._dtype.is_floating_point else x.to(D.get_default_dtype())
        out = E.lgamma(_mvlgamma_args(xf, p)).sum(-1) + float(p * (p - 1)) * math.log(math.pi) * 0.25
    if needs_grad(x):
        node = record(MvlgammaBackward0, (x,), (out,))
        node.p = p
        node.save(x, outputs=(out,))
    return out


def mvlgamma_(self, p):
    """Tensor.mvlgamma_(p): the result written into self (its dtype must take it)."""
    from .inplace import apply_inplace
    p = as_symint(p, "mvlgamma_", "p", 1, any_dim=False)
    if not self._dtype.is_floating_point and self._dtype is not D.bool_:
        # (PyTorch's mvlgamma_out names self's dtype, then the result's)
        raise RuntimeError(f"mvlgamma: result type {D.scalar_type_name(self._dtype)} can't be cast to the "
                           f"desired output type {D.scalar_type_name(D.get_default_dtype())}")
    _check_mvlgamma(self, p)
    return apply_inplace(self, lambda old: mvlgamma(old, p), needs_old=True)


# -- torch.special's own -----------------------------------------------------------------------
def _eps_of(x):
    dt = _tabled.computed_dtype(TABLE["i1"], x._dtype)
    return {D.float16: 0.0009765625, D.float32: 1.1920928955078125e-07}.get(dt, 2.220446049250313e-16)


def i0e(input):
    return _tabled.apply(TABLE["i0e"], (_tensor_arg("special_i0e", input),), {})


def i1(input):
    x = _tensor_arg("special_i1", input)
    return _tabled.apply(TABLE["i1"], (x,), {"eps": _eps_of(x)})


def i1e(input):
    x = _tensor_arg("special_i1e", input)
    return _tabled.apply(TABLE["i1e"], (x,), {"eps": _eps_of(x)})


def ndtri(input):
    return _tabled.apply(TABLE["ndtri"], (_tensor_arg("special_ndtri", input),), {})


def erfcx(input):
    return _tabled.apply(TABLE["erfcx"], (_tensor_arg("special_erfcx", input),), {})


def log_ndtr(input):
    return _tabled.apply(TABLE["log_ndtr"], (_tensor_arg("special_log_ndtr", input),), {})


def entr(input):
    return _tabled.apply(TABLE["entr"], (_tensor_arg("special_entr", input),), {})


def ndtr(input):
    x = _tensor_arg("special_ndtr", input)
    # (C++'s Scalar overloads: MulBackward1, AddBackward1)
    return E.mul_scalar(E.add_scalar(E.erf(E.mul_scalar(x, 0.7071067811865476)), 1), 0.5)


_ZETA = _tabled.NODES["zeta"]


class _ZetaBackward(_ZETA):
    """zeta's node: PyTorch has no derivative for its first argument (not_implemented)."""

    def backward(self, grad):
        if self.needs_input_grad(0):
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        if self.consts and "x" in self.consts and self.needs_input_grad(1):
            # a number x: PyTorch's self_scalar formula calls zeta(self + 1., other) with a
            # number again (the node kept it unwrapped: SpecialZetaBackward1 under create_graph)
            x = self.consts["x"]
            q = self.saved_tensors[1]
            return None, E.mul(E.mul_scalar(grad, -x), zeta(x + 1.0, q))
        return _ZETA.backward(self, grad)


_ZetaBackward.__name__ = _ZetaBackward.__qualname__ = "SpecialZetaBackward0"
_tabled.NODES["zeta"] = _ZetaBackward
_ZETA_NUMBER_SELF = type("SpecialZetaBackward1", (_ZetaBackward,), {})
_ZETA_NUMBER_OTHER = type("SpecialZetaBackward2", (_ZetaBackward,), {})
_XLOG1PY_NUMBER_SELF = type("SpecialXlog1PyBackward1", (_tabled.NODES["xlog1py"],), {})
_XLOG1PY_NUMBER_OTHER = type("SpecialXlog1PyBackward2", (_tabled.NODES["xlog1py"],), {})


def _binary_special(name, row, number_self, number_other):
    def fn(input, other):
        a, b = isinstance(input, Tensor), isinstance(other, Tensor)
        if not a and not b or not a and not isinstance(input, (int, float)) or \
                not b and not isinstance(other, (int, float)):
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, {type(other).__name__}), but expected one of:\n"
                            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                            " * (Number self, Tensor other, *, Tensor out = None)\n"
                            " * (Tensor input, Number other, *, Tensor out = None)\n")
        node = None if a and b else number_self if b else number_other
        return _tabled.apply(TABLE[row], (input, other), {}, node)
    fn.__name__ = name
    return fn


zeta = _binary_special("special_zeta", "zeta", _ZETA_NUMBER_SELF, _ZETA_NUMBER_OTHER)
xlog1py = _binary_special("special_xlog1py", "xlog1py", _XLOG1PY_NUMBER_SELF, _XLOG1PY_NUMBER_OTHER)

# formulas call them with a number operand as PyTorch's C++ does (zeta(self + 1., other) with a
# number self: SpecialZetaBackward1)
_tabled.OPS["zeta"] = zeta
_tabled.OPS["xlog1py"] = xlog1py
