#!/usr/bin/env bash
# The test command: install what is missing, build, and run every test
# (CTest: conformance per backend, C programs, the tool, lit pass tests).
# Backends without a device are reported as skipped, with the reason.
# Then the sanitizer jobs (scripts/test_sanitizers.sh): the suite again
# under ASan + UBSan with the fuzz targets, and the concurrency tests under
# TSan. XPU_SANITIZERS="asan tsan" (the default) picks them; "" skips them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${XPU_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "$build"
status=0
ctest --output-on-failure -j "$(nproc)" "$@" || status=$?
# CTest lists skipped tests without their output: print why each skipped.
if grep -qh '^SKIP: ' Testing/Temporary/LastTest*.log 2>/dev/null; then
  echo "Why tests skipped:"
  grep -h '^SKIP: ' Testing/Temporary/LastTest*.log | sort -u | sed 's/^/  /'
fi
for job in ${XPU_SANITIZERS-asan tsan}; do
  echo "== sanitizer job: $job"
  "$root/scripts/test_sanitizers.sh" "$job" || status=$?
done
# What the fuzzers found, last, where the end of a CI log shows it.
for finding in "${XPU_ASAN_BUILD_DIR:-$root/build-asan}"/tests/fuzz/fuzz-artifacts/*-finding.txt; do
  [ -f "$finding" ] || continue
  echo "== fuzz finding: $finding"
  cat "$finding"
done
exit $status
