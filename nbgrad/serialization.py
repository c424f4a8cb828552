"""nbgrad.save / nbgrad.load: checkpoints in the safetensors format, which never executes code.

A file holds every tensor of the object under a flat name (nested keys joined
with ".", so a model's state dict keeps PyTorch's names and a flat dict of
tensors loads in PyTorch with `safetensors.torch.load_file`, and back).  The
object's shape around the tensors (dicts, lists, numbers, strings, None: what
an optimizer's state dict holds) goes into the header's `__metadata__` as
JSON, with a SHA-256 of the tensor bytes so that a corrupted file is refused
rather than read as garbage.  A save goes to a temporary file in the same
directory, which then replaces the target, so an interrupted save leaves the
previous checkpoint intact.

bfloat16 tensors are stored with safetensors' "BF16" dtype (their 16-bit words), as
PyTorch's safetensors writes them; in memory those words are uint16 arrays, which no other
nbgrad dtype makes, so a uint16 array here always means bfloat16.
"""
import hashlib
import json
import os
import struct
import tempfile
from collections import OrderedDict

import numpy as np

from ._tensor import Tensor

_FORMAT = "nbgrad.format"
_STRUCTURE = "nbgrad.structure"
_DIGEST = "nbgrad.sha256"
_HEADER_LIMIT = 100_000_000   # the safetensors format's own limit on the header size


def _safetensors_numpy():
    try:
        import safetensors.numpy as stnp
    except ImportError as e:   # a runtime dependency; say so plainly if it is missing
        raise ImportError("nbgrad.save/nbgrad.load need the 'safetensors' package: pip install safetensors") from e
    return stnp


# -- encoding ------------------------------------------------------------------------
def _encode(obj, path, arrays):
    """The JSON structure of obj; its tensors go into `arrays` under their dotted path."""
    if isinstance(obj, Tensor):
        name = path or "tensor"
        if name in arrays:
            k = 1
            while f"{name}#{k}" in arrays:
                k += 1
            name = f"{name}#{k}"
        if obj.dtype.is_floating_point and obj.dtype.np == np.uint16:      # bfloat16: its words
            from .backends._bfloat16 import narrow_host
            values = obj.detach()._host_array()
            arrays[name] = narrow_host(values).reshape(values.shape)
        else:
            arrays[name] = np.array(obj.detach()._host_array(), order="C", copy=True)   # keeps 0-d shapes
        return {"T": name}
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj)
    if isinstance(obj, dict):
        items = []
        for key, value in obj.items():
            if not (key is None or isinstance(key, (str, int, float, bool))):
                raise TypeError(f"nbgrad.save: dict keys must be str, int, float, bool or None, got "
                                f"{type(key).__name__}")
            sub = f"{path}.{key}" if path else str(key)
            items.append([key, _encode(value, sub, arrays)])
        return {"O" if isinstance(obj, OrderedDict) else "D": items}
    if isinstance(obj, (list, tuple)):
        tag = "L" if isinstance(obj, list) else "U"
        return {tag: [_encode(v, f"{path}.{i}" if path else str(i), arrays) for i, v in enumerate(obj)]}
    raise TypeError(f"nbgrad.save: cannot save an object of type {type(obj).__name__} (only tensors, numbers, "
                    "strings, None, and dicts, lists and tuples of them)")


