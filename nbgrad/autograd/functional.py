"""nbgrad.autograd.functional: PyTorch's higher-level autograd functions (vjp, jvp, jacobian,
hessian, vhp, hvp), written over nbgrad's reverse-mode engine (autograd.grad).

The output structures, flags and messages follow torch.autograd.functional: a tuple of inputs
(or outputs) gives tuples back, a single tensor gives a single tensor; results are detached
unless create_graph=True; strict=True refuses outputs or gradients that do not depend on the
inputs, with PyTorch's texts.

Where it departs from PyTorch:
- nbgrad has no batched gradients (autograd.grad's is_grads_batched) and no forward-mode AD.
  jacobian(vectorize=True) therefore runs the same row-by-row loop as vectorize=False (the
  values, structure and errors are vectorize=True's, only slower), and
  strategy="forward-mode" (which PyTorch allows only with vectorize=True) computes the same
  Jacobian row by row in reverse mode and gives it the output's dtype, as forward mode does.
- jvp, like PyTorch's, uses the double-backward trick: J v = d/du <J^T u, v>.
"""
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _nb():
    import nbgrad                      # (nbgrad imports this package: resolve late)
    return nbgrad


# -------------------------------------------------------------------------------- helpers
def _as_tuple(inp, arg_name, fn_name):
    """(was it a tuple, the tensors as a tuple), refusing anything but tensors."""
    Tensor = _nb().Tensor
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"{where} has type {type(el)}.")
    return is_tuple, items


def _unpack(res, to_unpack):
    """Undo _as_tuple on a result: `to_unpack` is one flag, or (outputs' flag, inputs' flag)
    for a tuple of tuples (jacobian, hessian)."""
    if isinstance(to_unpack, tuple):
        out_tuple, in_tuple = to_unpack
        if not in_tuple:
            res = tuple(el[0] for el in res)
        if not out_tuple:
            res = res[0]
        return res
    return res if to_unpack else res[0]


