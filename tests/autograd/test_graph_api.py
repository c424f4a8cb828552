"""nbgrad.autograd.graph's graph utilities: Node as the abstract base of grad_fns,
GradientEdge / get_gradient_edge (as inputs and outputs of autograd.grad and backward),
increment_version and register_multi_grad_hook, with PyTorch's rules (values and messages
recorded from PyTorch 2.13)."""
import inspect

import pytest

import nbgrad


def _graph():
    return nbgrad.autograd.graph


def _ab():
    a = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = nbgrad.tensor([4.0, 5.0, 6.0], requires_grad=True)
    return a, b


class Double(nbgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


# -- Node ---------------------------------------------------------------------------------
def test_every_grad_fn_is_a_node():
    Node = _graph().Node
    a = nbgrad.tensor([0.0, 0.0, 0.0], requires_grad=True)
    b = a.clone()
    assert isinstance(b.grad_fn, Node) and b.grad_fn.name() == "CloneBackward0"
    assert issubclass(type(b.grad_fn), Node)
    acc = b.grad_fn.next_functions[0][0]
    assert isinstance(acc, Node)
    assert isinstance(Double.apply(a).grad_fn, Node)
    assert not isinstance(3, Node) and not isinstance(a, Node) and not isinstance(None, Node)
    assert inspect.isabstract(Node)
    with pytest.raises(TypeError, match="abstract"):
        Node()


def test_node_metadata_is_a_dict_kept_with_the_node():
    b = nbgrad.ones(2, requires_grad=True).clone()
    m = b.grad_fn.metadata
    assert m == {}
    m["tag"] = 7
    assert b.grad_fn.metadata is m and b.grad_fn.metadata == {"tag": 7}


# -- GradientEdge ---------------------------------------------------------------------------
def test_gradient_edge_of_a_leaf_and_of_a_non_leaf():
    a, b = _ab()
    e = _graph().get_gradient_edge(a)
    assert isinstance(e, _graph().GradientEdge) and isinstance(e, tuple)
    assert e.output_nr == 0 and e.node.name() == "torch::autograd::AccumulateGrad"
    c = a * b
    assert c.grad_fn.next_functions[0][0] is e.node        # the edge keeps the leaf's sink alive
    e2 = _graph().get_gradient_edge(c)
    assert e2.node is c.grad_fn and e2.output_nr == 0 and e2.ownership_token is None
    assert e2 == (c.grad_fn, 0, None)
    v = a[:2]
    assert _graph().get_gradient_edge(v).node is v.grad_fn
    values, indices = nbgrad.tensor([[1.0, 5.0], [7.0, 2.0]], requires_grad=True).max(dim=1)
    assert _graph().get_gradient_edge(values).output_nr == values.output_nr


def test_gradient_edge_of_a_tensor_without_grad():
    with pytest.raises(RuntimeError, match="It is not possible to get the gradient edge for a Tensor that does not "
                                           "require gradients"):
        _graph().get_gradient_edge(nbgrad.ones(2))


def test_gradient_edge_as_an_input_of_autograd_grad():
    a, b = _ab()
    c = a * b
    loss = (c * c).sum()
    edge = _graph().get_gradient_edge
    assert [g.tolist() for g in nbgrad.autograd.grad(loss, edge(c), retain_graph=True)] == [[8.0, 20.0, 36.0]]
    both = nbgrad.autograd.grad(loss, [edge(a), b], retain_graph=True)
    assert [g.tolist() for g in both] == [[32.0, 100.0, 216.0], [8.0, 40.0, 108.0]]
    plain = nbgrad.autograd.grad(loss, [a, b], retain_graph=True)
    assert [g.tolist() for g in plain] == [g.tolist() for g in both]
    assert a.grad is None and b.grad is None


def test_gradient_edge_as_an_output():
    a, b = _ab()
    c = a * b
    (g,) = nbgrad.autograd.grad(_graph().get_gradient_edge(c), a, grad_outputs=nbgrad.ones(3), retain_graph=True)
    assert g.tolist() == [4.0, 5.0, 6.0]
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        nbgrad.autograd.grad(_graph().get_gradient_edge(c), a, retain_graph=True)
    nbgrad.autograd.backward(_graph().get_gradient_edge(c), grad_tensors=nbgrad.ones(3), inputs=[a],
                             retain_graph=True)
    assert a.grad.tolist() == [4.0, 5.0, 6.0] and b.grad is None


def test_gradient_edge_of_a_leaf_in_backward_inputs_accumulates():
    a, b = _ab()
    (a * b).sum().backward(inputs=[_graph().get_gradient_edge(a)])
    assert a.grad.tolist() == [4.0, 5.0, 6.0] and b.grad is None


def test_unused_gradient_edge():
    a, b = _ab()
    u = nbgrad.ones(2, requires_grad=True)
    loss = (a * b).sum()
    edge = _graph().get_gradient_edge
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 0 appears to not have been used "
                                           "in the graph"):
        nbgrad.autograd.grad(loss, edge(u), retain_graph=True)
    none, ga = nbgrad.autograd.grad(loss, [edge(u), a], retain_graph=True, allow_unused=True)
    assert none is None and ga.tolist() == [4.0, 5.0, 6.0]
    (ga,) = nbgrad.autograd.grad(loss, edge(a), retain_graph=True, materialize_grads=True)
    assert ga.tolist() == [4.0, 5.0, 6.0]
    with pytest.raises(RuntimeError, match="materialize_grads cannot be used when the given input is a "
                                           "GradientEdge"):
        nbgrad.autograd.grad(loss, [edge(u), a], retain_graph=True, materialize_grads=True)


