"""Layer-condition predictor: hand-counted traffic on Cascade Lake (CSX).

Conventions used in every expectation below (see docs/layer-conditions.md):

* Numbers are cache lines per unit of work (UoW) = 8 iterations of doubles.
* A stream that misses costs 1 line per UoW; a store miss at a write-allocate
  level (L1, L2 of CSX) is also 1 loaded line, and the dirty line is written
  back once (1 store/eviction).
* CSX hierarchy: L1 loads from L2 and writes dirty lines back to L2. L2 has an
  empty ``load_from`` and ``victims_to: L3``: its misses are served by L3 only
  when L3 (an exclusive victim cache) still holds the line, else straight from
  memory, and *every* line L2 replaces - clean or dirty - goes to L3 (so L2
  stores = L2 loads in steady state). L3 is never filled from below
  (loads 0); it writes dirty lines to memory (stores) and its hits/misses are
  L2's look-ups.
* Usable capacity (fill factor 1/2): L1 16 KiB, L2 512 KiB, L3 with one core
  0.5 * (14 MiB + 1 MiB L2) = 7.5 MiB.
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
import sympy

import kerncraft
from kerncraft.cache.layer_conditions import lc_analysis, predict_traffic_lc
from kerncraft.cache.lc_hierarchy import DEFAULT_FILL_FACTOR, WHOLE_SWEEP_FILL, level_capacities
from kerncraft.cache.lc_streams import analyze_streams, decompose
from kerncraft.cache.traffic import transfer_volumes
from kerncraft.errors import DefineError, KerncraftError
from kerncraft.kernel.model import Access, Array, Constant, KernelModel, Loop
from support.lc_helpers import KERNELS, bundled, src, traffic

@pytest.fixture(scope="module")
def csx():
    return kerncraft.load_machine("CSX")


def flows(result):
    """{level: (loads, stores, misses, evictions)} rounded for exact comparison."""
    return {lv.level: tuple(round(x, 6) for x in (lv.loads, lv.stores, lv.misses, lv.evictions))
            for lv in result.levels}


def sources(result, level):
    return {k: round(v, 6) for k, v in result.level(level).load_sources}


# --- streaming kernels (no reuse except the whole-sweep condition) ---------------
BIG = 10 ** 7   # 160+ MB per kernel: far beyond every cache


def test_copy_streams_through_victim_l3(csx):
    # L1: b loaded (1) + a write-allocated (1); a written back (1).
    # L2: both lines come from MEM (L3 holds nothing reusable), both leave to L3
    #     as victims (2 stores); L3 writes the dirty a line to memory (1).
    r = traffic(bundled("copy"), csx, N=BIG)
    assert r.unit_of_work_iterations == 8
    assert flows(r) == {"L1": (2, 1, 2, 1), "L2": (2, 2, 2, 2), "L3": (0, 1, 2, 1)}
    assert sources(r, "L2") == {"MEM": 2}
    assert dict(r.level("L2").store_targets) == {"L3": 2}
    assert r.level("L3").hits == 0


def test_daxpy_counts_read_and_write_of_a_once(csx):
    # a[i] read and written at the same element: one line loaded, one written back; + b.
    r = traffic(bundled("daxpy"), csx, N=BIG)
    assert flows(r) == {"L1": (2, 1, 2, 1), "L2": (2, 2, 2, 2), "L3": (0, 1, 2, 1)}


def test_triad_and_striad(csx):
    # triad: b, c loaded + a write-allocated = 3 loads, 1 write-back.
    assert flows(traffic(bundled("triad"), csx, N=BIG)) == {
        "L1": (3, 1, 3, 1), "L2": (3, 3, 3, 3), "L3": (0, 1, 3, 1)}
    # striad: b, c, d + write-allocate of a.
    assert flows(traffic(bundled("striad"), csx, N=BIG)) == {
        "L1": (4, 1, 4, 1), "L2": (4, 4, 4, 4), "L3": (0, 1, 4, 1)}


def test_sum_reduction_ignores_the_scalar(csx):
    # s lives in a register; a is read once. L2's clean victims still go to L3.
    r = traffic(bundled("sum_reduction"), csx, N=BIG)
    assert flows(r) == {"L1": (1, 0, 1, 0), "L2": (1, 1, 1, 1), "L3": (0, 0, 1, 0)}
    assert flows(traffic(bundled("scalar_product"), csx, N=BIG))["L1"] == (2, 0, 2, 0)


def test_update_in_place(csx):
    r = traffic(bundled("update"), csx, N=BIG)
    assert flows(r) == {"L1": (1, 1, 1, 1), "L2": (1, 1, 1, 1), "L3": (0, 1, 1, 1)}


def test_small_arrays_stay_in_cache_when_the_kernel_is_repeated(csx):
    # copy with N=500: 8 kB in total <= 16 kB usable L1 -> nothing below L1.
    r = traffic(bundled("copy"), csx, N=500)
    assert flows(r)["L1"] == (0, 0, 0, 0)
    # N=20000: 320 kB fits L2 (512 kB usable) but not L1: L1 traffic as streaming,
    # L2 keeps everything (no misses, nothing evicted to L3 or memory).
    r = traffic(bundled("copy"), csx, N=20000)
    assert flows(r) == {"L1": (2, 1, 2, 1), "L2": (0, 0, 0, 0), "L3": (0, 0, 0, 0)}
    # ... and without the repetition assumption it streams.
    r = lc_analysis(bundled("copy"), csx, repeated=False).evaluate({"N": 500})
    assert flows(r)["L1"] == (2, 1, 2, 1)


def test_whole_working_set_may_fill_two_thirds(csx):
    """The whole-sweep condition of a repeated kernel uses WHOLE_SWEEP_FILL = 2/3 of a
    level (32 kB L1 of CSX: 21845.3 B), the reuse windows keep 1/2 (16384 B). triad touches
    3 x 8 B per iteration: N=800 is 19200 B (fits 2/3, not 1/2: stays in L1), N=910 is
    21840 B (still fits), N=911 is 21864 B (does not: streams from L2, 3 loads incl. the
    write-allocate + 1 store per cache line)."""
    assert WHOLE_SWEEP_FILL == pytest.approx(2 / 3)
    caps = {c.name: c for c in level_capacities(csx)}
    assert caps["L1"].sweep_usable == pytest.approx(32768 * 2 / 3)
    assert caps["L3"].sweep_usable == pytest.approx((14680064 + 1048576) * 2 / 3)
    assert flows(traffic(bundled("triad"), csx, N=800))["L1"] == (0, 0, 0, 0)
    assert flows(traffic(bundled("triad"), csx, N=910))["L1"] == (0, 0, 0, 0)
    assert flows(traffic(bundled("triad"), csx, N=911))["L1"] == (3, 1, 3, 1)
    notes = lc_analysis(bundled("triad"), csx).evaluate({"N": 800}).notes
    assert any("L1: layer condition 1 of 1 holds (reuse window whole sweep" in n
               and "footprint 18.75 kB <= 21.33 kB" in n for n in notes), notes
    # with a fill factor above 2/3 the fill factor wins
    full = {c.name: c for c in level_capacities(csx, fill=1.0)}
    assert full["L1"].sweep_usable == 32768


def test_whole_working_set_fill_from_the_machine_file(tmp_path):
    """A machine file may give the measured share per level ('whole working set fill').
    CSX with 0.9 on L1: 0.9 x 32768 B = 29491.2 B; triad at N=1200 touches 3 x 8 B x 1200
    = 28800 B (fits: L1), N=1300 31200 B (does not: 3 loads + 1 store per CL from L2).
    With the default 2/3 (21845.3 B) N=1200 streams from L2."""
    text = (KERNELS.parent / "machine-files" / "CSX.yml").read_text()
    text = text.replace("  - level: L1\n", "  - level: L1\n    whole working set fill: 0.9\n", 1)
    path = tmp_path / "csx-fill.yml"
    path.write_text(text)
    machine = kerncraft.load_machine(str(path))
    caps = {c.name: c for c in level_capacities(machine)}
    assert caps["L1"].sweep_usable == pytest.approx(0.9 * 32768)
    assert caps["L2"].sweep_usable == pytest.approx(2 / 3 * 1048576)   # default kept
    assert flows(traffic(bundled("triad"), machine, N=1200))["L1"] == (0, 0, 0, 0)
    assert flows(traffic(bundled("triad"), machine, N=1300))["L1"] == (3, 1, 3, 1)
    assert flows(traffic(bundled("triad"), kerncraft.load_machine("CSX"),
                         N=1200))["L1"] == (3, 1, 3, 1)
    path.write_text(text.replace("whole working set fill: 0.9", "whole working set fill: 1.5"))
    with pytest.raises(kerncraft.KerncraftError, match=r"whole working set fill.*\(0, 1\]"):
        kerncraft.load_machine(str(path))


# --- 2D 5-point stencil in every regime ---------------------------------------------
def test_2d5pt_symbolic_conditions(csx):
    an = lc_analysis(bundled("2d-5pt"), csx)
    l1 = an.conditions["L1"]
    assert [c.window for c in l1] == ["-", "i+2", "j+1 i-1", "whole sweep"]
    # Condition 2 is the classic "three rows of a plus one row of b":
    # a: lead window (N-3) + gaps (N-3) + 2 + (N-3) = 3N-7 elements, b: N-3 -> 8*(4N-10).
    assert str(l1[2].inequality) == "32*N - 80 <= 16384"
    assert l1[2].threshold == sympy.Symbol("N", positive=True, integer=True) - 3
    assert set(l1[2].hits) == {"a[j][i-1]", "a[j][i+1]", "a[j-1][i]"}
    assert l1[2].miss_accesses == ("a[j+1][i]", "b[j][i]")
    # L1 misses per UoW: condition 0: 4 a streams + b write-allocate; 1: 4; 2: 2; 3: 0.
    assert [c.misses for c in l1] == [5, 4, 2, 0]
    assert str(an.conditions["L2"][2].inequality) == "32*N - 80 <= 524288"


@pytest.mark.parametrize("n, expected", [
    # 3 rows fit L1 (32N-80 = 9520 <= 16384): one a stream + b (WA + write-back).
    (300, {"L1": (2, 1, 2, 1), "L2": (2, 2, 2, 2), "L3": (0, 1, 2, 1)}),
    # 3 rows fit L2 only (63920 B): L1 sees the three leading a streams + b.
    (2000, {"L1": (4, 1, 4, 1), "L2": (2, 2, 2, 2), "L3": (0, 1, 2, 1)}),
    # 3 rows fit the L3 victim cache only (639920 B > 512 kB): L2 misses 4 lines,
    # two of them are L3 hits, two come from memory.
    (20000, {"L1": (4, 1, 4, 1), "L2": (4, 4, 4, 4), "L3": (0, 1, 2, 1)}),
    # nothing fits (9.6 MB > 7.5 MB): four streams from memory.
    (300000, {"L1": (4, 1, 4, 1), "L2": (4, 4, 4, 4), "L3": (0, 1, 4, 1)}),
])
def test_2d5pt_regimes(csx, n, expected):
    r = traffic(bundled("2d-5pt"), csx, N=n, M=max(2000, 10 ** 8 // n))
    assert flows(r) == expected


def test_victim_l3_hits_and_link_volumes(csx):
    r = traffic(bundled("2d-5pt"), csx, N=20000, M=5000)
    assert sources(r, "L2") == {"L3": 2, "MEM": 2}
    assert r.level("L3").hits == 2
    links = {(t.upper, t.lower): (round(t.loads, 6), round(t.stores, 6))
             for t in transfer_volumes(r)}
    # L2<->L3: 2 L3 hits up, 4 victims down; L3<->MEM: 2 loads up, 1 dirty line down.
    assert links == {("L1", "L2"): (4, 1), ("L2", "L3"): (2, 4), ("L3", "MEM"): (2, 1)}


# --- 3D 7-point stencil, several free constants -------------------------------------
@pytest.mark.parametrize("binds, expected", [
    # j-layer (48N-128 B) fits L1, k-layer (~32MN B) fits L2: a from 3 streams
    # at L1 (a[k+1], a[k][j+1], a[k-1]) + b; at L2 one a stream + b.
    ({"N": 100, "M": 100, "L": 100},
     {"L1": (4, 1, 4, 1), "L2": (2, 2, 2, 2), "L3": (0, 1, 2, 1)}),
    # N=M=1000: j-layer only in L2, k-layer (32 MB) nowhere -> 5 a streams + b in L1.
    ({"N": 1000, "M": 1000, "L": 100},
     {"L1": (6, 1, 6, 1), "L2": (4, 4, 4, 4), "L3": (0, 1, 4, 1)}),
    # N=M=400: k-layer 5.06 MB fits the 7.5 MB L3 only: 2 of L2's 4 lines hit L3.
    ({"N": 400, "M": 400, "L": 400},
     {"L1": (6, 1, 6, 1), "L2": (4, 4, 4, 4), "L3": (0, 1, 2, 1)}),
])
def test_3d7pt_regimes(csx, binds, expected):
    assert flows(traffic(bundled("3d-7pt"), csx, **binds)) == expected


def test_3d7pt_constants_enter_separately(csx):
    an = lc_analysis(bundled("3d-7pt"), csx)
    assert an.constant_names == ("L", "M", "N")
    assert str(an.conditions["L1"][2].inequality) == "48*N - 128 <= 16384"
    assert str(an.conditions["L1"][3].inequality) == \
        "32*M*N - 64*M - 80*N + 160 <= 16384"
    # The j-layer depends on N only: long rows (N) break it in L1, many rows (M) do not.
    wide = an.evaluate_point({"N": 2000, "M": 100, "L": 50})
    tall = an.evaluate_point({"N": 100, "M": 2000, "L": 50})
    assert wide.holding["L1"] == 1 and tall.holding["L1"] == 2
    assert wide.traffic.level("L1").loads == 6 and tall.traffic.level("L1").loads == 4


# --- outer-loop reuse and strides ---------------------------------------------------
def test_matvec_trans_reuses_y_across_the_outer_loop(csx):
    an = lc_analysis(bundled("matvec_trans"), csx)
    cond = an.conditions["L1"][1]
    assert cond.window == "j+1"
    # one j iteration touches a row of A and all of y (N doubles each) + x's line
    assert str(cond.inequality) == "16*N + 64 <= 16384"
    assert "y[i]" in cond.hits
    # N=500 fits L1: only A streams (1 line/UoW) + x[j] (1/8 line per row of N/8 UoW).
    r = an.evaluate({"N": 500, "M": 5000})
    assert r.level("L1").loads == pytest.approx(1 + 1 / 500)
    assert r.level("L1").stores == 0
    # N=10**5 (1.6 MB): y is loaded and written back every row by L1 and L2, but the
    # victim L3 keeps it: L2 gets y from L3 (1 line) and A from memory (1 line).
    r = an.evaluate({"N": 10 ** 5, "M": 1000})
    assert r.level("L1").loads == pytest.approx(2 + 1e-5)
    assert r.level("L1").stores == 1
    assert sources(r, "L2") == {"L3": 1, "MEM": pytest.approx(1 + 1e-5)}
    assert r.level("L3").stores == 0
    # N=10**6 (16 MB) fits nowhere: y also goes to memory and back.
    r = an.evaluate({"N": 10 ** 6, "M": 100})
    assert r.level("L3").stores == 1 and r.level("L3").misses == pytest.approx(2 + 1e-6)


MATVEC_STRIDED = """
double a[N][M], x[M], y[N];
for (int j = 0; j < M; ++j)
    for (int i = 0; i < N; ++i)
        y[i] = y[i] + a[i][j] * x[j];
