"""nn.utils.rnn's PackedSequence and its functions (pack_padded_sequence, pad_packed_sequence,
pack_sequence, unpack_sequence, unpad_sequence, invert_permutation), and nn.RNN / LSTM / GRU run
on packed input.

Packed runs are checked two ways: against PyTorch's values recorded as literals (deterministic
weights, inputs and states; outputs, final states and input gradients in full, each parameter's
gradient as two checksums), and against the same module run on each sequence alone, unpacked
(outputs, final states and every gradient, elementwise). Also: layouts, round trips, graph node
names, gradients of packing (finite differences), PyTorch's errors, and an LSTM classifier over
variable-length sequences that trains."""
import os

import numpy as np
import pytest

import nbgrad

nn = nbgrad.nn
R = nbgrad.nn.utils.rnn
AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
if AGAINST_TORCH:       # ._cuda asks nbgrad's backends, which PyTorch has not
    requires_cuda = pytest.mark.skipif(not nbgrad.cuda.is_available(), reason="no CUDA device")
else:
    from ._cuda import requires_cuda
TOL = dict(rtol=1e-12, atol=1e-12)


def _np(t):
    return t.detach().numpy()


def _name(t):
    return type(t.grad_fn).__name__


# -- PackedSequence and the packing functions --------------------------------------------------------------
def test_pack_padded_sequence_layout_and_pad_back():
    # PyTorch's documentation example: unsorted, batch_first
    seq = nbgrad.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
    packed = R.pack_padded_sequence(seq, [2, 1, 3], batch_first=True, enforce_sorted=False)
    assert isinstance(packed, R.PackedSequence)
    assert packed.data.tolist() == [4, 1, 3, 5, 2, 6]
    assert packed.batch_sizes.tolist() == [3, 2, 1] and packed.batch_sizes.dtype == nbgrad.int64
    assert packed.sorted_indices.tolist() == [2, 0, 1] and packed.unsorted_indices.tolist() == [1, 2, 0]
    padded, lengths = R.pad_packed_sequence(packed, batch_first=True)
    assert padded.tolist() == [[1, 2, 0], [3, 0, 0], [4, 5, 6]]
    assert lengths.tolist() == [2, 1, 3] and lengths.dtype == nbgrad.int64
    # time-major, sorted, trailing feature dims, lengths as a tensor (float lengths are truncated)
    x = nbgrad.arange(24.).view(4, 3, 2)
    p = R.pack_padded_sequence(x, nbgrad.tensor([4.0, 2.0, 1.5]))
    assert p.batch_sizes.tolist() == [3, 2, 1, 1] and p.sorted_indices is None and p.unsorted_indices is None
    assert p.data.tolist() == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [12, 13], [18, 19]]
    padded, lengths = R.pad_packed_sequence(p, padding_value=-1.5, total_length=6)
    ref = np.arange(24.).reshape(4, 3, 2)
    ref[2:, 1] = ref[1:, 2] = -1.5
    ref = np.concatenate([ref, np.full((2, 3, 2), -1.5)])
    np.testing.assert_array_equal(padded.numpy(), ref)
    assert lengths.tolist() == [4, 2, 1]
    # the input may be longer than its longest sequence
    assert R.pack_padded_sequence(x, [2, 2, 1]).batch_sizes.tolist() == [3, 2]
    # pack_sequence (PyTorch's documentation example) and its inverse
    p = R.pack_sequence([nbgrad.tensor([1, 2, 3]), nbgrad.tensor([4, 5]), nbgrad.tensor([6])])
    assert p.data.tolist() == [1, 4, 6, 2, 5, 3] and p.batch_sizes.tolist() == [3, 2, 1]
    assert [t.tolist() for t in R.unpack_sequence(p)] == [[1, 2, 3], [4, 5], [6]]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [False, True])
