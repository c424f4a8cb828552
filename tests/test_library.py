"""nbgrad.library (PyTorch's torch.library): custom_op with register_autograd / register_kernel /
register_fake, define + impl, Library objects, nbgrad.ops.<ns>.<op>, opcheck.

Expected values, grad_fn names, version counts and error texts were recorded from PyTorch 2.13;
gradients are checked against analytic formulas and finite differences (float64). Ops are
global, so every test defines its ops in a namespace of its own (nbtest_<test>)."""
import os
import re
from typing import Optional

import numba
import numpy as np
import pytest

import nbgrad
from nbgrad import Tensor

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
ALIAS_TEXT = ("The output of this custom operator (1) must not also be an input to this custom operator and "
              "(2) may not alias any inputs to this custom operator or other returns.")


def _sin_op(ns):
    @nbgrad.library.custom_op(f"{ns}::mysin", mutates_args=())
    def mysin(x: Tensor) -> Tensor:
        return x.sin()

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()

    mysin.register_autograd(backward, setup_context=setup_context)
    return mysin


def test_custom_op_values_gradients_and_grad_fn():
    mysin = _sin_op("nbtest_basic")
    assert repr(mysin) == "<CustomOpDef(nbtest_basic::mysin)>"
    assert mysin._name == "mysin"
    x = nbgrad.tensor([0.1, -0.7, 2.0], dtype=nbgrad.float64, requires_grad=True)
    y = mysin(x)
    np.testing.assert_allclose(y.detach().numpy(), np.sin([0.1, -0.7, 2.0]))
    assert y.requires_grad and not y.is_leaf
    assert y.grad_fn.name() == "GeneratedBackwardFor_nbtest_basic_mysin_defaultBackward"
    assert type(y.grad_fn).__name__ == "GeneratedBackwardFor_nbtest_basic_mysin_defaultBackward"
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.sin([0.1, -0.7, 2.0]) * np.cos([0.1, -0.7, 2.0]))
    # no grad recorded when nothing requires it, or under no_grad
    assert mysin(x.detach()).grad_fn is None and not mysin(x.detach()).requires_grad
    with nbgrad.no_grad():
        assert not mysin(x).requires_grad
    assert nbgrad.autograd.gradcheck(mysin, (x,))


def test_ops_namespace_access():
    mysin = _sin_op("nbtest_ns")
    packet = nbgrad.ops.nbtest_ns.mysin
    assert packet is nbgrad.ops.nbtest_ns.mysin
    assert repr(packet) == "<OpOverloadPacket(op='nbtest_ns.mysin')>" and str(packet) == "nbtest_ns.mysin"
    assert packet.overloads() == ["default"]
    assert repr(packet.default) == "<OpOverload(op='nbtest_ns.mysin', overload='default')>"
    assert str(packet.default) == "nbtest_ns.mysin.default" and packet.default.name() == "nbtest_ns::mysin"
    assert str(packet.default._schema) == "nbtest_ns::mysin(Tensor x) -> Tensor"
    assert str(mysin._opoverload._schema) == "nbtest_ns::mysin(Tensor x) -> Tensor"
    x = nbgrad.tensor([0.5, 1.5], requires_grad=True)
    for call in (packet, packet.default, mysin):
        y = call(x)
        assert y.grad_fn.name() == "GeneratedBackwardFor_nbtest_ns_mysin_defaultBackward"
        np.testing.assert_allclose(y.detach().numpy(), np.sin([0.5, 1.5]), rtol=1e-6)
    with pytest.raises(AttributeError, match="'_OpNamespace' 'nbtest_ns' object has no attribute 'nope'"):
        nbgrad.ops.nbtest_ns.nope
    with pytest.raises(AttributeError, match="The underlying op of 'nbtest_ns.mysin' has no overload name 'nope'"):
        packet.nope


