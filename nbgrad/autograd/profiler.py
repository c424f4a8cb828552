"""nbgrad.autograd.profiler: PyTorch's torch.autograd.profiler (the legacy profiler API).

    with nbgrad.autograd.profiler.profile(record_shapes=True) as prof:
        loss = model(x).sum(); loss.backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total"))
    prof.self_cpu_time_total, prof.total_average(), prof.function_events

`profile(enabled=True, use_cuda=False, use_device=None, record_shapes=False, ...)`,
`record_function(name)` (context manager and decorator), `FunctionEvent`,
`FunctionEventAvg` and `EventList` (PyTorch's torch.autograd.profiler_util classes).  The
recording is nbgrad.profiler's (nbgrad/profiler/_core.py).

Where nbgrad departs from PyTorch: the events are nbgrad's kernel calls (`nbgrad::matmul`,
`nbgrad::binary.mul`) instead of ATen ops; backward nodes, optimizer steps and
record_function ranges carry PyTorch's names.  Only CPU time is recorded: use_cuda /
use_device="cuda" add nothing (PyTorch's warning when CUDA is not available), and
profile_memory, with_stack and with_flops are not supported (a warning).  One profile records
at a time in the process: a nested one raises RuntimeError("Profiler is already enabled on
this thread").  export_chrome_trace writes torch.profiler's JSON object format.
"""
from ..profiler._core import profile, record_function
from ..profiler._util import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]