def test_round_trips(batch_first, enforce_sorted):
    rng = np.random.default_rng(0)
    lengths = [5, 5, 3, 2, 2, 1] if enforce_sorted else [2, 5, 1, 3, 5, 2]
    seqs = [rng.standard_normal((n, 2, 3)) for n in lengths]
    padded = R.pad_sequence([nbgrad.tensor(s) for s in seqs], batch_first=batch_first)
    p = R.pack_padded_sequence(padded, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    assert p.data.shape == (sum(lengths), 2, 3)
    assert p.batch_sizes.tolist() == [6, 5, 3, 2, 2]
    back, got_lengths = R.pad_packed_sequence(p, batch_first=batch_first)
    np.testing.assert_array_equal(back.numpy(), padded.numpy())
    assert got_lengths.tolist() == lengths
    for a, b in zip(R.unpack_sequence(p), seqs):
        np.testing.assert_array_equal(a.numpy(), b)
    for a, b in zip(R.unpad_sequence(back, got_lengths, batch_first=batch_first), seqs):
        np.testing.assert_array_equal(a.numpy(), b)
    q = R.pack_sequence([nbgrad.tensor(s) for s in seqs], enforce_sorted=enforce_sorted)
    np.testing.assert_array_equal(q.data.numpy(), p.data.numpy())
    # data is time-major over the sorted batch: step t holds the batch_sizes[t] longest sequences
    order = np.argsort(-np.array(lengths), kind="stable")
    rows = [seqs[i][t] for t in range(max(lengths)) for i in order if lengths[i] > t]
    np.testing.assert_array_equal(p.data.numpy(), np.stack(rows))


def test_sorted_indices_of_ties_and_invert_permutation():
    lengths = [2, 3, 2, 3, 2, 1, 3, 2, 2, 3]
    p = R.pack_padded_sequence(nbgrad.zeros(3, 10), lengths, enforce_sorted=False)
    assert p.sorted_indices.tolist() == [1, 3, 6, 9, 0, 2, 4, 7, 8, 5]
    assert p.unsorted_indices.tolist() == [4, 0, 5, 1, 6, 9, 2, 7, 8, 3]
    assert R.invert_permutation(nbgrad.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert R.invert_permutation(None) is None


def test_packed_sequence_tuple_and_conversions():
    p = R.pack_sequence([nbgrad.tensor([1, 2, 3]), nbgrad.tensor([4, 5])])
    assert isinstance(p, tuple) and len(p) == 4 and p._fields == ("data", "batch_sizes", "sorted_indices",
                                                                 "unsorted_indices")
    data, batch_sizes, s, u = p
    assert data is p.data and p[1] is batch_sizes and s is None and u is None
    assert repr(p).startswith("PackedSequence(data=tensor([1, 4, 2, 5, 3]), batch_sizes=tensor([2, 2, 1]), "
                              "sorted_indices=None, unsorted_indices=None)")
    assert p.to(nbgrad.int64) is p and p.cpu() is p and p.long() is p
    d = p.double()
    assert d.data.dtype == nbgrad.float64 and d.data.tolist() == [1, 4, 2, 5, 3] and d.batch_sizes is p.batch_sizes
    assert p.float().data.dtype == nbgrad.float32 and p.int().data.dtype == nbgrad.int32
    assert p.to(dtype=nbgrad.float64).data.dtype == nbgrad.float64
    assert p.short().data.dtype == nbgrad.int16 and p.byte().data.dtype == nbgrad.uint8
    assert p.char().data.dtype == nbgrad.int8 and p.half().data.dtype == nbgrad.float16
    assert not p.is_cuda and not p.is_pinned()
    # the indices follow data; unsorted_indices is derived from sorted_indices
    q = R.PackedSequence(p.data, p.batch_sizes, nbgrad.tensor([1, 0]))
    assert q.unsorted_indices.tolist() == [1, 0]
    qd = q.double()
    assert qd.sorted_indices.tolist() == [1, 0] and qd.unsorted_indices.tolist() == [1, 0]
    r = R.PackedSequence((p.data, p.batch_sizes))
    assert r.data is p.data and r.batch_sizes is p.batch_sizes and r.sorted_indices is None
    with pytest.raises(AssertionError, match="Expected data to be a list or tuple of length 2"):
        R.PackedSequence(p.data)


def test_pack_errors():
    x = nbgrad.zeros(4, 3, 2)
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order when "
                                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                                           "pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                                           "if you do not need ONNX exportability."):
        R.pack_padded_sequence(x, [1, 4, 2])
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order"):
        R.pack_sequence([nbgrad.zeros(1), nbgrad.zeros(2)])
    msg = "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
    for lengths, sort in (([4, 2, 0], True), ([4, 2, 0], False), ([4, -1, 1], False), ([0, 0, 0], True)):
        with pytest.raises(RuntimeError, match=msg):
            R.pack_padded_sequence(x, lengths, enforce_sorted=sort)
    with pytest.raises(RuntimeError, match=r"Expected `len\(lengths\)` to be equal to batch_size, but got 2 "
                                           r"\(batch_size=3\)"):
        R.pack_padded_sequence(x, [4, 2])
    with pytest.raises(RuntimeError, match="Cannot pack empty tensors."):
        R.pack_padded_sequence(nbgrad.zeros(0, 3), [1, 1, 1])
    with pytest.raises(RuntimeError, match="'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu "
                                           "Long tensor"):
        R.pack_padded_sequence(x, nbgrad.tensor([[4, 2, 1]]))
    with pytest.raises(IndexError, match="Dimension out of range"):
        R.pack_padded_sequence(nbgrad.zeros(4), [1])
    p = R.pack_padded_sequence(x, [4, 2, 1])
    with pytest.raises(ValueError, match="Expected total_length to be at least the length of the longest sequence "
                                         "in input, but got total_length=3 and max sequence length being 4"):
        R.pad_packed_sequence(p, total_length=3)
    with pytest.raises(ValueError, match="zip"):
        R.unpad_sequence(nbgrad.zeros(3, 2), nbgrad.tensor([3, 1, 1]))
    with pytest.raises(RuntimeError, match="Expected iterable for input sequences"):
        R.pad_sequence(3)


@pytest.mark.skipif(AGAINST_TORCH, reason="nbgrad refuses a length longer than the input; PyTorch packs fewer rows "
                                          "than its batch_sizes count")
def test_length_longer_than_input_is_refused():
    x = nbgrad.zeros(4, 3, 2, requires_grad=True)
    for sort in (True, False):
        with pytest.raises(RuntimeError, match="Expected all lengths to be at most the padded sequence length 4, "
                                               "but found a length of 5"):
            R.pack_padded_sequence(x, [5, 2, 1], enforce_sorted=sort)
        with pytest.raises(RuntimeError, match="at most the padded sequence length 3"):
            R.pack_padded_sequence(x, [5, 3, 2, 1] if sort else [1, 3, 5, 2], batch_first=True,
                                   enforce_sorted=sort)


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch's unpad_sequence transposes its argument in place")
def test_unpad_sequence_leaves_its_argument_alone():
    x = nbgrad.arange(6., requires_grad=True).view(3, 2)     # (T, B)
    parts = R.unpad_sequence(x, nbgrad.tensor([3, 1]))
    assert x.shape == (3, 2)
    assert [t.tolist() for t in parts] == [[0, 2, 4], [1]]
    leaf = nbgrad.zeros(3, 2, requires_grad=True)
    (R.unpad_sequence(leaf, nbgrad.tensor([2, 3]))[1] * 2).sum().backward()
    assert leaf.grad.tolist() == [[0, 2], [0, 2], [0, 2]]


def test_graph_nodes_and_gradients_of_packing():
    x = nbgrad.arange(24., dtype=nbgrad.float64).view(4, 3, 2).requires_grad_()
    p = R.pack_padded_sequence(x, [4, 2, 1])
    assert _name(p.data) == "PackPaddedSequenceBackward0"
    assert [type(f).__name__ for f, _ in p.data.grad_fn.next_functions] == ["AccumulateGrad"]
    assert not p.batch_sizes.requires_grad
    u = R.pack_padded_sequence(x, [1, 4, 2], enforce_sorted=False)
    assert [type(f).__name__ for f, _ in u.data.grad_fn.next_functions] == ["IndexSelectBackward0"]
    assert _name(R.pad_packed_sequence(p)[0]) == "CopySlices"
    assert _name(R.pad_packed_sequence(p, batch_first=True)[0]) == "TransposeBackward0"
    assert _name(R.pad_packed_sequence(u)[0]) == "IndexSelectBackward0"
    # pack's gradient: the packed rows' gradients at their places, zero in the padding
    w = nbgrad.arange(1., 15., dtype=nbgrad.float64).view(7, 2)
    (u.data * w).sum().backward()
    ref = np.zeros((4, 3, 2))
    ref[0, 1], ref[0, 2], ref[0, 0], ref[1, 1], ref[1, 2], ref[2, 1], ref[3, 1] = w.numpy()
    np.testing.assert_array_equal(x.grad.numpy(), ref)
    # finite differences through pack (batch_first, unsorted) and pad (total_length, padding value)
    y = nbgrad.tensor(np.random.default_rng(1).standard_normal((3, 4, 2)), requires_grad=True)

    def round_trip(t):
        q = R.pack_padded_sequence(t, [2, 4, 1], batch_first=True, enforce_sorted=False)
        return R.pad_packed_sequence(q, padding_value=0.5, total_length=5)[0], q.data
    assert nbgrad.autograd.gradcheck(round_trip, (y,))
    assert nbgrad.autograd.gradgradcheck(round_trip, (y,))
    d = nbgrad.tensor(np.random.default_rng(2).standard_normal((5, 2)), requires_grad=True)
    bs = nbgrad.tensor([2, 2, 1])
    assert nbgrad.autograd.gradcheck(lambda t: R.pad_packed_sequence(R.PackedSequence(t, bs), batch_first=True)[0],
                                     (d,))


# -- RNN modules on packed input ---------------------------------------------------------------------------
def _fill(m):
    """Deterministic parameters: parameter k (in named_parameters' order), element i: 0.6 sin(0.9 i + 1.7 k + 0.3)."""
    with nbgrad.no_grad():
        for k, (_, p) in enumerate(m.named_parameters()):
            v = 0.6 * np.sin(0.9 * np.arange(p.numel()) + 1.7 * k + 0.3)
            p.copy_(nbgrad.tensor(v.reshape(tuple(p.shape))))
    return m


def _wave(shape, phase):
    return np.cos(0.37 * np.arange(int(np.prod(shape))) + phase).reshape(shape)


# name: (module, kwargs, lengths, how the batch is packed, whether hx is given)
CONFIGS = {
    "lstm_proj_bidir_2layers": ("LSTM", dict(num_layers=2, bidirectional=True, proj_size=2), [2, 3, 1], "unsorted", True),
    "gru_bidir_2layers": ("GRU", dict(num_layers=2, bidirectional=True), [2, 3, 1], "unsorted", False),
    "rnn_tanh_2layers_sorted": ("RNN", dict(num_layers=2), [3, 3, 1], "sorted", True),
    "lstm_batch_first_padded": ("LSTM", dict(batch_first=True), [1, 3, 2], "padded_batch_first", False),
}


def _recorded_run(name):
    """The run whose results RECORDED holds: (module outputs, results as numpy arrays)."""
    cls, kw, lengths, how, give_hx = CONFIGS[name]
    m = _fill(getattr(nn, cls)(2, 3, **kw).double())
    xs = [nbgrad.tensor(_wave((n, 2), 0.5 * i), requires_grad=True) for i, n in enumerate(lengths)]
    if how == "padded_batch_first":
        padded = R.pad_sequence(xs, batch_first=True)
        packed = R.pack_padded_sequence(padded, nbgrad.tensor(lengths), batch_first=True, enforce_sorted=False)
    else:
        packed = R.pack_sequence(xs, enforce_sorted=how == "sorted")
    D = 2 if m.bidirectional else 1
    hx = None
    if give_hx:
        h0 = nbgrad.tensor(0.4 * _wave((m.num_layers * D, len(lengths), m.proj_size or 3), 0.2), requires_grad=True)
        c0 = nbgrad.tensor(0.5 * _wave((m.num_layers * D, len(lengths), 3), 1.1), requires_grad=True)
        hx = (h0, c0) if cls == "LSTM" else h0
    out, h = m(packed, hx)
    states = h if cls == "LSTM" else (h,)
    loss = (out.data * nbgrad.tensor(np.sin(np.arange(out.data.numel()) + 0.1).reshape(tuple(out.data.shape)))).sum()
    for t in states:
        loss = loss + (t * nbgrad.tensor(_wave(tuple(t.shape), 0.7))).sum()
    loss.backward()
    res = {"out": _np(out.data), "h": _np(states[0]), "x_grad": np.concatenate([_np(x.grad).ravel() for x in xs])}
    if cls == "LSTM":
        res["c"] = _np(states[1])
    if give_hx:
        res["hx_grad"] = np.concatenate([_np(t.grad).ravel() for t in (hx if cls == "LSTM" else (hx,))])
    checks = []
    for p in m.parameters():
        g = _np(p.grad).ravel()
        checks += [float((g * np.cos(np.arange(g.size))).sum()), float(np.abs(g).sum())]
    res["param_grads"] = np.array(checks)
    return (m, packed, out, h), res


# PyTorch 2.13's values (CPU, float64) of _recorded_run's results
RECORDED = {
    "gru_bidir_2layers": {
        "h": [-0.3682629864731761, -0.027003209105583736, -0.06802151958113536, -0.012128445120869302,
            -0.45316619013238707, -0.32586134770677566, -0.14480470456128575, -0.06998837931918425,
            -0.1284172932338553, -0.3045971036884648, 0.07609758280256806, -0.304215869611445, -0.27377541267226624,
            -0.22659889897032393, -0.26406474592198176, -0.16310850849851205, -0.07427996584011715,
            -0.1618544477613913, -0.28433108983608557, -0.37949624609199845, 0.0018619605848539805,
            -0.2891282773436685, -0.35272581801154607, -0.02717895060910755, -0.15272004009693135,
            -0.21104263014601068, -0.006874928968174094, -0.3599612904843506, -0.21727316052173798,
            0.29848201785451045, -0.4079599781533702, -0.13959923076724234, 0.4998654077938226, -0.2087420907673304,
            -0.11566971921393052, 0.23855417570802337],
        "out": [-0.16989438181616218, -0.17703600793157467, 0.11704759000326363, -0.4079599781533702,
            -0.13959923076724234, 0.4998654077938226, -0.17332972329000546, -0.22624377082070962,
            0.049842025825924834, -0.3599612904843506, -0.21727316052173798, 0.29848201785451045,
            -0.15272004009693135, -0.21104263014601068, -0.006874928968174094, -0.2087420907673304,
            -0.11566971921393052, 0.23855417570802337, -0.25822704376254924, -0.2751785491585565,
            0.11318226900930661, -0.30493685523636643, -0.09109649563089879, 0.38096048861961634,
            -0.28433108983608557, -0.37949624609199845, 0.0018619605848539805, -0.21351576158202928,
            -0.1898122625349162, 0.1722560292050355, -0.2891282773436685, -0.35272581801154607, -0.02717895060910755,
            -0.15792252261658907, -0.054861743700105055, 0.1779747915264313],
        "param_grads": [-0.4887849312164678, 1.33727662298999, 0.13281128888684735, 0.553605035660244,
            -0.8411628556594245, 2.7908435312690787, -0.10370889881612666, 1.631435927865684, 0.046132594988873954,
            0.9307093932053419, 0.002178335054876392, 0.17573643325726895, 0.34993686313228356, 2.4182504269726315,
            -0.1484985438215753, 1.499333349517404, 0.6577531327082057, 6.395774279183004, -0.1788066244966618,
            0.7951908464302591, -1.6286262711277586, 5.420542891512413, -0.44327798887494374, 3.5020237291323175,
            -0.2436332891324005, 5.942437793524067, 0.05354008936795527, 0.6317094497158194, 1.6419694535904812,
            5.327051800598847, 0.5903146739276881, 3.6354998466017925],
        "x_grad": [0.03967380414892712, 0.048532740880558034, -0.05215382409736609, -0.03541405424066926,
            0.04940065874126705, -0.01715157160148603, -0.027701344686154157, 0.03178597568774257,
            -0.11344598237486168, -0.11942584828445976, 0.12495957761548873, 0.020027110160811233],
    },
    "lstm_batch_first_padded": {
        "c": [-0.4122740193620472, -0.029733364785586056, -0.0026735928754954325, -0.26742384918208606,
            -0.4693575895631229, -0.4553116698717826, -0.2007462576319653, -0.40909261417441223,
            -0.38582028810710106],
        "h": [-0.111550152035838, -0.01876652726454307, -0.002291409427786099, -0.15825048079898285,
            -0.30949936556328933, -0.2089846765955315, -0.11417261293869156, -0.26407823675354697,
            -0.20763609369267044],
        "out": [-0.11268564964223468, -0.07232510878610399, -0.024783170706796094, -0.09951574729989032,
            -0.13570140610880285, -0.09156159493131256, -0.111550152035838, -0.01876652726454307,
            -0.002291409427786099, -0.17024479166285134, -0.22607390756747678, -0.11255336715640664,
            -0.11417261293869156, -0.26407823675354697, -0.20763609369267044, -0.15825048079898285,
            -0.30949936556328933, -0.2089846765955315],
        "param_grads": [-0.29635948021440245, 4.096702370616862, 0.4145000469630451, 1.5385831429324794,
            -0.3283994876142514, 4.618130003518528, -0.3283994876142513, 4.618130003518528],
        "x_grad": [0.1895489557803874, 0.25261207983310136, -0.042264618541475285, 0.008302706566420546,
            -0.3583229685763509, -0.18201271277913897, -0.15349841564122996, -0.04403557530321359,
            -0.1393241219876616, -0.10053665745697968, 0.10204254435148366, 0.018327191476534783],
    },
    "lstm_proj_bidir_2layers": {
        "c": [-0.4647724036758298, -0.07232313335505873, -0.14646276297700253, -0.27479156902321966,
            -0.516753008944307, -0.7731931528700668, -0.5412014520376709, -0.5801833665495567, -0.24617161430605722,
            0.37770272057759646, 0.31448678407934577, -0.14076036935531644, -0.05685848012624675, 0.4172646508463711,
            0.17838659506889473, 0.24938674049846646, 0.5082040601511965, 0.24981717057733738, 0.5290264986401803,
            0.18994880398838998, -0.317488555405979, 0.5190020091070651, 0.25503744188442273, -0.48609709837386145,
            0.07245443412668587, 0.08237239832365875, -0.1390101664023895, -0.20993668117986275, -0.3181341124839491,
            -0.28800153238980675, -0.214452495548086, -0.45811794597769223, -0.1921969184486863, 0.02412462555476469,
            -0.18710419180096305, 0.014557957617603525],
        "h": [-0.13334504263807404, 0.1193839003222237, -0.36310483370195273, 0.37858610140595544,
            -0.33478035967674225, 0.31881069323020494, -0.05682073862658644, -0.05228125447249856,
            -0.13769980928481945, 0.08985854708519611, -0.16266483104261098, 0.06043796661966247,
            -0.14872235885816887, 0.14365457630278367, -0.18678535863671725, 0.17057765146257528,
            -0.04735317232489783, 0.03602789337828165, -0.19483575304035347, 0.23640942502905138,
            -0.23694494235588365, 0.26968093704110874, -0.05546143029422601, 0.06429106413312698],
        "hx_grad": [0.053169044622875875, 0.060042008116736954, -0.03737661130023006, 0.02388838669853644,
            -0.02128558772787234, -0.0030662809915450546, -0.09172003194170715, 0.044718785416599856,
            -0.004701837121082368, -0.0018053941984839494, -0.06435933476506406, -0.07333647846953874,
            -0.05547154264871747, -0.02848850032629722, -0.10034825766848905, -0.08422859218159567,
            0.23054495420910512, 0.08344458334367216, -0.12467501371486663, -0.129839063630031, 0.07166266864182307,
            -0.000653568286438466, -0.020612508474168227, -0.0871964473125272, 0.3576693929959782,
            0.34749910695343744, 0.010192790885017499, -0.08939640353452216, -0.2119920916404349,
            -0.15991757380177649, -0.6097678432118374, -0.7167290902305236, -0.36866661882759766,
            -0.2649342450742573, -0.01116559709096938, 0.0056129431881471025, 0.04090165585245518,
            0.058517932430402486, 0.040590086070360354, 0.5732635842699462, 0.3626776549709384, 0.19722844767889022,
            0.04982589164096389, -0.020343258334580675, -0.15306359901725958, 0.03347438460989886,
            -0.04540959042957105, -0.3139601139006642, -0.32993109500125234, -0.4960163860998666,
            -0.17040906126976163, -0.4086940847913893, -0.2716980351585908, 0.030316888681634117, 0.601925980314084,
            0.5751145011267708, 0.24674711898112786, 0.6143083327241032, 0.6790491370521723, 0.46112194543971535],
        "out": [-0.11023893511021927, 0.059071598887203564, -0.23694494235588365, 0.26968093704110874,
            -0.11732165351478062, 0.10120973364741842, -0.19483575304035347, 0.23640942502905138,
            -0.04735317232489783, 0.03602789337828165, -0.05546143029422601, 0.06429106413312698,
            -0.16496553148474646, 0.14048846515566527, -0.1255485501437971, 0.14222603140644918,
            -0.14872235885816887, 0.14365457630278367, -0.062078758990997865, 0.08067768944930644,
            -0.18678535863671725, 0.17057765146257528, 0.06281630655927255, -0.0687255442856155],
        "param_grads": [0.13157144664204776, 1.2956461935757937, -0.094869047518499, 0.9768642611121857,
            -0.2233898511628703, 2.057874812535458, -0.2233898511628703, 2.057874812535458, -0.20596938277169158,
            2.167549671302621, -1.4219551511710176, 3.248768104155458, 0.2376410383492072, 1.4105107220509538,
            0.7126338032109297, 3.921515634146716, 0.71263380321093, 3.921515634146716, -0.19073983639836103,
            1.26363193344999, -0.023930495379941463, 3.051979620281971, -0.18102710852992718, 1.1653272840417532,
            -1.2820945108248882, 2.7913794958974742, -1.2820945108248885, 2.7913794958974742, -0.08071588076827024,
            1.6024344076064856, -0.2426044985906292, 5.03051939267885, 0.039401121351354984, 0.8317788135129455,
            0.06987042852469645, 4.632101836928452, 0.06987042852469635, 4.632101836928452, -0.1772443489752054,
            0.9303359641759692],
        "x_grad": [-0.180909482680254, -0.09865486462422707, -0.1604399909430429, -0.152016648058205,
            -0.3364251684545417, -0.44532779929549204, -0.1136277091835568, -0.09788203217727826, -0.096365018019841,
            -0.10268144689579489, 0.04036099431258455, -0.0384552995677892],
    },
    "rnn_tanh_2layers_sorted": {
        "h": [-0.6880698896450861, -0.41718466838350404, -0.10847152367854351, -0.9037625384792857,
            -0.4016779920654356, 0.11352624491489313, -0.5683929937859249, -0.01861687168521702, -0.6094121576454434,
            -0.9112219542120741, 0.4535128276579011, -0.10121813586870256, -0.9226793247690456, 0.41926701528026744,
            0.046982144673504464, -0.8730621495086262, 0.12656216024313585, 0.34862958855250287],
        "hx_grad": [-0.012052179361909453, 0.013651598030685747, 0.029024118199306278, 0.027769411623050626,
            -0.03806844639223052, -0.07509686313102637, -0.044308161720826356, 0.05928772023926304,
            0.11801583751436284, 0.09078034662690948, 0.18278452586815433, 0.1364610200236348, -0.18146719278226986,
            -0.23556873964437647, -0.11139656076953333, 0.11381711135961459, 0.32570255144657556,
            0.29110279398114736],
        "out": [-0.766426865779862, 0.2832311049285942, -0.2606108984218724, -0.8450719193256435, 0.2604041271772627,
            0.004853175409361127, -0.8730621495086262, 0.12656216024313585, 0.34862958855250287, -0.8588017896451831,
            0.43229571555960106, -0.29108734801748193, -0.9241236539538433, 0.5603094612875927, -0.2732433469976104,
            -0.9112219542120741, 0.4535128276579011, -0.10121813586870256, -0.9226793247690456, 0.41926701528026744,
            0.046982144673504464],
        "param_grads": [0.46054232404618334, 1.8458739923472476, 0.13733117100673803, 2.3514825402305557,
            -0.630603744544239, 2.3980466973748666, -0.6306037445442388, 2.3980466973748666, -1.0203765131423337,
            5.434518008060481, -0.2103118886671635, 3.386463969305435, 0.31208632830663974, 4.497547197444275,
            0.31208632830663974, 4.497547197444275],
        "x_grad": [-0.06445145033993634, -0.06665407849992418, 0.06231443454301995, 0.23446862123668039,
            0.3078790376390954, 0.3825233041288637, 0.09985591110487574, 0.16308209232894066, -0.09616617906256245,
            -0.1815360124699068, -0.06034663207202274, 0.009276740457417693, -0.561961067731316, -0.322197240859914],
    },
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_packed_run_against_recorded_pytorch(name):
    (m, packed, out, h), res = _recorded_run(name)
    ref = RECORDED[name]
    assert set(res) == set(ref)
    for key in ref:
        np.testing.assert_allclose(res[key].ravel(), np.array(ref[key]), err_msg=key, **TOL)
    assert res["out"].shape == (sum(CONFIGS[name][2]), (2 if m.bidirectional else 1) * (m.proj_size or 3))
    assert isinstance(out, R.PackedSequence)
    assert out.batch_sizes is packed.batch_sizes and out.sorted_indices is packed.sorted_indices
    assert out.unsorted_indices is packed.unsorted_indices
    # PyTorch's nodes: the steps' outputs concatenated; the states stacked, then put back in the
    # caller's order when the batch was sorted for packing
    assert _name(out.data) == "CatBackward0"
    hn = h[0] if isinstance(h, tuple) else h
    assert _name(hn) == ("StackBackward0" if CONFIGS[name][3] == "sorted" else "IndexSelectBackward0")


SEPARATE_CASES = [
    ("RNN", dict()),
    ("RNN", dict(nonlinearity="relu", num_layers=2, bidirectional=True)),
    ("LSTM", dict()),
    ("LSTM", dict(num_layers=2, bidirectional=True, bias=False)),
    ("LSTM", dict(proj_size=2, bidirectional=True)),
    ("GRU", dict()),
    ("GRU", dict(num_layers=3, bidirectional=True)),
]


@pytest.mark.parametrize("cls, kw", SEPARATE_CASES, ids=[f"{c}-{kw}" for c, kw in SEPARATE_CASES])
@pytest.mark.parametrize("give_hx", [False, True])
def test_packed_run_equals_each_sequence_run_alone(cls, kw, give_hx):
    nbgrad.manual_seed(0)
    m = getattr(nn, cls)(3, 4, **kw).double()
    rng = np.random.default_rng(3)
    lengths = [3, 5, 1, 5, 2]          # unsorted, with a tie
    D = 2 if m.bidirectional else 1
    H = m.proj_size or 4
    xs = [rng.standard_normal((n, 3)) for n in lengths]
    h0 = rng.standard_normal((m.num_layers * D, len(lengths), H))
    c0 = rng.standard_normal((m.num_layers * D, len(lengths), 4))
    wo = [rng.standard_normal((n, D * H)) for n in lengths]
    wh = rng.standard_normal(h0.shape)
    wc = rng.standard_normal(c0.shape)

    def run(batch):
        """The loss of `batch` (indices into the sequences) run packed, its pieces, and the leaves."""
        x = [nbgrad.tensor(xs[i], requires_grad=True) for i in batch]
        h = nbgrad.tensor(h0[:, batch], requires_grad=True)
        c = nbgrad.tensor(c0[:, batch], requires_grad=True)
        hx = ((h, c) if cls == "LSTM" else h) if give_hx else None
        if len(batch) == 1:            # one sequence alone: the unpacked, unbatched path
            hx = None if hx is None else ((h[:, 0], c[:, 0]) if cls == "LSTM" else h[:, 0])
            out, st = m(x[0], hx)
            outs = [out]
            st = (st if cls == "LSTM" else (st,))
            st = tuple(s.unsqueeze(1) for s in st)
        else:
            out, st = m(R.pack_sequence(x, enforce_sorted=False), hx)
            outs = R.unpack_sequence(out)
            st = st if cls == "LSTM" else (st,)
        loss = sum((o * nbgrad.tensor(wo[i])).sum() for o, i in zip(outs, batch))
        loss = loss + (st[0] * nbgrad.tensor(wh[:, batch])).sum()
        if cls == "LSTM":
            loss = loss + (st[1] * nbgrad.tensor(wc[:, batch])).sum()
        m.zero_grad()
        loss.backward()
        grads = {n: _np(p.grad).copy() for n, p in m.named_parameters()}
        leaves = dict(x=[_np(t.grad) for t in x])
        if give_hx:
            leaves["h"], leaves["c"] = _np(h.grad), (_np(c.grad) if cls == "LSTM" else None)
        return [_np(o) for o in outs], [_np(s) for s in st], grads, leaves

    outs, states, grads, leaves = run(list(range(len(lengths))))
    total = {n: 0.0 for n in grads}
    for i in range(len(lengths)):
        o1, s1, g1, l1 = run([i])
        np.testing.assert_allclose(outs[i], o1[0], **TOL)
        for s, s_alone in zip(states, s1):
            np.testing.assert_allclose(s[:, i:i + 1], s_alone, **TOL)
        np.testing.assert_allclose(leaves["x"][i], l1["x"][0], **TOL)
        if give_hx:
            np.testing.assert_allclose(leaves["h"][:, i:i + 1], l1["h"], **TOL)
            if cls == "LSTM":
                np.testing.assert_allclose(leaves["c"][:, i:i + 1], l1["c"], **TOL)
        for n in total:
            total[n] = total[n] + g1[n]
    for n in grads:                    # the batch's loss is the sum of the sequences' losses
        np.testing.assert_allclose(grads[n], total[n], err_msg=n, **TOL)


def test_packed_gradcheck_and_batch_first_ignored():
    nbgrad.manual_seed(1)
    m = nn.GRU(2, 2, bidirectional=True).double()
    rng = np.random.default_rng(4)
    data = nbgrad.tensor(rng.standard_normal((6, 2)), requires_grad=True)
    h0 = nbgrad.tensor(rng.standard_normal((2, 3, 2)), requires_grad=True)
    bs, si = nbgrad.tensor([3, 2, 1]), nbgrad.tensor([2, 0, 1])

    def f(d, h):
        out, hn = m(R.PackedSequence(d, bs, si), h)
        return out.data, hn
    assert nbgrad.autograd.gradcheck(f, (data, h0))
    # batch_first concerns tensors only: a packed input runs the same
    a = f(data, h0)
    m.batch_first = True
    b = f(data, h0)
    np.testing.assert_array_equal(_np(a[0]), _np(b[0]))
    np.testing.assert_array_equal(_np(a[1]), _np(b[1]))


def test_dropout_between_layers_on_packed_input():
    m = nn.GRU(2, 3, num_layers=3, dropout=0.5, bidirectional=True).double()
    x = nbgrad.tensor(np.cos(np.arange(24.)).reshape(4, 3, 2))
    # equal lengths: the packed data is the padded batch's elements in the same order, so the
    # same generator state draws the same masks
    nbgrad.manual_seed(5)
    o1, h1 = m(x)
    nbgrad.manual_seed(5)
    o2, h2 = m(R.pack_padded_sequence(x, [4, 4, 4]))
    np.testing.assert_array_equal(_np(o1).reshape(12, 6), _np(o2.data))
    np.testing.assert_array_equal(_np(h1), _np(h2))
    packed = R.pack_padded_sequence(x, [4, 2, 1])
    nbgrad.manual_seed(5)
    a = _np(m(packed)[0].data)
    nbgrad.manual_seed(6)
    b = _np(m(packed)[0].data)
    assert not np.allclose(a, b)
    m.eval()                          # no dropout: the same as the module without it
    ref = nn.GRU(2, 3, num_layers=3, bidirectional=True).double()
    ref.load_state_dict(m.state_dict())
    np.testing.assert_array_equal(_np(m(packed)[0].data), _np(ref(packed)[0].data))


def test_packed_input_errors():
    m = nn.GRU(3, 4).double()
    p = R.pack_sequence([nbgrad.zeros(3, 3, dtype=nbgrad.float64), nbgrad.zeros(2, 3, dtype=nbgrad.float64)])
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
        m(p, nbgrad.zeros(1, 3, 4, dtype=nbgrad.float64))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[2, 4\]"):
        m(p, nbgrad.zeros(2, 4, dtype=nbgrad.float64))
    with pytest.raises(ValueError, match=r"RNN input dtype \(\w+.float32\) does not match weight dtype "
                                         r"\(\w+.float64\)"):
        m(p.float())
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 2"):
        m(R.PackedSequence(p.data[:, :2], p.batch_sizes))
    with pytest.raises(RuntimeError, match="input must have 2 dimensions, got 3"):
        nn.RNN(3, 4).double()(R.PackedSequence(p.data.unsqueeze(1), p.batch_sizes))


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch's LSTM checks no states for a packed input (it fails inside, "
                                          "or crashes the process)")
def test_packed_lstm_checks_its_states():
    m = nn.LSTM(3, 4).double()
    p = R.pack_sequence([nbgrad.zeros(3, 3, dtype=nbgrad.float64), nbgrad.zeros(2, 3, dtype=nbgrad.float64)])
    z = nbgrad.zeros
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 4\), got \[1, 3, 4\]"):
        m(p, (z(1, 3, 4, dtype=nbgrad.float64), z(1, 2, 4, dtype=nbgrad.float64)))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 2, 4\), got \[1, 2, 5\]"):
        m(p, (z(1, 2, 4, dtype=nbgrad.float64), z(1, 2, 5, dtype=nbgrad.float64)))
    with pytest.raises(RuntimeError, match=r"LSTM: hx must be a tuple \(h_0, c_0\)"):
        m(p, (z(1, 2, 4, dtype=nbgrad.float64),))
    with pytest.raises(ValueError, match="RNN input dtype"):
        m(p.float())


