"""nbgrad.func.vmap: PyTorch's vectorizing map, done as a loop.

vmap(fn, in_dims, out_dims)(*args) calls fn once per index of the mapped dimension, on the
slices args[i].select(in_dim, b) (views: an in-place change of a slice reaches the caller's
tensor, as an in-place op on a batched tensor does), and stacks the per-index outputs at
out_dims.  The arguments and results are PyTorch's: in_dims and out_dims as ints, None or
nested tuples/lists/dicts matching the inputs and outputs, PyTorch's checks and messages for
mismatched batch sizes, bad in_dims/out_dims and non-tensor outputs, nested vmap, and
composition with the grad transforms (vmap(grad(f)): per-sample gradients).

randomness: "error" (the default) raises PyTorch's RuntimeError when fn draws random numbers
from the default generator (the generator's state changed during the call); "different" lets
each index draw its own numbers (the loop's successive draws); "same" gives every index the
same draws (the generator state is restored before each index; afterwards it is where one
index's draws left it).

Where it departs from PyTorch: this is not PyTorch's batching-rule implementation, so it is
slower (one call of fn per index) but gives the same results.  Consequences: fn runs batch-
size times (its Python side effects repeat); with out_dims None for an output, an output that
is equal for every index is returned as it is and one that differs is refused as PyTorch
refuses a batched output (PyTorch decides by whether the output depends on the batched
inputs); chunk_size is checked and otherwise changes nothing; a mapped dimension of size 0
is refused (there is no index to call fn on).  Random draws from an explicit generator= are
not seen by randomness="error" (nbgrad's draws come from the default generator).
"""
import functools

from ._pytree import tree_flatten, tree_unflatten, broadcast_to_and_flatten

__all__ = ["vmap"]


def _nb():
    import nbgrad
    return nbgrad


def _get_name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_get_name(func.func)}, ...)"
    return repr(func)


def _check_randomness_arg(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


class _RandomnessGuard:
    """Around one call of fn: "error" refuses a change of the generator's state."""

    def __init__(self, randomness):
        self.randomness = randomness

    def __enter__(self):
        if self.randomness == "error":
            self.state = _nb().get_rng_state().numpy().copy()
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.randomness == "error" and exc_type is None:
            if not (_nb().get_rng_state().numpy() == self.state).all():
                _nb().set_rng_state(_nb().tensor(self.state))       # (the caller's stream as before the call)
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        return False


def _process_inputs(in_dims, args, func):
    Tensor = _nb().Tensor
    name = _get_name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying "
                         "to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, args_spec = tree_flatten(args)
    flat_in_dims = broadcast_to_and_flatten(in_dims, args_spec)
    if flat_in_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {args_spec}.")
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims)):
        if not isinstance(in_dim, int) and in_dim is not None:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input but "
                             "in_dim must be either an integer dimension or None.")
        if isinstance(in_dim, int) and not isinstance(arg, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input but "
                             f"the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        if in_dim is not None and not -arg.dim() <= in_dim < arg.dim():
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for some input, "
                             f"but that input is a Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy "
                             f"-{arg.dim()} <= in_dim < {arg.dim()}.")
        if in_dim is not None and in_dim < 0:
            flat_in_dims[i] = in_dim % arg.dim()
    sizes = [arg.size(d) for d, arg in zip(flat_in_dims, flat_args) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0], flat_in_dims, flat_args, args_spec


def _check_out_dims(out_dims, func):
    if isinstance(out_dims, int):
        return
    for d in tree_flatten(out_dims)[0]:
        if not (d is None or isinstance(d, int)):
            raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                             "python collection of ints representing where in the outputs the vmapped dimension "
                             "should appear.")


def _flat_out_dims(first_output, out_dims, func):
    """out_dims per output leaf, by PyTorch's rules (a single tensor takes an int, a 1-tuple or None)."""
    flat, spec = tree_flatten(first_output)

    def incompatible():
        raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                         f"with the structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but "
                         f"outputs has structure {spec}.")

    if isinstance(first_output, _nb().Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        incompatible()
    dims = broadcast_to_and_flatten(out_dims, spec)
    if dims is None:
        incompatible()
    return dims


def _combine(per_index, out_dim, name):
    """The outputs of one leaf over the indices, stacked at out_dim (or the one unbatched value)."""
    nb = _nb()
    first = per_index[0]
    if out_dim is None:
        if isinstance(first, nb.Tensor):
            same = all(o is first or (isinstance(o, nb.Tensor) and o.shape == first.shape and o.dtype == first.dtype
                                      and bool(nb.equal(o, first))) for o in per_index[1:])
            if not same:
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
        return first
    for o in per_index:
        if not isinstance(o, nb.Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(o)}. Did you mean "
                             "to set out_dims= to None for output?")
    ndim = first.dim() + 1
    if not -ndim <= out_dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got "
                         f"{out_dim})")
    return nb.stack(per_index, out_dim)


def _vmap_call(func, in_dims, out_dims, randomness, args, kwargs):
    nb = _nb()
    name = _get_name(func)
    _check_out_dims(out_dims, func)
    batch_size, flat_in_dims, flat_args, args_spec = _process_inputs(in_dims, args, func)
    if batch_size == 0:
        raise ValueError(f"vmap({name}, ...): nbgrad's vmap calls `{name}` once per index of the mapped dimension, "
                         "which has size 0 here")
    start = nb.get_rng_state() if randomness == "same" else None
    outputs, spec = [], None
    for b in range(batch_size):
        if start is not None:
            nb.set_rng_state(start)
        sliced = [a if d is None else a.select(d, b) for a, d in zip(flat_args, flat_in_dims)]
        with _RandomnessGuard(randomness):
            out = func(*tree_unflatten(sliced, args_spec), **kwargs)
        flat, out_spec = tree_flatten(out)
        if spec is None:
            spec, first = out_spec, out
        elif out_spec != spec:
            raise ValueError(f"vmap({name}, ...): `{name}` returned outputs of different structures for different "
                             f"indices: {spec} and {out_spec}")
        outputs.append(flat)
    dims = _flat_out_dims(first, out_dims, func)
    return tree_unflatten([_combine([o[i] for o in outputs], d, name) for i, d in enumerate(dims)], spec)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over dimension in_dims of its inputs, its outputs stacked at out_dims."""
    _check_randomness_arg(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)

    return wrapped
