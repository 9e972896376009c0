"""`xpujit check --target T` refuses exactly what `xpujit compile --target
T` cannot lower (xpu_module_check against xpu_compile_for_target, the calls
the two commands make): both agree on every corpus kernel and on kernels
that must be refused, for cpu, nvptx and amdgcn; for spirv, whose code is
generated only for a device, check is compared with compiling for the
Vulkan device. (Run once, by the cpu instance of the interop tests.)"""
import ctypes

import pytest

import xpujit
from xpujit import _lib
from conftest import BACKEND, CORPUS

TARGETS = {"cpu": None, "nvptx": "sm_90", "amdgcn": "gfx942"}

# xpu_module_check and xpu_compile_for_target, the calls `xpujit check` and
# `xpujit compile` make, called in this process (a process per kernel would
# cost most of the test's time).
_lib.lib.xpu_module_check.restype = ctypes.c_int
_lib.lib.xpu_module_check.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                      ctypes.POINTER(_lib.ModuleOptions),
                                      ctypes.POINTER(ctypes.c_void_p)]
_lib.lib.xpu_compile_for_target.restype = ctypes.c_int
_lib.lib.xpu_compile_for_target.argtypes = [
    ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_lib.ModuleOptions),
    ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_void_p)]
_lib.lib.xpu_compiled_code_free.argtypes = [ctypes.c_void_p]


def options(name, target=None):
    o = _lib.ModuleOptions()
    o.struct_size = ctypes.sizeof(o)
    o.source_name = name.encode()
    o.target = target.encode() if target else None
    return o


def check(text, name, target):
    """(status, message) of xpu_module_check with a target."""
    from xpujit.device import context
    data = text.encode()
    diags = ctypes.c_void_p()
    st = _lib.lib.xpu_module_check(context().handle, data, len(data),
                                   ctypes.byref(options(name, target)), ctypes.byref(diags))
    message = _lib.string(_lib.lib.xpu_last_error_message()) if st else ""
    _lib.lib.xpu_diagnostics_release(diags)
    return st, message


def compile_for(text, name, target):
    from xpujit.device import context
    data = text.encode()
    code, size, diags = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_void_p()
    chip = TARGETS[target]
    st = _lib.lib.xpu_compile_for_target(
        context().handle, data, len(data), ctypes.byref(options(name)), target.encode(),
        chip.encode() if chip else None, ctypes.byref(code), ctypes.byref(size),
        ctypes.byref(diags))
    message = _lib.string(_lib.lib.xpu_last_error_message()) if st else ""
    _lib.lib.xpu_compiled_code_free(code)
    _lib.lib.xpu_diagnostics_release(diags)
    return st, message


REFUSED = {
    # The import refuses these everywhere.
    "printf.mlir": """gpu.module @m {
  gpu.func @k(%a: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : index
    gpu.printf "%d", %c0 : index
    gpu.return
  }
}""",
    "heap.mlir": """gpu.module @m {
  gpu.func @k(%a: memref<?xf32>) kernel {
    %m = memref.alloc() : memref<4xf32>
    gpu.return
  }
}""",
    # bf16 has no SPIR-V type: only spirv refuses it.
    "bf16.mlir": """gpu.module @m {
  gpu.func @k(%a: memref<?xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%c0] : memref<?xbf16>
    %w = arith.addf %v, %v : bf16
    memref.store %w, %a[%c0] : memref<?xbf16>
    gpu.return
  }
}""",
}

pytestmark = pytest.mark.skipif(BACKEND != "cpu", reason="run by the cpu instance")


def sources():
    found = [(p.name, p.read_text()) for p in sorted(CORPUS.glob("*.mlir"))]
    return found + sorted(REFUSED.items())


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_check_agrees_with_compile(target):
    for name, text in sources():
        checked, why = check(text, name, target)
        compiled, failure = compile_for(text, name, target)
        assert (checked == 0) == (compiled == 0), (
            f"{name} on {target}: check says {checked} ({why}), compile says "
            f"{compiled} ({failure})")
        if name not in REFUSED:
            assert compiled == 0, f"{name} on {target}: {failure}"


def test_check_spirv_agrees_with_the_vulkan_device():
    vulkan = xpujit.devices("vulkan")
    if not vulkan:
        pytest.skip(f"no vulkan device: {xpujit.backend_note('vulkan')}")
    for name, text in sources():
        checked, why = check(text, name, "spirv")
        try:
            vulkan[0].compile(text, source_name=name)
            compiled = True
        except xpujit.RefusedError as e:
            # What the device lacks (a feature) is the device's gate, not
            # a lowering the target lacks: check does not decide it.
            if all(d.code.startswith("XPU-CAP") and "device" in d.message
                   for d in e.diagnostics if d.severity == "error"):
                continue
            compiled = False
        except xpujit.XpuError:
            compiled = False
        assert (checked == 0) == compiled, (
            f"{name}: check --target spirv says {checked} ({why}), the Vulkan device "
            f"{compiled}")
        if name not in REFUSED:
            assert compiled, name
