"""ExponentialFamily (torch.distributions.ExponentialFamily): distributions of the form
p(x; theta) = exp(<t(x), theta> - F(theta) + k(x)); gives the entropy from the log-normalizer F
by autograd, and (in kl.py) the Bregman-divergence KL between two members of one family."""
import nbgrad

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """Entropy by the Bregman divergence of the log-normalizer: F(theta) - <theta, grad F>
        - E[k(x)]."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = nbgrad.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