def test_without_register_autograd_backward_raises():
    @nbgrad.library.custom_op("nbtest_noag::double", mutates_args=())
    def double(x: Tensor) -> Tensor:
        return x * 2

    x = nbgrad.ones(3, requires_grad=True)
    y = double(x)
    assert y.requires_grad
    assert y.grad_fn.name() == "GeneratedBackwardFor_nbtest_noag_double_defaultBackward"
    with pytest.raises(RuntimeError, match=re.escape(
            "Trying to backward through nbtest_noag.double.default but no autograd formula was registered. "
            "Please use register_autograd to add one.")):
        y.sum().backward()
    assert x.grad is None


def test_output_aliasing_an_input_raises():
    @nbgrad.library.custom_op("nbtest_alias::ident", mutates_args=())
    def ident(x: Tensor) -> Tensor:
        return x

    @nbgrad.library.custom_op("nbtest_alias::view", mutates_args=())
    def view(x: Tensor) -> Tensor:
        return x.view(-1)

    for op in (ident, view):
        for rg in (False, True):
            with pytest.raises(RuntimeError, match=re.escape(ALIAS_TEXT)):
                op(nbgrad.ones(2, 2, requires_grad=rg))


def test_return_not_matching_schema_raises():
    @nbgrad.library.custom_op("nbtest_ret::three", mutates_args=())
    def three(x: Tensor) -> Tensor:
        return 3

    @nbgrad.library.custom_op("nbtest_ret::pair", mutates_args=())
    def pair(x: Tensor) -> tuple[Tensor, Tensor]:
        return x.sin()

    @nbgrad.library.custom_op("nbtest_ret::count", mutates_args=())
    def count(x: Tensor) -> int:
        return 3

    with pytest.raises(RuntimeError, match="Unable to cast 3 to Tensor"):
        three(nbgrad.ones(2))
    with pytest.raises(TypeError, match="Object of type 'Tensor' is not an instance of 'sequence'"):
        pair(nbgrad.ones(2))
    assert count(nbgrad.ones(2)) == 3
    assert str(count._opoverload._schema) == "nbtest_ret::count(Tensor x) -> SymInt"


def test_mutates_args_bumps_version():
    @nbgrad.library.custom_op("nbtest_mut::inc", mutates_args=("x",))
    def inc(x: Tensor) -> None:
        x.add_(1)

    @nbgrad.library.custom_op("nbtest_mut::fill_np", mutates_args="unknown")
    def fill_np(x: Tensor, v: float) -> None:
        x.numpy()[...] = v          # memory changed behind autograd's back: the op bumps the counter

    assert str(inc._opoverload._schema) == "nbtest_mut::inc(Tensor(a0!) x) -> ()"
    assert str(fill_np._opoverload._schema) == "nbtest_mut::fill_np(Tensor(a0!) x, float v) -> ()"
    z = nbgrad.zeros(2)
    assert inc(z) is None
    assert z._version == 2          # add_'s bump and the op's own (as PyTorch)
    assert z.tolist() == [1.0, 1.0]
    w = nbgrad.zeros(3)
    fill_np(w, 4.0)
    assert w._version == 1 and w.tolist() == [4.0, 4.0, 4.0]
    # a saved tensor changed by the op is caught at backward
    a = nbgrad.ones(2, requires_grad=True)
    b = a * 1
    c = b * b
    inc(b)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()
    with pytest.raises(RuntimeError, match=re.escape(
            "Cannot register autograd formula for non-functional operator <CustomOpDef(nbtest_mut::inc)> with "
            "schema nbtest_mut::inc(Tensor(a0!) x) -> (). Please create a functional operator and register an "
            "autograd formula for that.")):
        inc.register_autograd(lambda ctx, g: g)


