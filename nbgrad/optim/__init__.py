"""nbgrad.optim: optimizers whose updates run as one fused Numba kernel per parameter."""
from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD
from .adagrad import Adagrad
from .rmsprop import RMSprop
from .adaptive import Adadelta, Adamax, NAdam, RAdam
from .rprop import Rprop
from .asgd import ASGD
from .lbfgs import LBFGS
from .adafactor import Adafactor
from .muon import Muon
from . import swa_utils

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adamax", "NAdam", "RAdam", "Adadelta",
           "Rprop", "ASGD", "LBFGS", "Adafactor", "Muon", "lr_scheduler", "swa_utils"]
