"""Shared memory for CPU storages: what Tensor.share_memory_ moves a storage into, and what a
process that receives a shared tensor maps.

The memory is a shared-memory file with no name: `memfd_create` (Linux; elsewhere a POSIX
`shm_open` object unlinked as soon as it is made, as PyTorch's file_descriptor strategy does),
mapped MAP_SHARED and handed to other processes as a file descriptor
(multiprocessing.reduction.DupFd: passed at start-up to a spawned child, through the sender's
resource_sharer for a queue).  Why not the alternatives:
  * an anonymous mmap(-1, MAP_SHARED) reaches forked children only: a spawned child, or a
    process that reads it from a queue, has no way to map it;
  * a named segment (multiprocessing.shared_memory.SharedMemory, /dev/shm/NAME) outlives
    every process unless someone unlinks it, and knowing when the last user let go takes a
    count kept across processes (PyTorch runs torch_shm_manager for its file_system
    strategy).  SharedMemory also registers each segment with the resource tracker, which on
    Python < 3.13 unlinks it, warning of a leak, when the process that opened it exits,
    under the others still using it; and Docker's /dev/shm is 64 MiB by default;
  * a file with no name is freed by the kernel once its last descriptor is closed and its
    last mapping unmapped, in whatever order the processes end: nothing is ever left in
    /dev/shm and the resource tracker has nothing to do.
Each shared storage keeps one descriptor open in each process that holds it (a descriptor is
what crosses to the next process), closed when the storage is garbage.  The memory is mapped
with libc's mmap through ctypes rather than the mmap module, whose objects hold a second,
duplicated descriptor each; the mapping is unmapped when the last array over it is gone (an
array from `t.numpy()` can outlive the storage).  So a process holds one descriptor per shared
storage, as under PyTorch's file_descriptor strategy: `ulimit -n` bounds how many storages a
process can hold shared at once.
"""
import ctypes
import mmap
import os
import threading
import weakref

import numpy as np

from .._size import CPU
from .._storage import _ALIASES, _SHARED, Storage, fix

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_ssize_t)
_libc.munmap.restype = ctypes.c_int
_libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_MAP_FAILED = ctypes.c_void_p(-1).value
_munmap = _libc.munmap      # (bound into _Mapping.__del__, which can run at shutdown)

# share() runs in the main thread and in a queue's feeder thread (a tensor put on a queue is
# shared as it is pickled): one storage must not be moved twice
_lock = threading.RLock()
# (st_dev, st_ino) of a shared file -> the storage over it in this process: a storage that
# comes back, or comes twice (x and then x[1:] on a queue), is the one already here, so the
# tensors rebuilt from it are views of one Storage, as they were in the sender
_BY_FILE = weakref.WeakValueDictionary()


class _Mapping:
    """One MAP_SHARED mapping of a whole file, as a NumPy array interface (its base object):
    unmapped when the last array over it is gone."""

    def __init__(self, fd, length):
        addr = _libc.mmap(None, length, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_SHARED, fd, 0)
        if addr is None or addr == _MAP_FAILED:
            err = ctypes.get_errno()
            raise OSError(err, f"mmap of {length} bytes of shared memory failed: {os.strerror(err)}")
        self.addr, self.length = addr, length
        self.__array_interface__ = {"data": (addr, False), "shape": (length,), "typestr": "|u1", "version": 3}

    def __del__(self, _munmap=_munmap):
        _munmap(self.addr, self.length)


class Block:
    """A shared-memory file this process holds open: its descriptor (closed when the block is
    garbage), identity and size in bytes."""

    __slots__ = ("fd", "key", "nbytes", "__weakref__")

    def __init__(self, fd, nbytes, key=None):
        self.fd, self.nbytes = fd, nbytes
        if key is None:
            st = os.fstat(fd)
            key = (st.st_dev, st.st_ino)
        self.key = key
        weakref.finalize(self, os.close, fd)

    def array(self, dtype, count):
        """A new mapping of the file, as `count` elements of `dtype` from its first byte."""
        # (an empty storage maps one byte: mmap refuses a length of 0)
        raw = np.asarray(_Mapping(self.fd, max(self.nbytes, 1)))
        return raw[:self.nbytes].view(dtype)[:count]


def _new_file(nbytes):
    """The descriptor of a new shared-memory file of nbytes (at least 1) zero bytes, with no name."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("nbgrad-shared", os.MFD_CLOEXEC)
    else:                       # (macOS and the BSDs: PyTorch's shm_open-then-unlink)
        import _posixshmem
        import secrets
        name = f"/nbgrad_{os.getpid()}_{secrets.token_hex(6)}"
        fd = _posixshmem.shm_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        _posixshmem.shm_unlink(name)
    try:
        os.ftruncate(fd, max(nbytes, 1))
    except BaseException:
        os.close(fd)
        raise
    return fd


def root_of(storage):
    return storage.root if storage.root is not None else storage


def share(storage):
    """Move a CPU storage's data into a new shared-memory file, in place: its buffer (and the
    buffer of every view(dtype) storage over it) becomes a mapping of the file, so every
    tensor over it sees the new memory.  Already shared: nothing happens.  A storage made
    from a NumPy array (from_numpy) leaves that array behind, as PyTorch's does."""
    root = root_of(storage)
    with _lock:
        if root in _SHARED:
            return
        old = root.buffer
        block = Block(_new_file(old.nbytes), int(old.nbytes))
        new = block.array(old.dtype, len(old))
        np.copyto(new, old)
        root.buffer = new
        for alias in list(_ALIASES.get(root, ())):
            alias.buffer = new.view(alias.buffer.dtype)
        # (a shared storage may not get a larger private buffer: the other processes would
        # not see it.  PyTorch 2.13 crashes on growing one; nbgrad raises resize_'s error)
        fix(root)
        _SHARED[root] = block
        _BY_FILE[block.key] = root


def block_of(storage):
    """The Block of a shared storage (share() it first)."""
    return _SHARED[root_of(storage)]


def storage_from_fd(fd, nbytes, dtype, count):
    """The CPU storage over a shared file that another process sent; this process now owns fd
    (kept by the storage's block, or closed when the storage is already here)."""
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino)
    with _lock:
        storage = _BY_FILE.get(key)
        if storage is not None:
            os.close(fd)
            return storage
        block = Block(fd, nbytes, key)
        storage = fix(Storage(block.array(dtype, count), CPU))
        _SHARED[storage] = block
        _BY_FILE[key] = storage
        return storage
