#!/usr/bin/env python3
"""The xpujit command-line tool: devices, check, and run with results
verified against a NumPy reference. Usage: test_cli.py XPUJIT EXAMPLES_DIR"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

XPUJIT, EXAMPLES = sys.argv[1], sys.argv[2]
failures = []


def run(*args, expect=0):
    p = subprocess.run([XPUJIT, *args], capture_output=True, text=True)
    if p.returncode != expect:
        failures.append(f"{' '.join(args)}: exit {p.returncode}, wanted {expect}\n"
                        f"{p.stdout}{p.stderr}")
    return p


def check(cond, what):
    if not cond:
        failures.append(what)


# devices: the CPU device is always listed.
p = run("devices")
check(" cpu " in p.stdout, f"devices lists no cpu device:\n{p.stdout}")

# check: an admitted file passes, a broken one fails with file:line:col.
run("check", os.path.join(EXAMPLES, "saxpy.mlir"))
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.mlir")
    with open(bad, "w") as f:
        f.write("xpu.kernel @k(%a: !xpu.buffer<f32>) {\n"
                "  %v = xpu.load %a[%missing] : !xpu.buffer<f32>\n"
                "  xpu.return\n}\n")
    p = run("check", bad, expect=1)
    check(f"{bad}:2:20: error: XPU-PARSE:" in p.stderr, f"check output: {p.stderr}")
    p = run("check", bad, "--json", expect=1)
    diags = json.loads(p.stdout)
    check(len(diags) == 1 and diags[0]["line"] == 2 and diags[0]["column"] == 20,
          f"check --json: {p.stdout}")

    # run: saxpy on seeded random data, verified element by element.
    seed = int.from_bytes(os.urandom(4), "little")
    n = 10007
    p = run("run", os.path.join(EXAMPLES, "saxpy.mlir"), "--kernel", "saxpy",
            "--grid", str((n + 255) // 256), "--block", "256",
            "--arg", f"buf:f32[{n}]=rand", "--arg", f"buf:f32[{n}]=rand",
            "--arg", "f32:2.5", "--arg", f"u32:{n}",
            "--seed", str(seed), "--save", tmp)
    x = np.fromfile(os.path.join(tmp, "x.in.bin"), dtype=np.float32)
    y = np.fromfile(os.path.join(tmp, "y.in.bin"), dtype=np.float32)
    out = np.fromfile(os.path.join(tmp, "y.out.bin"), dtype=np.float32)
    want = (np.float32(2.5) * x + y).astype(np.float32)
    check(x.size == n and out.size == n, "saved buffers have the wrong size")
    check(np.array_equal(out, want),
          f"saxpy results differ in {np.count_nonzero(out != want)} elements (seed {seed})")
    check(np.array_equal(np.fromfile(os.path.join(tmp, "x.out.bin"), np.float32), x),
          "the read-only input changed")
    check("fnv1a=" in p.stdout, f"run prints no checksum:\n{p.stdout}")

# Usage errors are exit code 2 with a message.
p = run("run", os.path.join(EXAMPLES, "saxpy.mlir"), "--kernel", "saxpy",
        "--grid", "1", "--block", "1", "--arg", "buf:f99[4]", expect=2)
check("unknown element type" in p.stderr, p.stderr)
p = run("run", os.path.join(EXAMPLES, "saxpy.mlir"), "--kernel", "nope",
        "--grid", "1", "--block", "1", expect=1)
check("no kernel named 'nope'" in p.stderr, p.stderr)
run("bogus", expect=2)
for cmd in ("devices", "check", "run"):
    p = run(cmd, "--help")
    check("usage: xpujit" in p.stdout, f"{cmd} --help: {p.stdout}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("cli: all checks passed")
