#!/usr/bin/env python3
"""Runs the given test programs (the conformance suite, the Vulkan tests) on
the Vulkan device with XPU_DUMP_DIR set and validates every SPIR-V module
they produced with spirv-val, for the Vulkan version the module's SPIR-V
version belongs to. Exits 77 (skipped) when there is no Vulkan device or no
spirv-val."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

programs = sys.argv[1:]
spirv_val = shutil.which("spirv-val")
if not spirv_val:
    print("SKIP: spirv-val not found (Debian: spirv-tools)")
    sys.exit(77)

# SPIR-V version word (major << 16 | minor << 8) -> the Vulkan that consumes it.
TARGET_ENV = {(1, 3): "vulkan1.1", (1, 4): "vulkan1.1spv1.4", (1, 5): "vulkan1.2",
              (1, 6): "vulkan1.3"}

with tempfile.TemporaryDirectory() as dump:
    env = dict(os.environ, XPU_TEST_BACKEND="vulkan", XPU_DUMP_DIR=dump)
    for program in programs:
        run = subprocess.run([program], env=env, capture_output=True, text=True)
        if run.returncode == 77:
            print(run.stdout.strip())
            sys.exit(77)
        if run.returncode != 0:
            print(run.stdout, run.stderr)
            print(f"FAIL: {program} failed on vulkan")
            sys.exit(1)
    modules = sorted(f for f in os.listdir(dump) if f.endswith(".spv"))
    if not modules:
        print("FAIL: no .spv stage was dumped")
        sys.exit(1)
    failed = 0
    for name in modules:
        path = os.path.join(dump, name)
        with open(path, "rb") as f:
            magic, version = struct.unpack("<II", f.read(8))
        target = TARGET_ENV.get(((version >> 16) & 0xFF, (version >> 8) & 0xFF))
        if magic != 0x07230203 or not target:
            print(f"FAIL: {name}: not SPIR-V for Vulkan (version word {version:#x})")
            failed += 1
            continue
        check = subprocess.run([spirv_val, "--target-env", target, path],
                               capture_output=True, text=True)
        if check.returncode != 0:
            failed += 1
            print(f"FAIL: {name} ({target}):\n{check.stdout}{check.stderr}")
    print(f"spirv-val: {len(modules) - failed} of {len(modules)} modules valid")
    sys.exit(1 if failed else 0)
