"""Print median times of the core workloads for nbgrad and NumPy, measured interleaved.

    python benchmarks/core_table.py [--repeats 7]

Each sample times enough back-to-back calls to last about 0.1 s; nbgrad's and
NumPy's samples alternate, so that a noisy shared machine slows both alike.
The last column is nbgrad's median over NumPy's (below 1: nbgrad is faster).
"""
import argparse
import pathlib
import statistics
import sys
import time


def calls_per_sample(function, arguments, target_seconds=0.1):
    start = time.perf_counter()
    function(*arguments)
    once = time.perf_counter() - start
    return max(1, min(100, round(target_seconds / max(once, 1e-9))))


def seconds_per_call(function, arguments, number):
    start = time.perf_counter()
    for _ in range(number):
        function(*arguments)
    return (time.perf_counter() - start) / number


def measure(workload, libraries, repeats):
    """Median seconds per call for each library, samples interleaved."""
    arguments = {library: workload.inputs(library) for library in libraries}
    for library in libraries:  # compile (or load from the cache) before timing
        workload.function(library)(*arguments[library])
    number = {library: calls_per_sample(workload.function(library), arguments[library])
              for library in libraries}
    samples = {library: [] for library in libraries}
    for _ in range(repeats):
        for library in libraries:
            samples[library].append(
                seconds_per_call(workload.function(library), arguments[library], number[library]))
    return {library: statistics.median(times) for library, times in samples.items()}


def main(argv=None):
    from benchmarks.workloads import LIBRARIES, WORKLOADS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="samples per library (at least 5)")
    repeats = max(5, parser.parse_args(argv).repeats)

    print(f"median of {repeats} interleaved samples, milliseconds per call\n")
    print(f"{'workload':40} {'nbgrad':>10} {'numpy':>10} {'nbgrad/numpy':>13}")
    rows = {}
    for name, workload in WORKLOADS.items():
        medians = measure(workload, LIBRARIES, repeats)
        rows[name] = medians
        ratio = medians["nbgrad"] / medians["numpy"]
        print(f"{workload.description:40} {medians['nbgrad'] * 1e3:10.3f} "
              f"{medians['numpy'] * 1e3:10.3f} {ratio:13.2f}", flush=True)
    return rows


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # make `benchmarks` importable
    main()
