"""cross_entropy and nll_loss in float32 carry PyTorch's bits: the loss and the gradient, as torch
2.13 gives them (recorded here; tests import no torch).  PyTorch's cross_entropy is
nll_loss(log_softmax(x)); the fused kernel (backends/cpu/loss_kernels.py, _ce_forward_f32) follows
both: SLEEF's exp and log and vec::reduce_all's lane order of log_softmax and its gradient
(lane-dependent: recorded with 16 lanes, AVX512, and 8, ATEN_CPU_CAPABILITY=avx2), nll_loss's
cascade of partial sums in float32 and w[t] * -(g / total_weight) at each target."""
import math

import numpy as np
import pytest

import nbgrad
from nbgrad.backends.cpu import reduction as R

F = nbgrad.nn.functional

# RandomState(7): x = randn(6, 10) * 2, targets [3, 0, -100, 9, 3, 5], mean over the 5 kept rows
_CE_LOSS = 4.494198322296143
_CE_GRAD_16_LANES = [
    0.12689712643623352, 0.001699697459116578, 0.004608791787177324, -0.19024911522865295,
    0.0008909018943086267, 0.004333851393312216, 0.004308306146413088, 0.00012910574150737375,
    0.03303743526339531, 0.014343869872391224, -0.19484107196331024, 0.012787798419594765,
    0.049510594457387924, 0.010685364715754986, 0.011090509593486786, 0.0009852153016254306,
    0.05463903769850731, 0.0230888519436121, 0.03120279870927334, 0.0008508997852914035, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0006922738975845277, 0.026108846068382263, 0.00011249833187321201,
    0.008919077925384045, 4.921803702018224e-05, 0.0008130317437462509, 0.0002749665582086891,
    0.056899409741163254, 0.10454896837472916, -0.1984182894229889, 0.010406695306301117,
    0.0013512229779735208, 0.006032167933881283, -0.19957031309604645, 6.356476660585031e-05,
    5.259081444819458e-05, 0.0041671255603432655, 0.173499196767807, 0.0033194737043231726,
    0.0006782589480280876, 0.138612762093544, 0.004865892231464386, 0.0037080806214362383,
    0.005016847513616085, 0.002323074731975794, -0.1983698159456253, 0.00017165287863463163,
    0.008255623281002045, 0.0025045149959623814, 0.03291137143969536]
_CE_GRAD_8_LANES = [
    0.12689714133739471, 0.0016996983904391527, 0.004608791787177324, -0.19024911522865295,
    0.0008909022435545921, 0.004333851393312216, 0.004308306146413088, 0.00012910579971503466,
    0.033037442713975906, 0.014343869872391224, -0.19484107196331024, 0.012787798419594765,
    0.049510594457387924, 0.010685364715754986, 0.011090509593486786, 0.0009852153016254306,
    0.05463903769850731, 0.0230888519436121, 0.03120279870927334, 0.0008508997852914035, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0006922742468304932, 0.026108846068382263, 0.00011249833187321201,
    0.008919077925384045, 4.921803702018224e-05, 0.0008130322094075382, 0.0002749665582086891,
    0.056899409741163254, 0.10454896837472916, -0.1984182894229889, 0.01040669810026884,
    0.0013512229779735208, 0.006032169330865145, -0.19957031309604645, 6.356476660585031e-05,
    5.259081444819458e-05, 0.00416712649166584, 0.1734992116689682, 0.0033194737043231726,
    0.0006782589480280876, 0.1386127471923828, 0.004865892231464386, 0.0037080806214362383,
    0.005016846116632223, 0.002323074731975794, -0.1983698159456253, 0.00017165287863463163,
    0.008255623281002045, 0.0025045149959623814, 0.03291136771440506]


@pytest.mark.acceleration           # (cross_entropy_forward/backward: the composed fallback's orders differ)
@pytest.mark.parametrize("lanes, grad", [(16, _CE_GRAD_16_LANES), (8, _CE_GRAD_8_LANES)])
def test_float32_cross_entropy_is_pytorchs_to_the_bit(monkeypatch, lanes, grad):
    monkeypatch.setattr(R, "_lanes", [lanes])
    rs = np.random.RandomState(7)
    x = nbgrad.tensor((rs.randn(6, 10) * 2).astype(np.float32), requires_grad=True)
    loss = F.cross_entropy(x, nbgrad.tensor([3, 0, -100, 9, 3, 5]))
    loss.backward()
    assert loss.item() == _CE_LOSS
    assert x.grad.reshape(-1).tolist() == grad
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"


# RandomState(8): x = randn(40, 3), targets randint(0, 3, 40), weight uniform(0.5, 2, 3); the
# loss's backward with 1.7: 40 rows, so the cascade's second level takes part
_NLL_LOSS = -0.23519352078437805
_NLL_GRAD_AT_TARGETS = [
    -0.05191221088171005, -0.05486558750271797, -0.05486558750271797, -0.05191221088171005,
    -0.05191221088171005, -0.05191221088171005, -0.05486558750271797, -0.019771026447415352,
    -0.05191221088171005, -0.019771026447415352, -0.05191221088171005, -0.05486558750271797,
    -0.05486558750271797, -0.05486558750271797, -0.05191221088171005, -0.05486558750271797,
    -0.019771026447415352, -0.019771026447415352, -0.019771026447415352, -0.019771026447415352,
    -0.05191221088171005, -0.05191221088171005, -0.05486558750271797, -0.05486558750271797,
    -0.019771026447415352, -0.019771026447415352, -0.019771026447415352, -0.05486558750271797,
    -0.019771026447415352, -0.05191221088171005, -0.05486558750271797, -0.019771026447415352,
    -0.05486558750271797, -0.05191221088171005, -0.05486558750271797, -0.019771026447415352,
    -0.05191221088171005, -0.05486558750271797, -0.05191221088171005, -0.019771026447415352]


