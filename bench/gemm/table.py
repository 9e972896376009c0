#!/usr/bin/env python3
"""Joins the JSON lines of xpu-bench-gemm and reference_matmul.py (files
given on the command line) into one markdown table: each xpujit row with
its ratio to the reference of the same size and type (torch.matmul for GPU
rows, NumPy for CPU rows; NumPy is f32, so CPU bf16/f16 rows are compared
with it too), and, for Vulkan rows, the ratio to the best CUDA row."""
import json
import sys

rows = []
for path in sys.argv[1:]:
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            rows.append(json.loads(line))

def ref(r):
    want = "numpy.matmul" if r["impl"] == "xpujit-cpu" else "torch.matmul"
    best = [x for x in rows if x["impl"] == want and x["n"] == r["n"] and
            (want == "numpy.matmul" or x["type"] == r["type"])]
    return max((x["tflops"] for x in best), default=None)

def best_cuda(r):
    c = [x["tflops"] for x in rows if x["impl"] == "xpujit-cuda" and x["n"] == r["n"]
         and x["type"] == r["type"] and x["check"] == "pass"]
    return max(c, default=None)

print("| implementation | type | n | tile / threads | tier | shared KiB | regs | median ms | TFLOP/s | / reference | / CUDA tier | check |")
print("|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---|")
for r in rows:
    refv = ref(r) if r["impl"].startswith("xpujit") else None
    cuda = best_cuda(r) if r["impl"] == "xpujit-vulkan" else None
    tile = f'{r["tile"]} / {r["threads"]}' if "tile" in r else "-"
    if r.get("group"):
        tile += f' g{r["group"]}'
    to_ref = "%.3f" % (r["tflops"] / refv) if refv else "-"
    to_cuda = "%.3f" % (r["tflops"] / cuda) if cuda else "-"
    shared = "%.1f" % (r["shared_bytes"] / 1024) if r.get("shared_bytes", -1) >= 0 else "-"
    regs = str(r["registers"]) if r.get("registers", -1) >= 0 else "-"
    print(f'| {r["impl"]} | {r["type"]} | {r["n"]} | {tile} | {r.get("tier", "-")} | '
          f'{shared} | {regs} | {r["median_ms"]:.3f} | {r["tflops"]:.3f} | {to_ref} | {to_cuda} | {r["check"]} |')
