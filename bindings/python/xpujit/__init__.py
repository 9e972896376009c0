"""xpujit: a JIT compiler and runtime for data-parallel kernels, from Python.

    import xpujit, numpy as np
    dev = xpujit.default_device()
    k = dev.compile(open("saxpy.mlir").read()).kernel("saxpy")
    k.launch(grid=(n + 255) // 256, block=256, args=(y, x, np.float32(2.0), n))

Kernels are MLIR text in the xpu dialect (see the project README), or are
made with a Builder. Devices come from devices(), default_device() or
device("cpu"); buffers from Device.array(ndarray) or NumPy arrays passed
straight to Kernel.launch. Every failure raises an XpuError subclass with
the status code, message and compiler diagnostics.

The library is loaded from XPU_LIBRARY, from next to this package, from the
source checkout's build tree, or from the library search path."""
from ._lib import path as library_path
from ._lib import lib as _c
from .builder import Builder, For, Function, If, Value, While
from .device import (Capability, Device, DeviceInfo, backend_note,
                     default_device, device, devices)
from .errors import (ArgumentMismatchError, BackendError, BusyError,
                     CompileError, DeadlineError, DeviceFaultError, DeviceLostError,
                     Diagnostic, InternalError, InvalidArgumentError,
                     InvalidHandleError, NotFoundError, OutOfBoundsError,
                     OutOfMemoryError, ParseError, RefusedError,
                     UnsupportedError, XpuError)
from .interop import from_cuda_array_interface, from_dlpack
from .memory import Buffer, Mapping
from .observe import (start_dispatch_report, start_trace, stop_dispatch_report,
                      stop_trace)
from .module import (Kernel, Layout, Module, Param, View, compile, compile_for_target,
                     format_module)
from .stream import Event, Stream
from .types import buffer, struct_type, vector

__version__ = "0.1.0"


def version():
    """The loaded library's version, e.g. "0.1.0 (LLVM 22.1.8)"."""
    return _c.xpu_version_string().decode()


def synchronize():
    """Waits for the work of every device (raises the first error)."""
    for d in devices():
        d.synchronize()


__all__ = [
    "ArgumentMismatchError", "BackendError", "Buffer", "Builder", "BusyError",
    "Capability", "CompileError", "DeadlineError", "Device", "DeviceFaultError", "DeviceInfo",
    "DeviceLostError", "Diagnostic", "Event", "For", "Function", "If",
    "InternalError", "InvalidArgumentError", "InvalidHandleError", "Kernel", "Layout",
    "Mapping", "Module", "NotFoundError", "OutOfBoundsError", "OutOfMemoryError", "Param",
    "ParseError", "RefusedError", "Stream", "UnsupportedError", "Value", "View", "While",
    "XpuError", "backend_note", "buffer", "compile", "compile_for_target", "default_device",
    "device",
    "devices", "format_module", "from_cuda_array_interface", "from_dlpack", "library_path",
    "struct_type", "synchronize", "vector", "version",
]
