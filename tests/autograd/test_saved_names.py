"""grad_fn._saved_<name> and ._raw_saved_<name>: what a built-in node saved, under PyTorch's
names (autograd mechanics' "Saved tensors" section), with PyTorch 2.13's values, identities
and errors recorded as literals."""
import glob
import os

import pytest

import nbgrad


def _names(node):
    """The PyTorch-named saved attributes dir() lists (nbgrad's own internals excluded)."""
    return sorted(a for a in dir(node) if (a.startswith("_saved_") or a.startswith("_raw_saved_"))
                  and a not in ("_saved_tensors_hooks",))


def _x():
    return nbgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)


def test_an_input_is_saved_as_itself_an_output_as_a_new_tensor():
    # PyTorch's docs: x is y.grad_fn._saved_self for pow; y is not y.grad_fn._saved_result for exp
    x = _x()
    y = x.pow(2)
    assert _names(y.grad_fn) == ["_raw_saved_self", "_saved_exponent", "_saved_self"]
    assert y.grad_fn._saved_self is x
    assert y.grad_fn._saved_exponent == 2 and type(y.grad_fn._saved_exponent) is int
    assert type(x.pow(2.5).grad_fn._saved_exponent) is float
    y = x.exp()
    assert _names(y.grad_fn) == ["_raw_saved_result", "_saved_result"]
    r = y.grad_fn._saved_result
    assert r is not y and r.equal(y)
    assert r.grad_fn is y.grad_fn and r.requires_grad and r._version == 0
    r2 = x.relu().grad_fn._saved_result
    assert r2.equal(x.relu())


def test_what_was_not_saved_is_none_and_a_number_is_a_wrapped_tensor():
    x = _x()
    z = x * x.detach()          # self is needed only for other's gradient, which has no edge
    assert _names(z.grad_fn) == ["_raw_saved_other", "_raw_saved_self", "_saved_other", "_saved_self"]
    assert z.grad_fn._saved_self is None
    assert z.grad_fn._saved_other.equal(x.detach()) and not z.grad_fn._saved_other.requires_grad
    z = x * 2
    assert z.grad_fn._saved_self is None
    other = z.grad_fn._saved_other
    assert other.dtype == nbgrad.int64 and other.dim() == 0 and other.item() == 2
    assert (x * 2.5).grad_fn._saved_other.dtype == nbgrad.float64
    d = x / 2
    assert _names(d.grad_fn) == ["_raw_saved_other", "_raw_saved_self", "_saved_other", "_saved_self"]
    assert d.grad_fn._saved_other.item() == 2 and d.grad_fn._saved_self is None


def test_dims_sizes_and_scalars():
    x = _x()
    s = (x * x).sum(1)
    assert _names(s.grad_fn) == ["_saved_dim", "_saved_keepdim", "_saved_self_sym_sizes"]
    assert s.grad_fn._saved_dim == (1,) and s.grad_fn._saved_keepdim is False
    assert s.grad_fn._saved_self_sym_sizes == (2, 3)
    assert x.sum().grad_fn._saved_self_sym_sizes == (2, 3)
    m = x.mean((0, 1))
    assert m.grad_fn._saved_dim == (0, 1) and m.grad_fn._saved_self_sym_numel == 6
    t = x.transpose(0, 1)
    assert _names(t.grad_fn) == ["_saved_dim0", "_saved_dim1"]
    assert (t.grad_fn._saved_dim0, t.grad_fn._saved_dim1) == (0, 1)
    assert x.view(3, 2).grad_fn._saved_self_sym_sizes == (2, 3)
    sm = nbgrad.softmax(x, 1)
    assert _names(sm.grad_fn) == ["_raw_saved_result", "_saved_dim", "_saved_result"]
    assert sm.grad_fn._saved_dim == 1 and sm.grad_fn._saved_result.equal(sm)
    assert nbgrad.nn.functional.log_softmax(x, 0).grad_fn._saved_dim == 0
    assert x.add(x, alpha=2).grad_fn._saved_alpha == 2
    assert x.cumsum(1).grad_fn._saved_dim == 1
    assert x.clamp(min=0.5).grad_fn._saved_min == 0.5
    w = nbgrad.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], requires_grad=True)
    mm = x.mm(w)
    assert mm.grad_fn._saved_self is x and mm.grad_fn._saved_mat2 is w
    assert (mm.grad_fn._saved_self_sym_sizes, mm.grad_fn._saved_mat2_sym_sizes) == ((2, 3), (3, 2))


