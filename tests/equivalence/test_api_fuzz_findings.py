"""What the public-API fuzzer (python -m tests.differential.api_fuzz) found: a call with odd
arguments that gave another value, gradient, flag or error than PyTorch 2.13, or hung or
took the process down.  Expected values and messages recorded from PyTorch 2.13."""
import math
import warnings
import os

import numpy as np
import pytest

import nbgrad

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
F = nbgrad.nn.functional


# -- a wrong gradient: trace of a tall matrix -------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 1), (1, 3), (3, 2), (2, 3), (4, 4), (5, 2)])
def test_trace_gradient_is_the_identity_of_the_matrix_shape(shape):
    # (3, 1) used to get [[1], [0], [1]]: every (m + 1)-th flat element, past the diagonal's end
    x = nbgrad.zeros(shape, dtype=nbgrad.float64, requires_grad=True)
    nbgrad.trace(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.eye(*shape))


# -- logit: a negative eps is no eps ---------------------------------------------------------------
@pytest.mark.parametrize("eps", [-0.25, -float("inf"), None])
def test_logit_negative_eps_is_no_clamp(eps):
    x = nbgrad.tensor([0.5, -1.0, 2.0], dtype=nbgrad.float64, requires_grad=True)
    y = nbgrad.logit(x, eps)
    y.sum().backward()
    assert y[0].item() == 0.0 and math.isnan(y[1].item()) and math.isnan(y[2].item())
    # (a clamp to [eps, 1 - eps] would give 0 there; PyTorch's kernel takes eps < 0 for none)
    assert x.grad[0].item() == 4.0 and math.isnan(x.grad[1].item()) and math.isnan(x.grad[2].item())


def test_logit_positive_eps_still_clamps():
    x = nbgrad.tensor([0.5, -1.0, 2.0], dtype=nbgrad.float64, requires_grad=True)
    nbgrad.logit(x, 0.25).sum().backward()
    assert x.grad.tolist() == [4.0, 0.0, 0.0]


# -- empty inputs keep their graph -----------------------------------------------------------------
@pytest.mark.parametrize("op,node", [("median", "MedianBackward0"), ("nanmedian", "NanmedianBackward0")])
def test_median_of_an_empty_tensor_records_its_node(op, node):
    e = nbgrad.zeros((2, 0), requires_grad=True)
    m = getattr(e, op)()
    assert m.requires_grad and m.grad_fn.name() == node and math.isnan(m.item())
    m.backward()
    assert e.grad.shape == (2, 0)


def test_number_remainder_tensor_has_no_derivative_as_in_pytorch():
    x = nbgrad.tensor([1.5, 2.5], requires_grad=True)
    for r in (3 % x, nbgrad.remainder(3, x), 3 % nbgrad.zeros((2, 0), requires_grad=True)):
        assert r.requires_grad and r.grad_fn.name() == "torch::autograd::NotImplemented"
        assert repr(r.grad_fn).startswith("<NotImplemented object at ")
    with pytest.raises(RuntimeError, match="derivative for aten::remainder is not implemented"):
        (3 % x).sum().backward()
    assert x.grad is None
    assert (x % 3).grad_fn.name() == "RemainderBackward0"


def test_not_implemented_nodes_name_themselves_with_the_namespace():
    x = nbgrad.tensor([1.5, 2.5], requires_grad=True)
    r = x // 2
    assert r.grad_fn.name() == "torch::autograd::NotImplemented" and type(r.grad_fn).__name__ == "NotImplemented"
    y = x.clone()
    y[0] = 1.0
    assert y.grad_fn.name() == "torch::autograd::CopySlices" and repr(y.grad_fn).startswith("<CopySlices object")


# -- squeeze of no dims ----------------------------------------------------------------------------
@pytest.mark.parametrize("dims", [[], ()])
def test_squeeze_of_an_empty_dim_list_squeezes_nothing(dims):
    x = nbgrad.zeros(1, 3, 1, requires_grad=True)
    y = x.squeeze(dims)
    assert y.shape == (1, 3, 1) and y.grad_fn.name() == "SqueezeBackward2"
    assert nbgrad.squeeze(x, dims).shape == (1, 3, 1)
    z = x.clone()
    assert z.squeeze_(dims) is z and z.shape == (1, 3, 1) and z.grad_fn.name() == "SqueezeBackward5"
    assert x.squeeze([0, 2]).shape == (3,) and x.clone().squeeze_((0,)).shape == (3, 1)


# -- arguments that are not what the signature takes ---------------------------------------------
@pytest.mark.parametrize("call", [lambda x: x.abs(5), lambda x: x.exp(1, 2), lambda x: nbgrad.digamma(x, 2),
                                  lambda x: x.sqrt_(1)])
def test_table_ops_refuse_extra_positional_arguments(call):
    x = nbgrad.ones(3)
    with pytest.raises(TypeError):
        call(x)
    assert x.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("pool,x", [
    (F.adaptive_avg_pool2d, (1, 2, 4, 4)), (F.adaptive_max_pool2d, (1, 2, 4, 4)), (F.adaptive_avg_pool1d, (1, 2, 4)),
    (F.adaptive_max_pool1d, (1, 2, 4)), (F.adaptive_avg_pool3d, (1, 2, 4, 4, 4)), (F.adaptive_max_pool3d, (1, 2, 4, 4, 4)),
])
def test_adaptive_pool_output_size_must_be_an_integer(pool, x):
    # (a float was taken by int(): 1e30 ran out of time building the windows)
    with pytest.raises(TypeError):
        pool(nbgrad.ones(x), 1.5)
    with pytest.raises(TypeError):
        pool(nbgrad.ones(x), 1e30)


# -- sizes computed before any work ------------------------------------------------------------------
def test_triangle_indices_of_a_huge_matrix_are_refused_before_any_work():
    # (used to build (row, col) index grids first: triu_indices(3, 2**31) filled the memory)
    for f in (nbgrad.triu_indices, nbgrad.tril_indices):
        with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed with sizes=\[2, "):
            f(2 ** 31, 2 ** 31)


@pytest.mark.parametrize("lower", [True, False])
def test_triangle_indices_match_numpy_for_every_offset(lower):
    for row in range(5):
        for col in range(5):
            for offset in range(-6, 7):
                r, c = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
                got = (nbgrad.tril_indices if lower else nbgrad.triu_indices)(row, col, offset)
                assert got.shape == (2, len(r)) and got.tolist() == [r.tolist(), c.tolist()]


# -- a float array or tensor made bool: x != 0, not truncated first ----------------------------------
def test_tensor_of_float_data_as_bool_is_nonzero_not_truncated():
    # (0.52 used to become False: floats were truncated toward zero for bool as for integers)
    data = [0.52, -1.73, 0.0, 0.3, -0.0]
    want = [True, True, False, True, False]
    assert nbgrad.tensor(np.array(data), dtype=nbgrad.bool).tolist() == want
    assert nbgrad.tensor(nbgrad.tensor(data, dtype=nbgrad.float64), dtype=nbgrad.bool).tolist() == want
    assert nbgrad.zeros(2, dtype=nbgrad.bool).new_tensor(np.array(data)).tolist() == want
    assert nbgrad.tensor(np.array([np.nan]), dtype=nbgrad.bool).tolist() == [True]
    # integers still truncate toward zero
    assert nbgrad.tensor(np.array([2.7, -2.7, -0.5]), dtype=nbgrad.int64).tolist() == [2, -2, 0]
    assert nbgrad.tensor(np.array([0.5, 1.5]), dtype=nbgrad.uint8).tolist() == [0, 1]


# -- add/sub's alpha: PyTorch's alpha_check, before anything is written ------------------------------
@pytest.mark.parametrize("call,msg", [
    (lambda: nbgrad.tensor([1, 2]).add(nbgrad.tensor([1, 2]), alpha=0.5), "For integral input tensors, argument alpha"),
    (lambda: nbgrad.tensor([1, 2]).add(3, alpha=2.5), "For integral input tensors, argument alpha"),
    (lambda: nbgrad.tensor([True]).add(nbgrad.tensor([True]), alpha=0.5), "For integral input tensors, argument alpha"),
    (lambda: nbgrad.tensor([1.0, 2.0]).add(nbgrad.tensor([1.0, 2.0]), alpha=True), "Boolean alpha only supported"),
    (lambda: nbgrad.sub(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([1.0, 2.0]), alpha=False), "Boolean alpha only supported"),
])
def test_alpha_of_the_wrong_kind_is_refused(call, msg):
    with pytest.raises(RuntimeError, match=msg):
        call()


@pytest.mark.parametrize("values,other,alpha", [([1, 2], [1, 2], 0.5), ([1.0, 2.0], [1.0, 2.0], True)])
def test_in_place_alpha_refused_writes_nothing(values, other, alpha):
    t = nbgrad.tensor(values)
    with pytest.raises(RuntimeError):
        t.add_(nbgrad.tensor(other), alpha=alpha)
    assert t.tolist() == values and t._version == 0
    assert nbgrad.tensor([True, False]).add(nbgrad.tensor([True, True]), alpha=True).tolist() == [True, True]
    assert nbgrad.tensor([1, 2]).add(nbgrad.tensor([1, 2]), alpha=2).tolist() == [3, 6]


# -- sequence and vector arguments --------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack",
                                  "column_stack", "row_stack"])
def test_a_tensor_is_not_a_list_of_tensors(name):
    # (list(t) split it into its rows: stack(t) gave t back, cat(t) its rows joined)
    with pytest.raises(TypeError, match=r"argument 'tensors' \(position 1\) must be tuple of Tensors, not Tensor"):
        getattr(nbgrad, name)(nbgrad.ones(2, 3))


@pytest.mark.parametrize("args", [((2, 3),), ((2,), ()), ((0,), (2, 1))])
def test_cartesian_prod_takes_vectors_only(args):
    with pytest.raises(RuntimeError, match="Expect a 1D vector, but got shape"):
        nbgrad.cartesian_prod(*[nbgrad.ones(s) for s in args])
    assert nbgrad.cartesian_prod(nbgrad.tensor([1, 2]), nbgrad.tensor([3])).tolist() == [[1, 3], [2, 3]]


# -- cholesky_ex of a matrix that is not positive-definite ------------------------------------------
def _potf2(a):
    """LAPACK's unblocked left-looking Cholesky, as far as it goes (what PyTorch returns)."""
    n = a.shape[0]
    low = np.tril(a).copy()
    for j in range(n):
        d = a[j, j] - low[j, :j] @ low[j, :j]
        if not d > 0:
            low[j, j] = d
            return low, j + 1
        low[j, j] = np.sqrt(d)
        for i in range(j + 1, n):
            low[i, j] = (a[i, j] - low[i, :j] @ low[j, :j]) / low[j, j]
    return low, 0


def test_cholesky_ex_of_a_matrix_not_positive_definite_returns_the_partial_factor():
    # (it returned uninitialised memory, or the input, where PyTorch returns the factor so far)
    r = nbgrad.linalg.cholesky_ex(nbgrad.tensor([[4.0, 2.0], [2.0, -3.0]], dtype=nbgrad.float64))
    assert r.L.tolist() == [[2.0, 0.0], [1.0, -4.0]] and r.info.item() == 2      # (PyTorch 2.13's)
    r = nbgrad.linalg.cholesky_ex(nbgrad.tensor([[4.0, 2.0], [2.0, -3.0]], dtype=nbgrad.float64), upper=True)
    assert r.L.tolist() == [[2.0, 1.0], [0.0, -4.0]]
    rng = np.random.default_rng(5)
    for n in range(1, 9):
        a = rng.standard_normal((n, n))
        a = a @ a.T * 0.1 - np.eye(n) * rng.uniform(0, 1)
        want, info = _potf2(a)
        r = nbgrad.linalg.cholesky_ex(nbgrad.from_numpy(a))
        assert r.info.item() == info
        np.testing.assert_allclose(r.L.numpy(), want, rtol=1e-12, atol=1e-12)


# -- threshold on integers: its numbers read as the tensor's type --------------------------------------
def test_threshold_of_an_integer_tensor_truncates_its_numbers():
    x = nbgrad.tensor([-2, -1, 0, 1, 3])
    assert nbgrad.threshold(x, -1.5, 7).tolist() == [7, 7, 0, 1, 3]          # (-1 > -1 is False)
    assert F.threshold(x, 2.9, -7.6).tolist() == [-7, -7, -7, -7, 3]
    y = x.clone()
    assert nbgrad.threshold_(y, -1.5, 3) is y and y.tolist() == [3, 3, 0, 1, 3]
    assert nbgrad.threshold(nbgrad.tensor([0.5, 1.5]), 1, 7.5).tolist() == [7.5, 1.5]


# -- a number, tuple or None where a tensor belongs: PyTorch's TypeError --------------------------------
@pytest.mark.parametrize("call,msg", [
    (lambda: nbgrad.diff(3), "diff(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: nbgrad.cross(nbgrad.ones(3), (1, 2, 3), dim=0), "cross(): argument 'other' (position 2) must be Tensor, not tuple"),
    (lambda: nbgrad.argmax(2), "argmax(): argument 'input' (position 1) must be Tensor, not int"),
    # (of its two overloads neither takes a float mask: PyTorch lists them)
    (lambda: nbgrad.masked_fill(nbgrad.ones(2), 1.5, nbgrad.ones(2)),
     "masked_fill() received an invalid combination of arguments - got (Tensor, float, Tensor), but expected one of:"),
    (lambda: F.cosine_similarity(3, nbgrad.ones(2)), "cosine_similarity(): argument 'x1' (position 1) must be Tensor, not int"),
    (lambda: F.bilinear(1.5, nbgrad.ones(2), nbgrad.ones(2, 2, 2)), "bilinear(): argument 'input1' (position 1) must be Tensor, not float"),
    (lambda: F.one_hot(2.5), "one_hot(): argument 'input' (position 1) must be Tensor, not float"),
])
def test_an_argument_that_is_not_a_tensor_is_a_type_error(call, msg):
    # (it was an AttributeError from inside: "'int' object has no attribute 'dim'")
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value).split("\n")[0] == msg


def test_warnings_point_at_the_users_line_through_wrappers_and_modules():
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nbgrad.cross(nbgrad.ones(3), nbgrad.ones(3))                    # through the argument wrapper
        nbgrad.nn.Softmax()(nbgrad.ones(2, 2))                           # a module calling F.softmax
        F.softmax(nbgrad.ones(2, 2))
    # (PyTorch 2.13's nn.Softmax passes F.softmax a stacklevel that now lands in its own
    # module.py; nbgrad points at the user's line there too)
    mine = [w for k, w in enumerate(caught) if not (AGAINST_TORCH and k == 1)]
    assert len(caught) == 3 and all(w.filename == __file__ for w in mine), [(w.filename, w.lineno) for w in caught]


@pytest.mark.parametrize("call,msg", [
    (lambda: nbgrad.linalg.cross(3, nbgrad.ones(3)), "linalg_cross(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: nbgrad.special.expit(3), "must be Tensor, not int"),
    (lambda: nbgrad.nn.functional.gelu(2), "gelu(): argument 'input' (position 1) must be Tensor, not int"),
])
def test_linalg_special_and_functional_refuse_non_tensors_as_pytorch(call, msg):
    with pytest.raises(TypeError) as info:
        call()
    if not AGAINST_TORCH:
        assert msg in str(info.value)


def test_wrapped_public_functions_pickle_as_themselves():
    import pickle
    for fn in (nbgrad.nn.functional.gelu, nbgrad.linalg.cross, nbgrad.special.expit, nbgrad.diff):
        assert pickle.loads(pickle.dumps(fn)) is fn


@pytest.mark.parametrize("source,destination,msg", [
    ((0,), (), r"source \(\[0\] dims\) should contain the same number of dims as destination \(\[\] dims\)"),
    ((0, 0), (0, 1), r"repeated dim in `source` \(\[0, 0\]\)"),
    ((0, 1), (1, 1), r"repeated dim in `destination` \(\[1, 1\]\)"),
    ((0, -2), (1, 0), r"repeated dim in `source` \(\[0, -2\]\)"),
])
def test_movedim_refuses_mismatched_or_repeated_dims(source, destination, msg):
    # (a source longer than destination leaked a StopIteration from inside)
    with pytest.raises(RuntimeError, match=msg):
        nbgrad.movedim(nbgrad.ones(2, 3), source, destination)
    assert nbgrad.moveaxis(nbgrad.ones(2, 3), (-1,), (0,)).shape == (3, 2)


# -- a wrong gradient: rsub's alpha -----------------------------------------------------------------
@pytest.mark.parametrize("alpha", [0.5, 2, 1e-30, 1])
def test_rsub_gradient_carries_alpha(alpha):
    # (the scaled operand was a recorded product the node skipped: -grad for every alpha)
    x = nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64, requires_grad=True)
    y = nbgrad.tensor([3.0, 4.0], dtype=nbgrad.float64, requires_grad=True)
    r = nbgrad.rsub(x, y, alpha=alpha)
    r.sum().backward()
    assert r.tolist() == [3.0 - alpha * 1.0, 4.0 - alpha * 2.0] and r.grad_fn.name() == "RsubBackward0"
    assert x.grad.tolist() == [-alpha, -alpha] and y.grad.tolist() == [1.0, 1.0]
    x2 = nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64, requires_grad=True)
    nbgrad.rsub(x2, 5.0, alpha=alpha).sum().backward()
    assert x2.grad.tolist() == [-alpha, -alpha]
    assert nbgrad.autograd.gradcheck(lambda t, u: nbgrad.rsub(t, u, alpha=alpha), (x, y))


