"""Converting convolution weights to a memory format (PyTorch's
torch.nn.utils.memory_format): channels_last weights for channels_last inputs."""

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, classes):
    if isinstance(module, classes):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, classes)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """The weights of module's Conv2d / ConvTranspose2d layers (recursively) laid out in
    memory_format; returns module."""
    from ..modules.conv import Conv2d, ConvTranspose2d
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """The weights of module's Conv3d / ConvTranspose3d layers (recursively) laid out in
    memory_format; returns module."""
    from ..modules.conv import Conv3d, ConvTranspose3d
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
