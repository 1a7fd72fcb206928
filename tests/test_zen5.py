"""AMD Zen 5 port model: ZEN5.yml (extends ZEN2.yml, which extends ZEN.yml).

The expected values are derived by hand from the rules stated in the header of
``kerncraft/incore/databases/ZEN5.yml`` (and checked on the development host, an
EPYC "Turin", see ``benchmarks/incore_microbench/RESULTS-zen5.md``):

* four AGUs shared by loads and stores, two load-data paths (LD0/LD1) for loads of
  any width, two store-data pipes (STD0/STD1) of which a 512-bit store takes both;
* FP pipes at full 512-bit width: FMUL/FMA on FP0/FP1 (3 / 4 cy), FADD on FP2/FP3
  (2 cy), one uop per operation for xmm, ymm and zmm;
* 8 instructions per cycle through the front end, six ALUs.
"""
from __future__ import annotations

import pytest

from kerncraft.incore.analysis import analyze_text
from kerncraft.incore.database import load_database
from kerncraft.incore.throughput import balance_ports
from kerncraft.incore.x86.parser import parse_x86


@pytest.fixture(scope="module")
def zen5():
    return load_database("ZEN5")


def body(text: str, step: int = 64) -> str:
    """A loop around ``text`` with the usual gcc counter: add, cmp, jne (3 instructions)."""
    return (".L1:\n" + text + f"\n        addq ${step}, %rax\n        cmpq %rax, %rdx\n"
            "        jne .L1\n")


def cost(db, asm: str):
    ins = next(ln.instruction for ln in parse_x86(asm) if ln.instruction)
    c = db.lookup(ins)
    assert c is not None, asm
    return c


def tp(db, asm: str) -> float:
    return balance_ports([cost(db, asm).uops], db.ports).throughput


# ---------------------------------------------------------------- header

def test_header(zen5):
    assert zen5.arch == "ZEN5"
    assert set(zen5.load_ports) == set(zen5.store_address_ports) == {"AGU0", "AGU1", "AGU2", "AGU3"}
    assert zen5.load_data_ports == ("LD0", "LD1")
    assert zen5.store_data_ports == ("STD0", "STD1")
    assert {f"ALU{i}" for i in range(6)} <= set(zen5.ports)
    # L1DP, STC: the L1 data path of zmm accesses and the store commit (campaign limits);
    # GTH: the gather sequencer (one element per cycle, measured)
    assert set(zen5.divider_ports) == {"IDIV", "FDIV", "L1D", "L1DP", "STC", "GTH"}
    assert zen5.load_latency["gpr"] == 4
    assert all(zen5.load_latency[c] == 7 for c in ("scalar", "xmm", "ymm", "zmm"))
    assert zen5.rob_size == 448
    assert zen5.frontend_width == 8
    assert zen5.store_forward_latency == 9


def test_dbtools_compiles_zen5_with_both_targets():
    from kerncraft.dbtools.coverage import ARCH_EXTRA_FLAGS, ARCH_TARGETS
    compiler, flags = ARCH_TARGETS["ZEN5"]
    assert compiler == "gcc"
    assert "-march=x86-64-v4" in flags and "-mprefer-vector-width=512" in flags
    assert ("-march=x86-64-v3", "-mtune=znver3") in ARCH_EXTRA_FLAGS["ZEN5"]


# ---------------------------------------------------------------- FP pipes

@pytest.mark.parametrize("width", ["xmm", "ymm", "zmm"])
def test_fp_latencies_and_single_uops(zen5, width):
    r = f"%{width}1, %{width}2, %{width}3"
    add, mul, fma = (cost(zen5, f"{m} {r}") for m in ("vaddpd", "vmulpd", "vfmadd231pd"))
    assert (add.latency, mul.latency, fma.latency) == (2, 3, 4)
    assert len(add.uops) == len(mul.uops) == len(fma.uops) == 1
    assert add.uops[0].ports == frozenset({"FP2", "FP3"})
    assert mul.uops[0].ports == fma.uops[0].ports == frozenset({"FP0", "FP1"})
    # native 512-bit datapath: two per cycle at every width (double-pumped would be 1.0)
    assert tp(zen5, f"vfmadd231pd {r}") == pytest.approx(0.5)


def test_scalar_and_legacy_sse(zen5):
    assert cost(zen5, "vaddsd %xmm1, %xmm2, %xmm3").latency == 2
    assert cost(zen5, "addsd %xmm1, %xmm2").latency == 3        # measured: non-VEX form 3 cy
    assert cost(zen5, "vfmadd231sd %xmm1, %xmm2, %xmm3").latency == 4
    assert cost(zen5, "vmulsd %xmm1, %xmm2, %xmm3").latency == 3


