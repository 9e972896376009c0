"""Observing runs: module reports, traces and dispatch reports (the C API's
"Observing" section; schemas in docs/observe.md).

    report = module.report()          # a dict: source, kernels, device, build
    xpujit.start_trace("t.json")      # Chrome/Perfetto trace-event JSON
    ...
    xpujit.stop_trace()
"""
import ctypes
import json

from . import _lib
from ._lib import lib
from .errors import check

_SIGNATURES = {
    "xpu_module_report": (ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p)]),
    "xpu_trace_start": (ctypes.c_int, [ctypes.c_char_p]),
    "xpu_trace_stop": (ctypes.c_int, []),
    "xpu_dispatch_report_start": (ctypes.c_int, [ctypes.c_char_p]),
    "xpu_dispatch_report_stop": (ctypes.c_int, []),
}
for _name, (_res, _args) in _SIGNATURES.items():
    _fn = getattr(lib, _name)
    _fn.restype, _fn.argtypes = _res, _args


def module_report(handle):
    """The report of the module behind `handle`, parsed (Module.report)."""
    out = ctypes.c_char_p()
    check(lib.xpu_module_report(handle, ctypes.byref(out)))
    return json.loads(_lib.string(out.value))


def start_trace(path):
    """Records a trace of this process until stop_trace() writes `path`."""
    check(lib.xpu_trace_start(str(path).encode()))


def stop_trace():
    check(lib.xpu_trace_stop())


def start_dispatch_report(path):
    """Writes one JSON line per launch to `path` until stop_dispatch_report()."""
    check(lib.xpu_dispatch_report_start(str(path).encode()))


def stop_dispatch_report():
    check(lib.xpu_dispatch_report_stop())
