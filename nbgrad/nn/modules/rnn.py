"""Recurrent layers: RNN (tanh/relu), LSTM (with proj_size), GRU and their cells, with PyTorch's
parameter names (weight_ih_l0, weight_hh_l0_reverse, ...), initialisation, gate order (LSTM
i, f, g, o; GRU r, z, n with n = tanh(W_in x + b_in + r * (W_hn h + b_hn))), argument checks and
results. Composed from Tensor ops (the input projection of a whole sequence in one matmul, then
one cell per time step), so their gradients are autograd's.

A PackedSequence input runs as ATen's packed layers: at step t only the first batch_sizes[t]
(sorted) sequences step; the forward direction keeps each sequence's state from its last step,
the reverse direction starts each sequence at its own last step from its initial state. The
output is a PackedSequence, the states are in the caller's batch order (hx is taken in it too).
Departure: PyTorch's LSTM checks nothing of a packed input (a wrong dtype, data rank or state
shape fails inside its kernel, or crashes it); here they get the ValueError / RuntimeError that
PyTorch's RNN and GRU give (and an LSTM's hx that is not a pair, this module's RuntimeError)."""
import math

from ..._warnings import warn_user as _warn_user
from ... import _creation as C
from .. import functional as F, init
from ..parameter import Parameter
from .layers import _factory
from .module import Module
from ..utils.rnn import PackedSequence

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# -- one time step; `gi` is the input's projection x W_ih^T + b_ih (computed for all steps at once) ---------
def _rnn_step(gi, h, w_hh, b_hh, relu):
    pre = F.linear(h, w_hh, b_hh) + gi          # PyTorch: linear_hh(h).add_(linear_ih(x))
    return pre.relu() if relu else pre.tanh()


def _lstm_step(gi, h, c, w_hh, b_hh, w_hr):
    gates = F.linear(h, w_hh, b_hh) + gi
    i, f, g, o = gates.chunk(4, -1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    c = f * c + i * g
    h = o * c.tanh()
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gru_step(gi, h, w_hh, b_hh):
    gh = F.linear(h, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, -1)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r = (h_r + i_r).sigmoid()
    z = (h_z + i_z).sigmoid()
    n = (i_n + h_n * r).tanh()
    return (h - n) * z + n


def _check_dropout(dropout, num_layers):
    if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                         "being zeroed")
    if dropout > 0 and num_layers == 1:
        _warn_user("dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                   f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}")


