"""CTC loss (nbgrad/ops/ctc.py): the forward-backward recursion of Graves et al. 2006 in log space.

The alphas (forward variables) give each sample's negative log-likelihood; the betas
(backward variables) and the alphas together give the gradient with respect to the
log-probabilities.  The order of operations is that of PyTorch's CPU kernel
(aten/src/ATen/native/LossCTC.cpp): each log-sum-exp of two or three terms takes the
largest term out (0 when all are -inf), adds the exps in order, and the gradient is
(exp(lp) - exp(log(sum alpha*beta) + nll - lp)) * grad, so float64 results are its to the
last bits or so and float32 ones compute in float32 throughout, as its kernel does.

The entry points take host metadata that the op layer has checked: every length within
its bounds and every label read in [0, C); nothing here reads outside a buffer given
valid metadata.  Samples are independent: large batches are split across the thread
pool by sample.
"""
import numpy as np

from .._shared import cpu_kernel
from ._threads import run_split, worth_splitting

_kernel = cpu_kernel(nogil=True)


@_kernel
def _label(targets, start, s, blank):
    """The s-th label of the augmented target l' (blanks between, before and after)."""
    if s % 2 == 0:
        return blank
    return targets[start + s // 2]


@_kernel
def _alpha_rows(lp, off, st, sn, sc, targets, starts, il, tl, blank, nll, alpha, t_max, width, b0, b1):
    """Samples [b0, b1): alpha (N, T, width) from row 0 (filled with -inf beforehand) and
    nll[b] = -log p(target_b | x_b)."""
    ninf = lp.dtype.type(-np.inf)
    zero = lp.dtype.type(0)
    for b in range(b0, b1):
        length = il[b]
        tlen = tl[b]
        start = starts[b]
        base = off + b * sn
        a0 = b * t_max * width
        if length == 0:
            nll[b] = -(zero if tlen == 0 else ninf)
            continue
        alpha[a0] = lp[base + blank * sc]
        if tlen > 0:
            alpha[a0 + 1] = lp[base + targets[start] * sc]
        for t in range(1, length):
            row = a0 + t * width
            prev = row - width
            lpt = base + t * st
            for s in range(2 * tlen + 1):
                cur = _label(targets, start, s, blank)
                la1 = alpha[prev + s]
                lamax = la1
                if s > 0:
                    la2 = alpha[prev + s - 1]
                    if la2 > lamax:
                        lamax = la2
                else:
                    la2 = ninf
                if s > 1 and _label(targets, start, s - 2, blank) != cur:
                    la3 = alpha[prev + s - 2]
                    if la3 > lamax:
                        lamax = la3
                else:
                    la3 = ninf
                if lamax == ninf:
                    lamax = zero
                alpha[row + s] = np.log(np.exp(la1 - lamax) + np.exp(la2 - lamax)
                                          + np.exp(la3 - lamax)) + lamax + lp[lpt + cur * sc]
        last = a0 + (length - 1) * width
        if tlen == 0:
            nll[b] = -alpha[last]
        else:
            l1 = alpha[last + 2 * tlen]
            l2 = alpha[last + 2 * tlen - 1]
            m = l2 if l1 < l2 else l1          # (std::max)
            if m == ninf:
                m = zero
            nll[b] = -(np.log(np.exp(l1 - m) + np.exp(l2 - m)) + m)


@_kernel
def _beta_grad_rows(g, lp, off, st, sn, sc, targets, starts, il, tl, blank, nll, alpha, beta, grad,
                    t_max, n_batch, n_labels, width, zero_infinity, b0, b1):
    """Samples [b0, b1): grad (T, N, C) row-major, d loss_b / d lp[t, b, c] times g[b]
    (0 for t >= il[b]; all 0 for an infinite loss under zero_infinity); beta (N, T, width)
    is scratch."""
    ninf = lp.dtype.type(-np.inf)
    zero = lp.dtype.type(0)
    inf = lp.dtype.type(np.inf)
    row_stride = n_batch * n_labels
    for b in range(b0, b1):
        gb = b * n_labels
        length = il[b]
        if zero_infinity and nll[b] == inf:
            length = 0
        else:
            tlen = tl[b]
            start = starts[b]
            base = off + b * sn
            a0 = b * t_max * width
            for t in range(length):
                for c in range(n_labels):
                    grad[t * row_stride + gb + c] = ninf
            if length > 0:
                last = a0 + (length - 1) * width
                for s in range(width):
                    beta[last + s] = ninf
                lpl = base + (length - 1) * st
                gl = (length - 1) * row_stride + gb
                beta[last + 2 * tlen] = lp[lpl + blank * sc]
                grad[gl + blank] = alpha[last + 2 * tlen] + beta[last + 2 * tlen]
                if tlen > 0:
                    cur = _label(targets, start, 2 * tlen - 1, blank)
                    beta[last + 2 * tlen - 1] = lp[lpl + cur * sc]
                    grad[gl + cur] = alpha[last + 2 * tlen - 1] + beta[last + 2 * tlen - 1]
            for t in range(length - 2, -1, -1):
                row = a0 + t * width
                nxt = row + width
                lpt = base + t * st
                gt = t * row_stride + gb
                for s in range(2 * tlen, -1, -1):
                    cur = _label(targets, start, s, blank)
                    lb1 = beta[nxt + s]
                    lbmax = lb1
                    if s < 2 * tlen:
                        lb2 = beta[nxt + s + 1]
                        if lb2 > lbmax:
                            lbmax = lb2
                    else:
                        lb2 = ninf
                    if s < 2 * tlen - 1 and _label(targets, start, s + 2, blank) != cur:
                        lb3 = beta[nxt + s + 2]
                        if lb3 > lbmax:
                            lbmax = lb3
                    else:
                        lb3 = ninf
                    if lbmax == ninf:
                        lbmax = zero
                    beta[row + s] = np.log(np.exp(lb1 - lbmax) + np.exp(lb2 - lbmax)
                                             + np.exp(lb3 - lbmax)) + lbmax + lp[lpt + cur * sc]
                    # grad[t, b, l'_s] "log+=" alpha[t, s] + beta[t, s]
                    ab = alpha[row + s] + beta[row + s]
                    lcab = grad[gt + cur]
                    if lcab == ninf:
                        grad[gt + cur] = ab
                    else:
                        mx = ab if lcab < ab else lcab
                        grad[gt + cur] = np.log(np.exp(lcab - mx) + np.exp(ab - mx)) + mx
            gr = g[b]
            loss = nll[b]
            for t in range(length):
                lpt = base + t * st
                gt = t * row_stride + gb
                for c in range(n_labels):
                    x = lp[lpt + c * sc]
                    grad[gt + c] = (np.exp(x) - np.exp(grad[gt + c] + loss - x)) * gr
        for t in range(length, t_max):
            for c in range(n_labels):
                grad[t * row_stride + gb + c] = zero


def _width(target_lengths):
    return 2 * (int(target_lengths.max()) if target_lengths.size else 0) + 1


def _split(fn, n_batch, work):
    """fn(b0, b1) over the batch, split across the pool when the work is large."""
    if n_batch > 1 and worth_splitting(work, True):
        run_split(fn, n_batch, align=1)
    else:
        fn(0, n_batch)


def ctc_loss_forward(lp_view, targets, starts, input_lengths, target_lengths, blank):
    """(nll (N,), log_alpha (N, T, width)) of lp's dtype; the contract is in nbgrad/backends/__init__.py."""
    buf, off, shape, strides = lp_view
    t_max, n_batch, _ = shape
    st, sn, sc = strides
    width = _width(target_lengths)
    nll = np.empty(n_batch, dtype=buf.dtype)
    alpha = np.full(n_batch * t_max * width, -np.inf, dtype=buf.dtype)
    with np.errstate(all="ignore"):         # (NUMBA_DISABLE_JIT: NumPy's scalars warn at log(0))
        _split(lambda b0, b1: _alpha_rows(buf, off, st, sn, sc, targets, starts, input_lengths, target_lengths, blank,
                                          nll, alpha, t_max, width, b0, b1),
               n_batch, n_batch * t_max * width)
    return nll, alpha


def ctc_loss_backward(grad_out, lp_view, targets, starts, input_lengths, target_lengths, nll, log_alpha, blank,
                      zero_infinity):
    """d loss / d log_probs as a row-major (T, N, C) buffer of lp's dtype."""
    buf, off, shape, strides = lp_view
    t_max, n_batch, n_labels = shape
    st, sn, sc = strides
    width = _width(target_lengths)
    grad = np.empty(t_max * n_batch * n_labels, dtype=buf.dtype)
    beta = np.empty(n_batch * t_max * width, dtype=buf.dtype)
    with np.errstate(all="ignore"):
        _split(lambda b0, b1: _beta_grad_rows(grad_out, buf, off, st, sn, sc, targets, starts, input_lengths,
                                              target_lengths, blank, nll, log_alpha, beta, grad, t_max, n_batch,
                                              n_labels, width, bool(zero_infinity), b0, b1),
               n_batch, n_batch * t_max * (width + n_labels))
    return grad