"""


def test_matvec_with_stride_m_inner_access(csx):
    kern = src(MATVEC_STRIDED)
    streams = analyze_streams(kern, 64)
    a = next(g for g in streams.groups if g.array == "a")
    assert a.sparse and str(a.stride_bytes) == "8*M"
    an = lc_analysis(kern, csx)
    # Without reuse every iteration of a[i][j] touches a new line: 8 lines/UoW,
    # + y (1) + x's line once per row (1/N per UoW). y is written back (1).
    r = an.evaluate({"N": 1000, "M": 200})
    assert r.level("L1").loads == pytest.approx(9 + 1 / 1000)
    assert r.level("L1").stores == pytest.approx(1)
    # In L2 the N lines of a column survive one j iteration (70 kB <= 512 kB):
    # only 1 in 8 lines is new (the column moves by 8 B), y stays resident.
    assert r.level("L2").loads == pytest.approx(1 + 1 / 1000)
    cond = an.conditions["L2"][1]
    assert str(cond.inequality) == "N*Min(64, 8*M) + 8*N + 64 <= 524288"
    assert "a[i][j] (1/8 of lines new)" in cond.hits
    # a column stride of 200 doubles = 25 lines: gcd(25, 1024) = 1 but with M=400
    # (50 lines) only 32 of the 64 L1 sets are used -> note.
    assert not any("visits only" in n for n in r.notes)
    r = an.evaluate({"N": 1000, "M": 400})
    assert any(n.startswith("L1: associativity - a strides 50 lines per iteration and "
                            "visits only 32 of 64 sets") for n in r.notes)


def test_strided_1d_access_never_assumes_unit_stride(csx):
    # a[2*i]: 16 B per iteration -> 2 lines per UoW; a[8*i]: a new line every iteration.
    for stride, lines in ((2, 2), (8, 8), (16, 8)):
        kern = src(f"double a[{stride}*N], b[N];\nfor (int i=0; i<N; ++i) b[i] = a[{stride}*i];\n")
        r = traffic(kern, csx, N=BIG)
        assert r.level("L1").loads == lines + 1      # + write-allocate of b
        assert r.level("L1").stores == 1


def test_negative_step_finds_the_leading_reference(csx):
    # Walking down, a[i] touches element i first; a[i+1] re-reads what a[i] touched
    # one iteration earlier: one line loaded (for the write-allocate), one written back.
    kern = src("double a[N];\nfor (int i=N-2; i>=0; --i) a[i] = a[i+1];\n")
    r = traffic(kern, csx, N=BIG)
    assert flows(r)["L1"] == (1, 1, 1, 1)


def test_mixed_float_double(csx):
    # UoW = 8 iterations (largest element: double). The float stream a moves 32 B per UoW
    # = 1/2 line; b (double) is written: 1 line write-allocated and written back.
    kern = src("float a[N]; double b[N];\nfor (int i=0; i<N; ++i) b[i] = a[i];\n")
    r = traffic(kern, csx, N=BIG)
    assert r.unit_of_work_iterations == 8
    assert flows(r)["L1"] == (1.5, 1, 1.5, 1)


def test_mixed_sizes_in_a_stencil_condition(csx):
    # float a with 3 rows kept, double b written: 4*(3N-7) + 8*(N-3) bytes.
    kern = src("float a[M][N]; double b[M][N];\n"
               "for (int j=1; j<M-1; ++j) for (int i=1; i<N-1; ++i)\n"
               "  b[j][i] = a[j-1][i] + a[j+1][i] + a[j][i-1] + a[j][i+1];\n")
    an = lc_analysis(kern, csx)
    assert str(an.conditions["L1"][2].inequality) == "20*N - 52 <= 16384"
    r = an.evaluate({"N": 500, "M": 20000})
    assert r.level("L1").loads == pytest.approx(0.5 + 1)


LINEAR_2D = """
double a[M*N], b[M*N]; double s;
for (int j = 1; j < M - 1; ++j)
    for (int i = 1; i < N - 1; ++i)
        b[j*N+i] = (a[j*N+i-1] + a[j*N+i+1] + a[(j-1)*N+i] + a[(j+1)*N+i]) * s;
