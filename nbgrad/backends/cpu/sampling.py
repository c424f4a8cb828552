"""Random numbers from Numba's generator state, drawn in blocks.

The state is Numba's own (np.random inside njit): one Mersenne Twister per thread,
`rnd_state_t` in numba/_random.c -- an int index, the 624 words, a cached Gaussian
draw with its flag, an init flag.  `manual_seed` seeds it as np.random.seed does
(numba_rnd_init; so does NumPy's legacy RandomState(seed): tests/backends/test_sampling.py
checks the draws against it), and get_rng_state / set_rng_state copy its bytes.  The
kernels here read and advance that state through its address, as Numba's np.random
functions do one word at a time, but a block of words per pass: a uniform or integer
draw, and randperm, take the very words and give the very values that np.random.random(),
np.random.randint() and np.random.permutation() would, ~5-10x faster (1M elements, ms,
before -> now, torch: rand 8.3 -> 1.6, 3.2; randint 17.5 -> 2.0, 3.7; randperm 17.9 -> 6.1,
12.1).  Normal draws are a Box-Muller transform of pairs of those uniforms (float32: one
word a uniform and float32 arithmetic, as PyTorch's float normal_), branch-free so that
a block vectorises (randn 25 -> 1.3, torch 4.0): not Numba's polar method, so its values
are not np.random.standard_normal's (they never were PyTorch's).
"""
import ctypes

import numpy as np
from numba import _helperlib, carray, config
from numba.extending import register_jitable

from .._shared import cpu_kernel
from .._shared.fast_math import (_F, _MAGIC_D, _MAGIC_D_BITS, _MAGIC_F, _MAGIC_F_BITS, _by_float_type, _float_bits,
                                 _fma, _log_f32, _log_f64, _overload_by_float_type, _wide_vectors)
from .._shared.native import address_as
from ._allocator import new_buffer

_kernel = cpu_kernel()

_N = 624                # the Mersenne Twister's words (MT19937)
_STATE_WORDS = 630      # rnd_state_t as uint32: index, mt[624], has_gauss, gauss (2), is_initialized


@register_jitable
def _twist(mt):
    """The next 624 words in place: numba_rnd_shuffle in numba/_random.c."""
    for i in range(227):
        y = (mt[i] & 0x80000000) | (mt[i + 1] & 0x7FFFFFFF)
        mt[i] = mt[i + 397] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
    for i in range(227, 623):
        y = (mt[i] & 0x80000000) | (mt[i + 1] & 0x7FFFFFFF)
        mt[i] = mt[i - 227] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
    y = (mt[623] & 0x80000000) | (mt[0] & 0x7FFFFFFF)
    mt[623] = mt[396] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)


@register_jitable
def _temper(word):
    """The output word of state word `word` (Numba's get_next_int32), as an int64."""
    y = np.int64(word)
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y


@register_jitable
def _unspent(mt, idx):
    """idx, or 0 after twisting the next 624 words in when idx has spent them (as Numba's
    get_next_int32 does before each word)."""
    if idx >= _N:
        _twist(mt)
        return 0
    return idx


@register_jitable
def _word(mt, idx):
    """(the next output word, the index after it)."""
    idx = _unspent(mt, idx)
    return _temper(mt[idx]), idx + 1


@register_jitable
def _unit(w0, w1):
    """np.random.random() of two output words: 53 random bits over 2**53, in [0, 1)."""
    return (np.float64(w0 >> 5) * 67108864.0 + np.float64(w1 >> 6)) / 9007199254740992.0


@register_jitable
def _state(address):
    """The words of the state at `address` (uint32 view) and its index."""
    words = carray(address_as(address, np.uint32), _STATE_WORDS)
    return words, words[1:_N + 1], np.int64(words[0])


def _py_state(address):
    """_state in plain Python (NUMBA_DISABLE_JIT=1: address_as is an LLVM cast): a NumPy view."""
    words = np.ctypeslib.as_array((ctypes.c_uint32 * _STATE_WORDS).from_address(address))
    return words, words[1:_N + 1], np.int64(words[0])


if config.DISABLE_JIT:
    _state = _py_state


