#!/usr/bin/python3
"""The differential reproducers of issue 13 (repros/*.mlir, as filed) as
regression tests: each runs on every backend present with fresh random
inputs, and every output element is checked against what the file's
opening comment says it computes.
The last line reads "N passed, N failed" (file x backend)."""
import glob
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))

import xpujit  # noqa: E402
from devices import open_devices  # noqa: E402

INT_MIN = -2**31


def counts(rng, n):
    return rng.integers(-2, 9, n, dtype=np.int64).astype(np.int32)


def while_header(rng, n):
    cnt = counts(rng, n)
    return [np.zeros(n, np.int32), cnt], 6 * (np.maximum(cnt, 0) + 1)


def for_loop(rng, n):
    cnt = rng.integers(0, 9, n, dtype=np.int64).astype(np.int32)
    return [np.zeros(n, np.int32), cnt], 6 * cnt


def while_ctlz_i64(rng, n, block=32):
    cnt = counts(rng, n)
    want = []
    for i, c in enumerate(cnt):
        v = i % block
        for _ in range(max(int(c), 0) + 1):
            v = 64 - v.bit_length()
        want.append(v)
    return [np.zeros(n, np.int16), cnt], np.array(want, np.int16)


def while_header_i16(rng, n):
    args, want = while_header(rng, n)
    return [np.zeros(n, np.int16), args[1]], want.astype(np.int16)


def index_cast_rem(rng, n):
    x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    x[:3] = [-1, INT_MIN, 5]
    return [np.zeros(n, np.int64), x], x.astype(np.int64)


def i1_broadcast(rng, n):
    x = rng.integers(-2**62, 2**62, 3 * n, dtype=np.int64)
    return [np.zeros(n, np.int8), x], (x[2::3] & 1).astype(np.int8)


def mul_reduction(rng, n):
    x = rng.integers(-2**62, 2**62, n, dtype=np.int64)
    return [np.zeros(n, np.int32), x], np.where(x & 1, -1, 0).astype(np.int32)


def mulsi_extended(rng, n):
    x = rng.integers(-2**15, 2**15, 448, dtype=np.int64).astype(np.int16)
    sq = (x[0:448:4].astype(np.int64) ** 2) & 0xffff
    want = np.repeat(sq.astype(np.uint16).view(np.int16), 2)
    return [np.zeros(224, np.int16), x, [0, 0, 0]], want


def floordiv_const(rng, n):
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    a[:4] = [INT_MIN, -1, 0, 2**31 - 1]
    d = 7966608878808645099
    return [np.zeros(n, np.int64), a], np.array([int(v) // d for v in a], np.int64)


def remsi(rng, n):
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-9, 10, n, dtype=np.int64).astype(np.int32)
    a[: n // 2] = INT_MIN
    b[:6] = [3, 5, 7, -3, 2, -1]

    def rem(x, y):
        x, y = int(x), int(y)
        if y == 0 or (x == INT_MIN and y == -1):
            return 0
        r = abs(x) % abs(y)
        return -r if x < 0 else r
    return [np.zeros(n, np.int32), a, b], np.array([rem(x, y) for x, y in zip(a, b)], np.int32)


def sext_slt(rng, n):
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    a[:6] = [5, -5, 0, -11, INT_MIN, 1]
    return [np.zeros(n, np.int64), a], (a < 0).astype(np.int64)


def vector_bool_param(rng, n):
    p = [int(b) for b in rng.integers(0, 2, 3)]
    return [np.zeros(3 * n, np.int32), p], np.tile(np.array(p, np.int32), n)


# file -> (grid, block, inputs and expected results)
CASES = {
    "control-for-scalar-divergent": (2, 32, for_loop),
    "control-for-vector-divergent": (2, 32, for_loop),
    "control-while-scalar-header": (2, 32, while_header),
    "cpu-i1-broadcast": (2, 32, i1_broadcast),
    "cpu-mul-reduction-vec3": (2, 32, mul_reduction),
    "cpu-static-mulsi-extended": (14, 8, mulsi_extended),
    "cpu-vector-i1-param": (2, 32, vector_bool_param),
    "vk-floordivsi-sext-const": (2, 32, floordiv_const),
    "vk-index-cast-sext-rem": (2, 32, index_cast_rem),
    "vk-remsi-intmin": (2, 32, remsi),
    "vk-sext-cmp-slt": (2, 32, sext_slt),
    "vk-while-ctlz-i64": (2, 32, while_ctlz_i64),
    "vk-while-vector-header-vec2": (2, 32, while_header),
    "vk-while-vector-header-vec3": (2, 32, while_header),
    "vk-while-vector-header-vec4": (2, 32, while_header),
    "vk-while-zext-header": (2, 32, while_header_i16),
}


def main():
    files = sorted(glob.glob(os.path.join(HERE, "repros", "*.mlir")))
    names = [os.path.basename(f)[:-5] for f in files]
    missing = sorted(set(names) ^ set(CASES))
    if missing:
        print(f"FAIL: reproducers and cases differ: {missing}")
        return 1
    devices = open_devices()
    rng = np.random.default_rng()
    passed = failed = 0
    for f, name in zip(files, names):
        grid, block, make = CASES[name]
        text = open(f).read()
        for dev in devices:
            args, want = make(rng, grid * block)
            try:
                dev.compile(text, source_name=f).kernel("k").launch(grid, block, args)
            except xpujit.XpuError as e:
                print(f"FAIL {name} on {dev.spec}: {e}")
                failed += 1
                continue
            got = args[0]
            bad = np.nonzero(got != want)[0]
            if len(bad):
                i = bad[0]
                print(f"FAIL {name} on {dev.spec}: {len(bad)} of {len(got)} wrong; "
                      f"o[{i}] = {got[i]}, expected {want[i]}")
                failed += 1
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and devices else 1


if __name__ == "__main__":
    sys.exit(main())
