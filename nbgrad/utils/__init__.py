"""nbgrad.utils: data loading (nbgrad.utils.data)."""
from . import data
