# Differential tester on the GPU backends (issue 13): 5,000 random integer
# kernels on cuda:0 and on the NVIDIA Vulkan driver, every output element
# compared with the reference interpreter. --require: a backend without a
# device fails the part. Seeds 100000.. are not the CI batch's (1..).
step "differential: 5,000 integer kernels on cuda:0 and vulkan:0"
check env XPU_LIBRARY="$root/$run/lib/libxpujit.so" python3 tests/differential/differential.py \
  --count 5000 --seed 100000 --backends cuda:0,vulkan:0 --require --stop-after 50 \
  --out "$res/differential-repros" | tee "$res/differential.log" | tail -n 40
{
  echo "# Differential tester on the H200 ($(date -u +%F))"
  echo
  echo '`python3 tests/differential/differential.py --count 5000 --seed 100000 --backends cuda:0,vulkan:0 --require`'
  echo
  echo '```'
  tail -n 8 "$res/differential.log"
  echo '```'
} > "$res/differential.md"
