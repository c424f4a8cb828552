"""nbgrad: an autograd engine with PyTorch's API whose numerical work runs in Numba kernels."""
