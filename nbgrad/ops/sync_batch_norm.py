"""Synchronized batch normalization: batch statistics over every process of a group, the op
behind nn.SyncBatchNorm's training forward when the group has more than one process.
Forward and backward are PyTorch's torch/nn/modules/_functions.py SyncBatchNorm, with
its node name (SyncBatchNormBackward):

forward   each process computes its batch's count, mean and biased variance per channel;
          one all_gather brings every process's (mean, var, count); the global mean and
          biased variance are merged from them (Chan's parallel rule: the variance's
          between-process part is added, so an uneven or empty batch weighs what it holds);
          running_mean and running_var (the unbiased variance, by the global count) move
          toward them as in F.batch_norm; the output is (x - mean) * invstd * weight + bias.
backward  each process sums dy and dy * (x - mean) over its batch; one all_reduce of both
          gives the global sums, from which each process's input gradient is PyTorch's
          batch_norm_backward_elemt.  weight and bias get the local sums (their own
          batch's share), as in PyTorch: DistributedDataParallel averages them.

So every process's output and input gradient equal one process's F.batch_norm on the
concatenated batch, and the processes' weight and bias gradients add up to its.

Departures from PyTorch:
- PyTorch runs it on GPUs only; here it runs on any device (the statistics travel as a
  small float64 CPU tensor through nbgrad.distributed, i.e. MPI).
- The gathered statistics and the reduced sums travel and are merged in float64 (PyTorch:
  the input's accumulation type), so float32 statistics are, if anything, more exact.
- Its backward is not differentiable: under create_graph=True the gradients carry a
  node that raises when a second backward reaches it (PyTorch's kernels have no
  derivatives either).
"""
import math

from .. import _creation as C
from .. import _dtype as D
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import needs_grad, record
from . import views as V
from .elementwise import rsqrt
from .indexing import cat
from .normalization import _check_size, _write_raw, float_input


def _cpu64(t):
    """t as a float64 tensor in host memory (what MPI sends)."""
    return t.to(device="cpu", dtype=D.float64)


def _compute_dtype(x):
    """The dtype the statistics and the normalization are computed in: float32 for a
    half-precision input (PyTorch's accumulation type), else the input's."""
    return D.float32 if x._dtype is D.float16 else x._dtype


class SyncBatchNormBackwardBackward(Node):
    """What a second backward through SyncBatchNorm's gradients meets."""

    def backward(self, *grads):
        raise RuntimeError("nbgrad: the derivative of SyncBatchNorm's backward (a double backward through "
                           "SyncBatchNormBackward) is not implemented")


class SyncBatchNormBackward(Node):
    def backward(self, g):
        from .. import distributed as dist
        x, w, mean, invstd = self.saved_tensors
        need_x, need_w, need_b = self.needs_input_grad(0), self.needs_input_grad(1), self.needs_input_grad(2)
        c = x._shape[1]
        gx = gw = gb = None
        record_second = needs_grad(g, x, w)      # grad mode on: create_graph=True
        with no_grad():
            if x.numel() > 0:
                dims, bshape = self.dims, invstd._shape
                work = _compute_dtype(x)
                xw = x if x._dtype is work else x.to(work)
                dy = g if g._dtype is work else g.to(work)
                xmu = xw - mean
                # batch_norm_backward_reduce: this process's sums
                sum_dy = dy.sum(dims)
                sum_dy_xmu = (dy * xmu).sum(dims)
                if need_w and w is not None:
                    gw = (sum_dy_xmu * V.reshape(invstd, (c,))).to(w._dtype)
                if need_b and w is not None:
                    gb = sum_dy.to(w._dtype)
                if need_x:
                    # every process's sums: the input gradient depends on the whole batch
                    both = _cpu64(cat([sum_dy, sum_dy_xmu]))
                    dist.all_reduce(both, dist.ReduceOp.SUM, group=self.group)
                    both = both.to(device=x.device, dtype=work)
                    mean_dy = V.reshape(both[:c], bshape) / self.count
                    mean_dy_xmu = V.reshape(both[c:], bshape) / self.count
                    # batch_norm_backward_elemt
                    scale = invstd if w is None else invstd * V.reshape(w, bshape).to(work)
                    gx = (dy - mean_dy - xmu * (invstd * invstd) * mean_dy_xmu) * scale
                    if gx._dtype is not x._dtype:
                        gx = gx.to(x._dtype)
            elif need_x:
                # an empty batch here: the others still wait for this process's (zero) sums;
                # no gradient (None: zeros to the engine), as in PyTorch
                dist.all_reduce(C.zeros(2 * c, dtype=D.float64), dist.ReduceOp.SUM, group=self.group)
        if record_second and (gx is not None or gw is not None or gb is not None):
            record(SyncBatchNormBackwardBackward, (g, x, w), (gx, gw, gb))
        return gx, gw, gb