# -- pow's exponent gradient: the base's log in the result's type ---------------------------------
def test_pow_exponent_gradient_takes_the_log_of_the_promoted_base():
    b = nbgrad.tensor([1.5, 2.5, 0.7], dtype=nbgrad.float64, requires_grad=True)
    (nbgrad.tensor([3]) ** b).sum().backward()
    want = 3.0 ** np.array([1.5, 2.5, 0.7]) * np.log(3.0)
    np.testing.assert_allclose(b.grad.numpy(), want, rtol=1e-14)        # (float32's log: 2e-8 off)
    x = nbgrad.tensor([0.3, 1.7], requires_grad=True)
    base = nbgrad.tensor(1.37, dtype=nbgrad.float16)
    (base ** x).sum().backward()
    b32 = np.float32(np.float16(1.37))
    np.testing.assert_allclose(x.grad.numpy(), b32 ** np.float32([0.3, 1.7]) * np.log(b32), rtol=1e-6)


# -- *_with_indices: a tuple whatever return_indices says ------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: F.max_pool3d_with_indices(nbgrad.ones(1, 2, 4, 4, 4), 2, return_indices=False),
    lambda: F.adaptive_max_pool3d_with_indices(nbgrad.ones(1, 2, 4, 4, 4), 2, False),
    lambda: F.max_pool2d_with_indices(nbgrad.ones(1, 2, 4, 4), 2, return_indices=False),
    lambda: F.adaptive_max_pool2d_with_indices(nbgrad.ones(1, 2, 4, 4), 2, False),
])
def test_with_indices_pools_return_values_and_indices(call):
    values, indices = call()
    assert indices.dtype == nbgrad.int64 and values.shape == indices.shape


# -- x.__rtruediv__(y) is PyTorch's self.reciprocal() * other, a tensor y too -----------------------
def test_rtruediv_with_a_tensor_rounds_the_reciprocal_first():
    a = np.array([0.3, -1.7, 2.9, 7.0], dtype=np.float32)
    x = nbgrad.tensor(a, requires_grad=True)
    y = nbgrad.tensor([3.0], dtype=nbgrad.float64)
    r = x.__rtruediv__(y)
    assert r.dtype is nbgrad.float64 and r.grad_fn.name() == "MulBackward0"
    # (y / x in float64 was 5e-9 off: the float32 reciprocal's rounding is PyTorch's value)
    np.testing.assert_array_equal(r.detach().numpy(), (np.float32(1) / a).astype(np.float64) * 3.0)
    assert (5 / x).grad_fn.name() == "MulBackward0"


# -- var/std of an empty input is NaN whatever the correction --------------------------------------
@pytest.mark.parametrize("correction", [-3, 0, 1])
@pytest.mark.parametrize("shape,dim", [((2, 0), None), ((2, 0), 1), ((0, 3), 0), ((0,), None)])
def test_variance_of_an_empty_input_is_nan(shape, dim, correction):
    z = nbgrad.zeros(shape, dtype=nbgrad.float64)
    for fn in (nbgrad.var, nbgrad.std, lambda *a, **k: nbgrad.var_mean(*a, **k)[0],
               lambda *a, **k: nbgrad.std_mean(*a, **k)[0]):
        out = fn(z, dim=dim, correction=correction)
        assert out.numel() and np.isnan(out.numpy()).all()     # (-3 gave 0 / 3 = 0)


# -- chain_matmul writes its out= ----------------------------------------------------------------------
def test_chain_matmul_writes_out():
    m = nbgrad.tensor([[1.5, -2.0, 0.25]]).half()
    out = nbgrad.empty(0, dtype=nbgrad.float64)
    assert nbgrad.chain_matmul(m, out=out) is out           # one matrix: copied, any dtype
    assert out.shape == (1, 3) and out.tolist() == [[1.5, -2.0, 0.25]]
    a = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = nbgrad.empty(0)
    assert nbgrad.chain_matmul(a, a, a, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.linalg.matrix_power(a.numpy(), 3))
    with pytest.raises(RuntimeError, match="dtype"):
        nbgrad.chain_matmul(a, a, out=nbgrad.empty(0, dtype=nbgrad.float64))


def test_nan_to_num_on_bfloat16():
    x = nbgrad.tensor([float("inf"), float("nan"), -float("inf"), 1.0], dtype=nbgrad.bfloat16)
    big = 3.3895313892515355e+38        # bfloat16's largest finite value
    assert nbgrad.nan_to_num(x, 5).float().tolist() == [big, 5.0, -big, 1.0]
    x.nan_to_num_()
    assert x.float().tolist() == [big, 0.0, -big, 1.0]


# -- torch.<loss>(...) defaults to no reduction (the binding's default; F's is "mean") -----------
@pytest.mark.parametrize("name,nargs", [("hinge_embedding_loss", 2), ("cosine_embedding_loss", 3),
                                        ("margin_ranking_loss", 3), ("kl_div", 2),
                                        ("binary_cross_entropy_with_logits", 2), ("triplet_margin_loss", 3)])
def test_toplevel_losses_do_not_reduce_by_default(name, nargs):
    x = nbgrad.tensor(np.random.default_rng(0).random((3, 4)), dtype=nbgrad.float32)
    args = {"hinge_embedding_loss": (x, x.sign()), "cosine_embedding_loss": (x, x * 2, nbgrad.tensor([1., -1, 1])),
            "margin_ranking_loss": (x, x * 2, x.sign()), "kl_div": (x, x), "binary_cross_entropy_with_logits": (x, x),
            "triplet_margin_loss": (x, x * 2, x)}[name]
    fn = getattr(nbgrad, name)
    unreduced = fn(*args)
    assert unreduced.dim() >= 1
    np.testing.assert_array_equal(unreduced.numpy(), fn(*args, reduction=0).numpy())
    assert fn(*args, reduction=1).dim() == 0


# -- a Scalar argument: a bool is a number, a 0-dim tensor its value ------------------------------
def test_norm_orders_take_bools_and_0dim_tensors():
    x = nbgrad.tensor([[3.0, -4.0], [1.0, 2.0]])
    zero = x * 0
    assert nbgrad.dist(x, zero, True).item() == 10.0            # p = 1
    assert nbgrad.dist(x, zero, False).item() == 4.0            # p = 0: the count of non-zeros
    assert nbgrad.dist(x, zero, nbgrad.tensor(1.0)).item() == 10.0
    assert nbgrad.linalg.vector_norm(x, True).item() == 10.0
    assert nbgrad.linalg.vector_norm(x, nbgrad.tensor(1.0)).item() == 10.0
    assert F.pairwise_distance(x, zero, False).tolist() == [2.0, 2.0]
    for bad, kind in ((nbgrad.tensor([1.0, 2.0]), "Tensor"), ("a", "str"), (None, "NoneType"),
                      (nbgrad.tensor(1.0, requires_grad=True), "Tensor")):
        with pytest.raises(TypeError, match=f"dist\\(\\): argument 'p' \\(position 3\\) must be Number, not {kind}"):
            nbgrad.dist(x, x, bad)
    with pytest.raises(TypeError, match="argument 'ord' \\(position 2\\) must be Number, not Tensor"):
        nbgrad.linalg.vector_norm(x, nbgrad.tensor([1.0, 2.0]))


# -- average pooling of int64: PyTorch's CPU kernel sums in int64 and truncates the quotient --------
def test_avg_pool_of_int64_truncates():
    x = nbgrad.tensor([[[-7, 7, -7, 7, 5, -5]]])
    assert F.avg_pool1d(x, 2).tolist() == [[[0, 0, 0]]]
    assert F.avg_pool1d(x, 3).tolist() == [[[-2, 2]]]
    assert F.avg_pool1d(x, 2, padding=1).tolist() == [[[-3, 0, 6, -2]]]
    assert F.avg_pool2d(x.unsqueeze(0), (1, 2), divisor_override=-2).tolist() == [[[[0, 0, 0]]]]
    assert F.avg_pool1d(x, 3, ceil_mode=True, count_include_pad=False).dtype is nbgrad.int64
    # past 2**53 a float quotient would round; the sum wraps as int64's does
    big = nbgrad.tensor([[[[2**62, 2**62 + 1, -2**62, 1, -2**63, -1, -2**63 + 5, 0]]]])
    assert F.avg_pool2d(big, (1, 2)).tolist() == [[[[-4611686018427387903, -2305843009213693951,
                                                     4611686018427387903, -4611686018427387901]]]]
    assert F.avg_pool2d(big, (1, 2), divisor_override=-3).tolist() == [[[[3074457345618258602, 1537228672809129301,
                                                                        -3074457345618258602, 3074457345618258601]]]]
    if AGAINST_TORCH:
        return      # PyTorch itself dies of SIGFPE on INT64_MIN / -1; nbgrad wraps:
    assert F.avg_pool2d(nbgrad.tensor([[[[-2**63, 0]]]]), (1, 2), divisor_override=-1).tolist() == [[[[-2**63]]]]


def test_pools_on_other_integer_types_and_bool_refuse_as_pytorch():
    for dt, name in ((nbgrad.int32, "Int"), (nbgrad.uint8, "Byte"), (nbgrad.bool, "Bool")):
        with pytest.raises(NotImplementedError, match=f"\"avg_pool2d\" not implemented for '{name}'"):
            F.avg_pool2d(nbgrad.ones(1, 4, 4, dtype=dt), 2)
    with pytest.raises(NotImplementedError, match="\"max_pool2d\" not implemented for 'Bool'"):
        F.max_pool2d(nbgrad.ones(1, 4, 4, dtype=nbgrad.bool), 2)


