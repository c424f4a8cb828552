"""Node names and chains a graph-shape comparison found (PyTorch 2.13's recorded): clamp_min and
clamp_max are their own ATen ops (ClampMinBackward0/1, ClampMaxBackward0/1, with their saved
bounds), F.normalize's clamp_min among them; ATen composites that add a C++ double show add.Scalar's
node (AddBackward1: pairwise_distance's x1 - x2 + eps, triplet_margin_loss' margin + d+);
cosine_similarity clones its norms and clamps them in place under no_grad, as ATen does."""
import pytest

import nbgrad

F = nbgrad.nn.functional


def _chain(t, depth=6):
    names, node = [], t.grad_fn
    while node is not None and len(names) < depth:
        names.append(node.name())
        node = next((f for f, _ in node.next_functions if f is not None and "AccumulateGrad" not in f.name()), None)
    return names


def test_clamp_min_and_clamp_max_nodes():
    x = nbgrad.ones(2, requires_grad=True)
    assert x.clamp_min(1.0).grad_fn.name() == "ClampMinBackward0" and x.clamp_min(1.0).grad_fn._saved_min == 1.0
    assert x.clamp_max(2.0).grad_fn.name() == "ClampMaxBackward0" and x.clamp_max(2.0).grad_fn._saved_max == 2.0
    assert nbgrad.clamp_min(x, nbgrad.zeros(2)).grad_fn.name() == "ClampMinBackward1"
    assert nbgrad.clamp_max(x, nbgrad.zeros(2)).grad_fn.name() == "ClampMaxBackward1"
    assert x.clamp(min=1.0).grad_fn.name() == "ClampBackward1" and x.clamp(1.0, 2.0).grad_fn._saved_max == 2.0
    assert _chain(F.normalize(nbgrad.ones(2, 3, requires_grad=True)))[:4] == \
        ["DivBackward0", "ExpandBackward0", "ClampMinBackward0", "LinalgVectorNormBackward0"]


def test_aten_composites_adding_a_double_show_add_scalar():
    a = nbgrad.ones(2, 3, requires_grad=True)
    assert _chain(F.pairwise_distance(a, nbgrad.zeros(2, 3)))[:3] == ["NormBackward1", "AddBackward1", "SubBackward0"]
    loss = F.triplet_margin_loss(a, nbgrad.zeros(2, 3), nbgrad.ones(2, 3))
    assert _chain(loss)[:5] == ["MeanBackward0", "ClampMinBackward0", "SubBackward0", "AddBackward1", "NormBackward1"]


def test_cosine_similarity_clamps_cloned_norms():
    a = nbgrad.tensor([[1e-9, 2e-9], [1.0, 2.0]], dtype=nbgrad.float64, requires_grad=True)
    b = nbgrad.tensor([[3.0, 1.0], [1e-10, 1e-10]], dtype=nbgrad.float64, requires_grad=True)
    y = F.cosine_similarity(a, b)
    node = y.grad_fn.next_functions[0][0].next_functions[0][0]
    assert node.name() == "DivBackward0" and node.next_functions[1][0].name() == "CloneBackward0"
    y.sum().backward()
    assert abs(a.grad[0, 0].item() - 87797261.9931859) < 1e-3      # (the unclamped norm in its gradient)


def test_value_selecting_reductions_are_one_node():
    for fn, name in ((lambda x: x.median(1), "MedianBackward1"), (lambda x: x.nanmedian(1), "NanmedianBackward1"),
                     (lambda x: x.kthvalue(2, 1), "KthvalueBackward0"), (lambda x: x.mode(1), "ModeBackward0")):
        x = nbgrad.tensor([[1.0, 3.0, 3.0], [2.0, 5.0, 0.0]], dtype=nbgrad.float64, requires_grad=True)
        out = fn(x)
        node = out.values.grad_fn
        assert node.name() == name and node._saved_dim == 1 and node._saved_keepdim is False
        assert node.next_functions[0][0].name().endswith("AccumulateGrad")      # (one node from x)
        assert node._saved_indices.tolist() == out.indices.tolist()
    x = nbgrad.tensor([[1.0, 3.0, 3.0], [2.0, 5.0, 0.0]], dtype=nbgrad.float64, requires_grad=True)
    (x.median(1).values * nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64)).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]]


