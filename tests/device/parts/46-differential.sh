# Differential tester on the GPU backends (issue 13), second half: seeds
# 102500..104999 on cuda:0 and NVIDIA Vulkan, sized as part 45 (see there).
step "differential: 2,500 integer kernels on cuda:0 and vulkan:0 (seeds 102500..)"
check python3 tests/differential/batch.py --seed 102500 --count 2500 \
  --backends cuda:0,vulkan:0 --jobs 6 --deadline 480 \
  --out "$res/differential-46" --md "$res/differential-46.md"

# The filed NVIDIA Vulkan 64-bit division miscompile, every way of writing
# a rounded division in its shape (tests/differential/division_forms.py).
step "differential: rounded divisions in the shape NVIDIA's Vulkan driver miscompiled"
check python3 tests/differential/division_forms.py cuda:0 vulkan:0
