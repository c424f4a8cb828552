"""Exceptions where PyTorch raises, and only there, with its type (issue: equivalence at depth).

PyTorch 2.13 CPU's dtype rules were probed over ops x dtypes (bool, uint8, int8, int16,
int32, int64, float32, float64) and are recorded below as literal expectations; nbgrad
keeps them in one table (nbgrad/ops/_dtype_rules.py), checked before dispatch.  The
other tests are regressions from the differential tester (tests/differential):
argument checking (TypeError), nbgrad-internal errors that leaked (IndexError,
ZeroDivisionError), and autograd history lost on x[...].

Run with NBGRAD_TESTS_AGAINST_TORCH=1 to check the expectations against PyTorch.
"""
import math

import pytest

import nbgrad

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64")


def _mk(d):
    return nbgrad.tensor([[1, 2, 0], [3, 1, 2]]).to(getattr(nbgrad, d))


_SCALARS = {"i": 2, "f": 2.5, "b": True}


def _run(key):
    """The statement a key of TABLE names: 'op|dtype' (unary / reduction, no args),
    'op|dtype|dim' (dim 1), 'op|dtype|T' (a tensor operand of the same dtype),
    'op|dtype|i/f/b' (a Python int / float / bool operand), and a few special forms."""
    parts = key.split("|")
    op, d = parts[0], parts[1]
    kind = parts[2] if len(parts) > 2 else None
    x = _mk(d)
    special = {
        "clamp": lambda: x.clamp(0, 1) if kind == "i" else x.clamp(0.5, 1.5),
        "clamp_": lambda: x.clamp_(0, 1) if kind == "i" else x.clamp_(0.5, 1.5),
        "div_floor": lambda: x.div(_mk(d) if kind == "T" else 2, rounding_mode="floor"),
        "div_trunc": lambda: x.div(_mk(d), rounding_mode="trunc"),
        "rsub": lambda: 2 - x if kind == "i" else nbgrad.rsub(x, _mk(d)),
        "rpow": lambda: (2 if kind == "i" else 2.5) ** x,
        "rdiv": lambda: 2 / x,
        "rfloordiv": lambda: 2 // x,
        "rmod": lambda: 2 % x,
        "matmul": lambda: x @ x.t(),
        "masked_fill": lambda: x.masked_fill(_mk("bool"), 2.5),
    }
    if op in special:
        return special[op]()
    fn = getattr(x, op)
    if kind is None:
        return fn()
    if kind == "dim":
        return fn(1)
    if kind == "T":
        return fn(_mk(d))
    return fn(_SCALARS[kind])


def _dtype_name(r):
    return str(r.dtype).split(".")[-1]


