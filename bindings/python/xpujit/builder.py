"""The kernel builder: kernels and device functions made by Python calls over
the C builder API (xpu_builder_*), producing exactly the IR the text would
and compiled through the same path.

    b = xpujit.Builder()
    with b.kernel("saxpy") as k:
        y = k.param("y", xpujit.buffer("f32"))
        x = k.param("x", xpujit.buffer("f32", access="ro"))
        a = k.param("a", "f32")
        n = k.param("n", "i32")
        i = b.global_id("x")
        with b.if_(b.cmp("ult", i, b.cast("index_castui", n, "index"))):
            xi, yi = x[i], y[i]
            y[i] = a * xi + yi
    saxpy = b.finish(device).kernel("saxpy")

Values (Value) support + - * / % & | ^ << >> (signed shift) and < <= > >=
(signed for integers, ordered for floats); Python numbers beside a value
become constants of its type. buf[i] loads and buf[i] = v stores. Structure
is written with `with` blocks: kernel/func, if_ (and else_), for_, while_.
Misuse raises InvalidArgumentError or InvalidHandleError from the library,
with a message; the builder stays as it was."""
import ctypes

import numpy as np

from . import _lib, types
from ._lib import lib
from .errors import InvalidArgumentError, check, error, take_diagnostics
from .module import Module, located, module_options

# Operation names -> the C API's enum numbers (see xpu_c.h).
BINARY = {"add": 0, "sub": 1, "mul": 2, "div": 3, "divu": 4, "rem": 5, "remu": 6,
          "min": 7, "minu": 8, "max": 9, "maxu": 10, "and": 11, "or": 12,
          "xor": 13, "shl": 14, "shr": 15, "shru": 16, "pow": 17}
UNARY = {"neg": 0, "abs": 1, "sqrt": 2, "rsqrt": 3, "exp": 4, "exp2": 5,
         "log": 6, "log2": 7, "sin": 8, "cos": 9, "tan": 10, "tanh": 11,
         "floor": 12, "ceil": 13, "round": 14, "trunc": 15}
COMPARE = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5, "ult": 6,
           "ule": 7, "ugt": 8, "uge": 9, "ord": 10, "uno": 11}
CASTS = {"index_cast": 0, "index_castui": 1, "extsi": 2, "extui": 3,
         "trunci": 4, "sitofp": 5, "uitofp": 6, "fptosi": 7, "fptoui": 8,
         "extf": 9, "truncf": 10, "bitcast": 11}
COORDINATES = {"thread_id": 0, "workgroup_id": 1, "global_id": 2,
               "workgroup_size": 3, "grid_size": 4, "global_size": 5,
               "wave_width": 6, "lane_id": 7}
AXES = {"x": 0, "y": 1, "z": 2, 0: 0, 1: 1, 2: 2}
ATOMICS = {"add": 0, "sub": 1, "smin": 2, "smax": 3, "umin": 4, "umax": 5,
           "and": 6, "or": 7, "xor": 8, "xchg": 9, "fadd": 10,
           # cmpxchg goes through atomic_cmpxchg (it needs the expected value).
           "cmpxchg": 11, "fmin": 12, "fmax": 13}
ORDERS = {"relaxed": 0, "acquire": 1, "release": 2, "acq_rel": 3, "seq_cst": 4}
SCOPES = {"invocation": 0, "subgroup": 1, "workgroup": 2, "queue_family": 3,
          "device": 4}
REDUCTIONS = {"add": 0, "mul": 1, "smin": 2, "smax": 3, "umin": 4, "umax": 5,
              "and": 6, "or": 7, "xor": 8, "fmin": 9, "fmax": 10}
REDUCE_ORDERS = {"sequential": 0, "tree": 1, "unspecified": 2}
WAVE_SHUFFLES = {"xor": 0, "up": 1, "down": 2, "index": 3}
WAVE_VOTES = {"any": 0, "all": 1}
WAVE_SCANS = {"inclusive": 0, "exclusive": 1}