@_kernel
def _seed(address, seed):
    """np.random.seed(seed) inside njit (numba_rnd_init: Knuth's initialisation of the
    reference Mersenne Twister), written here so that it also seeds this state as plain
    Python (NUMBA_DISABLE_JIT=1 would run np.random.seed on NumPy's own generator)."""
    words, mt, _ = _state(address)
    s = seed & 0xFFFFFFFF
    for pos in range(_N):
        mt[pos] = s
        s = (1812433253 * (s ^ (s >> 30)) + pos + 1) & 0xFFFFFFFF
    words[0] = _N                       # spent: the first draw twists
    words[_N + 1] = 0                   # no cached Gaussian draw (has_gauss, gauss)
    words[_N + 2] = 0
    words[_N + 3] = 0
    words[_N + 4] = 1                   # initialised


@_kernel
def _uniform(address, out, low, high):
    """out[i] = low + (high - low) * np.random.random(), drawn again while it rounds to `high`,
    exactly as the loop of np.random.random() calls would (same words, same values)."""
    words, mt, idx = _state(address)
    span = high - low
    redraw = high > low
    n = out.size
    i = 0
    while i < n:
        idx = _unspent(mt, idx)
        k = min((_N - idx) // 2, n - i)
        if k == 0:                      # the last word of a block and the first of the next
            w0, idx = _word(mt, idx)
            w1, idx = _word(mt, idx)
            out[i] = low + span * _unit(w0, w1)
            if not (redraw and out[i] >= high):
                i += 1
            continue
        block = mt[idx:]                # (slices indexed by the range variable: Numba drops its
        dest = out[i:]                  # negative-index wraparound, and the loop vectorises: a
                                        # word 1.6 -> 0.35 ns against mt[idx + 2 * j])
        for j in range(k):
            dest[j] = low + span * _unit(_temper(block[2 * j]), _temper(block[2 * j + 1]))
        used = k
        if redraw:
            for j in range(k):
                if dest[j] >= high:     # this draw is spent; element i + j draws again
                    used = j
                    break
        if used < k:
            idx += 2 * used + 2
        else:
            idx += 2 * k
        i += used
    words[0] = idx


@register_jitable
def _below(mt, idx, bound, nbits):
    """(np.random.randint(0, bound)'s value, the index after its words): the low `nbits` bits
    of one output word (two: the high word first) until the value is below `bound`, as
    Numba's _randrange_impl draws them."""
    while True:
        if nbits <= 32:
            w, idx = _word(mt, idx)
            r = w & (0xFFFFFFFF >> (32 - nbits))
        else:
            hi, idx = _word(mt, idx)
            lo, idx = _word(mt, idx)
            r = lo + ((hi & (0xFFFFFFFF >> (64 - nbits))) << 32)
        if r < bound:
            return r, idx


@register_jitable
def _bits_for(bound):
    """The bits Numba draws for a value below bound (> 1): those of bound - 1."""
    nbits = 0
    v = bound - 1
    while v:
        nbits += 1
        v >>= 1
    return nbits


@register_jitable
def _tempered(mt, idx, buf):
    """buf[:624 - idx] = the output words of the state's words idx.. (a loop that vectorises)."""
    block = mt[idx:]
    for j in range(_N - idx):
        buf[j] = _temper(block[j])


@_kernel
def _randint(address, out, low, high):
    """out[i] = np.random.randint(low, high), the same words and values.  The words of a
    block are tempered first; then each draw reads the next (two when the range needs more
    than 32 bits), stores low + value, and moves on only when the value is in range (no
    branch to mispredict: a rejected value's store is overwritten by the next draw)."""
    words, mt, idx = _state(address)
    n = out.size
    bound = high - low                  # (below 2**63: randint takes wider ranges itself)
    if bound == 1:
        for i in range(n):              # (one value: Numba draws no word)
            out[i] = low
        return
    nbits = _bits_for(bound)
    wide = nbits > 32
    mask = 0xFFFFFFFF >> (64 - nbits) if wide else 0xFFFFFFFF >> (32 - nbits)
    buf = np.empty(_N, np.int64)
    i = 0
    while i < n:
        idx = _unspent(mt, idx)
        if wide and idx == _N - 1:      # a draw's two words across two blocks
            r, idx = _below(mt, idx, bound, nbits)
            out[i] = low + r
            i += 1
            continue
        _tempered(mt, idx, buf)
        avail = _N - idx
        p = 0
        if wide:
            while p + 1 < avail and i < n:
                r = buf[p + 1] + ((buf[p] & mask) << 32)
                p += 2
                out[i] = low + r
                i += r < bound
        else:
            while p < avail and i < n:
                r = buf[p] & mask
                p += 1
                out[i] = low + r
                i += r < bound
        idx += p
    words[0] = idx


@_kernel
def _randperm(address, n):
    """np.random.permutation(n): arange(n) shuffled from the end (Fisher-Yates), the same words
    (read from tempered blocks, as _randint's)."""
    words, mt, idx = _state(address)
    x = np.arange(n)
    buf = np.empty(_N, np.int64)
    i = n - 1
    while i > 0:
        bound = i + 1
        nbits = _bits_for(bound)
        if nbits > 32:                  # (a permutation of over 2**32 elements)
            r, idx = _below(mt, idx, bound, nbits)
            x[i], x[r] = x[r], x[i]
            i -= 1
            continue
        idx = _unspent(mt, idx)
        _tempered(mt, idx, buf)
        avail = _N - idx
        p = 0
        mask = 0xFFFFFFFF >> (32 - nbits)
        while p < avail and i > 0:
            r = buf[p] & mask
            p += 1
            if r <= i:
                x[i], x[r] = x[r], x[i]
                i -= 1
                if i <= mask >> 1:      # i + 1 needs a bit less: recompute them
                    break
        idx += p
    words[0] = idx
    return x


# sin and cos on [-pi/4, pi/4]: fdlibm's __kernel_sin / __kernel_cos polynomials (float64) and
# Cephes' sinf / cosf (float32)
_S1, _S2, _S3 = -1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04
_S4, _S5, _S6 = 2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10
_C1, _C2, _C3 = 4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05
_C4, _C5, _C6 = -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11
_SF1, _SF2, _SF3 = _F(-1.6666654611e-1), _F(8.3321608736e-3), _F(-1.9515295891e-4)
_CF1, _CF2, _CF3 = _F(4.166664568298827e-2), _F(-1.388731625493765e-3), _F(2.443315711809948e-5)
_TWO_PI = 6.283185307179586
_TWO_PI_F = _F(_TWO_PI)


@register_jitable
def _quadrant(s, c, q):
    """(sin, cos) of q * pi/2 + x from (sin x, cos x)."""
    swap = (q & 1) != 0
    sin_q = c if swap else s
    cos_q = s if swap else c
    sin_q = -sin_q if (q & 2) != 0 else sin_q
    cos_q = -cos_q if ((q + 1) & 2) != 0 else cos_q
    return sin_q, cos_q


@register_jitable
def _radius(u):
    """Box-Muller's radius sqrt(-2 log(1 - u)) of a uniform u in [0, 1) (1 - u in (0, 1]: exact,
    never log(0))."""
    return np.sqrt(-2.0 * _log_f64(1.0 - u))


@register_jitable
def _sincos_turns(u):
    """(sin, cos) of the angle 2*pi*u, u in [0, 1): reduced in turns (u - q/4, exact) to
    [-pi/4, pi/4] and its quadrant q; no libm call, no branch."""
    t = _fma(u, 4.0, _MAGIC_D)                       # q = round(4 * u) without a float->int
    q = _float_bits(t) - _MAGIC_D_BITS               # conversion (AVX2 has none for float64)
    x = (u - (t - _MAGIC_D) * 0.25) * _TWO_PI
    z = x * x
    s = x + x * z * (_S1 + z * (_S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))))
    c = 1.0 - 0.5 * z + z * z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * _C6)))))
    return _quadrant(s, c, q)