def _digest(arrays, names):
    h = hashlib.sha256()
    for name in names:
        a = arrays[name]
        h.update(name.encode())
        h.update(str(a.dtype).encode())
        h.update(repr(tuple(a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _serialize(obj):
    arrays = {}
    structure = _encode(obj, "", arrays)
    metadata = {_FORMAT: "1", _STRUCTURE: json.dumps(structure),
                _DIGEST: _digest(arrays, sorted(arrays))}
    if any(a.dtype == np.uint16 for a in arrays.values()):
        return _save_with_bfloat16(arrays, metadata)
    return _safetensors_numpy().save(arrays, metadata=metadata)


def _save_with_bfloat16(arrays, metadata):
    """safetensors.numpy.save, with the uint16 arrays (bfloat16 words) written as "BF16"."""
    _safetensors_numpy()
    from safetensors import TensorSpec, serialize
    keep = {k: np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")) for k, a in arrays.items()}
    specs = {k: TensorSpec(dtype="bfloat16" if a.dtype == np.uint16 else a.dtype.name, shape=a.shape,
                           data_ptr=a.ctypes.data, data_len=a.nbytes) for k, a in keep.items()}
    return bytes(serialize(specs, metadata=metadata))


# safetensors' dtype names as NumPy arrays hold them (BF16: its 16-bit words)
_LOAD_TYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "BF16": np.uint16, "I64": np.int64,
               "U64": np.uint64, "I32": np.int32, "U32": np.uint32, "I16": np.int16, "I8": np.int8,
               "U8": np.uint8, "BOOL": np.bool_}


def _load_arrays(data):
    """safetensors.numpy.load, BF16 tensors included (as uint16 words)."""
    _safetensors_numpy()
    from safetensors import deserialize
    arrays = {}
    for name, info in deserialize(bytes(data)):
        if info["dtype"] not in _LOAD_TYPES:
            raise ValueError(f"unsupported dtype {info['dtype']}")
        arrays[name] = np.frombuffer(info["data"], dtype=np.dtype(_LOAD_TYPES[info["dtype"]]).newbyteorder("<")) \
            .reshape(info["shape"])
    return arrays


def save(obj, f, *args, **kwargs):
    """Write obj (a tensor, or nested dicts/lists/tuples of tensors and plain values) to f.

    f is a path (written atomically: a temporary file in the same directory, then os.replace)
    or a binary file object.
    """
    data = _serialize(obj)
    if hasattr(f, "write"):
        f.write(data)
        return
    path = os.fspath(f)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# -- decoding ------------------------------------------------------------------------
class _Corrupt(ValueError):
    pass


def _header(data, where):
    if len(data) < 8:
        raise _Corrupt(f"{where}: not a safetensors checkpoint (file too short: {len(data)} bytes; truncated?)")
    (n,) = struct.unpack("<Q", data[:8])
    if n > _HEADER_LIMIT or 8 + n > len(data):
        raise _Corrupt(f"{where}: header length {n} does not fit in the {len(data)}-byte file (truncated or "
                       "not a safetensors checkpoint)")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"), object_pairs_hook=OrderedDict)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _Corrupt(f"{where}: the safetensors header is not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise _Corrupt(f"{where}: the safetensors header is not a JSON object")
    metadata = header.get("__metadata__") or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise _Corrupt(f"{where}: __metadata__ must map strings to strings")
    names = [k for k in header if k != "__metadata__"]
    return names, metadata


def _decode(node, tensors, used, depth=0):
    if depth > 500:
        raise _Corrupt("structure nested too deeply")
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, dict) and len(node) == 1:
        (tag, body), = node.items()
        if tag == "T":
            if not isinstance(body, str) or body not in tensors:
                raise _Corrupt(f"structure names a tensor {body!r} the file does not hold")
            used.add(body)
            return tensors[body]
        if tag in ("L", "U") and isinstance(body, list):
            values = [_decode(v, tensors, used, depth + 1) for v in body]
            return values if tag == "L" else tuple(values)
        if tag in ("D", "O") and isinstance(body, list):
            out = OrderedDict() if tag == "O" else {}
            for item in body:
                if not (isinstance(item, list) and len(item) == 2) or isinstance(item[0], (list, dict)):
                    raise _Corrupt("malformed dict entry in structure")
                out[item[0]] = _decode(item[1], tensors, used, depth + 1)
            return out
    raise _Corrupt("malformed structure")


def _to_tensor(array, map_location):
    from ._creation import from_numpy, tensor
    if array.dtype == np.uint16:            # bfloat16's words
        from ._dtype import bfloat16
        from .backends._bfloat16 import widen_host
        t = tensor(widen_host(array.reshape(-1)).reshape(array.shape), dtype=bfloat16)
    else:
        t = from_numpy(array) if array.flags.writeable else tensor(array)
    if map_location is not None and not callable(map_location) and not isinstance(map_location, dict):
        t = t.to(map_location)
    return t


def load(f, map_location=None, weights_only=True, mmap=None, **kwargs):
    """Read what `save` wrote (or any safetensors file, as a flat dict of tensors).

    Never executes code.  A truncated, corrupted or malformed file raises ValueError.
    """
    if hasattr(f, "read"):
        data, where = f.read(), "checkpoint"
    else:
        where = os.fspath(f)
        with open(where, "rb") as fh:
            data = fh.read()
    names, metadata = _header(data, where)
    try:
        arrays = _load_arrays(data)
    except Exception as e:   # safetensors raises its own SafetensorError for malformed files
        raise ValueError(f"{where}: not a valid safetensors checkpoint: {e}") from None
    structure = metadata.get(_STRUCTURE)
    digest = metadata.get(_DIGEST)
    if digest is not None and _digest(arrays, sorted(arrays)) != digest:
        raise ValueError(f"{where}: checkpoint is corrupted (tensor data does not match its SHA-256)")
    tensors = {name: _to_tensor(arrays[name], map_location) for name in names if name in arrays}
    if structure is None:
        return {name: tensors[name] for name in names}
    try:
        used = set()
        obj = _decode(json.loads(structure), tensors, used)
        if used != set(tensors):
            raise _Corrupt("the file holds tensors its structure does not name")
    except (_Corrupt, ValueError, RecursionError) as e:
        raise ValueError(f"{where}: corrupted nbgrad checkpoint structure: {e}") from None
    return obj
