"""repr/str of tensors, PyTorch's torch/_tensor_str.py rewritten over the host values:
the same formatter decisions (int_mode, sci_mode, widths measured on the nonzero finite
values), row wrapping at the line width, summarization with `...`, the suffixes and the
print options (nbgrad.set_printoptions)."""
import contextlib
import dataclasses
import math

import numpy as np

from . import _dtype as D


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: object = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """PyTorch's set_printoptions: profile 'default' / 'short' / 'full' first, then the
    explicit options; sci_mode is always set (None: chosen per tensor)."""
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 4, 1000, 3, 80
        elif profile == "short":
            PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 1000, 2, 80
        elif profile == "full":
            PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = \
                4, math.inf, 3, 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """One width and one style for every element of a tensor (PyTorch's _Formatter)."""

    def __init__(self, values, floating):
        # values: a flat numpy array (float64 for floating dtypes: item() is a double)
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if not floating:
            for v in values.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        nonzero_finite = values[np.isfinite(values) & (values != 0)]
        if nonzero_finite.size == 0:
            return
        absolute = np.abs(nonzero_finite)
        lo, hi = float(absolute.min()), float(absolute.max())
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        p = PRINT_OPTS.precision
        for v in nonzero_finite.tolist():
            if self.sci_mode:
                width = len(f"{v:.{p}e}")
            elif self.int_mode:
                width = len(f"{v:.0f}") + 1
            else:
                width = len(f"{v:.{p}f}")
            self.max_width = max(self.max_width, width)

    def width(self):
        return self.max_width

    def format(self, value):
        p = PRINT_OPTS.precision
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{p}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _summarized(arr):
    """The elements that will be shown (PyTorch's get_summarized_data)."""
    e = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        return np.concatenate((arr[:e], arr[len(arr) - e:])) if arr.shape[0] > 2 * e else arr
    if not e:
        return np.empty((0,) * arr.ndim, arr.dtype)
    rows = list(range(e)) + list(range(arr.shape[0] - e, arr.shape[0])) if arr.shape[0] > 2 * e \
        else range(arr.shape[0])
    return np.stack([_summarized(arr[i]) for i in rows])


def _vector_str(arr, indent, summarize, formatter):
    element_length = formatter.width() + 2
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * e:
        data = ([formatter.format(v) for v in arr[:e].tolist()] + [" ..."]
                + [formatter.format(v) for v in arr[len(arr) - e:].tolist()])
    else:
        data = [formatter.format(v) for v in arr.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(arr, indent, summarize, formatter):
    dim = arr.ndim
    if dim == 0:
        return formatter.format(arr.item())
    if dim == 1:
        return _vector_str(arr, indent, summarize, formatter)
    e = PRINT_OPTS.edgeitems
    if summarize and arr.shape[0] > 2 * e:
        slices = ([_tensor_str_with_formatter(arr[i], indent + 1, summarize, formatter) for i in range(e)]
                  + ["..."]
                  + [_tensor_str_with_formatter(arr[i], indent + 1, summarize, formatter)
                     for i in range(len(arr) - e, len(arr))])
    else:
        slices = [_tensor_str_with_formatter(arr[i], indent + 1, summarize, formatter) for i in range(arr.shape[0])]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _values(t):
    """The values as numpy: doubles for floating dtypes (what item() gives), Python bools
    and ints otherwise."""
    arr = t._host_array()
    if t.dtype.is_floating_point:
        return arr.astype(np.float64)
    return arr


def _tensor_str(t, indent):
    if t.numel() == 0:
        return "[]"
    arr = _values(t)
    summarize = t.numel() > PRINT_OPTS.threshold
    formatter = _Formatter((_summarized(arr) if summarize else arr).reshape(-1), t.dtype.is_floating_point)
    return _tensor_str_with_formatter(arr, indent, summarize, formatter)


def _measured(suffix):
    """A suffix's length as PyTorch measures it: `dtype=nbgrad.float64` counts as PyTorch's
    `dtype=torch.float64` does, so that lines break where PyTorch's break."""
    return len(suffix) - suffix.count("nbgrad.")


def _add_suffixes(tensor_str, suffixes, indent):
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + _measured(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + _measured(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += _measured(suffix) + 2
    parts.append(")")
    return "".join(parts)


def format_tensor(t):
    from ._tensor import Tensor
    from .nn.parameter import Parameter
    plain = type(t) is Tensor or type(t) is Parameter
    prefix = "tensor(" if plain else f"{type(t).__name__}("
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    has_default_dtype = t.dtype in (D.get_default_dtype(), D.int64, D.bool_)
    if t.numel() == 0:
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype is not D.get_default_dtype():
            suffixes.append(f"dtype={t.dtype!r}")
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(t.shape)}")
        if not has_default_dtype:
            suffixes.append(f"dtype={t.dtype!r}")
        tensor_str = _tensor_str(t, indent)
    try:
        grad_fn = t.grad_fn
        grad_fn_name = None if grad_fn is None else grad_fn.name()
    except RuntimeError:
        grad_fn_name = "Invalid"
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + tensor_str, suffixes, indent)
