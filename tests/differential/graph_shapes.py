"""The node chain under a public op's result, nbgrad's against PyTorch's (node names six levels deep from
the result, every branch) for 80-odd ops of nn.functional, torch and linalg on a float64 leaf: where
nbgrad composes an op of other ops and shows its result under PyTorch's node name (ops.more.renamed),
the composition's own nodes appear beneath it.  A developer's tool, not a test: PyTorch is the
reference and never a dependency.
    python -m tests.differential.graph_shapes
"""
import warnings; warnings.simplefilter('ignore')
import torch, nbgrad
def chain(lib, f):
    F = lib.nn.functional
    x = lib.arange(1, 1 + 2*3*4*5*6, dtype=lib.float64).reshape(2, 3, 4, 5, 6).div(100).requires_grad_()
    try:
        out = f(lib, F, x)
        if isinstance(out, tuple): out = out[0]
    except Exception as e:
        return 'exc ' + type(e).__name__
    names = []
    def walk(n, d):
        if n is None or d > 6: return
        names.append('  ' * d + n.name().replace('torch::autograd::', ''))
        for c, _ in n.next_functions: walk(c, d + 1)
    walk(out.grad_fn, 0)
    return '\n'.join(names)
CASES = {
 'avg_pool3d': lambda L, F, x: F.avg_pool3d(x, 2),
 'avg_pool2d': lambda L, F, x: F.avg_pool2d(x[0], 2),
 'avg_pool1d': lambda L, F, x: F.avg_pool1d(x[0, 0], 2),
 'max_pool3d': lambda L, F, x: F.max_pool3d(x, 2),
 'max_pool2d': lambda L, F, x: F.max_pool2d(x[0], 2),
 'max_pool1d': lambda L, F, x: F.max_pool1d(x[0, 0], 2),
 'adaptive_avg_pool3d': lambda L, F, x: F.adaptive_avg_pool3d(x, 2),
 'adaptive_max_pool3d': lambda L, F, x: F.adaptive_max_pool3d(x, 2),
 'adaptive_avg_pool2d': lambda L, F, x: F.adaptive_avg_pool2d(x[0], 2),
 'adaptive_max_pool2d': lambda L, F, x: F.adaptive_max_pool2d(x[0], 2),
 'adaptive_avg_pool1d': lambda L, F, x: F.adaptive_avg_pool1d(x[0, 0], 2),
 'lp_pool2d': lambda L, F, x: F.lp_pool2d(x[0], 2, 2),
 'interp_bilinear': lambda L, F, x: F.interpolate(x[0], scale_factor=2, mode='bilinear'),
 'interp_trilinear': lambda L, F, x: F.interpolate(x, scale_factor=2, mode='trilinear'),
 'interp_nearest3d': lambda L, F, x: F.interpolate(x, scale_factor=2),
 'interp_bicubic': lambda L, F, x: F.interpolate(x[0], scale_factor=2, mode='bicubic'),
 'pad_reflect': lambda L, F, x: F.pad(x[0], (1, 1, 1, 1), mode='reflect'),
 'pad_replicate': lambda L, F, x: F.pad(x, (1, 1, 1, 1, 1, 1), mode='replicate'),
 'pad_circular': lambda L, F, x: F.pad(x[0], (1, 1), mode='circular'),
 'conv3d': lambda L, F, x: F.conv3d(x, L.ones(2, 3, 2, 2, 2, dtype=L.float64)),
 'conv_transpose3d': lambda L, F, x: F.conv_transpose3d(x, L.ones(3, 2, 2, 2, 2, dtype=L.float64)),
 'conv_transpose1d': lambda L, F, x: F.conv_transpose1d(x[0, 0], L.ones(4, 2, 2, dtype=L.float64)),
 'unfold': lambda L, F, x: F.unfold(x[0], 2),
 'fold': lambda L, F, x: F.fold(x[0, 0, :, :4], (3, 3), 2),
 'pixel_shuffle': lambda L, F, x: F.pixel_shuffle(x[0, :, :4], 2),
 'grid_sample': lambda L, F, x: F.grid_sample(x[0], L.zeros(3, 2, 2, 2, dtype=L.float64), align_corners=False),
 'group_norm': lambda L, F, x: F.group_norm(x, 1),
 'instance_norm': lambda L, F, x: F.instance_norm(x),
 'layer_norm': lambda L, F, x: F.layer_norm(x, (6,)),
 'batch_norm': lambda L, F, x: F.batch_norm(x, None, None, training=True),
 'rms_norm': lambda L, F, x: F.rms_norm(x, (6,)),
 'local_response_norm': lambda L, F, x: F.local_response_norm(x[0], 2),
 'embedding_bag': lambda L, F, x: F.embedding_bag(L.tensor([[0, 1]]), x[0, 0, 0]),
 'ctc': lambda L, F, x: F.ctc_loss(x[0, 0].log_softmax(-1), L.tensor([[1, 2]]), L.tensor([4] * 4), L.tensor([2] * 4)),
 'cross_entropy': lambda L, F, x: F.cross_entropy(x[0, 0, 0], L.tensor([0, 1, 2, 3, 4])),
 'nll_loss2d': lambda L, F, x: F.nll_loss(x[0], L.zeros(3, 5, 6, dtype=L.int64)),
 'kl_div': lambda L, F, x: F.kl_div(x, x.detach()),
 'cosine_similarity': lambda L, F, x: F.cosine_similarity(x, x.detach()),
 'pdist': lambda L, F, x: F.pdist(x[0, 0, 0]),
 'cdist': lambda L, F, x: L.cdist(x[0, 0], x[0, 0].detach()),
 'multi_margin': lambda L, F, x: F.multi_margin_loss(x[0, 0, 0], L.tensor([0, 1, 2, 3, 4])),
 'triplet': lambda L, F, x: F.triplet_margin_loss(x[0, 0], x[0, 1].detach(), x[0, 2].detach()),
 'glu': lambda L, F, x: F.glu(x),
 'softmin': lambda L, F, x: F.softmin(x, 1),
 'gelu_tanh': lambda L, F, x: F.gelu(x, approximate='tanh'),
 'logsigmoid': lambda L, F, x: F.logsigmoid(x),
 'hardswish': lambda L, F, x: F.hardswish(x),
 'cumprod': lambda L, F, x: x.cumprod(1),
 'logcumsumexp': lambda L, F, x: x.logcumsumexp(1),
 'median_dim': lambda L, F, x: x.median(1),
 'kthvalue': lambda L, F, x: x.kthvalue(2, 1),
 'trace': lambda L, F, x: x[0, 0, 0, :, :5].trace(),
 'tril': lambda L, F, x: x.tril(),
 'diag_embed': lambda L, F, x: L.diag_embed(x[0, 0]),
 'roll': lambda L, F, x: x.roll(1, 2),
 'flip': lambda L, F, x: x.flip(1),
 'repeat_interleave': lambda L, F, x: x.repeat_interleave(2, 1),
 'take_along_dim': lambda L, F, x: L.take_along_dim(x, L.zeros(1, 1, 1, 1, 1, dtype=L.int64), 1),
 'unique_dim?': lambda L, F, x: x.amax((1, 2)),
 'norm_nuc': lambda L, F, x: L.linalg.matrix_norm(x[0, 0], 'nuc'),
 'pinv': lambda L, F, x: L.linalg.pinv(x[0, 0, 0]),
 'lstsq': lambda L, F, x: L.linalg.lstsq(x[0, 0, 0, :, :5], L.ones(5, 2, dtype=L.float64)).solution,
 'cross': lambda L, F, x: L.linalg.cross(x[..., :3], x.detach()[..., :3]),
 'matrix_exp': lambda L, F, x: L.linalg.matrix_exp(x[0, 0, 0, :, :5]),
 'tensordot': lambda L, F, x: L.tensordot(x, x.detach(), 2) if False else L.tensordot(x[0, 0], x[0, 0].detach(), ([1], [1])),
 'einsum': lambda L, F, x: L.einsum('abcde,abcde->a', x, x.detach()),
 'bilinear': lambda L, F, x: F.bilinear(x[0, 0], x[0, 0].detach(), L.ones(2, 6, 6, dtype=L.float64)),
 'scaled_dot': lambda L, F, x: F.scaled_dot_product_attention(x[0], x[0].detach(), x[0].detach()),
 'prelu': lambda L, F, x: F.prelu(x, L.ones(3, dtype=L.float64)),
 'rrelu_eval': lambda L, F, x: F.rrelu(x, training=False),
 'hardtanh': lambda L, F, x: F.hardtanh(x),
 'huber': lambda L, F, x: F.huber_loss(x, x.detach() * 2),
 'smooth_l1': lambda L, F, x: F.smooth_l1_loss(x, x.detach() * 2),
 'soft_margin': lambda L, F, x: F.soft_margin_loss(x, L.ones_like(x)),
 'bce': lambda L, F, x: F.binary_cross_entropy(x.sigmoid(), L.ones_like(x)),
 'poisson': lambda L, F, x: F.poisson_nll_loss(x, L.ones_like(x)),
 'gaussian': lambda L, F, x: F.gaussian_nll_loss(x, L.ones_like(x), L.ones_like(x)),
 'channel_shuffle': lambda L, F, x: F.channel_shuffle(x[0].reshape(1, 3, 4, 30), 3) if L is torch else F.channel_shuffle(x[0].reshape(1, 3, 4, 30), 3),
 'normalize': lambda L, F, x: F.normalize(x),
 'dropout_eval': lambda L, F, x: F.dropout(x, 0.5, False) * 2,
 'max_unpool2d': lambda L, F, x: F.max_unpool2d(*F.max_pool2d(x[0], 2, return_indices=True), 2),
 'fractional_max': lambda L, F, x: F.fractional_max_pool2d(x[0], 2, output_size=2, _random_samples=L.full((3, 4, 2), 0.5, dtype=L.float64)),
}
diff = 0
for name, f in CASES.items():
    a, b = chain(torch, f), chain(nbgrad, f)
    if a != b:
        diff += 1
        print('==', name); print('  T:', a.replace('\n', ' |')[:300]); print('  N:', b.replace('\n', ' |')[:300])
print('differ', diff, 'of', len(CASES))
