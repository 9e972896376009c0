"""The reference interpreter: what a kernel of kernel.py must compute, by
the integer semantics of docs/profiles.md, written from the definitions
and sharing nothing with the compiler.

Values are Python ints in unsigned form (0 <= v < 2**w), vectors tuples
of them. Every invocation runs each top-level statement before any runs
the next, which is exactly what the barriers of shared-memory and
xpu.reduce statements (top level only) guarantee."""
from kernel import BINARY, MATH, mask, walk


def signed(v, w):
    return v - (1 << w) if w and v >> (w - 1) & 1 else v


def wrap(v, w):
    return v & mask(w)


def tdiv(a, b):
    """Division truncating toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def binary(op, a, b, w):
    sa, sb = signed(a, w), signed(b, w)
    smin = -(1 << (w - 1))
    sdiv_bad = sb == 0 or (sa == smin and sb == -1)
    if op == "addi":
        return wrap(a + b, w)
    if op == "subi":
        return wrap(a - b, w)
    if op == "muli":
        return wrap(a * b, w)
    # Division by zero gives the dividend, remainder by zero gives 0;
    # MIN / -1 = MIN and MIN rem -1 = 0.
    if op == "divsi":
        return a if sdiv_bad else wrap(tdiv(sa, sb), w)
    if op == "remsi":
        return 0 if sdiv_bad else wrap(sa - sb * tdiv(sa, sb), w)
    if op == "divui":
        return a if b == 0 else a // b
    if op == "remui":
        return 0 if b == 0 else a % b
    if op == "floordivsi":
        return a if sdiv_bad else wrap(sa // sb, w)
    if op == "ceildivsi":
        return a if sdiv_bad else wrap(-((-sa) // sb), w)
    if op == "ceildivui":
        return a if b == 0 else -((-a) // b)
    if op == "andi":
        return a & b
    if op == "ori":
        return a | b
    if op == "xori":
        return a ^ b
    # Shift amounts are taken modulo the width.
    s = b % w if w > 1 else 0
    if op == "shli":
        return wrap(a << s, w)
    if op == "shrui":
        return a >> s
    if op == "shrsi":
        return wrap(sa >> s, w)
    if op == "maxsi":
        return a if sa >= sb else b
    if op == "minsi":
        return a if sa <= sb else b
    if op == "maxui":
        return max(a, b)
    if op == "minui":
        return min(a, b)
    raise ValueError(op)


def compare(pred, a, b, w):
    sa, sb = signed(a, w), signed(b, w)
    return int({"eq": a == b, "ne": a != b, "slt": sa < sb, "sle": sa <= sb,
                "sgt": sa > sb, "sge": sa >= sb, "ult": a < b, "ule": a <= b,
                "ugt": a > b, "uge": a >= b}[pred])


def math_op(op, a, w):
    if op == "absi":
        return wrap(abs(signed(a, w)), w)
    if op == "ctpop":
        return bin(a).count("1")
    if op == "ctlz":
        return w - a.bit_length()
    if op == "cttz":
        return w if a == 0 else (a & -a).bit_length() - 1
    raise ValueError(op)


def lanewise(f, *vals):
    if isinstance(vals[0], tuple):
        return tuple(f(*(v[i] if isinstance(v, tuple) else v for v in vals))
                     for i in range(len(vals[0])))
    return f(*vals)


def combine_vector(kind, a, b, w):
    return {"add": lambda: wrap(a + b, w), "mul": lambda: wrap(a * b, w),
            "and": lambda: a & b, "or": lambda: a | b, "xor": lambda: a ^ b,
            "minsi": lambda: binary("minsi", a, b, w), "maxsi": lambda: binary("maxsi", a, b, w),
            "minui": lambda: min(a, b), "maxui": lambda: max(a, b)}[kind]()


WORKGROUP_TO_VECTOR = {"add": "add", "mul": "mul", "smin": "minsi", "smax": "maxsi",
                       "umin": "minui", "umax": "maxui", "and": "and", "or": "or",
                       "xor": "xor"}


class Invocation:
    def __init__(self, k, gid, tid, inputs, scalar):
        self.k = k
        self.gid, self.tid = gid, tid
        self.inputs = inputs
        self.scalar = scalar
        self.env = {}


def evaluate(k, nd, inv):
    """The value of node `nd` in invocation `inv` (regions run here)."""
    env = inv.env
    ty = nd.ty
    w = ty.w if ty else 0
    args = [env[x] for x in nd.args]
    op = nd.op
    if op == "load":
        data = inv.inputs[nd.attrs["buf"]]
        per = k.inputs[nd.attrs["buf"]][1]
        at = inv.gid * per + nd.attrs["offset"]
        return tuple(data[at:at + ty.lanes]) if ty.lanes else data[at]
    if op == "param":
        return inv.scalar
    if op == "coord":
        return wrap(inv.gid if nd.attrs["which"] == "global" else inv.tid, w)
    if op == "const":
        return nd.attrs["value"]
    if op in ("poison", "unwritten"):  # both defined as zero
        return tuple([0] * ty.lanes) if ty.lanes else 0
    if op in BINARY:
        return lanewise(lambda a, b: binary(op, a, b, w), *args)
    if op == "cmpi":
        sw = k.node(nd.args[0]).ty.w
        return lanewise(lambda a, b: compare(nd.attrs["pred"], a, b, sw), *args)
    if op == "select":
        c, a, b = args
        if isinstance(c, tuple):
            return tuple(x if ci else y for ci, x, y in zip(c, a, b))
        return a if c else b
    if op in ("trunci", "extui", "index_castui"):
        return lanewise(lambda a: wrap(a, w), args[0])
    if op in ("extsi", "index_cast"):
        sw = k.node(nd.args[0]).ty.w
        return lanewise(lambda a: wrap(signed(a, sw), w), args[0])
    if op in MATH:
        return lanewise(lambda a: math_op(op, a, w), args[0])
    if op in ("mulsi_extended", "mului_extended", "addui_extended"):
        sw = k.node(nd.args[0]).ty.w
        part = nd.attrs["part"]

        def f(a, b):
            if op == "addui_extended":
                s = a + b
                return int(s >> sw != 0) if part else wrap(s, sw)
            p = signed(a, sw) * signed(b, sw) if op == "mulsi_extended" else a * b
            return wrap(p >> sw, sw) if part else wrap(p, sw)
        return lanewise(f, *args)
    if op == "broadcast":
        return tuple([args[0]] * ty.lanes)
    if op == "extract":
        return args[0][nd.attrs["pos"]]
    if op == "insert":
        v = list(args[1])
        v[nd.attrs["pos"]] = args[0]
        return tuple(v)
    if op == "shuffle":
        both = args[0] + args[1]
        return tuple(both[i] for i in nd.attrs["mask"])
    if op == "reduction":
        lanes = list(args[0])
        acc = args[1] if len(args) > 1 else None
        for x in lanes:
            acc = x if acc is None else combine_vector(nd.attrs["kind"], acc, x, w)
        return acc
    if op == "from_elements":
        return tuple(args)
    if op == "if":
        which = 0 if args[0] else 1
        run(k, nd.regions[which], inv)
        return env[nd.attrs["yields"][which]]
    if op == "for":
        cnt_ty = k.node(nd.args[0]).ty
        trips = args[0] & (1 if cnt_ty.w == 1 else 7)
        body = nd.regions[0]
        acc = args[1]
        for j in range(trips):
            env[body[0].id] = j
            env[body[1].id] = acc
            run(k, body[2:], inv)
            acc = env[nd.attrs["yields"][0]]
        return acc
    if op == "while":
        cnt_ty = k.node(nd.args[0]).ty
        m = args[0] & (1 if cnt_ty.w == 1 else 7)
        hdr, aft = nd.regions
        a = args[1]
        while True:
            env[hdr[0].id] = a
            run(k, hdr[1:], inv)
            h = env[nd.attrs["yields"][0]]
            if not m > 0:
                return h
            env[aft[0].id] = h
            run(k, aft[1:], inv)
            a = env[nd.attrs["yields"][1]]
            m -= 1
    if op == "arg":
        return env[nd.id]
    raise ValueError(f"node {op} cannot be evaluated alone")


def run(k, nodes, inv):
    for nd in nodes:
        inv.env[nd.id] = evaluate(k, nd, inv)


def execute(k, inputs, scalar, atomic_init):
    """Runs kernel `k`; returns (outputs by width, atomic buffer or None).
    `inputs` holds one list of unsigned ints per input buffer."""
    invs = [Invocation(k, g, g % k.workgroup, inputs, scalar) for g in range(k.invocations)]
    acc = list(atomic_init) if atomic_init is not None else None
    for nd in k.body:
        if nd.op == "shared":
            for inv in invs:
                inv.env[("sent", nd.id)] = inv.env[nd.args[0]]
            for inv in invs:
                base = inv.gid - inv.tid
                src = invs[base + (inv.tid + nd.attrs["rot"]) % k.workgroup]
                inv.env[nd.id] = src.env[("sent", nd.id)]
        elif nd.op == "reduce":
            w = nd.ty.w
            kind = WORKGROUP_TO_VECTOR[nd.attrs["kind"]]
            for base in range(0, k.invocations, k.workgroup):
                group = invs[base:base + k.workgroup]
                total = None
                for inv in group:
                    x = inv.env[nd.args[0]]
                    total = x if total is None else combine_vector(kind, total, x, w)
                for inv in group:
                    inv.env[nd.id] = total
        elif nd.op == "atomic":
            w = k.atomic.w
            for inv in invs:
                v = inv.env[nd.args[0]]
                slot = inv.env[nd.args[1]] & (k.atomic_slots - 1)
                kind = nd.attrs["kind"]
                old = acc[slot]
                acc[slot] = {"add": lambda: wrap(old + v, w), "sub": lambda: wrap(old - v, w),
                             "and": lambda: old & v, "or": lambda: old | v,
                             "xor": lambda: old ^ v,
                             "smin": lambda: binary("minsi", old, v, w),
                             "smax": lambda: binary("maxsi", old, v, w),
                             "umin": lambda: min(old, v), "umax": lambda: max(old, v)}[kind]()
        else:
            for inv in invs:
                inv.env[nd.id] = evaluate(k, nd, inv)
    outs = {}
    for w, per in k.output_types():
        outs[w] = [0] * (k.invocations * per)
    for inv in invs:
        offsets = {w: 0 for w, _ in k.output_types()}
        per_of = dict(k.output_types())
        for nid in k.outputs:
            ty = k.node(nid).ty
            v = inv.env[nid]
            lanes = v if ty.lanes else (v,)
            at = inv.gid * per_of[ty.w] + offsets[ty.w]
            outs[ty.w][at:at + len(lanes)] = list(lanes)
            offsets[ty.w] += len(lanes)
    return outs, acc


__all__ = ["execute", "walk"]
