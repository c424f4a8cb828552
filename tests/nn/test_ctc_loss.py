"""CTC loss (F.ctc_loss, nbgrad.ctc_loss, nn.CTCLoss) against float64 NumPy references (a
forward-backward of its own and, for tiny cases, every alignment enumerated), finite
differences (gradcheck through log_softmax), PyTorch 2.13's values, grad_fn names and errors
(recorded as literals).

PyTorch's gradient with respect to log_probs is exp(lp) - (the alignments' occupancy of each
label): the derivative of the loss through a log_softmax (whose outputs' exps add up to 1),
not through free log-probabilities; the references here compute that."""
import itertools
import os
import re
import warnings

import numpy as np
import pytest

import nbgrad

nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck
AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
if AGAINST_TORCH:
    requires_cuda = pytest.mark.skip(reason="the CUDA backend is nbgrad's")
else:
    from ._cuda import requires_cuda


# -- references ------------------------------------------------------------------------------
def _logsumexp(values):
    values = [v for v in values if v != -np.inf]
    if not values:
        return -np.inf
    m = max(values)
    return m + np.log(sum(np.exp(v - m) for v in values))


def np_ctc(lp, targets, il, tl, blank):
    """(-log p(target_b | lp) (N,), d/d lp through a log_softmax (T, N, C)) by alphas that
    include y_t and betas that do not (Graves' other form): occupancy = alpha * beta / p."""
    T, N, C = lp.shape
    nll = np.zeros(N)
    grad = np.zeros((T, N, C))
    for b in range(N):
        labels = list(targets[b])[:tl[b]]
        ext = [blank]
        for label in labels:
            ext += [label, blank]
        S, n = len(ext), il[b]
        if n == 0:
            nll[b] = 0.0 if not labels else np.inf
            continue
        y = lp[:n, b]
        la = np.full((n, S), -np.inf)
        la[0, 0] = y[0, blank]
        if S > 1:
            la[0, 1] = y[0, ext[1]]
        for t in range(1, n):
            for s in range(S):
                terms = [la[t - 1, s]]
                if s > 0:
                    terms.append(la[t - 1, s - 1])
                if s > 1 and ext[s] != ext[s - 2]:
                    terms.append(la[t - 1, s - 2])
                la[t, s] = _logsumexp(terms) + y[t, ext[s]]
        lb = np.full((n, S), -np.inf)
        lb[n - 1, S - 1] = 0.0
        if S > 1:
            lb[n - 1, S - 2] = 0.0
        for t in range(n - 2, -1, -1):
            for s in range(S):
                terms = [lb[t + 1, s] + y[t + 1, ext[s]]]
                if s + 1 < S:
                    terms.append(lb[t + 1, s + 1] + y[t + 1, ext[s + 1]])
                if s + 2 < S and ext[s + 2] != ext[s]:
                    terms.append(lb[t + 1, s + 2] + y[t + 1, ext[s + 2]])
                lb[t, s] = _logsumexp(terms)
        logp = _logsumexp([la[n - 1, S - 1]] + ([la[n - 1, S - 2]] if S > 1 else []))
        nll[b] = -logp
        occupancy = np.zeros((n, C))
        with np.errstate(invalid="ignore"):            # (an impossible target: NaN, as PyTorch's)
            for s in range(S):
                occupancy[:, ext[s]] += np.exp(la[:, s] + lb[:, s] - logp)
        grad[:n, b] = np.exp(y) - occupancy
    return nll, grad


def brute_ctc(lp, target, n, blank):
    """-log p and the gradient of one sample, every path of length n enumerated."""
    T, C = lp.shape
    p, occupancy = 0.0, np.zeros((T, C))
    for path in itertools.product(range(C), repeat=n):
        collapsed = [k for i, k in enumerate(path) if (i == 0 or k != path[i - 1]) and k != blank]
        if collapsed == list(target):
            w = np.exp(sum(lp[t, k] for t, k in enumerate(path)))
            p += w
            for t, k in enumerate(path):
                occupancy[t, k] += w
    grad = np.zeros((T, C))
    grad[:n] = np.exp(lp[:n]) - occupancy[:n] / p
    return -np.log(p), grad


