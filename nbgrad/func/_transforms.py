"""nbgrad.func's differentiation transforms: grad, grad_and_value, vjp, jvp, jacrev, jacfwd,
hessian and linearize, written over nbgrad's reverse-mode engine (autograd.grad).

How a transform keeps its own derivative apart from the caller's (PyTorch's functorch does it
with wrapper tensors and levels): it gives `f` fresh tensors for the differentiated inputs -- a
differentiable alias (view_as) of an input the caller's autograd records, else a new detached
leaf -- and differentiates with respect to those objects only, always with create_graph=True
so that an enclosing transform (grad(grad(f)), jacfwd(jacrev(f))) or the caller's autograd can
differentiate the result again.  A result keeps its history only where it reaches a tensor
that requires grad outside this transform (an input the caller's autograd records, a captured
tensor, an enclosing transform's input); otherwise it is detached, so for inputs created with
requires_grad=False the results do not require grad, as in PyTorch.  Called under no_grad, a
transform still differentiates `f` but returns results without history, as PyTorch's.

Where it departs from PyTorch:
- There is no forward-mode AD in nbgrad: jvp, jacfwd (and so hessian) and linearize compute
  J v by the double-backward trick, J v = d/du <J^T u, v>, which needs the backward formulas
  of f's ops to be differentiable (PyTorch needs their forward-mode formulas instead).
- jacrev and jacfwd compute the Jacobian one row (jacrev) or one column (jacfwd) at a time
  instead of in one vmapped pass; chunk_size is checked and otherwise has no effect.
- jacfwd runs f once (PyTorch runs it under vmap over the basis): randomness="error" refuses a
  random draw in f as PyTorch's does; with "same" or "different" every column sees the same
  draws.
- The history kept on results follows the rule above; PyTorch's forward-mode AD leaves a
  history on a few results that do not depend on any input (jacfwd of a linear function of an
  input that requires grad), where nbgrad gives none.
- linearize's jvp_fn replays the recorded backward graph (PyTorch traces an FX graph); its
  results never carry history, as PyTorch's do not.
"""
import functools

from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..autograd.node import AccumulateGrad
from ._pytree import tree_flatten, tree_unflatten, treespec_pprint

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize"]

JVP_STR = "jvp(f, primals, tangents)"


def _nb():
    import nbgrad
    return nbgrad


def _is_tensor(x):
    return isinstance(x, _nb().Tensor)


# --------------------------------------------------------------------------- one level
_DEPTH = [0]                # how many transforms are running, one inside the other


class _Level:
    """One application of a transform, a context manager around its forward computation.

    Its depth is the number of transforms it runs inside, plus one.  The fresh leaves it makes
    carry that depth: for this level, a leaf of its own depth or deeper (its own, or one of a
    transform that ran inside f and has finished) is not "outside"; a leaf of a smaller depth
    (an enclosing transform's input, still being differentiated) or without one (the caller's
    tensors) is."""

    def __init__(self):
        self.outer_grad = is_grad_enabled()
        self.depth = _DEPTH[0] + 1

    def __enter__(self):
        _DEPTH[0] += 1
        return self

    def __exit__(self, *exc):
        _DEPTH[0] -= 1
        return False

    def leaf(self, t):
        t._nbgrad_func_depth = self.depth
        return t

    def differentiable(self, x):
        if not _is_tensor(x):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if self.outer_grad and x.requires_grad:
            return x.view_as(x)       # (a new object, still linked to the caller's graph)
        return self.leaf(x.detach().requires_grad_())

    def _outside(self, leaf):
        return getattr(leaf, "_nbgrad_func_depth", 0) < self.depth

    def _reaches_outside(self, t):
        """Does t's history reach a tensor requiring grad from outside this level?"""
        node = t.grad_fn
        if node is None:
            return self._outside(t)
        seen, stack = {id(node)}, [node]
        while stack:
            for fn, _ in stack.pop().next_functions:
                if fn is None or id(fn) in seen:
                    continue
                seen.add(id(fn))
                if isinstance(fn, AccumulateGrad):
                    if self._outside(fn.variable):
                        return True
                else:
                    stack.append(fn)
        return False

    def unwrap(self, t):
        """A result as the caller sees it (see the module docstring)."""
        if not _is_tensor(t) or not t.requires_grad:
            return t
        if self.outer_grad and self._reaches_outside(t):
            return t
        return t.detach()

    def unwrap_tree(self, tree):
        """aux outputs: tensors (in tuples, lists, dicts) only, as PyTorch's."""
        leaves, spec = tree_flatten(tree)
        for x in leaves:
            if not _is_tensor(x):
                raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
        return tree_unflatten([self.unwrap(x) for x in leaves], spec)