# key, then 'ok <result dtype>' or '<exception type> <message fragment>' (PyTorch 2.13 CPU).
TABLE = """
abs_|bool NotImplementedError "abs_cpu" not implemented for 'Bool'
abs_|float32 ok float32
abs_|float64 ok float64
abs_|int16 ok int16
abs_|int32 ok int32
abs_|int64 ok int64
abs_|int8 ok int8
abs_|uint8 ok uint8
abs|bool NotImplementedError "abs_cpu" not implemented for 'Bool'
abs|float32 ok float32
abs|float64 ok float64
abs|int16 ok int16
abs|int32 ok int32
abs|int64 ok int64
abs|int8 ok int8
abs|uint8 ok uint8
acos|bool ok float32
acos|float32 ok float32
acos|float64 ok float64
acos|int16 ok float32
acos|int32 ok float32
acos|int64 ok float32
acos|int8 ok float32
acos|uint8 ok float32
add_|bool|T ok bool
add_|bool|f RuntimeError result type Float can't be cast to the desired o
add_|bool|i RuntimeError result type Long can't be cast to the desired ou
add_|float32|T ok float32
add_|float32|f ok float32
add_|float32|i ok float32
add_|float64|T ok float64
add_|float64|f ok float64
add_|float64|i ok float64
add_|int16|T ok int16
add_|int16|f RuntimeError result type Float can't be cast to the desired o
add_|int16|i ok int16
add_|int32|T ok int32
add_|int32|f RuntimeError result type Float can't be cast to the desired o
add_|int32|i ok int32
add_|int64|T ok int64
add_|int64|f RuntimeError result type Float can't be cast to the desired o
add_|int64|i ok int64
add_|int8|T ok int8
add_|int8|f RuntimeError result type Float can't be cast to the desired o
add_|int8|i ok int8
add_|uint8|T ok uint8
add_|uint8|f RuntimeError result type Float can't be cast to the desired o
add_|uint8|i ok uint8
add|bool|T ok bool
add|bool|b ok bool
add|bool|f ok float32
add|bool|i ok int64
add|float32|T ok float32
add|float32|b ok float32
add|float32|f ok float32
add|float32|i ok float32
add|float64|T ok float64
add|float64|b ok float64
add|float64|f ok float64
add|float64|i ok float64
add|int16|T ok int16
add|int16|b ok int16
add|int16|f ok float32
add|int16|i ok int16
add|int32|T ok int32
add|int32|b ok int32
add|int32|f ok float32
add|int32|i ok int32
add|int64|T ok int64
add|int64|b ok int64
add|int64|f ok float32
add|int64|i ok int64
add|int8|T ok int8
add|int8|b ok int8
add|int8|f ok float32
add|int8|i ok int8
add|uint8|T ok uint8
add|uint8|b ok uint8
add|uint8|f ok float32
add|uint8|i ok uint8
all|bool ok bool
all|bool|dim ok bool
all|float32 ok bool
all|float32|dim ok bool
all|float64 ok bool
all|float64|dim ok bool
all|int16 ok bool
all|int16|dim ok bool
all|int32 ok bool
all|int32|dim ok bool
all|int64 ok bool
all|int64|dim ok bool
all|int8 ok bool
all|int8|dim ok bool
all|uint8 ok uint8
all|uint8|dim ok uint8
amax|bool ok bool
amax|bool|dim ok bool
amax|float32 ok float32
amax|float32|dim ok float32
amax|float64 ok float64
amax|float64|dim ok float64
amax|int16 ok int16
amax|int16|dim ok int16
amax|int32 ok int32
amax|int32|dim ok int32
amax|int64 ok int64
amax|int64|dim ok int64
amax|int8 ok int8
amax|int8|dim ok int8
amax|uint8 ok uint8
amax|uint8|dim ok uint8
amin|bool ok bool
amin|bool|dim ok bool
amin|float32 ok float32
amin|float32|dim ok float32
amin|float64 ok float64
amin|float64|dim ok float64
amin|int16 ok int16
amin|int16|dim ok int16
amin|int32 ok int32
amin|int32|dim ok int32
amin|int64 ok int64
amin|int64|dim ok int64
amin|int8 ok int8
amin|int8|dim ok int8
amin|uint8 ok uint8
amin|uint8|dim ok uint8
any|bool ok bool
any|bool|dim ok bool
any|float32 ok bool
any|float32|dim ok bool
any|float64 ok bool
any|float64|dim ok bool
any|int16 ok bool
any|int16|dim ok bool
any|int32 ok bool
any|int32|dim ok bool
any|int64 ok bool
any|int64|dim ok bool
any|int8 ok bool
any|int8|dim ok bool
any|uint8 ok uint8
any|uint8|dim ok uint8
argmax|bool RuntimeError argmax(): does not support bool input
argmax|bool|dim RuntimeError argmax(): does not support bool input
argmax|float32 ok int64
argmax|float32|dim ok int64
argmax|float64 ok int64
argmax|float64|dim ok int64
argmax|int16 ok int64
argmax|int16|dim ok int64
argmax|int32 ok int64
argmax|int32|dim ok int64
argmax|int64 ok int64
argmax|int64|dim ok int64
argmax|int8 ok int64
argmax|int8|dim ok int64
argmax|uint8 ok int64
argmax|uint8|dim ok int64
argmin|bool RuntimeError argmin(): does not support bool input
argmin|bool|dim RuntimeError argmin(): does not support bool input
argmin|float32 ok int64
argmin|float32|dim ok int64
argmin|float64 ok int64
argmin|float64|dim ok int64
argmin|int16 ok int64
argmin|int16|dim ok int64
argmin|int32 ok int64
argmin|int32|dim ok int64
argmin|int64 ok int64
argmin|int64|dim ok int64
argmin|int8 ok int64
argmin|int8|dim ok int64
argmin|uint8 ok int64
argmin|uint8|dim ok int64
argsort|bool ok int64
argsort|bool|dim ok int64
argsort|float32 ok int64
argsort|float32|dim ok int64
argsort|float64 ok int64
argsort|float64|dim ok int64
argsort|int16 ok int64
argsort|int16|dim ok int64
argsort|int32 ok int64
argsort|int32|dim ok int64
argsort|int64 ok int64
argsort|int64|dim ok int64
argsort|int8 ok int64
argsort|int8|dim ok int64
argsort|uint8 ok int64
argsort|uint8|dim ok int64
asin|bool ok float32
asin|float32 ok float32
asin|float64 ok float64
asin|int16 ok float32
asin|int32 ok float32
asin|int64 ok float32
asin|int8 ok float32
asin|uint8 ok float32
atan2_|bool|T RuntimeError result type Float can't be cast to the desired o
atan2_|bool|f TypeError
atan2_|bool|i TypeError
atan2_|float32|T ok float32
atan2_|float32|f TypeError
atan2_|float32|i TypeError
atan2_|float64|T ok float64
atan2_|float64|f TypeError
atan2_|float64|i TypeError
atan2_|int16|T RuntimeError result type Float can't be cast to the desired o
atan2_|int16|f TypeError
atan2_|int16|i TypeError
atan2_|int32|T RuntimeError result type Float can't be cast to the desired o
atan2_|int32|f TypeError
atan2_|int32|i TypeError
atan2_|int64|T RuntimeError result type Float can't be cast to the desired o
atan2_|int64|f TypeError
atan2_|int64|i TypeError
atan2_|int8|T RuntimeError result type Float can't be cast to the desired o
atan2_|int8|f TypeError
atan2_|int8|i TypeError
atan2_|uint8|T RuntimeError result type Float can't be cast to the desired o
atan2_|uint8|f TypeError
atan2_|uint8|i TypeError
atan2|bool|T ok float32
atan2|bool|b TypeError atan2(): argument 'other' (position 1) must be T
atan2|bool|f TypeError atan2(): argument 'other' (position 1) must be T
atan2|bool|i TypeError atan2(): argument 'other' (position 1) must be T
atan2|float32|T ok float32
atan2|float32|b TypeError atan2(): argument 'other' (position 1) must be T
atan2|float32|f TypeError atan2(): argument 'other' (position 1) must be T
atan2|float32|i TypeError atan2(): argument 'other' (position 1) must be T
atan2|float64|T ok float64
atan2|float64|b TypeError atan2(): argument 'other' (position 1) must be T
atan2|float64|f TypeError atan2(): argument 'other' (position 1) must be T
atan2|float64|i TypeError atan2(): argument 'other' (position 1) must be T
atan2|int16|T ok float32
atan2|int16|b TypeError atan2(): argument 'other' (position 1) must be T
atan2|int16|f TypeError atan2(): argument 'other' (position 1) must be T
atan2|int16|i TypeError atan2(): argument 'other' (position 1) must be T
atan2|int32|T ok float32
atan2|int32|b TypeError atan2(): argument 'other' (position 1) must be T
atan2|int32|f TypeError atan2(): argument 'other' (position 1) must be T
atan2|int32|i TypeError atan2(): argument 'other' (position 1) must be T
atan2|int64|T ok float32
atan2|int64|b TypeError atan2(): argument 'other' (position 1) must be T
atan2|int64|f TypeError atan2(): argument 'other' (position 1) must be T
atan2|int64|i TypeError atan2(): argument 'other' (position 1) must be T
atan2|int8|T ok float32
atan2|int8|b TypeError atan2(): argument 'other' (position 1) must be T
atan2|int8|f TypeError atan2(): argument 'other' (position 1) must be T
atan2|int8|i TypeError atan2(): argument 'other' (position 1) must be T
atan2|uint8|T ok float32
atan2|uint8|b TypeError atan2(): argument 'other' (position 1) must be T
atan2|uint8|f TypeError atan2(): argument 'other' (position 1) must be T
atan2|uint8|i TypeError atan2(): argument 'other' (position 1) must be T
atan|bool ok float32
atan|float32 ok float32
atan|float64 ok float64
atan|int16 ok float32
atan|int32 ok float32
atan|int64 ok float32
atan|int8 ok float32
atan|uint8 ok float32
bitwise_and_|bool|T ok bool
bitwise_and_|bool|f RuntimeError result type Float can't be cast to the desired o
bitwise_and_|bool|i RuntimeError result type Long can't be cast to the desired ou
bitwise_and_|float32|T NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and_|float32|f NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and_|float32|i NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and_|float64|T NotImplementedError "bitwise_and_cpu" not implemented for 'Double'
bitwise_and_|float64|f NotImplementedError "bitwise_and_cpu" not implemented for 'Double'
bitwise_and_|float64|i NotImplementedError "bitwise_and_cpu" not implemented for 'Double'
bitwise_and_|int16|T ok int16
bitwise_and_|int16|f RuntimeError result type Float can't be cast to the desired o
bitwise_and_|int16|i ok int16
bitwise_and_|int32|T ok int32
bitwise_and_|int32|f RuntimeError result type Float can't be cast to the desired o
bitwise_and_|int32|i ok int32
bitwise_and_|int64|T ok int64
bitwise_and_|int64|f RuntimeError result type Float can't be cast to the desired o
bitwise_and_|int64|i ok int64
bitwise_and_|int8|T ok int8
bitwise_and_|int8|f RuntimeError result type Float can't be cast to the desired o
bitwise_and_|int8|i ok int8
bitwise_and_|uint8|T ok uint8
bitwise_and_|uint8|f RuntimeError result type Float can't be cast to the desired o
bitwise_and_|uint8|i ok uint8
bitwise_and|bool|T ok bool
bitwise_and|bool|b ok bool
bitwise_and|bool|f NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and|bool|i ok int64
bitwise_and|float32|T NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and|float32|b NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and|float32|f NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and|float32|i NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and|float64|T NotImplementedError "bitwise_and_cpu" not implemented for 'Double'
bitwise_and|float64|b NotImplementedError "bitwise_and_cpu" not implemented for 'Double'
bitwise_and|float64|f NotImplementedError "bitwise_and_cpu" not implemented for 'Double'
bitwise_and|float64|i NotImplementedError "bitwise_and_cpu" not implemented for 'Double'
bitwise_and|int16|T ok int16
bitwise_and|int16|b ok int16
bitwise_and|int16|f NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and|int16|i ok int16
bitwise_and|int32|T ok int32
bitwise_and|int32|b ok int32
bitwise_and|int32|f NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and|int32|i ok int32
bitwise_and|int64|T ok int64
bitwise_and|int64|b ok int64
bitwise_and|int64|f NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and|int64|i ok int64
bitwise_and|int8|T ok int8
bitwise_and|int8|b ok int8
bitwise_and|int8|f NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and|int8|i ok int8
bitwise_and|uint8|T ok uint8
bitwise_and|uint8|b ok uint8
bitwise_and|uint8|f NotImplementedError "bitwise_and_cpu" not implemented for 'Float'
bitwise_and|uint8|i ok uint8
bitwise_not|bool ok bool
bitwise_not|float32 NotImplementedError "bitwise_not_cpu" not implemented for 'Float'
bitwise_not|float64 NotImplementedError "bitwise_not_cpu" not implemented for 'Double'
bitwise_not|int16 ok int16
bitwise_not|int32 ok int32
bitwise_not|int64 ok int64
bitwise_not|int8 ok int8
bitwise_not|uint8 ok uint8
bitwise_or_|bool|T ok bool
bitwise_or_|bool|f RuntimeError result type Float can't be cast to the desired o
bitwise_or_|bool|i RuntimeError result type Long can't be cast to the desired ou
bitwise_or_|float32|T NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or_|float32|f NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or_|float32|i NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or_|float64|T NotImplementedError "bitwise_or_cpu" not implemented for 'Double'
bitwise_or_|float64|f NotImplementedError "bitwise_or_cpu" not implemented for 'Double'
bitwise_or_|float64|i NotImplementedError "bitwise_or_cpu" not implemented for 'Double'
bitwise_or_|int16|T ok int16
bitwise_or_|int16|f RuntimeError result type Float can't be cast to the desired o
bitwise_or_|int16|i ok int16
bitwise_or_|int32|T ok int32
bitwise_or_|int32|f RuntimeError result type Float can't be cast to the desired o
bitwise_or_|int32|i ok int32
bitwise_or_|int64|T ok int64
bitwise_or_|int64|f RuntimeError result type Float can't be cast to the desired o
bitwise_or_|int64|i ok int64
bitwise_or_|int8|T ok int8
bitwise_or_|int8|f RuntimeError result type Float can't be cast to the desired o
bitwise_or_|int8|i ok int8
bitwise_or_|uint8|T ok uint8
bitwise_or_|uint8|f RuntimeError result type Float can't be cast to the desired o
bitwise_or_|uint8|i ok uint8
bitwise_or|bool|T ok bool
bitwise_or|bool|b ok bool
bitwise_or|bool|f NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or|bool|i ok int64
bitwise_or|float32|T NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or|float32|b NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or|float32|f NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or|float32|i NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or|float64|T NotImplementedError "bitwise_or_cpu" not implemented for 'Double'
bitwise_or|float64|b NotImplementedError "bitwise_or_cpu" not implemented for 'Double'
bitwise_or|float64|f NotImplementedError "bitwise_or_cpu" not implemented for 'Double'
bitwise_or|float64|i NotImplementedError "bitwise_or_cpu" not implemented for 'Double'
bitwise_or|int16|T ok int16
bitwise_or|int16|b ok int16
bitwise_or|int16|f NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or|int16|i ok int16
bitwise_or|int32|T ok int32
bitwise_or|int32|b ok int32
bitwise_or|int32|f NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or|int32|i ok int32
bitwise_or|int64|T ok int64
bitwise_or|int64|b ok int64
bitwise_or|int64|f NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or|int64|i ok int64
bitwise_or|int8|T ok int8
bitwise_or|int8|b ok int8
bitwise_or|int8|f NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or|int8|i ok int8
bitwise_or|uint8|T ok uint8
bitwise_or|uint8|b ok uint8
bitwise_or|uint8|f NotImplementedError "bitwise_or_cpu" not implemented for 'Float'
bitwise_or|uint8|i ok uint8
bitwise_xor|bool|T ok bool
bitwise_xor|bool|b ok bool
bitwise_xor|bool|f NotImplementedError "bitwise_xor_cpu" not implemented for 'Float'
bitwise_xor|bool|i ok int64
bitwise_xor|float32|T NotImplementedError "bitwise_xor_cpu" not implemented for 'Float'
bitwise_xor|float32|b NotImplementedError "bitwise_xor_cpu" not implemented for 'Float'
bitwise_xor|float32|f NotImplementedError "bitwise_xor_cpu" not implemented for 'Float'
bitwise_xor|float32|i NotImplementedError "bitwise_xor_cpu" not implemented for 'Float'
bitwise_xor|float64|T NotImplementedError "bitwise_xor_cpu" not implemented for 'Double'
bitwise_xor|float64|b NotImplementedError "bitwise_xor_cpu" not implemented for 'Double'
bitwise_xor|float64|f NotImplementedError "bitwise_xor_cpu" not implemented for 'Double'
bitwise_xor|float64|i NotImplementedError "bitwise_xor_cpu" not implemented for 'Double'
bitwise_xor|int16|T ok int16
bitwise_xor|int16|b ok int16
bitwise_xor|int16|f NotImplementedError "bitwise_xor_cpu" not implemented for 'Float'
bitwise_xor|int16|i ok int16
bitwise_xor|int32|T ok int32
bitwise_xor|int32|b ok int32
bitwise_xor|int32|f NotImplementedError "bitwise_xor_cpu" not implemented for 'Float'
bitwise_xor|int32|i ok int32
bitwise_xor|int64|T ok int64
bitwise_xor|int64|b ok int64
bitwise_xor|int64|f NotImplementedError "bitwise_xor_cpu" not implemented for 'Float'
bitwise_xor|int64|i ok int64
bitwise_xor|int8|T ok int8
bitwise_xor|int8|b ok int8
bitwise_xor|int8|f NotImplementedError "bitwise_xor_cpu" not implemented for 'Float'
bitwise_xor|int8|i ok int8
bitwise_xor|uint8|T ok uint8
bitwise_xor|uint8|b ok uint8
bitwise_xor|uint8|f NotImplementedError "bitwise_xor_cpu" not implemented for 'Float'
bitwise_xor|uint8|i ok uint8
ceil_|bool NotImplementedError "ceil_vml_cpu" not implemented for 'Bool'
ceil_|float32 ok float32
ceil_|float64 ok float64
ceil_|int16 ok int16
ceil_|int32 ok int32
ceil_|int64 ok int64
ceil_|int8 ok int8
ceil_|uint8 ok uint8
ceil|bool NotImplementedError "ceil_vml_cpu" not implemented for 'Bool'
ceil|float32 ok float32
ceil|float64 ok float64
ceil|int16 ok int16
ceil|int32 ok int32
ceil|int64 ok int64
ceil|int8 ok int8
ceil|uint8 ok uint8
clamp_|bool|f RuntimeError result type Float can't be cast to the desired o
clamp_|bool|i RuntimeError result type Long can't be cast to the desired ou
clamp_|float32|f ok float32
clamp_|float32|i ok float32
clamp_|float64|f ok float64
clamp_|float64|i ok float64
clamp_|int16|f RuntimeError result type Float can't be cast to the desired o
clamp_|int16|i ok int16
clamp_|int32|f RuntimeError result type Float can't be cast to the desired o
clamp_|int32|i ok int32
clamp_|int64|f RuntimeError result type Float can't be cast to the desired o
clamp_|int64|i ok int64
clamp_|int8|f RuntimeError result type Float can't be cast to the desired o
clamp_|int8|i ok int8
clamp_|uint8|f RuntimeError result type Float can't be cast to the desired o
clamp_|uint8|i ok uint8
clamp|bool|f ok float32
clamp|bool|i ok int64
clamp|float32|f ok float32
clamp|float32|i ok float32
clamp|float64|f ok float64
clamp|float64|i ok float64
clamp|int16|f ok float32
clamp|int16|i ok int16
clamp|int32|f ok float32
clamp|int32|i ok int32
clamp|int64|f ok float32
clamp|int64|i ok int64
clamp|int8|f ok float32
clamp|int8|i ok int8
clamp|uint8|f ok float32
clamp|uint8|i ok uint8
cos_|bool RuntimeError result type Float can't be cast to the desired o
cos_|float32 ok float32
cos_|float64 ok float64
cos_|int16 RuntimeError result type Float can't be cast to the desired o
cos_|int32 RuntimeError result type Float can't be cast to the desired o
cos_|int64 RuntimeError result type Float can't be cast to the desired o
cos_|int8 RuntimeError result type Float can't be cast to the desired o
cos_|uint8 RuntimeError result type Float can't be cast to the desired o
cosh|bool ok float32
cosh|float32 ok float32
cosh|float64 ok float64
cosh|int16 ok float32
cosh|int32 ok float32
cosh|int64 ok float32
cosh|int8 ok float32
cosh|uint8 ok float32
cos|bool ok float32
cos|float32 ok float32
cos|float64 ok float64
cos|int16 ok float32
cos|int32 ok float32
cos|int64 ok float32
cos|int8 ok float32
cos|uint8 ok float32
div_floor|bool|T NotImplementedError "div_floor_cpu" not implemented for 'Bool'
div_floor|bool|i ok int64
div_floor|float32|T ok float32
div_floor|float32|i ok float32
div_floor|float64|T ok float64
div_floor|float64|i ok float64
div_floor|int16|T RuntimeError ZeroDivisionError
div_floor|int16|i ok int16
div_floor|int32|T RuntimeError ZeroDivisionError
div_floor|int32|i ok int32
div_floor|int64|T RuntimeError ZeroDivisionError
div_floor|int64|i ok int64
div_floor|int8|T RuntimeError ZeroDivisionError
div_floor|int8|i ok int8
div_floor|uint8|T RuntimeError ZeroDivisionError
div_floor|uint8|i ok uint8
div_trunc|bool|T NotImplementedError "div_trunc_cpu" not implemented for 'Bool'
div_trunc|float32|T ok float32
div_trunc|float64|T ok float64
div_trunc|int16|T RuntimeError ZeroDivisionError
div_trunc|int32|T RuntimeError ZeroDivisionError
div_trunc|int64|T RuntimeError ZeroDivisionError
div_trunc|int8|T RuntimeError ZeroDivisionError
div_trunc|uint8|T RuntimeError ZeroDivisionError
div_|bool|T RuntimeError result type Float can't be cast to the desired o
div_|bool|f RuntimeError result type Float can't be cast to the desired o
div_|bool|i RuntimeError result type Float can't be cast to the desired o
div_|float32|T ok float32
div_|float32|f ok float32
div_|float32|i ok float32
div_|float64|T ok float64
div_|float64|f ok float64
div_|float64|i ok float64
div_|int16|T RuntimeError result type Float can't be cast to the desired o
div_|int16|f RuntimeError result type Float can't be cast to the desired o
div_|int16|i RuntimeError result type Float can't be cast to the desired o
div_|int32|T RuntimeError result type Float can't be cast to the desired o
div_|int32|f RuntimeError result type Float can't be cast to the desired o
div_|int32|i RuntimeError result type Float can't be cast to the desired o
div_|int64|T RuntimeError result type Float can't be cast to the desired o
div_|int64|f RuntimeError result type Float can't be cast to the desired o
div_|int64|i RuntimeError result type Float can't be cast to the desired o
div_|int8|T RuntimeError result type Float can't be cast to the desired o
div_|int8|f RuntimeError result type Float can't be cast to the desired o
div_|int8|i RuntimeError result type Float can't be cast to the desired o
div_|uint8|T RuntimeError result type Float can't be cast to the desired o
div_|uint8|f RuntimeError result type Float can't be cast to the desired o
div_|uint8|i RuntimeError result type Float can't be cast to the desired o
div|bool|T ok float32
div|bool|b ok float32
div|bool|f ok float32
div|bool|i ok float32
div|float32|T ok float32
div|float32|b ok float32
div|float32|f ok float32
div|float32|i ok float32
div|float64|T ok float64
div|float64|b ok float64
div|float64|f ok float64
div|float64|i ok float64
div|int16|T ok float32
div|int16|b ok float32
div|int16|f ok float32
div|int16|i ok float32
div|int32|T ok float32
div|int32|b ok float32
div|int32|f ok float32
div|int32|i ok float32
div|int64|T ok float32
div|int64|b ok float32
div|int64|f ok float32
div|int64|i ok float32
div|int8|T ok float32
div|int8|b ok float32
div|int8|f ok float32
div|int8|i ok float32
div|uint8|T ok float32
div|uint8|b ok float32
div|uint8|f ok float32
div|uint8|i ok float32
eq|bool|T ok bool
eq|bool|b ok bool
eq|bool|f ok bool
eq|bool|i ok bool
eq|float32|T ok bool
eq|float32|b ok bool
eq|float32|f ok bool
eq|float32|i ok bool
eq|float64|T ok bool
eq|float64|b ok bool
eq|float64|f ok bool
eq|float64|i ok bool
eq|int16|T ok bool
eq|int16|b ok bool
eq|int16|f ok bool
eq|int16|i ok bool
eq|int32|T ok bool
eq|int32|b ok bool
eq|int32|f ok bool
eq|int32|i ok bool
eq|int64|T ok bool
eq|int64|b ok bool
eq|int64|f ok bool
eq|int64|i ok bool
eq|int8|T ok bool
eq|int8|b ok bool
eq|int8|f ok bool
eq|int8|i ok bool
eq|uint8|T ok bool
eq|uint8|b ok bool
eq|uint8|f ok bool
eq|uint8|i ok bool
erf_|bool RuntimeError result type Float can't be cast to the desired o
erf_|float32 ok float32
erf_|float64 ok float64
erf_|int16 RuntimeError result type Float can't be cast to the desired o
erf_|int32 RuntimeError result type Float can't be cast to the desired o
erf_|int64 RuntimeError result type Float can't be cast to the desired o
erf_|int8 RuntimeError result type Float can't be cast to the desired o
erf_|uint8 RuntimeError result type Float can't be cast to the desired o
erf|bool ok float32
erf|float32 ok float32
erf|float64 ok float64
erf|int16 ok float32
erf|int32 ok float32
erf|int64 ok float32
erf|int8 ok float32
erf|uint8 ok float32
exp2|bool ok float32
exp2|float32 ok float32
exp2|float64 ok float64
exp2|int16 ok float32
exp2|int32 ok float32
exp2|int64 ok float32
exp2|int8 ok float32
exp2|uint8 ok float32
exp_|bool RuntimeError result type Float can't be cast to the desired o
exp_|float32 ok float32
exp_|float64 ok float64
exp_|int16 RuntimeError result type Float can't be cast to the desired o
exp_|int32 RuntimeError result type Float can't be cast to the desired o
exp_|int64 RuntimeError result type Float can't be cast to the desired o
exp_|int8 RuntimeError result type Float can't be cast to the desired o
exp_|uint8 RuntimeError result type Float can't be cast to the desired o
expm1_|bool RuntimeError result type Float can't be cast to the desired o
expm1_|float32 ok float32
expm1_|float64 ok float64
expm1_|int16 RuntimeError result type Float can't be cast to the desired o
expm1_|int32 RuntimeError result type Float can't be cast to the desired o
expm1_|int64 RuntimeError result type Float can't be cast to the desired o
expm1_|int8 RuntimeError result type Float can't be cast to the desired o
expm1_|uint8 RuntimeError result type Float can't be cast to the desired o
expm1|bool ok float32
expm1|float32 ok float32
expm1|float64 ok float64
expm1|int16 ok float32
expm1|int32 ok float32
expm1|int64 ok float32
expm1|int8 ok float32
expm1|uint8 ok float32
exp|bool ok float32
exp|float32 ok float32
exp|float64 ok float64
exp|int16 ok float32
exp|int32 ok float32
exp|int64 ok float32
exp|int8 ok float32
exp|uint8 ok float32
floor_divide_|bool|T NotImplementedError "div_floor_cpu" not implemented for 'Bool'
floor_divide_|bool|f RuntimeError result type Float can't be cast to the desired o
floor_divide_|bool|i RuntimeError result type Long can't be cast to the desired ou
floor_divide_|float32|T ok float32
floor_divide_|float32|f ok float32
floor_divide_|float32|i ok float32
floor_divide_|float64|T ok float64
floor_divide_|float64|f ok float64
floor_divide_|float64|i ok float64
floor_divide_|int16|T RuntimeError ZeroDivisionError
floor_divide_|int16|f RuntimeError result type Float can't be cast to the desired o
floor_divide_|int16|i ok int16
floor_divide_|int32|T RuntimeError ZeroDivisionError
floor_divide_|int32|f RuntimeError result type Float can't be cast to the desired o
floor_divide_|int32|i ok int32
floor_divide_|int64|T RuntimeError ZeroDivisionError
floor_divide_|int64|f RuntimeError result type Float can't be cast to the desired o
floor_divide_|int64|i ok int64
floor_divide_|int8|T RuntimeError ZeroDivisionError
floor_divide_|int8|f RuntimeError result type Float can't be cast to the desired o
floor_divide_|int8|i ok int8
floor_divide_|uint8|T RuntimeError ZeroDivisionError
floor_divide_|uint8|f RuntimeError result type Float can't be cast to the desired o
floor_divide_|uint8|i ok uint8
floor_divide|bool|T NotImplementedError "div_floor_cpu" not implemented for 'Bool'
floor_divide|bool|b NotImplementedError "div_floor_cpu" not implemented for 'Bool'
floor_divide|bool|f ok float32
floor_divide|bool|i ok int64
floor_divide|float32|T ok float32
floor_divide|float32|b ok float32
floor_divide|float32|f ok float32
floor_divide|float32|i ok float32
floor_divide|float64|T ok float64
floor_divide|float64|b ok float64
floor_divide|float64|f ok float64
floor_divide|float64|i ok float64
floor_divide|int16|T RuntimeError ZeroDivisionError
floor_divide|int16|b ok int16
floor_divide|int16|f ok float32
floor_divide|int16|i ok int16
floor_divide|int32|T RuntimeError ZeroDivisionError
floor_divide|int32|b ok int32
floor_divide|int32|f ok float32
floor_divide|int32|i ok int32
floor_divide|int64|T RuntimeError ZeroDivisionError
floor_divide|int64|b ok int64
floor_divide|int64|f ok float32
floor_divide|int64|i ok int64
floor_divide|int8|T RuntimeError ZeroDivisionError
floor_divide|int8|b ok int8
floor_divide|int8|f ok float32
floor_divide|int8|i ok int8
floor_divide|uint8|T RuntimeError ZeroDivisionError
floor_divide|uint8|b ok uint8
floor_divide|uint8|f ok float32
floor_divide|uint8|i ok uint8
floor_|bool NotImplementedError "floor_vml_cpu" not implemented for 'Bool'
floor_|float32 ok float32
floor_|float64 ok float64
floor_|int16 ok int16
floor_|int32 ok int32
floor_|int64 ok int64
floor_|int8 ok int8
floor_|uint8 ok uint8
floor|bool NotImplementedError "floor_vml_cpu" not implemented for 'Bool'
floor|float32 ok float32
floor|float64 ok float64
floor|int16 ok int16
floor|int32 ok int32
floor|int64 ok int64
floor|int8 ok int8
floor|uint8 ok uint8
isfinite|bool ok bool
isfinite|float32 ok bool
isfinite|float64 ok bool
isfinite|int16 ok bool
isfinite|int32 ok bool
isfinite|int64 ok bool
isfinite|int8 ok bool
isfinite|uint8 ok bool
isinf|bool ok bool
isinf|float32 ok bool
isinf|float64 ok bool
isinf|int16 ok bool
isinf|int32 ok bool
isinf|int64 ok bool
isinf|int8 ok bool
isinf|uint8 ok bool
isnan|bool ok bool
isnan|float32 ok bool
isnan|float64 ok bool
isnan|int16 ok bool
isnan|int32 ok bool
isnan|int64 ok bool
isnan|int8 ok bool
isnan|uint8 ok bool
log10|bool ok float32
log10|float32 ok float32
log10|float64 ok float64
log10|int16 ok float32
log10|int32 ok float32
log10|int64 ok float32
log10|int8 ok float32
log10|uint8 ok float32
log1p_|bool RuntimeError result type Float can't be cast to the desired o
log1p_|float32 ok float32
log1p_|float64 ok float64
log1p_|int16 RuntimeError result type Float can't be cast to the desired o
log1p_|int32 RuntimeError result type Float can't be cast to the desired o
log1p_|int64 RuntimeError result type Float can't be cast to the desired o
log1p_|int8 RuntimeError result type Float can't be cast to the desired o
log1p_|uint8 RuntimeError result type Float can't be cast to the desired o
log1p|bool ok float32
log1p|float32 ok float32
log1p|float64 ok float64
log1p|int16 ok float32
log1p|int32 ok float32
log1p|int64 ok float32
log1p|int8 ok float32
log1p|uint8 ok float32
log2|bool ok float32
log2|float32 ok float32
log2|float64 ok float64
log2|int16 ok float32
log2|int32 ok float32
log2|int64 ok float32
log2|int8 ok float32
log2|uint8 ok float32
log_softmax|bool|dim NotImplementedError "log_softmax_lastdim_kernel_impl" not implemente
log_softmax|float32|dim ok float32
log_softmax|float64|dim ok float64
log_softmax|int16|dim NotImplementedError "log_softmax_lastdim_kernel_impl" not implemente
log_softmax|int32|dim NotImplementedError "log_softmax_lastdim_kernel_impl" not implemente
log_softmax|int64|dim NotImplementedError "log_softmax_lastdim_kernel_impl" not implemente
log_softmax|int8|dim NotImplementedError "log_softmax_lastdim_kernel_impl" not implemente
log_softmax|uint8|dim NotImplementedError "log_softmax_lastdim_kernel_impl" not implemente
log_|bool RuntimeError result type Float can't be cast to the desired o
log_|float32 ok float32
log_|float64 ok float64
log_|int16 RuntimeError result type Float can't be cast to the desired o
log_|int32 RuntimeError result type Float can't be cast to the desired o
log_|int64 RuntimeError result type Float can't be cast to the desired o
log_|int8 RuntimeError result type Float can't be cast to the desired o
log_|uint8 RuntimeError result type Float can't be cast to the desired o
logical_and|bool|T ok bool
logical_and|bool|b TypeError logical_and(): argument 'other' (position 1) mus
logical_and|bool|f TypeError logical_and(): argument 'other' (position 1) mus
logical_and|bool|i TypeError logical_and(): argument 'other' (position 1) mus
logical_and|float32|T ok bool
logical_and|float32|b TypeError logical_and(): argument 'other' (position 1) mus
logical_and|float32|f TypeError logical_and(): argument 'other' (position 1) mus
logical_and|float32|i TypeError logical_and(): argument 'other' (position 1) mus
logical_and|float64|T ok bool
logical_and|float64|b TypeError logical_and(): argument 'other' (position 1) mus
logical_and|float64|f TypeError logical_and(): argument 'other' (position 1) mus
logical_and|float64|i TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int16|T ok bool
logical_and|int16|b TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int16|f TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int16|i TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int32|T ok bool
logical_and|int32|b TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int32|f TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int32|i TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int64|T ok bool
logical_and|int64|b TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int64|f TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int64|i TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int8|T ok bool
logical_and|int8|b TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int8|f TypeError logical_and(): argument 'other' (position 1) mus
logical_and|int8|i TypeError logical_and(): argument 'other' (position 1) mus
logical_and|uint8|T ok bool
logical_and|uint8|b TypeError logical_and(): argument 'other' (position 1) mus
logical_and|uint8|f TypeError logical_and(): argument 'other' (position 1) mus
logical_and|uint8|i TypeError logical_and(): argument 'other' (position 1) mus
logical_not_|bool ok bool
logical_not_|float32 ok float32
logical_not_|float64 ok float64
logical_not_|int16 ok int16
logical_not_|int32 ok int32
logical_not_|int64 ok int64
logical_not_|int8 ok int8
logical_not_|uint8 ok uint8
logical_not|bool ok bool
logical_not|float32 ok bool
logical_not|float64 ok bool
logical_not|int16 ok bool
logical_not|int32 ok bool
logical_not|int64 ok bool
logical_not|int8 ok bool
logical_not|uint8 ok bool
logical_xor|bool|T ok bool
logical_xor|bool|b TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|bool|f TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|bool|i TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|float32|T ok bool
logical_xor|float32|b TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|float32|f TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|float32|i TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|float64|T ok bool
logical_xor|float64|b TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|float64|f TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|float64|i TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int16|T ok bool
logical_xor|int16|b TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int16|f TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int16|i TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int32|T ok bool
logical_xor|int32|b TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int32|f TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int32|i TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int64|T ok bool
logical_xor|int64|b TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int64|f TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int64|i TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int8|T ok bool
logical_xor|int8|b TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int8|f TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|int8|i TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|uint8|T ok bool
logical_xor|uint8|b TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|uint8|f TypeError logical_xor(): argument 'other' (position 1) mus
logical_xor|uint8|i TypeError logical_xor(): argument 'other' (position 1) mus
logsumexp|bool TypeError logsumexp() missing 1 required positional argume
logsumexp|bool|dim ok float32
logsumexp|float32 TypeError logsumexp() missing 1 required positional argume
logsumexp|float32|dim ok float32
logsumexp|float64 TypeError logsumexp() missing 1 required positional argume
logsumexp|float64|dim ok float64
logsumexp|int16 TypeError logsumexp() missing 1 required positional argume
logsumexp|int16|dim ok float32
logsumexp|int32 TypeError logsumexp() missing 1 required positional argume
logsumexp|int32|dim ok float32
logsumexp|int64 TypeError logsumexp() missing 1 required positional argume
logsumexp|int64|dim ok float32
logsumexp|int8 TypeError logsumexp() missing 1 required positional argume
logsumexp|int8|dim ok float32
logsumexp|uint8 TypeError logsumexp() missing 1 required positional argume
logsumexp|uint8|dim ok float32
log|bool ok float32
log|float32 ok float32
log|float64 ok float64
log|int16 ok float32
log|int32 ok float32
log|int64 ok float32
log|int8 ok float32
log|uint8 ok float32
lt|bool|T ok bool
lt|bool|b ok bool
lt|bool|f ok bool
lt|bool|i ok bool
lt|float32|T ok bool
lt|float32|b ok bool
lt|float32|f ok bool
lt|float32|i ok bool
lt|float64|T ok bool
lt|float64|b ok bool
lt|float64|f ok bool
lt|float64|i ok bool
lt|int16|T ok bool
lt|int16|b ok bool
lt|int16|f ok bool
lt|int16|i ok bool
lt|int32|T ok bool
lt|int32|b ok bool
lt|int32|f ok bool
lt|int32|i ok bool
lt|int64|T ok bool
lt|int64|b ok bool
lt|int64|f ok bool
lt|int64|i ok bool
lt|int8|T ok bool
lt|int8|b ok bool
lt|int8|f ok bool
lt|int8|i ok bool
lt|uint8|T ok bool
lt|uint8|b ok bool
lt|uint8|f ok bool
lt|uint8|i ok bool
masked_fill|bool|f ok bool
masked_fill|float32|f ok float32
masked_fill|float64|f ok float64
masked_fill|int16|f ok int16
masked_fill|int32|f ok int32
masked_fill|int64|f ok int64
masked_fill|int8|f ok int8
masked_fill|uint8|f ok uint8
matmul|bool NotImplementedError "addmm_impl_cpu_" not implemented for 'Bool'
matmul|float32 ok float32
matmul|float64 ok float64
matmul|int16 ok int16
matmul|int32 ok int32
matmul|int64 ok int64
matmul|int8 ok int8
matmul|uint8 ok uint8
maximum|bool|T ok bool
maximum|bool|b TypeError maximum(): argument 'other' (position 1) must be
maximum|bool|f TypeError maximum(): argument 'other' (position 1) must be
maximum|bool|i TypeError maximum(): argument 'other' (position 1) must be
maximum|float32|T ok float32
maximum|float32|b TypeError maximum(): argument 'other' (position 1) must be
maximum|float32|f TypeError maximum(): argument 'other' (position 1) must be
maximum|float32|i TypeError maximum(): argument 'other' (position 1) must be
maximum|float64|T ok float64
maximum|float64|b TypeError maximum(): argument 'other' (position 1) must be
maximum|float64|f TypeError maximum(): argument 'other' (position 1) must be
maximum|float64|i TypeError maximum(): argument 'other' (position 1) must be
maximum|int16|T ok int16
maximum|int16|b TypeError maximum(): argument 'other' (position 1) must be
maximum|int16|f TypeError maximum(): argument 'other' (position 1) must be
maximum|int16|i TypeError maximum(): argument 'other' (position 1) must be
maximum|int32|T ok int32
maximum|int32|b TypeError maximum(): argument 'other' (position 1) must be
maximum|int32|f TypeError maximum(): argument 'other' (position 1) must be
maximum|int32|i TypeError maximum(): argument 'other' (position 1) must be
maximum|int64|T ok int64
maximum|int64|b TypeError maximum(): argument 'other' (position 1) must be
maximum|int64|f TypeError maximum(): argument 'other' (position 1) must be
maximum|int64|i TypeError maximum(): argument 'other' (position 1) must be
maximum|int8|T ok int8
maximum|int8|b TypeError maximum(): argument 'other' (position 1) must be
maximum|int8|f TypeError maximum(): argument 'other' (position 1) must be
maximum|int8|i TypeError maximum(): argument 'other' (position 1) must be
maximum|uint8|T ok uint8
maximum|uint8|b TypeError maximum(): argument 'other' (position 1) must be
maximum|uint8|f TypeError maximum(): argument 'other' (position 1) must be
maximum|uint8|i TypeError maximum(): argument 'other' (position 1) must be
max|bool ok bool
max|bool|dim ok tuple
max|float32 ok float32
max|float32|dim ok tuple
max|float64 ok float64
max|float64|dim ok tuple
max|int16 ok int16
max|int16|dim ok tuple
max|int32 ok int32
max|int32|dim ok tuple
max|int64 ok int64
max|int64|dim ok tuple
max|int8 ok int8
max|int8|dim ok tuple
max|uint8 ok uint8
max|uint8|dim ok tuple
mean|bool RuntimeError mean(): could not infer output dtype. Input dtyp
mean|bool|dim RuntimeError mean(): could not infer output dtype. Input dtyp
mean|float32 ok float32
mean|float32|dim ok float32
mean|float64 ok float64
mean|float64|dim ok float64
mean|int16 RuntimeError mean(): could not infer output dtype. Input dtyp
mean|int16|dim RuntimeError mean(): could not infer output dtype. Input dtyp
mean|int32 RuntimeError mean(): could not infer output dtype. Input dtyp
mean|int32|dim RuntimeError mean(): could not infer output dtype. Input dtyp
mean|int64 RuntimeError mean(): could not infer output dtype. Input dtyp
mean|int64|dim RuntimeError mean(): could not infer output dtype. Input dtyp
mean|int8 RuntimeError mean(): could not infer output dtype. Input dtyp
mean|int8|dim RuntimeError mean(): could not infer output dtype. Input dtyp
mean|uint8 RuntimeError mean(): could not infer output dtype. Input dtyp
mean|uint8|dim RuntimeError mean(): could not infer output dtype. Input dtyp
minimum|bool|T ok bool
minimum|bool|b TypeError minimum(): argument 'other' (position 1) must be
minimum|bool|f TypeError minimum(): argument 'other' (position 1) must be
minimum|bool|i TypeError minimum(): argument 'other' (position 1) must be
minimum|float32|T ok float32
minimum|float32|b TypeError minimum(): argument 'other' (position 1) must be
minimum|float32|f TypeError minimum(): argument 'other' (position 1) must be
minimum|float32|i TypeError minimum(): argument 'other' (position 1) must be
minimum|float64|T ok float64
minimum|float64|b TypeError minimum(): argument 'other' (position 1) must be
minimum|float64|f TypeError minimum(): argument 'other' (position 1) must be
minimum|float64|i TypeError minimum(): argument 'other' (position 1) must be
minimum|int16|T ok int16
minimum|int16|b TypeError minimum(): argument 'other' (position 1) must be
minimum|int16|f TypeError minimum(): argument 'other' (position 1) must be
minimum|int16|i TypeError minimum(): argument 'other' (position 1) must be
minimum|int32|T ok int32
minimum|int32|b TypeError minimum(): argument 'other' (position 1) must be
minimum|int32|f TypeError minimum(): argument 'other' (position 1) must be
minimum|int32|i TypeError minimum(): argument 'other' (position 1) must be
minimum|int64|T ok int64
minimum|int64|b TypeError minimum(): argument 'other' (position 1) must be
minimum|int64|f TypeError minimum(): argument 'other' (position 1) must be
minimum|int64|i TypeError minimum(): argument 'other' (position 1) must be
minimum|int8|T ok int8
minimum|int8|b TypeError minimum(): argument 'other' (position 1) must be
minimum|int8|f TypeError minimum(): argument 'other' (position 1) must be
minimum|int8|i TypeError minimum(): argument 'other' (position 1) must be
minimum|uint8|T ok uint8
minimum|uint8|b TypeError minimum(): argument 'other' (position 1) must be
minimum|uint8|f TypeError minimum(): argument 'other' (position 1) must be
minimum|uint8|i TypeError minimum(): argument 'other' (position 1) must be
min|bool ok bool
min|bool|dim ok tuple
min|float32 ok float32
min|float32|dim ok tuple
min|float64 ok float64
min|float64|dim ok tuple
min|int16 ok int16
min|int16|dim ok tuple
min|int32 ok int32
min|int32|dim ok tuple
min|int64 ok int64
min|int64|dim ok tuple
min|int8 ok int8
min|int8|dim ok tuple
min|uint8 ok uint8
min|uint8|dim ok tuple
mul_|bool|T ok bool
mul_|bool|f RuntimeError result type Float can't be cast to the desired o
mul_|bool|i RuntimeError result type Long can't be cast to the desired ou
mul_|float32|T ok float32
mul_|float32|f ok float32
mul_|float32|i ok float32
mul_|float64|T ok float64
mul_|float64|f ok float64
mul_|float64|i ok float64
mul_|int16|T ok int16
mul_|int16|f RuntimeError result type Float can't be cast to the desired o
mul_|int16|i ok int16
mul_|int32|T ok int32
mul_|int32|f RuntimeError result type Float can't be cast to the desired o
mul_|int32|i ok int32
mul_|int64|T ok int64
mul_|int64|f RuntimeError result type Float can't be cast to the desired o
mul_|int64|i ok int64
mul_|int8|T ok int8
mul_|int8|f RuntimeError result type Float can't be cast to the desired o
mul_|int8|i ok int8
mul_|uint8|T ok uint8
mul_|uint8|f RuntimeError result type Float can't be cast to the desired o
mul_|uint8|i ok uint8
mul|bool|T ok bool
mul|bool|b ok bool
mul|bool|f ok float32
mul|bool|i ok int64
mul|float32|T ok float32
mul|float32|b ok float32
mul|float32|f ok float32
mul|float32|i ok float32
mul|float64|T ok float64
mul|float64|b ok float64
mul|float64|f ok float64
mul|float64|i ok float64
mul|int16|T ok int16
mul|int16|b ok int16
mul|int16|f ok float32
mul|int16|i ok int16
mul|int32|T ok int32
mul|int32|b ok int32
mul|int32|f ok float32
mul|int32|i ok int32
mul|int64|T ok int64
mul|int64|b ok int64
mul|int64|f ok float32
mul|int64|i ok int64
mul|int8|T ok int8
mul|int8|b ok int8
mul|int8|f ok float32
mul|int8|i ok int8
mul|uint8|T ok uint8
mul|uint8|b ok uint8
mul|uint8|f ok float32
mul|uint8|i ok uint8
neg_|bool RuntimeError Negation, the `-` operator, on a bool tensor is
neg_|float32 ok float32
neg_|float64 ok float64
neg_|int16 ok int16
neg_|int32 ok int32
neg_|int64 ok int64
neg_|int8 ok int8
neg_|uint8 ok uint8
neg|bool RuntimeError Negation, the `-` operator, on a bool tensor is
neg|float32 ok float32
neg|float64 ok float64
neg|int16 ok int16
neg|int32 ok int32
neg|int64 ok int64
neg|int8 ok int8
neg|uint8 ok uint8
norm|bool RuntimeError linalg.vector_norm: Expected a floating point or
norm|bool|dim RuntimeError linalg.vector_norm: Expected a floating point or
norm|float32 ok float32
norm|float32|dim ok float32
norm|float64 ok float64
norm|float64|dim ok float64
norm|int16 RuntimeError linalg.vector_norm: Expected a floating point or
norm|int16|dim RuntimeError linalg.vector_norm: Expected a floating point or
norm|int32 RuntimeError linalg.vector_norm: Expected a floating point or
norm|int32|dim RuntimeError linalg.vector_norm: Expected a floating point or
norm|int64 RuntimeError linalg.vector_norm: Expected a floating point or
norm|int64|dim RuntimeError linalg.vector_norm: Expected a floating point or
norm|int8 RuntimeError linalg.vector_norm: Expected a floating point or
norm|int8|dim RuntimeError linalg.vector_norm: Expected a floating point or
norm|uint8 RuntimeError linalg.vector_norm: Expected a floating point or
norm|uint8|dim RuntimeError linalg.vector_norm: Expected a floating point or
pow_|bool|T NotImplementedError "pow" not implemented for 'Bool'
pow_|bool|f RuntimeError result type Float can't be cast to the desired o
pow_|bool|i RuntimeError result type Long can't be cast to the desired ou
pow_|float32|T ok float32
pow_|float32|f ok float32
pow_|float32|i ok float32
pow_|float64|T ok float64
pow_|float64|f ok float64
pow_|float64|i ok float64
pow_|int16|T ok int16
pow_|int16|f RuntimeError result type Float can't be cast to the desired o
pow_|int16|i ok int16
pow_|int32|T ok int32
pow_|int32|f RuntimeError result type Float can't be cast to the desired o
pow_|int32|i ok int32
pow_|int64|T ok int64
pow_|int64|f RuntimeError result type Float can't be cast to the desired o
pow_|int64|i ok int64
pow_|int8|T ok int8
pow_|int8|f RuntimeError result type Float can't be cast to the desired o
pow_|int8|i ok int8
pow_|uint8|T ok uint8
pow_|uint8|f RuntimeError result type Float can't be cast to the desired o
pow_|uint8|i ok uint8
pow|bool|T NotImplementedError "pow" not implemented for 'Bool'
pow|bool|b ok bool
pow|bool|f ok float32
pow|bool|i ok int64
pow|float32|T ok float32
pow|float32|b ok float32
pow|float32|f ok float32
pow|float32|i ok float32
pow|float64|T ok float64
pow|float64|b ok float64
pow|float64|f ok float64
pow|float64|i ok float64
pow|int16|T ok int16
pow|int16|b ok int16
pow|int16|f ok float32
pow|int16|i ok int16
pow|int32|T ok int32
pow|int32|b ok int32
pow|int32|f ok float32
pow|int32|i ok int32
pow|int64|T ok int64
pow|int64|b ok int64
pow|int64|f ok float32
pow|int64|i ok int64
pow|int8|T ok int8
pow|int8|b ok int8
pow|int8|f ok float32
pow|int8|i ok int8
pow|uint8|T ok uint8
pow|uint8|b ok uint8
pow|uint8|f ok float32
pow|uint8|i ok uint8
prod|bool ok int64
prod|bool|dim ok int64
prod|float32 ok float32
prod|float32|dim ok float32
prod|float64 ok float64
prod|float64|dim ok float64
prod|int16 ok int64
prod|int16|dim ok int64
prod|int32 ok int64
prod|int32|dim ok int64
prod|int64 ok int64
prod|int64|dim ok int64
prod|int8 ok int64
prod|int8|dim ok int64
prod|uint8 ok int64
prod|uint8|dim ok int64
rdiv|bool|i ok float32
rdiv|float32|i ok float32
rdiv|float64|i ok float64
rdiv|int16|i ok float32
rdiv|int32|i ok float32
rdiv|int64|i ok float32
rdiv|int8|i ok float32
rdiv|uint8|i ok float32
reciprocal_|bool RuntimeError result type Float can't be cast to the desired o
reciprocal_|float32 ok float32
reciprocal_|float64 ok float64
reciprocal_|int16 RuntimeError result type Float can't be cast to the desired o
reciprocal_|int32 RuntimeError result type Float can't be cast to the desired o
reciprocal_|int64 RuntimeError result type Float can't be cast to the desired o
reciprocal_|int8 RuntimeError result type Float can't be cast to the desired o
reciprocal_|uint8 RuntimeError result type Float can't be cast to the desired o
reciprocal|bool ok float32
reciprocal|float32 ok float32
reciprocal|float64 ok float64
reciprocal|int16 ok float32
reciprocal|int32 ok float32
reciprocal|int64 ok float32
reciprocal|int8 ok float32
reciprocal|uint8 ok float32
relu_|bool RuntimeError Boolean inputs not supported for relu
relu_|float32 ok float32
relu_|float64 ok float64
relu_|int16 ok int16
relu_|int32 ok int32
relu_|int64 ok int64
relu_|int8 ok int8
relu_|uint8 ok uint8
relu|bool RuntimeError Boolean inputs not supported for relu
relu|float32 ok float32
relu|float64 ok float64
relu|int16 ok int16
relu|int32 ok int32
relu|int64 ok int64
relu|int8 ok int8
relu|uint8 ok uint8
remainder_|bool|T NotImplementedError "remainder_cpu" not implemented for 'Bool'
remainder_|bool|f RuntimeError result type Float can't be cast to the desired o
remainder_|bool|i RuntimeError result type Long can't be cast to the desired ou
remainder_|float32|T ok float32
remainder_|float32|f ok float32
remainder_|float32|i ok float32
remainder_|float64|T ok float64
remainder_|float64|f ok float64
remainder_|float64|i ok float64
remainder_|int16|T RuntimeError ZeroDivisionError
remainder_|int16|f RuntimeError result type Float can't be cast to the desired o
remainder_|int16|i ok int16
remainder_|int32|T RuntimeError ZeroDivisionError
remainder_|int32|f RuntimeError result type Float can't be cast to the desired o
remainder_|int32|i ok int32
remainder_|int64|T RuntimeError ZeroDivisionError
remainder_|int64|f RuntimeError result type Float can't be cast to the desired o
remainder_|int64|i ok int64
remainder_|int8|T RuntimeError ZeroDivisionError
remainder_|int8|f RuntimeError result type Float can't be cast to the desired o
remainder_|int8|i ok int8
remainder_|uint8|T RuntimeError ZeroDivisionError
remainder_|uint8|f RuntimeError result type Float can't be cast to the desired o
remainder_|uint8|i ok uint8
remainder|bool|T NotImplementedError "remainder_cpu" not implemented for 'Bool'
remainder|bool|b NotImplementedError "remainder_cpu" not implemented for 'Bool'
remainder|bool|f ok float32
remainder|bool|i ok int64
remainder|float32|T ok float32
remainder|float32|b ok float32
remainder|float32|f ok float32
remainder|float32|i ok float32
remainder|float64|T ok float64
remainder|float64|b ok float64
remainder|float64|f ok float64
remainder|float64|i ok float64
remainder|int16|T RuntimeError ZeroDivisionError
remainder|int16|b ok int16
remainder|int16|f ok float32
remainder|int16|i ok int16
remainder|int32|T RuntimeError ZeroDivisionError
remainder|int32|b ok int32
remainder|int32|f ok float32
remainder|int32|i ok int32
remainder|int64|T RuntimeError ZeroDivisionError
remainder|int64|b ok int64
remainder|int64|f ok float32
remainder|int64|i ok int64
remainder|int8|T RuntimeError ZeroDivisionError
remainder|int8|b ok int8
remainder|int8|f ok float32
remainder|int8|i ok int8
remainder|uint8|T RuntimeError ZeroDivisionError
remainder|uint8|b ok uint8
remainder|uint8|f ok float32
remainder|uint8|i ok uint8
rfloordiv|bool|i RuntimeError ZeroDivisionError
rfloordiv|float32|i ok float32
rfloordiv|float64|i ok float64
rfloordiv|int16|i RuntimeError ZeroDivisionError
rfloordiv|int32|i RuntimeError ZeroDivisionError
rfloordiv|int64|i RuntimeError ZeroDivisionError
rfloordiv|int8|i RuntimeError ZeroDivisionError
rfloordiv|uint8|i RuntimeError ZeroDivisionError
rmod|bool|i RuntimeError ZeroDivisionError
rmod|float32|i ok float32
rmod|float64|i ok float64
rmod|int16|i RuntimeError ZeroDivisionError
rmod|int32|i RuntimeError ZeroDivisionError
rmod|int64|i RuntimeError ZeroDivisionError
rmod|int8|i RuntimeError ZeroDivisionError
rmod|uint8|i RuntimeError ZeroDivisionError
round_|bool NotImplementedError "round_vml_cpu" not implemented for 'Bool'
round_|float32 ok float32
round_|float64 ok float64
round_|int16 ok int16
round_|int32 ok int32
round_|int64 ok int64
round_|int8 ok int8
round_|uint8 ok uint8
round|bool NotImplementedError "round_vml_cpu" not implemented for 'Bool'
round|float32 ok float32
round|float64 ok float64
round|int16 ok int16
round|int32 ok int32
round|int64 ok int64
round|int8 ok int8
round|uint8 ok uint8
rpow|bool|f ok float32
rpow|bool|i ok int64
rpow|float32|f ok float32
rpow|float32|i ok float32
rpow|float64|f ok float64
rpow|float64|i ok float64
rpow|int16|f ok float32
rpow|int16|i ok int16
rpow|int32|f ok float32
rpow|int32|i ok int32
rpow|int64|f ok float32
rpow|int64|i ok int64
rpow|int8|f ok float32
rpow|int8|i ok int8
rpow|uint8|f ok float32
rpow|uint8|i ok uint8
rsqrt_|bool RuntimeError result type Float can't be cast to the desired o
rsqrt_|float32 ok float32
rsqrt_|float64 ok float64
rsqrt_|int16 RuntimeError result type Float can't be cast to the desired o
rsqrt_|int32 RuntimeError result type Float can't be cast to the desired o
rsqrt_|int64 RuntimeError result type Float can't be cast to the desired o
rsqrt_|int8 RuntimeError result type Float can't be cast to the desired o
rsqrt_|uint8 RuntimeError result type Float can't be cast to the desired o
rsqrt|bool ok float32
rsqrt|float32 ok float32
rsqrt|float64 ok float64
rsqrt|int16 ok float32
rsqrt|int32 ok float32
rsqrt|int64 ok float32
rsqrt|int8 ok float32
rsqrt|uint8 ok float32
rsub|bool|T RuntimeError Subtraction, the `-` operator, with two bool ten
rsub|bool|i RuntimeError Subtraction, the `-` operator, with a bool tenso
rsub|float32|T ok float32
rsub|float32|i ok float32
rsub|float64|T ok float64
rsub|float64|i ok float64
rsub|int16|T ok int16
rsub|int16|i ok int16
rsub|int32|T ok int32
rsub|int32|i ok int32
rsub|int64|T ok int64
rsub|int64|i ok int64
rsub|int8|T ok int8
rsub|int8|i ok int8
rsub|uint8|T ok uint8
rsub|uint8|i ok uint8
sigmoid_|bool RuntimeError result type Float can't be cast to the desired o
sigmoid_|float32 ok float32
sigmoid_|float64 ok float64
sigmoid_|int16 RuntimeError result type Float can't be cast to the desired o
sigmoid_|int32 RuntimeError result type Float can't be cast to the desired o
sigmoid_|int64 RuntimeError result type Float can't be cast to the desired o
sigmoid_|int8 RuntimeError result type Float can't be cast to the desired o
sigmoid_|uint8 RuntimeError result type Float can't be cast to the desired o
sigmoid|bool ok float32
sigmoid|float32 ok float32
sigmoid|float64 ok float64
sigmoid|int16 ok float32
sigmoid|int32 ok float32
sigmoid|int64 ok float32
sigmoid|int8 ok float32
sigmoid|uint8 ok float32
sign_|bool ok bool
sign_|float32 ok float32
sign_|float64 ok float64
sign_|int16 ok int16
sign_|int32 ok int32
sign_|int64 ok int64
sign_|int8 ok int8
sign_|uint8 ok uint8
sign|bool ok bool
sign|float32 ok float32
sign|float64 ok float64
sign|int16 ok int16
sign|int32 ok int32
sign|int64 ok int64
sign|int8 ok int8
sign|uint8 ok uint8
sin_|bool RuntimeError result type Float can't be cast to the desired o
sin_|float32 ok float32
sin_|float64 ok float64
sin_|int16 RuntimeError result type Float can't be cast to the desired o
sin_|int32 RuntimeError result type Float can't be cast to the desired o
sin_|int64 RuntimeError result type Float can't be cast to the desired o
sin_|int8 RuntimeError result type Float can't be cast to the desired o
sin_|uint8 RuntimeError result type Float can't be cast to the desired o
sinh|bool ok float32
sinh|float32 ok float32
sinh|float64 ok float64
sinh|int16 ok float32
sinh|int32 ok float32
sinh|int64 ok float32
sinh|int8 ok float32
sinh|uint8 ok float32
sin|bool ok float32
sin|float32 ok float32
sin|float64 ok float64
sin|int16 ok float32
sin|int32 ok float32
sin|int64 ok float32
sin|int8 ok float32
sin|uint8 ok float32
softmax|bool|dim NotImplementedError "softmax_lastdim_kernel_impl" not implemented fo
softmax|float32|dim ok float32
softmax|float64|dim ok float64
softmax|int16|dim NotImplementedError "softmax_lastdim_kernel_impl" not implemented fo
softmax|int32|dim NotImplementedError "softmax_lastdim_kernel_impl" not implemented fo
softmax|int64|dim NotImplementedError "softmax_lastdim_kernel_impl" not implemented fo
softmax|int8|dim NotImplementedError "softmax_lastdim_kernel_impl" not implemented fo
softmax|uint8|dim NotImplementedError "softmax_lastdim_kernel_impl" not implemented fo
sort|bool ok tuple
sort|bool|dim ok tuple
sort|float32 ok tuple
sort|float32|dim ok tuple
sort|float64 ok tuple
sort|float64|dim ok tuple
sort|int16 ok tuple
sort|int16|dim ok tuple
sort|int32 ok tuple
sort|int32|dim ok tuple
sort|int64 ok tuple
sort|int64|dim ok tuple
sort|int8 ok tuple
sort|int8|dim ok tuple
sort|uint8 ok tuple
sort|uint8|dim ok tuple
sqrt_|bool RuntimeError result type Float can't be cast to the desired o
sqrt_|float32 ok float32
sqrt_|float64 ok float64
sqrt_|int16 RuntimeError result type Float can't be cast to the desired o
sqrt_|int32 RuntimeError result type Float can't be cast to the desired o
sqrt_|int64 RuntimeError result type Float can't be cast to the desired o
sqrt_|int8 RuntimeError result type Float can't be cast to the desired o
sqrt_|uint8 RuntimeError result type Float can't be cast to the desired o
sqrt|bool ok float32
sqrt|float32 ok float32
sqrt|float64 ok float64
sqrt|int16 ok float32
sqrt|int32 ok float32
sqrt|int64 ok float32
sqrt|int8 ok float32
sqrt|uint8 ok float32
square_|bool RuntimeError result type Long can't be cast to the desired ou
square_|float32 ok float32
square_|float64 ok float64
square_|int16 ok int16
square_|int32 ok int32
square_|int64 ok int64
square_|int8 ok int8
square_|uint8 ok uint8
square|bool ok int64
square|float32 ok float32
square|float64 ok float64
square|int16 ok int16
square|int32 ok int32
square|int64 ok int64
square|int8 ok int8
square|uint8 ok uint8
std|bool RuntimeError std and var only support floating point and comp
std|bool|dim RuntimeError std and var only support floating point and comp
std|float32 ok float32
std|float32|dim ok float32
std|float64 ok float64
std|float64|dim ok float64
std|int16 RuntimeError std and var only support floating point and comp
std|int16|dim RuntimeError std and var only support floating point and comp
std|int32 RuntimeError std and var only support floating point and comp
std|int32|dim RuntimeError std and var only support floating point and comp
std|int64 RuntimeError std and var only support floating point and comp
std|int64|dim RuntimeError std and var only support floating point and comp
std|int8 RuntimeError std and var only support floating point and comp
std|int8|dim RuntimeError std and var only support floating point and comp
std|uint8 RuntimeError std and var only support floating point and comp
std|uint8|dim RuntimeError std and var only support floating point and comp
sub_|bool|T RuntimeError Subtraction, the `-` operator, with two bool ten
sub_|bool|f RuntimeError Subtraction, the `-` operator, with a bool tenso
sub_|bool|i RuntimeError Subtraction, the `-` operator, with a bool tenso
sub_|float32|T ok float32
sub_|float32|f ok float32
sub_|float32|i ok float32
sub_|float64|T ok float64
sub_|float64|f ok float64
sub_|float64|i ok float64
sub_|int16|T ok int16
sub_|int16|f RuntimeError result type Float can't be cast to the desired o
sub_|int16|i ok int16
sub_|int32|T ok int32
sub_|int32|f RuntimeError result type Float can't be cast to the desired o
sub_|int32|i ok int32
sub_|int64|T ok int64
sub_|int64|f RuntimeError result type Float can't be cast to the desired o
sub_|int64|i ok int64
sub_|int8|T ok int8
sub_|int8|f RuntimeError result type Float can't be cast to the desired o
sub_|int8|i ok int8
sub_|uint8|T ok uint8
sub_|uint8|f RuntimeError result type Float can't be cast to the desired o
sub_|uint8|i ok uint8
sub|bool|T RuntimeError Subtraction, the `-` operator, with two bool ten
sub|bool|b RuntimeError Subtraction, the `-` operator, with two bool ten
sub|bool|f RuntimeError Subtraction, the `-` operator, with a bool tenso
sub|bool|i RuntimeError Subtraction, the `-` operator, with a bool tenso
sub|float32|T ok float32
sub|float32|b RuntimeError Subtraction, the `-` operator, with a bool tenso
sub|float32|f ok float32
sub|float32|i ok float32
sub|float64|T ok float64
sub|float64|b RuntimeError Subtraction, the `-` operator, with a bool tenso
sub|float64|f ok float64
sub|float64|i ok float64
sub|int16|T ok int16
sub|int16|b RuntimeError Subtraction, the `-` operator, with a bool tenso
sub|int16|f ok float32
sub|int16|i ok int16
sub|int32|T ok int32
sub|int32|b RuntimeError Subtraction, the `-` operator, with a bool tenso
sub|int32|f ok float32
sub|int32|i ok int32
sub|int64|T ok int64
sub|int64|b RuntimeError Subtraction, the `-` operator, with a bool tenso
sub|int64|f ok float32
sub|int64|i ok int64
sub|int8|T ok int8
sub|int8|b RuntimeError Subtraction, the `-` operator, with a bool tenso
sub|int8|f ok float32
sub|int8|i ok int8
sub|uint8|T ok uint8
sub|uint8|b RuntimeError Subtraction, the `-` operator, with a bool tenso
sub|uint8|f ok float32
sub|uint8|i ok uint8
sum|bool ok int64
sum|bool|dim ok int64
sum|float32 ok float32
sum|float32|dim ok float32
sum|float64 ok float64
sum|float64|dim ok float64
sum|int16 ok int64
sum|int16|dim ok int64
sum|int32 ok int64
sum|int32|dim ok int64
sum|int64 ok int64
sum|int64|dim ok int64
sum|int8 ok int64
sum|int8|dim ok int64
sum|uint8 ok int64
sum|uint8|dim ok int64
tanh_|bool RuntimeError result type Float can't be cast to the desired o
tanh_|float32 ok float32
tanh_|float64 ok float64
tanh_|int16 RuntimeError result type Float can't be cast to the desired o
tanh_|int32 RuntimeError result type Float can't be cast to the desired o
tanh_|int64 RuntimeError result type Float can't be cast to the desired o
tanh_|int8 RuntimeError result type Float can't be cast to the desired o
tanh_|uint8 RuntimeError result type Float can't be cast to the desired o
tanh|bool ok float32
tanh|float32 ok float32
tanh|float64 ok float64
tanh|int16 ok float32
tanh|int32 ok float32
tanh|int64 ok float32
tanh|int8 ok float32
tanh|uint8 ok float32
tan|bool ok float32
tan|float32 ok float32
tan|float64 ok float64
tan|int16 ok float32
tan|int32 ok float32
tan|int64 ok float32
tan|int8 ok float32
tan|uint8 ok float32
trunc_|bool NotImplementedError "trunc_vml_cpu" not implemented for 'Bool'
trunc_|float32 ok float32
trunc_|float64 ok float64
trunc_|int16 ok int16
trunc_|int32 ok int32
trunc_|int64 ok int64
trunc_|int8 ok int8
trunc_|uint8 ok uint8
trunc|bool NotImplementedError "trunc_vml_cpu" not implemented for 'Bool'
trunc|float32 ok float32
trunc|float64 ok float64
trunc|int16 ok int16
trunc|int32 ok int32
trunc|int64 ok int64
trunc|int8 ok int8
trunc|uint8 ok uint8
var|bool RuntimeError std and var only support floating point and comp
var|bool|dim RuntimeError std and var only support floating point and comp
var|float32 ok float32
var|float32|dim ok float32
var|float64 ok float64
var|float64|dim ok float64
var|int16 RuntimeError std and var only support floating point and comp
var|int16|dim RuntimeError std and var only support floating point and comp
var|int32 RuntimeError std and var only support floating point and comp
var|int32|dim RuntimeError std and var only support floating point and comp
var|int64 RuntimeError std and var only support floating point and comp
var|int64|dim RuntimeError std and var only support floating point and comp
var|int8 RuntimeError std and var only support floating point and comp
var|int8|dim RuntimeError std and var only support floating point and comp
var|uint8 RuntimeError std and var only support floating point and comp
var|uint8|dim RuntimeError std and var only support floating point and comp
"""
CASES = [line.split(" ", 2) for line in TABLE.strip().splitlines()]


