"""Cache-line-split vector accesses (kerncraft/incore/linesplit.py).

Every expected fraction below is counted by hand from the byte offsets of the
vectors (arrays 64-B aligned, vector loop from the first iteration); the costs
are the host measurements written down in ICX.yml's ``line_split`` table.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kerncraft.errors import KerncraftError
from kerncraft.incore import linesplit as ls
from kerncraft.incore.database import load_database
from kerncraft.incore.x86.parser import parse_x86
from kerncraft.kernel.parser import parse_kernel

ROOT = Path(__file__).parent.parent
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def bundled(name: str, **values):
    path = ROOT / "kernels" / f"{name}.c"
    return parse_kernel(path.read_text(), filename=str(path)).bind(values)


def source(text: str, **values):
    return parse_kernel(text, filename="k.c").bind(values)


# ------------------------------------------------------------------ fractions

def test_2d5pt_ymm_rows_aligned():
    """M=1000: rows are 8000 B = 125 lines, so every row starts on a line. 32-B vectors
    from i=1 start at byte 8*(i+d) for i = 1, 5, 9, ...: a[j][i-1] at 0, 32 (no split);
    a[j][i+1] at 16, 48 (48 splits); a[j+-1][i] and b[j][i] at 8, 40 (40 splits).
    Reads (0 + 1/2 + 1/2 + 1/2) / 4, writes 1/2."""
    assert ls.split_fractions(bundled("2d-5pt", N=1000, M=1000), 32) == (0.375, 0.5, True)


def test_2d5pt_zmm_and_xmm():
    k = bundled("2d-5pt", N=1000, M=1000)
    # 64-B vectors split unless they start at 0 mod 64: only a[j][i-1] does
    assert ls.split_fractions(k, 64) == (0.75, 1.0, True)
    # 16-B vectors: starts 8 + 16k -> {8, 24, 40, 56}: 56 splits (1/4); 16 + 16k never
    assert ls.split_fractions(k, 16) == (0.125, 0.25, True)


def test_2d5pt_rows_not_aligned_average_over_rows():
    """M=130: a row is 1040 B = 16 mod 64, so rows j = 1..128 start at 16 j mod 64, each of
    0/16/32/48 for 32 rows. 64-B vectors split unless the start is 0 mod 64:
    a[j][i-1] (r) 3/4, a[j][i+1] (r+16) 3/4, a[j-1][i] (r-8) and a[j+1][i] (r+24) always;
    b[j][i] (r+8) always."""
    assert ls.split_fractions(bundled("2d-5pt", N=130, M=130), 64) == (0.875, 1.0, True)


def test_aligned_streams_never_split():
    assert ls.split_fractions(bundled("triad", N=1000), 32) == (0.0, 0.0, True)
    assert ls.split_fractions(bundled("triad", N=1000), 64) == (0.0, 0.0, True)


def test_loop_invariant_and_missing_kinds():
    # matvec: y[i] is invariant in the inner loop (a register), A[i][j] and x[j] aligned
    assert ls.split_fractions(bundled("matvec", N=1000, M=1000), 32) == (0.0, None, True)


def test_float_elements():
    """4-B floats, 32-B vectors of 8 lanes from i=1: a[i-1] at 0, 32; a[i+1] at 8, 40
    (40 splits); b[i] at 4, 36 (36 splits)."""
    k = source("float a[N], b[N];\nfor (int i = 1; i < N - 1; ++i)\n"
               "    b[i] = a[i - 1] + a[i + 1];\n", N=1024)
    assert ls.split_fractions(k, 32) == (0.25, 0.5, True)


def test_short_rows_count_whole_vectors_only():
    """M=7: 5 inner iterations (i = 1..5) hold one 32-B vector (i = 1..4), the rest is
    scalar. Rows are 56 B, so row j starts at 56 j mod 64 = -8 j: the store b[j][i] of
    rows j = 1..5 starts at 8 - 8 j mod 64 = 0, 56, 48, 40, 32 -> splits for 56, 48, 40."""
    k = bundled("2d-5pt", N=7, M=7)
    assert ls.split_fractions(k, 32)[1] == pytest.approx(3 / 5)


def test_symbolic_bound_falls_back_to_uniform_starts():
    """Triangular nest: start addresses assumed uniform over multiples of 8 B; a 32-B
    vector splits for starts 40, 48, 56 of 0..56 (3/8)."""
    k = source("double a[N][N], b[N][N];\nfor (int j = 0; j < N; ++j)\n"
               "    for (int i = 0; i < j; ++i)\n        b[j][i] = a[j][i];\n", N=100)
    assert ls.split_fractions(k, 32) == (0.375, 0.375, False)


def test_downward_loop_falls_back_to_uniform_starts():
    """Where the vectors of a loop counting down start is up to the compiler: uniform."""
    k = source("double a[N], b[N];\nfor (int i = N - 2; i >= 1; --i)\n"
               "    b[i] = a[i - 1] + a[i + 1];\n", N=1000)
    assert ls.split_fractions(k, 32) == (0.375, 0.375, False)


# ------------------------------------------------------------------ the block

ASM = """\
.L5:
    vmovupd (%r10,%rax), %ymm4
    vaddpd (%r11,%rax), %ymm4, %ymm0
    vaddsd (%r9,%rax), %xmm0, %xmm1
    vbroadcastsd (%r8), %ymm2
    vmulpd %ymm1, %ymm0, %ymm0
    vmovupd %ymm0, (%rcx,%rax)
    vmovsd %xmm1, (%rdx,%rax)
    vmovupd %zmm0, 64(%rcx,%rax)
    addq $32, %rax
    cmpq %rax, %r14
    jne .L5
