"""Timer: PyTorch's torch.utils.benchmark.Timer for nbgrad (a timeit.Timer that sets nbgrad's
thread count, warms up, and returns Measurements with replicates).

It runs the statement with the standard library's timeit.Timer, as PyTorch does, so a `timer=`
callable is called exactly where PyTorch calls it: timeit/blocked_autorange/adaptive_autorange
take the same number of runs and record the same raw times for the same clock.

Warm up first: nbgrad compiles (or loads from its cache) an op's kernels on its first call,
and blocked_autorange / adaptive_autorange size their blocks from the first runs of the
statement (PyTorch's algorithm, kept as is), so a cold statement settles on 1 run per block.
Run it once before timing (a first timeit(number=1) does).

Departures from PyTorch:
- language="cpp" (C++ snippets compiled against libtorch) is not available: nbgrad has no C++
  API; Timer raises NotImplementedError when asked for it.
- collect_callgrind raises NotImplementedError: instruction counts need valgrind and PyTorch's
  compiled valgrind bindings, which nbgrad does not have.
- The default `timer` waits for nbgrad's CUDA kernels (nbgrad.cuda.synchronize) only once
  nbgrad's CUDA backend has been loaded in this process: before that no kernel can be in
  flight.  PyTorch asks torch.accelerator on every call.
- The statement's namespace gets `torch` bound to nbgrad when the globals do not give one (so
  a script written for PyTorch, with stmt="torch.add(x, y)", runs as it is), and `nbgrad`
  likewise.
"""
import enum
import sys
import textwrap
import timeit
from collections.abc import Callable
from typing import Any, NoReturn

from . import common

__all__ = ["Timer", "timer", "Language"]

_cuda_present: bool | None = None


def timer() -> float:
    """timeit.default_timer, after the CUDA kernels launched so far have finished."""
    global _cuda_present
    if "nbgrad.backends.cuda" in sys.modules:
        if _cuda_present is None:
            import nbgrad
            _cuda_present = nbgrad.cuda.is_available()
        if _cuda_present:
            import nbgrad
            nbgrad.cuda.synchronize()
    return timeit.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


def _tidy(code: str) -> str:
    """Dedent a snippet, drop the newline a triple-quoted string starts with and the trailing
    whitespace: what runs is unchanged, and the repr reads better."""
    code = textwrap.dedent(code)
    if code.startswith("\n"):
        code = code[1:]
    return code.rstrip()


class Timer:
    """Measure the time of a statement, as torch.utils.benchmark.Timer.

    Args:
        stmt: the code to time (a string).
        setup: code run once before each timing loop (defines what stmt uses).
        global_setup: C++ only; must be empty for Python.
        timer: the clock, a callable returning seconds (default: `timer`, which waits for
            CUDA kernels first).
        globals: the namespace stmt and setup run in (copied); `torch` (and `nbgrad`) are
            bound to nbgrad unless given.
        label, sub_label, description, env: how Measurement and Compare label the result.
        num_threads: nbgrad's thread count while measuring (restored afterwards); 1 by default,
            as PyTorch's.
        language: "python" (Language.PYTHON); C++ is not available in nbgrad.
    """

    _timer_cls = timeit.Timer

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = timer,
        globals: dict[str, Any] | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: Language | str = Language.PYTHON,
    ) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")

        # a copy: running the code adds `__builtins__`, which must not leak to the caller
        self._globals = dict(globals or {})

        if language in (Language.PYTHON, "py", "python"):
            import nbgrad
            self._globals.setdefault("torch", nbgrad)
            self._globals.setdefault("nbgrad", nbgrad)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(
                    f"global_setup is C++ only, got `{global_setup}`. Most "
                    "likely this code can simply be moved to `setup`.")
        elif language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError(
                "nbgrad's Timer runs Python statements only: C++ timing (language='cpp') needs "
                "libtorch's C++ API, which nbgrad does not have.")
        else:
            raise ValueError(f"Invalid language `{language}`.")

        stmt = _tidy(stmt)
        setup = _tidy(setup)
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(
            stmt=stmt, setup=setup, global_setup=global_setup, label=label,
            sub_label=sub_label, description=description, env=env, num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        # no real statement takes under a nanosecond; the floor also keeps ratios finite
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """Run stmt `number` times (after a warm-up of number // 100, at least 2, runs) and
        return one measurement of them, as timeit.Timer.timeit."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            elapsed = self._timeit(number=number)
        return common.Measurement(number_per_run=number, raw_times=[elapsed],
                                  task_spec=self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], NoReturn] | None = None) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number, stop_hook, min_run_time, max_run_time=None,
                          callback=None) -> list[float]:
        """Time blocks of `number` runs until min_run_time is spent and stop_hook agrees, or
        max_run_time is exceeded."""
        times: list[float] = []
        total = 0.0
        with common.set_torch_threads(self._task_spec.num_threads):
            while True:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop_hook(times)
                if max_run_time and total > max_run_time:
                    break
                if total >= min_run_time and can_stop:
                    break
        return times

    def _estimate_block_size(self, min_run_time: float) -> int:
        """The smallest power of ten of runs per block whose time dwarfs the timer's own cost
        (overhead <= 0.01%, and at least min_run_time / 1000), or exceeds min_run_time; this
        doubles as the warm-up."""
        with common.set_torch_threads(self._task_spec.num_threads):
            empty = sorted(self._timeit(0) for _ in range(5))
            overhead = common._f32(empty[2])     # PyTorch takes this median through float32
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time:
                    break
                if number * 10 > 2147483647:     # PyTorch's C int limit
                    break
                number *= 10
        return number

    def blocked_autorange(
        self,
        callback: Callable[[int, float], NoReturn] | None = None,
        min_run_time: float = 0.2,
    ) -> common.Measurement:
        """Choose a block size (see _estimate_block_size), then time blocks until at least
        min_run_time seconds have been measured.  callback(number, time) follows each block."""
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time,
                                       callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def adaptive_autorange(
        self,
        threshold: float = 0.1,
        *,
        min_run_time: float = 0.01,
        max_run_time: float = 10.0,
        callback: Callable[[int, float], NoReturn] | None = None,
    ) -> common.Measurement:
        """As blocked_autorange, but keep timing blocks until there are more than 3, at least
        min_run_time is spent and IQR / median < threshold, or max_run_time is exceeded."""
        number = self._estimate_block_size(min_run_time=0.05)

        def confident(times: list[float]) -> bool:
            if len(times) <= 3:
                return False
            m = common.Measurement(number_per_run=number, raw_times=times,
                                   task_spec=self._task_spec)
            return m.meets_confidence(threshold=threshold)

        times = self._measurement_loop(number, confident, min_run_time, max_run_time,
                                       callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def collect_callgrind(self, number: int = 100, *, repeats: int | None = None,
                          collect_baseline: bool = True, retain_out_file: bool = False) -> Any:
        """Not available: see the module docstring."""
        raise NotImplementedError(
            "collect_callgrind is not supported by nbgrad: instruction counts need valgrind and "
            "PyTorch's compiled valgrind bindings. Use blocked_autorange or adaptive_autorange "
            "for wall times.")
