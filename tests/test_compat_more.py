"""nbgrad.jit, frombuffer, cond, the deprecated amp spellings, torch.cpu, backends.cuda.matmul,
nn.DataParallel and Tensor.pin_memory / is_pinned / storage against PyTorch 2.13's recorded
behaviour (CPU, no accelerator)."""
import array
import math
import os
import re
import warnings

import numpy as np
import pytest

import nbgrad

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
nbgrad_only = pytest.mark.skipif(AGAINST_TORCH, reason="a documented departure of nbgrad from PyTorch")
# the DeprecationWarnings of torch.jit's entry points are checked where recorded; elsewhere, quiet
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.:DeprecationWarning")


def _recorded(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, [(w.category, str(w.message)) for w in caught]


# --------------------------------------------------------------------------- #
# jit

class _Net(nbgrad.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nbgrad.nn.Linear(2, 3)

    def forward(self, x):
        return self.lin(x) * 2


def _jit_deprecation(name, use="switch to `torch.compile` or `torch.export`."):
    return (DeprecationWarning, f"`torch.jit.{name}` is deprecated. Please {use}")


def test_jit_script_function_and_module():
    def f(x):
        "doc of f"
        return x * 2 + 1

    sf, caught = _recorded(nbgrad.jit.script, f)
    assert caught == [_jit_deprecation("script")]
    assert isinstance(sf, nbgrad.jit.ScriptFunction)
    assert sf(nbgrad.ones(2)).tolist() == [3.0, 3.0]
    assert sf.name == "f" and sf.__doc__ == "doc of f"
    assert nbgrad.jit.script(sf) is sf
    with pytest.raises(TypeError, match="No constructor defined"):
        nbgrad.jit.ScriptFunction()

    net = _Net()
    sm, caught = _recorded(nbgrad.jit.script, net)
    assert caught == [_jit_deprecation("script")]
    assert isinstance(sm, nbgrad.nn.Module)
    assert isinstance(sm, nbgrad.jit.ScriptModule) and isinstance(sm, nbgrad.jit.RecursiveScriptModule)
    assert sm.lin.weight is net.lin.weight
    assert list(sm.state_dict()) == ["lin.weight", "lin.bias"]
    x = nbgrad.ones(1, 2)
    assert nbgrad.equal(sm(x), net(x))
    assert nbgrad.jit.script(sm) is sm
    assert not isinstance(_Net(), nbgrad.jit.ScriptModule)

    class Point:
        def __init__(self, x: int):
            self.x = x
    assert nbgrad.jit.script(Point) is Point
    with pytest.raises(TypeError, match=re.escape("<class 'int'> is a built-in class")):
        nbgrad.jit.script(3)
    with pytest.raises(TypeError, match=re.escape("<class 'str'> is a built-in class")):
        nbgrad.jit.script("abc")


def test_jit_script_module_subclass():
    class Scale(nbgrad.jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, 2.0]))

        @nbgrad.jit.script_method
        def forward(self, x):
            return x * self.w

    m = Scale()
    y = m(nbgrad.ones(2))
    assert y.tolist() == [1.0, 2.0] and y.grad_fn.name() == "MulBackward0"
    assert isinstance(m, nbgrad.jit.ScriptModule) and isinstance(m, nbgrad.nn.Module)