@register_jitable
def _radius_f32(u):
    """_radius in float32 arithmetic."""
    return np.sqrt(_F(-2.0) * _log_f32(_F(1.0) - u))


@register_jitable
def _sincos_turns_f32(u):
    """_sincos_turns in float32 arithmetic."""
    t = _fma(u, _F(4.0), _MAGIC_F)
    q = _float_bits(t) - _MAGIC_F_BITS
    x = (u - (t - _MAGIC_F) * _F(0.25)) * _TWO_PI_F
    z = x * x
    s = x + x * z * (_SF1 + z * (_SF2 + z * _SF3))
    c = _F(1.0) - _F(0.5) * z + z * z * (_CF1 + z * (_CF2 + z * _CF3))
    return _quadrant(s, c, q)


def _radius_of(u):
    """_radius or _radius_f32 by u's type (at compile time: the overload below)."""
    return _by_float_type(u, _radius_f32, _radius, None)


def _sincos_of(u):
    """_sincos_turns or _sincos_turns_f32 by u's type."""
    return _by_float_type(u, _sincos_turns_f32, _sincos_turns, None)


_overload_by_float_type(_radius_of, _radius_f32, _radius, None)
_overload_by_float_type(_sincos_of, _sincos_turns_f32, _sincos_turns, None)