def sync_batch_norm(input, weight, bias, running_mean, running_var, eps, momentum, process_group, world_size):
    """PyTorch's SyncBatchNorm.apply (training): batch norm over dim 1 of (N, C, ...) inputs
    with the statistics of every process of `process_group` (`world_size` of them).
    Every process of the group must call it (it all-gathers), with the same C."""
    from .. import distributed as dist
    x = input
    float_input("batch_norm_stats", x)
    c = x._shape[1]
    # refused before any message, so that every process raises instead of some waiting
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        _check_size(name, t, c)
    size = x.numel() // c
    if size == 1 and world_size < 2:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    dims = (0,) + tuple(range(2, x.dim()))
    bshape = (1, c) + (1,) * (x.dim() - 2)
    work = _compute_dtype(x)
    with no_grad():
        # this process's (mean, biased var, count), zeros for an empty batch (its count 0
        # then takes it out of the merge below)
        if size > 0:
            xw = x if x._dtype is work else x.to(work)
            m = xw.mean(dims, keepdim=True)
            centered = xw - m
            v = (centered * centered).mean(dims)
            local = cat([_cpu64(V.reshape(m, (c,))), _cpu64(v), C.full((1,), float(size), dtype=D.float64)])
        else:
            local = C.zeros(2 * c + 1, dtype=D.float64)
        table = C.empty(world_size * (2 * c + 1), dtype=D.float64)
        dist.all_gather_into_tensor(table, local, group=process_group)
        table = V.reshape(table, (world_size, 2 * c + 1))
        mean_all, var_all, count_all = table[:, :c], table[:, c:2 * c], table[:, 2 * c:]
        n = float(count_all.sum())
        mean = (count_all * mean_all).sum(0) / n
        dev = mean_all - mean
        var = (count_all * (var_all + dev * dev)).sum(0) / n
        if running_mean is not None:
            _write_raw(running_mean, (mean * momentum + _cpu64(running_mean) * (1 - momentum)).to(
                running_mean.device))
        if running_var is not None:
            # the unbiased variance by the global count (a count of 1: inf * 0, NaN, as F.batch_norm)
            unbiased = var * (n / (n - 1)) if n > 1 else var * math.inf
            _write_raw(running_var, (unbiased * momentum + _cpu64(running_var) * (1 - momentum)).to(
                running_var.device))
        invstd = V.reshape(rsqrt(var + eps), bshape).to(device=x.device, dtype=work)
        mean = V.reshape(mean, bshape).to(device=x.device, dtype=work)
        if size > 0:
            scale = invstd if weight is None else invstd * V.reshape(weight, bshape)
            out = (xw - mean) * scale
            if bias is not None:
                out = out + V.reshape(bias, bshape)
            if out._dtype is not x._dtype:
                out = out.to(x._dtype)
            out = out.contiguous()
        else:
            out = C.empty_like(x)
    if needs_grad(x, weight, bias):
        node = record(SyncBatchNormBackward, (x, weight, bias), (out,), dims=dims, count=n, group=process_group)
        node.save(x, weight, mean, invstd)
    return out