"""


def test_linearized_index_equals_2d_form(csx):
    lin = lc_analysis(src(LINEAR_2D), csx)
    two = lc_analysis(bundled("2d-5pt"), csx)
    for level in ("L1", "L2", "L3"):
        assert [str(c.inequality) for c in lin.conditions[level]] == \
            [str(c.inequality) for c in two.conditions[level]]
    for n in (300, 2000, 20000, 300000):
        binds = {"N": n, "M": max(2000, 10 ** 8 // n)}
        assert flows(lin.evaluate(binds)) == flows(two.evaluate(binds))


def test_four_dimensional_array_with_offsets_in_every_dimension(csx):
    kern = src("double a[K][L][M][N], b[K][L][M][N];\n"
               "for (int w=1; w<K-1; ++w) for (int z=1; z<L-1; ++z)\n"
               "for (int y=1; y<M-1; ++y) for (int x=1; x<N-1; ++x)\n"
               "  b[w][z][y][x] = a[w-1][z][y][x] + a[w+1][z][y][x] + a[w][z-1][y][x]\n"
               "               + a[w][z+1][y][x] + a[w][z][y-1][x] + a[w][z][y+1][x]\n"
               "               + a[w][z][y][x-1] + a[w][z][y][x+1];\n")
    an = lc_analysis(kern, csx)
    assert [c.window for c in an.conditions["L1"]] == \
        ["-", "x+2", "y+1 x-1", "z+1 y-1", "w+1 z-1", "whole sweep"]
    assert str(an.conditions["L1"][2].inequality) == "64*N - 176 <= 16384"
    # N=M=L=K=50: the y-layer (3 kB) holds in L1, the z-layer (109 kB) in L2, the
    # w-layer (3.5 MB) in L3. L1 misses a[w+-1], a[z+-1], a[y+1] + b (WA) = 6;
    # L2 misses a[w+-1], a[z+1] + b = 4; the victim L3 keeps all of them but the
    # leading a[w+1] stream and b: 2 lines from memory.
    r = an.evaluate({"N": 50, "M": 50, "L": 50, "K": 50})
    assert flows(r) == {"L1": (6, 1, 6, 1), "L2": (4, 4, 4, 4), "L3": (0, 1, 2, 1)}


def test_decompose_uses_coefficient_magnitude_not_loop_order():
    N, M = sympy.symbols("N M", positive=True, integer=True)
    probe = {N: 1000, M: 1024}
    # loops (j, i) with a[i][j]: coefficients j -> 1, i -> M
    pos, rem = decompose(M + 1, (sympy.Integer(1), M), probe)
    assert pos == [1, 1] and rem == 0
    pos, rem = decompose(N - 1, (N, sympy.Integer(1)), probe)
    assert pos == [1, -1] and rem == 0
    pos, rem = decompose(sympy.Integer(1), (sympy.Integer(0), sympy.Integer(2)), probe)
    assert pos == [0, Fraction(1, 2)] and rem == 0


# --- hand-built model: non-affine index ----------------------------------------------
def test_irregular_access_is_a_line_per_iteration(csx):
    i = sympy.Symbol("i", integer=True)
    N = sympy.Symbol("N", positive=True, integer=True)
    arrays = {"a": Array("a", "double", 8, (N * N,)), "b": Array("b", "double", 8, (N,))}
    accesses = (Access("a", "read", (i * i,), i * i, sympy.Integer(0)),
                Access("b", "write", (i,), i, sympy.Integer(0)))
    kern = KernelModel(None, "", (Constant("N", N),), arrays,
                       (Loop("i", i, sympy.Integer(0), N, 1),), accesses, {}, {})
    an = lc_analysis(kern, csx, repeated=False)
    r = an.evaluate({"N": 10 ** 6})
    assert r.level("L1").loads == 8 + 1
    assert any("not affine" in n for n in r.notes)


# --- capacities, cores, fill factor ----------------------------------------------------
def test_capacities_fill_and_cores(csx):
    caps = {c.name: c for c in level_capacities(csx)}
    assert DEFAULT_FILL_FACTOR == 0.5
    assert caps["L1"].usable == 16384 and caps["L2"].usable == 524288
    assert caps["L3"].role == "victim-target" and caps["L2"].role == "victim-owner"
    assert caps["L3"].usable == 0.5 * (14680064 + 1048576)
    ten = {c.name: c for c in level_capacities(csx, cores=10)}
    assert ten["L3"].share == 14680064 / 10 and ten["L1"].usable == 16384
    full = {c.name: c for c in level_capacities(csx, fill={"L1": 1.0})}
    assert full["L1"].usable == 32768 and full["L2"].usable == 524288
    with pytest.raises(KerncraftError, match="fill factor"):
        level_capacities(csx, fill=1.5)
    with pytest.raises(KerncraftError, match="cores"):
        level_capacities(csx, cores=0)


def test_fill_factor_moves_the_threshold(csx):
    # 2d-5pt, N=700: 3 rows need 22320 B: fail with 1/2 of L1, hold with the full L1.
    kern = bundled("2d-5pt")
    assert lc_analysis(kern, csx).evaluate({"N": 700, "M": 10 ** 5}).level("L1").loads == 4
    assert lc_analysis(kern, csx, fill=1.0).evaluate(
        {"N": 700, "M": 10 ** 5}).level("L1").loads == 2


def test_more_cores_shrink_the_shared_l3(csx):
    # 3d-7pt at N=M=400: the 5 MB k-layer fits the whole L3 but not 1/10 of it.
    kern = bundled("3d-7pt")
    binds = {"N": 400, "M": 400, "L": 400}
    assert lc_analysis(kern, csx, cores=1).evaluate(binds).level("L3").misses == 2
    assert lc_analysis(kern, csx, cores=10).evaluate(binds).level("L3").misses == 4


# --- API behaviour ------------------------------------------------------------------------
def test_predict_traffic_lc_needs_a_bound_kernel(csx):
    kern = bundled("copy")
    assert flows(predict_traffic_lc(kern.bind({"N": BIG}), csx)) == \
        flows(traffic(kern, csx, N=BIG))
    with pytest.raises(DefineError, match="N"):
        predict_traffic_lc(kern, csx)
    with pytest.raises(DefineError, match="N"):
        lc_analysis(kern, csx).evaluate({})


def test_predict_traffic_lc_shares_one_analysis_per_source(csx):
    from kerncraft.cache.layer_conditions import cached_lc_analysis

    kern = bundled("3d-7pt")
    a = cached_lc_analysis(kern.bind({"N": 10, "M": 10, "L": 10}), csx)
    b = cached_lc_analysis(kern.bind({"N": 20, "M": 30, "L": 40}), csx)
    assert a is b and a.constant_names == ("L", "M", "N")
    assert cached_lc_analysis(kern.bind({"N": 20, "M": 30, "L": 40}), csx, cores=2) is not a
    binds = {"N": 400, "M": 400, "L": 400}
    assert flows(predict_traffic_lc(kern.bind(binds), csx)) == flows(traffic(kern, csx, **binds))


def test_partly_bound_kernel(csx):
    kern = bundled("3d-7pt").bind({"L": 100}, partial=True)
    an = lc_analysis(kern, csx)
    assert an.constant_names == ("M", "N")
    assert flows(an.evaluate({"N": 100, "M": 100})) == \
        flows(traffic(bundled("3d-7pt"), csx, N=100, M=100, L=100))


def test_no_loops_is_an_error(csx):
    kern = dataclasses.replace(bundled("copy"), loops=())
    with pytest.raises(KerncraftError, match="loop"):
        lc_analysis(kern, csx)
