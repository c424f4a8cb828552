"""nbgrad.nn: modules, parameters, losses, initialisers, with PyTorch's names and behaviour."""
from . import functional, init
from .modules import (BCEWithLogitsLoss, CrossEntropyLoss, Dropout, Embedding, EmbeddingBag, Flatten, Identity, L1Loss,
                      LayerNorm, Linear, LogSoftmax, Module, ModuleList, MSELoss, NLLLoss, NLLLoss2d, ReLU, Sequential,
                      Sigmoid, Softmax, Tanh)
from .parameter import Parameter
from .modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d  # noqa: E402,F401
from .modules.fold import Fold, Unfold  # noqa: E402,F401
from .modules.upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: E402,F401
from .modules.pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d  # noqa: E402,F401
from .modules.pooling import AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, MaxPool3d  # noqa: E402,F401
from .modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, Dropout2d, Dropout3d  # noqa: E402,F401
from . import parallel  # noqa: E402,F401
from .modules.activation import (CELU, ELU, GELU, GLU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh,  # noqa: E402,F401
                                 LeakyReLU, LogSigmoid, Mish, PReLU, ReLU6, RReLU, SELU, SiLU, Softmax2d, Softmin,
                                 Softplus, Softshrink, Softsign, Tanhshrink, Threshold)
from .modules.lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d,  # noqa: E402,F401
                           LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d,
                           LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear)
from .parameter import Buffer, UninitializedBuffer, UninitializedParameter  # noqa: E402,F401
from .modules.attention import MultiheadAttention  # noqa: E402,F401
from .modules.rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase  # noqa: E402,F401
from . import utils  # noqa: E402,F401
from .modules.loss import (BCELoss, CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, HuberLoss,  # noqa: E402,F401
                           KLDivLoss, MarginRankingLoss, MultiLabelSoftMarginLoss, PoissonNLLLoss, SmoothL1Loss,
                           SoftMarginLoss)
from .modules.distance import CosineSimilarity, PairwiseDistance  # noqa: E402,F401
from .modules.container import ModuleDict, ParameterDict, ParameterList  # noqa: E402,F401
from .modules.layers import Unflatten  # noqa: E402,F401
from .modules.padding import (ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d,  # noqa: E402,F401
                              ReplicationPad1d, ReplicationPad2d, ZeroPad1d, ZeroPad2d, ConstantPad3d, ReflectionPad3d,
                      ReplicationPad3d, ZeroPad3d)
from .modules.pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: E402,F401
from .modules.pooling import (AdaptiveAvgPool1d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d,  # noqa: E402,F401
                              MaxPool1d)
from .modules.batchnorm import GroupNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: E402,F401
from .modules.layers import RMSNorm  # noqa: E402,F401
from .modules.transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: E402,F401
                                  TransformerEncoder, TransformerEncoderLayer)
from .modules.loss import (MultiLabelMarginLoss, MultiMarginLoss, TripletMarginLoss,  # noqa: E402,F401
                           TripletMarginWithDistanceLoss)
from .modules.loss import CTCLoss, LinearCrossEntropyLoss  # noqa: E402,F401
from ..ops.linear_cross_entropy import LinearCrossEntropyOptions  # noqa: E402,F401
from .modules.dropout import AlphaDropout, Dropout1d, FeatureAlphaDropout  # noqa: E402,F401
from .modules.padding import CircularPad1d, CircularPad2d, CircularPad3d  # noqa: E402,F401
from .modules.extra import (Bilinear, ChannelShuffle, LocalResponseNorm, LPPool1d, LPPool2d,  # noqa: E402,F401
                            LPPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d)
from .modules.syncbatchnorm import SyncBatchNorm  # noqa: E402,F401
from .modules.pooling_fractional import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402,F401
from .modules.adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402,F401
