"""The CPU generator's draws (backends/cpu/sampling.py), against independent references.

The state is Numba's Mersenne Twister, seeded as the reference MT19937 (init_genrand) --
which NumPy's legacy RandomState(seed) also is.  Its uniform, integer and permutation
draws take the words in the same order and form values the same way, so RandomState is
an exact reference for them, across the state's 624-word blocks and from call to call.
Normal draws are nbgrad's own Box-Muller transform: checked by their distribution, their
repeatability and by their float64 and float32 forms agreeing.
"""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import nbgrad

# sizes crossing the 624-word blocks: a double takes two words, a block gives 312
SIZES = (1, 2, 311, 312, 313, 623, 624, 625, 1000, 4999)


@pytest.mark.parametrize("seed", [0, 7, 2**32 - 1])
def test_float64_uniforms_are_random_states(seed):
    nbgrad.manual_seed(seed)
    reference = np.random.RandomState(seed)
    for n in SIZES:
        got = nbgrad.rand(n, dtype=nbgrad.float64).numpy()
        np.testing.assert_array_equal(got, reference.random_sample(n))
    got = nbgrad.empty(777, dtype=nbgrad.float64).uniform_(-2.0, 3.0).numpy()
    np.testing.assert_array_equal(got, -2.0 + 5.0 * reference.random_sample(777))


def _float32_uniforms(reference, n, low, high):
    """float32(low + (high - low) * u), u drawn again while the rounded value reaches high."""
    out = np.empty(n, np.float32)
    for i in range(n):
        while True:
            out[i] = np.float32(low + (high - low) * reference.random_sample())
            if not out[i] >= high:
                break
    return out


def test_float32_uniforms_draw_again_where_they_round_to_high():
    # between 1 and the next float32 above it about half the draws round up to `high`:
    # each is drawn again, taking the next two words, as a loop of np.random.random() would
    low, high = 1.0, 1.0000001
    nbgrad.manual_seed(3)
    reference = np.random.RandomState(3)
    for n in (5, 700, 1500):
        got = nbgrad.empty(n).uniform_(low, high).numpy()
        np.testing.assert_array_equal(got, _float32_uniforms(reference, n, low, high))
        assert (got == np.float32(1.0)).all()
    np.testing.assert_array_equal(nbgrad.rand(2000).numpy(), _float32_uniforms(reference, 2000, 0.0, 1.0))


@pytest.mark.parametrize("low, high", [(0, 10), (-5, 2**40), (0, 2**33 + 7), (3, 4), (0, 2**31 - 1)])
def test_integers_are_random_states(low, high):
    nbgrad.manual_seed(11)
    reference = np.random.RandomState(11)
    for n in SIZES:
        got = nbgrad.randint(low, high, (n,)).numpy()
        np.testing.assert_array_equal(got, reference.randint(low, high, n, dtype=np.int64))
    np.testing.assert_array_equal(nbgrad.rand(9, dtype=nbgrad.float64).numpy(), reference.random_sample(9))


def test_integers_over_the_whole_int64_range():
    # (high - low overflows int64: Numba's own randint raised "empty range" there)
    nbgrad.manual_seed(2)
    a = nbgrad.randint(-2**63, 2**63 - 1, (4000,)).numpy()
    assert (a < 2**63 - 1).all()
    assert (a < 0).sum() > 1800 and (a > 0).sum() > 1800
    assert np.unique(a).size == a.size


@pytest.mark.parametrize("n", [1, 2, 3, 313, 1000, 70000])
def test_permutations_are_random_states(n):
    nbgrad.manual_seed(5)
    reference = np.random.RandomState(5)
    np.testing.assert_array_equal(nbgrad.randperm(n).numpy(), reference.permutation(n))
    np.testing.assert_array_equal(nbgrad.randperm(n).numpy(), reference.permutation(n))


def _normal_cdf(x):
    return 0.5 * (1.0 + np.array([math.erf(v / math.sqrt(2.0)) for v in x]))


@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64])
def test_normals_are_standard_normal(dtype):
    nbgrad.manual_seed(99)
    x = nbgrad.randn(400_000, dtype=dtype).numpy().astype(np.float64)
    assert np.isfinite(x).all()
    assert abs(x.mean()) < 5 * 400_000 ** -0.5
    assert abs(x.std() - 1.0) < 0.005
    # 40 bins over [-4, 4]: chi-square against the normal probabilities (99.99th percentile of
    # chi2 with 40 degrees of freedom: 80)
    edges = np.linspace(-4.0, 4.0, 41)
    counts, _ = np.histogram(x, edges)
    expected = np.diff(_normal_cdf(edges)) * x.size
    assert ((counts - expected) ** 2 / expected).sum() < 80
    # neighbours, and the two values of a Box-Muller pair (half a block apart: 156 float64
    # values, 312 float32), uncorrelated, their squares too (the pair shares its radius)
    for lag in (1, 156, 312):
        assert abs(np.corrcoef(x[:-lag], x[lag:])[0, 1]) < 0.01
        assert abs(np.corrcoef(x[:-lag] ** 2, x[lag:] ** 2)[0, 1]) < 0.01


def test_normals_repeat_and_the_two_dtypes_agree():
    sizes = (1, 2, 3, 15, 17, 155, 156, 157, 313, 1000, 5001)
    nbgrad.manual_seed(21)
    first = [nbgrad.randn(n).numpy() for n in sizes]
    nbgrad.manual_seed(21)
    again = [nbgrad.randn(n).numpy() for n in sizes]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    # float64 draws take two words a uniform, float32 draws one: different values, the same law
    nbgrad.manual_seed(21)
    wide = nbgrad.normal(2.0, 3.0, (100_000,), dtype=nbgrad.float64).numpy()
    nbgrad.manual_seed(21)
    narrow = nbgrad.empty(100_000).normal_(2.0, 3.0).numpy()
    for a in (wide, narrow):
        assert abs(a.mean() - 2.0) < 0.05 and abs(a.std() - 3.0) < 0.05


def test_the_state_round_trips_through_normal_draws():
    nbgrad.manual_seed(8)
    nbgrad.randn(7)
    state = nbgrad.get_rng_state()
    a = nbgrad.randn(1001).numpy()
    b = nbgrad.rand(5).numpy()
    nbgrad.set_rng_state(state)
    np.testing.assert_array_equal(nbgrad.randn(1001).numpy(), a)
    np.testing.assert_array_equal(nbgrad.rand(5).numpy(), b)


PLAIN_PYTHON_DRAWS = """
import json, numpy as np, nbgrad
nbgrad.manual_seed(11)
out = {"u32": nbgrad.rand(700).numpy().view(np.int32).tolist(),
       "u64": nbgrad.rand(5, dtype=nbgrad.float64).numpy().view(np.int64).tolist(),
       "int": nbgrad.randint(-3, 2**40, (650,)).numpy().tolist(), "perm": nbgrad.randperm(30).numpy().tolist(),
       "n32": nbgrad.randn(701).numpy().view(np.int32).tolist(),
       "n64": nbgrad.randn(333, dtype=nbgrad.float64).numpy().view(np.int64).tolist()}
print(json.dumps(out))
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="compares compiled draws with plain Python")
def test_plain_python_kernels_draw_the_same_values():
    import json
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    results = []
    for disable in ("1", "0"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable)
        proc = subprocess.run([sys.executable, "-c", PLAIN_PYTHON_DRAWS], env=env, cwd=root,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert results[0] == results[1]
