"""PyTorch's keyword forms, as recorded from PyTorch 2.13: out= (resize with its warning,
dtype rules, the same object returned, version bumped, refused under autograd), input=/
other=/NumPy aliases (axis=, keepdims=), argument errors that name the public function,
and operators that return NotImplemented for foreign types."""
import operator
import os
import warnings

import numpy as np
import pytest

import nbgrad
import nbgrad as nb

RESIZED = "An output with one or more elements was resized since it had shape"


def _no_warnings(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn()


# -- out=: the result written into out, out returned, its version bumped ----------------------------
BINARY = [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide),
          ("atan2", np.arctan2), ("maximum", np.maximum), ("minimum", np.minimum), ("pow", np.power)]


@pytest.mark.parametrize("name, ref", BINARY)
def test_out_binary_writes_returns_and_bumps_version(name, ref):
    a = nb.tensor([1.5, 2.0, 3.0])
    b = nb.tensor([0.5, 4.0, 2.0])
    out = nb.empty(3)
    v = out._version
    r = _no_warnings(lambda: getattr(nbgrad, name)(a, b, out=out))
    assert r is out
    assert out._version == v + 1
    np.testing.assert_allclose(out.numpy(), ref(a.numpy(), b.numpy()), rtol=1e-6)


UNARY = [("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt), ("sin", np.sin), ("cos", np.cos),
         ("tanh", np.tanh), ("abs", np.abs), ("neg", np.negative), ("floor", np.floor), ("ceil", np.ceil),
         ("sigmoid", lambda x: 1 / (1 + np.exp(-x))), ("reciprocal", np.reciprocal), ("log1p", np.log1p)]


@pytest.mark.parametrize("name, ref", UNARY)
def test_out_unary(name, ref):
    x = nb.tensor([0.25, 1.5, 2.75])
    out = nb.zeros(3)
    assert getattr(nbgrad, name)(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), ref(x.numpy()), rtol=1e-6)
    assert out._version == 1


def test_out_keeps_a_strided_out_and_writes_through_views():
    base = nb.zeros(3, 2)
    col = base[:, 0]
    nbgrad.add(nb.ones(3), 1, out=col)
    assert base.tolist() == [[2.0, 0.0], [2.0, 0.0], [2.0, 0.0]]
    assert col.stride() == (2,)


@pytest.mark.skipif(os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1",
                    reason="PyTorch gives out the new shape before its storage fails to grow")
def test_an_out_whose_storage_cannot_grow_raises_and_stays_as_it_was():
    # from_numpy's storage (and shared memory) is not resizable: growing it would leave the
    # NumPy array aliasing nothing; PyTorch raises (its out keeps the new shape; nbgrad's, its own)
    a = np.zeros(2)
    out = nbgrad.from_numpy(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="^Trying to resize storage that is not resizable$"):
            nbgrad.add(nb.ones(3, dtype=nb.float64), 1, out=out)
        assert out.shape == (2,) and a.tolist() == [0.0, 0.0]
        b = np.zeros(4)          # shrinking fits: the values land in the array's memory
        out = nbgrad.from_numpy(b)
        nbgrad.add(nb.ones(3, dtype=nb.float64), 1, out=out)
    assert out.tolist() == [2.0, 2.0, 2.0] and b.tolist() == [2.0, 2.0, 2.0, 0.0]


def test_out_of_another_shape_is_resized_with_pytorchs_warning():
    out = nb.empty(2)
    with pytest.warns(UserWarning, match=r"^An output with one or more elements was resized since it had shape "
                                         r"\[2\], which does not match the required output shape \[3\]\. This "
                                         r"behavior is deprecated"):
        nbgrad.add(nb.ones(3), nb.ones(3), out=out)
    assert out.shape == (3,) and out.tolist() == [2.0, 2.0, 2.0] and out.stride() == (1,)
    # an empty out is resized silently
    out = nb.empty(0)
    _no_warnings(lambda: nbgrad.mul(nb.ones(2, 2), 3, out=out))
    assert out.shape == (2, 2) and out.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    # a non-contiguous out of another shape becomes contiguous (PyTorch: stride (1,))
    out = nb.empty(2, 2).t()
    with pytest.warns(UserWarning, match=RESIZED):
        nbgrad.add(nb.ones(3), nb.ones(3), out=out)
    assert out.stride() == (1,)


