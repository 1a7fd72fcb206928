"""Identification that never gives up (issue 24, item 1): the CPUID table first, then
the nearest core class from the ISA flags and cache sizes (kerncraft/measure/coreclass.py),
with recorded-style /proc/cpuinfo fixtures of masked-model guests (tests/data/cpuinfo).

Expected classes are derived by hand from the rules' public sources (which generation
added which flag; the L1d/L2 sizes of each core), not from the code.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import kerncraft
from kerncraft.machinegen import generate as mg
from kerncraft.measure.clock import ClockCalibration
from kerncraft.measure.coreclass import CoreCaches, classify, is_newer, missing_for_march
from kerncraft.measure.march import choose_compiler_flags, choose_flags
from kerncraft.measure.topology import (CacheInfo, HostTopology, identify_microarchitecture,
                                        parse_cpuinfo)

DATA = Path(__file__).parent / "data" / "cpuinfo"
REPO = Path(__file__).resolve().parents[1]
KiB, MiB = 1024, 1024 * 1024


def fixture(name: str) -> tuple[str, int, int, int, frozenset[str], str]:
    info = parse_cpuinfo((DATA / f"{name}.txt").read_text())
    return (info["vendor_id"], int(info["cpu family"]), int(info["model"]),
            int(info["stepping"]), frozenset(info["flags"].split()), info["model name"])


def identify(name: str, caches: CoreCaches | None = None):
    vendor, family, model, stepping, flags, _ = fixture(name)
    return identify_microarchitecture(vendor, family, model, stepping, flags, caches)


def accept_all(compiler: str, option: str) -> bool | None:
    return True if compiler == "gcc" else None


# fixture: (class, database, -march kept, words the note must hold)
MASKED = {
    # model 167 (0xA7) is Rocket Lake, a client core, not in the server table;
    # amx_tile and avx512_fp16 exist only on Golden Cove server cores
    "spr_guest_model167": ("SPR", "SPR", "sapphirerapids",
                           "CPUID family 6 model 167 (0x06/0xA7) is not a server core of the "
                           "table; flags amx_tile, avx512_fp16 mark a Golden Cove server core: "
                           "SPR"),
    # family 0x19 model 0x00 lies in Linux's Zen 3 range (0x00-0x0F), but Zen 3 has no
    # AVX-512: the table's record is older than the flags, so the flags win
    "zen4_guest_model0": ("ZEN4", "ZEN4", "znver4",
                          "CPUID family 25 model 0 (0x19/0x00) is Zen 3 (ZEN3) in the table, "
                          "but flags avx512f mark a Zen 4 core"),
    # model 0 is no Intel server model; VBMI2, GFNI, VAES, VPCLMULQDQ came with Ice Lake
    "icx_guest_model0": ("ICX", "ICX", "icelake-server",
                         "is not a server core of the table; flags avx512_vbmi2, gfni, vaes, "
                         "vpclmulqdq, ... mark an Ice Lake (Sunny Cove) core: ICX"),
}


@pytest.mark.parametrize("name", sorted(MASKED))
def test_masked_guest_identifies_to_its_core_class_with_a_note(name):
    code, database, march, note = MASKED[name]
    uarch = identify(name)
    assert (uarch.code, uarch.incore_model, uarch.march, uarch.generic) == \
        (code, database, march, False)
    assert note in uarch.identification
    # every flag the core's own -march switches on is in the guest's flags (the host
    # check of -p Benchmark would refuse it otherwise)
    assert missing_for_march(march, fixture(name)[4]) == ()


@pytest.mark.parametrize("name, code", [
    ("skx", "SKX"), ("clx", "CSX"), ("icx", "ICX"), ("spr", "SPR"), ("zen1", "ZEN1"),
    ("zen2", "ZEN2"), ("zen3", "ZEN3"), ("zen4", "ZEN4"), ("zen5", "ZEN5")])
def test_the_flags_alone_name_every_recorded_core(name, code):
    """With the model masked, each fixture's flags still give its own class."""
    vendor, *_, flags, _ = fixture(name)
    assert classify(vendor, flags).code == code