def test_divider_is_512_bit_wide(zen5):
    for asm in ("vdivpd %xmm1, %xmm2, %xmm3", "vdivpd %ymm1, %ymm2, %ymm3",
                "vdivpd %zmm1, %zmm2, %zmm3", "vdivsd %xmm1, %xmm2, %xmm3"):
        assert cost(zen5, asm).latency == 13
        assert tp(zen5, asm) == pytest.approx(4.0)
    assert tp(zen5, "vsqrtpd %zmm1, %zmm2") == pytest.approx(7.5)


def test_zen2_memory_forms_are_overridden(zen5):
    """ZEN2.yml lists 256-bit memory-source forms explicitly (with Zen 2 latencies);
    ZEN5.yml must override them; the 512-bit ones are explicit (one load + one L1DP access)."""
    assert cost(zen5, "vaddpd (%rsi), %ymm1, %ymm2").latency == 2
    assert cost(zen5, "vfmadd231pd (%rsi), %ymm1, %ymm2").latency == 4
    z = cost(zen5, "vfmadd231pd (%rsi), %zmm1, %zmm2")
    assert z.latency == 4 and z.load_latency == 7
    assert sum(1 for u in z.uops if u.ports == frozenset({"LD0", "LD1"})) == 1


# ---------------------------------------------------------------- memory rule

def test_zmm_store_takes_both_store_pipes(zen5):
    assert tp(zen5, "vmovupd %zmm0, (%rdi)") == pytest.approx(1.0)
    # a ymm store: STD 1 / 2 = 0.5, but the store commit STC 0.75 cy (campaign limit)
    assert tp(zen5, "vmovupd %ymm0, (%rdi)") == pytest.approx(0.75)
    assert tp(zen5, "vmovupd (%rsi), %zmm0") == pytest.approx(0.5)


def test_copy_loop_zmm():
    """One zmm load + one zmm store per iteration (+ add, cmp, jne).

    By hand: the store needs STD0 *and* STD1 for one cycle (a store-data uop on one of
    them plus the extra 512-bit uop on the other) -> 2 pipe-cycles / 2 pipes = 1.0 cy;
    load 1 cycle on LD0/LD1 -> 0.5; AGUs 2 / 4 = 0.5; ALUs 3 / 6 = 0.5; front end 5 / 8.
    Throughput 1.0 cy per iteration (measured 1.00 cy on the host)."""
    r = analyze_text(body("        vmovupd (%rsi,%rax), %zmm0\n        vmovupd %zmm0, (%rdi,%rax)"),
                     "ZEN5")
    assert r.throughput == pytest.approx(1.0)
    assert r.port_totals["STD0"] == r.port_totals["STD1"] == pytest.approx(1.0)
    assert r.port_totals["LD0"] + r.port_totals["LD1"] == pytest.approx(1.0)
    assert r.frontend == pytest.approx(5 / 8)


def test_copy_loop_ymm_unrolled():
    """Two ymm loads + two ymm stores: LD 2/2 = 1, STD 2/2 = 1, AGU 4/4 = 1, store commit
    STC 2 x 0.75 = 1.5 -> 1.5 cy (microbenchmark 0.57 cy per element = 1.14; the campaign's
    compiled copy loops measure 0.74-0.79 cy per ymm store, see ZEN5.yml)."""
    text = "\n".join(["        vmovupd (%rsi,%rax), %ymm0", "        vmovupd 32(%rsi,%rax), %ymm1",
                      "        vmovupd %ymm0, (%rdi,%rax)", "        vmovupd %ymm1, 32(%rdi,%rax)"])
    assert analyze_text(body(text), "ZEN5").throughput == pytest.approx(1.5)


def test_triad_zmm():
    """a[i] = b[i] + s * c[i]: load, FMA with memory operand, store.

    By hand: loads 2 on LD0/LD1 -> 1.0; store 2 STD pipe-cycles -> 1.0; AGUs 3 / 4;
    FMA 1 on FP0/FP1 -> 0.5; front end 6 / 8; the L1 data path L1DP: 3 zmm accesses x
    0.5 cy = 1.5 -> throughput 1.5 cy (microbenchmark 1.10, campaign gcc -O3 1.75)."""
    text = ("        vmovupd (%rdx,%rax), %zmm0\n        vfmadd132pd (%rcx,%rax), %zmm1, %zmm0\n"
            "        vmovupd %zmm0, (%rdi,%rax)")
    r = analyze_text(body(text), "ZEN5")
    assert r.throughput == pytest.approx(1.5)
    assert r.port_totals["L1DP"] == pytest.approx(1.5)
    assert r.port_totals["FP0"] + r.port_totals["FP1"] == pytest.approx(1.0)


