"""Train an MLP on scikit-learn's bundled 8x8 handwritten digits (1797 images, no download).

    python -m nbgrad.examples.digits [--epochs 20] [--out DIR] [--device cuda]
    mpirun -n 2 python -m nbgrad.examples.digits --distributed


Train/test split 80/20, a 64-128-64-10 MLP with ReLU and dropout, Adam,
cross-entropy; a tqdm progress bar shows loss and accuracy per epoch.  At the
end it prints the test accuracy, saves the model with nbgrad.save
(DIR/digits_mlp.safetensors) and writes the loss/accuracy curves as
DIR/digits_curves.png (matplotlib, Agg backend).  Needs the `examples`
extra: pip install "nbgrad[examples]".

With --distributed, each process an MPI launcher starts (mpirun/mpiexec -n N) trains
on its shard of the training set (DistributedSampler) a DistributedDataParallel copy of
the model, whose gradients are averaged across processes during backward; rank 0 shows
the progress bar and writes the model and the curves.  Started with --distributed but
without a launcher, it runs as a world of one.  Needs the `distributed` extra.
"""
import argparse
import os
import time

import numpy as np

import nbgrad
from nbgrad import nn
from nbgrad.utils.data import DataLoader, TensorDataset


def load_data(seed):
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError as e:
        raise SystemExit('this example needs the examples extra: pip install "nbgrad[examples]"') from e
    digits = load_digits()
    X = (digits.data / 16.0).astype(np.float32)   # pixel intensities 0..16 -> 0..1
    y = digits.target.astype(np.int64)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)
    return (nbgrad.tensor(X_train), nbgrad.tensor(y_train), nbgrad.tensor(X_test), nbgrad.tensor(y_test))


def make_model():
    return nn.Sequential(
        nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.1),
        nn.Linear(128, 64), nn.ReLU(),
        nn.Linear(64, 10),
    )


def evaluate(model, X, y, loss_fn):
    model.eval()
    with nbgrad.no_grad():
        logits = model(X)
        loss = loss_fn(logits, y).item()
        acc = (logits.argmax(1) == y).float().mean().item()
    model.train()
    return loss, acc


