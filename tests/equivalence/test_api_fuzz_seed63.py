"""The classes API fuzz seed 63 found (PyTorch 2.13's behaviour recorded): copy_ of a number is
copy_ of the 0-dim tensor PyTorch's parser wraps it in (its cast wraps an integer past the dtype's
range, its internal-overlap check, CopyBackwards), not fill_; F.local_response_norm composes as
PyTorch's Python (avg_pool2d or avg_pool3d, through their parsers); poisson_nll_loss words its
reduction's refusal as reduction + str (a non-str is +'s TypeError); set_default_tensor_type
imports a dotted name as PyTorch's _import_dotted_name.  (Not mirrored: torch.ones(size, device=-3)
with a bad later size element, whose two refusals C++ evaluates in an unspecified order.)"""
import warnings

import pytest

import nbgrad

F = nbgrad.nn.functional


def test_copy_of_a_number_is_copy_of_a_wrapped_tensor():
    assert nbgrad.zeros(3, dtype=nbgrad.uint8).copy_(300).tolist() == [44, 44, 44]
    assert nbgrad.zeros(3, dtype=nbgrad.float16).copy_(1e10).tolist() == [float("inf")] * 3
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to tensor "
                                           "refers to a single memory location"):
        nbgrad.zeros(3, 1).expand(3, 3).copy_(0)
    y = nbgrad.zeros(3, requires_grad=True).clone().copy_(1)
    assert type(y.grad_fn).__name__ == "CopyBackwards" and y.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(TypeError, match="^copy_\\(\\): argument 'other' \\(position 1\\) must be Tensor, not list$"):
        nbgrad.zeros(3).copy_([1, 2, 3])


def test_local_response_norm_composes_as_pytorchs_python():
    with pytest.raises(TypeError, match="^avg_pool2d\\(\\): argument 'kernel_size' \\(position 2\\) must be tuple of "
                                        "ints, but found element of type bool at pos 0$"):
        F.local_response_norm(nbgrad.zeros(2, 1, 3, dtype=nbgrad.bool), True, k=-3)
    x = nbgrad.arange(48.0).reshape(2, 3, 4, 2).requires_grad_()
    out = F.local_response_norm(x, 3)
    names, node = [], out.grad_fn
    while node is not None and len(names) < 10:
        names.append(node.name())
        node = next((f for f, _ in node.next_functions if f is not None and "AccumulateGrad" not in f.name()), None)
    # (below it nbgrad's avg_pool3d, a composite under PyTorch's node name, shows its own nodes)
    assert names[:7] == ["DivBackward0", "PowBackward0", "AddBackward0", "MulBackward0", "ViewBackward0",
                         "SqueezeBackward1", "AvgPool3DBackward0"]
    assert round(out[1, 2, 3, 1].item(), 3) == 43.045


def test_poisson_nll_loss_words_its_reduction_refusal_as_its_python():
    with pytest.raises(TypeError, match="^unsupported operand type\\(s\\) for \\+: 'bool' and 'str'$"):
        F.poisson_nll_loss(nbgrad.ones(3), nbgrad.ones(3), reduction=True)
    with pytest.raises(ValueError, match="^foo is not a valid value for reduction$"):
        F.poisson_nll_loss(nbgrad.ones(3), nbgrad.ones(3), reduction="foo")


def test_set_default_tensor_type_imports_a_dotted_name():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ModuleNotFoundError, match="^No module named 'fro'$"):
            nbgrad.set_default_tensor_type("fro")
        with pytest.raises(AttributeError, match="has no attribute 'Foo'$"):
            nbgrad.set_default_tensor_type("torch.Foo")
        with pytest.raises(TypeError, match="^invalid type object: only floating-point types are supported as the "
                                            "default type$"):
            nbgrad.set_default_tensor_type(5)
        with pytest.raises(TypeError, match="^only floating-point types are supported as the default type$"):
            nbgrad.set_default_tensor_type("torch.LongTensor")
        nbgrad.set_default_tensor_type("torch.DoubleTensor")
        try:
            assert nbgrad.zeros(1).dtype == nbgrad.float64
        finally:
            nbgrad.set_default_tensor_type(nbgrad.FloatTensor)