def test_schema_inference_and_its_errors():
    def many(x: Tensor, y: Optional[Tensor], n: int, f: float, b: bool, ts: list[Tensor], s: str = "a",
             k: int = 3, g: float = 2.0) -> tuple[Tensor, Tensor]:
        return x, x

    assert nbgrad.library.infer_schema(many, mutates_args=()) == (
        '(Tensor x, Tensor? y, SymInt n, float f, bool b, Tensor[] ts, str s="a", SymInt k=3, float g=2.0) '
        '-> (Tensor, Tensor)')
    assert nbgrad.library.infer_schema(many, mutates_args=("ts",), op_name="zz").startswith(
        "zz(Tensor x, Tensor? y, SymInt n, float f, bool b, Tensor(a5!)[] ts")

    def f(x: Tensor) -> Tensor:
        return x.clone()

    def unannotated(x) -> Tensor:
        return x

    def no_return(x: Tensor):
        return x

    def varargs(*x: Tensor) -> Tensor:
        return x[0]

    def tuple_arg(x: tuple[Tensor, Tensor]) -> Tensor:
        return x[0]

    def int_mutated(x: Tensor, n: int) -> Tensor:
        return x

    with pytest.raises(ValueError, match=r"not enough values to unpack \(expected 2, got 1\)"):
        nbgrad.library.custom_op("nonamespace", f, mutates_args=())
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'mutates_args'"):
        nbgrad.library.custom_op("nbtest_infer::f", f)
    with pytest.raises(ValueError, match=r"infer_schema\(func\): Parameter x must have a type annotation\."):
        nbgrad.library.custom_op("nbtest_infer::g", unannotated, mutates_args=())
    with pytest.raises(ValueError, match="No return type annotation was provided. Please add one."):
        nbgrad.library.custom_op("nbtest_infer::h", no_return, mutates_args=())
    with pytest.raises(ValueError, match="We do not support positional-only args, varargs, or varkwargs."):
        nbgrad.library.custom_op("nbtest_infer::i", varargs, mutates_args=())
    with pytest.raises(ValueError, match="We do not support Tuple inputs in schema"):
        nbgrad.library.custom_op("nbtest_infer::j", tuple_arg, mutates_args=())
    with pytest.raises(ValueError, match=re.escape("{'y'} in mutates_args were not found in the custom op's "
                                                   "signature.")):
        nbgrad.library.custom_op("nbtest_infer::k", f, mutates_args=("y",))
    with pytest.raises(ValueError, match="Parameter n is in mutable_args but only Tensors or collections of "
                                         "Tensors can be mutated"):
        nbgrad.library.custom_op("nbtest_infer::l", int_mutated, mutates_args=("n",))
    with pytest.raises(ValueError, match="The schema suggests that the op mutates set()"):
        nbgrad.library.custom_op("nbtest_infer::m", f, mutates_args=("x",), schema="(Tensor x) -> Tensor")
    op = nbgrad.library.custom_op("nbtest_infer::n", f, mutates_args=(), schema="(Tensor x) -> Tensor")
    assert op(nbgrad.ones(2)).tolist() == [1.0, 1.0]


def test_argument_binding_errors():
    @nbgrad.library.custom_op("nbtest_bind::scale", mutates_args=())
    def scale(x: Tensor, n: int) -> Tensor:
        return x * n

    assert scale(nbgrad.ones(2), n=3).tolist() == [3.0, 3.0]
    decl = "Declaration: nbtest_bind::scale(Tensor x, SymInt n) -> Tensor"
    with pytest.raises(RuntimeError, match=re.escape(
            "nbtest_bind::scale() Expected a value of type 'int' for argument 'n' but instead found type "
            "'float'.\nPosition: 1\nValue: 2.5\n" + decl)):
        scale(nbgrad.ones(2), 2.5)
    with pytest.raises(RuntimeError, match=re.escape(
            "nbtest_bind::scale() Expected a value of type 'Tensor' for argument 'x' but instead found type "
            "'int'.\nPosition: 0\nValue: 3\n" + decl)):
        scale(3, 2)
    with pytest.raises(RuntimeError, match=re.escape(
            "nbtest_bind::scale() expected at most 2 argument(s) but received 3 argument(s). " + decl)):
        scale(nbgrad.ones(2), 2, 3)
    with pytest.raises(RuntimeError, match=re.escape(
            "nbtest_bind::scale() is missing value for argument 'n'. " + decl)):
        scale(nbgrad.ones(2))
    with pytest.raises(RuntimeError, match=re.escape(
            "nbtest_bind::scale() expected at most 2 argument(s) but received 3 argument(s). " + decl)):
        scale(nbgrad.ones(2), n=2, b=1)

    @nbgrad.library.custom_op("nbtest_bind::shift", mutates_args=())
    def shift(x: Tensor, a: float = 2.0) -> Tensor:
        return x + a

    assert shift(nbgrad.zeros(1)).tolist() == [2.0] and shift(nbgrad.zeros(1), a=1).tolist() == [1.0]
    with pytest.raises(RuntimeError, match=re.escape(
            "Unknown keyword argument 'b' for operator 'nbtest_bind::shift'. Schema: nbtest_bind::shift(Tensor x, "
            "float a=2.) -> Tensor")):
        shift(nbgrad.ones(2), b=1.0)
    with pytest.raises(RuntimeError, match=re.escape(
            "nbtest_bind::scale() expected at most 2 argument(s) but received 3 argument(s). " + decl)):
        scale(nbgrad.ones(2), 2, n=1)