@pytest.mark.parametrize("key,outcome,detail", [(c[0], c[1], c[2] if len(c) > 2 else "") for c in CASES],
                         ids=[c[0] for c in CASES])
def test_dtype_table_matches_pytorch(key, outcome, detail):
    if outcome == "ok":
        r = _run(key)
        if detail == "tuple":
            assert isinstance(r, tuple)
        else:
            assert _dtype_name(r) == detail
        return
    with pytest.raises(Exception) as info:
        _run(key)
    # the exact type: NotImplementedError is a RuntimeError, but PyTorch tells them apart
    assert type(info.value).__name__ == outcome, (key, info.value)
    assert detail in str(info.value)


def test_table_covers_the_refusals_of_every_rule():
    # the literal table above holds each class of refusal, so it cannot silently shrink
    refused = {c[0] for c in CASES if c[1] != "ok"}
    for key in ("abs|bool", "floor|bool", "ceil|bool", "round|bool", "trunc|bool", "relu|bool", "neg|bool",
                "pow|bool|T", "remainder|bool|T", "floor_divide|bool|T", "div_trunc|bool|T", "sub|bool|i",
                "sub|float32|b", "argmax|bool", "argmin|bool|dim", "softmax|int64|dim", "log_softmax|bool|dim",
                "mean|int64", "var|int32", "norm|uint8", "bitwise_and|float32|T", "bitwise_not|float64",
                "matmul|bool", "atan2|float32|f", "logical_and|int64|i", "abs_|bool", "relu_|bool"):
        assert key in refused, key


