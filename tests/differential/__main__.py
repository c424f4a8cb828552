"""The differential tester's command line.

    python -m tests.differential --programs 20000 --seed 7        # live against PyTorch
    python -m tests.differential --record                         # regenerate the corpus
    python -m tests.differential --corpus                          # check nbgrad on the corpus
    python -m tests.differential --programs 2000 --seed 7 --shrink 3 --out report.json

Live runs need PyTorch (`pip install torch==2.13.0`); the corpus check does not.
Program k of seed S is generated from the integer S * 1_000_000 + k, so a seed is
a disjoint family of programs; the corpus is seed CORPUS_SEED.
"""
import argparse
import collections
import json
import sys
import time

from .compare import compare, Difference
from .corpus import CORPUS_PATH, CORPUS_SEED, load_corpus, write_corpus
from .program import program_source
from .runner import Pool
from .shrink import shrink


def _gen(worker, seed):
    return worker.run({"id": seed, "mode": "gen", "seed": seed})


def _run(worker, program, lib="nbgrad"):
    return worker.run({"id": 0, "mode": "run", "lib": lib, "program": program})


def generate_records(seeds, jobs):
    """[(seed, program, ref_obs or None, ref_crash_at or None)] from the reference, in workers."""
    pool = Pool(jobs)
    try:
        out = []
        for seed, r in zip(seeds, pool.map(_gen, seeds)):
            if r.get("error"):
                print(f"seed {seed}: tester error {r['error']}", file=sys.stderr)
                continue
            if r.get("crash"):
                out.append({"seed": seed, "program": r["program"], "ref_crash_at": len(r["program"]) - 1})
            else:
                out.append({"seed": seed, "program": r["program"], "obs": r["obs"]})
        return out
    finally:
        pool.close()


def check_record(rec, got):
    """The Difference between a reference record and nbgrad's run result, or None."""
    program = rec["program"]
    if got.get("error"):
        return Difference(None, "tester", got["error"])
    if "ref_crash_at" in rec:
        k = rec["ref_crash_at"]
        if got.get("crash"):
            return Difference(got.get("at"), "crash", "nbgrad crashed where the reference crashed")
        if got["obs"][k]["exc"] is None:
            return Difference(k, "exception", "the reference crashed here; nbgrad raised nothing")
        return None
    if got.get("crash"):
        return Difference(got.get("at"), "crash", f"nbgrad died (exit code {got.get('rc')})")
    return compare(program, rec["obs"], got["obs"])


def run_nbgrad(records, jobs):
    pool = Pool(jobs)
    try:
        return pool.map(lambda w, rec: _run(w, rec["program"]), records)
    finally:
        pool.close()


def report(records, results, shrink_n=0, jobs=2, out=None):
    counts = collections.Counter()
    examples = collections.defaultdict(list)
    for rec, got in zip(records, results):
        d = check_record(rec, got)
        if d is None:
            counts["same"] += 1
            continue
        counts[d.cls] += 1
        examples[d.cls].append((rec, d))
    total = sum(counts.values())
    print(f"{total} programs: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    found = []
    if shrink_n:
        from .runner import Worker
        wt, wn = Worker(), Worker()
        try:
            for cls, exs in examples.items():
                if cls in ("inconclusive", "departure"):
                    continue
                for rec, d in exs[:shrink_n]:
                    small = shrink_one(rec["program"], d.cls, wt, wn)
                    ref = wt.run({"id": 0, "mode": "run", "lib": "torch", "program": small})
                    got = wn.run({"id": 0, "mode": "run", "lib": "nbgrad", "program": small})
                    dd = check_record({"program": small, "obs": ref.get("obs")}, got) if not ref.get("crash") else d
                    src = program_source(small, ref.get("obs"))
                    print(f"\n# --- {cls} (seed {rec['seed']}): {dd}\n{src}")
                    found.append({"cls": cls, "seed": rec["seed"], "program": small, "difference": repr(dd),
                                  "source": src})
        finally:
            wt.close()
            wn.close()
    if out:
        with open(out, "w") as f:
            json.dump({"counts": dict(counts), "shrunk": found,
                       "all": {cls: [[rec["seed"], repr(d)] for rec, d in exs] for cls, exs in examples.items()}},
                      f, indent=1)
    return counts, examples


def shrink_one(program, cls, wt, wn):
    def record(p):
        r = wt.run({"id": 0, "mode": "run", "lib": "torch", "program": p})
        return r.get("obs") or []

    def differs(p):
        ref = wt.run({"id": 0, "mode": "run", "lib": "torch", "program": p})
        if ref.get("crash") or ref.get("error"):
            return False
        got = wn.run({"id": 0, "mode": "run", "lib": "nbgrad", "program": p})
        d = check_record({"program": p, "obs": ref["obs"]}, got)
        return d is not None and d.cls == cls
    return shrink(program, record, differs)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tests.differential")
    ap.add_argument("--programs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--shrink", type=int, default=0, help="shrink this many examples of each class")
    ap.add_argument("--record", action="store_true", help=f"regenerate the corpus ({CORPUS_PATH})")
    ap.add_argument("--corpus", action="store_true", help="check nbgrad against the corpus")
    ap.add_argument("--out", help="write a JSON report here")
    ap.add_argument("--only", help="comma-separated program seeds to run (with --shrink: to reproduce)")
    ap.add_argument("--update-known", action="store_true",
                    help="with --corpus: rewrite corpus/known_differences.json from this run")
    args = ap.parse_args(argv)
    t0 = time.time()
    if args.record:
        seeds = [CORPUS_SEED * 1_000_000 + k for k in range(args.programs if args.programs != 1000 else 3000)]
        records = generate_records(seeds, args.jobs)
        write_corpus(records)
        print(f"wrote {len(records)} programs to {CORPUS_PATH} in {time.time() - t0:.0f} s")
        return 0
    if args.corpus:
        records = load_corpus()
    else:
        seeds = ([int(x) for x in args.only.split(",")] if args.only
                 else [args.seed * 1_000_000 + k for k in range(args.programs)])
        records = generate_records(seeds, args.jobs)
        print(f"generated and recorded {len(records)} programs in {time.time() - t0:.0f} s")
    results = run_nbgrad(records, args.jobs)
    counts, examples = report(records, results, args.shrink, args.jobs, args.out)
    if args.corpus and args.update_known:
        from .test_corpus import KNOWN_PATH
        known = {str(rec["seed"]): f"{d.cls} at statement {d.stmt}" for cls, exs in sorted(examples.items())
                 if cls not in ("inconclusive", "departure") for rec, d in exs}
        with open(KNOWN_PATH, "w") as f:
            json.dump(dict(sorted(known.items(), key=lambda kv: int(kv[0]))), f, indent=0)
            f.write("\n")
        print(f"wrote {len(known)} known differences to {KNOWN_PATH}")
    print(f"done in {time.time() - t0:.0f} s")
    return 0 if set(counts) <= {"same", "inconclusive", "departure"} else 1


if __name__ == "__main__":
    sys.exit(main())