def test_lp_pool_and_local_response_norm_of_int64():
    a = (np.arange(2 * 3 * 4 * 4).reshape(2, 3, 4, 4) % 7 - 3)
    out = F.lp_pool2d(nbgrad.tensor(a), 2, 2)
    assert out.dtype is nbgrad.float32
    # PyTorch: avg_pool2d(x ** 2) in int64 (truncated), * 4, sqrt
    sq = (a ** 2).reshape(2, 3, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 2, 2, 4).sum(-1)
    np.testing.assert_allclose(out.numpy(), np.sqrt((sq // 4) * 4).astype(np.float32), rtol=1e-6)
    lrn = F.local_response_norm(nbgrad.tensor(a[:, :, 0]), 2)
    assert lrn.dtype is nbgrad.float32 and lrn.shape == (2, 3, 4)


def test_hinge_embedding_loss_keeps_an_integer_input_integer():
    # PyTorch's margin - self is empty_like(self).fill_(margin) - self: int64 throughout,
    # the margin truncated (0.7 -> 0)
    x = nbgrad.tensor([[-2, 0, 1], [3, 0, 0]])
    t = nbgrad.tensor([[1, -1, -1], [-1, 1, -1]])
    for margin, expected in ((1.0, [[-2, 1, 0], [0, 0, 1]]), (0.7, [[-2, 0, 0], [0, 0, 0]]), (2, [[-2, 2, 1], [0, 0, 2]])):
        r = F.hinge_embedding_loss(x, t, margin, reduction="none")
        assert r.dtype is nbgrad.int64 and r.tolist() == expected
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        F.hinge_embedding_loss(x, t)


# -- the op table's Scalar parameters are read as PyTorch's parser reads them ----------------------
@pytest.mark.parametrize("name,kw,kind", [("elu", {"alpha": None}, "NoneType"), ("elu", {"alpha": "a"}, "str"),
                                          ("leaky_relu", {"negative_slope": nbgrad.tensor([0.5, 0.2])}, "Tensor"),
                                          ("celu", {"alpha": None}, "NoneType"),
                                          ("elu", {"alpha": nbgrad.tensor(0.5, requires_grad=True)}, "Tensor"),
                                          ("threshold", {"threshold": None, "value": 1.0}, "NoneType")])
def test_table_parameters_refuse_what_is_not_a_number(name, kw, kind):
    # (float() inside raised "float() argument must be ...", a ValueError for a str, or
    # struct.error for celu's alpha)
    arg = next(iter(kw))
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument '{arg}' \\(position 2\\) must be Number, not {kind}"):
        getattr(F, name)(nbgrad.tensor([0.5, -1.0]), **kw)


def test_table_parameters_take_bools_and_0dim_tensors():
    x = nbgrad.tensor([0.5, -1.0])
    assert F.elu(x, alpha=True).tolist() == F.elu(x, alpha=1.0).tolist()
    assert F.elu(x, alpha=nbgrad.tensor(0.5)).tolist() == F.elu(x, alpha=0.5).tolist()
    assert F.celu(x, alpha=nbgrad.tensor(0.5)).tolist() == F.celu(x, alpha=0.5).tolist()
    assert F.leaky_relu(x, nbgrad.tensor(0.5)).tolist() == [0.5, -0.5]


# -- eye's sizes are SymInts: an integer tensor of one element is its value -------------------------
def test_eye_reads_its_sizes_as_pytorch():
    assert nbgrad.eye(nbgrad.tensor([3])).shape == (3, 3)       # (was a Numba TypingError)
    assert nbgrad.eye(nbgrad.tensor(3)).shape == (3, 3)
    assert nbgrad.eye(2, nbgrad.tensor([3])).shape == (2, 3)
    for bad, kind in ((nbgrad.tensor(3.0), "Tensor"), (3.0, "float"), (True, "bool"), (nbgrad.tensor([2, 3]), "Tensor"),
                      ("3", "str"), (None, "NoneType")):
        with pytest.raises(TypeError, match=f"eye\\(\\): argument 'n' \\(position 1\\) must be int, not {kind}"):
            nbgrad.eye(bad)
    with pytest.raises(TypeError, match="eye\\(\\)"):       # (PyTorch: "received an invalid combination")
        nbgrad.eye(2, 2.0)


# -- torch.embedding is ATen's: the weight checked first, padding_idx never range-checked ------------
def test_aten_embedding_checks_weight_first_and_reads_any_padding_idx():
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        nbgrad.embedding(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor(True), 1)
    for padding_idx, grad in ((-1, [[1, 1], [0, 0], [2, 2]]), (2, [[1, 1], [0, 0], [0, 0]]),
                              (5, [[1, 1], [0, 0], [2, 2]]), (-2, [[1, 1], [0, 0], [2, 2]])):
        w = nbgrad.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
        out = nbgrad.embedding(w, nbgrad.tensor([0, 2, 2]), padding_idx)
        out.sum().backward()
        assert out.tolist() == [[1, 2], [5, 6], [5, 6]] and w.grad.tolist() == grad


# -- Tensor methods off the hot path name a non-tensor argument as PyTorch's do ---------------------
@pytest.mark.parametrize("call,msg", [
    (lambda x, m: x.addmm_(1, m), "addmm_\\(\\): argument 'mat1' \\(position 1\\) must be Tensor, not int"),
    (lambda x, m: x.addmm_(m, 1), "addmm_\\(\\): argument 'mat2' \\(position 2\\) must be Tensor, not int"),
    (lambda x, m: x.logaddexp(True), "logaddexp\\(\\): argument 'other' \\(position 1\\) must be Tensor, not bool"),
    (lambda x, m: x.masked_select(()), "masked_select\\(\\): argument 'mask' \\(position 1\\) must be Tensor, not tuple"),
    (lambda x, m: m.baddbmm(1, 2), "baddbmm\\(\\): argument 'batch1' \\(position 1\\) must be Tensor, not int"),
])
def test_methods_name_a_non_tensor_argument(call, msg):
    # (an AttributeError from inside before: "'int' object has no attribute 'dim'")
    with pytest.raises(TypeError, match=msg):
        call(nbgrad.ones(2, 3), nbgrad.ones(3, 3))


def test_wrapped_methods_keep_their_names_and_pickle():
    import pickle
    fn = nbgrad.Tensor.addmm_
    assert fn.__name__ == "addmm_" and pickle.loads(pickle.dumps(fn)) is fn
    x = nbgrad.ones(2, 2)
    assert x.addmm_(nbgrad.eye(2), nbgrad.eye(2)) is x and x.tolist() == [[2, 1], [1, 2]]


# -- float()/int()/complex() of a tensor that is not one element: PyTorch's ValueError -------------
@pytest.mark.parametrize("convert", [float, int, complex, math.floor, lambda t: "%d" % t])
@pytest.mark.parametrize("shape", [(2,), (0,)])
def test_python_number_conversions_refuse_with_value_error(convert, shape):
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        convert(nbgrad.ones(shape))
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):     # (item() stays a RuntimeError)
        nbgrad.ones(shape).item()


# -- a tensor given where PyTorch's parser reads a number: its TypeError naming the argument ---------
@pytest.mark.parametrize("call,msg", [
    (lambda t: nbgrad.triu_indices(t, 3), "triu_indices\\(\\): argument 'row' \\(position 1\\) must be int, not Tensor"),
    (lambda t: nbgrad.ones(3, 3).diag_embed(t), "diag_embed\\(\\): argument 'offset' \\(position 1\\) must be int, "
                                                 "not Tensor"),
    (lambda t: nbgrad.ones(3, 3).unsafe_chunk(t), "unsafe_chunk\\(\\): argument 'chunks' \\(position 1\\) must be "
                                                   "int, not Tensor"),
    (lambda t: nbgrad.arange(0, t), "arange\\(\\)"),       # (PyTorch's: "received an invalid combination")
    (lambda t: nbgrad.logit(nbgrad.ones(2), eps=t), "logit\\(\\): argument 'eps' must be float, not Tensor"),
])
def test_a_tensor_for_a_number_is_a_type_error(call, msg):
    # ("Boolean value of Tensor with more than one value is ambiguous", a RuntimeError, before)
    with pytest.raises(TypeError, match=msg):
        call(nbgrad.tensor([1, 2]))


def test_python_level_functions_keep_their_own_errors():
    # PyTorch's F.dropout and inplace= flags are read in Python: bool(t) is its RuntimeError
    t = nbgrad.tensor([0.1, 0.2])
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        F.dropout(nbgrad.ones(2), p=t)
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        F.relu(nbgrad.ones(2), inplace=t)
    with pytest.raises(ValueError, match="only one element tensors"):
        nbgrad.sym_int(t)


# -- in-place methods parse their arguments before any other check ----------------------------------
def test_inplace_methods_count_their_arguments_first():
    if not AGAINST_TORCH:
        with pytest.raises(TypeError, match="le_\\(\\) missing 1 required positional argument: 'other'"):
            nbgrad.ones(2).le_()
        with pytest.raises(TypeError, match="lerp_\\(\\) missing 2 required positional arguments: 'end' and 'weight'"):
            nbgrad.ones(2).lerp_()
    x = nbgrad.tensor([1.5, -2.5], requires_grad=True)         # (a leaf: in-place would be refused)
    y = nbgrad.ones(3)                                          # (its shape would be refused)
    for name in ("trunc_", "logical_not_", "exp2_", "cosh_"):
        with pytest.raises(TypeError, match=f"{name}\\(\\) takes"):     # (PyTorch: "takes no arguments (1 given)")
            getattr(x, name)(y)
    with pytest.raises(TypeError, match="le_\\(\\)"):          # (nbgrad: "missing 1 required positional argument")
        x.le_()
    with pytest.raises(TypeError, match="lerp_\\(\\)"):
        x.lerp_()
    assert x.tolist() == [1.5, -2.5]
    z = nbgrad.ones(2, 3)
    assert z.polygamma_(1)[0, 0].item() == pytest.approx(math.pi ** 2 / 6)


# -- PyTorch's parser refuses a call's argument types before any work: so does a failed nbgrad call --
@pytest.mark.parametrize("call,msg", [
    (lambda: nbgrad.index_add(nbgrad.ones(3), 5, nbgrad.tensor([0]), 4),
     "index_add\\(\\): argument 'source' \\(position 4\\) must be Tensor, not int"),      # (an IndexError for dim 5)
    (lambda: nbgrad.permute(nbgrad.ones(1), 5), "permute\\(\\): argument 'dims' \\(position 2\\) must be tuple of ints, "
                                                "not int"),
    (lambda: nbgrad.cross(nbgrad.ones(3), nbgrad.ones(3), dim=nbgrad.ones(2, 2)), "cross\\(\\): argument 'dim' must be "
                                                                                   "int, not Tensor"),
    (lambda: nbgrad.dsplit(nbgrad.ones(3, 3), None), "dsplit\\(\\) received an invalid combination of arguments - got "
                                                     "\\(Tensor, NoneType\\), but expected one of:"),
    (lambda: nbgrad.quantile(nbgrad.ones(3).half(), 0.0, nbgrad.tensor([1])), "quantile\\(\\) received an invalid "
                                                                              "combination of arguments"),
])
def test_a_failed_call_with_arguments_pytorch_parses_out_is_its_type_error(call, msg):
    with pytest.raises(TypeError, match=msg):
        call()


def test_the_schema_check_leaves_good_calls_and_their_own_errors_alone():
    with pytest.raises(IndexError, match="Dimension out of range"):
        nbgrad.index_add(nbgrad.ones(3), 5, nbgrad.tensor([0]), nbgrad.ones(1))
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        nbgrad.ones(3, dtype=nbgrad.int64).std(nbgrad.tensor(False))     # (an int list of one takes it)
    assert nbgrad.ones(2, 3).sum(dim=(0, 1)).item() == 6.0


# -- a number that becomes geometry is an integer first ----------------------------------------------
@pytest.mark.parametrize("bad", [1.0, np.float64(1.0), nbgrad.tensor([[[0.5]]]), nbgrad.tensor([1.0], dtype=nbgrad.bfloat16)])
def test_diagonal_offset_is_an_int(bad):
    # (a float offset became the view's storage offset; the fuzzer's worker died reading one)
    with pytest.raises(TypeError, match="diagonal\\(\\): argument 'offset' \\(position 1\\) must be int"):
        nbgrad.ones(3, 3).diagonal(bad)
    assert nbgrad.arange(9.).reshape(3, 3).diagonal(nbgrad.tensor(1)).tolist() == [1.0, 5.0]


def test_topk_k_tensor_is_its_value():
    x = nbgrad.tensor([[1.17, 2.51, -0.02]], dtype=nbgrad.float64)
    r = x.topk(nbgrad.tensor([[[2]]]), -1, False)       # (the tensor k became the result's size)
    assert r.values.shape == (1, 2) and all(type(d) is int for d in r.values.shape)
    assert r.values.tolist() == [[-0.02, 1.17]] and r.indices.tolist() == [[2, 0]]


def test_any_all_over_no_dims_reduce_nothing():
    x = nbgrad.tensor([[1.5, 0.0], [2.0, 3.0]])
    assert x.any(dim=()).tolist() == [[True, False], [True, True]]
    assert x.all(dim=(), keepdim=True).shape == (2, 2)
    assert x.to(nbgrad.uint8).any(dim=()).dtype is nbgrad.uint8
    assert x.sum(dim=()).item() == 6.5          # (sum's legacy dim=() still reduces every dim)


def test_cholesky_upper_reads_the_upper_triangle():
    # LAPACK's uplo='U' reads A's upper triangle only; the lower one here is not positive-definite
    A = nbgrad.tensor([[4.0, 1.0], [100.0, 3.0]], dtype=nbgrad.float64)
    expected = [[2.0, 0.5], [0.0, math.sqrt(3 - 0.25)]]
    np.testing.assert_allclose(nbgrad.linalg.cholesky(A, upper=True).numpy(), expected)
    r = nbgrad.linalg.cholesky_ex(A, upper=True)
    np.testing.assert_allclose(r.L.numpy(), expected)
    assert r.info.item() == 0 and nbgrad.linalg.cholesky_ex(A).info.item() == 2


@pytest.mark.parametrize("name", ["cholesky", "cholesky_inverse", "cholesky_solve"])
def test_cholesky_family_writes_out(name):
    A = nbgrad.tensor([[4.0, 1.0], [1.0, 3.0]])
    L = nbgrad.linalg.cholesky(A)
    call = {"cholesky": lambda **k: nbgrad.cholesky(A, **k), "cholesky_inverse": lambda **k: nbgrad.cholesky_inverse(L, **k),
            "cholesky_solve": lambda **k: nbgrad.cholesky_solve(nbgrad.tensor([[1.0], [2.0]]), L, **k)}[name]
    expected = call()
    out = nbgrad.empty(0, dtype=nbgrad.float64)
    assert call(out=out) is out                  # (out= was ignored: a new tensor came back)
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match=f"{name}: Expected result to be safely castable from Float dtype, but got "
                                           "result with dtype Int"):
        call(out=nbgrad.empty(0, dtype=nbgrad.int32))


def test_searchsorted_writes_out():
    out = nbgrad.empty(0, dtype=nbgrad.int64)
    assert nbgrad.searchsorted(nbgrad.tensor([1., 2., 3.]), nbgrad.tensor([2.5]), out=out) is out and out.tolist() == [2]
    with pytest.raises(RuntimeError, match="output tensor's dtype is wrong"):
        nbgrad.searchsorted(nbgrad.tensor([1., 2., 3.]), nbgrad.tensor([2.5]), out=nbgrad.empty(0))


# -- calls PyTorch refuses that nbgrad ran -------------------------------------------------------------
def test_unary_plus_refuses_bool():
    x = nbgrad.tensor([True, False])
    for call in (lambda: +x, lambda: x.positive(), lambda: nbgrad.positive(x)):
        with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported."):
            call()
    assert (+nbgrad.tensor([1, 2])).tolist() == [1, 2]


def test_can_cast_takes_dtypes():
    with pytest.raises(TypeError, match="can_cast\\(\\): argument 'from_' \\(position 1\\) must be torch.dtype, not Tensor"):
        nbgrad.can_cast(nbgrad.ones(2), nbgrad.float32)
    assert nbgrad.can_cast(nbgrad.float32, nbgrad.int32) is False and nbgrad.can_cast(nbgrad.int32, nbgrad.float32)


@pytest.mark.parametrize("call", [lambda: nbgrad.ones(dtype=nbgrad.float32), lambda: nbgrad.zeros(), lambda: nbgrad.empty(),
                                  lambda: nbgrad.rand(), lambda: nbgrad.randn(), lambda: nbgrad.ones(2).new_ones(),
                                  lambda: nbgrad.ones(2).new_zeros(), lambda: nbgrad.ones(2).new_empty()])
def test_factories_need_a_size(call):
    # (a 0-dim tensor came back; zeros(()) is one)
    # (nbgrad: 'missing 1 required positional arguments: "size"'; PyTorch's rand/randn list their overloads)
    with pytest.raises(TypeError, match="size"):
        call()


def test_factories_of_an_empty_size_and_the_legacy_constructors():
    assert nbgrad.zeros(()).shape == () and nbgrad.ones(2).new_zeros(()).shape == ()
    assert nbgrad.Tensor().shape == (0,) and nbgrad.FloatTensor().shape == (0,)    # (Tensor() was 0-dim)


def test_toplevel_softmax_needs_a_dim():
    with pytest.raises(TypeError, match="softmax\\(\\) missing 1 required positional arguments: \"dim\""):
        nbgrad.softmax(nbgrad.ones(2))
    with pytest.raises(TypeError, match="log_softmax\\(\\) missing 1 required positional arguments: \"dim\""):
        nbgrad.log_softmax(nbgrad.ones(2))
    assert nbgrad.softmax(input=nbgrad.ones(2), dim=0).tolist() == [0.5, 0.5]
    with pytest.warns(UserWarning, match="Implicit dimension choice"):     # (F's keeps the legacy implicit dim)
        assert F.softmax(nbgrad.ones(2)).tolist() == [0.5, 0.5]


def test_nan_to_num_replacements_are_floats():
    x = nbgrad.tensor([float("nan"), 1.0, float("inf")])
    assert nbgrad.nan_to_num(x, nbgrad.tensor(5.0), 7).tolist() == [5.0, 1.0, 7.0]
    assert nbgrad.nan_to_num(x, None, 7).tolist() == [0.0, 1.0, 7.0]
    for bad, kind in ((nbgrad.tensor([1.0]), "Tensor"), ("a", "str")):
        with pytest.raises(TypeError, match=f"nan_to_num\\(\\): argument 'nan' \\(position 2\\) must be float, not {kind}"):
            nbgrad.nan_to_num(x, bad)
    with pytest.raises(TypeError, match="argument 'posinf'"):
        x.clone().nan_to_num_(posinf="x")


# -- an integer given as a 0-dim tensor is read by value, never rewritten ------------------------------
def test_integer_arguments_given_as_tensors_are_not_rewritten():
    k = nbgrad.tensor(-1)
    r = nbgrad.arange(6.).reshape(2, 3).rot90(k)
    assert k.item() == -1 and r.shape == (3, 2)            # (k %= 4 made the caller's k 3)
    n = nbgrad.tensor(5)
    assert nbgrad.linalg.matrix_power(nbgrad.tensor([[1., 1.], [0., 1.]]), n).tolist() == [[1, 5], [0, 1]]
    assert n.item() == 5                                    # (n >>= 1 made it 0)
    p = nbgrad.tensor(-1)
    out = F.embedding_bag(nbgrad.tensor([0, 3, 1]), nbgrad.ones(4, 2), nbgrad.tensor([0]), padding_idx=p)
    assert p.item() == -1 and out.tolist() == [[1.0, 1.0]]
    with pytest.raises(TypeError, match="rot90\\(\\): argument 'k'"):
        nbgrad.ones(2, 2).rot90(1.5)


# -- cosine_similarity casts only integer inputs to the common dtype ---------------------------------------
def test_cosine_similarity_keeps_each_floating_input_dtype():
    a = np.round(np.random.default_rng(0).uniform(-3, 3, (2, 3, 4)), 2)
    x = nbgrad.tensor(a, dtype=nbgrad.float16)
    r = nbgrad.cosine_similarity(x, nbgrad.tensor(1.37))       # (a 0-dim float32 beside a float16)
    assert r.dtype is nbgrad.float32
    # x normalised in float16 (PyTorch's), not cast to float32 first: 3e-4 apart here
    y = nbgrad.tensor(1.37).expand(2, 3, 4)
    unit_y = y / y.norm(2, 1, keepdim=True)
    expected = ((x / x.norm(2, 1, keepdim=True)) * unit_y).sum(1)
    cast_first = ((x.float() / x.float().norm(2, 1, keepdim=True)) * unit_y).sum(1)
    np.testing.assert_array_equal(r.numpy(), expected.numpy())
    assert np.abs(r.numpy() - cast_first.numpy()).max() > 1e-4
    assert nbgrad.cosine_similarity(nbgrad.tensor(a).long(), nbgrad.tensor(1.0).half()).dtype is nbgrad.float16


# -- a TensorList argument, as PyTorch's parser reads one ------------------------------------------------
@pytest.mark.parametrize("call,msg", [
    (lambda x: nbgrad.cat([x, 3]), "expected Tensor as element 1 in argument 0, but got int"),
    (lambda x: nbgrad.hstack([3, -3]), "expected Tensor as element 0 in argument 0, but got int"),   # (AttributeError)
    (lambda x: nbgrad.vstack((x, None)), "expected Tensor as element 1 in argument 0, but got NoneType"),
    (lambda x: nbgrad.dstack([x, 1.0]), "expected Tensor as element 1 in argument 0, but got float"),
    (lambda x: nbgrad.cat(x for _ in range(2)), "cat\\(\\): argument 'tensors' \\(position 1\\) must be tuple of "
                                                "Tensors, not generator"),
    (lambda x: nbgrad.stack(x), "stack\\(\\): argument 'tensors' \\(position 1\\) must be tuple of Tensors, not Tensor"),
])
def test_tensor_lists_hold_tensors(call, msg):
    with pytest.raises(TypeError, match=msg):
        call(nbgrad.ones(2))


def test_cat_of_nothing_is_a_value_error():
    with pytest.raises(ValueError, match="torch.cat\\(\\): expected a non-empty list of Tensors"):   # (PyTorch 2.13's)
        nbgrad.cat([])
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        nbgrad.stack([])


@pytest.mark.parametrize("call,msg", [
    (lambda x: x.dot("a"), "dot\\(\\): argument 'tensor' \\(position 1\\) must be Tensor, not str"),
    (lambda x: x.index_select(0, 1), "index_select\\(\\): argument 'index' \\(position 2\\) must be Tensor, not int"),
    (lambda x: x.reshape_as(nbgrad.float32), "reshape_as\\(\\): argument 'other' \\(position 1\\) must be Tensor"),
    (lambda x: x.gather(0, [0]), "gather\\(\\): argument 'index' \\(position 2\\) must be Tensor, not list"),
])
def test_more_methods_name_a_non_tensor_argument(call, msg):
    # (AttributeErrors from inside: "'int' object has no attribute '_dtype'"; index_select named its dim)
    with pytest.raises(TypeError, match=msg):
        call(nbgrad.ones(3))


# -- seeds 14-16 --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_mean_loss_of_an_empty_broadcast_has_a_zero_gradient(name):
    # (mse's backward computed 1.0 / 0 in Python: ZeroDivisionError)
    x = nbgrad.full((3, 1), -0.25, requires_grad=True)
    out = getattr(F, name)(x, nbgrad.zeros(0))
    out.backward()
    assert math.isnan(out.item()) and x.grad.tolist() == [[0.0], [0.0], [0.0]]


def test_logit_gradient_with_a_nan_eps_or_x_takes_the_formula():
    # PyTorch's (x < lo || x > hi) ? 0 : grad / (x (1 - x)): comparisons with NaN are false
    x = nbgrad.tensor([-0.19, 0.3, float("nan"), 1.2], dtype=nbgrad.float64, requires_grad=True)
    nbgrad.logit(x, float("nan")).sum().backward()
    a = np.array([-0.19, 0.3, 1.2])
    np.testing.assert_allclose(x.grad.numpy()[[0, 1, 3]], 1 / (a * (1 - a)))
    assert math.isnan(x.grad[2].item())
    x.grad = None
    nbgrad.logit(x, 0.1).sum().backward()
    assert x.grad[0].item() == 0.0 and x.grad[3].item() == 0.0 and math.isnan(x.grad[2].item())


def test_ldexp_gradient_takes_the_power_in_a_floating_exponents_dtype():
    x = nbgrad.tensor([0.17, -0.9, 2.5], requires_grad=True)
    e = nbgrad.tensor([2.0, -2.05, 1.57]).half()
    nbgrad.ldexp(x, e).sum().backward()
    # pow(2, e) in float16, PyTorch's: 2 ** -2.05 rounds to 0.2413330078125
    assert x.grad.tolist() == [4.0, 0.2413330078125, 2.96875]
    if AGAINST_TORCH:
        return      # (PyTorch's integer pow(2, -4) is 0: its gradient below is 0, not 2 ** -4)
    x.grad = None
    nbgrad.ldexp(x, nbgrad.tensor([2, -4, 1])).sum().backward()
    assert x.grad.tolist() == [4.0, 0.0625, 2.0]


def test_diag_sizes_its_result_first():
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed with sizes=\\[2147483652, 2147483652\\]"):
        nbgrad.ones(4, dtype=nbgrad.float16).diag(2147483648)      # (a 4 GB padding came first)


# -- stop 49: arguments as PyTorch's parser reads them ------------------------------------------
@pytest.mark.parametrize("call, expected", [
    (lambda: nbgrad.scalar_tensor(nbgrad.tensor(4)).tolist(), 4.0),      # a Scalar: a 0-dim tensor's value
    (lambda: nbgrad.full((2,), nbgrad.tensor(3)).tolist(), [3, 3]),
    (lambda: nbgrad.ones(1, 2, 3, 4).size(nbgrad.tensor(3, dtype=nbgrad.uint8)), 4),  # an int: a 0-dim integer tensor
    (lambda: nbgrad.mvlgamma(nbgrad.full((2,), 3.0), nbgrad.tensor(2)).tolist(), [1.5501949787139893] * 2),
    (lambda: nbgrad.special.multigammaln(nbgrad.full((1,), 3.0, dtype=nbgrad.float64), nbgrad.tensor(2)).tolist(),
     [1.5501949939575645]),
    (lambda: nbgrad.polygamma(nbgrad.tensor(1), nbgrad.ones(1, dtype=nbgrad.float64)).tolist(), [1.6449340676383375]),
    (lambda: nbgrad.ones(2, 3).cumsum(nbgrad.tensor(1)).tolist(), [[1.0, 2.0, 3.0]] * 2),
])
def test_tensors_read_as_numbers(call, expected):
    assert call() == expected


@pytest.mark.parametrize("call, message", [
    (lambda: nbgrad.scalar_tensor(nbgrad.tensor(4.0, requires_grad=True)), "must be Number, not Tensor"),
    (lambda: nbgrad.full((2,), nbgrad.tensor([3.0])), "must be Number, not Tensor"),
    (lambda: nbgrad.ones(2, 3).size(nbgrad.tensor([1])), "must be (an )?int, (not|got) Tensor"),
    (lambda: nbgrad.ones(2, 3).size(nbgrad.tensor(True)), "must be (an )?int, (not|got) Tensor"),
    (lambda: nbgrad.ones(2, 3).cumsum(nbgrad.tensor([1])), "must be int, not Tensor"),
    (lambda: nbgrad.ones(2, 3).unsqueeze(nbgrad.tensor(1.0)), "must be int, not Tensor"),
    (lambda: nbgrad.ones(2, 3).select(nbgrad.tensor(True), 0), "must be int, not Tensor"),
    (lambda: nbgrad.mvlgamma(nbgrad.full((2,), 3.0), nbgrad.tensor([2])), "must be int, not Tensor"),
])
def test_tensors_not_read_as_numbers(call, message):
    # (a Scalar takes a 0-dim tensor that does not require grad; an int, a 0-dim integer tensor)
    with pytest.raises(TypeError, match=message):
        call()


def test_an_integral_add_refuses_a_float_alpha_of_one():
    ones = nbgrad.ones(3, dtype=nbgrad.int64)
    with pytest.raises(RuntimeError, match="^For integral input tensors, argument alpha must not be a floating point "
                                           "number\\.$"):
        ones.add(ones, alpha=1.0)
    assert ones.add(ones, alpha=1).tolist() == [2, 2, 2]


@pytest.mark.parametrize("call, expected", [
    (lambda x, t: x.add(2, t), [3.0, 5.0, 7.0]), (lambda x, t: nbgrad.add(x, 2, t), [3.0, 5.0, 7.0]),
    (lambda x, t: x.clone().add_(2, t), [3.0, 5.0, 7.0]), (lambda x, t: x.sub(2, t), [-1.0, -3.0, -5.0]),
    (lambda x, t: x.clone().sub_(2, t), [-1.0, -3.0, -5.0]), (lambda x, t: nbgrad.sub(x, 2, t), [-1.0, -3.0, -5.0]),
    (lambda x, t: x.addcmul(2, t, t), [3.0, 9.0, 19.0]), (lambda x, t: x.clone().addcmul_(2, t, t), [3.0, 9.0, 19.0]),
    (lambda x, t: nbgrad.addcmul(x, 2, t, t), [3.0, 9.0, 19.0]), (lambda x, t: x.addcdiv(2, t, t), [3.0, 3.0, 3.0]),
    (lambda x, t: x.clone().addcdiv_(2, t, t), [3.0, 3.0, 3.0]),
    (lambda x, t: x.add(2, nbgrad.tensor(3.0)), [7.0, 7.0, 7.0]),
])
def test_deprecated_number_first_overloads(call, expected):
    # old optimizer code: p.data.add_(-lr, grad), exp_avg_sq.addcmul_(1 - beta2, grad, grad)
    x = nbgrad.ones(3)
    t = nbgrad.arange(3.0) + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert call(x, t).tolist() == expected


def test_deprecated_number_first_gradients_and_errors():
    x = nbgrad.ones(3, requires_grad=True)
    t = (nbgrad.arange(3.0) + 1).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = x.add(2, t)
        assert type(y.grad_fn).__name__ == "AddBackward0"
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0, 1.0] and t.grad.tolist() == [2.0, 2.0, 2.0]
        t.grad = None
        x.addcmul(2, t, t).sum().backward()
        assert t.grad.tolist() == [4.0, 8.0, 12.0]
        with pytest.raises(TypeError):
            x.add(2, t, alpha=3)
        with pytest.raises(TypeError):
            x.addcmul(2, t, t, value=3)


