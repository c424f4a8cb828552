"""PyTorch's deprecated Number-first overloads of the add*mm family (its deprecated.yaml):
x.addmm(beta, [alpha,] mat1, mat2), x.addmm_(...), torch.addmm(beta, input, [alpha,] mat1,
mat2), and add/sub's (Number alpha, other) with a number other: old code (torch.addmm(0, c,
a, b), x.add(1, 2)) was nbgrad's TypeError.  Values, gradients and warnings recorded from
PyTorch 2.13."""
import subprocess
import sys
import warnings

import pytest

import nbgrad

AGAINST_TORCH = nbgrad.__name__ == "torch"


def _operands():
    x = nbgrad.ones(2, 2)
    return {"x": x, "m": nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), "v": nbgrad.tensor([1.0, -1.0]),
            "b": nbgrad.tensor([[[1.0, 2.0], [3.0, 4.0]]]), "lib": nbgrad}


# (call, the result's values as PyTorch gives them)
CASES = [
    ("x.addmm(2, m, m)", [[9.0, 12.0], [17.0, 24.0]]),
    ("x.addmm(2, 3, m, m)", [[23.0, 32.0], [47.0, 68.0]]),
    ("lib.addmm(2, x, m, m)", [[9.0, 12.0], [17.0, 24.0]]),
    ("lib.addmm(2, x, 3, m, m)", [[23.0, 32.0], [47.0, 68.0]]),
    ("lib.addmm(lib.tensor(2), x, m, m)", [[9.0, 12.0], [17.0, 24.0]]),
    ("x.clone().addmm_(0, 2, m, m)", [[14.0, 20.0], [30.0, 44.0]]),
    ("v.addmv(2, m, v)", [1.0, -3.0]),
    ("lib.addmv(2, v, 3, m, v)", [-1.0, -5.0]),
    ("x.addr(2, v, v)", [[3.0, 1.0], [1.0, 3.0]]),
    ("lib.addr(2, x, 3, v, v)", [[5.0, -1.0], [-1.0, 5.0]]),
    ("b.baddbmm(0, b, b)", [[[7.0, 10.0], [15.0, 22.0]]]),
    ("lib.baddbmm(1, b, 2, b, b)", [[[15.0, 22.0], [33.0, 48.0]]]),
    ("x.addbmm(2, 3, b, b)", [[23.0, 32.0], [47.0, 68.0]]),
    ("lib.addbmm(2, x, b, b)", [[9.0, 12.0], [17.0, 24.0]]),
    ("lib.add(x, 1, 2)", [[3.0, 3.0], [3.0, 3.0]]),
    ("x.sub(1, 2)", [[-1.0, -1.0], [-1.0, -1.0]]),
    ("lib.subtract(x, 2, 0.5)", [[0.0, 0.0], [0.0, 0.0]]),
]


@pytest.mark.parametrize("call, expected", CASES)
def test_deprecated_overloads_compute_pytorchs_values(call, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert eval(call, {}, _operands()).tolist() == expected


@pytest.mark.parametrize("call", ["x.addmm(2, m, m, alpha=3)", "lib.addmm(x, 2, m, m)", "lib.addmm(2, x, m, m, beta=2)",
                                  "x.addmm(m, m, 2)", "lib.addmm(2, x, m, 'a')", "x.addr(2, 3, v, 'a')"])
def test_calls_no_overload_takes_are_refused(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError):
            eval(call, {}, _operands())


def test_gradients_flow_through_the_deprecated_form():
    x = nbgrad.ones(2, 2, requires_grad=True)
    m = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = nbgrad.addmm(2, x, 3, m, m)
    assert y.grad_fn.name() == "AddmmBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert m.grad.tolist() == [[21.0, 33.0], [27.0, 39.0]]


@pytest.mark.skipif(AGAINST_TORCH, reason="the warning is once per process: a fresh nbgrad process")
@pytest.mark.parametrize("call, message", [
    ("x.addmm(2, 3, x, x)", "This overload of addmm is deprecated:\n\taddmm(Number beta, Number alpha, Tensor mat1, "
     "Tensor mat2)\nConsider using one of the following signatures instead:\n\taddmm(Tensor mat1, Tensor mat2, *, "
     "Number beta = 1, Number alpha = 1)"),
    ("nbgrad.addmv(2, x[0], x, x[0])", "This overload of addmv is deprecated:\n\taddmv(Number beta, Tensor input, "
     "Tensor mat, Tensor vec, *, Tensor out = None)\nConsider using one of the following signatures instead:\n\taddmv("
     "Tensor input, Tensor mat, Tensor vec, *, Number beta = 1, Number alpha = 1, Tensor out = None)"),
    ("nbgrad.baddbmm(2, x[None], x[None], x[None])", "This overload of baddbmm is deprecated:\n\tbaddbmm(Number beta, "
     "Tensor input, Tensor batch1, Tensor batch2, *, Tensor out = None)\nConsider using one of the following "
     "signatures instead:\n\tbaddbmm(Tensor input, Tensor batch1, Tensor batch2, *, Number beta = 1, Number alpha = 1, "
     "Tensor out = None)\n\tbaddbmm(Tensor input, Tensor batch1, Tensor batch2, torch.dtype out_dtype, *, Number beta "
     "= 1, Number alpha = 1, Tensor out = None)"),
])
def test_the_warning_is_pytorchs_once_per_process(call, message):
    code = ("import warnings, nbgrad\nx = nbgrad.ones(2, 2)\nwith warnings.catch_warnings(record=True) as w:\n"
            f"    warnings.simplefilter('always')\n    {call}; {call}; x.add(1, 2)\n"
            "print(repr([str(m.message) for m in w]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert eval(out.stdout) == [message], out.stderr