def _autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=True):
    """autograd.grad over the outputs that have history; zeros for the inputs nothing reaches."""
    nb = _nb()
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return tuple(nb.zeros_like(x) for x in inputs)
    res = nb.autograd.grad([o for o, _ in pairs], list(inputs), [g for _, g in pairs], retain_graph=retain_graph,
                           create_graph=create_graph, allow_unused=True)
    return tuple(nb.zeros_like(x) if g is None else g for g, x in zip(res, inputs))


# --------------------------------------------------------------------------- argnums
def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _slice_argnums(args, argnums, as_tuple=True):
    """(the differentiated arguments, argnums with negative numbers wrapped)."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        argnums = _wrap_argnum(argnums, len(args))
        return ((args[argnums],) if as_tuple else args[argnums]), argnums
    argnums = tuple(_wrap_argnum(a, len(args)) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(args[i] for i in argnums), argnums


def _replace_args(args, new, argnums):
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


def _prepare(level, args, argnums):
    """Args with fresh differentiable tensors at argnums: (args, flat fresh tensors, their
    structure as a tuple over argnums (PyTorch's primals), argnums)."""
    diff, argnums = _slice_argnums(args, argnums, as_tuple=False)
    flat, spec = tree_flatten(diff)
    fresh = [level.differentiable(x) for x in flat]
    args = _replace_args(args, tree_unflatten(fresh, spec), argnums)
    primals_spec = tree_flatten((diff,) if isinstance(argnums, int) else diff)[1]
    return args, fresh, primals_spec, argnums


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


def _check_tensor_outputs(flat, api):
    if len(flat) == 0:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {flat})")
    for o in flat:
        if not _is_tensor(o):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")


def _check_floating(flat):
    for o in flat:
        if not o.is_floating_point():
            raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor "
                               f"with dtype {o.dtype}")


# --------------------------------------------------------------------------- grad
def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (the gradient of func with respect to args[argnums], func's value);
    with has_aux, func returns (value, aux) and the result is (gradient, (value, aux))."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _Level() as level, enable_grad():
            args, fresh, _, argnums_ = _prepare(level, args, argnums)
            output, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not _is_tensor(output):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                                   f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            grads = _autograd_grad((output,), fresh)
            diff = _slice_argnums(args, argnums_, as_tuple=False)[0]
            grads = tree_unflatten([level.unwrap(g) for g in grads], tree_flatten(diff)[1])
            output = level.unwrap(output)
            if has_aux:
                return grads, (output, level.unwrap_tree(aux))
            return grads, output

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function returning the gradient of a scalar func with respect to args[argnums] (with
    has_aux: (gradient, aux))."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


# --------------------------------------------------------------------------- vjp
def _vjp(func, primals, argnums, has_aux):
    """vjp's work: (output, vjp_fn, aux, fresh, primals spec) with vjp_fn giving flat gradients."""
    with _Level() as level, enable_grad():
        if argnums is None:
            flat, spec = tree_flatten(primals)
            fresh = [level.differentiable(x) for x in flat]
            args, primals_spec = tree_unflatten(fresh, spec), spec
        else:
            args, fresh, primals_spec, _ = _prepare(level, primals, argnums)
        out, aux = _split_aux(func(*args), has_aux, "vjp(f, *primals)")
        if has_aux:
            aux = level.unwrap_tree(aux)
        flat_out, out_spec = tree_flatten(out)
        _check_tensor_outputs(flat_out, "vjp(f, *primals)")
        results = tree_unflatten([level.unwrap(o) for o in flat_out], out_spec)
        _check_floating(flat_out)

    def flat_vjp(flat_cotangents, retain_graph=True, create_graph=None):
        if create_graph is None:
            create_graph = is_grad_enabled()
        grads = _autograd_grad(flat_out, fresh, flat_cotangents, retain_graph=retain_graph, create_graph=create_graph)
        return [level.unwrap(g) for g in grads]

    return results, flat_vjp, aux, flat_out, out_spec, primals_spec


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn): vjp_fn(cotangents) gives the cotangents times the Jacobian,
    as a tuple over primals (with has_aux: (output, vjp_fn, aux))."""
    results, flat_vjp, aux, _, out_spec, primals_spec = _vjp(func, primals, None, has_aux)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {treespec_pprint(ct_spec)}, primal output: "
                               f"{treespec_pprint(out_spec)}")
        return tree_unflatten(flat_vjp(flat_ct, retain_graph, create_graph), primals_spec)

    return (results, vjp_fn, aux) if has_aux else (results, vjp_fn)


# --------------------------------------------------------------------------- jvp (double backward)
class _Linearized:
    """f at primals with the graph of J^T u kept, so that J v = d/du <J^T u, v> for any v."""

    def __init__(self, level, func, args, fresh, has_aux, api):
        nb = _nb()
        out, aux = _split_aux(func(*args), has_aux, api)
        self.aux = aux
        flat_out, self.out_spec = tree_flatten(out)
        _check_tensor_outputs(flat_out, api)
        self.flat_out = flat_out
        # u: zeros, as J^T u is linear in u and u's value never reaches J v
        self.us = [level.leaf(nb.zeros_like(o, requires_grad=True)) for o in flat_out]
        pairs = [(o, u) for o, u in zip(flat_out, self.us) if o.requires_grad]
        if pairs:
            self.gx = nb.autograd.grad([o for o, _ in pairs], fresh, [u for _, u in pairs], create_graph=True,
                                       allow_unused=True)
        else:
            self.gx = (None,) * len(fresh)

    def column(self, tangents, create_graph=True, retain_graph=True):
        """J v per output (None where an output does not depend on the inputs)."""
        pairs = [(g, t) for g, t in zip(self.gx, tangents)
                 if t is not None and g is not None and g.requires_grad]
        if not pairs:
            return [None] * len(self.us)
        return list(_nb().autograd.grad([g for g, _ in pairs], self.us, [t for _, t in pairs],
                                        retain_graph=retain_graph, create_graph=create_graph, allow_unused=True))


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J tangents) (with has_aux: (output, jvp_out, aux))."""
    return _jvp(func, primals, tangents, strict, has_aux)


