"""Train a LeNet-style convolutional network on scikit-learn's bundled 8x8 digits (no download).

    python -m nbgrad.examples.lenet [--epochs 20] [--out DIR] [--device cuda] [--limit N]
                                    [--channels 16,32] [--hidden 64]

Each 8x8 image is zero-padded by 2 pixels to the net's 12x12 input.  Two
3x3 convolutions (1 -> 16 -> 32 channels, padding 1), each with batch
normalisation, ReLU and 2x2 max pooling, then 288-64-10 fully connected
layers; Adam (lr 5e-3, cosine schedule), cross-entropy, batches of 64 (the
first convolution is benchmarks/compare.py's case C1).  The training
loop, progress bar, model file (DIR/digits_lenet.safetensors) and loss/accuracy
curves (DIR/digits_lenet_curves.png) are the digits example's.  Needs the
`examples` extra: pip install "nbgrad[examples]".
"""
import argparse

from nbgrad import nn
from nbgrad.examples import digits

PAD = 2     # 8x8 digits -> the 12x12 input


def make_model(channels=(16, 32), hidden=64):
    c1, c2 = channels
    return nn.Sequential(
        nn.Conv2d(1, c1, 3, padding=1), nn.BatchNorm2d(c1), nn.ReLU(), nn.MaxPool2d(2),      # c1 x 6 x 6
        nn.Conv2d(c1, c2, 3, padding=1), nn.BatchNorm2d(c2), nn.ReLU(), nn.MaxPool2d(2),     # c2 x 3 x 3
        nn.Flatten(),
        nn.Linear(c2 * 3 * 3, hidden), nn.ReLU(),
        nn.Linear(hidden, 10),
    )


def images(rows):
    """(n, 64) pixel rows -> (n, 1, 12, 12) images, zero-padded."""
    return nn.functional.pad(rows.reshape(-1, 1, 8, 8), (PAD, PAD, PAD, PAD))


def main(argv=None):
    # the net's sizes (a smaller net makes the simulator's --device cuda smoke run quick);
    # every other option is the digits example's
    own = argparse.ArgumentParser(add_help=False)
    own.add_argument("--channels", default="16,32", help="the two convolutions' output channels")
    own.add_argument("--hidden", type=int, default=64, help="the hidden fully connected layer's width")
    sizes, rest = own.parse_known_args(argv)
    channels = tuple(int(c) for c in sizes.channels.split(","))
    return digits.main(rest, model_fn=lambda: make_model(channels, sizes.hidden), images=images, name="digits_lenet",
                       title="nbgrad LeNet on scikit-learn digits", doc=__doc__, epochs=20, batch_size=64, lr=5e-3)


if __name__ == "__main__":
    main()
