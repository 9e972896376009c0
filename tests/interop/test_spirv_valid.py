"""Every corpus kernel compiles for the Vulkan device to SPIR-V that
spirv-val accepts (for the Vulkan version of the module's SPIR-V version).
Run by the vulkan instance of the interop tests."""
import os
import shutil
import struct
import subprocess
import sys

import pytest

from conftest import BACKEND, CORPUS, ROOT

TARGET_ENV = {(1, 3): "vulkan1.1", (1, 4): "vulkan1.1spv1.4", (1, 5): "vulkan1.2",
              (1, 6): "vulkan1.3"}

pytestmark = pytest.mark.skipif(BACKEND != "vulkan", reason="run by the vulkan instance")


def test_corpus_spirv_is_valid(tmp_path):
    spirv_val = shutil.which("spirv-val")
    if not spirv_val:
        pytest.skip("spirv-val not found (Debian: spirv-tools)")
    # The dump directory is read when the library starts: a process of its own.
    script = (
        "import pathlib, sys, xpujit\n"
        "dev = xpujit.devices('vulkan')[0]\n"
        "for p in sorted(pathlib.Path(sys.argv[1]).glob('*.mlir')):\n"
        "    dev.compile(p.read_text(), source_name=p.name)\n")
    env = dict(os.environ, XPU_DUMP_DIR=str(tmp_path), XPU_CACHE="off",
               PYTHONPATH=str(ROOT / "bindings" / "python"))
    run = subprocess.run([sys.executable, "-c", script, str(CORPUS)], env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    modules = sorted(tmp_path.glob("*.spv"))
    assert len(modules) >= len(list(CORPUS.glob("*.mlir")))
    for path in modules:
        data = path.read_bytes()
        magic, version = struct.unpack("<II", data[:8])
        target = TARGET_ENV[((version >> 16) & 0xFF, (version >> 8) & 0xFF)]
        assert magic == 0x07230203
        check = subprocess.run([spirv_val, "--target-env", target, str(path)],
                               capture_output=True, text=True)
        assert check.returncode == 0, f"{path.name} ({target}): {check.stdout}{check.stderr}"
