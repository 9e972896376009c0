#!/usr/bin/python3
"""A large differential batch in parallel: each backend runs every kernel of
the seed range, split into --jobs runs of differential.py per backend, all
at once (the runs are CPU-bound compilation; give each a core). When they
are done, or at --deadline seconds, their counts are summed per backend and
written as a Markdown table (--md); what was not finished by then counts as
a failure, so a batch that does not fit its time says so with the counts it
reached.

    batch.py --seed 100000 --count 2500 --backends cuda:0,vulkan:0 --jobs 6 \\
        --deadline 480 --out results/differential --md results/differential.md

Exit status 0 only when every backend ran every kernel and each agreed with
the reference (no disagreement, compile failure, invalid SPIR-V, launch
failure or crash; a backend without a device fails its runs)."""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "differential.py")


def split(first, count, parts):
    """`parts` consecutive seed ranges covering first..first+count-1."""
    size, extra = divmod(count, parts)
    out, seed = [], first
    for i in range(parts):
        n = size + (i < extra)
        if n:
            out.append((seed, n))
        seed += n
    return out


def launch(spec, seed, count, out, stop_after):
    tag = f"{spec.replace(':', '')}-{seed}"
    counts = os.path.join(out, f"{tag}.json")
    log = open(os.path.join(out, f"{tag}.log"), "w")
    cmd = [sys.executable, "-u", TOOL, "--seed", str(seed), "--count", str(count),
           "--backends", spec, "--require", "--stop-after", str(stop_after),
           "--out", os.path.join(out, "repros"), "--counts", counts]
    # A session of its own, so the deadline stops the run and its worker.
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    return {"spec": spec, "seed": seed, "count": count, "counts": counts, "proc": proc,
            "log": log}


def read_counts(run):
    try:
        with open(run["counts"]) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True, help="first kernel's seed")
    ap.add_argument("--count", type=int, required=True, help="kernels per backend")
    ap.add_argument("--backends", default="cpu,vulkan:0", help="comma-separated device specs")
    ap.add_argument("--jobs", type=int, default=1, help="parallel runs per backend")
    ap.add_argument("--deadline", type=float, default=0,
                    help="stop every run after this many seconds (0: none)")
    ap.add_argument("--stop-after", type=int, default=10,
                    help="a run stops after this many failing kernels")
    ap.add_argument("--out", required=True, help="folder for logs, counts and reproducers")
    ap.add_argument("--md", help="write the table of counts here")
    opts = ap.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    start = time.time()
    specs = opts.backends.split(",")
    runs = [launch(spec, seed, n, opts.out, opts.stop_after)
            for spec in specs for seed, n in split(opts.seed, opts.count, opts.jobs)]
    stopped = False
    while any(r["proc"].poll() is None for r in runs):
        if opts.deadline and time.time() - start > opts.deadline:
            for r in runs:
                if r["proc"].poll() is None:
                    os.killpg(r["proc"].pid, signal.SIGKILL)
                    r["proc"].wait()
            stopped = True
            break
        time.sleep(1)
    elapsed = time.time() - start

    rows, ok = [], True
    for spec in specs:
        mine = [r for r in runs if r["spec"] == spec]
        total = {"kernels": 0, "passed": 0, "refused": 0, "worker_errors": 0, "seconds": 0.0}
        kinds, unfinished = {}, 0
        for r in mine:
            r["log"].close()
            c = read_counts(r)
            if c is None or not c["finished"]:
                unfinished += 1
                ok = False
            if c is None:
                continue
            for key in total:
                total[key] += c[key]
            for name, n in c["kinds"].items():
                kind = name.split()[-1]
                kinds[kind] = kinds.get(kind, 0) + n
            if c["failed"] or r["proc"].returncode:
                ok = False
        failures = {k: n for k, n in kinds.items() if k != "refused"}
        if failures:
            ok = False
        per_kernel = total["seconds"] / total["kernels"] if total["kernels"] else 0
        rows.append((spec, total, kinds, failures, unfinished, len(mine), per_kernel))

    lines = [f"`batch.py --seed {opts.seed} --count {opts.count} --backends {opts.backends} "
             f"--jobs {opts.jobs}` (seeds {opts.seed}..{opts.seed + opts.count - 1}): "
             f"{elapsed:.0f} s" + (f", stopped at the {opts.deadline:.0f} s deadline"
                                   if stopped else ""),
             "",
             "| backend | kernels | agreements | disagreements | compile failures "
             "| other failures | refused | runs failed to start or unfinished "
             "| s per kernel per run |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for spec, total, kinds, failures, unfinished, nruns, per_kernel in rows:
        other = sum(n for k, n in failures.items() if k not in ("mismatch", "compile"))
        lines.append(f"| {spec} | {total['kernels']} of {opts.count} | {total['passed']} "
                     f"| {kinds.get('mismatch', 0)} | {kinds.get('compile', 0)} | {other} "
                     f"| {total['refused']} | {total['worker_errors']} / {unfinished} of "
                     f"{nruns} | {per_kernel:.3f} |")
    lines += ["", "PASS" if ok else
              f"FAIL: see {opts.out}/*.log (reduced reproducers in {opts.out}/repros)"]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if opts.md:
        with open(opts.md, "w") as fh:
            fh.write(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