def _check_tensor_list(flat, argname):
    if len(flat) == 0:
        raise RuntimeError(f"{JVP_STR}: Expected {argname} to contain at least one Tensor.")
    for x in flat:
        if not _is_tensor(x):
            raise RuntimeError(f"{JVP_STR}: Expected {argname} to only contain Tensors, got {type(x)}")


def _jvp(func, primals, tangents, strict, has_aux):
    nb = _nb()
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{JVP_STR}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_primals, primals_spec = tree_flatten(primals)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{JVP_STR}: Expected primals and tangents to have the same python structure. For example, "
                           "if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{primals_spec} and tangents with structure {tangents_spec}")
    _check_tensor_list(flat_primals, "primals")
    _check_tensor_list(flat_tangents, "tangents")
    with _Level() as level, enable_grad():
        fresh = [level.differentiable(x) for x in flat_primals]
        lin = _Linearized(level, func, tree_unflatten(fresh, primals_spec), fresh, has_aux, JVP_STR)
        cols = lin.column(flat_tangents)
        out = []
        for o, c in zip(lin.flat_out, cols):
            if c is None:
                if strict:
                    raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of the "
                                       "inputs. This is not allowed with strict=True.")
                c = nb.zeros_like(o)
            out.append(c)
        primals_out = tree_unflatten([level.unwrap(o) for o in lin.flat_out], lin.out_spec)
        tangents_out = tree_unflatten([level.unwrap(c) for c in out], lin.out_spec)
        if has_aux:
            return primals_out, tangents_out, level.unwrap_tree(lin.aux)
        return primals_out, tangents_out


# --------------------------------------------------------------------------- Jacobians
def _check_real(api, flat, is_input):
    for idx, x in enumerate(flat):
        if _is_tensor(x) and x.dtype.is_complex:
            raise RuntimeError(f"{api}: Expected all {'inputs' if is_input else 'outputs'} to be real but received "
                               f"complex tensor at flattened input idx: {idx}")


