"""Devices: the process's xpujit context, the devices it found, their
information and capabilities."""
import atexit
import ctypes
import dataclasses
import threading
import weakref

import numpy as np

from . import _lib
from ._lib import lib
from .errors import NotFoundError, check

BACKENDS = ("cpu", "cuda", "hip", "vulkan")
_KINDS = ("backend-structural", "device-optional", "host-toolchain",
          "toolchain-semantic", "policy", "flag-legality")
_VERDICTS = ("available", "unavailable", "unknown")


class _Context:
    """The one xpu_context of the process: made on first use (it enumerates
    every backend), released at exit."""

    _lock = threading.Lock()
    _instance = None

    def __init__(self):
        h = _lib.handle()
        check(lib.xpu_context_create(None, ctypes.byref(h)))
        self.handle = h
        n = ctypes.c_uint32()
        check(lib.xpu_device_count(h, ctypes.byref(n)))
        self.devices = [Device(self, i) for i in range(n.value)]

    @classmethod
    def get(cls):
        with cls._lock:
            if cls._instance is None:
                cls._instance = _Context()
            return cls._instance

    @classmethod
    def release(cls):
        # Objects still alive afterwards hold dead handles; the library
        # recognizes those, so their finalizers do nothing.
        with cls._lock:
            if cls._instance is not None:
                lib.xpu_context_release(cls._instance.handle)
                cls._instance = None


atexit.register(_Context.release)


def context():
    """The library context behind every device (made on first use)."""
    return _Context.get()


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    """What a device is: backend ("cpu", "cuda", "hip", "vulkan"), name,
    vendor, arch, driver, uuid (16 bytes), memory_bytes, compute_units,
    wave_width, max_workgroup_size, index (in the default order)."""
    backend: str
    name: str
    vendor: str
    arch: str
    driver: str
    uuid: bytes
    memory_bytes: int
    compute_units: int
    wave_width: int
    max_workgroup_size: int
    index: int


@dataclasses.dataclass(frozen=True)
class Capability:
    """One capability of a device: name ("f64.arith"), description, kind
    (who decides it: "backend-structural", "device-optional", ...),
    verdict ("available", "unavailable" or "unknown"; unknown refuses),
    reason (why not available), evidence (the query behind the verdict) and
    limit (for quantities, else None)."""
    name: str
    description: str
    kind: str
    verdict: str
    reason: str
    evidence: str
    limit: int = None

    @property
    def available(self):
        """True when the verdict is "available"."""
        return self.verdict == "available"


