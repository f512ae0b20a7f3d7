"""clsort._runtime: how `import clsort` hands a PyPI OpenCL runtime (clsort[cpu]) to the ICD loader. Each case
runs in a child process, since registering changes the process's environment; the runtime is a stand-in
path (the ICD loader never reads it there: nothing calls OpenCL). tests/python/wheel_smoke.sh checks the
real one end to end."""

import glob
import json
import os
import subprocess
import sys

FAKE = "/nonexistent/pyopencl/.libs/libpocl-0123abcd.so"
OWN_VARS = ("OCL_ICD_VENDORS", "OCL_ICD_FILENAMES", "CLSORT_PYPI_ICD", "CLSORT_PYPI_ICD_DIR")

CHILD = f"""
import json, os, stat
import clsort._runtime as r
for v in {OWN_VARS!r}:  # what the import itself did, undone: the cases set their own
    os.environ.pop(v, None)
os.environ.update(json.loads(os.environ["TEST_ENV"]))
r.pypi_runtime_libraries = lambda: [{FAKE!r}]
libs = r.register()
d = os.environ.get("OCL_ICD_VENDORS")
out = {{"libs": libs, "dir": d, "mark": os.environ.get("CLSORT_PYPI_ICD_DIR")}}
if d and os.path.isdir(d):
    out["files"] = {{f: open(os.path.join(d, f)).read() for f in os.listdir(d)}}
    out["mode"] = stat.S_IMODE(os.stat(d).st_mode)
print(json.dumps(out))
"""


def _register(**env):
    base = {k: v for k, v in os.environ.items() if k not in OWN_VARS}
    r = subprocess.run([sys.executable, "-c", CHILD], env={**base, "TEST_ENV": json.dumps(env)},
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_registers_beside_the_system_drivers():
    out = _register()
    assert out["libs"] == [FAKE]
    assert out["dir"] and out["mark"] == out["dir"]
    assert out["mode"] == 0o700  # every .icd there is a library the loader will open
    system = {os.path.basename(p): open(p).read() for p in glob.glob("/etc/OpenCL/vendors/*.icd")}
    assert out["files"] == {**system, "clsort-pypi-0.icd": FAKE + "\n"}
    assert not os.path.exists(out["dir"]), "the directory outlived its process"


def test_leaves_the_users_choice_alone(tmp_path):
    for env in ({"OCL_ICD_VENDORS": str(tmp_path)}, {"OCL_ICD_FILENAMES": "/x/libfoo.so"}, {"CLSORT_PYPI_ICD": "0"}):
        out = _register(**env)
        assert out["libs"] == [] and out["mark"] is None, env
        assert out["dir"] == env.get("OCL_ICD_VENDORS"), env


def test_a_child_reuses_its_parents_directory_or_makes_its_own(tmp_path):
    parent = tmp_path / "parent-made"
    parent.mkdir()
    out = _register(OCL_ICD_VENDORS=str(parent), CLSORT_PYPI_ICD_DIR=str(parent))
    assert out["libs"] == [FAKE] and out["dir"] == str(parent)
    gone = str(tmp_path / "removed-at-parent-exit")
    out = _register(OCL_ICD_VENDORS=gone, CLSORT_PYPI_ICD_DIR=gone)
    assert out["libs"] == [FAKE] and out["dir"] != gone and "clsort-pypi-0.icd" in out["files"]