def _pick(table, name, what):
    try:
        return table[name]
    except (KeyError, TypeError):
        raise InvalidArgumentError(f"unknown {what} {name!r} (accepted: "
                                   f"{', '.join(map(str, table))})", 1) from None


def type_text(t):
    """An IR type as text: text is kept as written ("f32", "vector<4xf32>",
    "!xpu.buffer<f32>"; the library checks it); NumPy dtypes and Python
    types give the scalar type (np.float32, float: "f32")."""
    return t if isinstance(t, str) else types.scalar(t)


class Value:
    """A value of the kernel being built (an SSA value of the IR), owned by
    its Builder. `type` is its IR type as text."""

    __slots__ = ("builder", "handle", "_type")

    def __init__(self, builder, handle):
        self.builder = builder
        self.handle = handle
        self._type = None

    @property
    def type(self):
        """The IR type, e.g. "f32", "index", "!xpu.buffer<f32, ro>"."""
        if self._type is None:
            out = ctypes.c_char_p()
            check(lib.xpu_builder_value_type(self.builder.handle, self.handle,
                                             ctypes.byref(out)))
            self._type = _lib.string(out.value)
        return self._type

    @property
    def info(self):
        """The type parsed: kind, element, lanes, access, space, size."""
        return types.TypeInfo(self.type)

    def __repr__(self):
        return f"<xpujit.Value {self.type}>"

    def __bool__(self):
        raise TypeError("a kernel value has no truth value while building; "
                        "branch with Builder.if_ or pick with Builder.select")

    def _bin(self, op, other, swap=False):
        a, b = (other, self) if swap else (self, other)
        return self.builder.binary(op, a, b)

    def __add__(self, o): return self._bin("add", o)
    def __radd__(self, o): return self._bin("add", o, True)
    def __sub__(self, o): return self._bin("sub", o)
    def __rsub__(self, o): return self._bin("sub", o, True)
    def __mul__(self, o): return self._bin("mul", o)
    def __rmul__(self, o): return self._bin("mul", o, True)
    def __truediv__(self, o): return self._bin("div", o)
    def __rtruediv__(self, o): return self._bin("div", o, True)
    def __mod__(self, o): return self._bin("rem", o)
    def __rmod__(self, o): return self._bin("rem", o, True)
    def __and__(self, o): return self._bin("and", o)
    def __rand__(self, o): return self._bin("and", o, True)
    def __or__(self, o): return self._bin("or", o)
    def __ror__(self, o): return self._bin("or", o, True)
    def __xor__(self, o): return self._bin("xor", o)
    def __rxor__(self, o): return self._bin("xor", o, True)
    def __lshift__(self, o): return self._bin("shl", o)
    def __rshift__(self, o): return self._bin("shr", o)
    def __pow__(self, o): return self._bin("pow", o)

    def __neg__(self):
        if self.info.is_float:
            return self.builder.unary("neg", self)
        return self.builder.binary("sub", 0, self)

    def __abs__(self): return self.builder.unary("abs", self)
    def __lt__(self, o): return self.builder.cmp("lt", self, o)
    def __le__(self, o): return self.builder.cmp("le", self, o)
    def __gt__(self, o): return self.builder.cmp("gt", self, o)
    def __ge__(self, o): return self.builder.cmp("ge", self, o)

    def __getitem__(self, index):
        """buf[i]: xpu.load of element i (an index value or an int)."""
        return self.builder.load(self, index)

    def __setitem__(self, index, value):
        """buf[i] = v: xpu.store of v at element i."""
        self.builder.store(value, self, index)


