"""The Ice Lake-SP (Sunny Cove) port model ``ICX.yml``.

* Coverage: every instruction form gcc emits for the bundled kernels at
  -O1/-O2/-O3/-Ofast with -march=icelake-server and -march=native (the latter on
  x86-64 only; the development host is an Ice Lake-SP), also with 512-bit
  vectors as the host machine file asks for, is known to the database -- in the
  whole function, not only in the innermost loop.
* A few values that come from the sources named in ICX.yml (mostly measurements
  on the development host, see the file's header and
  ``benchmarks/incore_validation.py --probes``).
"""
from __future__ import annotations

import platform
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from support.kernel_asm import (NO_MEMCPY, compile_source, kernel_sources, record_unknown,
                                 wrap_kernel)

from kerncraft.incore.analysis import analyze
from kerncraft.incore.database import load_database
from kerncraft.incore.x86.parser import parse_x86

ROOT = Path(__file__).resolve().parents[1]
OPT_LEVELS = ("-O1", "-O2", "-O3", "-Ofast")
MARCHES = ["icelake-server"]
if platform.machine().lower() in ("x86_64", "amd64"):
    MARCHES.append("native")


@pytest.fixture(scope="module")
def db():
    return load_database("ICX")


def _form(db, text):
    """Cost of one AT&T instruction line."""
    ins = [ln.instruction for ln in parse_x86(text) if ln.instruction][0]
    cost = db.lookup(ins)
    assert cost is not None, text
    return cost


def _ports(cost):
    return [tuple(sorted(u.ports)) for u in cost.uops]


# ------------------------------------------------------------------ header
def test_header(db):
    assert db.arch == "ICX"
    assert db.frontend_width == 5 and db.rob_size == 352
    assert db.load_ports == ("2", "3") and db.load_data_ports == ("2D", "3D")
    assert db.store_data_ports == ("4", "9") and db.store_address_ports == ("7", "8")
    assert db.simple_store_address_ports == ()
    assert db.store_forward_latency == 5
    assert db.load_latency["gpr"] == 5 and db.load_latency["ymm"] == 7
    assert not {"10", "11", "11D"} & set(db.ports)       # no Golden Cove ports


def test_every_group_has_a_source(db):
    assert all(entry.source for entry in db.forms.values())


# ------------------------------------------------------------------ values
@pytest.mark.parametrize("text", ["vaddpd %ymm1, %ymm2, %ymm3", "vmulsd %xmm1, %xmm2, %xmm3",
                                  "vfmadd231pd %ymm1, %ymm2, %ymm3", "vaddsd %xmm1, %xmm2, %xmm3"])
def test_fp_add_mul_fma_4_cycles_on_p01(db, text):
    cost = _form(db, text)
    assert cost.latency == 4 and _ports(cost) == [("0", "1")]


def test_512_bit_fma_on_two_units(db):
    # measured: 1.6-1.7 FMA per scalar cycle -> two 512-bit units (p0 fused + p5)
    cost = _form(db, "vfmadd231pd %zmm1, %zmm2, %zmm3")
    assert cost.latency == 4 and _ports(cost) == [("0", "5")]


def test_divider_measured(db):
    cost = _form(db, "vdivpd %ymm1, %ymm2, %ymm3")
    assert cost.latency == 13
    assert any(u.ports == frozenset({"0DV"}) and u.cycles == 8 for u in cost.uops)
    assert _form(db, "vdivsd %xmm1, %xmm2, %xmm3").latency == 13
    assert _form(db, "divq %rcx").latency == 15


def test_lea_four_ports_three_component_two(db):
    assert _ports(_form(db, "leaq 8(%rax), %rbx")) == [("0", "1", "5", "6")]
    cost = _form(db, "leaq 8(%rax,%rcx,8), %rbx")
    assert cost.latency == 1 and _ports(cost) == [("1", "5")]


def test_stores_use_dedicated_agus_and_two_data_ports(db):
    for text in ("movq %rax, 8(%rcx)", "vmovupd %ymm0, (%rax,%rcx,8)", "vmovsd %xmm0, (%rax)"):
        assert _ports(_form(db, text)) == [("7", "8"), ("4", "9")], text