def test_the_table_wins_unless_the_flags_show_a_newer_core():
    # Skylake-SP stepping 4 with VNNI in the flags: a Cascade Lake whose stepping is masked
    vendor, _, _, _, clx_flags, _ = fixture("clx")
    csx = identify_microarchitecture(vendor, 6, 85, 4, clx_flags)
    assert csx.code == "CSX" and "is Skylake-SP (SKX) in the table, but flags avx512f, " \
        "avx512_vnni mark a Cascade Lake core: CSX" in csx.identification
    # an Ice Lake model with only SKX flags stays ICX (a hypervisor hides flags, never
    # adds them): no note, the table's record as it is
    _, _, _, _, skx_flags, _ = fixture("skx")
    icx = identify_microarchitecture("GenuineIntel", 6, 106, 6, skx_flags)
    assert (icx.code, icx.identification) == ("ICX", "")
    assert is_newer("SPR", "ICX") and is_newer("ZEN4", "ZEN3") and is_newer("SPR", "CSX")
    assert not is_newer("SPR", "GNR") and not is_newer("ADL", "SPR")


def test_cache_sizes_raise_a_class_whose_newer_flags_are_hidden():
    # Zen 4 flags with a 48 KiB L1d: Zen 2-4 have 32 KiB, Zen 5 48 KiB -> ZEN5; -march=znver5
    # would switch on AVX-VNNI and VP2INTERSECT, which the flags do not show -> ISA level
    zen5 = identify("zen4_guest_model0", CoreCaches(48 * KiB, 1 * MiB))
    assert (zen5.code, zen5.incore_model, zen5.march, zen5.isa_level) == \
        ("ZEN5", "ZEN5", None, "x86-64-v4")
    assert "caches (L1d 48 KiB, L2 1 MiB per core) mark a Zen 5 core" in zen5.identification
    assert "-march=znver5 needs avx512_vp2intersect, avx_vnni" in zen5.identification
    # Zen 3 flags (no AVX-512) with 1 MiB of L2 per core: Zen 4 (Zen 3: 512 KiB); its
    # AVX-512 is hidden, so 256-bit code on the two 256-bit FMA pipes
    vendor, _, _, _, flags, _ = fixture("zen3")
    zen4 = identify_microarchitecture(vendor, 25, 0x01, 1, flags, CoreCaches(32 * KiB, MiB))
    assert (zen4.code, zen4.isa_level, zen4.native_512, zen4.fma_units) == \
        ("ZEN4", "x86-64-v3", False, 2)
    # Skylake-SP flags with Golden Cove's 48 KiB L1d and 2 MiB L2 -> SPR; with Ice Lake's
    # 48 KiB / 1.25 MiB -> ICX; with Skylake's own 32 KiB / 1 MiB nothing changes
    vendor, _, _, _, flags, _ = fixture("skx")
    caches = {(48, 2048): "SPR", (48, 1280): "ICX", (32, 1024): "SKX"}
    for (l1, l2), code in caches.items():
        got = identify_microarchitecture(vendor, 6, 0, 0, flags, CoreCaches(l1 * KiB, l2 * KiB))
        assert got.code == code, (l1, l2)
        assert (got.march is None) == (code != "SKX")


def test_a_cpu_without_a_class_gets_a_generic_record_loudly():
    # a Bulldozer-family AMD (family 0x15): AVX and FMA but no AVX2 -> no Zen class fits;
    # ZEN1 as the generic guess, compiled for x86-64-v2 (its SSE4.2 and POPCNT), never the
    # core's own -march
    flags = frozenset("sse2 ssse3 sse4_1 sse4_2 popcnt avx fma fma4 xop".split())
    old = identify_microarchitecture("AuthenticAMD", 0x15, 0x02, 0, flags)
    assert (old.code, old.incore_model, old.generic, old.march, old.isa_level) == \
        ("ZEN1", "ZEN", True, None, "x86-64-v2")
    assert "no AVX2 in the flags: no core class fits; ZEN1 is a generic guess" in \
        old.identification
    assert choose_flags(old, "gcc", accept_all).flags == \
        "-O3 -march=x86-64-v2 -mtune=znver1 -ffreestanding"
    # another vendor with AVX2 and FMA: the Intel rules give Haswell, but flagged generic
    other = identify_microarchitecture("CentaurHauls", 7, 59, 0,
                                       frozenset("sse2 sse4_2 popcnt avx avx2 fma".split()))
    assert (other.code, other.generic, other.march) == ("HSW", True, None)
    assert "vendor 'CentaurHauls' is not in the table" in other.identification


