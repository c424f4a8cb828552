"""repr of tensors in PyTorch's style: tensor([1.5000, 2.0000], requires_grad=True)."""
import numpy as np

from . import _dtype as D


def _float_strings(values):
    finite = values[np.isfinite(values)]
    ints = finite.size == 0 or bool(np.all(finite == np.round(finite)))
    absf = np.abs(finite[finite != 0]) if finite.size else finite
    sci = absf.size > 0 and (absf.max() / absf.min() > 1000.0 or absf.max() > 1e8 or absf.min() < 1e-4)
    out = []
    for v in values:
        if not np.isfinite(v):
            out.append("nan" if np.isnan(v) else ("inf" if v > 0 else "-inf"))
        elif sci:
            out.append(f"{v:.4e}")
        elif ints:
            out.append(f"{v:.0f}.")
        else:
            out.append(f"{v:.4f}")
    return out


def format_tensor(t):
    arr = t._host_array()
    suffix = []
    if t.numel() == 0 and t.dim() != 1:
        body = "[]"
        suffix.append(f"size={tuple(t.shape)}")
    else:
        flat = arr.reshape(-1)
        if t.dtype.is_floating_point:
            strs = _float_strings(flat.astype(np.float64))
        elif t.dtype is D.bool_:
            strs = ["True" if v else "False" for v in flat]
        else:
            strs = [str(int(v)) for v in flat]
        if t.dtype.is_floating_point:
            # PyTorch's _Formatter measures only the nonzero finite values (so -0., inf, nan
            # longer than every other entry are not padded against)
            f64 = flat.astype(np.float64)
            measured = [s for s, v in zip(strs, f64) if np.isfinite(v) and v != 0]
            width = max((len(s) for s in measured), default=1)
        else:
            width = max((len(s) for s in strs), default=0)
        padded = np.array([s.rjust(width) for s in strs], dtype=object).reshape(arr.shape)
        if arr.ndim == 0:
            body = padded.item().strip()
        else:
            body = np.array2string(padded, separator=", ", prefix="tensor(", threshold=1000,
                                   formatter={"all": lambda s: s}, max_line_width=80)
    if t.device.type != "cpu":
        suffix.append(f"device='{t.device}'")
    default_ok = t.dtype in (D.get_default_dtype(), D.int64, D.bool_)
    if not default_ok:
        suffix.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + ", ".join([body] + suffix) + ")"
