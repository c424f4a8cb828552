"""nbgrad.distributed's collectives on 3 MPI ranks, on CPU and CUDA tensors, against NumPy references.

One launch (`mpiexec -n 3 python -m tests.distributed.workers.collectives`) runs every
collective for every dtype and op; each rank pickles what it saw, and the tests below
compare it with NumPy computed here from the same inputs (tests/distributed/_cases.py).
"""
import os

import numpy as np
import pytest

from tests.nn._cuda import CUDA_SKIP_REASON
from tests.distributed._cases import DTYPES, OPS, rank_input, reference, run_ok

N = 3


@pytest.fixture(scope="module", params=["cpu", "cuda"])
def ranks(request, tmp_path_factory):
    """What each rank saw, for CPU tensors (MPI reads and writes their own memory) and for
    CUDA tensors (staged through host memory; under Numba's simulator without a GPU)."""
    device = request.param
    if device == "cuda" and CUDA_SKIP_REASON is not None:
        pytest.skip(f"CUDA backend unusable: {CUDA_SKIP_REASON}")
    return run_ok(N, "tests.distributed.workers.collectives", tmp_path_factory.mktemp(f"collectives_{device}"),
                  device)


def _tol(dtype):
    return {"float16": 2e-3, "float32": 1e-6, "float64": 1e-13}.get(dtype, 0)


def assert_values(got, want, dtype):
    assert got.dtype == np.dtype(dtype)
    assert got.shape == want.shape
    if _tol(dtype):
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=_tol(dtype))
    else:
        np.testing.assert_array_equal(got, want)


