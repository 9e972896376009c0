#!/usr/bin/env python3
"""Runs the given test programs (the conformance suite, the Vulkan tests) on
the Vulkan device with XPU_DUMP_DIR set and validates every SPIR-V module
they produced with spirv-val. Exits 77 (skipped) when there is no Vulkan
device or no spirv-val."""
import os
import subprocess
import sys
import tempfile

from spirv_check import invalid_modules, spirv_val

programs = sys.argv[1:]
validator = spirv_val()
if not validator:
    print("SKIP: spirv-val not found (Debian: spirv-tools)")
    sys.exit(77)

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
    count, failures = invalid_modules(dump, validator)
    if not count:
        print("FAIL: no .spv stage was dumped")
        sys.exit(1)
    for failure in failures:
        print(f"FAIL: {failure}")
    print(f"spirv-val: {count - len(failures)} of {count} modules valid")
    sys.exit(1 if failures else 0)
