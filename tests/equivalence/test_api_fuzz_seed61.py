"""The classes API fuzz seed 61 found (PyTorch 2.13's behaviour recorded): tensordot's Python reads
its dims (and so b.dim()) before its op parses out=; chain_matmul of one matrix copies it into
out as a composite (CopyBackwards, any dtype), where two or more refuse out= under autograd as
mm; F.embedding_bag ends in torch.embedding_bag's parser (its flags bools), a 2-D input without a
last offset whatever include_last_offset says.  (Not mirrored: linalg.pinv's last-bit rounding,
LAPACK's; broadcast_shapes of tensors, whose guard PyTorch asserts.)"""
import warnings

import pytest

import nbgrad

F = nbgrad.nn.functional


def test_tensordot_reads_its_dims_before_its_out():
    with pytest.raises(AttributeError, match="^'tuple' object has no attribute 'dim'$"):
        nbgrad.tensordot(nbgrad.zeros(2, 3), (-3, 4, 0), 1, out=nbgrad.zeros((), requires_grad=True))
    out = nbgrad.zeros(2, 2)
    a = nbgrad.ones(2, 3, requires_grad=True)
    assert nbgrad.tensordot(a, nbgrad.ones(3, 2), 1, out=out) is out
    assert out.tolist() == [[3.0, 3.0], [3.0, 3.0]] and type(out.grad_fn).__name__ == "CopyBackwards"


def test_chain_matmul_of_one_matrix_copies_it_into_out():
    m = nbgrad.arange(9.0).reshape(3, 3).requires_grad_()
    out = nbgrad.zeros(1, dtype=nbgrad.int64)
    with warnings.catch_warnings():         # (its deprecation, once a process; out's resize)
        warnings.simplefilter("ignore")
        nbgrad.chain_matmul(m, out=out)
    assert out.tolist() == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and not out.requires_grad
    out = nbgrad.zeros(0)
    nbgrad.chain_matmul(m, out=out)
    assert type(out.grad_fn).__name__ == "CopyBackwards"
    with pytest.raises(RuntimeError, match="^mm\\(\\): functions with out=... arguments don't support automatic "
                                           "differentiation"):
        nbgrad.chain_matmul(m, nbgrad.ones(3, 3), out=nbgrad.zeros(1))


def test_embedding_bag_ends_in_its_ops_parser():
    with pytest.raises(TypeError, match="^embedding_bag\\(\\): argument 'scale_grad_by_freq' \\(position 4\\) must be "
                                        "bool, not Tensor$"):
        F.embedding_bag(nbgrad.tensor([[0, 1]]), nbgrad.ones(3, 2), scale_grad_by_freq=nbgrad.zeros(2))
    with pytest.raises(TypeError, match="^embedding_bag\\(\\): argument 'scale_grad_by_freq' \\(position 4\\) must be "
                                        "bool, not int$"):
        F.embedding_bag(nbgrad.tensor([[0, 1]]), nbgrad.ones(3, 2), scale_grad_by_freq=1)
    # (a 2-D input's bags have no last offset: its include_last_offset is not read)
    assert F.embedding_bag(nbgrad.tensor([[0, 1]]), nbgrad.ones(3, 2), include_last_offset=1).tolist() == [[1.0, 1.0]]
    with pytest.raises(TypeError, match="^embedding_bag\\(\\): argument 'include_last_offset' \\(position 8\\) must "
                                        "be bool, not int$"):
        F.embedding_bag(nbgrad.tensor([0, 1]), nbgrad.ones(3, 2), nbgrad.tensor([0]), include_last_offset=1)
