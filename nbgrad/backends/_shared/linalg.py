"""The gradients of a linear layer in terms of a backend's matmul and reduce (plain Python, both devices)."""


def linear_backward(matmul, reduce, g_view, x_view, w_view, need_x=True, need_w=True, need_b=True):
    """Gradients of out = x @ w.T + b for 2-D x (N, in), w (out, in), g (N, out).

    Returns (gx (N, in), gw (out, in), gb (out,)) as buffers, None where not
    needed.  g.T is handed to matmul as the transposed view it is (no copy);
    gb is a column sum of g.
    """
    gbuf, goff, (n, m), (g0, g1) = g_view
    out_dtype = gbuf.dtype
    gx = matmul(g_view, w_view, out_dtype) if need_x else None
    gw = matmul((gbuf, goff, (m, n), (g1, g0)), x_view, out_dtype) if need_w else None
    gb = reduce("sum", g_view, (0,), out_dtype) if need_b else None
    return gx, gw, gb
