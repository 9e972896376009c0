"""Each construct of the gpu dialect import alone, on the backend under
test, with fresh random inputs and every output element checked: the
issue-21 reproducers, views and their launch checks, index parameters,
dynamic shared memory, atomics in workgroup memory, every gpu.all_reduce
operation, masked vector transfers, helpers taking memrefs, and the
refusal of what is not imported."""
import pathlib

import numpy as np
import pytest

import xpujit

I32, F32 = np.int32, np.float32
HERE = pathlib.Path(__file__).resolve().parent

# Issue 21's reproducers (from /work/shared/repros/interop): t4 aborted the
# process (a workgroup attribution), t21 silently used private memory for
# memref.alloca in the workgroup space (972,186 wrong elements).
REGRESSIONS = sorted(HERE.glob("regressions/*.mlir"))


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.stem for p in REGRESSIONS])
def test_issue_21_transposes_through_workgroup_memory(device, rng, path):
    rows, cols = int(rng.integers(300, 700)), int(rng.integers(300, 700))
    x = rng.uniform(-1, 1, (rows, cols)).astype(F32)
    out = np.zeros(cols * rows, F32)
    k = device.compile(path.read_text(), source_name=path.name).kernel("transpose")
    k.launch(((cols + 15) // 16, (rows + 15) // 16), (16, 16), [out, x.ravel(), rows, cols])
    np.testing.assert_array_equal(out.reshape(cols, rows), x.T)


def test_both_regressions_are_there():
    assert [p.name for p in REGRESSIONS] == ["t21_alloca_workgroup.mlir",
                                             "t4_workgroup_attribution.mlir"]


STRIDED = """
gpu.module @m {
  gpu.func @copy(%out: memref<?x?xi32>, %in: memref<?x?xi32, strided<[?, ?], offset: ?>>) kernel {
    %x = gpu.global_id x
    %y = gpu.global_id y
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %h = memref.dim %in, %c0 : memref<?x?xi32, strided<[?, ?], offset: ?>>
    %w = memref.dim %in, %c1 : memref<?x?xi32, strided<[?, ?], offset: ?>>
    %a = arith.cmpi ult, %y, %h : index
    %b = arith.cmpi ult, %x, %w : index
    %ok = arith.andi %a, %b : i1
    scf.if %ok {
      %v = memref.load %in[%y, %x] : memref<?x?xi32, strided<[?, ?], offset: ?>>
      memref.store %v, %out[%y, %x] : memref<?x?xi32>
    }
    gpu.return
  }
  gpu.func @fixed(%out: memref<4x8xi32>, %in: memref<4x8xi32>) kernel {
    %x = gpu.thread_id x
    %y = gpu.thread_id y
    %v = memref.load %in[%y, %x] : memref<4x8xi32>
    memref.store %v, %out[%y, %x] : memref<4x8xi32>
    gpu.return
  }
}
"""


def test_numpy_views_keep_shape_and_strides(device, rng):
    module = device.compile(STRIDED)
    k = module.kernel("copy")
    assert [p.kind for p in k.params] == ["view", "view"]
    assert str(k.params[1]) == "in: memref<?x?xi32, strided<[?, ?], offset: ?>>"
    assert k.params[0].layout.identity and not k.params[1].layout.identity
    base = rng.integers(-1000, 1000, (40, 50)).astype(I32)
    for view in (base[3:30, 5:44], base[::2, ::3], base.T, base[::-1, 7:1:-1],
                 base[10:11, :]):
        out = np.zeros(view.shape, I32)
        k.launch(((view.shape[1] + 7) // 8, (view.shape[0] + 7) // 8), (8, 8), [out, view])
        np.testing.assert_array_equal(out, view)


def test_explicit_views_and_buffers(device, rng):
    module = device.compile(STRIDED)
    k = module.kernel("copy")
    data = rng.integers(-1000, 1000, 200).astype(I32)
    buf = device.array(data)
    # A 6x5 view at element 17 with row stride 11 and column stride 2.
    out = np.zeros((6, 5), I32)
    k.launch((1, 1), (8, 8), [out, buf.view((6, 5), (11, 2), offset=17)])
    want = np.array([[data[17 + 11 * r + 2 * c] for c in range(5)] for r in range(6)])
    np.testing.assert_array_equal(out, want)
    # A static shape takes a plain buffer (and a view of exactly it).
    fixed = module.kernel("fixed")
    src = rng.integers(-9, 9, (4, 8)).astype(I32)
    dst = device.zeros((4, 8), I32)
    fixed.launch(1, (8, 4), [dst, device.array(src.ravel())])
    device.synchronize()
    np.testing.assert_array_equal(dst.numpy(), src)


def test_view_mismatches_name_the_parameter(device):
    module = device.compile(STRIDED)
    k, fixed = module.kernel("copy"), module.kernel("fixed")
    buf = device.zeros(64, I32)
    out = device.zeros((4, 8), I32)
    cases = [
        (k, [out.view((4, 8)), buf], "argument 1 ('in', memref<?x?xi32, strided<[?, ?], "
                                     "offset: ?>>): a buffer alone does not give"),
        (k, [out.view((4, 8)), buf.view((4,), (1,))], "the view has rank 1, the memref 2"),
        (k, [out.view((4, 8)), buf.view((8, 9), (9, 1))],
         "the view reaches elements 0 to 71; the buffer holds 64"),
        (k, [out.view((4, 8)), buf.view((2, 2), (-5, 1))], "reaches elements -5 to 1"),
        (fixed, [out.view((4, 8)), buf.view((4, 7))], "size 1 of the view is 7; the memref "
                                                      "type fixes it at 8"),
        (fixed, [out.view((4, 8)), buf.view((4, 8), (1, 4))], "stride 1 of the view is 4; "
                                                              "the memref type needs 1"),
        (fixed, [out.view((4, 8)), buf.view((4, 8), offset=3)],
         "the view starts at element 3; the memref type fixes its offset at 0"),
        (k, [out.view((4, 8)), device.zeros(64, np.float32).view((4, 8))], "a buffer of float32"),
    ]
    for kernel, args, message in cases:
        with pytest.raises(xpujit.ArgumentMismatchError) as e:
            kernel.launch(1, (8, 4), args)
        assert message in str(e.value), (message, str(e.value))


INDEX = """
gpu.module @m {
  gpu.func @wide(%out: memref<?xi64>, %base: index, %n: index) kernel {
    %i = gpu.global_id x
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      %v = arith.addi %base, %i : index
      %w = arith.index_cast %v : index to i64
      memref.store %w, %out[%i] : memref<?xi64>
    }
    gpu.return
  }
}
"""


def test_index_parameters_are_64_bit(device, rng):
    k = device.compile(INDEX).kernel("wide")
    assert [(p.name, p.type) for p in k.params][1:] == [("base", "i64"), ("n", "i64")]
    n = int(rng.integers(100, 1000))
    base = int(rng.integers(1 << 20, 1 << 30))  # fits 32-bit index targets too
    out = np.zeros(n, np.int64)
    k.launch((n + 63) // 64, 64, [out, base, n])
    np.testing.assert_array_equal(out, base + np.arange(n))


DYNAMIC = """
gpu.module @m {
  gpu.func @rotate(%out: memref<?xf32>, %in: memref<?xf32>, %shift: index) kernel {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %bd = gpu.block_dim x
    %bytes = arith.muli %shift, %c4 : index
    %tile = memref.view %raw[%bytes][%bd] : memref<?xi8, #gpu.address_space<workgroup>>
        to memref<?xf32, #gpu.address_space<workgroup>>
    %tx = gpu.thread_id x
    %i = gpu.global_id x
    %v = memref.load %in[%i] : memref<?xf32>
    memref.store %v, %tile[%tx] : memref<?xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %n = arith.addi %tx, %c4 : index
    %j = arith.remui %n, %bd : index
    %w = memref.load %tile[%j] : memref<?xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%i] : memref<?xf32>
    gpu.return
  }
}
"""


def test_dynamic_shared_memory_sized_at_launch(device, rng):
    k = device.compile(DYNAMIC).kernel("rotate")
    assert [p.name for p in k.params] == ["out", "in", "shift"]
    for block in (32, 64, 256):
        groups = 3
        x = rng.uniform(-1, 1, groups * block).astype(F32)
        out = np.zeros_like(x)
        shift = int(rng.integers(0, 16))
        k.launch(groups, block, [out, x, shift], dynamic_shared_bytes=4 * (block + shift))
        want = np.roll(x.reshape(groups, block), -4, axis=1).ravel()
        np.testing.assert_array_equal(out, want)
    with pytest.raises(xpujit.InvalidArgumentError, match="dynamic shared memory; the device"):
        k.launch(1, 32, [np.zeros(32, F32), np.zeros(32, F32), 0],
                 dynamic_shared_bytes=1 << 30)


def test_fixed_views_of_dynamic_shared_memory_need_their_bytes(device):
    source = (HERE / "corpus" / "dynamic_shared_typed.mlir").read_text()
    k = device.compile(source).kernel("dynamic_shared_typed")
    args = [np.zeros(128, I32), np.zeros(128, np.int64), np.zeros(128, I32)]
    with pytest.raises(xpujit.InvalidArgumentError, match="reads 2048 bytes of dynamic shared"):
        k.launch(1, 128, args, dynamic_shared_bytes=1024)


SHARED_ATOMICS = """
gpu.module @m {
  gpu.func @k(%out: memref<?x8xi32>, %in: memref<?xi32>)
      workgroup(%acc: memref<8xi32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %tx = gpu.thread_id x
    %bx = gpu.block_id x
    %i = gpu.global_id x
    %first = arith.cmpi ult, %tx, %c8 : index
    scf.if %first {
      %init = memref.load %out[%bx, %tx] : memref<?x8xi32>
      memref.store %init, %acc[%tx] : memref<8xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %v = memref.load %in[%i] : memref<?xi32>
    %a0 = memref.atomic_rmw addi %v, %acc[%c0] : (i32, memref<8xi32, #gpu.address_space<workgroup>>) -> i32
    %a1 = memref.atomic_rmw mins %v, %acc[%c1] : (i32, memref<8xi32, #gpu.address_space<workgroup>>) -> i32
    %a2 = memref.atomic_rmw maxs %v, %acc[%c2] : (i32, memref<8xi32, #gpu.address_space<workgroup>>) -> i32
    %a3 = memref.atomic_rmw minu %v, %acc[%c3] : (i32, memref<8xi32, #gpu.address_space<workgroup>>) -> i32
    %a4 = memref.atomic_rmw maxu %v, %acc[%c4] : (i32, memref<8xi32, #gpu.address_space<workgroup>>) -> i32
    %a5 = memref.atomic_rmw andi %v, %acc[%c5] : (i32, memref<8xi32, #gpu.address_space<workgroup>>) -> i32
    %a6 = memref.atomic_rmw ori %v, %acc[%c6] : (i32, memref<8xi32, #gpu.address_space<workgroup>>) -> i32
    %a7 = memref.atomic_rmw xori %v, %acc[%c7] : (i32, memref<8xi32, #gpu.address_space<workgroup>>) -> i32
    gpu.barrier
    scf.if %first {
      %r = memref.load %acc[%tx] : memref<8xi32, #gpu.address_space<workgroup>>
      memref.store %r, %out[%bx, %tx] : memref<?x8xi32>
    }
    gpu.return
  }
}
"""


def test_atomics_in_workgroup_memory(device, rng):
    groups, size = 5, 128
    x = rng.integers(-2**31, 2**31 - 1, groups * size).astype(I32)
    init = np.tile(np.array([0, 2**31 - 1, -2**31, -1, 0, -1, 0, 0], I32), (groups, 1))
    g = x.reshape(groups, size)
    u = g.view(np.uint32)
    want = np.stack([g.astype(np.int64).sum(1).astype(np.uint32).view(I32), g.min(1), g.max(1),
                     u.min(1).view(I32), u.max(1).view(I32), np.bitwise_and.reduce(g, 1),
                     np.bitwise_or.reduce(g, 1), np.bitwise_xor.reduce(g, 1)], 1)
    device.compile(SHARED_ATOMICS).kernel("k").launch(groups, size, [init, x])
    np.testing.assert_array_equal(init, want)


REDUCE_OPS = {
    "add": ("i32", lambda g: g.astype(np.int64).sum(1)),
    "mul": ("i32", lambda g: np.prod(g.astype(np.int64) % 3 - 1, 1)),
    "minui": ("i32", lambda g: g.view(np.uint32).min(1).view(I32)),
    "minsi": ("i32", lambda g: g.min(1)),
    "maxui": ("i32", lambda g: g.view(np.uint32).max(1).view(I32)),
    "maxsi": ("i32", lambda g: g.max(1)),
    "and": ("i32", lambda g: np.bitwise_and.reduce(g, 1)),
    "or": ("i32", lambda g: np.bitwise_or.reduce(g, 1)),
    "xor": ("i32", lambda g: np.bitwise_xor.reduce(g, 1)),
    "minnumf": ("f32", lambda g: np.array([np.nan if np.isnan(r).all() else np.nanmin(r)
                                           for r in g], F32)),
    "maxnumf": ("f32", lambda g: np.array([np.nan if np.isnan(r).all() else np.nanmax(r)
                                           for r in g], F32)),
    "minimumf": ("f32", lambda g: g.min(1)),
    "maximumf": ("f32", lambda g: g.max(1)),
}
REGION_OPS = {"add": "arith.addi", "maxsi": "arith.maxsi", "xor": "arith.xori",
              "minnumf": "arith.minnumf", "maximumf": "arith.maximumf"}


def reduce_kernel(name, op, t, region):
    value = "%w" if op == "mul" else "%v"
    if region:
        body = (f"gpu.all_reduce {value} {{\n    ^bb(%l: {t}, %r: {t}):\n"
                f"      %m = {REGION_OPS[op]} %l, %r : {t}\n      gpu.yield %m : {t}\n"
                f"    }} : ({t}) -> ({t})")
    else:
        body = f"gpu.all_reduce {op} {value} {{}} : ({t}) -> ({t})"
    # mul reduces (v mod 3) - 1, so products stay small and exact.
    mul = ("%three = arith.constant 3 : i32\n    %one = arith.constant 1 : i32\n"
           "    %m3 = arith.remsi %v, %three : i32\n    %w = arith.subi %m3, %one : i32"
           if op == "mul" else "")
    return f"""
  gpu.func @{name}(%out: memref<?x{t}>, %in: memref<?x{t}>) kernel {{
    %c0 = arith.constant 0 : index
    %i = gpu.global_id x
    %b = gpu.block_id x
    %tx = gpu.thread_id x
    %v = memref.load %in[%i] : memref<?x{t}>
    {mul}
    %s = {body}
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {{
      memref.store %s, %out[%b] : memref<?x{t}>
    }}
    gpu.return
  }}"""


def test_every_all_reduce_operation(device, rng):
    kernels = [reduce_kernel(f"r_{op}", op, t, False) for op, (t, _) in REDUCE_OPS.items()]
    kernels += [reduce_kernel(f"g_{op}", op, REDUCE_OPS[op][0], True) for op in REGION_OPS]
    module = device.compile("gpu.module @m {" + "".join(kernels) + "\n}")
    groups, size = 6, 96  # not a power of two
    for prefix, ops in (("r", REDUCE_OPS), ("g", REGION_OPS)):
        for op in ops:
            t, ref = REDUCE_OPS[op]
            if t == "i32":
                x = rng.integers(-2**31, 2**31 - 1, groups * size).astype(I32)
                if op == "mul":
                    x = rng.integers(-1000, 1000, groups * size).astype(I32)
            else:
                x = (rng.integers(-4000, 4000, groups * size) / 8).astype(F32)
                x[rng.integers(0, x.size, 7)] = np.nan
                x[size:2 * size] = np.nan  # a workgroup of NaN only
            out = np.zeros(groups, x.dtype)
            module.kernel(f"{prefix}_{op}").launch(groups, size, [out, x])
            g = x.reshape(groups, size)
            want = np.asarray(ref(g))
            if t == "i32":
                want = want.astype(np.int64).astype(np.uint32).view(I32)
            np.testing.assert_array_equal(out, want.astype(x.dtype), f"{prefix} {op}")


MASKED = """
gpu.module @m {
  gpu.func @k(%out: memref<?xf32>, %in: memref<?xf32>, %mask: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0 : i32
    %fill = arith.constant dense<-7.0> : vector<4xf32>
    %pad = arith.constant 9.0 : f32
    %g = gpu.global_id x
    %i = arith.muli %g, %c4 : index
    %n = memref.dim %out, %c0 : memref<?xf32>
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      %mv = vector.load %mask[%i] : memref<?xi32>, vector<4xi32>
      %zeros = vector.broadcast %zero : i32 to vector<4xi32>
      %m = arith.cmpi ne, %mv, %zeros : vector<4xi32>
      %v = vector.maskedload %in[%i], %m, %fill : memref<?xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
      %t = vector.transfer_read %in[%i], %pad, %m : memref<?xf32>, vector<4xf32>
      %s = arith.addf %v, %t : vector<4xf32>
      vector.maskedstore %out[%i], %m, %s : memref<?xf32>, vector<4xi1>, vector<4xf32>
    }
    gpu.return
  }
}
"""


def test_masked_vector_reads_and_writes(device, rng):
    n = 4 * int(rng.integers(50, 500))
    x = rng.uniform(-1, 1, n).astype(F32)
    mask = rng.integers(0, 2, n).astype(I32)
    out = np.full(n, 5.0, F32)
    device.compile(MASKED).kernel("k").launch((n // 4 + 63) // 64, 64, [out, x, mask])
    m = mask != 0
    want = np.where(m, x + x, 5.0).astype(F32)
    np.testing.assert_array_equal(out, want)


REFUSED = [
    ("gpu.printf", '    gpu.printf "%d", %c0 : index', "write values to a buffer"),
    ("memref.alloc", "    %m = memref.alloc() : memref<4xf32>", "device heap"),
    ("memref.generic_atomic_rmw", """    %r = memref.generic_atomic_rmw %a[%c0] : memref<?xf32> {
    ^bb0(%old: f32):
      memref.atomic_yield %old : f32
    }""", "use memref.atomic_rmw with a kind of its own"),
]


@pytest.mark.parametrize("op,line,instead", REFUSED, ids=[r[0] for r in REFUSED])
def test_unsupported_constructs_are_refused_with_their_location(device, op, line, instead):
    source = ("gpu.module @m {\n  gpu.func @k(%a: memref<?xf32>) kernel {\n"
              "    %c0 = arith.constant 0 : index\n" + line + "\n    gpu.return\n  }\n}\n")
    with pytest.raises(xpujit.UnsupportedError) as e:
        device.compile(source, source_name="refused.mlir")
    d = next(d for d in e.value.diagnostics if d.severity == "error")
    assert d.code == "XPU-UNSUPPORTED" and d.file == "refused.mlir" and d.line == 4
    assert op in d.message and instead in d.message, d.message


RANK4 = """
gpu.module @m {
  gpu.func @k(%out: memref<?x?x?xi32>, %in: memref<?x?x?x?xi32, strided<[?, ?, ?, ?], offset: ?>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0 : i32
    %a = gpu.global_id x
    %b = gpu.global_id y
    %c = gpu.global_id z
    %na = memref.dim %in, %c0 : memref<?x?x?x?xi32, strided<[?, ?, ?, ?], offset: ?>>
    %nb = memref.dim %in, %c1 : memref<?x?x?x?xi32, strided<[?, ?, ?, ?], offset: ?>>
    %nc = memref.dim %in, %c2 : memref<?x?x?x?xi32, strided<[?, ?, ?, ?], offset: ?>>
    %nd = memref.dim %in, %c3 : memref<?x?x?x?xi32, strided<[?, ?, ?, ?], offset: ?>>
    %r = memref.rank %in : memref<?x?x?x?xi32, strided<[?, ?, ?, ?], offset: ?>>
    %ia = arith.cmpi ult, %a, %na : index
    %ib = arith.cmpi ult, %b, %nb : index
    %ic = arith.cmpi ult, %c, %nc : index
    %t = arith.andi %ia, %ib : i1
    %ok = arith.andi %t, %ic : i1
    scf.if %ok {
      %s = scf.for %d = %c0 to %nd step %c1 iter_args(%acc = %zero) -> (i32) {
        %v = memref.load %in[%a, %b, %c, %d] : memref<?x?x?x?xi32, strided<[?, ?, ?, ?], offset: ?>>
        %w = arith.addi %acc, %v : i32
        scf.yield %w : i32
      }
      %ri = arith.index_cast %r : index to i32
      %s2 = arith.muli %s, %ri : i32
      memref.store %s2, %out[%a, %b, %c] : memref<?x?x?xi32>
    }
    gpu.return
  }
}
"""


def test_rank_4_strided_views(device, rng):
    base = rng.integers(-100, 100, (7, 6, 9, 11)).astype(I32)
    view = base[1:6, ::-2, 2:8, ::3].transpose(2, 0, 3, 1)  # any strides, an offset
    out = np.zeros(view.shape[:3], I32)
    k = device.compile(RANK4).kernel("k")
    k.launch(((view.shape[0] + 3) // 4, (view.shape[1] + 3) // 4, view.shape[2]), (4, 4, 1),
             [out, view])
    np.testing.assert_array_equal(out, 4 * view.sum(3))


LAYOUT_OPS = """
gpu.module @m {
  gpu.func @k(%out: memref<?xi32>, %in: memref<?x?xi32, strided<[?, 1], offset: ?>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i = gpu.global_id x
    %rows = memref.dim %in, %c0 : memref<?x?xi32, strided<[?, 1], offset: ?>>
    %ok = arith.cmpi ult, %i, %rows : index
    scf.if %ok {
      %base, %off, %sizes:2, %strides:2 = memref.extract_strided_metadata %in
          : memref<?x?xi32, strided<[?, 1], offset: ?>> -> memref<i32>, index, index, index, index, index
      %row = arith.muli %i, %strides#0 : index
      %start = arith.addi %off, %row : index
      %line = memref.reinterpret_cast %base to offset: [%start], sizes: [%sizes#1], strides: [1]
          : memref<i32> to memref<?xi32, strided<[1], offset: ?>>
      %al = memref.assume_alignment %line, 4 : memref<?xi32, strided<[1], offset: ?>>
      %g = memref.memory_space_cast %al : memref<?xi32, strided<[1], offset: ?>>
          to memref<?xi32, strided<[1], offset: ?>, #gpu.address_space<global>>
      %first = memref.load %g[%c0] : memref<?xi32, strided<[1], offset: ?>, #gpu.address_space<global>>
      %last0 = arith.subi %sizes#1, %c1 : index
      %last = memref.load %g[%last0] : memref<?xi32, strided<[1], offset: ?>, #gpu.address_space<global>>
      %s = arith.addi %first, %last : i32
      memref.store %s, %out[%i] : memref<?xi32>
    }
    gpu.return
  }
}
"""


def test_metadata_reinterpret_alignment_and_space_casts(device, rng):
    base = rng.integers(-1000, 1000, (40, 30)).astype(I32)
    view = base[5:35, 4:27]  # row stride 30, offset 154: a strided<[?, 1], offset: ?>
    out = np.zeros(view.shape[0], I32)
    device.compile(LAYOUT_OPS).kernel("k").launch(1, 64, [out, view])
    np.testing.assert_array_equal(out, view[:, 0] + view[:, -1])


def test_the_tool_passes_views(tmp_path):
    """`xpujit run --arg view:TYPE[AxB]=FILL` passes a row-major view."""
    import os
    import subprocess
    cli = os.environ.get("XPU_CLI")
    if not cli:
        pytest.skip("XPU_CLI (the xpujit tool) is not set")
    from conftest import BACKEND
    kernel = HERE / "corpus" / "transpose_attribution.mlir"
    result = subprocess.run(
        [cli, "run", str(kernel), "--kernel", "transpose_attribution", "--device",
         f"{BACKEND}:0", "--grid", "2,3", "--block", "16,16", "--arg", "view:i32[20x40]",
         "--arg", "view:i32[40x20]=iota", "--print", "all"],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    line = next(l for l in result.stdout.splitlines() if l.startswith("out: "))
    values = np.array([int(v) for v in line.split("[", 2)[2].rstrip("]").split(", ")])
    np.testing.assert_array_equal(values.reshape(20, 40), np.arange(800).reshape(40, 20).T)


WAVES = """
gpu.module @m {
  gpu.func @k(%out: memref<?x8xi32>, %in: memref<?xi32>, %k: i32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %none = arith.constant -1 : i32
    %i = gpu.global_id x
    %v = memref.load %in[%i] : memref<?xi32>
    %size = gpu.subgroup_size : index
    %w = arith.index_cast %size : index to i32
    %x, %xv = gpu.shuffle xor %v, %k, %w : i32
    %u, %uv = gpu.shuffle up %v, %k, %w : i32
    %d, %dv = gpu.shuffle down %v, %k, %w : i32
    %b, %bv = gpu.shuffle idx %v, %k, %w : i32
    %x2 = arith.select %xv, %x, %none : i32
    %u2 = arith.select %uv, %u, %none : i32
    %d2 = arith.select %dv, %d, %none : i32
    %b2 = arith.select %bv, %b, %none : i32
    memref.store %x2, %out[%i, %c0] : memref<?x8xi32>
    memref.store %u2, %out[%i, %c1] : memref<?x8xi32>
    memref.store %d2, %out[%i, %c2] : memref<?x8xi32>
    memref.store %b2, %out[%i, %c3] : memref<?x8xi32>
    %s4 = gpu.subgroup_reduce add %v cluster(size = 4) : (i32) -> i32
    %m2 = gpu.subgroup_reduce minui %v cluster(size = 2, stride = 2) : (i32) -> i32
    %all = gpu.subgroup_reduce mul %v : (i32) -> i32
    %lane = gpu.lane_id
    %li = arith.index_cast %lane : index to i32
    memref.store %s4, %out[%i, %c4] : memref<?x8xi32>
    memref.store %m2, %out[%i, %c5] : memref<?x8xi32>
    memref.store %all, %out[%i, %c6] : memref<?x8xi32>
    memref.store %li, %out[%i, %c7] : memref<?x8xi32>
    gpu.return
  }
}
"""


def test_shuffles_and_subgroup_reductions(device, rng):
    """Against the wave model (xpu.wave_*, issue 14): waves of the device's
    width made of consecutive invocations, the last one of a workgroup
    partial; a shuffle's `valid` holds where its source lane exists and is
    below the width; clusters hold only lanes that exist."""
    k = device.compile(WAVES).kernel("k")
    width = device.info.wave_width
    for block in (64, 100):
        groups = 2
        n = groups * block
        x = rng.integers(-1000, 1000, n).astype(I32)
        x[rng.integers(0, n, 3)] = 1  # products stay small: mostly +-1 and 0
        x %= 3
        x -= 1
        offset = int(rng.integers(0, min(width, 4)))
        out = np.zeros((n, 8), I32)
        k.launch(groups, block, [out, x, offset])
        np.testing.assert_array_equal(out[:, 7], [(t % block) % width for t in range(n)])
        for t in range(n):
            g, tl = divmod(t, block)
            lane, base = tl % width, g * block + tl - tl % width
            live = min(width, block - (tl - lane))
            def at(src):
                return x[base + src] if 0 <= src < live else -1
            want = [at(lane ^ offset), at(lane - offset), at(lane + offset), at(offset)]
            assert list(out[t, :4]) == want, (block, t, list(out[t, :4]), want)
            c4 = [c for c in range(lane - lane % 4, lane - lane % 4 + 4) if c < live]
            assert out[t, 4] == sum(x[base + c] for c in c4), (block, t)
            c2 = [c for c in (lane, lane ^ 2) if c < live] if width > 1 else [lane]
            assert out[t, 5] == min(x[base + c].view(np.uint32) for c in c2).view(I32), t
            assert out[t, 6] == np.prod(x[base:base + live].astype(np.int64)), t
