"""Random indexing cases: x[index], x[index] = value, torch.index_put / Tensor.index_put_, and
the gradient through x[index], for small shapes (empty dims included) and indices mixing ints,
slices, None, ellipses, integer and bool tensors (0-dim too), Python bools, lists (of ints, of
bools, of lists: PyTorch's sequence-as-tuple rule) and masks.

  python -m tests.differential.index_fuzz --seed 1 --cases 3000          # live, against PyTorch
  python -m tests.differential.index_fuzz --seed 1 --cases 1500 --record F   # PyTorch's results to F

test_index_corpus.py replays the recorded cases (tests/differential/corpus/index_cases.json.gz)
against nbgrad without PyTorch.  A case and its result are JSON: an index item is
["int", k], ["slice", start, stop, step], ["none"], ["ellipsis"], ["bool", b], ["list", [...]],
or a tensor ["T", values] (int64), ["T0", k], ["T2", rows], ["B", values] (bool), ["U", values]
(uint8), ["B0", b];
the index is ["tuple", items], ["one", item] or ["seq", items] (a list of items).
"""
import argparse
import gzip
import json
import math
import random
import sys
import warnings


def _item(rng, dim):
    k = rng.random()
    if k < 0.15:
        return ["int", rng.randint(-dim, dim - 1) if dim else 0]
    if k < 0.3:
        return ["slice", rng.choice([None, rng.randint(-3, 3)]), rng.choice([None, rng.randint(-3, 4)]),
                rng.choice([None, 1, 2, 3])]
    if k < 0.37:
        return ["none"]
    if k < 0.42:
        return ["ellipsis"]
    hi = max(dim - 1, 0)
    if k < 0.55:
        return ["T", [rng.randint(-dim, hi) for _ in range(rng.randint(0, 3))]]
    if k < 0.62:
        return ["T0", rng.randint(-dim, hi)]
    if k < 0.72:
        if rng.random() < 0.2:      # (a uint8 mask: a bool one, with its deprecation warning)
            return ["U", [int(rng.random() < 0.5) for _ in range(dim)]]
        return ["B", [rng.random() < 0.5 for _ in range(dim)]]
    if k < 0.76:
        return ["B0", rng.random() < 0.5]
    if k < 0.85:
        return ["list", [rng.randint(-dim, hi) for _ in range(rng.randint(1, 3))]]
    if k < 0.9:
        return ["list", [rng.random() < 0.5 for _ in range(dim)]]
    if k < 0.95:
        return ["T2", [[rng.randint(0, hi) for _ in range(2)] for _ in range(2)]]
    return ["bool", rng.random() < 0.5]


def _index(rng, shape):
    items = [_item(rng, rng.choice(shape) if shape else 1) for _ in range(rng.randint(1, 3))]
    form = rng.random()
    return ["tuple", items] if form < 0.6 else ["one", items[0]] if form < 0.8 else ["seq", items]


def _put_spec(rng, shape):
    spec = []
    for d in range(rng.randint(1, len(shape))):
        r, dim = rng.random(), shape[d]
        if r < 0.2:
            spec.append(["N", None])
        elif r < 0.45:
            spec.append(["B", [rng.random() < 0.5 for _ in range(dim)] if rng.random() < 0.9 else rng.random() < 0.5])
        elif r < 0.5:
            spec.append(["U", [int(rng.random() < 0.5) for _ in range(dim)]])
        else:
            spec.append([rng.choice("IJ"), [rng.randint(-dim, max(dim - 1, 0)) for _ in range(rng.randint(0, 3))]])
    return spec


def cases(seed, n):
    rng = random.Random(seed)
    for _ in range(n):
        kind = rng.random()
        if kind < 0.7:
            shape = [rng.randint(0, 3) for _ in range(rng.randint(0, 3))]
            mode = rng.choice(["get", "get", "set_scalar", "set_tensor", "grad"])
            case = {"mode": mode, "shape": shape, "index": _index(rng, shape)}
            if rng.random() < 0.3 and len(shape) >= 2:
                case["view"] = rng.choice(["t", "step", "expand"])      # (x a view of a base: its writes show there)
            if mode == "set_tensor" and rng.random() < 0.3:
                case["lead"] = rng.randint(1, 2)        # (a value with leading size-1 dims, which setitem drops)
            yield case
        else:
            shape = [rng.randint(0, 3) for _ in range(rng.randint(1, 3))]
            yield {"mode": "put", "shape": shape, "index": _put_spec(rng, shape),
                   "values": rng.choice([[], [1], [2], [3], [1, 1], [2, 1]]), "accumulate": rng.random() < 0.3,
                   "inplace": rng.random() < 0.5}


