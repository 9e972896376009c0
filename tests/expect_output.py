#!/usr/bin/env python3
"""Runs a command and passes only when it exits 0 and its output matches a
regular expression (CTest's PASS_REGULAR_EXPRESSION alone ignores the exit
status, so a crash after the expected line would pass).

usage: expect_output.py REGEX COMMAND [ARGS...]"""
import re
import subprocess
import sys

pattern, command = sys.argv[1], sys.argv[2:]
run = subprocess.run(command, capture_output=True, text=True)
output = run.stdout + run.stderr
print(output)
if run.returncode != 0:
    print(f"FAIL: exit status {run.returncode}")
    sys.exit(1)
if not re.search(pattern, output):
    print(f"FAIL: no output matches {pattern!r}")
    sys.exit(1)
