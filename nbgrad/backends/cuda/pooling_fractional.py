"""Fractional max pooling on CUDA, staged through host memory: the CPU backend's kernel
(nbgrad/backends/cpu/pooling_fractional.py: the window starts from the samples, in their
dtype's arithmetic, then the window scan) on host copies, its results copied back into new
device buffers; same signature and results as the CPU's.  The op's backward is
max_pool2d_backward over flattened planes, a device kernel."""
from ..cpu import pooling_fractional as _cpu
from .memory import from_host, host_view


def fractional_max_pool(x_view, samples_view, pool, out_size, cols):
    values, indices = _cpu.fractional_max_pool(host_view(x_view), host_view(samples_view), pool, out_size, cols)
    return from_host(values), from_host(indices)
