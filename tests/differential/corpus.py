"""The committed corpus: programs with PyTorch 2.13's recorded observations.

Regenerate with `python -m tests.differential --record` (needs PyTorch); CI checks
nbgrad against it without PyTorch (tests/differential/test_corpus.py).
"""
import gzip
import json
import os

CORPUS_SEED = 1
CORPUS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "programs.jsonl.gz")


def write_corpus(records, path=CORPUS_PATH):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    import torch
    header = {"reference": f"torch {torch.__version__}", "seed": CORPUS_SEED, "programs": len(records)}
    with gzip.open(path, "wt", compresslevel=9) as f:
        f.write(json.dumps(header) + "\n")
        for rec in records:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")


def load_corpus(path=CORPUS_PATH):
    with gzip.open(path, "rt") as f:
        next(f)
        return [json.loads(line) for line in f]
