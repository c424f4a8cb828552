"""Module behaviour as PyTorch: registration, traversal order, state dicts, modes, repr, conversion."""
import math
from collections import OrderedDict

import numpy as np
import pytest

import nbgrad
nn = nbgrad.nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.act = nn.ReLU()
        self.scale = nn.Parameter(nbgrad.ones(1))
        self.register_buffer("running", nbgrad.zeros(3))
        self.register_buffer("scratch", nbgrad.zeros(2), persistent=False)
        self.blocks = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 2, bias=False)])

    def forward(self, x):
        x = self.act(self.fc1(x)) * self.scale
        for b in self.blocks:
            x = b(x)
        return x


def test_registration_and_traversal_order():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "fc1.weight", "fc1.bias", "blocks.0.weight", "blocks.0.bias", "blocks.1.weight"]
    assert [n for n, _ in net.named_buffers()] == ["running", "scratch"]
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "blocks"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "blocks", "blocks.0", "blocks.1"]
    assert len(list(net.parameters())) == 6 and len(list(net.modules())) == 6
    assert isinstance(net.fc1.weight, nn.Parameter) and net.fc1.weight.requires_grad
    assert net.blocks[1].bias is None
    # plain tensors and other values are ordinary attributes
    net.note = nbgrad.zeros(1)
    assert "note" not in dict(net.named_parameters()) and "note" not in dict(net.named_buffers())
    # reassigning None keeps the slot; deleting removes it
    net.scale = None
    assert "scale" not in dict(net.named_parameters()) and "scale" in net._parameters
    del net.fc1
    assert "fc1" not in dict(net.named_children())
    with pytest.raises(TypeError, match="cannot assign"):
        net.running = 3.0
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        net.nope


def test_shared_parameters_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_state_dict_keys_order_sharing_and_detach():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == ["scale", "running", "fc1.weight", "fc1.bias", "blocks.0.weight", "blocks.0.bias",
                        "blocks.1.weight"]
    w = sd["fc1.weight"]
    assert not w.requires_grad and w.grad_fn is None and not isinstance(w, nn.Parameter)
    assert w.data_ptr() == net.fc1.weight.data_ptr()
    with nbgrad.no_grad():
        net.fc1.weight[0, 0] = 42.0
    assert w[0, 0].item() == 42.0
    kept = net.state_dict(keep_vars=True)
    assert kept["fc1.weight"] is net.fc1.weight


def test_load_state_dict_copies_values_and_reports_keys():
    a, b = Net(), Net()
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    for (na, pa), (nb, pb) in zip(a.named_parameters(), b.named_parameters()):
        np.testing.assert_array_equal(pa.detach().numpy(), pb.detach().numpy())
        assert pa.data_ptr() != pb.data_ptr()
    sd = a.state_dict()
    del sd["fc1.bias"]
    sd["extra.weight"] = nbgrad.zeros(1)
    with pytest.raises(RuntimeError) as err:
        b.load_state_dict(sd)
    msg = str(err.value)
    assert msg.startswith("Error(s) in loading state_dict for Net:")
    assert 'Missing key(s) in state_dict: "fc1.bias".' in msg
    assert 'Unexpected key(s) in state_dict: "extra.weight".' in msg
    missing, unexpected = b.load_state_dict(sd, strict=False)
    assert missing == ["fc1.bias"] and unexpected == ["extra.weight"]


def test_load_state_dict_shape_mismatch_names_the_key():
    lin = nn.Linear(3, 2)
    sd = nn.Linear(4, 2).state_dict()
    with pytest.raises(RuntimeError, match=r"size mismatch for weight: copying a param with shape "
                                           r".*\[2, 4\].* from checkpoint, the shape in current model is .*\[2, 3\]"):
        lin.load_state_dict(sd)


def test_train_eval_and_dropout():
    net = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5), nn.Sequential(nn.Dropout(0.2)))
    assert net.training and all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    x = nbgrad.randn(4, 3)
    drop = nn.Dropout(0.5).eval()
    assert drop(x) is x
    drop.train()
    nbgrad.manual_seed(0)
    big = nbgrad.ones(20000)
    y = drop(big).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert abs((y == 0).mean() - 0.5) < 0.02
    assert nn.Dropout(0.0)(x) is x


def test_dropout_gradient_uses_the_same_mask():
    x = nbgrad.ones(1000, requires_grad=True)
    y = nn.functional.dropout(x, 0.3, training=True)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())


