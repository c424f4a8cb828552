"""Containers (ModuleDict, ParameterList, ParameterDict) and the simple modules of issue 14,
against PyTorch 2.13's behaviour (reprs, state_dict keys and errors recorded from it), NumPy
references and finite differences."""
import numpy as np
import pytest

import nbgrad
from ._cuda import requires_cuda
from ._float64 import t
nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# -- containers ----------------------------------------------------------------------------
def test_module_dict():
    md = nn.ModuleDict({"b": nn.Linear(2, 3), "a": nn.ReLU()})
    assert repr(md) == "ModuleDict(\n  (b): Linear(in_features=2, out_features=3, bias=True)\n  (a): ReLU()\n)"
    assert list(md.keys()) == ["b", "a"] and list(md) == ["b", "a"] and len(md) == 2 and "a" in md
    md["c"] = nn.Tanh()
    md.update([("d", nn.Identity())])
    assert list(md.state_dict().keys()) == ["b.weight", "b.bias"]
    assert isinstance(md.pop("c"), nn.Tanh) and list(md.keys()) == ["b", "a", "d"]
    assert [n for n, _ in md.named_parameters()] == ["b.weight", "b.bias"]
    assert repr(nn.ModuleDict()) == "ModuleDict()"
    with pytest.raises(TypeError, match="^int is not a Module subclass$"):
        md["x"] = 3
    with pytest.raises(KeyError):
        md["zz"]
    with pytest.raises(TypeError, match="^ModuleDict.update should be called with an iterable of key/value "
                                        "pairs, but got int$"):
        md.update(3)
    with pytest.raises(ValueError, match="^ModuleDict update sequence element #0 has length 1; 2 is required$"):
        md.update([("a",)])


def test_parameter_list():
    pl = nn.ParameterList([nn.Parameter(nbgrad.ones(2, 3)), nn.Parameter(nbgrad.zeros(4, dtype=nbgrad.float64))])
    assert repr(pl) == ("ParameterList(\n    (0): Parameter containing: [nbgrad.float32 of size 2x3]\n"
                        "    (1): Parameter containing: [nbgrad.float64 of size 4]\n)")
    assert list(pl.state_dict().keys()) == ["0", "1"]
    pl.append(nbgrad.ones(2))                          # a tensor is wrapped as a Parameter
    assert type(pl[2]) is nn.Parameter and pl[2].requires_grad and len(pl) == 3
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"] and len(pl[1:]) == 2
    assert repr(nn.ParameterList()) == "ParameterList()"
    assert repr(nn.ParameterList([nbgrad.ones(1)])) == \
        "ParameterList(  (0): Parameter containing: [nbgrad.float32 of size 1])"    # PyTorch's one-line form
    pl.append(3)                                       # other objects are kept as they are
    assert pl[3] == 3 and pl[-1] == 3 and repr(pl).endswith("    (3): Object of type: int\n)")
    assert len(list(pl.parameters())) == 3
    with pytest.raises(IndexError, match="^index 7 is out of range$"):
        pl[7]
    with pytest.raises(TypeError, match="^ParameterList.extend should be called with an iterable, but got Tensor$"):
        pl.extend(nbgrad.ones(2))
    with pytest.raises(RuntimeError, match="^ParameterList should not be called.$"):
        pl(1)


def test_parameter_dict():
    pd = nn.ParameterDict({"w": nn.Parameter(nbgrad.ones(2)), "b": nbgrad.zeros(3)})   # a dict: sorted keys
    assert repr(pd) == ("ParameterDict(\n    (b): Parameter containing: [nbgrad.FloatTensor of size 3]\n"
                        "    (w): Parameter containing: [nbgrad.FloatTensor of size 2]\n)")
    assert list(pd.state_dict().keys()) == ["b", "w"] and type(pd["b"]) is nn.Parameter
    pd["x"] = nn.Parameter(nbgrad.ones(1, 1))
    assert list(pd.keys()) == ["b", "w", "x"] and len(pd) == 3
    assert tuple(pd.pop("w").shape) == (2,) and list(pd.keys()) == ["b", "x"]
    assert pd.get("nope") is None and "x" in pd
    assert list((pd | nn.ParameterDict({"z": nbgrad.ones(1)})).keys()) == ["b", "x", "z"]
    from collections import OrderedDict
    assert list(nn.ParameterDict(OrderedDict([("z", nbgrad.ones(1)), ("a", nbgrad.ones(1))])).keys()) == ["z", "a"]
    assert repr(nn.ParameterDict()) == "ParameterDict()"
    with pytest.raises(AttributeError, match="^'ParameterDict' object has no attribute 'q'$"):
        pd["q"]
    with pytest.raises(TypeError, match=r"^Index given to ParameterDict cannot be used as a key as it is not a "
                                        r"string \(type is 'int'\)"):
        pd[1]
    with pytest.raises(TypeError, match="^ParametersDict.update should be called with an iterable"):
        pd.update(5)