@pytest.mark.skipif(AGAINST_TORCH, reason="the warning is once per process: a fresh nbgrad process")
def test_deprecated_number_first_warns_once_per_process():
    import subprocess
    import sys
    code = ("import warnings, nbgrad\nwarnings.simplefilter('always')\nx = nbgrad.ones(2)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n    x.add_(2, x.clone()); x.sub(1, x); x.addcmul(1, x, x)\n"
            "print(repr([str(m.message) for m in w]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert eval(out) == ["This overload of add_ is deprecated:\n\tadd_(Number alpha, Tensor other)\nConsider using one "
                         "of the following signatures instead:\n\tadd_(Tensor other, *, Number alpha = 1)"]


def test_python_float_as_a_dtype_is_float64_whatever_the_default():
    x = nbgrad.ones(2)
    assert x.to(float).dtype is nbgrad.float64 and x.to(int).dtype is nbgrad.int64 and x.to(bool).dtype is nbgrad.bool
    assert nbgrad.ones(2, dtype=float).dtype is nbgrad.float64
    assert nbgrad.tensor([1], dtype=float).dtype is nbgrad.float64 and x.to(dtype=float).dtype is nbgrad.float64


def test_to_reads_positional_non_blocking_then_copy():
    x = nbgrad.ones(3)
    other = nbgrad.zeros(3, dtype=nbgrad.float16)
    assert x.to(other, False).dtype is nbgrad.float16
    assert x.to(x, False, False) is x and x.to(x, False, True) is not x
    assert x.to(nbgrad.float32, False, True) is not x and x.to("cpu", nbgrad.float32, False, True) is not x
    assert x.to("cpu", None, False, False) is x


def test_nan_to_num_in_place_of_an_integer_tensor_writes_nothing():
    # PyTorch copies self into itself: an expanded integer self is no overlap error
    x = nbgrad.tensor([[1, 2, 3]]).expand(2, 3)
    v = x._version
    assert nbgrad.nan_to_num_(x) is x and x._version == v + 1 and x.tolist() == [[1, 2, 3]] * 2


def test_an_attribute_error_from_an_argument_the_parser_refuses_is_its_type_error():
    with pytest.raises(TypeError, match=r"^hinge_embedding_loss\(\): argument 'target' \(position 2\) must be Tensor, "
                                        r"not float$"):
        nbgrad.hinge_embedding_loss(nbgrad.ones(2, 3, dtype=nbgrad.int64), float("nan"))


def test_integer_power_by_a_huge_exponent_wraps_as_pytorchs_squaring():
    # (Numba's int ** int goes through a float pow above 2 ** 16: 3 ** 2 ** 31 was INT64_MIN)
    assert (nbgrad.tensor([3, -3, 7]) ** nbgrad.tensor([2 ** 31, 2 ** 31 + 1, 65537])).tolist() == [
        -7977717197575290879, 5486407519016321021, -5233405542513770489]
    assert (nbgrad.tensor([3]) ** (2 ** 40)).tolist() == [-7860764868738023423]
    assert (nbgrad.tensor([3], dtype=nbgrad.int8) ** nbgrad.tensor([2 ** 20 + 5])).tolist() == [386587403457921267]


def test_half_floor_and_trunc_division_read_a_scalar_divisor_unrounded():
    # PyTorch's reduced-float div_floor/div_trunc kernels take a scalar second operand in
    # float32 (its original value): -2.484375 / 0.31 is -8.01, floor -9 (0.31 in bfloat16
    # is 0.310546875: exactly -8)
    a = nbgrad.tensor([-2.484375, 2.625, -1.54003906, 4.42578125]).bfloat16()
    assert nbgrad.floor_divide(a, 0.31).tolist() == [-9.0, 8.0, -5.0, 14.0]
    assert (a // nbgrad.tensor(0.31, dtype=nbgrad.float64)).tolist() == [-9.0, 8.0, -5.0, 14.0]
    assert nbgrad.div(a, nbgrad.tensor(0.31, dtype=nbgrad.float64), rounding_mode="trunc").tolist() == [
        -8.0, 8.0, -4.0, 14.0]
    assert nbgrad.div(a, 1.0004, rounding_mode="floor").tolist() == [-3.0, 2.0, -2.0, 4.0]
    h = a.half()
    assert nbgrad.floor_divide(h, 0.31).tolist() == [-9.0, 8.0, -5.0, 14.0]
    assert nbgrad.div(h, nbgrad.tensor(3.7, dtype=nbgrad.float64), rounding_mode="trunc").tolist() == [
        -0.0, 0.0, -0.0, 1.0]


def test_reflected_add_and_mul_put_self_first():
    # PyTorch's __rmul__ is mul(self, other): a float16 mul reads its second operand unrounded
    s = nbgrad.tensor(0.31, dtype=nbgrad.float64)
    a = nbgrad.tensor([-3.0, -2.85, -2.7]).half()
    assert s.__rmul__(a).tolist() == [-0.93017578125, -0.8837890625, -0.8369140625]
    assert s.__radd__(a).tolist() == (s + a).tolist()


def test_binomial_edges_as_pytorchs_sample_binomial():
    # 0 for count <= 0 or prob <= 0 (a flipped draw gave a negative count back), count for
    # prob >= 1, NaN for a NaN prob
    count = nbgrad.tensor([-0.3, 0.0, 5.0, 5.0, 5.0, -2.0])
    prob = nbgrad.tensor([0.68, 0.5, 0.0, 1.0, float("nan"), 0.9])
    out = nbgrad.binomial(count, prob).tolist()
    assert out[:4] == [0.0, 0.0, 0.0, 5.0] and math.isnan(out[4]) and out[5] == 0.0


def test_half_logaddexp_rounds_a_float64_scalar_operand_first():
    a = nbgrad.tensor([-2.1112058, 0.5, 1.7, -6.9750924]).bfloat16()
    s = nbgrad.tensor(0.31, dtype=nbgrad.float64)
    assert nbgrad.logaddexp(a, s).tolist() == [0.396484375, 1.1015625, 1.921875, 0.310546875]
    assert nbgrad.logaddexp2(a, s).tolist() == [0.55859375, 1.40625, 2.171875, 0.3203125]
    assert nbgrad.logaddexp(a.half(), s).tolist() == [0.395263671875, 1.1025390625, 1.9248046875, 0.310791015625]


def test_the_legacy_tensor_constructor():
    # nbgrad.Tensor(...) is the default dtype's legacy type: Tensor(t) aliases t (any dtype,
    # its storage, version counter and AliasBackward0), a number is not data, no dtype=
    t = nbgrad.tensor([1, 2])
    u = nbgrad.Tensor(t)
    assert u.dtype is nbgrad.int64 and u.data_ptr() == t.data_ptr()
    u.add_(1)
    assert t.tolist() == [2, 3] and t._version == 1
    f = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    g = nbgrad.Tensor(f)
    assert type(g.grad_fn).__name__ == "AliasBackward0" and g._base is f
    g.sum().backward()
    assert f.grad.tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match=r"^new\(\): data must be a sequence \(got float\)$"):
        nbgrad.Tensor(2.5)
    with pytest.raises(TypeError, match=r"^new\(\) received an invalid combination of arguments"):
        nbgrad.Tensor(2, dtype=nbgrad.float64)
    assert nbgrad.Tensor(nbgrad.Size([2, 3])).shape == (2, 3) and nbgrad.Tensor().shape == (0,)
    assert nbgrad.Tensor([[1, 2]]).dtype is nbgrad.float32 and nbgrad.Tensor([1], device="cpu").tolist() == [1.0]


def test_clamp_with_a_number_reads_a_0dim_tensor_bound_as_a_number():
    # PyTorch's parser: a number beside a tensor bound selects clamp(Tensor, Number?, Number?)
    x = nbgrad.tensor([1, 5, 9])
    lo = nbgrad.tensor(2.5, dtype=nbgrad.float64)
    assert nbgrad.clamp(x, lo, 7).dtype is nbgrad.float32 and x.clamp(lo, 7).tolist() == [2.5, 5.0, 7.0]
    assert nbgrad.clip(x, lo, 7).dtype is nbgrad.float32
    assert nbgrad.clamp(x, min=lo).dtype is nbgrad.float64            # (two tensors: the Tensor overload)
    assert nbgrad.clamp(x, lo, nbgrad.tensor(7)).dtype is nbgrad.float64
    for bound in (nbgrad.tensor(2.5, requires_grad=True), nbgrad.tensor([2.5])):
        with pytest.raises(TypeError, match=r"^clamp\(\) received an invalid combination of arguments"):
            nbgrad.clamp(x.float(), bound, 7)


