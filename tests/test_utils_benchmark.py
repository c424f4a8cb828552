"""nbgrad.utils.benchmark against PyTorch's torch.utils.benchmark.

Every expected text and number below was recorded by running PyTorch 2.13 on the same inputs:
Measurements built from fixed raw_times (no timing involved), and Timers driven by a fake clock
(a callable that advances by fixed steps), which makes the number of runs and the raw times
they record deterministic.
"""
import importlib
import os
import pickle

import pytest

import nbgrad

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"

# PyTorch does not load torch.utils.benchmark with `import torch`; importing it by the package's
# own name reaches nbgrad.utils.benchmark here and torch.utils.benchmark under the stand-in.
bench = importlib.import_module(nbgrad.__name__ + ".utils.benchmark")

TS = bench.TaskSpec
M = bench.Measurement


def _first_line(m):
    return f"<{nbgrad.__name__}.utils.benchmark.utils.common.Measurement object at {hex(id(m))}>"


def test_reached_as_attribute():
    assert nbgrad.utils.benchmark is bench
    assert bench.Timer is bench.utils.timer.Timer
    assert bench.Measurement is bench.utils.common.Measurement
    assert bench.Compare is bench.utils.compare.Compare


# --------------------------------------------------------------------------------------------
# Measurement: statistics and repr from fixed raw_times

MEASUREMENTS = {
    "five": (100, [2.5e-4, 2.6e-4, 3.0e-4, 2.4e-4, 2.55e-4],
             dict(stmt="x + y", setup="pass", label="add", sub_label="float", description="n=4",
                  num_threads=2)),
    "one": (1000, [2.5e-3], dict(stmt="f(x)", setup="x = 1")),
    "three": (10, [1.5e-7, 1.7e-7, 1.6e-7], dict(stmt="f(x)", setup="pass", sub_label="int")),
    "gross": (1, [1.0e-3, 1.2e-3, 2.0e-3, 0.9e-3, 3.0e-3, 1.1e-3],
              dict(stmt="g()", setup="pass", label="G")),
    "mild": (1, [1.0, 1.2, 0.95, 1.15, 1.05, 0.9, 1.1, 1.0],
             dict(stmt="h()", setup="pass", label="H", num_threads=4)),
    "multiline": (4, [4e-8, 4.4e-8, 4.2e-8, 4.1e-8],
                  dict(stmt="a = 1\nb = a + 1", setup="import math\nx = 2", sub_label="s",
                       description="desc")),
    "ns": (1000, [3.2e-6, 3.3e-6, 3.25e-6, 3.21e-6], dict(stmt="pass", setup="")),
    # millisecond times with small spreads: 2, 3 and 4 significant figures
    "tight2": (10, [1e-2 * (1 + (k % 7) * 1e-2) for k in range(30)],
               dict(stmt="t()", setup="pass")),
    "tight3": (10, [1e-2 * (1 + (k % 5) * 1e-3) for k in range(30)],
               dict(stmt="t()", setup="pass", label="T3")),
    "tight4": (10, [1e-2 * (1 + (k % 3) * 1e-4) for k in range(40)],
               dict(stmt="t()", setup="pass", label="T4")),
}


def _measurement(name):
    number, raw, spec = MEASUREMENTS[name]
    return M(number, list(raw), TS(**spec))


# (median, iqr, mean, significant_figures, has_warnings), recorded from PyTorch
STATS = {'five': (2.55e-06, 9.999999999999947e-08, 2.6099999999999996e-06, 1, False),
 'gross': (0.00115, 0.0007749999999999999, 0.0015333333333333334, 1, True),
 'mild': (1.025, 0.125, 1.0437500000000002, 1, True),
 'multiline': (1.0375e-08, 4.3749999999999813e-10, 1.04375e-08, 1, False),
 'ns': (3.23e-09, 5.4999999999999913e-11, 3.24e-09, 1, False),
 'one': (2.5e-06, 0.0, 2.5e-06, 2, False),
 'three': (1.6e-08, 1.0000000000000023e-09, 1.6e-08, 1, False),
 'tight2': (0.00103, 3.750000000000021e-05, 0.0010283333333333334, 2, False),
 'tight3': (0.0010019999999999999, 2.0000000000000486e-06, 0.001002, 3, False),
 'tight4': (0.0010000999999999999, 2.0000000000011328e-07, 0.0010000975, 4, False)}

