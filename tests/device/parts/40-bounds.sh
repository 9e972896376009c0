# Bounds proofs with a 32-bit index on the NVIDIA Vulkan driver (shaderInt64
# disabled): proven accesses run right, unsound guards are checked, and a
# launch of 2^31 invocations along x is refused. The driver's own limit
# (2^31 - 1 workgroups per axis) lets that launch through to the check;
# lavapipe's (65,535) does not, so there the case skips, and here a skip
# fails the part. The bounds reproducers themselves run in the base
# script's conformance runs on cuda and vulkan (tests/conformance/test_bounds.cpp).
step "bounds: vulkan with a 32-bit index (shaderInt64 disabled)"
log="$res/bounds-index32.txt"
check env XPU_TEST_BACKEND=vulkan XPU_VULKAN_DISABLE_FEATURES=shaderInt64 \
  "$bin/vulkan_tests" '-tc=32-bit*' -s > "$log" 2>&1
grep -E "MESSAGE|ERROR|test cases" "$log"
check sh -c '! grep -q "SKIP:" "$1"' sh "$log"
