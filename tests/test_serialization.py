"""nbgrad.save / nbgrad.load: bit-exact round trips, optimizer state, PyTorch interop through
safetensors, refusal of truncated/corrupted/hostile files, atomic replacement."""
import io
import json
import os
import pickle
import struct

import numpy as np
import pytest

import nbgrad
from nbgrad import nn, optim


def model_and_optimizer():
    nbgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = optim.Adam(model.parameters(), lr=1e-3, amsgrad=True)
    model(nbgrad.randn(5, 4)).sum().backward()
    opt.step()
    return model, opt


def assert_same(a, b):
    if isinstance(a, nbgrad.Tensor):
        assert isinstance(b, nbgrad.Tensor) and a.dtype == b.dtype and a.shape == b.shape
        assert a.detach().numpy().tobytes() == b.numpy().tobytes()
    elif isinstance(a, dict):
        assert type(a) is type(b) and list(a) == list(b)
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    else:
        assert type(a) is type(b) and (a == b or (a != a and b != b))


def test_state_dict_round_trip_is_bit_exact(tmp_path):
    model, _ = model_and_optimizer()
    sd = model.state_dict()
    path = tmp_path / "model.safetensors"
    nbgrad.save(sd, path)
    loaded = nbgrad.load(path)
    assert_same(sd, loaded)
    fresh = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    fresh.load_state_dict(loaded)
    x = nbgrad.randn(2, 4)
    assert model(x).detach().numpy().tobytes() == fresh(x).detach().numpy().tobytes()


def test_optimizer_state_and_mixed_objects_round_trip(tmp_path):
    model, opt = model_and_optimizer()
    checkpoint = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3, "loss": 0.25,
                  "name": "mlp", "flags": [True, None, (1, 2.5)], "nan": float("nan"),
                  "dtypes": {"i": nbgrad.arange(3), "b": nbgrad.tensor([True, False]),
                             "d": nbgrad.tensor(2.5, dtype=nbgrad.float64), "empty": nbgrad.zeros(0, 3)}}
    nbgrad.save(checkpoint, str(tmp_path / "ckpt"))
    loaded = nbgrad.load(str(tmp_path / "ckpt"))
    assert_same(checkpoint, loaded)
    assert list(loaded["optimizer"]["state"]) == [0, 1, 2, 3]
    opt2 = optim.Adam(model.parameters())
    opt2.load_state_dict(loaded["optimizer"])
    assert opt2.param_groups[0]["betas"] == (0.9, 0.999)


def test_file_objects_and_single_tensors():
    buf = io.BytesIO()
    t = nbgrad.randn(3, 4).t()          # non-contiguous is saved by value
    nbgrad.save(t, buf)
    buf.seek(0)
    out = nbgrad.load(buf)
    np.testing.assert_array_equal(out.numpy(), t.numpy())


def test_pytorch_reads_nbgrad_files_and_back(tmp_path):
    torch = pytest.importorskip("torch", reason="PyTorch not installed")
    st = pytest.importorskip("safetensors.torch")
    model, _ = model_and_optimizer()
    sd = model.state_dict()
    nbgrad.save(sd, tmp_path / "a.safetensors")
    theirs = st.load_file(str(tmp_path / "a.safetensors"))
    assert set(theirs) == set(sd)
    for k in sd:
        np.testing.assert_array_equal(theirs[k].numpy(), sd[k].numpy())
    tmodel = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    tmodel.load_state_dict(theirs)
    st.save_file(tmodel.state_dict(), str(tmp_path / "b.safetensors"))
    ours = nbgrad.load(tmp_path / "b.safetensors")
    assert set(ours) == set(sd)
    for k in sd:
        assert ours[k].numpy().tobytes() == sd[k].numpy().tobytes()


def test_truncated_files_raise_never_garbage(tmp_path):
    model, opt = model_and_optimizer()
    path = tmp_path / "c.safetensors"
    nbgrad.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, path)
    data = path.read_bytes()
    bad = tmp_path / "bad.safetensors"
    for cut in range(0, len(data), 97):
        bad.write_bytes(data[:cut])
        with pytest.raises((ValueError, RuntimeError)):
            nbgrad.load(bad)


def test_corrupted_tensor_bytes_are_detected(tmp_path):
    path = tmp_path / "d.safetensors"
    nbgrad.save({"w": nbgrad.ones(100)}, path)
    data = bytearray(path.read_bytes())
    data[-5] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="corrupted"):
        nbgrad.load(path)


def _file_with_header(header, payload=b""):
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + payload


@pytest.mark.parametrize("blob", [
    b"",
    b"\x00" * 7,
    struct.pack("<Q", 2 ** 63) + b"{}",
    struct.pack("<Q", 10) + b"not json!!",
    _file_with_header([1, 2, 3]),
    _file_with_header({"w": {"dtype": "F32", "shape": [1000000], "data_offsets": [0, 4000000]}}, b"\0" * 16),
    _file_with_header({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                       "__metadata__": {"nbgrad.structure": '{"T": "other"}'}}, b"\0" * 8),
    _file_with_header({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                       "__metadata__": {"nbgrad.structure": "[" * 100000}}, b"\0" * 8),
    _file_with_header({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                       "__metadata__": {"nbgrad.structure": '{"X": 1}'}}, b"\0" * 8),
    _file_with_header({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                       "__metadata__": {"nbgrad.structure": 5}}, b"\0" * 8),
])
def test_hostile_or_malformed_files_raise(tmp_path, blob):
    path = tmp_path / "e.safetensors"
    path.write_bytes(blob)
    with pytest.raises(ValueError):
        nbgrad.load(path)


def test_load_never_unpickles(tmp_path):
    class Boom:
        def __reduce__(self):
            return (os.system, ("echo pwned > " + str(tmp_path / "pwned"),))
    path = tmp_path / "f.pt"
    path.write_bytes(pickle.dumps({"x": Boom()}))
    with pytest.raises(ValueError):
        nbgrad.load(path)
    assert not (tmp_path / "pwned").exists()


def test_unsupported_objects_are_refused(tmp_path):
    with pytest.raises(TypeError, match="cannot save an object of type object"):
        nbgrad.save({"x": object()}, tmp_path / "g")
    assert not (tmp_path / "g").exists()


def test_interrupted_save_keeps_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "h.safetensors"
    nbgrad.save({"w": nbgrad.ones(3)}, path)
    before = path.read_bytes()

    def fail(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(KeyboardInterrupt):
        nbgrad.save({"w": nbgrad.zeros(3)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.safetensors"]   # no temp file left behind
    assert nbgrad.load(path)["w"].tolist() == [1.0, 1.0, 1.0]