@pytest.mark.parametrize("loads,stores", [(1, 0), (2, 0), (4, 0), (0, 1), (0, 2), (2, 1), (2, 2),
                                          (4, 2), (1, 3)])
def test_memory_rule_ymm(loads, stores):
    """T = max(loads / 2 (LD0/LD1), stores / 2 (STD0/STD1), stores x 0.75 (store commit
    STC), (loads + stores) / 4 (AGUs), instructions / 8 (front end), 3 / 6 (loop counter
    on six ALUs))."""
    text = "\n".join([f"        vmovupd {32 * k}(%rsi,%rax), %ymm{k}" for k in range(loads)]
                     + [f"        vmovupd %ymm15, {32 * k}(%rdi,%rax)" for k in range(stores)])
    r = analyze_text(body(text), "ZEN5")
    expect = max(loads / 2, stores / 2, stores * 0.75, (loads + stores) / 4,
                 (loads + stores + 3) / 8, 0.5)
    assert r.throughput == pytest.approx(expect)


def test_add_loop_zmm_shares_the_l1_data_path():
    """c[i] = a[i] + b[i] at 512 bit (gcc -O3): vmovupd load, vaddpd with a memory
    operand, vmovupd store. By hand: three 64-byte accesses x 0.5 cy on L1DP = 1.5 cy;
    LD0/LD1 2 / 2 = 1.0; STD0+STD1 1.0; AGUs 3 / 4 -> 1.5 cy per iteration (campaign: 1.95).
    The memory-source vaddpd is an explicit form: composed it would miss its L1DP cycle."""
    text = ("        vmovupd (%rsi,%rax), %zmm0\n        vaddpd (%rdx,%rax), %zmm0, %zmm0\n"
            "        vmovupd %zmm0, (%rdi,%rax)")
    r = analyze_text(body(text), "ZEN5")
    assert r.port_totals["L1DP"] == pytest.approx(1.5)
    assert r.throughput == pytest.approx(1.5)


def test_add_loop_ymm_not_on_the_l1_data_path():
    """The same loop at 256 bit: no L1DP; LD0/LD1 2 / 2 = 1.0, STC 0.75 -> 1.0 cy
    (campaign: 1.04-1.13)."""
    text = ("        vmovupd (%rsi,%rax), %ymm0\n        vaddpd (%rdx,%rax), %ymm0, %ymm0\n"
            "        vmovupd %ymm0, (%rdi,%rax)")
    r = analyze_text(body(text), "ZEN5")
    assert r.port_totals.get("L1DP", 0.0) == pytest.approx(0.0)
    assert r.throughput == pytest.approx(1.0)



@pytest.mark.parametrize("width,elements,expect", [("ymm", 4, 3.9), ("zmm", 8, 7.2)])
def test_gather_one_element_per_cycle(width, elements, expect):
    """clang's syrk inner loop with vgatherqpd (the 4 blocks the campaign could not predict
    before item 4). By hand: the gather sequencer GTH 3.9 (ymm) / 7.2 (zmm) cy per gather
    (measured with one line: 3.94 / 7.22 cy); LD0/LD1 (elements + 1 FMA operand) / 2 =
    2.5 / 4.5; FMA 0.5; LCD 2 cy (vpaddq) -> GTH bounds: 3.9 / 7.2 cy
    (campaign 5.35-5.37 / 8.48-8.68)."""
    w = width
    text = "\n".join([
        f"        vpsllq $3, %{w}4, %{w}5", f"        vpaddq %{w}2, %{w}5, %{w}5",
        "        kxnorw %k0, %k0, %k1", "        vxorpd %xmm6, %xmm6, %xmm6",
        f"        vgatherqpd (%r15,%{w}5,8), %{w}6{{%k1}}",
        f"        vfmadd213pd (%rcx,%rax), %{w}3, %{w}6", f"        vmovupd %{w}6, (%rcx,%rax)",
        f"        vpaddq %{w}4, %{w}8, %{w}4"])
    r = analyze_text(body(text), "ZEN5")
    assert r.port_totals["GTH"] == pytest.approx(expect)
    assert r.port_totals["LD0"] + r.port_totals["LD1"] == pytest.approx(elements + 1)
    assert r.throughput == pytest.approx(expect)


