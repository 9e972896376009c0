# Interop (issue 21): kernels imported from the gpu dialect on CUDA and on the
# NVIDIA Vulkan driver. tests/interop checks each corpus kernel, each
# construct and each math op against host references with fresh random
# inputs, and (in the cuda run, whose backend comes first) compares the
# integer results of cuda, vulkan and cpu. A backend without a device ends
# its run with exit code 77, which `check` counts as a failure.
if python3 -c "import numpy, pytest" 2>/dev/null; then
  {
    echo "## Interop: gpu dialect kernels (tests/interop)"
    echo
    echo "| backend | result |"
    echo "|---|---|"
  } > "$res/interop.md"
  for backend in cuda vulkan; do
    log="$res/interop-$backend.log"
    # Not through a pipe: `check` must run in this shell to set $status.
    check env XPU_TEST_BACKEND=$backend XPU_CLI="$root/$bin/xpujit" \
      PYTHONPATH=bindings/python PYTHONDONTWRITEBYTECODE=1 \
      python3 -m pytest -q -rs -p no:cacheprovider tests/interop > "$log" 2>&1
    cat "$log"
    echo "| $backend | $(tail -1 "$log") |" >> "$res/interop.md"
  done
else
  echo "FAILED: the interop part needs python3 with numpy and pytest"
  status=1
fi
