#!/usr/bin/python3
"""Every row of the integer-semantics table (docs/profiles.md) on every
backend present: division, remainder, floordiv/ceildiv, MIN / -1,
MIN rem -1, shifts at and above the width, per width i1-i64, scalar and
3-lane vector, plus fresh random pairs, every element checked against
reference.py.
The last line reads "N passed, N failed" (backend x op x width x shape)."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))

import xpujit  # noqa: E402
from devices import open_devices  # noqa: E402
from reference import binary, signed  # noqa: E402

OPS = ("divsi", "divui", "remsi", "remui", "floordivsi", "ceildivsi", "ceildivui",
       "shli", "shrui", "shrsi")
DTYPES = {1: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def pairs(w, rng):
    """The table's cases for width w (unsigned form), ordinary ones, and 60
    fresh random pairs of random bit lengths (SPIR-V divides 64-bit values
    that fit in 32 bits one way and wider ones another)."""
    m = (1 << w) - 1
    mn = 1 << (w - 1)
    xs = sorted({0, 1, m, mn, mn - 1, 7 & m, (-7) & m})
    ys = sorted({0, 1, m, 2 & m, 3 & m, (-3) & m, w & m, (w + 1) & m, (2 * w) & m,
                 (w - 1) & m, mn})
    drawn = [tuple(int(rng.integers(0, 1 << int(rng.integers(1, w + 1)), dtype=np.uint64))
                   for _ in range(2)) for _ in range(60)]
    return [(x, y) for x in xs for y in ys] + drawn


def kernel(op, w, lanes, n):
    ty = f"vector<{lanes}xi{w}>" if lanes else f"i{w}"
    suffix = f" -> {ty}" if lanes else ""
    step = lanes or 1
    return f"""xpu.kernel @k(%o: !xpu.buffer<{n}xi{w}>, %a: !xpu.buffer<{n}xi{w}, ro>,
                  %b: !xpu.buffer<{n}xi{w}, ro>)
    attributes {{workgroup_size = array<i64: {n // step}, 1, 1>, grid_size = array<i64: 1, 1, 1>}} {{
  %g = xpu.global_id x
  %c = arith.constant {step} : index
  %i = arith.muli %g, %c : index
  %x = xpu.load %a[%i] : !xpu.buffer<{n}xi{w}, ro>{suffix}
  %y = xpu.load %b[%i] : !xpu.buffer<{n}xi{w}, ro>{suffix}
  %r = arith.{op} %x, %y : {ty}
  xpu.store %r, %o[%i] : !xpu.buffer<{n}xi{w}>{suffix}
  xpu.return
}}
"""


def main():
    devices = open_devices()
    passed = failed = 0
    rng = np.random.default_rng()
    for dev in devices:
        for w in (1, 8, 16, 32, 64):
            cases = pairs(w, rng)
            # Whole vectors of 3: pad with copies of the first case.
            while len(cases) % 3:
                cases.append(cases[0])
            a = np.array([x for x, _ in cases], DTYPES[w])
            b = np.array([y for _, y in cases], DTYPES[w])
            want = [binary(op, x, y, w) for op in OPS for x, y in cases]
            for lanes in (0, 3):
                for k, op in enumerate(OPS):
                    o = np.zeros(len(cases), DTYPES[w])
                    try:
                        dev.compile(kernel(op, w, lanes, len(cases))).kernel("k").launch(
                            grid=1, block=len(cases) // (lanes or 1), args=[o, a, b])
                    except xpujit.XpuError as e:
                        print(f"FAIL {dev.spec} {op} i{w} lanes={lanes}: {e}")
                        failed += 1
                        continue
                    exp = want[k * len(cases):(k + 1) * len(cases)]
                    got = [(v & 1) if w == 1 else v for v in o.tolist()]
                    bad = [(x, y, g, e) for (x, y), g, e in zip(cases, got, exp) if g != e]
                    if bad:
                        failed += 1
                        x, y, g, e = bad[0]
                        print(f"FAIL {dev.spec} {op} i{w} lanes={lanes}: {len(bad)} wrong; "
                              f"{signed(x, w)} {op} {signed(y, w)} = {signed(g, w)}, "
                              f"expected {signed(e, w)}")
                    else:
                        passed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and devices else 1


if __name__ == "__main__":
    sys.exit(main())