def test_out_of_a_wider_dtype_is_cast_into():
    out = nb.empty(3, dtype=nb.float64)
    nbgrad.add(nb.ones(3), nb.ones(3), out=out)
    assert out.dtype is nb.float64 and out.tolist() == [2.0, 2.0, 2.0]
    out = nb.empty(3)
    nbgrad.add(nb.ones(3, dtype=nb.int64), nb.ones(3, dtype=nb.int64), out=out)
    assert out.tolist() == [2.0, 2.0, 2.0]
    out = nb.empty(3, dtype=nb.float64)
    nbgrad.exp(nb.zeros(3, dtype=nb.int64), out=out)
    assert out.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("call, message", [
    (lambda o: nbgrad.add(nb.ones(3), nb.ones(3), out=o), "result type Float can't be cast to the desired output type Long"),
    (lambda o: nbgrad.div(nb.ones(3, dtype=nb.int64), 2, out=o), "result type Float can't be cast to the desired output type Long"),
    (lambda o: nbgrad.sqrt(nb.ones(3, dtype=nb.int64), out=o), "result type Float can't be cast to the desired output type Long"),
    (lambda o: nbgrad.mean(nb.ones(2, 3), 0, out=o), "result type Float can't be cast to the desired output type Long"),
])
def test_out_dtype_the_result_cannot_be_cast_to(call, message):
    out = nb.zeros(3, dtype=nb.int64)
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        call(out)
    # (PyTorch's mean writes out before it raises; nbgrad leaves out unchanged)
    assert out.tolist() == [0, 0, 0] and out._version == 0


@pytest.mark.parametrize("call, message", [
    (lambda: nbgrad.neg(nb.ones(3), out=nb.empty(3, dtype=nb.float64)), "Found dtype Double but expected Float"),
    (lambda: nbgrad.abs(nb.ones(3, dtype=nb.int64), out=nb.empty(3)), "Found dtype Float but expected Long"),
    (lambda: nbgrad.clamp(nb.ones(3), 0, 1, out=nb.empty(3, dtype=nb.float64)), "Found dtype Double but expected Float"),
    (lambda: nbgrad.mm(nb.ones(2, 3), nb.ones(3, 2), out=nb.empty(2, 2, dtype=nb.float64)),
     "Expected out tensor to have dtype float, but got double instead"),
    (lambda: nbgrad.matmul(nb.ones(2, 3), nb.ones(3, 2), out=nb.empty(2, 2, dtype=nb.float64)),
     "Expected out tensor to have dtype float, but got double instead"),
    (lambda: nbgrad.argmax(nb.ones(2, 3), 0, out=nb.empty(3)),
     "Expected out tensor to have dtype long int, but got float instead"),
    (lambda: nbgrad.amax(nb.ones(2, 3), 0, out=nb.empty(3, dtype=nb.float64)),
     "Expected the dtype for input and out to match, but got Float for input's dtype and Double for out's dtype."),
    (lambda: nbgrad.where(nb.ones(3) > 0, nb.ones(3), nb.ones(3), out=nb.empty(3, dtype=nb.float64)),
     "Expected out type to be Float but got Double"),
    (lambda: nbgrad.max(nb.ones(2, 3), 1, out=(nb.empty(2), nb.empty(2))),
     "Expected out tensor to have dtype long int, but got float instead"),
    (lambda: nbgrad.sum(nb.ones(2, 2), 0, dtype=nb.float64, out=nb.empty(2)),
     "Expected out tensor to have dtype double, but got float instead"),
    (lambda: nbgrad.zeros(2, dtype=nb.float32, out=nb.empty(3, dtype=nb.int64)),
     "dtype Float does not match dtype of out parameter (Long)"),
])
def test_out_dtype_rules_of_other_ops(call, message):
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value) == message


def test_cat_out_dtype_error_is_a_type_error():
    with pytest.raises(TypeError, match=r"^torch\.cat\(\): input types can't be cast to the desired output type Long$"):
        nbgrad.cat([nb.ones(2), nb.ones(2)], out=nb.empty(4, dtype=nb.int64))
    out = nb.empty(4, dtype=nb.float64)
    assert nbgrad.cat([nb.ones(2), nb.zeros(2)], out=out) is out
    assert out.tolist() == [1.0, 1.0, 0.0, 0.0]
    out = nb.empty(0)
    nbgrad.stack([nb.ones(2), nb.zeros(2)], 1, out=out)
    assert out.tolist() == [[1.0, 0.0], [1.0, 0.0]]