def test_zmm_load_split_costs_a_load_path_cycle():
    """A 3-instruction zmm loop whose first load is 8 B off the line (a stencil's a[i+1])
    and advances 64 B: that load crosses a 64-B line in every iteration (registers assumed
    64-B aligned). By hand: LD0 + LD1 2 loads -> 2.0 cy, + 1 for the split load (ZEN5
    line_split zmm: +1 cy on LD0/LD1) -> 3.0; the bound stays the L1 data path, 3 x 0.5 =
    1.5 cy, with the split (LD 1.5 per port) as without."""
    text = ("        vmovupd 8(%rsi,%rax), %zmm0\n        vaddpd (%rsi,%rax), %zmm0, %zmm0\n"
            "        vmovupd %zmm0, (%rdi,%rax)")
    aligned = analyze_text(body(text), "ZEN5")
    split = analyze_text(body(text), "ZEN5", split_alignment=64)
    assert aligned.port_totals["LD0"] + aligned.port_totals["LD1"] == pytest.approx(2.0)
    assert split.port_totals["LD0"] + split.port_totals["LD1"] == pytest.approx(3.0)
    assert aligned.throughput == split.throughput == pytest.approx(1.5)


def test_unrolled_copy_store_commit():
    """8 xmm loads + 8 xmm stores (clang's unrolled copy): STD 8 / 2 = 4.0, LD 8 / 2 = 4.0,
    AGUs 16 / 4 = 4.0, STC 8 x 0.75 = 6.0 -> 6.0 cy (campaign: 5.9-6.3)."""
    text = "\n".join([f"        vmovups {16 * k}(%rsi,%rax), %xmm{k}" for k in range(8)]
                     + [f"        vmovups %xmm{k}, {16 * k}(%rdi,%rax)" for k in range(8)])
    r = analyze_text(body(text), "ZEN5")
    assert r.port_totals["STC"] == pytest.approx(6.0)
    assert r.throughput == pytest.approx(6.0)


def test_gpr_store_and_broadcast_limits(zen5):
    """A GPR store takes STC 0.75 cy; an 8-byte broadcast into zmm is not a 64-byte
    access (no L1DP), a 64-byte vmovddup load is (0.5 cy)."""
    assert tp(zen5, "movq %rax, (%rdi)") == pytest.approx(0.75)
    ports = {p for u in cost(zen5, "vbroadcastsd (%rsi), %zmm0").uops for p in u.ports}
    assert "L1DP" not in ports
    assert sum(u.cycles for u in cost(zen5, "vmovddup (%rsi), %zmm0").uops
               if u.ports == frozenset({"L1DP"})) == pytest.approx(0.5)


# ---------------------------------------------------------------- dependencies

def test_fadd_reduction_lcd_is_fadd_latency():
    """sum += a[i] with a zmm accumulator: the loop-carried chain is one vaddpd (the
    load is off the chain) -> LCD 2 cy, the prediction of the loop (throughput 0.5)."""
    r = analyze_text(body("        vaddpd (%rsi,%rax), %zmm0, %zmm0"), "ZEN5")
    assert r.lcd == pytest.approx(2.0)
    assert r.throughput == pytest.approx(0.5)
    assert r.prediction == pytest.approx(2.0)


def test_fma_reduction_lcd():
    r = analyze_text(body("        vfmadd231pd (%rsi,%rax), %zmm1, %zmm0"), "ZEN5")
    assert r.lcd == pytest.approx(4.0)


def test_accumulator_through_memory():
    """-O1 style: the sum lives on the stack. vaddsd to the store 3 cy (a consumer
    outside the FADD group) + store-to-load forwarding 9 cy = 12 cy per iteration
    (measured 12.0 cy on the host); a plain vmovsd store -> load chain is the 9 cy
    alone (measured 9.0 cy)."""
    r = analyze_text(body("        vaddsd 8(%rsp), %xmm1, %xmm0\n        vmovsd %xmm0, 8(%rsp)", 8),
                     "ZEN5")
    assert r.lcd == pytest.approx(12.0)
    r = analyze_text(body("        vmovsd %xmm0, 8(%rsp)\n        vmovsd 8(%rsp), %xmm0", 8), "ZEN5")
    assert r.lcd == pytest.approx(9.0)


# Zen 5's FADD result reaches another FADD after 2 cy, every other consumer after 3 cy
# (benchmarks/incore_microbench/zen5_forwarding.py; measured values in the comments).
_ADD, _MUL = "        vaddsd %xmm14, %xmm0, %xmm0", "        vmulsd %xmm14, %xmm0, %xmm0"


