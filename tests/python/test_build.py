"""The build: `pip install .` without OpenCL's development files stops with one line naming the packages to
install, not CMake's "Could NOT find OpenCL (missing: ...)". Configures the top-level CMakeLists.txt as
pyproject.toml does (CLSORT_BUILD_PYTHON=ON) in a temporary folder, with OpenCL hidden from find_package
or CL/opencl.hpp hidden from find_path; skipped without cmake or a C++ compiler."""

import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
CMAKE = shutil.which("cmake")
HINT = ("clsort: OpenCL development files not found (libOpenCL, CL/cl.h and the C++ header CL/opencl.hpp): "
        "on Debian/Ubuntu `apt install ocl-icd-opencl-dev opencl-clhpp-headers`")


def _configure(tmp_path, *defines):
    if CMAKE is None:
        pytest.skip("no cmake in PATH")
    if not any(shutil.which(c) for c in ("c++", "g++", "clang++")):
        pytest.skip("no C++ compiler in PATH")
    r = subprocess.run([CMAKE, "-S", str(REPO), "-B", str(tmp_path / "build"), "-DCLSORT_BUILD_PYTHON=ON",
                        "-DCLSORT_BUILD_TESTS=OFF", "-DCLSORT_BUILD_TOOLS=OFF", *defines],
                       capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout + r.stderr


def _one_line(out):
    lines = [line.strip() for line in out.splitlines() if "clsort: OpenCL" in line]
    assert len(lines) == 1 and lines[0].startswith(HINT), out  # one line, unwrapped
    assert "Could NOT find OpenCL" not in out, out


def test_missing_opencl_names_the_packages(tmp_path):
    rc, out = _configure(tmp_path, "-DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON")
    assert rc != 0, out
    _one_line(out)


def test_missing_opencl_hpp_names_the_packages(tmp_path):
    # OpenCL found where it is given; every search under /usr/include (and the include dir given) ignored,
    # so find_path does not see CL/opencl.hpp there. Where OpenCL lives elsewhere this is not the case.
    include, library = pathlib.Path("/usr/include"), None
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"):
        if (pathlib.Path(d) / "libOpenCL.so").exists():
            library = pathlib.Path(d) / "libOpenCL.so"
            break
    if library is None or not (include / "CL" / "cl.h").exists():
        pytest.skip("OpenCL is not in /usr/include and a system lib folder")
    rc, out = _configure(tmp_path, f"-DOpenCL_INCLUDE_DIR={include}", f"-DOpenCL_LIBRARY={library}",
                         f"-DCMAKE_IGNORE_PATH={include}")
    assert rc != 0, out
    _one_line(out)