# -- failed in-place ops write nothing ----------------------------------------------------------
@pytest.mark.parametrize("name,args", [("abs_", ()), ("floor_", ()), ("relu_", ()), ("neg_", ()),
                                       ("pow_", (nbgrad.tensor([True, True]),)), ("sub_", (1,))])
def test_refused_inplace_on_bool_leaves_tensor_unchanged(name, args):
    b = nbgrad.tensor([True, False])
    v = b._version
    with pytest.raises(RuntimeError):
        getattr(b, name)(*args)
    assert b.tolist() == [True, False]
    assert b._version == v


def test_inplace_cast_error_comes_before_the_kernel_dtype_check():
    x = nbgrad.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long") as info:
        x.bitwise_and_(2.5)
    assert type(info.value) is RuntimeError
    assert x.tolist() == [1, 2]


# -- dtype rules beyond the table -------------------------------------------------------------
def test_softmax_kernel_name_depends_on_the_dim():
    x = nbgrad.tensor([[1, 2], [3, 4]])
    with pytest.raises(NotImplementedError, match='"softmax_kernel_impl" not implemented for \'Long\''):
        x.softmax(0)
    with pytest.raises(NotImplementedError, match='"softmax_lastdim_kernel_impl" not implemented for \'Long\''):
        x.softmax(1)
    with pytest.raises(NotImplementedError, match='"log_softmax_kernel_impl" not implemented for \'Byte\''):
        x.to(nbgrad.uint8).log_softmax(0)
    with pytest.raises(NotImplementedError, match="'Char'"):
        x.float().softmax(0, dtype=nbgrad.int8)
    assert x.softmax(0, dtype=nbgrad.float32).dtype == nbgrad.float32
    assert x[:0].softmax(0).shape == (0, 2)     # empty: no kernel runs, PyTorch allows it


