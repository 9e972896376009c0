#!/usr/bin/python3
"""Rounded divisions written every way, in the shape NVIDIA's Vulkan driver
580 miscompiled (open/nv-vk-ceildivui-i64-vector.mlir: two 64-bit divisions
side by side, each result truncated to i1 and stored, next to another
store): ceildivui, ceildivsi and floordivsi as the ops and as hand-made
forms from the quotient, the remainder or q * d, in i64 and i32, each with
two truncations to i1. Fresh random operands each run, the first lane's
pair drawn wider than 32 bits; every output element is checked.
The last line reads "N passed, N failed" (device x form x width)."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))

import xpujit  # noqa: E402
from devices import open_devices  # noqa: E402
from reference import binary  # noqa: E402

KERNEL = """xpu.kernel @k(%o1: !xpu.buffer<2xi1>, %o16: !xpu.buffer<1xi16>, %in: !xpu.buffer<4xT, ro>, %p: i1)
    attributes {workgroup_size = array<i64: 1, 1, 1>, grid_size = array<i64: 1, 1, 1>} {
  %gid = xpu.global_id x
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %t2 = arith.muli %gid, %c4 : index
  %v1 = xpu.load %in[%t2] : !xpu.buffer<4xT, ro> -> vector<2xT>
  %t6 = arith.addi %t2, %c1 : index
  %v2 = xpu.load %in[%t6] : !xpu.buffer<4xT, ro> -> vector<2xT>
  %k0 = arith.constant dense<0> : vector<2xT>
  %k1 = arith.constant dense<1> : vector<2xT>
FORM
TRUNC
  %v33 = arith.extsi %p : i1 to i16
  %t8 = arith.muli %gid, %c2 : index
  xpu.store %v12, %o1[%t8] : !xpu.buffer<2xi1> -> vector<2xi1>
  xpu.store %v33, %o16[%gid] : !xpu.buffer<1xi16>
  xpu.return
}
"""
V = "vector<2xT>"
B = "vector<2xi1>"
QR = (f"  %q = arith.divui %v2, %v1 : {V}\n  %r = arith.remui %v2, %v1 : {V}\n"
      f"  %nz = arith.cmpi ne, %r, %k0 : {V}\n")
Q = f"  %q = arith.divui %v2, %v1 : {V}\n  %qb = arith.muli %q, %v1 : {V}\n"
# name -> (the op the form computes, its text; %v11 = v2 op v1)
FORMS = {
    "ceildivui": ("ceildivui", f"  %v11 = arith.ceildivui %v2, %v1 : {V}\n"),
    "ceildivsi": ("ceildivsi", f"  %v11 = arith.ceildivsi %v2, %v1 : {V}\n"),
    "floordivsi": ("floordivsi", f"  %v11 = arith.floordivsi %v2, %v1 : {V}\n"),
    "q + select(r != 0, 1, 0)": ("ceildivui", QR + f"  %s = arith.select %nz, %k1, %k0 : {B}, {V}\n"
                                 f"  %v11 = arith.addi %q, %s : {V}\n"),
    "select(r != 0, q + 1, q)": ("ceildivui", QR + f"  %q1 = arith.addi %q, %k1 : {V}\n"
                                 f"  %v11 = arith.select %nz, %q1, %q : {B}, {V}\n"),
    "q + extui(r != 0)": ("ceildivui", QR + f"  %e = arith.extui %nz : {B} to {V}\n"
                          f"  %v11 = arith.addi %q, %e : {V}\n"),
    "q + (a - q * d != 0)": ("ceildivui", Q + f"  %r2 = arith.subi %v2, %qb : {V}\n"
                             f"  %nz2 = arith.cmpi ne, %r2, %k0 : {V}\n"
                             f"  %e = arith.extui %nz2 : {B} to {V}\n  %v11 = arith.addi %q, %e : {V}\n"),
    "q + (q * d != a)": ("ceildivui", Q + f"  %nz2 = arith.cmpi ne, %qb, %v2 : {V}\n"
                         f"  %e = arith.extui %nz2 : {B} to {V}\n  %v11 = arith.addi %q, %e : {V}\n"),
    "a == 0 ? 0 : (a - 1) / d + 1": ("ceildivui", f"  %am = arith.subi %v2, %k1 : {V}\n"
                                     f"  %d = arith.divui %am, %v1 : {V}\n  %d1 = arith.addi %d, %k1 : {V}\n"
                                     f"  %az = arith.cmpi eq, %v2, %k0 : {V}\n"
                                     f"  %v11 = arith.select %az, %k0, %d1 : {B}, {V}\n"),
}
TRUNCS = {
    "trunci": f"  %v12 = arith.trunci %v11 : {V} to {B}\n",
    "shift": (f"  %top = arith.constant dense<W1> : {V}\n  %sh = arith.shli %v11, %top : {V}\n"
              f"  %v12 = arith.cmpi ne, %sh, %k0 : {V}\n"),
}


def operand_sets(rng, w):
    """in[0], in[1] are the divisors and in[1], in[2] the dividends: the
    filed case's values, then fresh ones of the type's whole width (xpujit
    divides 64-bit values that do not fit in 32 bits its own way), then
    fresh ones within 16 bits."""
    dt = np.int64 if w == 64 else np.int32
    top = 1 << (w - 1)
    wide = [int(rng.integers(1, top)) for _ in range(3)]
    small = [int(rng.integers(1, 1 << 16)) for _ in range(3)]
    return [np.array(v + [0], dt) for v in ([9, 2, 33554432], wide, small)]


def main():
    devices = open_devices()
    rng = np.random.default_rng()
    passed = failed = 0
    for dev in devices:
        for w in (64, 32):
            for name, (op, form) in FORMS.items():
                for tname, trunc in TRUNCS.items():
                    text = (KERNEL.replace("FORM\n", form).replace("TRUNC\n", trunc)
                            .replace("W1", str(w - 1)).replace("xT", f"xi{w}"))
                    try:
                        kernel = dev.compile(text).kernel("k")
                    except xpujit.XpuError as e:
                        print(f"FAIL {dev.spec} i{w} {name} ({tname}): {e}")
                        failed += 1
                        continue
                    m = (1 << w) - 1
                    wrong = []
                    for x in operand_sets(rng, w):
                        want = [binary(op, int(x[1]) & m, int(x[0]) & m, w) & 1,
                                binary(op, int(x[2]) & m, int(x[1]) & m, w) & 1, -1]
                        o1 = np.zeros(2, np.int8)
                        o16 = np.zeros(1, np.int16)
                        kernel.launch(1, 1, [o1, o16, x, 1])
                        got = (o1 & 1).tolist() + o16.tolist()
                        if got != want:
                            wrong.append(f"{got} for {x[:3].tolist()}, expected {want}")
                    if wrong:
                        print(f"FAIL {dev.spec} i{w} {name} ({tname}): o1, o16 = " + "; ".join(wrong))
                        failed += 1
                    else:
                        passed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and devices else 1


if __name__ == "__main__":
    sys.exit(main())
