#!/usr/bin/python3
"""batch.py's own checks: a small batch split over parallel runs counts
every kernel once and passes; one on a backend with no device fails and
says so in its table (the device parts 45 and 46 depend on both)."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def batch(backends, out):
    md = os.path.join(out, "counts.md")
    p = subprocess.run([sys.executable, os.path.join(HERE, "batch.py"), "--seed", "40",
                        "--count", "7", "--backends", backends, "--jobs", "2",
                        "--out", out, "--md", md], capture_output=True, text=True)
    return p.returncode, open(md).read()


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        rc, table = batch("cpu", os.path.join(tmp, "cpu"))
        if rc != 0 or "| cpu | 7 of 7 | 7 | 0 | 0 | 0 | 0 | 0 / 0 of 2 |" not in table:
            print(f"FAIL: a clean batch on cpu (rc {rc}):\n{table}")
            failed += 1
        rc, table = batch("vulkan:99", os.path.join(tmp, "none"))
        if rc == 0 or "| vulkan:99 | 0 of 7 |" not in table or "FAIL" not in table:
            print(f"FAIL: a batch on a backend with no device passed (rc {rc}):\n{table}")
            failed += 1
    print(f"{2 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
