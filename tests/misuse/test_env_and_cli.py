#!/usr/bin/env python3
"""Every environment variable xpujit reads, given bad values, and the tool's
arguments that used to be misread: a clear error naming what is wrong (or,
where the README says so, a note and a fallback), never a crash, a hang or a
silent success. Runs the xpujit tool, one process per case (the library reads
the environment once per process).

usage: test_env_and_cli.py XPUJIT EXAMPLES_DIR SCRATCH_DIR"""
import os
import subprocess
import sys

xpujit, examples, scratch = sys.argv[1:4]
os.makedirs(scratch, exist_ok=True)
saxpy = os.path.join(examples, "saxpy.mlir")
RUN = ["run", saxpy, "--kernel", "saxpy", "--grid", "1", "--block", "64",
       "--arg", "buf:f32[64]=iota", "--arg", "buf:f32[64]=iota", "--arg", "f32:2",
       "--arg", "u32:64"]
failures = []


def run(args, env_changes, timeout=120):
    env = dict(os.environ)
    for k in [k for k in env if k.startswith("XPU_") and k != "XPU_CACHE_DIR"]:
        del env[k]
    env["XPU_CACHE_DIR"] = os.path.join(scratch, "cache")
    env.update(env_changes)
    try:
        p = subprocess.run([xpujit] + args, env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timed out"
    return p.returncode, p.stdout, p.stderr


def expect_error(what, args, env_changes, must_name):
    rc, out, err = run(args, env_changes)
    label = f"{what}: {env_changes} {' '.join(args[:1])}"
    if rc is None:
        failures.append(f"{label}: hung")
    elif rc < 0 or rc >= 128:
        failures.append(f"{label}: killed by signal ({rc}): {err[-300:]}")
    elif rc == 0:
        failures.append(f"{label}: succeeded (silently ignored the bad value)")
    elif must_name not in err:
        failures.append(f"{label}: the error does not name {must_name!r}: {err[-300:]}")


# Variables whose bad values make the context (or the cache calls) fail.
bad_values = {
    "XPU_BACKEND": ["gpu", "CPU", "cpu ", "cpu,vulkan"],
    "XPU_DEVICE": ["cpu:99999999999999999999", "cpu:4294967296", "cpu:-1", "cpu:",
                   "cpu:1x", "cpu: 1", "gpu:0", ":0"],
    "XPU_LOG": ["verbose", "ERROR", "3"],
    "XPU_CACHE": ["yes", "ON", "read-only"],
    "XPU_CACHE_MAX_BYTES": ["0", "-1", "1X", "1.5G", "18446744073709551616",
                            "99999999999999999999", "17179869184T", "12 M"],
    "XPU_CACHE_STATS": ["2", "yes"],
    "XPU_CACHE_TEST_HOOK": ["bogus"],
    "XPU_VULKAN_STAGING": ["2", "true"],
    "XPU_CALIBRATION_STATS": ["2", "on"],
    "XPU_VULKAN_DISABLE_FEATURES": ["bogus", "shaderFloat64,nope"],
    "XPU_TILE_TIERS_OFF": ["fast", "wgmma,", "WGMMA"],
    "XPU_TILE_EMULATE": ["MFMA", "dot4", "mfma,wmma", "wgmma"],
    "XPU_TILE_SPECIALIZE": ["none", "ALL", "workgroup,all"],
    "XPU_TILE_SPLIT": ["1", "OFF", "yes"],
    "XPU_SCHEDULER": ["off", "Bypass"],
}
for var, values in bad_values.items():
    for value in values:
        # Feature names are the Vulkan backend's: checked with each context.
        cache_too = var != "XPU_VULKAN_DISABLE_FEATURES"
        for cmd in (["devices"], RUN) + ((["cache", "stats"],) if cache_too else ()):
            expect_error(var, cmd, {var: value}, var)

# Trace and report files that cannot be written: the run fails, naming the
# variable, instead of losing what was asked for.
for var in ("XPU_TRACE", "XPU_REPORT"):
    expect_error(var, RUN, {var: "/nonexistent/dir/out.json"}, var)

# A well-formed XPU_DEVICE naming no device: the default device is not found.
expect_error("XPU_DEVICE", RUN, {"XPU_DEVICE": "cpu:7"}, "XPU_DEVICE")

# XPU_PTXAS naming no ptxas: compiling for NVIDIA fails instead of using
# another ptxas (or none) silently.
out_file = os.path.join(scratch, "out.bin")
expect_error("XPU_PTXAS", ["compile", saxpy, "--target=nvptx", "--chip=sm_90", "-o",
                           out_file], {"XPU_PTXAS": "/nonexistent/ptxas"}, "XPU_PTXAS")
expect_error("XPU_PTXAS", ["compile", saxpy, "--target=nvptx", "--chip=sm_90", "-o",
                           out_file], {"XPU_PTXAS": "/bin/false"}, "XPU_PTXAS")

# Documented fallbacks: a cache under /tmp runs from memory and says so; an
# unwritable dump directory is reported and compilation goes on.
rc, out, err = run(["cache", "stats"], {"XPU_CACHE_DIR": "/tmp/xpujit-misuse-cache"})
if rc != 0 or "memory" not in out or "/tmp" not in out:
    failures.append(f"XPU_CACHE_DIR under /tmp: expected memory mode and a note, got "
                    f"rc {rc}: {out} {err}")
rc, out, err = run(RUN, {"XPU_DUMP_DIR": "/nonexistent/dumps", "XPU_CACHE": "off"})
if rc != 0 or "XPU_DUMP_DIR" not in err:
    failures.append(f"XPU_DUMP_DIR unwritable: expected a warning and a run, got rc {rc}: "
                    f"{err[-300:]}")

# A calibration snapshot that cannot be read, or is not one: a warning
# naming it, and the facts are measured instead.
for value, says in (("/nonexistent/snapshot", "XPU_CALIBRATION"), (saxpy, "ignored")):
    rc, out, err = run(RUN, {"XPU_CALIBRATION": value, "XPU_CACHE": "off"})
    if rc != 0 or says not in err or value not in err:
        failures.append(f"XPU_CALIBRATION={value}: expected a warning and a run, got rc {rc}: "
                        f"{err[-300:]}")

# The Python package with XPU_LIBRARY naming no library, or a file that is
# not one: an ImportError that names the variable, not a crash.
bindings = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings",
                        "python")