def test_out_refused_when_an_argument_requires_grad():
    msg = "^{}\\(\\): functions with out=\\.\\.\\. arguments don't support automatic differentiation, but one of the arguments requires grad\\.$"
    a = nb.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=msg.format("add")):
        nbgrad.add(a, nb.ones(3), out=nb.empty(3))
    with pytest.raises(RuntimeError, match=msg.format("exp")):
        nbgrad.exp(a, out=nb.empty(3))
    with pytest.raises(RuntimeError, match=msg.format("add")):
        nbgrad.add(nb.ones(3), nb.ones(3), out=nb.empty(3, requires_grad=True))
    with pytest.raises(RuntimeError, match=msg.format("cat")):
        nbgrad.cat([nb.ones(2, requires_grad=True)], out=nb.empty(2))
    with pytest.raises(RuntimeError, match=msg.format("max")):
        nbgrad.max(nb.ones(2, 2, requires_grad=True), 0, out=(nb.empty(2), nb.empty(2, dtype=nb.int64)))
    with pytest.raises(RuntimeError, match=msg.format("aten::ones")):
        nbgrad.ones(2, out=nb.empty(2, requires_grad=True))
    # under no_grad PyTorch writes, and a leaf out keeps requires_grad
    out = nb.empty(3, requires_grad=True)
    with nbgrad.no_grad():
        assert nbgrad.add(a, nb.ones(3), out=nb.empty(3)).tolist() == [2.0, 2.0, 2.0]
        nbgrad.add(nb.ones(3), nb.ones(3), out=out)
    assert out.requires_grad and out.grad_fn is None and out.detach().tolist() == [2.0, 2.0, 2.0]


def test_out_on_reductions():
    x = nb.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    out = nb.empty(3)
    assert nbgrad.sum(x, 0, out=out) is out and out.tolist() == [5.0, 7.0, 9.0]
    assert nbgrad.mean(x, dim=1, out=nb.empty(2)).tolist() == [2.0, 5.0]
    assert nbgrad.prod(x, 0, out=nb.empty(3)).tolist() == [4.0, 10.0, 18.0]
    # sum/prod compute in out's dtype (PyTorch: a float input into a Long out)
    out = nb.empty(3, dtype=nb.int64)
    assert nbgrad.sum(nb.full((2, 3), 1.5), 0, out=out).tolist() == [2, 2, 2]
    # max/min along a dim: a (values, indices) pair, resized
    v, i = nb.empty(3), nb.empty(3, dtype=nb.int64)
    with pytest.warns(UserWarning, match=RESIZED):
        r = nbgrad.max(x, 1, out=(v, i))
    assert r[0] is v and r[1] is i and r.values is v and r.indices is i
    assert v.tolist() == [3.0, 6.0] and i.tolist() == [2, 2]
    v, i = nb.empty(2), nb.empty(2, dtype=nb.int64)
    with pytest.warns(UserWarning, match=RESIZED):
        nbgrad.min(x, dim=1, keepdim=True, out=[v, i])
    assert v.tolist() == [[1.0], [4.0]] and i.tolist() == [[0], [0]]
    with pytest.raises(TypeError):
        nbgrad.max(x, 1, out=nb.empty(2))
    assert nbgrad.max(x, out=nb.empty(())).item() == 6.0


def test_out_on_matmul_clamp_where():
    a, b = nb.tensor([[1.0, 2.0]]), nb.tensor([[3.0], [4.0]])
    out = nb.empty(1, 1)
    assert nbgrad.matmul(a, b, out=out) is out and out.tolist() == [[11.0]]
    assert nbgrad.mm(a, b, out=nb.empty(0)).tolist() == [[11.0]]
    assert nbgrad.bmm(a[None], b[None], out=nb.empty(1, 1, 1)).tolist() == [[[11.0]]]
    assert nbgrad.clamp(nb.tensor([-1.0, 0.5, 3.0]), 0, 1, out=nb.empty(3)).tolist() == [0.0, 0.5, 1.0]
    c = nb.tensor([True, False])
    assert nbgrad.where(c, nb.ones(2), nb.zeros(2), out=nb.empty(2)).tolist() == [1.0, 0.0]


