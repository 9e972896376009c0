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
