"""Random integer kernels for the differential tester: their tree form
(nodes in statement order, regions for scf.if/for/while), a generator, and
the printer that turns a kernel into xpu-dialect MLIR text.

A kernel is what the reference interpreter (reference.py) runs and the
reducer (reduce.py) shrinks; the text is what xpujit compiles."""
import dataclasses
import random

WIDTHS = (1, 8, 16, 32, 64)
BINARY = ("addi", "subi", "muli", "divsi", "divui", "remsi", "remui",
          "floordivsi", "ceildivsi", "ceildivui", "andi", "ori", "xori",
          "shli", "shrsi", "shrui", "maxsi", "minsi", "maxui", "minui")
PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
MATH = ("absi", "ctlz", "cttz", "ctpop")
REDUCTIONS = ("add", "mul", "and", "or", "xor", "minsi", "maxsi", "minui", "maxui")
# xpu.reduce kinds (the integer ones) and orders; tree and unspecified are
# portable-only (XPU-GC008), so a kernel using them is made portable.
WORKGROUP_REDUCE = ("add", "mul", "smin", "smax", "umin", "umax", "and", "or", "xor")
ORDERS = ("sequential", "tree", "unspecified")
ATOMICS = ("add", "sub", "and", "or", "xor", "smin", "smax", "umin", "umax")
# Wave operations (helper "surface" adds them): each entry is a generator
# hook (Gen method name). Their results depend on the wave width, so the
# reference needs the device's width and the kernel must be portable
# (XPU-GC012 refuses them under deterministic-v1). None exist yet.
WAVE_OPS = ()


@dataclasses.dataclass(frozen=True)
class Ty:
    """iW (lanes == 0) or vector<lanes x iW>."""
    w: int
    lanes: int = 0

    @property
    def elem(self):
        return Ty(self.w)

    def mlir(self):
        s = f"i{self.w}"
        return f"vector<{self.lanes}x{s}>" if self.lanes else s

    def with_w(self, w):
        return Ty(w, self.lanes)

    def bool(self):
        return Ty(1, self.lanes)


@dataclasses.dataclass
class Node:
    """One value. `op` names what computes it; `args` are ids of earlier
    nodes; `attrs` the rest. Region nodes (if/for/while) carry `regions`:
    lists of nodes, whose last entry's `yields` name what they yield."""
    id: int
    op: str
    ty: Ty
    args: list = dataclasses.field(default_factory=list)
    attrs: dict = dataclasses.field(default_factory=dict)
    regions: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Kernel:
    """A kernel: launch shape, parameters, the body and what it stores."""
    workgroup: int
    grid: int
    inputs: list          # [(Ty elem, lanes per invocation)] read-only buffers
    scalar: object        # Ty of the scalar parameter, or None
    body: list            # top-level nodes in order
    outputs: list         # ids of values stored, per invocation, in order
    atomic: object = None  # Ty (i32/i64) of the atomic buffer, or None
    atomic_slots: int = 8
    portable: bool = False
    name: str = "k"

    @property
    def invocations(self):
        return self.workgroup * self.grid

    def output_types(self):
        """Element types of the output buffers, in parameter order, and the
        elements each invocation stores into each."""
        types = {}
        for nid in self.outputs:
            ty = self.node(nid).ty
            types[ty.w] = types.get(ty.w, 0) + max(1, ty.lanes)
        return sorted(types.items())

    def node(self, nid):
        for n in walk(self.body):
            if n.id == nid:
                return n
        raise KeyError(nid)


def walk(nodes):
    for n in nodes:
        yield n
        for r in n.regions:
            yield from walk(r)


def mask(w):
    return (1 << w) - 1


def edge_value(rng, w):
    """An integer of width w (unsigned form), biased to edge cases."""
    m = mask(w)
    r = rng.random()
    if w == 1:
        return rng.randrange(2)
    if r < 0.35:
        return rng.choice((0, 1, 2, m, m - 1, 1 << (w - 1), (1 << (w - 1)) - 1,
                           (1 << (w - 1)) + 1, w, w - 1, w + 1)) & m
    if r < 0.6:
        return rng.randrange(-9, 10) & m
    if r < 0.7:
        return (1 << rng.randrange(w)) & m
    return rng.getrandbits(w)