@pytest.mark.parametrize("call, message", [
    (lambda x, y: x.add_(y, y), r"^add_\(\) takes 1 positional argument but 2 were given$"),   # alpha: keyword-only
    (lambda x, y: x.sub_(y, None), r"^sub_\(\) takes 1 positional argument but 2 were given$"),
    (lambda x, y: x.mul_(y, y), r"^mul_\(\) takes 1 positional argument but 2 were given$"),
    (lambda x, y: x.div_(y, "floor"), r"^div_\(\)"),
    (lambda x, y: x.relu_(y), r"^(Tensor|TensorBase)\.relu_\(\) takes no arguments \(1 given\)$"),
])
def test_in_place_methods_count_their_arguments_after_self(call, message):
    x = nbgrad.ones(3)
    with pytest.raises(TypeError, match=message):
        call(x, nbgrad.ones(3))
    assert x.tolist() == [1.0, 1.0, 1.0] and x._version == 0


def test_scalar_overloads_of_add_and_a_0dim_number_first():
    # Tensor.add_(Number other, Number alpha); the deprecated add(Number alpha, Tensor other)
    # takes a 0-dim tensor as its Number; x.to(True) / x.to(1.5) read the value's type
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert nbgrad.tensor(1.5).bfloat16().add_(-0.0, 2).item() == 1.5
        assert nbgrad.ones(3).sub_(1, 2).tolist() == [-1.0, -1.0, -1.0]
        t = nbgrad.arange(3.0)
        assert nbgrad.ones(3).add(nbgrad.tensor(2.0), t).tolist() == [1.0, 3.0, 5.0]
        assert nbgrad.ones(3).addcmul(nbgrad.tensor(2.0), t, t).tolist() == [1.0, 3.0, 9.0]
        with pytest.raises(TypeError):
            nbgrad.ones(3).add(nbgrad.tensor(2.0, requires_grad=True), t)
    x = nbgrad.ones(2, dtype=nbgrad.float64)
    assert x.to(True).dtype is nbgrad.bool and x.to(1.5).dtype is nbgrad.float64


@pytest.mark.parametrize("call, message", [
    (lambda x: x.add_(None), r"^add_\(\): argument 'other' \(position 1\) must be Tensor, not NoneType$"),
    (lambda x: x.sub_([]), r"^sub_\(\): argument 'other' \(position 1\) must be Tensor, not list$"),
    (lambda x: x.div_(None), r"^div_\(\): argument 'other' \(position 1\) must be Tensor, not NoneType$"),
])
def test_in_place_methods_refuse_argument_types_before_the_leaf_check(call, message):
    # PyTorch's parser speaks before the leaf check (the schema check on the failure path)
    x = nbgrad.ones(2, 3, requires_grad=True)
    with pytest.raises(TypeError, match=message):
        call(x)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.mul_(nbgrad.ones(3))           # (a good argument: the leaf check's own error)


def test_threshold_reads_a_0dim_tensor_threshold_as_a_number():
    # a Scalar: the 0-dim tensor's value, then truncated toward zero for an integer input
    # (-2 > trunc(-2.22) is false: replaced)
    x = nbgrad.tensor([-2, -3, 5, 4])
    assert nbgrad.nn.functional.threshold(x, nbgrad.tensor(-2.22, dtype=nbgrad.float64), 4).tolist() == [4, 4, 5, 4]
    assert nbgrad.nn.functional.threshold_(x.clone(), -2.22, nbgrad.tensor(7)).tolist() == [7, 7, 5, 4]
    with pytest.raises(TypeError, match="must be Number, not Tensor"):
        nbgrad.nn.functional.threshold(x, nbgrad.tensor([1.0]), 4)


@pytest.mark.parametrize("a_dtype, b, alpha, dtype, values", [
    ("uint8", [True, False, True], -2, "uint8", [255, 253, 5]),      # alpha * b wraps in uint8
    ("bool", [True, False, False], 2, "bool", [True, False, True]),  # logical: alpha as bool
    ("bool", [True, True, False], 0, "bool", [False, False, True]),
    ("int8", [True, True, False], 100, "int8", [101, 97, 7]),
])
def test_integral_add_with_alpha_keeps_the_result_type(a_dtype, b, alpha, dtype, values):
    # alpha takes no part in type promotion: alpha * b is computed in the result's type
    # (uint8 + bool with alpha=-2 was int64 [-1, ...])
    a = nbgrad.tensor([1, -3, 7], dtype=getattr(nbgrad, a_dtype)) if a_dtype != "bool" \
        else nbgrad.tensor([False, False, True])
    out = nbgrad.add(a, nbgrad.tensor(b), alpha=alpha)
    assert out.dtype is getattr(nbgrad, dtype) and out.tolist() == values
    assert a.add_(nbgrad.tensor(b), alpha=alpha).tolist() == values


_F = nbgrad.nn.functional


@pytest.mark.parametrize("call, message", [
    # nn.functional: the C-parsed op PyTorch's Python passes the arguments to speaks, in its name
    (lambda: _F.hinge_embedding_loss(nbgrad.ones(2, 1, 3), (3, 3, 0), float("inf")),
     r"^hinge_embedding_loss\(\): argument 'target' \(position 2\) must be Tensor, not tuple$"),
    (lambda: _F.max_pool2d(nbgrad.ones(3), 3, -3, False),
     r"^max_pool2d\(\): argument 'padding' \(position 4\) must be tuple of ints, not bool$"),
    (lambda: _F.nll_loss(nbgrad.ones(1, dtype=nbgrad.bool), nbgrad.ones(3, dtype=nbgrad.bfloat16),
                         ignore_index=nbgrad.ones(3, 1)),
     r"^nll_loss_nd\(\): argument 'ignore_index' \(position 5\) must be int, not Tensor$"),
    (lambda: _F.cross_entropy(nbgrad.ones(3, 2), nbgrad.tensor([0, 1, 5]), ignore_index=1.5),
     r"^cross_entropy_loss\(\): argument 'ignore_index' \(position 5\) must be int, not float$"),
    (lambda: _F.layer_norm(nbgrad.ones(2, 2, 2, 2), nbgrad.ones(3, dtype=nbgrad.bool)),
     r"^layer_norm\(\): argument 'normalized_shape' \(position 2\) must be tuple of ints, not Tensor$"),
    (lambda: _F.layer_norm(nbgrad.ones(1, 2, 4, 4), (2, 2.5)),
     r"^layer_norm\(\): argument 'normalized_shape' failed to unpack the object at pos 2 with error "
     r"\"type must be tuple of ints,but got float\"$"),
    (lambda: _F.fold(nbgrad.ones(1, 3), (0, -3, 3), nbgrad.ones(1, 2, 3, 4)),     # (through _pair)
     r"^col2im\(\): argument 'kernel_size' \(position 3\) must be tuple of ints, but found element of type "
     r"Tensor at pos 0$"),
    (lambda: _F.conv2d(nbgrad.ones(2, 3, 5), nbgrad.ones(3, 1, dtype=nbgrad.bool), -2, 5, groups=3),
     r"^conv2d\(\) received an invalid combination of arguments - got \(Tensor, Tensor, int, int, groups=int\)"),
    # torch.linalg's functions, parsed by their aten schemas
    (lambda: nbgrad.linalg.inv_ex(nbgrad.ones(2, 3), check_errors=nbgrad.tensor(1)),
     r"^linalg_inv_ex\(\): argument 'check_errors' must be bool, not Tensor$"),
    (lambda: nbgrad.linalg.solve(nbgrad.ones(2, 0, dtype=nbgrad.int64), nbgrad.ones(2, 3, 4), left=0.5),
     r"^linalg_solve\(\): argument 'left' must be bool, not float$"),
    (lambda: nbgrad.linalg.multi_dot((nbgrad.ones(2, 2), -1)),
     r"^expected Tensor as element 1 in argument 0, but got int$"),
    (lambda: nbgrad.linalg.vector_norm(4, ord=3),
     r"^linalg_vector_norm\(\): argument 'input' \(position 1\) must be Tensor, not int$"),
])
def test_functional_and_linalg_refuse_arguments_as_their_ops_parser(call, message):
    # these failed first on another check (a RuntimeError on the shapes, dtypes or dims)
    with pytest.raises(TypeError, match=message):
        call()


@pytest.mark.parametrize("call, error, message", [
    # PyTorch's own Python reads these before its op: its errors come first
    (lambda: _F.group_norm(nbgrad.ones(3), nbgrad.tensor(1)), RuntimeError, "Expected at least 2 dimensions"),
    (lambda: _F.cross_entropy(nbgrad.ones(3, 2), nbgrad.tensor([0, 1, 1]), ignore_index=1.5, reduction="bogus"),
     ValueError, "bogus is not a valid value for reduction"),
    (lambda: _F.relu(nbgrad.ones(2) - 5, inplace=nbgrad.ones(2)), RuntimeError, "more than one value is ambiguous"),
])
def test_functional_python_checks_still_speak_before_the_op(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_an_empty_default_int_list_takes_none():
    # avg_pool1d's stride=[] by default: the parser takes None for it
    assert _F.avg_pool1d(nbgrad.ones(1, 1, 4), 2, None).tolist() == [[[1.0, 1.0]]]
    with pytest.raises(RuntimeError):
        _F.avg_pool1d(nbgrad.ones(4), 2, None)


@pytest.mark.parametrize("call, message", [
    # PyTorch's Python reads an attribute of these arguments before any op parses them
    (lambda: _F.softmax(3, 0), r"^'int' object has no attribute"),
    (lambda: _F.l1_loss(nbgrad.ones(2), 3.0), r"^'float' object has no attribute"),
    (lambda: _F.softsign([1.0]), r"^'list' object has no attribute"),
    (lambda: _F.group_norm((1, 2), 1), r"^'tuple' object has no attribute"),
])
def test_functional_keeps_the_attribute_error_of_its_python(call, message):
    with pytest.raises(AttributeError, match=message):
        call()
    # ... where PyTorch's op is the first to see the argument, its parser's TypeError
    with pytest.raises(TypeError, match=r"^dropout\(\): argument 'input' \(position 1\) must be Tensor, not int$"):
        _F.dropout(3, 0.5)


@pytest.mark.parametrize("call, message", [
    # the hot methods' arguments PyTorch's parser refuses (each checked where it costs nothing)
    (lambda x: x.fill_(nbgrad.ones(4), 0.0), None),                   # fill_ takes one value
    (lambda x: x.div(x, "floor"), None),                               # rounding_mode is keyword-only
    (lambda x: nbgrad.div(x, x, "floor"), None),
    (lambda x: x.mean(0, True, nbgrad.float64), None),                 # so is dtype
    (lambda x: nbgrad.sum(x, 0, True, nbgrad.float64), None),
    (lambda x: x.copy_(x, 1), r"^copy_\(\): argument 'non_blocking' (\(position 2\) )?must be bool, not int$"),
    (lambda x: x.requires_grad_(None),
     r"^requires_grad_\(\): argument 'requires_grad' (\(position 1\) )?must be bool, not NoneType$"),
    (lambda x: x.requires_grad_(nbgrad.ones(2)),
     r"^requires_grad_\(\): argument 'requires_grad' (\(position 1\) )?must be bool, not Tensor$"),
    (lambda x: x.to(nbgrad.ones(1), -1.5, 4), r"^to\(\) received an invalid combination of arguments"),
    (lambda x: x.to(device=0.5), r"^to\(\) received an invalid combination of arguments"),
    (lambda x: x.new_tensor([1.0], device=0.5), r"^new_tensor\(\): argument 'device' must be torch.device, not float$"),
])
def test_hot_methods_refuse_what_the_parser_refuses(call, message):
    x = nbgrad.ones(3)
    with pytest.raises(TypeError, match=message):
        call(x)
    assert x.tolist() == [1.0, 1.0, 1.0] and not x.requires_grad      # (nothing written)
    # the good forms
    assert x.div(x, rounding_mode="floor").tolist() == [1.0, 1.0, 1.0]
    assert x.mean(0, True, dtype=nbgrad.float64).dtype is nbgrad.float64
    assert x.clone().copy_(x * 2, True).tolist() == [2.0, 2.0, 2.0]
    assert x.to(nbgrad.ones(1, dtype=nbgrad.float64), False, True).dtype is nbgrad.float64


def test_split_reads_a_tensor_size_as_pytorchs_tensor_split_does():
    x = nbgrad.ones(2, 3, 5)
    # a one-element tensor is its int, whose sign is checked before the dim
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative, but got split_size=-1"):
        x.split(nbgrad.tensor([[[-1.0]]]), 4)
    assert [tuple(t.shape) for t in x.split(nbgrad.tensor(2), 2)] == [(2, 3, 2), (2, 3, 2), (2, 3, 1)]
    # anything else goes to split_with_sizes, whose parser wants ints
    with pytest.raises(TypeError, match=r"^split_with_sizes\(\): argument 'split_sizes' \(position 2\) must be "
                                        r"tuple of ints, not Tensor$"):
        x.split(nbgrad.ones(2, 3, dtype=nbgrad.int64), 5)
    with pytest.raises(TypeError, match=r"^split_with_sizes\(\): argument 'split_sizes' failed to unpack"):
        x.split([1, 1.5], 0)
    assert [tuple(t.shape) for t in x.split([nbgrad.tensor(1), 1], 0)] == [(1, 3, 5), (1, 3, 5)]
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.split([1, 1], 5)


def test_chunk_takes_an_int_or_a_0dim_integer_tensor():
    x = nbgrad.ones(2, 3, 4)
    for chunks in (2.0, nbgrad.tensor([[[2.0]]]), nbgrad.tensor([2])):
        with pytest.raises(TypeError, match="argument 'chunks' .*must be int, not"):
            x.chunk(chunks)
    assert [tuple(t.shape) for t in x.chunk(nbgrad.tensor(2), 1)] == [(2, 2, 4), (2, 1, 4)]
    with pytest.raises(TypeError):          # the parser's dim before split's split_size check
        nbgrad.split(x, -1, dim=nbgrad.ones(1))


@pytest.mark.parametrize("args", [(), (nbgrad.ones(2, 0),), ("ij",)])
def test_einsum_with_fewer_than_two_arguments_is_a_value_error(args):
    # PyTorch's Python wrapper says so before reading anything (an equation alone, a tensor alone)
    with pytest.raises(ValueError, match="must specify the equation string and at least one operand"):
        nbgrad.einsum(*args)


def test_tensor_split_checks_a_tensor_argument_before_the_dim():
    x = nbgrad.ones(4)
    with pytest.raises(RuntimeError, match="to have dtype of long, but got Float"):
        x.tensor_split(nbgrad.tensor([1.0]), 5)            # (before the out-of-range dim)
    with pytest.raises(RuntimeError, match="zero-dimensional or one-dimensional tensor, but got a tensor with 2 dims"):
        x.tensor_split(nbgrad.ones(1, 1, dtype=nbgrad.int64))
    with pytest.raises(RuntimeError, match="expected at least a 1-dimensional tensor"):
        nbgrad.tensor(1.0).tensor_split(nbgrad.tensor([1.0]))
    assert [t.shape[0] for t in x.tensor_split(nbgrad.tensor([1, 3]))] == [1, 2, 1]
    # hsplit reads a tensor as PyTorch's parser does: a 0-dim integer one is the sections
    m = nbgrad.ones(4, 4)
    assert [tuple(t.shape) for t in m.hsplit(nbgrad.tensor(2, dtype=nbgrad.int32))] == [(4, 2), (4, 2)]
    assert [tuple(t.shape) for t in nbgrad.ones(4).hsplit(nbgrad.tensor(True))] == [(1,), (3,)]
    with pytest.raises(TypeError, match="received an invalid combination of arguments"):
        m.hsplit(nbgrad.tensor([1.0]))


def test_an_unsized_int_list_refuses_a_one_element_tensor():
    # flip's dims (int[]) take no tensor; sum's dim (int[1]) takes one of one element
    x = nbgrad.ones(3, 3)
    with pytest.raises(TypeError, match=r"^flip\(\): argument 'dims' \(position 2\) must be tuple of ints, not Tensor$"):
        nbgrad.flip(x, nbgrad.tensor([5]))
    assert nbgrad.sum(x, nbgrad.tensor([0])).tolist() == [3.0, 3.0, 3.0]
    with pytest.raises(TypeError):      # all/any's dims are an int[] too
        x.bool().all(nbgrad.tensor([1]))
    assert x.bool().all(nbgrad.tensor(1)).tolist() == [True, True, True]


# -- stop 51: values and dtypes ---------------------------------------------------------------------
def test_bincount_of_no_elements_is_int64_whatever_the_weights():
    # ATen returns zeros(minlength, kLong) for an empty 1-D input before it reads the weights
    for weights in (nbgrad.tensor([]), nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64)):
        out = nbgrad.bincount(nbgrad.tensor([], dtype=nbgrad.int64), weights=weights, minlength=3)
        assert out.dtype == nbgrad.int64 and out.tolist() == [0, 0, 0]
    assert nbgrad.bincount(nbgrad.tensor([1]), weights=nbgrad.tensor([2.0])).dtype == nbgrad.float32


