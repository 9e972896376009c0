#!/usr/bin/python3
"""The differential tester: random admitted integer kernels (kernel.py),
run on every available backend and compared bit for bit, element by
element, with the reference interpreter (reference.py). A disagreement, a
compile failure, SPIR-V that spirv-val refuses or a crash prints a
self-contained reproducer and is reduced (reduce.py) to the smallest
kernel that still fails the same way.

    differential.py --count 600 --seed 1                # cpu and vulkan:0
    differential.py --count 5000 --backends cuda:0,vulkan:0 --require
    differential.py --seed 1234 --count 1 --show        # print one kernel

Exit status: 0 when every kernel agreed everywhere, 1 otherwise, 2 for a
usage error. The last line reads "N passed, N failed" (kernels)."""
import argparse
import ctypes
import json
import os
import pickle
import random
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))

import xpujit  # noqa: E402
from devices import open_devices  # noqa: E402
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


SPIRV_VAL = shutil.which("spirv-val")


def invalid_spirv(module):
    """spirv-val's complaint about a Vulkan module's code, or None: code a
    lenient driver runs may still be refused (or misread) by another."""
    from xpujit import _lib
    data, size, fmt = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_char_p()
    lib = _lib.lib
    lib.xpu_module_binary.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                      ctypes.c_void_p]
    if lib.xpu_module_binary(module.handle, ctypes.byref(data), ctypes.byref(size),
                             ctypes.byref(fmt)) or fmt.value != b"spirv":
        return None
    with tempfile.NamedTemporaryFile(suffix=".spv") as f:
        f.write(ctypes.string_at(data, size.value))
        f.flush()
        p = subprocess.run([SPIRV_VAL, "--target-env", "vulkan1.3", f.name],
                           capture_output=True, text=True)
    return None if p.returncode == 0 else (p.stdout + p.stderr).strip()


