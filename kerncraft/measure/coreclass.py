"""The nearest core class of a CPU from its ISA feature flags (and cache geometry).

Why features
------------
Cloud hypervisors often report a CPUID model that is not the host's: a Golden
Cove server guest showed family 6 model 167 (0xA7, a client Rocket Lake number),
an AMD guest family 0x19 model 0x00 with Zen 4 features. The feature flags are
more faithful, because a guest cannot execute instructions its host lacks: a
hypervisor may hide flags, never add them. So the newest feature set present
bounds the core generation from below, and :func:`classify` names the nearest
core class of the CPUID table (:mod:`kerncraft.measure.uarch`) that has it.

Rules (first match; flags as Linux names them in /proc/cpuinfo)
---------------------------------------------------------------
Intel with AVX-512 (the flags each generation added, as gcc's -march lists in
``gcc/config/i386/i386.h`` and Intel's ISA extensions reference give them):

* ``amx_tile`` or ``avx512_fp16`` -> SPR (Golden Cove server; Emerald and Granite
  Rapids use the same database);
* ``avx_vnni``, ``serialize``, ``tsxldtrk`` or ``enqcmd`` (new with Golden Cove,
  absent on Ice Lake) -> SPR, AMX hidden by the hypervisor;
* ``avx512_vbmi2``, ``gfni``, ``vaes``, ``vpclmulqdq``, ``avx512_bitalg``,
  ``avx512ifma``, ``avx512vbmi``, ``avx512_vpopcntdq`` (Ice Lake's additions) -> ICX;
* ``avx512_vnni`` -> CSX; ``avx512f`` alone -> SKX.

Intel without AVX-512 (client cores, or AVX-512 hidden): ``avx_vnni`` or
``serialize`` -> ADL (Golden Cove client, SPR database at 256 bit);
``avx2`` with ``clflushopt`` -> SKL (Skylake client, SKX database); with ``adx`` or
``rdseed`` -> BDW; ``avx2`` -> HSW; ``avx`` with ``f16c`` -> IVB; ``avx`` -> SNB.

AMD (and Hygon, whose Dhyana is a Zen 1 core), from the flags of the recorded
hosts in ``tests/data/cpuinfo`` and AMD's per-generation ISA additions:
``avx512f`` with ``avx512_vp2intersect``, ``avx_vnni``, ``movdiri`` or
``movdir64b`` (all new in Zen 5) -> ZEN5; ``avx512f`` -> ZEN4; ``vaes`` or
``vpclmulqdq`` (new in Zen 3) -> ZEN3; ``clwb``, ``rdpid`` or ``wbnoinvd`` (new in
Zen 2) -> ZEN2; ``avx2`` -> ZEN1.

Anything else (no AVX2 on AMD, no AVX on Intel, another vendor without AVX2, no
flags at all) gets a *generic* class, SNB (Intel-like) or ZEN1 (AMD), flagged so
the machine file says loudly that the in-core figures are a guess.

Cache geometry (only raises a class, as hidden flags can only lower it): an
Intel AVX-512 core below SPR with a 48 KiB L1d and at least 2 MiB of L2 per core
is a Golden Cove server core (Ice Lake-SP: 48 KiB / 1.25 MiB, Skylake-SP and
Cascade Lake: 32 KiB / 1 MiB); one below ICX with 48 KiB / at least 1.25 MiB is
Ice Lake. An AMD core below Zen 5 with a 48 KiB L1d is Zen 5 (Zen 2-4: 32 KiB);
a Zen 3 class with at least 1 MiB of L2 per core is Zen 4 (Zen 3: 512 KiB).
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CoreCaches", "CoreClass", "classify", "is_newer", "missing_for_march",
           "missing_for_level", "LINEAGES"]

KiB, MiB = 1024, 1024 * 1024


@dataclass(frozen=True)
class CoreCaches:
    """The cache sizes of one core that tell core generations apart (bytes; None: unknown)."""

    l1d: int | None = None
    l2_per_core: int | None = None


@dataclass(frozen=True)
class CoreClass:
    """The class chosen and why, in words for the machine file."""

    code: str                      # a code of the CPUID table: 'SPR', 'ZEN4', 'HSW', ...
    reason: str                    # 'flags amx_tile, avx512_fp16 mark a Golden Cove server core'
    generic: bool = False          # nothing identified it: a guess, to be said loudly
    from_geometry: bool = False    # raised above what the flags show by the cache sizes


@dataclass(frozen=True)
class _Rule:
    code: str
    needs: tuple[str, ...]         # all of these
    any_of: tuple[str, ...]        # and one of these (empty: none needed)
    marks: str                     # what they mark, for the reason

    def matches(self, flags: frozenset[str]) -> bool:
        return set(self.needs) <= flags and (not self.any_of or any(f in flags
                                                                   for f in self.any_of))

    def evidence(self, flags: frozenset[str]) -> str:
        """The decisive flags present, in the rule's order (at most four named)."""
        found = [f for f in self.any_of if f in flags] or list(self.needs)
        return ", ".join(found[:4]) + (", ..." if len(found) > 4 else "")


