"""TaskSpec and Measurement, the records a Timer produces, and the small formatting helpers
(select_unit, trim_sigfig, ...) that Measurement and Compare share: PyTorch's
torch.utils.benchmark.utils.common.

The statistics are PyTorch's to the printed digit.  Where PyTorch rounds through a float32
tensor (the unit chosen by select_unit, trim_sigfig, the significant-figure estimate, the
width of a Compare column), this module rounds to float32 too, so a value near a power of ten
lands on the same side of it; the quantiles (median, IQR) are float64 linear interpolation, as
torch.quantile.  The numbers are computed in plain Python and NumPy: timing results are a
handful of floats, and a timing utility should not launch the kernels it is timing.
"""
import contextlib
import dataclasses
import math
import textwrap
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9        # no timing is trusted below 25 ns

# A Measurement warns when its interquartile range is this large a fraction of its median.
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25

_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
_UNIT_NAMES = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}


def _f32(x: float) -> float:
    """x rounded to the nearest float32, as a Python float (PyTorch's torch.tensor(x))."""
    return float(np.float32(x))


def _log10_f32(x: float) -> float:
    """log10 of float32(x), rounded to float32: what torch.tensor(x).log10().item() gives.
    Computed in float64 and rounded once, which agrees with PyTorch's float32 log10 wherever
    the result sits next to an integer (the only place a caller's floor or ceil can tell)."""
    x = _f32(x)
    if x > 0 and math.isfinite(x):
        return _f32(math.log10(x))
    if x == 0:
        return -math.inf
    return math.inf if x == math.inf else math.nan


def _quantile(sorted_values, q: float) -> float:
    """Linear-interpolation quantile of already sorted values (torch.quantile's default)."""
    position = q * (len(sorted_values) - 1)
    below = math.floor(position)
    above = min(below + 1, len(sorted_values) - 1)
    low, high = sorted_values[below], sorted_values[above]
    weight = position - below
    # the lerp is written from the nearer end, as torch.lerp does, so the result is exact there
    if weight < 0.5:
        return low + weight * (high - low)
    return high - (high - low) * (1 - weight)


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer measures and how its results are labelled (everything but its globals)."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (or a one-line stmt), with the sub_label after a colon; a multi-line
        stmt is shown indented under "stmt:"."""
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        heading = f"stmt: ({self.sub_label})" if self.sub_label else "stmt:"
        return heading + "\n" + textwrap.indent(self.stmt, "  ")

    def setup_str(self) -> str:
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The TaskSpec's lines in a Measurement's repr: title, description, setup; a part
        that spans several lines is followed by a blank line."""
        parts = [p for p in (self.title, self.description or "", self.setup_str()) if p]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The result of a Timer measurement: `raw_times[i]` is the time taken by one run of
    `number_per_run` executions of the statement.  The statistics (times, median, mean, iqr,
    significant_figures) are per execution.  The TaskSpec's fields (stmt, label, num_threads,
    ...) read through as attributes."""
    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None     # free for the user; never read here

    def __post_init__(self) -> None:
        self._sorted_times: tuple[float, ...] = ()
        self._warnings: tuple[str, ...] = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        # only reached when normal lookup fails: the TaskSpec's fields read through
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self) -> list[float]:
        """Time per execution of each run (raw time / number_per_run)."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """A rough count (1 to 4) of the digits of the median worth showing: from a 90%
        confidence interval (z = 1.645) of the times inside the interquartile range.  Compare
        uses it when trimming; the repr does not."""
        self._lazy_init()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4:math.ceil(3 * n / 4)]
        # PyTorch takes this std and the sqrt of the count in float32
        points = np.asarray(middle, dtype=np.float32).astype(np.float64)
        std = _f32(points.std()) if len(points) else math.nan
        sqrt_n = _f32(math.sqrt(len(points)))
        confidence_interval = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        relative_ci = _log10_f32(self._median / confidence_interval)
        figures = int(math.floor(relative_ci))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self) -> None:
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        values = [float(t) for t in self._sorted_times]
        self._median = _quantile(values, 0.5)
        self._mean = float(np.mean(np.asarray(values, dtype=np.float64)))
        self._p25 = _quantile(values, 0.25)
        self._p75 = _quantile(values, 0.75)

        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            reason = "This suggests significant environmental influence."
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            reason = "This could indicate system fluctuation."
        else:
            return
        relative_iqr = self.iqr / self.median * 100
        self._warnings += (f"  WARNING: Interquartile range is {relative_iqr:.1f}% of the median "
                           f"measurement.\n           {reason}",)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> str | None:
        # PyTorch's property reads a misspelled attribute, fails, and its __getattr__ then
        # answers with task_spec.env: None when no env was given.  That answer is kept (Compare
        # relies on it), rather than the "Unspecified env" the property's code suggests.
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        """
        <nbgrad.utils.benchmark.utils.common.Measurement object at 0x7f395b6ac110>
        Broadcasting add (4x8)
          Median: 5.73 us
          IQR:    2.25 us (4.01 to 6.26)
          372 measurements, 100 runs per measurement, 1 thread
          WARNING: Interquartile range is 39.4% of the median measurement.
                   This suggests significant environmental influence.
        """
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        several = n > 1
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if several else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} "
                         f"({self._p25 / scale:.2f} to {self._p75 / scale:.2f})")
        threads = self.num_threads
        lines.append(f"  {n} measurement{'s' if several else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if several else ','} {threads} "
                     f"thread{'s' if threads > 1 else ''}")
        lines.append("\n".join(self._warnings))
        # stripped as one string, as PyTorch: no trailing newline when there is no warning
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements: Iterable["Measurement"]) -> list["Measurement"]:
        """Merge replicates: one Measurement per distinct TaskSpec (in first-seen order), with
        every time normalised to number_per_run=1; metadata is dropped, as it may differ."""
        groups: dict[TaskSpec, list[float]] = {}
        for m in measurements:
            groups.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(number_per_run=1, raw_times=times, task_spec=spec, metadata=None)
                for spec, times in groups.items()]


def select_unit(t: float) -> tuple[str, float]:
    """The unit ("ns", "us", "ms" or "s") and its scale in seconds that show t (seconds) with
    one to three digits before the point."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(_log10_f32(t) // 3), "s")
    return unit, _UNITS[unit]


def unit_to_english(u: str) -> str:
    return _UNIT_NAMES[u]


def trim_sigfig(x: float, n: int) -> float:
    """x rounded to n significant figures (3.14159, 2 -> 3.1), through float32 as PyTorch."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(math.ceil(_log10_f32(abs(x))))
    scale = 10 ** (magnitude - n)
    rounded = np.round(np.float32(x / scale))       # half to even, as torch.round
    return float(np.float32(rounded) * np.float32(scale))


def ordered_unique(elements: Iterable[Any]) -> list[Any]:
    """The distinct elements in first-seen order."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Run the block with nbgrad.set_num_threads(n), then restore the previous count."""
    import nbgrad
    prior = nbgrad.get_num_threads()
    try:
        nbgrad.set_num_threads(n)
        yield
    finally:
        nbgrad.set_num_threads(prior)
