"""Shrinking a differing program to a minimal standalone reproduction.

`shrink(program, still_differs)` removes statements (with the statements that use
what they made) and simplifies the rest (no_grad flags, keyword arguments,
requires_grad of leaves, leaf values) for as long as `still_differs(candidate)`
holds.  Variables are renumbered from the reference record of each candidate.
"""
import copy

from .compare import _statement_inputs


def _created(obs_rec):
    res = obs_rec.get("res") if obs_rec else None
    out = []

    def walk(r):
        if not r:
            return
        if r[0] == "T":
            out.append(r[1])
        elif r[0] == "seq":
            for x in r[1]:
                walk(x)
    walk(res)
    return out


def _renumber(x, mapping):
    if isinstance(x, dict):
        if "v" in x:
            return {"v": mapping[x["v"]]}
        return {k: _renumber(v, mapping) for k, v in x.items()}
    if isinstance(x, list):
        return [_renumber(y, mapping) for y in x]
    return x


def remove(program, obs, drop):
    """program without the statements in `drop` and everything that depends on them."""
    made = {}
    for n, rec in enumerate(obs):
        for v in _created(rec):
            made[v] = n
    dead_vars = set()
    keep = []
    for n, st in enumerate(program):
        uses = _statement_inputs(st)
        if n in drop or any(v in dead_vars for v in uses):
            dead_vars.update(v for v, m in made.items() if m == n)
            continue
        keep.append(n)
    alive = sorted(v for v in made if v not in dead_vars)
    mapping = {v: i for i, v in enumerate(alive)}
    out = []
    for n in keep:
        st = copy.deepcopy(program[n])
        try:
            if "t" in st:
                st["t"] = mapping[st["t"]]
            if "a" in st:
                st["a"] = _renumber(st["a"], mapping)
            if "kw" in st:
                st["kw"] = _renumber(st["kw"], mapping)
        except KeyError:
            return None
        out.append(st)
    return out


def _simplifications(st):
    if st.get("ng"):
        s = dict(st)
        del s["ng"]
        yield s
    for key in list(st.get("kw", {})):
        s = copy.deepcopy(st)
        del s["kw"][key]
        yield s
    if st["k"] == "leaf":
        data, dt, rg = st["a"]
        if rg:
            yield {"k": "leaf", "a": [data, dt, False]}
        flat = _flatten(data)
        for simple in (0.0, 1.0):
            if any(v != simple for v in flat):
                yield {"k": "leaf", "a": [_replace(data, simple if dt in ("float32", "float64") else int(simple)),
                                          dt, rg]}
        if dt == "float32":
            yield {"k": "leaf", "a": [data, "float64", rg]}


def _flatten(d):
    return [x for y in d for x in _flatten(y)] if isinstance(d, list) else [d]


def _replace(d, v):
    if isinstance(d, list):
        return [_replace(x, v) for x in d]
    return v if not isinstance(d, bool) else d


def shrink(program, record, still_differs, budget=400):
    """record(program) -> reference observations; still_differs(program) -> bool."""
    best = program
    obs = record(best)
    tries = 0
    changed = True
    while changed and tries < budget:
        changed = False
        for n in reversed(range(len(best))):
            if tries >= budget:
                break
            cand = remove(best, obs, {n})
            if not cand or cand == best:
                continue
            tries += 1
            if still_differs(cand):
                best, obs = cand, record(cand)
                changed = True
                break
        if changed:
            continue
        for n in range(len(best)):
            for s in _simplifications(best[n]):
                if tries >= budget:
                    break
                cand = best[:n] + [s] + best[n + 1:]
                tries += 1
                if still_differs(cand):
                    best, obs = cand, record(cand)
                    changed = True
                    break
            if changed:
                break
    return best