def test_jit_trace_runs_the_example_once_while_tracing():
    seen = []

    def g(x, y):
        seen.append(nbgrad.jit.is_tracing())
        return x + y

    traced, caught = _recorded(nbgrad.jit.trace, g, (nbgrad.ones(2), nbgrad.ones(2)), check_trace=False)
    assert caught == [_jit_deprecation("trace")]
    assert seen == [True]
    assert isinstance(traced, nbgrad.jit.ScriptFunction)
    assert traced(nbgrad.ones(2), nbgrad.zeros(2)).tolist() == [1.0, 1.0]
    assert nbgrad.jit.is_tracing() is False and nbgrad.jit.is_scripting() is False
    # a single tensor is the one positional input
    one = nbgrad.jit.trace(lambda x: x.sum(), nbgrad.ones(3), check_trace=False)
    assert one(nbgrad.ones(4)).item() == 4.0

    with pytest.raises(RuntimeError, match=re.escape(
            "Type 'Tuple[int]' cannot be traced. Only Tensors and (possibly nested) Lists, Dicts, and Tuples of "
            "Tensors can be traced")):
        nbgrad.jit.trace(lambda x: x, (3,), check_trace=False)
    with pytest.raises(RuntimeError, match=re.escape(
            "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from traced "
            "functions")):
        nbgrad.jit.trace(lambda x: 3, nbgrad.ones(3), check_trace=False)


def test_jit_trace_module():
    net = _Net()
    traced, caught = _recorded(nbgrad.jit.trace, net, nbgrad.ones(1, 2), check_trace=False)
    assert caught == [_jit_deprecation("trace"), _jit_deprecation("trace_method")]
    assert isinstance(traced, nbgrad.jit.TopLevelTracedModule) and isinstance(traced, nbgrad.jit.ScriptModule)
    assert not isinstance(traced, nbgrad.jit.RecursiveScriptModule)
    assert traced.lin.weight is net.lin.weight and traced.training
    assert nbgrad.equal(traced(nbgrad.ones(1, 2)), net(nbgrad.ones(1, 2)))
    tm = nbgrad.jit.trace_module(net, {"forward": (nbgrad.ones(1, 2),)}, check_trace=False)
    assert isinstance(tm, nbgrad.jit.TopLevelTracedModule)
    with pytest.raises(AttributeError, match="expected torch.nn.Module as the first argument"):
        nbgrad.jit.trace_module(lambda x: x, {"forward": nbgrad.ones(1)})
    with pytest.raises(AttributeError, match=re.escape("expected a dictionary of (method_name, input) pairs")):
        nbgrad.jit.trace_module(nbgrad.nn.Linear(1, 1), nbgrad.ones(1))


def test_jit_markers_annotate_final_error():
    def h(x):
        return x + 1
    for mark in (nbgrad.jit.ignore, nbgrad.jit.unused, nbgrad.jit.export):
        out, caught = _recorded(mark, h)
        assert out is h and out(1) == 2 and caught == []
    deco, caught = _recorded(nbgrad.jit.ignore, drop=True)
    assert caught == [(FutureWarning, "ignore(True) has been deprecated. TorchScript will now drop the function "
                                      "call on compilation. Use torch.jit.unused now. {}")]
    assert deco(h) is h
    with pytest.raises(RuntimeError, match="Argument to @torch.jit.ignore must be a bool or a function but got 3"):
        nbgrad.jit.ignore(3)
    value = [1]
    assert nbgrad.jit.annotate(list, value) is value
    assert nbgrad.jit.Final[int] is not None and str(nbgrad.jit.Final) == "typing.Final"
    assert issubclass(nbgrad.jit.Error, Exception) and str(nbgrad.jit.Error("x")) == "x"
    assert issubclass(nbgrad.jit.TracerWarning, Warning)
    assert nbgrad.jit.isinstance([1, 2], list[int]) and not nbgrad.jit.isinstance([1, "a"], list[int])
    assert nbgrad.jit.isinstance({"a": 1}, dict[str, int])
    with pytest.raises(RuntimeError, match=re.escape("Attempted to use list without a contained type. Please add "
                                                     "a contained type, e.g. list[int]")):
        nbgrad.jit.isinstance([1], list)