def test_inner_over_a_zero_length_dim_is_zeros():
    a = nbgrad.ones(2, 0, requires_grad=True)
    out = nbgrad.inner(a, nbgrad.ones(3, 0))
    assert out.shape == (2, 3) and out.tolist() == [[0.0] * 3] * 2
    out.sum().backward()
    assert a.grad.shape == (2, 0)
    assert nbgrad.inner(nbgrad.ones(2, 0), nbgrad.ones(0)).tolist() == [0.0, 0.0]


def test_hardtanh_in_place_with_min_above_max_is_max_as_clamp():
    # F.hardtanh_ is ATen's op (F.hardtanh's Python refuses min_val > max_val): clamp's
    # min(max(x, min_val), max_val), max_val throughout, no gradient
    x = nbgrad.tensor([-3.0, 0.0, 1.5, 3.0], requires_grad=True)
    y = x.clone()
    F.hardtanh_(y, 2.0, 1.0)
    assert y.tolist() == [1.0, 1.0, 1.0, 1.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert F.hardtanh_(nbgrad.tensor([-3, 0, 1, 3], dtype=nbgrad.int32), 2.0).tolist() == [1, 1, 1, 1]
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 2.0, 1.0)
    # its limits are Scalars: a tensor that requires grad is the parser's TypeError, for an
    # integral input too (whose limits are truncated)
    for t in (nbgrad.ones(3), nbgrad.ones(3, dtype=nbgrad.int64)):
        with pytest.raises(TypeError, match="argument 'max_val' \\(position 3\\) must be Number, not Tensor"):
            F.hardtanh_(t, -1.0, nbgrad.tensor(2.0, requires_grad=True))
        assert F.hardtanh_(t.clone(), -1.0, nbgrad.tensor(2.0)).tolist() == [1, 1, 1]


# -- stop 51: calls PyTorch accepts -----------------------------------------------------------------
def test_linalg_older_positional_tolerances():
    A = nbgrad.tensor([[1.0, 2.0], [2.0, 4.0001]])
    assert nbgrad.linalg.matrix_rank(A, 0.01).item() == 1 and nbgrad.linalg.matrix_rank(A, 1e-5).item() == 2
    assert nbgrad.linalg.matrix_rank(A, nbgrad.tensor(0.01), True).item() == 1
    np.testing.assert_allclose(nbgrad.linalg.pinv(A, 0.01).numpy(), np.linalg.pinv(A.numpy().astype(np.float64),
                                                                                   rcond=0.01), rtol=1e-4)
    for call in (lambda: nbgrad.linalg.pinv(A, 0.01, atol=0.1), lambda: nbgrad.linalg.matrix_rank(A, 0.01, rtol=0.1)):
        with pytest.raises(TypeError, match="received an invalid combination of arguments"):
            call()
    assert nbgrad.special.softmax(A, 0, nbgrad.float64).dtype == nbgrad.float64


def test_torch_margin_ranking_loss_broadcasts_its_operands():
    # F's Python asks for equal ranks; ATen's op (torch.margin_ranking_loss) broadcasts
    a = nbgrad.tensor([0.2, 0.7, 0.4], dtype=nbgrad.float64)
    b = nbgrad.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], dtype=nbgrad.float64)
    out = nbgrad.margin_ranking_loss(nbgrad.tensor(0.5, dtype=nbgrad.float64), b, a)
    np.testing.assert_allclose(out.numpy(), np.maximum(0, -a.numpy() * (0.5 - b.numpy())), rtol=1e-12)
    with pytest.raises(RuntimeError, match="margin_ranking_loss : All input tensors should have same dimension"):
        F.margin_ranking_loss(nbgrad.tensor(0.5), b.float(), a.float())


@pytest.mark.parametrize("call, expected", [
    (lambda x: nbgrad.bucketize(x, nbgrad.tensor([0.0, 2.0]), out=nbgrad.zeros(3, dtype=nbgrad.int64)), [1, 1, 1]),
    (lambda x: nbgrad.argmax(x, 0, out=nbgrad.zeros((), dtype=nbgrad.int64)), 0),
    (lambda x: nbgrad.eq(x, 1, out=nbgrad.zeros(3, dtype=nbgrad.bool)), [True, True, True]),
    (lambda x: nbgrad.searchsorted(nbgrad.tensor([0.0, 2.0]), x, out=nbgrad.zeros(3, dtype=nbgrad.int64)), [1, 1, 1]),
])
def test_out_of_an_op_without_a_derivative_takes_inputs_that_require_grad(call, expected):
    # PyTorch's out= refusal is autograd's, and these ops have no derivative
    assert call(nbgrad.ones(3, requires_grad=True)).tolist() == expected


@pytest.mark.parametrize("call", [
    lambda x: nbgrad.sign(x, out=nbgrad.zeros(3)),
    lambda x: nbgrad.round(x, out=nbgrad.zeros(3, dtype=nbgrad.int64)),
    lambda x: nbgrad.sort(x, out=(nbgrad.zeros(3), nbgrad.zeros(3, dtype=nbgrad.int64))),
])
def test_out_of_a_differentiable_op_still_refuses_inputs_that_require_grad(call):
    with pytest.raises(RuntimeError, match=r"functions with out=\.\.\. arguments don't support automatic differen"):
        call(nbgrad.ones(3, requires_grad=True))


@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (0,), (0, 0), (2, 0, 0)])
def test_cholesky_of_no_elements_is_an_empty_result_before_any_shape_check(shape):
    x = nbgrad.ones(shape, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = nbgrad.cholesky(x)
    assert out.shape == shape and out.grad_fn.name() == "CholeskyBackward0"


def test_roll_of_no_elements_along_one_dim_does_not_wrap_it():
    x = nbgrad.ones(0, requires_grad=True)
    out = nbgrad.roll(x, -3, dims=2)
    assert out.shape == (0,) and out.grad_fn.name() == "RollBackward0"
    with pytest.raises(IndexError, match="Dimension out of range"):
        nbgrad.roll(nbgrad.ones(2), -3, dims=2)


@pytest.mark.parametrize("args", [(4, nbgrad.ones(3, dtype=nbgrad.bool)), (nbgrad.ones(3, dtype=nbgrad.bool), "a"),
                                  ([True, False, True], 1.0), (nbgrad.ones(3, dtype=nbgrad.bool), None)])
def test_masked_fill_refuses_what_the_parser_refuses(args):
    with pytest.raises(TypeError, match=r"^masked_fill\(\) received an invalid combination of arguments"):
        nbgrad.ones(3).masked_fill(*args)


def test_masked_fill_names_a_masks_dtype_as_pytorch():
    with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks, but got mask with dtype long int$"):
        nbgrad.ones(3).masked_fill(nbgrad.ones(3, dtype=nbgrad.int64), 1.0)


def test_out_refusal_comes_before_the_work_of_a_differentiable_op():
    # (cholesky of a matrix that is not positive-definite: PyTorch's autograd refuses first)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match=r"^cholesky\(\): functions with out=\.\.\. arguments don't support"):
            nbgrad.cholesky(nbgrad.ones(3, 3, dtype=nbgrad.float64, requires_grad=True),
                            out=nbgrad.ones(2, 3, 4, dtype=nbgrad.bool))


def test_diag_embed_of_a_result_no_memory_can_hold_is_the_allocators_error():
    # (the process was killed: temporaries of the result's side length, 16 GiB, filled memory
    # before the 4.6e18-byte result itself was asked for; a size beyond any address space, so
    # that the test does not depend on the machine's overcommit policy)
    with pytest.raises(RuntimeError, match="can't allocate memory: you tried to allocate 4611686031312289801 bytes"):
        nbgrad.diag_embed(nbgrad.ones(1, 3, dtype=nbgrad.bool), 2147483648, 1)


@pytest.mark.parametrize("call", [lambda: nbgrad.arange(2 ** 31, requires_grad=nbgrad.tensor(True)),
                                  lambda: nbgrad.linspace(0, 1, 2 ** 31, requires_grad=nbgrad.tensor(True)),
                                  lambda: nbgrad.arange(5.0, requires_grad=1)])
def test_factories_refuse_a_requires_grad_that_is_not_a_bool_before_any_work(call):
    with pytest.raises(TypeError, match="received an invalid combination of arguments"):
        call()


def test_torch_level_methods_and_arithmetic_failures_consult_the_parser():
    # Tensor.cholesky/svd/qr were bound after the methods were wrapped, and a ZeroDivisionError
    # (group_norm's num_groups=False) was not a failure the wrapper asked the parser about
    not_positive = -nbgrad.eye(2, dtype=nbgrad.float64)
    with pytest.raises(TypeError, match=r"^cholesky\(\): argument 'upper' \(position 1\) must be bool, not int$"):
        not_positive.cholesky(4)
    with pytest.raises(TypeError, match=r"^group_norm\(\): argument 'num_groups' \(position 2\) must be int, not bool$"):
        nbgrad.group_norm(nbgrad.ones(1, 2, 1), False)


def test_functional_tanh_and_sigmoid_are_method_calls():
    # PyTorch's F.tanh(input) is input.tanh(): a number's AttributeError
    for fn, name in ((F.tanh, "tanh"), (F.sigmoid, "sigmoid")):
        with pytest.raises(AttributeError, match=f"'int' object has no attribute '{name}'"):
            fn(3)


@pytest.mark.parametrize("call", [lambda x: x.argmax(nbgrad.ones(2, 2)),
                                  lambda x: x.bool().argmax(nbgrad.ones(2, 2)),
                                  lambda x: x.argmax(nbgrad.tensor([1])),
                                  lambda x: x.argmin(1.0),
                                  lambda x: x.cumsum(nbgrad.tensor([1]))])
def test_an_int_dim_is_read_as_the_parser_reads_it_before_anything_else(call):
    # (a one-element 1-D tensor is not an int dim; a bool input's own refusal comes after)
    with pytest.raises(TypeError, match=r"argument 'dim' .*must be int, not (Tensor|float)"):
        call(nbgrad.ones(2, 3))
    assert nbgrad.ones(2, 3).argmax(nbgrad.tensor(1)).shape == (2,)


def test_binomial_refuses_as_pytorch_in_its_order():
    with pytest.raises(ValueError, match="^binomial only supports floating-point dtypes for count, got: Long$"):
        nbgrad.binomial(nbgrad.ones(3, dtype=nbgrad.int64), nbgrad.ones(3))
    with pytest.raises(ValueError, match="^binomial only supports floating-point dtypes for prob, got: Long$"):
        nbgrad.binomial(nbgrad.ones(3), nbgrad.ones(3, dtype=nbgrad.int64))
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        nbgrad.binomial(nbgrad.ones(3), nbgrad.ones(3, dtype=nbgrad.float64))
    with pytest.raises(NotImplementedError, match="\"binomial_cpu\" not implemented for 'Half'"):
        nbgrad.binomial(nbgrad.ones(3, dtype=nbgrad.float16), nbgrad.ones(3, dtype=nbgrad.float16))


@pytest.mark.parametrize("call", [lambda: nbgrad.triangular_solve(nbgrad.ones(3), nbgrad.ones(3, 3), out=nbgrad.ones(3)),
                                  lambda: nbgrad.aminmax(nbgrad.ones(3), out=nbgrad.ones(3))])
def test_one_tensor_out_of_a_tuple_op_is_refused_before_any_work(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match=r"argument 'out' must be tuple of Tensors, not Tensor"):
            call()
    assert nbgrad.max(nbgrad.ones(3), out=nbgrad.ones(())).item() == 1.0        # (max(x) has one result)


def test_the_input_is_read_before_an_int_dim():
    # the parser's order (input, dim, keepdim), and F.softmax's input.softmax(dim)
    with pytest.raises(TypeError, match=r"^argmax\(\): argument 'input' \(position 1\) must be Tensor, not int$"):
        nbgrad.argmax(3, nbgrad.ones(2, 2))
    with pytest.raises(TypeError, match=r"^cumsum\(\): argument 'input' \(position 1\) must be Tensor, not int$"):
        nbgrad.cumsum(3, nbgrad.tensor([1]))
    with pytest.raises(AttributeError, match="'tuple' object has no attribute"):
        F.softmax((), nbgrad.ones(1, 3))
    with pytest.raises(TypeError, match=r"binomial\(\): argument 'generator' \(position 3\) must be torch.Generator"):
        nbgrad.binomial(nbgrad.ones(2), nbgrad.ones(2, dtype=nbgrad.int32), nbgrad.ones(2))


# -- quantile: q's gradient flows through the linear weights (it was None) -----------------------
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantile_gradient_reaches_q(fn):
    x = nbgrad.tensor([[1.0, 4.0, 2.5, 7.0], [3.0, -1.0, 0.5, 2.0]], dtype=nbgrad.float64)
    q = nbgrad.tensor([0.15, 0.55, 0.9], dtype=nbgrad.float64, requires_grad=True)
    assert nbgrad.autograd.gradcheck(lambda t: getattr(nbgrad, fn)(x, t, 1), (q,))
    getattr(nbgrad, fn)(x, q, 1).sum().backward()
    # d/dq = (above - below) * (n - 1), summed over the rows (PyTorch 2.13: tensor([9., 9., 12.]))
    assert q.grad.tolist() == [9.0, 9.0, 12.0]


def test_quantile_other_interpolations_give_q_no_gradient():
    x = nbgrad.tensor([1.0, 4.0, 2.5, 7.0], requires_grad=True)
    for interpolation in ("lower", "higher", "midpoint", "nearest"):
        q = nbgrad.tensor([0.3, 0.6], requires_grad=True)
        nbgrad.quantile(x, q, interpolation=interpolation).sum().backward()
        assert q.grad is None


def test_nanquantile_of_an_all_nan_row_is_its_first_element_as_in_pytorch():
    # ATen sets the rank of an all-NaN row to 0: the value is NaN and the gradient reaches the
    # first sorted element; q's gradient from that row is 0 (recorded from PyTorch 2.13)
    nan = float("nan")
    x = nbgrad.tensor([[nan, nan, nan], [4.0, 5.0, 6.5]], dtype=nbgrad.float64, requires_grad=True)
    q = nbgrad.tensor([0.1, 0.7], dtype=nbgrad.float64, requires_grad=True)
    r = nbgrad.nanquantile(x, q, 1)
    assert math.isnan(r[0, 0].item()) and math.isnan(r[1, 0].item())
    np.testing.assert_allclose(r[:, 1].detach().numpy(), [4.2, 5.6])
    r.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[2.0, 0.0, 0.0], [0.8, 0.8, 0.4]])
    np.testing.assert_allclose(q.grad.numpy(), [2.0, 3.0])


# -- trapezoid's dx is a Number: a 0-dim tensor is its value -----------------------------------
@pytest.mark.parametrize("fn", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid_dx_tensor_is_read_as_a_number(fn):
    f = getattr(nbgrad, fn)
    y = nbgrad.tensor([2, 2, 2], dtype=nbgrad.int32)
    # (a float16 dx made the result float16; PyTorch reads a double: the default dtype)
    assert f(y, dx=nbgrad.tensor(0.5, dtype=nbgrad.float16)).dtype == nbgrad.float32
    assert f(nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float16), dx=nbgrad.tensor(2.0, dtype=nbgrad.float64)).dtype \
        == nbgrad.float16
    for dx in (nbgrad.tensor([0.5]), nbgrad.tensor(0.5, requires_grad=True)):
        with pytest.raises(TypeError, match=f"{fn}\\(\\) received an invalid combination of arguments"):
            f(y, dx=dx)
    with pytest.raises(RuntimeError, match="we only support dx as a real number"):
        f(y, dx=nbgrad.tensor(True))


# -- l1_loss and mse_loss: the weight counts, and the pair broadcasts before the op --------------
@pytest.mark.parametrize("fn,values", [("l1_loss", ([1.0, 4.0, 1.5], 6.5, 6.5 / 3.5)),
                                       ("mse_loss", ([1.0, 8.0, 4.5], 13.5, 13.5 / 3.5))])
