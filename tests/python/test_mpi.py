"""clsort.mpi under mpirun: mpi_worker.py's checks on 1, 2 and 3 ranks (oversubscribed), and the import
errors. Skipped, with the reason, without mpi4py, mpirun or the MPI extension (clsort built without MPI)."""

import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_worker.py")
MPIRUN = shutil.which("mpirun") or shutil.which("mpiexec")


def _missing():
    # Found without importing: mpi4py.MPI would initialize MPI in the pytest process.
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed (pip install 'clsort[mpi]')"
    if importlib.util.find_spec("clsort._clsort_mpi") is None:
        return "clsort was built without MPI (no clsort._clsort_mpi)"
    if MPIRUN is None:
        return "no mpirun or mpiexec in PATH"
    return None


def _mpirun(ranks):
    cmd = [MPIRUN, "-np", str(ranks)]
    env = dict(os.environ)
    version = subprocess.run([MPIRUN, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        # Root in CI containers, more ranks than cores, and no CMA (ptrace) between a container's processes.
        cmd += ["--oversubscribe", "--mca", "btl_vader_single_copy_mechanism", "none"]
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return cmd, env


@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_mpi_worker(ranks):
    reason = _missing()
    if reason:
        pytest.skip(reason)
    cmd, env = _mpirun(ranks)
    r = subprocess.run(cmd + [sys.executable, WORKER], capture_output=True, text=True, env=env, timeout=600)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert f"clsort.mpi worker: {ranks} ranks ok" in r.stdout, out


def _import_error(block):
    code = (f"import sys; sys.modules[{block!r}] = None\n"
            "try:\n    import clsort.mpi\nexcept ImportError as e:\n    print(e)")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout


def test_import_error_without_mpi4py():
    assert "clsort.mpi needs mpi4py: pip install 'clsort[mpi]'" in _import_error("mpi4py")


def test_import_error_without_extension():
    if importlib.util.find_spec("mpi4py") is None:
        pytest.skip("mpi4py is not installed (pip install 'clsort[mpi]')")
    assert "clsort.mpi: this clsort has no MPI extension" in _import_error("clsort._clsort_mpi")
