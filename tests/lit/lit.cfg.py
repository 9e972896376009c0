# lit configuration for the xpu pass tests.
import os
import lit.formats

config.name = "xpu"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.substitutions.append(("xpu-opt", config.xpu_opt))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("xpujit", config.xpujit))
config.substitutions.append(("not ", config.not_tool + " "))
config.substitutions.append(("count", "/usr/lib/llvm-22/bin/count"))
for tool in ("llvm-readelf", "llvm-objdump"):
    config.substitutions.append((tool, config.llvm_tools_dir + "/" + tool))

# spirv-val that knows SPV_KHR_cooperative_matrix (SPIRV-Tools v2023.4+):
# XPU_SPIRV_VAL, else the one on PATH.
import re
import shutil
import subprocess
spirv_val = os.environ.get("XPU_SPIRV_VAL") or shutil.which("spirv-val")
if spirv_val:
    config.substitutions.append(("%spirv-val", spirv_val))
    version = subprocess.run([spirv_val, "--version"], capture_output=True,
                             text=True).stdout
    found = re.search(r"v(\d+)\.(\d+)", version)
    if found and (int(found.group(1)), int(found.group(2))) >= (2023, 4):
        config.available_features.add("spirv-val-coop-matrix")