def _rule(code: str, needs: str, any_of: str, marks: str) -> _Rule:
    return _Rule(code, tuple(needs.split()), tuple(any_of.split()), marks)


_INTEL_RULES = (
    _rule("SPR", "avx512f", "amx_tile avx512_fp16", "a Golden Cove server core"),
    _rule("SPR", "avx512f", "avx_vnni serialize tsxldtrk enqcmd",
          "a Golden Cove server core with AMX hidden (new with Golden Cove, absent on Ice Lake)"),
    _rule("ICX", "avx512f", "avx512_vbmi2 gfni vaes vpclmulqdq avx512_bitalg avx512ifma "
          "avx512vbmi avx512_vpopcntdq", "an Ice Lake (Sunny Cove) core"),
    _rule("CSX", "avx512f avx512_vnni", "", "a Cascade Lake core"),
    _rule("SKX", "avx512f", "", "a Skylake-SP core"),
    _rule("ADL", "avx2", "avx_vnni serialize",
          "a Golden Cove client core (no AVX-512: client part, or AVX-512 hidden)"),
    _rule("SKL", "avx2 fma clflushopt", "", "a Skylake client core (no AVX-512)"),
    _rule("BDW", "avx2 fma", "adx rdseed", "a Broadwell core"),
    _rule("HSW", "avx2 fma", "", "a Haswell core"),
    _rule("IVB", "avx f16c", "", "an Ivy Bridge core"),
    _rule("SNB", "avx", "", "a Sandy Bridge core"),
)
_AMD_RULES = (
    _rule("ZEN5", "avx512f", "avx512_vp2intersect avx_vnni movdiri movdir64b",
          "a Zen 5 core (new in Zen 5)"),
    _rule("ZEN4", "avx512f", "", "a Zen 4 core (AVX-512 without Zen 5's additions)"),
    _rule("ZEN3", "avx2", "vaes vpclmulqdq", "a Zen 3 core (new in Zen 3; no AVX-512)"),
    _rule("ZEN2", "avx2", "clwb rdpid wbnoinvd", "a Zen 2 core (new in Zen 2; no VAES)"),
    _rule("ZEN1", "avx2", "", "a Zen 1 core (AVX2 without Zen 2's additions)"),
)
_AMD_VENDORS = ("AuthenticAMD", "HygonGenuine")

#: Core classes of one line of descent, oldest first: a class later in the tuple has
#: every feature of an earlier one (the tables' EMR and GNR rank as SPR).
LINEAGES = (("SKX", "CSX", "ICX", "SPR"), ("ZEN1", "ZEN2", "ZEN3", "ZEN4", "ZEN5"),
            ("SNB", "IVB", "HSW", "BDW", "SKL", "ADL"))
_SAME_RANK = {"EMR": "SPR", "GNR": "SPR"}


def is_newer(code: str, than: str) -> bool:
    """Whether class ``code`` is a later generation of the lineage ``than`` belongs to."""
    code, than = _SAME_RANK.get(code, code), _SAME_RANK.get(than, than)
    for lineage in LINEAGES:
        if code in lineage and than in lineage:
            return lineage.index(code) > lineage.index(than)
    return False


def classify(vendor: str, flags: frozenset[str], caches: CoreCaches | None = None) -> CoreClass:
    """The nearest core class for ``flags`` (see the module doc), raised by ``caches``."""
    amd = vendor in _AMD_VENDORS
    rules = _AMD_RULES if amd else _INTEL_RULES
    rule = next((r for r in rules if r.matches(flags)), None)
    if rule is None:
        code = "ZEN1" if amd else "SNB"
        has = "AVX2" if amd else "AVX"
        what = "no feature flags" if not flags else f"no {has} in the flags"
        return CoreClass(code, f"{what}: no core class fits; {code} is a generic guess "
                               "(in-core figures unreliable)", generic=True)
    found = CoreClass(rule.code, f"flags {rule.evidence(flags)} mark {rule.marks}",
                      generic=vendor not in ("GenuineIntel", *_AMD_VENDORS))
    if found.generic:
        found = CoreClass(found.code, f"vendor {vendor!r} is not in the table; {found.reason}"
                          " (generic guess)", generic=True)
    return _raised_by_geometry(found, amd, flags, caches)


