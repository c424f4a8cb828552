"""bfloat16 on both devices (CUDA under the simulator): stored as 16-bit words, computed in
float32 and rounded once per op, as PyTorch's CPU does; the values below were recorded from
PyTorch 2.13's CPU.  Shapes stay tiny."""
import nbgrad

BF = nbgrad.bfloat16
VALUES = [0.0, -0.0, 1.0, -2.5, 1.00390625, 1.01171875, 3.14159265, 1e-40, 3.3961775292304e+38, 0.1, 256.5, 257.5]
WORDS = [0, -32768, 16256, -16352, 16256, 16258, 16457, 1, 32640, 15821, 17280, 17281]


def words(t):
    return t.detach().cpu().contiguous().view(nbgrad.int16).reshape(-1).tolist()


def test_creation_conversion_and_copies(device):
    x = nbgrad.tensor(VALUES, device=device).to(BF)
    assert x.dtype is BF and x.device.type == device and words(x) == WORDS
    assert words(nbgrad.tensor(VALUES, dtype=BF, device=device)) == WORDS
    back = x.to("cpu").to(device)                       # copies keep every bit
    assert back.device.type == device and words(back) == WORDS
    assert x.float().cpu().tolist()[:4] == [0.0, -0.0, 1.0, -2.5]
    assert nbgrad.zeros(2, dtype=BF, device=device).tolist() == [0.0, 0.0]
    assert nbgrad.full((3,), 1.7, dtype=BF, device=device).tolist() == [1.703125] * 3
    assert nbgrad.arange(4, dtype=BF, device=device).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert nbgrad.tensor([float("nan")], device=device).to(BF).isnan().item()


def test_elementwise_rounds_once(device):
    a = nbgrad.tensor([1.5, -2.25, 3.140625, 0.1], device=device).to(BF)
    b = nbgrad.tensor([0.5, 2.0, 1.00390625, -7.0], device=device).to(BF)
    assert words(a * b + a) == [16400, -16168, 16585, -16615]
    assert words(a * 1.0039) == [16321, -16367, 16458, 15822]
    assert words((a / b).exp()) == [16801, 16038, 16825, 16252]
    assert (a + b).dtype is BF and (a + b.float()).dtype is nbgrad.float32


def test_matmul_and_sum_accumulate_in_float32(device):
    x = nbgrad.tensor([[256.0] + [1.0] * 9], device=device).to(BF)
    assert x.sum().item() == 264.0                               # 265 (float32) rounded once, to even
    m = x @ nbgrad.ones(10, 2, dtype=BF, device=device)
    assert m.dtype is BF and m.tolist() == [[264.0, 264.0]]
    a = nbgrad.tensor([[0.3, -1.7, 2.2], [1.1, 0.01, -0.5]], device=device).to(BF)
    b = nbgrad.tensor([[1.3, 0.2], [-0.7, 2.9], [0.45, -1.05]], device=device).to(BF)
    assert words(a @ b) == [16421, -16154, 16281, 16198]
