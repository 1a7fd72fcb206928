"""Sweeps on any concurrent.futures executor and on a Dask cluster (issue 27, item 5):
the same rows as the sequential run, in order; a failing point named with its
parameters while the others are kept."""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

import kerncraft
from kerncraft.runner.scatter import SweepError

ROOT = Path(__file__).resolve().parents[1]
STENCIL = str(ROOT / "kernels" / "2d-5pt.c")
DEFINES = {"N": [50, 1000, 6000], "M": [100, 2000]}


def _dicts(rows):
    return [row.to_dict() for row in rows]


@pytest.fixture(scope="module")
def sequential():
    return {model: kerncraft.sweep(STENCIL, "CSX", model=model, defines=DEFINES)
            for model in ("ECM", "LC")}


@pytest.mark.parametrize("model", ["ECM", "LC"])
def test_process_pool_gives_the_sequential_rows(sequential, model):
    seen = []
    with ProcessPoolExecutor(2) as pool:
        rows = kerncraft.sweep(STENCIL, "CSX", model=model, defines=DEFINES, executor=pool,
                               on_row=lambda row: seen.append(dict(row.defines)))
    assert _dicts(rows) == _dicts(sequential[model])
    # on_row heard of every point (in completion order, so compared as a set)
    assert sorted(map(sorted, map(dict.items, seen))) == sorted(
        sorted(row.defines.items()) for row in rows)


def test_a_failing_point_is_named_and_the_others_kept():
    # The i loop of 2d-5pt runs from 1 to N-2: N=2 runs no iteration, an error of that
    # point alone; N=50 and N=3 (one iteration) are fine.
    with ProcessPoolExecutor(2) as pool:
        with pytest.raises(SweepError) as caught:
            kerncraft.sweep(STENCIL, "CSX", model="LC", defines={"N": [50, 2, 3], "M": [100]},
                            executor=pool)
    error = caught.value
    assert str(error).startswith("1 of 3 point(s) failed; first at M=100 N=2: ")
    assert "runs no iteration with N=2" in str(error)
    assert error.failures[0][0] == {"M": 100, "N": 2}
    assert [row.defines["N"] for row in error.rows] == [50, 3]


def test_a_kernel_model_from_a_file_travels_a_bare_one_is_refused():
    import dataclasses

    from kerncraft.errors import KerncraftError

    kernel = kerncraft.api.load_kernel(STENCIL)      # keeps its source text
    with ProcessPoolExecutor(1) as pool:
        rows = kerncraft.sweep(kernel, "CSX", model="LC", defines={"N": [60], "M": [70]},
                               executor=pool)
        assert rows[0].defines == {"N": 60, "M": 70}
        bare = dataclasses.replace(kernel, source="")
        with pytest.raises(KerncraftError, match="needs the kernel as C source or a file"):
            kerncraft.sweep(bare, "CSX", model="LC", defines={"N": [60], "M": [70]},
                            executor=pool)


def test_dask_local_cluster_gives_the_sequential_rows(sequential):
    distributed = pytest.importorskip("distributed", reason="needs the extra kerncraft[dask]")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        rows = kerncraft.sweep(STENCIL, "CSX", model="ECM", defines=DEFINES,
                               executor=client.get_executor())
    assert _dicts(rows) == _dicts(sequential["ECM"])


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, KERNCRAFT_NO_REPORT_CACHE="1")
    return subprocess.run([sys.executable, "-m", "kerncraft.cli", *args], capture_output=True,
                          text=True, env=env, check=False, timeout=600)


def test_cli_dask_local_prints_what_the_sequential_run_prints():
    pytest.importorskip("distributed", reason="needs the extra kerncraft[dask]")
    common = ("-p", "ECM", "-m", "CSX", STENCIL, "-D", "M", "1000", "-D", "N", "100")
    sequential = _cli(*common, "-D", "N", "4000")
    spread = _cli(*common, "-D", "N", "2", "-D", "N", "4000", "--dask", "local")
    # the N=2 point fails (no iteration) at its place; the others print as sequentially
    assert spread.returncode == 2, spread.stderr
    assert "kerncraft: point M=1000 N=2 failed: " in spread.stderr
    assert "1 of 3 point(s) failed; first at M=1000 N=2" in spread.stderr
    expected = sequential.stdout.replace("=== M=1000 N=4000 ===",
                                         "=== M=1000 N=2 ===\n=== M=1000 N=4000 ===")
    assert spread.stdout == expected


def test_cli_dask_refuses_plot_and_measuring_models(tmp_path):
    plot = _cli("-p", "ECM", "-m", "CSX", STENCIL, "-D", "N", "100", "-D", "M", "100",
                "--dask", "local", "--plot", str(tmp_path / "x.png"))
    assert plot.returncode != 0 and "--dask cannot be combined with --plot" in plot.stderr
    bench = _cli("-p", "Benchmark", "-m", "CSX", STENCIL, "-D", "N", "100", "-D", "M", "100",
                 "--dask", "local")
    assert bench.returncode != 0 and "--dask cannot run -p Benchmark" in bench.stderr
