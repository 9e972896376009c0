#!/usr/bin/env bash
# The sanitizer jobs of the test command (docs/sanitizers.md):
#   asan  ASan + UBSan + libFuzzer coverage in build-asan/: the whole suite,
#         Python included, with leak detection, and each fuzz target for
#         XPU_FUZZ_SECONDS (25) seconds
#   tsan  TSan in build-tsan/: the concurrency tests (streams, events, many
#         threads launching at once, many processes sharing the cache)
# usage: test_sanitizers.sh asan|tsan [CTEST ARGS...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
job=$1
shift
supp="$root/tests/sanitizers"
case "$job" in
  asan)
    build="${XPU_ASAN_BUILD_DIR:-$root/build-asan}"
    config=(-DXPU_SANITIZE=address,undefined -DXPU_FUZZ=ON)
    targets=()
    # Each option and why: docs/sanitizers.md.
    export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1:halt_on_error=1"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    # Not the MPI examples: Open MPI's components leak at exit and are
    # unloaded before LeakSanitizer reports, so no suppression can name
    # them (the plain job runs them).
    tests=(-E '^mpi[.]')
    ;;
  tsan)
    build="${XPU_TSAN_BUILD_DIR:-$root/build-tsan}"
    config=(-DXPU_SANITIZE=thread)
    targets=(conformance misuse_tests cache_api xpujit-cli xpu-opt)
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
    # The concurrency tests, on the CPU backend (Mesa's threads are not
    # instrumented); see docs/sanitizers.md for what runs and why.
    tests=(-L tsan)
    ;;
  *)
    echo "usage: $0 asan|tsan [CTEST ARGS...]" >&2
    exit 2
    ;;
esac

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${config[@]}"
fi
cmake --build "$build" ${targets[@]+--target "${targets[@]}"}
cd "$build"
ctest --output-on-failure -j "$(nproc)" "${tests[@]}" "$@"
