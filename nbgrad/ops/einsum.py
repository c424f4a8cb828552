"""einsum: an equation of subscripts turned into views, sums, products and batched
matmuls (PyTorch's own strategy), so that its gradients are those ops' gradients.

Labels: letters, and one label per broadcast dim of an ellipsis ('...', right-aligned
across operands).  Each operand first takes diagonals for a repeated label and sums
out the labels no one else needs; then operands are combined left to right: labels
both sides share and no one needs later are contracted by one bmm, shared labels still
needed are batch dims, and a pair with nothing to contract is a broadcast multiply.
"""
from .._tensor import Tensor


def _letter_order(label):
    # PyTorch numbers A-Z before a-z; ellipsis dims come first in an implicit output
    if isinstance(label, tuple):
        return (0, label[1])
    return (1, ord(label))


def _parse_term(term, op_index, operand):
    """The labels of one input operand: its letters and, for '...', its broadcast dims."""
    if term.count("...") > 1 or term.replace("...", "").count(".") or (term.count(".") % 3):
        raise RuntimeError(f"einsum(): found '.' for operand {op_index} that is not part of any ellipsis")
    letters = list(term.replace("...", ""))
    has_ellipsis = "..." in term
    n_ell = operand.dim() - len(letters)
    if (not has_ellipsis and n_ell != 0) or n_ell < 0:
        raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) "
                           + ("is more than" if has_ellipsis else "does not match")
                           + f" the number of dimensions ({operand.dim()}) for operand {op_index}"
                           + ("" if has_ellipsis else " and no ellipsis was given"))
    return has_ellipsis, n_ell


def _labels(term, n_ell, ell_total):
    head, _, tail = term.partition("...")
    if "..." not in term:
        return list(term)
    ell = [("...", ell_total - n_ell + k) for k in range(n_ell)]
    return list(head) + ell + list(tail)


def _diagonals(t, labels, op_index):
    """Take the diagonal of every repeated label (PyTorch: the diagonal dim goes last)."""
    while True:
        seen = {}
        pair = None
        for i, label in enumerate(labels):
            if label in seen:
                pair = (seen[label], i)
                break
            seen[label] = i
        if pair is None:
            return t, labels
        i, j = pair
        if t.shape[i] != t.shape[j]:
            raise RuntimeError(f"einsum(): subscript {labels[i]} is repeated for operand {op_index} but the sizes "
                               f"don't match, {t.shape[j]} != {t.shape[i]}")
        label = labels[i]
        t = t.diagonal(0, i, j)
        labels = [lb for k, lb in enumerate(labels) if k not in (i, j)] + [label]


def _sum_out(t, labels, keep):
    dims = [i for i, lb in enumerate(labels) if lb not in keep]
    if not dims:
        return t, labels
    return t.sum(dims), [lb for lb in labels if lb in keep]


def _size_error(a, la, b, lb):
    return RuntimeError(f"einsum(): operands do not broadcast with remapped shapes (original->remapped): "
                        f"{list(a.shape)} {list(b.shape)}")


def _combine(a, la, b, lb, needed):
    """a (labels la) and b (labels lb) -> their product with labels: batch, a's own, b's own."""
    shared = [lb_ for lb_ in la if lb_ in lb]
    contract = [x for x in shared if x not in needed]
    batch = [x for x in shared if x in needed]
    a_only = [x for x in la if x not in lb]
    b_only = [x for x in lb if x not in la]
    # size-1 dims broadcast: a batch dim is expanded, a contracted one is summed on the other side first
    for x in shared:
        na, nb = a.shape[la.index(x)], b.shape[lb.index(x)]
        if na == nb:
            continue
        if na != 1 and nb != 1:
            raise _size_error(a, la, b, lb)
        if x in contract:
            if na == 1:
                b = b.sum(lb.index(x), keepdim=True)
            else:
                a = a.sum(la.index(x), keepdim=True)
    size = {}
    for x in la:
        size[x] = a.shape[la.index(x)]
    for x in lb:
        size[x] = max(size.get(x, 1), b.shape[lb.index(x)])
    a = a.permute([la.index(x) for x in batch + a_only + contract])
    b = b.permute([lb.index(x) for x in batch + contract + b_only])
    batch_shape = [size[x] for x in batch]
    if not contract:
        a = a.reshape([a.shape[i] for i in range(len(batch) + len(a_only))] + [1] * len(b_only))
        b = b.reshape([b.shape[i] for i in range(len(batch))] + [1] * len(a_only)
                      + [b.shape[len(batch) + i] for i in range(len(b_only))])
        return a * b, batch + a_only + b_only
    a = a.expand(batch_shape + list(a.shape[len(batch):]))
    b = b.expand(batch_shape + list(b.shape[len(batch):]))
    m = 1
    for x in a_only:
        m *= size[x]
    n = 1
    for x in b_only:
        n *= size[x]
    k = 1
    for x in contract:
        k *= a.shape[len(batch) + len(a_only) + contract.index(x)]
    bt = 1
    for s in batch_shape:
        bt *= s
    out = a.reshape(bt, m, k).bmm(b.reshape(bt, k, n))
    return out.reshape(batch_shape + [size[x] for x in a_only] + [size[x] for x in b_only]), batch + a_only + b_only


