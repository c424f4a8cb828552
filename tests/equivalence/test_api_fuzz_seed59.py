"""The classes API fuzz seed 59 found (PyTorch 2.13's behaviour recorded): boolean_dispatch reads
its flag by keyword or position before binding (too many arguments are its flag's error first);
F.max_pool3d's return_indices branch is max_pool3d_with_indices' Python (input.is_cuda); what
PyTorch's Python reads of a parameter in a helper of its module (F.embedding's weight.detach() in
_no_grad_embedding_renorm_); torch.norm's input.layout; F's pointwise losses read weight.size()
and smooth_l1_loss tests beta before its reduction's enum; _pair/_triple of an iterable (a 0-dim
tensor's TypeError) and nbgrad.nn.modules.utils; quantile's checks in ATen's order (the
interpolation, a non-empty input, then the rest, before the dim); narrow's length before its dim;
igamma's gradient in other with a bool input is sub's refusal.  (Not mirrored: scatter's src
gradient where index is smaller than src, which PyTorch's engine refuses as the wrong shape and
nbgrad gives as zeros outside index's region; extra arguments to a binary dunder called
directly, which PyTorch parses as its method's and nbgrad refuses as Python's arity error.)"""
import pytest

import nbgrad

F = nbgrad.nn.functional

_AMBIGUOUS = "^Boolean value of Tensor with more than one value is ambiguous$"


def test_boolean_dispatch_reads_its_flag_before_binding_the_arguments():
    with pytest.raises(RuntimeError, match=_AMBIGUOUS):
        F.adaptive_max_pool2d(nbgrad.zeros(1, 2, 3, 4), 2, nbgrad.zeros(2, 3, dtype=nbgrad.bool), 5)
    with pytest.raises(RuntimeError, match=_AMBIGUOUS):
        F.max_pool2d(nbgrad.zeros(1, 2, 3, 4), 2, 1, 0, 1, False, nbgrad.zeros(2), 7)
    with pytest.raises(TypeError, match="takes from 2 to 3 positional arguments but 4 were given$"):
        F.adaptive_max_pool2d(nbgrad.zeros(1, 2, 3, 4), 2, False, 5)


def test_python_reads_of_a_parameter_that_is_no_tensor():
    with pytest.raises(AttributeError, match="^'float' object has no attribute 'is_cuda'$"):
        F.max_pool3d(1e-30, 2, return_indices=True)
    with pytest.raises(AttributeError, match="^'float' object has no attribute 'detach'$"):
        F.embedding(nbgrad.zeros(2, 3, dtype=nbgrad.int64), 1e30, max_norm=nbgrad.zeros(1, 1, dtype=nbgrad.float64))
    with pytest.raises(AttributeError, match="^'float' object has no attribute 'layout'$"):
        nbgrad.norm(1e-30, 0)
    with pytest.raises(AttributeError, match="^'int' object has no attribute 'is_complex'$"):
        nbgrad.unravel_index(0, nbgrad.zeros(4))
    for loss in (F.huber_loss, F.mse_loss, F.l1_loss):
        with pytest.raises(AttributeError, match="^'int' object has no attribute 'size'$"):
            loss(nbgrad.ones(2, 2), nbgrad.zeros(2, 2), weight=3)
    assert F.max_pool3d(nbgrad.rand(1, 1, 4, 4, 4), 2, return_indices=True)[1].shape == (1, 1, 2, 2, 2)


def test_smooth_l1_loss_tests_beta_before_reading_its_reduction():
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with no values is ambiguous$"):
        F.smooth_l1_loss(nbgrad.zeros(2, 2), nbgrad.zeros(2, 2), reduction="foo", beta=nbgrad.zeros(0, 3))
    with pytest.raises(ValueError, match="^foo is not a valid value for reduction$"):
        F.smooth_l1_loss(nbgrad.zeros(2, 2), nbgrad.zeros(2, 2), reduction="foo", beta=0.0)
    assert F.smooth_l1_loss(nbgrad.ones(2, 2), nbgrad.zeros(2, 2), reduction="sum", beta=0.0).item() == 4.0