class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        _check_dropout(dropout, num_layers)
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        gate_size = _GATES[mode] * hidden_size
        f = _factory(device, dtype)
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                names = []
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(C.empty(shape, **f)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        pass        # cuDNN's packed weights: nothing to do here

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- forward ---------------------------------------------------------------------------
    def _name(self):
        return "LSTM" if self.mode == "LSTM" else "GRU" if self.mode == "GRU" else "RNN"

    def _check_input(self, input):
        from ..._tensor import Tensor
        if not isinstance(input, Tensor):
            raise TypeError(f"{self._name()}: expected a Tensor or PackedSequence input, got {type(input).__name__}")
        if input.dim() not in (2, 3):
            raise ValueError(f"{self._name()}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")
        w = self._flat_weights[0]
        if input.dtype is not w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). Convert "
                             f"input: input.to({w.dtype}), or convert model: model.to({input.dtype})")

    def _check_hidden(self, hx, expected, what="Expected hidden size"):
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"{what} {expected}, got {list(hx.shape)}")

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        self._check_input(input)
        batched = input.dim() == 3
        hxs = None
        if hx is not None:
            hxs = list(hx) if self.mode == "LSTM" else [hx]
            if self.mode == "LSTM" and (not isinstance(hx, (tuple, list)) or len(hxs) != 2):
                raise RuntimeError("LSTM: hx must be a tuple (h_0, c_0)")
            for t in hxs:
                if batched and t.dim() != 3:
                    raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {t.dim()}-D tensor")
                if not batched and t.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {t.dim()}-D tensor")
        if not batched:
            input = input.unsqueeze(1)
            if hxs is not None:
                hxs = [t.unsqueeze(1) for t in hxs]
        elif self.batch_first:
            input = input.transpose(0, 1)
        batch = input.shape[1]
        D = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        h_shape = (self.num_layers * D, batch, real_hidden)
        c_shape = (self.num_layers * D, batch, self.hidden_size)
        if hxs is None:
            hxs = [C.zeros(h_shape, dtype=input.dtype, device=input.device)]
            if self.mode == "LSTM":
                hxs.append(C.zeros(c_shape, dtype=input.dtype, device=input.device))
        elif self.mode == "LSTM":
            self._check_hidden(hxs[0], h_shape, "Expected hidden[0] size")
            self._check_hidden(hxs[1], c_shape, "Expected hidden[1] size")
        else:
            self._check_hidden(hxs[0], h_shape)
        output, h_n, c_n = self._run(input, hxs)
        if not batched:
            output = output.squeeze(1)
            h_n = h_n.squeeze(1)
            c_n = None if c_n is None else c_n.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return (output, (h_n, c_n)) if self.mode == "LSTM" else (output, h_n)

    def _forward_packed(self, input, hx):
        data, batch_sizes, sorted_indices, unsorted_indices = input
        bs = batch_sizes.tolist()
        D = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        h_shape = (self.num_layers * D, bs[0], real_hidden)
        c_shape = (self.num_layers * D, bs[0], self.hidden_size)
        if hx is None:
            hxs = [C.zeros(h_shape, dtype=data.dtype, device=data.device)]
            if self.mode == "LSTM":
                hxs.append(C.zeros(c_shape, dtype=data.dtype, device=data.device))
        else:
            if self.mode == "LSTM" and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
                raise RuntimeError("LSTM: hx must be a tuple (h_0, c_0)")
            hxs = list(hx) if self.mode == "LSTM" else [hx]
            if sorted_indices is not None:      # hx is in the caller's batch order: sort it as the data
                hxs = [t.index_select(1, sorted_indices) for t in hxs]
        # PyTorch's check_forward_args for a packed input (2-D data)
        w = self._flat_weights[0]
        if data.dtype is not w.dtype:
            raise ValueError(f"RNN input dtype ({data.dtype}) does not match weight dtype ({w.dtype}). Convert "
                             f"input: input.to({w.dtype}), or convert model: model.to({data.dtype})")
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        if data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {data.shape[-1]}")
        if self.mode == "LSTM":
            self._check_hidden(hxs[0], h_shape, "Expected hidden[0] size")
            self._check_hidden(hxs[1], c_shape, "Expected hidden[1] size")
        else:
            self._check_hidden(hxs[0], h_shape)
        output, h_n, c_n = self._run(data, hxs, bs)
        output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        if unsorted_indices is not None:
            h_n = h_n.index_select(1, unsorted_indices)
            c_n = None if c_n is None else c_n.index_select(1, unsorted_indices)
        return (output, (h_n, c_n)) if self.mode == "LSTM" else (output, h_n)

    def _run(self, x, hxs, batch_sizes=None):
        """All layers over x: (L, N, H_in) time-major, or a packed (sum of lengths, H_in) with its
        batch_sizes (a list)."""
        from ...ops.indexing import cat, stack
        D = 2 if self.bidirectional else 1
        h_final, c_final = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(D):
                k = layer * D + direction
                names = self._all_weights[k]
                w = {name.split("_l")[0]: getattr(self, name) for name in names}
                h0 = hxs[0][k]
                c0 = hxs[1][k] if self.mode == "LSTM" else None
                if batch_sizes is None:
                    out, h, c = self._direction(x, w, h0, c0, reverse=direction == 1)
                else:
                    out, h, c = self._packed_direction(x, batch_sizes, w, h0, c0, reverse=direction == 1)
                outputs.append(out)
                h_final.append(h)
                if c is not None:
                    c_final.append(c)
            x = outputs[0] if D == 1 else cat(outputs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, stack(h_final, 0), (stack(c_final, 0) if c_final else None)

    def _direction(self, x, w, h, c, reverse):
        from ...ops.indexing import stack
        gi = F.linear(x, w["weight_ih"], w.get("bias_ih"))       # every step's input projection at once
        steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
        outs = []
        for t in steps:
            h, c = self._step(gi[t], h, c, w)
            outs.append(h)
        if reverse:
            outs.reverse()
        return stack(outs, 0), h, c

    def _step(self, gi, h, c, w):
        if self.mode == "LSTM":
            return _lstm_step(gi, h, c, w["weight_hh"], w.get("bias_hh"), w.get("weight_hr"))
        if self.mode == "GRU":
            return _gru_step(gi, h, w["weight_hh"], w.get("bias_hh")), None
        return _rnn_step(gi, h, w["weight_hh"], w.get("bias_hh"), self.mode == "RNN_RELU"), None

    def _packed_direction(self, x, batch_sizes, w, h0, c0, reverse):
        """ATen's PackedLayer / ReversedPackedLayer over packed rows x: (outputs as packed rows,
        each sequence's final h (and c), sorted order)."""
        from ...ops.indexing import cat
        gi = F.linear(x, w["weight_ih"], w.get("bias_ih"))       # every row's input projection at once
        lstm = self.mode == "LSTM"
        outs = []
        if not reverse:
            # the batch shrinks: the states of the sequences that ended are set aside
            h, c = h0, c0
            done_h, done_c = [], []
            offset, last = 0, batch_sizes[0]
            for b in batch_sizes:
                if b < last:
                    done_h.append(h[b:last])
                    h = h[:b]
                    if lstm:
                        done_c.append(c[b:last])
                        c = c[:b]
                last = b
                h, c = self._step(gi[offset:offset + b], h, c, w)
                offset += b
                outs.append(h)
            if done_h:
                h = cat([h] + done_h[::-1], 0)
                if lstm:
                    c = cat([c] + done_c[::-1], 0)
        else:
            # backwards from the last step the batch grows: a sequence starts from its initial state
            last = batch_sizes[-1]
            h = h0[:last]
            c = c0[:last] if lstm else None
            offset = x.shape[0]
            for b in reversed(batch_sizes):
                if b > last:
                    h = cat([h, h0[last:b]], 0)
                    if lstm:
                        c = cat([c, c0[last:b]], 0)
                    last = b
                h, c = self._step(gi[offset - b:offset], h, c, w)
                offset -= b
                outs.append(h)
            outs.reverse()
        return cat(outs, 0), h, c


class RNN(RNNBase):
    """h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)


class GRU(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)


# -- cells -----------------------------------------------------------------------------------------
class RNNCellBase(Module):
    _gates = 1

    def __init__(self, input_size, hidden_size, bias, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        f = _factory(device, dtype)
        g = self._gates * hidden_size
        self.weight_ih = Parameter(C.empty((g, input_size), **f))
        self.weight_hh = Parameter(C.empty((g, hidden_size), **f))
        if bias:
            self.bias_ih = Parameter(C.empty(g, **f))
            self.bias_hh = Parameter(C.empty(g, **f))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input, hx, n_states):
        """(input as 2-D, states as 2-D (zeros when hx is None), whether input was 1-D)."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            states = [C.zeros((input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)
                      for _ in range(n_states)]
        else:
            states = list(hx) if n_states == 2 else [hx]
            if hx is not None and any(s.dim() != input.dim() for s in states):
                raise ValueError(f"{type(self).__name__}: Expected hidden to be {input.dim()}D, got "
                                 f"{states[0].dim()}D instead")
            if not batched:
                states = [s.unsqueeze(0) for s in states]
            for i, s in enumerate(states):
                if s.shape[0] != input.shape[0]:
                    raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size "
                                       f"{s.shape[0]}")
                if s.shape[1] != self.hidden_size:
                    raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {s.shape[1]}, expected "
                                       f"{self.hidden_size}")
        return input, states, batched


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        x, (h,), batched = self._prepare(input, hx, 1)
        out = _rnn_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh,
                        self.nonlinearity == "relu")
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    _gates = 4

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, device, dtype)

    def forward(self, input, hx=None):
        x, (h, c), batched = self._prepare(input, hx, 2)
        h, c = _lstm_step(F.linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh, None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    _gates = 3

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, device, dtype)

    def forward(self, input, hx=None):
        x, (h,), batched = self._prepare(input, hx, 1)
        out = _gru_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)
