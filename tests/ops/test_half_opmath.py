"""float16 activations computed as PyTorch's CPU kernels compute them: in float32 (their opmath
type) and rounded once to float16 -- forward and backward kernel alike -- instead of rounding
after every operation of the formula (nbgrad/ops/tabled.py, optable.Row.half_opmath); the
same for logaddexp, and ldexp's gradient rounded in PyTorch's order.  The expected bits are
PyTorch 2.13's (recorded; values and gradients as float16 bit patterns).
`python -m tests.differential.sweeps half` compares every op of its lists this way."""
import numpy as np
import pytest

import nbgrad

F = nbgrad.nn.functional
X = '2e91 4414 4359 be20 bb27 be54 3ed6 b162 407b c58b 44b3 b4a1 4015 b68e bc8d 3d8f 40f2 b8dc b755 401d c139 c48b 3cbd c006 c5c3 c0e2 bd9c c329 c47a 2f09 4162 b998 c076 3c9f 404e bb33 3e89 4242 b8f8 c0e2 3c2c 39f1 4298 c3b5 bff0 c107 c534 3612'
Y = '3e55 c06f 4428 40ee 3f87 3cd2 41bc c3fe 3f5e 3f3c c54e 3c2a ba03 40b0 bd45 ab01 3c1d c142 3f2f b50a 3de9 be43 4284 3f43 b846 3f95 438f 4560 c4b9 414c 3d95 b481 c20a 438b c392 3ece 43d0 c4cd bb43 c3db 39db 448b 4612 c556 bee6 4039 44bd 3d0e'
G = 'b9f8 34c1 a441 b285 b9e0 3632 34ed adf3 b318 bd24 b7c7 3cd3 b219 bdc2 3d56 383e 4037 2c00 b762 bdca 3d4c 4124 ba91 b92d 38c5 baa5 b454 b599 3225 3c61 25a6 3b5a b6b8 353f c047 bdcd 3a5e b8b9 38a4 3857 3d4a 3a7f 3c11 af26 b996 b9da b7cf bc85'
EXPECTED = {
    'softplus': ('39f7 4418 4366 3244 357c 31fb 3f80 38e7 40af 1c00 44b5 3879 4054 3813 3473 3e73 411b 36f5 37d7 405b 2c89 216b 3dce 3004 1a6f 2d57 330a 270a 21ca 39ff 4184 3675 2e89 3db7 4086 3575 3f40 4258 36e2 2d57 3d61 3c87 42ab 255f 301f 2cfc 1d9e 3b35',
        'b646 34ad a426 a8a3 b2d2 2c3a 342c a973 b269 9d22 b7b5 3822 b166 b898 352e 36cb 3fc6 25a4 b1b8 bd22 2dcc 26ee b907 ace3 17a8 ac42 aad6 a0dc 186c 389f 254a 34e2 a937 33fb bfaa b6b5 3954 b886 327d 298f 3bd2 3867 3bd8 98c0 ad67 ab03 9977 b95e'),
    'silu': ('2ae7 4403 432a b45b b427 b451 3dca acee 400d a589 44a8 afee 3f3a b13b b46b 3c73 4090 b2db b1ae 3f4b b1b7 aa1f 3b42 b398 a4a0 b241 b46e ae37 aa71 2b6c 410b b36e b2ed 3b07 3fb7 b42a 3d78 41ff b2f2 b241 3a2b 3807 425c ad1f b3ad b206 a749 3335',
        'b694 34fe a487 20ce acfc a547 3543 a8f4 b3cb 25cd b804 36e5 b2aa b6ed 29bd 3856 40a2 22d9 b01d be54 b027 ae0e ba6c 2b91 a08a 2d4e 1edd 2608 9f93 38dc 2632 3134 294a 3518 c0b1 b0d5 3ac0 b91e 2fbc aaed 3cf9 3975 3c62 1e96 2c05 2ca6 21b5 ba32'),
    'hardswish': ('2aca 4414 4359 b5ff b505 b5fb 3d5d ad15 3fd4 8000 44b3 b02f 3edc b1a9 b5a6 3c11 4083 b3c0 b236 3eef b16a 8000 3a9c b54d 8000 b346 b5f9 8000 8000 2b4b 411b b44a b494 3a67 3f65 b50a 3d0c 4242 b3e1 b346 399f 376a 4298 8000 b560 b285 8000 32d7',
        'b661 34c1 a441 1859 b0bf a16c 3545 a948 b46c 0000 b7c7 37ca b333 b82f 3128 3816 4195 24c3 b121 bedd b7d9 0000 b9e0 2f10 0000 342c a082 0000 0000 38b3 27e4 33d9 2e8b 34a5 c135 b4a4 3aa7 b8b9 3170 b173 3c7c 38db 3c11 0000 2f37 33e9 0000 b9aa'),
    'hardsigmoid': ('3823 3c00 3c00 33d5 359e 3390 3a47 378d 3afd 0000 3c00 373a 3ab9 36e8 34f7 39da 3b4c 3661 36c7 3abe 2c25 0000 3994 3145 0000 2df5 3443 0000 0000 3826 3b97 3623 301b 398a 3adf 359a 3a2e 3c00 3658 2df5 3964 38fe 3c00 0000 316b 2d30 0000 3882',
        'aff5 0000 0000 a859 afd5 2c21 2a91 a3ef a8bb 0000 0000 326f a811 b3ad 331d 2da8 359f 2155 acec b3b8 3310 0000 b061 aee7 0000 b06e a9c5 0000 0000 31d7 1b88 30e7 ac7b 2aff b5b4 b3bc 303f 0000 2e30 2dc9 330d 3055 0000 0000 af73 afcd 0000 b207'),
    'elu': ('2e91 4414 4359 ba45 b8ba ba5b 3ed6 b0f4 407b bbf8 44b3 b405 4015 b561 b96f 3d8f 40f2 b749 b5e2 401d bb6a bbea 3cbd baee bbfa bb4e ba08 bbc7 bbe9 2f09 4162 b806 bb24 3c9f 404e b8bf 3e89 4242 b767 bb4e 3c2c 39f1 4298 bbd5 bae6 bb5a bbf5 3612',
        'b9f8 34c1 a441 a9a4 b4ce 2d18 34ed ad07 b318 9d27 b7c7 3b39 b219 bba5 36d8 383e 4037 285c b4ab bdca 2e39 2701 ba91 ad8a 17af aca0 ac42 a0fe 1879 3c61 25a6 374f a9c7 353f c047 b8b8 3a5e b8b9 34fd 2a0b 3d4a 3a7f 3c11 98da ae25 ab95 997f bc85'),
    'celu': ('2e91 4414 4359 b8f9 b80a b904 3ed6 b0c9 407b b999 44b3 b395 4015 b4f6 b87f 3d8f 40f2 b67f b561 401d b977 b997 3cbd b949 b999 b96e b8d8 b991 b997 2f09 4162 b713 b95e 3c9f 404e b80d 3e89 4242 b697 b96e 3c2c 39f1 4298 b994 b945 b972 b999 3612',
        'b9f8 34c1 a441 a5da b28d 292c 34ed acae b318 8faa b7c7 3a62 b219 ba6a 3434 383e 4037 26b8 b3ac bdca 2811 1bfe ba91 a8ad 0934 a680 a8ac 984e 0d41 3c61 25a6 356a a471 353f c047 b66a 3a5e b8b9 33a5 243f 3d4a 3a7f 3c11 8f71 a940 a52a 8cbb bc85'),
    'selu': ('2ee6 4449 43b8 bd83 bc28 bd96 3f2f b45b 40b5 bf01 44f0 b711 404a b8ba bcc7 3dd7 4132 ba67 b92c 4052 be84 bef5 3cfb be17 bf03 be6c bd4d bed6 bef4 2f64 41a8 bb13 be47 3cdb 4086 bc2c 3ede 4293 ba82 be6c 3c62 3a3e 42ee bee2 be11 be77 befe 3661',
        'ba45 34ff a478 acf5 b839 307a 352d b06c b374 a087 b816 3e5a b268 beb8 3a04 3875 406e 2ba9 b81b be15 3179 2a28 bae6 b0de 1ac1 b011 af7d a464 1bdd 3c9a 25ef 3a6c ad14 3583 c07f bc26 3ab1 b8f6 3862 2d50 3d8f 3ad3 3c46 9c44 b166 aeaa 9cd5 bcc0'),
    'softplus_beta': ('3668 4414 4359 25da 2cf3 254c 3ee7 3450 407e 0081 44b3 331f 4019 31d8 2a43 3dae 40f4 3028 3162 4021 1982 03b6 3ceb 208a 0053 1bba 2786 0e5d 043d 3679 4162 2f10 1de1 3ccf 4051 2ce5 3e9c 4242 300f 1bba 3c68 3ac2 4298 0b5e 20cb 1ab1 00fe 3892',
        'b694 34c1 a441 a0a9 aebc 2405 34c5 a8f5 b304 814a b7c7 36ef b1ff b70c 2ff5 37fd 402f 2353 b038 bdb2 1f46 0cc5 ba01 a1d3 0063 9e65 a3e8 8c73 01a1 38dc 25a6 31d3 9ce9 34c6 c038 b295 3a22 b8b9 3029 1c2d 3cb4 394c 3c11 834a a2a1 9ce1 80f8 ba28'),
    'lerp': ('3860 4061 43a3 b552 abd8 b9f8 401d bd44 403e c2ad 3ecb 2f07 3cd0 36a9 bcc4 3ba7 4014 bcdb 32fa 3d61 bd8a c34d 3f3a bae9 c432 bc90 30de bb26 c48d 3af9 409b b897 c0ef 3fc3 35f0 afa7 40a2 3a00 b9a8 c1c6 3b99 3f88 4421 c44c bfa0 bc81 c071 3928',
        'b82e 32a8 a1f5 b090 b81d 3456 32e5 ac2a b0f7 bb32 b572 3ac1 b045 bc08 3b78 35f0 3de7 299a b52b bc0d 3b6a 3f32 b899 b73f 36ad b8a7 b20f b3d6 304d 3a21 23e8 3925 b4b4 3358 bdfd bc10 3875 b69d 367f 3613 3b68 388c 39b1 ad01 b7d2 b819 b577 ba54', 'b32a 2db4 9d1b abd3 b30d 2f6f 2de9 a724 ac42 b62b b0ab 35ca ab51 b6e9 3667 3117 390f 24cd b06e b6f2 365b 3a2b b3e1 b236 31b9 b3f9 ad32 aeb8 2b60 3541 1ec7 3469 b008 2e4c b922 b6f6 33a4 b1ab 3192 3135 3659 33cc 34e1 a84a b2b4 b306 b0af b56c'),
}

