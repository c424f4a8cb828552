"""nbgrad.profiler: PyTorch's torch.profiler over nbgrad's interception points.

    with nbgrad.profiler.profile(record_shapes=True) as prof:
        with nbgrad.profiler.record_function("train_step"):
            step()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
    prof.export_chrome_trace("trace.json")

`profile` (context manager, or start()/stop()), `step()` with a `schedule(wait=, warmup=,
active=, repeat=, skip_first=)` (PyTorch's ProfilerAction sequence: warmup steps record
nothing, the last active step of a cycle calls `on_trace_ready(prof)`, each step is a
`ProfilerStep#N` range), `key_averages(group_by_input_shape=)`, `events()`,
`export_chrome_trace(path)` (".gz": compressed), `tensorboard_trace_handler(dir)`,
`record_function(name)`, `ProfilerActivity`.  How the recording works: nbgrad/profiler/_core.py.

Where nbgrad departs from PyTorch:
- The events are nbgrad's own: each backend kernel call (`nbgrad::matmul`,
  `nbgrad::binary.mul`, `nbgrad::linear_backward`, `nbgrad::sgd_step_many`), where PyTorch
  lists ATen ops (`aten::addmm`, `aten::mul`); backward nodes (`MulBackward0` inside
  `autograd::engine::evaluate_function: MulBackward0`), optimizer steps
  (`Optimizer.step#SGD.step`) and record_function ranges are named as PyTorch names them.
  An `evaluate_function` range covers the node's call, not the gradient routing after it.
- A compiled function's call (nbgrad.compile) is one `nbgrad.compile: <name>` range: its
  generated code calls the backends it captured, which the profiler does not intercept.
- Only CPU time is recorded.  ProfilerActivity.CUDA is accepted (a warning when CUDA is not
  available, as PyTorch's) and adds nothing: a CUDA backend's calls are timed on the host
  (launches), there is no device timeline.  profile_memory, with_stack and with_flops are
  not supported (a warning; no memory, stack or FLOPs columns); with_modules has no effect
  (as in PyTorch's tables); warmup steps record nothing (there is no tracer to warm up).
- One profile records at a time in the whole process: a second one (nested, or from another
  thread) raises RuntimeError("Profiler is already enabled on this thread"), where PyTorch
  2.13 lets the inner profile silently take over and the outer one comes back empty.
"""
import enum
import os
import socket
import time
import warnings
from functools import partial

from .._warnings import warn_user as _warn_user
from ._core import _cuda_available, _warn_unsupported, profile as _legacy_profile, record_function
from ._util import write_trace

__all__ = ["profile", "schedule", "ProfilerAction", "ProfilerActivity", "record_function",
           "tensorboard_trace_handler", "supported_activities"]


class ProfilerActivity(enum.Enum):
    """What a profile records (PyTorch's values).  nbgrad records CPU activity only."""
    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What the profiler does at a step, as a schedule returns it."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities():
    """The activities nbgrad's profiler records: {ProfilerActivity.CPU}."""
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """PyTorch's schedule: skip `skip_first` steps, then cycles of `wait` steps (NONE),
    `warmup` (WARMUP) and `active` (RECORD ..., the last RECORD_AND_SAVE), `repeat` cycles
    (0: until the end)."""
    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        _warn_user("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An on_trace_ready handler writing `<worker_name>.<ns>.pt.trace.json[.gz]` into dir_name
    (worker_name: '<hostname>_<pid>' by default)."""
    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))
    return handler_fn


class _KinetoProfile:
    """The recording part of `profile`: start()/stop() and the results of the last recording."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, custom_trace_id_callback=None, post_processing_timeout_s=None):
        if activities is not None:
            parsed = set()
            for item in activities:
                keys = list(item) if isinstance(item, dict) else [item]
                for key in keys:
                    if not isinstance(key, ProfilerActivity):
                        raise TypeError(f"Expected ProfilerActivity or dict, got {type(item)}")
                    if key in parsed:
                        raise ValueError(f"Activity {key} specified more than once")
                    parsed.add(key)
            self.activities = parsed
        else:
            self.activities = supported_activities()
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.acc_events = acc_events
        self.profiler = None
        self.use_device = "cuda" if ProfilerActivity.CUDA in self.activities else None
        _warn_unsupported(profile_memory=profile_memory, with_stack=with_stack, with_flops=with_flops)

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def prepare_trace(self):
        if self.profiler is None or not self.acc_events:
            with warnings.catch_warnings():
                # (the CUDA warning is given once, when the trace starts; the rest by __init__)
                warnings.simplefilter("ignore")
                self.profiler = _legacy_profile(use_device=self.use_device, record_shapes=self.record_shapes,
                                                acc_events=self.acc_events)
            self.profiler.use_device = None

    def start_trace(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        if self.use_device == "cuda" and not _cuda_available():
            _warn_user("CUDA is not available, disabling CUDA profiling", stacklevel=3)
        self.profiler._start_trace()

    def stop_trace(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self.profiler._stop_trace()

    def export_chrome_trace(self, path, use_python_export=False):
        """The events of the last recording as a Chrome trace (JSON; gzip when path ends in .gz)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        rec = self.profiler._recorder
        write_trace(self.profiler._results(), path, rec.start_ns if rec is not None else 0, os.getpid(),
                    self.record_shapes)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def events(self):
        """The recorded FunctionEvents (unaggregated) of the last recording."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self.profiler.function_events


class profile(_KinetoProfile):
    """PyTorch's torch.profiler.profile (see the module's doc for what nbgrad records)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        if activities is not None:
            activities = list(activities)
        activities_set = set()
        for item in (activities if activities is not None else supported_activities()):
            activities_set.update(item.keys() if isinstance(item, dict) else [item])
        if use_cuda is not None:
            _warn_user("`use_cuda` is deprecated, use `activities` argument instead", FutureWarning, stacklevel=2)
            if use_cuda:
                activities_set.add(ProfilerActivity.CUDA)
            else:
                activities_set.discard(ProfilerActivity.CUDA)
            activities = list(activities_set)
        if len(activities_set) == 0:
            raise AssertionError("No valid profiler activities found")
        super().__init__(activities=activities, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules,
                         experimental_config=experimental_config, acc_events=acc_events)
        if schedule:
            self.schedule = schedule
            self.record_steps = True        # ProfilerStep#N ranges
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        action = self.schedule(self.step_num)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be "
                             "returned by a user-provided schedule")
        self.current_action = action
        A = ProfilerAction
        incorrect = partial(warnings.warn)
        # (previous action, current action) -> what to do, PyTorch's table (warmup is
        # prepare_trace only: a new recorder, nothing installed until start_trace)
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [partial(incorrect, "Incorrect schedule: WARMUP followed by NONE"),
                                 self.start_trace, self.stop_trace],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [partial(incorrect, "Incorrect schedule: RECORD followed by NONE"), self.stop_trace],
            (A.RECORD, A.WARMUP): [partial(incorrect, "Incorrect schedule: RECORD followed by WARMUP"),
                                   self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready, self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                            self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                                     self.start_trace],
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """The next step begins: the schedule's action for it is taken."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        action = self.schedule(self.step_num + 1)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be "
                             "returned by a user-provided schedule")
        self.step_num += 1
        self.current_action = action
        self._transit_action(prev_action, action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), ()):
            action()
