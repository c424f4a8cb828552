"""Your own Numba kernels with gradients: learn the diffusion coefficients of a heat equation.

A rod's temperature u evolves by explicit steps  u <- u + dt * k * laplace(u), where
`laplace` is a user-written @numba.njit stencil (forward and backward, on NumPy arrays)
made an op by `nbgrad.custom_op`, and k (a conductivity per cell, kept in (0, kmax) by a
soft clip written as a plain Python scalar function with `nbgrad.elementwise`) is
learned with Adam so that the simulation reproduces observed final temperatures.  The
loss is a pseudo-Huber loss, another scalar function whose gradient nbgrad derives.
The observed data comes from NumPy through DLPack, without a copy.

    python -m nbgrad.examples.custom_kernel
"""
import math

import numba
import numpy as np

import nbgrad
from nbgrad import optim


# -- a physics stencil: the user's kernels, on NumPy arrays -----------------------------
@numba.njit(cache=True)
def laplace_forward(u, out):
    n = u.shape[0]
    for i in range(1, n - 1):
        out[i] = u[i - 1] - 2.0 * u[i] + u[i + 1]


@numba.njit(cache=True)
def laplace_backward(grad, u, out, grad_u):
    # the adjoint of the stencil (grad_u arrives zero-filled)
    n = u.shape[0]
    for i in range(1, n - 1):
        grad_u[i - 1] += grad[i]
        grad_u[i] -= 2.0 * grad[i]
        grad_u[i + 1] += grad[i]


laplace = nbgrad.custom_op("laplace", laplace_forward, laplace_backward)


# -- scalar functions as ops: the gradient is derived -----------------------------------
@nbgrad.elementwise
def softclip(x, kmax):
    """A smooth map of the real line into (0, kmax)."""
    return 0.5 * kmax * (1.0 + math.tanh(x))


@nbgrad.elementwise
def pseudo_huber(r, delta):
    return delta * delta * (math.sqrt(1.0 + (r / delta) ** 2) - 1.0)


def simulate(u0, k, steps, dt=0.2):
    u = u0
    for _ in range(steps):
        u = u + dt * k * laplace(u)
    return u


def main(seed=0, iterations=150, n=24, steps=20, log=print):
    rng = np.random.default_rng(seed)
    x = np.linspace(0.0, 1.0, n)
    u0 = nbgrad.tensor(np.exp(-((x - 0.3) / 0.08) ** 2) + 0.5 * np.exp(-((x - 0.7) / 0.1) ** 2))
    true_k = nbgrad.tensor(0.2 + 0.6 * x ** 2)                        # what we want to recover
    with nbgrad.no_grad():
        observed_np = np.from_dlpack(simulate(u0, true_k, steps))      # NumPy reads nbgrad's memory
    observed_np = observed_np + rng.normal(0.0, 1e-4, observed_np.shape)
    observed = nbgrad.from_dlpack(observed_np)                         # and nbgrad NumPy's

    raw = nbgrad.zeros(n, requires_grad=True)                          # k = softclip(raw) = 0.5 at first
    opt = optim.Adam([raw], lr=0.05)
    losses = []
    for it in range(iterations):
        k = softclip(raw, 1.0)
        loss = pseudo_huber(simulate(u0, k, steps) - observed, 0.01).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if it % 30 == 0 or it == iterations - 1:
            log(f"iteration {it:3d}  loss {losses[-1]:.3e}  node {loss.grad_fn.next_functions[0][0].name()}")
    with nbgrad.no_grad():
        k = softclip(raw, 1.0)
        fit = simulate(u0, k, steps)
    err = float(np.abs(fit.numpy() - observed_np).max())
    log(f"max misfit of the final temperatures: {err:.2e}")
    return {"losses": losses, "k": k.numpy().copy(), "true_k": true_k.numpy().copy(), "misfit": err}


if __name__ == "__main__":
    main()