CASES = {
    "softplus": lambda a: F.softplus(a), "silu": lambda a: F.silu(a), "hardswish": lambda a: F.hardswish(a),
    "hardsigmoid": lambda a: F.hardsigmoid(a), "elu": lambda a: F.elu(a), "celu": lambda a: F.celu(a, 0.7),
    "selu": lambda a: F.selu(a), "softplus_beta": lambda a: F.softplus(a, beta=2.0, threshold=5.0),
}


def half(hexes):
    return np.array([int(h, 16) for h in hexes.split()], dtype=np.uint16).view(np.float16)


def bits(t):
    return " ".join("%04x" % v for v in t.detach().numpy().view(np.uint16))


@pytest.mark.parametrize("name", sorted(CASES))
def test_half_activation_rounds_once(name):
    x = nbgrad.tensor(half(X), requires_grad=True)
    out = CASES[name](x)
    out.backward(nbgrad.tensor(half(G)))
    assert out.dtype == nbgrad.float16
    assert (bits(out), bits(x.grad)) == EXPECTED[name]


def test_half_lerp_rounds_once():
    a = nbgrad.tensor(half(X), requires_grad=True)
    b = nbgrad.tensor(half(Y), requires_grad=True)
    out = nbgrad.lerp(a, b, 0.3)
    out.backward(nbgrad.tensor(half(G)))
    assert (bits(out), bits(a.grad), bits(b.grad)) == EXPECTED["lerp"]

