"""Module reports of `xpujit compile --report FILE` (offline, no device):
the same schema as `xpujit run --report` (docs/observe.md) without the
device, its limits and the cache; checked against the code written, the
source and a device report of the same text, for two targets. A report
path that cannot be written fails the command with a message.

usage: test_compile_report.py XPUJIT EXAMPLES_DIR WORK_DIR"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

XPUJIT, EXAMPLES, WORK = sys.argv[1:4]
SAXPY = os.path.join(EXAMPLES, "saxpy.mlir")
HEX32 = re.compile(r"^[0-9a-f]{32}$")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def xpujit(*args, expect=0):
    p = subprocess.run([XPUJIT, *args], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, XPU_BACKEND="cpu",
                                XPU_CACHE_DIR=os.path.join(WORK, "cache")))
    if p.returncode != expect:
        print(p.stdout, p.stderr)
    check(p.returncode == expect, f"xpujit {' '.join(args)} exited {p.returncode}, "
                                  f"not {expect}")
    return p


def compile_with_report(target, chip):
    out, report = (os.path.join(WORK, f"{target}.{ext}") for ext in ("bin", "json"))
    xpujit("compile", SAXPY, "--target", target, *(["--chip", chip] if chip else []),
           "-o", out, "--report", report)
    with open(out, "rb") as f:
        code = f.read()
    with open(report) as f:
        return code, json.load(f)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# What a device compile says about the same text: its source identity must
# be the offline one's (the canonical IR does not depend on the target).
device_path = os.path.join(WORK, "cpu-run.json")
xpujit("run", SAXPY, "--kernel", "saxpy", "--grid", "1", "--block", "64",
       "--arg", "buf:f32[64]=rand", "--arg", "buf:f32[64]=rand", "--arg", "f32:2",
       "--arg", "u32:64", "--report", device_path)
with open(device_path) as f:
    on_device = json.load(f)

reports = {}
for target, chip, triple_part in (("spirv", None, "spirv"), ("nvptx", "sm_90", "nvptx64")):
    code, r = compile_with_report(target, chip)
    reports[target] = r
    what = f"{target} report"
    check(r.get("schema") == "xpujit.module-report" and r.get("version") == 1,
          f"{what}: schema/version {r.get('schema')} {r.get('version')}")
    check(r.get("offline") is True, f"{what}: not marked offline")
    for absent in ("device", "limits"):
        check(absent not in r, f"{what} has '{absent}' without a device")
    check("cache" not in r.get("build", {}), f"{what}: a cache entry, nothing is cached")
    # Exactly one target: the one asked for.
    check(r["target"]["kind"] == target, f"{what} names target {r['target']['kind']}")
    check(triple_part in r["target"]["triple"], f"{what} triple {r['target']['triple']}")
    if chip:
        check(r["target"]["chip"] == chip, f"{what} chip {r['target']['chip']}, not {chip}")
    src = r["source"]
    check(src["name"] == SAXPY and src["bytes"] == os.path.getsize(SAXPY),
          f"{what}: source {src['name']} {src['bytes']}")
    check(HEX32.match(src["hash"] or "") and HEX32.match(src["canonical_ir_hash"] or ""),
          f"{what}: source hashes {src}")
    check(src["hash"] == on_device["source"]["hash"] and
          src["canonical_ir_hash"] == on_device["source"]["canonical_ir_hash"],
          f"{what}: source identity differs from the device report's")
    # The manifest describes the file written.
    m = r["manifest"]
    check(m["code_bytes"] == len(code) and len(code) > 0,
          f"{what}: manifest says {m['code_bytes']} bytes, the file has {len(code)}")
    if target == "spirv":
        check(m["format"] == "spirv" or m["format"].startswith("spirv"),
              f"{what}: format {m['format']}")
        check(len(code) >= 4 and struct.unpack("<I", code[:4])[0] == 0x07230203,
              f"{what}: the code is not SPIR-V")
    else:
        check(m["format"] in ("cubin", "ptx"), f"{what}: format {m['format']}")
        if m["format"] == "cubin":
            check(code[:4] == b"\x7fELF", f"{what}: a cubin that is no ELF")
        else:
            check(b".entry saxpy" in code, f"{what}: PTX without the saxpy entry")
    ks = r["kernels"]
    check([k["name"] for k in ks] == ["saxpy"], f"{what}: kernels {[k['name'] for k in ks]}")
    if ks:
        params = [(p["name"], p["kind"], p["type"], p.get("access")) for p in ks[0]["parameters"]]
        check(params == [("y", "buffer", "f32", "rw"), ("x", "buffer", "f32", "ro"),
                         ("a", "scalar", "f32", None), ("n", "scalar", "i32", None)],
              f"{what}: parameters {params}")
        check(ks[0]["admission"] == "admitted", f"{what}: admission")
    stages = [s["name"] for s in r["build"]["stages"]]
    check(stages == ["parse", "admit", "prepare", "gates", "codegen"],
          f"{what}: stages {stages}")
    check(r["build"]["origin"] == "compiled" and r["build"]["total_ms"] > 0,
          f"{what}: build {r['build']['origin']} {r['build']['total_ms']}")

if len(reports) == 2:
    check(reports["spirv"]["target"]["triple"] != reports["nvptx"]["target"]["triple"],
          "both reports name one triple")

# A report path that cannot be written: exit 1, a message naming it.
bad = os.path.join(WORK, "no-such-dir", "r.json")
p = xpujit("compile", SAXPY, "--target", "spirv", "-o", os.path.join(WORK, "bad.spv"),
           "--report", bad, expect=1)
check("cannot write the report" in p.stderr and bad in p.stderr,
      f"bad report path message: {p.stderr!r}")
# A failed compile writes no report.
refused = os.path.join(WORK, "refused.json")
p = xpujit("compile", SAXPY, "--target", "no-such-target", "-o",
           os.path.join(WORK, "x.bin"), "--report", refused, expect=1)
check(not os.path.exists(refused), "a report was written for a failed compile")
check("no-such-target" in p.stderr, f"unknown target message: {p.stderr!r}")

if failures:
    sys.exit(f"{len(failures)} failures")
print("ok: offline module reports for spirv and nvptx")
