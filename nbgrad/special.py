"""nbgrad.special: PyTorch's torch.special namespace, for the functions nbgrad has.

Most are the same ops as nbgrad's own functions under torch.special's names (gammaln is
lgamma, psi and digamma are digamma, multigammaln is mvlgamma, expit is sigmoid, ...), as in
PyTorch, where they are aliases with the same nodes; i0e, i1, i1e, zeta, xlog1py, entr,
ndtri, ndtr, erfcx and log_ndtr are torch.special's own (nbgrad/ops/special_functions.py); so are
gammainc/gammaincc (torch.igamma/igammac), the Bessel and Airy functions and the orthogonal
polynomials (nbgrad/ops/special_functions_more.py).
"""
import nbgrad as _nb

from .ops import special_functions as _sf
from .ops import special_functions_more as _sfm

__all__ = ["digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "log_ndtr", "exp2", "expit", "expm1", "gammaln", "i0", "i0e", "i1",
           "i1e", "log1p", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma",
           "psi", "round", "sinc", "softmax", "xlog1py", "xlogy", "zeta", *_sfm.SPECIAL]


def erf(input):
    return _nb.erf(input)


def erfc(input):
    return _nb.erfc(input)


def erfinv(input):
    return _nb.erfinv(input)


def expit(input):
    return _nb.sigmoid(input)


def logit(input, eps=None):
    return _nb.logit(input, eps)


def exp2(input):
    return _nb.exp2(input)


def expm1(input):
    return _nb.expm1(input)


def log1p(input):
    return _nb.log1p(input)


def round(input, *, decimals=0):  # noqa: A001  (torch.special's name)
    # (torch.special.round is the floating kernel alone: torch.round's integral no-op is not)
    from .ops._dtype_rules import refuse, INTEGRAL
    refuse("round_vml_cpu" if decimals == 0 else "round_cpu", input.dtype, INTEGRAL)
    return _nb.round(input, decimals=decimals)


def sinc(input):
    return _nb.sinc(input)


def xlogy(input, other):
    return _nb.xlogy(input, other)


def logsumexp(input, dim, keepdim=False):
    return _nb.logsumexp(input, dim, keepdim)


def softmax(input, dim, dtype=None):
    return _nb.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return _nb.log_softmax(input, dim, dtype=dtype)


def gammaln(input):
    return _nb.lgamma(input)


def digamma(input):
    return _nb.digamma(input)


psi = digamma


def polygamma(n, input):
    return _nb.polygamma(n, input)


def multigammaln(input, p):
    return _nb.mvlgamma(input, p)


def i0(input):
    return _nb.i0(input)


i0e = _sf.i0e
i1 = _sf.i1
i1e = _sf.i1e
ndtri = _sf.ndtri
ndtr = _sf.ndtr
entr = _sf.entr
zeta = _sf.zeta
xlog1py = _sf.xlog1py
erfcx = _sf.erfcx
log_ndtr = _sf.log_ndtr
globals().update({_name: getattr(_sfm, _name) for _name in _sfm.SPECIAL})

# out=, under the dtype rule of the op each function is (ops/_out.py), refused under autograd
# in the name PyTorch's refusal gives: the aliased op's (erf, sigmoid, lgamma), else special_<name>
_OUT = {**{_name: ("cast", _name) for _name in "erf erfc erfinv exp2 expm1 log1p sinc xlogy i0 logit polygamma "
                                              "digamma".split()},
        **{_name: ("cast", "special_" + _name) for _name in "i0e i1 i1e ndtri ndtr entr zeta xlog1py erfcx "
                                                           "log_ndtr".split()},
        "expit": ("cast", "sigmoid"), "gammaln": ("cast", "lgamma"), "psi": ("cast", "digamma"),
        "round": ("found", "round"), "logsumexp": ("floating", "logsumexp"), "multigammaln": ("mvlgamma", "mvlgamma")}
from .ops._signatures import with_out as _with_out  # noqa: E402
globals().update({_name: _with_out(globals()[_name], "special_" + _name, _rule, _grad)
                  for _name, (_rule, _grad) in _OUT.items()})

# an argument that is not a tensor where one is read: PyTorch's TypeError (ops/_signatures.py)
from .ops._signatures import with_tensor_arguments as _with_tensor_arguments  # noqa: E402
globals().update(_with_tensor_arguments(globals(), __name__, "special_"))
