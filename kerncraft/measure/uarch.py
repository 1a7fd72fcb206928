"""Which core is this? CPUID vendor/family/model -> a record for the machine file.

Why a table
-----------
A generated machine file needs facts CPUID does not give: the in-core
database (port model) to use, the names other analyzers (OSACA, llvm-mca)
know the core by, the number of FMA units, whether the L3 is a victim cache,
whether a level's transfers overlap with in-core work in the ECM model, and
the compiler flags that make code for exactly this core. These are per core
generation, and a generation is identified by CPUID (vendor, family, model,
and for Skylake-SP versus Cascade Lake-SP the stepping).

Sources of the CPUID ranges
---------------------------
Intel: the model numbers of ``arch/x86/include/asm/intel-family.h`` in Linux
(SKYLAKE_X 0x55, ICELAKE_X 0x6A, ICELAKE_D 0x6C, SAPPHIRERAPIDS_X 0x8F,
EMERALDRAPIDS_X 0xCF, GRANITERAPIDS_X 0xAD, GRANITERAPIDS_D 0xAE); Skylake-SP
and Cascade Lake-SP share model 0x55 and differ in the stepping (0-4 Skylake,
5-7 Cascade Lake; 10-11 is Cooper Lake, a Cascade Lake core with bf16, so it
takes the Cascade Lake record), as in gcc's ``common/config/i386/cpuinfo.h``.

AMD: ``bsp_init_amd`` in Linux ``arch/x86/kernel/cpu/amd.c`` (6.10 .. 6.18),
which sets the synthetic ZEN1..ZEN6 feature flags:
family 0x17 Zen 1 models 0x00-0x2F and 0x50-0x5F, Zen 2 0x30-0x4F, 0x60-0x7F,
0x90-0x91, 0xA0-0xAF; family 0x19 Zen 3 0x00-0x0F and 0x20-0x5F, Zen 4
0x10-0x1F and 0x60-0xAF; family 0x1A Zen 5 0x00-0x2F, 0x40-0x4F, 0x60-0x7F
(Linux 6.18 names 0x50-0x5F, 0x80-0xAF and 0xC0-0xCF Zen 6). The issue text
this was written against listed Zen 2 as 0x30-0x3F/0x60-0x7F/0x90-0x9F/
0xA0-0xAF; Linux's ranges are used where they differ (0x40-0x4F is Zen 2,
0x92-0x9F unassigned). gcc (cpuinfo.h) and LLVM (Host.cpp) agree for Zen 5
(family 0x1A models up to 0x77 -> znver5). Family 0x1A models outside the
Zen 5 ranges are treated as Zen 5 too (the closest core we know), with a note.

When the table has no answer
----------------------------
A model the table does not know (a hypervisor may report any model: a Golden
Cove server guest showed family 6 model 167), or one whose record is older than
the feature flags show, is not given up on: :func:`identify_microarchitecture`
takes the nearest core class from the ISA flags and cache sizes
(:mod:`kerncraft.measure.coreclass`), with a note saying so and why, and its own
``-march`` only where the flags show every extension it switches on. CPUs with
no class get a generic record (flagged :attr:`Microarchitecture.generic`), never
none. The client-core records (ADL, SKL, BDW, HSW, IVB, SNB) exist for that: their
overlap flags, L3 inclusion and upstream figures follow Kerncraft's published
Haswell-EP, Broadwell-EP, Sandy Bridge-EP and Ivy Bridge-EP machine files.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from kerncraft.measure.coreclass import (CoreCaches, CoreClass, classify, is_newer,
                                         missing_for_level, missing_for_march)

__all__ = ["OverlapFlag", "UpstreamFigure", "Microarchitecture", "identify_microarchitecture", "lookup",
           "RECORDS", "CoreCaches", "INTEL_NO_OVERLAP", "ZEN1_OVERLAP", "ZEN2_OVERLAP"]


@dataclass(frozen=True)
class OverlapFlag:
    """``transfers overlap`` of one memory level and where that value comes from."""

    level: str                     # 'L1', 'L2', 'L3', 'MEM'
    overlaps: bool
    source: str


@dataclass(frozen=True)
class UpstreamFigure:
    """Published upstream throughput of a cache level (used when a measured one is not
    derivable from the load bandwidths)."""

    level: str                     # 'L2', 'L3'
    bytes_per_cycle: float
    duplex: str                    # 'half-duplex' or 'full-duplex'
    source: str


@dataclass(frozen=True)
class Microarchitecture:
    """What we know about a core generation: names, databases, ECM facts, compiler flags."""

    code: str                      # short name: 'ICX', 'SPR', 'ZEN5', ...
    name: str                      # 'Intel Icelake SP processor'
    core: str                      # 'Sunny Cove'
    incore_model: str | None       # kerncraft in-core database to use
    incore_note: str = ""          # why that database, if it is not an exact match
    llvm_mca: str | None = None    # '-mcpu=...' for llvm-mca
    osaca: str | None = None
    fma_units: int | None = None   # FMA units per core counted at the widest vector width
    victim_l3: bool = False        # non-inclusive L3 filled by L2 evictions
    vendor: str = ""
    march: str | None = None       # the core's own -march
    isa_level: str | None = None   # x86-64 ISA level, the -march fallback
    mtune: tuple[str, ...] = ()    # -mtune fallbacks, nearest core first
    native_512: bool = False       # 512-bit vectors execute at full width (no double pumping)
    overlap: tuple[OverlapFlag, ...] = ()
    l2_misses_from_l3: bool = False  # victim L3 still looked up on an L2 miss (Zen files)
    upstream: tuple[UpstreamFigure, ...] = ()
    identification: str = ""       # how the record was chosen when not by the CPUID table
    generic: bool = False          # no core class fitted: a guess (the file says so loudly)

    def upstream_figure(self, level: str) -> UpstreamFigure | None:
        return next((f for f in self.upstream if f.level == level), None)

    def transfers_overlap(self, level: str) -> OverlapFlag | None:
        """The overlap flag of ``level`` (L1, L2, L3, MEM); None if the record has none."""
        return next((f for f in self.overlap if f.level == level), None)


# ---------------------------------------------------------------- overlap flags

_INTEL_SRC = ("Intel server cores: in-core work and inter-level transfers do not "
              "overlap (ECM for Skylake-SP and later; every published Intel Kerncraft "
              "machine file writes false on all levels)")
INTEL_NO_OVERLAP = tuple(OverlapFlag(lvl, False, _INTEL_SRC) for lvl in ("L1", "L2", "L3", "MEM"))

_ZEN_CACHE_SRC = ("AMD Zen: transfers between L1, L2 and the core overlap with in-core work "
                  "(published Zen_EPYC-7451 and Zen2_EPYC-7452 machine files; machine-files/"
                  "ZEN.yml, ZEN2.yml)")
_ZEN_MEM_SRC = ("AMD Zen: the memory transfer does not overlap (all published Zen machine "
                "files)")
_ZEN1_L3_SRC = ("Zen 1: the published Zen_EPYC-7451 and Zen_Ryzen7-1700X files declare the "
                "L3 transfer non-overlapping (machine-files/ZEN.yml follows them)")
_ZEN2_L3_SRC = ("Zen 2: the published Zen2_EPYC-7452 file declares the L3 transfer "
                "overlapping (machine-files/ZEN2.yml follows it)")
_ZEN3_L3_SRC = ("Zen 3/4/5: no published machine file; assumed as measured for Zen 2 (L3 "
                "overlaps), the closest core with published ECM data")

ZEN1_OVERLAP = (OverlapFlag("L1", True, _ZEN_CACHE_SRC), OverlapFlag("L2", True, _ZEN_CACHE_SRC),
                OverlapFlag("L3", False, _ZEN1_L3_SRC), OverlapFlag("MEM", False, _ZEN_MEM_SRC))
ZEN2_OVERLAP = (OverlapFlag("L1", True, _ZEN_CACHE_SRC), OverlapFlag("L2", True, _ZEN_CACHE_SRC),
                OverlapFlag("L3", True, _ZEN2_L3_SRC), OverlapFlag("MEM", False, _ZEN_MEM_SRC))
_ZEN3_OVERLAP = ZEN2_OVERLAP[:2] + (OverlapFlag("L3", True, _ZEN3_L3_SRC), ZEN2_OVERLAP[3])


# ---------------------------------------------------------------- upstream figures

_CSX_SRC = "as machine-files/CSX.yml (Skylake-SP and later)"
_INTEL_UPSTREAM = (UpstreamFigure("L2", 64.0, "half-duplex", _CSX_SRC),
                   UpstreamFigure("L3", 16.0, "full-duplex", _CSX_SRC))
_ZEN1_UPSTREAM = (UpstreamFigure("L2", 32.0, "full-duplex", "published Zen_EPYC-7451 file"),
                  UpstreamFigure("L3", 32.0, "half-duplex", "published Zen_EPYC-7451 file"))
_ZEN2_UPSTREAM = (UpstreamFigure("L2", 32.0, "full-duplex", "published Zen2_EPYC-7452 file"),
                  UpstreamFigure("L3", 24.0, "half-duplex", "published Zen2_EPYC-7452 file"))
_ZEN3_UPSTREAM = tuple(replace(f, source=f"as Zen 2 ({f.source})") for f in _ZEN2_UPSTREAM)
# Zen 5 doubled the L2 -> L1 path to 64 B/cy (AMD's Zen 5 disclosure, Hot Chips 2024);
# L3 -> L2 stays at 32 B/cy per core, with its own 32 B/cy path for L2 victims to L3.
# Full duplex: on a Zen 5 EPYC (family 1Ah model 2, KVM) copy with its data in L3 moves
# 2 lines in and 2 victims out per CL in 5.1 cy/CL (kerncraft-validate, 2026-11-24),
# 50 B/cy in total: more than one 32 B/cy path could carry.
_ZEN5_UPSTREAM = (UpstreamFigure("L2", 64.0, "full-duplex", "AMD Zen 5: 64 B/cy L2 -> L1"),
                  UpstreamFigure("L3", 32.0, "full-duplex",
                                 "AMD Zen 5: 32 B/cy L3 -> L2 and L2 -> L3"))


# ---------------------------------------------------------------- records

def _intel(code: str, name: str, core: str, incore: str, march: str, mtune: tuple[str, ...],
           note: str = "", osaca: str | None = None, mca: str | None = None) -> Microarchitecture:
    """Intel server core since Skylake-SP: non-inclusive victim L3, two 512-bit FMA
    units (some low Xeon SKUs have one: --fma-units 1), 512-bit datapath."""
    return Microarchitecture(code, name, core, incore, note, f"-mcpu={mca or march}",
                             osaca or code, fma_units=2, victim_l3=True, vendor="GenuineIntel",
                             march=march, isa_level="x86-64-v4", mtune=mtune, native_512=True,
                             overlap=INTEL_NO_OVERLAP, upstream=_INTEL_UPSTREAM)


_SKX = _intel("SKX", "Intel Skylake SP processor", "Skylake-SP", "SKX", "skylake-avx512",
              ("skylake-avx512",))
_CSX = _intel("CSX", "Intel Cascadelake SP processor", "Cascade Lake", "CSX", "cascadelake",
              ("cascadelake", "skylake-avx512"))
_ICX = _intel("ICX", "Intel Icelake SP processor", "Sunny Cove", "ICX", "icelake-server",
              ("icelake-server",))
_SPR = _intel("SPR", "Intel SapphireRapids processor", "Golden Cove", "SPR", "sapphirerapids",
              ("sapphirerapids", "icelake-server"))
_EMR = _intel("EMR", "Intel EmeraldRapids processor", "Raptor Cove", "SPR", "emeraldrapids",
              ("emeraldrapids", "sapphirerapids"),
              "no Raptor Cove database; SPR (Golden Cove) is the closest: Raptor Cove is a "
              "Golden Cove derivative with more L2", osaca="SPR")
_GNR = _intel("GNR", "Intel GraniteRapids processor", "Redwood Cove", "SPR", "graniterapids",
              ("graniterapids", "sapphirerapids"),
              "no Redwood Cove database; SPR (Golden Cove) is the closest: same execution "
              "ports and 2x512-bit FMA", osaca="SPR")


def _zen(code: str, core: str, incore: str, march: str, mtune: tuple[str, ...], *,
         fma: int, avx512: bool, native_512: bool, overlap: tuple[OverlapFlag, ...],
         upstream: tuple[UpstreamFigure, ...], note: str = "",
         osaca: str | None = None) -> Microarchitecture:
    """AMD Zen: a victim L3 per CCX (filled by L2 evictions), overlapping cache transfers."""
    return Microarchitecture(code, f"AMD {core} architecture", core, incore, note,
                             f"-mcpu={march}", osaca or code, fma_units=fma, victim_l3=True,
                             vendor="AuthenticAMD", march=march,
                             isa_level="x86-64-v4" if avx512 else "x86-64-v3", mtune=mtune,
                             native_512=native_512, overlap=overlap,
                             # as ZEN.yml/ZEN2.yml and the published Zen files: L2 misses
                             # load from L3, L2 evictions fill it
                             l2_misses_from_l3=True, upstream=upstream)


# fma counts units at the widest vector width the ISA has (flops_per_cycle multiplies by
# it): Zen 1 splits 256-bit ops over its two 128-bit FMA pipes (= one 256-bit unit);
# Zen 2/3 have two 256-bit FMA pipes; Zen 4 runs 512-bit ops on its two 256-bit pipes
# (= one 512-bit unit); Zen 5 server/desktop cores have two 512-bit FMA pipes.
_ZEN1 = _zen("ZEN1", "Zen", "ZEN", "znver1", ("znver1",), fma=1, avx512=False,
             native_512=False, overlap=ZEN1_OVERLAP, upstream=_ZEN1_UPSTREAM)
_ZEN2 = _zen("ZEN2", "Zen 2", "ZEN2", "znver2", ("znver2",), fma=2, avx512=False,
             native_512=False, overlap=ZEN2_OVERLAP, upstream=_ZEN2_UPSTREAM)
# Zen 3 and Zen 4 have their own databases since issue 12 (ZEN3.yml, ZEN4.yml: drafted
# from llvm-mca and AMD's optimization guides, not yet measured on a host).
_ZEN3 = _zen("ZEN3", "Zen 3", "ZEN3", "znver3", ("znver3", "znver2"), fma=2, avx512=False,
             native_512=False, overlap=_ZEN3_OVERLAP, upstream=_ZEN3_UPSTREAM)
_ZEN4 = _zen("ZEN4", "Zen 4", "ZEN4", "znver4", ("znver4", "znver3"), fma=1, avx512=True,
             native_512=False, overlap=_ZEN3_OVERLAP, upstream=_ZEN3_UPSTREAM)
_ZEN5 = _zen("ZEN5", "Zen 5", "ZEN5", "znver5", ("znver5", "znver4", "znver3"), fma=2,
             avx512=True, native_512=True, overlap=_ZEN3_OVERLAP, upstream=_ZEN5_UPSTREAM,
             osaca="ZEN4")
# Strix Point (0x20-0x2F) and Krackan Point (0x60-0x6F) Zen 5 cores keep a 256-bit FP
# datapath like Zen 4 (AMD's Zen 5 disclosures, 2024): AVX-512 at half rate.
_ZEN5_MOBILE = replace(_ZEN5, fma_units=1, native_512=False,
                       incore_note="mobile Zen 5 with a 256-bit FP datapath: ZEN5 port model "
                                   "with 512-bit ops at half rate not modelled")

# Intel client cores (and server cores whose AVX-512 a hypervisor hides), reached only
# from the feature flags: inclusive L3 that L2 misses look up; upstream as Kerncraft's
# published Haswell-EP / Broadwell-EP (L2 64, L3 32 B/cy) and Sandy / Ivy Bridge-EP
# (32, 32 B/cy) files, all half-duplex and non-overlapping.
_HSW_SRC = "published Kerncraft HaswellEP_E5-2695v3 machine file"
_SNB_SRC = "published Kerncraft SandyBridgeEP_E5-2680 machine file"
_HSW_UPSTREAM = (UpstreamFigure("L2", 64.0, "half-duplex", _HSW_SRC),
                 UpstreamFigure("L3", 32.0, "half-duplex", _HSW_SRC))
_CLIENT_OVERLAP = tuple(OverlapFlag(lvl, False, "Intel cores: in-core work and transfers do not "
                                    "overlap (the published Kerncraft Sandy Bridge-EP ... "
                                    "Broadwell-EP files write false on all levels)")
                        for lvl in ("L1", "L2", "L3", "MEM"))
_SNB_UPSTREAM = (UpstreamFigure("L2", 32.0, "half-duplex", _SNB_SRC),
                 UpstreamFigure("L3", 32.0, "half-duplex", _SNB_SRC))


def _client(code: str, name: str, core: str, incore: str, march: str, mtune: tuple[str, ...],
            *, avx2: bool = True, note: str = "", osaca: str | None = None) -> Microarchitecture:
    """Intel core without AVX-512: two 256-bit FMA units (AVX2), or one 256-bit add and
    one multiply unit (AVX: fma_units 1 gives their 4 + 4 DP FLOP/cy)."""
    return Microarchitecture(code, name, core, incore, note, f"-mcpu={march}", osaca or code,
                             fma_units=2 if avx2 else 1, vendor="GenuineIntel", march=march,
                             isa_level="x86-64-v3" if avx2 else "x86-64-v2", mtune=mtune,
                             overlap=_CLIENT_OVERLAP,
                             upstream=_HSW_UPSTREAM if avx2 else _SNB_UPSTREAM)


_ADL = _client("ADL", "Intel AlderLake processor", "Golden Cove", "SPR", "alderlake",
               ("alderlake", "skylake"), osaca="SPR",
               note="no client Golden Cove database; SPR (the server Golden Cove) without "
                    "AVX-512 is the closest")
_SKL = _client("SKL", "Intel Skylake processor", "Skylake", "SKX", "skylake", ("skylake",),
               osaca="SKX", note="Skylake client core: the SKX database (the same core; the "
                                 "client part has no AVX-512)")
_BDW = _client("BDW", "Intel Broadwell processor", "Broadwell", "BDW", "broadwell",
               ("broadwell", "haswell"))
_HSW = _client("HSW", "Intel Haswell processor", "Haswell", "HSW", "haswell", ("haswell",))
_IVB = _client("IVB", "Intel IvyBridge processor", "Ivy Bridge", "IVB", "ivybridge",
               ("ivybridge", "sandybridge"), avx2=False)
_SNB = _client("SNB", "Intel SandyBridge processor", "Sandy Bridge", "SNB", "sandybridge",
               ("sandybridge",), avx2=False)

#: Every record by its code (the classes :func:`kerncraft.measure.coreclass.classify` names).
RECORDS = {r.code: r for r in (_SKX, _CSX, _ICX, _SPR, _EMR, _GNR, _ADL, _SKL, _BDW, _HSW,
                               _IVB, _SNB, _ZEN1, _ZEN2, _ZEN3, _ZEN4, _ZEN5)}

# (family, model) of Intel server cores; 0x55 is split by stepping in lookup().
_INTEL_MODELS = {0x55: _SKX, 0x6A: _ICX, 0x6C: _ICX, 0x8F: _SPR, 0xCF: _EMR,
                 0xAD: _GNR, 0xAE: _GNR}

# AMD: family -> ((first model, last model, record), ...), Linux amd.c ranges.
_AMD_RANGES: dict[int, tuple[tuple[int, int, Microarchitecture], ...]] = {
    0x17: ((0x00, 0x2F, _ZEN1), (0x50, 0x5F, _ZEN1), (0x30, 0x4F, _ZEN2), (0x60, 0x7F, _ZEN2),
           (0x90, 0x91, _ZEN2), (0xA0, 0xAF, _ZEN2)),
    0x19: ((0x00, 0x0F, _ZEN3), (0x20, 0x5F, _ZEN3), (0x10, 0x1F, _ZEN4), (0x60, 0xAF, _ZEN4)),
    0x1A: ((0x20, 0x2F, _ZEN5_MOBILE), (0x60, 0x6F, _ZEN5_MOBILE), (0x00, 0x1F, _ZEN5),
           (0x40, 0x4F, _ZEN5), (0x70, 0x7F, _ZEN5)),
}


def lookup(vendor: str, family: int | None, model: int | None,
           stepping: int | None) -> Microarchitecture | None:
    """The table entry for a CPUID signature, None if the core is not in the table."""
    if family is None or model is None:
        return None
    if vendor == "GenuineIntel" and family == 6:
        record = _INTEL_MODELS.get(model)
        if record is _SKX and (stepping or 0) >= 5:
            return _CSX
        return record
    if vendor == "AuthenticAMD":
        for first, last, record in _AMD_RANGES.get(family, ()):
            if first <= model <= last:
                return record
        if family == 0x1A:     # Zen 6 by Linux 6.18, or a model not yet listed anywhere
            return replace(_ZEN5, incore_note=f"family 0x1A model {model:#x} is not a known "
                           "Zen 5 model (Linux calls some Zen 6); treated as Zen 5, the "
                           "closest core with data")
    return None


def identify_microarchitecture(vendor: str, family: int | None, model: int | None,
                               stepping: int | None, flags: frozenset[str],
                               caches: CoreCaches | None = None) -> Microarchitecture:
    """Name the core: the CPUID table (stepping separates SKX from CSX) unless the model
    is not in it or the flags show a newer core; then the nearest class from the flags
    and ``caches`` (:mod:`kerncraft.measure.coreclass`), with a note saying why. Never
    without a database: an unidentifiable CPU gets a generic record (``generic``)."""
    record = lookup(vendor, family, model, stepping)
    if record is not None and not flags:
        return record                  # nothing to check the table against
    found = classify(vendor, flags, caches)
    if record is not None and not is_newer(found.code, record.code):
        return _fit_to_flags(record, flags, "", strict=False)
    chosen = RECORDS[found.code]
    why = f"{_signature(family, model)} is " + (
        f"{record.core} ({record.code}) in the table, but " if record is not None
        else "not a server core of the table; " if vendor == "GenuineIntel"
        else "not in the table; ") + f"{found.reason}: {found.code}"
    if found.generic:
        chosen = replace(chosen, march=None, isa_level=None if not flags else chosen.isa_level,
                         generic=True)
    return _fit_to_flags(chosen, flags, why, strict=True, geometry=found)


_LOWER_LEVEL = {"x86-64-v4": "x86-64-v3", "x86-64-v3": "x86-64-v2"}


def _signature(family: int | None, model: int | None) -> str:
    if family is None or model is None:
        return "the CPUID signature (unknown)"
    return f"CPUID family {family} model {model} (0x{family:02X}/0x{model:02X})"


def _fit_to_flags(record: Microarchitecture, flags: frozenset[str], why: str, *, strict: bool,
                  geometry: CoreClass | None = None) -> Microarchitecture:
    """The record with compiler targets this CPU can run. ``strict`` (a record chosen from
    the flags): its own -march only if the flags show every extension it switches on;
    always: no x86-64-v4 (and 512-bit figures) without AVX-512, no -v3 without AVX2/FMA."""
    notes = [why] if why else []
    march, level = record.march, record.isa_level
    native, fma = record.native_512, record.fma_units
    if flags and march and (strict and missing_for_march(march, flags)
                            or geometry is not None and geometry.from_geometry):
        notes.append(f"-march={march} needs {', '.join(missing_for_march(march, flags))} "
                     "that the flags do not show: ISA level and -mtune instead"
                     if missing_for_march(march, flags) else
                     f"-march={march} not used: the flags do not show this core's extensions")
        march = None
    while flags and level is not None and missing_for_level(level, flags):
        notes.append(f"no {', '.join(missing_for_level(level, flags))} in the flags: not "
                     f"{level}" + (", 256-bit code on two 256-bit FMA units"
                                   if level == "x86-64-v4" else ""))
        if level == "x86-64-v4":
            native, fma = False, 2
        march, level = None, _LOWER_LEVEL.get(level)
    if not notes:
        return record
    return replace(record, march=march, isa_level=level, native_512=native, fma_units=fma,
                   identification="; ".join(notes))