def test_define_impl_and_register_autograd_by_name():
    nbgrad.library.define("nbtest_def::axpy", "(Tensor x, Tensor y, float a=2.0) -> Tensor")
    with pytest.raises(RuntimeError, match=re.escape(
            "Tried to register an operator (nbtest_def::axpy(Tensor x) -> Tensor) with the same name and overload "
            "name multiple times.")):
        nbgrad.library.define("nbtest_def::axpy", "(Tensor x) -> Tensor")
    with pytest.raises(ValueError, match='expected schema to look like e.g. "\\(Tensor x\\) -> Tensor" but got '
                                         '"Tensor x -> Tensor"'):
        nbgrad.library.define("nbtest_def::bad", "Tensor x -> Tensor")
    with pytest.raises(ValueError, match='Expected `qualname` to be of the form "namespace::name", but got nons'):
        nbgrad.library.define("nons", "(Tensor x) -> Tensor")
    x = nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64, requires_grad=True)
    y = nbgrad.tensor([0.5, -1.0], dtype=nbgrad.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="Could not run 'nbtest_def::axpy' with arguments from the "
                                                  "'CPU' backend"):
        nbgrad.ops.nbtest_def.axpy(x, y)

    @nbgrad.library.impl("nbtest_def::axpy", "cpu")
    def axpy_cpu(x, y, a=2.0):
        return nbgrad.from_numpy(a * x.detach().numpy() + y.detach().numpy())

    assert str(nbgrad.ops.nbtest_def.axpy.default._schema) == \
        "nbtest_def::axpy(Tensor x, Tensor y, float a=2.) -> Tensor"
    op = nbgrad.ops.nbtest_def.axpy
    assert op(x.detach(), y.detach()).tolist() == [2.5, 3.0]
    assert op(x.detach(), y.detach(), a=3.0).tolist() == [3.5, 5.0]

    def setup_context(ctx, inputs, output):
        ctx.a = inputs[2]

    def backward(ctx, grad):
        return grad * ctx.a, grad, None

    nbgrad.library.register_autograd("nbtest_def::axpy", backward, setup_context=setup_context)
    out = op(x, y, 3.0)
    assert out.grad_fn.name() == "GeneratedBackwardFor_nbtest_def_axpy_defaultBackward"
    out.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and y.grad.tolist() == [1.0, 1.0]
    assert nbgrad.autograd.gradcheck(lambda x, y: op(x, y, 1.5), (x, y))