def test_jit_fork_wait():
    fut, caught = _recorded(nbgrad.jit.fork, lambda a, b=1: a + b, 1, b=5)
    assert caught == [_jit_deprecation("fork", "use `torch.compile` instead.")]
    assert fut.done() and fut.wait() == 6 and fut.value() == 6
    out, caught = _recorded(nbgrad.jit.wait, fut)
    assert out == 6 and caught == [_jit_deprecation("wait", "use `torch.compile` instead.")]

    def boom():
        raise ValueError("boom")
    with pytest.raises(ValueError, match="boom"):     # eager fork runs at once
        nbgrad.jit.fork(boom)
    with pytest.raises(TypeError):
        nbgrad.jit.wait(3)
    f = nbgrad.jit.Future()
    assert not f.done()
    f.set_result(3)
    with pytest.raises(RuntimeError, match="Attempting to mark a completed Future as complete again"):
        f.set_result(4)
    assert f.then(lambda done: done.value() + 1).wait() == 4
    g = nbgrad.jit.Future()
    g.set_exception(ValueError("bad"))
    with pytest.raises(ValueError, match="bad"):
        g.wait()


def test_jit_freeze_optimize_for_inference():
    net = _Net()
    with pytest.raises(RuntimeError, match=re.escape(
            "Freezing expects a ScriptModule as input. Please use torch.jit.script or torch.jit.trace to script "
            "your 'nn.Module'.")):
        nbgrad.jit.freeze(net)
    with pytest.raises(RuntimeError, match=re.escape(
            "optimize_for_inference expects a ScriptModule as input. Please use torch.jit.script or "
            "torch.jit.trace to script your 'nn.Module'.")):
        nbgrad.jit.optimize_for_inference(net)
    sm = nbgrad.jit.script(net)
    with pytest.raises(RuntimeError, match="Freezing is currently only implemented for modules in eval mode"):
        nbgrad.jit.freeze(sm)
    frozen, caught = _recorded(nbgrad.jit.freeze, sm.eval())
    assert caught == [_jit_deprecation("freeze", "use `torch.compile` instead.")]
    assert isinstance(frozen, nbgrad.jit.ScriptModule)
    x = nbgrad.ones(1, 2)
    assert nbgrad.allclose(frozen(x), net(x))
    net = _Net()
    opt = nbgrad.jit.optimize_for_inference(nbgrad.jit.script(net))     # a training module is frozen too
    assert isinstance(opt, nbgrad.jit.ScriptModule)
    assert nbgrad.allclose(opt(x), net(x))


