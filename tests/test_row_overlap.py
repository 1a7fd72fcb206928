"""The note on LCD-bound kernels whose chain restarts per row (kerncraft/models/row_overlap.py)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import kerncraft
from kerncraft.models import row_overlap as ro
from kerncraft.models.incore_prediction import predict_incore

ROOT = Path(__file__).parent.parent
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def bundled(name: str, **values):
    path = ROOT / "kernels" / f"{name}.c"
    return kerncraft.parse_kernel(path.read_text(), str(path)).bind(values)


def source(text: str, **values):
    return kerncraft.parse_kernel(text, "k.c").bind(values)


def test_restart_targets():
    # matvec: y[i] is written, invariant in the inner j loop, changes with i
    assert ro._restart_targets(bundled("matvec", N=100, M=100)) == ["y"]
    # Gauss-Seidel writes a[j][i] and reads a[j][i-1] (1 element behind): the chain runs
    # along the row in a register and starts from a[j][0] with every row
    assert ro._restart_targets(bundled("gs-2d-5pt", N=100, M=100)) == ["a"]
    # a Jacobi-type stencil reads only the other array: no chain at all
    assert ro._restart_targets(bundled("2d-5pt", N=100, M=100)) is None
    # reading ahead (a[j][i+1], not yet written in this sweep) is no recurrence
    ahead = ("double a[M][N];\nfor (int j = 1; j < M; ++j)\n"
             "    for (int i = 0; i < N - 1; ++i)\n        a[j][i] = a[j][i + 1] * 0.5;\n")
    assert ro._restart_targets(source(ahead, M=10, N=10)) is None
    # the row above (a[j-1][i], N elements behind) is no chain along the row
    column = ("double a[M][N];\nfor (int j = 1; j < M; ++j)\n"
              "    for (int i = 0; i < N; ++i)\n        a[j][i] = a[j - 1][i] * 0.5;\n")
    assert ro._restart_targets(source(column, M=10, N=10)) is None
    # 1D reductions have no enclosing loop
    assert ro._restart_targets(bundled("sum_reduction", N=100)) is None
    # a scalar accumulated over the whole nest: its chain need not restart
    nest = ("double a[N][N];\ndouble s;\nfor (int j = 0; j < N; ++j)\n"
            "    for (int i = 0; i < N; ++i)\n        s += a[j][i];\n")
    assert ro._restart_targets(source(nest, N=10)) is None
    # a written element that never changes: one chain through the nest
    fixed = ("double a[N][N], y[N];\nfor (int j = 0; j < N; ++j)\n"
             "    for (int i = 0; i < N; ++i)\n        y[0] += a[j][i];\n")
    assert ro._restart_targets(source(fixed, N=10)) is None


@needs_gcc
def test_note_for_short_rows_only():
    """CSX, matvec: rows of N doubles are N / (iterations per asm iteration) assembly
    iterations of sum(fused uops) each; the note appears when at least a quarter of a
    row fits into the 224-entry ROB of SKX/CSX."""
    machine = kerncraft.load_machine("CSX")
    short = predict_incore(bundled("matvec", N=100, M=100), machine,
                           iterations_per_cacheline=8)
    assert short.t_ol_source == "loop-carried dependency"
    a, sel = short.analysis, short.selection
    rows = 224 / (100 / sel.iterations_per_asm_iteration * sum(a.fused_uops))
    assert rows >= ro.MIN_ROWS_IN_ROB
    (note,) = short.notes
    assert f"holds {rows:.2g} row(s)" in note and "(through y, which changes with the enclosing loop)" in note
    assert f"LCD bound {short.t_ol:.2f} cy/CL" in note
    assert short.to_dict()["model_notes"] == [note]
    long = predict_incore(bundled("matvec", N=4000, M=100), machine,
                          iterations_per_cacheline=8)
    assert long.t_ol_source == "loop-carried dependency" and long.notes == ()


@needs_gcc
def test_note_survives_the_result_cache(cache_dir):
    from kerncraft.memo import incore_analyses as rc
    from kerncraft.models import incore_prediction as ip

    machine = kerncraft.load_machine("CSX")
    kernel = bundled("matvec", N=100, M=100)
    cold = predict_incore(kernel, machine, iterations_per_cacheline=8)
    ip._analyse_source.cache_clear()
    warm = predict_incore(kernel, machine, iterations_per_cacheline=8)
    assert isinstance(warm.analysis, rc.CachedAnalysis)
    assert warm.notes == cold.notes and len(cold.notes) == 1
    assert warm.analysis.fused_uops == cold.analysis.fused_uops and warm.analysis.rob_size == 224