def _assemble(jac, flat_out, out_spec, primals_spec, argnums):
    """jac[i][j] (output leaf i, primal leaf j) into PyTorch's structure: the outputs' tree of
    the primals' tree (of the one primal for an int argnums)."""
    per_output = [tree_unflatten(row, primals_spec) for row in jac]
    if isinstance(argnums, int):
        per_output = [p[0] for p in per_output]
    return tree_unflatten(per_output, out_spec)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of func with respect to args[argnums], row by row in reverse mode."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        nb = _nb()
        _check_real("jacrev", tree_flatten(args)[0], True)
        with _Level() as level, enable_grad():
            args_, fresh, primals_spec, argnums_ = _prepare(level, args, argnums)
            out, aux = _split_aux(func(*args_), has_aux, "vjp(f, *primals)")
            flat_out, out_spec = tree_flatten(out)
            _check_tensor_outputs(flat_out, "vjp(f, *primals)")
            _check_real("jacrev", flat_out, False)
            _check_floating(flat_out)
            jac = []
            for o in flat_out:
                rows = [[] for _ in fresh]
                flat_o = o.reshape(-1)
                for k in range(o.numel()):
                    gs = _autograd_grad((flat_o[k],), fresh, retain_graph=True)
                    for row, g in zip(rows, gs):
                        row.append(g)
                jac.append([level.unwrap(nb.stack(row).view(tuple(o.shape) + tuple(p.shape)) if row
                                         else p.new_zeros(tuple(o.shape) + tuple(p.shape)))
                            for row, p in zip(rows, fresh)])
            result = _assemble(jac, flat_out, out_spec, primals_spec, argnums_)
            return (result, level.unwrap_tree(aux)) if has_aux else result

    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of func with respect to args[argnums], column by column (J e_k, by the
    double-backward trick)."""
    from ._vmap import _check_randomness_arg, _RandomnessGuard

    _check_randomness_arg(randomness)

    @functools.wraps(func)
    def wrapper(*args):
        nb = _nb()
        _check_real("jacfwd", tree_flatten(args)[0], True)
        with _Level() as level, enable_grad():
            args_, fresh, primals_spec, argnums_ = _prepare(level, args, argnums)
            with _RandomnessGuard(randomness):
                lin = _Linearized(level, func, args_, fresh, has_aux, JVP_STR)
            _check_real("jacfwd", lin.flat_out, False)
            jac = [[] for _ in lin.flat_out]
            for j, p in enumerate(fresh):
                cols = [[] for _ in lin.flat_out]
                for k in range(p.numel()):
                    e = p.new_zeros(p.numel())
                    e[k] = 1
                    col = lin.column([e.view(p.shape) if i == j else None for i in range(len(fresh))])
                    for c, o, cs in zip(col, lin.flat_out, cols):
                        cs.append(nb.zeros_like(o) if c is None else c)
                for o, cs, row in zip(lin.flat_out, cols, jac):
                    shape = tuple(o.shape) + tuple(p.shape)
                    row.append(level.unwrap(nb.stack(cs, -1).view(shape) if cs else o.new_zeros(shape)))
            result = _assemble(jac, lin.flat_out, lin.out_spec, primals_spec, argnums_)
            return (result, level.unwrap_tree(lin.aux)) if has_aux else result

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of func with respect to args[argnums]: jacfwd(jacrev(func))."""
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is J tangents at primals, from one recorded graph."""
    nb = _nb()
    flat_primals, primals_spec = tree_flatten(primals)
    with _Level() as level, enable_grad():
        fresh = [level.differentiable(x) for x in flat_primals]
        lin = _Linearized(level, func, tree_unflatten(fresh, primals_spec), fresh, False, "linearize")
        output = tree_unflatten([level.unwrap(o) for o in lin.flat_out], lin.out_spec)
    shapes = [(p.shape, p.device, p.dtype) for p in flat_primals]

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as the primals {primals_spec}")
        for idx, (t, (shape, device, dtype)) in enumerate(zip(flat_t, shapes)):
            for what, mine, theirs in (("shape", t.shape, shape), ("device", t.device, device),
                                       ("dtype", t.dtype, dtype)):
                if mine != theirs:
                    raise RuntimeError(f"tangent:{idx} with {what} {mine} in flattened pytree doesn't match the "
                                       f"{what} {theirs} of the corresponding primal.")
        with enable_grad():
            cols = lin.column(flat_t, create_graph=False)
        return tree_unflatten([nb.zeros_like(o) if c is None else c.detach() for c, o in zip(cols, lin.flat_out)],
                              lin.out_spec)

    return output, jvp_fn
