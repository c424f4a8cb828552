"""nn.SyncBatchNorm: batch normalization whose training statistics are those of the whole
batch split over the processes of a group (nbgrad.distributed, over MPI), and
convert_sync_batchnorm, which swaps a model's BatchNorm*d layers for it; as PyTorch's.

In training, in a group of more than one process, every process's output and input
gradient are those of one BatchNorm over the concatenated batch (the op:
nbgrad/ops/sync_batch_norm.py); the running statistics move toward the global mean and
unbiased variance, identically on every process.  The weight and bias gradients are each
process's share, as in PyTorch (DistributedDataParallel averages them).  In eval mode,
without an initialized process group, or in a group of one it is plain BatchNorm
(F.batch_norm), as PyTorch falls back.

Departure from PyTorch: PyTorch refuses inputs that are not on a GPU ("SyncBatchNorm
expected input tensor to be on GPU or XPU or privateuseone"); nbgrad's processes talk over
MPI from host memory, so CPU (and CUDA) inputs are both synchronized.
"""
from ... import distributed as dist
from ...ops.sync_batch_norm import sync_batch_norm
from .. import functional as F
from .batchnorm import _BatchNorm, _InstanceNorm


class SyncBatchNorm(_BatchNorm):
    """Batch normalization over an (N, C, +) input with statistics over every process of
    `process_group` (default: the whole world) while training.

    Every process of the group must call forward in the same order (each call gathers
    the statistics, and backward sums the gradients' statistics, over the group).
    Runs on CPU tensors too (PyTorch: GPUs only), see the module's docstring."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            # momentum=None: a cumulative moving average
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        # buffers are updated only when tracked and training, read only in eval
        keep = not self.training or self.track_running_stats
        running_mean = self.running_mean if keep else None
        running_var = self.running_var if keep else None
        # no synchronization in eval mode (even with batch statistics), as in PyTorch
        need_sync = bn_training and self.training and dist.is_initialized()
        if need_sync:
            group = self.process_group if self.process_group else dist.group.WORLD
            world_size = dist.get_world_size(group)
            need_sync = world_size > 1
        if not need_sync:
            return F.batch_norm(input, running_mean, running_var, self.weight, self.bias, bn_training, factor,
                                self.eps)
        return sync_batch_norm(input, self.weight, self.bias, running_mean, running_var, self.eps, factor, group,
                               world_size)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`module` with every BatchNorm*d layer in it (recursively) replaced by a
        SyncBatchNorm holding the same parameters and buffers (the same tensors) and
        training flag; a BatchNorm*d `module` itself comes back as a new SyncBatchNorm.
        InstanceNorm layers are left as they are (PyTorch's are no _BatchNorm)."""
        module_output = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                          module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                module_output.weight = module.weight
                module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output
