"""torch.nn.modules.utils' helpers that layers written for PyTorch import: _single, _pair,
_triple, _quadruple (an iterable as its tuple, anything else repeated) and
_reverse_repeat_tuple (F.pad's amounts from a module's per-dim padding)."""
from ..._checks import ntuple


def _ntuple(n, name="parse"):
    def parse(x):
        return ntuple(x, n)
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """Each element of t repeated n times, last first: (1, 2) and 2 give (2, 2, 1, 1)."""
    return tuple(x for x in reversed(t) for _ in range(n))