def test_integer_division_checks_dtype_before_zero_divisor():
    b = nbgrad.tensor([True, False])
    with pytest.raises(NotImplementedError, match="div_floor_cpu"):
        b // b
    with pytest.raises(NotImplementedError, match="remainder_cpu"):
        b % b
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        2 % b                                 # int64: the zero divisor is the error
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        nbgrad.tensor([4, 2]).div(nbgrad.tensor([2, 0]), rounding_mode="trunc")


def test_bool_pow_and_clamp():
    b = nbgrad.tensor([True, False])
    assert b.pow(True).tolist() == [True, False]      # a Python exponent: PyTorch allows it
    assert b.pow(2).dtype == nbgrad.int64
    with pytest.raises(NotImplementedError, match='"pow" not implemented'):
        True ** b
    with pytest.raises(NotImplementedError, match="clamp_min_scalar_cpu"):
        b.clamp(min=True)
    with pytest.raises(NotImplementedError, match="clamp_cpu"):
        b.clamp(b, b)
    assert b.clamp(0, 1).dtype == nbgrad.int64
    with pytest.raises(NotImplementedError, match="round_cpu"):
        nbgrad.tensor([1, 2]).round(decimals=1)


def test_bool_matrix_products_and_topk():
    b = nbgrad.tensor([[True, False], [True, True]])
    with pytest.raises(NotImplementedError, match="addmm_impl_cpu_"):
        b.mm(b)
    with pytest.raises(NotImplementedError, match="addmv_impl_cpu"):
        b.mv(b[0])
    with pytest.raises(NotImplementedError, match='"dot" not implemented'):
        b[0].dot(b[0])
    with pytest.raises(RuntimeError, match="topk does not support bool"):
        b.topk(1)


