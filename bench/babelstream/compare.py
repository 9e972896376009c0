#!/usr/bin/env python3
"""Side-by-side BabelStream table from the JSON lines of xpu-bench-stream
and stream_nvcc: bandwidth of each implementation and its ratio to the
reference (the first file). Usage: compare.py REFERENCE.jsonl OTHER.jsonl..."""
import json
import sys


def load(path):
    rows = {}
    impl = None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if "kernel" in r:
                impl = r["impl"]
                rows[r["kernel"]] = r
    return impl, rows


ref_name, ref = load(sys.argv[1])
others = [load(p) for p in sys.argv[2:]]
n = next(iter(ref.values()))["n"]
print(f"BabelStream, {n} doubles per array ({n * 8 / 2**30:.0f} GiB), median of the "
      f"iterations, GB/s counting bytes read and written.\n")
head = f"| kernel | {ref_name} GB/s |"
rule = "|---|---:|"
for name, _ in others:
    head += f" {name} GB/s | {name} / {ref_name} |"
    rule += "---:|---:|"
print(head)
print(rule)
for kernel in ("copy", "mul", "add", "triad", "dot"):
    line = f"| {kernel} | {ref[kernel]['gbps']:.1f} |"
    for _, rows in others:
        r = rows.get(kernel)
        line += (f" {r['gbps']:.1f} | {r['gbps'] / ref[kernel]['gbps']:.3f} |"
                 if r else " — | — |")
    print(line)
