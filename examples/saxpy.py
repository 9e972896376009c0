#!/usr/bin/env python3
"""saxpy from Python: y = a * x + y, compiled from examples/saxpy.mlir and
again from builder calls, run on random data and checked against NumPy.

    python3 examples/saxpy.py [DEVICE]      # DEVICE: cpu, vulkan, cuda:0, ...
"""
import pathlib
import sys

import numpy as np

import xpujit


def build_saxpy():
    """The kernel of saxpy.mlir, made by builder calls."""
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
    return b


def main():
    dev = xpujit.device(sys.argv[1]) if len(sys.argv) > 1 else xpujit.default_device()
    source = pathlib.Path(__file__).with_name("saxpy.mlir")
    from_text = dev.compile(source.read_text(), source_name=str(source)).kernel("saxpy")
    from_builder = dev.compile(build_saxpy()).kernel("saxpy")

    rng = np.random.default_rng()
    n = 1_000_003
    a = np.float32(rng.uniform(-4, 4))
    for kernel in (from_text, from_builder):
        x = rng.uniform(-1, 1, n).astype(np.float32)
        y = rng.uniform(-1, 1, n).astype(np.float32)
        want = a * x + y  # rounded twice, as the kernel does (no contraction)
        kernel.launch(grid=(n + 255) // 256, block=256, args=(y, x, a, n))
        if not np.array_equal(y, want):
            bad = np.flatnonzero(y != want)
            sys.exit(f"saxpy: {len(bad)} elements differ, first at {bad[0]}: "
                     f"{y[bad[0]]} != {want[bad[0]]}")
    print(f"saxpy: {n} elements on {dev.spec} ({dev.name}) match NumPy, "
          f"from text and from the builder")


if __name__ == "__main__":
    main()
