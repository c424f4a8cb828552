"""nn.utils.skip_init: the module is built (its constructor runs) but its parameters and buffers
are left uninitialised: no random numbers are drawn, shapes / dtypes / Parameter-ness and the
device kwarg are kept; PyTorch's errors for a class that is not a Module or takes no device."""
import pytest

import nbgrad

nn = nbgrad.nn
skip_init = nbgrad.nn.utils.skip_init


class Custom(nn.Module):
    built = 0

    def __init__(self, n, scale=1.0, device=None):
        super().__init__()
        type(self).built += 1
        self.scale = scale
        self.w = nn.Parameter(nbgrad.randn(n, device=device))
        self.register_buffer("b", nbgrad.full((n,), 5.0, device=device))


def test_no_random_numbers_drawn():
    nbgrad.manual_seed(0)
    expected = nbgrad.randn(5)
    nbgrad.manual_seed(0)
    skip_init(nn.Linear, 30, 20)
    skip_init(nn.Conv2d, 3, 4, 3)
    skip_init(Custom, 7)
    assert nbgrad.equal(nbgrad.randn(5), expected)


def test_parameters_and_buffers_kept():
    lin = skip_init(nn.Linear, 3, 2, dtype=nbgrad.float64)
    assert isinstance(lin, nn.Linear) and lin.in_features == 3 and lin.out_features == 2
    for p, shape in ((lin.weight, (2, 3)), (lin.bias, (2,))):
        assert type(p) is nn.Parameter and p.requires_grad and p.is_leaf and p.grad is None
        assert tuple(p.shape) == shape and p.dtype is nbgrad.float64 and p.device.type == "cpu"
    assert [n for n, _ in lin.named_parameters()] == ["weight", "bias"]
    assert skip_init(nn.Linear, 3, 2, bias=False).bias is None
    bn = skip_init(nn.BatchNorm1d, 4, device="cpu")
    assert [n for n, _ in bn.named_buffers()] == ["running_mean", "running_var", "num_batches_tracked"]
    assert bn.num_batches_tracked.dtype is nbgrad.int64 and tuple(bn.running_var.shape) == (4,)
    assert bn.running_mean.requires_grad is False and bn.momentum == 0.1
    # the constructor ran (its other side effects stay)
    before = Custom.built
    c = skip_init(Custom, 3, scale=2.0)
    assert Custom.built == before + 1 and c.scale == 2.0
    assert tuple(c.w.shape) == (3,) and tuple(c.b.shape) == (3,) and c.w.requires_grad


def test_usable_after_own_initialisation():
    lin = skip_init(nn.Linear, 3, 2)
    nn.init.ones_(lin.weight)
    nn.init.zeros_(lin.bias)
    x = nbgrad.tensor([[1.0, 2.0, 3.0]])
    out = lin(x)
    assert out.tolist() == [[6.0, 6.0]]
    out.sum().backward()
    assert lin.weight.grad.tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    assert lin.bias.grad.tolist() == [1.0, 1.0]


def test_errors():
    with pytest.raises(RuntimeError, match="^Module must support a 'device' arg to skip initialization$"):
        skip_init(nn.ReLU)
    with pytest.raises(RuntimeError, match="^Module must support a 'device' arg to skip initialization$"):
        skip_init(nn.Sequential, nn.Linear(1, 1))
    with pytest.raises(RuntimeError) as info:
        skip_init(int)
    assert str(info.value) == "Expected a Module; got <class 'int'>"
    with pytest.raises(TypeError, match="issubclass"):
        skip_init(nn.Linear(1, 1))
