"""The other dropouts: of channels of 1-d signals (Dropout1d) and SELU's alpha dropouts, Dropout's
arguments, checks and repr."""
from .. import functional as F
from .layers import Dropout


class Dropout1d(Dropout):
    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