"""


def _instructions(text):
    return [line.instruction for line in parse_x86(text) if line.instruction is not None]


def test_profile_counts_packed_vector_loads_and_stores():
    """Scalar (vaddsd, vmovsd) and broadcast forms are not vector streams."""
    profile = ls.vector_access_profile(_instructions(ASM))
    assert profile == (ls.VectorAccess("load", 32, 2), ls.VectorAccess("store", 32, 1),
                       ls.VectorAccess("store", 64, 1))


def test_estimate_with_icx_costs():
    """2d-5pt M=1000, 4 ymm loads + 1 ymm store per asm iteration: 4 x 3/8 split loads
    x 1 cy on {2D, 3D} = 1.5 cy (0.75 each); 1 x 1/2 split store x 2.7 cy on L1D."""
    costs = load_database("ICX").line_split
    profile = (ls.VectorAccess("load", 32, 4), ls.VectorAccess("store", 32, 1))
    est = ls.estimate_line_splits(bundled("2d-5pt", N=1000, M=1000), profile, costs)
    assert est.per_port == pytest.approx({"2D": 0.75, "3D": 0.75, "L1D": 1.35})
    assert est.modelled and not est.unmodelled
    assert "38 % of the 4 32-B loads and 50 % of the 1 32-B store" in est.describe("ICX")
    assert est.to_dict()["accesses"][0]["split_fraction"] == 0.375


def test_estimate_without_costs_reports_but_adds_nothing():
    profile = (ls.VectorAccess("load", 32, 4), ls.VectorAccess("store", 32, 1))
    est = ls.estimate_line_splits(bundled("2d-5pt", N=1000, M=1000), profile,
                                  load_database("SPR").line_split)
    assert est.per_port == {} and len(est.unmodelled) == 2
    assert "no split cost in the SPR database for 32-B loads, 32-B stores" in est.describe("SPR")
    assert ls.estimate_line_splits(bundled("triad", N=100), (), ()) is None


def test_skx_and_csx_charge_split_loads_only():
    """SKX.yml (inherited by CSX): one more load-data cycle per split load, no store cost."""
    costs = load_database("CSX").line_split
    assert {(c.kind, c.vector_bytes) for c in costs} == {("load", 16), ("load", 32),
                                                         ("load", 64)}
    profile = (ls.VectorAccess("load", 32, 4), ls.VectorAccess("store", 32, 1))
    est = ls.estimate_line_splits(bundled("2d-5pt", N=1000, M=1000), profile, costs)
    assert est.per_port == pytest.approx({"2D": 0.75, "3D": 0.75})
    assert [r.kind for r in est.unmodelled] == ["store"]
    assert "+0.75 cy on 2D, +0.75 cy on 3D" in est.describe("CSX")


# ------------------------------------------------------------------ database

def test_icx_table_and_inheritance(tmp_path):
    icx = load_database("ICX").line_split
    assert ls.SplitCost("store", 32, ("L1D",), 2.7) in icx
    assert ls.SplitCost("load", 64, ("L1D",), 0.9) in icx
    child = tmp_path / "child.yml"
    child.write_text(f"extends: {ROOT / 'kerncraft/incore/databases/ICX.yml'}\narch: CHILD\n")
    assert load_database(str(child)).line_split == icx


def test_malformed_table_is_a_located_error(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text(f"extends: {ROOT / 'kerncraft/incore/databases/ICX.yml'}\narch: BAD\n"
                   "line_split:\n  load:\n    ymm: {ports: ['9X'], cycles: 1}\n")
    with pytest.raises(KerncraftError, match=r"bad.yml: line_split.load.ymm.ports"):
        load_database(str(bad))


# ------------------------------------------------------------------ the pipeline



@needs_gcc
def test_prediction_adds_split_cycles_and_survives_the_cache(cache_dir):
    """ICX-VM (ICX model, gcc -O3 -march=cascadelake -mprefer-vector-width=512 here so the
    test does not depend on the CPU): 2d-5pt M=1000 with zmm vectors."""
    import kerncraft
    from kerncraft.models import incore_prediction as ip

    machine = kerncraft.load_machine("ICX-VM")
    kernel = bundled("2d-5pt", N=1000, M=1000)
    flags = "-O3 -march=cascadelake -mprefer-vector-width=512 -ffreestanding"
    cold = ip.predict_incore(kernel, machine, flags=flags, iterations_per_cacheline=8)
    a = cold.analysis
    assert a.vector_accesses == (ls.VectorAccess("load", 64, 4), ls.VectorAccess("store", 64, 1))
    # 4 loads x 3/4 x 0.9 + 1 store x 1 x 1.75 = 4.45 cy on L1D per assembly iteration
    assert cold.port_cycles["L1D"] == pytest.approx(a.port_totals["L1D"] + 4.45)
    assert cold.throughput == pytest.approx(max(cold.port_cycles.values()))
    assert cold.t_ol == pytest.approx(cold.throughput)       # one asm iteration = one CL
    ip._analyse_source.cache_clear()
    warm = ip.predict_incore(kernel, machine, flags=flags, iterations_per_cacheline=8)
    assert warm.to_dict() == cold.to_dict() and warm.t_ol == cold.t_ol
    # the same block at another size: rows of 130 doubles, loads split 7/8
    other = ip.predict_incore(bundled("2d-5pt", N=130, M=130), machine, flags=flags,
                              iterations_per_cacheline=8)
    assert other.port_cycles["L1D"] == pytest.approx(a.port_totals["L1D"]
                                                      + 4 * 0.875 * 0.9 + 1.75)