# -- increment_version ----------------------------------------------------------------------
def test_increment_version_counts():
    t = nbgrad.ones(2)
    assert t._version == 0
    _graph().increment_version(t)
    assert t._version == 1
    _graph().increment_version([t, t])
    assert t._version == 3
    assert t.tolist() == [1.0, 1.0]


def test_increment_version_fails_a_backward_that_reads_the_saved_tensor():
    x = nbgrad.ones(2, requires_grad=True)
    y = x.clone()
    z = y.exp()                 # saves its result, not y
    _graph().increment_version(y)
    z.sum().backward()
    assert x.grad.tolist() == nbgrad.ones(2).exp().tolist()
    y2 = x.clone()
    w = y2.sin()
    _graph().increment_version(y2)
    with pytest.raises(RuntimeError, match=r"which is output 0 of Clone, is at version 1; expected version 0 "
                                           "instead"):
        w.sum().backward()


def test_increment_version_bad_input():
    with pytest.raises(RuntimeError, match=r"increment_version expect a Iterable\[Tensor\] as input"):
        _graph().increment_version(3)
    with pytest.raises(RuntimeError, match="increment_version expects each element of the iterable to be a tensor"):
        _graph().increment_version([nbgrad.ones(1), 3])


# -- register_multi_grad_hook ---------------------------------------------------------------
def _lists(grads):
    return [None if g is None else g.tolist() for g in grads]


def test_multi_grad_hook_all_mode_documented_example():
    a, b = _ab()
    c = a * b
    d = a * b
    calls = []
    handle = _graph().register_multi_grad_hook((a, b, c, d), lambda grads: calls.append(_lists(grads)))
    c.sum().backward(retain_graph=True)
    assert calls == [[[4.0, 5.0, 6.0], [1.0, 2.0, 3.0], [1.0, 1.0, 1.0], None]]     # d: not in the graph
    c.sum().backward(inputs=(a,), retain_graph=True)
    assert calls[1] == [[4.0, 5.0, 6.0], None, [1.0, 1.0, 1.0], None]               # b: not wanted
    (c.sum() + d.sum() * 2).backward(retain_graph=True)
    assert calls[2] == [[12.0, 15.0, 18.0], [3.0, 6.0, 9.0], [1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]
    handle.remove()
    c.sum().backward(retain_graph=True)
    assert len(calls) == 3


def test_multi_grad_hook_runs_when_its_last_gradient_arrives():
    order = []
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * 3
    y.register_hook(lambda g: order.append("y"))
    _graph().register_multi_grad_hook((x, y), lambda grads: order.append(("multi", _lists(grads))))
    x.register_hook(lambda g: order.append("x"))
    z.sum().backward()
    assert order == ["y", ("multi", [[6.0, 6.0], [3.0, 3.0]]), "x"]


def test_multi_grad_hook_any_mode_once_per_backward():
    a, b = _ab()
    calls = []
    handle = _graph().register_multi_grad_hook((a, b, nbgrad.ones(3)), lambda g: calls.append(g.tolist()),
                                               mode="any")
    (a * 2 + b * 3).sum().backward()
    assert calls == [[3.0, 3.0, 3.0]]          # b's: the first computed (its node is the newer)
    (b * 3).sum().backward()
    (a * 5).sum().backward()
    assert calls == [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0], [5.0, 5.0, 5.0]]
    handle.remove()
    (a * 5).sum().backward()
    assert len(calls) == 3


def test_multi_grad_hook_bad_arguments():
    a, _ = _ab()
    with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got bad"):
        _graph().register_multi_grad_hook((a,), print, mode="bad")
    with pytest.raises(AssertionError, match="Expected gradient function to be set"):
        _graph().register_multi_grad_hook((a.detach(),), print)


def test_multi_grad_hook_in_autograd_grad():
    a, b = _ab()
    c = a * b
    d = c * 2
    e = a * 3
    loss = (d * d).sum() + e.sum()
    calls = []
    _graph().register_multi_grad_hook((c, d, e), lambda grads: calls.append(_lists(grads)))
    (gc,) = nbgrad.autograd.grad(loss, [c], retain_graph=True)      # c: captured, counted
    assert gc.tolist() == [32.0, 80.0, 144.0]
    assert calls == [[[32.0, 80.0, 144.0], [16.0, 40.0, 72.0], None]]   # e: on no path to c
    (gb,) = nbgrad.autograd.grad(loss, [b], retain_graph=True)
    assert gb.tolist() == [32.0, 160.0, 432.0]
    assert calls[1] == [[32.0, 80.0, 144.0], [16.0, 40.0, 72.0], None]
    _graph().register_multi_grad_hook((a, c), lambda grads: calls.append(_lists(grads)))
    nbgrad.autograd.grad(loss, [c], retain_graph=True)              # a: not in this pass
    assert calls[-1] == [None, [32.0, 80.0, 144.0]]
    with pytest.raises(RuntimeError, match="A leaf node was passed to _will_engine_execute_node but we are "
                                           r"currently running autograd.grad\(\). This is currently not supported."):
        nbgrad.autograd.grad(loss, [a], retain_graph=True)