def log_softmax(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def leaf(a, dtype=np.float64):
    return nbgrad.tensor(np.asarray(a, dtype=dtype), requires_grad=True)


def long(a):
    return nbgrad.tensor(np.asarray(a, dtype=np.int64))


def chain(t):
    """The names of t's grad_fn and its first parents down to a leaf."""
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        parents = [f for f, _ in fn.next_functions if f is not None]
        fn = parents[0] if parents else None
    return names


# -- values and gradients ----------------------------------------------------------------------
@pytest.mark.parametrize("T, C, blank, target, n", [
    (4, 3, 0, [1, 2], 4), (4, 3, 0, [1, 1], 4), (3, 3, 0, [1, 1], 3), (5, 3, 2, [0, 1, 0], 5),
    (5, 4, 1, [2, 2, 3], 4), (3, 3, 0, [], 3), (4, 2, 1, [0], 2), (5, 3, 0, [2], 5)])
def test_every_alignment_enumerated(T, C, blank, target, n):
    rng = np.random.default_rng(T * 100 + C * 10 + len(target))
    lp = log_softmax(rng.standard_normal((T, 1, C)))
    ref_loss, ref_grad = brute_ctc(lp[:, 0], target, n, blank)
    x = leaf(lp)
    padded = long([target + [C - 1] * 2])
    out = F.ctc_loss(x, padded, (n,), (len(target),), blank=blank, reduction="none")
    np.testing.assert_allclose(out.detach().numpy(), [ref_loss], rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[:, 0], ref_grad, rtol=1e-10, atol=1e-12)


def _random_case(rng, T, N, C, S, blank, repeats=False):
    labels = [c for c in range(C) if c != blank]
    tl = rng.integers(0, S + 1, N)
    tl[0] = 0                                               # an empty target
    tl[-1] = S
    pool = labels[:2] if repeats else labels
    targets = rng.choice(pool, size=(N, S))
    needed = np.array([len(row[:k]) + sum(row[i] == row[i - 1] for i in range(1, k)) for row, k in zip(targets, tl)])
    il = np.maximum(needed, rng.integers(0, T + 1, N))     # every alignment possible
    il[1] = T
    return log_softmax(rng.standard_normal((T, N, C)) * 2), targets, il, tl


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
@pytest.mark.parametrize("blank, repeats", [(0, False), (3, False), (5, True)])
def test_values_and_gradients_against_forward_backward(dtype, layout, blank, repeats):
    rng = np.random.default_rng(blank + 7 * repeats)
    T, N, C, S = 12, 5, 6, 5
    lp, targets, il, tl = _random_case(rng, T, N, C, S, blank, repeats)
    lp = lp.astype(dtype)
    ref_loss, ref_grad = np_ctc(lp.astype(np.float64), targets, il, tl, blank)
    x = leaf(lp, dtype)
    tg = long(targets) if layout == "padded" else long(np.concatenate([r[:k] for r, k in zip(targets, tl)]))
    out = F.ctc_loss(x, tg, long(il), long(tl), blank=blank, reduction="none")
    assert out.dtype == x.dtype and tuple(out.shape) == (N,)
    w = rng.standard_normal(N)
    (out * nbgrad.tensor(w.astype(dtype))).sum().backward()
    if dtype == np.float64:
        np.testing.assert_allclose(out.detach().numpy(), ref_loss, rtol=1e-12)
        np.testing.assert_allclose(x.grad.numpy(), ref_grad * w[None, :, None], rtol=1e-10, atol=1e-13)
    else:
        np.testing.assert_allclose(out.detach().numpy(), ref_loss, rtol=1e-5)
        np.testing.assert_allclose(x.grad.numpy(), ref_grad * w[None, :, None], rtol=1e-4, atol=2e-5)
    assert np.all(x.grad.numpy()[il[0]:, 0] == 0)          # nothing beyond a sample's input length


def test_pytorchs_recorded_values_and_gradient():
    # recorded from PyTorch 2.13: lp = log_softmax(sin(arange(60).reshape(5, 3, 4) * 1.3), 2)
    lp = log_softmax(np.sin(np.arange(60).reshape(5, 3, 4) * 1.3), 2)
    x = leaf(lp)
    tg = long([[1, 1, 3], [2, 0, 0], [3, 2, 1]])
    out = F.ctc_loss(x, tg, (5, 4, 5), (2, 1, 3), blank=0, reduction="none")
    np.testing.assert_allclose(out.detach().numpy(), [4.103101942573245, 3.267825651559524, 4.313368749712074],
                               rtol=1e-13)
    out.sum().backward()
    grad = [[[-0.080379851908364, -0.295112978701947, 0.288793619636447, 0.086699210973863],
             [-0.309253041192558, 0.215895273867928, -0.14619454622165, 0.23955231354628],
             [0.048876596526458, 0.09136504885573, 0.29797620324475, -0.438217848626939]],
            [[-0.399497706695979, -0.212377285976783, 0.140507983707763, 0.471367008964999],
             [-0.028219924710598, 0.201192115362728, -0.320429090513556, 0.147456899861425],
             [-0.17691586577362, 0.413929282612022, -0.172071718395416, -0.064941698442985]],
            [[-0.167313039449588, -0.277400598392168, 0.342040874185938, 0.102672763655817],
             [-0.252436732703619, 0.176295223169388, -0.218574423708365, 0.294715933242595],
             [0.013175075725723, 0.024658067895033, -0.554458130109588, 0.516624986488833]],
            [[-0.367793490950362, -0.155739346409184, 0.122833560327696, 0.40069927703185],
             [-0.34039879606297, 0.234949957801926, -0.009947961707504, 0.115396799968547],
             [0.131649299942649, -0.212753600362571, 0.014946834683598, 0.066157465736324]],
            [[-0.083945742602226, -0.433996670435007, 0.393156671480571, 0.124785741556662],
             [0.0, 0.0, 0.0, 0.0],
             [-0.292502551195827, -0.494980945929951, 0.21768156737273, 0.569801929753048]]]
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(F.ctc_loss(x, tg, (5, 4, 5), (2, 1, 3)).item(), 2.2523887353611682, rtol=1e-14)
    np.testing.assert_allclose(F.ctc_loss(x, tg, (5, 4, 5), (2, 1, 3), reduction="sum").item(), 11.684296343844842,
                               rtol=1e-14)
    # float32, blank 2, concatenated targets
    x32 = nbgrad.tensor(lp.astype(np.float32))
    out = F.ctc_loss(x32, long([1, 3, 3, 0, 1]), (5, 4, 5), (2, 1, 2), blank=2, reduction="none")
    assert out.dtype == nbgrad.float32
    np.testing.assert_allclose(out.numpy(), [3.3529233932495117, 4.174534320831299, 4.355310440063477], rtol=1e-6)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_reductions_and_grad_fn_names(reduction, zero_infinity):
    rng = np.random.default_rng(1)
    lp, targets, il, tl = _random_case(rng, 8, 4, 5, 3, 0)
    tl[2] = 0
    il[3] = 1                                       # impossible: an infinite loss
    tl[3] = 2
    x = leaf(lp)
    out = F.ctc_loss(x, long(targets), tuple(il), tuple(tl), reduction=reduction, zero_infinity=zero_infinity)
    per = F.ctc_loss(x, long(targets), tuple(il), tuple(tl), reduction="none").detach().numpy()
    ref, _ = np_ctc(lp, targets, il, tl, 0)
    np.testing.assert_allclose(per, ref, rtol=1e-12)
    assert per[3] == np.inf
    if zero_infinity:
        per = np.where(per == np.inf, 0.0, per)
    expected = {"none": per, "sum": per.sum(), "mean": (per / np.maximum(tl, 1)).mean()}[reduction]
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12)
    # recorded from PyTorch 2.13
    names = {"none": [], "mean": ["MeanBackward0", "DivBackward0"], "sum": ["SumBackward0"]}[reduction]
    names = names + (["WhereBackward0"] if zero_infinity else []) + ["CtcLossBackward0", "AccumulateGrad"]
    assert chain(out) == names
    if zero_infinity and reduction == "none":
        assert out.grad_fn.next_functions[0][0] is None          # where(loss == inf, zeros(()), loss)
    ctc = out.grad_fn
    while type(ctc).__name__ != "CtcLossBackward0":
        ctc = [f for f, _ in ctc.next_functions if f is not None][0]
    assert len(ctc.next_functions) == 1
    out.backward(nbgrad.ones_like(out))
    g = x.grad.numpy()
    if zero_infinity:
        assert np.all(g[:, 3] == 0) and np.isfinite(g).all()
    else:
        assert np.isnan(g[:1, 3]).all() and np.all(g[1:, 3] == 0)     # PyTorch's NaN where t < input length
    assert nn.CTCLoss(reduction=reduction, zero_infinity=zero_infinity)(
        x, long(targets), tuple(il), tuple(tl)).grad_fn.name() == out.grad_fn.name()


