#!/usr/bin/env bash
# Runs xpu-vulkan-gemm-probe over every .spv in a folder (names from
# bench/gemm/workgroup_matrix_gemm.py runs: KIND_SIZE_BMxBNxBK_tWG_uU.spv,
# KIND wg for matrices loaded from the buffers, tl/tc for them loaded through
# NV2 tensor layouts (clamp undefined/constant; spirv_tensor_loads.py), st1/st2
# staged through shared memory, sdD staged in two buffers with each step's
# copies loaded D steps ahead, nt without traffic; lib* compiled by the
# library from bench/gemm/gemm_kernel.h's @gemm with `xpujit compile
# --target spirv --chip cooperative-matrix-workgroup`, run with --xpujit;
# push and spec the generator's --sizes push|spec, also run with --xpujit),
# after --query; one line per shader in $OUT/vulkan_probe.log (each timed
# over PROBE_ITERS dispatches, 20 by default). A shader that fails, or
# computes a wrong element where it should not (every kind but nt), makes the
# script exit 1.
set -uo pipefail
dir="${1:-.device/probe}"
log="${OUT:-.}/vulkan_probe.log"
probe="$dir/xpu-vulkan-gemm-probe"
"$probe" --query | tee "$log" || exit 1
status=0
for spv in "$dir"/*.spv; do
  name="$(basename "$spv" .spv)"
  if [[ "$name" =~ ^([a-z0-9]+)_([0-9]+)_([0-9]+)x([0-9]+)x[0-9]+_t([0-9]+)_u[0-9]+$ ]]; then
    kind=${BASH_REMATCH[1]} size=${BASH_REMATCH[2]} bm=${BASH_REMATCH[3]} bn=${BASH_REMATCH[4]}
    wg=${BASH_REMATCH[5]}
  elif [[ "$name" =~ ^scalar_([0-9]+)$ ]]; then
    kind=scalar size=${BASH_REMATCH[1]} bm=1 bn=64 wg=64
  else
    echo "skip $name: not a name this script reads" | tee -a "$log"; continue
  fi
  abi=()
  [[ "$kind" == lib* || "$kind" == push* || "$kind" == spec* ]] && abi=(--xpujit)
  timeout 120 "$probe" --spv "$spv" "${abi[@]}" --m "$size" --n "$size" --k "$size" \
    --bm "$bm" --bn "$bn" --wg "$wg" --iters "${PROBE_ITERS:-20}" 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || [ "$kind" = nt ] || { echo "FAIL: $name exit $rc" | tee -a "$log"; status=1; }
done
exit $status
