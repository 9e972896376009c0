"""Errors: every failed xpujit call raises an XpuError subclass carrying the
C status code, the message, and (for compilations) the compiler's
diagnostics with their locations."""
import dataclasses
import ctypes

from . import _lib
from ._lib import lib

_SEVERITIES = ("error", "warning", "note", "remark")


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One compiler diagnostic: severity ("error", "warning", "note",
    "remark"), code ("XPU-GC007", "XPU-PARSE", ... or ""), message, and the
    location (file, 1-based line and column; "" and 0 when unknown)."""
    severity: str
    code: str
    message: str
    file: str
    line: int
    column: int

    def __str__(self):
        where = ""
        if self.file:
            where = self.file + (f":{self.line}:{self.column}" if self.line else "") + ": "
        code = f"{self.code}: " if self.code else ""
        return f"{where}{self.severity}: {code}{self.message}"


class XpuError(Exception):
    """An xpujit call failed.

    Attributes: status (the xpu_status number), status_name
    ("XPU_ERROR_PARSE", ...), message (what went wrong) and diagnostics
    (a list of Diagnostic; empty unless the call compiled kernel IR)."""

    status = None

    def __init__(self, message, status=None, diagnostics=()):
        super().__init__(message)
        if status is not None:
            self.status = status
        self.message = message
        self.diagnostics = list(diagnostics)

    @property
    def status_name(self):
        """The C name of the status, e.g. "XPU_ERROR_REFUSED"."""
        return _lib.string(lib.xpu_status_name(self.status))


def _error(name, status, doc):
    return type(name, (XpuError,), {"status": status, "__doc__": doc})


InvalidArgumentError = _error("InvalidArgumentError", 1, "A bad value: size, pointer, option, or a misused builder.")
InvalidHandleError = _error("InvalidHandleError", 2, "A released object, or one of the wrong kind.")
OutOfMemoryError = _error("OutOfMemoryError", 3, "Host or device memory is exhausted.")
ParseError = _error("ParseError", 4, "Kernel IR did not parse or verify; see .diagnostics.")
RefusedError = _error("RefusedError", 5, "A profile or capability gate refused a kernel; see .diagnostics.")
NotFoundError = _error("NotFoundError", 6, "No such kernel, device or entry.")
UnsupportedError = _error("UnsupportedError", 7, "The backend or build lacks the feature.")
CompileError = _error("CompileError", 8, "Lowering or code generation failed; see .diagnostics.")
BackendError = _error("BackendError", 9, "The driver reported an error.")
DeviceFaultError = _error("DeviceFaultError", 10, "A kernel faulted on the device.")
DeviceLostError = _error("DeviceLostError", 11, "The device or its context is gone.")
BusyError = _error("BusyError", 12, "A buffer is borrowed by work not yet synchronized.")
OutOfBoundsError = _error("OutOfBoundsError", 13, "A checked access was out of bounds (reported at synchronization).")
ArgumentMismatchError = _error("ArgumentMismatchError", 14, "Launch arguments do not fit the kernel's parameters.")
InternalError = _error("InternalError", 15, "A bug in xpujit: please report it.")
DeadlineError = _error("DeadlineError", 16, "A submission's window closed before it could start; it did not run.")

_BY_STATUS = {cls.status: cls for cls in (
    InvalidArgumentError, InvalidHandleError, OutOfMemoryError, ParseError,
    RefusedError, NotFoundError, UnsupportedError, CompileError, BackendError,
    DeviceFaultError, DeviceLostError, BusyError, OutOfBoundsError,
    ArgumentMismatchError, InternalError, DeadlineError)}


def error(status, message, diagnostics=()):
    """The exception for a C status."""
    cls = _BY_STATUS.get(status, XpuError)
    return cls(message, status, diagnostics)


def check(status, diagnostics=()):
    """Raises the error of a failed call (status != 0), with this thread's
    last error message."""
    if status:
        raise error(status, _lib.string(lib.xpu_last_error_message()), diagnostics)


def take_diagnostics(handle):
    """Reads and releases an xpu_diagnostics list."""
    if not handle:
        return []
    try:
        out = []
        d = _lib.Diagnostic()
        for i in range(lib.xpu_diagnostics_count(handle)):
            if lib.xpu_diagnostics_get(handle, i, ctypes.byref(d)) == 0:
                out.append(Diagnostic(_SEVERITIES[d.severity] if d.severity < 4 else "error",
                                      _lib.string(d.code), _lib.string(d.message),
                                      _lib.string(d.file), d.line, d.column))
        return out
    finally:
        lib.xpu_diagnostics_release(handle)