def test_pointwise_losses_weight_each_element(fn, values):
    # (nbgrad ignored weight=: l1_loss gave 2.0 for PyTorch's 1.8571)
    none, total, mean = values
    x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y, w = nbgrad.zeros(3), nbgrad.tensor([1.0, 2.0, 0.5])
    loss = getattr(F, fn)
    np.testing.assert_allclose(loss(x, y, reduction="none", weight=w).detach().numpy(), none)
    assert loss(x, y, reduction="sum", weight=w).item() == pytest.approx(total)
    m = loss(x, y, weight=w)
    assert m.item() == pytest.approx(mean) and m.grad_fn.name() == "DivBackward0"
    m.backward()
    expected = np.sign([1.0, 2.0, 3.0]) if fn == "l1_loss" else 2 * np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(x.grad.numpy(), expected * [1.0, 2.0, 0.5] / 3.5, rtol=1e-6)
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        loss(x, y, weight=w[:2])
    with pytest.raises(ValueError, match="Invalid reduction mode: foo. Expected one of 'none', 'mean', 'sum'."):
        loss(x, y, reduction="foo", weight=w)


def test_l1_loss_of_a_wider_zero_dim_target_takes_its_dtype():
    # PyTorch broadcasts the pair first, so the 0-dim target is no longer 0-dim in the subtraction
    x = nbgrad.arange(6.0).reshape(2, 3).half()
    with pytest.warns(UserWarning, match="Using a target size"):
        loss = F.l1_loss(x, nbgrad.tensor(0.3, dtype=nbgrad.float64))
    assert loss.dtype == nbgrad.float64


# -- chain_matmul takes tensors only, each an argument -----------------------------------------
@pytest.mark.parametrize("args,message", [
    (((4, -1, 0),), "expected Tensor as element 0 in argument 0, but got tuple"),
    (([nbgrad.ones(2, 2), nbgrad.ones(2, 2)],), "expected Tensor as element 0 in argument 0, but got list"),
    ((nbgrad.ones(2, 2), 3), "expected Tensor as element 1 in argument 0, but got int")])
def test_chain_matmul_refuses_what_is_not_a_tensor(args, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match=message):
            nbgrad.chain_matmul(*args)


# -- unique and unique_consecutive: their flags are bools, as their ops' parsers read them ----------
@pytest.mark.parametrize("call,error,message", [
    (lambda x: nbgrad.unique(x, True, -1), TypeError, "_unique2(): argument 'return_inverse' must be bool, not int"),
    (lambda x: nbgrad.unique(x, 1), TypeError, "_unique2(): argument 'sorted' must be bool, not int"),
    (lambda x: nbgrad.unique(x, True, False, False, 0.5), TypeError,
     "unique_dim(): argument 'dim' (position 2) must be int, not float"),
    (lambda x: nbgrad.unique(x, dim=0, sorted=2), TypeError, "unique_dim(): argument 'sorted' must be bool, not int"),
    (lambda x: x.unique(nbgrad.ones(1)), TypeError, "_unique2(): argument 'sorted' must be bool, not Tensor"),
    (lambda x: nbgrad.unique(x, True, nbgrad.ones(2)), RuntimeError, "Boolean value of Tensor with more than one value"),
    (lambda x: nbgrad.unique_consecutive(x, 3), TypeError,
     "unique_consecutive(): argument 'return_inverse' must be bool, not int"),
    (lambda x: nbgrad.unique_consecutive(x, False, False, 0.5), TypeError,
     "unique_consecutive(): argument 'dim' must be int, not float"),
    (lambda x: x.unique_consecutive(0.0, True), TypeError,
     "unique_consecutive(): argument 'return_inverse' must be bool, not float"),
])
def test_unique_flags_are_parsed_as_bools(call, error, message):
    # (nbgrad took each for its truth: x.unique(t) returned a result)
    with pytest.raises(error) as e:
        call(nbgrad.tensor([1, 2, 2]))
    assert str(e.value).startswith(message)


# -- API fuzz seed 34 -----------------------------------------------------------------------------
@pytest.mark.parametrize("call,message", [
    (lambda x: F.adaptive_avg_pool2d(x, -3),
     "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-3, -3}"),
    (lambda x: F.adaptive_avg_pool1d(x[0], -2),
     "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {1, -2}"),
    (lambda x: F.adaptive_avg_pool3d(x, -1),
     "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received {-1, -1,-1}"),
    (lambda x: F.adaptive_max_pool2d(x, -3), "Trying to create tensor with negative dimension -3: [1, 2, -3, -3]"),
    (lambda x: F.adaptive_max_pool1d(x[0], -2), "Trying to create tensor with negative dimension -2: [2, 3, 1, -2]"),
    (lambda x: F.adaptive_max_pool3d(x, -1), "Trying to create tensor with negative dimension -1: [1, -1, -1, -1]"),
])
def test_adaptive_pools_refuse_a_negative_output_size(call, message):
    # (adaptive_avg_pool2d(x, -3) returned a tensor of shape [1, 2, -3, -3])
    with pytest.raises(RuntimeError) as e:
        call(nbgrad.ones(1, 2, 3, 4))
    assert str(e.value) == message


@pytest.mark.parametrize("call,message", [
    (lambda: nbgrad.threshold_(nbgrad.ones(2, dtype=nbgrad.float16), -3, 1e30), "c10::Half"),
    (lambda: F.threshold(nbgrad.ones(2, dtype=nbgrad.int32), float("nan"), -1), "int"),
    (lambda: F.threshold_(nbgrad.ones(2, dtype=nbgrad.uint8), 2147483648, -0.0), "uint8_t"),
    (lambda: nbgrad.threshold(nbgrad.tensor(-5), 5, float("-inf")), "int64_t"),
    (lambda: F.threshold(nbgrad.ones(2), 1e39, 0), "float"),
])
def test_threshold_numbers_must_fit_the_element_type(call, message):
    with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {message} without overflow$"):
        call()


@pytest.mark.parametrize("call,name", [
    (lambda x: nbgrad.sum(x, dtype=nbgrad.int32), "Int"), (lambda x: x.sum(1, dtype=nbgrad.int64), "Long"),
    (lambda x: x.sum(dtype=nbgrad.bool), "Bool"), (lambda x: nbgrad.nansum(x, dtype=nbgrad.int64), "Long"),
    (lambda x: x.prod(dtype=nbgrad.int64), "Long"), (lambda x: x.cumsum(0, dtype=nbgrad.int64), "Long"),
])
def test_an_integral_result_of_a_differentiable_input_is_refused(call, name):
    x = nbgrad.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"^Autograd not support dtype: {name}$"):
        call(x)
    with nbgrad.no_grad():
        assert not call(x).dtype.is_floating_point