def test_zero_grad_requires_grad_apply():
    net = nn.Linear(2, 2)
    net(nbgrad.randn(3, 2)).sum().backward()
    assert net.weight.grad is not None
    net.zero_grad()
    assert net.weight.grad is None and net.bias.grad is None
    net(nbgrad.randn(3, 2)).sum().backward()
    net.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(net.weight.grad.numpy(), 0)
    net.requires_grad_(False)
    assert not net.weight.requires_grad
    seen = []
    nn.Sequential(nn.ReLU(), nn.Tanh()).apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["ReLU", "Tanh", "Sequential"]


def test_to_dtype_keeps_parameter_objects():
    net = Net()
    w = net.fc1.weight
    out = net.to(nbgrad.float64)
    assert out is net and net.fc1.weight is w and w.dtype == nbgrad.float64
    assert net.running.dtype == nbgrad.float64
    assert net.double() is net and net.float().fc1.weight.dtype == nbgrad.float32
    assert net.to("cpu") is net


def test_forward_hooks():
    lin = nn.Linear(2, 2)
    calls = []
    h = lin.register_forward_hook(lambda m, inp, out: calls.append(out.shape))
    lin(nbgrad.randn(5, 2))
    h.remove()
    lin(nbgrad.randn(5, 2))
    assert calls == [(5, 2)]
    pre = lin.register_forward_pre_hook(lambda m, inp: (inp[0] * 0,))
    np.testing.assert_allclose(lin(nbgrad.randn(1, 2)).detach().numpy()[0], lin.bias.detach().numpy())
    pre.remove()


