"""OpenCL CPU runtimes installed from PyPI (``pip install clsort[cpu]``), made visible to the ICD loader.

The ICD loader (ocl-icd, bundled into the wheel by auditwheel) finds drivers only through the .icd files
of /etc/OpenCL/vendors, where pip cannot write. It reads OCL_ICD_VENDORS on its first clGetPlatformIDs,
not when it is loaded, so setting it here, before the extension makes any OpenCL call, is in time. ocl-icd
2.3.1 (Debian 12) has no OCL_ICD_FILENAMES to add one driver to the system's, and OCL_ICD_VENDORS replaces
the system's directory, so the directory given holds copies of the system's .icd files beside one naming
the PyPI runtime: the system's drivers (GPUs included) stay visible. Nothing is downloaded here.

Left alone: a user's own OCL_ICD_VENDORS or OCL_ICD_FILENAMES (they chose the drivers), and CLSORT_PYPI_ICD=0.
"""

import atexit
import glob
import os
import re
import shutil
import tempfile
from importlib import metadata

# (distribution, ICD library's file name). pocl-binary-distribution (PyOpenCL's PoCL build) installs its
# libpocl-<hash>.so into site-packages/pyopencl/.libs, where PyOpenCL's patched loader looks; its .icd file
# there names the library without a path, which only that loader resolves, so it is not used.
# intel-opencl-rt installs libintelocl.so into <prefix>/lib, which finds its libraries by RUNPATH $ORIGIN.
_RUNTIMES = (
    ("pocl-binary-distribution", re.compile(r"libpocl(-[0-9a-f]+)?\.so")),
    ("intel-opencl-rt", re.compile(r"libintelocl\.so")),
)
_SYSTEM_VENDORS = "/etc/OpenCL/vendors"
# Set to the directory this module made, so that a child process (multiprocessing, Dask workers), which
# inherits OCL_ICD_VENDORS, can tell it from a user's and make its own once the parent has removed it.
_MARK = "CLSORT_PYPI_ICD_DIR"

#: The PyPI runtimes' libraries handed to the ICD loader by this process (empty when none).
registered = []


def pypi_runtime_libraries():
    """The ICD libraries of the OpenCL runtimes installed from PyPI in this environment."""
    found = []
    for dist, pattern in _RUNTIMES:
        try:
            files = metadata.distribution(dist).files or ()
        except metadata.PackageNotFoundError:
            continue
        for f in files:
            if pattern.fullmatch(f.name):
                path = os.path.abspath(str(f.locate()))
                if os.path.isfile(path):
                    found.append(path)
    return found


def register():
    """Points the ICD loader at the PyPI runtimes (see the module's note); returns their libraries."""
    env = os.environ
    if env.get("CLSORT_PYPI_ICD", "1") == "0" or env.get("OCL_ICD_FILENAMES"):
        return []
    vendors = env.get("OCL_ICD_VENDORS")
    if vendors and vendors != env.get(_MARK):
        return []
    libraries = pypi_runtime_libraries()
    if not libraries:
        return []
    if vendors and os.path.isdir(vendors):  # the parent's, still there
        registered[:] = libraries
        return libraries
    # mkdtemp: a directory only this user can write, since every .icd in it is a library the loader opens.
    vendors = tempfile.mkdtemp(prefix="clsort-icd-")
    atexit.register(shutil.rmtree, vendors, True)
    for icd in sorted(glob.glob(os.path.join(_SYSTEM_VENDORS, "*.icd"))):
        try:
            shutil.copy(icd, vendors)
        except OSError:  # an unreadable one is one the loader could not read either
            pass
    for i, lib in enumerate(libraries):
        with open(os.path.join(vendors, f"clsort-pypi-{i}.icd"), "w") as f:
            f.write(lib + "\n")
    env["OCL_ICD_VENDORS"] = vendors
    env[_MARK] = vendors
    registered[:] = libraries
    return libraries
