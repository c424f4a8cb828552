"""PyTorch's CPU orderings where it leaves ties to the C++ standard library or its own
quickselect: ports of libstdc++'s std::sort (introsort), std::nth_element (introselect)
and std::partial_sort (heap select), and of ATen's quick_select_template, on a row of
keys with their int64 indices moved alongside.

PyTorch's non-stable sort, topk, kthvalue and mode order equal keys however these
algorithms leave them, so matching PyTorch's indices (and where a gradient goes among
ties) means running the same steps.  The comparators (`_before`):
  ASC   (!isnan(a) && isnan(b)) || a < b    sort ascending, topk smallest (NaN largest)
  DESC  (isnan(a) && !isnan(b)) || a > b    sort descending, topk largest, kthvalue's gt_or_nan
  LESS  a < b                                mode's pair comparator
"""
import numpy as np
from numba.extending import register_jitable

# helpers (the cache rule, nbgrad/backends/_shared: the CPU's sorting kernel compiles them in,
# keyed by their source); CPU only
_kernel = register_jitable(error_model="numpy")

ASC, DESC, LESS = 0, 1, 2
_THRESHOLD = 16          # libstdc++'s _S_threshold


@_kernel
def _before(a, b, cmp):
    if cmp == ASC:
        return (a == a and b != b) or a < b
    if cmp == DESC:
        return (a != a and b == b) or a > b
    return a < b


@_kernel
def _swap(k, ix, i, j):
    t = k[i]
    k[i] = k[j]
    k[j] = t
    u = ix[i]
    ix[i] = ix[j]
    ix[j] = u


@_kernel
def _lg(n):
    r = -1
    while n > 0:
        n >>= 1
        r += 1
    return r