class Gen:
    """Grows one random kernel."""

    def __init__(self, rng, size):
        self.rng = rng
        self.size = size
        self.next_id = 0
        self.portable = False
        self.top = None  # the kernel's top-level body

    def new(self, op, ty, args=(), **attrs):
        n = Node(self.next_id, op, ty, list(args), attrs)
        self.next_id += 1
        return n

    # The values visible at a point: every node of the enclosing scopes.
    def pick(self, scope, ty=None, pred=None):
        cands = [n for n in scope if n.op != "atomic" and n.ty is not None
                 and (ty is None or n.ty == ty) and (pred is None or pred(n.ty))]
        return self.rng.choice(cands) if cands else None

    def rand_ty(self, vec=0.35):
        w = self.rng.choice(WIDTHS)
        lanes = self.rng.choice((2, 3, 4)) if self.rng.random() < vec else 0
        return Ty(w, lanes)

    def const(self, ty):
        if ty.lanes:
            v = tuple(edge_value(self.rng, ty.w) for _ in range(ty.lanes))
        else:
            v = edge_value(self.rng, ty.w)
        return self.new("const", ty, value=v)

    def operand(self, scope, out, ty):
        """A value of `ty`: an existing one, or a new constant or cast."""
        n = self.pick(scope, ty)
        if n is not None and self.rng.random() < 0.8:
            return n
        if self.rng.random() < 0.5:
            src = self.pick(scope, pred=lambda t: t.lanes == ty.lanes and t.w != ty.w)
            if src is not None:
                op = "trunci" if src.ty.w > ty.w else self.rng.choice(("extsi", "extui"))
                c = self.new(op, ty, [src.id])
                out.append(c)
                scope.append(c)
                return c
        if ty.lanes and self.rng.random() < 0.5:
            s = self.pick(scope, ty.elem)
            if s is not None:
                c = self.new("broadcast", ty, [s.id])
                out.append(c)
                scope.append(c)
                return c
        r = self.rng.random()
        if r < 0.03:
            # Defined as zero (docs/profiles.md): ub.poison, and a read of
            # scratch memory nothing wrote.
            c = self.new("poison", ty)
        elif r < 0.06 and out is self.top:
            # At the top level: the bounds proof does not follow constants
            # into loop headers (XPU-GC007 for a load at a constant index
            # inside an scf.while's "before" region).
            c = self.new("unwritten", ty, space=self.rng.choice(("private", "shared")))
        else:
            c = self.const(ty)
        out.append(c)
        scope.append(c)
        return c

    def expr(self, scope, out, depth=0):
        """Adds one computed node to `out` (and `scope`)."""
        rng = self.rng
        r = rng.random()
        base = self.pick(scope)
        ty = base.ty if base is not None and rng.random() < 0.7 else self.rand_ty()
        n = None
        if r < 0.40:
            op = rng.choice(BINARY)
            a = self.operand(scope, out, ty)
            b = self.operand(scope, out, ty)
            n = self.new(op, ty, [a.id, b.id])
        elif r < 0.48:
            a = self.operand(scope, out, ty)
            b = self.operand(scope, out, ty)
            n = self.new("cmpi", ty.bool(), [a.id, b.id], pred=rng.choice(PREDICATES))
        elif r < 0.54:
            c = self.operand(scope, out, ty.bool() if rng.random() < 0.5 else Ty(1))
            a = self.operand(scope, out, ty)
            b = self.operand(scope, out, ty)
            n = self.new("select", ty, [c.id, a.id, b.id])
        elif r < 0.64:
            src = self.operand(scope, out, ty)
            w = rng.choice([x for x in WIDTHS if x != ty.w])
            if src.ty.w <= 32 and not ty.lanes and w > 1 and rng.random() < 0.3:
                op = rng.choice(("index_cast", "index_castui"))
            else:
                op = "trunci" if w < ty.w else rng.choice(("extsi", "extui"))
            n = self.new(op, ty.with_w(w), [src.id])
        elif r < 0.70:
            a = self.operand(scope, out, ty)
            n = self.new(rng.choice(MATH), ty, [a.id])
        elif r < 0.74:
            a = self.operand(scope, out, ty)
            b = self.operand(scope, out, ty)
            kind = rng.choice(("mulsi_extended", "mului_extended", "addui_extended"))
            part = rng.randrange(2)
            rty = ty.bool() if kind == "addui_extended" and part else ty
            n = self.new(kind, rty, [a.id, b.id], part=part)
        elif r < 0.86:
            n = self.vector_op(scope, out, ty)
        elif r < 0.90 and depth < 2:
            n = self.if_op(scope, out, ty, depth)
        elif r < 0.94 and depth < 2:
            n = self.for_op(scope, out, ty, depth)
        elif r < 0.97 and depth < 2:
            n = self.while_op(scope, out, ty, depth)
        else:
            n = self.const(ty)
        if n is None:
            n = self.const(ty)
        out.append(n)
        scope.append(n)
        return n

    def vector_op(self, scope, out, ty):
        rng = self.rng
        lanes = ty.lanes or rng.choice((2, 3, 4))
        vty = Ty(ty.w, lanes)
        kind = rng.randrange(6)
        if kind == 0:
            s = self.operand(scope, out, vty.elem)
            return self.new("broadcast", vty, [s.id])
        v = self.operand(scope, out, vty)
        if kind == 1:
            return self.new("extract", vty.elem, [v.id], pos=rng.randrange(lanes))
        if kind == 2:
            s = self.operand(scope, out, vty.elem)
            return self.new("insert", vty, [s.id, v.id], pos=rng.randrange(lanes))
        if kind == 3:
            u = self.operand(scope, out, vty)
            m = rng.choice((2, 3, 4))
            return self.new("shuffle", Ty(ty.w, m), [v.id, u.id],
                            mask=[rng.randrange(2 * lanes) for _ in range(m)])
        if kind == 4:
            k = rng.choice(REDUCTIONS)
            args = [v.id]
            if rng.random() < 0.3:
                args.append(self.operand(scope, out, vty.elem).id)
            return self.new("reduction", vty.elem, args, kind=k)
        elems = [self.operand(scope, out, vty.elem).id for _ in range(lanes)]
        return self.new("from_elements", vty, elems)

    def region(self, scope, args, ty, depth, steps):
        """A region body: block arguments `args`, then computed nodes; its
        last node is the value of `ty` it yields."""
        body = list(args)
        inner = scope + body
        for _ in range(steps):
            self.expr(inner, body, depth + 1)
        y = self.operand(inner, body, ty)
        return body, y

    def if_op(self, scope, out, ty, depth):
        c = self.operand(scope, out, Ty(1))
        then, ty1 = self.region(scope, [], ty, depth, self.rng.randrange(1, 4))
        els, ty2 = self.region(scope, [], ty, depth, self.rng.randrange(0, 3))
        n = self.new("if", ty, [c.id], yields=[ty1.id, ty2.id])
        n.regions = [then, els]
        return n

    def trip_count(self, scope, out):
        """An iN value whose low bits give a per-invocation trip count."""
        src = self.pick(scope, pred=lambda t: not t.lanes and t.w > 1)
        if src is None:
            src = self.operand(scope, out, Ty(32))
        return src

    def for_op(self, scope, out, ty, depth):
        cnt = self.trip_count(scope, out)
        init = self.operand(scope, out, ty)
        iv = self.new("arg", Ty(32), role="iv")      # the induction variable as i32
        acc = self.new("arg", ty, role="acc")
        body, y = self.region(scope, [iv, acc], ty, depth, self.rng.randrange(1, 4))
        n = self.new("for", ty, [cnt.id, init.id], yields=[y.id])
        n.regions = [body]
        return n

    def while_op(self, scope, out, ty, depth):
        cnt = self.trip_count(scope, out)
        init = self.operand(scope, out, ty)
        a = self.new("arg", ty, role="a")
        header, h = self.region(scope, [a], ty, depth, self.rng.randrange(1, 3))
        b = self.new("arg", ty, role="b")
        after, y = self.region(scope, [b], ty, depth, self.rng.randrange(0, 2))
        n = self.new("while", ty, [cnt.id, init.id], yields=[h.id, y.id])
        n.regions = [header, after]
        return n

    # Statements only at the top level (uniform control flow).
    def shared(self, scope, out):
        v = self.pick(scope)
        if v is None:
            return
        n = self.new("shared", v.ty, [v.id], rot=self.rng.randrange(1, 8))
        out.append(n)
        scope.append(n)

    def reduce(self, scope, out):
        v = self.pick(scope, pred=lambda t: not t.lanes)
        if v is None:
            return
        order = self.rng.choice(ORDERS)
        self.portable |= order != "sequential"
        n = self.new("reduce", v.ty, [v.id], kind=self.rng.choice(WORKGROUP_REDUCE),
                     order=order)
        out.append(n)
        scope.append(n)

    def atomic(self, scope, out, aty, kind):
        """Every atomic of a kernel combines the same way: different kinds
        on one element would not commute, so the result would depend on
        which invocation went first."""
        v = self.operand(scope, out, aty)
        slot = self.pick(scope, pred=lambda t: not t.lanes and t.w > 1) or v
        n = self.new("atomic", None, [v.id, slot.id], kind=kind)
        out.append(n)


