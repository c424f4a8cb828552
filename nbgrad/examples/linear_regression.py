"""Linear regression two ways, as in Dive into Deep Learning (3.2 and 3.3):
from scratch (hand-written data iterator, model, loss and minibatch SGD), then
with nn.Linear, nn.MSELoss, optim.SGD and a DataLoader.

    python -m nbgrad.examples.linear_regression
"""
import random

import nbgrad
from nbgrad import nn
from nbgrad.utils import data


def synthetic_data(w, b, num_examples):
    """y = Xw + b + noise."""
    X = nbgrad.normal(0, 1, (num_examples, len(w)))
    y = nbgrad.matmul(X, w) + b
    y += nbgrad.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)  # the examples are read in random order
    for i in range(0, num_examples, batch_size):
        batch_indices = nbgrad.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


def linreg(X, w, b):
    return nbgrad.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    """Minibatch stochastic gradient descent."""
    with nbgrad.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def from_scratch(features, labels, true_w, true_b, lr=0.03, num_epochs=3, batch_size=10, log=print):
    w = nbgrad.normal(0, 0.01, size=(2, 1)).requires_grad_()
    b = nbgrad.zeros(1, requires_grad=True)
    net, loss = linreg, squared_loss
    losses = []
    for epoch in range(num_epochs):
        for X, y in data_iter(batch_size, features, labels):
            l = loss(net(X, w, b), y)  # minibatch loss in X and y
            l.sum().backward()
            sgd([w, b], lr, batch_size)
        with nbgrad.no_grad():
            train_l = loss(net(features, w, b), labels)
            losses.append(float(train_l.mean()))
            log(f"epoch {epoch + 1}, loss {losses[-1]:f}")
    log(f"error in estimating w: {(true_w - w.reshape(true_w.shape)).tolist()}")
    log(f"error in estimating b: {true_b - b.item()}")
    return w.detach().reshape(-1), b.item(), losses


def concise(features, labels, true_w, true_b, lr=0.03, num_epochs=3, batch_size=10, log=print):
    data_iter = data.DataLoader(data.TensorDataset(features, labels), batch_size, shuffle=True)
    net = nn.Sequential(nn.Linear(2, 1))
    net[0].weight.data.normal_(0, 0.01)
    net[0].bias.data.fill_(0)
    loss = nn.MSELoss()
    trainer = nbgrad.optim.SGD(net.parameters(), lr=lr)
    losses = []
    for epoch in range(num_epochs):
        for X, y in data_iter:
            l = loss(net(X), y)
            trainer.zero_grad()
            l.backward()
            trainer.step()
        with nbgrad.no_grad():
            losses.append(float(loss(net(features), labels)))
        log(f"epoch {epoch + 1}, loss {losses[-1]:f}")
    w, b = net[0].weight.data, net[0].bias.data
    log(f"error in estimating w: {(true_w - w.reshape(true_w.shape)).tolist()}")
    log(f"error in estimating b: {(true_b - b).item()}")
    return w.reshape(-1), b.item(), losses


def main(seed=0, log=print):
    random.seed(seed)
    nbgrad.manual_seed(seed)
    true_w = nbgrad.tensor([2, -3.4])
    true_b = 4.2
    features, labels = synthetic_data(true_w, true_b, 1000)
    log(f"features: {features[0].tolist()}, label: {labels[0].item()}")
    log("-- from scratch: data_iter, linreg, squared_loss, sgd --")
    scratch = from_scratch(features, labels, true_w, true_b, log=log)
    log(f"learned w = {scratch[0].tolist()}, b = {scratch[1]:.4f}  (true w = {true_w.tolist()}, b = {true_b})")
    log("-- concise: nn.Linear, nn.MSELoss, optim.SGD, DataLoader --")
    short = concise(features, labels, true_w, true_b, log=log)
    log(f"learned w = {short[0].tolist()}, b = {short[1]:.4f}  (true w = {true_w.tolist()}, b = {true_b})")
    return {"true_w": true_w.tolist(), "true_b": true_b, "scratch": scratch, "concise": short}


if __name__ == "__main__":
    main()
