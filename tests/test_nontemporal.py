"""Non-temporal stores (issue 28 item 11): traffic counted by hand, ECM from the machine
file's figures, the pragma, the option, and detection in hand-written assembly."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

import kerncraft
from kerncraft.api import load_kernel
from kerncraft.cache.layer_conditions import predict_traffic_lc
from kerncraft.cache.sim_predictor import predict_traffic_sim
from kerncraft.cache.traffic import transfer_volumes
from kerncraft.compilation.nontemporal import StoreScan, scan_assembly
from kerncraft.errors import KerncraftError, KernelError
from kerncraft.models.ecm_data import compute_ecm_data
from kerncraft.models.nontemporal import nontemporal_choice
from kerncraft.options import AnalysisOptions

COPY = "double a[N], b[N];\n{pragma}for (int i = 0; i < N; ++i)\n    a[i] = b[i];\n"
BIG = {"N": 10 ** 7}       # 2 x 80 MB: no reuse in any cache of CSX (14 MB L3)


def _copy(pragma: str = ""):
    return load_kernel(COPY.format(pragma=pragma + "\n" if pragma else "")).bind(BIG)


@pytest.fixture(scope="module")
def csx():
    return kerncraft.load_machine("CSX")


def _levels(traffic):
    return [(lvl.level, round(lvl.loads, 2), round(lvl.stores, 2)) for lvl in traffic.levels]


def _links(traffic):
    return [(t.lower, round(t.loads, 2), round(t.stores, 2)) for t in transfer_volumes(traffic)]


# --- traffic of a copy, counted by hand ---------------------------------------------------
# Unit of work: 8 iterations = one 64 B line of a and one of b. CSX: L1 write-allocates and
# writes back to L2; L2 misses come from memory (load_from empty) and every line L2
# replaces goes to the victim L3; L3 writes dirty lines back to memory.
#
# Ordinary stores, per unit:
#   L1: loads b + the write-allocate of a = 2, stores a's dirty line = 1
#   L2: loads the same 2 lines (from MEM), replaces 2 lines -> L3 (b clean, a dirty) = 2
#   L3: loads 0 (filled by victims only), writes a's dirty line to MEM = 1
#   links: L1-L2 2 + 1 = 3 lines (192 B); L2-L3 0 + 2; L3-MEM 2 loads + 1 store (192 B)
# Non-temporal stores of a: a never enters a cache, no allocate, no write-back:
#   L1: loads b = 1, stores 0; L2: loads b = 1, replaces b -> L3 = 1; L3: 0 / 0
#   links: L1-L2 1 line (64 B); L2-L3 1 (b's victim); L3-MEM b loaded + a written = 2 (128 B)
ORDINARY_LEVELS = [("L1", 2.0, 1.0), ("L2", 2.0, 2.0), ("L3", 0.0, 1.0)]
ORDINARY_LINKS = [("L2", 2.0, 1.0), ("L3", 0.0, 2.0), ("MEM", 2.0, 1.0)]
STREAMED_LEVELS = [("L1", 1.0, 0.0), ("L2", 1.0, 1.0), ("L3", 0.0, 0.0)]
STREAMED_LINKS = [("L2", 1.0, 0.0), ("L3", 0.0, 1.0), ("MEM", 1.0, 1.0)]


@pytest.mark.parametrize("predict", [predict_traffic_lc, predict_traffic_sim])
def test_copy_traffic_by_hand(csx, predict):
    ordinary = predict(_copy(), csx)
    assert ordinary.nontemporal is None
    assert (_levels(ordinary), _links(ordinary)) == (ORDINARY_LEVELS, ORDINARY_LINKS)
    streamed = predict(_copy(), csx, nontemporal=("a",))
    assert (_levels(streamed), _links(streamed)) == (STREAMED_LEVELS, STREAMED_LINKS)
    assert streamed.nontemporal.arrays == ("a",)
    assert streamed.nontemporal.lines == pytest.approx(1.0, abs=0.01)   # 64 B per unit
    assert transfer_volumes(streamed)[-1].total_bytes == pytest.approx(128, abs=1)


def test_streamed_data_that_fits_still_goes_to_memory(csx):
    # N = 1000: a and b (8 kB each) stay in L1, so ordinary stores cause no traffic below
    # L1 at all; streamed stores still write a's line to memory once per unit
    small = load_kernel(COPY.format(pragma="")).bind({"N": 1000})
    for predict in (predict_traffic_lc, predict_traffic_sim):
        assert _links(predict(small, csx)) == [("L2", 0, 0), ("L3", 0, 0), ("MEM", 0, 0)]
        assert _links(predict(small, csx, nontemporal=("a",))) == \
            [("L2", 0, 0), ("L3", 0, 0), ("MEM", 0, 1)]


def test_two_rows_stored_per_iteration_write_each_line_twice(csx):
    # b[j][i] and b[j+1][i]: row j+1 is written at j (second store) and again at j+1
    # (first store), 1000 iterations apart: no write-combining buffer holds a line that
    # long, so each store is one line per unit -> 2 lines; a is read as usual (1 line)
    kernel = load_kernel("double a[M][N], b[M][N];\nfor (int j = 0; j < M - 1; ++j)\n"
                         "  for (int i = 0; i < N; ++i) {\n    b[j][i] = a[j][i];\n"
                         "    b[j+1][i] = a[j][i];\n  }\n").bind({"N": 1000, "M": 20000})
    for predict in (predict_traffic_lc, predict_traffic_sim):
        traffic = predict(kernel, csx, nontemporal=("b",))
        assert traffic.nontemporal.lines == pytest.approx(2.0, abs=0.01)
        assert _links(traffic)[-1] == ("MEM", 1.0, 2.0)


# --- ECM on CSX from the machine file's figures -------------------------------------------
# CSX.yml: L2 upstream 64 B/cy half-duplex, L3 16 B/cy full-duplex, clock 2.5 GHz; MEM
# saturated = the highest measurement on up to one NUMA domain (10 cores):
#   copy   36.54 GB/s (9 cores), nominal 16 B/it, moves 24 B/it with the write-allocate
#   update 53.44 GB/s (7 cores), nominal 16 B/it, moves 16 B/it (read, then written)
# Ordinary copy: T_L1L2 = 3 x 64 / 64 = 3; T_L2L3 = max(0, 2) x 64 / 16 = 8;
#   T_L3MEM = 192 B / (36.54e9 x 24/16 / 2.5e9 B/cy = 21.924 B/cy) = 8.757
# Streamed copy reads 1 and writes 1 line at memory, the balance of update:
#   T_L1L2 = 64 / 64 = 1; T_L2L3 = 64 / 16 = 4; T_L3MEM = 128 B / (53.44e9 / 2.5e9) = 5.988
ORDINARY_ECM = [3.0, 8.0, 192 / (36.54e9 * 24 / 16 / 2.5e9)]
STREAMED_ECM = [1.0, 4.0, 128 / (53.44e9 / 2.5e9)]


def test_ecm_data_follows_the_option_and_the_pragma(csx):
    def values(kernel, mode):
        result = compute_ecm_data(kernel, csx, AnalysisOptions(nontemporal_stores=mode))
        return list(result.values), result.links[-1].bandwidth_choice.kernel, result.traffic

    assert values(_copy(), "auto")[:2] == (pytest.approx(ORDINARY_ECM), "copy")
    got, bench, traffic = values(_copy(), "on")
    assert (got, bench) == (pytest.approx(STREAMED_ECM), "update")
    assert traffic.nontemporal.reason == "--nontemporal-stores on"
    got, bench, traffic = values(_copy("#pragma nontemporal a"), "auto")
    assert (got, bench) == (pytest.approx(STREAMED_ECM), "update")
    assert traffic.nontemporal.reason == "#pragma nontemporal"
    assert values(_copy("#pragma nontemporal a"), "off")[:2] == \
        (pytest.approx(ORDINARY_ECM), "copy")


def test_streamed_triad_takes_the_daxpy_bandwidth(csx):
    # a = b + s*c streamed: 2 lines read + 1 written at memory, the balance of daxpy
    # (a = a + s*b: 2 read, 1 written) -> T_L3MEM = 192 B / (daxpy 55.02 GB/s / 2.5 GHz)
    triad = load_kernel("double a[N], b[N], c[N], s;\n#pragma nontemporal\n"
                        "for (int i = 0; i < N; ++i)\n    a[i] = b[i] + s * c[i];\n").bind(BIG)
    result = compute_ecm_data(triad, csx)
    assert result.links[-1].bandwidth_choice.kernel == "daxpy"
    assert result.values[-1] == pytest.approx(192 / (55.02e9 / 2.5e9))


def test_ecm_follows_the_compiled_loop(csx, monkeypatch):
    # the compiler's loop (here hand-written) stores with vmovntpd: --nontemporal-stores
    # auto streams a, and the ECM contributions are the streamed ones above
    from kerncraft.compilation import compiler
    from kerncraft.models.ecm import compute_ecm

    monkeypatch.setattr(compiler, "compile_to_assembly",
                        lambda source, name, flags: SimpleNamespace(assembly=X86_LOOP,
                                                                    cache_path=None))
    options = AnalysisOptions(compiler="gcc", compiler_flags="-O3 -DKC_NONTEMPORAL_TEST")
    result = compute_ecm(_copy(), csx, options)
    assert [c.cycles for c in result.ecm.contributions] == pytest.approx(STREAMED_ECM)
    assert result.traffic.nontemporal.reason == "compiled loop stores with vmovntpd"
    assert "the loop stores non-temporally: 1 of 1 stores (vmovntpd)" in result.incore.notes
    # T_MEM = T_nOL + T_L1L2 + T_L2L3 + T_L3MEM (no level overlaps on CSX)
    assert result.ecm.memory_time == pytest.approx(
        max(result.ecm.t_ol, result.ecm.t_nol + sum(STREAMED_ECM)))
    off = compute_ecm(_copy(), csx, options.replace(nontemporal_stores="off"))
    assert [c.cycles for c in off.ecm.contributions] == pytest.approx(ORDINARY_ECM)


def test_report_names_the_streamed_arrays(csx):
    from kerncraft.report.text import format_ecm_data

    result = compute_ecm_data(_copy("#pragma nontemporal"), csx)
    text = format_ecm_data(result)
    assert "  non-temporal stores (#pragma nontemporal): a; 1 CL per unit of work written" \
        in text
    assert any(n.startswith("non-temporal stores") for n in result.traffic.to_dict()["notes"])
    assert "non-temporal" not in format_ecm_data(compute_ecm_data(_copy(), csx))


# --- the pragma and the option ------------------------------------------------------------

@pytest.mark.parametrize("pragma, marked", [
    ("#pragma nontemporal", {"a"}), ("#pragma nontemporal a", {"a"}),
    ("#pragma nontemporal(a)", {"a"}), ("#pragma vector nontemporal", {"a"}),
    ("#pragma vector nontemporal (a)", {"a"}), ("#pragma omp simd", set())])
def test_pragma_marks_arrays(pragma, marked):
    kernel = _copy(pragma)
    assert {n for n, arr in kernel.arrays.items() if arr.nontemporal} == marked


@pytest.mark.parametrize("pragma, message", [
    ("#pragma nontemporal b", "the innermost loop does not write 'b'"),
    ("#pragma nontemporal c", "'c' is not a declared array")])
def test_pragma_naming_a_wrong_array_is_an_error(pragma, message):
    with pytest.raises(KernelError, match=message) as info:
        load_kernel(COPY.format(pragma=pragma + "\n"))
    assert info.value.location.line == 2      # the pragma's line


def test_unknown_mode_is_refused():
    with pytest.raises(KerncraftError, match="choose auto, on or off"):
        AnalysisOptions(nontemporal_stores="always")


def test_auto_without_pragma_or_compiled_loop_streams_nothing():
    assert nontemporal_choice(_copy(), "auto") is None
    assert nontemporal_choice(_copy("#pragma nontemporal"), "off") is None
    assert nontemporal_choice(_copy(), "on").arrays == ("a",)


# --- detection in hand-written assembly ---------------------------------------------------

X86_LOOP = """\
kernel:
        xorl    %eax, %eax
