"""The classes API fuzz seed 62 found (PyTorch 2.13's behaviour recorded): interpolate refuses a
result that cannot be allocated before it builds anything of the output's sizes (nbgrad's index
tables of size 2**31 were killed for memory: a crash); at::empty's checks in its order (the byte
count in unsigned 64-bit arithmetic, then the strides); a uint8 mask counts its dims in an index,
and x[uint8 mask] = number is index_put_'s masked_fill_ dispatch, which refuses it.  (Not
mirrored, PyTorch's backward bugs: vander's, cholesky's of an empty input, ldexp's.)"""
import warnings

import pytest

import nbgrad

F = nbgrad.nn.functional


def test_interpolate_refuses_an_output_it_cannot_allocate_before_any_work():
    x = nbgrad.rand(2, 2, 2, 2, requires_grad=True)
    for mode in ("nearest", "bilinear", "bicubic", "nearest-exact"):
        with pytest.raises(RuntimeError, match="^Storage size calculation overflowed with sizes=\\[2, 2, 2147483648, "
                                               "2147483648\\]$"):
            F.interpolate(x, size=2 ** 31, mode=mode)
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        F.interpolate(x, size=2 ** 20)


def test_empty_checks_its_byte_count_before_its_strides():
    with pytest.raises(RuntimeError, match="^Storage size calculation overflowed with sizes=\\[2, 2, 2147483648, "
                                           "2147483648\\]$"):
        nbgrad.empty(2, 2, 2 ** 31, 2 ** 31)
    with pytest.raises(RuntimeError, match="^Stride calculation overflowed$"):
        nbgrad.empty(0, 2 ** 62, 4)
    with pytest.raises(RuntimeError, match="^Storage size calculation overflowed with sizes=\\[1099511627776, "
                                           "1099511627776, 0\\]$"):
        nbgrad.empty(2 ** 40, 2 ** 40, 0)       # (an overflow in the running product, though the last size is 0)


def test_a_uint8_mask_in_setitem():
    with pytest.raises(IndexError, match="^too many indices for tensor of dimension 1$"):
        nbgrad.zeros(0, requires_grad=True)[nbgrad.zeros(1, 1, 1, dtype=nbgrad.uint8)] = -0.0
    x = nbgrad.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # (uint8 indexing's deprecation)
        with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks, but got mask with dtype "
                                               "unsigned char$"):
            x[nbgrad.tensor([1, 0, 1], dtype=nbgrad.uint8)] = 5.0
        x[nbgrad.tensor([1, 0, 1], dtype=nbgrad.uint8)] = nbgrad.tensor([4.0, 6.0])     # (two values: a mask)
        assert x.tolist() == [4.0, 0.0, 6.0]
        assert x[nbgrad.tensor([0, 1, 1], dtype=nbgrad.uint8)].tolist() == [0.0, 6.0]
