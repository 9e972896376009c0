"""Traces, module reports, dispatch reports and logs of `xpujit run`, as a
user sees them: the trace is checked against the trace-event format and
for the events the run must have; the reports against their schemas
(docs/observe.md) and against what the run did.

usage: test_observe.py XPUJIT EXAMPLES_DIR WORK_DIR
The default device's backend is XPU_BACKEND's (cpu in CI; the device
script runs it for cuda and vulkan)."""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_format  # noqa: E402

XPUJIT, EXAMPLES, WORK = sys.argv[1:4]
SAXPY = os.path.join(EXAMPLES, "saxpy.mlir")
HEX32 = re.compile(r"^[0-9a-f]{32}$")
BACKEND = os.environ.get("XPU_BACKEND", "cpu")
TARGET = {"cpu": "cpu", "cuda": "nvptx", "hip": "amdgcn", "vulkan": "spirv"}[BACKEND]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, env=None, expect=0, source=SAXPY, n=5000, repeat=3):
    cmd = [XPUJIT, "run", source, "--kernel", "saxpy",
           "--grid", str((n + 127) // 128), "--block", "128",
           "--arg", f"buf:f32[{n}]=rand", "--arg", f"buf:f32[{n}]=rand",
           "--arg", "f32:2.5", "--arg", f"u32:{n}", "--repeat", str(repeat), *args]
    e = dict(os.environ, **(env or {}))
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=300)
    if p.returncode != expect:
        print(p.stdout, p.stderr)
    check(p.returncode == expect, f"{' '.join(cmd)} exited {p.returncode}, not {expect}")
    return p


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
cache = os.path.join(WORK, "cache")
trace_path, report_path, dispatch_path = (os.path.join(WORK, f) for f in
                                          ("t.json", "r.json", "d.jsonl"))
n = 5000

# First run: an empty cache, so every stage runs; debug logs, a trace, both reports.
p = run("--trace", trace_path, "--report", report_path,
        env={"XPU_CACHE_DIR": cache, "XPU_REPORT": dispatch_path, "XPU_LOG": "debug"})

# --- the trace -------------------------------------------------------------
trace = json.load(open(trace_path))
bad = trace_format.problems(trace)
check(not bad, f"the trace breaks the trace-event format: {bad[:5]}")
events = trace["traceEvents"]
complete = [e for e in events if e.get("ph") == "X"]
by_cat = {}
for e in complete:
    by_cat.setdefault(e.get("cat"), []).append(e)
stages = {e["name"] for e in by_cat.get("compile", [])}
for stage in ("parse", "admit", "prepare", "gates", "codegen", "load"):
    check(stage in stages, f"no compile stage '{stage}' in the trace (has {sorted(stages)})")
check(any(e["name"].startswith("pass ") for e in by_cat.get("pass", [])),
      "no MLIR pass events in the trace")
check(any(e["args"]["level"] == "content" and not e["args"]["hit"]
          for e in by_cat.get("cache", [])), "no content-cache miss in the trace")
copies = [e["name"] for e in by_cat.get("copy", [])]
check(copies.count("upload") == 2 and copies.count("download") == 2,
      f"copies in the trace: {copies}")
check(all(e["args"]["bytes"] == 4 * n for e in by_cat.get("copy", [])),
      "copy events do not carry the buffers' sizes")