def test_gradients_of_impossible_alignments_and_empty_inputs():
    # recorded from PyTorch 2.13: an impossible target gives inf and NaN gradients up to its
    # input length; an input length of 0 gives -0.0 (empty target) or inf, and no gradient
    lp = log_softmax(np.random.default_rng(0).standard_normal((5, 2, 4)))
    x = leaf(lp)
    out = F.ctc_loss(x, long([[1, 1, 1], [1, 2, 3]]), (4, 2), (3, 3), reduction="none")
    assert out.detach().numpy().tolist() == [np.inf, np.inf]
    out.sum().backward()
    g = x.grad.numpy()
    assert np.isnan(g[:4, 0]).all() and np.all(g[4:, 0] == 0)
    assert np.isnan(g[:2, 1]).all() and np.all(g[2:, 1] == 0)
    x.grad = None
    out = F.ctc_loss(x, long([[1, 1, 1], [1, 2, 3]]), (0, 3), (0, 1), reduction="none")
    v = out.detach().numpy()
    assert v[0] == 0 and np.signbit(v[0])
    np.testing.assert_allclose(v[1], np_ctc(lp, [[1], [1]], [0, 3], [0, 1], 0)[0][1], rtol=1e-12)
    out.sum().backward()
    assert np.all(x.grad.numpy()[:, 0] == 0)
    out = F.ctc_loss(x, long([[1], [1]]), (0, 0), (1, 0), reduction="none", zero_infinity=False)
    assert out.detach().numpy()[0] == np.inf
    out = F.ctc_loss(x, long([[1], [1]]), (0, 0), (1, 0), reduction="none", zero_infinity=True)
    assert out.detach().numpy().tolist() == [0.0, 0.0]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
