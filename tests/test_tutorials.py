"""Small programs in the spirit of the PyTorch tutorials, Dive into Deep Learning and course
notes, run unchanged with `import nbgrad as torch` (and torch.nn, torch.optim,
torch.utils.data, torch.distributed in place of PyTorch's).  Each program is PyTorch code
as a user writes it; each was run against PyTorch 2.13 while it was written
(NBGRAD_TESTS_AGAINST_TORCH=1 runs this file on PyTorch), and the assertions are about
what the program computes: losses that fall, accuracies, shapes, gradients against
finite differences.  The data are made here (no downloads)."""
import math

import numpy as np
import pytest

import nbgrad as torch

nn = torch.nn
F = torch.nn.functional
DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset


def _blobs(n=256, classes=3, dim=2, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 4, (classes, dim))
    y = rng.integers(0, classes, n)
    x = centers[y] + rng.normal(0, 1, (n, dim))
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


def test_autograd_tutorial():
    # "A Gentle Introduction to torch.autograd": Q = 3a^3 - b^2, external gradient
    a = torch.tensor([2., 3.], requires_grad=True)
    b = torch.tensor([6., 4.], requires_grad=True)
    Q = 3 * a ** 3 - b ** 2
    external_grad = torch.tensor([1., 1.])
    Q.backward(gradient=external_grad)
    assert (9 * a ** 2 == a.grad).tolist() == [True, True]
    assert (-2 * b == b.grad).tolist() == [True, True]
    # the DAG, frozen parameters and no_grad
    x = torch.rand(5, 5)
    y = torch.rand(5, 5)
    z = torch.rand((5, 5), requires_grad=True)
    assert (x + y).requires_grad is False and (x + z).requires_grad is True
    with torch.no_grad():
        assert (z * 2).requires_grad is False
    assert type(Q.grad_fn).__name__ == "SubBackward0"


def test_quickstart_classifier_train_and_test_loops():
    # the quickstart's NeuralNetwork, train() and test() loops, on made-up 8x8 "images"
    torch.manual_seed(0)
    X, y = _blobs(512, classes=4, dim=64, seed=1)
    X = X.reshape(-1, 1, 8, 8)
    train = DataLoader(TensorDataset(X[:384], y[:384]), batch_size=32, shuffle=True)
    test = DataLoader(TensorDataset(X[384:], y[384:]), batch_size=64)

    class NeuralNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(8 * 8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))

        def forward(self, x):
            x = self.flatten(x)
            logits = self.linear_relu_stack(x)
            return logits

    model = NeuralNetwork()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)

    def train_loop(dataloader, model, loss_fn, optimizer):
        model.train()
        for batch, (X, y) in enumerate(dataloader):
            pred = model(X)
            loss = loss_fn(pred, y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        return loss.item()

    def test_loop(dataloader, model, loss_fn):
        model.eval()
        size = len(dataloader.dataset)
        num_batches = len(dataloader)
        test_loss, correct = 0, 0
        with torch.no_grad():
            for X, y in dataloader:
                pred = model(X)
                test_loss += loss_fn(pred, y).item()
                correct += (pred.argmax(1) == y).type(torch.float).sum().item()
        return test_loss / num_batches, correct / size

    first, _ = test_loop(test, model, loss_fn)
    for t in range(5):
        train_loop(train, model, loss_fn, optimizer)
    last, accuracy = test_loop(test, model, loss_fn)
    assert last < first and accuracy > 0.9
    assert isinstance(model.state_dict()["linear_relu_stack.0.weight"], torch.Tensor)


def test_lenet_with_conv_pool_batchnorm_and_a_scheduler():
    torch.manual_seed(0)
    X, y = _blobs(256, classes=3, dim=144, seed=2)
    X = X.reshape(-1, 1, 12, 12)

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, kernel_size=3, padding=1)
            self.bn1 = nn.BatchNorm2d(6)
            self.conv2 = nn.Conv2d(6, 16, 3)
            self.fc1 = nn.Linear(16 * 2 * 2, 32)
            self.fc2 = nn.Linear(32, 3)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = torch.flatten(x, 1)
            return self.fc2(F.relu(self.fc1(x)))

    net = LeNet()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    criterion = nn.CrossEntropyLoss()
    losses = []
    for epoch in range(4):
        for xb, yb in DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True):
            optimizer.zero_grad()
            loss = criterion(net(xb), yb)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
    assert losses[-1] < losses[0]
    assert math.isclose(optimizer.param_groups[0]["lr"], 1e-2 * 0.25)
    net.eval()
    with torch.no_grad():
        accuracy = (net(X).argmax(dim=1) == y).float().mean().item()
    assert accuracy > 0.9
    assert type(net.conv1(X[:2]).grad_fn).__name__ == "ConvolutionBackward0"


def test_d2l_linear_regression_from_scratch():
    # Dive into Deep Learning 3.2: synthetic data, data_iter, sgd under no_grad
    def synthetic_data(w, b, num_examples):
        X = torch.normal(0, 1, (num_examples, len(w)))
        y = torch.matmul(X, w) + b
        y += torch.normal(0, 0.01, y.shape)
        return X, y.reshape((-1, 1))

    torch.manual_seed(0)
    true_w = torch.tensor([2, -3.4])
    true_b = 4.2
    features, labels = synthetic_data(true_w, true_b, 1000)

    def data_iter(batch_size, features, labels):
        num_examples = len(features)
        indices = list(range(num_examples))
        np.random.default_rng(0).shuffle(indices)
        for i in range(0, num_examples, batch_size):
            batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
            yield features[batch_indices], labels[batch_indices]

    w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)

    def sgd(params, lr, batch_size):
        with torch.no_grad():
            for param in params:
                param -= lr * param.grad / batch_size
                param.grad.zero_()

    for epoch in range(3):
        for X, y in data_iter(10, features, labels):
            l = ((X @ w + b - y) ** 2 / 2).sum()
            l.backward()
            sgd([w, b], 0.03, 10)
    assert torch.allclose(w.reshape(true_w.shape), true_w, atol=0.01)
    assert abs(b.item() - true_b) < 0.01