def test_out_on_factories():
    out = nb.empty(3, dtype=nb.int64)
    assert nbgrad.zeros(2, out=out) is out and out.dtype is nb.int64 and out.tolist() == [0, 0]
    assert nbgrad.ones(2, 2, out=nb.empty(0)).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert nbgrad.full((3,), 2.5, out=nb.empty(3, dtype=nb.int64)).tolist() == [2, 2, 2]
    assert nbgrad.linspace(0, 4, 5, out=nb.empty(5, dtype=nb.int64)).tolist() == [0, 1, 2, 3, 4]
    assert nbgrad.empty(2, out=nb.empty(3)).shape == (2,)
    assert nbgrad.rand(2, 3, out=nb.empty(1, dtype=nb.float64)).dtype is nb.float64
    r = nbgrad.randn(4, out=nb.empty(4))
    assert r.shape == (4,)
    with pytest.warns(UserWarning, match=r"^The number of elements in the out tensor of shape \[3\] is 3 which does not "
                                         r"match the computed number of elements 5\."):
        assert nbgrad.arange(5, out=nb.empty(3)).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    with pytest.raises(NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Long'"):
        nbgrad.rand(2, out=nb.empty(2, dtype=nb.int64))
    with pytest.raises(NotImplementedError, match="\"normal_kernel_cpu\" not implemented for 'Long'"):
        nbgrad.randn(2, out=nb.empty(2, dtype=nb.int64))
    out = nbgrad.zeros(2, requires_grad=True, out=nb.empty(2))
    assert out.requires_grad and out.is_leaf


def test_out_must_be_a_tensor_and_methods_take_no_out():
    with pytest.raises(TypeError, match="^add\\(\\): argument 'out' must be Tensor, not list$"):
        nbgrad.add(nb.ones(2), nb.ones(2), out=[1])
    with pytest.raises(TypeError, match="^add\\(\\) got an unexpected keyword argument 'out'$"):
        nb.ones(2).add(nb.ones(2), out=nb.empty(2))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single memory"):
        nbgrad.add(nb.ones(3), nb.ones(3), out=nb.empty(1).expand(3))


def test_out_none_is_no_out():
    assert nbgrad.add(nb.ones(2), 1, out=None).tolist() == [2.0, 2.0]


# -- PyTorch's keyword names and the NumPy aliases ---------------------------------------------------
def test_input_and_other_keywords():
    a, b = nb.tensor([1.0, 2.0]), nb.tensor([3.0, 5.0])
    assert nbgrad.add(input=a, other=b).tolist() == [4.0, 7.0]
    assert nbgrad.add(a, other=b, alpha=2).tolist() == [7.0, 12.0]
    assert nbgrad.sub(input=a, other=b).tolist() == [-2.0, -3.0]
    assert nbgrad.mul(input=a, other=2).tolist() == [2.0, 4.0]
    assert nbgrad.pow(input=a, exponent=2).tolist() == [1.0, 4.0]
    assert nbgrad.exp(input=nb.zeros(2)).tolist() == [1.0, 1.0]
    assert nbgrad.sum(input=a, dim=0).item() == 3.0
    assert nbgrad.matmul(input=a, other=b).item() == 13.0
    assert nbgrad.mm(input=a[None], mat2=b[:, None]).tolist() == [[13.0]]
    assert nbgrad.where(condition=a > 1, input=a, other=b).tolist() == [3.0, 2.0]
    assert nbgrad.clamp(input=a, min=1.5).tolist() == [1.5, 2.0]
    assert nbgrad.lerp(input=a, end=b, weight=0.5).tolist() == [2.0, 3.5]
    assert nbgrad.transpose(input=nb.ones(2, 3), dim0=0, dim1=1).shape == (3, 2)
    assert nbgrad.unsqueeze(input=a, dim=0).shape == (1, 2)
    assert nbgrad.cat(tensors=[a, b], axis=0).tolist() == [1.0, 2.0, 3.0, 5.0]
    # methods: self is input
    assert a.add(other=b, alpha=2).tolist() == [7.0, 12.0]
    assert a.pow(exponent=2).tolist() == [1.0, 4.0]
    assert a[None].mm(mat2=b[:, None]).tolist() == [[13.0]]
    assert a.where(condition=a > 1, other=b).tolist() == [3.0, 2.0]


def test_numpy_aliases_on_reductions():
    x = nb.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ref = x.numpy()
    for name in ("sum", "mean", "amax", "amin", "prod", "logsumexp"):
        got = getattr(nbgrad, name)(x, axis=1, keepdims=True)
        assert got.shape == (2, 1)
        assert np.allclose(got.numpy(), getattr(nbgrad, name)(x, dim=1, keepdim=True).numpy())
        got = getattr(x, name)(axis=0)
        assert got.shape == (3,)
    assert x.sum(axis=0).tolist() == ref.sum(axis=0).tolist()
    assert nbgrad.max(x, axis=1).values.tolist() == [5.0, 6.0]
    assert x.max(axis=1, keepdims=True).indices.tolist() == [[1], [2]]
    assert x.min(axis=0).indices.tolist() == [0, 1, 0]
    assert nbgrad.argmax(x, axis=1).tolist() == [1, 2]
    assert x.argmin(axis=1, keepdims=True).tolist() == [[0], [1]]
    np.testing.assert_allclose(nbgrad.std(x, axis=0, keepdims=True).numpy(), ref.std(axis=0, ddof=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(x.var(axis=1).numpy(), ref.var(axis=1, ddof=1), rtol=1e-6)
    np.testing.assert_allclose(nbgrad.var(x, axis=0, correction=0, keepdims=True).numpy(), ref.var(axis=0, keepdims=True), rtol=1e-6)
    assert (x > 2).any(axis=1, keepdims=True).tolist() == [[True], [True]]
    assert nbgrad.all(x > 1, axis=0).tolist() == [False, True, True]
    assert nbgrad.softmax(x, axis=1).shape == (2, 3)
    assert nbgrad.squeeze(nb.ones(2, 1), axis=1).shape == (2,)
    assert nbgrad.stack([x, x], axis=1).shape == (2, 2, 3)
    with pytest.raises(TypeError, match="^sum\\(\\) "):
        nbgrad.sum(x, 0, axis=0)


def test_aliases_keep_gradients():
    x = nb.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=nb.float64, requires_grad=True)
    y = nbgrad.sum(input=x, axis=1, keepdims=True)
    assert y.grad_fn.name() == "SumBackward1"
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert nbgrad.autograd.gradcheck(lambda t: nbgrad.mean(input=t, axis=0), (x,))


# -- argument errors name the public function ----------------------------------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda x: nbgrad.sum(x, foo=1), "sum"), (lambda x: x.sum(foo=1), "sum"), (lambda x: x.mean(foo=1), "mean"),
    (lambda x: x.max(foo=1), "max"), (lambda x: nbgrad.amax(x, foo=1), "amax"),
    (lambda x: nbgrad.argmax(x, foo=1), "argmax"), (lambda x: x.argmin(foo=1), "argmin"),
    (lambda x: nbgrad.eq(x, x, foo=1), "eq"), (lambda x: x.lt(x, foo=1), "lt"),
    (lambda x: nbgrad.logical_and(x, x, foo=1), "logical_and"), (lambda x: x.bitwise_or(x, foo=1), "bitwise_or"),
    (lambda x: nbgrad.add(x, x, foo=1), "add"), (lambda x: nbgrad.exp(x, foo=1), "exp"),
    (lambda x: x.add_(x, foo=1), "add_"), (lambda x: x.exp_(foo=1), "exp_"), (lambda x: x.clamp_(foo=1), "clamp_"),
    (lambda x: x.where(x > 0, x, foo=1), "where"), (lambda x: x.softmax(0, foo=1), "softmax"),
    (lambda x: x.new_zeros(2, foo=1), "new_zeros"), (lambda x: x.expand(2, foo=1), "expand"),
    (lambda x: nbgrad.multiply(x, x, foo=1), "multiply"), (lambda x: nbgrad.concat([x], foo=1), "concat"),
    (lambda x: nbgrad.norm(x, foo=1), "norm"), (lambda x: x.repeat(1, foo=1), "repeat"),
])
def test_unexpected_keyword_names_the_public_function(call, name):
    x = nb.ones(2)
    # (PyTorch's own texts vary: "sum() received an invalid combination of arguments - got (Tensor,
    # foo=int)...", "TensorBase.exp_() takes no keyword arguments"; the name is the public one)
    with pytest.raises(TypeError, match=f"^(TensorBase\\.)?{name}\\(\\) "):
        call(x)
    assert x.tolist() == [1.0, 1.0] and x._version == 0


