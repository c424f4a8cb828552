"""nbgrad.random (torch.random): the seeding functions, the generator state, fork_rng."""
import pytest

import nbgrad


def test_names_are_the_top_level_functions():
    r = nbgrad.random
    # (the same generator as the top-level functions': seeding one repeats the other's draws)
    r.manual_seed(21)
    a = nbgrad.rand(3)
    nbgrad.manual_seed(21)
    assert nbgrad.rand(3).tolist() == a.tolist() and nbgrad.initial_seed() == r.initial_seed() == 21
    state = nbgrad.get_rng_state()
    b = nbgrad.rand(3)
    r.set_rng_state(state)
    assert nbgrad.rand(3).tolist() == b.tolist() and nbgrad.equal(r.get_rng_state(), nbgrad.get_rng_state())
    assert r.default_generator is nbgrad.default_generator
    for name in ("set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"):
        assert name in r.__all__


def test_manual_seed_returns_the_default_generator_and_repeats_draws():
    g = nbgrad.random.manual_seed(1234)
    assert g is nbgrad.random.default_generator
    assert nbgrad.random.initial_seed() == 1234
    a = nbgrad.rand(5)
    nbgrad.random.manual_seed(1234)
    b = nbgrad.rand(5)
    assert a.tolist() == b.tolist()


def test_seed_returns_the_new_initial_seed():
    s = nbgrad.random.seed()
    assert isinstance(s, int)
    assert nbgrad.random.initial_seed() == s
    a = nbgrad.rand(4)
    nbgrad.random.manual_seed(s)
    assert nbgrad.rand(4).tolist() == a.tolist()


def test_get_set_rng_state_repeats_draws():
    nbgrad.random.manual_seed(7)
    state = nbgrad.random.get_rng_state()
    assert state.dtype == nbgrad.uint8 and state.dim() == 1
    a = nbgrad.randn(6)
    nbgrad.random.set_rng_state(state)
    assert nbgrad.randn(6).tolist() == a.tolist()
    with pytest.raises(TypeError):
        nbgrad.random.set_rng_state(state.float())


def test_fork_rng_restores_the_state_on_exit():
    nbgrad.random.manual_seed(0)
    with nbgrad.random.fork_rng(devices=[]):
        inside = nbgrad.rand(3)
        nbgrad.rand(100)
    after = nbgrad.rand(3)
    assert after.tolist() == inside.tolist()


def test_fork_rng_restores_the_state_after_an_exception():
    nbgrad.random.manual_seed(0)
    expected = nbgrad.rand(3)
    nbgrad.random.manual_seed(0)
    with pytest.raises(KeyError):
        with nbgrad.random.fork_rng(devices=[]):
            nbgrad.rand(50)
            raise KeyError("boom")
    assert nbgrad.rand(3).tolist() == expected.tolist()


def test_fork_rng_restores_a_reseeded_state():
    nbgrad.random.manual_seed(3)
    expected = nbgrad.rand(2)
    nbgrad.random.manual_seed(3)
    with nbgrad.random.fork_rng(devices=[]):
        nbgrad.random.manual_seed(99)
        nbgrad.rand(2)
    assert nbgrad.rand(2).tolist() == expected.tolist()


def test_fork_rng_disabled_forks_nothing():
    nbgrad.random.manual_seed(0)
    first = nbgrad.rand(3)
    nbgrad.random.manual_seed(0)
    with nbgrad.random.fork_rng(devices=[], enabled=False):
        nbgrad.rand(3)
    assert nbgrad.rand(3).tolist() != first.tolist()


def test_fork_rng_meta_device_type_forks_nothing():
    nbgrad.random.manual_seed(0)
    first = nbgrad.rand(3)
    nbgrad.random.manual_seed(0)
    with nbgrad.random.fork_rng(device_type="meta"):
        nbgrad.rand(3)
    assert nbgrad.rand(3).tolist() != first.tolist()


def test_fork_rng_unknown_device_type():
    with pytest.raises(RuntimeError, match="device type at start of device string: foo"):
        with nbgrad.random.fork_rng(device_type="foo"):
            pass


def test_fork_rng_nested():
    nbgrad.random.manual_seed(11)
    expected = nbgrad.rand(4)
    nbgrad.random.manual_seed(11)
    with nbgrad.random.fork_rng(devices=[]):
        nbgrad.rand(4)
        with nbgrad.random.fork_rng(devices=[]):
            nbgrad.rand(9)
        nbgrad.rand(1)
    assert nbgrad.rand(4).tolist() == expected.tolist()
