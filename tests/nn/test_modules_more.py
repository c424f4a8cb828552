"""Containers (ModuleDict, ParameterList, ParameterDict) and the simple modules of issue 14,
against PyTorch 2.13's behaviour (reprs, state_dict keys and errors recorded from it), NumPy
references and finite differences."""
import numpy as np
import pytest

import nbgrad
nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def t(a, grad=False):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


# -- containers ----------------------------------------------------------------------------
def test_module_dict():
    md = nn.ModuleDict({"b": nn.Linear(2, 3), "a": nn.ReLU()})
    assert repr(md) == "ModuleDict(\n  (b): Linear(in_features=2, out_features=3, bias=True)\n  (a): ReLU()\n)"
    assert list(md.keys()) == ["b", "a"] and list(md) == ["b", "a"] and len(md) == 2 and "a" in md
    md["c"] = nn.Tanh()
    md.update([("d", nn.Identity())])
    assert list(md.state_dict().keys()) == ["b.weight", "b.bias"]
    assert isinstance(md.pop("c"), nn.Tanh) and list(md.keys()) == ["b", "a", "d"]
    assert [n for n, _ in md.named_parameters()] == ["b.weight", "b.bias"]
    assert repr(nn.ModuleDict()) == "ModuleDict()"
    with pytest.raises(TypeError, match="^int is not a Module subclass$"):
        md["x"] = 3
    with pytest.raises(KeyError):
        md["zz"]
    with pytest.raises(TypeError, match="^ModuleDict.update should be called with an iterable of key/value "
                                        "pairs, but got int$"):
        md.update(3)
    with pytest.raises(ValueError, match="^ModuleDict update sequence element #0 has length 1; 2 is required$"):
        md.update([("a",)])


def test_parameter_list():
    pl = nn.ParameterList([nn.Parameter(nbgrad.ones(2, 3)), nn.Parameter(nbgrad.zeros(4, dtype=nbgrad.float64))])
    assert repr(pl) == ("ParameterList(\n    (0): Parameter containing: [nbgrad.float32 of size 2x3]\n"
                        "    (1): Parameter containing: [nbgrad.float64 of size 4]\n)")
    assert list(pl.state_dict().keys()) == ["0", "1"]
    pl.append(nbgrad.ones(2))                          # a tensor is wrapped as a Parameter
    assert type(pl[2]) is nn.Parameter and pl[2].requires_grad and len(pl) == 3
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"] and len(pl[1:]) == 2
    assert repr(nn.ParameterList()) == "ParameterList()"
    assert repr(nn.ParameterList([nbgrad.ones(1)])) == \
        "ParameterList(  (0): Parameter containing: [nbgrad.float32 of size 1])"    # PyTorch's one-line form
    pl.append(3)                                       # other objects are kept as they are
    assert pl[3] == 3 and pl[-1] == 3 and repr(pl).endswith("    (3): Object of type: int\n)")
    assert len(list(pl.parameters())) == 3
    with pytest.raises(IndexError, match="^index 7 is out of range$"):
        pl[7]
    with pytest.raises(TypeError, match="^ParameterList.extend should be called with an iterable, but got Tensor$"):
        pl.extend(nbgrad.ones(2))
    with pytest.raises(RuntimeError, match="^ParameterList should not be called.$"):
        pl(1)


def test_parameter_dict():
    pd = nn.ParameterDict({"w": nn.Parameter(nbgrad.ones(2)), "b": nbgrad.zeros(3)})   # a dict: sorted keys
    assert repr(pd) == ("ParameterDict(\n    (b): Parameter containing: [nbgrad.FloatTensor of size 3]\n"
                        "    (w): Parameter containing: [nbgrad.FloatTensor of size 2]\n)")
    assert list(pd.state_dict().keys()) == ["b", "w"] and type(pd["b"]) is nn.Parameter
    pd["x"] = nn.Parameter(nbgrad.ones(1, 1))
    assert list(pd.keys()) == ["b", "w", "x"] and len(pd) == 3
    assert tuple(pd.pop("w").shape) == (2,) and list(pd.keys()) == ["b", "x"]
    assert pd.get("nope") is None and "x" in pd
    assert list((pd | nn.ParameterDict({"z": nbgrad.ones(1)})).keys()) == ["b", "x", "z"]
    from collections import OrderedDict
    assert list(nn.ParameterDict(OrderedDict([("z", nbgrad.ones(1)), ("a", nbgrad.ones(1))])).keys()) == ["z", "a"]
    assert repr(nn.ParameterDict()) == "ParameterDict()"
    with pytest.raises(AttributeError, match="^'ParameterDict' object has no attribute 'q'$"):
        pd["q"]
    with pytest.raises(TypeError, match=r"^Index given to ParameterDict cannot be used as a key as it is not a "
                                        r"string \(type is 'int'\)"):
        pd[1]
    with pytest.raises(TypeError, match="^ParametersDict.update should be called with an iterable"):
        pd.update(5)


def test_containers_nested_state_dict_and_repr():
    m = nn.Module()
    m.pl = nn.ParameterList([nbgrad.ones(2, 3), nbgrad.zeros(2), 3])
    m.pd = nn.ParameterDict({"b": nbgrad.ones(3), "x": nbgrad.ones(1, 1)})
    m.md = nn.ModuleDict({"b": nn.Linear(2, 3), "a": nn.ReLU()})
    assert list(m.state_dict().keys()) == ["pl.0", "pl.1", "pd.b", "pd.x", "md.b.weight", "md.b.bias"]
    assert [n for n, _ in m.named_parameters()] == ["pl.0", "pl.1", "pd.b", "pd.x", "md.b.weight", "md.b.bias"]
    assert repr(m) == """Module(
  (pl): ParameterList(
      (0): Parameter containing: [nbgrad.float32 of size 2x3]
      (1): Parameter containing: [nbgrad.float32 of size 2]
      (2): Object of type: int
  )
  (pd): ParameterDict(
      (b): Parameter containing: [nbgrad.FloatTensor of size 3]
      (x): Parameter containing: [nbgrad.FloatTensor of size 1x1]
  )
  (md): ModuleDict(
    (b): Linear(in_features=2, out_features=3, bias=True)
    (a): ReLU()
  )
)"""
    m2 = nn.Module()
    m2.pl = nn.ParameterList([nbgrad.zeros(2, 3), nbgrad.ones(2), 3])
    m2.pd = nn.ParameterDict({"b": nbgrad.zeros(3), "x": nbgrad.zeros(1, 1)})
    m2.md = nn.ModuleDict({"b": nn.Linear(2, 3), "a": nn.ReLU()})
    m2.load_state_dict(m.state_dict())
    assert m2.pl[0].sum().item() == 6 and m2.pd["x"].item() == 1
    np.testing.assert_array_equal(m2.md["b"].weight.detach().numpy(), m.md["b"].weight.detach().numpy())
    # an optimizer sees the parameters in the containers
    opt = nbgrad.optim.SGD(m.parameters(), lr=0.5)
    (m.pl[0].sum() + m.pd["b"].sum()).backward()
    opt.step()
    assert m.pl[0].sum().item() == 3.0 and m.pd["b"].sum().item() == 1.5