def test_512_bit_memory_access_one_per_cycle(db):
    # measured: one 512-bit access (load or store) per cycle -> pseudo-port L1D;
    # the load-data ports (non-overlapping in the ECM model) see one cycle per load
    def cycles(cost, ports):
        return sum(u.cycles for u in cost.uops if u.ports == frozenset(ports))

    load = _form(db, "vmovupd (%rax,%rcx,8), %zmm0")
    assert cycles(load, {"2D", "3D"}) == 1 and cycles(load, {"L1D"}) == 1
    assert load.load_latency == 7
    store = _form(db, "vmovupd %zmm0, (%rax)")
    assert cycles(store, {"4", "9"}) == 1 and cycles(store, {"L1D"}) == 1
    fma = _form(db, "vfmadd231pd (%rax), %zmm1, %zmm2")
    assert fma.has_load and fma.latency == 4 and cycles(fma, {"L1D"}) == 1
    ymm = _form(db, "vmovupd (%rax), %ymm0")        # 256 bit: two loads per cycle
    assert cycles(ymm, {"2D", "3D"}) == 1 and cycles(ymm, {"L1D"}) == 0
    # zmm triad: 2 loads + 1 store through L1D = 3 cy; 6 fused uops... cmp+jne fused
    asm = """
.L3:
    vmovupd (%rsi,%rax), %zmm0
    vfmadd213pd (%rdx,%rax), %zmm1, %zmm0
    vmovupd %zmm0, (%rdi,%rax)
    addq $64, %rax
    cmpq %rax, %rcx
    jne .L3
"""
    result = analyze([ln.instruction for ln in parse_x86(asm) if ln.instruction], db)
    assert result.throughput == pytest.approx(3.0)
    assert result.frontend == pytest.approx(1.0)      # L1D is not an issued uop


def test_shuffles_measured(db):
    assert _ports(_form(db, "vshufpd $5, %ymm1, %ymm2, %ymm3")) == [("1", "5")]
    assert _ports(_form(db, "vunpckhpd %xmm1, %xmm2, %xmm3")) == [("5",)]
    assert _ports(_form(db, "vmovsd %xmm1, %xmm2, %xmm3")) == [("0", "1", "5")]


def test_moves_and_zero_idioms_need_no_port(db):
    for text in ("vmovapd %zmm1, %zmm2", "vmovapd %ymm1, %ymm2", "movq %rax, %rbx",
                 "vxorpd %xmm0, %xmm0, %xmm0", "xorl %eax, %eax"):
        assert _ports(_form(db, text)) == [()], text


def test_scalar_fp_load_latency(db):
    assert _form(db, "vmovsd (%rax,%rcx,8), %xmm0").load_latency == 6
    assert _form(db, "vaddsd (%rax), %xmm1, %xmm0").load_latency == 6
    assert _form(db, "movq (%rax,%rcx,8), %rdx").load_latency == 5


def test_copy_loop_bounds(db):
    """ymm copy, unrolled twice: 2 loads + 2 stores + add/cmp/jne -> 1 cy (stores,
    taken branch on p6); 7 fused uops / 5 per cycle = 1.4 cy front end."""
    asm = """
.L3:
    vmovupd (%rsi,%rax), %ymm0
    vmovupd 32(%rsi,%rax), %ymm1
    vmovupd %ymm0, (%rdi,%rax)
    vmovupd %ymm1, 32(%rdi,%rax)
    addq $64, %rax
    cmpq %rax, %rdx
    jne .L3
"""
    instrs = [ln.instruction for ln in parse_x86(asm) if ln.instruction]
    result = analyze(instrs, db)
    assert result.throughput == pytest.approx(1.0)
    assert result.frontend == pytest.approx(6 / 5)


# ------------------------------------------------------------------ coverage
def _jobs():
    jobs = []
    for name, text in kernel_sources().items():
        src = wrap_kernel(text)
        for march in MARCHES:
            for opt in OPT_LEVELS:
                jobs.append((name, "gcc", (opt, f"-march={march}", NO_MEMCPY), src))
            jobs.append((name, "gcc", ("-O3", f"-march={march}", "-mprefer-vector-width=512",
                                       NO_MEMCPY), src))
            jobs.append((name, "gcc", ("-O3", f"-march={march}", "-mprefer-vector-width=512",
                                       "-ffreestanding"), src))
    return jobs


@pytest.fixture(scope="module")
def compiled():
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")

    def run(job):
        name, cc, flags, src = job
        return job, compile_source(src, cc, flags)

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(run, _jobs()))


def test_all_kernels_compiled(compiled):
    assert len(kernel_sources()) >= 9
    assert len(compiled) == len(kernel_sources()) * len(MARCHES) * (len(OPT_LEVELS) + 2)


def test_every_emitted_form_known(compiled, db):
    unknown: dict[str, str] = {}
    checked = 0
    for (name, cc, flags, _), asm in compiled:
        checked += record_unknown((line.instruction for line in parse_x86(asm)), db,
                                  f"{name} ({cc} {' '.join(flags)})", unknown)
    assert checked > 1000
    assert not unknown, "forms unknown to ICX:\n" + "\n".join(
        f"  {k}: {v}" for k, v in sorted(unknown.items()))


def test_host_machine_file_uses_icx():
    from kerncraft.machine.loader import load_machine
    from kerncraft.models.incore_prediction import non_overlapping_ports, resolve_database

    machine = load_machine(str(ROOT / "machine-files" / "ICX-VM.yml"))
    assert resolve_database(machine) == "ICX"
    db = load_database("ICX")
    assert non_overlapping_ports(machine, db.ports) == ("2D", "3D")