@pytest.mark.acceleration           # (nll_forward: the composed fallback sums in another order)
def test_float32_weighted_nll_loss_is_pytorchs_to_the_bit():
    rs = np.random.RandomState(8)
    xv = rs.randn(40, 3).astype(np.float32)
    t = rs.randint(0, 3, 40)
    w = rs.uniform(0.5, 2, 3).astype(np.float32)
    x = nbgrad.tensor(xv, requires_grad=True)
    loss = F.nll_loss(x, nbgrad.tensor(t), nbgrad.tensor(w))
    loss.backward(nbgrad.tensor(1.7))
    assert loss.item() == _NLL_LOSS
    g = x.grad.numpy()
    assert g[np.arange(40), t].tolist() == _NLL_GRAD_AT_TARGETS
    g[np.arange(40), t] = 0
    assert not g.any()
    # (a sequential float64 sum, the kernel's order before, rounds to another float32 here)
    assert np.float32(-(w[t].astype(np.float64) * xv[np.arange(40), t]).sum() / w[t].astype(np.float64).sum()) \
        != np.float32(_NLL_LOSS)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_an_all_ignored_batch_has_pytorchs_loss_and_a_zero_gradient(reduction):
    # PyTorch writes w[t] * -(g / total_weight) at the targets only: with no target the
    # gradient stays zero (a pattern times the inf scale would make NaNs)
    x = nbgrad.tensor(np.random.RandomState(1).randn(6, 4).astype(np.float32), requires_grad=True)
    loss = F.cross_entropy(x, nbgrad.full((6,), -100), reduction=reduction)
    loss.backward()
    assert math.isnan(loss.item()) if reduction == "mean" else loss.item() == 0.0
    assert not x.grad.numpy().any() and not np.isnan(x.grad.numpy()).any()


# RandomState(12): x, y = randn(7, 9) each; mse_loss (mean), backward with 1.3
_MSE_LOSS = 1.6900038719177246
_MSE_GRAD = [
    -0.00845289882272482, -0.051070861518383026, 0.0008138426346704364, -0.007088102865964174,
    -0.011393295601010323, -0.015206391923129559, 0.04187604412436485, -0.0006173838628455997,
    -0.054435089230537415, 0.060422834008932114, 0.04497890546917915, -0.04121936857700348,
    -0.02230663225054741, -0.031108131632208824, 0.06370902061462402, 0.018557684496045113,
    0.06668441742658615, 0.01756114512681961, 0.02724316343665123, 0.05815431475639343,
    0.010073956102132797, -0.06974498182535172, 0.06775528937578201, 0.10808669775724411,
    -0.053688760846853256, -0.07209768891334534, -0.08410710096359253, -0.057373933494091034,
    -0.039590634405612946, 0.0017105498118326068, -0.05493158847093582, -0.012859692797064781,
    0.0488697774708271, -0.05184841528534889, 0.049212440848350525, 0.025163600221276283,
    -0.049322593957185745, 0.026899004355072975, 0.05075616389513016, -0.02863631397485733,
    -0.020298060029745102, 0.005981667898595333, 0.07845290005207062, 0.05865836143493652,
    0.018352169543504715, -0.1496838480234146, 0.02109554409980774, 0.030371172353625298,
    -0.10565412044525146, -0.03428356349468231, -0.04125145450234413, 0.01719808205962181,
    -0.020915674045681953, 0.14411182701587677, 0.0014525484293699265, 0.05086873471736908,
    0.05919580161571503, -0.09240753203630447, -0.058246590197086334, -0.007469567935913801,
    0.049101728945970535, 0.042175378650426865, -0.017943497747182846]


def test_float32_mse_loss_is_pytorchs_to_the_bit():
    # PyTorch's mse_kernel (d = x - y; d * d) and its mean kernel; backward its
    # mse_backward_cpu_kernel, float32(2 / n) * (x - y) * g, the target's gradient the negation
    rs = np.random.RandomState(12)
    x = nbgrad.tensor(rs.randn(7, 9).astype(np.float32), requires_grad=True)
    y = nbgrad.tensor(rs.randn(7, 9).astype(np.float32), requires_grad=True)
    loss = F.mse_loss(x, y)
    loss.backward(nbgrad.tensor(1.3))
    assert loss.item() == _MSE_LOSS
    assert x.grad.reshape(-1).tolist() == _MSE_GRAD
    assert (y.grad == -x.grad).all().item()
    # (2 * (x - y) * (1.3 / 63) in float64, the fused kernel's gradient before, rounds some
    # elements to other float32s)
    d = x.detach().numpy().astype(np.float64) - y.detach().numpy().astype(np.float64)
    assert (np.float32(2 * d * (1.3 / 63)).reshape(-1) != np.array(_MSE_GRAD, np.float32)).any()
