"""What is particular to CUDA tensors: devices, host copies, interop, modules and a training step."""
import numpy as np
import pytest

import nbgrad
from cuda_available import requires_cuda

pytestmark = requires_cuda


def test_device_attributes_and_moves():
    x = nbgrad.tensor([1.0, 2.0], device="cuda")
    assert x.is_cuda and not x.is_cpu
    assert str(x.device) == "cuda:0" and x.get_device() == 0
    c = x.cpu()
    assert c.device.type == "cpu" and c.tolist() == [1.0, 2.0]
    assert c.cuda().device == x.device
    assert nbgrad.ones(2).to("cuda").is_cuda
    assert nbgrad.ones(2).to(x).is_cuda
    y = x.to("cuda", nbgrad.float64)
    assert y.is_cuda and y.dtype is nbgrad.float64
    assert x.to("cuda") is x


def test_to_records_gradient_across_devices():
    a = nbgrad.tensor([1.0, -2.0], requires_grad=True)
    (a.cuda() * 3).sum().backward()
    assert a.grad.device.type == "cpu"
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 3.0])


def test_mixed_devices_raise():
    a = nbgrad.ones(2, device="cuda")
    b = nbgrad.ones(2)
    msg = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    with pytest.raises(RuntimeError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        a + b
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        nbgrad.ones(2, 2, device="cuda") @ nbgrad.ones(2, 2)


def test_cpu_scalar_tensor_mixes_with_cuda_tensor():
    # PyTorch allows 0-d CPU tensors in CUDA ops
    a = nbgrad.ones(2, device="cuda")
    out = a * nbgrad.tensor(3.0)
    assert out.is_cuda and out.tolist() == [3.0, 3.0]


def test_numpy_raises_and_host_copies_work():
    x = nbgrad.tensor([[1.5, 2.0]], device="cuda")
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        x.numpy()
    with pytest.raises(TypeError):
        np.asarray(x)
    assert x[0, 0].item() == 1.5
    assert x.tolist() == [[1.5, 2.0]]
    assert float(x.sum()) == 3.5
    assert repr(x) == "tensor([[1.5000, 2.0000]], device='cuda:0')"
    assert "device='cuda:0'" in str(nbgrad.ones(2, device="cuda", requires_grad=True))


def test_cuda_array_interface_round_trip():
    x = nbgrad.arange(12, dtype=nbgrad.float32, device="cuda").reshape(3, 4)
    desc = x.__cuda_array_interface__
    assert desc["shape"] == (3, 4) and desc["typestr"] == "<f4" and desc["strides"] is None
    assert desc["data"][0] == x.data_ptr()
    v = x.t()[1:]
    assert v.__cuda_array_interface__["strides"] == (4, 16)
    y = nbgrad.as_tensor(v)
    assert y is v
    shared = nbgrad.as_tensor(_Exposes(v.__cuda_array_interface__, v))
    assert shared.is_cuda and shared.data_ptr() == v.data_ptr()
    np.testing.assert_array_equal(shared.cpu().numpy(), np.arange(12.0).reshape(3, 4).T[1:])
    shared[0, 0] = 100.0  # writes through to x: zero-copy
    assert x[0, 1].item() == 100.0
    with pytest.raises(RuntimeError, match="requires grad"):
        nbgrad.ones(2, device="cuda", requires_grad=True).__cuda_array_interface__
    with pytest.raises(AttributeError):
        nbgrad.ones(2).__cuda_array_interface__


class _Exposes:
    def __init__(self, desc, owner):
        self.__cuda_array_interface__ = desc
        self.owner = owner


def test_numba_device_array_interop():
    from numba import cuda
    d = cuda.to_device(np.arange(6, dtype=np.float64))
    t = nbgrad.as_tensor(d)
    assert t.is_cuda and t.tolist() == [0, 1, 2, 3, 4, 5]
    t.mul_(2)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(6) * 2.0)
    back = cuda.as_cuda_array(t) if hasattr(cuda, "as_cuda_array") and not nbgrad.cuda.is_simulated() else None
    if back is not None:
        np.testing.assert_array_equal(back.copy_to_host(), np.arange(6) * 2.0)


def test_nbgrad_cuda_module():
    nbgrad.cuda.synchronize()
    assert nbgrad.cuda.is_available() == (not nbgrad.cuda.is_simulated())
    assert nbgrad.cuda.device_count() == (1 if nbgrad.cuda.is_available() else 0) or nbgrad.cuda.device_count() >= 1


def test_module_to_cuda_and_training_step():
    nn, optim, F = nbgrad.nn, nbgrad.optim, nbgrad.nn.functional
    nbgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    ref = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    ref.load_state_dict(model.state_dict())
    model.to("cuda")
    assert all(p.is_cuda for p in model.parameters())
    x = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)
    y = np.array([0, 1, 2, 0, 1, 2])
    for net, dev in ((model, "cuda"), (ref, "cpu")):
        opt = optim.Adam(net.parameters(), lr=0.01) if dev else None
        for _ in range(2):
            opt.zero_grad()
            loss = F.cross_entropy(net(nbgrad.tensor(x, device=dev)), nbgrad.tensor(y, device=dev))
            loss.backward()
            opt.step()
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        np.testing.assert_allclose(p.detach().cpu().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-5, err_msg=name)


def test_sgd_momentum_matches_cpu():
    rng = np.random.default_rng(3)
    w0 = rng.normal(size=(3, 2)).astype(np.float32)
    results = []
    for dev in ("cuda", "cpu"):
        w = nbgrad.tensor(w0, device=dev, requires_grad=True)
        opt = nbgrad.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True)
        for _ in range(3):
            opt.zero_grad()
            ((w * w).sum() + w.sum()).backward()
            opt.step()
        results.append(w.detach().cpu().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)


@pytest.mark.skipif(not nbgrad.cuda.is_simulated(), reason="the simulator's shared arrays")
def test_simulator_threads_of_a_block_share_one_shared_array(monkeypatch):
    # the simulator made a call site's shared array at the first call, unlocked: threads that
    # both missed got arrays of their own (a reduction summed stale memory, rarely); a slow
    # allocation makes every thread miss at once
    import threading
    import time
    from numba.cuda.simulator import kernelapi
    nbgrad.backends.get_backend("cuda")         # (its simulator shims)
    empty = np.empty

    def slow_empty(*args, **kwargs):
        time.sleep(0.005)
        return empty(*args, **kwargs)

    monkeypatch.setattr(np, "empty", slow_empty)
    shared = kernelapi.FakeCUDAShared(0)
    got = [None] * 8
    barrier = threading.Barrier(8)

    def thread(i):
        barrier.wait()
        got[i] = shared.array(16, np.float64)   # (one call site for all)

    threads = [threading.Thread(target=thread, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(a) for a in got}) == 1 and got[0].shape == (16,)
    other = shared.array(4, np.float32)         # (another call site: another array)
    assert other is not got[0] and other.dtype == np.float32
