"""Buffers: device memory, filled from and read into NumPy arrays, mapped
where the host can see it, and imported from memory other libraries own."""
import ctypes
import itertools
import threading

import numpy as np

from . import _lib
from ._lib import lib
from .errors import InvalidArgumentError, check

_MEMORY_KINDS = {"device": 0, "host": 1, "managed": 2}
_MAP_ACCESS = {"r": 1, "w": 2, "rw": 3}
IMPORT_HOST, IMPORT_DEVICE = 1, 2

# Imported memory: what keeps it alive, until the library's release callback
# says it no longer uses it (after free, or when the context goes).
_owners = {}
_owners_lock = threading.Lock()
_tokens = itertools.count(1)


@_lib.ReleaseFn
def _release(token):
    with _owners_lock:
        owner = _owners.pop(token, None)
    if callable(owner):
        owner()


class Buffer:
    """Device memory of a device. A buffer made from an array (or with
    empty/zeros) remembers its dtype and shape: launches check the dtype
    against the kernel parameter, and download() returns that array.

    A buffer used by a launch is borrowed until the launch's stream is
    synchronized: freeing it meanwhile raises BusyError; blocking copies
    (upload, download, numpy) wait for the work they conflict with.

    `memory` is "device" (the default), "host" (memory the host can map:
    pinned host memory on CUDA, a host-visible memory type on Vulkan) or
    "managed" (CUDA managed memory). map() gives a zero-copy NumPy view where
    the host can see the memory; __dlpack__ and __cuda_array_interface__
    hand it to NumPy, PyTorch or CuPy without a copy."""

    def __init__(self, device, nbytes, dtype=None, shape=None, memory="device"):
        if memory not in _MEMORY_KINDS:
            raise InvalidArgumentError(f"memory must be one of {', '.join(_MEMORY_KINDS)}", 1)
        options = _lib.BufferOptions(ctypes.sizeof(_lib.BufferOptions), _MEMORY_KINDS[memory])
        h = _lib.handle()
        check(lib.xpu_buffer_create_ex(device.handle, int(nbytes), ctypes.byref(options),
                                       ctypes.byref(h)))
        self._init(h, device, nbytes, dtype, shape)

    def _init(self, handle, device, nbytes, dtype, shape):
        self.handle = handle
        self.device = device
        self.nbytes = int(nbytes)
        self.dtype = None if dtype is None else np.dtype(dtype)
        self.shape = tuple(shape) if shape is not None else None

    @classmethod
    def _import(cls, device, kind, address, nbytes, dtype, shape, owner):
        """A buffer over memory at `address` that `owner` keeps alive (a
        callable owner is called instead, when the library releases it)."""
        token = next(_tokens)
        with _owners_lock:
            _owners[token] = owner
        desc = _lib.ImportDesc(ctypes.sizeof(_lib.ImportDesc), kind, int(address),
                               int(nbytes), _release, token)
        h = _lib.handle()
        try:
            check(lib.xpu_buffer_import(device.handle, ctypes.byref(desc), ctypes.byref(h)))
        except BaseException:
            with _owners_lock:
                _owners.pop(token, None)
            raise
        buf = cls.__new__(cls)
        buf._init(h, device, nbytes, dtype, shape)
        return buf

    @classmethod
    def from_host(cls, device, array):
        """A buffer over `array`'s own memory, without a copy (the CPU
        backend; the array must be C-contiguous and 16-byte aligned). The
        array must not be touched while work uses the buffer."""
        if not isinstance(array, np.ndarray) or not array.flags.c_contiguous:
            raise InvalidArgumentError("from_host needs a C-contiguous NumPy array", 1)
        return cls._import(device, IMPORT_HOST, array.ctypes.data, max(array.nbytes, 1),
                           array.dtype, array.shape, array)

    @property
    def mappable(self):
        """Whether map() can give the host a view of the memory."""
        out = ctypes.c_int()
        check(lib.xpu_buffer_is_mappable(self.handle, ctypes.byref(out)))
        return bool(out.value)

    @property
    def address(self):
        """The address kernels receive (a device pointer on CUDA and HIP)."""
        out = ctypes.c_uint64()
        check(lib.xpu_buffer_address(self.handle, ctypes.byref(out)))
        return out.value

    def map(self, access="rw"):
        """A Mapping of the buffer ("r", "w" or "rw"): a zero-copy NumPy view
        (np.asarray(mapping), or mapping.array). Mapping waits for enqueued
        work it conflicts with; while mapped, launches that use the buffer
        raise BusyError. Unmapped by unmap(), at the end of a `with` block,
        or when the Mapping and every array made from it are gone."""
        if access not in _MAP_ACCESS:
            raise InvalidArgumentError("access must be 'r', 'w' or 'rw'", 1)
        return Mapping(self, access)

    def synchronize(self):
        """Waits for every enqueued use of the buffer."""
        check(lib.xpu_buffer_synchronize(self.handle))

    def __array__(self, dtype=None, copy=None):
        """np.asarray(buffer): a copy of the contents (use map() for a view)."""
        out = self.download()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        from .interop import export_dlpack
        return export_dlpack(self, stream)

    def __dlpack_device__(self):
        from .interop import dlpack_device
        return dlpack_device(self)

    @property
    def __cuda_array_interface__(self):
        from .interop import cuda_array_interface
        return cuda_array_interface(self)

    @classmethod
    def empty(cls, device, shape, dtype, memory="device"):
        """A buffer for an array of `shape` and `dtype` (contents undefined)."""
        dtype = np.dtype(dtype)
        shape = (shape,) if np.isscalar(shape) else tuple(shape)
        return cls(device, int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, dtype, shape,
                   memory)

    @classmethod
    def from_array(cls, device, array, memory="device"):
        """A buffer holding a copy of `array`."""
        array = np.asarray(array)
        buf = cls.empty(device, array.shape, array.dtype, memory)
        buf.upload(array)
        return buf

    def __len__(self):
        """Elements (bytes when the buffer has no dtype)."""
        return self.nbytes // (self.dtype.itemsize if self.dtype else 1)

    def __repr__(self):
        what = f"{self.dtype}{list(self.shape)}" if self.dtype else f"{self.nbytes} bytes"
        return f"<xpujit.Buffer {what} on {self.device.spec}>"

    def _host(self, array, offset):
        array = np.ascontiguousarray(array)
        if offset < 0 or offset + array.nbytes > self.nbytes:
            raise InvalidArgumentError(
                f"{array.nbytes} bytes at offset {offset} do not fit a buffer of "
                f"{self.nbytes} bytes", 1)
        return array

    def _out(self, out):
        if out is None:
            if self.dtype is None:
                return np.empty(self.nbytes, np.uint8)
            return np.empty(self.shape, self.dtype)
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise InvalidArgumentError("`out` must be a writable C-contiguous array", 1)
        return out

    def upload(self, array, offset=0):
        """Copies `array` (any dtype; its bytes) into the buffer at byte
        `offset`, blocking."""
        array = self._host(array, offset)
        check(lib.xpu_buffer_upload(self.handle, offset, array.ctypes.data, array.nbytes))

    def download(self, out=None, offset=0):
        """Copies the buffer (from byte `offset`) into `out`, or into a new
        array of the buffer's dtype and shape, and returns it. Blocking."""
        out = self._out(out)
        self._host(out, offset)
        check(lib.xpu_buffer_download(self.handle, offset, out.ctypes.data, out.nbytes))
        return out

    def numpy(self):
        """The buffer's contents as a new NumPy array (after the work that
        writes the buffer has finished)."""
        return self.download()

    def upload_async(self, array, stream=None, offset=0):
        """Enqueues a copy of `array` into the buffer on `stream` (None: the
        device's default stream). The array is kept until the stream is
        synchronized."""
        stream = stream or self.device.default_stream
        array = self._host(array, offset)
        check(lib.xpu_buffer_upload_async(self.handle, offset, array.ctypes.data,
                                          array.nbytes, stream.handle))
        stream._borrow(array, self)

    def download_async(self, out, stream=None, offset=0):
        """Enqueues a copy of the buffer into `out` (a writable C-contiguous
        array) on `stream`; `out` holds the data once the stream is
        synchronized. Returns `out`."""
        stream = stream or self.device.default_stream
        out = self._out(out)
        self._host(out, offset)
        check(lib.xpu_buffer_download_async(self.handle, offset, out.ctypes.data,
                                            out.nbytes, stream.handle))
        stream._borrow(out, self)
        return out

    def view(self, shape, strides=None, offset=0):
        """A View of this buffer (the argument of a memref parameter):
        `shape`, `strides` in elements (default row-major), element
        `offset`."""
        from .module import View
        return View(self, shape, strides, offset)

    def free(self):
        """Frees the buffer now (BusyError while work still borrows it or the
        host has it mapped)."""
        if self.handle:
            check(lib.xpu_buffer_free(self.handle))
            self.handle = None

    def __del__(self):
        # Streams hold buffers they borrow, so this runs only once none does.
        if getattr(self, "handle", None) and lib is not None:
            lib.xpu_buffer_free(self.handle)


