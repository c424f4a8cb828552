"""torch.nn.utils.rnn: PackedSequence and the functions that make and undo one (pack_padded_sequence,
pad_packed_sequence, pack_sequence, unpack_sequence), pad_sequence / unpad_sequence and
invert_permutation, with PyTorch's layouts, checks, messages and graph nodes.

A PackedSequence holds the steps of B sequences sorted by decreasing length, time-major: `data` is
(sum of lengths, *) with the batch_sizes[t] sequences still running at step t stacked at each step;
`batch_sizes` is a CPU int64 tensor; `sorted_indices` / `unsorted_indices` (when the input was
not sorted) map between the caller's batch order and the sorted one. nn.RNN / LSTM / GRU accept one.

Packing is ATen's _pack_padded_sequence: one node, PackPaddedSequenceBackward0, whose backward
writes the gradient into a zero padded tensor; padding is ATen's _pad_packed_sequence, copies
into a filled tensor, so its node is the copies' CopySlices (TransposeBackward0 for batch_first,
IndexSelectBackward0 when unsorted), as PyTorch shows.

Departures from PyTorch:
- pack_padded_sequence refuses a length longer than the input's padded length (RuntimeError);
  PyTorch makes a PackedSequence whose batch_sizes promise more rows than its data holds.
- unpad_sequence transposes its argument out of place; PyTorch's transpose_ changes the caller's
  tensor (and refuses a leaf that requires grad).
- PackedSequence.pin_memory calls Tensor.pin_memory, which nbgrad's tensors do not have.
"""
from collections.abc import Iterable
from typing import NamedTuple, Optional