def test_containers_nested_state_dict_and_repr():
    m = nn.Module()
    m.pl = nn.ParameterList([nbgrad.ones(2, 3), nbgrad.zeros(2), 3])
    m.pd = nn.ParameterDict({"b": nbgrad.ones(3), "x": nbgrad.ones(1, 1)})
    m.md = nn.ModuleDict({"b": nn.Linear(2, 3), "a": nn.ReLU()})
    assert list(m.state_dict().keys()) == ["pl.0", "pl.1", "pd.b", "pd.x", "md.b.weight", "md.b.bias"]
    assert [n for n, _ in m.named_parameters()] == ["pl.0", "pl.1", "pd.b", "pd.x", "md.b.weight", "md.b.bias"]
    assert repr(m) == """Module(
  (pl): ParameterList(
      (0): Parameter containing: [nbgrad.float32 of size 2x3]
      (1): Parameter containing: [nbgrad.float32 of size 2]
      (2): Object of type: int
  )
  (pd): ParameterDict(
      (b): Parameter containing: [nbgrad.FloatTensor of size 3]
      (x): Parameter containing: [nbgrad.FloatTensor of size 1x1]
  )
  (md): ModuleDict(
    (b): Linear(in_features=2, out_features=3, bias=True)
    (a): ReLU()
  )
)"""
    m2 = nn.Module()
    m2.pl = nn.ParameterList([nbgrad.zeros(2, 3), nbgrad.ones(2), 3])
    m2.pd = nn.ParameterDict({"b": nbgrad.zeros(3), "x": nbgrad.zeros(1, 1)})
    m2.md = nn.ModuleDict({"b": nn.Linear(2, 3), "a": nn.ReLU()})
    m2.load_state_dict(m.state_dict())
    assert m2.pl[0].sum().item() == 6 and m2.pd["x"].item() == 1
    np.testing.assert_array_equal(m2.md["b"].weight.detach().numpy(), m.md["b"].weight.detach().numpy())
    # an optimizer sees the parameters in the containers
    opt = nbgrad.optim.SGD(m.parameters(), lr=0.5)
    (m.pl[0].sum() + m.pd["b"].sum()).backward()
    opt.step()
    assert m.pl[0].sum().item() == 3.0 and m.pd["b"].sum().item() == 1.5


# -- padding, pixel shuffle, unflatten ---------------------------------------------------------
def test_padding_modules(rng):
    x = rng.normal(size=(2, 3, 4, 5))
    x1 = rng.normal(size=(2, 3, 6))
    cases = [
        (nn.ZeroPad2d(1), x, "ZeroPad2d((1, 1, 1, 1))", "ConstantPadNdBackward0",
         np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))),
        (nn.ZeroPad1d(2), x1, "ZeroPad1d((2, 2))", "ConstantPadNdBackward0", np.pad(x1, ((0, 0), (0, 0), (2, 2)))),
        (nn.ConstantPad1d(2, 3.0), x1, "ConstantPad1d(padding=(2, 2), value=3.0)", "ConstantPadNdBackward0",
         np.pad(x1, ((0, 0), (0, 0), (2, 2)), constant_values=3.0)),
        (nn.ConstantPad2d((1, 2, 3, 0), 0.5), x, "ConstantPad2d(padding=(1, 2, 3, 0), value=0.5)",
         "ConstantPadNdBackward0", np.pad(x, ((0, 0), (0, 0), (3, 0), (1, 2)), constant_values=0.5)),
        (nn.ReflectionPad1d(2), x1, "ReflectionPad1d((2, 2))", "ReflectionPad1DBackward0",
         np.pad(x1, ((0, 0), (0, 0), (2, 2)), mode="reflect")),
        (nn.ReflectionPad2d((1, 1, 2, 0)), x, "ReflectionPad2d((1, 1, 2, 0))", "ReflectionPad2DBackward0",
         np.pad(x, ((0, 0), (0, 0), (2, 0), (1, 1)), mode="reflect")),
        (nn.ReplicationPad1d(1), x1, "ReplicationPad1d((1, 1))", "ReplicationPad1DBackward0",
         np.pad(x1, ((0, 0), (0, 0), (1, 1)), mode="edge")),
        (nn.ReplicationPad2d(1), x, "ReplicationPad2d((1, 1, 1, 1))", "ReplicationPad2DBackward0",
         np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="edge")),
    ]
    for module, a, text, node, ref in cases:
        assert repr(module) == text
        out = module(t(a, True))
        np.testing.assert_array_equal(out.detach().numpy(), ref)
        assert out.grad_fn.name() == node
        assert gradcheck(module, (t(a, True),))


