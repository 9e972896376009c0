# The C API misuse suite on CUDA (tests/misuse): bad handles in every
# position, extents that wrap, early releases of queued objects (a module
# released while its launch runs must not be unloaded under it, an event
# released with its record queued), threads launching at once; then 100
# contexts created, used and released with flat memory and thread counts.
# Both fail when there is no CUDA device.
step "misuse and lifetimes on cuda"
check env XPU_TEST_BACKEND=cuda XPU_CACHE=off "$bin/misuse_tests"
step "100 contexts on cuda"
check "$bin/context_loop" cuda 100 > "$res/robust-context-loop.txt"
cat "$res/robust-context-loop.txt"