class _Block:
    """A `with` block of the builder: ends the block when the body exits
    normally (after an exception it is left open; the error propagates)."""

    def __init__(self, builder):
        self.builder = builder
        self._yields = ()

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None:
            self._end()
        return False

    def yield_(self, *values):
        """The values the current block yields when it ends."""
        self._yields = values

    def _end_block(self, fn, *args):
        """Ends the current block with its yields through C call `fn`
        (yields, count, *args); they are forgotten only once it succeeds."""
        vals = self.builder._handles(self._yields)
        check(fn(self.builder.handle, _lib.values(vals), len(vals), *args))
        self._yields = ()
        return len(vals)


class Function(_Block):
    """A kernel or device function being built; `with` it, declare its
    parameters with param(), and end it with return_() (kernels end
    themselves at the end of the `with` block)."""

    def __init__(self, builder, name, is_kernel):
        super().__init__(builder)
        self.name = name
        self.is_kernel = is_kernel
        self.returned = False

    def param(self, name, type):
        """Appends parameter `%name` of `type` (see type_text) and returns
        its value."""
        return self.builder._make(lib.xpu_builder_param, _lib.text(name),
                                  _lib.text(type_text(type)))

    def params(self, **named_types):
        """Appends one parameter per keyword, in order; returns their values."""
        return tuple(self.param(n, t) for n, t in named_types.items())

    def return_(self, *values):
        """Emits xpu.return with `values` (kernels: none) and ends the function."""
        vals = self.builder._handles(values)
        check(lib.xpu_builder_return(self.builder.handle, _lib.values(vals), len(vals)))
        self.returned = True
        if not self.is_kernel:
            self.builder._result_counts[self.name] = len(vals)

    def _end(self):
        if not self.returned:
            self.return_()


class If(_Block):
    """scf.if: the `with` body is the then-block; else_() switches to the
    else-block. yield_() gives the values the current block yields; the
    if's results are then `results` (and `result` when there is one)."""

    def __init__(self, builder, cond):
        super().__init__(builder)
        check(lib.xpu_builder_if_begin(builder.handle, builder._value(cond).handle))
        self.results = ()

    def else_(self):
        """Ends the then-block (with what yield_() gave) and opens the else."""
        self._end_block(lib.xpu_builder_else)

    def _end(self):
        out = (_lib.handle * max(1, len(self._yields)))()
        count = self._end_block(lib.xpu_builder_if_end, out)
        self.results = self.builder._wrap(out[:count])

    @property
    def result(self):
        """The single result."""
        (r,) = self.results
        return r


class For(_Block):
    """scf.for: `index` is the loop variable and `args` the carried values of
    this iteration; yield_() gives the next ones. After the block,
    `results` (and `result`) are the last carried values."""

    def __init__(self, builder, lower, upper, step, init):
        super().__init__(builder)
        bounds = (lower, upper, step)
        like = next((v.type for v in bounds if isinstance(v, Value)), "index")
        lo, hi, st = (builder._value(v, like) for v in bounds)
        inits = builder._handles(init)
        self._count = len(inits)
        iv = _lib.handle()
        args = (_lib.handle * max(1, len(inits)))()
        check(lib.xpu_builder_for_begin(builder.handle, lo.handle, hi.handle, st.handle,
                                        _lib.values(inits), len(inits),
                                        ctypes.byref(iv), args))
        self.index = Value(builder, iv.value)
        self.args = builder._wrap(args[:len(inits)])
        self.results = ()

    def _end(self):
        out = (_lib.handle * max(1, self._count))()
        self._end_block(lib.xpu_builder_for_end, out)
        self.results = self.builder._wrap(out[:self._count])

    @property
    def result(self):
        """The single result."""
        (r,) = self.results
        return r


