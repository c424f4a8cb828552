"""nbgrad.func: PyTorch's function transforms (torch.func) over nbgrad's autograd engine.

grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, linearize (_transforms.py), vmap
(_vmap.py: a loop over the mapped dimension, not batching rules), functional_call and
stack_module_state (_functional_call.py).  Each module's docstring says where it departs from
PyTorch.  Not here: functionalize, replace_all_batch_norm_modules_, rearrange, debug_unwrap
(nbgrad has no functional tensors, batching rules or wrapper tensors for them to act on).
"""
from ._transforms import grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, linearize
from ._vmap import vmap
from ._functional_call import functional_call, stack_module_state

__all__ = ["grad", "grad_and_value", "vmap", "hessian", "jacfwd", "jacrev", "jvp", "linearize", "vjp",
           "functional_call", "stack_module_state"]


def debug_unwrap(tensor, *, recurse=True):
    """The tensor under a transform's wrappers: nbgrad's transforms give f plain tensors, so
    the tensor itself."""
    return tensor


__all__.append("debug_unwrap")
