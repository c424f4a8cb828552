"""Dense factorizations and solves on CUDA, staged through host memory.

A GPU has no LAPACK that Numba can call (cuSOLVER is not part of numba-cuda's stable
core), so each entry point copies its operands to the host, runs the CPU backend's LAPACK
kernel (nbgrad/backends/cpu/linalg_lapack.py) and copies the results back into new device
buffers.  Same signatures and results as the CPU's; `info` stays a host array (the op
layer reads it to raise).  These are small-matrix workloads in practice (batched 3x3 to
a few hundred), where the two transfers cost less than a device kernel would save.
"""
from ..cpu import linalg_lapack as _cpu
from ..cpu import linalg_ldl as _cpu_ldl
from .memory import from_host, host_view as _host_view


def _to_device(*buffers):
    return tuple(from_host(b) for b in buffers)


def linalg_inv(view):
    out, info = _cpu.linalg_inv(_host_view(view))
    return from_host(out), info


def linalg_solve(a_view, b_view):
    out, info = _cpu.linalg_solve(_host_view(a_view), _host_view(b_view))
    return from_host(out), info


def linalg_det(view):
    return from_host(_cpu.linalg_det(_host_view(view)))


def linalg_slogdet(view):
    return _to_device(*_cpu.linalg_slogdet(_host_view(view)))


def linalg_svd(view, full_matrices):
    return _to_device(*_cpu.linalg_svd(_host_view(view), full_matrices))


def linalg_qr(view, complete):
    return _to_device(*_cpu.linalg_qr(_host_view(view), complete))


def linalg_cholesky(view):
    out, info = _cpu.linalg_cholesky(_host_view(view))
    return from_host(out), info


def linalg_eigh(view, upper):
    return _to_device(*_cpu.linalg_eigh(_host_view(view), upper))


def linalg_lu_factor(view):
    lu, piv, info = _cpu.linalg_lu_factor(_host_view(view))
    return from_host(lu), from_host(piv), info


def linalg_solve_triangular(a_view, b_view, upper, unitriangular):
    return from_host(_cpu.linalg_solve_triangular(_host_view(a_view), _host_view(b_view), upper, unitriangular))


def linalg_geqrf(view):
    return _to_device(*_cpu.linalg_geqrf(_host_view(view)))


def linalg_householder_product(a_view, tau_view):
    return from_host(_cpu.linalg_householder_product(_host_view(a_view), _host_view(tau_view)))


def linalg_ldl_factor(view):
    ld, piv, info = _cpu_ldl.linalg_ldl_factor(_host_view(view))
    return from_host(ld), from_host(piv), info


def linalg_ldl_solve(ld_view, piv_view, b_view):
    return from_host(_cpu_ldl.linalg_ldl_solve(_host_view(ld_view), _host_view(piv_view), _host_view(b_view)))
