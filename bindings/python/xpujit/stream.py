"""Streams and events: ordered queues of work, and points in them."""
import ctypes

from . import _lib
from ._lib import lib
from .errors import check


class Stream:
    """An in-order queue of work on a device. Work on different streams may
    overlap; events order it. What a launch or async copy borrows (buffers,
    host arrays) is kept alive by the stream until it is synchronized."""

    def __init__(self, device, _handle=None):
        self.device = device
        self._owned = _handle is None
        if _handle is None:
            _handle = _lib.handle()
            check(lib.xpu_stream_create(device.handle, ctypes.byref(_handle)))
        self.handle = _handle
        self._borrowed = []
        device._streams.add(self)

    @classmethod
    def _default(cls, device):
        h = _lib.handle()
        check(lib.xpu_stream_default(device.handle, ctypes.byref(h)))
        return cls(device, h)

    def __repr__(self):
        return f"<xpujit.Stream on {self.device.spec}{'' if self._owned else ' (default)'}>"

    def _borrow(self, *objects):
        self._borrowed.extend(objects)

    def _release_borrows(self):
        self._borrowed.clear()

    def synchronize(self):
        """Blocks until the stream's work has finished; raises the first
        error it reported (OutOfBoundsError, DeviceFaultError, ...). Ends
        the borrows of everything enqueued so far."""
        try:
            check(lib.xpu_stream_synchronize(self.handle))
        finally:
            self._release_borrows()

    def record(self, event=None):
        """Records `event` (a new one when None) at the current end of the
        stream and returns it."""
        event = event or Event(self.device)
        event.record(self)
        return event

    def wait(self, event):
        """Makes work enqueued after this call wait for `event`."""
        check(lib.xpu_stream_wait_event(self.handle, event.handle))

    def __del__(self):
        if getattr(self, "_owned", False) and lib is not None:
            lib.xpu_stream_release(self.handle)  # waits for its work


class Event:
    """A point in a stream; complete once the work before it is."""

    def __init__(self, device):
        self.device = device
        h = _lib.handle()
        check(lib.xpu_event_create(device.handle, ctypes.byref(h)))
        self.handle = h

    def record(self, stream=None):
        """Marks the current end of `stream` (None: the default stream)."""
        stream = stream or self.device.default_stream
        check(lib.xpu_event_record(self.handle, stream.handle))

    def synchronize(self):
        """Blocks until the event completes."""
        check(lib.xpu_event_synchronize(self.handle))

    def query(self):
        """True when the event has completed, False when not yet."""
        status = lib.xpu_event_query(self.handle)
        if status == 12:  # XPU_ERROR_BUSY: not yet
            return False
        check(status)
        return True

    def __del__(self):
        if getattr(self, "handle", None) and lib is not None:
            lib.xpu_event_release(self.handle)