@nbgrad_only
def test_jit_save_load_name_the_way_to_save(tmp_path):
    sm = nbgrad.jit.script(_Net())
    for call in (lambda: nbgrad.jit.save(sm, str(tmp_path / "m.pt")), lambda: nbgrad.jit.load(str(tmp_path))):
        with pytest.raises(NotImplementedError, match=r"nbgrad\.save\(model\.state_dict\(\), f\)"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                call()


# --------------------------------------------------------------------------- #
# top level


def test_vmap_is_func_vmap():
    assert nbgrad.vmap is nbgrad.func.vmap
    out = nbgrad.vmap(lambda r: r.sum())(nbgrad.arange(6.0).reshape(2, 3))
    assert out.tolist() == [3.0, 12.0]


def test_frombuffer_shares_memory():
    raw = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00")
    t = nbgrad.frombuffer(raw, dtype=nbgrad.int32)
    assert t.dtype is nbgrad.int32 and t.tolist() == [1, 2, 3] and not t.requires_grad
    assert t.is_contiguous() and t.storage_offset() == 0
    raw[0] = 9
    assert t.tolist() == [9, 2, 3]
    t[1] = 7
    assert bytes(raw[4:8]) == b"\x07\x00\x00\x00"
    assert nbgrad.frombuffer(raw, dtype=nbgrad.int32, count=2, offset=4).tolist() == [7, 3]
    assert nbgrad.frombuffer(raw, dtype=nbgrad.int8, offset=2).tolist() == [0, 0, 7, 0, 0, 0, 3, 0, 0, 0]
    assert nbgrad.frombuffer(raw, dtype=nbgrad.int32, count=-2).tolist() == [9, 7, 3]
    # unaligned int32 elements from byte 1
    assert nbgrad.frombuffer(raw, dtype=nbgrad.int32, offset=1, count=2).tolist() == [117440512, 50331648]
    floats = array.array("f", [1.0, 2.5])
    ft = nbgrad.frombuffer(floats, dtype=nbgrad.float32, requires_grad=True)
    assert ft.requires_grad and ft.is_leaf and ft.tolist() == [1.0, 2.5]
    a = np.arange(4, dtype=np.float64)
    assert nbgrad.frombuffer(memoryview(a)[1:], dtype=nbgrad.float64).tolist() == [1.0, 2.0, 3.0]
    assert nbgrad.frombuffer(bytearray(b"\x00\x01"), dtype=nbgrad.bool).tolist() == [False, True]
    assert nbgrad.frombuffer(bytearray(b"\x80\x3f"), dtype=nbgrad.bfloat16).tolist() == [1.0]


def test_frombuffer_read_only_buffer_warns_and_shares():
    data = bytes(bytearray(b"\x05\x06\x07"))      # a fresh bytes object (not an interned one)
    nbgrad.set_warn_always(True)                   # PyTorch's TORCH_WARN_ONCE: given every time
    try:
        t, caught = _recorded(nbgrad.frombuffer, data, dtype=nbgrad.uint8)
    finally:
        nbgrad.set_warn_always(False)
    assert t.tolist() == [5, 6, 7]
    assert len(caught) == 1 and caught[0][0] is UserWarning
    assert caught[0][1].startswith(
        "The given buffer is not writable, and PyTorch does not support non-writable tensors. This means you can "
        "write to the underlying (supposedly non-writable) buffer using the tensor. You may want to copy the "
        "buffer to protect its data or make it writable before converting it to a tensor. This type of warning "
        "will be suppressed for the rest of this program.")
    assert t.data_ptr() == np.frombuffer(data, dtype=np.uint8).ctypes.data


def test_frombuffer_errors():
    raw = bytearray(12)
    cases = [
        (dict(dtype=nbgrad.int32, count=0), ValueError, "both buffer length (12) and count (0) must not be 0"),
        (dict(dtype=nbgrad.int32, count=4), ValueError, "requested buffer length (4 * 4 bytes) after offset "
                                                        "(0 bytes) must not be greater than actual buffer length "
                                                        "(12 bytes)"),
        (dict(dtype=nbgrad.int32, offset=-1), ValueError, "offset (-1 bytes) must be non-negative and no greater "
                                                          "than buffer length (12 bytes) minus 1"),
        (dict(dtype=nbgrad.int32, offset=12), ValueError, "offset (12 bytes) must be non-negative and no greater "
                                                          "than buffer length (12 bytes) minus 1"),
        (dict(dtype=nbgrad.int32, offset=1), ValueError, "buffer length (11 bytes) after offset (1 bytes) must "
                                                         "be a multiple of element size (4)"),
        (dict(dtype="int32"), TypeError, "frombuffer(): argument 'dtype' must be torch.dtype, not str"),
        (dict(dtype=nbgrad.int32, count=1.0), TypeError, "frombuffer(): argument 'count' must be int, not float"),
    ]
    for kwargs, exc, message in cases:
        with pytest.raises(exc, match=re.escape(message)):
            nbgrad.frombuffer(raw, **kwargs)
    with pytest.raises(ValueError, match=re.escape("both buffer length (0) and count (-1) must not be 0")):
        nbgrad.frombuffer(bytearray(), dtype=nbgrad.int32)
    with pytest.raises(ValueError, match="object does not implement Python buffer protocol."):
        nbgrad.frombuffer([1, 2, 3], dtype=nbgrad.int32)
    with pytest.raises(RuntimeError, match="could not retrieve buffer from object"):
        nbgrad.frombuffer(np.arange(4.0)[::2], dtype=nbgrad.float64)
    with pytest.raises(TypeError):
        nbgrad.frombuffer(raw)                                  # dtype is required
    with pytest.raises(TypeError):
        nbgrad.frombuffer(raw, nbgrad.int32)                    # and keyword-only
    with pytest.raises(RuntimeError, match="(?i)only Tensors of floating point"):
        nbgrad.frombuffer(bytearray(8), dtype=nbgrad.int32, requires_grad=True)
    assert raw == bytearray(12)


def _sin(a):
    return a.sin()


def _cos(a):
    return a.cos()


def test_cond_python_pred_calls_the_branch():
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    for pred, fn, name in ((True, _sin, "SinBackward0"), (False, _cos, "CosBackward0"), (1, _sin, "SinBackward0"),
                           (0.0, _cos, "CosBackward0")):
        y = nbgrad.cond(pred, _sin, _cos, (x,))
        assert nbgrad.allclose(y, fn(x)) and y.grad_fn.name() == name
    assert nbgrad.cond(True, lambda a, b: a * b, lambda a, b: a, [x, 3]).tolist() == [3.0, 6.0]
    assert nbgrad.cond(True, lambda a: 3, lambda a: 4, (x,)) == 3
    assert nbgrad.cond(False, lambda: nbgrad.ones(1), lambda: nbgrad.zeros(1)).tolist() == [0.0]


def test_cond_tensor_pred_values_and_gradients():
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    y = nbgrad.cond(x.sum() > 0, _sin, _cos, (x,))
    assert nbgrad.allclose(y, x.detach().sin()) and y.requires_grad
    y.sum().backward()
    assert nbgrad.allclose(x.grad, nbgrad.tensor([math.cos(1.0), math.cos(2.0)]))
    x.grad = None
    y = nbgrad.cond(nbgrad.tensor([False]), _sin, _cos, (x,))
    y.sum().backward()
    assert nbgrad.allclose(x.grad, nbgrad.tensor([-math.sin(1.0), -math.sin(2.0)]))


def test_cond_errors():
    x = nbgrad.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=re.escape("Expected pred to be bool or tensor, but got a.")):
        nbgrad.cond("a", _sin, _cos, (x,))
    with pytest.raises(RuntimeError, match=re.escape("Expected pred to be bool or tensor, but got None.")):
        nbgrad.cond(None, _sin, _cos, (x,))
    with pytest.raises(RuntimeError, match=re.escape("Expected pred to be bool or single-element tensor, but got")):
        nbgrad.cond(nbgrad.tensor([True, False]), _sin, _cos, (x,))
    with pytest.raises(RuntimeError, match="Expect both branches to be callable."):
        nbgrad.cond(nbgrad.tensor(True), 3, _cos, (x,))
    with pytest.raises(RuntimeError, match=re.escape(
            "Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of tensor leaves, "
            "but got (3,).")):
        nbgrad.cond(nbgrad.tensor(True), _sin, _cos, (3,))
    with pytest.raises(RuntimeError, match="Expect operands to be a tuple"):
        nbgrad.cond(nbgrad.tensor(True), _sin, _cos, x)