def test_gradcheck_through_log_softmax(reduction, layout):
    rng = np.random.default_rng(2)
    x = leaf(rng.standard_normal((6, 3, 4)))
    targets, tl = [[1, 2, 2], [3, 3, 0], [0, 0, 0]], (3, 2, 0)
    tg = long(targets) if layout == "padded" else long([1, 2, 2, 3, 3])
    for zero_infinity in (False, True):
        def fn(a):
            return F.ctc_loss(a.log_softmax(2), tg, (6, 5, 4), tl, blank=0, reduction=reduction,
                              zero_infinity=zero_infinity)
        assert gradcheck(fn, (x,))
    u = leaf(rng.standard_normal((5, 4)))                   # unbatched
    assert gradcheck(lambda a: F.ctc_loss(a.log_softmax(1), long([3, 1]), long(5), long(2), blank=2,
                                          reduction=reduction), (u,))


def test_double_backward_is_not_implemented():
    rng = np.random.default_rng(3)
    lp = leaf(log_softmax(rng.standard_normal((5, 2, 4))))
    out = F.ctc_loss(lp, long([[1, 1, 1], [1, 2, 3]]), (5, 3), (2, 1))
    g, = nbgrad.autograd.grad(out, lp, create_graph=True)
    assert type(g.grad_fn).__name__ == "NotImplemented"
    # recorded: PyTorch's node takes the inputs that require grad (log_probs and the loss)
    assert [type(f).__name__ for f, _ in g.grad_fn.next_functions] == ["AccumulateGrad", "CtcLossBackward0"]
    with pytest.raises(RuntimeError, match=re.escape("derivative for aten::_ctc_loss_backward is not implemented")):
        g.sum().backward()
    v = nbgrad.ones(2, dtype=nbgrad.float64, requires_grad=True)
    out = F.ctc_loss(lp, long([[1, 1, 1], [1, 2, 3]]), (5, 3), (2, 1), reduction="none")
    g, = nbgrad.autograd.grad(out, lp, v, create_graph=True)
    assert [type(f).__name__ for f, _ in g.grad_fn.next_functions] == ["AccumulateGrad", "AccumulateGrad",
                                                                         "CtcLossBackward0"]


def test_unbatched_input():
    rng = np.random.default_rng(4)
    lp = log_softmax(rng.standard_normal((6, 5)))
    x = leaf(lp)
    ref_loss, ref_grad = np_ctc(lp[:, None], [[2, 2, 4]], [6], [3], 1)
    for targets in (long([2, 2, 4]), long([[2, 2, 4, 0]])):
        for lengths in ((long(6), long(3)), ((6,), (3,)), ([6], [3]), (long([6]), long([3]))):
            out = F.ctc_loss(x, targets, *lengths, blank=1, reduction="none")
            assert out.shape == ()
            np.testing.assert_allclose(out.item(), ref_loss[0], rtol=1e-12)
    assert chain(out) == ["SqueezeBackward1", "CtcLossBackward0", "UnsqueezeBackward0", "AccumulateGrad"]
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), ref_grad[:, 0], rtol=1e-10, atol=1e-13)
    mean = F.ctc_loss(x, long([2, 2, 4]), (6,), (3,), blank=1)
    np.testing.assert_allclose(mean.item(), ref_loss[0] / 3, rtol=1e-12)
    assert chain(mean) == ["MeanBackward0", "DivBackward0", "CtcLossBackward0", "UnsqueezeBackward0",
                           "AccumulateGrad"]
    assert chain(F.ctc_loss(x, long([2, 2, 4]), (6,), (3,), blank=1, reduction="sum"))[:2] == [
        "SumBackward0", "CtcLossBackward0"]