def test_composed_ops_are_one_node_from_their_input():
    x = nbgrad.arange(2 * 3 * 4 * 5 * 6, dtype=nbgrad.float64).reshape(2, 3, 4, 5, 6).sin().requires_grad_()
    for out, name in ((F.avg_pool3d(x, 2), "AvgPool3DBackward0"),
                      (F.adaptive_avg_pool3d(x, (2, 3, 2)), "AdaptiveAvgPool3DBackward0"),
                      (x.logcumsumexp(2), "LogcumsumexpBackward0"),
                      (F.channel_shuffle(x.reshape(2, 6, 2, 5, 6), 3), "ChannelShuffleBackward0")):
        assert out.grad_fn.name() == name
        assert [type(f).__name__ for f, _ in out.grad_fn.next_functions] in (["AccumulateGrad"], ["ViewBackward0"])
    y = F.avg_pool3d(x, 2, stride=1, padding=1, count_include_pad=False)
    (y * nbgrad.arange(y.numel(), dtype=nbgrad.float64).reshape(y.shape)).sum().backward()
    assert round(x.grad.sum().item(), 6) == round(sum(range(y.numel())) * 1.0, 6)      # (each window averages)
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        z = F.avg_pool3d(x, 2)
        z.sum().backward()
        z.sum().backward()          # (PyTorch's AvgPool3DBackward0 saves its input: freed)
    w = nbgrad.zeros(2, 2, requires_grad=True)
    e = nbgrad.diag_embed(w)
    e.sum().backward()
    e.sum().backward()              # (DiagEmbedBackward0 saves no tensor: a second backward is fine)
    assert w.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_group_norm_is_one_node_with_pytorchs_three_edges():
    x = nbgrad.arange(60, dtype=nbgrad.float64).reshape(2, 6, 5).sin().requires_grad_()
    w = nbgrad.linspace(0.5, 2, 6, dtype=nbgrad.float64).requires_grad_()
    y = F.group_norm(x, 2)
    assert y.grad_fn.name() == "NativeGroupNormBackward0"
    assert [None if f is None else type(f).__name__ for f, _ in y.grad_fn.next_functions] == \
        ["AccumulateGrad", None, None]      # (weight and bias absent: their edges still there, empty)
    y = F.group_norm(x.detach(), 2, w)
    assert [None if f is None else type(f).__name__ for f, _ in y.grad_fn.next_functions] == \
        [None, "AccumulateGrad", None]


def test_more_composed_ops_are_one_node():
    x = nbgrad.arange(24, dtype=nbgrad.float64).reshape(2, 3, 4).sin().requires_grad_()
    for out, name in ((nbgrad.dist(x, x.detach() * 2, 3), "DistBackward0"), (x.renorm(2, 1, 0.5), "RenormBackward0"),
                      (x.rot90(1, (1, 2)), "Rot90Backward0"),
                      (nbgrad.conv_tbc(x, nbgrad.ones(2, 4, 3, dtype=nbgrad.float64),
                                       nbgrad.zeros(3, dtype=nbgrad.float64), 1), "ConvTbcBackward0")):
        assert out.grad_fn.name() == name
        assert type(out.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    loss = nbgrad.margin_ranking_loss(x[0], x[1].detach(), nbgrad.ones(3, 4), 0.5, 1)
    assert _chain(loss)[:3] == ["MeanBackward0", "ClampMinBackward0", "AddBackward1"]


def test_kron_is_atens_unsafe_views():
    x = nbgrad.arange(6.0).reshape(2, 3).requires_grad_()
    y = nbgrad.kron(x[:, :2], x.detach())
    assert _chain(y)[:4] == ["UnsafeViewBackward0", "MulBackward0", "UnsafeViewBackward0", "SliceBackward0"]
    assert not y._is_view()
    with pytest.raises(RuntimeError, match="^view size is not compatible with input tensor's size and stride"):
        nbgrad.kron(nbgrad.arange(6.0).reshape(2, 3).t(), nbgrad.ones(2, 3))   # (ATen's final view refuses it)
    assert nbgrad.kron(nbgrad.arange(6.0).reshape(2, 3)[:, ::2], nbgrad.ones(2, 3)).tolist()[2] == \
        [3.0, 3.0, 3.0, 5.0, 5.0, 5.0]


def test_gradient_divides_by_scalars_as_aten():
    x = nbgrad.arange(12.0, dtype=nbgrad.float64).reshape(3, 4).pow(2).requires_grad_()
    g = nbgrad.gradient(x, spacing=0.5, dim=1, edge_order=2)[0]
    assert [type(f).__name__ for f, _ in g.grad_fn.next_functions] == ["DivBackward1"] * 3
    assert g.sum().item() == 264.0
