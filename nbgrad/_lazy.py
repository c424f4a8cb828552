"""Submodules a package loads on first attribute access (PEP 562): PyTorch's modules that most
programs never touch (torch.distributions, torch.func, torch.backends.cudnn, ...) cost
`import nbgrad` nothing."""
import importlib


def lazy_submodules(package, names):
    """A module __getattr__ for `package` (its __name__) that imports package.<name> for the
    names given and otherwise raises AttributeError, as a missing attribute does."""
    names = frozenset(names)

    def __getattr__(name):
        if name in names:
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":     # a module it imports is missing: say so
                    raise
        raise AttributeError(f"module '{package}' has no attribute '{name}'")
    return __getattr__
