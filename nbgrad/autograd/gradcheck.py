"""Finite-difference checks of gradients (use float64 inputs)."""
from .grad_mode import no_grad


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _flat_outputs(fn, inputs):
    outs = _as_tuple(fn(*inputs))
    return [o for o in outs if o is not None and o.dtype.is_floating_point]


def _numerical_jacobian(fn, inputs, i, eps):
    """Columns d out / d inputs[i][j] by central differences, per output, as numpy arrays.
    The perturbed input keeps the original's layout (a transposed input stays transposed)."""
    import numpy as np
    x = inputs[i]
    cols = []
    with no_grad():
        base = x.detach().clone()
    for j in range(x.numel()):
        index = tuple(int(k) for k in np.unravel_index(j, tuple(x.shape))) if x.dim() else ()

        def evaluate(delta):
            with no_grad():
                perturbed = base.clone()
                perturbed[index] = perturbed[index] + delta
            perturbed.requires_grad_(x.requires_grad)
            args = list(inputs)
            args[i] = perturbed
            return [o.detach().double().cpu().numpy().reshape(-1).copy() for o in _flat_outputs(fn, args)]
        plus, minus = evaluate(eps), evaluate(-eps)
        cols.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    # jac[k] has shape (out_k.numel(), x.numel())
    return [np.stack([c[k] for c in cols], axis=1) if cols else None for k in range(len(cols[0]) if cols else 0)]


def _analytical_jacobian(fn, inputs, i):
    import numpy as np
    from . import grad as autograd_grad
    from .._creation import zeros_like
    outs = _flat_outputs(fn, inputs)
    jacs = []
    for out in outs:
        rows = []
        for r in range(out.numel()):
            g = zeros_like(out).contiguous()
            g.view(-1)[r] = 1.0
            (gi,) = autograd_grad([out], [inputs[i]], [g], retain_graph=True, allow_unused=True)
            rows.append(np.zeros(inputs[i].numel()) if gi is None else gi.detach().double().cpu().numpy().reshape(-1))
        jacs.append(np.stack(rows, axis=0) if rows else np.zeros((0, inputs[i].numel())))
    return jacs


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **kwargs):
    """Compare autograd's Jacobian with central finite differences for each input that requires grad."""
    import numpy as np
    from .._tensor import Tensor
    inputs = _as_tuple(inputs)
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        numerical = _numerical_jacobian(func, inputs, i, eps)
        analytical = _analytical_jacobian(func, inputs, i)
        for k, (n, a) in enumerate(zip(numerical, analytical)):
            if not np.allclose(a, n, atol=atol, rtol=rtol):
                if raise_exception:
                    raise RuntimeError(
                        f"Jacobian mismatch for output {k} with respect to input {i},\n"
                        f"numerical:{n}\nanalytical:{a}\n")
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **kwargs):
    """gradcheck of the function (inputs, grad_outputs) -> gradients of func (second derivatives)."""
    from . import grad as autograd_grad
    from .._creation import randn
    from .._tensor import Tensor
    inputs = _as_tuple(inputs)
    outs = _flat_outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(randn(o.shape, dtype=o.dtype).requires_grad_() for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    diff_inputs = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]

    def first_grads(*args):
        xs, gos = args[:len(inputs)], args[len(inputs):]
        os = _flat_outputs(func, xs)
        targets = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
        gs = autograd_grad(os, targets, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_grads, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