REPRS = {
    'five': (
        'add: float\n'
        'n=4\n'
        '  Median: 2.55 us\n'
        '  IQR:    0.10 us (2.50 to 2.60)\n'
        '  5 measurements, 100 runs per measurement, 2 threads'
    ),
    'gross': (
        'G\n'
        '  Median: 1.15 ms\n'
        '  IQR:    0.77 ms (1.03 to 1.80)\n'
        '  6 measurements, 1 runs per measurement, 1 thread\n'
        '  WARNING: Interquartile range is 67.4% of the median measurement.\n'
        '           This suggests significant environmental influence.'
    ),
    'mild': (
        'H\n'
        '  Median: 1.02 s\n'
        '  IQR:    0.12 s (0.99 to 1.11)\n'
        '  8 measurements, 1 runs per measurement, 4 threads\n'
        '  WARNING: Interquartile range is 12.2% of the median measurement.\n'
        '           This could indicate system fluctuation.'
    ),
    'multiline': (
        'stmt: (s)\n'
        '  a = 1\n'
        '  b = a + 1\n'
        '\n'
        'desc\n'
        'setup:\n'
        '  import math\n'
        '  x = 2\n'
        '\n'
        '  Median: 10.38 ns\n'
        '  IQR:    0.44 ns (10.19 to 10.62)\n'
        '  4 measurements, 4 runs per measurement, 1 thread'
    ),
    'ns': (
        'pass\n'
        '  Median: 3.23 ns\n'
        '  IQR:    0.05 ns (3.21 to 3.26)\n'
        '  4 measurements, 1000 runs per measurement, 1 thread'
    ),
    'one': (
        'f(x)\n'
        'setup: x = 1\n'
        '  2.50 us\n'
        '  1 measurement, 1000 runs , 1 thread'
    ),
    'three': (
        'f(x): int\n'
        '  Median: 16.00 ns\n'
        '  3 measurements, 10 runs per measurement, 1 thread'
    ),
    'tight2': (
        't()\n'
        '  Median: 1.03 ms\n'
        '  IQR:    0.04 ms (1.01 to 1.05)\n'
        '  30 measurements, 10 runs per measurement, 1 thread'
    ),
    'tight3': (
        'T3\n'
        '  Median: 1.00 ms\n'
        '  IQR:    0.00 ms (1.00 to 1.00)\n'
        '  30 measurements, 10 runs per measurement, 1 thread'
    ),
    'tight4': (
        'T4\n'
        '  Median: 1.00 ms\n'
        '  IQR:    0.00 ms (1.00 to 1.00)\n'
        '  40 measurements, 10 runs per measurement, 1 thread'
    ),
}


@pytest.mark.parametrize("name", sorted(MEASUREMENTS))
def test_measurement_statistics(name):
    m = _measurement(name)
    median, iqr, mean, sigfigs, warns = STATS[name]
    assert m.median == pytest.approx(median, rel=1e-12, abs=0)
    assert m.iqr == pytest.approx(iqr, rel=1e-9, abs=1e-24)
    assert m.mean == pytest.approx(mean, rel=1e-12, abs=0)
    assert m.significant_figures == sigfigs
    assert m.has_warnings is warns
    number, raw, _ = MEASUREMENTS[name]
    assert m.times == [t / number for t in raw]
    assert m.meets_confidence(0.1) is (iqr / median < 0.1)


@pytest.mark.parametrize("name", sorted(REPRS))
def test_measurement_repr(name):
    m = _measurement(name)
    first, rest = repr(m).split("\n", 1)
    assert first == _first_line(m)
    assert rest == REPRS[name]


def test_measurement_fields_and_forwarding():
    m = _measurement("five")
    assert (m.label, m.sub_label, m.description) == ("add", "float", "n=4")
    assert (m.stmt, m.setup) == ("x + y", "pass")
    assert m.num_threads == 2 and m.global_setup == ""
    assert m.title == "add: float" and m.as_row_name == "float"
    assert m.env is None                      # PyTorch answers task_spec.env, None here
    assert m.metadata is None
    assert M(1, [1.0], TS("s", "pass", env="E")).env == "E"
    assert _measurement("three").title == "f(x): int"
    assert _measurement("multiline").title == "stmt: (s)\n  a = 1\n  b = a + 1"
    assert M(1, [1.0], TS("s", "pass")).as_row_name == "s"
    assert M(1, [1.0], TS("", "pass")).as_row_name == "[Unknown]"
    with pytest.raises(AttributeError):
        m.no_such_field
    assert m == _measurement("five") and m != _measurement("one")
    again = pickle.loads(pickle.dumps(m))
    assert again == m and again.median == m.median and again.label == "add"


def test_taskspec():
    spec = TS("a = 1\nb = 2", "import math\nx = 1", label=None, description="d")
    assert spec.setup_str() == "setup:\n  import math\n  x = 1"
    assert spec.summarize() == "stmt:\n  a = 1\n  b = 2\n\nd\nsetup:\n  import math\n  x = 1\n"
    assert TS("f()", "pass").setup_str() == "" and TS("f()", "").setup_str() == ""
    assert TS("f()", "y = 2", label="L", sub_label="S").summarize() == "L: S\nsetup: y = 2"
    assert hash(spec) == hash(TS("a = 1\nb = 2", "import math\nx = 1", description="d"))
    with pytest.raises(Exception):
        spec.label = "frozen"