def test_errors_after_backward_and_after_an_in_place_change():
    x = _x()
    y = x.exp()
    p = x.pow(2)
    (y.sum() + p.sum()).backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn._saved_result
    assert p.grad_fn._saved_exponent == 2          # not a tensor: still there
    with pytest.raises(AttributeError, match="_saved_foo"):
        y.grad_fn._saved_foo
    a = x.detach().clone().requires_grad_()
    b = a.clone()
    c = b.sin()
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.grad_fn._saved_self


def test_raw_saved_tensor_hooks():
    # the saved-tensors-hooks tutorial: hooks on one saved tensor of one node
    x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.pow(2)
    packed, unpacked = [], []

    def pack(t):
        packed.append(t)
        return t * 10

    def unpack(t):
        unpacked.append(t)
        return t / 10
    y.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    # the pack hook gets x's data without its history (an alias: same memory)
    assert len(packed) == 1 and packed[0] is not x and not packed[0].requires_grad and packed[0].grad_fn is None
    assert packed[0].data_ptr() == x.data_ptr()
    y.sum().backward()
    assert len(unpacked) == 1 and unpacked[0].tolist() == [10.0, 20.0, 30.0]
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    z = x * x.detach()
    with pytest.raises(RuntimeError, match="Calling register_hooks on a saved tensor with value None is forbidden"):
        z.grad_fn._raw_saved_self.register_hooks(pack, unpack)


@pytest.mark.skipif(os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1", reason="nbgrad's own table of node classes")
def test_every_class_of_the_table_has_its_properties():
    # autograd/_saved_names.py names node classes by module and name; `import nbgrad` installs
    # the properties: a class renamed or moved since would silently lose them
    table = nbgrad.autograd._saved_names.SAVED
    classes, todo = {}, [nbgrad.autograd.Node]
    while todo:
        for sub in todo.pop().__subclasses__():
            classes.setdefault(f"{sub.__module__[len('nbgrad.'):]}.{sub.__qualname__}", []).append(sub)
            todo.append(sub)
    sources = "".join(open(f, encoding="utf-8").read() for f in
                      glob.glob(os.path.join(os.path.dirname(nbgrad.__file__), "ops", "*.py")))
    for key, (tensors, others) in table.items():
        if key not in classes:
            # a class made on first use (ops.more.renamed, upsample's nodes): named in the source
            name = key.rpartition(".")[2]
            assert f'"{name}"' in sources or f"{name[:-len('Backward0')]}" in sources, key
            continue
        for cls in classes[key]:
            for name in {**tensors, **others}:
                assert isinstance(vars(cls).get(f"_saved_{name}"), property), (key, name)


def test_layers_saved_values():
    F = nbgrad.nn.functional
    x = nbgrad.arange(84.0, dtype=nbgrad.float64).reshape(1, 2, 7, 6).requires_grad_()
    w = nbgrad.ones(3, 2, 3, 2, dtype=nbgrad.float64, requires_grad=True)
    g = F.conv2d(x, w, stride=2, padding=1, dilation=(2, 1)).grad_fn
    assert g._saved_groups == 1 and g._saved_input is x and g._saved_weight is w
    a = F.avg_pool2d(x, (3, 2), stride=(2, 1), padding=1, count_include_pad=False).grad_fn
    assert (a._saved_padding, a._saved_count_include_pad) == ((1, 1), False) and a._saved_self is x
    t = x.reshape(14, 6).topk(2, dim=1)
    node = t.values.grad_fn
    assert node._saved_dim == 1 and node._saved_self_sym_sizes == (14, 6) and node._saved_indices.equal(t.indices)
    i = x.reshape(14, 6).index_select(1, nbgrad.tensor([4, 0])).grad_fn
    assert i._saved_index.tolist() == [4, 0] and i._saved_self_sym_sizes == (14, 6)
    assert F.pad(x, (1, 2), value=0.5).grad_fn._saved_pad == (1, 2)
    assert F.glu(x, dim=3).grad_fn._saved_dim == 3


def test_sequence_numbers_order_the_nodes():
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = a + 1
    c = b.sum()
    seqs = [a.grad_fn._sequence_nr(), b.grad_fn._sequence_nr(), c.grad_fn._sequence_nr()]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3
    assert c.grad_fn.next_functions[0][0]._sequence_nr() == seqs[1]
    assert a.grad_fn.next_functions[0][0]._sequence_nr() == 18446744073709551615     # AccumulateGrad
