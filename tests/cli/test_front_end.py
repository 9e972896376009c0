#!/usr/bin/env python3
"""Front-end regression inputs (tests/lit/front-end/, the XPU-UC001
reproducers): each is refused with the located error its first `// CHECK:`
line names (or, without one, admitted and compiled), through code generation (backend `cpu`: `xpujit compile` for
cpu, nvptx and amdgcn) or a launch on a device (backend `vulkan`), and
never with a crash, an abort or an internal error. The lit RUN lines cover
`xpujit check` and `xpujit run` on the CPU.
Usage: test_front_end.py XPUJIT cpu|vulkan FILE_OR_DIR..."""
import os
import subprocess
import sys
import tempfile

XPUJIT, BACKEND, PATHS = sys.argv[1], sys.argv[2], sys.argv[3:]
# What an input must never produce: a process that died, or a stage that
# failed inside instead of refusing the input.
FORBIDDEN = ("internal error", "LLVM ERROR", "JIT session error", "Assertion",
             "Stack dump", "PLEASE submit", "failed to legalize")
failures = []


def inputs():
    for p in PATHS:
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                if name.endswith(".mlir"):
                    yield os.path.join(p, name)
        else:
            yield p


def expected(path):
    """The located error a refused input must give; None for an admitted one."""
    with open(path) as f:
        for line in f:
            if line.startswith("// CHECK: "):
                return line[len("// CHECK: "):].rstrip("\n")
    return None


def judge(path, *args):
    try:
        p = subprocess.run([XPUJIT, *args], capture_output=True, text=True,
                           timeout=300)
    except subprocess.TimeoutExpired:
        failures.append(f"{' '.join(args)}: hung")
        return
    out = p.stdout + p.stderr
    what = f"{' '.join(args)}: exit {p.returncode}\n{out}"
    if expected(path) is None:
        if p.returncode != 0:
            failures.append(f"{what}(an admitted input, wanted exit 0)")
    elif p.returncode != 1:
        failures.append(f"{what}(wanted exit 1: a clean refusal)")
    elif expected(path) not in out:
        failures.append(f"{what}(wanted: {expected(path)})")
    elif any(f in out for f in FORBIDDEN):
        failures.append(f"{what}(an internal failure, not a refusal)")


if BACKEND == "vulkan":
    devices = subprocess.run([XPUJIT, "devices"], capture_output=True, text=True).stdout
    if " vulkan " not in devices:
        print("SKIP: no Vulkan device (xpujit devices):\n" + devices)
        sys.exit(77)

files = list(inputs())
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out.bin")
    for path in files:
        if BACKEND == "vulkan":
            if expected(path) is None:
                continue  # admitted: compiled by the cpu part
            judge(path, "run", path, "--kernel", "k", "--grid", "1", "--block", "1",
                    "--device", "vulkan:0")
        else:
            judge(path, "compile", path, "--target", "cpu", "-o", out)
            judge(path, "compile", path, "--target", "nvptx", "--chip", "sm_90", "-o", out)
            judge(path, "compile", path, "--target", "amdgcn", "--chip", "gfx942", "-o", out)

for f in failures:
    print("FAIL:", f)
print(f"{len(files)} inputs on {BACKEND}: {len(failures)} failures")
sys.exit(1 if failures or not files else 0)
