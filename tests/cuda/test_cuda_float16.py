"""float16 on both devices (CUDA under the simulator): stored in float16, computed in
float32 and rounded once per op, as PyTorch's CPU does.  Shapes stay tiny."""
import numpy as np

import nbgrad

H = nbgrad.float16


def half(a, device):
    return nbgrad.tensor(np.asarray(a, np.float16), dtype=H, device=device)


def host(x):
    return x.cpu().numpy()


def bits(a):
    return np.asarray(a, np.float16).view(np.int16)


A = np.array([[0.377, -0.396, 1.92], [-1.607, 1.085, 3.912]], np.float16)
B = np.array([[-6.98, -0.656, -3.74], [-1.633, -0.949, 1.235]], np.float16)


def test_arithmetic_rounds_once_from_float32(device):
    got = half(A, device) * half(B, device) + half(A, device)
    a32, b32 = A.astype(np.float32), B.astype(np.float32)
    expected = (np.float16(a32 * b32).astype(np.float32) + a32).astype(np.float16)
    assert got.dtype is H and got.device.type == device
    np.testing.assert_array_equal(bits(host(got)), bits(expected))
    assert (nbgrad.ones(3, dtype=H, device=device) + 1).tolist() == [2.0, 2.0, 2.0]
    assert (half([3.0], device) * 1.0004).item() == 3.001953125       # float32 scalar
    assert (half([0.377197265625], device) + 0.1).item() == 0.47705078125   # half scalar


def test_reductions_and_matmul_accumulate_in_float32(device):
    x = half([2048.0, 1.0, 1.0], device)
    assert x.sum().item() == 2050.0
    assert x.sum().dtype is H
    assert (x.reshape(1, 3) @ half(np.ones((3, 1)), device)).tolist() == [[2050.0]]
    values, idx = half(A, device).max(1)
    np.testing.assert_array_equal(bits(host(values)), bits(A.max(1)))
    assert idx.tolist() == A.argmax(1).tolist()
    s = half(A, device).softmax(1)
    assert s.dtype is H
    np.testing.assert_allclose(host(s).astype(np.float32).sum(1), [1, 1], atol=2e-3)


def test_moves_casts_and_fill_keep_bits(device):
    special = np.array([-0.0, np.nan, np.inf, 65504], np.float16)
    x = half(special, device)
    np.testing.assert_array_equal(bits(host(x.clone())), bits(special))
    np.testing.assert_array_equal(bits(host(nbgrad.where(nbgrad.tensor([True, False, True, False], device=device),
                                                         x, half(np.ones(4), device)))),
                                  bits(np.where([True, False, True, False], special, np.float16(1))))
    assert host(x.float()).dtype == np.float32
    assert nbgrad.tensor([1 + 2 ** -11 + 2 ** -40], dtype=nbgrad.float64, device=device).half().item() == 1.0
    assert nbgrad.full((2,), 0.1, dtype=H, device=device).tolist() == [0.0999755859375] * 2
    assert half([2.7, -2.7], device).long().tolist() == [2, -2]


def test_index_put_accumulate_and_gradients(device):
    v = half([1000.0, 0.3, 0.3, 0.3], device)
    i = nbgrad.tensor([0, 0, 0, 0], device=device)
    assert nbgrad.zeros(1, dtype=H, device=device).index_put_((i,), v, accumulate=True).item() == 1001.5
    assert nbgrad.zeros(1, dtype=H, device=device).scatter_add(0, i, v).item() == 1001.0
    x = half([[0.5, -1.25], [2.0, 3.0]], device).requires_grad_()
    w = half([[0.1, 0.2], [0.3, 0.7]], device).requires_grad_()
    (x @ w).tanh().sum().backward()
    assert x.grad.dtype is H and w.grad.dtype is H
    # recorded from PyTorch 2.13 CPU
    assert x.grad.tolist() == [[0.20556640625, 0.6748046875], [0.04119873046875, 0.126220703125]]
    assert w.grad.tolist() == [[1.169921875, 0.34130859375], [-0.0478515625, -0.6435546875]]


def _loss_and_adam(device):
    x = half([[0.377, -0.396, 1.921], [-1.607, 1.085, 3.912]], device).requires_grad_()
    loss = nbgrad.nn.functional.cross_entropy(x, nbgrad.tensor([0, 2], device=device))
    loss.backward()
    assert loss.dtype is H and x.grad.dtype is H
    p = nbgrad.nn.Parameter(half([0.5, -1.25, 2.0], device))
    opt = nbgrad.optim.Adam([p], lr=0.01)
    (p * p * p).sum().backward()
    opt.step()
    return loss.item(), x.grad.tolist(), p.detach().tolist()


def test_cross_entropy_and_adam_give_the_cpu_bits(device):
    got = _loss_and_adam(device)
    assert got == _loss_and_adam("cpu")
    assert got[2] == [0.489990234375, -1.259765625, 1.990234375]    # PyTorch 2.13 CPU
