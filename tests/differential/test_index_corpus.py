"""nbgrad's indexing against PyTorch 2.13's recorded results (tests/differential/index_fuzz.py:
x[index], setitem, index_put and the gradient through x[index] on 2000 random cases, recorded
in corpus/index_cases.json.gz; no PyTorch needed)."""
import gzip
import json
import os

import pytest

import nbgrad

from .index_fuzz import run_case

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "index_cases.json.gz")
with gzip.open(_PATH, "rt") as _f:
    _CASES = json.load(_f)
_CHUNK = 250


@pytest.mark.parametrize("start", range(0, len(_CASES), _CHUNK))
def test_indexing_matches_pytorchs_recorded_results(start):
    differ = []
    for case in _CASES[start:start + _CHUNK]:
        expected = case["expected"]
        got = run_case(nbgrad, {k: v for k, v in case.items() if k != "expected"})
        if got != expected:
            differ.append(f"{json.dumps({k: v for k, v in case.items() if k != 'expected'})}: PyTorch "
                          f"{json.dumps(expected)[:120]}, nbgrad {json.dumps(got)[:120]}")
    assert not differ, "\n".join(differ[:10])


def test_the_corpus_covers_each_mode_and_some_refusals():
    modes = {case["mode"] for case in _CASES}
    assert modes == {"get", "set_scalar", "set_tensor", "put", "grad"}
    assert sum(case["expected"][0] == "exc" for case in _CASES) > 50
