"""Opening the devices a differential script runs on."""
import sys

import xpujit


def open_devices(specs=None, require=False):
    """The devices of `specs` (default: the command line's, else cpu and
    vulkan:0). One that is missing is a printed SKIP, or with `require` a
    FAIL that exits."""
    devices = []
    for spec in specs or sys.argv[1:] or ["cpu", "vulkan:0"]:
        try:
            devices.append(xpujit.device(spec))
        except xpujit.XpuError as e:
            if require:
                print(f"FAIL: backend {spec} has no device: {e}")
                sys.exit(1)
            print(f"SKIP: {spec}: {e}")
    return devices
