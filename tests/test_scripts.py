"""The console scripts leave without tearing the interpreter down (kerncraft/cli/scripts.py)
and report an output they cannot write in one line (cli/common.run_reporting_errors)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FIVE = Path(__file__).resolve().parents[1] / "kernels" / "2d-5pt.c"


def test_leave_runs_the_exit_handlers_and_flushes(tmp_path):
    # 10,000 lines still buffered in stdout, an exit handler that writes a file, code 3:
    # all of it must survive os._exit
    marker = tmp_path / "handler-ran"
    script = ("import atexit, sys\nfrom kerncraft.cli.scripts import leave\n"
              f"atexit.register(lambda: open({str(marker)!r}, 'w').close())\n"
              "for k in range(10000): print(k)\nleave(3)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 3
    assert proc.stdout.splitlines()[-1] == "9999" and len(proc.stdout.splitlines()) == 10000
    assert marker.exists()


def test_kerncraft_script_prints_the_whole_report(tmp_path):
    env = {**os.environ, "KERNCRAFT_CACHE_DIR": str(tmp_path / "cache")}
    script = "from kerncraft.cli.scripts import kerncraft; kerncraft()"
    proc = subprocess.run([sys.executable, "-c", script, "-p", "ECM", "-m", "CSX", str(FIVE),
                           "-D", "N", "1000", "-D", "M", "1000"], capture_output=True,
                          text=True, env=env)
    # 2d-5pt on CSX at N=M=1000: the single-core prediction line ends the report
    assert proc.returncode == 0
    assert proc.stdout.rstrip().splitlines()[-1] == "prediction for 1 core(s): 27.26 cy/CL"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_full_disk_is_one_line(tmp_path):
    env = {**os.environ, "KERNCRAFT_CACHE_DIR": str(tmp_path / "cache")}
    script = "from kerncraft.cli.scripts import kerncraft; kerncraft()"
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-c", script, "-p", "ECM", "-m", "CSX",
                               str(FIVE), "-D", "N", "1000", "-D", "M", "1000"],
                              stdout=full, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.returncode == 1
    assert proc.stderr == "kerncraft: I/O error: No space left on device\n"
