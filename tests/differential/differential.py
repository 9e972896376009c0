#!/usr/bin/python3
"""The differential tester: random admitted integer kernels (kernel.py),
run on every available backend and compared bit for bit, element by
element, with the reference interpreter (reference.py). A disagreement or
a compile failure prints a self-contained reproducer and is reduced
(reduce.py) to the smallest kernel that still fails.

    differential.py --count 600 --seed 1                # cpu and vulkan:0
    differential.py --count 5000 --backends cuda:0,vulkan:0 --require
    differential.py --seed 1234 --count 1 --show        # print one kernel

Exit status: 0 when every kernel agreed everywhere, 1 otherwise, 2 for a
usage error. The last line reads "N passed, N failed" (kernels)."""
import argparse
import os
import random
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))

import xpujit  # noqa: E402
from kernel import edge_value, generate, to_mlir  # noqa: E402
from reduce import reduce  # noqa: E402
from reference import execute, signed  # noqa: E402

DTYPES = {1: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


class Case:
    """A kernel with its inputs, and what the reference says it computes."""

    def __init__(self, kernel, seed):
        self.kernel = kernel
        rng = random.Random(seed * 7919 + 1)
        k = kernel
        self.inputs = [[edge_value(rng, ety.w) for _ in range(k.invocations * per)]
                       for ety, per in k.inputs]
        self.scalar = None
        if k.scalar is not None:
            s = k.scalar
            self.scalar = (tuple(edge_value(rng, s.w) for _ in range(s.lanes))
                           if s.lanes else edge_value(rng, s.w))
        self.atomic_init = ([edge_value(rng, k.atomic.w) for _ in range(k.atomic_slots)]
                            if k.atomic is not None else None)
        self.refresh()

    def refresh(self):
        """The text and the expected results of the (possibly reduced) kernel."""
        self.text = to_mlir(self.kernel)
        self.expected, self.expected_atomic = execute(
            self.kernel, self.inputs, self.scalar, self.atomic_init)

    def with_kernel(self, kernel):
        c = object.__new__(Case)
        c.kernel, c.inputs, c.scalar, c.atomic_init = (kernel, self.inputs, self.scalar,
                                                       self.atomic_init)
        c.refresh()
        return c

    def args(self):
        """Launch arguments in parameter order, and the output arrays."""
        k = self.kernel
        outs = [np.zeros(k.invocations * per, DTYPES[w]) for w, per in k.output_types()]
        args = list(outs)
        for (ety, _), data in zip(k.inputs, self.inputs):
            args.append(np.array(data, DTYPES[ety.w]))
        if k.scalar is not None:
            args.append(list(self.scalar) if k.scalar.lanes else self.scalar)
        acc = None
        if k.atomic is not None:
            acc = np.array(self.atomic_init, DTYPES[k.atomic.w])
            args.append(acc)
        return args, outs, acc


def run_on(device, case):
    """None when the device computes what the reference says; else a
    description of the first failure (kind, text)."""
    k = case.kernel
    try:
        module = device.compile(case.text, source_name="differential.mlir")
    except xpujit.XpuError as e:
        return ("compile", str(e))
    try:
        args, outs, acc = case.args()
        module.kernel(k.name).launch(grid=k.grid, block=k.workgroup, args=args)
    except xpujit.XpuError as e:
        return ("launch", str(e))
    bad = []
    for (w, _), got in zip(k.output_types(), outs):
        want = case.expected[w]
        for i, (g, e) in enumerate(zip(got.tolist(), want)):
            if (g & 1 if w == 1 else g) != e:
                bad.append(f"o{w}[{i}] = {signed(g, w)}, expected {signed(e, w)}")
    if acc is not None:
        for i, (g, e) in enumerate(zip(acc.tolist(), case.expected_atomic)):
            if g != e:
                bad.append(f"acc[{i}] = {signed(g, k.atomic.w)}, expected "
                           f"{signed(e, k.atomic.w)}")
    if bad:
        return ("mismatch", f"{len(bad)} elements differ: " + "; ".join(bad[:6]))
    return None


def reproducer(case, device, failure):
    """Everything needed to see the failure again without this tool."""
    k = case.kernel
    lines = [f"// differential: {failure[0]} on {device.spec}: {failure[1].splitlines()[0]}",
             f"// launch: grid {k.grid}, block {k.workgroup}"]
    names = [f"o{w}" for w, _ in k.output_types()]
    for b, ((ety, _), data) in enumerate(zip(k.inputs, case.inputs)):
        lines.append(f"// in{b} (i{ety.w}) = {[signed(v, ety.w) for v in data]}")
    if k.scalar is not None:
        s = case.scalar
        lines.append(f"// p = {[signed(v, k.scalar.w) for v in s] if k.scalar.lanes else signed(s, k.scalar.w)}")
    if k.atomic is not None:
        lines.append(f"// acc before = {[signed(v, k.atomic.w) for v in case.atomic_init]}")
    for name, (w, _) in zip(names, k.output_types()):
        lines.append(f"// expected {name} = {[signed(v, w) for v in case.expected[w]]}")
    if k.atomic is not None:
        lines.append(f"// expected acc = {[signed(v, k.atomic.w) for v in case.expected_atomic]}")
    return "\n".join(lines) + "\n" + case.text


def same_failure(device, kind):
    def fails(kernel, case):
        c = case.with_kernel(kernel)
        f = run_on(device, c)
        return f is not None and f[0] == kind
    return fails


def open_devices(specs, require):
    devices = []
    for spec in specs:
        try:
            devices.append(xpujit.device(spec))
        except xpujit.XpuError as e:
            if require:
                print(f"FAIL: backend {spec} has no device: {e}")
                sys.exit(1)
            print(f"SKIP: {spec}: {e}")
    return devices


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=100, help="kernels to run")
    ap.add_argument("--seed", type=int, default=1, help="first kernel's seed")
    ap.add_argument("--backends", default="cpu,vulkan:0",
                    help="comma-separated device specs (default cpu,vulkan:0)")
    ap.add_argument("--require", action="store_true",
                    help="fail when a listed backend has no device")
    ap.add_argument("--no-reduce", action="store_true", help="print failures unreduced")
    ap.add_argument("--show", action="store_true", help="print each kernel's text")
    ap.add_argument("--out", help="write each reduced reproducer into this folder")
    ap.add_argument("--stop-after", type=int, default=20,
                    help="stop after this many failing kernels (0: never)")
    opts = ap.parse_args(argv)
    devices = open_devices(opts.backends.split(","), opts.require)
    if not devices:
        print("FAIL: no backend to test")
        return 1
    start = time.time()
    passed = failed = 0
    per_kind = {}
    for seed in range(opts.seed, opts.seed + opts.count):
        case = Case(generate(seed), seed)
        if opts.show:
            print(case.text)
        ok = True
        for dev in devices:
            f = run_on(dev, case)
            if f is None:
                continue
            ok = False
            per_kind[(dev.spec, f[0])] = per_kind.get((dev.spec, f[0]), 0) + 1
            print(f"\n=== seed {seed}: {f[0]} on {dev.spec}\n{reproducer(case, dev, f)}")
            if not opts.no_reduce:
                fails = same_failure(dev, f[0])
                small, tries = reduce(case.kernel, lambda k: fails(k, case))
                rc = case.with_kernel(small)
                rf = run_on(dev, rc) or f
                text = reproducer(rc, dev, rf)
                print(f"--- seed {seed} reduced ({tries} tries):\n{text}")
                if opts.out:
                    os.makedirs(opts.out, exist_ok=True)
                    name = f"seed{seed}-{dev.spec.replace(':', '')}-{f[0]}.mlir"
                    with open(os.path.join(opts.out, name), "w") as fh:
                        fh.write(text)
        passed += ok
        failed += not ok
        if opts.stop_after and failed >= opts.stop_after:
            print(f"stopping after {failed} failing kernels")
            break
    elapsed = time.time() - start
    specs = ", ".join(d.spec for d in devices)
    print(f"\ndifferential: seeds {opts.seed}..{seed} on {specs} in {elapsed:.0f} s")
    for (spec, kind), n in sorted(per_kind.items()):
        print(f"  {spec}: {n} {kind}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