def test_library_objects():
    lib = nbgrad.library.Library("nbtest_lib", "DEF")
    assert repr(lib) == "Library(kind=DEF, ns=nbtest_lib, dispatch_key=)>"
    assert lib.define("mul3(Tensor x) -> Tensor") == "mul3"
    lib.impl("mul3", lambda x: x * 3, "CPU")
    with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY can be used to register the namespace "
                                           "nbtest_lib"):
        nbgrad.library.Library("nbtest_lib", "DEF")
    with pytest.raises(ValueError, match="Unsupported kind: BAD"):
        nbgrad.library.Library("nbtest_lib", "BAD")
    with pytest.raises(ValueError, match="prim is a reserved namespace"):
        nbgrad.library.Library("prim", "DEF")
    with pytest.raises(TypeError, match="Input function is required to be a callable but found type <class 'int'>"):
        lib.impl("mul3", 3, "CPU")
    assert nbgrad.ops.nbtest_lib.mul3(nbgrad.ones(2)).tolist() == [3.0, 3.0]
    frag = nbgrad.library.Library("nbtest_lib", "FRAGMENT")
    frag.define("addsq(Tensor x, Tensor y) -> Tensor")
    frag.impl("addsq", lambda x, y: x * x + y, "CompositeImplicitAutograd")
    x = nbgrad.tensor([1.0, -2.0], requires_grad=True)
    y = nbgrad.tensor([0.5, 0.5], requires_grad=True)
    z = nbgrad.ops.nbtest_lib.addsq(x, y)
    assert z.grad_fn.name() == "AddBackward0"       # a composite kernel records its own ops
    z.sum().backward()
    assert x.grad.tolist() == [2.0, -4.0] and y.grad.tolist() == [1.0, 1.0]
    # an overload
    frag.define("addsq.scaled(Tensor x, Tensor y, float s) -> Tensor")
    frag.impl("addsq.scaled", lambda x, y, s: (x * x + y) * s, "CompositeImplicitAutograd")
    assert nbgrad.ops.nbtest_lib.addsq.scaled(x, y, 2.0).tolist() == [3.0, 9.0]
    assert sorted(nbgrad.ops.nbtest_lib.addsq.overloads()) == ["default", "scaled"]
    del lib, frag


def test_register_kernel_per_device_and_set_kernel_enabled():
    @nbgrad.library.custom_op("nbtest_dev::bump", mutates_args=(), device_types="cuda")
    def bump(x: Tensor) -> Tensor:
        return x + 1

    with pytest.raises(NotImplementedError, match="Could not run 'nbtest_dev::bump' with arguments from the "
                                                  "'CPU' backend"):
        bump(nbgrad.ones(2))
    bump.register_kernel("cpu")(lambda x: x + 10)
    assert bump(nbgrad.ones(2)).tolist() == [11.0, 11.0]
    with bump.set_kernel_enabled("cpu", False):
        assert bump(nbgrad.ones(2)).tolist() == [2.0, 2.0]     # the op's own function
    assert bump(nbgrad.ones(2)).tolist() == [11.0, 11.0]

    @nbgrad.library.custom_op("nbtest_dev::dflt", mutates_args=())
    def dflt(x: Tensor) -> Tensor:
        return x + 1

    @nbgrad.library.register_kernel("nbtest_dev::dflt", "cpu")
    def _(x):
        return x + 100

    assert dflt(nbgrad.ones(1)).tolist() == [101.0]


