"""Delta debugging over a kernel's statements and expression tree: the
smallest kernel that still fails the way the original did."""
import copy

from kernel import walk


def uses(k):
    """Ids used by nodes, region yields and stores."""
    used = set(k.outputs)
    for n in walk(k.body):
        used.update(n.args)
        used.update(n.attrs.get("yields", ()))
    return used


def dce(k):
    """Removes nodes nothing uses (block arguments and atomics stay)."""
    changed = True
    while changed:
        changed = False
        used = uses(k)

        def keep(nodes):
            nonlocal changed
            out = []
            for n in nodes:
                if n.op in ("arg", "atomic") or n.id in used:
                    n.regions = [keep(r) for r in n.regions]
                    out.append(n)
                else:
                    changed = True
            return out
        k.body = keep(k.body)
    return k


def rewire(k, old, new):
    for n in walk(k.body):
        n.args = [new if a == old else a for a in n.args]
        if "yields" in n.attrs:
            n.attrs["yields"] = [new if a == old else a for a in n.attrs["yields"]]
    k.outputs = [new if o == old else o for o in k.outputs]


def candidates(k):
    """Smaller kernels, most shrinking first."""
    if len(k.outputs) > 1:
        for o in k.outputs:
            c = copy.deepcopy(k)
            c.outputs = [o]
            yield dce(c)
    atomics = [n for n in k.body if n.op == "atomic"]
    for a in atomics:
        c = copy.deepcopy(k)
        c.body = [n for n in c.body if n.id != a.id]
        yield dce(c)
    if k.grid > 1:
        c = copy.deepcopy(k)
        c.grid = 1
        yield c
    for wg in (1, 2, 4):
        if wg < k.workgroup:
            c = copy.deepcopy(k)
            c.workgroup = wg
            yield c
    nodes = [n for n in walk(k.body) if n.op not in ("arg", "atomic", "load", "param")]
    for n in reversed(nodes):
        # Region results: the value one branch or the initial value yields.
        if n.op in ("if", "for", "while"):
            for y in (n.attrs["yields"] + n.args[1:]):
                c = copy.deepcopy(k)
                target = c.node(n.id)
                if c.node(y).ty == target.ty and _visible(c, y, n.id):
                    rewire(c, n.id, y)
                    yield dce(c)
        for a in n.args:
            c = copy.deepcopy(k)
            if c.node(a).ty == n.ty:
                rewire(c, n.id, a)
                yield dce(c)
        if n.op != "const":
            for zero in (True, False):
                c = copy.deepcopy(k)
                t = c.node(n.id)
                value = 0 if zero else (1 if not t.ty.lanes else None)
                if value is None:
                    value = tuple(1 for _ in range(t.ty.lanes))
                elif t.ty.lanes:
                    value = tuple([value] * t.ty.lanes)
                t.op, t.args, t.regions = "const", [], []
                t.attrs = {"value": value}
                yield dce(c)


def _visible(k, vid, at):
    """Whether value `vid` may replace node `at`: defined in the same scope
    or an enclosing one, before it."""
    def scope_of(nodes, path):
        for n in nodes:
            if n.id == at:
                return path + [nodes]
            for r in n.regions:
                found = scope_of(r, path + [nodes])
                if found:
                    return found
        return None
    scopes = scope_of(k.body, []) or []
    for s in scopes:
        ids = [n.id for n in s]
        if vid in ids and (at not in ids or ids.index(vid) < ids.index(at)):
            return True
    return False


def size(k):
    return sum(1 for _ in walk(k.body))


def reduce(k, still_fails, budget=400):
    """Greedy delta debugging: keeps taking the first smaller candidate that
    still fails until none does (or `budget` tries are spent)."""
    k = dce(copy.deepcopy(k))
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        for c in candidates(k):
            tries += 1
            if tries > budget:
                break
            if (size(c) < size(k) or c.grid < k.grid or c.workgroup < k.workgroup
                    or len(c.outputs) < len(k.outputs)) and still_fails(c):
                k = c
                progress = True
                break
    return k, tries
