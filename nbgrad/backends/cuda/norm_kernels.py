"""Layer normalization's forward and backward on the device (the contract's layer_norm_forward
and layer_norm_backward), composed of this backend's own primitives over the (m, n) rows:
its reductions add in their order (the CPU's one pass adds each row in float64)."""
from .elementwise import binary, unary
from .memory import full
from .reduction import reduce


def _rows(buf, off, m, n):
    return (buf, off, (m, n), (n, 1))


def _per_row(buf, m, n):
    return (buf, 0, (m, n), (1, 0))         # one value per row, broadcast along it


def _per_column(buf, m, n):
    return (buf, 0, (m, n), (0, 1))         # one value per column, broadcast down the rows


def layer_norm_forward(x, x_off, m, n, w, b, eps):
    dt = x.dtype
    shape = (m, n)
    rows = _rows(x, x_off, m, n)
    mean = reduce("mean", rows, (1,), dt)
    centered = binary("sub", rows, _per_row(mean, m, n), shape, dt)
    cv = _rows(centered, 0, m, n)
    var = reduce("mean", (binary("mul", cv, cv, shape, dt), 0, shape, (n, 1)), (1,), dt)
    eps_view = (full(1, dt, eps), 0, (m,), (0,))
    rstd = unary("rsqrt", (binary("add", (var, 0, (m,), (1,)), eps_view, (m,), dt), 0, (m,), (1,)), dt)
    y = binary("mul", cv, _per_row(rstd, m, n), shape, dt)
    if w is not None:
        y = binary("mul", _rows(y, 0, m, n), _per_column(w, m, n), shape, dt)
    if b is not None:
        y = binary("add", _rows(y, 0, m, n), _per_column(b, m, n), shape, dt)
    return y, mean, rstd


def layer_norm_backward(g, g_off, x, x_off, m, n, w, mean, rstd, need_x, need_w, need_b):
    dt = x.dtype
    shape = (m, n)
    gv = _rows(g, g_off, m, n)
    xhat = binary("mul", (binary("sub", _rows(x, x_off, m, n), _per_row(mean, m, n), shape, dt), 0, shape, (n, 1)),
                  _per_row(rstd, m, n), shape, dt)
    xh = _rows(xhat, 0, m, n)
    dx = dw = db = None
    if need_x:
        gy = gv if w is None else _rows(binary("mul", gv, _per_column(w, m, n), shape, dt), 0, m, n)
        s1 = reduce("mean", gy, (1,), dt)
        s2 = reduce("mean", (binary("mul", gy, xh, shape, dt), 0, shape, (n, 1)), (1,), dt)
        t = binary("sub", gy, _per_row(s1, m, n), shape, dt)
        t = binary("sub", _rows(t, 0, m, n), (binary("mul", xh, _per_row(s2, m, n), shape, dt), 0, shape, (n, 1)),
                   shape, dt)
        dx = binary("mul", _rows(t, 0, m, n), _per_row(rstd, m, n), shape, dt)
    if need_w:
        dw = reduce("sum", (binary("mul", gv, xh, shape, dt), 0, shape, (n, 1)), (0,), dt)
    if need_b:
        db = reduce("sum", gv, (0,), dt)
    return dx, dw, db