def _fake_file(topo: HostTopology, tmp_path: Path, messages: list[str]) -> Path:
    """The machine file for ``topo`` from the fakes of tests/test_cpuid_table.py."""
    probes = mg.Probes(topology=lambda: topo, clock=lambda: ClockCalibration(
                           3e9, 3e9, "fake", 0.0, (3e9,), 1, 3e9, 3e9),
                       bandwidth=lambda k, size, cores, d, r: cores * (
                           200e9 if size < 40 * KiB else 100e9 if size < 800 * KiB else
                           50e9 if size < 24 * MiB else 10e9),
                       compilers=lambda u: choose_compiler_flags(u, probe=accept_all))
    target = tmp_path / "host.yml"
    target.write_text(mg.generate_machine_file(mg.GenerationPlan.quick(), probes,
                                               messages.append))
    return target


def _topology(name: str, uarch) -> HostTopology:
    vendor, family, model, stepping, flags, model_name = fixture(name)
    caches = (CacheInfo(1, "Data", 48 * KiB, 12, 64, 64, (0,), 2),
              CacheInfo(2, "Unified", 2 * MiB, 16, 2048, 64, (0,), 2),
              CacheInfo(3, "Unified", 32 * MiB, 16, 32768, 64, (0, 1), 1))
    return HostTopology(model_name, vendor, family, model, stepping, flags, 1, 2, 1, 1,
                        (0, 1), (0, 1), caches, uarch, hypervisor=True)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="ECM compiles the kernel with gcc")
def test_golden_cove_guest_file_loads_and_predicts_the_triad(tmp_path):
    messages: list[str] = []
    path = _fake_file(_topology("spr_guest_model167", identify("spr_guest_model167")),
                      tmp_path, messages)
    text = path.read_text()
    machine = kerncraft.load_machine(str(path))
    assert machine.in_core_model["kerncraft"] == "SPR"
    assert machine.non_overlapping_ports["kerncraft"] == ("2D", "3D", "11D")
    assert "in-core model: {}" not in text
    assert "# Core class [derived from the ISA flags, not the CPUID model]: CPUID family 6 " \
           "model 167" in text
    assert any(m.startswith("core class: CPUID family 6 model 167") for m in messages)
    result = kerncraft.analyze(str(REPO / "kernels" / "triad.c"), str(path), model="ECM",
                               defines={"N": 1000000})
    assert result.incore.arch == "SPR" and "-march=sapphirerapids" in result.incore.flags
    # T_nOL from the measured L1 streaming limit (the fake's 200 GB/s at 3 GHz = 66.7 B/cy):
    # the triad's 2 loads + 1 store = 192 B per cache line -> 2.88 cy/CL
    assert result.t_nol == pytest.approx(192 / (200e9 / 3e9))
    assert result.prediction_cy_per_cl > result.t_nol


def test_generic_cpu_file_says_so_and_still_loads(tmp_path):
    flags = frozenset("sse2 ssse3 sse4_1 sse4_2 popcnt avx fma fma4 xop hypervisor".split())
    uarch = identify_microarchitecture("AuthenticAMD", 0x15, 0x02, 0, flags)
    topo = HostTopology("AMD Opteron", "AuthenticAMD", 0x15, 0x02, 0, flags, 1, 2, 1, 1,
                        (0, 1), (0, 1), _topology("zen4", uarch).caches, uarch)
    messages: list[str] = []
    text = _fake_file(topo, tmp_path, messages).read_text()
    assert "# WARNING: no core class fits this CPU; the in-core model below is a generic " \
           "guess" in text
    assert any(m.startswith("warning: no core class fits this CPU") for m in messages)
    machine = kerncraft.load_machine(str(tmp_path / "host.yml"))
    assert machine.in_core_model["kerncraft"] == "ZEN"
    assert machine.non_overlapping_ports["kerncraft"] == ("LD0", "LD1")