# logaddexp/logaddexp2 (PyTorch's kernels: float32, rounded once) and ldexp's gradient in other
# (grad * result * ln 2, in that order); recorded from PyTorch 2.13
LA_X = 'a6fe 442f 41ef 41cb 467a c4d2 c104 c548 b6e5 43fd ad9e 3fef c7a5 38b5 c341 471a 4318 4398 b368 40e7 4143 bd83 bff5 b758 c0d8 c0c1 bc89 c1d4 4221 c662 4297 c101'
LA_Y = 'c05e c567 b89e bbed 3a20 c045 3600 4747 3e8b c097 43a0 b81f 40c0 40e7 be42 c7b9 bd90 4069 be15 3f06 43d6 c05a 44ed 467d 4451 44a9 4463 4882 39f3 2045 40d3 c344'
LOGADDEXP = '2d43 442f 41fe 41d5 467b c023 36df 4747 3f05 43fe 43aa 4020 40c0 4131 bdc7 471a 431c 43f7 221a 41b6 4429 bc06 44ed 467d 4451 44a9 4464 4882 4251 2121 4348 c072'
LOGADDEXP2 = '343c 442f 422c 41fb 4681 bfb5 3878 4747 3fc7 4403 43d0 4070 40c1 419a bd05 471a 4330 4436 3437 424a 446a b9c7 44f0 4680 4454 44ac 446b 4882 42a8 2682 43d7 bfd6'
LD_A = [0.6988609316412537, -0.38078206826298944, -1.253357108754011, 2.511983557313947, 1.9128633404097748, -2.385218511148926, -0.5731629767762199, 1.580412982681323, 2.2743560788698867, 2.773376573718788, -1.5556746639946595, 2.3504211008101716, 1.1692233821296067, -2.590780908249996, -1.7362269440610223, -1.867848082395815]
LD_E = [-4.0, -6.0, -2.0, 2.0, 2.0, -3.0, -1.0, 2.0, 2.0, -6.0, 2.0, 4.0, -4.0, 2.0, -3.0, 3.0]
LD_G = [0.5966719650669899, -1.5120924094997832, 1.1730613665619862, -0.4388319238464857, -0.23242474937708185, 0.2738186447603591, 0.7496352320484423, -1.433116993391593, 0.9899125769741429, 0.07729346772113933, -0.7708134949215095, -0.27527314152763765, -2.1858383485986193, -0.6476185246020855, 0.18190965102151874, -0.7090504752192786]
LD_GRAD_E = [0.018064746601523275, 0.006235916751887998, -0.25477747568176445, -3.056331507031663, -1.2326840250685183, -0.05658830189934674, -0.14890990435250495, -6.279682504936581, 6.242244197647245, 0.0023216519972579608, 3.3247082459663337, -7.175546121616271, -0.1107187084892467, 4.651953910742659, -0.02736514202038894, 7.344025080416715]
LD16_A = '4061 4043 3f77 bdba c113 415c 3976 c1f8 40ed 41d1 bd21 3f87 c103 b5ed 3fa0 b861 2ed1 c098 3f89 a28d be0b 3ea4 41c0 335d'
LD16_E = '40be 44ed c4b3 3beb 44ac c3a7 c18a 3805 4072 3838 37a2 c47c 40c9 bf2c c443 4496 3e63 b713 40a7 b313 c381 3c2f 40f0 40e2'
LD16_G = 'b83f b9e1 39f2 338d 3764 345c b96c 3849 3da6 a8b5 3912 b007 3c1d 3955 3b02 3593 3e8f b5c7 b559 b8bc 38e3 b8fb b928 39d2'
LD16_GRAD_E = 'c42a d020 28bc b76f cd2d 2891 aa04 be48 49a0 aed7 ba45 9f83 c8b1 aa52 2bb9 c25a 35dc 36c5 c060 1c9c aa13 bdeb c71c 390b'


@pytest.mark.parametrize("name, want", [("logaddexp", LOGADDEXP), ("logaddexp2", LOGADDEXP2)])
def test_half_logaddexp_rounds_once(name, want):
    assert bits(getattr(nbgrad, name)(nbgrad.tensor(half(LA_X)), nbgrad.tensor(half(LA_Y)))) == want


def test_ldexp_gradient_of_the_exponent_rounds_as_pytorchs():
    x = nbgrad.tensor(LD_A, dtype=nbgrad.float64, requires_grad=True)
    e = nbgrad.tensor(LD_E, dtype=nbgrad.float64, requires_grad=True)
    nbgrad.ldexp(x, e).backward(nbgrad.tensor(LD_G, dtype=nbgrad.float64))
    assert e.grad.tolist() == LD_GRAD_E                 # exact: 2 ** e is exact for these integers
    # fractional exponents: the order of the rounded products shows
    x16 = nbgrad.tensor(half(LD16_A), requires_grad=True)
    e16 = nbgrad.tensor(half(LD16_E), requires_grad=True)
    nbgrad.ldexp(x16, e16).backward(nbgrad.tensor(half(LD16_G)))
    assert bits(e16.grad) == LD16_GRAD_E