def test_subtraction_refuses_any_bool_operand():
    x = nbgrad.tensor([1.0, 2.0])
    for f in (lambda: x - nbgrad.tensor(True), lambda: nbgrad.tensor(True) - 1, lambda: True - x, lambda: x - True):
        with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
            f()
    with pytest.raises(RuntimeError, match="with two bool tensors"):
        nbgrad.tensor([True]) - nbgrad.tensor([False])


def test_scalar_type_names_in_messages():
    with pytest.raises(RuntimeError, match="Got: Long"):
        nbgrad.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError, match="Got Short"):
        nbgrad.tensor([1, 2], dtype=nbgrad.int16).norm()
    with pytest.raises(RuntimeError, match="with dtype Float"):
        nbgrad.where(nbgrad.tensor([1.0]), nbgrad.tensor([1.0]), nbgrad.tensor([2.0]))


def test_all_any_keep_uint8():
    x = nbgrad.tensor([[1, 3, 0], [2, 2, 1]], dtype=nbgrad.uint8)
    assert x.all().dtype == nbgrad.uint8 and x.all().item() == 0
    assert x.any(1).tolist() == [1, 1]
    assert x[0, 1].all().item() == 1          # 0-dim: 3 -> 1, not 3
    assert x.float().all(1).dtype == nbgrad.bool


