"""Reductions for both devices: scalar steps (acc, x) -> acc, finalizers, the op table and the geometry plan.

Geometry (plain Python): the reduced dims are moved last (logically), then
the kept dims and the reduced dims are coalesced separately.  When the
reduced dims merge into one run of rn elements at stride rs, a backend
reduces in place; otherwise the plan asks for a copy of the input into
(kept..., reduced...) order first, and the reduction reads that.
"""
from dataclasses import dataclass

import numpy as np
from numba.extending import register_jitable

from .geometry import coalesce, contiguous_strides, numel

_scalar = register_jitable(error_model="numpy")


# put_reduce's ops (scatter_reduce's prod, amax, amin), as codes the kernels take
PUT_REDUCE_OPS = {"prod": 0, "amax": 1, "amin": 2}


@_scalar
def put_reduce_step(old, v, op):
    """scatter_reduce's step at one position, PyTorch's ReduceMultiply/ReduceMaximum/ReduceMinimum:
    a NaN source wins, a NaN already there stays (std::max/min keep the first of a tie)."""
    if op == 0:
        return old * v
    if op == 1:
        return v if (v != v or old < v) else old
    return v if (v != v or v < old) else old


@_scalar
def step_sum(acc, x):
    return acc + x


@_scalar
def step_prod(acc, x):
    return acc * x


@_scalar
def step_max(acc, x):
    # NaN wins and stays.
    if acc != acc:
        return acc
    if x != x or x > acc:
        return x
    return acc


@_scalar
def step_min(acc, x):
    if acc != acc:
        return acc
    if x != x or x < acc:
        return x
    return acc


@_scalar
def step_all(acc, x):
    return acc & (x != 0)


@_scalar
def step_any(acc, x):
    return acc | (x != 0)


@_scalar
def final_same(acc, n):
    return acc


@_scalar
def final_mean(acc, n):
    return acc / n


# op -> (step, finalize, reassociable: float sums may be vectorised in any order)
COMBINE = {
    "sum": (step_sum, final_same, True),
    "mean": (step_sum, final_mean, True),
    "prod": (step_prod, final_same, True),
    "max": (step_max, final_same, False),
    "min": (step_min, final_same, False),
    "all": (step_all, final_same, False),
    "any": (step_any, final_same, False),
}
COMBINE["amax"] = COMBINE["max"]
COMBINE["amin"] = COMBINE["min"]

REDUCE_OPS = frozenset(set(COMBINE) | {"logsumexp", "var", "argmax", "argmin"})


def init_value(op, x_dtype, acc_dtype):
    if op in ("sum", "mean"):
        return acc_dtype.type(0)
    if op == "prod":
        return acc_dtype.type(1)
    if op == "all":
        return np.bool_(True)
    if op == "any":
        return np.bool_(False)
    # max / min: the identity of the comparison in x's dtype
    is_max = op in ("max", "amax")
    if x_dtype.kind == "f":
        return x_dtype.type(-np.inf if is_max else np.inf)
    if x_dtype.kind == "b":
        return np.bool_(not is_max)
    info = np.iinfo(x_dtype)
    return x_dtype.type(info.min if is_max else info.max)


def acc_dtype(op, x_dtype, out_dtype):
    """Accumulator dtype: float sums and products in float64."""
    if op in ("sum", "mean", "prod"):
        return np.dtype(np.float64) if out_dtype.kind == "f" else out_dtype
    if op in ("all", "any"):
        return np.dtype(np.bool_)
    return x_dtype


def check_nonempty(rn, op):
    if rn == 0:
        raise IndexError(f"{op}(): Expected reduction dim to have non-zero size.")


def output_numel(shape, dims):
    nd = len(shape)
    if not nd:
        return 1
    reduced = {d % nd for d in dims}
    return numel([shape[d] for d in range(nd) if d not in reduced])


@dataclass
class Plan:
    """x as (kept dims coalesced: kshape, kst) x (one reduced run of rn elements at stride rs).
    copy_shape/copy_strides: when set, the input must first be copied (those are its
    shape and strides in (kept..., reduced...) order) into a contiguous buffer, which
    kshape/kst/rs then describe."""
    kshape: list
    kst: list
    rn: int
    rs: int
    copy_shape: tuple = None
    copy_strides: tuple = None


def plan(shape, strides, dims, force_contiguous=False):
    nd = len(shape)
    dims = sorted({d % nd for d in dims}) if nd else []
    kept = [d for d in range(nd) if d not in dims]
    kshape = [shape[d] for d in kept]
    kst = [strides[d] for d in kept]
    rshape = [shape[d] for d in dims]
    rst = [strides[d] for d in dims]
    rn = numel(rshape)
    ck, (cks,) = coalesce(kshape, [kst])
    if rn == 0:
        return Plan(ck, cks, 0, 0)
    cr, (crs,) = coalesce(rshape, [rst])
    if len(cr) == 1 and not (force_contiguous and crs[0] != 1):
        return Plan(ck, cks, cr[0], crs[0])
    ck, (cks,) = coalesce(kshape, [list(contiguous_strides(kshape + [rn])[:-1])])
    return Plan(ck, cks, rn, 1, tuple(kshape + rshape), tuple(kst + rst))


def dim_plan(shape, strides, out_strides, dim):
    """softmax along dim: (kept shape coalesced, x's kept strides, out's kept strides)."""
    kept = [d for d in range(len(shape)) if d != dim]
    ck, (cx, co) = coalesce([shape[d] for d in kept], [[strides[d] for d in kept], [out_strides[d] for d in kept]])
    return ck, cx, co