# -- operators and foreign types: NotImplemented, so Python raises or asks the other side ------------
class Other:
    """An object that defines every reflected operator (and the comparisons)."""
    def __radd__(self, o): return "radd"
    def __rsub__(self, o): return "rsub"
    def __rmul__(self, o): return "rmul"
    def __rtruediv__(self, o): return "rtruediv"
    def __rfloordiv__(self, o): return "rfloordiv"
    def __rmod__(self, o): return "rmod"
    def __rpow__(self, o): return "rpow"
    def __rmatmul__(self, o): return "rmatmul"
    def __rand__(self, o): return "rand"
    def __ror__(self, o): return "ror"
    def __rxor__(self, o): return "rxor"
    def __add__(self, o): return "add"
    def __matmul__(self, o): return "matmul"
    def __eq__(self, o): return "eq"
    def __ne__(self, o): return "ne"
    def __lt__(self, o): return "lt"
    def __le__(self, o): return "le"
    def __gt__(self, o): return "gt"
    def __ge__(self, o): return "ge"
    __hash__ = object.__hash__


# (operator, what `tensor op Other()` gives in PyTorch, what `Other() op tensor` gives)
COOPERATION = [("add", "radd", "add"), ("sub", "rsub", None), ("mul", "rmul", None), ("truediv", "rtruediv", None),
               ("floordiv", "rfloordiv", None), ("mod", "rmod", None), ("pow", "rpow", None),
               ("matmul", "rmatmul", "matmul"), ("and_", "rand", None), ("or_", "ror", None), ("xor", "rxor", None),
               ("eq", "eq", "eq"), ("ne", "ne", "ne"), ("lt", "gt", "lt"), ("le", "ge", "le"), ("gt", "lt", "gt"),
               ("ge", "le", "ge")]


@pytest.mark.parametrize("op, forward, reflected", COOPERATION)
def test_operators_defer_to_an_object_that_defines_the_reflected_one(op, forward, reflected):
    t = nb.ones(2, dtype=nb.int64) if op in ("and_", "or_", "xor") else nb.ones(2)
    assert getattr(operator, op)(t, Other()) == forward
    if reflected is not None:
        assert getattr(operator, op)(Other(), t) == reflected


