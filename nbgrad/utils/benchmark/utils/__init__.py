"""nbgrad.utils.benchmark.utils: the modules behind nbgrad.utils.benchmark (common, timer,
compare), laid out as PyTorch's torch.utils.benchmark.utils so that their qualified names
(nbgrad.utils.benchmark.utils.common.Measurement, ...) match PyTorch's."""
