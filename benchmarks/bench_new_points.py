"""Whole-process times of new -D points (issue 27 item 1); not a test.

    python benchmarks/bench_new_points.py [MODEL]      (default ECMData)

Each measurement runs ``kerncraft`` pinned to CPU 1 (``taskset -c 1``) in a fresh
cache directory that holds only the compiled-kernel cache of a warm-up run, and
reports the median of 5: (1) a new -D value after one run of the kernel, (2) the
first run of the kernel, (3) a sweep of 1,000 new points after one run. The host
load (1-minute load average) is printed with the numbers.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KERNEL = str(REPO / "kernels" / "2d-5pt.c")


def _kerncraft(cache: Path, model: str, m: str) -> float:
    command = ["kerncraft", "-p", model, "-m", "CSX", KERNEL, "-D", "N", "1000", "-D", "M", m]
    if shutil.which("taskset"):
        command = ["taskset", "-c", "1", *command]
    start = time.perf_counter()
    subprocess.run(command, env={**os.environ, "KERNCRAFT_CACHE_DIR": str(cache)},
                   stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def _fresh(base: Path, warm: Path, name: str) -> Path:
    """A cache directory with only the compiled kernels of the warm-up run."""
    cache = base / name
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir()
    for entry in warm.iterdir():
        if entry.name not in ("points", "plans", "outputs", "incore"):
            (shutil.copytree if entry.is_dir() else shutil.copy2)(entry, cache / entry.name)
    return cache


def main(model: str = "ECMData") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        warm = base / "warm"
        _kerncraft(warm, model, "1000")
        cases = {"new -D value": [], "first run of the kernel": [], "1,000 new points": []}
        for run in range(5):
            cache = _fresh(base, warm, f"c{run}")
            cases["first run of the kernel"].append(_kerncraft(cache, model, "1000"))
            cases["new -D value"].append(_kerncraft(cache, model, str(2000 + run)))
            cases["1,000 new points"].append(_kerncraft(cache, model, "3000-9000:1000"))
    print(f"model {model}, host load {os.getloadavg()[0]:.2f} (1 min), median of 5:")
    for name, times in cases.items():
        print(f"  {name:26s} {statistics.median(times):6.3f} s")


if __name__ == "__main__":
    main(*sys.argv[1:])