def generate(seed, size=None):
    """The kernel of `seed` (the same seed gives the same kernel)."""
    rng = random.Random(seed)
    size = size or rng.randrange(6, 28)
    g = Gen(rng, size)
    workgroup = rng.choice((1, 2, 3, 4, 5, 7, 8, 16, 32))
    grid = rng.choice((1, 2, 3, 4))
    inputs = []
    for _ in range(rng.randrange(1, 4)):
        ty = g.rand_ty(vec=0)
        if ty.w not in [t.w for t, _ in inputs]:
            inputs.append((ty, rng.choice((1, 2, 3, 4))))
    scalar = g.rand_ty() if rng.random() < 0.5 else None
    atomic = Ty(rng.choice((32, 64))) if rng.random() < 0.3 else None
    atomic_kind = rng.choice(ATOMICS)

    body, scope = [], []
    g.top = body
    for b, (ety, per) in enumerate(inputs):
        for k in range(per):
            lanes = rng.choice([0, 0] + list(range(2, per - k + 1)))
            n = g.new("load", Ty(ety.w, lanes), buf=b, offset=k)
            body.append(n)
            scope.append(n)
    if scalar is not None:
        n = g.new("param", scalar)
        body.append(n)
        scope.append(n)
    for which in ("global", "thread"):
        if rng.random() < 0.3:
            n = g.new("coord", Ty(rng.choice((8, 16, 32, 64))), which=which)
            body.append(n)
            scope.append(n)
    for _ in range(size):
        r = rng.random()
        if r < 0.06:
            g.shared(scope, body)
        elif r < 0.11:
            g.reduce(scope, body)
        elif r < 0.15 and atomic is not None:
            g.atomic(scope, body, atomic, atomic_kind)
        else:
            g.expr(scope, body)
    computed = [n for n in body if n.op not in ("load", "param", "atomic")]
    picks = rng.sample(computed, min(len(computed), rng.randrange(1, 5))) or body[:1]
    # At most three output buffers: keep the values of three widths.
    widths = sorted({n.ty.w for n in picks})[:3]
    outputs = [n.id for n in picks if n.ty.w in widths]
    if atomic is not None and not any(n.op == "atomic" for n in body):
        g.atomic(scope, body, atomic, atomic_kind)
    return Kernel(workgroup, grid, inputs, scalar, body, outputs, atomic,
                  portable=g.portable)


