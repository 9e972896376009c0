"""spirv-val over the SPIR-V modules a run dumped (XPU_DUMP_DIR), each for the
Vulkan version its SPIR-V version belongs to. Used by spirv_val.py (the C++
programs) and by the interop tests' session (tests/interop/conftest.py)."""
import os
import shutil
import struct
import subprocess

# SPIR-V version word (major << 16 | minor << 8) -> the Vulkan that consumes it.
TARGET_ENV = {(1, 3): "vulkan1.1", (1, 4): "vulkan1.1spv1.4", (1, 5): "vulkan1.2",
              (1, 6): "vulkan1.3"}


def spirv_val():
    """The spirv-val program, or None (Debian: spirv-tools)."""
    return shutil.which("spirv-val")


def invalid_modules(dump_dir, validator):
    """(module count, [failure messages]) for every .spv file in dump_dir."""
    modules = sorted(f for f in os.listdir(dump_dir) if f.endswith(".spv"))
    failures = []
    for name in modules:
        path = os.path.join(dump_dir, name)
        with open(path, "rb") as f:
            magic, version = struct.unpack("<II", f.read(8))
        target = TARGET_ENV.get(((version >> 16) & 0xFF, (version >> 8) & 0xFF))
        if magic != 0x07230203 or not target:
            failures.append(f"{name}: not SPIR-V for Vulkan (version word {version:#x})")
            continue
        check = subprocess.run([validator, "--target-env", target, path],
                               capture_output=True, text=True)
        if check.returncode != 0:
            failures.append(f"{name} ({target}):\n{check.stdout}{check.stderr}")
    return len(modules), failures