class Device:
    """A device: its info and capabilities, memory (buffers), streams and
    events, and compilation of kernels for it. Get one from devices(),
    default_device() or device("cpu")."""

    def __init__(self, ctx, index):
        h = _lib.handle()
        check(lib.xpu_device_get(ctx.handle, index, ctypes.byref(h)))
        self._ctx = ctx  # keeps the context alive as long as the device
        self.handle = h
        raw = _lib.DeviceInfo()
        raw.struct_size = ctypes.sizeof(raw)
        check(lib.xpu_device_info_get(h, ctypes.byref(raw)))
        self.info = DeviceInfo(
            _lib.string(lib.xpu_backend_name(raw.backend)), _lib.string(raw.name),
            _lib.string(raw.vendor), _lib.string(raw.arch), _lib.string(raw.driver),
            bytes(raw.uuid), raw.memory_bytes, raw.compute_units, raw.wave_width,
            raw.max_workgroup_size, raw.index)
        self._streams = weakref.WeakSet()
        self._default_stream = None

    @property
    def name(self):
        """The device's name, e.g. "NVIDIA H200"."""
        return self.info.name

    @property
    def backend(self):
        """"cpu", "cuda", "hip" or "vulkan"."""
        return self.info.backend

    @property
    def spec(self):
        """The device as XPU_DEVICE names it: "<backend>:<n>"."""
        same = [d for d in self._ctx.devices if d.backend == self.backend]
        return f"{self.backend}:{same.index(self)}"

    def __repr__(self):
        return f"<xpujit.Device {self.spec} {self.name!r}>"

    def capabilities(self):
        """Every capability a kernel can need, with its verdict here."""
        n = ctypes.c_uint32()
        check(lib.xpu_device_capability_count(self.handle, ctypes.byref(n)))
        out = []
        raw = _lib.Capability()
        for i in range(n.value):
            check(lib.xpu_device_capability(self.handle, i, ctypes.byref(raw)))
            out.append(Capability(
                _lib.string(raw.name), _lib.string(raw.description),
                _KINDS[raw.kind] if raw.kind < len(_KINDS) else str(raw.kind),
                _VERDICTS[raw.verdict] if raw.verdict < len(_VERDICTS) else "unknown",
                _lib.string(raw.reason), _lib.string(raw.evidence),
                raw.limit if raw.has_limit else None))
        return out

    def capability(self, name):
        """The capability called `name` (NotFoundError if there is none)."""
        for c in self.capabilities():
            if c.name == name:
                return c
        raise NotFoundError(f"device {self.spec} has no capability {name!r}")

    def compile(self, source, *, source_name=None, runtime_checks=True):
        """Compiles kernel IR for this device and loads it: `source` is MLIR
        text or a Builder (see xpujit.compile)."""
        from .module import compile as _compile
        return _compile(source, self, source_name=source_name,
                        runtime_checks=runtime_checks)

    def buffer(self, nbytes, memory="device"):
        """An untyped buffer of `nbytes` bytes (contents undefined); `memory`
        as for Buffer ("device", "host", "managed")."""
        from .memory import Buffer
        return Buffer(self, nbytes, memory=memory)

    def empty(self, shape, dtype, memory="device"):
        """A buffer for an array of `shape` and `dtype` (contents undefined)."""
        from .memory import Buffer
        return Buffer.empty(self, shape, dtype, memory)

    def zeros(self, shape, dtype):
        """A buffer for an array of `shape` and `dtype`, filled with zeros."""
        from .memory import Buffer
        return Buffer.from_array(self, np.zeros(shape, dtype))

    def array(self, array, memory="device"):
        """A buffer holding a copy of NumPy `array` (with its dtype and shape)."""
        from .memory import Buffer
        return Buffer.from_array(self, array, memory)

    @property
    def default_stream(self):
        """The device's default stream (where work without a stream goes)."""
        if self._default_stream is None:
            from .stream import Stream
            self._default_stream = Stream._default(self)
        return self._default_stream

    def stream(self):
        """A new stream: its work runs in order; work on other streams may
        overlap it (order it with events)."""
        from .stream import Stream
        return Stream(self)

    def event(self):
        """A new event, to mark a point in a stream."""
        from .stream import Event
        return Event(self)

    def synchronize(self):
        """Waits for all work on all of the device's streams; raises the
        first error their work reported (OutOfBoundsError, ...)."""
        try:
            check(lib.xpu_device_synchronize(self.handle))
        finally:
            for s in list(self._streams):
                s._release_borrows()


def devices(backend=None):
    """The devices in the default order (CUDA, HIP, Vulkan, CPU, then Vulkan
    devices that run on the host CPU such as lavapipe), or those
    of one backend. The CPU device is always there."""
    found = context().devices
    if backend is not None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r} (accepted: {', '.join(BACKENDS)})")
        found = [d for d in found if d.backend == backend]
    return list(found)


def default_device():
    """The first device in the default order, or the one XPU_DEVICE names,
    restricted to XPU_BACKEND when set."""
    ctx = context()
    h = _lib.handle()
    check(lib.xpu_device_default(ctx.handle, ctypes.byref(h)))
    for d in ctx.devices:
        if d.handle.value == h.value:
            return d
    raise NotFoundError("the default device is not in the device list")


def device(spec):
    """The device named `spec`: "cpu", "vulkan" (its first device) or
    "vulkan:1" (NotFoundError if there is none)."""
    backend, _, index = spec.partition(":")
    found = devices(backend)
    i = int(index) if index else 0
    if i >= len(found):
        note = backend_note(backend)
        raise NotFoundError(f"no device {spec!r}" + (f" ({note})" if note else ""))
    return found[i]


def backend_note(backend):
    """Why `backend` has no devices ("libcuda.so.1 not found", ...), or ""."""
    return _lib.string(lib.xpu_context_backend_note(context().handle,
                                                    BACKENDS.index(backend)))