@register_jitable
def _box_muller(uniforms, half, first, second, mean, std):
    """first[j], second[j] = mean + std * the pair (uniforms[j], uniforms[half + j]) gives, in
    the uniforms' float type; three loops (radii in place, then angles and stores) that
    vectorise, where one loop of both did not (~8x slower)."""
    radius = uniforms[:half]
    for j in range(half):
        radius[j] = _radius_of(radius[j])
    turns = uniforms[half:]
    for j in range(half):
        sin_t, cos_t = _sincos_of(turns[j])
        first[j] = mean + std * (radius[j] * cos_t)
        second[j] = mean + std * (radius[j] * sin_t)


@register_jitable
def _gauss_pair(u1, u2):
    """Box-Muller: two independent standard normals from two uniforms in [0, 1) (float64)."""
    radius = _radius(u1)
    sin_t, cos_t = _sincos_turns(u2)
    return radius * cos_t, radius * sin_t


@register_jitable
def _gauss_pair_f32(u1, u2):
    """_gauss_pair in float32 arithmetic (float32 uniforms of 24 bits, as PyTorch's float normal_
    draws them): 16 lanes a vector, no division; ~1e-7 relative, a float32's own rounding."""
    radius = _radius_f32(u1)
    sin_t, cos_t = _sincos_turns_f32(u2)
    return radius * cos_t, radius * sin_t


@register_jitable
def _unit_f32(w):
    """A float32 uniform in [0, 1) from one output word: its top 24 bits over 2**24."""
    return _F(w >> 8) * _F(5.9604644775390625e-08)


