"""CTC loss on CUDA, staged through host memory: the CPU backend's kernels
(nbgrad/backends/cpu/ctc.py) on host copies of the operands, the results copied back into
new device buffers.  The recursion is sequential in time per sample and the op layer reads
the lengths and targets on the host anyway (to check them, as PyTorch's CPU does); same
signatures and results as the CPU's."""
import numpy as np

from ..cpu import ctc as _cpu
from .memory import from_host, host_view as _host_view, to_host


def _host_buffer(buf):
    return np.ascontiguousarray(to_host((buf, 0, (buf.size,), (1,))))


def ctc_loss_forward(lp_view, targets, starts, input_lengths, target_lengths, blank):
    nll, alpha = _cpu.ctc_loss_forward(_host_view(lp_view), targets, starts, input_lengths, target_lengths, blank)
    return from_host(nll), from_host(alpha)


def ctc_loss_backward(grad_out, lp_view, targets, starts, input_lengths, target_lengths, nll, log_alpha, blank,
                      zero_infinity):
    return from_host(_cpu.ctc_loss_backward(_host_buffer(grad_out), _host_view(lp_view), targets, starts,
                                            input_lengths, target_lengths, _host_buffer(nll), _host_buffer(log_alpha),
                                            blank, zero_infinity))
