"""Buffers: device memory, filled from and read into NumPy arrays."""
import ctypes

import numpy as np

from . import _lib
from ._lib import lib
from .errors import InvalidArgumentError, check


class Buffer:
    """Device memory of a device. A buffer made from an array (or with
    empty/zeros) remembers its dtype and shape: launches check the dtype
    against the kernel parameter, and download() returns that array.

    A buffer used by a launch is borrowed until the launch's stream is
    synchronized: freeing it, or copying over what the kernel writes,
    raises BusyError meanwhile (the library refuses rather than race)."""

    def __init__(self, device, nbytes, dtype=None, shape=None):
        h = _lib.handle()
        check(lib.xpu_buffer_create(device.handle, int(nbytes), ctypes.byref(h)))
        self.handle = h
        self.device = device
        self.nbytes = int(nbytes)
        self.dtype = None if dtype is None else np.dtype(dtype)
        self.shape = tuple(shape) if shape is not None else None

    @classmethod
    def empty(cls, device, shape, dtype):
        """A buffer for an array of `shape` and `dtype` (contents undefined)."""
        dtype = np.dtype(dtype)
        shape = (shape,) if np.isscalar(shape) else tuple(shape)
        return cls(device, int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, dtype, shape)

    @classmethod
    def from_array(cls, device, array):
        """A buffer holding a copy of `array`."""
        array = np.asarray(array)
        buf = cls.empty(device, array.shape, array.dtype)
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
        """The buffer's contents as a new NumPy array."""
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
        """Frees the buffer now (BusyError while work still borrows it)."""
        if self.handle:
            check(lib.xpu_buffer_free(self.handle))
            self.handle = None

    def __del__(self):
        # Streams hold buffers they borrow, so this runs only once none does.
        if getattr(self, "handle", None) and lib is not None:
            lib.xpu_buffer_free(self.handle)
