"""How tensors and storages cross a process boundary through multiprocessing's ForkingPickler
(what pickles a spawned Process's arguments, and every Queue, SimpleQueue, Pipe and Pool
message): by handle, as PyTorch's torch.multiprocessing.reductions.  A CPU storage is moved
into shared memory if it is not there yet (Storage.share_memory_: the sender's own tensors
become shared, as PyTorch's do when put on a queue) and sent as a descriptor of its file; the
receiver maps the same memory, so writes on either side are seen on the other.  A tensor is
sent as its storage plus its geometry, dtype and requires_grad (not its .grad, hooks or
autograd history); a Parameter arrives as a Parameter.

Registered on ForkingPickler (for the exact types Tensor, Parameter and Storage, as PyTorch
registers its classes) when nbgrad.multiprocessing is imported, and by the first
share_memory_; plain pickle, nbgrad.save and copy.deepcopy still copy by value.

Departure: a CUDA tensor or storage raises RuntimeError (PyTorch sends it by CUDA IPC;
nbgrad has no CUDA IPC)."""
from multiprocessing import reduction
# DupFd's first use imports multiprocessing.resource_sharer: done here, not in a Queue's feeder
# thread, where a fork at that moment would leave the child waiting forever on that module's
# import lock (seen: a forked child hung in q.get while the parent's first put pickled)
import multiprocessing.resource_sharer  # noqa: F401,E402

from .. import _dtype as D
from .._size import Size
from .._storage import Storage, fix
from .._tensor import Tensor
from . import _shm

_NON_LEAF = ("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not support "
             "crossing process boundaries.  If you just want to transfer the data, call detach() on the tensor "
             "before serializing (e.g., putting it on the queue).")
_NO_CUDA_IPC = ("nbgrad.multiprocessing cannot send a CUDA tensor to another process (CUDA IPC is not "
                "supported): send tensor.cpu(), or share a CPU tensor")


def reduce_storage(storage):
    if storage.device.type != "cpu":
        raise RuntimeError(_NO_CUDA_IPC)
    if storage.root is not None:       # a view(dtype) storage: its root, reinterpreted again there
        return (rebuild_alias_storage, (storage.root, storage.buffer.dtype, len(storage.buffer)))
    storage.share_memory_()
    block = _shm.block_of(storage)
    buf = storage.buffer
    return (rebuild_storage_fd, (reduction.DupFd(block.fd), block.nbytes, buf.dtype, len(buf)))


def rebuild_storage_fd(dup_fd, nbytes, dtype, count):
    return _shm.storage_from_fd(dup_fd.detach(), nbytes, dtype, count)


def rebuild_alias_storage(root, dtype, count):
    return Storage(root.buffer.view(dtype)[:count], root.device, fix(root))


def reduce_tensor(tensor):
    if tensor._requires_grad and tensor._grad_fn is not None:
        raise RuntimeError(_NON_LEAF)
    if tensor._storage.device.type != "cpu":
        raise RuntimeError(_NO_CUDA_IPC)
    # (the storage is pickled as an object of its own: the views of one storage sent together
    # arrive as views of one storage)
    return (rebuild_tensor, (type(tensor), tensor._storage, tensor._offset, tuple(tensor._shape),
                             tuple(tensor._stride), tensor._dtype.name, tensor._requires_grad))


def rebuild_tensor(cls, storage, offset, shape, stride, dtype_name, requires_grad):
    t = Tensor._make(storage, Size(shape), stride, offset, D.to_dtype(dtype_name))
    from ..nn.parameter import Parameter
    if cls is Parameter:
        # (requires_grad through the constructor, as PyTorch's rebuild_tensor: an integer
        # Parameter must arrive with requires_grad=False)
        return Parameter(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def init_reductions():
    """Register the reducers on multiprocessing's ForkingPickler (idempotent)."""
    from ..nn.parameter import Parameter
    reduction.register(Storage, reduce_storage)
    reduction.register(Tensor, reduce_tensor)
    reduction.register(Parameter, reduce_tensor)