def test_tensor_lists_multiple_outputs_and_keyword_only():
    @nbgrad.library.custom_op("nbtest_multi::wsum", mutates_args=())
    def wsum(xs: list[Tensor], w: float) -> Tensor:
        return xs[0] * w + xs[1]

    wsum.register_autograd(lambda ctx, g: ([g * ctx.w, g], None),
                           setup_context=lambda ctx, inputs, output: setattr(ctx, "w", inputs[1]))
    p = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    q = nbgrad.tensor([3.0, 4.0], requires_grad=True)
    r = wsum([p, q], 3.0)
    assert r.tolist() == [6.0, 10.0]
    assert r.grad_fn.name() == "GeneratedBackwardFor_nbtest_multi_wsum_defaultBackward"
    r.sum().backward()
    assert p.grad.tolist() == [3.0, 3.0] and q.grad.tolist() == [1.0, 1.0]

    @nbgrad.library.custom_op("nbtest_multi::sincos", mutates_args=())
    def sincos(x: Tensor) -> tuple[Tensor, Tensor]:
        return x.sin(), x.cos()

    seen = []

    def backward(ctx, gs, gc):
        seen.append(ctx.needs_input_grad)
        (x,) = ctx.saved_tensors
        return gs * x.cos() - gc * x.sin()

    sincos.register_autograd(backward, setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]))
    x = nbgrad.tensor([0.3, 1.1], dtype=nbgrad.float64, requires_grad=True)
    s, c = sincos(x)
    assert s.grad_fn is c.grad_fn
    (2 * s + 3 * c).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos([0.3, 1.1]) - 3 * np.sin([0.3, 1.1]))
    assert seen == [(True,)]
    assert nbgrad.autograd.gradcheck(sincos, (x,))

    @nbgrad.library.custom_op("nbtest_multi::kw", mutates_args=())
    def kw(x: Tensor, *, s: float = 2.0) -> Tensor:
        return x * s

    assert str(kw._opoverload._schema) == "nbtest_multi::kw(Tensor x, *, float s=2.) -> Tensor"
    got = {}

    def kw_setup(ctx, inputs, keyword_only_inputs, output):
        got.update(inputs=len(inputs), kw=dict(keyword_only_inputs))
        ctx.s = keyword_only_inputs["s"]

    kw.register_autograd(lambda ctx, g: g * ctx.s, setup_context=kw_setup)
    x = nbgrad.ones(2, requires_grad=True)
    kw(x, s=5.0).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0] and got == {"inputs": 1, "kw": {"s": 5.0}}


def test_needs_input_grad_and_none_gradients():
    seen = []

    @nbgrad.library.custom_op("nbtest_nig::add", mutates_args=())
    def add(x: Tensor, y: Tensor) -> Tensor:
        return x + y

    def backward(ctx, g):
        seen.append(ctx.needs_input_grad)
        return g, None

    add.register_autograd(backward)
    x = nbgrad.ones(2, requires_grad=True)
    add(x, nbgrad.ones(2)).sum().backward()
    assert seen == [(True, False)] and x.grad.tolist() == [1.0, 1.0]


@numba.njit(cache=False)
def _cube_kernel(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i] * x[i]


@numba.njit(cache=False)
def _cube_grad_kernel(g, x, out):
    for i in range(x.shape[0]):
        out[i] = 3.0 * x[i] * x[i] * g[i]


def test_numba_kernel_inside_a_custom_op():
    @nbgrad.library.custom_op("nbtest_numba::cube", mutates_args=(), device_types="cpu")
    def cube(x: Tensor) -> Tensor:
        xs = np.ascontiguousarray(x.detach().numpy())
        out = np.empty_like(xs)
        _cube_kernel(xs.reshape(-1), out.reshape(-1))
        return nbgrad.from_numpy(out)

    @nbgrad.library.custom_op("nbtest_numba::cube_grad", mutates_args=(), device_types="cpu")
    def cube_grad(g: Tensor, x: Tensor) -> Tensor:
        gs = np.ascontiguousarray(g.detach().numpy())
        xs = np.ascontiguousarray(x.detach().numpy())
        out = np.empty_like(xs)
        _cube_grad_kernel(gs.reshape(-1), xs.reshape(-1), out.reshape(-1))
        return nbgrad.from_numpy(out)

    cube.register_autograd(lambda ctx, g: cube_grad(g, ctx.saved_tensors[0]),
                           setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]))
    x = nbgrad.tensor([[0.5, -1.25], [2.0, 0.1]], dtype=nbgrad.float64, requires_grad=True)
    y = cube(x)
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy() ** 3)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.detach().numpy() ** 2)
    assert nbgrad.autograd.gradcheck(cube, (x,))