def test_lengths_and_targets_in_every_accepted_form():
    rng = np.random.default_rng(5)
    lp = log_softmax(rng.standard_normal((7, 3, 5)))
    x = nbgrad.tensor(lp)
    targets = np.array([[1, 2, 3], [4, 4, 0], [2, 0, 0]])
    expected = F.ctc_loss(x, long(targets), long([7, 6, 5]), long([3, 2, 1]), reduction="none").numpy()
    np.testing.assert_allclose(expected, np_ctc(lp, targets, [7, 6, 5], [3, 2, 1], 0)[0], rtol=1e-12)
    forms = [((7, 6, 5), (3, 2, 1)), ([7, 6, 5], [3, 2, 1]), ((np.int64(7), 6, 5), (3, 2, 1)),
             (nbgrad.tensor([7, 6, 5], dtype=nbgrad.int32), nbgrad.tensor([3, 2, 1], dtype=nbgrad.int32)),
             (nbgrad.tensor([7, 6, 5], dtype=nbgrad.uint8), nbgrad.tensor([3, 2, 1], dtype=nbgrad.int16)),
             (long([[7], [6], [5]]), long([3, 2, 1]))]
    for il, tl in forms:
        np.testing.assert_array_equal(F.ctc_loss(x, long(targets), il, tl, reduction="none").numpy(), expected)
    # targets of any dtype become int64 (PyTorch's targets.to(kLong): floats truncate)
    for tg in (nbgrad.tensor(targets, dtype=nbgrad.int32), nbgrad.tensor(targets, dtype=nbgrad.uint8),
               nbgrad.tensor(targets + 0.7), long(np.where(targets == 0, -1, targets)),
               long([1, 2, 3, 4, 4, 2])):
        np.testing.assert_array_equal(F.ctc_loss(x, tg, (7, 6, 5), (3, 2, 1), reduction="none").numpy(), expected)
    # a non-contiguous log_probs: the same values; the gradient takes the leaf's layout
    leaf_t = nbgrad.tensor(np.ascontiguousarray(lp.transpose(1, 0, 2))).transpose(0, 1).detach().requires_grad_()
    out = F.ctc_loss(leaf_t, long(targets), (7, 6, 5), (3, 2, 1), reduction="none")
    np.testing.assert_array_equal(out.detach().numpy(), expected)
    out.sum().backward()
    assert leaf_t.grad.stride() == leaf_t.stride() == (5, 35, 1)
    np.testing.assert_allclose(leaf_t.grad.numpy(), np_ctc(lp, targets, [7, 6, 5], [3, 2, 1], 0)[1],
                               rtol=1e-10, atol=1e-13)


def test_torch_level_ctc_loss_takes_the_reduction_as_an_int():
    rng = np.random.default_rng(6)
    x = nbgrad.tensor(log_softmax(rng.standard_normal((5, 2, 4))))
    tg, il, tl = long([[1, 2], [3, 3]]), long([5, 5]), long([2, 2])
    per = F.ctc_loss(x, tg, il, tl, reduction="none").numpy()
    # recorded from PyTorch 2.13: torch.ctc_loss's default reduction is 0 ('none': its binding
    # cannot read at::Reduction::Mean); 1 mean, 2 sum, any other int none
    np.testing.assert_array_equal(nbgrad.ctc_loss(x, tg, il, tl).numpy(), per)
    np.testing.assert_array_equal(nbgrad.ctc_loss(x, tg, il, tl, 0, 3).numpy(), per)
    np.testing.assert_array_equal(nbgrad.ctc_loss(x, tg, il, tl, 0, -1).numpy(), per)
    np.testing.assert_allclose(nbgrad.ctc_loss(x, tg, il, tl, 0, 1).item(), (per / 2).mean(), rtol=1e-14)
    np.testing.assert_allclose(nbgrad.ctc_loss(log_probs=x, targets=tg, input_lengths=(5, 5), target_lengths=(2, 2),
                                               blank=0, reduction=2, zero_infinity=True).item(), per.sum(),
                               rtol=1e-14)
    np.testing.assert_allclose(F.ctc_loss(log_probs=x, targets=tg, input_lengths=il, target_lengths=tl).item(),
                               (per / 2).mean(), rtol=1e-14)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = F.ctc_loss(x, tg, il, tl, reduction="elementwise_mean")
    assert [str(w.message) for w in caught] == [
        "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead."]
    np.testing.assert_allclose(value.item(), (per / 2).mean(), rtol=1e-14)


