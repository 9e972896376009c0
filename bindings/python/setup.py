"""Installs the xpujit package (pure Python over ctypes). When a built
libxpujit.so is found -- XPU_LIBRARY, else this checkout's build tree
(XPU_BUILD_DIR or ../../build) -- it is copied next to the package, so the
installed package needs no environment variable to find it."""
import os
import pathlib
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).resolve().parent


def built_library():
    if os.environ.get("XPU_LIBRARY"):
        return pathlib.Path(os.environ["XPU_LIBRARY"])
    build = pathlib.Path(os.environ.get("XPU_BUILD_DIR") or HERE.parents[1] / "build")
    lib = build / "src" / "libxpujit.so"
    return lib if lib.exists() else None


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        lib = built_library()
        if lib is None:
            print("xpujit: no built libxpujit.so found to bundle; the package will "
                  "look for it through XPU_LIBRARY or the library search path")
            return
        target = pathlib.Path(self.build_lib) / "xpujit" / "libxpujit.so"
        shutil.copyfile(lib.resolve(), target)  # the file, not the symlink
        print(f"xpujit: bundled {lib.resolve()}")


setup(cmdclass={"build_py": BuildPyWithLibrary})
