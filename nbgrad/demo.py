"""A walk through nbgrad's aliasing rules (PyTorch's), printing the evidence for each.

Run it with `python -m nbgrad.demo`. Each rule is one small function that
does what the rule describes and returns (held, evidence); `main()` prints a
titled line per rule and returns the list of (rule, held) so that a test can
check every one. It uses only PyTorch's public names, so it reads the same
with `import torch as nbgrad`.
"""
import sys

import numpy as np

import nbgrad

RULES = []


def rule(title):
    """Register a function that checks one aliasing rule and returns (held, evidence)."""
    def register(check):
        RULES.append((title, check))
        return check
    return register


def same_memory(x, y):
    """Both tensors start at the same address (a view with storage offset 0)."""
    return x.data_ptr() == y.data_ptr()


@rule("b = a is the same object")
def assignment_is_the_same_object():
    a = nbgrad.zeros(3)
    b = a
    b[0] = 5.0
    held = id(b) == id(a) and a.tolist() == [5.0, 0.0, 0.0]
    return held, f"id(b) == id(a): {id(b) == id(a)}; after b[0] = 5, a = {a.tolist()}"


def kept_in_place(change, expected):
    """a = zeros(3), then a = change(a); (held, evidence) that a is still the same object and
    memory, holding `expected`."""
    a = nbgrad.zeros(3)
    before_id, before_ptr = id(a), a.data_ptr()
    a = change(a)
    held = id(a) == before_id and a.data_ptr() == before_ptr and a.tolist() == expected
    return held, (f"id kept: {id(a) == before_id}; data_ptr kept: {a.data_ptr() == before_ptr}; "
                  f"a = {a.tolist()}")


@rule("a += 1 changes a in place: same id, same data_ptr")
def iadd_is_in_place():
    def change(a):
        a += 1
        return a
    return kept_in_place(change, [1.0, 1.0, 1.0])


@rule("a.add_(b) changes a in place and returns a")
def add_underscore_returns_self():
    # a = a.add_(b) keeps the same object exactly when add_ returns a itself
    return kept_in_place(lambda a: a.add_(nbgrad.ones(3)), [1.0, 1.0, 1.0])


@rule("a[:] = ... writes into a: same id, same data_ptr")
def setitem_is_in_place():
    def change(a):
        a[:] = nbgrad.tensor([7.0, 8.0, 9.0])
        return a
    return kept_in_place(change, [7.0, 8.0, 9.0])


@rule("y = x + y makes a new tensor; the old y is untouched")
def out_of_place_is_new():
    x = nbgrad.ones(3)
    y = nbgrad.zeros(3)
    old_y = y
    y = x + y
    held = y is not old_y and y.data_ptr() != old_y.data_ptr() and old_y.tolist() == [0.0, 0.0, 0.0]
    return held, (f"new object: {y is not old_y}; new memory: {y.data_ptr() != old_y.data_ptr()}; "
                  f"old y = {old_y.tolist()}, new y = {y.tolist()}")


@rule("x.view(3, 4) is a new object over the same memory")
def view_shares_memory():
    x = nbgrad.arange(12, dtype=nbgrad.float32)
    v = x.view(3, 4)
    v[0, 0] = 100.0
    held = v is not x and same_memory(v, x) and x[0].item() == 100.0
    return held, (f"distinct objects: {v is not x}; data_ptr equal: {same_memory(v, x)}; "
                  f"after v[0, 0] = 100, x[0] = {x[0].item()}")


@rule("slicing x[1:] is a view: writes through it reach x")
def slice_shares_memory():
    x = nbgrad.arange(6, dtype=nbgrad.float32)
    s = x[1:]
    s[0] = -1.0
    held = s is not x and s.storage_offset() == 1 and x.tolist() == [0.0, -1.0, 2.0, 3.0, 4.0, 5.0]
    return held, (f"distinct objects: {s is not x}; storage_offset = {s.storage_offset()}; "
                  f"after s[0] = -1, x = {x.tolist()}")


@rule("x.t() is a view with swapped strides, not a copy")
def transpose_shares_memory():
    x = nbgrad.zeros(2, 3)
    xt = x.t()
    xt[2, 1] = 4.0
    held = (xt is not x and same_memory(xt, x) and tuple(xt.stride()) == (1, 3)
            and x[1, 2].item() == 4.0)
    return held, (f"data_ptr equal: {same_memory(xt, x)}; strides {tuple(x.stride())} -> "
                  f"{tuple(xt.stride())}; after xt[2, 1] = 4, x[1, 2] = {x[1, 2].item()}")


def writes_seen_both_ways(t, a):
    """Write a[0] = 1 through the array and t[1] = 2 through the tensor (both zeros(3)); (held,
    evidence) that each sees both writes."""
    a[0] = 1.0
    t[1] = 2.0
    held = t.tolist() == [1.0, 2.0, 0.0] and a.tolist() == [1.0, 2.0, 0.0]
    return held, f"after a[0] = 1 and t[1] = 2: t = {t.tolist()}, a = {a.tolist()}"


