#!/usr/bin/env bash
# Installs xpujit into a fresh prefix, then builds a C program against it
# twice -- through find_package(xpujit) and through pkg-config -- in a scratch
# directory that sees only the prefix, and runs both on the default device.
# Usage: install_test.sh BUILD_DIR SCRATCH_DIR C_SOURCE KERNEL
set -euo pipefail
build=$1 scratch=$2 source=$3 kernel=$4
rm -rf "$scratch" && mkdir -p "$scratch"
prefix="$scratch/prefix"
cmake --install "$build" --prefix "$prefix" > "$scratch/install.log"

lib=$(find "$prefix" -name 'libxpujit.so.*.*.*' -type f)
[ -n "$lib" ] || { echo "no versioned library installed"; exit 1; }
[ -f "$prefix/include/xpu_c.h" ] || { echo "xpu_c.h not installed"; exit 1; }
[ -x "$prefix/bin/xpujit" ] || { echo "the xpujit tool not installed"; exit 1; }
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libxpujit.so.0 ] || { echo "SONAME is '$soname'"; exit 1; }
if readelf -S "$lib" | grep -q ' .symtab'; then echo "installed library is not stripped"; exit 1; fi
echo "installed $(basename "$lib") ($(( $(stat -c %s "$lib") / 1048576 )) MiB), SONAME $soname"

# 1. CMake package.
mkdir "$scratch/cmake-consumer"
cp "$(dirname "$0")/consumer/CMakeLists.txt" "$scratch/cmake-consumer/"
cmake -S "$scratch/cmake-consumer" -B "$scratch/cmake-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCONSUMER_SOURCE="$source" > "$scratch/cmake.log"
cmake --build "$scratch/cmake-build" > "$scratch/cmake-build.log"
libdir=$(dirname "$lib")
LD_LIBRARY_PATH="$libdir" "$scratch/cmake-build/consumer" "$kernel"

# 2. pkg-config.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
pkg-config --exists xpujit
cc -std=c11 -o "$scratch/pc-consumer" "$source" $(pkg-config --cflags --libs xpujit)
LD_LIBRARY_PATH="$(pkg-config --variable=libdir xpujit)" "$scratch/pc-consumer" "$kernel"

# 3. The installed tool runs from the prefix.
LD_LIBRARY_PATH="$libdir" "$prefix/bin/xpujit" devices > /dev/null
echo "install consumers: find_package and pkg-config both ran"