def test_pixel_shuffle(rng):
    # PyTorch's definition: out[n, c, h*r + i, w*r + j] = in[n, c*r*r + i*r + j, h, w]
    x = rng.normal(size=(2, 8, 3, 4))
    out = F.pixel_shuffle(t(x, True), 2)
    ref = x.reshape(2, 2, 2, 2, 3, 4).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 8)
    np.testing.assert_array_equal(out.detach().numpy(), ref)
    assert out.grad_fn.name() == "PixelShuffleBackward0" and out.is_contiguous()
    back = nn.PixelUnshuffle(2)(out)
    np.testing.assert_array_equal(back.detach().numpy(), x)
    assert back.grad_fn.name() == "PixelUnshuffleBackward0"
    assert gradcheck(lambda a: F.pixel_shuffle(a, 3), (t(rng.normal(size=(18, 2, 2)), True),))   # unbatched
    assert gradcheck(lambda a: F.pixel_unshuffle(a, 2), (t(rng.normal(size=(2, 1, 2, 4, 6)), True),))
    assert repr(nn.PixelShuffle(2)) == "PixelShuffle(upscale_factor=2)"
    assert repr(nn.PixelUnshuffle(3)) == "PixelUnshuffle(downscale_factor=3)"
    y = t(np.zeros((2, 8, 4, 6)))
    with pytest.raises(RuntimeError, match=r"^pixel_shuffle expects input to have at least 3 dimensions, but got "
                                           r"input with 2 dimension\(s\)$"):
        F.pixel_shuffle(y[0, 0], 2)
    with pytest.raises(RuntimeError, match=r"^pixel_shuffle expects its input's 'channel' dimension to be "
                                           r"divisible by the square of upscale_factor, but input.size\(-3\)=8 is "
                                           r"not divisible by 9$"):
        F.pixel_shuffle(y, 3)
    with pytest.raises(RuntimeError, match="^pixel_shuffle expects a positive upscale_factor, but got 0$"):
        F.pixel_shuffle(y, 0)
    with pytest.raises(RuntimeError, match=r"^pixel_unshuffle expects height to be divisible by downscale_factor, "
                                           r"but input.size\(-2\)=3 is not divisible by 2$"):
        F.pixel_unshuffle(y[:, :, :3], 2)
    with pytest.raises(RuntimeError, match=r"^pixel_unshuffle expects width to be divisible by downscale_factor, "
                                           r"but input.size\(-1\)=5 is not divisible by 2$"):
        F.pixel_unshuffle(y[:, :, :, :5], 2)


def test_unflatten():
    m = nn.Unflatten(1, (2, 4))
    assert repr(m) == "Unflatten(dim=1, unflattened_size=(2, 4))"
    x = t(np.arange(48.0).reshape(2, 8, 3), True)
    out = m(x)
    np.testing.assert_array_equal(out.detach().numpy(), np.arange(48.0).reshape(2, 2, 4, 3))
    assert tuple(nn.Unflatten(1, (2, -1))(x).shape) == (2, 2, 4, 3)
    with pytest.raises(RuntimeError, match=r"^unflatten: Provided sizes \[3, 3\] don't multiply up to the size of "
                                           r"dim 1 \(8\) in the input tensor$"):
        nn.Unflatten(1, (3, 3))(x)


