"""torch.utils.deterministic: `fill_uninitialized_memory` (True by default) -- whether, while
nbgrad.use_deterministic_algorithms(True) is on, tensors made without values are filled
with NaN or the integer dtype's largest value (nbgrad/_settings.py)."""
fill_uninitialized_memory = True