from ... import _creation as C
from ... import _dtype as D
from ..._tensor import Tensor
from ...autograd.node import Node

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """The data and batch sizes of a packed batch of sequences (a named tuple: data, batch_sizes,
    sorted_indices, unsorted_indices). Made by pack_padded_sequence / pack_sequence, not by hand."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes, _bind(self.sorted_indices, lambda t: t.pin_memory()),
                          _bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """data.to(*args, **kwargs); the indices follow data's device, batch_sizes stays on the CPU.
        self when data is unchanged."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        extra = {k: kwargs[k] for k in ("non_blocking", "memory_format") if k in kwargs}

        def call_to(t):
            return t.to(data.device, **extra)
        return type(self)(data, self.batch_sizes, _bind(self.sorted_indices, call_to),
                          _bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        ex = C.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        ex = C.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=D.float64)

    def float(self):
        return self.to(dtype=D.float32)

    def half(self):
        return self.to(dtype=D.float16)

    def long(self):
        return self.to(dtype=D.int64)

    def int(self):
        return self.to(dtype=D.int32)

    def short(self):
        return self.to(dtype=D.int16)

    def char(self):
        return self.to(dtype=D.int8)

    def byte(self):
        return self.to(dtype=D.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    # PackedSequence((data, batch_sizes), sorted_indices=...)
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The inverse of a 1-D permutation (None for None)."""
    if permutation is None:
        return None
    output = C.empty(tuple(permutation.shape), dtype=permutation.dtype, device=permutation.device)
    output.scatter_(0, permutation, C.arange(0, permutation.numel(), device=permutation.device))
    return output


# -- the two kernels of ATen's PackedSequence.cpp ------------------------------------------------------------
def _check_long_tensor(t):
    # ATen's checkLongTensor (its text says 'lengths' for batch_sizes too)
    if t.dim() != 1 or t.device.type != "cpu" or t.dtype is not D.int64:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {t.dim()}D {t.device} "
                           f"{D.scalar_type_name(t.dtype)} tensor")


def _write_padded(out, data, batch_sizes):
    """out[t, :batch_sizes[t]] = the rows of step t of the packed `data`, out (T, B, *) time-major;
    one copy per run of steps with the same batch size (ATen's loop). Returns the lengths, in
    the sorted batch order."""
    rest = tuple(data.shape[1:])
    n = len(batch_sizes)
    lengths = [0] * (batch_sizes[0] if n else 0)
    k = len(lengths) - 1
    offset, prev_b, prev_i = 0, (batch_sizes[0] if n else 0), 0
    for i in range(n + 1):
        b = batch_sizes[i] if i != n else 0
        if b != prev_b:
            rows = prev_b * (i - prev_i)
            out[prev_i:i, :prev_b].copy_(data[offset:offset + rows].view((i - prev_i, prev_b) + rest))
            offset += rows
            prev_i = i
        for _ in range(prev_b - b):         # sequences that ended before step i
            lengths[k] = i
            k -= 1
        prev_b = b
    return lengths


class PackPaddedSequenceBackward0(Node):
    """_pack_padded_sequence_backward: the gradient written into zeros of the input's shape."""

    def backward(self, g):
        shape = list(self.input_shape)
        if self.batch_first:
            shape[0], shape[1] = shape[1], shape[0]
        grad_input = C.zeros(tuple(shape), dtype=g.dtype, device=g.device)
        _write_padded(grad_input, g, self.batch_sizes)
        return grad_input.transpose(0, 1) if self.batch_first else grad_input


def _pack_padded(input, lengths, batch_first):
    """ATen's _pack_padded_sequence: (data, batch_sizes) of a time-major (or batch_first) input
    whose batch is sorted by decreasing `lengths` (a CPU int64 tensor)."""
    from ...ops.indexing import cat
    from ...ops.more import recorded
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    x = input.transpose(0, 1) if batch_first else input
    _check_long_tensor(lengths)
    batch = x.size(1)
    L = lengths.tolist()
    if len(L) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(L)} "
                           f"(batch_size={batch})")
    if L[batch - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    for i in range(batch - 1):
        if L[batch - 1 - i] > L[batch - 2 - i]:
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
    if L[0] > x.shape[0]:
        # PyTorch packs fewer rows than its batch_sizes count here; refused (module docstring)
        raise RuntimeError(f"Expected all lengths to be at most the padded sequence length {x.shape[0]}, but found "
                           f"a length of {L[0]}")
    step_shape = (-1,) + tuple(x.shape[2:])
    runs, batch_sizes, prev = [], [], 0
    for i in range(batch):                      # from the shortest sequence up
        length = L[batch - 1 - i]
        if length > prev:
            runs.append((prev, length, batch - i))
            batch_sizes += [batch - i] * (length - prev)
            prev = length

    def compute():
        return cat([x[lo:hi, :b].contiguous().view(step_shape) for lo, hi, b in runs])
    data = recorded(PackPaddedSequenceBackward0, input, compute, input_shape=tuple(input.shape),
                    batch_sizes=batch_sizes, batch_first=batch_first)
    return data, C.tensor(batch_sizes, dtype=D.int64)


def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length):
    """ATen's _pad_packed_sequence: (padded, lengths) in the sorted batch order."""
    _check_long_tensor(batch_sizes)
    bs = batch_sizes.tolist()
    max_batch = bs[0]
    out = C.full((total_length, max_batch) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
                 device=data.device)
    lengths = _write_padded(out, data, bs)
    if batch_first:
        out = out.transpose(0, 1)
    return out, C.tensor(lengths, dtype=D.int64)


# -- the public functions --------------------------------------------------------------------------------
def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded (T, B, *) (or (B, T, *) with batch_first) batch of sequences of the given
    lengths (a list or a CPU tensor). enforce_sorted: the lengths must decrease; otherwise the
    batch is sorted here and the PackedSequence keeps the permutation."""
    if not isinstance(lengths, Tensor):
        lengths = C.as_tensor(lengths, dtype=D.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=D.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        from ...ops.sorting import sort
        lengths, sorted_indices = sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch of a PackedSequence and each sequence's length, in the batch order the
    sequences were packed from; total_length pads the time dimension further."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first, padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        return padded.index_select(0 if batch_first else 1, unsorted_indices), lengths[unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shapes (L_i, *) into (max L, B, *) (or (B, max L, *)), padding with
    padding_value on the right (or the left)."""
    from ...ops.indexing import cat, stack
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        pad = longest - s.shape[0]
        if pad:
            fill = C.full((pad,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = cat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    return stack(padded, 1 if not batch_first else 0)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences padded_sequences[:lengths[i], i] (batch_first: [i, :lengths[i]])."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)     # PyTorch: transpose_ (module docstring)
    max_length = padded_sequences.shape[1]
    idx = C.arange(max_length, device=lengths.device)
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    """pack_padded_sequence(pad_sequence(sequences), their lengths, enforce_sorted=enforce_sorted)."""
    lengths = C.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of the sequences a PackedSequence holds, in their original order."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
