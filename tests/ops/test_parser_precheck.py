"""PyTorch's argument parser refuses a call before any work, also one that nbgrad's op would
have computed (torch.max(x, keepdim=True), torch.add(x, y, 2), x.rot90(t)): the functions of
torch, torch.linalg and torch.special and the Tensor methods outside the hot set check their
arguments, once for each kind of call (ops/_signatures._ParsedCalls), and refuse what nbgrad's
op accepted (an in-place function before it writes).  Before, the check ran only after a
failure, and the API fuzzer's seed 33 found 188 of its 30,000 calls accepted where PyTorch
refuses.  Expected errors recorded from PyTorch 2.13."""
import pytest

import nbgrad


def _x():
    return nbgrad.tensor([[1.0, -2.0], [3.0, 0.5]])


REFUSED = [
    (lambda: nbgrad.max(_x(), keepdim=True), "max() received an invalid combination of arguments - got (Tensor, keepdim=bool)"),
    (lambda: nbgrad.sum(_x(), keepdim=True), "sum() received an invalid combination of arguments - got (Tensor, keepdim=bool)"),
    (lambda: nbgrad.sort(_x(), descending=None), "sort() received an invalid combination of arguments"),
    (lambda: nbgrad.zeros_like(_x(), requires_grad=0), "zeros_like(): argument 'requires_grad' must be bool, not int"),
    (lambda: nbgrad.add(_x(), _x(), 2), "add() "),
    (lambda: nbgrad.flip(_x(), 1, 2), "flip() takes 2 positional arguments but 3 were given"),
    (lambda: nbgrad.selu(_x(), inplace=False), "selu() got an unexpected keyword argument 'inplace'"),
    (lambda: _x().rot90(nbgrad.tensor([1])), "rot90(): argument 'k' (position 1) must be int, not Tensor"),
    (lambda: _x().diagflat(nbgrad.tensor([1])), "diagflat(): argument 'offset' (position 1) must be int, not Tensor"),
    (lambda: nbgrad.argsort(_x(), -1, stable=True), "argsort() received an invalid combination of arguments"),
    (lambda: nbgrad.unsqueeze(_x(), nbgrad.tensor([0])), "unsqueeze(): argument 'dim' (position 2) must be int, not Tensor"),
    (lambda: nbgrad.full((2,), nbgrad.tensor(3.0, requires_grad=True)), "full()"),
    (lambda: nbgrad.full((2,), nbgrad.tensor([3.0])), "full()"),
]


@pytest.mark.parametrize("call,message", REFUSED)
def test_the_parser_refuses_before_the_op(call, message):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value).startswith(message)


def test_an_in_place_function_refused_by_the_parser_writes_nothing():
    x = nbgrad.ones(3)
    with pytest.raises(TypeError, match="feature_dropout_\\(\\): argument 'train' \\(position 3\\) must be bool, not Tensor"):
        nbgrad.feature_dropout_(x, 0.5, nbgrad.tensor([1.0]))
    assert x.tolist() == [1.0, 1.0, 1.0] and x._version == 0


def test_a_call_given_out_refused_by_the_parser_writes_nothing():
    # (nbgrad's add computes x + 2 * x; the parser refuses a third positional argument before
    # any work: out stays as it was, its version too)
    x, out = nbgrad.ones(3), nbgrad.zeros(3)
    with pytest.raises(TypeError, match="add\\(\\) takes 2 positional arguments but 3 were given"):
        nbgrad.add(x, x, 2, out=out)
    with pytest.raises(TypeError, match="cumsum\\(\\) takes 2 positional arguments but 3 were given"):
        nbgrad.cumsum(x, 0, 1, out=out)
    assert out.tolist() == [0.0, 0.0, 0.0] and out._version == 0
    assert nbgrad.add(x, x, alpha=2, out=out) is out and out.tolist() == [3.0, 3.0, 3.0]


def test_a_tensor_read_by_its_value_is_checked_at_every_call():
    # a 0-dim tensor that does not require grad is a Number; the same kind of call with one that
    # requires grad, or of one dimension, is not (the first call's verdict is not reused)
    assert nbgrad.full((2,), nbgrad.tensor(3.0)).tolist() == [3.0, 3.0]
    with pytest.raises(TypeError):
        nbgrad.full((2,), nbgrad.tensor(3.0, requires_grad=True))
    with pytest.raises(TypeError):
        nbgrad.full((2,), nbgrad.tensor([3.0]))
    assert nbgrad.full((2,), nbgrad.tensor(4.0)).tolist() == [4.0, 4.0]
    assert nbgrad.unsqueeze(_x(), nbgrad.tensor(0)).shape == (1, 2, 2)


