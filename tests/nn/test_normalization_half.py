"""float16 layer/batch norm as PyTorch computes them: in float32 (opmath), rounded once, and a
float16 input beside float32 weights written in the input's dtype (PyTorch 2.13's dtypes)."""
import numpy as np

import nbgrad

F = nbgrad.nn.functional


def _reference(x, w, b):
    """float64 layer norm over the last dim and the gradient of sum(y) in x."""
    x = nbgrad.tensor(x, dtype=nbgrad.float64, requires_grad=True)
    y = F.layer_norm(x, (x.shape[-1],), nbgrad.tensor(w, dtype=nbgrad.float64), nbgrad.tensor(b, dtype=nbgrad.float64))
    y.sum().backward()
    return y.detach().numpy(), x.grad.numpy()


def test_half_layer_norm_in_float32_and_mixed_dtypes():
    a = np.arange(8.0).reshape(2, 4) * 0.37
    w, b = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.0, 1.0, 0.0, 1.0])
    y64, gx64 = _reference(a.astype(np.float16).astype(np.float64), w, b)     # (of the half inputs)
    for wdt in (nbgrad.float16, nbgrad.float32):
        x = nbgrad.tensor(a, dtype=nbgrad.float16, requires_grad=True)
        wt = nbgrad.tensor(w, dtype=wdt, requires_grad=True)
        bt = nbgrad.tensor(b, dtype=wdt, requires_grad=True)
        y = F.layer_norm(x, (4,), wt, bt)
        assert y.dtype == nbgrad.float16 and y.grad_fn.name() == "NativeLayerNormBackward0"
        np.testing.assert_allclose(y.detach().float().numpy(), y64, rtol=2e-3, atol=1e-3)
        y.sum().backward()
        assert x.grad.dtype == nbgrad.float16 and wt.grad.dtype == wdt and bt.grad.dtype == wdt
        if wdt is nbgrad.float32:
            # computed in float32 throughout: the float64 gradient (~2e-4, a near cancellation)
            np.testing.assert_allclose(x.grad.float().numpy(), gx64, atol=2e-6)
        else:
            # half statistics (PyTorch's too): the right sign, within the half mean's rounding
            assert (np.sign(x.grad.float().numpy()) == np.sign(gx64)).all()


def test_half_batch_norm_with_float32_weights_is_half():
    x = nbgrad.tensor(np.arange(8.0).reshape(2, 4) * 0.37, dtype=nbgrad.float16, requires_grad=True)
    y = F.batch_norm(x, None, None, nbgrad.ones(4), nbgrad.zeros(4), training=True)
    assert y.dtype == nbgrad.float16 and y.grad_fn.name() == "NativeBatchNormBackward0"
    np.testing.assert_allclose(y.detach().float().numpy(), [[-1.0] * 4, [1.0] * 4], atol=2e-3)