class While(_Block):
    """scf.while: `args` are first the carried values (the condition block);
    condition(c, *passed) ends that block and opens the body, whose `args`
    are then the passed values; yield_() gives the next carried values.
    When the condition fails, the passed values are the `results`."""

    def __init__(self, builder, init):
        super().__init__(builder)
        inits = builder._handles(init)
        args = (_lib.handle * max(1, len(inits)))()
        check(lib.xpu_builder_while_begin(builder.handle, _lib.values(inits),
                                          len(inits), args))
        self.args = builder._wrap(args[:len(inits)])
        self._passed = 0
        self.results = ()

    def condition(self, cond, *passed):
        """scf.condition: go on while `cond` holds, passing `passed` to the
        body; returns the body's arguments (also in `args`)."""
        vals = self.builder._handles(passed)
        args = (_lib.handle * max(1, len(vals)))()
        check(lib.xpu_builder_while_do(self.builder.handle, self.builder._value(cond).handle,
                                       _lib.values(vals), len(vals), args))
        self._passed = len(vals)
        self.args = self.builder._wrap(args[:len(vals)])
        return self.args

    def _end(self):
        out = (_lib.handle * max(1, self._passed))()
        self._end_block(lib.xpu_builder_while_end, out, self._passed)
        self.results = self.builder._wrap(out[:self._passed])

    @property
    def result(self):
        """The single result."""
        (r,) = self.results
        return r


class _GridStride(_Block):
    def __init__(self, builder, n):
        super().__init__(builder)
        out = _lib.handle()
        check(lib.xpu_builder_grid_stride_begin(builder.handle, n.handle, ctypes.byref(out)))
        self.index = Value(builder, out.value)

    def __enter__(self):
        return self.index

    def _end(self):
        check(lib.xpu_builder_grid_stride_end(self.builder.handle))