def test_merge():
    a = M(10, [1e-5, 2e-5, 3e-5], TS("f()", "pass", label="A"))
    b = M(2, [4e-6], TS("g()", "pass", label="B"))
    a2 = M(100, [5e-4], TS("f()", "pass", label="A"), metadata={"k": 1})
    merged = M.merge([a, b, a2])
    assert [m.task_spec for m in merged] == [a.task_spec, b.task_spec]
    assert [m.number_per_run for m in merged] == [1, 1]
    assert merged[0].raw_times == pytest.approx([1e-6, 2e-6, 3e-6, 5e-6], rel=1e-15)
    assert merged[1].raw_times == [2e-6]
    assert merged[0].metadata is None


def test_helpers():
    # below a nanosecond PyTorch falls back to seconds; 999.9 ns stays in ns
    times = (1e-10, 1e-9, 999.9e-9, 1e-6, 1e-3, 0.999, 1.0, 5000.0)
    assert [bench.select_unit(t) for t in times] == [
        ("s", 1), ("ns", 1e-9), ("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("ms", 1e-3),
        ("s", 1), ("s", 1)]
    assert [bench.unit_to_english(u) for u in ("ns", "us", "ms", "s")] == [
        "nanosecond", "microsecond", "millisecond", "second"]
    assert [bench.trim_sigfig(x, n) for x in (3.14159, 123456.0, 0.0012345, 2.5, 99.96)
            for n in (1, 2, 3)] == [
        3.0, 3.1000001430511475, 3.1399998664855957,            # rounded through float32
        100000.0, 120000.0, 123000.0,
        0.0010000000474974513, 0.0011999999405816197, 0.0012299999361857772,
        2.0, 2.5, 2.5,                                           # half to even
        100.0, 100.0, 100.0]
    with pytest.raises(AssertionError):
        bench.trim_sigfig(1.0, 1.5)
    assert bench.ordered_unique([3, 1, 3, 2, 1]) == [3, 1, 2]


# --------------------------------------------------------------------------------------------
# Compare: tables from fixed raw_times

def _spread(base, k, n):
    """n times around base, spread by about 10**-k of it (so 1 to 4 significant figures)."""
    return [base * (1 + 10.0 ** -k * (i % 5)) for i in range(n)]


def _compare_results():
    results = []
    for label in ("add", "mul"):
        for threads in (1, 2):
            for r, sub in enumerate(("float", "int", "double")):
                for c, (desc, size) in enumerate((("n=1", 1), ("n=100", 100), ("n=10000", 10000))):
                    if label == "mul" and sub == "int" and desc == "n=100":
                        continue                                  # a missing cell
                    base = (2e-3 + size * 1e-6 * (1 + r)) / threads
                    raw = _spread(base * 100, 1 + (r + c) % 4, 7)
                    if sub == "double" and desc == "n=1":
                        raw = [base * 100 * f for f in (1.0, 1.6, 0.7, 1.3, 1.0, 2.0, 0.9)]
                    results.append(M(100, raw, TS("f(x)", "pass", label=label, sub_label=sub,
                                                   description=desc, num_threads=threads)))
    return results


def _env_results():
    rows = [("A", "x", "c1"), ("A", "y", "c1"), ("BB", "x", "c1"), ("BB", "y", "c2")]
    return [M(1, _spread(1e-3 * (i + 1), i + 1, 5), TS("f()", "pass", label="E", env=e,
                                                       sub_label=s, description=d))
            for i, (e, s, d) in enumerate(rows)]


def _compare(results, *options):
    c = bench.Compare(results)
    for option in options:
        if option == "rowwise":
            c.colorize(rowwise=True)
        else:
            getattr(c, option)()
    return str(c)


TABLES = {
    'plain': (
        '[----------------- add ------------------]\n'
        '              |  n=1  |  n=100  |  n=10000\n'
        '1 threads: -------------------------------\n'
        '      float   |  2.2  |   2.1   |    12.0 \n'
        '      int     |  2.0  |   2.2   |    22.0 \n'
        '      double  |  2.0  |   2.3   |    35.2 \n'
        '2 threads: -------------------------------\n'
        '      float   |  1.1  |   1.1   |     6.0 \n'
        '      int     |  1.0  |   1.1   |    11.0 \n'
        '      double  |  1.0  |   1.2   |    17.6 \n'
        '\n'
        'Times are in milliseconds (ms).\n'
        '\n'
        '[----------------- mul ------------------]\n'
        '              |  n=1  |  n=100  |  n=10000\n'
        '1 threads: -------------------------------\n'
        '      float   |  2.2  |   2.1   |    12.0 \n'
        '      int     |  2.0  |         |    22.0 \n'
        '      double  |  2.0  |   2.3   |    35.2 \n'
        '2 threads: -------------------------------\n'
        '      float   |  1.1  |   1.1   |     6.0 \n'
        '      int     |  1.0  |         |    11.0 \n'
        '      double  |  1.0  |   1.2   |    17.6 \n'
        '\n'
        'Times are in milliseconds (ms).\n'
    ),
    'trim': (
        '[----------------- add ------------------]\n'
        '              |  n=1  |  n=100  |  n=10000\n'
        '1 threads: -------------------------------\n'
        '      float   |   2   |   2.1   |     12  \n'
        '      int     |   2   |   2.2   |     22  \n'
        '      double  |   2   |   2.3   |     40  \n'
        '2 threads: -------------------------------\n'
        '      float   |   1   |   1.1   |      6  \n'
        '      int     |   1   |   1.1   |     11  \n'
        '      double  |   1   |   1.2   |     20  \n'
        '\n'
        'Times are in milliseconds (ms).\n'
        '\n'
        '[----------------- mul ------------------]\n'
        '              |  n=1  |  n=100  |  n=10000\n'
        '1 threads: -------------------------------\n'
        '      float   |   2   |   2.1   |     12  \n'
        '      int     |   2   |         |     22  \n'
        '      double  |   2   |   2.3   |     40  \n'
        '2 threads: -------------------------------\n'
        '      float   |   1   |   1.1   |      6  \n'
        '      int     |   1   |         |     11  \n'
        '      double  |   1   |   1.2   |     20  \n'
        '\n'
        'Times are in milliseconds (ms).\n'
    ),
    'color': (
        '[----------------- add ------------------]\n'
        '              |  n=1  |  n=100  |  n=10000\n'
        '1 threads: -------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m2.2\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 2.1 \x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m  12.0 \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m2.0\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 2.2 \x1b[0m\x1b[0m  |    22.0 \n'
        '      double  |  \x1b[92m\x1b[1m2.0\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 2.3 \x1b[0m\x1b[0m  |  \x1b[2m\x1b[91m  35.2 \x1b[0m\x1b[0m\n'
        '2 threads: -------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m1.1\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 1.1 \x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m   6.0 \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m1.0\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 1.1 \x1b[0m\x1b[0m  |    11.0 \n'
        '      double  |  \x1b[92m\x1b[1m1.0\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 1.2 \x1b[0m\x1b[0m  |  \x1b[2m\x1b[91m  17.6 \x1b[0m\x1b[0m\n'
        '\n'
        'Times are in milliseconds (ms).\n'
        '\n'
        '[----------------- mul ------------------]\n'
        '              |  n=1  |  n=100  |  n=10000\n'
        '1 threads: -------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m2.2\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 2.1 \x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m  12.0 \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m2.0\x1b[0m\x1b[0m  |         |    22.0 \n'
        '      double  |  \x1b[92m\x1b[1m2.0\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 2.3 \x1b[0m\x1b[0m  |  \x1b[2m\x1b[91m  35.2 \x1b[0m\x1b[0m\n'
        '2 threads: -------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m1.1\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 1.1 \x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m   6.0 \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m1.0\x1b[0m\x1b[0m  |         |    11.0 \n'
        '      double  |  \x1b[92m\x1b[1m1.0\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 1.2 \x1b[0m\x1b[0m  |  \x1b[2m\x1b[91m  17.6 \x1b[0m\x1b[0m\n'
        '\n'
        'Times are in milliseconds (ms).\n'
    ),
    'color_row': (
        '[----------------- add ------------------]\n'
        '              |  n=1  |  n=100  |  n=10000\n'
        '1 threads: -------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m2.2\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 2.1 \x1b[0m\x1b[0m  |  \x1b[31m\x1b[1m  12.0 \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m2.0\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 2.2 \x1b[0m\x1b[0m  |  \x1b[31m\x1b[1m  22.0 \x1b[0m\x1b[0m\n'
        '      double  |  \x1b[92m\x1b[1m2.0\x1b[0m\x1b[0m  |   2.3   |  \x1b[31m\x1b[1m  35.2 \x1b[0m\x1b[0m\n'
        '2 threads: -------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m1.1\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 1.1 \x1b[0m\x1b[0m  |  \x1b[31m\x1b[1m   6.0 \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m1.0\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 1.1 \x1b[0m\x1b[0m  |  \x1b[31m\x1b[1m  11.0 \x1b[0m\x1b[0m\n'
        '      double  |  \x1b[92m\x1b[1m1.0\x1b[0m\x1b[0m  |   1.2   |  \x1b[31m\x1b[1m  17.6 \x1b[0m\x1b[0m\n'
        '\n'
        'Times are in milliseconds (ms).\n'
        '\n'
        '[----------------- mul ------------------]\n'
        '              |  n=1  |  n=100  |  n=10000\n'
        '1 threads: -------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m2.2\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 2.1 \x1b[0m\x1b[0m  |  \x1b[31m\x1b[1m  12.0 \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m2.0\x1b[0m\x1b[0m  |         |  \x1b[31m\x1b[1m  22.0 \x1b[0m\x1b[0m\n'
        '      double  |  \x1b[92m\x1b[1m2.0\x1b[0m\x1b[0m  |   2.3   |  \x1b[31m\x1b[1m  35.2 \x1b[0m\x1b[0m\n'
        '2 threads: -------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m1.1\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 1.1 \x1b[0m\x1b[0m  |  \x1b[31m\x1b[1m   6.0 \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m1.0\x1b[0m\x1b[0m  |         |  \x1b[31m\x1b[1m  11.0 \x1b[0m\x1b[0m\n'
        '      double  |  \x1b[92m\x1b[1m1.0\x1b[0m\x1b[0m  |   1.2   |  \x1b[31m\x1b[1m  17.6 \x1b[0m\x1b[0m\n'
        '\n'
        'Times are in milliseconds (ms).\n'
    ),
    'warn': (
        '[------------------------ add ------------------------]\n'
        '              |      n=1      |  n=100  |    n=10000   \n'
        '1 threads: --------------------------------------------\n'
        '      float   |  2.2 (! 18%)  |   2.1   |  12.0        \n'
        '      int     |   2.0         |   2.2   |  22.0        \n'
        '      double  |  2.0 (! 50%)  |   2.3   |  35.2 (! 18%)\n'
        '2 threads: --------------------------------------------\n'
        '      float   |  1.1 (! 18%)  |   1.1   |   6.0        \n'
        '      int     |   1.0         |   1.1   |  11.0        \n'
        '      double  |  1.0 (! 50%)  |   1.2   |  17.6 (! 18%)\n'
        '\n'
        'Times are in milliseconds (ms).\n'
        '(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n'
        '\n'
        '[------------------------ mul ------------------------]\n'
        '              |      n=1      |  n=100  |    n=10000   \n'
        '1 threads: --------------------------------------------\n'
        '      float   |  2.2 (! 18%)  |   2.1   |  12.0        \n'
        '      int     |   2.0         |         |  22.0        \n'
        '      double  |  2.0 (! 50%)  |   2.3   |  35.2 (! 18%)\n'
        '2 threads: --------------------------------------------\n'
        '      float   |  1.1 (! 18%)  |   1.1   |   6.0        \n'
        '      int     |   1.0         |         |  11.0        \n'
        '      double  |  1.0 (! 50%)  |   1.2   |  17.6 (! 18%)\n'
        '\n'
        'Times are in milliseconds (ms).\n'
        '(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n'
    ),
    'all': (
        '[---------------------- add ----------------------]\n'
        '              |     n=1     |  n=100  |   n=10000  \n'
        '1 threads: ----------------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m2 (! 18%)\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 2.1 \x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m12        \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m 2       \x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 2.2 \x1b[0m\x1b[0m  |  22        \n'
        '      double  |  \x1b[92m\x1b[1m2 (! 50%)\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 2.3 \x1b[0m\x1b[0m  |  \x1b[2m\x1b[91m40 (! 18%)\x1b[0m\x1b[0m\n'
        '2 threads: ----------------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m1 (! 18%)\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 1.1 \x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 6        \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m 1       \x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 1.1 \x1b[0m\x1b[0m  |  11        \n'
        '      double  |  \x1b[92m\x1b[1m1 (! 50%)\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 1.2 \x1b[0m\x1b[0m  |  \x1b[2m\x1b[91m20 (! 18%)\x1b[0m\x1b[0m\n'
        '\n'
        'Times are in milliseconds (ms).\n'
        '(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n'
        '\n'
        '[---------------------- mul ----------------------]\n'
        '              |     n=1     |  n=100  |   n=10000  \n'
        '1 threads: ----------------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m2 (! 18%)\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 2.1 \x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m12        \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m 2       \x1b[0m\x1b[0m  |         |  22        \n'
        '      double  |  \x1b[92m\x1b[1m2 (! 50%)\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 2.3 \x1b[0m\x1b[0m  |  \x1b[2m\x1b[91m40 (! 18%)\x1b[0m\x1b[0m\n'
        '2 threads: ----------------------------------------\n'
        '      float   |  \x1b[34m\x1b[1m1 (! 18%)\x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 1.1 \x1b[0m\x1b[0m  |  \x1b[92m\x1b[1m 6        \x1b[0m\x1b[0m\n'
        '      int     |  \x1b[92m\x1b[1m 1       \x1b[0m\x1b[0m  |         |  11        \n'
        '      double  |  \x1b[92m\x1b[1m1 (! 50%)\x1b[0m\x1b[0m  |  \x1b[34m\x1b[1m 1.2 \x1b[0m\x1b[0m  |  \x1b[2m\x1b[91m20 (! 18%)\x1b[0m\x1b[0m\n'
        '\n'
        'Times are in milliseconds (ms).\n'
        '(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n'
    ),
    'env': (
        '[---------- E -----------]\n'
        '           |  c1  |    c2 \n'
        '1 threads: ---------------\n'
        '  (A)   x  |  1   |       \n'
        '        y  |  2   |       \n'
        '  (BB)  x  |  3   |       \n'
        '        y  |      |  4.001\n'
        '\n'
        'Times are in milliseconds (ms).\n'
    ),
    'merged': (
        '[------- R --------]\n'
        '           |    d   \n'
        '1 threads: ---------\n'
        '      f()  |  1150.0\n'
        '      g()  |   550.0\n'
        '\n'
        'Times are in nanoseconds (ns).\n'
    ),
}


def test_compare_plain():
    assert _compare(_compare_results()) == TABLES["plain"]


def test_compare_trim():
    assert _compare(_compare_results(), "trim_significant_figures") == TABLES["trim"]


def test_compare_colorize():
    assert _compare(_compare_results(), "colorize") == TABLES["color"]
    assert _compare(_compare_results(), "rowwise") == TABLES["color_row"]


def test_compare_highlight_warnings():
    assert _compare(_compare_results(), "highlight_warnings") == TABLES["warn"]
    assert _compare(_compare_results(), "trim_significant_figures", "colorize",
                    "highlight_warnings") == TABLES["all"]


def test_compare_env_and_replicates():
    assert _compare(_env_results(), "trim_significant_figures") == TABLES["env"]
    first = M(10, [1e-5, 1.1e-5, 1.2e-5, 1e-5], TS("f()", "pass", label="R", description="d"))
    second = M(1, [2e-6, 3e-6], TS("f()", "pass", label="R", description="d"))
    other = M(1, [5e-7, 6e-7], TS("g()", "pass", label="R", description="d"))
    assert _compare([first, other, second]) == TABLES["merged"]


def test_compare_print_and_errors(capsys):
    c = bench.Compare(_env_results())
    c.print()
    assert capsys.readouterr().out == str(c) + "\n"
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        bench.Compare([1])
    c.extend_results(_compare_results()[:2])
    assert str(c).count("Times are in") == 2       # tables "E" and "add"
    with pytest.raises(ValueError):
        c.extend_results(["not a measurement"])
    assert str(c).count("Times are in") == 2


# --------------------------------------------------------------------------------------------
# Timer: a fake clock makes the measurement loops deterministic

class FakeClock:
    """Each read advances the time by the next of `read_steps` (cycled); each clock.tick() in
    the statement by the next of `ticks`.  Steps are powers of two, so every sum is exact."""

    def __init__(self, read_steps, ticks):
        self.t, self.read_steps, self.ticks = 0.0, read_steps, ticks
        self.reads = self.tick_count = 0

    def __call__(self):
        self.t += self.read_steps[self.reads % len(self.read_steps)]
        self.reads += 1
        return self.t

    def tick(self):
        self.t += self.ticks[self.tick_count % len(self.ticks)]
        self.tick_count += 1


P = 2.0 ** -20
T = 2.0 ** -14


def _run(kind, read_steps, ticks, **kwargs):
    clock = FakeClock(read_steps, ticks)
    calls = []
    setup = "clock.tick()" if kwargs.pop("tick_setup", False) else "pass"
    timer = bench.Timer("clock.tick()", setup=setup, timer=clock, globals={"clock": clock})
    if kind == "timeit":
        m = timer.timeit(**kwargs)
    else:
        method = timer.blocked_autorange if kind == "blocked" else timer.adaptive_autorange
        m = method(callback=lambda n, s: calls.append((n, s)), **kwargs)
        # the callback sees every block, with its size and time
        assert calls == [(m.number_per_run, s) for s in m.raw_times]
    return m.number_per_run, m.raw_times, clock.reads, clock.tick_count


# (number_per_run, raw_times, clock reads, stmt/setup ticks), recorded from PyTorch
TIMINGS = {'adaptive': (1000,
              [0.0959482192993164, 0.0958261489868164, 0.0959482192993164, 0.0958871841430664],
              26,
              5111),
 'adaptive_exact_max': (1, [0.25, 0.25, 0.25, 0.25, 0.25], 22, 6),
 'adaptive_max': (100,
                  [0.042359352111816406,
                   0.042542457580566406,
                   0.043274879455566406,
                   0.042359352111816406],
                  24,
                  511),
 'adaptive_noisy': (10,
                    [0.0162353515625,
                     0.0006113052368164062,
                     0.0006113052368164062,
                     0.0006113052368164062,
                     0.0006113052368164062],
                    24,
                    61),
 'adaptive_noisy_max': (10,
                        [0.1256103515625,
                         0.0045166015625,
                         0.0631103515625,
                         0.1256103515625,
                         0.0045166015625,
                         0.0631103515625,
                         0.1256103515625,
                         0.0045166015625,
                         0.0631103515625,
                         0.1256103515625,
                         0.0045166015625,
                         0.0631103515625,
                         0.1256103515625,
                         0.0045166015625,
                         0.0631103515625,
                         0.1256103515625,
                         0.0045166015625,
                         0.0631103515625,
                         0.1256103515625,
                         0.0045166015625,
                         0.0631103515625,
                         0.1256103515625,
                         0.0045166015625,
                         0.0631103515625,
                         0.1256103515625,
                         0.0045166015625,
                         0.0631103515625,
                         0.1256103515625,
                         0.0045166015625,
                         0.0631103515625,
                         0.1256103515625],
                        76,
                        321),
 'adaptive_tight': (1000,
                    [0.0762948989868164,
                     0.0762948989868164,
                     0.0762948989868164,
                     0.0762948989868164,
                     0.0762948989868164,
                     0.0762948989868164,
                     0.0762948989868164],
                    32,
                    8111),
 'blocked': (1000,
             [0.061036109924316406,
              0.061036109924316406,
              0.061036109924316406,
              0.061036109924316406],
             26,
             5111),
 'blocked_big': (1, [0.2500009536743164], 14, 2),
 'blocked_exact': (1, [0.2500009536743164, 0.2500009536743164], 16, 3),
 'blocked_min': (1000,
                 [0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406,
                  0.061036109924316406],
                 52,
                 18111),
 'blocked_overhead': (100,
                      [6.2501220703125,
                       6.251953125,
                       6.2509765625,
                       6.250244140625,
                       6.25048828125,
                       6.2501220703125,
                       6.251953125,
                       6.2509765625,
                       6.250244140625,
                       6.25048828125,
                       6.2501220703125,
                       6.251953125,
                       6.2509765625,
                       6.250244140625,
                       6.25048828125,
                       6.2501220703125],
                      48,
                      1711),
 'blocked_zero': (10,
                  [0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625,
                   0.0006103515625],
                  670,
                  3291),
 'timeit': (1000, [0.061036109924316406], 4, 1010),
 'timeit_small': (50, [0.0030527114868164062], 4, 54)}

TIMING_CASES = {
    "timeit": ("timeit", [P], [T], dict(number=1000)),
    "timeit_small": ("timeit", [P], [T], dict(number=50, tick_setup=True)),
    "blocked": ("blocked", [P], [T], {}),
    "blocked_min": ("blocked", [P], [T], dict(min_run_time=1.0)),
    "blocked_big": ("blocked", [P], [2.0 ** -2], {}),
    "blocked_zero": ("blocked", [0.0], [T], {}),
    # stops as soon as the total reaches min_run_time exactly
    "blocked_exact": ("blocked", [P], [2.0 ** -2], dict(min_run_time=2 * (2.0 ** -2 + P))),
    # five different empty-loop times: their median sets the block size (100 runs, not 1000)
    "blocked_overhead": ("blocked", [P, 2.0 ** -10, P, 2.0 ** -12, P, 2.0 ** -11, P, 2.0 ** -13,
                                     P, 2.0 ** -9], [2.0 ** -4], dict(min_run_time=100.0)),
    "adaptive": ("adaptive", [P], [T, 2 * T, T, 3 * T, T, T, 2 * T], {}),
    "adaptive_tight": ("adaptive", [P], [T, T, 2 * T, T], dict(threshold=0.5, min_run_time=0.5)),
    "adaptive_max": ("adaptive", [P], [T, 4 * T, 16 * T], dict(max_run_time=1.0)),
    # threshold 0 is never met: stops on the first total past (not at) max_run_time
    "adaptive_exact_max": ("adaptive", [0.0], [2.0 ** -2], dict(threshold=0.0, max_run_time=1.0)),
    "adaptive_noisy": ("adaptive", [P, 2.0 ** -6, P, P, 2.0 ** -8, P, 2.0 ** -5], [T], {}),
    "adaptive_noisy_max": ("adaptive", [P, 2.0 ** -4, P, 2.0 ** -3, P, 2.0 ** -8], [T],
                           dict(threshold=0.01, max_run_time=2.0)),
}


@pytest.mark.parametrize("name", sorted(TIMING_CASES))
def test_timer_fake_clock(name):
    kind, read_steps, ticks, kwargs = TIMING_CASES[name]
    assert _run(kind, read_steps, ticks, **kwargs) == TIMINGS[name]


def test_timer_namespace_and_task_spec():
    seen = []
    user_globals = {"seen": seen}
    timer = bench.Timer("""
        seen.append(torch)
        seen.append(x)
    """, setup="x = 7", globals=user_globals, label="L", sub_label="S", description="D",
        env="E", num_threads=3)
    m = timer.timeit(number=3)
    assert seen == [nbgrad, 7] * 5                   # 2 warm-up runs, then 3 timed
    assert user_globals == {"seen": seen}            # the caller's dict is left alone
    assert m.task_spec == TS("seen.append(torch)\nseen.append(x)", "x = 7", label="L",
                             sub_label="S", description="D", env="E", num_threads=3)
    assert m.number_per_run == 3 and len(m.raw_times) == 1 and m.raw_times[0] > 0


def test_timer_num_threads_set_and_restored():
    before = nbgrad.get_num_threads()
    try:
        nbgrad.set_num_threads(3)
        seen = []
        timer = bench.Timer("seen.append(torch.get_num_threads())", globals={"seen": seen},
                            timer=FakeClock([P], [T]), num_threads=2)
        timer.timeit(number=4)
        assert set(seen) == {2} and len(seen) == 6
        assert nbgrad.get_num_threads() == 3
        seen.clear()
        timer.blocked_autorange(min_run_time=1e-9)
        assert set(seen) == {2}
        assert nbgrad.get_num_threads() == 3
        failing = bench.Timer("1 / 0", num_threads=1)
        with pytest.raises(ZeroDivisionError):
            failing.timeit(number=1)
        assert nbgrad.get_num_threads() == 3             # restored on the error path too
    finally:
        nbgrad.set_num_threads(before)


def test_timer_errors():
    with pytest.raises(ValueError, match="Currently only a `str` stmt is supported."):
        bench.Timer(lambda: None)
    with pytest.raises(TypeError):
        bench.Timer("pass", setup=lambda: None)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        bench.Timer("pass", global_setup="#include <vector>")
    with pytest.raises(ValueError, match="Invalid language `rust`."):
        bench.Timer("pass", language="rust")
    timer = bench.Timer("pass")
    with pytest.raises(NotImplementedError, match="See `Timer.blocked_autorange.`"):
        timer.repeat()
    with pytest.raises(NotImplementedError, match="See `Timer.blocked_autorange.`"):
        timer.autorange()
    with pytest.raises(NameError):
        bench.Timer("undefined_name").timeit(number=1)
    assert bench.Language.PYTHON.value == 0 and bench.Language.CPP.value == 1


@pytest.mark.skipif(AGAINST_TORCH, reason="nbgrad has no C++ API nor valgrind bindings: these "
                    "raise NotImplementedError on purpose")
def test_timer_cpp_and_callgrind_not_available():
    for language in ("cpp", "c++", bench.Language.CPP):
        with pytest.raises(NotImplementedError, match="C\\+\\+ timing"):
            bench.Timer("int x = 1;", language=language)
    with pytest.raises(NotImplementedError, match="collect_callgrind"):
        bench.Timer("pass").collect_callgrind(10)


def test_timer_real_nbgrad_op():
    x = nbgrad.arange(64, dtype=nbgrad.float32)
    y = nbgrad.ones(64)
    assert (x + y)[5].item() == 6.0
    timer = bench.Timer("x + y", globals={"x": x, "y": y}, label="add", description="64")
    m = timer.blocked_autorange(min_run_time=0.02)
    assert m.median > 0 and m.number_per_run >= 1 and len(m.raw_times) >= 1
    assert sum(m.raw_times) >= 0.02
    assert m.times == [t / m.number_per_run for t in m.raw_times]
    assert m.title == "add" and m.description == "64"
    lines = str(bench.Compare([m])).splitlines()
    assert lines[0].startswith("[") and " add " in lines[0]
    assert [cell.strip() for cell in lines[1].split("|")] == ["", "64"]
    assert lines[2].startswith("1 threads: ") and lines[3].startswith("      x + y  |")
    assert lines[-1] in ("Times are in nanoseconds (ns).", "Times are in microseconds (us).")
    assert bench.timer() > 0
