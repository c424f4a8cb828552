"""The nested containers nbgrad.func's transforms take and give (PyTorch's torch.utils._pytree,
the part its function transforms use): tuples, lists, dicts (OrderedDict, defaultdict) and
namedtuples are nodes, everything else (tensors, numbers, None) is a leaf.  A TreeSpec is the
structure without the leaves; two structures are equal when their node types, dict keys (in
order) and shapes are; its repr is PyTorch's."""
from collections import OrderedDict, defaultdict


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _node_of(x):
    """(node type, context, children) for a node, None for a leaf."""
    if _is_namedtuple(x):
        return "namedtuple", type(x), list(x)
    if type(x) is tuple or type(x) is list:
        return type(x).__name__, None, list(x)
    if type(x) is dict or type(x) is OrderedDict:
        return type(x).__name__, list(x.keys()), list(x.values())
    if type(x) is defaultdict:
        return "defaultdict", (x.default_factory, list(x.keys())), list(x.values())
    return None


class TreeSpec:
    """A node: its type's name, its context (dict keys, a namedtuple's class) and children."""

    __slots__ = ("type", "context", "children", "num_leaves")

    def __init__(self, type_, context, children):
        self.type, self.context, self.children = type_, context, children
        self.num_leaves = sum(c.num_leaves for c in children)

    def is_leaf(self):
        return False

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.type == other.type and self.context == other.context
                and self.children == other.children)

    def __hash__(self):
        return hash((self.type, len(self.children)))

    def __repr__(self, indent=0):
        head = f"TreeSpec({self.type}, {self.context}, ["
        if not self.children:
            return head + "])"
        indent += 2
        parts = [self.children[0].__repr__(indent)]
        parts += ["\n" + " " * indent + c.__repr__(indent) for c in self.children[1:]]
        return head + ",".join(parts) + "])"


class LeafSpec(TreeSpec):
    __slots__ = ()

    def __init__(self):
        self.type, self.context, self.children, self.num_leaves = None, None, [], 1

    def is_leaf(self):
        return True

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __hash__(self):
        return 0

    def __repr__(self, indent=0):
        return "*"


LEAF = LeafSpec()


def tree_flatten(tree):
    """(the leaves in order, the structure)."""
    leaves = []

    def walk(x):
        node = _node_of(x)
        if node is None:
            leaves.append(x)
            return LEAF
        type_, context, children = node
        return TreeSpec(type_, context, [walk(c) for c in children])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, spec):
    it = iter(leaves)

    def build(s):
        if s.is_leaf():
            return next(it)
        children = [build(c) for c in s.children]
        if s.type == "tuple":
            return tuple(children)
        if s.type == "list":
            return children
        if s.type == "namedtuple":
            return s.context(*children)
        if s.type == "dict":
            return dict(zip(s.context, children))
        if s.type == "OrderedDict":
            return OrderedDict(zip(s.context, children))
        factory, keys = s.context
        return defaultdict(factory, zip(keys, children))

    return build(spec)


def tree_leaves(tree):
    return tree_flatten(tree)[0]


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_to_and_flatten(prefix, spec):
    """The leaves of `prefix`, each repeated over the leaves of the part of `spec` it stands
    for (vmap's in_dims / out_dims); None where prefix is not a prefix of spec's structure."""
    out = []

    def walk(p, s):
        node = _node_of(p)
        if node is None:
            out.extend([p] * s.num_leaves)
            return True
        type_, context, children = node
        if s.is_leaf() or type_ != s.type or context != s.context or len(children) != len(s.children):
            return False
        return all(walk(c, cs) for c, cs in zip(children, s.children))

    return out if walk(prefix, spec) else None


def treespec_pprint(spec):
    """The structure written as a tree whose leaves are `*` (PyTorch's treespec_pprint)."""
    class _Star:
        def __repr__(self):
            return "*"
    return repr(tree_unflatten([_Star()] * spec.num_leaves, spec))