class Mapping:
    """A host view of a buffer (see Buffer.map). NumPy reads
    __array_interface__; the view keeps the Mapping, and so the buffer,
    alive."""

    def __init__(self, buffer, access):
        ptr = ctypes.c_void_p()
        check(lib.xpu_buffer_map(buffer.handle, _MAP_ACCESS[access], ctypes.byref(ptr)))
        self.buffer, self.access, self.pointer = buffer, access, ptr.value
        self._open = True

    @property
    def __array_interface__(self):
        if not self._open:
            raise InvalidArgumentError("the mapping was unmapped", 1)
        b = self.buffer
        dtype = b.dtype or np.dtype(np.uint8)
        shape = b.shape if b.shape is not None else (b.nbytes // dtype.itemsize,)
        return {"version": 3, "shape": shape, "typestr": dtype.str,
                "descr": dtype.descr, "data": (self.pointer, self.access == "r")}

    @property
    def array(self):
        """The NumPy view of the mapped memory (the buffer's dtype and shape)."""
        return np.asarray(self)

    def unmap(self):
        """Ends the mapping (views made from it must no longer be used)."""
        if self._open:
            self._open = False
            check(lib.xpu_buffer_unmap(self.buffer.handle))

    def __enter__(self):
        return self.array

    def __exit__(self, *exc):
        self.unmap()

    def __del__(self):
        if getattr(self, "_open", False) and lib is not None and self.buffer.handle:
            lib.xpu_buffer_unmap(self.buffer.handle)
