#!/usr/bin/env python3
"""Launching a kernel with NumPy arrays on the CPU backend: the zero-copy
path (arrays used in place) against the copying path it replaced (copy in,
launch, copy out, free), and against pre-made buffers (the floor), in one
run, interleaved.

    python3 bench/python/launch_numpy.py [--mib 16] [--repeat 30] [--out FILE]
"""
import argparse
import datetime
import os
import pathlib
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bindings" / "python"))
import xpujit  # noqa: E402

SAXPY = (pathlib.Path(__file__).resolve().parents[2] / "examples" / "saxpy.mlir").read_text()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--out")
    args = ap.parse_args()
    dev = xpujit.device("cpu")
    k = dev.compile(SAXPY).kernel("saxpy")
    n = args.mib * (1 << 20) // 4
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    y = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    grid = (n + 255) // 256
    bx, by = dev.array(x), dev.array(y)

    def in_place():
        k.launch(grid, 256, (y, x, 1.0, n))

    def copying():  # what launch() did with arrays before
        cx, cy = dev.array(x), dev.array(y)
        k.launch(grid, 256, (cy, cx, 1.0, n))
        dev.synchronize()
        y[...] = cy.numpy()
        cx.free()
        cy.free()

    def buffers():
        k.launch(grid, 256, (by, bx, 1.0, n))
        dev.synchronize()

    cases = {"NumPy arrays, in place": in_place, "NumPy arrays, copied (before)": copying,
             "pre-made buffers": buffers}
    times = {name: [] for name in cases}
    for fn in cases.values():
        fn()  # warm-up: compile, first touch
    for _ in range(args.repeat):
        for name, fn in cases.items():
            t = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - t) * 1e3)
    floor = statistics.median(times["pre-made buffers"])
    lines = [f"# Launch with NumPy arrays on the CPU backend ({args.mib} MiB per array)", "",
             f"Machine: {platform.node()}, {os.cpu_count()} cores, {platform.processor() or platform.machine()}; "
             f"date {datetime.date.today()}; load {os.getloadavg()[0]:.2f}; "
             f"command `python3 bench/python/launch_numpy.py --mib {args.mib} --repeat {args.repeat}`.",
             "", "| how | median ms | min ms | / pre-made buffers |", "|---|---|---|---|"]
    for name, t in times.items():
        lines.append(f"| {name} | {statistics.median(t):.2f} | {min(t):.2f} | "
                     f"{statistics.median(t) / floor:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
