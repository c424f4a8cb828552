"""nn.AdaptiveLogSoftmaxWithLoss: with weights copied in, forward's (output, loss), the
gradients of the input and of every parameter, log_prob and predict (its three branches)
equal PyTorch 2.13's (recorded literals, float64 to 1e-12 and float32 to float32 rounding);
the named tuple, the structure and repr, PyTorch's errors for bad cutoffs, targets and shapes."""
import math

import pytest

import nbgrad

nn = nbgrad.nn


def pattern(shape, mul, mod, off, scale, dtype):
    n = math.prod(shape)
    return (((nbgrad.arange(n) * mul % mod) - off).to(nbgrad.float64) / scale).reshape(shape).to(dtype)


def make(dtype):
    m = nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2, 4], div_value=2.0, head_bias=True).to(dtype)
    with nbgrad.no_grad():
        for j, (name, p) in enumerate(m.named_parameters()):
            p.copy_(pattern(p.shape, 5 + 2 * j, 11, 5, 4, dtype))
    return m


def close(a, b, tol):
    a = a.detach().reshape(-1).tolist() if hasattr(a, "detach") else [a]
    b = nbgrad.tensor(b, dtype=nbgrad.float64).reshape(-1).tolist() if isinstance(b, list) else [b]
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert abs(u - v) <= tol * max(1.0, abs(v)), (u, v)


OUTPUT = [-0.24783486230947963, -0.48194135524955484, -8.323928713418544, -1.5492805766168105, -6.717320980948681]
LOSS = 3.4640612977086143
GRAD_INPUT = [[0.07792423074226722, 0.0024376862269573363, -0.04280691784093528, 0.0024376862269573345],
              [-0.040065335758940744, -0.03575689546315027, -0.03777665188919564, -0.03575689546315027],
              [-0.09965776715861027, 0.448103153537305, -0.09872617788467432, 0.448103153537305],
              [-0.193554166948888, -0.1327817444166846, -0.029615412921316895, 0.022678227818253634],
              [0.39850009200877723, -0.23194427940511994, 0.2243941346329225, -0.40810369500069643]]
