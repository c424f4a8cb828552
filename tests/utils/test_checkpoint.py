"""nbgrad.utils.checkpoint (torch.utils.checkpoint): gradients equal to the un-checkpointed
function's (exactly, float64), activations not kept, the function run again in backward,
the RNG state replayed (dropout's mask), and PyTorch 2.13's rules, warnings and errors
for both forms."""
import contextlib
import os
import warnings
import weakref

import pytest

import nbgrad

CK = nbgrad.utils.checkpoint
AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
BOTH = pytest.mark.parametrize("reentrant", [True, False], ids=["reentrant", "non_reentrant"])


def _data():
    nbgrad.manual_seed(0)
    x = nbgrad.randn(4, 3, dtype=nbgrad.float64, requires_grad=True)
    w = nbgrad.randn(3, 3, dtype=nbgrad.float64, requires_grad=True)
    return x, w


class _Block:
    """(a @ w).tanh() * sin: records its calls and weak references to its activations."""

    def __init__(self, w):
        self.w, self.calls, self.refs = w, 0, []

    def __call__(self, a, scale=1.0):
        self.calls += 1
        h = (a @ self.w).tanh()
        s = h.sin()
        self.refs += [weakref.ref(h), weakref.ref(s)]
        return (h * s).sum(1) * scale


@BOTH
def test_gradients_equal_the_plain_function_exactly(reentrant):
    x, w = _data()
    f = _Block(w)
    f(x).sum().backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    out = CK.checkpoint(f, x, use_reentrant=reentrant)
    assert out.requires_grad
    out.sum().backward()
    assert nbgrad.equal(x.grad, gx) and nbgrad.equal(w.grad, gw)


@BOTH
def test_activations_are_freed_and_the_function_runs_again_in_backward(reentrant):
    x, w = _data()
    f = _Block(w)
    out = CK.checkpoint(f, x, use_reentrant=reentrant)
    assert f.calls == 1
    assert all(r() is None for r in f.refs)       # h and s are not kept
    out.sum().backward()
    assert f.calls == 2


def test_without_checkpoint_the_activations_live():
    # (the check above can fail: a plain graph keeps them)
    x, w = _data()
    f = _Block(w)
    out = f(x)
    assert any(r() is not None for r in f.refs)
    del out


@BOTH
def test_dropout_draws_the_same_mask_in_the_recomputation(reentrant):
    x, _ = _data()
    drop = nbgrad.nn.Dropout(0.5)

    def f(a):
        return drop(a * 1.0) * 3.0

    nbgrad.manual_seed(5)
    out = CK.checkpoint(f, x, use_reentrant=reentrant)
    nbgrad.rand(10)                     # the generator moves on before backward
    after_forward = nbgrad.get_rng_state()
    out.sum().backward()
    kept = (out != 0).to(nbgrad.float64)
    assert 0 < kept.sum().item() < kept.numel()
    assert nbgrad.equal(x.grad, kept * 6.0)                          # the forward's mask
    assert nbgrad.equal(nbgrad.get_rng_state(), after_forward)      # the surrounding state restored


@BOTH
def test_preserve_rng_state_false_draws_again(reentrant):
    x, _ = _data()
    drop = nbgrad.nn.Dropout(0.5)
    x16 = nbgrad.ones(64, dtype=nbgrad.float64, requires_grad=True)
    nbgrad.manual_seed(5)
    out = CK.checkpoint(lambda a: drop(a * 1.0), x16, use_reentrant=reentrant, preserve_rng_state=False)
    out.sum().backward()
    # the backward's mask is a new draw: it differs from the output's
    assert not nbgrad.equal(x16.grad, (out != 0).to(nbgrad.float64) * 2.0)


