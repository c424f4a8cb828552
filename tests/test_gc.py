"""`import nbgrad` freezes the process's long-lived objects out of the cyclic GC's walks
(nbgrad/_gc.py): what it freezes, that garbage from before the import is still
collected, that cycles made afterwards still are, and the switch that turns it off.
Each case runs in a fresh interpreter, since the freeze happens once, at import."""
import os
import subprocess
import sys
import textwrap

import pytest

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"

pytestmark = pytest.mark.skipif(AGAINST_TORCH, reason="a subprocess does not see the torch stand-in")


def _run(code, **env):
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, **env))
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_import_freezes_the_long_lived_objects_and_numbas_contexts():
    frozen, tracked, ready = _run("""
        import gc
        import nbgrad
        from numba.core.registry import cpu_target
        print(gc.get_freeze_count(), len(gc.get_objects()), cpu_target._toplevel_target_context is not None)
    """)
    # the package, NumPy and Numba with its typing and target contexts: ~100,000+ objects
    assert int(frozen) > 50_000
    assert int(tracked) < int(frozen) // 10
    assert ready == "True"


def test_the_switch_turns_it_off():
    frozen, = _run("import gc, nbgrad; print(gc.get_freeze_count())", NBGRAD_GC_FREEZE="0")
    assert frozen == "0"


# a dropped reference cycle that only the cyclic collector can free; `ref` sees whether it did
_A_DROPPED_CYCLE = """
        class Cycle:
            pass
        c = Cycle()
        c.me = c
        ref = weakref.ref(c)
        del c
"""


def test_garbage_from_before_the_import_is_collected_not_frozen():
    alive, = _run("""
        import gc, weakref
        gc.disable()                  # so only the import's own collection can free it
""" + _A_DROPPED_CYCLE + """
        import nbgrad
        print(ref() is not None)
    """)
    assert alive == "False"


def test_cycles_made_after_the_import_are_collected_and_graphs_die_by_refcount():
    cycle_alive, graph_alive = _run("""
        import gc, weakref
        import nbgrad
""" + _A_DROPPED_CYCLE + """
        gc.collect()
        x = nbgrad.ones(4, requires_grad=True)
        y = (x * x).tanh().exp()          # tanh and exp save their outputs
        node = weakref.ref(y.grad_fn)
        gc.disable()
        del y
        print(ref() is not None, node() is not None)
    """)
    assert (cycle_alive, graph_alive) == ("False", "False")
