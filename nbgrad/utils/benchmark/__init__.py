"""nbgrad.utils.benchmark: PyTorch's torch.utils.benchmark for timing nbgrad code, so a
benchmark script written for PyTorch runs with `import nbgrad as torch`.

- Timer (utils/timer.py): timeit / blocked_autorange / adaptive_autorange, with nbgrad's
  thread count set for the measurement and restored after.
- Measurement, TaskSpec and the helpers select_unit, unit_to_english, trim_sigfig,
  ordered_unique, set_torch_threads (utils/common.py): PyTorch's statistics and repr.
- Compare and Colorize (utils/compare.py): PyTorch's tables, character for character.

Departures from PyTorch (details in utils/timer.py):
- no C++ timing: Timer(language="cpp") raises NotImplementedError (nbgrad has no C++ API);
- no instruction counts: Timer.collect_callgrind raises NotImplementedError, and the
  valgrind names (CallgrindStats, FunctionCounts, FunctionCount, CopyIfCallgrind) are absent;
- the default clock synchronises nbgrad's CUDA backend (once it is loaded), not
  torch.accelerator;
- the fuzzers (Fuzzer, FuzzedParameter, FuzzedTensor, FuzzedSparseTensor, ParameterAlias)
  are not provided.
"""
from .utils.common import (TaskSpec, Measurement, select_unit, unit_to_english, trim_sigfig,
                           ordered_unique, set_torch_threads)
from .utils.timer import Timer, timer, Language
from .utils.compare import Colorize, Compare
from . import utils

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads", "Timer", "timer", "Language", "Colorize",
           "Compare", "utils"]