for value in ("/nonexistent/libxpujit.so", saxpy):
    env = dict(os.environ, XPU_LIBRARY=value, PYTHONPATH=bindings)
    p = subprocess.run([sys.executable, "-c", "import xpujit"], env=env, capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 1 or "ImportError" not in p.stderr or "XPU_LIBRARY" not in p.stderr:
        failures.append(f"XPU_LIBRARY={value}: expected an ImportError naming it, got rc "
                        f"{p.returncode}: {p.stderr[-300:]}")

# The tool's own arguments.
for bad in (["--grid", "99999999999"], ["--grid", "4294967296"], ["--block", "1,-1"],
            ["--repeat", "0"], ["--repeat", "1e3"], ["--seed", "-5"], ["--print", "x"]):
    args = list(RUN)
    flag = bad[0]
    if flag in args:
        i = args.index(flag)
        del args[i:i + 2]
    expect_error("xpujit run " + " ".join(bad), args + bad, {}, bad[0])
for spec in ("i32:1e100", "i32:4294967296", "i8:-129", "i32:1.5", "u64:18446744073709551616",
             "buf:f32[99999999999999999999]", "buf:f64[2305843009213693952]",
             "buf:i32[4]=value:3e40", "bool:2"):
    expect_error("xpujit run --arg " + spec, RUN + ["--arg", spec], {}, spec.split(":")[0])
expect_error("xpujit --device", RUN + ["--device", "cpu:99999999999999999999"], {}, "cpu:")

# An NVIDIA architecture LLVM does not know: one clean error listing the
# accepted ones, no LLVM warnings on stderr.
rc, out, err = run(["compile", saxpy, "--target=nvptx", "--chip=sm_99", "-o", out_file], {})
if rc in (0, None) or rc < 0 or "sm_90" not in err or "recognized processor" in err:
    failures.append(f"--chip=sm_99: expected one error listing the chips, got rc {rc}: {err}")

# --help after any cache command.
for cmd in ("verify", "list", "clear", "stats"):
    rc, out, err = run(["cache", cmd, "--help"], {})
    if rc != 0 or "xpujit cache" not in out:
        failures.append(f"xpujit cache {cmd} --help: rc {rc}: {out} {err}")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