def test_pair_and_triple_take_any_iterable():
    with pytest.raises(TypeError, match="^iteration over a 0-d tensor$"):
        F.fractional_max_pool3d_with_indices(nbgrad.zeros(1, 2, 3, 4), 2, output_ratio=nbgrad.tensor(1.0))
    out, _ = F.fractional_max_pool2d_with_indices(nbgrad.rand(1, 2, 4, 4), 2, output_ratio=nbgrad.tensor([0.5, 0.5]))
    assert out.shape == (1, 2, 2, 2)
    from nbgrad.nn.modules.utils import _pair, _quadruple, _reverse_repeat_tuple, _triple
    assert (_pair(3), _triple([1, 2, 3]), _quadruple(0)) == ((3, 3), (1, 2, 3), (0, 0, 0, 0))
    assert _reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)
    assert nbgrad.nn.ZeroPad2d((1, 0, 2, 0))(nbgrad.zeros(1, 2, 2)).shape == (1, 4, 3)
    assert nbgrad.nn.FractionalMaxPool2d(2, output_ratio=[0.5, 0.5]).output_ratio == (0.5, 0.5)


def test_quantile_checks_in_atens_order():
    with pytest.raises(RuntimeError, match="^quantile\\(\\) input tensor must be non-empty$"):
        nbgrad.quantile(nbgrad.zeros(0, dtype=nbgrad.float64), 0.0, 4, keepdim=True)
    with pytest.raises(RuntimeError, match="^quantile\\(\\) input tensor must be non-empty$"):
        nbgrad.quantile(nbgrad.zeros(0, dtype=nbgrad.int64), 0.5)
    with pytest.raises(RuntimeError, match="^quantile\\(\\) input tensor must be non-empty$"):
        nbgrad.quantile(nbgrad.zeros(3, 0), 0.5, dim=0)      # (the whole input, not the dim's slice)
    with pytest.raises(RuntimeError, match="^quantile\\(\\) interpolation must be one of linear"):
        nbgrad.quantile(nbgrad.zeros(3, dtype=nbgrad.int64), 0.5, interpolation="foo")
    with pytest.raises(RuntimeError, match="^quantile\\(\\) q must be in the range \\[0, 1\\] but got 1.5$"):
        nbgrad.quantile(nbgrad.zeros(0), 1.5)
    assert nbgrad.quantile(nbgrad.arange(5.0), 0.25).item() == 1.0


def test_narrow_reads_its_length_before_its_dim():
    with pytest.raises(RuntimeError, match="^narrow\\(\\): length must be non-negative.$"):
        nbgrad.narrow(nbgrad.zeros(1), 1, -1, nbgrad.tensor([[[-2]]]))
    with pytest.raises(RuntimeError, match="^narrow\\(\\) cannot be applied to a 0-dim tensor.$"):
        nbgrad.narrow(nbgrad.zeros(()), 1, 0, -1)
    with pytest.raises(IndexError, match="^Dimension out of range"):
        nbgrad.narrow(nbgrad.zeros(3), 4, 0, 1)


def test_igamma_gradient_with_a_bool_input_is_subs_refusal():
    x = nbgrad.ones(3, dtype=nbgrad.float64, requires_grad=True)
    for fn in (nbgrad.igamma, nbgrad.igammac):
        out = fn(nbgrad.ones(3, dtype=nbgrad.bool), x)
        with pytest.raises(RuntimeError, match="^Subtraction, the `-` operator, with a bool tensor is not supported"):
            out.sum().backward()
    nbgrad.igamma(nbgrad.full((3,), 2), x).sum().backward()       # (an integer input: (2 - 1) * log(x) - x)
    assert [round(v, 6) for v in x.grad.tolist()] == [0.367879] * 3
