"""pixel_shuffle and pixel_unshuffle: a reshape, a permute and a copy (as PyTorch's math kernel
does it), computed unrecorded; each records PyTorch's node, whose backward is the other op
(PixelShuffleBackward0: pixel_unshuffle(grad, r), and the reverse)."""
from ..autograd.node import Node
from .more import recorded


class PixelShuffleBackward0(Node):
    def backward(self, g):
        return pixel_unshuffle(g, self.factor)


class PixelUnshuffleBackward0(Node):
    def backward(self, g):
        return pixel_shuffle(g, self.factor)



def _check(fn, x, factor, what):
    if x.dim() < 3:
        raise RuntimeError(f"{fn} expects input to have at least 3 dimensions, but got input with "
                           f"{x.dim()} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{fn} expects a positive {what}, but got {factor}")


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    r = int(upscale_factor)
    _check("pixel_shuffle", input, r, "upscale_factor")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    nb = len(batch)

    def compute():
        x = input.reshape(*batch, c // (r * r), r, r, h, w)
        order = list(range(nb)) + [nb, nb + 3, nb + 1, nb + 4, nb + 2]
        return x.permute(*order).contiguous().reshape(*batch, c // (r * r), h * r, w * r)
    return recorded(PixelShuffleBackward0, input, compute, factor=r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    r = int(downscale_factor)
    _check("pixel_unshuffle", input, r, "downscale_factor")
    *batch, c, h, w = input.shape
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
                           f"input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                           f"input.size(-1)={w} is not divisible by {r}")
    nb = len(batch)

    def compute():
        x = input.reshape(*batch, c, h // r, r, w // r, r)
        order = list(range(nb)) + [nb, nb + 2, nb + 4, nb + 1, nb + 3]
        return x.permute(*order).contiguous().reshape(*batch, c * r * r, h // r, w // r)
    return recorded(PixelUnshuffleBackward0, input, compute, factor=r)
