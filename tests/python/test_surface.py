"""The kernel surface (issue 14) from Python: wave operations made with the
builder print in the library's form and compute, lane by lane, what a host
model of waves says (consecutive invocations, the last wave partial), on
fresh random data."""
import ctypes

import numpy as np
import pytest

import xpujit
from xpujit import buffer
from conftest import compile_or_skip


def build_waves(b):
    with b.kernel("waves") as k:
        out = k.param("out", buffer("i32"))
        inp = k.param("in", buffer("i32", access="ro"))
        i = b.global_id("x")
        v = inp[i]
        results = [
            b.wave_shuffle("xor", v, 1),
            b.wave_reduce("add", v),
            b.wave_scan("umax", v, "exclusive"),
            b.wave_broadcast(v, 0),
            b.cast("extui", b.wave_any(v < 0), "i32"),
            b.cast("extui", b.wave_all(v < 0), "i32"),
            b.extract(b.wave_ballot(v < 0), 0),
            b.cast("index_cast", b.wave_width(), "i32"),
        ]
        base = i * b.constant(8, "index")
        for j, r in enumerate(results):
            out[base + j] = r


def test_wave_operations(device, rng):
    b = xpujit.Builder()
    build_waves(b)
    text = b.text
    assert "xpu.wave_shuffle xor" in text and "xpu.wave_scan umax" in text
    assert text == xpujit.format_module(text)
    k = compile_or_skip(device, text).kernel("waves")
    groups, block = 3, 72
    n = groups * block
    x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    out = np.zeros(n * 8, dtype=np.int32)
    k.launch(groups, block, (out, x))
    got = out.reshape(n, 8)
    width = int(got[0, 7])
    assert width >= 1 and (got[:, 7] == width).all()
    for i in range(n):
        t = i % block
        lane, start = t % width, i - t % width
        count = min(width, block - (t - lane))
        wave = x[start:start + count]
        src = lane ^ 1
        want = [
            int(wave[src] if src < count else x[i]),
            int(wave.astype(np.int64).sum()) & 0xFFFFFFFF,
            int(wave[:lane].view(np.uint32).max()) if lane else 0,
            int(wave[0]),
            int((wave < 0).any()),
            int((wave < 0).all()),
            sum(1 << l for l in range(min(count, 32)) if wave[l] < 0),
            width,
        ]
        want = np.array(want, dtype=np.int64).astype(np.uint32).view(np.int32)
        assert (got[i] == want).all(), f"invocation {i} lane {lane}: {got[i]} != {want}"


STRUCT_KERNEL = """
xpu.kernel @affine(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>,
    %p: !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64>) {
  %i = xpu.global_id x
  %n = xpu.struct_get %p["n"] : !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64> -> i32
  %n_idx = arith.index_castui %n : i32 to index
  %inside = arith.cmpi ult, %i, %n_idx : index
  scf.if %inside {
    %scale = xpu.struct_get %p["scale"] : !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64> -> f32
    %shift = xpu.struct_get %p["shift"] : !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64> -> vector<3xf32>
    %negate = xpu.struct_get %p["negate"] : !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64> -> i1
    %seed = xpu.struct_get %p["seed"] : !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64> -> i64
    %x = xpu.load %in[%i] : !xpu.buffer<f32, ro>
    %c3 = arith.constant 3 : index
    %lane = arith.remui %i, %c3 : index
    %s = vector.extract %shift[%lane] : f32 from vector<3xf32>
    %scaled = arith.mulf %x, %scale : f32
    %y = arith.addf %scaled, %s : f32
    %neg = arith.negf %y : f32
    %signed = arith.select %negate, %neg, %y : f32
    %low = arith.trunci %seed : i64 to i32
    %c255 = arith.constant 255 : i32
    %bits = arith.andi %low, %c255 : i32
    %extra = arith.uitofp %bits : i32 to f32
    %r = arith.addf %signed, %extra : f32
    xpu.store %r, %out[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
"""

PARAMS = np.dtype([("scale", np.float32), ("n", np.int32), ("shift", np.float32, (3,)),
                   ("negate", np.bool_), ("seed", np.int64)], align=True)


class Params(ctypes.Structure):
    _fields_ = [("scale", ctypes.c_float), ("n", ctypes.c_int32),
                ("shift", ctypes.c_float * 3), ("negate", ctypes.c_bool),
                ("seed", ctypes.c_int64)]


