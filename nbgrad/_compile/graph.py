"""The captured graph as a user sees it: named nodes in run order, TF1-style.

Each node is one kernel call of the captured step (after the passes), named
`scope/op` (`linear/matmul`, `gradients/tanh_grad/tanh_backward`, `sgd/sgd_step`), unique
within the graph (`mul_1`); its outputs print as `Tensor("relu:0", shape=(128, 256),
dtype=nbgrad.float32)`.
"""
from .. import _dtype as D


class GraphTensor:
    """One output of a graph node (a buffer of the step, shown with its first use's shape)."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype

    def __repr__(self):
        return f'Tensor("{self.name}", shape={self.shape}, dtype={self.dtype})'


class GraphNode:
    def __init__(self, name, op, inputs, outputs, attrs):
        self.name, self.op, self.inputs, self.outputs, self.attrs = name, op, inputs, outputs, attrs

    def __repr__(self):
        ins = ", ".join(self.inputs)
        outs = ", ".join(repr(o) for o in self.outputs) or "(in place)"
        return f"{self.name} = {self.op}({ins}) -> {outs}"


class Graph:
    def __init__(self, nodes, inputs, fused_regions=0, removed=0):
        self.nodes = nodes
        self.inputs = inputs            # names of the external buffers (arguments, parameters, state)
        self.fused_regions = fused_regions
        self.removed = removed

    def __iter__(self):
        return iter(self.nodes)

    def __len__(self):
        return len(self.nodes)

    def __getitem__(self, name):
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(name)

    def __str__(self):
        lines = [f"graph ({len(self.nodes)} nodes; inputs: {', '.join(self.inputs) or 'none'})"]
        lines += [f"  {n!r}" for n in self.nodes]
        return "\n".join(lines)

    __repr__ = __str__

    def to_dot(self):
        """Graphviz text of the graph: a box per node, an edge per buffer it reads."""
        out = ["digraph nbgrad {", "  rankdir=TB;", '  node [shape=box, fontname="monospace"];']
        producer = {}
        for n in self.nodes:
            for t in n.outputs:
                producer[t.name] = n.name
        for name in self.inputs:
            out.append(f'  "{name}" [shape=ellipse];')
        for n in self.nodes:
            label = f"{n.name}\\n{n.op}"
            if n.outputs:
                o = n.outputs[0]
                label += f"\\n{list(o.shape)} {o.dtype}"
            out.append(f'  "{n.name}" [label="{label}"];')
            for i in n.inputs:
                src = producer.get(i, i)
                out.append(f'  "{src}" -> "{n.name}";')
        out.append("}")
        return "\n".join(out) + "\n"


def dtype_name(np_dtype):
    try:
        return repr(D.from_buffer_dtype(np_dtype))
    except Exception:
        return str(np_dtype)