launches = by_cat.get("launch", [])
device = by_cat.get("device", [])
syncs = by_cat.get("sync", [])
check(len(launches) == 3, f"{len(launches)} host launch events, not 3")
check(len(device) == 3, f"{len(device)} device execution events, not 3")
check(len(syncs) >= 1, "no synchronization in the trace")
names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e.get("ph") == "M"}
for launch in launches:
    check(launch["args"]["grid"] == [(n + 127) // 128, 1, 1], f"launch grid {launch}")
    check(launch["args"]["status"] == "XPU_SUCCESS", f"launch status {launch}")
    twin = [d for d in device if d["args"]["sequence"] == launch["args"]["sequence"]]
    check(len(twin) == 1, f"launch {launch['args']['sequence']} has no device event")
    if twin:
        d = twin[0]
        check(d["pid"] == launch["args"]["device_pid"] and d["tid"] == launch["args"]["stream"],
              "the device event is not on its stream's track")
        check((d["pid"], d["tid"]) in names and (d["pid"], None) in names,
              "the device or stream track has no name")
        # Device times come from events placed by the stream's origin event:
        # they cannot start before their launch was enqueued (1 ms slack for
        # the origin's host timestamp).
        check(d["ts"] >= launch["ts"] - 1000, "a launch ran on the device before its enqueue")
        end = max(s["ts"] + s["dur"] for s in syncs)
        check(d["ts"] + d["dur"] <= end + 1000, "a launch ran past the last synchronization")
        check(abs(d["args"]["device_ms"] * 1000 - d["dur"]) < 1e-6, "device_ms and dur disagree")
check(any(d["dur"] > 0 for d in device), "no launch took any time on the device")

# --- the module report -----------------------------------------------------
report = json.load(open(report_path))
check(report.get("schema") == "xpujit.module-report" and report.get("version") == 1,
      "module report schema/version")
for key in ("source", "options", "target", "device", "limits", "kernels", "diagnostics",
            "manifest", "build"):
    check(key in report, f"module report has no '{key}'")
check(report["source"]["name"] == SAXPY, "report source name")
check(report["source"]["bytes"] == os.path.getsize(SAXPY), "report source size")
check(HEX32.match(report["source"]["hash"] or ""), "report source hash")
check(HEX32.match(report["source"]["canonical_ir_hash"] or ""), "report IR hash")
check(report["target"]["kind"] == TARGET and report["device"]["backend"] == BACKEND,
      f"the report names another target or device than the run's ({BACKEND})")
check(report["device"]["label"] and report["target"]["triple"], "device label / triple")
k = report["kernels"][0] if report["kernels"] else {}
check(k.get("name") == "saxpy" and k.get("profile") == "portable" and
      k.get("admission") == "admitted", f"report kernel entry {k}")
check([p["name"] for p in k.get("parameters", [])] == ["y", "x", "a", "n"],
      "report parameters")
for c in k.get("capabilities", []):
    check(c["verdict"] == "available" and c["evidence"],
          f"a need of an admitted kernel without an available verdict and evidence: {c}")
build = report["build"]
check(build["origin"] == "compiled", f"first build origin {build['origin']}")
check({s["name"] for s in build["stages"]} >= {"parse", "admit", "codegen", "load"},
      f"report stages {build['stages']}")
check(HEX32.match(build["cache"]["content_key"]), "report content key")
check(report["manifest"]["code_bytes"] > 0, "report manifest code size")

# --- the dispatch report ---------------------------------------------------
lines = [json.loads(line) for line in open(dispatch_path)]
check(len(lines) == 3, f"{len(lines)} dispatch lines, not 3")
seqs = [line["sequence"] for line in lines]
check(seqs == sorted(seqs) and len(set(seqs)) == 3, f"dispatch sequences {seqs}")
for line in lines:
    check(line["schema"] == "xpujit.dispatch" and line["version"] == 1, "dispatch schema")
    check(line["kernel"] == "saxpy" and line["module"]["source"] == SAXPY, "dispatch kernel")
    check(line["module"]["source_hash"] == report["source"]["hash"],
          "the dispatch line names another module than the report")
    check(line["grid"] == [(n + 127) // 128, 1, 1] and line["block"] == [128, 1, 1],
          "dispatch grid/block")
    args = {a["name"]: a for a in line["arguments"]}
    check(args["y"]["bytes"] == 4 * n and args["x"]["bytes"] == 4 * n and
          args["x"]["access"] == "ro", f"dispatch buffer arguments {args}")
    check(args["a"]["value"] == 2.5 and args["n"]["value"] == n, "dispatch scalar values")
    check(isinstance(line["device_ms"], (int, float)) and line["device_ms"] >= 0,
          "dispatch device_ms")
    check(line["status"] == "XPU_SUCCESS" and line["run_status"] == "XPU_SUCCESS",
          "dispatch statuses")

# --- the log ---------------------------------------------------------------
log = p.stderr.splitlines()
for pattern in (r"^xpujit info: compile: stage=parse ms=[0-9.]+ source=",
                r"^xpujit info: compile: stage=codegen ms=[0-9.]+ source=",
                r"^xpujit info: cache: level=content miss key=[0-9a-f]{32}$",
                r"^xpujit info: module: source=\S+ device=\"" + BACKEND + r" device .*\" origin=compiled ms=",
                r"^xpujit debug: pass: name=\S+ op=\S+ ms=[0-9.]+",
                r"^xpujit debug: launch: kernel=saxpy stream=\d+ grid=\d+,1,1 block=128,1,1 "
                r"status=XPU_SUCCESS$"):
    check(any(re.match(pattern, line) for line in log), f"no log line like {pattern}")

# Second process, same cache: the module comes from disk, with the same key.
p2 = run("--report", report_path, env={"XPU_CACHE_DIR": cache, "XPU_LOG": "info"})
again = json.load(open(report_path))
check(again["build"]["origin"] == "disk", f"second build origin {again['build']['origin']}")
check(again["build"]["cache"]["content_key"] == build["cache"]["content_key"],
      "the content key changed between runs")
check(any(re.match(r"^xpujit info: module: .* origin=disk", line)
          for line in p2.stderr.splitlines()), "no 'origin=disk' module log line")
check(not any(" debug: " in line for line in p2.stderr.splitlines()),
      "XPU_LOG=info printed debug lines")

# The same kernel written differently: another source hash, the same
# canonical IR and content key.
other = os.path.join(WORK, "saxpy-reformatted.mlir")
with open(other, "w") as f:
    f.write("// the same kernel, other names and layout\n\n" +
            open(SAXPY).read().replace("%y", "%out").replace("%x", "%inp"))
run("--report", report_path, env={"XPU_CACHE_DIR": cache}, source=other)
third = json.load(open(report_path))
check(third["source"]["hash"] != report["source"]["hash"], "different texts, same source hash")
check(third["source"]["canonical_ir_hash"] == report["source"]["canonical_ir_hash"],
      "the same kernel's canonical IR hash differs")
check(third["build"]["cache"]["content_key"] == build["cache"]["content_key"],
      "the same kernel's content key differs")

# Nothing on: no trace, no dispatch file, no info lines.
os.remove(dispatch_path)
p = run(env={"XPU_CACHE_DIR": cache, "XPU_LOG": "warn", "XPU_REPORT": ""})
check(not os.path.exists(dispatch_path), "a dispatch report was written unasked")
check("xpujit info" not in p.stderr, "info lines at XPU_LOG=warn")

# Files that cannot be written are clear errors, not crashes.
p = run(env={"XPU_CACHE_DIR": cache, "XPU_TRACE": "/nonexistent-dir/t.json"}, expect=1)
check("XPU_TRACE: cannot write the trace to '/nonexistent-dir/t.json'" in p.stderr,
      f"bad XPU_TRACE message: {p.stderr}")
p = run(env={"XPU_CACHE_DIR": cache, "XPU_REPORT": "/nonexistent-dir/d.jsonl"}, expect=1)
check("XPU_REPORT: cannot write dispatch reports" in p.stderr,
      f"bad XPU_REPORT message: {p.stderr}")
p = run("--trace", "/nonexistent-dir/t.json", env={"XPU_CACHE_DIR": cache}, expect=1)
check("cannot write the trace" in p.stderr, f"bad --trace message: {p.stderr}")

if failures:
    print(f"{len(failures)} checks failed")
    sys.exit(1)
print("observe: all checks passed")
