#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test xpujit.
# Runs apt-get only when a package is missing. With --bench, also what the
# CPU benchmark compares against (OpenMP, and pocl through the OpenCL ICD
# loader; see bench/cpu/).
set -euo pipefail

packages=(
  cmake ninja-build ccache pkg-config clang-22 lld-22
  libclang-rt-22-dev  # sanitizer runtimes and libFuzzer (scripts/test_sanitizers.sh)
  llvm-22 llvm-22-dev libmlir-22-dev mlir-22-tools
  liblld-22-dev rocm-device-libs
  libzstd-dev zlib1g-dev libxxhash-dev doctest-dev
  libvulkan-dev mesa-vulkan-drivers spirv-tools
  openmpi-bin libopenmpi-dev
  python3 python3-numpy python3-pytest python3-pip python3-setuptools python3-venv
)
if [ "${1:-}" = "--bench" ]; then
  packages+=(libomp-22-dev ocl-icd-opencl-dev pocl-opencl-icd)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