def test_repr_like_pytorch():
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Dropout(0.1), nn.Linear(8, 2, bias=False),
                        nn.LogSoftmax(dim=1), nn.Flatten(), nn.LayerNorm(2), nn.Embedding(10, 3, padding_idx=0))
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Linear(in_features=4, out_features=8, bias=True)\n"
        "  (1): ReLU(inplace=True)\n"
        "  (2): Dropout(p=0.1, inplace=False)\n"
        "  (3): Linear(in_features=8, out_features=2, bias=False)\n"
        "  (4): LogSoftmax(dim=1)\n"
        "  (5): Flatten(start_dim=1, end_dim=-1)\n"
        "  (6): LayerNorm((2,), eps=1e-05, elementwise_affine=True, bias=True)\n"
        "  (7): Embedding(10, 3, padding_idx=0)\n"
        ")")
    assert repr(nn.ModuleList()) == "ModuleList()"
    nested = nn.Sequential(nn.Sequential(nn.Tanh()))
    assert repr(nested) == "Sequential(\n  (0): Sequential(\n    (0): Tanh()\n  )\n)"
    p = nn.Parameter(nbgrad.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"


def test_parameter():
    t = nbgrad.tensor([1.0, 2.0])
    p = nn.Parameter(t)
    assert isinstance(p, nbgrad.Tensor) and p.is_leaf and p.requires_grad
    assert p.data_ptr() == t.data_ptr()
    q = nn.Parameter(t, requires_grad=False)
    assert not q.requires_grad
    y = p * 2
    assert type(y) is nbgrad.Tensor and y.grad_fn is not None
    import copy
    c = copy.deepcopy(p)
    assert isinstance(c, nn.Parameter) and c.requires_grad and c.data_ptr() != p.data_ptr()


def test_sequential_and_modulelist():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    seq = nn.Sequential(a, b)
    assert len(seq) == 2 and seq[0] is a and seq[-1] is b
    seq.append(c)
    assert len(seq) == 3 and seq[2] is c
    assert isinstance(seq[1:], nn.Sequential) and list(seq[1:]) == [b, c]
    assert seq(nbgrad.randn(4, 2)).shape == (4, 1)
    named = nn.Sequential(OrderedDict([("enc", a), ("act", b)]))
    assert list(named.state_dict()) == ["enc.weight", "enc.bias"]
    with pytest.raises(IndexError):
        seq[3]
    ml = nn.ModuleList([a])
    ml.append(c)
    ml += [b]
    assert len(ml) == 3 and ml[-1] is b
    assert [n for n, _ in ml.named_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_linear_init_and_math():
    nbgrad.manual_seed(0)
    lin = nn.Linear(100, 50)
    bound = 1 / math.sqrt(100)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.9 * bound and abs(w.std() - bound / math.sqrt(3)) < 0.005
    x = np.random.default_rng(0).normal(size=(7, 100)).astype(np.float32)
    np.testing.assert_allclose(lin(nbgrad.tensor(x)).detach().numpy(), x @ w.T + b, rtol=1e-5, atol=1e-5)
    assert nn.Linear(3, 2, dtype=nbgrad.float64).weight.dtype == nbgrad.float64


def test_activations_and_softmax_modules():
    x = np.random.default_rng(1).normal(size=(3, 4))
    t = nbgrad.tensor(x)
    np.testing.assert_allclose(nn.ReLU()(t).numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(nn.Sigmoid()(t).numpy(), 1 / (1 + np.exp(-x)), rtol=1e-12)
    np.testing.assert_allclose(nn.Tanh()(t).numpy(), np.tanh(x), rtol=1e-12)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(nn.Softmax(dim=1)(t).numpy(), e / e.sum(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(nn.LogSoftmax(dim=1)(t).numpy(), np.log(e / e.sum(1, keepdims=True)), rtol=1e-12)
    assert nn.Identity(54, unused="x")(t) is t
    assert nn.Flatten()(nbgrad.zeros(2, 3, 4)).shape == (2, 12)
    u = nbgrad.tensor(x.copy())
    assert nn.ReLU(inplace=True)(u) is u and (u.numpy() >= 0).all()


def test_layer_norm_matches_numpy_and_gradcheck():
    x = np.random.default_rng(2).normal(size=(2, 3, 4))
    ln = nn.LayerNorm((3, 4), dtype=nbgrad.float64)
    with nbgrad.no_grad():
        ln.weight.uniform_(0.5, 1.5)
        ln.bias.uniform_(-1, 1)
    mu = x.mean((1, 2), keepdims=True)
    var = x.var((1, 2), keepdims=True)
    ref = (x - mu) / np.sqrt(var + 1e-5) * ln.weight.detach().numpy() + ln.bias.detach().numpy()
    np.testing.assert_allclose(ln(nbgrad.tensor(x)).detach().numpy(), ref, rtol=1e-10)
    xt = nbgrad.tensor(x, requires_grad=True)
    assert nbgrad.autograd.gradcheck(lambda a: ln(a), (xt,))


def test_embedding_and_padding_idx():
    emb = nn.Embedding(5, 3, padding_idx=1)
    np.testing.assert_array_equal(emb.weight.detach().numpy()[1], 0)
    idx = nbgrad.tensor([[0, 1], [4, 1]])
    out = emb(idx)
    assert out.shape == (2, 2, 3)
    np.testing.assert_array_equal(out.detach().numpy(), emb.weight.detach().numpy()[idx.numpy()])
    out.sum().backward()
    g = emb.weight.grad.numpy()
    np.testing.assert_array_equal(g[:, 0], [1, 0, 0, 0, 1])
    pre = nn.Embedding.from_pretrained(nbgrad.eye(3))
    assert not pre.weight.requires_grad


def test_init_functions():
    t = nbgrad.empty(200, 300)
    nn.init.zeros_(t)
    assert t.abs().max().item() == 0
    nn.init.ones_(t)
    assert t.min().item() == 1
    nn.init.constant_(t, 0.25)
    assert t.max().item() == 0.25
    nn.init.uniform_(t, -2, 3)
    assert -2 <= t.min().item() and t.max().item() < 3
    nn.init.normal_(t, 1.0, 0.5)
    assert abs(t.mean().item() - 1) < 0.01 and abs(t.std().item() - 0.5) < 0.01
    nn.init.xavier_uniform_(t)
    a = math.sqrt(6 / 500)
    assert t.abs().max().item() <= a and t.abs().max().item() > 0.95 * a
    nn.init.kaiming_uniform_(t, nonlinearity="relu")
    bound = math.sqrt(6 / 300)
    assert t.abs().max().item() <= bound and t.abs().max().item() > 0.95 * bound
    p = nn.Parameter(nbgrad.zeros(3, 3))
    nn.init.normal_(p)
    assert p.is_leaf and p.grad_fn is None
    assert nn.init.calculate_gain("tanh") == 5.0 / 3


def test_nn_buffer_registers_a_buffer_on_assignment():
    class M(nbgrad.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nbgrad.nn.Buffer(nbgrad.ones(2))
            self.b = nbgrad.nn.Buffer(nbgrad.zeros(3), persistent=False)
            self.c = nbgrad.ones(1)             # a plain tensor: an attribute, not a buffer

    m = M()
    assert list(m.state_dict()) == ["a"]
    assert [n for n, _ in m.named_buffers()] == ["a", "b"]
    assert type(m.a) is nbgrad.Tensor and isinstance(m.a, nbgrad.nn.Buffer)
    assert not isinstance(nbgrad.ones(1), nbgrad.nn.Buffer)
    t = nbgrad.ones(2, requires_grad=True)
    b = nbgrad.nn.Buffer(t)
    assert b is not t and b.requires_grad and b.grad_fn is None
    m.a = nbgrad.ones(5)
    assert m.a.shape == (5,) and "a" in dict(m.named_buffers())
    with pytest.raises(TypeError, match=r"cannot assign 'int' as buffer 'a' \(\w+\.nn\.Buffer, \w+\.Tensor or None "
                                        r"expected\)"):
        m.a = 3