@pytest.mark.parametrize("chain, lcd", [
    ([_ADD, _ADD], 4.0),                       # 2 + 2                      (measured 3.86-4.05)
    ([_ADD, _MUL], 6.0),                       # add->mul 3 + mul->add 3    (5.97-6.22)
    ([_ADD, _ADD, _ADD, _MUL], 10.0),          # 2 + 2 + 3 + 3              (9.99-10.42)
    ([_ADD, "        vandpd %xmm14, %xmm0, %xmm0"], 5.0),   # 3 + logic 2     (5.02-5.08)
    ([_ADD, "        vmaxsd %xmm14, %xmm0, %xmm0"], 5.0),   # FMAX not FADD   (5.07-5.23)
    (["        vfmadd231sd %xmm14, %xmm15, %xmm0", _ADD], 7.0),  # 4 + 3     (6.96)
])
def test_fadd_forwarding_group(chain, lcd):
    r = analyze_text(body("\n".join(chain), 8), "ZEN5")
    assert r.lcd == pytest.approx(lcd)


def test_eliminated_move_passes_the_fadd_on():
    """vmovapd zmm,zmm is eliminated at rename: FADD -> move -> FADD is 2 cy (measured
    2.06), FADD -> move -> FMUL 3 cy + FMUL -> FADD 3 cy = 6 (measured 6.19)."""
    add, move = "        vaddpd %zmm14, %zmm0, %zmm1", "        vmovapd %zmm1, %zmm2"
    r = analyze_text(body(f"{add}\n        vmovapd %zmm1, %zmm0", 8), "ZEN5")
    assert r.lcd == pytest.approx(2.0)
    r = analyze_text(body(f"{add}\n{move}\n        vmulpd %zmm14, %zmm2, %zmm0", 8), "ZEN5")
    assert r.lcd == pytest.approx(6.0)


def test_kahan_chain():
    """gcc's kahan-dot loop: fmsub 4 -> add 2 -> sub 2 -> sub 3 (to the fmsub) = 11 cy
    (measured 11.1-11.4 cy per iteration; 10 cy without the forwarding group)."""
    text = "\n".join(["        vmovsd (%rax), %xmm1",
                      "        vfmsub231sd (%rdx), %xmm1, %xmm2",
                      "        vaddsd %xmm2, %xmm0, %xmm3",
                      "        vsubsd %xmm0, %xmm3, %xmm0",
                      "        vsubsd %xmm2, %xmm0, %xmm2"])
    r = analyze_text(body(text, 8), "ZEN5")
    assert r.lcd == pytest.approx(11.0)


def test_forwarding_group_needs_both_fields(tmp_path):
    from kerncraft.errors import KerncraftError
    db = tmp_path / "x.yml"
    db.write_text("arch: X\nextends: ZEN5\ninstruction_groups:\n- source: t\n  forms:\n"
                  "    'vaddsd xmm,xmm,xmm': {uops: [[FP2]], lat: 2, bypass: fadd}\n")
    with pytest.raises(KerncraftError, match="lat_other"):
        load_database(str(db))


def test_two_fma_two_fadd_per_cycle():
    """Four independent 512-bit operations, 2 FMA (FP0/FP1) + 2 FADD (FP2/FP3): 1.0 cy
    (measured 1.00 cy per group); the FMA accumulators make the LCD 4."""
    text = "\n".join(["        vfmadd231pd %zmm1, %zmm2, %zmm3", "        vfmadd231pd %zmm1, %zmm2, %zmm4",
                      "        vaddpd %zmm1, %zmm2, %zmm5", "        vaddpd %zmm1, %zmm2, %zmm6"])
    r = analyze_text(body(text), "ZEN5")
    assert r.throughput == pytest.approx(1.0)
    assert all(r.port_totals[p] == pytest.approx(1.0) for p in ("FP0", "FP1", "FP2", "FP3"))


# ---------------------------------------------------------------- line splits, coverage

def test_line_split_costs(zen5):
    costs = {(c.kind, c.vector_bytes): c for c in zen5.line_split}
    for width in (16, 32, 64):
        assert costs[("load", width)].ports == ("LD0", "LD1")
        assert costs[("load", width)].cycles == pytest.approx(1.0)
        assert costs[("store", width)].ports == ("L1D",)
    assert costs[("store", 32)].cycles == pytest.approx(1.86)
    assert costs[("store", 64)].cycles == pytest.approx(1.67)


def test_db_check_passes():
    """`kerncraft-incore --db-check ZEN5`: no structural problems and no unknown forms in
    the bundled kernels, compiled -O1..-Ofast for x86-64-v4 (512-bit) and x86-64-v3."""
    import shutil
    from kerncraft.dbtools.coverage import check_database
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    check = check_database("ZEN5")
    assert not check.failed, (check.unknown, check.missing_header, check.missing_uops)
    assert check.compiled > 0
    assert not check.unknown