def test_calls_that_parse_still_run_after_a_refusal_of_their_kind():
    x = _x()
    for _ in range(3):
        assert nbgrad.cumsum(x, 0).tolist() == [[1.0, -2.0], [4.0, -1.5]]
        with pytest.raises(TypeError):
            nbgrad.cumsum(x, 0, 1)


def test_a_call_that_fails_keeps_its_own_error():
    # (the parser's verdict is raised only when nbgrad's op succeeded: a failure's message is
    # the one nbgrad gave before, PyTorch's single-overload wording here)
    with pytest.raises(TypeError, match='softmax\\(\\) missing 1 required positional arguments: "dim"'):
        nbgrad.softmax(_x())


@pytest.mark.parametrize("call,message", [
    (lambda x: x.sum(keepdim=False), "sum() received an invalid combination of arguments"),
    (lambda x: x.mean(keepdim=True), "mean() received an invalid combination of arguments"),
    (lambda x: x.max(None), "max() received an invalid combination of arguments"),
    (lambda x: x.max(keepdim=False), "max() received an invalid combination of arguments"),
    (lambda x: x.min(None, keepdim=True), "min(): argument 'dim' (position 1) must be int, not NoneType"),
])
def test_hot_reductions_refuse_keepdim_without_a_dim(call, message):
    # (the hot methods are not wrapped: their own defaults tell a keepdim given without a dim)
    with pytest.raises(TypeError) as e:
        call(_x())
    assert str(e.value).startswith(message)


def test_hot_reductions_still_take_what_pytorch_takes():
    x = _x()
    assert x.sum(None, True).shape == (1, 1) and x.mean(dim=None, keepdim=True).shape == (1, 1)
    assert x.max().item() == 3.0 and x.min(0, keepdim=True).values.shape == (1, 2)
    assert x.sum(axis=0, keepdims=True).shape == (1, 2) and x.max(x).shape == (2, 2)


F = nbgrad.nn.functional


@pytest.mark.parametrize("call,message", [
    # nn.functional functions whose Python passes their arguments to one C-parsed op
    # (_schemas.FUNCTIONAL): that op's parser refuses what nbgrad's computed
    (lambda x: F.pad(x, nbgrad.tensor([1, 1])), "pad(): argument 'pad' (position 2) must be tuple of ints, not Tensor"),
    (lambda x: F.cosine_similarity(x, x, (-1,)), "cosine_similarity(): argument 'dim' (position 3) must be int, not tuple"),
    (lambda x: F.linear(x, x, 1.0), "linear(): argument 'bias' (position 3) must be Tensor, not float"),
    (lambda x: F.max_pool2d(x.unsqueeze(0), 2, stride=None, padding=True),
     "max_pool2d(): argument 'padding' (position 4) must be tuple of ints, not bool"),
    # (a stride PyTorch's Python replaces only where it is None: max_pool2d(x, 2, True))
    (lambda x: F.max_pool2d(x.unsqueeze(0), 2, True), "max_pool2d(): argument 'stride' (position 3) must be tuple of ints, not bool"),
    (lambda x: F.max_pool1d(x, (1, 0, 2), True), "max_pool1d(): argument 'stride' (position 3) must be tuple of ints, not bool"),
    # (PyTorch's Python passes the defaults and a reduction's enum: ctc_loss's int, int, bool)
    (lambda x: F.ctc_loss(x.unsqueeze(1).log_softmax(2), nbgrad.tensor([[1]]), nbgrad.tensor([2]), (1,)),
     "ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, Tensor, tuple, int, int, bool), but"),
])
def test_functional_calls_refused_by_their_ops_parser(call, message):
    with pytest.raises(TypeError) as e:
        call(_x())
    assert str(e.value).startswith(message)