def _prepare(inputs, create_graph, need_graph):
    """Fresh tensor objects for the inputs, so that the function's use of them can be told
    from a use of the same tensors it captured (PyTorch issue 32576).  With create_graph a
    differentiable alias keeps the link to the caller's graph; else a detached copy."""
    out = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            out.append(inp.view_as(inp))
        else:
            out.append(inp.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(res, create_graph):
    """Results as the caller gets them: without history unless create_graph."""
    if create_graph:
        return tuple(res)
    Tensor = _nb().Tensor
    return tuple(r.detach() if isinstance(r, Tensor) else _finish(r, False) for r in res)


def _validate_v(v, other, other_is_tuple):
    if len(other) != len(v):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prefix = f"Entry {idx} in " if other_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_NOT_DIFFERENTIABLE = {
    "outputs": lambda i: (f"Output {i} of the user-provided function does not require gradients. The outputs must "
                          "be computed in a differentiable manner from the input when running in strict mode."),
    "grad_inputs": lambda i: (f"The gradient with respect to input {i} is independent of the inputs of the "
                              "user-provided function. This is not allowed in strict mode."),
    "jacobian": lambda i: ("While computing the hessian, found that the jacobian of the user-provided function with "
                           f"respect to input {i} is independent of the input. This is not allowed in strict mode. "
                           "You should ensure that your function is twice differentiable and that the jacobian "
                           "depends on the inputs (this would be violated by a linear function for example)."),
    "hessian": lambda i: (f"The hessian of the user-provided function with respect to input {i} is independent of "
                          "the input. This is not allowed in strict mode. You should ensure that your function is "
                          "thrice differentiable and that the hessian depends on the inputs."),
}


def _check_requires_grad(tensors, kind, strict):
    """strict mode: every tensor must be there and carry history."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:                  # (only gradients can be missing)
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_NOT_DIFFERENTIABLE[kind](i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad that skips the outputs without history (None where nothing reaches an input)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    from . import grad
    return grad([o for o, _ in pairs], list(inputs), [g for _, g in pairs], allow_unused=True,
                create_graph=create_graph, retain_graph=retain_graph)


_MISSING_MESSAGES = {
    "back": lambda i: (f"The output of the user-provided function is independent of input {i}. This is not "
                       "allowed in strict mode."),
    "back_trick": lambda i: (f"The gradient with respect to the input is independent of entry {i} in the "
                             "grad_outputs when using the double backward trick to compute forward mode gradients. "
                             "This is not allowed in strict mode."),
    "double_back": lambda i: (f"The jacobian of the user-provided function is independent of input {i}. This is "
                              "not allowed in strict mode."),
    "double_back_trick": lambda i: (f"The hessian of the user-provided function is independent of entry {i} in "
                                    "the grad_jacobian. This is not allowed in strict mode as it prevents from using "
                                    "the double backward trick to replace forward mode AD."),
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros (the mathematical value) where a gradient is missing, or strict mode's error."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING_MESSAGES[stage](i))
            g = _nb().zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


def _single_element_default(tensors, message):
    if len(tensors) != 1 or tensors[0].nelement() != 1:
        raise RuntimeError(message)


# -------------------------------------------------------------------------------- public API
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`."""
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _prepare(v, create_graph, need_graph=False)
            _validate_v(v, outputs, outputs_is_tuple)
        else:
            _single_element_default(outputs, "The vector v can only be None if the user-provided function returns "
                                             "a single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), outputs_is_tuple),
            _unpack(_finish(res, create_graph), inputs_is_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-backward trick."""
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _prepare(v, create_graph, need_graph=False)
            _validate_v(v, inputs, inputs_is_tuple)
        else:
            _single_element_default(inputs, "The vector v can only be None if the input to the user-provided "
                                            "function is a single Tensor with a single element.")
        outputs_is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # J^T u is linear in u, so u's value never enters J v; zeros keep inf/nan out of it
        us = tuple(_nb().zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, us, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad(grad_inputs, us, v, create_graph=create_graph)
        res = _fill_in_zeros(res, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_is_tuple),
            _unpack(_finish(res, create_graph), outputs_is_tuple))


def _jacobian_rows(outputs, inputs, create_graph, strict):
    """jac[i][j] for output i and input j, one backward pass per output element."""
    nb = _nb()
    jacobian = []
    for i, out in enumerate(outputs):
        rows = tuple([] for _ in inputs)
        flat = out.reshape(-1)
        for k in range(out.nelement()):
            vj = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
            for j, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
                if g is not None:
                    if strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                           "This is not allowed in strict mode when create_graph=True.")
                    row.append(g)
                else:
                    if strict:
                        raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. "
                                           "This is not allowed in strict mode.")
                    row.append(nb.zeros_like(inp))
        jacobian.append(tuple(nb.stack(row, 0).view(tuple(out.shape) + tuple(inp.shape))
                              for row, inp in zip(rows, inputs)))
    return tuple(jacobian)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs: a tensor, a tuple, or a tuple of tuples (output i, input j)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        return _jacobian_forward_mode(func, inputs, strict, vectorize)

    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        # (vectorize=True: the same loop; nbgrad has no batched gradients)
        jac = _jacobian_rows(outputs, inputs, create_graph, strict)
        return _unpack(_finish(jac, create_graph), (outputs_is_tuple, inputs_is_tuple))


def _jacobian_forward_mode(func, inputs, strict, vectorize):
    """strategy="forward-mode": PyTorch's refusals, then the same Jacobian (reverse mode here)
    in the output's dtype, as forward-mode AD gives it."""
    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
                           'supported together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.')
    inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")
    with enable_grad():
        inputs = tuple(inp.detach().requires_grad_() for inp in inputs)
        outputs_is_tuple, outputs = _as_tuple(func(*inputs), "outputs", None)
        jac = _jacobian_rows(outputs, inputs, False, False)
    # (PyTorch's forward mode gives lists here, where reverse mode gives tuples)
    jac = [[j.detach().to(out.dtype) for j in row] for row, out in zip(jac, outputs)]
    return _unpack(jac, (outputs_is_tuple, inputs_is_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: a tensor, or a tuple of tuples (input i, input j)."""
    Tensor = _nb().Tensor
    inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        out = func(*inp)
        out_is_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if out_is_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(single_output, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _unpack(res, (inputs_is_tuple, inputs_is_tuple))


def _scalar_function_output(func, inputs, name, strict):
    outputs_is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_is_tuple:
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")
    return outputs_is_tuple, outputs


def _prepare_hessian_product(func, inputs, v, name, create_graph, strict):
    inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _prepare(v, create_graph, need_graph=False)
        _validate_v(v, inputs, inputs_is_tuple)
    else:
        _single_element_default(inputs, "The vector v can only be None if the input to the user-provided function "
                                        "is a single Tensor with a single element.")
    outputs_is_tuple, outputs = _scalar_function_output(func, inputs, name, strict)
    jac = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return inputs_is_tuple, inputs, v, outputs_is_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar function."""
    with enable_grad():
        inputs_is_tuple, inputs, v, outputs_is_tuple, outputs, jac = _prepare_hessian_product(
            func, inputs, v, "vhp", create_graph, strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "double_back")
    return (_unpack(_finish(outputs, create_graph), outputs_is_tuple),
            _unpack(_finish(res, create_graph), inputs_is_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar function, by the double-backward trick on the gradient."""
    with enable_grad():
        inputs_is_tuple, inputs, v, outputs_is_tuple, outputs, jac = _prepare_hessian_product(
            func, inputs, v, "hvp", create_graph, strict)
        grad_jac = tuple(_nb().zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_is_tuple),
            _unpack(_finish(res, create_graph), inputs_is_tuple))
