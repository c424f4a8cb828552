"""out= and printing on both devices (tiny shapes for the simulator)."""
import warnings

import numpy as np
import pytest

import nbgrad


def test_out_writes_resizes_and_grows_storage(device):
    a = nbgrad.tensor([1.0, 2.0, 3.0], device=device)
    out = nbgrad.empty(1, device=device)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        r = nbgrad.mul(a, 2, out=out)
    assert r is out and out.device == a.device and out._version == 1
    np.testing.assert_allclose(out.cpu().numpy(), [2.0, 4.0, 6.0])
    v, i = nbgrad.empty(0, device=device), nbgrad.empty(0, dtype=nbgrad.int64, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbgrad.max(a.reshape(1, 3), 1, out=(v, i))
    assert v.cpu().tolist() == [3.0] and i.cpu().tolist() == [2]
    z = nbgrad.zeros(2, 2, out=nbgrad.empty(0, dtype=nbgrad.int32, device=device))
    assert z.dtype is nbgrad.int32 and z.cpu().tolist() == [[0, 0], [0, 0]]


def test_repr_names_the_device(device):
    t = nbgrad.tensor([[1.5, 2.0]], device=device, requires_grad=True)
    suffix = "" if device == "cpu" else ", device='cuda:0'"
    assert repr(t) == f"tensor([[1.5000, 2.0000]]{suffix}, requires_grad=True)"
