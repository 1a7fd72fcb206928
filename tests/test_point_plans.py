"""Point plans (issue 27 item 1): a new -D point computed from plain data equals the
full, symbolic path byte for byte, and a new point imports no symbolic stack.

Equality: every bundled kernel x bundled machine file x 5 sizes (data in L1, L2, L3,
memory, and an odd size), for the models a plan covers: LC, ECMData and RooflineFLOP (one
plan), ECM (in-core model kerncraft: compiled loop kept, line splits, row-overlap note,
scaling rows and composition from plain data). The full path is ``model_report`` on the
kernel bound with sympy (its layer conditions are the symbolic analysis); the plan is
pickled and read back first, as the warm path reads it.
"""
from __future__ import annotations

import itertools
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import kerncraft
from kerncraft.api import load_kernel
from kerncraft.errors import KerncraftError
from kerncraft.models.point_plan import build_plan, extend_plan
from kerncraft.options import AnalysisOptions
from kerncraft.runner.points import planned_point, stored_form
from kerncraft.runner.run import model_report

REPO = Path(__file__).resolve().parents[1]
KERNELS = sorted((REPO / "kernels").glob("*.c"))
MACHINES = sorted((REPO / "machine-files").glob("*.yml"))
PAIRS = list(itertools.product(KERNELS, MACHINES))
# Per constant: 10 (a few hundred bytes: L1), 60 (2-D: ~30 kB; 3-D: L2/L3), 300, 3000
# (2-D rows of 24 kB: L3/memory) and 1001 (odd: no power of two, rows not line-aligned).
SIZES = (10, 60, 300, 3000, 1001)


@pytest.mark.parametrize("kernel_path,machine_path", PAIRS,
                         ids=[f"{k.stem}-{m.stem}" for k, m in PAIRS])
def test_plan_equals_full_path(kernel_path, machine_path):
    kernel = load_kernel(str(kernel_path))
    machine = kerncraft.load_machine(str(machine_path))
    options = AnalysisOptions()
    models = ("LC", "ECMData", "RooflineFLOP")    # one plan for all, as a run makes it
    plan = build_plan(kernel, machine, options, models)
    assert plan is not None, "every bundled kernel is covered"
    plan = pickle.loads(pickle.dumps(plan))       # as the warm path reads it from disk
    compared = 0
    for size in SIZES:
        values = {name: size for name in kernel.constant_names}
        try:
            bound = kernel.bind(values)
            full = stored_form(bound.bindings, None,
                               [model_report(m, bound, machine, options) for m in models])
        except KerncraftError:
            # the full path refuses the point (e.g. a loop without iterations at 10):
            # the plan must not compute it either, but leave it to the full path
            assert planned_point(plan, values) is None
            continue
        fast = planned_point(plan, values)
        assert fast is not None
        _compare(fast, full)
        compared += 1
    assert compared >= 3      # the large sizes are valid for every bundled kernel


def _compare(fast, full) -> None:
    assert fast.bindings == full.bindings
    assert len(fast.reports) == len(full.reports)
    for (m1, text1, data1), (m2, text2, data2) in zip(fast.reports, full.reports):
        assert (m1, text1) == (m2, text2)
        assert data1 == data2


@pytest.mark.parametrize("kernel_path,machine_path", PAIRS,
                         ids=[f"{k.stem}-{m.stem}" for k, m in PAIRS])
def test_ecm_plan_equals_full_path(kernel_path, machine_path):
    """ECM: the compiled loop is kept per stride literals (a size that changes them is
    added to the plan as a run adds it, extend_plan); line splits, row-overlap note,
    layer conditions of every scaling row and the composition come from plain data."""
    kernel = load_kernel(str(kernel_path))
    machine = kerncraft.load_machine(str(machine_path))
    options = AnalysisOptions()
    plan, compared = None, 0
    for size in SIZES:
        values = {name: size for name in kernel.constant_names}
        try:
            bound = kernel.bind(values)
            full = stored_form(bound.bindings, None,
                               [model_report("ECM", bound, machine, options)])
        except KerncraftError:
            if plan is not None:        # refused by the full path: by the plan too
                assert planned_point(plan, values) is None
            continue
        if plan is None:
            plan = build_plan(kernel, machine, options, ("ECM",), values)
            assert plan is not None, "every bundled kernel is covered"
        plan = pickle.loads(pickle.dumps(extend_plan(plan, kernel, values)))
        fast = planned_point(plan, values)
        assert fast is not None
        _compare(fast, full)
        compared += 1
    assert compared >= 3 or plan is None


COLUMN_SUM = """double a[M][N];
double s;
for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
        s += a[j][i];
"""


def test_ecm_plan_leaves_other_code_to_the_full_path(tmp_path):
    """The innermost loop walks a column: its stride N is a literal of the generated C
    (compilation/codegen.py stride_constants), so a plan made at N=1000 has no compiled
    loop for N=1200 and leaves that point to the full path; M is a run-time constant,
    so M=1200 is computed from the plan. extend_plan adds N=1200's code."""
    path = tmp_path / "column.c"
    path.write_text(COLUMN_SUM)
    kernel = load_kernel(str(path))
    machine, options = kerncraft.load_machine("CSX"), AnalysisOptions()
    plan = build_plan(kernel, machine, options, ("ECM",), {"N": 1000, "M": 1000})
    assert plan.incore.literal_names == ("N",)
    assert planned_point(plan, {"N": 1200, "M": 1000}) is None
    assert planned_point(plan, {"N": 1000, "M": 1200}) is not None
    plan = extend_plan(plan, kernel, {"N": 1200, "M": 1000})
    fast = planned_point(plan, {"N": 1200, "M": 1000})
    bound = kernel.bind({"N": 1200, "M": 1000})
    _compare(fast, stored_form(bound.bindings, None,
                               [model_report("ECM", bound, machine, options)]))


@pytest.mark.parametrize("model", ["LC", "ECMData", "ECM"])
def test_new_point_imports_no_symbolic_stack(tmp_path, model):
    """Run 1 (cold) stores the plan; run 2 asks for another -D value: computed from the
    plan, printed as the full path prints it, with none of sympy, networkx, pycparser."""
    five_point = REPO / "kernels" / "2d-5pt.c"
    cache = tmp_path / "cache"
    env = {**os.environ, "KERNCRAFT_CACHE_DIR": str(cache)}
    env.pop("KERNCRAFT_NO_REPORT_CACHE", None)
    env.pop("KERNCRAFT_NO_CACHE", None)
    script = ("import sys; from kerncraft.cli.kerncraft import main; code = main(sys.argv[1:]); "
              "heavy = {'sympy', 'networkx', 'pycparser', 'yaml', 'ruamel', 'ruamel.yaml'} "
              "& set(sys.modules); print('HEAVY', sorted(heavy)); sys.exit(code)")

    def run(m: str, extra_env=None) -> str:
        argv = ["-p", model, "-m", "CSX", str(five_point), "-D", "N", "1000", "-D", "M", m]
        return subprocess.run([sys.executable, "-c", script, *argv],
                              env={**env, **(extra_env or {})}, cwd=tmp_path,
                              capture_output=True, text=True, check=True).stdout

    assert "HEAVY ['" in run("1000")                   # the cold run derives the plan
    new = run("1234")
    assert new.endswith("HEAVY []\n")
    reference = run("1234", {"KERNCRAFT_NO_REPORT_CACHE": "1"})   # the full path
    assert new.split("HEAVY [")[0] == reference.split("HEAVY [")[0]
    assert "HEAVY ['" in reference