def test_integer_pow_with_negative_tensor_exponents():
    v = nbgrad.tensor([3, -1, 1, -2, 0, 2])
    e = nbgrad.tensor([-2, -3, -2, -1, 2, -1])
    assert (v ** e).tolist() == [0, -1, 1, 0, 0, 0]
    assert (2 ** e).tolist() == [0, 0, 0, 0, 4, 0]
    assert ((-1) ** e).tolist() == [1, -1, 1, -1, 1, -1]
    assert (v.to(nbgrad.int8) ** e.to(nbgrad.int8)).dtype == nbgrad.int8
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        v ** -1                               # a Python-number exponent still raises


# -- argument checking (PyTorch's parser raises TypeError) ----------------------------------------
def _x():
    return nbgrad.ones(2, 3)


@pytest.mark.parametrize("call", [
    lambda x: x.expand(), lambda x: x.permute(), lambda x: x.reshape(), lambda x: x.view(), lambda x: x.repeat(),
    lambda x: x.softmax(), lambda x: x.log_softmax(),
    lambda x: x.sum(1.0), lambda x: x.sum(dim=1.0), lambda x: x.sum((0, 1.0)), lambda x: x.sum(True),
    lambda x: x.sum(1, keepdim=1), lambda x: x.mean(1.0), lambda x: x.mean(1, keepdim=None),
    lambda x: x.max(1.0), lambda x: x.max(1, keepdim=1), lambda x: x.min(1.0), lambda x: x.prod((0, 1)),
    lambda x: x.argmax(1.0), lambda x: x.argmax((0, 1)), lambda x: x.argmin(1, keepdim=1),
    lambda x: x.amax(1.0), lambda x: x.amax(1, keepdim=1), lambda x: x.logsumexp(1, keepdim=1),
    lambda x: x.var(unbiased=1), lambda x: x.var(0, keepdim=True, unbiased=1), lambda x: x.var(0, 1),
    lambda x: x.var(0, keepdim=1), lambda x: x.var(1.0), lambda x: x.var(unbiased=True, correction=1),
    lambda x: x.std(unbiased=1), lambda x: x.std(0, unbiased=0), lambda x: x.std(0, keepdim=True, unbiased=1),
    lambda x: x.softmax(1.0), lambda x: x.unsqueeze(1.0), lambda x: x.transpose(0, 1.0),
    lambda x: x.view(2, 3.0), lambda x: x.reshape(2, 3.0), lambda x: x.expand(2, 3.0), lambda x: x.permute(0, 1.0),
    lambda x: x.norm((0, 1)), lambda x: x.norm(2, 1, keepdim=1), lambda x: x.any(1, keepdim=1),
    lambda x: x.atan2(2.0), lambda x: x.logical_and(True), lambda x: x.logical_or(1),
])
def test_bad_arguments_raise_type_error(call):
    x = _x()
    with pytest.raises(TypeError):
        call(x)


def test_missing_sizes_message():
    with pytest.raises(TypeError, match='expand\\(\\) missing 1 required positional arguments: "size"'):
        _x().expand()
    with pytest.raises(TypeError, match='permute\\(\\) missing 1 required positional arguments: "dims"'):
        _x().permute()


def test_good_arguments_still_work():
    x = _x()
    assert x.sum(nbgrad.tensor(1)).shape == (2,)      # an integer-like 0-dim tensor is an int
    assert x.var(True).shape == () and x.var(0, True).shape == (3,) and x.var(0, unbiased=False).shape == (3,)
    assert x.std(0, correction=0).shape == (3,)
    assert x.expand(2, 3).shape == (2, 3) and x[:1, :1].reshape(()).shape == ()
    assert x.repeat(2, 1).shape == (4, 3) and x.repeat((1, 2, 1)).shape == (1, 4, 3)
    assert x.softmax(dim=0).shape == (2, 3)
    assert nbgrad.nn.functional.softmax(x, dim=1).shape == (2, 3)


# -- reductions over empty inputs ------------------------------------------------------------------
def test_extrema_of_empty_inputs():
    e = nbgrad.zeros(2, 0)
    for op in ("amax", "amin"):
        with pytest.raises(RuntimeError, match="Expected reduction dim to be specified for input.numel\\(\\) == 0"):
            getattr(e, op)()
        assert getattr(e, op)(0).shape == (0,)            # the reduced dim is not the empty one
        assert getattr(e, op)(0, keepdim=True).shape == (1, 0)
        with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
            getattr(e, op)(1)
    for op in ("argmax", "argmin"):
        with pytest.raises(IndexError, match="Expected reduction dim to be specified for input.numel\\(\\) == 0"):
            getattr(e, op)()
        assert getattr(e, op)(0).shape == (0,)
        with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
            getattr(e, op)(1)


def test_norms_without_identity_on_empty_dims():
    e = nbgrad.zeros(2, 0)
    for p in (math.inf, -math.inf, -1):
        with pytest.raises(RuntimeError, match="on an empty tensor because the operation does not have an identity"):
            e.norm(p)
        with pytest.raises(RuntimeError, match="on the dimension 1because this dimension is empty"):
            e.norm(p, dim=1)
        assert e.norm(p, dim=0).shape == (0,)
    assert e.norm(1).item() == 0.0 and e.norm(2).item() == 0.0 and e.norm(0).item() == 0.0


# -- nbgrad-internal errors that leaked ------------------------------------------------------------
def test_zero_dim_views():
    x = nbgrad.tensor(2.0, requires_grad=True)
    y = x.transpose(-1, 0)
    assert y.shape == () and type(y.grad_fn).__name__ == "TransposeBackward0"
    (y * 3).backward()
    assert x.grad.item() == 3.0
    assert x.movedim(0, -1).shape == () and x.movedim(0, 0).shape == ()
    assert type(x.movedim(0, -1).grad_fn).__name__ == "AliasBackward0"
    assert x.swapaxes(0, 0).shape == ()
    with pytest.raises(RuntimeError, match="narrow\\(\\) cannot be applied to a 0-dim tensor"):
        x.narrow(0, 0, 1)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        x.unbind()
    with pytest.raises(RuntimeError, match="split expects at least a 1-dimensional tensor"):
        x.split(1)
    with pytest.raises(RuntimeError, match="chunk expects at least a 1-dimensional tensor"):
        x.chunk(1)
    with pytest.raises(RuntimeError):
        x.unflatten(0, (1,))


def test_whole_index_keeps_history():
    # x[...] / x[()] of a 0-dim tensor lost its history: backward said 'element 0 of
    # tensors does not require grad'
    x = nbgrad.tensor(1.0, requires_grad=True)
    for index in (Ellipsis, ()):
        v = x[index]
        assert v.requires_grad and not v.is_leaf and type(v.grad_fn).__name__ == "AliasBackward0"
        assert v._base is x
    x[...].backward()
    assert x.grad.item() == 1.0
    s = nbgrad.zeros(1, 3, requires_grad=True).sum()
    v = s[...]
    (gs,) = nbgrad.autograd.grad(v * 2, [v])
    assert gs.item() == 2.0
    assert type(nbgrad.ones(2, requires_grad=True)[...].grad_fn).__name__ == "AliasBackward0"


def test_var_backward_over_a_single_element_is_nan_not_zero_division():
    x = nbgrad.tensor([[[[1.0]]]], dtype=nbgrad.float64, requires_grad=True)
    v = x.clamp(max=0.5).var()
    assert math.isnan(v.item())
    (g,) = nbgrad.autograd.grad(v, [x], create_graph=True)
    assert g.item() == 0.0                    # clamp's mask zeroes var's nan gradient
    y = nbgrad.tensor([[1.0], [2.0]], requires_grad=True)
    y.var(1).sum().backward()
    assert all(math.isnan(t) for t in y.grad.flatten().tolist())


# -- setitem: value shapes and dtypes ------------------------------------------------------------
def test_setitem_drops_leading_unit_dims_of_the_value():
    a = nbgrad.zeros(2)
    a[:] = nbgrad.ones(1, 2)
    a[()] = nbgrad.full((1, 1, 2), 2.0)
    assert a.tolist() == [2.0, 2.0]
    m = nbgrad.zeros(2, 2)
    m[0] = nbgrad.tensor([[1.0, 2.0]])
    m[0:1, 0] = nbgrad.ones(1, 1)
    assert m.tolist() == [[1.0, 2.0], [0.0, 0.0]]
    b = nbgrad.tensor([True, False])
    b[()] = nbgrad.tensor([[1, 0]])
    assert b.tolist() == [True, False]
    with pytest.raises(RuntimeError):
        a[:] = nbgrad.ones(2, 2)               # a leading 2 is not dropped
    assert a.tolist() == [2.0, 2.0]


def test_index_put_needs_matching_dtypes_except_a_mask_fill():
    a = nbgrad.zeros(3)
    for index, value in ((nbgrad.tensor([0]), nbgrad.tensor([1])), (nbgrad.tensor([], dtype=nbgrad.int64), nbgrad.tensor([1])),
                         (nbgrad.tensor([0, 1]), nbgrad.tensor(1.0, dtype=nbgrad.float64)),
                         (nbgrad.tensor([True, False, True]), nbgrad.tensor([1, 2]))):
        with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
            a[index] = value
    assert a.tolist() == [0.0, 0.0, 0.0]
    a[nbgrad.tensor([True, False, True])] = nbgrad.tensor([1])       # masked_fill_: the value is cast
    assert a.tolist() == [1.0, 0.0, 1.0]
    a[nbgrad.tensor([0, 1])] = 7                                      # a Python number is always cast
    assert a.tolist() == [7.0, 7.0, 1.0]


# -- autograd.grad runs only the nodes above its inputs ------------------------------------------
def test_grad_of_a_non_leaf_does_not_run_or_free_the_nodes_below_it():
    # PyTorch's exec_info: the input's own node is where its gradient is captured; it is not
    # run, so its saved tensors stay for a later backward
    v0 = nbgrad.tensor([[0.0, 0.5, 1.0]], dtype=nbgrad.float64, requires_grad=True)
    v2 = nbgrad.maximum(v0.sin(), v0)
    v3 = v2.mean()
    (g,) = nbgrad.autograd.grad(v3, [v2])
    assert g.tolist() == [[1 / 3] * 3]
    v3.backward()                              # no 'backward through the graph a second time'
    assert v0.grad is not None
    w0 = nbgrad.tensor([0.0, 1.0], dtype=nbgrad.float64, requires_grad=True)
    w1 = w0.erf()
    w2 = w1.mean()
    w2.backward()                              # frees erf's saved input
    (h,) = nbgrad.autograd.grad(w2, [w1])      # needs only mean's node, which saves nothing
    assert h.tolist() == [0.5, 0.5]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        w2.backward()                          # erf's node runs again: its input was freed