def test_lstm_classifier_on_variable_length_sequences_trains():
    """Label: whether a sequence's first feature sums above zero; the LSTM's last state of each
    sequence feeds a linear layer."""
    nbgrad.manual_seed(0)
    rng = np.random.default_rng(6)
    lengths = rng.integers(1, 8, size=16).tolist()
    seqs = [rng.standard_normal((n, 2)) for n in lengths]
    labels = nbgrad.tensor([int(s[:, 0].sum() > 0) for s in seqs])
    lstm, head = nn.LSTM(2, 8).double(), nn.Linear(8, 2).double()
    opt = nbgrad.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=0.05)
    padded = R.pad_sequence([nbgrad.tensor(s) for s in seqs], batch_first=True)
    losses = []
    for _ in range(15):
        packed = R.pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
        _, (h, _) = lstm(packed)
        loss = nn.functional.cross_entropy(head(h[-1]), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.6 * losses[0]
    assert all(p.grad is not None for p in lstm.parameters())


@requires_cuda
def test_packed_lstm_on_cuda():
    m = _fill(nn.LSTM(2, 3, bidirectional=True).double())
    xs = [nbgrad.tensor(_wave((n, 2), i)) for i, n in enumerate([2, 3, 1])]
    packed = R.pack_sequence(xs, enforce_sorted=False)
    ref_out, (ref_h, _) = m(packed)
    on_gpu = packed.cuda()
    assert on_gpu.is_cuda and on_gpu.data.device.type == "cuda" and on_gpu.sorted_indices.device.type == "cuda"
    assert on_gpu.batch_sizes.device.type == "cpu" and on_gpu.cuda() is on_gpu
    assert on_gpu.to("cuda") is on_gpu and on_gpu.cpu().data.device.type == "cpu"
    m.cuda()
    out, (h, _) = m(on_gpu)
    assert out.data.device.type == "cuda" and h.device.type == "cuda"
    np.testing.assert_allclose(out.data.detach().cpu().numpy(), _np(ref_out.data), **TOL)
    np.testing.assert_allclose(h.detach().cpu().numpy(), _np(ref_h), **TOL)
    padded, lengths = R.pad_packed_sequence(out)
    assert padded.device.type == "cuda" and lengths.device.type == "cpu" and lengths.tolist() == [2, 3, 1]