@_kernel
def _normal(address, out, mean, std, single):
    """out[i] = mean + std * z, z standard normal.  Each block of the state's words becomes
    uniforms u (float64: two words each, as np.random.random(); single, for a float32 out:
    one word each, float32 arithmetic throughout), then the pairs (u[j], u[half + j]) give
    out[i + j] and out[i + half + j]; a pair across two blocks (and an odd last element's
    pair, half of it unused) is drawn word by word."""
    _wide_vectors()
    words, mt, idx = _state(address)
    per = 1 if single else 2            # words a uniform
    u = np.empty(0 if single else _N // 2)      # (the uniforms of a block: float64, or float32
    v = np.empty(_N if single else 0, np.float32)   # for a float32 out)
    mean_f, std_f = _F(mean), _F(std)
    n = out.size
    i = 0
    while i < n:
        idx = _unspent(mt, idx)
        half = min((_N - idx) // (2 * per), (n - i) // 2)
        if half == 0:
            w0, idx = _word(mt, idx)
            w1, idx = _word(mt, idx)
            if single:
                z0, z1 = _gauss_pair_f32(_unit_f32(w0), _unit_f32(w1))
                out[i] = mean_f + std_f * z0
                if i + 1 < n:
                    out[i + 1] = mean_f + std_f * z1
            else:
                w2, idx = _word(mt, idx)
                w3, idx = _word(mt, idx)
                z0, z1 = _gauss_pair(_unit(w0, w1), _unit(w2, w3))
                out[i] = mean + std * z0
                if i + 1 < n:
                    out[i + 1] = mean + std * z1
            i += 2
            continue
        block = mt[idx:]                # (slices indexed from 0: as in _uniform)
        if single:
            for j in range(2 * half):
                v[j] = _unit_f32(_temper(block[j]))
            _box_muller(v, half, out[i:], out[i + half:], mean_f, std_f)
        else:
            for j in range(2 * half):
                u[j] = _unit(_temper(block[2 * j]), _temper(block[2 * j + 1]))
            _box_muller(u, half, out[i:], out[i + half:], mean, std)
        idx += 2 * per * half
        i += 2 * half
    words[0] = idx


def _address():
    """The calling thread's state (Numba initialises it from system entropy on first use)."""
    return _helperlib.rnd_get_np_state_ptr()


def manual_seed(seed):
    # Numba's seed takes a uint32.
    _seed(_address(), int(seed) & 0xFFFFFFFF)


def uniform(numel, dtype, low, high):
    if np.dtype(dtype).kind != "f":     # (the redraw of values that round to `high` would never end)
        raise TypeError(f"uniform draws are of floats, not {np.dtype(dtype)}")
    out = new_buffer(numel, dtype)      # (PyTorch's RuntimeError when memory runs out)
    if numel:
        _uniform(_address(), out, float(low), float(high))
    return out


def normal(numel, dtype, mean, std):
    out = new_buffer(numel, dtype)      # (PyTorch's RuntimeError when memory runs out)
    if numel:
        _normal(_address(), out, float(mean), float(std), out.dtype == np.float32)
    return out


def randint(numel, dtype, low, high):
    out = new_buffer(numel, dtype)      # (PyTorch's RuntimeError when memory runs out)
    low, high = int(low), int(high)
    if numel and high - low >= 1 << 63:
        out[:] = _wide_randint(numel, low, high)
    elif numel:
        _randint(_address(), out, low, high)
    return out


def _wide_randint(numel, low, high):
    """randint over 2**63 values or more (int64's whole range: Numba's own randint raised
    "empty range" there, its difference overflowing).  64 bits a draw (the high word first,
    each word a draw below 2**32, which takes exactly one word), drawn again while not below
    the range's size.  Rejection keeps the draws that pass, in order, so rounds of exactly
    the draws still missing take the same words as one draw after another would."""
    span = high - low
    found = []
    missing = numel
    while missing:
        words = np.empty(2 * missing, np.int64)
        _randint(_address(), words, 0, 1 << 32)
        r = (words[0::2].astype(np.uint64) << np.uint64(32)) | words[1::2].astype(np.uint64)
        if span < 1 << 64:
            r = r[r < np.uint64(span)]
        found.append(r)
        missing -= r.size
    values = np.concatenate(found)
    # low + r modulo 2**64, as int64 bits (no signed overflow in NumPy's unsigned sum)
    return (np.uint64(low % (1 << 64)) + values).view(np.int64)


def randperm(n):
    return _randperm(_address(), int(n)).astype(np.int64, copy=False)


# The generator's whole state, as bytes: Numba's rnd_state_t of this thread (the Mersenne
# Twister's index and 624 words, the cached Gaussian draw and its flag, the init flag).
_STATE_SIZE = 2520      # sizeof(rnd_state_t): int + 624 uint32 + int, double (8-aligned) + int, padded


def get_rng_state():
    """A copy of the generator's state (uint8 buffer)."""
    return np.frombuffer(ctypes.string_at(_address(), _STATE_SIZE), dtype=np.uint8).copy()


def set_rng_state(state):
    """Restore a state get_rng_state returned (uint8 buffer of its size)."""
    state = np.ascontiguousarray(state, dtype=np.uint8)
    if state.size != _STATE_SIZE:
        raise RuntimeError(f"Expected an RNG state of size {_STATE_SIZE} but found the input RNG state size to be "
                           f"{state.size}")
    ctypes.memmove(_address(), state.ctypes.data, _STATE_SIZE)