def test_world(ranks):
    for r, res in enumerate(ranks):
        assert (res["rank"], res["world"], res["initialized"], res["backend"]) == (r, N, True, "mpi")
        assert res["after_destroy"] is False


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_all_reduce(ranks, dtype, op):
    want = reference(op, [rank_input(r, dtype) for r in range(N)])
    for r, res in enumerate(ranks):
        kind, *rest = res["all_reduce", dtype, op]
        if want is None:
            # a combination MPI cannot reduce: TypeError (and RuntimeError, PyTorch's type)
            assert kind == "error", rest
            names, msg = rest
            assert "TypeError" in names and "RuntimeError" in names
            assert f"ReduceOp.{op}" in msg and dtype in msg
            np.testing.assert_array_equal(res["after", dtype, op], rank_input(r, dtype))   # nothing written
        else:
            assert kind == "ok", rest
            assert_values(rest[0], want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_tensor_reduced_in_place(ranks, dtype):
    want = reference("MAX", [rank_input(r, dtype) for r in range(N)])
    for res in ranks:
        got, contiguous = res["strided", dtype]
        assert not contiguous
        assert_values(np.ascontiguousarray(got), want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_and_gathers(ranks, dtype):
    for r, res in enumerate(ranks):
        np.testing.assert_array_equal(res["broadcast", dtype], rank_input(N - 1, dtype, salt=1))
        gathered = res["all_gather", dtype]
        assert len(gathered) == N
        for k in range(N):
            np.testing.assert_array_equal(gathered[k], rank_input(k, dtype, salt=2))
        np.testing.assert_array_equal(res["all_gather_into_tensor", dtype],
                                      np.concatenate([rank_input(k, dtype, salt=2) for k in range(N)]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_send_recv_ring(ranks, dtype):
    for r, res in enumerate(ranks):
        got, src = res["ring", dtype]
        assert src == (r - 1) % N
        np.testing.assert_array_equal(got, rank_input((r - 1) % N, dtype, salt=3))


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_rooted_and_scattering_collectives(ranks, dtype):
    for r, res in enumerate(ranks):
        # reduce_scatter: rank r gets the sum over ranks of their r-th input
        want = reference("SUM", [rank_input(k, dtype, salt=4 + r) for k in range(N)])
        assert_values(res["reduce_scatter", dtype], want, dtype)
        want = reference("MAX", [rank_input(k, dtype, salt=4 + r) for k in range(N)])
        assert_values(res["reduce_scatter_tensor", dtype], want, dtype)
        # reduce into rank 1 only; the others keep their input
        want = reference("SUM", [rank_input(k, dtype, salt=5) for k in range(N)]) if r == 1 \
            else rank_input(r, dtype, salt=5)
        assert_values(res["reduce", dtype], want, dtype)
        if r == 0:
            for k, got in enumerate(res["gather", dtype]):
                np.testing.assert_array_equal(got, rank_input(k, dtype, salt=6))
        else:
            assert res["gather", dtype] is None
        np.testing.assert_array_equal(res["scatter", dtype], rank_input(r, dtype, salt=7))


def test_reduce_scatter_average(ranks):
    total = sum(k + 1 for k in range(N))
    for r, res in enumerate(ranks):
        np.testing.assert_allclose(res["reduce_scatter_avg"], np.arange(2 * r, 2 * r + 2) * total / N, rtol=1e-15)


def test_async_work_and_any_source(ranks):
    want = reference("SUM", [rank_input(r, "float64") for r in range(N)])
    for res in ranks:
        kind, waited, completed, got = res["async"]
        assert (kind, waited, completed) == ("Work", True, True)
        np.testing.assert_allclose(got, want, rtol=1e-15)
    src, got = ranks[1]["irecv_any"]
    assert src == 0
    np.testing.assert_array_equal(got, np.full(4, 7.0))


def test_leaf_flags_and_version_untouched(ranks):
    # PyTorch's collectives write through autograd's back: no version bump, a leaf stays one
    for res in ranks:
        bumped, requires_grad, is_leaf, got = res["leaf"]
        assert (bumped, requires_grad, is_leaf) == (0, True, True)
        np.testing.assert_array_equal(got, np.full(3, float(N), np.float32))


@pytest.mark.parametrize("key, error, words", [
    ("bad_gather_len", "RuntimeError", "one tensor per rank"),
    ("bad_gather_shape", "RuntimeError", "expected (2, 3), got (3, 2)"),
    ("bad_gather_dtype", "RuntimeError", "expected nbgrad.float32, got nbgrad.float64"),
    ("bad_root", "RuntimeError", f"invalid root rank: {N}"),
    ("bad_send_self", "ValueError", "should not be the same as the rank of the current process"),
    ("bad_tensor", "TypeError", "Expected parameter `tensor` of type nbgrad.Tensor"),
    ("bad_op", "TypeError", "ReduceOp"),
    # (a departure: PyTorch's gloo reduces bfloat16; nbgrad's MPI path refuses it, loudly)
    pytest.param("bad_bfloat16", "TypeError", "do not take bfloat16 tensors yet",
                 marks=pytest.mark.skipif(os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1",
                                          reason="PyTorch's collectives take bfloat16")),
    ("bad_into", "RuntimeError", "world_size times input tensor size"),
    ("twice", "ValueError", "trying to initialize the default process group twice!"),
])
def test_bad_calls(ranks, key, error, words):
    for r, res in enumerate(ranks):
        kind, names, msg = res[key]
        assert kind == "error" and names[0] == error or error in names, (names, msg)
        assert words in msg
        np.testing.assert_array_equal(res["untouched"], rank_input(r, "float32"))


def test_objects(ranks):
    for res in ranks:
        assert res["all_gather_object"] == [{"rank": k, "sq": k * k} for k in range(N)]
        assert res["broadcast_object_list"] == [0, ""]


def test_new_group(ranks):
    # group [0, 2]: group ranks 0 and 1; src=2 is a global rank
    assert ranks[0]["group"][:2] == (0, 2) and ranks[2]["group"][:2] == (1, 2)
    assert ranks[1]["group"] == (-1, -1, None)
    for r in (0, 2):
        np.testing.assert_array_equal(ranks[r]["group"][2], np.full(2, 4.0))
        np.testing.assert_array_equal(ranks[r]["group_bcast"], np.full(2, 2.0))
