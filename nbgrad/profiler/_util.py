"""The profiler's results: PyTorch's torch.autograd.profiler_util (FunctionEvent, FunctionEventAvg,
EventList, the table and the Chrome trace), over nbgrad's recorded intervals.

Times are microseconds (floats) from the profile's start, as PyTorch's.  A parent's self time is
exactly its total minus its direct children's totals (PyTorch's formula, on the same numbers).

Departures from PyTorch: there is no device time, no memory, no FLOPs, no stacks and no
overload names (those columns never appear); every event is a CPU event; `node_id` is -1.
"""
import gzip
import json
import os
from collections import defaultdict


class Interval:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _override_time_unit(time_us, time_unit):
    if time_unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if time_unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if time_unit == "us":
        return f"{time_us:.3f}us"
    return _format_time(time_us)


class _FormattedTimes:
    """cpu_time (the average per call) and the *_str forms PyTorch's events offer."""

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.cpu_time_total / self.count

    device_time = property(lambda self: 0.0)
    device_time_total = property(lambda self: 0)
    self_device_time_total = property(lambda self: 0)
    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))


class FunctionEvent(_FormattedTimes):
    """One recorded range: a backend kernel call, a backward node, an optimizer step, a
    record_function range.  `time_range` is in microseconds from the profile's start."""

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None, trace_name=None,
                 is_user_annotation=False, sequence_nr=-1):
        self.id = id
        self.node_id = -1
        self.name = name
        self.trace_name = name if trace_name is None else trace_name
        self.overload_name = ""
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = [] if input_shapes is None else input_shapes
        self.stack = []
        self.scope = 0
        self.use_device = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.is_user_annotation = is_user_annotation
        self.sequence_nr = sequence_nr
        self.flops = 0
        self.kernels = []

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def key(self):
        return self.name

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} thread={self.thread} "
                f"input_shapes={self.input_shapes}>")


class FunctionEventAvg(_FormattedTimes):
    """The sums over the events of one key (and input shapes, when grouped by them)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.self_cpu_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops = 0

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.count += other.count
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of FunctionEvent (or FunctionEventAvg) with PyTorch's table, key_averages,
    total_average and Chrome trace export."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False):
        super().__init__(*args)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = False

    def __str__(self):
        return self.table()

    @property
    def self_cpu_time_total(self):
        return sum(event.self_cpu_time_total for event in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """PyTorch's table of the events: Name, Self CPU %, Self CPU, CPU total %, CPU total,
        CPU time avg, # of Calls (and Input Shapes when an event has them), sorted by
        `sort_by` (an attribute, descending) and ending with "Self CPU time total: ..."."""
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width,
                            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """One FunctionEventAvg per key (per key and input shapes with group_by_input_shapes)."""
        stats = defaultdict(FunctionEventAvg)
        for evt in self:
            key = (str(evt.key), str(evt.node_id), str(evt.is_legacy), str(evt.is_user_annotation))
            if group_by_input_shapes:
                key += (str(evt.input_shapes),)
            stats[key].add(evt)
        avg_list = EventList(stats.values(), use_device=self._use_device, profile_memory=self._profile_memory,
                             with_flops=self._with_flops)
        for evt in avg_list:
            evt.stack = []
            if not group_by_input_shapes:
                evt.input_shapes = ""
            if not group_by_overload_name:
                evt.overload_name = ""
        return avg_list

    def total_average(self):
        """The sums over all events, keyed "Total"."""
        total = FunctionEventAvg()
        for evt in self:
            total += evt
            total.key = None
        total.key = "Total"
        return total

    def export_chrome_trace(self, path):
        """The events as a Chrome trace (PyTorch's EventList format: a JSON list of "X" events,
        pid "CPU functions", ts and dur in microseconds); load it in chrome://tracing."""
        trace = [{"name": evt.trace_name, "ph": "X", "ts": evt.time_range.start,
                  "dur": evt.time_range.elapsed_us(), "tid": evt.thread, "pid": "CPU functions", "args": {}}
                 for evt in self if evt.trace_name is not None]
        with open(path, "w") as f:
            json.dump(trace, f)

    def supported_export_stacks_metrics(self):
        return ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total",
                "self_privateuse1_time_total"]