# -- 1-D and adaptive max pooling ----------------------------------------------------------------
def np_windows(n, k, s, p, d, ceil_mode):
    out = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return [[i * s - p + j * d for j in range(k)] for i in range(out)]


def test_max_pool1d(rng):
    a = rng.normal(size=(2, 3, 11))
    for kw in [dict(kernel_size=3), dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)]:
        xt = t(a, True)
        out, idx = F.max_pool1d(xt, return_indices=True, **kw)
        wins = np_windows(11, kw["kernel_size"], kw.get("stride", 3), kw.get("padding", 0), kw.get("dilation", 1),
                          kw.get("ceil_mode", False))
        ref_idx = np.array([[[max((j for j in w if 0 <= j < 11), key=lambda j: a[n, c, j]) for w in wins]
                             for c in range(3)] for n in range(2)])
        np.testing.assert_array_equal(idx.numpy(), ref_idx)
        np.testing.assert_array_equal(out.detach().numpy(), np.take_along_axis(a, ref_idx, -1))
        assert out.grad_fn.name() == "SqueezeBackward1"
        assert gradcheck(lambda x: F.max_pool1d(x, **kw), (xt,))
    assert repr(nn.MaxPool1d(3)) == "MaxPool1d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=False)"
    assert tuple(nn.MaxPool1d(2)(t(a[0])).shape) == (3, 5)                 # unbatched
    with pytest.raises(RuntimeError, match=r"^max_pool1d: Expected 2D or 3D \(batch mode\) tensor with optional 0 "
                                           r"dim batch size for input, but got:\[2, 8, 4, 6\]$"):
        F.max_pool1d(t(np.zeros((2, 8, 4, 6))), 2)


