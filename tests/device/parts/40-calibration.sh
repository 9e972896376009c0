# Calibration on the GPU machine (sourced by tests/device/h200.sh): measure
# cuda:0 and the NVIDIA Vulkan device, write their table to
# $res/calibration.md, and show that a later process's first compile no
# longer pays for probes (against bench/compile's first-compile numbers).
# Fails when either device is missing: `xpujit calibrate --device` then
# finds no device.
cal_store="$root/$run/calibration-part"

step "calibration: cuda:0 and vulkan:0 measured anew"
rm -rf "$cal_store"
check env XPU_CACHE_DIR="$cal_store" XPU_CALIBRATION_STATS=1 "$bin/xpujit" calibrate \
  --device cuda:0 --device vulkan:0 --out "$res/calibration-snapshot.json" \
  --markdown "$res/calibration.md"

step "calibration: a second process runs no probe"
for dev in cuda:0 vulkan:0; do
  out=$(env XPU_CACHE_DIR="$cal_store" XPU_CALIBRATION_STATS=1 "$bin/xpujit" run \
    examples/saxpy.mlir --device "$dev" --kernel saxpy --grid 4 --block 256 \
    --arg 'buf:f32[1024]=rand' --arg 'buf:f32[1024]=iota' --arg f32:2 --arg u32:1024 2>&1)
  echo "$out" | tail -3
  if echo "$out" | grep -q "xpujit calibration: 0 probes run, 1 records loaded"; then
    echo "$dev: served from the store"
  else
    echo "FAILED: $dev measured again in a second process"; status=1
  fi
done

step "calibration: first compile of a process, store empty then filled"
# bench/compile runs with the kernel cache off, which reads calibration
# records but writes none: its first process measures the probes, then one
# `xpujit run` stores them, and the second bench process reads them.
cal_bench="$root/$run/calibration-bench"
{
  echo "# First compile of a process: probes measured, then served from the store"
  echo
  echo "\`xpu-bench-compile --device D\` with an empty calibration store, then, after one"
  echo "\`xpujit run\` on D stored the record, again (XPU_CACHE_DIR=$cal_bench). The probes"
  echo "are the \"calibration\" stage of the first compile."
} > "$res/calibration-compile.md"
for dev in cuda:0 vulkan:0; do
  rm -rf "$cal_bench"
  for pass in "empty store" "filled store"; do
    check env XPU_CACHE_DIR="$cal_bench" "$bin/xpu-bench-compile" --device "$dev" --runs 5 \
      --out "$run/compile-$$.md"
    first=$(grep "first compile in the process" "$run/compile-$$.md" | awk -F'|' '{print $3}')
    stages=$(grep "First compile's stages" "$run/compile-$$.md")
    printf '\n- %s, %s: first compile %s ms. %s\n' "$dev" "$pass" "$first" "$stages" \
      >> "$res/calibration-compile.md"
    [ "$pass" = "empty store" ] && check env XPU_CACHE_DIR="$cal_bench" "$bin/xpujit" run \
      examples/saxpy.mlir --device "$dev" --kernel saxpy --grid 4 --block 256 \
      --arg 'buf:f32[1024]=rand' --arg 'buf:f32[1024]=iota' --arg f32:2 --arg u32:1024 >/dev/null
  done
done
cat "$res/calibration-compile.md"
