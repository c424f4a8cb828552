"""More of PyTorch's functions, composed from the existing differentiable ops as PyTorch
composes them (its CompositeImplicitAutograd functions), so that their gradients, both
devices and the grad_fn names a user sees come with them: tensordot, isin, aminmax,
block_diag, cov/corrcoef, trapezoid, renorm, cdist, ldexp/frexp, vander, combinations,
chain_matmul, unique_consecutive."""
from .. import _dtype as D
from .._tensor import Tensor
from ._graph import _wrap as wrap_dim


# ---------------------------------------------------------------- tensordot
def _int_list(name, value, position):
    """PyTorch's parser for an int list argument (an int is refused, a tuple or list taken)."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(v, int) or (hasattr(v, "__index__") and not isinstance(v, (float, Tensor))) for v in value):
        raise TypeError(f"tensordot(): argument '{name}' (position {position}) must be tuple of ints, "
                        f"not {type(value).__name__}")
    return [int(v) for v in value]


def _tensordot_dims(a, b, dims):
    """torch.functional.tensordot's reading of dims: an int n (the last n dims of a with the
    first n of b), a pair of dim lists, or a tensor of either form."""
    if not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
        return dims_a, dims_b
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            assert dims.shape[0] == 2
            return dims[0].tolist(), dims[1].tolist()
        n = int(dims.item())
        if n < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        return list(range(-n, 0)), list(range(n))
    n = int(dims)
    if n < 0:
        raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
    if n > min(a.dim(), b.dim()):
        raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
    return list(range(-n, 0)), list(range(n))


def tensordot(a, b, dims=2, out=None):
    """The sum of products of a's dims dims_a with b's dims_b (ATen's tensordot: a dim of size
    1 against a larger one is summed first, then both are permuted to (kept, contracted) and
    (contracted, kept), reshaped to matrices and multiplied by mm)."""
    from .linalg import mm
    dims_a, dims_b = _tensordot_dims(a, b, dims)
    dims1 = _int_list("dims_self", dims_a, 3)
    dims2 = _int_list("dims_other", dims_b, 4)
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    csize = 1
    t1, t2 = a, b
    for d1, d2 in zip(dims1, dims2):
        s1, s2 = a.shape[wrap_dim(d1, a.dim())], b.shape[wrap_dim(d2, b.dim())]
        if s2 == 1:                 # a broadcast dim is summed right away
            t1 = t1.sum(d1, True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = t2.sum(d2, True, dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {d1} and "
                                   f"second has size {s2} in dim {d2}")
            csize *= s1
    c1, c2 = _dim_set(dims1, a.dim()), _dim_set(dims2, b.dim())
    p1 = [i for i in range(a.dim()) if i not in c1] + dims1
    p2 = dims2 + [i for i in range(b.dim()) if i not in c2]
    kept1 = [t1.shape[i] for i in range(a.dim()) if i not in c1]
    kept2 = [t2.shape[i] for i in range(b.dim()) if i not in c2]
    size1, size2 = _prod(kept1), _prod(kept2)
    t1 = t1.permute(p1).reshape(size1, csize)
    t2 = t2.permute(p2).reshape(csize, size2)
    result = mm(t1, t2).reshape(kept1 + kept2)
    if out is not None:
        from ._out import write, resize_output, check_no_grad
        check_no_grad("tensordot", (a, b), (out,))
        if out.dtype is not result.dtype:
            raise RuntimeError(f"tensordot: Expected the output tensor to have dtype {D.scalar_type_name(result.dtype)}, "
                               f"but got an output tensor with dtype {D.scalar_type_name(out.dtype)}")
        resize_output(out, result.shape)
        return write(out, result)
    return result


def _dim_set(dims, ndim):
    """ATen's dim_list_to_bitset: the wrapped dims, each once."""
    seen = set()
    for d in dims:
        w = wrap_dim(d, ndim)
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)
    return seen


def _prod(values):
    p = 1
    for v in values:
        p *= v
    return p