.L3:
        vmovupd (%rsi,%rax), %ymm0
        vmovntpd %ymm0, (%rdi,%rax)
        addq    $32, %rax
        cmpq    %rax, %rdx
        jne     .L3
        sfence
        ret
"""

AARCH64_LOOP = """\
kernel:
        mov     x2, 0
.L3:
        add     x5, x1, x2
        ldp     q0, q1, [x5]
        add     x3, x0, x2
        stnp    q0, q1, [x3]
        add     x2, x2, 32
        cmp     x2, x4
        b.ne    .L3
        ret
"""


def test_detects_vmovntpd_in_the_selected_x86_block():
    from kerncraft.compilation.asm_block import select_block
    from kerncraft.compilation.nontemporal import scan_stores
    from kerncraft.incore.x86.parser import parse_x86

    selection = select_block(parse_x86(X86_LOOP), _copy())
    scan = scan_stores(selection.instructions, "x86")
    assert (scan.nontemporal, scan.stores, scan.mnemonics) == (1, 1, ("vmovntpd",))
    assert scan.all_nontemporal


def test_detects_stnp_in_the_selected_aarch64_block():
    from kerncraft.compilation.asm_block import select_block
    from kerncraft.compilation.nontemporal import scan_stores
    from kerncraft.incore.aarch64.parser import parse_aarch64

    selection = select_block(parse_aarch64(AARCH64_LOOP), _copy())
    assert scan_stores(selection.instructions, "aarch64") == StoreScan(1, 1, ("stnp",))


def test_loads_prefetches_and_spills_are_not_streamed_stores():
    # movntdqa is a non-temporal *load*, prefetchnta a prefetch; the spill to the stack
    # and the ordinary vmovupd store are stores, but not streamed ones
    scan = scan_assembly("vmovntdqa (%rsi), %ymm1\nprefetchnta 64(%rsi)\n"
                         "movq %rax, -8(%rsp)\nvmovupd %ymm1, (%rdi)\nmovntiq %rax, 8(%rdi)\n")
    assert scan == StoreScan(1, 2, ("movntiq",))
    assert not scan.all_nontemporal
    assert scan_assembly("stp x29, x30, [sp, #-16]!\nstr q0, [x0]\n") == StoreScan(0, 1, ())


def test_mixed_stores_stream_only_the_pragmas_arrays():
    # 1 of 2 stores streamed: which array is which is unknown, so auto keeps the pragma's
    # choice (here: none) and says why
    kernel = load_kernel("double a[N], b[N], c[N];\nfor (int i = 0; i < N; ++i) {\n"
                         "  a[i] = c[i];\n  b[i] = c[i];\n}\n").bind(BIG)
    incore = SimpleNamespace(analysis=SimpleNamespace(notes=(StoreScan(1, 2, ("vmovntpd",))
                                                             .note(),)))
    choice = nontemporal_choice(kernel, "auto", incore)
    assert choice.arrays == () and "mixes 1 non-temporal (vmovntpd)" in choice.notes[0]
    all_streamed = SimpleNamespace(analysis=SimpleNamespace(notes=(StoreScan(2, 2, (
        "vmovntpd",)).note(),)))
    assert nontemporal_choice(kernel, "auto", all_streamed).arrays == ("a", "b")


def test_roofline_follows_the_option(csx):
    # RooflineFLOP on CSX, 1 core, cy/CL. CSX.yml MEM, 1 core: copy 14.56 GB/s nominal
    # (16 B/it; it moves 24 B/it with the write-allocate: 21.84 GB/s of traffic), update
    # 24.27 GB/s (16 B/it, no write-allocate). Ordinary copy: 3 lines = 192 B per cache
    # line of work at memory -> 192 x 2.5e9 / 21.84e9 = 21.98 cy/CL. Streamed: 1 line read
    # + 1 written = 128 B, the balance of update -> 128 x 2.5e9 / 24.27e9 = 13.18 cy/CL;
    # below L1 only the loads of b remain: 64 B on L1-L2 and L2-L3 (192 and 128 before)
    from kerncraft.models.roofline import compute_roofline_flop

    def levels(mode):
        result = compute_roofline_flop(_copy(), csx, AnalysisOptions(
            nontemporal_stores=mode, unit="cy/CL"))
        return {lvl.level: lvl for lvl in result.levels}

    ordinary, streamed = levels("off"), levels("on")
    assert (ordinary["MEM"].bytes, ordinary["MEM"].benchmark_kernel) == (192, "copy")
    assert ordinary["MEM"].cycles == pytest.approx(192 * 2.5e9 / 21.84e9)
    assert (streamed["MEM"].bytes, streamed["MEM"].benchmark_kernel) == (128, "update")
    assert streamed["MEM"].cycles == pytest.approx(128 * 2.5e9 / 24.27e9)
    assert (ordinary["L2"].bytes, streamed["L2"].bytes) == (192, 64)
    assert (ordinary["L3"].bytes, streamed["L3"].bytes) == (128, 64)
