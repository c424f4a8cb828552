"""The Module classes of nbgrad.nn, one file per family."""
from .container import ModuleList, Sequential
from .layers import (Dropout, Embedding, EmbeddingBag, Flatten, Identity, LayerNorm, Linear, LogSoftmax, ReLU, Sigmoid,
                     Softmax, Tanh)
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss, NLLLoss2d
from .module import Module
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d  # noqa: E402
from .fold import Fold, Unfold  # noqa: E402
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: E402
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d  # noqa: E402
from .pooling import AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, MaxPool3d  # noqa: E402
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, Dropout2d, Dropout3d  # noqa: E402
from .activation import (CELU, ELU, GELU, GLU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,  # noqa: E402
                         LogSigmoid, Mish, PReLU, ReLU6, RReLU, SELU, SiLU, Softmax2d, Softmin, Softplus, Softshrink,
                         Softsign, Tanhshrink, Threshold)
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d,  # noqa: E402
                   LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d, LazyInstanceNorm1d,
                   LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear)
from .attention import MultiheadAttention  # noqa: E402
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase  # noqa: E402
from .loss import (BCELoss, CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, HuberLoss,  # noqa: E402
                   KLDivLoss, MarginRankingLoss, MultiLabelSoftMarginLoss, PoissonNLLLoss, SmoothL1Loss,
                   SoftMarginLoss)
from .distance import CosineSimilarity, PairwiseDistance  # noqa: E402
from .container import ModuleDict, ParameterDict, ParameterList  # noqa: E402
from .layers import Unflatten  # noqa: E402
from .padding import (ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d, ReplicationPad1d,  # noqa: E402
                      ReplicationPad2d, ZeroPad1d, ZeroPad2d, ConstantPad3d, ReflectionPad3d,
                      ReplicationPad3d, ZeroPad3d)
from .pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: E402
from .pooling import AdaptiveAvgPool1d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, MaxPool1d  # noqa: E402
from .batchnorm import GroupNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: E402
from .layers import RMSNorm  # noqa: E402
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,  # noqa: E402
                          TransformerEncoderLayer)
from .loss import MultiLabelMarginLoss, MultiMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss  # noqa: E402
from .loss import CTCLoss  # noqa: E402
from .dropout import AlphaDropout, Dropout1d, FeatureAlphaDropout  # noqa: E402
from .padding import CircularPad1d, CircularPad2d, CircularPad3d  # noqa: E402
from .extra import (Bilinear, ChannelShuffle, LocalResponseNorm, LPPool1d, LPPool2d, LPPool3d, MaxUnpool1d,  # noqa: E402
                    MaxUnpool2d, MaxUnpool3d)
from .syncbatchnorm import SyncBatchNorm  # noqa: E402
from .pooling_fractional import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402