# -- heaps (bits/stl_heap.h); positions relative to `first`
@_kernel
def _push_heap(k, ix, first, hole, top, vk, vi, cmp):
    parent = (hole - 1) // 2
    while hole > top and _before(k[first + parent], vk, cmp):
        k[first + hole] = k[first + parent]
        ix[first + hole] = ix[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    k[first + hole] = vk
    ix[first + hole] = vi


@_kernel
def _adjust_heap(k, ix, first, hole, length, vk, vi, cmp):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _before(k[first + child], k[first + child - 1], cmp):
            child -= 1
        k[first + hole] = k[first + child]
        ix[first + hole] = ix[first + child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        k[first + hole] = k[first + child - 1]
        ix[first + hole] = ix[first + child - 1]
        hole = child - 1
    _push_heap(k, ix, first, hole, top, vk, vi, cmp)


@_kernel
def _make_heap(k, ix, first, last, cmp):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(k, ix, first, parent, length, k[first + parent], ix[first + parent], cmp)
        if parent == 0:
            return
        parent -= 1


@_kernel
def _pop_heap(k, ix, first, last, result, cmp):
    vk = k[result]
    vi = ix[result]
    k[result] = k[first]
    ix[result] = ix[first]
    _adjust_heap(k, ix, first, 0, last - first, vk, vi, cmp)


@_kernel
def _heap_select(k, ix, first, middle, last, cmp):
    _make_heap(k, ix, first, middle, cmp)
    for i in range(middle, last):
        if _before(k[i], k[first], cmp):
            _pop_heap(k, ix, first, middle, i, cmp)


@_kernel
def _sort_heap(k, ix, first, last, cmp):
    while last - first > 1:
        last -= 1
        _pop_heap(k, ix, first, last, last, cmp)


@_kernel
def partial_sort(k, ix, first, middle, last, cmp):
    """std::partial_sort(first, middle, last)."""
    _heap_select(k, ix, first, middle, last, cmp)
    _sort_heap(k, ix, first, middle, cmp)


# -- introsort / introselect (bits/stl_algo.h)
@_kernel
def _move_median_to_first(k, ix, result, a, b, c, cmp):
    if _before(k[a], k[b], cmp):
        if _before(k[b], k[c], cmp):
            _swap(k, ix, result, b)
        elif _before(k[a], k[c], cmp):
            _swap(k, ix, result, c)
        else:
            _swap(k, ix, result, a)
    elif _before(k[a], k[c], cmp):
        _swap(k, ix, result, a)
    elif _before(k[b], k[c], cmp):
        _swap(k, ix, result, c)
    else:
        _swap(k, ix, result, b)


@_kernel
def _unguarded_partition_pivot(k, ix, first, last, cmp):
    mid = first + (last - first) // 2
    _move_median_to_first(k, ix, first, first + 1, mid, last - 1, cmp)
    pivot = first
    lo = first + 1
    hi = last
    while True:
        while _before(k[lo], k[pivot], cmp):
            lo += 1
        hi -= 1
        while _before(k[pivot], k[hi], cmp):
            hi -= 1
        if not lo < hi:
            return lo
        _swap(k, ix, lo, hi)
        lo += 1


@_kernel
def _unguarded_linear_insert(k, ix, last, cmp):
    vk = k[last]
    vi = ix[last]
    nxt = last - 1
    while _before(vk, k[nxt], cmp):
        k[last] = k[nxt]
        ix[last] = ix[nxt]
        last = nxt
        nxt -= 1
    k[last] = vk
    ix[last] = vi


@_kernel
def _insertion_sort(k, ix, first, last, cmp):
    if first == last:
        return
    for i in range(first + 1, last):
        if _before(k[i], k[first], cmp):
            vk = k[i]
            vi = ix[i]
            for j in range(i, first, -1):
                k[j] = k[j - 1]
                ix[j] = ix[j - 1]
            k[first] = vk
            ix[first] = vi
        else:
            _unguarded_linear_insert(k, ix, i, cmp)


@_kernel
def std_sort(k, ix, first, last, cmp, stack):
    """std::sort(first, last).  stack: int64 scratch of at least 3 * (2 * lg(n) + 2) entries
    (the introsort loop's right-hand ranges, which libstdc++ recurses into: they are
    disjoint, so the order they are done in does not change the result)."""
    n = last - first
    if n <= 0:
        return
    sp = 0
    stack[0], stack[1], stack[2] = first, last, _lg(n) * 2
    sp = 1
    while sp > 0:
        sp -= 1
        f, l, depth = stack[3 * sp], stack[3 * sp + 1], stack[3 * sp + 2]
        while l - f > _THRESHOLD:
            if depth == 0:
                partial_sort(k, ix, f, l, l, cmp)
                break
            depth -= 1
            cut = _unguarded_partition_pivot(k, ix, f, l, cmp)
            stack[3 * sp], stack[3 * sp + 1], stack[3 * sp + 2] = cut, l, depth
            sp += 1
            l = cut
    # __final_insertion_sort
    if n > _THRESHOLD:
        _insertion_sort(k, ix, first, first + _THRESHOLD, cmp)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(k, ix, i, cmp)
    else:
        _insertion_sort(k, ix, first, last, cmp)


@_kernel
def nth_element(k, ix, first, nth, last, cmp):
    """std::nth_element(first, nth, last)."""
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(k, ix, first, nth + 1, last, cmp)
            _swap(k, ix, first, nth)
            return
        depth -= 1
        cut = _unguarded_partition_pivot(k, ix, first, last, cmp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(k, ix, first, last, cmp)


@_kernel
def quick_select(k, ix, kth):
    """ATen's quick_select_template over the whole row with gt_or_nan (DESC's comparator):
    afterwards position kth holds the element kthvalue returns."""
    L = 0
    R = k.size - 1
    while True:
        if R <= L:
            return
        if R == L + 1:
            if _before(k[L], k[R], DESC):
                _swap(k, ix, L, R)
            return
        P = L + (R - L) // 2
        _swap(k, ix, P, L + 1)
        if _before(k[L + 1], k[R], DESC):
            _swap(k, ix, L + 1, R)
        if _before(k[L], k[R], DESC):
            _swap(k, ix, L, R)
        if _before(k[L + 1], k[L], DESC):
            _swap(k, ix, L + 1, L)
        i = L + 1
        j = R
        piv = k[L]
        while True:
            i += 1
            while _before(piv, k[i], DESC):
                i += 1
            j -= 1
            while _before(k[j], piv, DESC):
                j -= 1
            if j < i:
                break
            _swap(k, ix, i, j)
        _swap(k, ix, L, j)
        if j <= kth:
            L = i
        if j >= kth:
            R = j - 1


# -- rows: the arrangement each of PyTorch's CPU kernels leaves (keys with their indices)
STD, TOPK, TOPK_SORTED, KTH, MODE = 1, 2, 3, 4, 5


@_kernel
def arrange_rows(x, rows, n, order, cmp, kk, values, indices):
    """Each contiguous row of x (rows of n) arranged as PyTorch's CPU kernel leaves it:
    STD       std::sort with cmp (sort, argsort with stable=False);
    TOPK(_SORTED)  topk's k = kk: std::partial_sort when kk * 64 <= n, else std::nth_element
              at kk - 1 (then std::sort of the first kk - 1 when sorted): the first kk are its result;
    KTH       quick_select at kk - 1 (kthvalue): position kk - 1 is its result;
    MODE      std::sort with LESS, then the mode (the first longest run; the index at the run's
              end) swapped to position 0."""
    stack = np.empty(3 * (2 * 64 + 2), np.int64)
    for r in range(rows):
        k = values[r * n:(r + 1) * n]
        ix = indices[r * n:(r + 1) * n]
        for j in range(n):
            k[j] = x[r * n + j]
            ix[j] = j
        if order == STD:
            std_sort(k, ix, 0, n, cmp, stack)
        elif order == TOPK or order == TOPK_SORTED:
            if kk * 64 <= n:
                partial_sort(k, ix, 0, kk, n, cmp)
            elif kk > 0:
                nth_element(k, ix, 0, kk - 1, n, cmp)
                if order == TOPK_SORTED:
                    std_sort(k, ix, 0, kk - 1, cmp, stack)
        elif order == KTH:
            quick_select(k, ix, kk - 1)
        elif n > 0:
            std_sort(k, ix, 0, n, LESS, stack)
            best = 0
            at = 0
            run = 0
            for i in range(n):
                run += 1
                if i == n - 1 or k[i] != k[i + 1]:
                    if run > best:
                        best = run
                        at = i
                    run = 0
            _swap(k, ix, 0, at)