def _check_sizes(operands, labels):
    seen = {}
    for i, (t, lbs) in enumerate(zip(operands, labels)):
        own = {}
        for label, n in zip(lbs, t.shape):
            if label in own:            # a repeated label: its sizes are checked by _diagonals
                continue
            own[label] = n
            prev = seen.get(label)
            if prev is not None and n != prev and n != 1 and prev != 1:
                name = "..." if isinstance(label, tuple) else label
                raise RuntimeError(f"einsum(): subscript {name} has size {n} for operand {i} which does not broadcast "
                                   f"with previously seen size {prev}")
            if prev is None or prev == 1:
                seen[label] = n


def _single(t, labels, out_labels):
    """One operand: its diagonals, a permute to (output..., summed...) and the sum (PyTorch's
    order: 'ii->i' ends in a permute, 'ij->j' in a sum)."""
    t, labels = _diagonals(t, labels, 0)
    summed = [x for x in labels if x not in out_labels]
    t = t.permute([labels.index(x) for x in out_labels + summed])
    if summed:
        t = t.sum(list(range(len(out_labels), len(labels))))
    return t


def _from_sublists(args):
    """einsum(op0, [0, 1], op1, [1, 2], [0, 2]): the sublist format as an equation."""
    def letters(sub):
        out = ""
        for s in sub:
            if s is Ellipsis:
                out += "..."
            else:
                if not 0 <= s < 52:
                    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
                out += chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26)
        return out
    operands, terms = [], []
    items = list(args)
    while len(items) >= 2 and isinstance(items[0], Tensor):
        operands.append(items.pop(0))
        terms.append(letters(items.pop(0)))
    equation = ",".join(terms)
    if items:
        equation += "->" + letters(items.pop(0))
    return equation, operands


def einsum(*args):
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand, "
                        "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation, operands = _from_sublists(args)
    else:
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    if not isinstance(equation, str) or not operands:
        raise TypeError("einsum(): must specify the equation string and at least one operand, "
                        "or at least one operand and its subscripts list")
    equation = equation.replace(" ", "")
    for i, c in enumerate(equation):
        if not ((c.isalpha() and c.isascii()) or c in ",.->"):
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                               "subscripts must be in [a-zA-Z]")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    parsed = [_parse_term(term, i, op) for i, (term, op) in enumerate(zip(terms, operands))]
    ell_total = max((n for has, n in parsed if has), default=0)
    any_ellipsis = any(has for has, _ in parsed)
    labels = [_labels(term, n, ell_total) for term, (_, n) in zip(terms, parsed)]
    if arrow:
        if rhs.count("...") > 1 or rhs.replace("...", "").count("."):
            raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis")
        out_labels = _labels(rhs, ell_total, ell_total) if "..." in rhs else list(rhs)
        for x in out_labels:
            if isinstance(x, str) and not (x.isalpha() and x.isascii()):
                raise RuntimeError("einsum(): invalid subscript given in the output, subscripts must be in [a-zA-Z]")
            if out_labels.count(x) > 1:
                raise RuntimeError(f"einsum(): output subscript {x} appears more than once in the output")
            if isinstance(x, str) and not any(x in lbs for lbs in labels):
                raise RuntimeError(f"einsum(): output subscript {x} does not appear in the equation for any input "
                                   "operand")
    else:
        counts = {}
        for lbs in labels:
            for x in lbs:
                if isinstance(x, str):
                    counts[x] = counts.get(x, 0) + 1
        ell = [("...", k) for k in range(ell_total)] if any_ellipsis else []
        out_labels = ell + sorted((x for x, c in counts.items() if c == 1), key=_letter_order)
    _check_sizes(operands, labels)
    if len(operands) == 1:
        return _single(operands[0], labels[0], out_labels)
    # each operand: diagonals, then the labels only it has and the output lacks summed out
    tensors = []
    for i, (t, lbs) in enumerate(zip(operands, labels)):
        t, lbs = _diagonals(t, lbs, i)
        others = set(out_labels)
        for j, other in enumerate(labels):
            if j != i:
                others.update(other)
        t, lbs = _sum_out(t, lbs, others)
        tensors.append((t, lbs))
    result, res_labels = tensors[0]
    for i in range(1, len(tensors)):
        needed = set(out_labels)
        for _, later in tensors[i + 1:]:
            needed.update(later)
        b, lb = tensors[i]
        result, res_labels = _sum_out(result, res_labels, needed | set(lb))
        b, lb = _sum_out(b, lb, needed | set(res_labels))
        result, res_labels = _combine(result, res_labels, b, lb, needed)
    result, res_labels = _sum_out(result, res_labels, set(out_labels))
    order = [res_labels.index(x) for x in out_labels]
    if len(operands) == 1 or order != list(range(len(order))):
        result = result.permute(order)
    return result