def plot(history, path, title="nbgrad MLP on scikit-learn digits"):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    epochs = range(1, len(history["train_loss"]) + 1)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(epochs, history["train_loss"], label="train")
    ax1.plot(epochs, history["test_loss"], label="test")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("cross-entropy loss")
    ax1.set_yscale("log")
    ax1.legend()
    ax2.plot(epochs, history["train_acc"], label="train")
    ax2.plot(epochs, history["test_acc"], label="test")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("accuracy")
    ax2.set_ylim(0.5, 1.0)
    ax2.legend()
    for ax in (ax1, ax2):
        ax.xaxis.get_major_locator().set_params(integer=True)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None, model_fn=make_model, images=None, name="digits_mlp", title="nbgrad MLP on scikit-learn digits",
         doc=__doc__, epochs=20, batch_size=32, lr=2e-3):
    """Train and report; another example (lenet.py) passes its model, a reshaping of the
    (n, 64) pixel rows into its input (`images`), its file names and defaults."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--batch-size", type=int, default=batch_size)
    parser.add_argument("--lr", type=float, default=lr)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=".", help="directory for the model and the plot (default: here)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (needs the cuda extra and a GPU)")
    parser.add_argument("--limit", type=int, default=None,
                        help="use only the first N training and N test images (a quick smoke run)")
    parser.add_argument("--distributed", action="store_true",
                        help="data-parallel training across the processes of an MPI launcher (mpirun -n N)")
    parser.add_argument("--compile", action="store_true",
                        help="run the training step (forward, backward, optimizer) through nbgrad.compile")
    args = parser.parse_args(argv)
    if args.compile and args.distributed:
        parser.error("--compile and --distributed do not go together yet (DDP's hooks run Python per step)")
    from tqdm import tqdm

    start = time.perf_counter()
    rank, world = 0, 1
    if args.distributed:
        from nbgrad import distributed as dist
        try:
            dist.init_process_group("mpi")
        except ImportError as e:
            raise SystemExit(str(e)) from e
        rank, world = dist.get_rank(), dist.get_world_size()
    say = print if rank == 0 else (lambda *a, **k: None)
    nbgrad.manual_seed(args.seed)
    X_train, y_train, X_test, y_test = load_data(args.seed)
    if args.limit is not None:
        X_train, y_train = X_train[:args.limit], y_train[:args.limit]
        X_test, y_test = X_test[:args.limit], y_test[:args.limit]
    if images is not None:
        X_train, X_test = images(X_train), images(X_test)
    X_train, y_train, X_test, y_test = (t.to(args.device) for t in (X_train, y_train, X_test, y_test))
    say(f"digits: {len(X_train)} training and {len(X_test)} test images of 8x8 pixels, 10 classes")
    train_set = TensorDataset(X_train, y_train)
    if args.distributed:
        from nbgrad.nn.parallel import DistributedDataParallel
        from nbgrad.utils.data import DistributedSampler
        sampler = DistributedSampler(train_set, seed=args.seed)
        loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)
        say(f"distributed: {world} processes, {len(sampler)} training images each")
        model = DistributedDataParallel(model_fn().to(args.device))   # rank 0's initial weights
    else:
        sampler = None
        loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
        model = model_fn().to(args.device)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nbgrad.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = nbgrad.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    history = {"train_loss": [], "train_acc": [], "test_loss": [], "test_acc": []}

    def train_step(X, y):
        logits = model(X)
        loss = loss_fn(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss, logits
    if args.compile:
        train_step = nbgrad.compile(train_step)

    bar = tqdm(range(args.epochs), desc="training", unit="epoch", disable=args.no_progress or rank != 0)
    for epoch in bar:
        if sampler is not None:
            sampler.set_epoch(epoch)
        total, correct, seen = 0.0, 0, 0
        for X, y in loader:
            loss, logits = train_step(X, y)
            total += loss.item() * len(y)
            correct += (logits.argmax(1) == y).sum().item()
            seen += len(y)
        scheduler.step()
        if args.distributed:     # the epoch's training figures over every rank's shard
            sums = nbgrad.tensor([total, correct, seen], dtype=nbgrad.float64)
            dist.all_reduce(sums)
            total, correct, seen = sums[0].item(), int(sums[1].item()), int(sums[2].item())
        test_loss, test_acc = evaluate(model, X_test, y_test, loss_fn)
        history["train_loss"].append(total / seen)
        history["train_acc"].append(correct / seen)
        history["test_loss"].append(test_loss)
        history["test_acc"].append(test_acc)
        bar.set_postfix(loss=f"{total / seen:.4f}", acc=f"{correct / seen:.3f}", test_acc=f"{test_acc:.3f}")
    bar.close()

    model_path = os.path.join(args.out, f"{name}.safetensors")
    plot_path = os.path.join(args.out, "digits_curves.png" if name == "digits_mlp" else f"{name}_curves.png")
    if rank == 0:
        os.makedirs(args.out, exist_ok=True)
        # the wrapped model's own state_dict: the same file as a single-process run writes
        nbgrad.save((model.module if args.distributed else model).state_dict(), model_path)
        plot(history, plot_path, title)
    test_loss, test_acc = evaluate(model, X_test, y_test, loss_fn)
    say(f"model saved to {model_path}; curves written to {plot_path}")
    say(f"trained in {time.perf_counter() - start:.1f} s")
    say(f"test accuracy: {test_acc:.2%} ({round(test_acc * len(y_test))}/{len(y_test)}), test loss {test_loss:.4f}")
    if args.distributed:
        dist.barrier()
        dist.destroy_process_group()
    return {"test_accuracy": test_acc, "history": history, "model_path": model_path, "plot_path": plot_path,
            "rank": rank, "world_size": world}


if __name__ == "__main__":
    main()