def test_small_argument_checks_of_seed_34():
    x = nbgrad.ones(3)
    for fn in (nbgrad.cummax, nbgrad.cummin):       # (an empty input: no dim read, as PyTorch)
        values, indices = fn(nbgrad.ones(0, 3), 5)
        assert values.shape == indices.shape == (0, 3) and indices.dtype == nbgrad.int64
    with pytest.raises(RuntimeError, match="^order must be non-negative but got -1$"):
        nbgrad.diff(x, -1)
    with pytest.raises(RuntimeError, match="^eps must be non-negative, got: -1.5$"):
        F.cosine_similarity(x, x, dim=0, eps=-1.5)
    with pytest.raises(TypeError, match=r"^one_hot\(\): argument 'num_classes' \(position 2\) must be int, not float$"):
        F.one_hot(nbgrad.tensor([1]), 2.0)
    with pytest.raises(NotImplementedError, match="\"round_vml_cpu\" not implemented for 'Byte'"):
        nbgrad.special.round(nbgrad.ones(2, dtype=nbgrad.uint8))
    with pytest.raises(NotImplementedError, match="\"round_cpu\" not implemented for 'Int'"):
        nbgrad.special.round(nbgrad.ones(2, dtype=nbgrad.int32), decimals=1)
    assert nbgrad.round(nbgrad.ones(2, dtype=nbgrad.int32)).tolist() == [1, 1]
    s = nbgrad.tensor(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert nbgrad.adjoint(s) is s
        picked = nbgrad.where(nbgrad.tensor([1, 0], dtype=nbgrad.uint8), nbgrad.ones(2), nbgrad.zeros(2))
    assert picked.tolist() == [1.0, 0.0]
    for call in (lambda: nbgrad.tensor([1.0], nbgrad.float64), lambda: nbgrad.as_tensor([1.0], nbgrad.float64),
                 lambda: x.new_tensor([1.0], nbgrad.float64)):
        with pytest.raises(TypeError, match="positional argument"):
            call()
    with pytest.raises(TypeError, match=r"hann_window\(\) received an invalid combination of arguments"):
        nbgrad.hann_window(3, layout=nbgrad.ones(()))     # (a tensor for layout: was taken, 8 GB for 2 ** 31)


@pytest.mark.parametrize("call,error,message", [
    (lambda x: F.max_pool2d(x, 2, -1), RuntimeError, "stride should be greater than zero, but got dH: -1 dW: -1"),
    (lambda x: F.max_pool2d(x, 2, 1, -1), RuntimeError, "pad must be non-negative, but got pad: -1"),
    (lambda x: F.avg_pool1d(x[0], 2, -1), RuntimeError, "stride should be greater than zero, but got dH: 1 dW: -1"),
    (lambda x: F.max_pool1d(x[0], 2, -1), RuntimeError, "max_pool1d() stride must be greater than zero, but got -1"),
    (lambda x: F.max_pool1d(x[0], -2), RuntimeError, "max_pool1d() kernel_size must be greater than zero, but got -2"),
    (lambda x: F.max_pool1d(x[0], 2, padding=2), RuntimeError,
     "max_pool1d() padding should be at most half of kernel size, but got padding=2 and kernel_size=2"),
    (lambda x: F.max_pool1d(x[0].long(), 2), NotImplementedError, "\"max_pool1d_impl\" not implemented for 'Long'"),
])
def test_pools_refuse_negative_strides_and_padding(call, error, message):
    # (a negative stride or padding gave an output; max_pool1d's own kernel has its own words)
    with pytest.raises(error) as e:
        call(nbgrad.ones(1, 1, 4, 4))
    assert str(e.value) == message


def test_max_pool1d_with_indices_takes_integers():
    values, indices = F.max_pool1d_with_indices(nbgrad.tensor([[[3, 1, 4, 1]]]), 2)
    assert values.tolist() == [[[3, 4]]] and indices.tolist() == [[[0, 2]]]


# -- unique_consecutive: torch.unique_consecutive's dispatch reads its positional flags swapped ------
@pytest.mark.parametrize("args,kwargs,expected", [
    # (which outputs are returned follows boolean_dispatch's indices, 2 for return_inverse and 1 for
    # return_counts; each output follows its own argument, an empty int64 tensor when not asked for)
    ((True, False), {}, [[1.0, 2.0, 3.0], []]),
    ((False, True), {}, [[1.0, 2.0, 3.0], []]),
    ((True, False, 0), {}, [[1.0, 2.0, 3.0], []]),
    ((True, True), {}, [[1.0, 2.0, 3.0], [0, 0, 1, 2, 2], [2, 1, 2]]),
    ((True,), {"return_counts": True}, [[1.0, 2.0, 3.0], [2, 1, 2]]),
    ((), {"return_inverse": True}, [[1.0, 2.0, 3.0], [0, 0, 1, 2, 2]]),
    ((False,), {"return_counts": True, "dim": 0}, [[1.0, 2.0, 3.0], [2, 1, 2]]),
])
def test_unique_consecutive_returns_what_its_dispatch_reads(args, kwargs, expected):
    x = nbgrad.tensor([1.0, 1.0, 2.0, 3.0, 3.0])
    got = nbgrad.unique_consecutive(x, *args, **kwargs)
    assert [t.tolist() for t in got] == expected
    assert all(t.dtype == nbgrad.int64 for t in got[1:])


def test_tensor_unique_consecutive_passes_its_flags_by_keyword():
    x = nbgrad.tensor([1.0, 1.0, 2.0, 3.0, 3.0])
    values, inverse = x.unique_consecutive(True, False)
    assert values.tolist() == [1.0, 2.0, 3.0] and inverse.tolist() == [0, 0, 1, 2, 2]
    values, counts = x.unique_consecutive(False, True, 0)
    assert counts.tolist() == [2, 1, 2]


# -- F.embedding reads weight.size(0) only where its padding_idx needs it -----------------------
def test_embedding_padding_idx_reads_the_weights_rows_as_pytorch():
    # (a 0-dim weight: PyTorch's weight.size(0) is the IndexError; it had been an AssertionError)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        F.embedding(nbgrad.tensor([0]), nbgrad.tensor(2.0), -1)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        F.embedding(nbgrad.tensor([0]), nbgrad.tensor(2.0), 0)     # (0: no row read)
    w = nbgrad.ones(3, 2)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(nbgrad.tensor([0]), w, -4)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(nbgrad.tensor([0]), w, 3)
    assert F.embedding(nbgrad.tensor([0, 2]), w, -1).tolist() == [[1.0, 1.0], [1.0, 1.0]]


# -- F.embedding's max_norm: embedding_renorm_ first, its parser, checks and double arithmetic ------
def test_embedding_renorm_runs_first_with_atens_checks():
    i = nbgrad.tensor([0, 1])
    with pytest.raises(TypeError, match=r"^embedding_renorm_\(\): argument 'max_norm' \(position 3\) must be float, not Tensor$"):
        F.embedding(i, nbgrad.ones(3), max_norm=nbgrad.ones(2))     # (before embedding's 2-D check)
    with pytest.raises(RuntimeError, match=r"^Expected 2-dimensional tensor, but got 1-dimensional tensor for argument #1 'self' \(while checking arguments for embedding_renorm_\)$"):
        F.embedding(i, nbgrad.ones(3), max_norm=1.0)
    with pytest.raises(IndexError, match=r"^select\(\): index -5 out of range for tensor of size \[3, 2\] at dimension 0$"):
        F.embedding(nbgrad.tensor([-5, 7]), nbgrad.ones(3, 2), max_norm=1.0)
    with pytest.raises(RuntimeError, match="^norm\\(\\): input dtype should be either floating point or complex. Got Int instead.$"):
        F.embedding(i, nbgrad.ones(3, 2, dtype=nbgrad.int32), max_norm=1.0)


def test_embedding_renorm_scales_by_a_double():
    # ATen: scale = max_norm / (norm + 1e-7) in double, then row *= scale in float32 (a float32
    # norm + 1e-7 is the norm itself, and its scale 0.2f, one ulp off)
    w = nbgrad.tensor([[3.0, 4.0], [0.3, 0.4]])
    out = F.embedding(nbgrad.tensor([0, 1]), w, max_norm=1.0)
    expected = np.float32([3.0, 4.0]) * np.float32(1.0 / (5.0 + 1e-7))
    np.testing.assert_array_equal(w[0].numpy(), expected)
    np.testing.assert_array_equal(out[0].detach().numpy(), expected)
    np.testing.assert_array_equal(w[1].numpy(), np.float32([0.3, 0.4]))      # (within max_norm: untouched)


@pytest.mark.parametrize("shape,message", [
    ((4,), "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ((), "Dimension specified as 1 but tensor has no dimensions"),
    ((2, 3), "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
])
def test_unfold_reads_sizes_1_and_2_first(shape, message):
    # (ATen's im2col_shape_check reads input.size(1) and size(2) before its dims check)
    with pytest.raises(IndexError) as e:
        F.unfold(nbgrad.ones(shape), 2)
    assert str(e.value) == message


# -- PyTorch's functions written in Python read their arguments' attributes themselves -------------
@pytest.mark.parametrize("call,message", [
    # (where PyTorch's Python reads an attribute of an argument, a non-tensor there is its
    # AttributeError, not an argument parser's TypeError: _schemas.PYTHON_ATTRIBUTES)
    (lambda: F.lp_pool1d(2, nbgrad.ones(2, 3), 2), "'int' object has no attribute 'pow'"),
    (lambda: F.instance_norm(5, nbgrad.ones(3, 3)), "'int' object has no attribute 'size'"),
    (lambda: F.batch_norm(5, nbgrad.ones(3), nbgrad.ones(3), training=True), "'int' object has no attribute 'size'"),
    (lambda: F.max_unpool1d(nbgrad.ones(2, 3, 5), 0, 4), "'int' object has no attribute 'unsqueeze'"),
    (lambda: F.max_pool3d_with_indices(0.5, 2), "'float' object has no attribute 'is_cuda'"),
    (lambda: F.softmin([nbgrad.ones(4)]), "'list' object has no attribute 'dim'"),
    (lambda: F.softmax(3, 0), "'int' object has no attribute 'softmax'"),
    (lambda: nbgrad.split((1, 2), 0), "'tuple' object has no attribute 'split'"),
])
def test_python_level_functions_raise_pytorchs_attribute_errors(call, message):
    with pytest.raises(AttributeError) as e:
        call()
    assert str(e.value) == message


@pytest.mark.parametrize("call,message", [
    # (where PyTorch's Python reads no attribute of it, the op's parser speaks)
    (lambda: F.poisson_nll_loss(2, nbgrad.ones(3)), "poisson_nll_loss(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: F.multi_margin_loss(nbgrad.ones(4), -1), "multi_margin_loss(): argument 'target' (position 2) must be Tensor, not int"),
    (lambda: nbgrad.block_diag(nbgrad.ones(2), 0.5), "expected Tensor as element 1 in argument 0, but got float"),
])
def test_functions_whose_python_reads_nothing_keep_the_parsers_type_error(call, message):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == message


def test_softmax_family_reads_the_implicit_dim_as_pytorch():
    with pytest.raises(TypeError, match="^only integer tensors of a single element can be converted to an index$"):
        F.softmin(nbgrad.ones(2, 3), _stacklevel=nbgrad.ones(2, dtype=nbgrad.int64))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin has been deprecated"):
        y = F.softmin(nbgrad.tensor([[0.0, 1.0], [2.0, 3.0]]))
    np.testing.assert_allclose(y.numpy(), np.exp(-np.float32([[0, 1], [2, 3]])) / np.exp(-np.float32([[0, 1], [2, 3]])).sum(1, keepdims=True), rtol=1e-6)
    assert F.softmax(nbgrad.ones(2, 3), 1, dtype=nbgrad.float64).dtype == nbgrad.float64
    assert [t.tolist() for t in nbgrad.split(tensor=nbgrad.arange(5), split_size_or_sections=[1, 4])] == [[0], [1, 2, 3, 4]]


def test_cdist_checks_compute_mode_then_its_parser_then_sizes():
    # (PyTorch's Python compares compute_mode first, then _VF.cdist parses x1, x2 and p)
    with pytest.raises(ValueError, match=r"^\[1\] is not a valid value for compute_mode$"):
        nbgrad.cdist(nbgrad.ones(3), nbgrad.ones(2, 3), compute_mode=[1])
    with pytest.raises(TypeError, match=r"^cdist\(\): argument 'p' \(position 3\) must be float, not Tensor$"):
        nbgrad.cdist(nbgrad.ones(3), nbgrad.ones(2, 3), nbgrad.ones(2, 3))
    with pytest.raises(RuntimeError, match="^cdist only supports at least 2D tensors, X1 got: 1D$"):
        nbgrad.cdist(nbgrad.ones(3), nbgrad.ones(2, 3))
    assert nbgrad.cdist(nbgrad.zeros(2, 3), nbgrad.ones(4, 3), nbgrad.tensor(1.0)).tolist() == [[3.0] * 4] * 2


@pytest.mark.parametrize("args,error,message", [
    # (ATen wraps the dims over the result's rank before reading a size: a 0-dim input has no
    # two dims for its diagonal; it had returned [[x]])
    ((), IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got -2)"),
    ((0, 0, -1), RuntimeError, "diagonal dimensions cannot be identical 0, -1"),
])
def test_diag_embed_of_a_zero_dim_tensor_is_refused(args, error, message):
    with pytest.raises(error) as e:
        nbgrad.diag_embed(nbgrad.tensor(3.0), *args)
    assert str(e.value) == message
    assert nbgrad.diag_embed(nbgrad.tensor([3.0])).tolist() == [[3.0]]


# -- both operands Python numbers: PyTorch wraps them for add/sub/mul/div/floor_divide ---------
@pytest.mark.parametrize("call, dtype, value", [
    (lambda: nbgrad.add(2, 3), nbgrad.int64, 5), (lambda: nbgrad.mul(2, 3.5), nbgrad.float32, 7.0),
    (lambda: nbgrad.div(3, 2), nbgrad.float32, 1.5), (lambda: nbgrad.divide(True, -1), nbgrad.float32, -1.0),
    (lambda: nbgrad.sub(3, 2, alpha=2), nbgrad.int64, -1), (lambda: nbgrad.floor_divide(7, 2), nbgrad.int64, 3),
    (lambda: nbgrad.multiply(2, True), nbgrad.int64, 2), (lambda: nbgrad.true_divide(3, 2), nbgrad.float32, 1.5),
    (lambda: nbgrad.div(7, 2, rounding_mode="trunc"), nbgrad.int64, 3),
    (lambda: nbgrad.add(True, True), nbgrad.bool, True),
])
def test_binary_ops_of_two_numbers_are_tensors(call, dtype, value):
    # (add(2, 3) recursed until RecursionError; the others refused their first operand)
    r = call()
    assert r.dim() == 0 and r.dtype == dtype and r.item() == value


def test_a_float32_sum_that_overflows_gives_inf_without_numpys_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isinf((nbgrad.tensor([2.5]) + 1e40).item()) and math.isinf(nbgrad.add(2.5, 1e40).item())


# -- factories take None for requires_grad and pin_memory (their TensorOptions arguments) -------
@pytest.mark.parametrize("call", [
    lambda: nbgrad.arange(3, requires_grad=None), lambda: nbgrad.full((2,), 1.0, requires_grad=None, pin_memory=None),
    lambda: nbgrad.linspace(0, 1, 3, requires_grad=None), lambda: nbgrad.randperm(3, requires_grad=None),
    lambda: nbgrad.asarray([1, 2], requires_grad=None), lambda: nbgrad.tril_indices(3, 3, requires_grad=None),
])
def test_factories_take_none_for_their_flags(call):
    assert not call().requires_grad


def test_range_and_frombuffer_refuse_none_and_tril_indices_checks_its_flag():
    with pytest.raises(TypeError, match=r"^range\(\): argument 'requires_grad' must be bool, not NoneType$"):
        nbgrad.range(1, 2, requires_grad=None)
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        nbgrad.tril_indices(3, 3, requires_grad=True)


# -- trapezoid answers no samples before its dtype checks -------------------------------------------
def test_trapezoid_of_no_bool_samples_is_bool_zeros():
    r = nbgrad.trapezoid(nbgrad.zeros(2, 0, dtype=nbgrad.bool))
    assert r.dtype == nbgrad.bool and r.tolist() == [False, False]
    with pytest.raises(RuntimeError, match="^trapezoid: received a bool input for `y`, but bool is not supported$"):
        nbgrad.trapezoid(nbgrad.zeros(2, 3, dtype=nbgrad.bool))


# -- torch.linalg's composites: out= as PyTorch's Python-level functions write it -------------------
def test_linalg_composites_write_out_as_pytorch():
    A = nbgrad.randn(2, 2, requires_grad=True)
    b = nbgrad.randn(2)
    assert nbgrad.linalg.cond(A, out=nbgrad.empty(0, dtype=nbgrad.float64)).dtype == nbgrad.float64   # (no refusal)
    assert nbgrad.linalg.tensorsolve(A, b, out=nbgrad.empty(0, dtype=nbgrad.float16)).dtype == nbgrad.float16
    with pytest.raises(RuntimeError, match="^linalg.cond: Expected result to be safely castable from Float dtype, "
                                           "but got result with dtype Long$"):
        nbgrad.linalg.cond(A, out=nbgrad.empty(0, dtype=nbgrad.int64))
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place "
                                           "operation.$"):
        nbgrad.linalg.tensorsolve(A, b, out=nbgrad.empty(0, requires_grad=True))
    x = nbgrad.randn(1, 3, dtype=nbgrad.float64, requires_grad=True)
    assert nbgrad.linalg.matrix_rank(x, out=nbgrad.empty(1, dtype=nbgrad.float16)).item() == 1.0
    with pytest.raises(RuntimeError, match="^torch.linalg.matrix_rank: Expected result to be safely castable from "
                                           "Long dtype, but got result with dtype Bool$"):
        nbgrad.linalg.matrix_rank(x, out=nbgrad.empty(1, dtype=nbgrad.bool))
    # multi_dot and vecdot check out's dtype before the op they call refuses autograd
    with pytest.raises(RuntimeError, match="^multi_dot\\(\\): expected out tensor to have dtype float but got double$"):
        nbgrad.linalg.multi_dot([A, A], out=nbgrad.empty(0, dtype=nbgrad.float64))
    with pytest.raises(RuntimeError, match="^mm\\(\\): functions with out=... arguments don't support automatic"):
        nbgrad.linalg.multi_dot([A, A], out=nbgrad.empty(0))
    with pytest.raises(RuntimeError, match="^linalg.vecdot: Expected out of dtypeFloat but found Double$"):
        nbgrad.linalg.vecdot(b.requires_grad_(), b, out=nbgrad.empty(0, dtype=nbgrad.float64))
    with pytest.raises(RuntimeError, match="^matmul\\(\\): functions with out=... arguments don't support"):
        nbgrad.linalg.matrix_power(A, 2, out=nbgrad.empty(0))


# -- an int list of dims takes a tensor of one integral or bool element ------------------------------
def test_reduction_dims_take_one_element_tensors():
    x = nbgrad.arange(6.).view(2, 3)
    assert x.amax(nbgrad.tensor([[[True]]])).tolist() == [2.0, 5.0]         # (True is dim 1)
    assert x.sum((nbgrad.tensor([[1]]),)).tolist() == [3.0, 12.0]
    assert x.sum(nbgrad.tensor(False)).tolist() == [3.0, 5.0, 7.0]


# -- torch.norm passes its arguments to torch.linalg's functions, whose parser checks them ---------
@pytest.mark.parametrize("call, error, message", [
    (lambda: nbgrad.norm(nbgrad.tensor(True), 3, nbgrad.bool), TypeError,
     r"linalg_vector_norm\(\): argument 'dim' \(position 3\) must be tuple of ints, not torch.dtype"),
    (lambda: nbgrad.norm(nbgrad.ones(4, dtype=nbgrad.bool), dim=True), TypeError,
     r"linalg_vector_norm\(\): argument 'dim' \(position 3\) must be tuple of ints, but found element of type "
     "bool at pos 0"),
    # matrix_norm checks its order first, then A, its dims (printed space-separated), its dtype
    (lambda: nbgrad.norm(nbgrad.ones(3), p="abc"), RuntimeError, "linalg.matrix_norm: Order abc not supported."),
    (lambda: nbgrad.norm(nbgrad.ones(2, 3, 4), "fro", (0, 1, 2)), RuntimeError,
     "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2"),
    (lambda: nbgrad.linalg.matrix_norm(nbgrad.ones(2, 3, 3), dim=(0, -3), dtype=nbgrad.int64), RuntimeError,
     r"linalg.matrix_norm: dims must be different. Got \(0, 0\)"),
    (lambda: nbgrad.linalg.matrix_norm(nbgrad.ones(3, 3), dim=(0,), dtype=nbgrad.int64), RuntimeError,
     "linalg.matrix_norm: dim must be a 2-tuple. Got 0"),
    (lambda: nbgrad.linalg.cond(nbgrad.ones(3), "abc"), RuntimeError,
     r"linalg.cond\(ord=abc\): The input tensor A must have at least 2 dimensions."),
])
def test_norms_check_in_atens_order_and_words(call, error, message):
    with pytest.raises(error, match="^" + message + "$"):
        call()


@pytest.mark.parametrize("call, error, message", [
    # F.embedding's Python calls torch.embedding, whose parser reads the flags as bools
    (lambda: F.embedding(nbgrad.zeros(2, dtype=nbgrad.int64), nbgrad.zeros(1, 3), scale_grad_by_freq=None), TypeError,
     r"embedding\(\): argument 'scale_grad_by_freq' \(position 4\) must be bool, not NoneType"),
    (lambda: F.embedding(nbgrad.zeros(2, 3, 5, dtype=nbgrad.int64), nbgrad.zeros(1, 3), sparse=None), TypeError,
     r"embedding\(\): argument 'sparse' \(position 5\) must be bool, not NoneType"),
    # bilinear checks its operands' dtypes first
    (lambda: F.bilinear(nbgrad.zeros(3, 3, dtype=nbgrad.bfloat16), nbgrad.zeros(3, 1, dtype=nbgrad.uint8),
                        nbgrad.zeros(0, 3, dtype=nbgrad.int32)), RuntimeError,
     "All tensors must have the same dtype, got input1: c10::BFloat16, input2: unsigned char, weight: int"),
    (lambda: F.bilinear(nbgrad.zeros(2, 3), nbgrad.zeros(2, 1), nbgrad.zeros(4, 3, 1),
                        nbgrad.zeros(4, dtype=nbgrad.float64)),
     RuntimeError, "All tensors must have the same dtype, got input1: float, input2: float, weight: float, "
                   "bias: double"),
    # the hot reductions refuse a dtype that is not one, and a float tensor for dim, as the parser
    (lambda: nbgrad.zeros(3).sum(dtype=nbgrad.zeros(1)), TypeError,
     r"sum\(\) received an invalid combination of arguments - got \(dtype=Tensor, \), but expected one of:"),
    (lambda: nbgrad.zeros(3, dtype=nbgrad.int32).mean(nbgrad.tensor(1.0)), TypeError,
     r"mean\(\) received an invalid combination of arguments - got \(Tensor\), but expected one of:"),
])
def test_refused_before_the_ops_own_checks(call, error, message):
    with pytest.raises(error, match="^" + message):
        call()


@pytest.mark.parametrize("call, error, message", [
    (lambda: nbgrad.linalg.matrix_power(nbgrad.tensor(True), -3), RuntimeError,     # (was a Python IndexError)
     "linalg.matrix_power: The input tensor A must have at least 2 dimensions."),
    (lambda: nbgrad.matrix_power(nbgrad.ones(2, 3), 2), RuntimeError,
     "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices"),
    # im2col's valid_dims reads size(2) only when size(1) is not 0
    (lambda: F.unfold(nbgrad.zeros(2, 0), 3), RuntimeError,
     r"Expected 3D or 4D \(batch mode\) tensor with possibly 0 batch size and other non-zero dimensions for input, "
     r"but got: \[2, 0\]"),
    (lambda: F.unfold(nbgrad.zeros(2, 3), 3), IndexError,
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    # memory_format is keyword-only
    (lambda: nbgrad.ones(2).contiguous(None), TypeError, r"contiguous\(\) takes 0 positional arguments but 1 was given"),
    (lambda: nbgrad.ones(2).is_contiguous(nbgrad.channels_last), TypeError,
     r"is_contiguous\(\) takes 0 positional arguments but 1 was given"),
])
def test_refusals_in_pytorchs_type_and_words(call, error, message):
    with pytest.raises(error, match="^" + message + "$"):
        call()


@pytest.mark.parametrize("call, message", [
    # PyTorch's Python passes *tensors to its op as one list, whose parser reads every element first
    (lambda: nbgrad.block_diag(nbgrad.ones(1, 1, 1), -3), "expected Tensor as element 1 in argument 0, but got int"),
    (lambda: nbgrad.cartesian_prod(nbgrad.ones(2, 0), None),
     "expected Tensor as element 1 in argument 0, but got NoneType"),
])
def test_star_tensors_are_one_list_for_the_parser(call, message):
    with pytest.raises(TypeError, match="^" + message + "$"):
        call()


def test_add_and_sub_take_alpha_by_keyword_only():
    # (x.add(t, 2) was x + 2 * t; alpha by position is only the deprecated Number-first form)
    x, t = nbgrad.ones(3), nbgrad.arange(3.0)
    for call, op in ((lambda: x.add(t, 2), "add"), (lambda: x.sub(t, 2.0), "sub")):
        with pytest.raises(TypeError, match=rf"^{op}\(\) takes 1 positional argument but 2 were given$"):
            call()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert x.add(2, t).tolist() == [1.0, 3.0, 5.0] and nbgrad.sub(x, 2, t).tolist() == [1.0, -1.0, -3.0]
    assert x.add(t, alpha=2).tolist() == [1.0, 3.0, 5.0]


@pytest.mark.parametrize("value, name", [(None, "NoneType"), ("a", "str"), ([1.0], "list"), ((1.0,), "tuple"),
                                         (np.array(1.0), "numpy.ndarray"), (np.bool_(True), "numpy.bool")])
def test_setitem_takes_a_tensor_or_a_number_first(value, name):
    # (b[0] = None wrote True into a bool tensor; the value's check comes before the index's)
    b = nbgrad.zeros(2, 3, dtype=nbgrad.bool)
    with pytest.raises(TypeError, match=f"^can't assign a {name} to a {b.type()}$"):
        b[nbgrad.ones(3, 1, dtype=nbgrad.bool)] = value
    with pytest.raises(TypeError, match=f"^can't assign a {name} to a {b.type()}$"):
        b[5] = value
    assert not b.any()
    b[0] = np.int64(1)
    assert b[0].all() and not b[1].any()