def test_is_storage():
    t = nbgrad.arange(3.0)
    assert nbgrad.is_storage(t.untyped_storage())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert nbgrad.is_storage(t.storage())
    assert not nbgrad.is_storage(t) and not nbgrad.is_storage(3)


def test_interop_threads():
    n = nbgrad.get_num_interop_threads()
    assert isinstance(n, int) and n >= 1
    for bad, message in ((0, "set_num_interop_threads expects a positive integer"),
                         (-1, "set_num_interop_threads expects a positive integer"),
                         ("2", "set_num_interop_threads expects an int, but got str"),
                         (2.0, "set_num_interop_threads expects an int, but got float"),
                         (True, "set_num_interop_threads expects an int, but got bool")):
        with pytest.raises(RuntimeError, match=re.escape(message)):
            nbgrad.set_num_interop_threads(bad)
    again = "Error: cannot set number of interop threads after parallel work has started or " \
            "set_num_interop_threads called"
    try:
        nbgrad.set_num_interop_threads(n)       # settable once a process (another test may have set it)
        assert nbgrad.get_num_interop_threads() == n
    except RuntimeError as exc:
        assert str(exc) == again
    with pytest.raises(RuntimeError, match=re.escape(again)):
        nbgrad.set_num_interop_threads(n)