# PyTorch 2.13's TypeErrors, which Python raises itself once Tensor returns NotImplemented
FOREIGN = [
    (lambda t: "a" + t, "can only concatenate str (not \"Tensor\") to str"),
    (lambda t: [1, 2] + t, "can only concatenate list (not \"Tensor\") to list"),
    (lambda t: "a" - t, "unsupported operand type(s) for -: 'str' and 'Tensor'"),
    (lambda t: "a" / t, "unsupported operand type(s) for /: 'str' and 'Tensor'"),
    (lambda t: "a" // t, "unsupported operand type(s) for //: 'str' and 'Tensor'"),
    (lambda t: [1] % t, "unsupported operand type(s) for %: 'list' and 'Tensor'"),
    (lambda t: "a" ** t, "unsupported operand type(s) for ** or pow(): 'str' and 'Tensor'"),
    (lambda t: "a" @ t, "unsupported operand type(s) for @: 'str' and 'Tensor'"),
    (lambda t: [1] @ t, "unsupported operand type(s) for @: 'list' and 'Tensor'"),
    (lambda t: "a" * t, "only integer tensors of a single element can be converted to an index"),
    (lambda t: t < "a", "'<' not supported between instances of 'Tensor' and 'str'"),
    (lambda t: "a" <= t, "'>=' not supported between instances of 'Tensor' and 'str'"[:0] + "'<=' not supported between instances of 'str' and 'Tensor'"),
    (lambda t: t > [1], "'>' not supported between instances of 'Tensor' and 'list'"),
    (lambda t: t >= None, "'>=' not supported between instances of 'Tensor' and 'NoneType'"),
    (lambda t: t.long() & "a", "unsupported operand type(s) for &: 'Tensor' and 'str'"),
    (lambda t: "a" | t.long(), "unsupported operand type(s) for |: 'str' and 'Tensor'"),
    (lambda t: t.long() ^ [1], "unsupported operand type(s) for ^: 'Tensor' and 'list'"),
]


@pytest.mark.parametrize("call, message", FOREIGN, ids=range(len(FOREIGN)))
def test_foreign_operands_raise_pythons_type_error(call, message):
    with pytest.raises(TypeError) as e:
        call(nb.ones(2))
    assert str(e.value) == message


def test_equality_with_foreign_objects():
    t = nb.ones(2)
    assert (t == "a") is False and (t != "a") is True
    assert (t == None) is False   # noqa: E711


# -- out= on the other ops that take it in PyTorch -----------------------------------------------------
X = [[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]


@pytest.mark.parametrize("call, expected", [
    (lambda o: nbgrad.index_select(nb.tensor(X), 1, nb.tensor([2, 0]), out=o), [[3.0, 1.5], [-1.0, 0.5]]),
    (lambda o: nbgrad.gather(nb.tensor(X), 1, nb.tensor([[0, 1, 1], [1, 0, 0]]), out=o),
     [[1.5, -2.0, -2.0], [4.0, 0.5, 0.5]]),
    (lambda o: nbgrad.masked_select(nb.tensor(X), nb.tensor(X) > 0, out=o), [1.5, 3.0, 0.5, 4.0]),
    (lambda o: nbgrad.take(nb.tensor(X), nb.tensor([0, 5]), out=o), [1.5, -1.0]),
    (lambda o: nbgrad.outer(nb.tensor([1.0, 2.0]), nb.tensor([3.0, 4.0]), out=o), [[3.0, 4.0], [6.0, 8.0]]),
    (lambda o: nbgrad.lerp(nb.tensor([1.0, 2.0]), nb.tensor([3.0, 4.0]), 0.5, out=o), [2.0, 3.0]),
    (lambda o: nbgrad.hstack([nb.ones(1), nb.zeros(1)], out=o), [1.0, 0.0]),
    (lambda o: nbgrad.vstack([nb.ones(1), nb.zeros(1)], out=o), [[1.0], [0.0]]),
    (lambda o: nbgrad.logical_not(nb.tensor([True, False]), out=o), [0.0, 1.0]),
    (lambda o: nbgrad.softmax(nb.zeros(2), 0, out=o), [0.5, 0.5]),
    (lambda o: nbgrad.logsumexp(nb.zeros(2, 2), 1, out=o), [float(np.log(2))] * 2),
    (lambda o: nbgrad.linalg.inv(2 * nb.eye(2), out=o), [[0.5, 0.0], [0.0, 0.5]]),
    (lambda o: nbgrad.linalg.det(2 * nb.eye(2), out=o), 4.0),
    (lambda o: nbgrad.linalg.solve(2 * nb.eye(2), nb.ones(2, 1), out=o), [[0.5], [0.5]]),
    (lambda o: nbgrad.linalg.vector_norm(nb.tensor([3.0, 4.0]), out=o), 5.0),
    (lambda o: nbgrad.linalg.matrix_norm(nb.tensor([[3.0, 4.0]]), out=o), 5.0),
    (lambda o: nbgrad.linalg.cross(nb.tensor([1.0, 0.0, 0.0]), nb.tensor([0.0, 1.0, 0.0]), out=o), [0.0, 0.0, 1.0]),
])
def test_out_on_more_ops(call, expected):
    out = nb.empty(0)
    assert _no_warnings(lambda: call(out)) is out
    np.testing.assert_allclose(np.array(out.tolist()), np.array(expected), rtol=1e-6, atol=1e-7)
    assert out._version == 1


@pytest.mark.parametrize("call, error, message", [
    (lambda o: nbgrad.index_select(nb.ones(2), 0, nb.tensor([0]), out=o), RuntimeError,
     "index_select(): self and result must have the same scalar type"),
    (lambda o: nbgrad.masked_select(nb.ones(2), nb.ones(2) > 0, out=o), RuntimeError,
     "masked_select(): self and result must have the same scalar type"),
    (lambda o: nbgrad.take(nb.ones(2), nb.tensor([0]), out=o), RuntimeError,
     "take(): self and out expected to have the same dtype, but got self.dtype = Float and out.dtype = Long"),
    (lambda o: nbgrad.gather(nb.ones(2), 0, nb.tensor([0]), out=o), RuntimeError,
     "Expected out tensor to have dtype float, but got long int instead"),
    (lambda o: nbgrad.dot(nb.ones(2), nb.ones(2), out=o), RuntimeError, "result dtype Long does not match input dtype Float"),
    (lambda o: nbgrad.outer(nb.ones(2), nb.ones(2), out=o), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda o: nbgrad.logsumexp(nb.ones(2), 0, out=o), RuntimeError,
     "logsumexp(): Expected floating point type for result tensor, but got: Long"),
    (lambda o: nbgrad.hstack([nb.ones(2)], out=o), TypeError,
     "torch.cat(): input types can't be cast to the desired output type Long"),
    (lambda o: nbgrad.linalg.inv(nb.eye(2), out=o), RuntimeError,
     "Expected out tensor to have dtype float, but got long int instead"),
    (lambda o: nbgrad.linalg.matrix_norm(nb.eye(2), out=o), RuntimeError,
     "linalg.matrix_norm expected out tensor dtype Float but got: Long"),
    (lambda o: nbgrad.randperm(3, out=o.bool()), NotImplementedError, "\"randperm\" not implemented for 'Bool'"),
    (lambda o: nbgrad.arange(3, out=o.bool()), NotImplementedError, "\"arange_cpu\" not implemented for 'Bool'"),
])
def test_out_dtype_errors_of_more_ops(call, error, message):
    out = nb.zeros(0, dtype=nb.int64)
    with pytest.raises(error) as e:
        call(out)
    assert str(e.value) == message


def test_out_nonzero_randint_randperm():
    out = nb.empty(0, dtype=nb.int64)
    assert nbgrad.nonzero(nb.tensor([0.0, 1.0, 2.0]), out=out) is out and out.tolist() == [[1], [2]]
    with pytest.raises(RuntimeError, match="^nonzero: Expected out tensor to have scalar type Long but got scalar typeFloat$"):
        nbgrad.nonzero(nb.ones(2), out=nb.empty(0))
    r = nbgrad.randint(0, 5, (4,), out=nb.empty(0))
    assert r.dtype is nb.float32 and r.shape == (4,) and all(0 <= v < 5 and v == int(v) for v in r.tolist())
    r = nbgrad.randperm(4, out=nb.empty(0, dtype=nb.int64))
    assert sorted(r.tolist()) == [0, 1, 2, 3]


def test_out_tuples_sort_topk_and_linalg():
    x = nb.tensor(X)
    v, i = nb.empty(0), nb.empty(0, dtype=nb.int64)
    r = nbgrad.sort(x, 1, out=(v, i))
    assert r.values is v and r.indices is i
    assert v.tolist() == [[-2.0, 1.5, 3.0], [-1.0, 0.5, 4.0]] and i.tolist() == [[1, 0, 2], [2, 0, 1]]
    v, i = nb.empty(0), nb.empty(0, dtype=nb.int64)
    nbgrad.topk(x, 2, out=(v, i))
    assert v.tolist() == [[3.0, 1.5], [4.0, 0.5]] and i.tolist() == [[2, 0], [1, 0]]
    A = nb.tensor([[2.0, 1.0], [1.0, 3.0]])
    outs = (nb.empty(0), nb.empty(0))
    r = nbgrad.linalg.eigh(A, out=outs)
    assert r.eigenvalues is outs[0] and r.eigenvectors is outs[1]
    np.testing.assert_allclose(outs[0].numpy(), np.linalg.eigvalsh(A.numpy()), rtol=1e-6)
    outs = (nb.empty(0), nb.empty(0))
    q, rr = nbgrad.linalg.qr(A, out=outs)
    assert q is outs[0] and rr is outs[1]
    np.testing.assert_allclose((q @ rr).numpy(), A.numpy(), rtol=1e-6)
    sign, logabsdet = nbgrad.linalg.slogdet(A, out=(nb.empty(0), nb.empty(0)))
    assert sign.item() == 1.0 and abs(logabsdet.item() - np.log(5.0)) < 1e-6
    with pytest.raises(TypeError, match="^linalg_qr\\(\\): argument 'out' must be tuple of Tensors, not Tensor$"):
        nbgrad.linalg.qr(A, out=nb.empty(0))
    with pytest.raises(TypeError, match="^expected tuple of 2 elements but got 1$"):
        nbgrad.linalg.qr(A, out=(nb.empty(0),))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
        nbgrad.linalg.eigh(A, out=(nb.empty(0, dtype=nb.float64), nb.empty(0)))


def test_linalg_out_refused_under_autograd_with_aten_names():
    A = nb.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    tail = "(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."
    for call, name in ((lambda: nbgrad.linalg.inv(A, out=nb.empty(0)), "linalg_inv_ex"),
                       (lambda: nbgrad.linalg.det(A, out=nb.empty(0)), "_linalg_det"),
                       (lambda: nbgrad.linalg.eigh(A, out=(nb.empty(0), nb.empty(0))), "_linalg_eigh"),
                       (lambda: nbgrad.linalg.svd(A, out=(nb.empty(0), nb.empty(0), nb.empty(0))), "_linalg_svd")):
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == name + tail
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place operation.$"):
        nbgrad.linalg.matrix_norm(nb.eye(2), out=nb.empty(0, requires_grad=True))


def test_functions_without_out_refuse_it():
    # torch.det takes no out (torch.linalg.det does)
    with pytest.raises(TypeError, match="^det\\(\\) got an unexpected keyword argument 'out'$"):
        nbgrad.det(nb.eye(2), out=nb.empty(0))


def test_resize_warning_points_at_the_callers_line():
    with pytest.warns(UserWarning, match=RESIZED) as record:
        nbgrad.add(nb.ones(3), 1, out=nb.empty(2))
    assert record[0].filename == __file__


def test_numpy_scalars_defer_to_the_tensors_operators():
    # PyTorch 2.13: a numpy scalar on either side gives a Tensor (the scalar is a Python number)
    t = nb.ones(2)
    for r in (np.float64(2) * t, t * np.float64(2), np.float32(2) + t, np.int64(3) - t, np.bool_(True) * t,
              np.float64(3) / t, np.float64(2) ** t):
        assert isinstance(r, nbgrad.Tensor) and r.dtype is nb.float32
    assert (np.int64(3) - t).tolist() == [2.0, 2.0]
    assert (np.float64(3) / t).tolist() == [3.0, 3.0]
    assert (np.int64(2) * nb.ones(2, dtype=nb.int64)).dtype is nb.int64
    # arrays are not numbers: a TypeError either way, as in PyTorch
    with pytest.raises(TypeError):
        np.array([1.0, 2.0]) + t
    with pytest.raises(TypeError):
        t < np.array([1.0, 2.0])


def test_in_place_operators_with_foreign_types():
    t = nb.ones(2)
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for \+=: 'Tensor' and 'str'$"):
        t += "a"
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for \*=: 'Tensor' and 'list'$"):
        t *= [1]
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for \+: 'Tensor' and 'NoneType'$"):
        t + None
    assert t.tolist() == [1.0, 1.0] and t._version == 0


OVERLAP = "^unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location"


@pytest.mark.parametrize("call", [
    lambda x: nbgrad.add(x[:3], 1, out=x[1:4]),
    lambda x: nbgrad.exp(x[:3], out=x[2:5]),
    lambda x: nbgrad.clamp(x[:3], 0, 1, out=x[1:4]),
    lambda x: nbgrad.cat([x[:2], x[2:4]], out=x[1:5]),
    lambda x: nbgrad.index_select(x, 0, nb.tensor([1, 0]), out=x[:2]),
])
def test_out_partly_overlapping_an_input_is_refused(call):
    x = nb.arange(6.0)
    with pytest.raises(RuntimeError, match=OVERLAP):
        call(x)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and x._version == 0


def test_out_that_is_an_input_is_written():
    x = nb.arange(5.0)
    assert nbgrad.add(x, 1, out=x) is x and x.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0] and x._version == 1
    a = nb.ones(2, 2)
    assert nbgrad.mm(a, a, out=a).tolist() == [[2.0, 2.0], [2.0, 2.0]]