@BOTH
def test_use_reentrant_not_passed_warns_and_is_reentrant(reentrant):
    x, w = _data()
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly. Starting in "
                                         "PyTorch 2.9, calling checkpoint without use_reentrant will raise"):
        out = CK.checkpoint(nbgrad.sin, x)
    assert type(out.grad_fn).__name__ == "CheckpointFunctionBackward"
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter should be passed"):
        CK.checkpoint_sequential([nbgrad.sin, nbgrad.cos], 2, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CK.checkpoint(nbgrad.sin, x, use_reentrant=reentrant)


def test_reentrant_warns_when_no_input_requires_grad():
    x, w = _data()
    with pytest.warns(UserWarning, match="^None of the inputs have requires_grad=True. Gradients will be None$"):
        out = CK.checkpoint(lambda a: a @ w, x.detach(), use_reentrant=True)
    assert not out.requires_grad          # the reentrant form: parameters alone do not count


def test_non_reentrant_parameters_alone_count():
    x, w = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = CK.checkpoint(lambda a: (a @ w).exp(), x.detach(), use_reentrant=False)
    assert out.requires_grad
    out.sum().backward()
    expected = nbgrad.autograd.grad((x.detach() @ w).exp().sum(), w)[0]
    assert nbgrad.equal(w.grad, expected)


def test_reentrant_refuses_autograd_grad_and_backward_inputs():
    x, w = _data()
    msg = ("^When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad\\(\\) or passing an "
           "`inputs` parameter to .backward\\(\\). To resolve this error, you can either set use_reentrant=False, "
           "or call .backward\\(\\) without passing the `inputs` argument.$")
    with pytest.raises(RuntimeError, match=msg):
        nbgrad.autograd.grad(CK.checkpoint(nbgrad.sin, x, use_reentrant=True).sum(), x)
    with pytest.raises(RuntimeError, match=msg):
        CK.checkpoint(nbgrad.sin, x, use_reentrant=True).sum().backward(inputs=[x])
    assert x.grad is None


def test_reentrant_backward_without_an_output_that_requires_grad():
    x, _ = _data()
    out = CK.checkpoint(lambda a: a.detach(), x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="^none of output has requires_grad=True, this checkpoint\\(\\) is not "
                                           "necessary$"):
        out.sum().backward()


def test_non_reentrant_autograd_grad_keyword_arguments_and_double_backward():
    x, w = _data()
    f = _Block(w)
    gx, gw = nbgrad.autograd.grad(f(x, scale=2.0).sum(), [x, w])
    out = CK.checkpoint(f, x, use_reentrant=False, scale=2.0)
    cx, cw = nbgrad.autograd.grad(out.sum(), [x, w])
    assert nbgrad.equal(cx, gx) and nbgrad.equal(cw, gw)
    assert x.grad is None and w.grad is None
    # double backward through the recomputation
    g1, = nbgrad.autograd.grad(CK.checkpoint(f, x, use_reentrant=False).sum(), x, create_graph=True)
    gg, = nbgrad.autograd.grad((g1 ** 2).sum(), w)
    p1, = nbgrad.autograd.grad(f(x).sum(), x, create_graph=True)
    pg, = nbgrad.autograd.grad((p1 ** 2).sum(), w)
    assert nbgrad.allclose(gg, pg, rtol=1e-12, atol=0)


def test_keyword_arguments_only_without_reentrance():
    x, _ = _data()
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: b,c$"):
        CK.checkpoint(lambda a, b=1, c=2: a * b, x, use_reentrant=True, b=2, c=3)
    with pytest.raises(ValueError, match="^Passing `context_fn` or `debug` is only supported when "
                                         "use_reentrant=False.$"):
        CK.checkpoint(nbgrad.sin, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match=r"^determinism_check should be one of \['default', 'none'\], but got foo$"):
        CK.checkpoint(nbgrad.sin, x, use_reentrant=False, determinism_check="foo")
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: foo$"):
        CK.checkpoint_sequential([nbgrad.sin], 1, x, use_reentrant=False, foo=1)


def test_non_reentrant_closure_tensors_that_depend_on_the_inputs():
    x, w = _data()
    y = x * 2.0                         # outside, from x: its gradient reaches x twice

    def f(a):
        return (a * y).exp() @ w

    ref = nbgrad.autograd.grad(f(x).sum(), [x, w], retain_graph=True)
    got = nbgrad.autograd.grad(CK.checkpoint(f, x, use_reentrant=False).sum(), [x, w])
    assert nbgrad.equal(got[0], ref[0]) and nbgrad.equal(got[1], ref[1])


def test_non_reentrant_structures_pass_through_and_nesting():
    x, w = _data()
    lin = nbgrad.nn.Linear(3, 3).double()
    b = nbgrad.randn(4, 3, dtype=nbgrad.float64, requires_grad=True)

    def m(inputs):
        a, bb = inputs["a"], inputs["b"]
        return {"out": lin(a).relu() + bb, "same": a, "n": 7}

    res = CK.checkpoint(m, {"a": x, "b": b}, use_reentrant=False)
    assert res["same"] is x and res["n"] == 7
    got = nbgrad.autograd.grad(res["out"].sum(), [x, b, lin.weight, lin.bias])
    plain = m({"a": x, "b": b})
    ref = nbgrad.autograd.grad(plain["out"].sum(), [x, b, lin.weight, lin.bias])
    for g, r in zip(got, ref):
        assert nbgrad.equal(g, r)

    def outer(a):
        return CK.checkpoint(_Block(w), a.cos(), use_reentrant=False).exp()

    got, = nbgrad.autograd.grad(CK.checkpoint(outer, x, use_reentrant=False).sum(), x)
    ref, = nbgrad.autograd.grad(outer(x).sum(), x)
    assert nbgrad.equal(got, ref)


@BOTH
def test_inputs_changed_in_place_before_backward(reentrant):
    x, _ = _data()
    y = x * 1.0
    out = CK.checkpoint(nbgrad.sin, y, use_reentrant=reentrant)
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified "
                                           "by an inplace operation: .*, which is output 0 of Mul, is at version 1; "
                                           "expected version 0 instead"):
        out.sum().backward()


