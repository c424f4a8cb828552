"""Storage (one flat buffer shared by every alias) and the version counter autograd checks."""
import weakref

# Storages whose buffer may not be replaced by a larger one (resize_): memory nbgrad did not
# allocate (from_numpy, DLPack, __cuda_array_interface__: PyTorch's non-resizable storages),
# and a buffer another storage reinterprets (view(dtype)), whose alias a new buffer would break.
_FIXED = weakref.WeakSet()


def fix(storage):
    """Mark storage as not resizable; returns it."""
    _FIXED.add(storage)
    return storage


def is_resizable(storage):
    return storage not in _FIXED and storage.root is None


# Shared memory (share_memory_, nbgrad/multiprocessing/_shm.py): each shared root storage ->
# the block holding its memory; and each root -> the storages that reinterpret it
# (view(dtype)), whose buffers move with the root's when it is shared
_SHARED = weakref.WeakKeyDictionary()
_ALIASES = weakref.WeakKeyDictionary()


class Storage:
    """A 1-D buffer (a numpy array on the CPU) and its device."""

    __slots__ = ("buffer", "device", "root", "__weakref__")
    # (Tensor._from_buffer, which runs per op, sets these three without calling __init__:
    # a new slot is set there too)

    def __init__(self, buffer, device, root=None):
        self.buffer = buffer
        self.device = device
        # the Storage this one reinterprets from its first byte (view(dtype)), else None:
        # two storages alias exactly when their roots are one
        self.root = root
        if root is not None:
            _ALIASES.setdefault(root, weakref.WeakSet()).add(self)

    def __len__(self):
        return len(self.buffer)

    def nbytes(self):
        return int(self.buffer.nbytes)

    def data_ptr(self):
        if self.device.type == "cpu":
            return self.buffer.ctypes.data
        return self.buffer.__cuda_array_interface__["data"][0]

    def share_memory_(self):
        """Move the data into shared memory that other processes can map (in place: every
        tensor over this storage, and every view(dtype) of it, sees the new memory; how and
        why: nbgrad/multiprocessing/_shm.py).  A no-op when already shared, and for CUDA
        storages (PyTorch's).  Returns self."""
        if self.device.type == "cpu":
            from .multiprocessing import _shm
            _shm.share(self)
        return self

    def is_shared(self):
        """True once share_memory_ moved the data into shared memory (or it was received from
        another process); a CUDA storage always answers True, as PyTorch's."""
        if self.device.type == "cuda":
            return True
        return (self.root if self.root is not None else self) in _SHARED


class VersionCounter:
    """Counts in-place changes.  Shared by a tensor, its views and `detach()`;
    `t.data` gets a fresh one, which is why its changes escape autograd's checks."""

    __slots__ = ("value",)     # (set without __init__ by Tensor._from_buffer too)

    def __init__(self):
        self.value = 0
