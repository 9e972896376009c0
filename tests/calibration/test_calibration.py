#!/usr/bin/env python3
"""Calibration across processes, through the xpujit tool: a second process
on the same device runs no probe; a damaged record, a changed key or
another device measures again; an unusable store runs from memory and says
so once; a snapshot (XPU_CALIBRATION) is served only on its own device;
`xpujit calibrate` and `xpujit devices --calibration` print the facts.
The kernel each process runs (saxpy) is checked against NumPy.
Usage: test_calibration.py XPUJIT EXAMPLES_DIR SCRATCH_DIR"""
import glob
import os
import re
import shutil
import subprocess
import sys

import numpy as np

XPUJIT, EXAMPLES, SCRATCH = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
SAXPY = os.path.join(EXAMPLES, "saxpy.mlir")
N = 1024
STATS = re.compile(r"xpujit calibration: (\d+) probes run, (\d+) records loaded, (\d+) "
                   r"stored, (\d+) rejected, (\d+) store failures; store (.*)")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what)
    return cond


def fresh(name):
    path = os.path.join(SCRATCH, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def environment(cache_dir, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XPU_")}
    env.update(XPU_CALIBRATION_STATS="1")
    if cache_dir is not None:
        env["XPU_CACHE_DIR"] = cache_dir
    env.update(extra)
    return env


def saxpy(cache_dir, device="cpu", **extra):
    """Runs saxpy on `device` in a new process; returns its calibration
    counters and stderr, after checking the result."""
    out = fresh(f"out-{device.replace(':', '')}")
    p = subprocess.run([XPUJIT, "run", SAXPY, "--device", device, "--kernel", "saxpy",
                        "--grid", str(N // 256), "--block", "256",
                        "--arg", f"buf:f32[{N}]=rand", "--arg", f"buf:f32[{N}]=iota",
                        "--arg", "f32:2", "--arg", f"u32:{N}", "--save", out],
                       env=environment(cache_dir, **extra), capture_output=True, text=True)
    if not check(p.returncode == 0, f"saxpy on {device}: {p.stderr}"):
        return None, p.stderr
    files = sorted(glob.glob(os.path.join(out, "*")))
    y0 = np.fromfile(files[0], dtype=np.float32)
    x = np.fromfile(files[1], dtype=np.float32)
    check(np.array_equal(x, np.arange(N, dtype=np.float32)), "saxpy x")
    m = STATS.search(p.stderr)
    check(m, f"no calibration counters: {p.stderr}")
    return (tuple(int(v) for v in m.groups()[:5]) + (m.group(6),) if m else None), p.stderr


def record_files(cache_dir):
    return sorted(glob.glob(os.path.join(cache_dir, "calibration", "*.json")))


# A second process on the same device makes no probe measurement.
d = fresh("second")
s1, _ = saxpy(d)
s2, _ = saxpy(d)
if s1 and s2:
    check(s1[0] > 0 and s1[2] == 1, f"first process measures and stores: {s1}")
    check(s2[0] == 0 and s2[1] == 1, f"second process runs no probe: {s2}")
check(len(record_files(d)) == 1, f"one record: {record_files(d)}")

# Processes that start together on an uncalibrated device: one measures,
# the others wait for it and read its record.
together = fresh("together")
procs = [subprocess.Popen([XPUJIT, "run", SAXPY, "--device", "cpu", "--kernel", "saxpy",
                           "--grid", "1", "--block", "256", "--arg", "buf:f32[256]=rand",
                           "--arg", "buf:f32[256]=iota", "--arg", "f32:2", "--arg", "u32:256"],
                          env=environment(together), stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE,
                          text=True) for _ in range(6)]
runs = [STATS.search(p.communicate()[1]) for p in procs]
if check(all(runs) and all(p.returncode == 0 for p in procs), "processes together"):
    counts = [tuple(int(v) for v in m.groups()[:5]) for m in runs]
    check(sum(1 for c in counts if c[0] > 0) == 1 and sum(c[1] for c in counts) == 5,
          f"one of the processes that start together measures: {counts}")

# XPU_CACHE=off (and readonly) read records but write none.
off = fresh("off")
s_off, _ = saxpy(off, XPU_CACHE="off")
if s_off:
    check(s_off[0] > 0 and s_off[2] == 0 and not record_files(off), f"off writes nothing: {s_off}")
s_off, _ = saxpy(d, XPU_CACHE="off")
if s_off:
    check(s_off[0] == 0 and s_off[1] == 1, f"off reads the record: {s_off}")

# A record whose checksum fails is ignored (and measured again).
path = record_files(d)[0]
text = open(path).read()
damaged = re.sub(r'"value": (\d)', lambda m: '"value": ' + str(1 - int(m.group(1)) % 2), text,
                 count=1)
check(damaged != text, "the record has a value to damage")
open(path, "w").write(damaged)
s3, _ = saxpy(d)
if s3:
    check(s3[3] == 1 and s3[0] > 0 and s3[2] == 1, f"damaged record ignored: {s3}")
s4, _ = saxpy(d)
if s4:
    check(s4[0] == 0 and s4[1] == 1, f"the re-measured record serves again: {s4}")

# An unusable store (its location is a file) runs from memory, says so once
# per process, and the next process measures again.
blocker = os.path.join(fresh("unusable"), "not-a-directory")
open(blocker, "w").write("")
for _ in range(2):
    s, err = saxpy(blocker)
    if s:
        check(s[0] > 0 and s[2] == 0 and s[1] == 0, f"unusable store: {s}")
        check("read-only" in s[5] or "none" in s[5], f"store described: {s[5]}")
        check(err.count("stay in memory") == 1, f"said once: {err}")

# A snapshot: `xpujit calibrate --out`, then served by XPU_CALIBRATION with
# no store at all, on the device it was measured on only.
d = fresh("snapshot")
snap = os.path.join(d, "cpu.json")
md = os.path.join(d, "calibration.md")
p = subprocess.run([XPUJIT, "calibrate", "--device", "cpu", "--out", snap, "--markdown", md],
                   env=environment(d), capture_output=True, text=True)
check(p.returncode == 0, f"calibrate: {p.stdout} {p.stderr}")
for fact in ("fp.contraction-kept", "fma.f32.fused", "subnormal.f32.arith",
             "loop.pass-limit", "copy.h2d", "launch.round-trip", "event.record-sync",
             "queue.cross-wait", "peak.f32", "occupancy.workgroups"):
    check(fact in p.stdout, f"calibrate prints {fact}")
    check(os.path.exists(md) and fact in open(md).read(), f"markdown has {fact}")
m = STATS.search(p.stderr)
check(m and int(m.group(1)) > 0, f"calibrate measures anew: {p.stderr}")
s, _ = saxpy(blocker, XPU_CALIBRATION=snap)
if s:
    check(s[0] == 0 and s[1] == 1, f"snapshot served on its device: {s}")
bad = os.path.join(d, "bad.json")
open(bad, "w").write("{ not a snapshot")
s, err = saxpy(blocker, XPU_CALIBRATION=bad)
if s:
    check(s[0] > 0, f"a bad snapshot is not used: {s}")
    check("calibration snapshot" in err and "ignored" in err, f"bad snapshot reported: {err}")

# Vulkan: another device measures on its own; a changed key (features
# disabled change the compiler's target) measures again.
devices = subprocess.run([XPUJIT, "devices"], env=environment(None), capture_output=True,
                         text=True).stdout
if "  vulkan  " in devices:
    s, _ = saxpy(blocker, device="vulkan:0", XPU_CALIBRATION=snap)
    if s:
        check(s[0] > 0 and s[1] == 0, f"a cpu snapshot is not served on vulkan: {s}")
    d = fresh("vulkan")
    s1, _ = saxpy(d, device="vulkan:0")
    s2, _ = saxpy(d, device="vulkan:0")
    s3, _ = saxpy(d, device="vulkan:0", XPU_VULKAN_DISABLE_FEATURES="shaderInt16")
    if s1 and s2 and s3:
        check(s1[0] > 0 and s2[0] == 0, f"vulkan second process: {s1} {s2}")
        check(s3[0] > 0 and s3[1] == 0, f"changed key measures again: {s3}")
    p = subprocess.run([XPUJIT, "devices", "--calibration"], env=environment(d),
                       capture_output=True, text=True)
    check(p.returncode == 0 and "loop.pass-limit" in p.stdout, f"devices --calibration: {p}")
else:
    print("SKIP: vulkan part (no Vulkan device)")

if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print("calibration across processes: all checks passed")