def test_non_reentrant_second_backward_needs_retain_graph():
    x, w = _data()
    f = _Block(w)
    out = CK.checkpoint(f, x, use_reentrant=False).sum()
    out.backward(retain_graph=True)
    first = x.grad.clone()
    out.backward()
    assert nbgrad.equal(x.grad, 2 * first)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.backward()


def test_non_reentrant_under_no_grad_just_runs():
    x, w = _data()
    f = _Block(w)
    with nbgrad.no_grad():
        out = CK.checkpoint(f, x, use_reentrant=False)
    assert not out.requires_grad and f.calls == 1


def test_non_reentrant_context_fn():
    x, _ = _data()
    log = []

    @contextlib.contextmanager
    def tag(name):
        log.append(name)
        yield

    out = CK.checkpoint(nbgrad.sin, x, use_reentrant=False, context_fn=lambda: (tag("forward"), tag("recompute")))
    assert log == ["forward"]
    out.sum().backward()
    assert log == ["forward", "recompute"]
    with pytest.raises(ValueError, match="^debug=True is incompatible with non-default context_fn$"):
        CK.checkpoint(nbgrad.sin, x, use_reentrant=False, debug=True, context_fn=lambda: (tag("a"), tag("b")))


def test_non_reentrant_recomputation_that_differs():
    x, _ = _data()
    calls = []

    def f(a):
        calls.append(1)
        return a.exp() if len(calls) == 1 else a[:2].exp()

    out = CK.checkpoint(f, x, use_reentrant=False)
    with pytest.raises(CK.CheckpointError):
        out.sum().backward()


@BOTH
def test_checkpoint_sequential(reentrant):
    x, _ = _data()
    nbgrad.manual_seed(1)
    model = nbgrad.nn.Sequential(nbgrad.nn.Linear(3, 5), nbgrad.nn.Tanh(), nbgrad.nn.Linear(5, 5),
                                 nbgrad.nn.Sigmoid(), nbgrad.nn.Linear(5, 2)).double()
    ref = nbgrad.autograd.grad(model(x).sum(), [x, *model.parameters()])
    grads = []
    for segments in (1, 2, 3):
        for p in [x, *model.parameters()]:
            p.grad = None
        out = CK.checkpoint_sequential(model, segments, x, use_reentrant=reentrant)
        assert nbgrad.equal(out, model(x))
        out.sum().backward()
        grads.append([p.grad.clone() for p in [x, *model.parameters()]])
    for got in grads:
        for g, r in zip(got, ref):
            assert nbgrad.equal(g, r)


def test_detach_variable():
    x, _ = _data()
    a, b = CK.detach_variable((x, 3))
    assert b == 3 and a.requires_grad and a.is_leaf and a is not x
    with pytest.raises(RuntimeError, match="Only tuple of tensors is supported. Got Unsupported input type: list"):
        CK.detach_variable([x])
