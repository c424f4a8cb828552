"""PyTorch's user warnings: the same category and words (recorded in PyTorch 2.13, less the
"(Triggered internally at ...)" tail of its C++ warnings), at the same calls, and none where
PyTorch gives none."""
import warnings

import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad import _warnings

_NON_LEAF = ("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't "
             "be populated during autograd.backward(). If you indeed want the .grad field to be populated for a "
             "non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
             "mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for "
             "more information.")
_DOF = ("{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor (input numel "
        "divided by output numel).")


def _x():
    return nbgrad.ones(3, requires_grad=True)


CASES = [
    ("tensor(tensor)", lambda: nbgrad.tensor(nbgrad.ones(2)), UserWarning,
     "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
     "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."),
    ("non-leaf .grad", lambda: (_x() * 2).grad, UserWarning, _NON_LEAF),
    ("softmax without dim", lambda: F.softmax(nbgrad.ones(2, 3)), UserWarning,
     "Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X as an argument."),
    ("log_softmax without dim", lambda: F.log_softmax(nbgrad.ones(3)), UserWarning,
     "Implicit dimension choice for log_softmax has been deprecated. Change the call to include dim=X as an "
     "argument."),
    ("size_average", lambda: F.mse_loss(nbgrad.ones(2), nbgrad.zeros(2), size_average=True), UserWarning,
     "size_average and reduce args will be deprecated, please use reduction='mean' instead."),
    ("reduce", lambda: F.mse_loss(nbgrad.ones(2), nbgrad.zeros(2), reduce=False), UserWarning,
     "size_average and reduce args will be deprecated, please use reduction='none' instead."),
    ("std without dof", lambda: nbgrad.ones(1).std(), UserWarning, _DOF.format("std")),
    ("var without dof", lambda: nbgrad.ones(1, 3).var(0), UserWarning, _DOF.format("var")),
    ("uint8 mask", lambda: nbgrad.ones(3)[nbgrad.tensor([1, 0, 1], dtype=nbgrad.uint8)], UserWarning,
     "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."),
    ("nn.init.normal", lambda: nbgrad.nn.init.normal(nbgrad.ones(2)), FutureWarning,
     "`nn.init.normal` is now deprecated in favor of `nn.init.normal_`."),
    ("nn.init.xavier_uniform", lambda: nbgrad.nn.init.xavier_uniform(nbgrad.ones(2, 2)), FutureWarning,
     "`nn.init.xavier_uniform` is now deprecated in favor of `nn.init.xavier_uniform_`."),
    ("clip_grad_norm", lambda: nbgrad.nn.utils.clip_grad_norm(nbgrad.nn.Linear(2, 2).parameters(), 1.0),
     FutureWarning, "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`."),
]


@pytest.mark.parametrize("name, call, category, message", CASES, ids=[c[0] for c in CASES])
def test_pytorchs_warning_each_call(name, call, category, message):
    for _ in range(2):                 # (these warn on every call)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            call()
        assert [(w.category, str(w.message)) for w in seen] == [(category, message)]


def test_T_of_a_tensor_not_2d_warns_once(monkeypatch):
    monkeypatch.setattr(_warnings, "_given", set())
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        nbgrad.ones(2, 3).T
        nbgrad.tensor(1.0).T
        assert not seen
        assert nbgrad.ones(2, 3, 4).T.shape == (4, 3, 2)
        nbgrad.ones(3).T
    assert len(seen) == 1 and seen[0].category is UserWarning
    assert str(seen[0].message).startswith("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                                           "shape is deprecated")


def test_no_warning_where_pytorch_gives_none():
    x = _x()
    y = x * 2
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is None and y.grad is None          # a leaf; a non-leaf that retains its grad
        nbgrad.tensor([1.0, 2.0])
        F.softmax(nbgrad.ones(2, 3), dim=1)
        nbgrad.ones(3).std()
        nbgrad.ones(3)[nbgrad.tensor([True, False, True])]
        F.mse_loss(nbgrad.ones(2), nbgrad.zeros(2), reduction="sum")
        nbgrad.ones(3).detach().grad