def test_module():
    rng = np.random.default_rng(7)
    x = nbgrad.tensor(log_softmax(rng.standard_normal((5, 2, 4))))
    tg = long([[1, 2], [2, 2]])
    m = nn.CTCLoss(blank=3, reduction="sum", zero_infinity=True)
    assert (m.blank, m.reduction, m.zero_infinity) == (3, "sum", True)
    assert repr(m) == "CTCLoss()"
    np.testing.assert_array_equal(m(x, tg, (5, 4), (2, 2)).numpy(),
                                  F.ctc_loss(x, tg, (5, 4), (2, 2), 3, "sum", True).numpy())
    assert nn.CTCLoss().reduction == "mean"
    bad = nn.CTCLoss(reduction="bad")          # (PyTorch checks it at the call)
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        bad(x, tg, (5, 4), (2, 2))


def _modified(tensor_type, shape, producer=""):
    """PyTorch's message for a saved tensor changed in place ('torch.' is the package's name)."""
    where = f", which is output 0 of {producer}," if producer else ""
    return (r"one of the variables needed for gradient computation has been modified by an inplace operation: "
            rf"\[\w+\.{tensor_type} \[{shape}\]\]{where} is at version 1; expected version 0 instead\.")


def test_in_place_changes_before_backward_raise():
    # recorded from PyTorch 2.13: CtcLossBackward0 saves log_probs, its output and int64 targets
    rng = np.random.default_rng(8)
    lp = leaf(log_softmax(rng.standard_normal((5, 2, 4))))
    tg = long([[1, 1, 1], [1, 2, 3]])
    out = F.ctc_loss(lp, tg, (5, 3), (2, 1), reduction="none")
    out.mul_(2)
    with pytest.raises(RuntimeError, match=_modified("DoubleTensor", "2", "CtcLoss")):
        out.sum().backward()
    y = lp * 1
    out = F.ctc_loss(y, tg, (5, 3), (2, 1), reduction="sum")
    y.add_(1)
    with pytest.raises(RuntimeError, match=_modified("DoubleTensor", "5, 2, 4", "Add")):
        out.backward()
    out = F.ctc_loss(lp, tg, (5, 3), (2, 1))
    tg.add_(1)
    with pytest.raises(RuntimeError, match=_modified("LongTensor", "2, 3")):
        out.backward()
    tg32 = nbgrad.tensor([[1, 1, 1], [1, 2, 3]], dtype=nbgrad.int32)     # (saved as an int64 copy)
    out = F.ctc_loss(lp, tg32, (5, 3), (2, 1))
    tg32.add_(1)
    out.backward()


# -- errors (recorded from PyTorch 2.13) --------------------------------------------------------
_W = " (while checking arguments for ctc_loss_allocate_outputs)"


