# Differential tester on the GPU backends (issue 13), first half: 2,500
# random integer kernels (seeds 100000..102499; the CI batch uses 1..) on
# cuda:0 and on the NVIDIA Vulkan driver, every output element compared with
# the reference interpreter; the second half is part 46. The 5,000 in one
# sequential run did not fit a 590 s device call (more than 59 ms per kernel
# and backend); here (2 loaded cores) one run takes 0.04-0.15 s per kernel
# on cpu and 0.1-0.2 s on lavapipe. batch.py runs 6 runs per backend at once
# (12 processes on the 16 cores), 417 kernels each, and stops them at 480 s:
# that fits up to 1.1 s per kernel, and a slower machine fails the part with
# the counts it reached. A backend without a device fails the part.
step "differential: 2,500 integer kernels on cuda:0 and vulkan:0 (seeds 100000..)"
check python3 tests/differential/batch.py --seed 100000 --count 2500 \
  --backends cuda:0,vulkan:0 --jobs 6 --deadline 480 \
  --out "$res/differential-45" --md "$res/differential-45.md"
