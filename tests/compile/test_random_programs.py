"""The differential tester's random programs, run eagerly and through nbgrad.compile.

Each corpus program (tests/differential/corpus) is cut before its first statement that
raises; its leading `leaf` statements become the arguments, the rest the body.  The body
is captured on a first call and replayed on a second with fresh arguments; the replay must
leave what an eager run leaves: every tensor's values (float64 to 1e-12, float32 to 1e-5,
integers and booleans exactly), shape, strides and version, and the arguments' values,
versions and gradients.  Bodies that read values into Python are refused with
CompileError (counted, not compared).
"""
import contextlib
import os
import warnings

import numpy as np
import pytest

import nbgrad
from tests.differential.corpus import load_corpus
from tests.differential.program import Interpreter, Lib

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="generated njit code")

N_PROGRAMS = int(os.environ.get("NBGRAD_COMPILE_PROGRAMS", "300"))


def _execute(interp, st):
    ctx = nbgrad.no_grad() if st.get("ng") else contextlib.nullcontext()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ctx:
            r = interp._execute(st)
    interp._describe(r, [])


def _split(program):
    """(leaf statements, body statements that run without raising), or None."""
    n_leaves = 0
    while n_leaves < len(program) and program[n_leaves]["k"] == "leaf":
        n_leaves += 1
    interp = Interpreter(Lib("nbgrad"))
    for n, st in enumerate(program):
        try:
            _execute(interp, st)
        except Exception:
            program = program[:n]
            break
    if n_leaves == 0 or len(program) <= n_leaves:
        return None
    return program[:n_leaves], program[n_leaves:]


def _leaves(leaf_statements):
    interp = Interpreter(Lib("nbgrad"))
    for st in leaf_statements:
        _execute(interp, st)
    return interp.vars


def _body(body_statements):
    def body(*leaves):
        interp = Interpreter(Lib("nbgrad"))
        interp.vars = list(leaves)
        for st in body_statements:
            _execute(interp, st)
        return [v.detach() if v.requires_grad else v for v in interp.vars[len(leaves):]]
    return body


def _same(a, b, what):
    assert a.shape == b.shape and a.dtype == b.dtype, what
    assert a.stride() == b.stride(), what
    x, y = a.detach()._host_array(), b.detach()._host_array()
    if a.dtype == nbgrad.float64:
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=what)
    elif a.dtype.is_floating_point:
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(x, y, err_msg=what)


def _programs():
    out = []
    for rec in load_corpus()[:N_PROGRAMS]:
        split = _split(rec["program"])
        if split is not None:
            out.append((rec["seed"], split))
    return out


def test_random_programs_compiled_equal_eager():
    compared, refused, failures = 0, 0, []
    for seed, (leaf_st, body_st) in _programs():
        body = _body(body_st)
        step = nbgrad.compile(body)
        try:
            step(*_leaves(leaf_st))
        except nbgrad.CompileError:
            refused += 1
            continue
        leaves_c, leaves_e = _leaves(leaf_st), _leaves(leaf_st)
        try:
            out_c = step(*leaves_c)
            out_e = body(*leaves_e)
            assert step.captures == 1, f"captured {step.captures} times"
            assert len(out_c) == len(out_e)
            for i, (c, e) in enumerate(zip(out_c, out_e)):
                _same(c, e, f"var {i}")
                assert c._version == e._version, f"var {i} version"
            for i, (c, e) in enumerate(zip(leaves_c, leaves_e)):
                _same(c, e, f"leaf {i}")
                assert c._version == e._version, f"leaf {i} version"
                assert (c.grad is None) == (e.grad is None), f"leaf {i} grad"
                if c.grad is not None:
                    _same(c.grad, e.grad, f"leaf {i} grad")
            compared += 1
        except Exception as exc:       # collected, so that one run shows every class of failure
            failures.append((seed, f"{type(exc).__name__}: {str(exc)[:300]}"))
    print(f"compared {compared}, refused {refused}")
    assert not failures, f"{len(failures)} of {compared + len(failures)} differ:\n" + "\n".join(
        f"seed {s}: {m}" for s, m in failures[:15])
    assert compared >= 0.3 * (compared + refused), (compared, refused)