def _error_cases():
    x = nbgrad.tensor(log_softmax(np.random.default_rng(0).standard_normal((5, 2, 4))))
    tg, il, tl = long([[1, 2, 3], [3, 1, 1]]), long([5, 4]), long([3, 2])
    return [
        (lambda: F.ctc_loss(x, tg, il, tl, blank=4), RuntimeError, "blank must be in label range"),
        (lambda: F.ctc_loss(x, tg, il, tl, blank=-1), RuntimeError, "blank must be in label range"),
        (lambda: F.ctc_loss(x, tg, long([5, 4, 3]), tl), RuntimeError, "input_lengths must be of size batch_size"),
        (lambda: F.ctc_loss(x, tg, long(5), tl), RuntimeError, "input_lengths must be of size batch_size"),
        (lambda: F.ctc_loss(x, tg, il, long([1, 1, 1])), RuntimeError, "target_lengths must be of size batch_size"),
        (lambda: F.ctc_loss(x, tg, (), ()), RuntimeError, "input_lengths must be of size batch_size"),
        (lambda: F.ctc_loss(x, tg, long([6, 4]), tl), RuntimeError,
         "Expected input_lengths to have value at most 5, but got value 6" + _W),
        (lambda: F.ctc_loss(x, tg, long([-1, 4]), tl), RuntimeError,
         "Expected input_lengths to have value at least 0, but got value -1" + _W),
        (lambda: F.ctc_loss(x, tg, (6, -1), (2, 1)), RuntimeError,
         "Expected input_lengths to have value at most 5, but got value 6" + _W),
        (lambda: F.ctc_loss(x, tg, il, long([4, 2])), RuntimeError,
         "Expected tensor to have size at least 4 at dimension 1, but got size 3 for argument #2 'targets'" + _W),
        (lambda: F.ctc_loss(x, tg, il, long([-1, 2])), RuntimeError,
         "Expected target_lengths to have value at least 0, but got value -1" + _W),
        (lambda: F.ctc_loss(x, long([1, 2, 3]), il, long([-1, 2])), RuntimeError,
         "Expected target_lengths to have value at least 0, but got value -1" + _W),
        (lambda: F.ctc_loss(x, tg, (9, 3), (-1, 1)), RuntimeError,
         "Expected target_lengths to have value at least 0, but got value -1" + _W),
        (lambda: F.ctc_loss(x, long([1, 2, 3, 1]), il, long([1, 2])), RuntimeError,
         "Expected tensor to have size 3 at dimension 0, but got size 4 for argument #2 'targets'" + _W),
        (lambda: F.ctc_loss(x, long(np.ones((3, 3))), (5, 3), (4, 1)), RuntimeError,
         "Expected tensor to have size 2 at dimension 0, but got size 3 for argument #2 'targets'" + _W),
        (lambda: F.ctc_loss(x.unsqueeze(0), tg, il, tl, blank=9), RuntimeError,
         "Expected 3-dimensional tensor, but got 5-dimensional tensor for argument #1 'log_probs'" + _W),
        (lambda: F.ctc_loss(x[0, 0], tg, il, tl), RuntimeError,
         "Expected 3-dimensional tensor, but got 2-dimensional tensor for argument #1 'log_probs'" + _W),
        (lambda: F.ctc_loss(x[0, 0, 0], tg, il, tl), IndexError,
         "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
        (lambda: F.ctc_loss(x, tg.unsqueeze(0), il, tl, blank=9), RuntimeError,
         "Expected 1 to 2 dimensions, but got 3-dimensional tensor for argument #2 'targets'" + _W),
        (lambda: F.ctc_loss(x, long(1), il, tl), RuntimeError,
         "Expected 1 to 2 dimensions, but got 0-dimensional tensor for argument #2 'targets'" + _W),
        (lambda: F.ctc_loss(x, tg, il.double(), tl), RuntimeError, "input_lengths must be integral"),
        (lambda: F.ctc_loss(x.half(), tg, il.double(), tl), RuntimeError, "input_lengths must be integral"),
        (lambda: F.ctc_loss(x, tg, il, tl.double()), RuntimeError, "target_lengths must be integral"),
        (lambda: F.ctc_loss(x, tg, il.bool(), tl), RuntimeError, "input_lengths must be integral"),
        (lambda: F.ctc_loss(x.half(), tg, il, tl), NotImplementedError, "\"ctc_loss_cpu\" not implemented for 'Half'"),
        (lambda: F.ctc_loss(x[:0].half(), tg, il, tl), NotImplementedError,
         "\"ctc_loss_cpu\" not implemented for 'Half'"),
        (lambda: F.ctc_loss(x.long(), tg, il, tl), NotImplementedError, "\"ctc_loss_cpu\" not implemented for 'Long'"),
        (lambda: F.ctc_loss(x[:0], tg, long([0, 0]), tl), RuntimeError, "log_probs tensor must not be empty"),
        (lambda: F.ctc_loss(x[None, :0], tg, il, tl), RuntimeError, "log_probs tensor must not be empty"),
        (lambda: F.ctc_loss(x[:, 0], long([1, 2]), long([5, 5]), long(2)), RuntimeError,
         "input_lengths must be of size batch_size"),
        (lambda: F.ctc_loss(x, tg, il, tl, reduction="bad"), ValueError, "bad is not a valid value for reduction"),
    ]


@pytest.mark.parametrize("case", range(len(_error_cases())))
def test_errors(case):
    fn, exc, message = _error_cases()[case]
    with pytest.raises(exc, match="^" + re.escape(message) + "$"):
        fn()


def test_argument_types_as_pytorchs_parser():
    x = nbgrad.tensor(log_softmax(np.random.default_rng(0).standard_normal((5, 2, 4))))
    tg, il, tl = long([[1, 2, 3], [3, 1, 1]]), long([5, 4]), long([3, 2])
    prefix = "ctc_loss() received an invalid combination of arguments - got "
    for call, got in [
            (lambda: F.ctc_loss(x, tg, il, (3, 2)), "(Tensor, Tensor, Tensor, tuple, int, int, bool)"),
            (lambda: F.ctc_loss(x, tg, (5.0, 4.0), (3, 2)), "(Tensor, Tensor, tuple, tuple, int, int, bool)"),
            (lambda: F.ctc_loss(x, tg, (True, 4), (3, 2)), "(Tensor, Tensor, tuple, tuple, int, int, bool)"),
            (lambda: F.ctc_loss(x, tg, np.array([5, 4]), (3, 2)),
             "(Tensor, Tensor, numpy.ndarray, tuple, int, int, bool)"),
            (lambda: F.ctc_loss(x[:, 0], long([1, 2]), 5, 2), "(Tensor, Tensor, int, int, int, int, bool)"),
            (lambda: F.ctc_loss(x, tg, il, tl, blank=1.0), "(Tensor, Tensor, Tensor, Tensor, float, int, bool)"),
            (lambda: F.ctc_loss(x, tg, il, tl, blank=True), "(Tensor, Tensor, Tensor, Tensor, bool, int, bool)"),
            (lambda: F.ctc_loss(x, [[1, 2, 3], [1, 2, 3]], il, tl), "(Tensor, list, Tensor, Tensor, int, int, bool)"),
            (lambda: F.ctc_loss(x, tg, (5, 4), (3, 2), zero_infinity=1),
             "(Tensor, Tensor, tuple, tuple, int, int, int)"),
            (lambda: nbgrad.ctc_loss(x, tg, il, tl, 0, "sum"), "(Tensor, Tensor, Tensor, Tensor, int, str)"),
            (lambda: nbgrad.ctc_loss(x, tg, il, tl, reduction="sum"),
             "(Tensor, Tensor, Tensor, Tensor, reduction=str)"),
            (lambda: nbgrad.ctc_loss(x, tg, il), "(Tensor, Tensor, Tensor)"),
            (lambda: nbgrad.ctc_loss(x, tg, il, tl, foo=1), "(Tensor, Tensor, Tensor, Tensor, foo=int)")]:
        with pytest.raises(TypeError, match="^" + re.escape(prefix + got + ", but expected one of:")):
            call()
    # (accepted: NumPy integers, one-element integer tensors)
    ok = F.ctc_loss(x, tg, (nbgrad.tensor(5), np.int64(4)), (3, 2), blank=np.int64(0))
    np.testing.assert_array_equal(ok.numpy(), F.ctc_loss(x, tg, il, tl).numpy())


@pytest.mark.skipif(AGAINST_TORCH, reason="a departure: PyTorch's CPU kernel reads outside log_probs for a label "
                                          "out of [0, C) instead of refusing it")
def test_labels_out_of_range_are_refused():
    x = nbgrad.tensor(log_softmax(np.random.default_rng(0).standard_normal((5, 2, 4))))
    for targets, lengths, bad in (([[4, 1, 1], [1, 1, 1]], (3, 2), "4"), ([[1, 1, 1], [1, -2, 1]], (3, 2), "-2"),
                                  ([1, 2, 9], (2, 1), "9")):
        with pytest.raises(RuntimeError, match=re.escape(
                f"Expected targets to have values at least 0 and less than 4 (the number of classes), but got "
                f"value {bad} (while checking arguments for ctc_loss)")):
            F.ctc_loss(x, long(targets), (5, 4), lengths)
    with pytest.raises(RuntimeError, match="but got value nan"):
        F.ctc_loss(x, nbgrad.tensor([[np.nan, 1.0], [1.0, 1.0]]), (5, 4), (2, 1))
    # labels past a sample's target length are never read: padding may hold anything
    out = F.ctc_loss(x, long([[1, 2, -7], [3, 99, 99]]), (5, 4), (2, 1), reduction="none")
    np.testing.assert_array_equal(out.numpy(), F.ctc_loss(x, long([[1, 2], [3, 0]]), (5, 4), (2, 1),
                                                          reduction="none").numpy())


@requires_cuda
def test_on_cuda_as_on_cpu():
    rng = np.random.default_rng(9)
    lp = log_softmax(rng.standard_normal((6, 2, 5)))
    results = []
    for device in ("cpu", "cuda"):
        a = nbgrad.tensor(lp, device=device, requires_grad=True)
        out = F.ctc_loss(a, nbgrad.tensor([1, 2, 2, 3], device=device), nbgrad.tensor([6, 5], device=device),
                         nbgrad.tensor([3, 1], device=device), reduction="mean", zero_infinity=True)
        out.backward()
        assert out.device.type == device and a.grad.device.type == device
        results.append((out.detach().cpu().numpy(), a.grad.cpu().numpy()))
    np.testing.assert_array_equal(results[1][0], results[0][0])
    np.testing.assert_array_equal(results[1][1], results[0][1])