class Builder:
    """Builds a module of kernels and device functions by calls; compile it
    with finish(device) or Device.compile(builder). `text` is the IR so far.
    Operation names follow the IR: binary("add", a, b) is arith.addi or
    arith.addf by operand type, cmp("ult", ...), cast("index_castui", ...).
    Not thread-safe: build from one thread at a time."""

    def __init__(self):
        from .device import context
        self._context = context()
        h = _lib.handle()
        check(lib.xpu_builder_create(self._context.handle, ctypes.byref(h)))
        self.handle = h
        self._result_counts = {}

    def __del__(self):
        if getattr(self, "handle", None) and lib is not None:
            lib.xpu_builder_release(self.handle)

    # -- plumbing -----------------------------------------------------------

    def _make(self, fn, *args):
        out = _lib.handle()
        check(fn(self.handle, *args, ctypes.byref(out)))
        return Value(self, out.value)

    def _wrap(self, handles):
        return tuple(Value(self, h) for h in handles)

    def _value(self, x, like=None):
        """`x` as a Value: values pass through (the library checks they are
        this builder's); Python and NumPy numbers become constants of type
        `like`."""
        if isinstance(x, Value):
            return x
        if like is None:
            raise InvalidArgumentError(
                f"{x!r} needs a kernel value beside it to give it a type (or "
                f"use Builder.constant)", 1)
        return self.constant(x, like)

    def _handles(self, values):
        for v in values:
            if not isinstance(v, Value):
                raise InvalidArgumentError(f"{v!r} is not a kernel value", 1)
        return [v.handle for v in values]

    def _pair(self, a, b):
        like = a.type if isinstance(a, Value) else b.type if isinstance(b, Value) else None
        return self._value(a, like), self._value(b, like)

    # -- structure ----------------------------------------------------------

    def kernel(self, name, *, profile=None, workgroup_size=None, grid_size=None,
               fastmath=False, effects=None, device=None):
        """Begins `xpu.kernel @name`; use it as `with b.kernel(...) as k:`.
        Attributes as in the text: profile ("portable",
        "deterministic-v1"), workgroup_size and grid_size (1 to 3 extents),
        fastmath, effects (a list of effect names), device."""
        attrs = _lib.KernelAttributes()
        attrs.struct_size = ctypes.sizeof(attrs)
        attrs.profile = _lib.text(profile)
        for field, shape in (("workgroup_size", workgroup_size), ("grid_size", grid_size)):
            if shape is not None:
                shape = (shape,) if np.isscalar(shape) else tuple(shape)
                getattr(attrs, field)[:len(shape)] = [int(x) for x in shape]
        attrs.fastmath = 1 if fastmath else 0
        if effects is not None:
            names = (ctypes.c_char_p * max(1, len(effects)))(*[e.encode() for e in effects])
            attrs.effects, attrs.effect_count = names, len(effects)
        attrs.device = _lib.text(device)
        check(lib.xpu_builder_kernel_begin(self.handle, _lib.text(name), ctypes.byref(attrs)))
        return Function(self, name, True)

    def func(self, name):
        """Begins `xpu.func @name`, a device helper; its results are what
        its return_() gives. Use it as `with b.func(...) as f:`."""
        check(lib.xpu_builder_func_begin(self.handle, _lib.text(name)))
        return Function(self, name, False)

    def if_(self, cond):
        """Begins scf.if on `cond` (an i1 value); see If."""
        return If(self, cond)

    def for_(self, lower, upper, step=1, init=()):
        """Begins scf.for from `lower` to `upper` (exclusive) by `step`
        (ints become constants of the type of a value among them, else
        index), carrying the values `init`; see For."""
        return For(self, lower, upper, step, init)

    def while_(self, init=()):
        """Begins scf.while carrying the values `init`; see While."""
        return While(self, init)

    def call(self, callee, *args):
        """xpu.call of device function `callee` (built and ended earlier);
        returns None, its result, or a tuple of its results."""
        vals = self._handles(args)
        count = self._result_counts.get(callee, 0)
        out = (_lib.handle * max(1, count))()
        check(lib.xpu_builder_call(self.handle, _lib.text(callee), _lib.values(vals),
                                   len(vals), out, count))
        results = self._wrap(out[:count])
        return None if count == 0 else results[0] if count == 1 else results

    # -- values ---------------------------------------------------------------

    def constant(self, value, type):
        """arith.constant `value` of `type` (a scalar, or a vector splat)."""
        t = type_text(type)
        if types.TypeInfo(t).is_float:
            return self._make(lib.xpu_builder_constant_float, t.encode(), float(value))
        if isinstance(value, (float, np.floating)):
            raise InvalidArgumentError(f"{value!r} is not an integer ({t})", 1)
        return self._make(lib.xpu_builder_constant_int, t.encode(), int(value))

    def binary(self, op, a, b):
        """A binary operation by name: add sub mul div divu rem remu min minu
        max maxu and or xor shl shr shru pow (see xpu_binary_op)."""
        number = _pick(BINARY, op, "binary operation")
        a, b = self._pair(a, b)
        return self._make(lib.xpu_builder_binary, number, a.handle, b.handle)

    def unary(self, op, x):
        """A unary operation by name: neg abs sqrt rsqrt exp exp2 log log2 sin
        cos tan tanh floor ceil round trunc (see xpu_unary_op)."""
        return self._make(lib.xpu_builder_unary, _pick(UNARY, op, "unary operation"),
                          self._value(x).handle)

    def cmp(self, predicate, a, b):
        """A comparison: eq ne lt le gt ge (signed / ordered), ult ule ugt uge
        (unsigned / unordered), ord uno (floats); gives i1."""
        number = _pick(COMPARE, predicate, "predicate")
        a, b = self._pair(a, b)
        return self._make(lib.xpu_builder_compare, number, a.handle, b.handle)

    def select(self, cond, a, b):
        """arith.select: `a` where `cond` holds, else `b`."""
        a, b = self._pair(a, b)
        return self._make(lib.xpu_builder_select, self._value(cond).handle,
                          a.handle, b.handle)

    def fma(self, a, b, c):
        """math.fma: a * b + c rounded once."""
        like = next((v.type for v in (a, b, c) if isinstance(v, Value)), None)
        a, b, c = (self._value(v, like) for v in (a, b, c))
        return self._make(lib.xpu_builder_fma, a.handle, b.handle, c.handle)

    def cast(self, kind, value, type):
        """A conversion by its arith name: index_cast index_castui extsi extui
        trunci sitofp uitofp fptosi fptoui extf truncf bitcast."""
        return self._make(lib.xpu_builder_cast, _pick(CASTS, kind, "cast"),
                          self._value(value).handle, type_text(type).encode())

    def broadcast(self, scalar, lanes):
        """vector.broadcast: a vector of `lanes` copies of `scalar`."""
        return self._make(lib.xpu_builder_broadcast, self._value(scalar).handle, lanes)

    def extract(self, vector, lane):
        """vector.extract: lane `lane` of `vector`."""
        return self._make(lib.xpu_builder_extract, self._value(vector).handle, lane)

    def insert(self, scalar, vector, lane):
        """vector.insert: `vector` with lane `lane` replaced by `scalar`."""
        return self._make(lib.xpu_builder_insert, self._value(scalar).handle,
                          self._value(vector).handle, lane)

    # -- coordinates, memory, synchronization ---------------------------------

    def coordinate(self, which, axis="x"):
        """A coordinate by name (thread_id, workgroup_id, global_id,
        workgroup_size, grid_size, global_size, wave_width, lane_id) along
        axis "x", "y" or "z"."""
        return self._make(lib.xpu_builder_coordinate,
                          _pick(COORDINATES, which, "coordinate"),
                          _pick(AXES, axis, "axis"))

    def thread_id(self, axis="x"):
        """xpu.thread_id: the invocation's index inside its workgroup."""
        return self.coordinate("thread_id", axis)

    def workgroup_id(self, axis="x"):
        """xpu.workgroup_id: the workgroup's index inside the grid."""
        return self.coordinate("workgroup_id", axis)

    def global_id(self, axis="x"):
        """xpu.global_id: workgroup_id * workgroup_size + thread_id."""
        return self.coordinate("global_id", axis)

    def workgroup_size(self, axis="x"):
        """xpu.workgroup_size: invocations per workgroup."""
        return self.coordinate("workgroup_size", axis)

    def grid_size(self, axis="x"):
        """xpu.grid_size: workgroups in the grid."""
        return self.coordinate("grid_size", axis)

    def global_size(self, axis="x"):
        """xpu.global_size: grid_size * workgroup_size (the grid-stride step)."""
        return self.coordinate("global_size", axis)

    def wave_width(self):
        """xpu.wave_width: invocations per wave on the target (never assume 32)."""
        return self.coordinate("wave_width", 0)

    def lane_id(self):
        """xpu.lane_id: the invocation's index inside its wave."""
        return self.coordinate("lane_id", 0)

    def load(self, buffer, index, lanes=1):
        """xpu.load: element `index` of `buffer`, or a vector of `lanes`
        (2 to 4) elements from there. `index` is an index value or an int."""
        return self._make(lib.xpu_builder_load, self._value(buffer).handle,
                          self._value(index, "index").handle, lanes)

    def store(self, value, buffer, index):
        """xpu.store: `value` (a number becomes the element type) at `index`."""
        buffer = self._value(buffer)
        value = self._value(value, buffer.info.element)
        check(lib.xpu_builder_store(self.handle, value.handle, buffer.handle,
                                    self._value(index, "index").handle))

    def buffer_size(self, buffer):
        """xpu.buffer_size: the buffer's length in elements (index)."""
        return self._make(lib.xpu_builder_buffer_size, self._value(buffer).handle)

    def alloc(self, type):
        """xpu.alloc: shared or private scratch, e.g.
        buffer("f32", space="shared", size=256)."""
        return self._make(lib.xpu_builder_alloc, type_text(type).encode())

    def barrier(self):
        """xpu.barrier: every invocation of the workgroup waits for the others."""
        check(lib.xpu_builder_barrier(self.handle))

    def atomic(self, op, value, buffer, index, order="seq_cst", scope="device"):
        """xpu.atomic_rmw `op` (add sub smin smax umin umax and or xor xchg
        fadd fmin fmax) of `value` on element `index`; returns the previous value.
        `order`: relaxed acquire release acq_rel seq_cst; `scope`:
        invocation subgroup workgroup queue_family device."""
        buffer = self._value(buffer)
        return self._make(lib.xpu_builder_atomic, _pick(ATOMICS, op, "atomic operation"),
                          self._value(value, buffer.info.element).handle, buffer.handle,
                          self._value(index, "index").handle,
                          _pick(ORDERS, order, "memory order"), _pick(SCOPES, scope, "scope"))

    def atomic_cmpxchg(self, expected, desired, buffer, index, order="seq_cst",
                       scope="device"):
        """xpu.atomic_rmw cmpxchg: stores `desired` at `index` if the element
        equals `expected` bit for bit; returns the element it found (the
        exchange happened when that equals `expected`)."""
        buffer = self._value(buffer)
        elem = buffer.info.element
        return self._make(lib.xpu_builder_atomic_cmpxchg, self._value(expected, elem).handle,
                          self._value(desired, elem).handle, buffer.handle,
                          self._value(index, "index").handle,
                          _pick(ORDERS, order, "memory order"), _pick(SCOPES, scope, "scope"))

    def reduce(self, op, value, order="sequential"):
        """xpu.reduce `op` (add mul smin smax umin umax and or xor fmin fmax)
        of `value` over the workgroup, in `order` (sequential, tree,
        unspecified); every invocation gets the result."""
        return self._make(lib.xpu_builder_reduce, _pick(REDUCTIONS, op, "reduction"),
                          self._value(value).handle,
                          _pick(REDUCE_ORDERS, order, "reduction order"))

    def fn_value(self, callee, functions):
        """xpu.fn_value: a bounded function value (i32) naming `callee`, one of
        the device function names in `functions`."""
        names = (ctypes.c_char_p * len(functions))(*(f.encode() for f in functions))
        return self._make(lib.xpu_builder_fn_value, callee.encode(), names, len(functions))

    def fn_call(self, function, functions, *args, results=1):
        """xpu.fn_call: calls the function of `functions` that `function`
        names; outside the set nothing is called and the results are zero.
        Returns `results` values (one Value, or a tuple)."""
        names = (ctypes.c_char_p * len(functions))(*(f.encode() for f in functions))
        handles = self._handles([self._value(a) for a in args])
        out = (_lib.handle * max(1, results))()
        check(lib.xpu_builder_fn_call(self.handle, self._value(function, "i32").handle, names,
                                      len(functions), _lib.values(handles), len(handles), out,
                                      results))
        values = self._wrap(out[:results])
        return values[0] if results == 1 else values

    def grid_stride(self, n):
        """The grid-stride loop: `with b.grid_stride(n) as i:` runs the body
        for i = global_id, global_id + global_size, ... below n (an index
        value or int)."""
        return _GridStride(self, self._value(n, "index"))

    def printf(self, format, *values):
        """xpu.printf: prints `values` by the C format `format` when the
        launch's stream synchronizes (portable profile only)."""
        handles = self._handles([self._value(v) for v in values])
        check(lib.xpu_builder_printf(self.handle, format.encode(), _lib.values(handles),
                                     len(handles)))

    def struct_get(self, value, field):
        """xpu.struct_get: field `field` of a struct parameter (declare it with
        xpujit.struct_type)."""
        return self._make(lib.xpu_builder_struct_get, self._value(value).handle,
                          field.encode())

    # -- wave (subgroup) operations ------------------------------------------
    # Every live lane of a wave must reach them together; values are i32,
    # i64, f32 or f64 (see xpu_c.h, "Builder: wave (subgroup) operations").

    def wave_shuffle(self, mode, value, offset):
        """xpu.wave_shuffle: `value` of the lane named by `mode` (xor, up,
        down, index) and `offset` (an i32 value or int); a source that is not
        a live lane gives the lane its own value."""
        return self._make(lib.xpu_builder_wave_shuffle,
                          _pick(WAVE_SHUFFLES, mode, "shuffle mode"),
                          self._value(value).handle, self._value(offset, "i32").handle)

    def wave_broadcast(self, value, lane):
        """xpu.wave_broadcast: `value` of lane `lane` (i32) in every lane."""
        return self._make(lib.xpu_builder_wave_broadcast, self._value(value).handle,
                          self._value(lane, "i32").handle)

    def wave_ballot(self, predicate):
        """xpu.wave_ballot: vector<4xi32>, bit L % 32 of word L / 32 set for
        each live lane L whose predicate (i1) holds."""
        return self._make(lib.xpu_builder_wave_ballot, self._value(predicate).handle)

    def wave_any(self, predicate):
        """xpu.wave_vote any: whether the predicate holds in some live lane."""
        return self._make(lib.xpu_builder_wave_vote, WAVE_VOTES["any"],
                          self._value(predicate).handle)

    def wave_all(self, predicate):
        """xpu.wave_vote all: whether the predicate holds in every live lane."""
        return self._make(lib.xpu_builder_wave_vote, WAVE_VOTES["all"],
                          self._value(predicate).handle)

    def wave_reduce(self, op, value):
        """xpu.wave_reduce `op` (add mul smin smax umin umax and or xor fmin
        fmax) of `value` over the wave's live lanes, in every lane."""
        return self._make(lib.xpu_builder_wave_reduce, _pick(REDUCTIONS, op, "reduction"),
                          self._value(value).handle)

    def wave_scan(self, op, value, scan="inclusive"):
        """xpu.wave_scan `op` of `value` over lanes 0..L (inclusive) or
        0..L-1 (exclusive; lane 0 gets the identity)."""
        return self._make(lib.xpu_builder_wave_scan, _pick(REDUCTIONS, op, "reduction"),
                          self._value(value).handle, _pick(WAVE_SCANS, scan, "scan"))

    # -- the result -------------------------------------------------------------

    @property
    def text(self):
        """The module built so far as IR text (the library's printed form,
        or MLIR's generic form while blocks are open)."""
        out = ctypes.c_char_p()
        check(lib.xpu_builder_print(self.handle, ctypes.byref(out)))
        return _lib.string(out.value)

    def finish(self, device=None, *, source_name=None, runtime_checks=True):
        """Ends building and compiles the module for `device` (None: the
        default device) exactly as its text would compile; returns a Module.
        Compile errors carry diagnostics located in `text`."""
        from .device import default_device
        name = source_name or "<builder>"
        mod, diags = _lib.handle(), _lib.handle()
        status = lib.xpu_builder_finish(
            self.handle, device.handle if device else None,
            ctypes.byref(module_options(name, runtime_checks)), ctypes.byref(mod),
            ctypes.byref(diags))
        message = _lib.string(lib.xpu_last_error_message()) if status else ""
        found = take_diagnostics(diags)
        if status:
            raise located(error(status, message, found), self.text, name)
        return Module(device or default_device(), mod, found, self.text)


def _method(table_name, op, name):
    def method(self, *operands):
        return getattr(self, table_name)(op, *operands)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"{table_name}({op!r}, ...): see Builder.{table_name}."
    return method


# b.add(a, c), b.and_(a, c), b.sqrt(x), ...: one method per operation.
for _op in BINARY:
    _name = _op + "_" if _op in ("and", "or") else _op
    setattr(Builder, _name, _method("binary", _op, _name))
for _op in UNARY:
    setattr(Builder, _op, _method("unary", _op, _op))
