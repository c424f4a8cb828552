"""Legacy names PyTorch code still uses: autograd.Variable, the typed constructors
(FloatTensor, LongTensor, ...) and their isinstance tests, set/get_default_device
(PyTorch 2.13's behaviour, recorded here)."""
import numpy as np
import pytest

import nbgrad

Variable = nbgrad.autograd.Variable     # (by attribute: the PyTorch stand-in loads no second torch.autograd)


def test_variable_is_a_detached_alias():
    x = nbgrad.ones(2)
    v = Variable(x)
    assert v is not x and v._storage is x._storage and v._base is None
    assert not v.requires_grad and v.is_leaf
    with nbgrad.no_grad():
        x.add_(1)
    assert v._version == 1 and v.tolist() == [2.0, 2.0]           # the version counter is shared
    w = Variable(x, requires_grad=True)
    assert w.requires_grad and w.is_leaf and not x.requires_grad
    (w * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0] and x.grad is None
    y = nbgrad.ones(2, requires_grad=True) * 2
    u = Variable(y)
    assert u.grad_fn is None and not u.requires_grad and u.is_leaf
    assert isinstance(x, Variable) and isinstance(u, Variable) and not isinstance(3, Variable)
    assert Variable().shape == (0,)
    with pytest.warns(UserWarning, match="volatile was removed"):
        Variable(x, volatile=True)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1, 2])


@pytest.mark.parametrize("name, dtype", [("FloatTensor", nbgrad.float32), ("DoubleTensor", nbgrad.float64),
                                         ("HalfTensor", nbgrad.float16), ("BFloat16Tensor", nbgrad.bfloat16),
                                         ("LongTensor", nbgrad.int64),
                                         ("IntTensor", nbgrad.int32), ("ShortTensor", nbgrad.int16),
                                         ("CharTensor", nbgrad.int8), ("ByteTensor", nbgrad.uint8),
                                         ("BoolTensor", nbgrad.bool)])
def test_legacy_constructors(name, dtype):
    cls = getattr(nbgrad, name)
    assert cls.dtype is dtype
    t = cls([1, 0, 1])
    assert t.dtype is dtype and t.tolist() == nbgrad.tensor([1, 0, 1], dtype=dtype).tolist()
    assert cls(2, 3).shape == (2, 3) and cls(2, 3).dtype is dtype
    assert cls(nbgrad.Size([4])).shape == (4,)
    assert cls(3).shape == (3,)
    assert cls().shape == (0,) and cls([]).shape == (0,)
    assert cls(np.array([[1, 0]])).shape == (1, 2)
    assert isinstance(t, cls) and isinstance(nbgrad.zeros(1, dtype=dtype), cls)
    assert not isinstance(t, nbgrad.FloatTensor if dtype is not nbgrad.float32 else nbgrad.DoubleTensor)
    assert not issubclass(cls, nbgrad.Tensor) and isinstance(t, nbgrad.Tensor)
    assert t.type() == f"nbgrad.{name}"
    cuda_cls = getattr(nbgrad.cuda, name)                 # the CUDA type: no CPU tensor is one
    assert cuda_cls.dtype is dtype and not isinstance(t, cuda_cls) and cuda_cls is not cls


def test_legacy_constructor_details():
    assert nbgrad.FloatTensor((2, 3)).tolist() == [2.0, 3.0]         # a tuple is data
    assert nbgrad.LongTensor([1.7, 2]).tolist() == [1, 2]
    t = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    a = nbgrad.FloatTensor(t)                                        # same dtype: an alias
    assert a is not t and a._base is t and a.grad_fn.name() == "AliasBackward0"
    with pytest.raises(TypeError, match="expected TensorOptions\\(dtype=float"):
        nbgrad.FloatTensor(nbgrad.tensor([1, 2]))
    with pytest.raises(TypeError, match="new\\(\\): data must be a sequence \\(got float\\)"):
        nbgrad.FloatTensor(2.5)
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1: \\[-1\\]"):
        nbgrad.FloatTensor(-1)
    with pytest.raises(TypeError, match="new\\(\\) received an invalid combination of arguments"):
        nbgrad.FloatTensor(2, requires_grad=True)
    assert nbgrad.FloatTensor([1], device="cpu").device.type == "cpu"
    assert nbgrad.ones(2).type(nbgrad.DoubleTensor).dtype == nbgrad.float64
    assert nbgrad.ones(2).type("torch.LongTensor").dtype == nbgrad.int64


@pytest.fixture
def restore_default_device():
    yield
    nbgrad.set_default_device(None)


def test_default_device(restore_default_device):
    assert nbgrad.get_default_device() == nbgrad.device("cpu")
    nbgrad.set_default_device("cpu")
    assert nbgrad.get_default_device() == nbgrad.device("cpu")
    assert isinstance(nbgrad.get_default_device(), nbgrad.device)
    nbgrad.set_default_device(None)
    assert nbgrad.get_default_device() == nbgrad.device("cpu")
    assert nbgrad.zeros(2).device.type == "cpu"


def test_device_as_a_context_manager(restore_default_device):
    with nbgrad.device("cpu") as d:
        assert d == nbgrad.device("cpu") and nbgrad.get_default_device() == d
        assert nbgrad.ones(1).device == d
    assert nbgrad.get_default_device() == nbgrad.device("cpu")


def test_set_default_tensor_type():
    try:
        with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
            nbgrad.set_default_tensor_type(nbgrad.DoubleTensor)
        assert nbgrad.get_default_dtype() == nbgrad.float64 and nbgrad.zeros(1).dtype == nbgrad.float64
        with pytest.warns(UserWarning):
            nbgrad.set_default_tensor_type("torch.FloatTensor")
        assert nbgrad.zeros(1).dtype == nbgrad.float32
        with pytest.warns(UserWarning), \
                pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
            nbgrad.set_default_tensor_type(nbgrad.LongTensor)
    finally:
        nbgrad.set_default_dtype(nbgrad.float32)


def test_bfloat16_legacy_type_refuses_another_dtype_with_the_cpp_names():
    with pytest.raises(TypeError, match=r"expected TensorOptions\(dtype=c10::BFloat16, device=cpu.*\(got "
                                        r"TensorOptions\(dtype=float, device=cpu"):
        nbgrad.BFloat16Tensor(nbgrad.zeros(2))
    with pytest.raises(TypeError, match=r"expected TensorOptions\(dtype=float, .*got TensorOptions\(dtype=c10::BFloat16"):
        nbgrad.FloatTensor(nbgrad.zeros(2, dtype=nbgrad.bfloat16))
    assert isinstance(nbgrad.zeros(2, dtype=nbgrad.bfloat16), nbgrad.BFloat16Tensor)
