"""More of PyTorch's random API: get_rng_state / set_rng_state (the CPU generator's whole
state as a uint8 tensor: restoring it repeats the same draws), the in-place samplers
geometric_, log_normal_, cauchy_, and poisson / binomial.  Draws come from nbgrad's own
generator (Numba's Mersenne Twister), so values differ from PyTorch's stream; the
distributions are the same (tests check them statistically)."""
import math

from . import _dtype as D
from ._tensor import Tensor
from .autograd.grad_mode import no_grad
from .autograd.node import Node
from .ops._dtype_rules import check as check_dtype, check_found_dtype


# ---------------------------------------------------------------- generator state
def get_rng_state():
    """The default CPU generator's state, a uint8 tensor (nbgrad's own layout and size)."""
    from ._creation import tensor
    from .backends import get_backend
    return tensor(get_backend("cpu").get_rng_state(), dtype=D.uint8)


def set_rng_state(new_state):
    """Restore a state get_rng_state returned: the draws after it repeat."""
    from .backends import get_backend
    if not isinstance(new_state, Tensor):
        raise TypeError(f"set_rng_state(): argument 'new_state' must be Tensor, not {type(new_state).__name__}")
    if new_state.dtype is not D.uint8:
        raise TypeError(f"expected a torch.ByteTensor, but got {new_state.type()}")
    get_backend("cpu").set_rng_state(new_state.contiguous().cpu().numpy())


def _generator_get_state(self):
    return get_rng_state()


def _generator_set_state(self, new_state):
    set_rng_state(new_state)
    return self


# ---------------------------------------------------------------- in-place samplers
class _Drawn(Node):
    def backward(self, g):
        return g.new_zeros(g.shape) if self.needs_input_grad(0) else None


GeometricBackward0 = type("GeometricBackward0", (_Drawn,), {"__module__": __name__})
LogNormalBackward0 = type("LogNormalBackward0", (_Drawn,), {"__module__": __name__})
CauchyBackward0 = type("CauchyBackward0", (_Drawn,), {"__module__": __name__})


def _uniform_open_low(shape, device):
    """Uniform draws in (0, 1] (float64)."""
    from ._creation import rand
    return 1.0 - rand(shape, dtype=D.float64, device=device)


def _write(t, values, node_cls):
    from .ops.inplace import write_random
    return write_random(t, values.to(t.dtype).contiguous()._storage.buffer, node_cls)


def geometric_(self, p, *, generator=None):
    """Draws from Geometric(p) on {1, 2, ...}: ceil(log(u) / log1p(-p)), u uniform in (0, 1]."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    check_dtype("geometric_", self._dtype)
    with no_grad():
        u = _uniform_open_low(self.shape, self.device)
        values = (u.log() / math.log1p(-p)).ceil().clamp(min=1.0)
    return _write(self, values, GeometricBackward0)


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Draws exp(N(mean, std))."""
    check_dtype("log_normal_", self._dtype)
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={float(std):g}")
    from ._creation import randn
    with no_grad():
        values = (randn(self.shape, dtype=D.float64, device=self.device) * float(std) + float(mean)).exp()
    return _write(self, values, LogNormalBackward0)


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Draws median + sigma * tan(pi * (u - 1/2))."""
    if not self.is_floating_point():       # (PyTorch's words, with the dtype's C++ name here)
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {D.cpp_type_name(self.dtype)}")
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={float(sigma):g}")
    from ._creation import rand
    with no_grad():
        u = rand(self.shape, dtype=D.float64, device=self.device)
        values = ((u - 0.5) * math.pi).tan() * float(sigma) + float(median)
    return _write(self, values, CauchyBackward0)


# ---------------------------------------------------------------- poisson, binomial
class PoissonBackward0(_Drawn):
    pass




def _count_arrivals(rate, device):
    """Poisson(rate) draws (float64 rates): the number of unit-exponential gaps that fit in
    rate (exact; a loop of about max(rate) + 1 vectorised steps)."""
    from ._creation import rand
    from .ops.elementwise import where
    total = rate.new_zeros(rate.shape)
    count = rate.new_zeros(rate.shape)
    active = rate > 0
    while bool(active.any()):
        gap = -(1.0 - rand(rate.shape, dtype=D.float64, device=device)).log()
        total = where(active, total + gap, total)
        arrived = active & (total <= rate)
        count = count + arrived.to(D.float64)
        active = arrived
    return count


def poisson(input, generator=None):
    """A draw from Poisson(rate) for each rate of input (input's dtype; PoissonBackward0)."""
    from .ops._graph import needs_grad, record
    if not isinstance(input, Tensor):
        raise TypeError(f"poisson(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    check_dtype("poisson", input._dtype)
    with no_grad():
        rate = input.to(D.float64)
        if input.numel() and bool((rate < 0).any() | rate.isnan().any()):
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        out = _count_arrivals(rate, input.device).to(input.dtype).contiguous()
    if needs_grad(input):
        record(PoissonBackward0, (input,), (out,))
    return out


def binomial(count, prob, generator=None):
    """A draw from Binomial(count, prob) for each pair (count's dtype; no derivative):
    the successes among count trials, counted by geometric gaps between them (exact; about
    count * min(prob, 1 - prob) + 1 vectorised steps)."""
    from ._creation import rand
    from .ops._graph import needs_grad, record
    from .ops.elementwise import where
    for name, v in (("count", count), ("prob", prob)):
        if not isinstance(v, Tensor):
            raise TypeError(f"binomial(): argument '{name}' must be Tensor, not {type(v).__name__}")
    from ._creation import Generator
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"binomial(): argument 'generator' (position 3) must be torch.Generator, not "
                        f"{type(generator).__name__}")
    # (ATen's order: each tensor floating, then one dtype, then the kernel's half refusal)
    for name, v in (("count", count), ("prob", prob)):
        if not v._dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{D.scalar_type_name(v._dtype)}")
    check_found_dtype(count._dtype, prob._dtype)
    check_dtype("binomial", count._dtype)
    with no_grad():
        from .ops._graph import broadcast_shapes
        shape = broadcast_shapes(count.shape, prob.shape)
        n = count.to(D.float64).expand(shape).contiguous()
        p = prob.to(D.float64).expand(shape).contiguous()
        flip = p > 0.5
        q = where(flip, 1.0 - p, p)
        log_q = (-q).log1p()
        pos = n.new_zeros(shape)            # trials used so far
        successes = n.new_zeros(shape)
        active = (n > 0) & (q > 0)
        while bool(active.any()):
            u = 1.0 - rand(shape, dtype=D.float64, device=n.device)
            gap = (u.log() / where(active, log_q, -1.0)).ceil().clamp(min=1.0)   # Geometric(q) on {1, 2, ...}
            pos = where(active, pos + gap, pos)
            hit = active & (pos <= n)
            successes = successes + hit.to(D.float64)
            active = hit
        drawn = where(flip, n - successes, successes)
        # PyTorch's sample_binomial first: 0 for count <= 0 or prob <= 0, count for prob >= 1,
        # NaN for a NaN prob (flipped, a negative count gave itself back)
        out = where((n <= 0) | (p <= 0), 0.0, where(p >= 1, n, where(p != p, p, drawn)))
        out = out.to(count.dtype).contiguous()
    if needs_grad(count, prob):       # PyTorch's node refuses backward
        from .ops._graph import NotImplementedNode
        record(NotImplementedNode, (count, prob), (out,), op_name="binomial")
    return out