def test_char_rnn_and_lstm_shapes_and_training():
    # a character-level model as in the RNN tutorials: Embedding -> LSTM -> Linear
    torch.manual_seed(0)
    text = "hello world " * 20
    vocab = sorted(set(text))
    idx = torch.tensor([vocab.index(c) for c in text])

    class CharModel(nn.Module):
        def __init__(self, vocab_size, hidden=32):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, 16)
            self.lstm = nn.LSTM(16, hidden, batch_first=True)
            self.head = nn.Linear(hidden, vocab_size)

        def forward(self, x, state=None):
            out, state = self.lstm(self.embed(x), state)
            return self.head(out), state

    model = CharModel(len(vocab))
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    seq = 12
    inputs = torch.stack([idx[i:i + seq] for i in range(0, len(idx) - seq - 1, seq)])
    targets = torch.stack([idx[i + 1:i + seq + 1] for i in range(0, len(idx) - seq - 1, seq)])
    first = None
    for step in range(30):
        logits, (h, c) = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, len(vocab)), targets.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        first = loss.item() if first is None else first
    assert loss.item() < 0.5 * first
    assert logits.shape == (inputs.shape[0], seq, len(vocab)) and h.shape == (1, inputs.shape[0], 32)
    gru = nn.GRU(4, 8, num_layers=2, bidirectional=True)
    out, h = gru(torch.randn(5, 3, 4))
    assert out.shape == (5, 3, 16) and h.shape == (4, 3, 8)


def test_attention_layer_and_numerical_gradient():
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True).double()
    x = torch.randn(2, 5, 8, dtype=torch.float64, requires_grad=True)
    out, weights = mha(x, x, x)
    assert out.shape == (2, 5, 8) and weights.shape == (2, 5, 5)
    assert torch.allclose(weights.sum(-1), torch.ones(2, 5, dtype=torch.float64))
    out.sum().backward()
    # central differences on one input element, in float64
    e = 1e-6
    with torch.no_grad():
        xp, xm = x.clone(), x.clone()
        xp[0, 1, 2] += e
        xm[0, 1, 2] -= e
        numeric = (mha(xp, xp, xp)[0].sum() - mha(xm, xm, xm)[0].sum()).item() / (2 * e)
    assert math.isclose(x.grad[0, 1, 2].item(), numeric, rel_tol=1e-6, abs_tol=1e-9)


def test_tensor_basics_tutorial():
    # "Tensors" tutorial: creation, attributes, operations, numpy bridge, in-place ops
    data = [[1, 2], [3, 4]]
    x_data = torch.tensor(data)
    x_np = torch.from_numpy(np.array(data))
    x_ones = torch.ones_like(x_data)
    x_rand = torch.rand_like(x_data, dtype=torch.float)
    assert x_ones.dtype == torch.int64 and x_rand.dtype == torch.float32 and x_np.shape == (2, 2)
    tensor = torch.ones(4, 4)
    tensor[:, 1] = 0
    t1 = torch.cat([tensor, tensor, tensor], dim=1)
    assert t1.shape == (4, 12)
    y1 = tensor @ tensor.T
    y2 = tensor.matmul(tensor.T)
    y3 = torch.rand_like(y1)
    torch.matmul(tensor, tensor.T, out=y3)
    assert torch.equal(y1, y2) and torch.equal(y1, y3)
    z3 = torch.rand_like(tensor)
    torch.mul(tensor, tensor, out=z3)
    assert torch.equal(z3, tensor * tensor)
    agg = tensor.sum()
    assert agg.item() == 12.0
    tensor.add_(5)
    n = tensor.numpy()
    tensor.add_(1)
    assert n[0, 0] == 7.0                       # the numpy array shares the tensor's memory
    t = torch.arange(12.).reshape(3, 4)
    assert t.cumsum(dim=1)[:, -1].tolist() == t.sum(dim=1).tolist()
    assert torch.flip(t, dims=[0])[0].tolist() == t[2].tolist()
    assert torch.einsum("ij,jk->ik", t, t.T).shape == (3, 3)
    assert torch.linalg.norm(torch.tensor([3.0, 4.0])).item() == 5.0


def test_custom_autograd_function_tutorial():
    # "Learning PyTorch with Examples": LegendrePolynomial3 as a custom Function
    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    dtype = torch.float64
    x = torch.linspace(-math.pi, math.pi, 200, dtype=dtype)
    y = torch.sin(x)
    a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
    c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
    learning_rate = 5e-6
    for t in range(300):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if t == 0:
            first = loss.item()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None
    assert loss.item() < first
    assert torch.autograd.gradcheck(LegendrePolynomial3.apply,
                                    (torch.randn(4, dtype=dtype, requires_grad=True),))


@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_optimizers_fit_a_line(optimizer):
    torch.manual_seed(0)
    X = torch.linspace(-1, 1, 64).unsqueeze(1)
    Y = 3 * X - 1
    model = nn.Linear(1, 1)
    opt = getattr(torch.optim, optimizer)(model.parameters(), lr=0.5 if optimizer == "Adagrad" else 0.1)
    scheduler = torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.99 ** epoch)
    for _ in range(300):
        opt.zero_grad()
        loss = F.mse_loss(model(X), Y)
        loss.backward()
        opt.step()
        scheduler.step()
    assert loss.item() < 1e-2