@rule("t.numpy() shares memory with t, both ways")
def numpy_shares_memory():
    t = nbgrad.zeros(3)
    return writes_seen_both_ways(t, t.numpy())


@rule("nbgrad.from_numpy(a) shares memory with a, both ways")
def from_numpy_shares_memory():
    a = np.zeros(3, dtype=np.float32)
    return writes_seen_both_ways(nbgrad.from_numpy(a), a)


@rule("nbgrad.tensor(a) copies")
def tensor_copies():
    a = np.zeros(3, dtype=np.float32)
    t = nbgrad.tensor(a)
    a[0] = 1.0
    held = t.tolist() == [0.0, 0.0, 0.0]
    return held, f"after a[0] = 1: a = {a.tolist()}, t = {t.tolist()}"


@rule("x.clone() copies")
def clone_copies():
    x = nbgrad.zeros(3)
    c = x.clone()
    c[0] = 1.0
    held = not same_memory(c, x) and x.tolist() == [0.0, 0.0, 0.0]
    return held, f"data_ptr differs: {not same_memory(c, x)}; after c[0] = 1, x = {x.tolist()}"


@rule("x.contiguous() returns x itself when x is already contiguous")
def contiguous_returns_self():
    x = nbgrad.zeros(2, 3)
    xt = x.t()
    copy = xt.contiguous()
    held = (x.contiguous() is x and not xt.is_contiguous() and copy.is_contiguous()
            and copy.data_ptr() != x.data_ptr())
    return held, (f"x.contiguous() is x: {x.contiguous() is x}; x.t() is contiguous: "
                  f"{xt.is_contiguous()}; x.t().contiguous() is a copy: "
                  f"{copy.data_ptr() != x.data_ptr()}")


@rule("x[:, ::2].view(6) works; x[:, :2].view(6) raises RuntimeError")
def view_needs_compatible_strides():
    x = nbgrad.arange(12, dtype=nbgrad.float32).view(3, 4)
    stepped = x[:, ::2].view(6)
    try:
        x[:, :2].view(6)
    except RuntimeError as error:
        raised = f"RuntimeError: {str(error).split(' (')[0]}"
    else:
        raised = "no error"
    held = stepped.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0] and raised != "no error"
    return held, (f"x[:, ::2] strides {tuple(x[:, ::2].stride())} -> {stepped.tolist()}; "
                  f"x[:, :2] strides {tuple(x[:, :2].stride())} -> {raised}")


@rule("backward() accumulates into .grad")
def grad_accumulates():
    w = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (w * w).sum().backward()
    first = w.grad.tolist()
    (w * w).sum().backward()
    second = w.grad.tolist()
    held = first == [2.0, 4.0, 6.0] and second == [4.0, 8.0, 12.0]
    return held, f"d(sum w*w)/dw = {first}; after a second backward, w.grad = {second}"


@rule("backward keeps the very input it needs: x is y.grad_fn._saved_self")
def saved_input_is_the_tensor():
    x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.pow(2)
    saved = y.grad_fn._saved_self
    held = saved is x and y.grad_fn._saved_exponent == 2
    return held, (f"y = x.pow(2): y.grad_fn._saved_self is x: {saved is x}; "
                  f"_saved_exponent = {y.grad_fn._saved_exponent}")


@rule("an output it needs is kept as a new tensor over the same memory")
def saved_output_shares_memory():
    x = nbgrad.tensor([0.0, 1.0], requires_grad=True)
    y = x.exp()
    r = y.grad_fn._saved_result
    held = r is not y and same_memory(r, y) and r.grad_fn is y.grad_fn
    return held, (f"y = x.exp(): _saved_result is y: {r is y}; same data_ptr: {same_memory(r, y)}; "
                  f"its grad_fn is y's: {r.grad_fn is y.grad_fn}")


@rule("changing a saved tensor in place makes backward refuse (its _version moved)")
def inplace_on_saved_is_caught():
    x = nbgrad.tensor([0.5, 1.5], requires_grad=True)
    y = x * 1.0
    z = y.sin()                     # sin saves y for its backward
    before = y._version
    y.add_(1.0)
    try:
        z.sum().backward()
        raised = "no error"
    except RuntimeError as error:
        raised = str(error).split(";")[0]
    held = "modified by an inplace operation" in raised and y._version == before + 1
    return held, f"y._version {before} -> {y._version}; backward: {raised[:90]}..."


def main():
    """Check every rule, print one titled line and its evidence each; return [(rule, held)]."""
    print("nbgrad's aliasing rules (the same as PyTorch's), each checked:\n")
    results = []
    for title, check in RULES:
        try:
            held, evidence = check()
        except Exception as error:  # a rule that crashes did not hold; say why and go on
            held, evidence = False, f"raised {type(error).__name__}: {error}"
        results.append((title, bool(held)))
        print(f"{'ok  ' if held else 'FAIL'}  {title}")
        print(f"      {evidence}")
    failed = sum(not held for _, held in results)
    print(f"\n{len(results) - failed} of {len(results)} rules held.")
    return results


if __name__ == "__main__":
    sys.exit(0 if all(held for _, held in main()) else 1)
