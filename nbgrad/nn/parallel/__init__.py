"""nbgrad.nn.parallel: DistributedDataParallel over nbgrad.distributed (MPI)."""
from .distributed import DistributedDataParallel
