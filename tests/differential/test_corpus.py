"""nbgrad against PyTorch 2.13's recorded behaviour on the committed corpus of random
programs (tests/differential/corpus/programs.jsonl.gz; no PyTorch needed).

Each program is run in this process and compared statement by statement with the
reference record (tests/differential/compare.py says how).  Programs that still
differ are listed in KNOWN_DIFFERENCES with the class of their first difference:
they are expected to fail (strictly: a fixed one must be taken off the list), so the
list is the record of what is still open.
"""
import json
import os

import pytest

from .compare import compare
from .corpus import CORPUS_PATH, load_corpus
from .program import Interpreter, Lib

KNOWN_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "known_differences.json")

_RECORDS = load_corpus() if os.path.exists(CORPUS_PATH) else []
_KNOWN = json.load(open(KNOWN_PATH)) if os.path.exists(KNOWN_PATH) else {}
_CHUNK = 100


def _check_in_subprocess(rec):
    """A program known to crash nbgrad runs in a worker process, so the suite survives it."""
    from .__main__ import check_record
    from .runner import Worker
    w = Worker()
    try:
        got = w.run({"id": 0, "mode": "run", "lib": "nbgrad", "program": rec["program"]})
    finally:
        w.close()
    d = check_record(rec, got)
    return None if d is None else ("inconclusive" if d.cls in ("inconclusive", "departure") else repr(d))


def _check(rec, lib):
    if _KNOWN.get(str(rec["seed"]), "").startswith("crash"):
        return _check_in_subprocess(rec)
    program = rec["program"]
    interp = Interpreter(lib)
    if "ref_crash_at" in rec:
        # PyTorch crashed on this statement; nbgrad must raise a clear error there
        k = rec["ref_crash_at"]
        got = interp.run(program[:k + 1])
        return None if got[k]["exc"] else f"the reference crashed at statement {k}; nbgrad raised nothing"
    got = interp.run(program)
    d = compare(program, rec["obs"], got)
    return None if d is None else ("inconclusive" if d.cls in ("inconclusive", "departure") else repr(d))


def test_corpus_is_large_enough():
    assert len(_RECORDS) >= 3000


@pytest.mark.parametrize("start", range(0, max(len(_RECORDS), 1), _CHUNK))
def test_corpus_chunk(start):
    """A chunk of programs: each must match PyTorch, except the known differences, which
    must still differ (so that the list cannot go stale)."""
    lib = Lib("nbgrad")
    unexpected, fixed = [], []
    for rec in _RECORDS[start:start + _CHUNK]:
        d = _check(rec, lib)
        if d == "inconclusive":       # (or a named departure: compare.IGNORED)
            # a decision flipped within tolerance (another CPU's last bits): neither a
            # difference nor a proof of a fix
            continue
        known = _KNOWN.get(str(rec["seed"]))
        if d is not None and known is None:
            unexpected.append(f"seed {rec['seed']}: {d}")
        elif d is None and known is not None:
            fixed.append(f"seed {rec['seed']} ({known})")
    msg = []
    if unexpected:
        msg.append("programs that differ from PyTorch's record (python -m tests.differential --corpus "
                   "--shrink 1 gives minimal reproductions):\n  " + "\n  ".join(unexpected))
    if fixed:
        msg.append("programs now equal to PyTorch's record: take them off "
                   "tests/differential/corpus/known_differences.json:\n  " + "\n  ".join(fixed))
    assert not msg, "\n".join(msg)