def test_opcheck():
    mysin = _sin_op("nbtest_opcheck")
    x = nbgrad.tensor([0.2, -0.4, 1.3], dtype=nbgrad.float64, requires_grad=True)
    results = nbgrad.library.opcheck(mysin, (x,), raise_exception=False)
    assert list(results) == ["test_schema", "test_autograd_registration", "test_faketensor",
                             "test_aot_dispatch_dynamic"]
    assert results["test_schema"] == "SUCCESS" and results["test_autograd_registration"] == "SUCCESS"
    assert isinstance(results["test_faketensor"], RuntimeError)
    assert str(results["test_faketensor"]) == (
        "There was no fake impl registered for <CustomOpDef(nbtest_opcheck::mysin)>. This is necessary for "
        "torch.compile/export/fx tracing to work. Please use `mysin.register_fake` to add an fake impl.")
    mysin.register_fake(lambda x: nbgrad.empty_like(x))
    assert nbgrad.library.opcheck(mysin, (x,)) == {
        "test_schema": "SUCCESS", "test_autograd_registration": "SUCCESS", "test_faketensor": "SUCCESS",
        "test_aot_dispatch_dynamic": "SUCCESS"}
    assert nbgrad.library.opcheck(nbgrad.ops.nbtest_opcheck.mysin, (x,), test_utils="test_schema") == {
        "test_schema": "SUCCESS"}
    assert x.grad is None and x._version == 0      # opcheck works on copies
    with pytest.raises(ValueError, match="if you specify one of rtol/atol, you must specify both"):
        nbgrad.library.opcheck(mysin, (x,), atol=1e-3)
    with pytest.raises(ValueError, match="expected test_utils to be subset of"):
        nbgrad.library.opcheck(mysin, (x,), test_utils="bad")
    with pytest.raises(ValueError, match="op must be instance of torch._ops.OpOverload"):
        nbgrad.library.opcheck(lambda x: x, (x,))

    @nbgrad.library.custom_op("nbtest_opcheck::sneaky", mutates_args=())
    def sneaky(x: Tensor) -> Tensor:
        x.add_(1)
        return x.clone()

    sneaky.register_fake(lambda x: nbgrad.empty_like(x))
    with pytest.raises(Exception, match=re.escape("opcheck(op, ...): test_schema failed with Argument x is not "
                                                  "defined as mutable but was mutated")) as info:
        nbgrad.library.opcheck(sneaky, (nbgrad.zeros(3),))
    assert type(info.value).__name__ == "OpCheckError"
    assert isinstance(info.value.__cause__, RuntimeError)

    @nbgrad.library.custom_op("nbtest_opcheck::badfake", mutates_args=())
    def badfake(x: Tensor) -> Tensor:
        return x.sin()

    badfake.register_fake(lambda x: x.new_empty(5))
    results = nbgrad.library.opcheck(badfake, (nbgrad.zeros(3),), raise_exception=False)
    assert results["test_schema"] == "SUCCESS"
    assert isinstance(results["test_faketensor"], RuntimeError)
    assert "found mismatched tensor metadata: Shapes" in str(results["test_faketensor"])


@pytest.mark.skipif(AGAINST_TORCH, reason="nbgrad's opcheck compares the registered backward with finite "
                                          "differences; PyTorch's compares compiled with eager gradients")
def test_opcheck_finds_a_wrong_backward():
    @nbgrad.library.custom_op("nbtest_wrongbw::square", mutates_args=())
    def square(x: Tensor) -> Tensor:
        return x * x

    square.register_fake(lambda x: nbgrad.empty_like(x))
    square.register_autograd(lambda ctx, g: g * ctx.saved_tensors[0],       # should be 2 * x * g
                             setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]))
    x = nbgrad.tensor([0.5, 1.5], dtype=nbgrad.float64, requires_grad=True)
    results = nbgrad.library.opcheck(square, (x,), raise_exception=False)
    assert results["test_schema"] == "SUCCESS" and results["test_faketensor"] == "SUCCESS"
    assert isinstance(results["test_aot_dispatch_dynamic"], RuntimeError)
    assert "Jacobian mismatch" in str(results["test_aot_dispatch_dynamic"])