def test_constants_and_sym_functions():
    assert nbgrad.pi is math.pi and nbgrad.e == math.e and nbgrad.inf is math.inf
    assert math.isnan(nbgrad.nan) and nbgrad.newaxis is None
    assert nbgrad.sym_int(3.7) == 3 and nbgrad.sym_int(-3.7) == -3 and type(nbgrad.sym_int(3.7)) is int
    assert nbgrad.sym_float(3) == 3.0 and type(nbgrad.sym_float(3)) is float
    assert nbgrad.sym_max(3, 4.0) == 4.0 and type(nbgrad.sym_max(3, 2)) is int
    assert nbgrad.sym_min(3, 2.5) == 2.5 and type(nbgrad.sym_max(5, 2.0)) is float and nbgrad.sym_min(1, 2) == 1
    assert nbgrad.sym_not(True) is False and nbgrad.sym_not(0) is True
    with pytest.raises(AssertionError, match="expected .*got <class 'str'>"):
        nbgrad.sym_max("a", 2)


def test_get_autocast_gpu_dtype():
    nbgrad.set_warn_always(True)
    try:
        dtype, caught = _recorded(nbgrad.get_autocast_gpu_dtype)
    finally:
        nbgrad.set_warn_always(False)
    assert dtype is nbgrad.float16
    assert [(c, m.split(" (Triggered internally")[0]) for c, m in caught] == [
        (DeprecationWarning, "torch.get_autocast_gpu_dtype() is deprecated. Please use "
                             "torch.get_autocast_dtype('cuda') instead.")]


# --------------------------------------------------------------------------- #
# deprecated amp spellings, torch.cpu, backends.cuda.matmul


