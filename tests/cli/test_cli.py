#!/usr/bin/env python3
"""The xpujit command-line tool: devices, check, run with results verified
against a NumPy reference, and compile for targets without a device.
Usage: test_cli.py XPUJIT EXAMPLES_DIR"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

XPUJIT, EXAMPLES = sys.argv[1], sys.argv[2]
failures = []


def run(*args, expect=0, env=None):
    p = subprocess.run([XPUJIT, *args], capture_output=True, text=True,
                       env=None if env is None else {**os.environ, **env})
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

# devices: a machine without the HIP runtime has no HIP devices, and says why.
p = run("devices", env={"ROCM_PATH": "/nonexistent"})
check("hip: no devices (libamdhip64 not found" in p.stdout or " hip " in p.stdout,
      f"devices gives no reason for the missing HIP devices:\n{p.stdout}")

# compile: code for a target without a device.
MATH = ("xpu.kernel @m(%o: !xpu.buffer<f32>) {\n"
        "  %i = xpu.global_id x\n"
        "  %v = xpu.load %o[%i] : !xpu.buffer<f32>\n"
        "  %s = math.sin %v : f32\n"
        "  xpu.store %s, %o[%i] : !xpu.buffer<f32>\n"
        "  xpu.return\n}\n")
with tempfile.TemporaryDirectory() as tmp:
    saxpy = os.path.join(EXAMPLES, "saxpy.mlir")
    for chip in ("gfx90a", "gfx942", "gfx1100"):
        out = os.path.join(tmp, f"saxpy-{chip}.hsaco")
        run("compile", saxpy, "--target=amdgcn", f"--chip={chip}", "-o", out)
        with open(out, "rb") as f:
            head = f.read(64)
        # ELF, 64-bit, OS/ABI AMDGPU HSA (64), ABI version 3 (code object v5),
        # a shared object for EM_AMDGPU (224).
        check(head[:4] == b"\x7fELF" and head[4] == 2 and head[7] == 64 and
              head[8] == 3 and head[16] == 3 and head[18] == 224,
              f"{chip}: not an AMDGPU code object v5: {head[:20]!r}")
    out = os.path.join(tmp, "saxpy.sm_90")
    run("compile", saxpy, "--target=nvptx", "--chip=sm_90", "-o", out)
    with open(out, "rb") as f:
        code = f.read()
    check(code[:4] == b"\x7fELF" or b".target sm_90" in code,
          "compile --target nvptx wrote neither a cubin nor PTX for sm_90")
    out = os.path.join(tmp, "saxpy.o")
    run("compile", saxpy, "--target", "cpu", "-o", out)
    with open(out, "rb") as f:
        check(f.read(4) == b"\x7fELF", "compile --target cpu wrote no ELF object")
    math = os.path.join(tmp, "math.mlir")
    with open(math, "w") as f:
        f.write(MATH)
    run("compile", math, "--target=amdgcn", "--chip=gfx942", "-o",
        os.path.join(tmp, "math.hsaco"))
    # Without the AMD device libraries a kernel that needs them is refused
    # with what was looked for, and nothing is written.
    refused = os.path.join(tmp, "refused.hsaco")
    p = run("compile", math, "--target=amdgcn", "--chip=gfx942", "-o", refused,
            expect=1, env={"ROCM_PATH": "/nonexistent"})
    check(f"{math}:4:8: error: XPU-CAP001:" in p.stderr and
          "/nonexistent/amdgcn/bitcode/ocml.bc" in p.stderr,
          f"compile without device libraries: {p.stderr}")
    check(not os.path.exists(refused), "a refused compile wrote its output")
    p = run("compile", saxpy, "--target=amdgcn", "--chip=gfx9000", "-o", refused,
            expect=1)
    check("unknown AMD GPU architecture 'gfx9000'" in p.stderr, p.stderr)
    # A well-formed sm_XY that LLVM does not know: refused before code
    # generation, without LLVM's "not a recognized processor" warnings.
    p = run("compile", saxpy, "--target=nvptx", "--chip=sm_999", "-o", refused,
            expect=1)
    check("unknown NVIDIA architecture 'sm_999'" in p.stderr and "sm_90" in p.stderr and
          "recognized processor" not in p.stderr and "ptxas" not in p.stderr, p.stderr)
    # SPIR-V for a capable Vulkan 1.3 device, no device needed.
    spv = os.path.join(tmp, "saxpy.spv")
    run("compile", saxpy, "--target=spirv", "-o", spv)
    with open(spv, "rb") as f:
        check(f.read(4) == bytes.fromhex("03022307"), "compile --target=spirv: not SPIR-V")
    p = run("compile", saxpy, "--target=amdgcn", expect=2)
    check("usage: xpujit compile" in p.stderr, p.stderr)
    # XPU_DUMP_DIR writes every stage and leaves the code as it was (the
    # AMDGPU assembly dump once rewrote the module and aborted the object).
    for target, chip in (("cpu", None), ("nvptx", "sm_90"), ("amdgcn", "gfx942"),
                         ("spirv", None)):
        chip_args = [f"--chip={chip}"] if chip else []
        plain, dumped = os.path.join(tmp, "plain.bin"), os.path.join(tmp, "dumped.bin")
        dump_dir = os.path.join(tmp, f"dump-{target}")
        os.makedirs(dump_dir)
        run("compile", saxpy, f"--target={target}", *chip_args, "-o", plain)
        run("compile", saxpy, f"--target={target}", *chip_args, "-o", dumped,
            env={"XPU_DUMP_DIR": dump_dir})
        same = os.path.exists(dumped) and open(plain, "rb").read() == open(dumped, "rb").read()
        check(same, f"compile --target {target} with XPU_DUMP_DIR gave different code")
        check(any(n.endswith(".admitted.mlir") for n in os.listdir(dump_dir)),
              f"compile --target {target} with XPU_DUMP_DIR dumped no stages")

    # --manifest: each kernel's manifest as JSON; every fact has a value and
    # its source, or is absent with why (never a guessed number). Access
    # modes and cost parameters come from the IR, the same on every target.
    for target in (["--target=spirv"], ["--target=cpu"],
                   ["--target=nvptx", "--chip=sm_90"],
                   ["--target=amdgcn", "--chip=gfx942"]):
        p = run("compile", saxpy, *target, "--manifest")
        if p.returncode != 0:
            continue
        manifests = json.loads(p.stdout)
        check(len(manifests) == 1 and manifests[0]["kernel"] == "saxpy", p.stdout)
        m = manifests[0]
        check(m["schema"] == "xpujit.manifest/1" and m["classified"], p.stdout)
        for name, fact in m["footprint"].items():
            check(("value" in fact and fact.get("source")) or fact.get("absent"),
                  f"{target}: fact {name} has neither a sourced value nor a reason: {fact}")
        params = {q["name"]: q for q in m["params"]}
        check(params["y"]["access"] == ["read", "write"] and
              params["x"]["access"] == ["read"] and params["n"]["cost"] == ["value"] and
              m["cost_params"] == ["n"], f"{target}: {m['params']}")
        if target[0] == "--target=spirv":
            check("absent" in m["footprint"]["registers"], f"spirv registers guessed: {m}")
    # With -o the code is written as well.
    run("compile", saxpy, "--target=spirv", "--manifest", "-o", spv)
    check(os.path.getsize(spv) > 0, "compile --manifest -o wrote no code")
    p = run("compile", saxpy, "--target=spirv", "--manifest", "--json", expect=2)
    check("choose one" in p.stderr, p.stderr)

# Usage errors are exit code 2 with a message.
p = run("run", os.path.join(EXAMPLES, "saxpy.mlir"), "--kernel", "saxpy",
        "--grid", "1", "--block", "1", "--arg", "buf:f99[4]", expect=2)
check("unknown element type" in p.stderr, p.stderr)
p = run("run", os.path.join(EXAMPLES, "saxpy.mlir"), "--kernel", "nope",
        "--grid", "1", "--block", "1", expect=1)
check("no kernel named 'nope'" in p.stderr, p.stderr)
run("bogus", expect=2)
for cmd in ("devices", "check", "run", "compile"):
    p = run(cmd, "--help")
    check("usage: xpujit" in p.stdout, f"{cmd} --help: {p.stdout}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("cli: all checks passed")
