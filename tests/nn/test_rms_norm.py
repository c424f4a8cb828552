"""F.rms_norm and nn.RMSNorm: values and gradients recorded from PyTorch 2.13 (same NumPy inputs),
float64 finite differences, grad_fn names, eps default (finfo eps), half computed in float32, errors."""
import numpy as np
import pytest

import nbgrad

nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck

# recorded with torch 2.13: rng = np.random.default_rng(0); x = rng.standard_normal((2, 3, 4)) (float32),
# w = rng.standard_normal((3, 4)) (float32); y1 = F.rms_norm(x, (3, 4), w); (y1 * arange(24).reshape(2, 3, 4)).sum()
# .backward(); y2 = F.rms_norm(x, (4,), eps=0.5); y3 = F.rms_norm(x.half(), (4,)).float()
Y1 = [0.16123516857624054, -0.017628272995352745, -0.6758549809455872, -0.13724097609519958, 0.3480234742164612, 0.11301510781049728, -1.868706226348877, -0.2811928987503052, 0.15904751420021057, -0.9714373350143433, -0.1899043768644333, 0.020845556631684303, -2.13242244720459, -0.02088075317442417, 0.9403690099716187, 0.6851757168769836, 0.25289586186408997, -0.07070299237966537, -0.4218863248825073, -0.2213723063468933, 0.020776016637682915, 0.750243067741394, -0.14495353400707245, 0.1268097311258316]
GX = [0.46745771169662476, -0.35771676898002625, 0.2704017162322998, -3.5348920822143555, -4.590381145477295, 2.9071197509765625, -3.7501440048217773, 1.4428586959838867, -4.424485206604004, 2.2043447494506836, 0.7295832633972168, 5.702242374420166, 11.909385681152344, 1.3256969451904297, -10.082551956176758, -13.750807762145996, -7.223081588745117, 3.922943115234375, -18.608423233032227, -4.43966007232666, -3.1828019618988037, 10.998847961425781, 5.052538871765137, 8.160818099975586]
GW = [-28.323091506958008, -3.0748960971832275, -15.888995170593262, -10.703743934631348, -11.88140869140625, -2.8923227787017822, 18.627033233642578, 29.517902374267578, -10.600723266601562, 12.965194702148438, -23.702796936035156, 8.852466583251953]
Y2 = [0.1605079472064972, -0.16864584386348724, 0.8175673484802246, 0.13391610980033875, -0.47839683294296265, 0.3229341506958008, 1.1645792722702026, 0.8458212018013, -0.6644695401191711, -1.194815993309021, -0.5884981751441956, 0.039020150899887085, -1.5053436756134033, -0.14165689051151276, -0.806666374206543, -0.4741072654724121, -0.5695583820343018, -0.3310030996799469, 0.4307648241519928, 1.0909737348556519, -0.12186545878648758, 1.2955626249313354, -0.6306801438331604, 0.33327150344848633]
Y3 = [0.373046875, -0.391845703125, 1.900390625, 0.311279296875, -0.6171875, 0.41650390625, 1.501953125, 1.0908203125, -0.892578125, -1.60546875, -0.7900390625, 0.052398681640625, -1.693359375, -0.1593017578125, -0.90771484375, -0.53369140625, -0.8466796875, -0.4921875, 0.64013671875, 1.6220703125, -0.164306640625, 1.74609375, -0.85009765625, 0.44921875]


def inputs():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    return x, w


def test_values_and_gradients_match_pytorch():
    x, w = inputs()
    xt = nbgrad.tensor(x, requires_grad=True)
    wt = nbgrad.tensor(w, requires_grad=True)
    y = F.rms_norm(xt, (3, 4), wt)
    assert y.dtype is nbgrad.float32
    np.testing.assert_allclose(y.detach().numpy().ravel(), Y1, rtol=1e-5, atol=1e-6)
    (y * nbgrad.arange(24.0).reshape(2, 3, 4)).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy().ravel(), GX, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(wt.grad.numpy().ravel(), GW, rtol=1e-4, atol=1e-5)


def test_eps_and_no_weight_match_pytorch():
    x, _ = inputs()
    y = F.rms_norm(nbgrad.tensor(x), (4,), eps=0.5)
    np.testing.assert_allclose(y.numpy().ravel(), Y2, rtol=1e-5, atol=1e-6)


def test_default_eps_is_finfo_eps():
    x = np.array([[1e-4, -2e-4, 3e-4]])
    got = F.rms_norm(nbgrad.tensor(x), (3,)).numpy()
    want = x / np.sqrt((x ** 2).mean(-1, keepdims=True) + np.finfo(np.float64).eps)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    x32 = x.astype(np.float32)
    got32 = F.rms_norm(nbgrad.tensor(x32), (3,)).numpy()
    want32 = x32 / np.sqrt((x32 ** 2).mean(-1, keepdims=True) + np.finfo(np.float32).eps)
    np.testing.assert_allclose(got32, want32, rtol=1e-5)
    assert not np.allclose(got32, x32 / np.sqrt((x32 ** 2).mean(-1, keepdims=True)), rtol=1e-3)