def test_a_functional_call_in_place_refused_by_the_parser_writes_nothing():
    x = -nbgrad.ones(3)
    for call in (lambda: F.elu(x, nbgrad.ones(2), True), lambda: F.leaky_relu(x, nbgrad.ones(2), True),
                 lambda: F.celu(x, "a", inplace=True), lambda: F.hardtanh_(x, nbgrad.ones(2))):
        with pytest.raises(TypeError, match="must be Number"):
            call()
    assert x.tolist() == [-1.0, -1.0, -1.0] and x._version == 0
    # (the same kinds of call that parse still run, in place or not)
    assert F.elu(x, 1.0, True) is x and x._version == 1
    assert F.relu(x, inplace=False).tolist() == [0.0, 0.0, 0.0]


def test_tensor_to_refuses_what_no_overload_takes():
    # (the hot Tensor.to checks its calls of two arguments or more, once per kind of call)
    x = nbgrad.ones(3)
    for call, got in [(lambda: x.to(nbgrad.ones(2), nbgrad.ones(2)), "(Tensor, Tensor)"),
                      (lambda: x.to(nbgrad.ones(2), 0, nbgrad.ones(2)), "(Tensor, int, Tensor)"),
                      (lambda: x.to(nbgrad.ones(2, dtype=nbgrad.int64), nbgrad.float64), "(Tensor, torch.dtype)")]:
        for _ in range(2):
            with pytest.raises(TypeError) as e:
                call()
            assert str(e.value).startswith(f"to() received an invalid combination of arguments - got {got}, but")
    assert x.to("cpu", nbgrad.float64).dtype == nbgrad.float64
    assert x.to(device="cpu", dtype=nbgrad.float64).dtype == nbgrad.float64
    assert x.to(nbgrad.float64, True, True).dtype == nbgrad.float64
    assert x.to(nbgrad.ones(2, dtype=nbgrad.int64), False, True).dtype == nbgrad.int64
    assert x.to(None, nbgrad.float64).dtype == nbgrad.float64
    assert x.to(nbgrad.float32, copy=True) is not x


def test_the_legacy_reduction_truth_tests_come_before_the_parser():
    # (PyTorch's _Reduction.legacy_get_string tests size_average and reduce in Python, before the
    # op parses: a tensor of many elements there is bool()'s RuntimeError, whatever else is wrong)
    x, t = nbgrad.ones(2, 3), nbgrad.ones(2, 3)
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        F.soft_margin_loss(1e-30, t, reduce=nbgrad.ones(1, 3))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        F.multilabel_margin_loss(1, t, nbgrad.ones(2, 1, 3))
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        with pytest.raises(TypeError, match=r"^cross_entropy_loss\(\): argument 'label_smoothing' \(position 6\) must be float, not NoneType$"):
            F.cross_entropy(x, t, size_average=True, reduction="fro", label_smoothing=None)


def test_add_and_sub_methods_parse_a_second_positional_argument_first():
    # (x.sub(t, u): PyTorch's parser refuses it before sub's bool check; a number first is the
    # deprecated sub(Number alpha, Tensor other))
    b = nbgrad.ones(3, dtype=nbgrad.bool)
    with pytest.raises(TypeError, match=r"^sub\(\) takes 1 positional argument but 2 were given$"):
        b.sub(b, nbgrad.ones(2, 3))
    with pytest.raises(TypeError, match=r"^add\(\) takes 1 positional argument but 2 were given$"):
        nbgrad.ones(3).add(nbgrad.ones(3), nbgrad.ones(3))
    import warnings
    with warnings.catch_warnings():     # (its deprecation warning comes once per process)
        warnings.simplefilter("ignore")
        assert nbgrad.ones(3).sub(2, nbgrad.ones(3)).tolist() == [-1.0, -1.0, -1.0]


def test_poisson_nll_loss_flags_are_parsed():
    # (its Python reads only the reduction before its op: the op's parser is PyTorch's next word)
    x = nbgrad.ones(3)
    with pytest.raises(TypeError, match=r"^poisson_nll_loss\(\): argument 'log_input' \(position 3\) must be bool, not float$"):
        F.poisson_nll_loss(x, x, 1e-30)
    with pytest.raises(TypeError, match=r"^poisson_nll_loss\(\): argument 'full' \(position 4\) must be bool, not Tensor$"):
        F.poisson_nll_loss(x, x, full=nbgrad.ones(3))
    with pytest.raises(ValueError, match="^bad is not a valid value for reduction$"):
        F.poisson_nll_loss(x, x, reduction="bad")
