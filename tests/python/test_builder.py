"""The Python builder: kernels built by calls print exactly as their text
(both normalized by xpujit.format_module) and run with the same results on
fresh random data; misuse raises an exception with a message."""
import re

import numpy as np
import pytest

import xpujit
from xpujit import buffer, vector
from conftest import EXAMPLES, ROOT, compile_or_skip


def build_saxpy(b):
    with b.kernel("saxpy") as k:
        y = k.param("y", buffer("f32"))
        x = k.param("x", buffer("f32", access="ro"))
        a = k.param("a", "f32")
        n = k.param("n", "i32")
        i = b.global_id("x")
        with b.if_(b.cmp("ult", i, b.cast("index_castui", n, "index"))):
            xi, yi = x[i], y[i]
            y[i] = a * xi + yi


def test_saxpy(device, rng):
    b = xpujit.Builder()
    build_saxpy(b)
    assert b.text == xpujit.format_module((EXAMPLES / "saxpy.mlir").read_text())
    k = device.compile(b).kernel("saxpy")
    n = 30_011
    x, y = rng.uniform(-1, 1, n).astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32)
    want = np.float32(3.0) * x + y
    k.launch((n + 255) // 256, 256, (y, x, np.float32(3.0), n))
    assert np.array_equal(y, want)


BLOCK_SUM = """
xpu.kernel @block_sum(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %wg = xpu.workgroup_id x
  %s = xpu.alloc : !xpu.buffer<256xi32, shared>
  %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
  xpu.store %v, %s[%t] : !xpu.buffer<256xi32, shared>
  xpu.barrier
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  scf.for %k = %c0 to %c8 step %c1 {
    %stride = arith.shrui %c128, %k : index
    %active = arith.cmpi ult, %t, %stride : index
    scf.if %active {
      %o = arith.addi %t, %stride : index
      %a = xpu.load %s[%t] : !xpu.buffer<256xi32, shared>
      %b = xpu.load %s[%o] : !xpu.buffer<256xi32, shared>
      %sum = arith.addi %a, %b : i32
      xpu.store %sum, %s[%t] : !xpu.buffer<256xi32, shared>
    }
    xpu.barrier
  }
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %r = xpu.load %s[%c0] : !xpu.buffer<256xi32, shared>
    xpu.store %r, %out[%wg] : !xpu.buffer<i32>
  }
  xpu.return
}
"""


def test_shared_memory_tree_reduction(device, rng):
    b = xpujit.Builder()
    with b.kernel("block_sum", workgroup_size=(256, 1, 1)) as k:
        out, inp = k.params(out=buffer("i32"), **{"in": buffer("i32", access="ro")})
        t, g, wg = b.thread_id(), b.global_id(), b.workgroup_id()
        s = b.alloc(buffer("i32", space="shared", size=256))
        s[t] = inp[g]
        b.barrier()
        c0, c1, c8, c128 = (b.constant(v, "index") for v in (0, 1, 8, 128))
        with b.for_(c0, c8, c1) as loop:
            stride = b.shru(c128, loop.index)
            with b.if_(b.cmp("ult", t, stride)):
                o = t + stride
                s[t] = s[t] + s[o]
            b.barrier()
        with b.if_(b.cmp("eq", t, c0)):
            out[wg] = s[c0]
    assert b.text == xpujit.format_module(BLOCK_SUM)
    groups = 13
    data = rng.integers(-100_000, 100_000, groups * 256).astype(np.int32)
    sums = np.zeros(groups, np.int32)
    device.compile(b).kernel("block_sum").launch(groups, 256, (sums, data))
    assert np.array_equal(sums, data.reshape(groups, 256).sum(axis=1, dtype=np.int32))


STENCIL = """
xpu.func @blend(%c: f32, %l: f32, %r: f32, %u: f32, %d: f32) -> f32 {
  %s1 = arith.addf %l, %r : f32
  %s2 = arith.addf %u, %d : f32
  %s3 = arith.addf %s1, %s2 : f32
  %q = arith.constant 1.250000e-01 : f32
  %n = arith.mulf %s3, %q : f32
  %h = arith.constant 5.000000e-01 : f32
  %a = arith.mulf %c, %h : f32
  %res = arith.addf %a, %n : f32
  xpu.return %res : f32
}
xpu.kernel @stencil(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %w: i32, %h: i32) {
  %x = xpu.global_id x
  %y = xpu.global_id y
  %wi = arith.index_castui %w : i32 to index
  %hi = arith.index_castui %h : i32 to index
  %c1 = arith.constant 1 : index
  %wm = arith.subi %wi, %c1 : index
  %hm = arith.subi %hi, %c1 : index
  %x0 = arith.cmpi uge, %x, %c1 : index
  %x1 = arith.cmpi ult, %x, %wm : index
  %y0 = arith.cmpi uge, %y, %c1 : index
  %y1 = arith.cmpi ult, %y, %hm : index
  %okx = arith.andi %x0, %x1 : i1
  %oky = arith.andi %y0, %y1 : i1
  %ok = arith.andi %okx, %oky : i1
  scf.if %ok {
    %row = arith.muli %y, %wi : index
    %c = arith.addi %row, %x : index
    %l = arith.subi %c, %c1 : index
    %r = arith.addi %c, %c1 : index
    %u = arith.subi %c, %wi : index
    %d = arith.addi %c, %wi : index
    %vc = xpu.load %in[%c] : !xpu.buffer<f32, ro>
    %vl = xpu.load %in[%l] : !xpu.buffer<f32, ro>
    %vr = xpu.load %in[%r] : !xpu.buffer<f32, ro>
    %vu = xpu.load %in[%u] : !xpu.buffer<f32, ro>
    %vd = xpu.load %in[%d] : !xpu.buffer<f32, ro>
    %res = xpu.call @blend(%vc, %vl, %vr, %vu, %vd) : (f32, f32, f32, f32, f32) -> f32
    xpu.store %res, %out[%c] : !xpu.buffer<f32>
  }
  xpu.return
}
"""


def test_2d_stencil_through_a_device_function(device, rng):
    b = xpujit.Builder()
    with b.func("blend") as f:
        c, l, r, u, d = f.params(c="f32", l="f32", r="f32", u="f32", d="f32")
        n = ((l + r) + (u + d)) * 0.125
        f.return_(c * 0.5 + n)
    with b.kernel("stencil") as k:
        out, inp = k.param("out", buffer("f32")), k.param("in", buffer("f32", access="ro"))
        w, h = k.param("w", "i32"), k.param("h", "i32")
        x, y = b.global_id("x"), b.global_id("y")
        wi, hi = b.cast("index_castui", w, "index"), b.cast("index_castui", h, "index")
        one = b.constant(1, "index")
        wm, hm = wi - one, hi - one
        x0, x1 = b.cmp("uge", x, one), b.cmp("ult", x, wm)
        y0, y1 = b.cmp("uge", y, one), b.cmp("ult", y, hm)
        with b.if_((x0 & x1) & (y0 & y1)):
            ci = y * wi + x
            idx = (ci, ci - one, ci + one, ci - wi, ci + wi)
            out[ci] = b.call("blend", *(inp[i] for i in idx))
    assert b.text == xpujit.format_module(STENCIL)

    W, H = 77, 45
    src = rng.uniform(-10, 10, (H, W)).astype(np.float32)
    out = rng.uniform(-1, 1, (H, W)).astype(np.float32)
    want = out.copy()
    c = src[1:-1, 1:-1]
    nb = ((src[1:-1, :-2] + src[1:-1, 2:]) + (src[:-2, 1:-1] + src[2:, 1:-1])) * np.float32(0.125)
    want[1:-1, 1:-1] = c * np.float32(0.5) + nb
    device.compile(b).kernel("stencil").launch(((W + 15) // 16, (H + 7) // 8), (16, 8),
                                               (out, src, W, H))
    assert np.array_equal(out, want)


LOOPS = """
xpu.kernel @loops(%out: !xpu.buffer<f32>, %cnt: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>,
                  %s: !xpu.buffer<f32>) attributes {fastmath, profile = "portable"} {
  %i = xpu.global_id x
  %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
  %c0 = arith.constant 0 : i32
  %r:2 = scf.while (%a = %v, %n = %c0) : (i32, i32) -> (i32, i32) {
    %c2 = arith.constant 2 : i32
    %go = arith.cmpi sge, %a, %c2 : i32
    scf.condition(%go) %a, %n : i32, i32
  } do {
  ^bb0(%a: i32, %n: i32):
    %c1 = arith.constant 1 : i32
    %h = arith.shrsi %a, %c1 : i32
    %c1_0 = arith.constant 1 : i32
    %m = arith.addi %n, %c1_0 : i32
    scf.yield %h, %m : i32, i32
  }
  %cst = arith.constant 0.000000e+00 : f32
  %lo = arith.constant 0 : index
  %hi = arith.constant 1 : index
  %st = arith.constant 1 : index
  %sum = scf.for %k = %lo to %hi step %st iter_args(%acc = %cst) -> (f32) {
    %f = arith.sitofp %r#1 : i32 to f32
    %e = arith.addf %acc, %f : f32
    scf.yield %e : f32
  }
  %c3 = arith.constant 3 : i32
  %odd = arith.cmpi slt, %r#1, %c3 : i32
  %neg = arith.negf %sum : f32
  %pick = arith.select %odd, %neg, %sum : f32
  %vec = vector.broadcast %pick : f32 to vector<2xf32>
  %c2_i = arith.constant 2 : index
  %base = arith.muli %i, %c2_i : index
  xpu.store %vec, %out[%base] : !xpu.buffer<f32> -> vector<2xf32>
  %bi = arith.index_castui %r#1 : i32 to index
  %c1_i = arith.constant 1 : i32
  %old = xpu.atomic_rmw add %c1_i, %cnt[%bi] seq_cst device : !xpu.buffer<i32>
  %tot = xpu.reduce add %sum sequential : f32
  %t = xpu.thread_id x
  %z = arith.constant 0 : index
  %first = arith.cmpi eq, %t, %z : index
  scf.if %first {
    %wg = xpu.workgroup_id x
    xpu.store %tot, %s[%wg] : !xpu.buffer<f32>
  }
  xpu.return
}
"""


def test_while_for_select_vectors_atomics_and_reductions(device, rng):
    b = xpujit.Builder()
    with b.kernel("loops", profile="portable", fastmath=True) as k:
        out, cnt = k.param("out", buffer("f32")), k.param("cnt", buffer("i32"))
        inp, s = k.param("in", buffer("i32", access="ro")), k.param("s", buffer("f32"))
        i = b.global_id()
        with b.while_(init=(inp[i], b.constant(0, "i32"))) as w:
            a, n = w.args
            w.condition(a >= 2, a, n)
            a, n = w.args
            w.yield_(a >> 1, n + 1)
        steps = w.results[1]
        with b.for_(0, 1, 1, init=(b.constant(0.0, "f32"),)) as loop:
            loop.yield_(loop.args[0] + b.cast("sitofp", steps, "f32"))
        total = loop.result
        pick = b.select(steps < 3, -total, total)
        vec = b.broadcast(pick, 2)
        b.store(vec, out, i * 2)
        b.atomic("add", 1, cnt, b.cast("index_castui", steps, "index"))
        tot = b.reduce("add", total)
        with b.if_(b.cmp("eq", b.thread_id(), 0)):
            s[b.workgroup_id()] = tot
    assert b.text == xpujit.format_module(LOOPS)

    n = 2048
    data = rng.integers(0, 2**31 - 1, n).astype(np.int32)
    out, cnt, sums = np.zeros(2 * n, np.float32), np.zeros(32, np.int32), np.zeros(n // 64, np.float32)
    compile_or_skip(device, b).kernel("loops").launch(n // 64, 64, (out, cnt, data, sums))
    steps = np.array([int(v).bit_length() - 1 if v >= 2 else 0 for v in data])
    vals = np.where(steps < 3, -steps, steps).astype(np.float32)
    assert np.array_equal(out, np.repeat(vals, 2))
    assert np.array_equal(cnt, np.bincount(steps, minlength=32))
    assert np.array_equal(sums, steps.reshape(-1, 64).sum(axis=1).astype(np.float32))


def test_operators_pick_the_operation_by_type():
    b = xpujit.Builder()
    with b.kernel("ops") as k:
        f, n, o = k.param("f", "f32"), k.param("n", "i32"), k.param("o", buffer("i32"))
        for v in (f + 1, 1 - f, f * f, f / 2, f % f, -f, abs(f), f ** f, b.sqrt(f),
                  b.fma(f, f, 1.0), b.max(f, 0.5)):
            assert v.type == "f32"
        results = [n / 2, n % 3, n & 1, n | 2, n ^ 3, n << 1, n >> 1, -n, abs(n),
                   b.divu(n, 2), b.shru(n, 1), b.minu(n, 9), n < 1, n >= 2]
        assert [r.type for r in results[-2:]] == ["i1", "i1"]
        vec = b.broadcast(f, 4)
        assert vec.type == vector(4, np.float32) == (vec + vec).type == "vector<4xf32>"
        assert b.extract(b.insert(f, vec, 3), 3).type == "f32"
        assert o.info.kind == "buffer" and o.info.element == "i32"
    text = b.text
    for op in ("arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.remf",
               "arith.negf", "math.absf", "math.powf", "math.sqrt", "math.fma",
               "arith.maximumf", "arith.divsi", "arith.remsi", "arith.andi", "arith.ori",
               "arith.xori", "arith.shli", "arith.shrsi", "math.absi", "arith.divui",
               "arith.shrui", "arith.minui", "arith.cmpi slt", "arith.cmpi sge",
               "vector.broadcast", "vector.insert", "vector.extract"):
        assert op in text, op
    assert xpujit.format_module(text) == text  # the builder's text parses back to itself


def test_kernel_attributes_print_as_in_the_text():
    text = """
    xpu.kernel @det(%o: !xpu.buffer<1024xi32>) attributes {profile = "deterministic-v1",
        effects = ["DeviceCopyIn", "DeviceDispatch"], device = "cpu",
        workgroup_size = array<i64: 256>, grid_size = array<i64: 4, 1, 1>} {
      xpu.return
    }"""
    b = xpujit.Builder()
    with b.kernel("det", profile="deterministic-v1", effects=["DeviceCopyIn", "DeviceDispatch"],
                  device="cpu", workgroup_size=256, grid_size=(4, 1, 1)) as k:
        k.param("o", buffer("i32", size=1024))
    assert b.text == xpujit.format_module(text)


def test_a_refusal_is_located_in_the_built_text():
    b = xpujit.Builder()
    with b.kernel("det", profile="deterministic-v1") as k:
        k.param("o", buffer("i32"))
    with pytest.raises(xpujit.RefusedError) as e:
        b.finish()  # the default device: deterministic kernels refuse it
    d = e.value.diagnostics[0]
    assert (d.code, d.file, d.line) == ("XPU-GC002", "<builder>", 2)
    assert "xpu.kernel @det" in str(e.value)  # the built line is shown


def test_misuse_raises_with_a_message_and_changes_nothing(cpu):
    b, other = xpujit.Builder(), xpujit.Builder()
    with pytest.raises(xpujit.InvalidArgumentError, match="no kernel or function is open"):
        b.constant(1, "i32")
    k = b.kernel("k")
    n, buf = k.param("n", "i32"), k.param("buf", buffer("f32"))
    f = b.constant(1.0, "f32")
    with other.kernel("o") as ko:
        foreign = ko.param("x", "i32")
    before = b.text
    assert before.startswith('"builtin.module"')  # open blocks print generically
    cases = [
        (lambda: n + foreign, xpujit.InvalidHandleError, "not a value of this builder"),
        (lambda: n + f, xpujit.InvalidArgumentError, "different types, i32 and f32"),
        (lambda: b.binary("frobnicate", n, n), xpujit.InvalidArgumentError,
         "unknown binary operation"),
        (lambda: b.constant(1.5, "i32"), xpujit.InvalidArgumentError, "is not an integer"),
        (lambda: b.load(buf, n), xpujit.InvalidArgumentError, "must be an index value"),
        (lambda: k.param("p", "f33"), xpujit.InvalidArgumentError, "is not a type"),
        (lambda: b.if_(n), xpujit.InvalidArgumentError, "must be i1"),
        (lambda: b.call("nowhere"), xpujit.InvalidArgumentError, "is not a device function"),
        (lambda: b.kernel("k2"), xpujit.InvalidArgumentError, "'k' is still open"),
        (lambda: b.reduce("add", n, order="shuffled"), xpujit.InvalidArgumentError,
         "unknown reduction order"),
    ]
    for call, kind, words in cases:
        with pytest.raises(kind, match=words):
            call()
    assert b.text == before  # nothing was added by the failed calls
    with pytest.raises(TypeError, match="no truth value"):
        if n < 3:
            pass

    i = b.global_id()
    br = b.if_(b.cmp("ult", i, i))
    with pytest.raises(xpujit.InvalidArgumentError, match="then-block of an if is still open"):
        k.return_()
    with pytest.raises(xpujit.InvalidArgumentError, match="is still open"):
        b.finish(cpu)
    inner = buf[i]
    br.yield_(inner)
    with pytest.raises(xpujit.InvalidArgumentError, match="needs an else-block"):
        br._end()
    br.else_()  # the then-block still yields `inner`
    br.yield_(b.constant(0.0, "f32"))
    br._end()
    assert br.result.type == "f32"
    with pytest.raises(xpujit.InvalidArgumentError, match="not visible here"):
        buf[i] = inner  # made in the then-block, which has ended
    buf[i] = br.result
    k.return_()
    module = b.finish(cpu)
    assert list(module.kernels) == ["k"]
    with pytest.raises(xpujit.InvalidArgumentError, match="already finished"):
        b.finish(cpu)


def test_an_exception_in_a_block_leaves_it_open():
    b = xpujit.Builder()
    with pytest.raises(ZeroDivisionError):
        with b.kernel("k"):
            1 / 0
    with pytest.raises(xpujit.InvalidArgumentError, match="'k' has not ended"):
        b.finish()


def test_the_text_prints_at_every_step():
    # Half-built IR (blocks without terminators, an if or while awaiting its
    # results) prints in the generic form and never crashes the printer.
    b = xpujit.Builder()
    seen = [b.text]
    with b.kernel("k") as k:
        o = k.param("o", buffer("i32"))
        seen.append(b.text)
        with b.while_(init=(b.constant(0, "i32"),)) as w:
            seen.append(b.text)
            w.condition(w.args[0] < 4, w.args[0])
            seen.append(b.text)
            with b.for_(0, 2, init=(w.args[0],)) as loop:
                seen.append(b.text)
                with b.if_(loop.args[0] > 1) as br:
                    seen.append(b.text)
                    br.yield_(loop.args[0])
                    br.else_()
                    seen.append(b.text)
                    br.yield_(loop.args[0] + 1)
                seen.append(b.text)
                loop.yield_(br.result)
            seen.append(b.text)
            w.yield_(loop.result)
        o[0] = w.result
    seen.append(b.text)
    assert all(t.startswith('"builtin.module"') for t in seen[1:-1])
    assert seen[-1] == xpujit.format_module(seen[-1])


def test_operation_tables_match_the_header():
    # The Python names map to the C enums' numbers as xpu_c.h defines them.
    from xpujit import builder as bld
    header = (ROOT / "include" / "xpu_c.h").read_text()

    def enum(prefix, skip=("FORCE32",)):
        found = {}
        for name, number in re.findall(rf"\bXPU_{prefix}_(\w+) = (\d+)", header):
            if not name.endswith(skip):
                found[name.lower()] = int(number)
        return found

    assert enum("BINARY") == bld.BINARY
    assert enum("UNARY") == bld.UNARY
    assert enum("COMPARE") == bld.COMPARE
    assert enum("COORD") == bld.COORDINATES
    assert enum("ATOMIC") == bld.ATOMICS
    assert enum("SCOPE") == bld.SCOPES
    assert enum("ORDER") == bld.ORDERS
    reductions = enum("REDUCE")
    orders = {k: reductions.pop(k) for k in ("sequential", "tree", "unspecified")}
    assert reductions == bld.REDUCTIONS and orders == bld.REDUCE_ORDERS
    casts = dict((op, int(n)) for n, op in
                 re.findall(r"XPU_CAST_\w+ = (\d+),\s*/\* arith\.(\w+)", header))
    assert casts == bld.CASTS