def test_grad_through_a_captured_input_to_another_input():
    a = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    c = (b * b).sum()
    gb, ga = nbgrad.autograd.grad(c, [b, a])
    assert gb.tolist() == [6.0, 12.0] and ga.tolist() == [18.0, 36.0]


def test_zero_zero_gradients_of_atan2_and_pow_are_zero_not_nan():
    # exposed once x[...] had PyTorch's history; PyTorch masks both
    a = nbgrad.tensor([0.0, 1.0, 0.0], dtype=nbgrad.float64, requires_grad=True)
    b = nbgrad.tensor([0.0, 0.0, 2.0], dtype=nbgrad.float64, requires_grad=True)
    nbgrad.atan2(a, b).sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.5] and b.grad.tolist() == [0.0, -1.0, 0.0]
    x = nbgrad.tensor([0.0, 2.0, 0.0], dtype=nbgrad.float64, requires_grad=True)
    e = nbgrad.tensor([0.0, 0.0, 1.0], dtype=nbgrad.float64, requires_grad=True)
    (x ** e).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]
    assert e.grad.tolist()[0] == 0.0 and abs(e.grad.tolist()[1] - math.log(2.0)) < 1e-12


def test_zero_dim_extrema_over_dim_zero():
    v = nbgrad.tensor(1.0)
    assert v.amin(0).item() == 1.0 and v.amax(-1, keepdim=True).shape == ()
    assert v.argmax(0).item() == 0 and v.max(0).values.item() == 1.0


def test_shape_mismatch_is_reported_before_the_dtype_refusal():
    b = nbgrad.zeros(2, 0, 2, dtype=nbgrad.bool)
    c = nbgrad.zeros(2, 0, dtype=nbgrad.bool)
    for f in (lambda: b ** c, lambda: b % c, lambda: b // c, lambda: b.pow_(c), lambda: b.float() & c.float()):
        with pytest.raises(RuntimeError, match="must match the size of tensor b") as info:
            f()
        assert type(info.value) is RuntimeError


def test_zero_dim_softmax_of_non_finite_values_is_nan():
    for v in (float("nan"), float("inf"), float("-inf")):
        x = nbgrad.tensor(v)
        assert math.isnan(x.softmax(0).item()) and math.isnan(x.log_softmax(-1).item())
    x = nbgrad.tensor(3.0, requires_grad=True)
    assert x.softmax(0).item() == 1.0 and x.log_softmax(0).item() == 0.0
    x.softmax(0).backward()
    assert x.grad.item() == 0.0


def test_backward_of_zero_dim_reductions_over_dim_zero():
    # _expand_back unsqueezed a 0-dim gradient: expand(size=[]) raised
    for op in ("amin", "amax", "sum", "mean", "logsumexp", "prod"):
        v0 = nbgrad.tensor(1.5, requires_grad=True)
        getattr(v0, op)(0).backward()
        assert v0.grad.item() == 1.0, op
    for op in ("var", "std"):                 # the element count of a 0-dim input is 1, not shape[0]
        v0 = nbgrad.tensor(1.5, requires_grad=True)
        getattr(v0, op)(0).backward()
        assert math.isnan(v0.grad.item())
        v0 = nbgrad.tensor(1.5, requires_grad=True)
        getattr(v0, op)(0, correction=0).backward()
        assert v0.grad.item() == 0.0


def test_std_backward_of_a_zero_std_is_zero():
    x = nbgrad.tensor([[1.0, 1.0], [1.0, 3.0]], dtype=nbgrad.float64, requires_grad=True)
    x.std(1).sum().backward()
    assert x.grad[0].tolist() == [0.0, 0.0]
    assert abs(x.grad[1, 1].item() - 2 ** -0.5) < 1e-12
    y = nbgrad.tensor([1.0, 1.0, 1.0], requires_grad=True)
    y.std().backward()
    assert y.grad.tolist() == [0.0, 0.0, 0.0]


def test_inplace_on_a_view_made_a_leaf_by_requires_grad():
    v2 = nbgrad.zeros(2, 0).log1p().sum()
    v3 = v2[...]
    v3.requires_grad_(True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place"):
        v3.add_(1.0)
    assert v3.item() == 0.0


# -- in-place ops: autograd's check_inplace comes before the op's own argument checks ------------
# Recorded from PyTorch 2.13 (CPU): its autograd layer refuses a leaf that requires grad ("a leaf
# Variable...") or a view of one ("a view of a leaf Variable...") under grad mode before the op
# checks its dims, shapes, dtypes or memory overlap; under no_grad, or on a tensor that does not
# require grad, the op's own error is raised.
_LEAF_MSG = "a leaf Variable that requires grad is being used in an in-place operation."
_VIEW_MSG = "a view of a leaf Variable that requires grad is being used in an in-place operation."
_INTERNAL_OVERLAP = "unsupported operation: more than one element of the written-to tensor refers to a single"
_INPLACE_ORDER_CASES = [
    # (name, shape of the written tensor, the call, PyTorch 2.13's own error of the op)
    ("transpose_ 0-dim", (), lambda x: x.transpose_(0, -2),
     (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got -2)")),
    ("transpose_", (3,), lambda x: x.transpose_(0, 5),
     (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 5)")),
    ("swapaxes_", (3,), lambda x: x.swapaxes_(0, 5),
     (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 5)")),
    ("swapdims_", (3,), lambda x: x.swapdims_(0, 5),
     (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 5)")),
    ("t_ 3-d", (2, 2, 2), lambda x: x.t_(),
     (RuntimeError, "t_() expects a tensor with <= 2 dimensions, but self is 3D")),
    ("unsqueeze_", (3,), lambda x: x.unsqueeze_(5),
     (IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 5)")),
    ("squeeze_", (3,), lambda x: x.squeeze_(5),
     (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 5)")),
    ("squeeze_ repeated dims", (3,), lambda x: x.squeeze_((0, 0)),
     (RuntimeError, "dim 0 appears multiple times in the list of dims")),
    ("add_ shape", (3,), lambda x: x.add_(nbgrad.ones(4)),
     (RuntimeError, "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0")),
    ("mul_ broadcast", (3,), lambda x: x.mul_(nbgrad.ones(2, 3)),
     (RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]")),
    ("clamp_ no bounds", (3,), lambda x: x.clamp_(),
     (RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None")),
    ("copy_ shape", (3,), lambda x: x.copy_(nbgrad.ones(4)),
     (RuntimeError, "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0")),
    ("fill_ 1-d value", (3,), lambda x: x.fill_(nbgrad.ones(2)),
     (RuntimeError, "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions.")),
    ("cumsum_ dim", (3,), lambda x: x.cumsum_(5),
     (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 5)")),
    ("cumsum_ dtype", (3,), lambda x: x.cumsum_(0, dtype=nbgrad.int64),
     (RuntimeError, "Bad in-place call: input tensor dtype float and output tensor dtype long int should match")),
    ("cumprod_ dtype", (3,), lambda x: x.cumprod_(0, dtype=nbgrad.int64),
     (RuntimeError, "Bad in-place call: input tensor dtype float and output tensor dtype long int should match")),
    # PyTorch wraps the dim before it compares the dtypes, and before the overlap check
    ("cumprod_ dim before dtype", (3,), lambda x: x.cumprod_(2, dtype=nbgrad.int64),
     (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 2)")),
    ("tril_ 1-d", (3,), lambda x: x.tril_(),
     (RuntimeError, "tril: input tensor must have at least 2 dimensions")),
    ("index_add_ dim", (3,), lambda x: x.index_add_(5, nbgrad.zeros(1, dtype=nbgrad.int64), nbgrad.ones(1)),
     (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 5)")),
    ("scatter_ dim", (3,), lambda x: x.scatter_(4, nbgrad.tensor([0]), nbgrad.ones(1)),
     (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 4)")),
]


def _written(kind, shape):
    if kind == "leaf":
        return nbgrad.ones(shape, requires_grad=True)
    if kind == "view":
        return nbgrad.ones((2,) + shape, requires_grad=True)[0]
    return nbgrad.ones(shape)


@pytest.mark.parametrize("name,shape,call,own", _INPLACE_ORDER_CASES, ids=[c[0] for c in _INPLACE_ORDER_CASES])
def test_inplace_autograd_check_comes_before_the_ops_own(name, shape, call, own):
    for kind, msg in (("leaf", _LEAF_MSG), ("view", _VIEW_MSG)):
        x = _written(kind, shape)
        with pytest.raises(RuntimeError) as info:
            call(x)
        assert str(info.value) == msg, (kind, str(info.value))
        assert x.shape == shape and x._version == 0
    for kind in ("leaf", "view", "plain"):     # no_grad, or nothing to refuse: the op's own error
        x = _written(kind, shape)
        with nbgrad.no_grad(), pytest.raises(own[0]) as info:
            call(x)
        assert str(info.value).startswith(own[1]), (kind, str(info.value))
        if kind == "plain":
            with pytest.raises(own[0]):
                call(_written(kind, shape))


def test_scan_inplace_wraps_the_dim_before_the_dtype_and_overlap_checks():
    # PyTorch 2.13: cumsum_/cumprod_ raise the dim's IndexError before their dtype and overlap errors
    x = nbgrad.tensor([[0, 1, 2]])
    for call in (lambda: x.as_strided([1, 2], [1, 1]).cumprod_(2, dtype=nbgrad.float64),
                 lambda: x.expand(2, 3).cumsum_(4), lambda: nbgrad.tensor([[True]]).cumprod_(4)):
        with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\]"):
            call()
    assert x.tolist() == [[0, 1, 2]] and x._version == 0


@pytest.mark.filterwarnings("ignore:Use of masked_fill_ on expanded tensors")
def test_inplace_on_an_expanded_view_of_a_leaf_is_refused_before_the_overlap_checks():
    # PyTorch 2.13: check_inplace before the internal-overlap check of fill_(Tensor), normal_,
    # uniform_ and before masked_fill_'s shape check
    calls = (lambda x: x.fill_(nbgrad.tensor(2.0)), lambda x: x.normal_(), lambda x: x.uniform_(),
             lambda x: x.masked_fill_(nbgrad.ones(4, dtype=nbgrad.bool), 1.0))
    for call in calls:
        x = nbgrad.ones(1, requires_grad=True).expand(3)
        with pytest.raises(RuntimeError) as info:
            call(x)
        assert str(info.value) == _VIEW_MSG
        with nbgrad.no_grad(), pytest.raises(RuntimeError) as info:
            call(nbgrad.ones(1, requires_grad=True).expand(3))
        assert str(info.value).startswith((_INTERNAL_OVERLAP, "The size of tensor a (3) must match"))


def test_logical_inplace_ops_bypass_autograd():
    # PyTorch 2.13: logical_and_/or_/xor_/not_ have no autograd formula: no check_inplace (a leaf
    # that requires grad is written and stays a leaf), no node; the shape and overlap checks stay
    leaf = nbgrad.ones(2, 3, requires_grad=True)
    leaf.logical_and_(nbgrad.tensor([1.0, 0.0, 1.0]))
    assert leaf.is_leaf and leaf.grad_fn is None and leaf.requires_grad and leaf._version == 1
    assert leaf.tolist() == [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]]
    leaf.logical_not_()
    assert leaf.is_leaf and leaf.tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    v = nbgrad.ones(2, 3, requires_grad=True)[0]
    v.logical_or_(nbgrad.zeros(3))
    assert type(v.grad_fn).__name__ == "AsStridedBackward0" and v._base.grad_fn is None
    with pytest.raises(RuntimeError, match="The size of tensor a .3. must match the size of tensor b .4."):
        nbgrad.ones(3, requires_grad=True).logical_xor_(nbgrad.ones(4))
    with pytest.raises(RuntimeError, match=_INTERNAL_OVERLAP):
        nbgrad.ones(1, requires_grad=True).expand(3).logical_and_(nbgrad.ones(3))
    # the base's history is left as it was: the window's gradient still flows to the base's input
    a = nbgrad.tensor([[0.5, 0.0, 2.0], [1.0, 2.0, 3.0]], requires_grad=True)
    b = a * 2
    w = b[0]
    w.logical_and_(nbgrad.tensor([1.0, 1.0, 0.0]))
    assert type(b.grad_fn).__name__ == "MulBackward0" and w.tolist() == [1.0, 0.0, 0.0]
    w.sum().backward()
    assert a.grad.tolist() == [[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]
