"""parameters_to_vector and vector_to_parameters, as torch.nn.utils's."""
from ..._tensor import Tensor


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one vector (differentiable)."""
    from ...ops.indexing import cat
    params = list(parameters)
    device = params[0].device if params else None
    for p in params:
        if p.device != device:
            raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return cat([p.view(-1) for p in params])


def vector_to_parameters(vec, parameters):
    """Give each parameter (via .data) its slice of vec, in order."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
