#!/usr/bin/env python3
"""The reference side of bench/gemm: C = A·B of square matrices with
torch.matmul on the GPU (cuBLAS; bf16 or f16 operands, f32 results as
xpujit's tiles give) or NumPy's BLAS on the CPU (f32), timed the same way as
xpu-bench-gemm (median of the iterations after a warm-up; CUDA events on
the GPU), one JSON line per size.

  reference_matmul.py --impl torch --type bf16 --sizes 1024,4096,8192
  reference_matmul.py --impl numpy --sizes 1024,2048
"""
import argparse
import json
import statistics
import time

p = argparse.ArgumentParser()
p.add_argument("--impl", choices=["torch", "numpy"], required=True)
p.add_argument("--type", default="f32", choices=["bf16", "f16", "f32"])
p.add_argument("--sizes", default="1024")
p.add_argument("--iterations", type=int, default=10)
args = p.parse_args()

for n in [int(s) for s in args.sizes.split(",")]:
    if args.impl == "torch":
        import torch
        dtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[args.type]
        a = (torch.rand(n, n, device="cuda") * 2 - 1).to(dtype)
        b = (torch.rand(n, n, device="cuda") * 2 - 1).to(dtype)
        out = torch.empty(n, n, device="cuda", dtype=dtype)
        torch.matmul(a, b, out=out)  # warm-up: handles, kernels chosen
        torch.cuda.synchronize()
        times = []
        for _ in range(args.iterations):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            torch.matmul(a, b, out=out)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
        ref = a[:64].float() @ b.float()
        err = float((out[:64].float() - ref).abs().max() / ref.abs().max())
        impl, device, check = "torch.matmul", torch.cuda.get_device_name(), err < 2e-2
    else:
        import numpy as np
        rng = np.random.default_rng()
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        a @ b
        times = []
        for _ in range(args.iterations):
            t = time.perf_counter()
            c = a @ b
            times.append((time.perf_counter() - t) * 1e3)
        ref = a[:16].astype(np.float64) @ b.astype(np.float64)
        err = float(np.abs(c[:16] - ref).max() / np.abs(ref).max())
        impl, device, check = "numpy.matmul", "cpu", err < 1e-5
    ms = statistics.median(times)
    print(json.dumps({"impl": impl, "device": device, "type": args.type, "n": n,
                      "median_ms": round(ms, 4), "tflops": round(2 * n ** 3 / (ms * 1e-3) / 1e12, 4),
                      "max_rel_err": err, "check": "pass" if check else "FAIL"}), flush=True)