def test_cuda_amp_autocast_and_grad_scaler_warn():
    ac, caught = _recorded(nbgrad.cuda.amp.autocast)
    assert isinstance(ac, nbgrad.autocast)
    assert caught == [(FutureWarning, "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                                      "`torch.amp.autocast('cuda', args...)` instead."),
                      (UserWarning, "CUDA is not available or torch_xla is imported. Disabling autocast.")]
    assert ac.device == "cuda" and ac.fast_dtype is nbgrad.float16
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nbgrad.cuda.amp.autocast():
            assert not nbgrad.is_autocast_enabled("cuda")      # no GPU: disabled
    scaler, caught = _recorded(nbgrad.cuda.amp.GradScaler)
    assert isinstance(scaler, nbgrad.amp.GradScaler) and not scaler.is_enabled()
    assert caught == [(FutureWarning, "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                                      "`torch.amp.GradScaler('cuda', args...)` instead."),
                      (UserWarning, "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")]

    def fwd(ctx, x):
        return x
    out, caught = _recorded(nbgrad.cuda.amp.custom_fwd, fwd)
    assert callable(out) and caught == [
        (FutureWarning, "`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                        "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.")]


def test_cpu_amp_autocast_runs_bfloat16():
    ac, caught = _recorded(nbgrad.cpu.amp.autocast)
    assert caught == [(FutureWarning, "`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                                      "`torch.amp.autocast('cpu', args...)` instead.")]
    assert ac.device == "cpu" and ac.fast_dtype is nbgrad.bfloat16
    a, b = nbgrad.ones(2, 2), nbgrad.ones(2, 2)
    with ac:
        assert nbgrad.is_autocast_enabled("cpu")
        assert (a @ b).dtype is nbgrad.bfloat16
    assert not nbgrad.is_autocast_enabled("cpu")
    scaler, caught = _recorded(nbgrad.cpu.amp.GradScaler)
    assert isinstance(scaler, nbgrad.amp.GradScaler) and scaler.is_enabled()
    assert caught == [(FutureWarning, "`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                                      "`torch.amp.GradScaler('cpu', args...)` instead.")]


def test_cpu_module():
    cpu = nbgrad.cpu
    assert cpu.device_count() == 1 and cpu.is_available() is True and cpu.current_device() == "cpu"
    assert cpu.synchronize() is None and cpu.synchronize("cpu") is None
    assert cpu.is_initialized()
    s = cpu.current_stream()
    assert isinstance(s, cpu.Stream) and cpu.current_stream() is s
    assert cpu.Event().query() is True
    with cpu.stream(s):
        pass


_MATMUL_FLAGS_CHECK = r"""
import sys, numba.cuda
if numba.cuda.is_available():       # a real GPU: nbgrad.backends.cuda is the backend package
    print("ok")
    sys.exit(0)
import nbgrad
m = nbgrad.backends.cuda.matmul
assert nbgrad.backends.cuda.is_built() is False
saved = nbgrad.get_float32_matmul_precision()
assert m.allow_tf32 is False
m.allow_tf32 = True
assert m.allow_tf32 is True and nbgrad.get_float32_matmul_precision() == "high"
m.allow_tf32 = False
assert nbgrad.get_float32_matmul_precision() == "highest"
nbgrad.set_float32_matmul_precision("medium")
assert m.allow_tf32 is True
nbgrad.set_float32_matmul_precision(saved)
for name in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
    assert getattr(m, name) is True
    setattr(m, name, False)
    assert getattr(m, name) is False
    setattr(m, name, (False, False))
    assert getattr(m, name) is False and getattr(m, name + "_split_k") is False
    try:
        setattr(m, name, (True, False))
        raise AssertionError("no error")
    except RuntimeError as e:
        assert "allow_splitk=False is not supported when reduced precision reductions are enabled" in str(e)
    setattr(m, name, [True])
    assert getattr(m, name + "_split_k") is True
    for bad, message in (((), "expects at least one boolean argument"),
                         ((1,), "expects a bool for allow_reduced_precision, but got <class 'int'>"),
                         ((True, 1), "expects a bool for allow_splitk, but got <class 'int'>"),
                         ((True, True, True), "expects at most two boolean arguments")):
        try:
            setattr(m, name, bad)
            raise AssertionError("no error")
        except TypeError as e:
            assert str(e) == f"{name} {message}", str(e)
print("ok")
"""


@pytest.mark.skipif(os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1",
                    reason="runs `import nbgrad` in a fresh process without the CUDA simulator")
def test_backends_cuda_matmul_flags_without_a_gpu():
    # torch.backends.cuda.matmul's switches (scripts set allow_tf32 at their top) on a machine
    # without a GPU, where nbgrad's CUDA backend package does not import: a fresh process,
    # since this test session runs the CUDA simulator (nbgrad.backends.cuda is then the package)
    import subprocess
    import sys
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    r = subprocess.run([sys.executable, "-c", _MATMUL_FLAGS_CHECK], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_data_parallel_without_gpus_calls_the_module():
    lin = nbgrad.nn.Linear(2, 3)
    dp = nbgrad.nn.DataParallel(lin)
    assert isinstance(dp, nbgrad.nn.Module) and dp.module is lin and dp.device_ids == []
    assert not hasattr(dp, "output_device")
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    assert [n for n, _ in dp.named_parameters()] == ["module.weight", "module.bias"]
    assert all(p is q for p, q in zip(dp.parameters(), lin.parameters()))
    x = nbgrad.ones(4, 2)
    y = dp(x)
    assert nbgrad.equal(y, lin(x))
    y.sum().backward()
    assert nbgrad.equal(lin.bias.grad, nbgrad.full((3,), 4.0))
    assert dp(input=x).shape == (4, 3)
    assert repr(dp) == "DataParallel(\n  (module): Linear(in_features=2, out_features=3, bias=True)\n)"
    assert nbgrad.nn.DataParallel(lin, device_ids=[0, 1]).device_ids == []
    dp.eval()
    assert not lin.training
    dp.load_state_dict({"module.weight": nbgrad.zeros(3, 2), "module.bias": nbgrad.zeros(3)})
    assert lin.weight.sum().item() == 0.0
    assert nbgrad.nn.parallel.DataParallel is nbgrad.nn.DataParallel


# --------------------------------------------------------------------------- #
# pin_memory, is_pinned, storage


def test_pin_memory_without_accelerator():
    t = nbgrad.arange(6.0).reshape(2, 3)
    assert t.is_pinned() is False
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available."):
        t.pin_memory()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="CPU device type not an accelerator."):
            t.pin_memory("cpu")
        assert t.is_pinned("cpu") is False
    messages = [(w.category, str(w.message).split(" (Triggered internally")[0]) for w in caught]
    deprecated = "The argument 'device' of Tensor.{}() is deprecated. Please do not pass this argument."
    assert messages == [(DeprecationWarning, deprecated.format("pin_memory")),
                        (DeprecationWarning, deprecated.format("is_pinned")),
                        (DeprecationWarning, deprecated.format("is_pinned"))]


def test_storage_typed_view():
    t = nbgrad.arange(6.0).reshape(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = t.storage()
        t.storage()
    typed = [(w.category, str(w.message)) for w in caught if "TypedStorage" in str(w.message)]
    # once a process: here unless an earlier test asked for a storage first
    assert typed in ([], [(UserWarning, "TypedStorage is deprecated. It will be removed in the future and "
                                        "UntypedStorage will be the only storage class. This should only matter "
                                        "to you if you are using storages directly.  To access UntypedStorage "
                                        "directly, use tensor.untyped_storage() instead of tensor.storage()")])
    assert s.dtype is nbgrad.float32 and s.device == nbgrad.device("cpu")
    assert s.size() == len(s) == 6 and s.element_size() == 4 and s.nbytes() == 24
    assert s.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert s.data_ptr() == t.data_ptr() == t.untyped_storage().data_ptr()
    assert s._untyped_storage.nbytes() == 24 and s._untyped_storage.data_ptr() == t.data_ptr()
    assert s[0] == 0.0 and s[5] == 5.0 and s[-1] == 5.0 and type(s[0]) is float
    with pytest.raises(IndexError, match="index 6 out of range for storage of size 6"):
        s[6]
    with pytest.raises(RuntimeError, match="slices are only supported in UntypedStorage.__getitem__"):
        s[1:3]
    s[0] = 10.0
    assert t[0, 0].item() == 10.0 and list(s)[0] == 10.0
    row = t[1]
    assert row.storage().size() == 6 and row.storage().data_ptr() == t.data_ptr() and row.storage_offset() == 3
    assert nbgrad.arange(3).storage().dtype is nbgrad.int64
    assert nbgrad.ones(2, dtype=nbgrad.float16).storage().element_size() == 2
    assert nbgrad.ones(2, dtype=nbgrad.bfloat16).storage().tolist() == [1.0, 1.0]
    assert nbgrad.tensor([True]).storage().tolist() == [True]
    assert s.clone().tolist() == s.tolist() and s.clone().data_ptr() != s.data_ptr()
    assert not s.is_shared() and not s.is_sparse
    text = repr(nbgrad.tensor([1, 200, 3]).storage())
    assert text.startswith(" 1\n 200\n 3\n[")
    assert text.endswith(f"TypedStorage(dtype={nbgrad.int64}, device=cpu) of size 3]")