def test_avg_pool1d_and_adaptive_avg_pool1d(rng):
    a = rng.normal(size=(2, 3, 10))
    xt = t(a, True)
    out = F.avg_pool1d(xt, 3)
    np.testing.assert_allclose(out.detach().numpy(), a[..., :9].reshape(2, 3, 3, 3).mean(-1), rtol=1e-12)
    assert out.grad_fn.name() == "SqueezeBackward1"
    padded = np.pad(a, ((0, 0), (0, 0), (1, 1)))
    out = nn.AvgPool1d(4, 2, 1)(xt)                   # count_include_pad: the zeros count
    np.testing.assert_allclose(out.detach().numpy(),
                               np.stack([padded[..., i:i + 4].mean(-1) for i in range(0, 9, 2)], -1), rtol=1e-12)
    assert gradcheck(lambda x: F.avg_pool1d(x, 4, 2, 2, True, False), (xt,))
    assert repr(nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    out = nn.AdaptiveAvgPool1d(4)(xt)                 # windows [floor(10 i / 4), ceil(10 (i + 1) / 4))
    ref = np.stack([a[..., 0:3].mean(-1), a[..., 2:5].mean(-1), a[..., 5:8].mean(-1), a[..., 7:10].mean(-1)], -1)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
    assert out.grad_fn.name() == "SqueezeBackward1"
    assert repr(nn.AdaptiveAvgPool1d(4)) == "AdaptiveAvgPool1d(output_size=4)"
    assert gradcheck(lambda x: F.adaptive_avg_pool1d(x, 3), (xt,))


def np_adaptive_max(a, oh, ow):
    h, w = a.shape[-2:]
    vals = np.empty(a.shape[:-2] + (oh, ow))
    idx = np.empty(a.shape[:-2] + (oh, ow), dtype=np.int64)
    for i in range(oh):
        r0, r1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            c0, c1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            win = a[..., r0:r1, c0:c1].reshape(a.shape[:-2] + (-1,))
            k = win.argmax(-1)                         # the first maximum, scanning rows
            vals[..., i, j] = np.take_along_axis(win, k[..., None], -1)[..., 0]
            idx[..., i, j] = (r0 + k // (c1 - c0)) * w + c0 + k % (c1 - c0)
    return vals, idx


@pytest.mark.parametrize("size, oh_ow", [(3, (3, 3)), ((2, 4), (2, 4)), ((None, 3), (7, 3)), (1, (1, 1)),
                                         ((5, 13), (5, 13))])
def test_adaptive_max_pool2d(rng, size, oh_ow):
    a = rng.normal(size=(2, 3, 7, 10))
    a[0, 0, 0, :2] = 5.0                              # a tie: the first index wins
    xt = t(a, True)
    out, idx = F.adaptive_max_pool2d(xt, size, return_indices=True)
    vals, ref_idx = np_adaptive_max(a, *oh_ow)
    np.testing.assert_array_equal(out.detach().numpy(), vals)
    np.testing.assert_array_equal(idx.numpy(), ref_idx)
    assert out.grad_fn.name() == "AdaptiveMaxPool2DBackward0"
    g = rng.normal(size=vals.shape)
    (out * t(g)).sum().backward()
    ref_grad = np.zeros(a.shape).reshape(2, 3, -1)
    for n in range(2):
        for c in range(3):
            np.add.at(ref_grad[n, c], ref_idx[n, c].ravel(), g[n, c].ravel())
    np.testing.assert_allclose(xt.grad.numpy(), ref_grad.reshape(a.shape), rtol=1e-12)


def test_adaptive_max_pool_modules(rng):
    a = rng.normal(size=(3, 7, 10))
    out = nn.AdaptiveMaxPool2d((3, None))(t(a))      # unbatched
    np.testing.assert_array_equal(out.numpy(), np_adaptive_max(a, 3, 10)[0])
    assert repr(nn.AdaptiveMaxPool2d((3, None))) == "AdaptiveMaxPool2d(output_size=(3, None))"
    out, idx = nn.AdaptiveMaxPool1d(4, return_indices=True)(t(a, True))
    vals, ref_idx = np_adaptive_max(a[..., None, :], 1, 4)        # (N, C, L) as (N, C, 1, L)
    np.testing.assert_array_equal(out.detach().numpy(), vals[..., 0, :])
    np.testing.assert_array_equal(idx.numpy(), ref_idx[..., 0, :])
    assert out.grad_fn.name() == "SqueezeBackward1"
    assert repr(nn.AdaptiveMaxPool1d(3)) == "AdaptiveMaxPool1d(output_size=3)"


# -- group and instance normalisation ---------------------------------------------------------
def np_group_norm(x, g, w=None, b=None, eps=1e-5):
    n, c = x.shape[:2]
    groups = x.reshape(n, g, -1)
    out = ((groups - groups.mean(-1, keepdims=True)) / np.sqrt(groups.var(-1, keepdims=True) + eps)).reshape(x.shape)
    bshape = (1, c) + (1,) * (x.ndim - 2)
    if w is not None:
        out = out * w.reshape(bshape)
    if b is not None:
        out = out + b.reshape(bshape)
    return out


def test_group_norm(rng):
    x, w, b = rng.normal(size=(2, 6, 3, 4)) * 2 + 1, rng.normal(size=6), rng.normal(size=6)
    xt, wt, bt = t(x, True), t(w, True), t(b, True)
    out = F.group_norm(xt, 3, wt, bt, eps=1e-3)
    np.testing.assert_allclose(out.detach().numpy(), np_group_norm(x, 3, w, b, 1e-3), rtol=1e-10, atol=1e-12)
    assert out.grad_fn.name() == "NativeGroupNormBackward0"
    assert F.group_norm(xt, 2).grad_fn.name() == "NativeGroupNormBackward0"
    assert gradcheck(lambda a, p, q: F.group_norm(a, 3, p, q), (t(x[:, :, :2], True), wt, bt))
    m = nn.GroupNorm(2, 6).double()
    np.testing.assert_allclose(m(t(x)).detach().numpy(), np_group_norm(x, 2), rtol=1e-10, atol=1e-12)
    assert repr(m) == "GroupNorm(2, 6, eps=1e-05, affine=True, bias=True)"
    assert repr(nn.GroupNorm(2, 4, affine=False)) == "GroupNorm(2, 4, eps=1e-05, affine=False, bias=False)"
    assert list(m.state_dict().keys()) == ["weight", "bias"]
    assert list(nn.GroupNorm(2, 4, affine=False).state_dict().keys()) == []
    with pytest.raises(ValueError, match=r"^num_channels \(8\) must be divisible by num_groups \(3\)$"):
        nn.GroupNorm(3, 8)
    with pytest.raises(RuntimeError, match=r"^Expected number of channels in input to be divisible by num_groups, "
                                           r"but got input of shape \[2, 6, 3, 4\] and num_groups=4$"):
        F.group_norm(xt, 4)


def np_instance_norm(x, eps=1e-5):
    axes = tuple(range(2, x.ndim))
    return (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)


def test_instance_norm_functional(rng):
    x = rng.normal(size=(2, 3, 5)) * 2 + 1
    xt = t(x, True)
    out = F.instance_norm(xt)
    np.testing.assert_allclose(out.detach().numpy(), np_instance_norm(x), rtol=1e-10, atol=1e-12)
    assert out.grad_fn.name() == "ViewBackward0"
    w, b = t(rng.normal(size=3), True), t(rng.normal(size=3), True)
    assert gradcheck(lambda a, p, q: F.instance_norm(a, weight=p, bias=q), (xt, w, b))
    rm, rv = t(np.zeros(3)), t(np.ones(3))
    F.instance_norm(xt, rm, rv, momentum=0.25)
    # the update of each instance's statistics, averaged over the batch
    np.testing.assert_allclose(rm.numpy(), 0.25 * x.mean(2).mean(0), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.75 + 0.25 * x.var(2, ddof=1).mean(0), rtol=1e-12)
    out = F.instance_norm(xt, rm, rv, use_input_stats=False)         # normalised by the running statistics
    np.testing.assert_allclose(out.detach().numpy(), (x - rm.numpy()[:, None]) / np.sqrt(rv.numpy()[:, None] + 1e-5),
                               rtol=1e-10)
    with pytest.raises(ValueError, match="^Expected more than 1 spatial element when training, got input size "):
        F.instance_norm(t(np.ones((4, 6))))


def test_instance_norm_modules(rng):
    m = nn.InstanceNorm2d(3, affine=True, track_running_stats=True).double()
    assert repr(m) == "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    assert list(m.state_dict().keys()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert repr(nn.InstanceNorm1d(3)) == \
        "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)"
    assert list(nn.InstanceNorm2d(3).state_dict().keys()) == []
    x = rng.normal(size=(2, 3, 4, 5)) * 2 + 1
    out = m(t(x, True))
    np.testing.assert_allclose(out.detach().numpy(), np_instance_norm(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.running_mean.numpy(), 0.1 * x.mean((2, 3)).mean(0), rtol=1e-12)
    assert m.num_batches_tracked.item() == 0                          # PyTorch's instance norm leaves it
    m.eval()
    out = m(t(x))
    rm, rv = m.running_mean.numpy()[:, None, None], m.running_var.numpy()[:, None, None]
    np.testing.assert_allclose(out.detach().numpy(), (x - rm) / np.sqrt(rv + 1e-5), rtol=1e-10)
    one = nn.InstanceNorm1d(3).double()(t(x[0, :, 0], True))          # unbatched (C, L)
    np.testing.assert_allclose(one.detach().numpy(), np_instance_norm(x[:1, :, 0])[0], rtol=1e-10, atol=1e-12)
    assert one.grad_fn.name() == "SqueezeBackward1"
    with pytest.raises(ValueError, match=r"^expected 3D or 4D input \(got 2D input\)$"):
        nn.InstanceNorm2d(3)(t(np.ones((3, 4))))
    with pytest.raises(ValueError, match=r"^expected input's size at dim=1 to match num_features \(4\), but got: 3.$"):
        nn.InstanceNorm1d(4, affine=True)(t(np.ones((2, 3, 5))))
    with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
        nn.InstanceNorm1d(4)(t(np.ones((2, 3, 5))))


@requires_cuda
@pytest.mark.parametrize("fn", [lambda a: F.adaptive_max_pool2d(a, (2, 3)), lambda a: F.max_pool1d(a.flatten(-2), 3),
                                lambda a: F.avg_pool1d(a.flatten(-2), 2), lambda a: F.group_norm(a, 2),
                                lambda a: F.instance_norm(a), lambda a: F.pixel_unshuffle(a, 2),
                                lambda a: nn.ReflectionPad2d(1)(a)])
def test_on_cuda_as_on_cpu(rng, fn):
    x = rng.normal(size=(2, 4, 4, 6))
    results = []
    for device in ("cpu", "cuda"):
        a = nbgrad.tensor(x, device=device, requires_grad=True)
        out = fn(a)
        (out * out).sum().backward()
        assert out.device.type == device
        results.append((out.detach().cpu().numpy(), a.grad.cpu().numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12, atol=1e-14)