def test_struct_arguments(device, rng):
    k = device.compile(STRUCT_KERNEL).kernel("affine")
    p = k.params[2]
    assert p.kind == "struct" and p.size == PARAMS.itemsize == ctypes.sizeof(Params) == 32
    assert [f[0] for f in p.fields] == list(PARAMS.names)
    n = 3001
    x = rng.uniform(-10, 10, n).astype(np.float32)
    for make in ("numpy", "ctypes"):
        scale, s0, s1, s2 = rng.uniform(-5, 5, 4).astype(np.float32)
        negate = bool(rng.integers(0, 2))
        seed = int(rng.integers(-2**63, 2**63 - 1))
        if make == "numpy":
            arg = np.array((scale, n, (s0, s1, s2), negate, seed), dtype=PARAMS)[()]
        else:
            arg = Params(scale, n, (ctypes.c_float * 3)(s0, s1, s2), negate, seed)
        out = np.zeros(n, dtype=np.float32)
        k.launch((n + 127) // 128, 128, (out, x, arg))
        y = x * scale + np.array([s0, s1, s2], dtype=np.float32)[np.arange(n) % 3]
        want = (-y if negate else y) + np.float32(seed & 255)
        assert np.array_equal(out, want), make


def test_struct_mismatch_names_the_field(cpu):
    k = cpu.compile(STRUCT_KERNEL).kernel("affine")
    swapped = np.dtype([("n", np.int32), ("scale", np.float32), ("shift", np.float32, (3,)),
                        ("negate", np.bool_), ("seed", np.int64)], align=True)
    out, x = np.zeros(8, np.float32), np.zeros(8, np.float32)
    with pytest.raises(xpujit.ArgumentMismatchError, match="field 0 is 'scale'"):
        k.launch(1, 8, (out, x, np.zeros((), dtype=swapped)[()]))
    packed = np.dtype([("scale", np.float32), ("n", np.int32), ("shift", np.float32, (3,)),
                       ("negate", np.bool_), ("seed", np.int64)])
    with pytest.raises(xpujit.ArgumentMismatchError, match="29 bytes"):
        k.launch(1, 8, (out, x, np.zeros((), dtype=packed)[()]))


def build_dispatch(b):
    """A kernel made with the builder's surface calls: a struct parameter, a
    grid-stride loop, calls through bounded function values, and a printf."""
    with b.func("twice") as f:
        x, y = f.params(x="i32", y="i32")
        f.return_(x + x)
    with b.func("plus") as f:
        x, y = f.params(x="i32", y="i32")
        f.return_(x + y)
    fns = ["twice", "plus"]
    with b.kernel("dispatch") as k:
        out = k.param("out", buffer("i32"))
        a = k.param("a", buffer("i32", access="ro"))
        p = k.param("p", xpujit.struct_type("P", which="i32", y="i32", n="i32"))
        which, y, n = (b.struct_get(p, f) for f in ("which", "y", "n"))
        plus = b.fn_value("plus", fns)
        with b.grid_stride(b.cast("index_castui", n, "index")) as i:
            r = b.fn_call(which, fns, a[i], y)
            out[i] = b.fn_call(plus, fns, r, y)
        with b.if_(b.cmp("eq", b.global_id("x"), b.constant(0, "index"))):
            b.printf("n=%d which=%d y=%x\n", n, which, y)


P = np.dtype([("which", np.int32), ("y", np.int32), ("n", np.int32)], align=True)


def test_builder_struct_grid_stride_function_values_printf(device, rng, capfd):
    b = xpujit.Builder()
    build_dispatch(b)
    text = b.text
    assert "xpu.fn_call" in text and "xpu.printf" in text and "scf.for" in text
    k = compile_or_skip(device, text).kernel("dispatch")
    n = 1000
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    for which in (0, 1, 2, -1):
        y = int(rng.integers(-2**31, 2**31))
        out = np.full(n, 7, dtype=np.int32)
        capfd.readouterr()
        # Fewer invocations than elements: the grid-stride loop covers them.
        k.launch(3, 64, (out, a, np.array((which, y, n), dtype=P)[()]))
        printed = capfd.readouterr().out
        with np.errstate(over="ignore"):
            r = a + a if which == 0 else a + np.int32(y) if which == 1 else np.zeros_like(a)
            want = r + np.int32(y)
        assert np.array_equal(out, want), which
        assert printed == f"n={n} which={which} y={y & 0xFFFFFFFF:x}\n"