def _build_table(events, sort_by=None, header=None, row_limit=100, max_name_column_width=55,
                 max_shapes_column_width=80, top_level_events_only=False, time_unit=None):
    """PyTorch's _build_table, for CPU events without memory, FLOPs, stacks or overload names."""
    if len(events) == 0:
        return ""
    has_input_shapes = any(evt.input_shapes is not None and len(evt.input_shapes) > 0 for evt in events)
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device").replace("xpu", "device").replace("privateuse1", "device")
        events = EventList(sorted(events, key=lambda evt: getattr(evt, attr), reverse=True))
    name_column_width = max(len(evt.key) for evt in events) + 4
    if max_name_column_width is not None:
        name_column_width = min(name_column_width, max_name_column_width)
    shapes_column_width = max(len(str(evt.input_shapes)) for evt in events) + 4
    if max_shapes_column_width is not None:
        shapes_column_width = min(shapes_column_width, max_shapes_column_width)
    DEFAULT_COLUMN_WIDTH = 12
    SPACING_SIZE = 2
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_column_width] + [DEFAULT_COLUMN_WIDTH] * (len(headers) - 1)
    if has_input_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_column_width)
    row_format = "".join("{: >" + str(w) + "}" + " " * SPACING_SIZE for w in widths)
    header_sep = "".join("-" * w + " " * SPACING_SIZE for w in widths)
    line_length = sum(w + SPACING_SIZE for w in widths) - SPACING_SIZE

    result = []

    def append(s):
        result.append(s)
        result.append("\n")

    sum_self_cpu_time_total = sum(evt.self_cpu_time_total for evt in events)
    if header is not None:
        append("=" * line_length)
        append(header)
    if top_level_events_only:
        append("=" * line_length)
        append("This report only display top-level ops statistics")
    append(header_sep)
    append(row_format.format(*headers))
    append(header_sep)
    event_limit = 0
    for evt in events:
        if event_limit == row_limit:
            break
        if top_level_events_only and evt.cpu_parent is not None:
            continue
        event_limit += 1
        name = evt.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:(max_name_column_width - 3)] + "..."
        row = [name,
               _format_time_share(evt.self_cpu_time_total, sum_self_cpu_time_total),
               _override_time_unit(evt.self_cpu_time_total, time_unit),
               _format_time_share(evt.cpu_time_total, sum_self_cpu_time_total),
               _override_time_unit(evt.cpu_time_total, time_unit),
               _override_time_unit(evt.cpu_time, time_unit),
               evt.count]
        if has_input_shapes:
            row.append(str(evt.input_shapes)[:shapes_column_width])
        append(row_format.format(*row))
    append(header_sep)
    append(f"Self CPU time total: {_override_time_unit(sum_self_cpu_time_total, time_unit)}")
    return "".join(result)


def write_trace(events, path, base_time_ns, pid, record_shapes):
    """events as a trace in the format torch.profiler writes (Kineto's JSON object:
    traceEvents of "X" events, ts and dur in microseconds, cat cpu_op or user_annotation),
    gzip-compressed when path ends in .gz."""
    threads = sorted({evt.thread for evt in events})
    trace = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}},
             {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0, "args": {"labels": "CPU"}}]
    trace += [{"ph": "M", "name": "thread_name", "pid": pid, "tid": t, "args": {"name": f"thread {t} (python)"}}
              for t in threads]
    for evt in events:
        args = {"Ev Idx": evt.id}
        if record_shapes:
            args["Input Dims"] = evt.input_shapes
        trace.append({"ph": "X", "cat": "user_annotation" if evt.is_user_annotation else "cpu_op",
                      "name": evt.trace_name, "pid": pid, "tid": evt.thread, "ts": evt.time_range.start,
                      "dur": evt.time_range.elapsed_us(), "args": args})
    doc = {"schemaVersion": 1, "displayTimeUnit": "ms", "baseTimeNanoseconds": base_time_ns,
           "traceEvents": trace, "traceName": os.fspath(path)}
    text = json.dumps(doc)
    if os.fspath(path).endswith(".gz"):
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)
