"""PyTorch's user warnings, with its words (less the "(Triggered internally at ...)" tail its
C++ warnings carry).  Each warning site calls warn(); a `once` warning (PyTorch's
TORCH_WARN_ONCE) is given once a process."""
import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_EXAMPLES = os.path.join(_PACKAGE, "examples") + os.sep

MESSAGES = {
    "tensor_of_tensor": ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                         "or sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."),
    "non_leaf_grad": ("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                      "won't be populated during autograd.backward(). If you indeed want the .grad field to be "
                      "populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the "
                      "non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
                      "github.com/pytorch/pytorch/pull/30531 for more information."),
    "implicit_softmax_dim": ("Implicit dimension choice for {name} has been deprecated. Change the call to include "
                             "dim=X as an argument."),
    "legacy_reduction": "size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
    "T_not_2d": ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it "
                 "will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
                 "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor."),
    "no_dof": ("{op}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
               "(input numel divided by output numel)."),
    "cov_no_dof": ("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                   "observations."),
    "uint8_index": "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
    "deprecated_alias": "`{old}` is now deprecated in favor of `{new}`.",
    "gumbel_eps": "`eps` parameter is deprecated and has no effect.",
}
ONCE = frozenset({"T_not_2d"})
_given = set()


def warn_user(message, category=None, stacklevel=1):
    """warnings.warn, pointed at the frame `stacklevel` names (1: the caller), or, where that
    frame is nbgrad's own code, at the first frame outside nbgrad: the user's line, which is
    where PyTorch's C++ warnings point.  (A public function's argument wrapper, or a module
    calling a functional, sits between the user and the warning site: a fixed stacklevel
    would name nbgrad's file.)"""
    frame = sys._getframe(1)
    level = 1
    while level < stacklevel and frame.f_back is not None:
        frame = frame.f_back
        level += 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE) and \
            not frame.f_code.co_filename.startswith(_EXAMPLES):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level + 1)


def warn(key, category=UserWarning, stacklevel=3, **fields):
    if key in ONCE:
        if not _first_time(key):
            return
    warn_user(MESSAGES[key].format(**fields), category, stacklevel=stacklevel)


def warn_once(key, message, category=UserWarning, stacklevel=3):
    """A PyTorch TORCH_WARN_ONCE whose words live at its call site (deprecations)."""
    if _first_time(key):
        warn_user(message, category, stacklevel=stacklevel)


def _first_time(key):
    """Whether a once-a-process warning is due: the first time, or every time while
    nbgrad.set_warn_always(True) is on (PyTorch's rule for its TORCH_WARN_ONCE)."""
    from . import _settings
    if key in _given and not _settings.is_warn_always_enabled():
        return False
    _given.add(key)
    return True