def run_on(device, case):
    """None when the device computes what the reference says; else a
    description of the first failure (kind, text)."""
    k = case.kernel
    try:
        module = device.compile(case.text, source_name="differential.mlir")
    except xpujit.RefusedError as e:
        return ("refused", str(e))
    except xpujit.XpuError as e:
        return ("compile", str(e))
    if SPIRV_VAL and device.backend == "vulkan":
        complaint = invalid_spirv(module)
        if complaint:
            return ("invalid-spirv", complaint)
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
    spec = device.spec if device else "?"
    lines = [f"// differential: {failure[0]} on {spec}: {(failure[1] or '-').splitlines()[0]}",
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


def check_seed(seed, devices, opts):
    """Runs one kernel everywhere; returns the failure kinds per device."""
    case = Case(generate(seed), seed)
    if opts.show:
        print(case.text)
    kinds = []
    for dev in devices:
        print(f"@@device {dev.spec}", flush=True)
        f = run_on(dev, case)
        if f is None:
            continue
        kinds.append((dev.spec, f[0]))
        if f[0] == "refused":
            # Not admitted: the generator meant an admitted kernel, so this
            # is admission being incomplete (counted), not a wrong result.
            print(f"\n=== seed {seed}: refused on {dev.spec}: {f[1].splitlines()[0]}")
            continue
        print(f"\n=== seed {seed}: {f[0]} on {dev.spec}\n{reproducer(case, dev, f)}")
        if not opts.no_reduce:
            fails = same_failure(dev, f[0])
            small, tries = reduce(case.kernel, lambda k: fails(k, case))
            report(seed, dev.spec, f[0], tries, reproducer(case.with_kernel(small), dev,
                                                           run_on(dev, case.with_kernel(small)) or f),
                   opts)
    return kinds


def report(seed, spec, kind, tries, text, opts):
    print(f"--- seed {seed} reduced ({tries} tries):\n{text}", flush=True)
    if opts.out:
        os.makedirs(opts.out, exist_ok=True)
        name = f"seed{seed}-{spec.replace(':', '')}-{kind}.mlir"
        with open(os.path.join(opts.out, name), "w") as fh:
            fh.write(text)


def worker(opts):
    """Runs the seeds in this process, marking each one's start and end."""
    devices = open_devices(opts.backends.split(","), opts.require)
    if not devices:
        print("FAIL: no backend to test")
        return 1
    print("@@devices " + ",".join(d.spec for d in devices), flush=True)
    for seed in range(opts.seed, opts.seed + opts.count):
        print(f"@@seed {seed}", flush=True)
        kinds = check_seed(seed, devices, opts)
        print("@@result " + " ".join(f"{s}={k}" for s, k in kinds), flush=True)
    return 0


def replay(path, opts):
    """Exit 0 when the pickled kernel agrees everywhere, 1 when not (a crash
    ends the process by its signal): the predicate for reducing crashes."""
    with open(path, "rb") as f:
        kernel, seed = pickle.load(f)
    devices = open_devices(opts.backends.split(","), True)
    case = Case(generate(seed), seed).with_kernel(kernel)
    return 1 if any(run_on(d, case) for d in devices) else 0


def reduce_crash(seed, spec, opts):
    """A backend crashed on `seed`: reduce it in child processes."""
    case = Case(generate(seed), seed)
    tmp = tempfile.mkdtemp(prefix="xpu-differential-")

    def crashes(kernel):
        path = os.path.join(tmp, "kernel.pickle")
        with open(path, "wb") as f:
            pickle.dump((kernel, seed), f)
        p = subprocess.run([sys.executable, __file__, "--replay", path, "--backends", spec],
                           capture_output=True)
        return p.returncode < 0
    small = case.kernel
    tries = 0
    if not opts.no_reduce:
        small, tries = reduce(case.kernel, crashes, budget=150)
    text = (f"// differential: crash on {spec} (the process died by a signal)\n"
            + reproducer(case.with_kernel(small), None, ("crash", "")).split("\n", 1)[1])
    report(seed, spec, "crash", tries, text, opts)


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
    ap.add_argument("--counts", help="keep the run's counts in this JSON file (rewritten "
                    "as the run goes; \"finished\" says whether it ended)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--replay", help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.worker:
        return worker(opts)
    if opts.replay:
        return replay(opts.replay, opts)

    # The kernels run in a worker process, so a backend that crashes costs
    # one kernel (reported and reduced as a crash), not the run.
    start = time.time()
    passed = failed = refused = worker_errors = 0
    per_kind = {}
    seed, end = opts.seed, opts.seed + opts.count
    specs = "?"

    def save_counts(finished):
        if not opts.counts:
            return
        counts = {"first_seed": opts.seed, "count": opts.count, "next_seed": seed,
                  "backends": specs, "kernels": passed + failed + refused - worker_errors,
                  "passed": passed, "failed": failed, "refused": refused,
                  "worker_errors": worker_errors,
                  "kinds": {f"{spec} {kind}": n for (spec, kind), n in sorted(per_kind.items())},
                  "seconds": round(time.time() - start, 1), "finished": finished}
        with open(opts.counts + ".tmp", "w") as fh:
            json.dump(counts, fh, indent=1)
        os.replace(opts.counts + ".tmp", opts.counts)
    while seed < end:
        cmd = [sys.executable, "-u", __file__, "--worker", "--seed", str(seed),
               "--count", str(end - seed), "--backends", opts.backends]
        for flag in ("require", "no_reduce", "show"):
            if getattr(opts, flag):
                cmd.append("--" + flag.replace("_", "-"))
        if opts.out:
            cmd += ["--out", opts.out]
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        current = device = None
        for line in child.stdout:
            if line.startswith("@@devices "):
                specs = line.split()[1]
            elif line.startswith("@@seed "):
                current = int(line.split()[1])
            elif line.startswith("@@device "):
                device = line.split()[1]
            elif line.startswith("@@result"):
                kinds = [kv.split("=") for kv in line.split()[1:]]
                for spec, kind in kinds:
                    per_kind[(spec, kind)] = per_kind.get((spec, kind), 0) + 1
                bad = [k for _, k in kinds if k != "refused"]
                if bad:
                    failed += 1
                elif kinds:
                    refused += 1
                else:
                    passed += 1
                seed, current = current + 1, None
                done = passed + failed + refused
                if done % 100 == 0:
                    print(f"progress: {done} kernels, {failed} failed, "
                          f"{time.time() - start:.0f} s", flush=True)
                if done % 25 == 0:
                    save_counts(False)
                if opts.stop_after and failed >= opts.stop_after:
                    child.kill()
                    break
            else:
                sys.stdout.write(line)
        rc = child.wait()
        if opts.stop_after and failed >= opts.stop_after:
            print(f"stopping after {failed} failing kernels")
            break
        if current is None:
            if rc not in (0, -9):
                print(f"FAIL: the worker exited with {rc}")
                failed += 1
                worker_errors += 1
            break
        print(f"\n=== seed {current}: crash on {device} (signal {-rc})", flush=True)
        per_kind[(device, "crash")] = per_kind.get((device, "crash"), 0) + 1
        failed += 1
        reduce_crash(current, device, opts)
        seed = current + 1
    elapsed = time.time() - start
    print(f"\ndifferential: seeds {opts.seed}..{seed - 1} on {specs} in {elapsed:.0f} s")
    for (spec, kind), n in sorted(per_kind.items()):
        print(f"  {spec}: {n} {kind}")
    # A few refusals are admission's incompleteness; many would mean the
    # generator no longer makes admitted kernels, so nothing was tested.
    if refused * 50 > opts.count:
        print(f"FAIL: {refused} of {opts.count} kernels were refused (more than 2%)")
        failed += 1
    print(f"{refused} kernels refused by admission (not run)")
    print(f"{passed} passed, {failed} failed")
    save_counts(seed >= end)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
