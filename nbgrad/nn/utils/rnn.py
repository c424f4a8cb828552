"""pad_sequence, as torch.nn.utils.rnn's (PackedSequence is not supported)."""


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shapes (L_i, *) into (max L, B, *) (or (B, max L, *)), padding with
    padding_value on the right (or the left)."""
    from ... import _creation
    from ...ops.indexing import stack
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        pad = longest - s.shape[0]
        if pad:
            fill = _creation.full((pad,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            from ...ops.indexing import cat
            s = cat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    return stack(padded, 1 if not batch_first else 0)
