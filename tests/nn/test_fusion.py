"""nn.utils.fusion (BatchNorm folded into the convolution or Linear before it, eval mode),
nn.utils.memory_format, and small PyTorch names: NLLLoss2d and the *_with_indices pools."""
import warnings

import numpy as np
import pytest

import nbgrad
import nbgrad.nn as nn

F = nbgrad.nn.functional


def _eval_bn(bn, seed):
    rng = np.random.default_rng(seed)
    c = bn.num_features
    with nbgrad.no_grad():
        bn.running_mean.copy_(nbgrad.tensor(rng.standard_normal(c)))
        bn.running_var.copy_(nbgrad.tensor(rng.uniform(0.5, 2.0, c)))
        bn.weight.copy_(nbgrad.tensor(rng.standard_normal(c)))
        bn.bias.copy_(nbgrad.tensor(rng.standard_normal(c)))
    return bn.eval()


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval_computes_what_the_pair_computes(transpose):
    conv = (nn.ConvTranspose2d(3, 4, 3) if transpose else nn.Conv2d(3, 4, 3)).double().eval()
    bn = _eval_bn(nn.BatchNorm2d(4).double(), 1)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    assert fused is not conv and isinstance(fused.weight, nn.Parameter) and isinstance(fused.bias, nn.Parameter)
    x = nbgrad.tensor(np.random.default_rng(2).standard_normal((2, 3, 6, 6)))
    np.testing.assert_allclose(fused(x).detach().numpy(), bn(conv(x)).detach().numpy(), rtol=1e-12, atol=1e-12)
    conv.train()
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_conv_bn_eval(conv, bn)


def test_fuse_linear_bn_eval_and_weights_without_bias():
    lin = nn.Linear(5, 3, bias=False).double().eval()
    bn = _eval_bn(nn.BatchNorm1d(3).double(), 3)
    fused = nn.utils.fuse_linear_bn_eval(lin, bn)
    x = nbgrad.tensor(np.random.default_rng(4).standard_normal((6, 5)))
    np.testing.assert_allclose(fused(x).detach().numpy(), bn(lin(x)).detach().numpy(), rtol=1e-12, atol=1e-12)
    with pytest.raises(AssertionError, match="To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
                                             "got linear.out_features=3 and bn.num_features=4"):
        nn.utils.fuse_linear_bn_eval(lin, _eval_bn(nn.BatchNorm1d(4).double(), 5))


def test_convert_conv_weight_memory_format_recurses():
    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Sequential(nn.ConvTranspose2d(4, 2, 2)), nn.Linear(2, 2))
    w0 = net[0].weight
    before = w0.detach().clone()
    nn.utils.convert_conv2d_weight_memory_format(net, nbgrad.channels_last)
    assert net[0].weight is w0 and w0.is_contiguous(memory_format=nbgrad.channels_last)
    assert net[1][0].weight.is_contiguous(memory_format=nbgrad.channels_last)
    np.testing.assert_array_equal(w0.detach().numpy(), before.numpy())
    c3 = nn.Conv3d(2, 2, 2)
    nn.utils.convert_conv3d_weight_memory_format(c3, nbgrad.channels_last_3d)
    assert c3.weight.is_contiguous(memory_format=nbgrad.channels_last_3d)


def test_nll_loss_2d_is_the_deprecated_name_of_nll_loss():
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead"):
        loss = nn.NLLLoss2d(reduction="sum")
    assert isinstance(loss, nn.NLLLoss)
    x = F.log_softmax(nbgrad.tensor(np.random.default_rng(5).standard_normal((2, 3, 2, 2))), dim=1)
    t = nbgrad.tensor([[[0, 1], [2, 0]], [[1, 1], [2, 2]]])
    assert loss(x, t).item() == F.nll_loss(x, t, reduction="sum").item()


def test_with_indices_pools_return_the_indices():
    x = nbgrad.tensor(np.random.default_rng(6).standard_normal((2, 3, 8)))
    for got, want in [(F.max_pool1d_with_indices(x, 2), F.max_pool1d(x, 2, return_indices=True)),
                      (F.adaptive_max_pool1d_with_indices(x, 3), F.adaptive_max_pool1d(x, 3, return_indices=True)),
                      (F.adaptive_max_pool2d_with_indices(x.reshape(2, 3, 2, 4), (2, 2)),
                       F.adaptive_max_pool2d(x.reshape(2, 3, 2, 4), (2, 2), return_indices=True))]:
        assert len(got) == 2
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
        np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.max_pool1d_with_indices(x, 2)