def _build(lib, index):
    def one(it):
        kind = it[0]
        if kind == "int":
            return it[1]
        if kind == "slice":
            return slice(*it[1:])
        if kind == "none":
            return None
        if kind == "ellipsis":
            return Ellipsis
        if kind == "bool":
            return it[1]
        if kind == "list":
            return list(it[1])
        if kind in ("T", "T0", "T2"):
            return lib.tensor(it[1], dtype=lib.int64)
        return lib.tensor(it[1], dtype=lib.uint8 if kind == "U" else lib.bool)
    form, body = index
    return one(body) if form == "one" else tuple(one(i) for i in body) if form == "tuple" else [one(i) for i in body]


def _put_indices(lib, spec):
    dtypes = {"B": lib.bool, "U": lib.uint8, "I": lib.int64, "J": lib.int32}
    return tuple(None if kind == "N" else lib.tensor(v, dtype=dtypes[kind]) for kind, v in spec)


def run_case(lib, case):
    """The case's result under lib (torch or nbgrad): ["ok", ...values] or ["exc", its type]."""
    shape = tuple(case["shape"])
    dtype = lib.float64 if case["mode"] == "grad" else lib.float32
    x = base = lib.arange(math.prod(shape), dtype=dtype).reshape(shape)
    view = case.get("view")
    if view == "t":
        base = lib.arange(math.prod(shape), dtype=dtype).reshape(shape[::-1])
        x = base.transpose(0, -1)
    elif view == "step":
        base = lib.arange(2 * math.prod(shape), dtype=dtype).reshape((shape[0] * 2,) + shape[1:])
        x = base[::2]
    elif view == "expand":
        base = lib.arange(math.prod(shape[1:]), dtype=dtype).reshape((1,) + shape[1:])
        x = base.expand(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if case["mode"] == "put":
                values = -lib.arange(1, 1 + math.prod(case["values"]), dtype=lib.float32).reshape(case["values"])
                index = _put_indices(lib, case["index"])
                if case["inplace"]:
                    x.index_put_(index, values, accumulate=case["accumulate"])
                    return ["ok", x.tolist()]
                return ["ok", lib.index_put(x, index, values, accumulate=case["accumulate"]).tolist()]
            index = _build(lib, case["index"])
            if case["mode"] == "get":
                r = x[index]
                return ["ok", list(r.shape), r.tolist()]
            if case["mode"] == "set_scalar":
                x[index] = -1.0
                return ["ok", x.tolist()] + ([base.tolist()] if view else [])
            if case["mode"] == "set_tensor":
                r = x[index]
                lead = (1,) * case.get("lead", 0)
                x[index] = -lib.arange(1, 1 + r.numel(), dtype=lib.float32).reshape(lead + tuple(r.shape))
                return ["ok", x.tolist()] + ([base.tolist()] if view else [])
            x.requires_grad_()
            r = x[index]
            (r * lib.arange(1, 1 + r.numel(), dtype=dtype).reshape(tuple(r.shape))).sum().backward()
            return ["ok", None if x.grad is None else x.grad.tolist()]
        except Exception as e:      # (the type is the record; messages differ in their tensor reprs)
            return ["exc", type(e).__name__]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--record", help="write the cases with PyTorch's results to this .json.gz")
    args = parser.parse_args(argv)
    import torch
    import nbgrad
    records, differ = [], 0
    for case in cases(args.seed, args.cases):
        expected = run_case(torch, case)
        records.append(dict(case, expected=expected))
        got = run_case(nbgrad, case)
        if got != expected:
            differ += 1
            if differ <= 20:
                print(json.dumps(case), "\n   torch ", json.dumps(expected)[:200], "\n   nbgrad", json.dumps(got)[:200])
    print(f"{differ} of {args.cases} cases differ")
    if args.record:
        with gzip.open(args.record, "wt") as f:
            json.dump(records, f, separators=(",", ":"))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