GRAD_PARAMS = {
    "head.weight": [[0.06472247719327218, 0.0008441315736779805, -0.06948468728950065, 0.020294792560435596],
                    [0.13433600017543237, -0.0015217830974566388, 0.14598470077471032, -0.05512435009164687],
                    [0.11259169974098307, -0.391218758998363, 0.18197325384755791, -0.3526597212268962],
                    [-0.3116501771096877, 0.3918964105221417, -0.2584732673327676, 0.38748927875810757]],
    "head.bias": [-0.038901321973515236, 0.10720513398838044, -0.07711807554293358, 0.008814263528068371],
    "tail.0.0.weight": [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
    "tail.0.1.weight": [[-0.125, 0.1375], [0.125, -0.1375]],
    "tail.1.0.weight": [[-0.41969909562830293, 0.16580969391525735, -0.4093493739479838, 0.17615941559557646]],
    "tail.1.1.weight": [[-0.5466437964848258], [0.5466437964848258]],
}
LOG_PROB = [[-0.24783486230947963, -2.3728348623094795, -3.815982042869425, -3.815982042869425, -4.098247513911128,
             -2.7232475139111276],
            [-5.481941355249555, -0.48194135524955484, -1.6750885358095, -1.6750885358095, -5.920203042767778,
             -6.920203042767778],
            [-6.380781532858599, -5.630781532858599, -8.323928713418544, -8.323928713418544, -0.3926525389734985,
             -1.1426525389734985],
            [-4.172351495271437, -4.172351495271437, -4.8654986758313825, -4.8654986758313825, -1.5492805766168105,
             -0.2992805766168105],
            [-5.590392969905708, -0.21539296990570847, -2.4085401504656536, -2.4085401504656536, -4.7173209809486805,
             -6.717320980948681]]


@pytest.mark.parametrize("dtype, tol", [("float64", 1e-12), ("float32", 2e-6)])
def test_values_and_gradients_are_pytorchs(dtype, tol):
    dt = getattr(nbgrad, dtype)
    m = make(dt)
    x = pattern((5, 4), 3, 7, 3, 2, dt).requires_grad_()
    t = nbgrad.tensor([0, 1, 2, 4, 5])
    out = m(x, t)
    assert type(out).__name__ == "_ASMoutput" and out._fields == ("output", "loss")
    assert out.output is out[0] and out.loss is out[1]
    assert out.output.dtype == dt and tuple(out.output.shape) == (5,) and out.loss.dim() == 0
    assert type(out.loss.grad_fn).__name__ == "MeanBackward0"
    close(out.output, OUTPUT, tol)
    close(out.loss.item(), LOSS, tol)
    out.loss.backward()
    close(x.grad, GRAD_INPUT, tol)
    for name, p in m.named_parameters():
        close(p.grad, GRAD_PARAMS[name], tol)
    close(m.log_prob(x), LOG_PROB, tol)


def test_unbatched_input():
    m = make(nbgrad.float64)
    x = pattern((5, 4), 3, 7, 3, 2, nbgrad.float64)
    out = m(x[3], nbgrad.tensor(4))
    assert out.output.dim() == 0 and type(out.output.grad_fn).__name__ == "SqueezeBackward1"
    close(out.output.item(), -1.5492805766168105, 1e-12)
    close(out.loss.item(), 1.5492805766168105, 1e-12)


def test_predict_takes_each_branch():
    m = make(nbgrad.float64)
    x = pattern((5, 4), 3, 7, 3, 2, nbgrad.float64)
    assert m.head(x).argmax(1).tolist() == [0, 1, 3, 3, 1]
    assert m.predict(x).tolist() == [0, 1, 4, 5, 1]                       # some rows in a cluster
    assert m.predict(x[nbgrad.tensor([0, 1, 4])]).tolist() == [0, 1, 1]   # all in the shortlist
    assert m.predict(x[nbgrad.tensor([2, 3])]).tolist() == [4, 5]         # none in the shortlist
    assert m.predict(-x).tolist() == [4, 5, 1, 1, 5]


def test_structure():
    m = nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2, 4], div_value=2.0, head_bias=True)
    assert m.cutoffs == [2, 4, 6] and m.shortlist_size == 2 and m.n_clusters == 2 and m.head_size == 4
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == [
        ("head.weight", (4, 4)), ("head.bias", (4,)), ("tail.0.0.weight", (2, 4)), ("tail.0.1.weight", (2, 2)),
        ("tail.1.0.weight", (1, 4)), ("tail.1.1.weight", (2, 1))]
    assert repr(m) == (
        "AdaptiveLogSoftmaxWithLoss(\n"
        "  (head): Linear(in_features=4, out_features=4, bias=True)\n"
        "  (tail): ModuleList(\n"
        "    (0): Sequential(\n"
        "      (0): Linear(in_features=4, out_features=2, bias=False)\n"
        "      (1): Linear(in_features=2, out_features=2, bias=False)\n"
        "    )\n"
        "    (1): Sequential(\n"
        "      (0): Linear(in_features=4, out_features=1, bias=False)\n"
        "      (1): Linear(in_features=1, out_features=2, bias=False)\n"
        "    )\n"
        "  )\n"
        ")")
    assert nn.AdaptiveLogSoftmaxWithLoss(8, 10, (3,)).head.bias is None


def test_errors_are_pytorchs():
    with pytest.raises(ValueError, match="cutoffs should be a sequence of length larger than 0"):
        nn.AdaptiveLogSoftmaxWithLoss(4, 6, [])
    for bad in ([3, 2], [0, 2], [2, 6], [2, 2, 3], [2.5]):
        with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers sorted in an "
                                             "increasing order, where each value is between 1 and n_classes-1"):
            nn.AdaptiveLogSoftmaxWithLoss(4, 6, bad)
    m = make(nbgrad.float64)
    x = pattern((5, 4), 3, 7, 3, 2, nbgrad.float64)
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 5\], but values in range \[0, 6\] were "
                                           "found."):
        m(x, nbgrad.tensor([0, 1, 2, 6, 5]))
    with pytest.raises(RuntimeError, match=r"values in range \[-1, 5\]"):
        m(x, nbgrad.tensor([0, -1, 2, 4, 5]))
    with pytest.raises(RuntimeError, match="Input and target should have the same size in the batch dimension."):
        m(x, nbgrad.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected, multi-target not supported"):
        m(x[None], nbgrad.tensor([[0, 1, 2, 4, 5]]))
    with pytest.raises(RuntimeError, match="0D target tensor expects 1D input tensors, but found inputs with size"):
        m(x, nbgrad.tensor(0))
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input tensors"):
        m(x[None, :1], nbgrad.tensor([0]))
