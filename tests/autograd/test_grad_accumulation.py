"""Gradient accumulation in place: the engine adds a node's incoming gradients into a
buffer it alone holds, and a leaf's existing .grad is added to in place (as PyTorch
does when grad mode is off).  These tests pin the values and the aliasing rules
that make the in-place adds safe."""
import numpy as np
import pytest

import nbgrad


def leaf(values):
    return nbgrad.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def test_existing_grad_is_added_to_in_place():
    x = leaf([1.0, 2.0, 3.0])
    (x * 2).sum().backward()
    g0 = x.grad
    version = g0._version
    (x * 3).sum().backward()
    assert x.grad is g0
    np.testing.assert_array_equal(g0.numpy(), [5.0, 5.0, 5.0])
    assert g0._version == version + 1


def test_user_grad_tensor_is_updated_not_replaced():
    x = leaf([1.0, 2.0])
    mine = nbgrad.tensor([10.0, 20.0], dtype=nbgrad.float64)
    x.grad = mine
    (x * x).sum().backward()
    assert x.grad is mine
    np.testing.assert_array_equal(mine.numpy(), [12.0, 24.0])


def test_non_contiguous_grad_accumulates_through_its_strides():
    x = leaf(np.zeros((2, 3)))
    x.grad = nbgrad.zeros(3, 2, dtype=nbgrad.float64).t()      # a transposed view
    (x * nbgrad.arange(6, dtype=nbgrad.float64).reshape(2, 3)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(6.0).reshape(2, 3))
    assert x.grad.stride() == (1, 2)


def test_grad_handed_to_two_nodes_is_not_changed_under_either():
    # s = u + v hands the *same* gradient tensor to u's and v's nodes; u also gets a
    # second contribution.  Adding that into the shared tensor in place would change
    # what v's node sees.
    x = leaf([1.0, 2.0, 3.0])
    w = leaf([0.5, -1.0, 2.0])
    u = x * w
    v = x * 3.0
    out = (u * 4.0 + v * 5.0 + (u + v)) * 2.0     # * 2.0: a dense gradient reaches u + v
    out.sum().backward()
    xn, wn = x.detach().numpy(), w.detach().numpy()
    gu = 2.0 * (1.0 + 4.0)
    gv = 2.0 * (1.0 + 5.0)
    np.testing.assert_allclose(x.grad.numpy(), gu * wn + gv * 3.0, rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), gu * xn, rtol=1e-12)


def test_many_contributions_match_numpy():
    rng = np.random.default_rng(0)
    xn = rng.uniform(-1, 1, 16)
    wn = rng.uniform(0.2, 0.8, 16)
    x, w = leaf(xn), leaf(wn)
    y = x
    ys = []
    for _ in range(50):
        ys.append(y)
        y = y * w
        y = y + x
    y.sum().backward()
    # hand-written reverse pass (as in benchmarks/speed_workloads.py's NumPy W5)
    ys_np = []
    yv = xn
    for _ in range(50):
        ys_np.append(yv)
        yv = yv * wn + xn
    gy, gx, gw = np.ones(16), np.zeros(16), np.zeros(16)
    for yv in reversed(ys_np):
        gx += gy
        gw += gy * yv
        gy = gy * wn
    gx += gy
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-10)
    np.testing.assert_allclose(w.grad.numpy(), gw, rtol=1e-10)


def test_hook_sees_the_summed_gradient_and_keeps_it():
    x = leaf([1.0, 2.0])
    y = x * 2.0
    seen = []
    y.register_hook(lambda g: seen.append(g))
    (y * 3.0 + y * 5.0 + y).sum().backward()
    np.testing.assert_array_equal(seen[0].numpy(), [9.0, 9.0])
    x.grad = None
    (x * 7.0).sum().backward()          # later work must not write into what a hook kept
    np.testing.assert_array_equal(seen[0].numpy(), [9.0, 9.0])


def test_retained_grad_is_not_changed_by_later_accumulation():
    x = leaf([1.0, 2.0])
    y = x * 2.0
    y.retain_grad()
    z = y * 3.0
    (z + z).sum().backward(retain_graph=True)
    kept = y.grad
    np.testing.assert_array_equal(kept.numpy(), [6.0, 6.0])
    (z + z).sum().backward()
    # a retained grad accumulates out of place (PyTorch's retain_grad hook): kept is untouched
    np.testing.assert_array_equal(kept.numpy(), [6.0, 6.0])
    np.testing.assert_array_equal(y.grad.numpy(), [12.0, 12.0])
    np.testing.assert_array_equal(x.grad.numpy(), [24.0, 24.0])


def test_caller_grad_output_is_never_written():
    x = leaf([1.0, 2.0])
    y = x * 1.0
    g = nbgrad.tensor([1.0, 1.0], dtype=nbgrad.float64)
    (y + y).backward(g)
    np.testing.assert_array_equal(g.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_create_graph_keeps_accumulation_differentiable():
    x = leaf([1.0, 2.0])
    y = x * x
    (gx,) = nbgrad.autograd.grad((y + y * 2.0).sum(), x, create_graph=True)
    np.testing.assert_array_equal(gx.detach().numpy(), [6.0, 12.0])
    gx.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0])


@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64])
def test_broadcast_gradients_accumulate(dtype):
    x = nbgrad.ones(3, 1, dtype=dtype, requires_grad=True)
    (x * nbgrad.ones(3, 4, dtype=dtype) + x).sum().backward()
    (x * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 1), 10.0))
