"""Issue 13's compiled workloads written for jax.jit (optional: only where jax is installed).

Each `make(name)` returns a zero-argument callable running one unit, blocked until its
results are ready: W1 ((x*w+1).tanh()*x).sum() and its gradients, 4M float32; W4 one SGD
step of the MLP 784-256-256-10 with cross-entropy, batch 128; W5 the 1000 small mul/add ops
on 16 elements and their gradients.  Inputs are those of benchmarks/speed_workloads.py.
"""
import numpy as np

from benchmarks import speed_workloads as S


def available():
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def make(name):
    import jax
    import jax.numpy as jnp
    rng = np.random.default_rng(0)
    if name == "W1":
        x = jnp.asarray(rng.standard_normal(S.N_ELEMENTWISE, dtype=np.float32))
        w = jnp.asarray(rng.standard_normal(S.N_ELEMENTWISE, dtype=np.float32))
        f = jax.jit(jax.value_and_grad(lambda x, w: (jnp.tanh(x * w + 1) * x).sum(), argnums=(0, 1)))

        def run():
            jax.block_until_ready(f(x, w))
        return run
    if name == "W5":
        x = jnp.asarray(rng.uniform(-1, 1, S.SMALL_NUMEL).astype(np.float32))
        w = jnp.asarray(rng.uniform(0.2, 0.8, S.SMALL_NUMEL).astype(np.float32))

        def program(x, w):
            y = x
            for _ in range(S.SMALL_OPS // 2):
                y = y * w
                y = y + x
            return y.sum()
        f = jax.jit(jax.grad(program, argnums=(0, 1)))

        def run():
            jax.block_until_ready(f(x, w))
        return run
    if name == "W4":
        sizes = S.MLP_SIZES
        params = []
        for i, o in zip(sizes[:-1], sizes[1:]):
            bound = 1 / np.sqrt(i)
            params.append((jnp.asarray(rng.uniform(-bound, bound, (i, o)).astype(np.float32)),
                           jnp.asarray(rng.uniform(-bound, bound, o).astype(np.float32))))
        x = jnp.asarray(np.random.default_rng(0).standard_normal((S.MLP_BATCH, sizes[0]), dtype=np.float32))
        y = jnp.asarray(np.random.default_rng(0).integers(0, sizes[-1], S.MLP_BATCH))

        def loss(params, x, y):
            h = x
            for k, (W, b) in enumerate(params):
                h = h @ W + b
                if k < len(params) - 1:
                    h = jax.nn.relu(h)
            logp = jax.nn.log_softmax(h)
            return -jnp.take_along_axis(logp, y[:, None], 1).mean()

        @jax.jit
        def step(params, x, y):
            g = jax.grad(loss)(params, x, y)
            return jax.tree_util.tree_map(lambda p, d: p - 0.01 * d, params, g)
        state = [params]

        def run():
            state[0] = jax.block_until_ready(step(state[0], x, y))
        return run
    raise KeyError(name)