def test_half_is_computed_in_float32_and_cast_back():
    x, _ = inputs()
    xt = nbgrad.tensor(x).half().requires_grad_()
    y = F.rms_norm(xt, (4,))
    assert y.dtype is nbgrad.float16
    assert type(y.grad_fn).__name__ == "ToCopyBackward0"
    np.testing.assert_allclose(y.detach().float().numpy().ravel(), Y3, rtol=2e-3, atol=2e-3)
    # eps defaults to float32's eps there (PyTorch 2.13: rms_norm(half [[.01, .02, -.01]]) = [.7070, 1.4141, -.7070])
    small = F.rms_norm(nbgrad.tensor([[0.01, 0.02, -0.01]]).half(), (3,)).float().numpy()
    np.testing.assert_allclose(small, [[0.7070, 1.4141, -0.7070]], atol=1e-3)


def test_gradcheck_float64():
    rng = np.random.default_rng(1)
    x = nbgrad.tensor(rng.standard_normal((2, 3, 2)), requires_grad=True)
    w = nbgrad.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    assert gradcheck(lambda a, b: F.rms_norm(a, (3, 2), b, eps=1e-3), (x, w))
    assert gradcheck(lambda a: F.rms_norm(a, (2,)), (x,))
    assert nbgrad.autograd.gradgradcheck(lambda a, b: F.rms_norm(a, (2,), b[0], eps=0.1), (x, w))


def walk(node):
    names = [type(node).__name__]
    for nxt, _ in node.next_functions:
        if nxt is not None:
            names.extend(walk(nxt))
    return names


def test_grad_fn_names_as_pytorch():
    x = nbgrad.randn(2, 3, requires_grad=True)
    w = nbgrad.ones(3, requires_grad=True)
    # recorded from torch 2.13 (depth-first over next_functions)
    assert walk(F.rms_norm(x, (3,), w).grad_fn) == [
        "MulBackward0", "MulBackward0", "AccumulateGrad", "RsqrtBackward0", "AddBackward1", "MeanBackward1",
        "PowBackward0", "AccumulateGrad", "AccumulateGrad"]
    assert walk(F.rms_norm(x, (3,)).grad_fn) == [
        "MulBackward0", "AccumulateGrad", "RsqrtBackward0", "AddBackward1", "MeanBackward1", "PowBackward0",
        "AccumulateGrad"]


def test_errors_as_pytorch():
    x = nbgrad.randn(2, 3, 4)
    with pytest.raises(RuntimeError, match=r"^Given normalized_shape=\[3, 5\], expected input with shape "
                       r"\[\*3, 5\], but got input of size\[2, 3, 4\]$"):
        F.rms_norm(x, (3, 5))
    with pytest.raises(ValueError, match="^Input tensor must have at least 4 dimensions, but got 3$"):
        F.rms_norm(x, (2, 2, 3, 4))
    with pytest.raises(RuntimeError, match="^Expected normalized_shape to be at least 1-dimensional"):
        F.rms_norm(x, ())
    with pytest.raises(RuntimeError, match=r"^Expected weight to be of same shape as normalized_shape, but got "
                       r"weight of shape \[3\] and normalized_shape = \[5\]$"):
        F.rms_norm(x, (5,), nbgrad.ones(3))
    with pytest.raises(TypeError):
        F.rms_norm(x, 4)
    with pytest.raises(NotImplementedError, match="\"rms_norm\" not implemented for 'Long'"):
        F.rms_norm(nbgrad.arange(3), (3,))


def test_module():
    m = nn.RMSNorm([3, 4], eps=1e-3)
    assert repr(m) == "RMSNorm((3, 4), eps=0.001, elementwise_affine=True)"
    assert list(m.state_dict()) == ["weight"]
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.ones((3, 4), np.float32))
    assert list(nn.RMSNorm(4, elementwise_affine=False).state_dict()) == []
    assert repr(nn.RMSNorm(4)) == "RMSNorm((4,), eps=None, elementwise_affine=True)"
    x, w = inputs()
    m = nn.RMSNorm((3, 4))
    m.load_state_dict({"weight": nbgrad.tensor(w)})
    np.testing.assert_allclose(m(nbgrad.tensor(x)).detach().numpy().ravel(), Y1, rtol=1e-5, atol=1e-6)
    m(nbgrad.tensor(x)).sum().backward()
    assert m.weight.grad.shape == (3, 4)
    with pytest.raises(RuntimeError, match="expected input with shape"):
        nn.RMSNorm(4)(nbgrad.randn(2, 3))
