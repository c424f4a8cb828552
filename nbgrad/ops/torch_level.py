"""PyTorch's top-level forms of the linear algebra (torch.svd, torch.qr, torch.cholesky) and
the small predicates and identities of a real strided tensor (is_complex, is_nonzero,
conj, real, narrow_copy, the layout and sparse/quantized flags).

torch.svd, torch.qr and torch.cholesky are PyTorch's own composites over torch.linalg:
svd returns V (Vh's conjugate transpose, a TransposeBackward0 view) and, with
compute_uv=False, zero U and V; qr's `some` picks 'reduced' or 'complete'; cholesky's node
is CholeskyBackward0.  qr and cholesky warn once that they are deprecated, as PyTorch does.
"""
from .. import _dtype as D
from .._warnings import warn_once as _warn_once
from ..return_types import return_type
from . import linalg_decomp as LD
from . import views as V
from .more import _zero_node

svd_result = return_type("svd", ["U", "S", "V"])
qr_result = return_type("qr", ["Q", "R"])



def svd(input, some=True, compute_uv=True, *, out=None):
    if input.dim() < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has {input.dim()} dimensions "
                           "instead")
    if compute_uv:
        U, S, Vh = LD.svd(input, full_matrices=not some)
    else:
        # PyTorch: the singular values, and U and V of sizes (m, m), (n, n) full of zeros
        from .._creation import zeros
        S = LD.svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        U = zeros(batch + (m, m), dtype=input.dtype, device=input.device)
        Vh = zeros(batch + (n, n), dtype=input.dtype, device=input.device)
    return svd_result(U, S, V.mT(Vh))


def qr(input, some=True, *, out=None):
    _warn_once("qr", "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
                     "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
                     "Q, R = torch.qr(A, some)\nshould be replaced with\n"
                     "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")
    Q, R = LD.qr(input, "reduced" if some else "complete")
    return qr_result(Q, R)


def _empty_cholesky(input):
    """ATen's cholesky returns empty_like(self) for no elements, before any check of its shape."""
    from .._creation import empty
    from ..autograd.graph import needs_grad, record
    out = empty(input.shape, dtype=input.dtype, device=input.device)
    if needs_grad(input):
        record(_EmptyCholeskyBackward0, (input,), (out,))
    return out


class CholeskyBackward0(LD.LinalgCholeskyExBackward0):
    """torch.cholesky's node: linalg.cholesky's formula under PyTorch's older name."""


def cholesky(input, upper=False, *, out=None):
    _warn_once("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
                           "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
                           "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
                           "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
                           "equivalent results for all valid (symmetric positive definite) inputs.")
    if input.numel() == 0:
        return _empty_cholesky(input)
    if input.dim() < 2:
        raise RuntimeError("cholesky: The input tensor A must have at least 2 dimensions.")
    L = LD.factor_cholesky(input, upper, "cholesky")
    fn = L._grad_fn
    if fn is not None and type(fn) is LD.LinalgCholeskyExBackward0:
        fn.__class__ = CholeskyBackward0
    return L


# -- predicates and identities of a real strided tensor -------------------------------------
def is_complex(input):
    return False            # (nbgrad has no complex dtypes)


def is_conj(input):
    return False


def is_neg(input):
    return False


def is_signed(input):
    return input.dtype not in (D.uint8, D.bool_)


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def is_nonzero(input):
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.reshape(()).item())


def conj(input):
    return input            # a real tensor is its own conjugate (the same object, as in PyTorch)


resolve_conj = resolve_neg = conj_physical = real = conj


def imag(input):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def narrow_copy(input, dim, start, length):
    """narrow's values in new row-major memory (not a view)."""
    return input.narrow(dim, start, length).clone(memory_format=_contiguous())


def _contiguous():
    from .._layout import contiguous_format
    return contiguous_format


def get_device(input):
    d = input.device
    return -1 if d.type == "cpu" else (d.index or 0)


class layout:
    """PyTorch's tensor layouts; nbgrad's tensors are all strided."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"nbgrad.{self.name}"

    def __reduce__(self):
        return self.name


strided = layout("strided")


def to_dense(input, dtype=None, *, masked_grad=None):
    return input if dtype is None else input.to(dtype)


def char(input, *, memory_format=None):
    return input.to(D.int8) if memory_format is None else input.to(D.int8, memory_format=memory_format)


TENSOR_METHODS = {
    "is_complex": is_complex, "is_conj": is_conj, "is_neg": is_neg, "is_signed": is_signed,
    "is_same_size": is_same_size, "is_nonzero": is_nonzero,
    "conj": conj, "resolve_conj": resolve_conj, "resolve_neg": resolve_neg, "conj_physical": conj_physical,
    "narrow_copy": narrow_copy, "to_dense": to_dense, "char": char,
    "svd": lambda self, some=True, compute_uv=True: svd(self, some, compute_uv),
    "qr": lambda self, some=True: qr(self, some),
    "cholesky": lambda self, upper=False: cholesky(self, upper),
}

# flags read as attributes (Tensor.is_sparse, ...): all False for a strided tensor
TENSOR_FLAGS = ("is_sparse", "is_sparse_csr", "is_quantized", "is_meta", "is_mkldnn", "is_nested")


def typename(obj):
    """A tensor's legacy type name ('torch.FloatTensor', as PyTorch's), else the object's
    class as module.qualname (builtins without a module)."""
    from .._tensor import Tensor
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


# (the gradient of no elements: zeros of the input's shape)
_EmptyCholeskyBackward0 = _zero_node("CholeskyBackward0", 1)
