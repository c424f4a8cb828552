"""einsum: an equation of subscripts turned into views, sums, products and batched
matmuls, as PyTorch computes it, so that its gradients (and the nodes users see) are
those ops'.

Labels: letters, and one label per broadcast dim of an ellipsis ('...', right-aligned
across operands).  Every operand is aligned to one dim order (the output's labels,
then the summed ones): diagonals for a repeated label, size-1 dims for a missing one, a
permute.  Operands are then combined left to right; the summed dims no later operand
has are contracted by one bmm (PyTorch's sumproduct_pair), a pair with nothing to
contract is a broadcast multiply.
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


def _sumproduct_pair(left, right, sum_dims):
    """(left * right).sum(sum_dims, keepdim=True) of two aligned operands (same number of
    dims, size-1 dims broadcast) by one bmm: dims in both and kept are the batch, dims
    kept on one side its rows or columns; the product is viewed back and permuted into
    the operands' dim order (PyTorch's sumproduct_pair)."""
    if not sum_dims:
        return left * right
    ndim = left.dim()
    # PyTorch 2.13 swaps the pair when every dim only the right keeps comes before every dim
    # only the left keeps (its bmm then writes the output's order)
    kept_left = [d for d in range(ndim) if d not in sum_dims and left.shape[d] != 1 and right.shape[d] == 1]
    kept_right = [d for d in range(ndim) if d not in sum_dims and right.shape[d] != 1 and left.shape[d] == 1]
    if kept_left and kept_right and max(kept_right) < min(kept_left):
        left, right = right, left
    both, left_only, right_only = [], [], []
    sum_size = 1
    for d in range(ndim):
        in_left, in_right = left.shape[d] != 1, right.shape[d] != 1
        if d in sum_dims:
            if in_left and in_right:
                sum_size *= left.shape[d]
            elif in_left:
                left = left.sum(d, keepdim=True)
            elif in_right:
                right = right.sum(d, keepdim=True)
        elif in_left and in_right:
            both.append(d)
        elif in_left:
            left_only.append(d)
        else:
            right_only.append(d)
    size = {d: left.shape[d] for d in both + left_only}
    size.update({d: right.shape[d] for d in right_only})
    n_both = n_left = n_right = 1
    for d in both:
        n_both *= size[d]
    for d in left_only:
        n_left *= size[d]
    for d in right_only:
        n_right *= size[d]
    order = both + left_only + list(sum_dims) + right_only
    out_sizes = [size[d] for d in both + left_only] + [1] * len(sum_dims) + [size[d] for d in right_only]
    inverse = [0] * ndim
    for position, d in enumerate(order):
        inverse[d] = position
    a = left.permute(order).reshape(n_both, n_left, sum_size)
    b = right.permute(both + list(sum_dims) + right_only + left_only).reshape(n_both, sum_size, n_right)
    return a.bmm(b).view(out_sizes).permute(inverse)


def _aligned_operands(operands, labels, out_labels):
    """Each operand with its diagonals taken, size-1 dims for the labels it lacks and its
    dims permuted to one order: the output's labels, then the summed ones (an ellipsis
    left out of the output first, then letters in PyTorch's order A-Z, a-z)."""
    order = list(out_labels)
    order += sorted({x for lbs in labels for x in lbs if isinstance(x, tuple)} - set(order), key=_letter_order)
    order += sorted({x for lbs in labels for x in lbs if not isinstance(x, tuple)} - set(order), key=_letter_order)
    position = {x: i for i, x in enumerate(order)}
    counts = [0] * len(order)           # how many operands have each label at a size other than 1
    aligned = []
    for i, (op, lbs) in enumerate(zip(operands, labels)):
        permutation = [-1] * len(order)
        dim = 0
        for label in lbs:
            p = position[label]
            if permutation[p] == -1:
                if op.shape[dim] != 1:
                    counts[p] += 1
                permutation[p] = dim
                dim += 1
            else:                       # a repeated label: its diagonal, where the label first stood
                prev = permutation[p]
                if op.shape[dim] != op.shape[prev]:
                    raise RuntimeError(f"einsum(): subscript {label} is repeated for operand {i} but the sizes "
                                       f"don't match, {op.shape[dim]} != {op.shape[prev]}")
                op = op.diagonal(0, prev, dim).movedim(-1, prev)
        for p in range(len(order)):
            if permutation[p] == -1:
                op = op.unsqueeze(dim)
                permutation[p] = dim
                dim += 1
        aligned.append(op.permute(permutation))
    return aligned, counts, len(order)


def _contract(aligned, counts, n_out, n_all):
    """Left to right: each pair multiplied, the summed dims no later operand has contracted
    by one bmm (a dim only one side has is summed on that side first)."""
    if len(aligned) == 1:
        op = aligned[0]
        return op.sum(list(range(n_out, n_all))) if n_all > n_out else op
    ops = list(aligned)
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(n_out, n_all):
            if a.shape[d] != 1 and b.shape[d] != 1:
                counts[d] -= 1
                if counts[d] == 1:
                    sum_dims.append(d)
                    counts[d] = 0
            elif counts[d] == 1:
                if a.shape[d] != 1:
                    a_sum.append(d)
                    counts[d] = 0
                elif b.shape[d] != 1:
                    b_sum.append(d)
                    counts[d] = 0
        if a_sum:
            a = a.sum(a_sum, keepdim=True)
        if b_sum:
            b = b.sum(b_sum, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    result = ops[0]
    if n_all > n_out:                   # the summed dims are all size 1 now
        result = result.view(list(result.shape[:n_out]))
    return result


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
    if len(args) < 2:       # (PyTorch's Python wrapper: a ValueError before anything else)
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
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
    aligned, counts, n_all = _aligned_operands(operands, labels, out_labels)
    return _contract(aligned, counts, len(out_labels), n_all)
