#!/usr/bin/env python3
"""Shows that launches reuse pipelines and descriptor sets: saxpy launched
once and 200 times through `xpujit run` on the Vulkan device creates exactly
one pipeline and one descriptor set either way (counted from the backend's
XPU_LOG=debug lines). Exits 77 when there is no Vulkan device."""
import os
import subprocess
import sys

xpujit, saxpy = sys.argv[1], sys.argv[2]
env = dict(os.environ, XPU_LOG="debug", XPU_CACHE="off")
for repeat in (1, 200):
    run = subprocess.run(
        [xpujit, "run", saxpy, "--device", "vulkan", "--kernel", "saxpy",
         "--grid", "4", "--block", "256", "--arg", "buf:f32[1024]=rand",
         "--arg", "buf:f32[1024]=iota", "--arg", "f32:2", "--arg", "u32:1024",
         "--repeat", str(repeat)],
        env=env, capture_output=True, text=True)
    if run.returncode != 0:
        if "no device 'vulkan'" in run.stderr:
            print("SKIP: no Vulkan device:", run.stderr.strip())
            sys.exit(77)
        print(run.stdout, run.stderr)
        sys.exit(1)
    # Only saxpy's: the capability model's contraction probe runs a kernel
    # of its own on first use of the device.
    pipelines = run.stderr.count("vulkan: created pipeline for 'saxpy'")
    sets = run.stderr.count("vulkan: allocated descriptor set for 'saxpy'")
    print(f"{repeat} launches: {pipelines} pipeline(s), {sets} descriptor set(s) created")
    if pipelines != 1 or sets != 1:
        print(run.stderr)
        print("FAIL: launches after the first must reuse the pipeline and set")
        sys.exit(1)