def _raised_by_geometry(found: CoreClass, amd: bool, flags: frozenset[str],
                        caches: CoreCaches | None) -> CoreClass:
    if caches is None or caches.l1d is None:
        return found
    l1d, l2 = caches.l1d, caches.l2_per_core or 0
    wide_l1 = l1d >= 48 * KiB
    sizes = f"L1d {l1d // KiB} KiB" + (f", L2 {l2 / MiB:g} MiB per core" if l2 else "")
    raised = None
    if amd and wide_l1 and found.code in ("ZEN2", "ZEN3", "ZEN4"):
        raised = "ZEN5", "a Zen 5 core (Zen 2-4 have 32 KiB)"
    elif amd and found.code == "ZEN3" and l2 >= MiB:
        raised = "ZEN4", "a Zen 4 core (Zen 3 has 512 KiB of L2)"
    elif not amd and "avx512f" in flags and wide_l1 and l2 >= 2 * MiB \
            and found.code in ("SKX", "CSX", "ICX"):
        raised = "SPR", "a Golden Cove server core (Ice Lake-SP: 1.25 MiB of L2)"
    elif not amd and "avx512f" in flags and wide_l1 and l2 >= 1.25 * MiB \
            and found.code in ("SKX", "CSX"):
        raised = "ICX", "an Ice Lake core (Skylake-SP, Cascade Lake: 32 KiB L1d)"
    if raised is None:
        return found
    return CoreClass(raised[0], f"{found.reason}, but the caches ({sizes}) mark {raised[1]}; "
                                "its newer flags are hidden", found.generic, from_geometry=True)


# ---------------------------------------------------------------- what -march needs

_V3 = frozenset("avx avx2 fma".split())
_V4 = _V3 | frozenset("avx512f avx512cd avx512dq avx512bw avx512vl".split())
_ICX_ISA = _V4 | frozenset("avx512ifma avx512vbmi avx512_vbmi2 avx512_vnni avx512_bitalg "
                           "avx512_vpopcntdq".split())
#: Flags (/proc/cpuinfo names) each -march switches on that the benchmark's host check
#: (kerncraft/benchmark/hostcheck.py, ISA_MACROS) compares with the CPU's: gcc's
#: per-march ISA lists, restricted to those flags.
_MARCH_FLAGS = {
    "sandybridge": frozenset({"avx"}), "ivybridge": frozenset({"avx", "f16c"}),
    "haswell": _V3, "broadwell": _V3, "skylake": _V3, "alderlake": _V3 | {"avx_vnni"},
    "skylake-avx512": _V4, "cascadelake": _V4 | {"avx512_vnni"}, "icelake-server": _ICX_ISA,
    "sapphirerapids": _ICX_ISA | {"avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile"},
    "znver1": _V3, "znver2": _V3, "znver3": _V3 | {"vaes", "vpclmulqdq"},
    "znver4": _ICX_ISA | {"avx512_bf16", "vaes", "vpclmulqdq"},
    "znver5": _ICX_ISA | {"avx512_bf16", "vaes", "vpclmulqdq", "avx_vnni",
                          "avx512_vp2intersect"},
}
_MARCH_FLAGS["emeraldrapids"] = _MARCH_FLAGS["graniterapids"] = _MARCH_FLAGS["sapphirerapids"]
#: The flags that define an x86-64 ISA level for this package (flops_per_cycle reads
#: avx512f for the vector width; avx2 and fma make the v3 level, SSE4.2 and POPCNT v2).
_LEVEL_FLAGS = {"x86-64-v2": frozenset({"sse4_2", "popcnt"}),
                "x86-64-v3": frozenset({"avx2", "fma"}),
                "x86-64-v4": frozenset({"avx2", "fma", "avx512f"})}


def missing_for_march(march: str, flags: frozenset[str]) -> tuple[str, ...]:
    """Flags ``-march=MARCH`` switches on that ``flags`` lack (unknown march: none)."""
    return tuple(sorted(_MARCH_FLAGS.get(march, frozenset()) - flags))


def missing_for_level(level: str, flags: frozenset[str]) -> tuple[str, ...]:
    """Defining flags of the x86-64 ISA level (see :data:`_LEVEL_FLAGS`) that ``flags`` lack."""
    return tuple(sorted(_LEVEL_FLAGS.get(level, frozenset()) - flags))