# ---------------------------------------------------------------------------
# Printing
# ---------------------------------------------------------------------------

VECTOR_KIND = {"add": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor",
               "minsi": "minsi", "maxsi": "maxsi", "minui": "minui", "maxui": "maxui"}


def _const_text(ty, value):
    def one(v):
        if ty.w == 1:
            return "true" if v else "false"
        return str(v - (1 << ty.w) if v >> (ty.w - 1) else v)
    if ty.lanes:
        return f"dense<[{', '.join(one(v) for v in value)}]> : {ty.mlir()}"
    return one(value) if ty.w == 1 else f"{one(value)} : {ty.mlir()}"


def _buffer(elem_w, count, ro=False, space=None):
    extra = ", ro" if ro else (f", {space}" if space else "")
    return f"!xpu.buffer<{count}xi{elem_w}{extra}>"


class Printer:
    def __init__(self, k):
        self.k = k
        self.lines = []
        self.tmp = 0
        self.indent = 1
        self.names = {}

    def n(self, nid):
        """The SSA name of node `nid`."""
        return self.names.get(nid, f"%v{nid}")

    def emit(self, s):
        self.lines.append("  " * self.indent + s)

    def fresh(self):
        self.tmp += 1
        return f"%t{self.tmp}"

    def index_const(self, v):
        t = self.fresh()
        self.emit(f"{t} = arith.constant {v} : index")
        return t

    def text(self):
        k = self.k
        params = []
        outs = k.output_types()
        n = k.invocations
        for w, per in outs:
            params.append(f"%o{w}: {_buffer(w, n * per)}")
        for b, (ety, per) in enumerate(k.inputs):
            params.append(f"%in{b}: {_buffer(ety.w, n * per, ro=True)}")
        if k.scalar is not None:
            params.append(f"%p: {k.scalar.mlir()}")
        if k.atomic is not None:
            params.append(f"%acc: {_buffer(k.atomic.w, k.atomic_slots)}")
        shape = (f"workgroup_size = array<i64: {k.workgroup}, 1, 1>, "
                 f"grid_size = array<i64: {k.grid}, 1, 1>")
        if k.portable:
            attrs = shape
        else:
            # One text runs on every backend, so it declares no
            # DeviceDispatch: that would have to name one device (XPU-GC002).
            attrs = ('profile = "deterministic-v1", effects = ["DeviceCopyIn", '
                     '"DeviceCopyOut"], ' + shape)
        head = f"xpu.kernel @{k.name}({', '.join(params)})\n    attributes {{{attrs}}} {{"
        self.emit("%gid = xpu.global_id x")
        self.emit("%tid = xpu.thread_id x")
        self.body(k.body)
        # Stores: each output buffer holds `per` elements per invocation.
        offsets = {w: 0 for w, _ in outs}
        per_of = dict(outs)
        for nid in k.outputs:
            node = k.node(nid)
            w = node.ty.w
            at = self.position(per_of[w], offsets[w])
            suffix = f" -> {node.ty.mlir()}" if node.ty.lanes else ""
            self.emit(f"xpu.store {self.n(nid)}, %o{w}[{at}] : {_buffer(w, n * per_of[w])}{suffix}")
            offsets[w] += max(1, node.ty.lanes)
        self.emit("xpu.return")
        return head + "\n" + "\n".join(self.lines) + "\n}\n"

    def position(self, per, offset):
        """gid * per + offset, as index."""
        c = self.index_const(per)
        t = self.fresh()
        self.emit(f"{t} = arith.muli %gid, {c} : index")
        if offset:
            o = self.index_const(offset)
            u = self.fresh()
            self.emit(f"{u} = arith.addi {t}, {o} : index")
            return u
        return t

    def body(self, nodes):
        for node in nodes:
            self.node(node)

    def node(self, nd):
        k = self.k
        v = self.n(nd.id)
        ty = nd.ty.mlir() if nd.ty else None
        a = [self.n(x) for x in nd.args]
        op = nd.op
        if op == "arg":
            return  # printed as a block argument
        if op == "load":
            ety, per = k.inputs[nd.attrs["buf"]]
            at = self.position(per, nd.attrs["offset"])
            suffix = f" -> {ty}" if nd.ty.lanes else ""
            self.emit(f"{v} = xpu.load %in{nd.attrs['buf']}[{at}] : "
                      f"{_buffer(ety.w, k.invocations * per, ro=True)}{suffix}")
        elif op == "param":
            self.names[nd.id] = "%p"
        elif op == "coord":
            src = "%gid" if nd.attrs["which"] == "global" else "%tid"
            self.emit(f"{v} = arith.index_castui {src} : index to {ty}")
        elif op == "const":
            self.emit(f"{v} = arith.constant {_const_text(nd.ty, nd.attrs['value'])}")
        elif op == "poison":
            self.emit(f"{v} = ub.poison : {ty}")
        elif op == "unwritten":
            per = max(1, nd.ty.lanes)
            buf = _buffer(nd.ty.w, 4 * per, space=nd.attrs["space"])
            s = f"%u{nd.id}"
            self.emit(f"{s} = xpu.alloc : {buf}")
            at = self.index_const(per)
            suffix = f" -> {ty}" if nd.ty.lanes else ""
            self.emit(f"{v} = xpu.load {s}[{at}] : {buf}{suffix}")
        elif op in BINARY:
            self.emit(f"{v} = arith.{op} {a[0]}, {a[1]} : {ty}")
        elif op == "cmpi":
            src = k.node(nd.args[0]).ty.mlir()
            self.emit(f"{v} = arith.cmpi {nd.attrs['pred']}, {a[0]}, {a[1]} : {src}")
        elif op == "select":
            cty = k.node(nd.args[0]).ty.mlir()
            self.emit(f"{v} = arith.select {a[0]}, {a[1]}, {a[2]} : {cty}, {ty}")
        elif op in ("trunci", "extsi", "extui"):
            src = k.node(nd.args[0]).ty.mlir()
            self.emit(f"{v} = arith.{op} {a[0]} : {src} to {ty}")
        elif op in ("index_cast", "index_castui"):
            src = k.node(nd.args[0]).ty.mlir()
            t = self.fresh()
            self.emit(f"{t} = arith.{op} {a[0]} : {src} to index")
            self.emit(f"{v} = arith.{op} {t} : index to {ty}")
        elif op in MATH:
            self.emit(f"{v} = math.{op} {a[0]} : {ty}")
        elif op in ("mulsi_extended", "mului_extended", "addui_extended"):
            src = k.node(nd.args[0]).ty.mlir()
            lo, hi = f"{v}_lo", f"{v}_hi"
            if op == "addui_extended":
                self.emit(f"{lo}, {hi} = arith.{op} {a[0]}, {a[1]} : {src}, "
                          f"{k.node(nd.args[0]).ty.bool().mlir()}")
            else:
                self.emit(f"{lo}, {hi} = arith.{op} {a[0]}, {a[1]} : {src}")
            self.names[nd.id] = hi if nd.attrs["part"] else lo
        elif op == "broadcast":
            src = k.node(nd.args[0]).ty.mlir()
            self.emit(f"{v} = vector.broadcast {a[0]} : {src} to {ty}")
        elif op == "extract":
            src = k.node(nd.args[0]).ty.mlir()
            self.emit(f"{v} = vector.extract {a[0]}[{nd.attrs['pos']}] : {ty} from {src}")
        elif op == "insert":
            self.emit(f"{v} = vector.insert {a[0]}, {a[1]}[{nd.attrs['pos']}] : "
                      f"{k.node(nd.args[0]).ty.mlir()} into {ty}")
        elif op == "shuffle":
            src = k.node(nd.args[0]).ty.mlir()
            m = ", ".join(map(str, nd.attrs["mask"]))
            self.emit(f"{v} = vector.shuffle {a[0]}, {a[1]} [{m}] : {src}, {src}")
        elif op == "reduction":
            src = k.node(nd.args[0]).ty.mlir()
            acc = f", {a[1]}" if len(a) > 1 else ""
            self.emit(f"{v} = vector.reduction <{VECTOR_KIND[nd.attrs['kind']]}>, {a[0]}{acc}"
                      f" : {src} into {ty}")
        elif op == "from_elements":
            self.emit(f"{v} = vector.from_elements {', '.join(a)} : {ty}")
        elif op == "if":
            self.emit(f"{v} = scf.if {a[0]} -> ({ty}) {{")
            self.region(nd.regions[0], nd.attrs["yields"][0], "scf.yield", ty)
            self.emit("} else {")
            self.region(nd.regions[1], nd.attrs["yields"][1], "scf.yield", ty)
            self.emit("}")
        elif op == "for":
            lo = self.index_const(0)
            one = self.index_const(1)
            n = self.trip(nd.args[0])
            iv, acc = nd.regions[0][0], nd.regions[0][1]
            j = self.fresh()
            self.emit(f"{v} = scf.for {j} = {lo} to {n} step {one} "
                      f"iter_args(%v{acc.id} = {a[1]}) -> ({ty}) {{")
            self.indent += 1
            self.emit(f"%v{iv.id} = arith.index_castui {j} : index to i32")
            self.indent -= 1
            self.region(nd.regions[0], nd.attrs["yields"][0], "scf.yield", ty)
            self.emit("}")
        elif op == "while":
            cnt = self.trip(nd.args[0], as_index=False)
            hdr, aft = nd.regions
            m, kk = self.fresh(), self.fresh()
            self.emit(f"{v}, {v}_m = scf.while (%v{hdr[0].id} = {a[1]}, {m} = {cnt}) : "
                      f"({ty}, i32) -> ({ty}, i32) {{")
            self.indent += 1
            z = self.fresh()
            c = self.fresh()
            self.emit(f"{z} = arith.constant 0 : i32")
            self.emit(f"{c} = arith.cmpi sgt, {m}, {z} : i32")
            self.indent -= 1
            self.region(hdr, nd.attrs["yields"][0], f"scf.condition({c})", ty, extra=m)
            self.emit("} do {")
            self.emit(f"^bb0(%v{aft[0].id}: {ty}, {kk}: i32):")
            self.indent += 1
            one, k2 = self.fresh(), self.fresh()
            self.emit(f"{one} = arith.constant 1 : i32")
            self.emit(f"{k2} = arith.subi {kk}, {one} : i32")
            self.indent -= 1
            self.region(aft, nd.attrs["yields"][1], "scf.yield", ty, extra=k2)
            self.emit("}")
        elif op == "shared":
            self.shared(nd)
        elif op == "reduce":
            kind = nd.attrs["kind"]
            self.emit(f"{v} = xpu.reduce {kind} {a[0]} {nd.attrs['order']} : {ty}")
        elif op == "atomic":
            aty = k.atomic
            slot = k.node(nd.args[1])
            s = self.fresh()
            m = self.fresh()
            self.emit(f"{m} = arith.constant {k.atomic_slots - 1} : {slot.ty.mlir()}")
            self.emit(f"{s} = arith.andi {a[1]}, {m} : {slot.ty.mlir()}")
            i = self.fresh()
            self.emit(f"{i} = arith.index_castui {s} : {slot.ty.mlir()} to index")
            self.emit(f"%a{nd.id} = xpu.atomic_rmw {nd.attrs['kind']} {a[0]}, %acc[{i}] "
                      f"seq_cst device : {_buffer(aty.w, k.atomic_slots)}")
        else:
            raise ValueError(f"unknown node {op}")

    def trip(self, nid, as_index=True):
        """The trip count of a loop: the low 3 bits (1 for i1) of a value."""
        src = self.k.node(nid).ty
        m, t = self.fresh(), self.fresh()
        self.emit(f"{m} = arith.constant {1 if src.w == 1 else 7} : {src.mlir()}")
        self.emit(f"{t} = arith.andi {self.n(nid)}, {m} : {src.mlir()}")
        u = self.fresh()
        if as_index:
            self.emit(f"{u} = arith.index_castui {t} : {src.mlir()} to index")
        elif src.w < 32:
            self.emit(f"{u} = arith.extui {t} : {src.mlir()} to i32")
        elif src.w > 32:
            self.emit(f"{u} = arith.trunci {t} : {src.mlir()} to i32")
        else:
            return t
        return u

    def region(self, nodes, yid, term, ty, extra=None):
        self.indent += 1
        self.body(nodes)
        ops = self.n(yid) + (f", {extra}" if extra else "")
        types = ty + (", i32" if extra else "")
        self.emit(f"{term} {ops} : {types}")
        self.indent -= 1

    def shared(self, nd):
        """Every invocation stores its value to a shared slot; after a
        barrier it reads the slot of invocation (tid + rot) mod workgroup."""
        k = self.k
        ty = nd.ty
        per = max(1, ty.lanes)
        buf = _buffer(ty.w, k.workgroup * per, space="shared")
        s = f"%s{nd.id}"
        self.emit(f"{s} = xpu.alloc : {buf}")
        c = self.index_const(per)
        at = self.fresh()
        self.emit(f"{at} = arith.muli %tid, {c} : index")
        suffix = f" -> {ty.mlir()}" if ty.lanes else ""
        self.emit(f"xpu.store {self.n(nd.args[0])}, {s}[{at}] : {buf}{suffix}")
        self.emit("xpu.barrier")
        r = self.index_const(nd.attrs["rot"])
        wg = self.index_const(k.workgroup)
        t1, t2, t3 = self.fresh(), self.fresh(), self.fresh()
        self.emit(f"{t1} = arith.addi %tid, {r} : index")
        self.emit(f"{t2} = arith.remui {t1}, {wg} : index")
        self.emit(f"{t3} = arith.muli {t2}, {c} : index")
        self.emit(f"{self.n(nd.id)} = xpu.load {s}[{t3}] : {buf}{suffix}")


def to_mlir(kernel):
    return Printer(kernel).text()
