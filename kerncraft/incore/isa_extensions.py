"""Which ISA extensions an instruction form needs, and which a core has.

A port-model database names the extensions of its core in its header
(``extensions: [x86-64-v3, AES, PCLMUL]``; a level such as ``x86-64-v3`` or
``armv8.2-a`` stands for the extensions it includes, :data:`LEVELS`). Every form of
the database is classified here (:func:`form_extensions`) by its mnemonic and the
classes of its operands: a ``zmm`` or mask (``k``) operand is AVX-512, ``kmovb`` is
AVX512DQ, a ``ymm`` integer ``vp...`` op is AVX2, an SVE ``z``/``p`` operand is SVE, a
half-precision ``h`` operand of an FP op is FP16. The database loader drops inherited
forms the core cannot execute (Haswell extends Skylake-SP's file but has no
AVX-512) and refuses a file's own such forms; an instruction of a missing extension
is refused by name (:func:`describe_missing`).

>>> sorted(form_extensions("x86", "kmovb k,r32"))
['AVX512DQ']
>>> sorted(form_extensions("x86", "vpternlogd imm,ymm,ymm,ymm"))
['AVX512F', 'AVX512VL']
>>> sorted(form_extensions("aarch64", "ld1sw zd,p,mem"))
['SVE']
"""
from __future__ import annotations

import functools
import re
from typing import Iterable

from kerncraft.errors import KerncraftError

__all__ = ["X86_BASE", "A64_BASE", "LEVELS", "KNOWN_EXTENSIONS", "expand_extensions",
           "extensions_isa", "required_extensions", "form_extensions", "describe_missing"]

#: The extension every x86-64 core has (x86-64 with SSE, SSE2, CMOV, x87).
X86_BASE = "X86-64"
#: The extension every AArch64 core has (Armv8.0-A: A64 with FP and Advanced SIMD).
A64_BASE = "A64"

_X86_V2 = frozenset({X86_BASE, "SSE3", "SSSE3", "SSE4.1", "SSE4.2", "POPCNT"})
_X86_V3 = _X86_V2 | {"AVX", "AVX2", "BMI1", "BMI2", "F16C", "FMA", "LZCNT", "MOVBE"}
_X86_V4 = _X86_V3 | {"AVX512F", "AVX512BW", "AVX512CD", "AVX512DQ", "AVX512VL"}
_A64_V81 = frozenset({A64_BASE, "CRC", "LSE", "RDM"})
_A64_V83 = _A64_V81 | {"RCPC"}
_A64_V84 = _A64_V83 | {"RCPC2", "DOTPROD"}
#: Named levels: gcc's x86-64 micro-architecture levels and Arm architecture versions
#: (only the extensions this module classifies; optional ones are named beside them).
LEVELS: dict[str, frozenset[str]] = {
    "X86-64": frozenset({X86_BASE}), "X86-64-V2": _X86_V2, "X86-64-V3": _X86_V3,
    "X86-64-V4": _X86_V4,
    "ARMV8-A": frozenset({A64_BASE}), "ARMV8.1-A": _A64_V81, "ARMV8.2-A": _A64_V81,
    "ARMV8.3-A": _A64_V83, "ARMV8.4-A": _A64_V84, "ARMV9-A": _A64_V84 | {"SVE", "SVE2"},
}
_X86_EXTENSIONS = _X86_V4 | {
    "FMA4", "ADX", "PRFCHW", "SSE4A", "AES", "PCLMUL", "SHA", "RDRND", "RDSEED", "GFNI",
    "VAES", "VPCLMULQDQ", "AVXVNNI", "AVX512VBMI", "AVX512IFMA", "AVX512VNNI",
    "AVX512VBMI2", "AVX512BITALG", "AVX512VPOPCNTDQ", "AVX512BF16", "AVX512FP16",
    "AVX512VP2INTERSECT"}
_A64_EXTENSIONS = _A64_V84 | {"FP16", "SVE", "SVE2", "BF16", "I8MM"}
#: Every extension name a database header may use.
KNOWN_EXTENSIONS = _X86_EXTENSIONS | _A64_EXTENSIONS


def expand_extensions(names: Iterable[str], where: str) -> frozenset[str]:
    """The extension set of a header list (levels expanded, names upper-cased).
    KerncraftError naming ``where`` for an unknown name or a mix of both ISAs."""
    out: set[str] = set()
    for raw in names:
        name = str(raw).strip().upper()
        if name in LEVELS:
            out |= LEVELS[name]
        elif name in KNOWN_EXTENSIONS:
            out.add(name)
        else:
            raise KerncraftError(f"{where}: unknown ISA extension {raw!r} (levels: "
                                 f"{', '.join(sorted(LEVELS)).lower()}; extensions: "
                                 f"{', '.join(sorted(KNOWN_EXTENSIONS))})")
    if out & _A64_EXTENSIONS and out & _X86_EXTENSIONS:
        raise KerncraftError(f"{where}: 'extensions' mixes x86 and AArch64 names")
    out.add(A64_BASE if out & _A64_EXTENSIONS else X86_BASE)
    return frozenset(out)


def extensions_isa(extensions: frozenset[str]) -> str:
    """'aarch64' for an AArch64 extension set, else 'x86'."""
    return "aarch64" if A64_BASE in extensions else "x86"


@functools.lru_cache(maxsize=8192)
def form_extensions(isa: str, form_key: str) -> frozenset[str]:
    """The extensions a form key (``'vaddpd zmm,zmm,zmm'``) needs."""
    mnemonic, _, ops = form_key.strip().partition(" ")
    return required_extensions(isa, mnemonic, tuple(t for t in ops.split(",") if t))


def required_extensions(isa: str, mnemonic: str, types: tuple[str, ...]) -> frozenset[str]:
    """The extensions an instruction needs, from its mnemonic and operand classes."""
    mnemonic = mnemonic.lower()
    if isa.lower().startswith(("aarch64", "arm")):
        return frozenset({_a64_extension(mnemonic, types)})
    return _x86_extensions(mnemonic, types)


def describe_missing(form: str, arch: str, missing: Iterable[str],
                     hint: str = "compiled for another core?") -> str:
    """One line: ``'kmovb k,r32' is AVX512DQ code, which the HSW core does not have``."""
    return (f"'{form}' is {' + '.join(sorted(missing))} code, which the {arch} core does "
            f"not have ({hint})")


# ------------------------------------------------------------------ x86
class _LazyPattern:
    """A regular expression compiled at its first use: compiling the ~45 patterns of this
    module took ~15 ms at import, and a run whose port model comes from the disk store
    classifies only a handful of mnemonics (or none)."""

    __slots__ = ("_source", "_compiled")

    def __init__(self, source: str) -> None:
        self._source = source
        self._compiled: re.Pattern[str] | None = None

    def match(self, text: str) -> re.Match[str] | None:
        if self._compiled is None:
            self._compiled = re.compile(self._source)
        return self._compiled.match(text)


def _any(*patterns: str) -> _LazyPattern:
    return _LazyPattern("^(?:" + "|".join(patterns) + ")$")


# EVEX-only mnemonics (AVX-512 at every vector width), by the extension that has them
_EVEX = (
    ("AVX512VBMI", _any(r"vperm(t2|i2)?b", r"vpmultishiftqb")),
    ("AVX512IFMA", _any(r"vpmadd52[lh]uq")),
    ("AVX512VNNI", _any(r"vpdp(busd|wssd)s?")),
    ("AVX512VBMI2", _any(r"vp(compress|expand)[bw]", r"vpsh[lr]dv?[wdq]")),
    ("AVX512BITALG", _any(r"vpopcnt[bw]", r"vpshufbitqmb")),
    ("AVX512VPOPCNTDQ", _any(r"vpopcnt[dq]")),
    ("AVX512BF16", _any(r"vcvtne2?ps2bf16", r"vdpbf16ps")),
    ("AVX512VP2INTERSECT", _any(r"vp2intersect[dq]")),
    ("AVX512FP16", _any(r"v(?!cvtps2ph)[a-z0-9_]*[ps]h", r"vcvt\w*ph2(?!ps$)\w+",
                        r"vcvt(?!ps2ph$)\w+2ph")),
    ("AVX512CD", _any(r"vpconflict[dq]", r"vplzcnt[dq]", r"vpbroadcastm(b2q|w2d)")),
    ("AVX512DQ", _any(r"vpmullq", r"vcvtt?p[sd]2u?qq", r"vcvtu?qq2p[sd]",
                      r"v(insert|extract|broadcast)[fi](32x8|64x2)", r"vbroadcast[fi]32x2",
                      r"vfpclass[ps][sd]", r"vrange[ps][sd]", r"vreduce[ps][sd]",
                      r"vpmovm2[dq]", r"vpmov[dq]2m")),
    ("AVX512BW", _any(r"vmovdqu(8|16)", r"vperm[ti]2w", r"vpermw", r"vpblendm[bw]",
                      r"vps(ll|rl|ra)vw", r"vptestn?m[bw]", r"vpmovm2[bw]", r"vpmov[bw]2m",
                      r"vpmovu?s?wb", r"vdbpsadbw", r"vpcmpu?[bw]",
                      r"vpcmp(eq|lt|le|neq|nlt|nle|ge|gt|false|true)u[bw]",
                      r"vpcmp(lt|le|neq|nlt|nle|ge|false|true)[bw]")),
    ("AVX512F", _any(r"vmovdq[au](32|64)", r"vperm[ti]2(d|q|ps|pd)", r"vpternlog[dq]",
                     r"valign[dq]", r"vpblendm[dq]", r"vblendmp[sd]", r"vp(and|andn|or|xor)[dq]",
                     r"vpabsq", r"vp(max|min)[su]q", r"vpsrav?q", r"vpro[lr]v?[dq]",
                     r"v(compress|expand)p[sd]", r"vp(compress|expand)[dq]",
                     r"v(getexp|getmant|scalef|rndscale|rcp14|rsqrt14|fixupimm)[ps][sd]",
                     r"vcvtt?p[sd]2udq", r"vcvtudq2p[sd]", r"vcvtusi2s[sd][lq]?",
                     r"vcvtt?s[sd]2usi[lq]?", r"vpcmpu?[dq]",
                     r"vpcmp(eq|lt|le|neq|nlt|nle|ge|gt|false|true)u[dq]",
                     r"vpcmp(lt|le|neq|nlt|nle|ge|false|true)[dq]", r"vptestn?m[dq]",
                     r"vpmovu?s?(q[dwb]|d[wb])", r"v(insert|extract|broadcast)[fi](32x4|64x4)",
                     r"vshuf[fi](32x4|64x2)")),
)
# VEX mnemonics whose zmm (or masked) form is not AVX512F
_WIDE_BW = _any(r"vp(add|sub)(u?s)?[bw]", r"vpavg[bw]", r"vp(max|min)[su][bw]", r"vpabs[bw]",
                r"vpcmp(eq|gt)[bw]", r"vpmul(l|h|hu|hrs)w", r"vpmadd(wd|ubsw)", r"vpsadbw",
                r"vpshuf(b|hw|lw)", r"vpalignr", r"vpunpck[hl](bw|wd)", r"vpack(ss|us)(wb|dw)",
                r"vps(ll|rl|ra)w", r"vps[lr]ldq", r"vpbroadcast[bw]", r"vpmov[sz]xbw",
                r"vp(extr|insr)[bw]")
_WIDE_DQ = _any(r"v(and|andn|or|xor)p[sd]")
# scalar FP forms (no 'vp...' integer op is scalar): EVEX on xmm without AVX512VL
_SCALAR = _LazyPattern(r"^v(?!p)\w*(s[sdh]|2u?si[lq]?|u?si2s[sdh][lq]?)$")
_AVX2 = _any(r"vpbroadcast[bwdq]", r"vbroadcasti128", r"vperm2i128", r"v(insert|extract)i128",
             r"vperm(d|q|pd|ps)", r"vpblendd", r"vps(ll|rl)v[dq]", r"vpsravd", r"vpmaskmov[dq]",
             r"vgather[dq]p[sd]", r"vpgather[dq][dq]")
_YMM_AVX = _any(r"vptest", r"vpermilp[sd]", r"vperm2f128", r"vpclmulqdq")
_FMA = _any(r"vf(n?m(add|sub)|maddsub|msubadd)(132|213|231)[ps][sd]")
_FMA4 = _any(r"vf(n?m(add|sub)|maddsub|msubadd)[ps][sd]")
_VMX = _any(r"vm(call|launch|resume|xoff|xon|read|write|ptrld|ptrst|clear|func)", r"ver[rw]")
# Non-VEX instructions of the extensions beyond x86-64 (by their legacy mnemonic)
_LEGACY = (
    ("SSE3", _any(r"(addsub|hadd|hsub)p[sd]", r"movddup", r"movs[hl]dup", r"lddqu", r"fisttp[sl]?")),
    ("SSSE3", _any(r"pabs[bwd]", r"pshufb", r"ph(add|sub)(w|d|sw)", r"pmaddubsw", r"pmulhrsw",
                   r"palignr", r"psign[bwd]")),
    ("SSE4.1", _any(r"blendv?p[sd]", r"pblend(vb|w)", r"dpp[sd]", r"extractps", r"insertps",
                    r"movntdqa", r"mpsadbw", r"packusdw", r"pcmpeqq", r"pextr[bdq]", r"pinsr[bdq]",
                    r"pmax(sb|sd|ud|uw)", r"pmin(sb|sd|ud|uw)", r"pmov[sz]x(bw|bd|bq|wd|wq|dq)",
                    r"pmul(dq|ld)", r"ptest", r"phminposuw", r"round[ps][sd]")),
    ("SSE4.2", _any(r"pcmpgtq", r"pcmp[ei]str[im]", r"crc32[bwlq]?")),
    ("SSE4A", _any(r"extrq", r"insertq", r"movnts[sd]")),
    ("POPCNT", _any(r"popcnt[wlq]?")), ("LZCNT", _any(r"lzcnt[wlq]?")),
    ("BMI1", _any(r"andn[lq]?", r"bextr[lq]?", r"blsi[lq]?", r"blsmsk[lq]?", r"blsr[lq]?",
                  r"tzcnt[wlq]?")),
    ("BMI2", _any(r"(bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx)[lq]?")),
    ("MOVBE", _any(r"movbe[wlq]?")), ("ADX", _any(r"ado?x[lq]?", r"adcx[lq]?")),
    ("PRFCHW", _any(r"prefetchw")), ("RDRND", _any(r"rdrand[wlq]?")),
    ("RDSEED", _any(r"rdseed[wlq]?")),
    ("AES", _any(r"aes(enc|enclast|dec|declast|imc|keygenassist)")),
    ("PCLMUL", _any(r"pclmulqdq")), ("SHA", _any(r"sha(1|256)\w+")),
    ("GFNI", _any(r"gf2p8(affineinvqb|affineqb|mulb)")),
)
_KMASK = _LazyPattern(r"^k(add|and|andn|mov|not|or|ortest|shiftl|shiftr|test|xnor|xor)([bwdq])$")


def _x86_extensions(mnemonic: str, types: tuple[str, ...]) -> frozenset[str]:
    if _KMASK.match(mnemonic) or mnemonic.startswith("kunpck"):
        return frozenset({_mask_extension(mnemonic)})
    wide = "zmm" in types or "k" in types
    vectors = {t for t in types if t in ("xmm", "ymm", "zmm")}
    evex = next((ext for ext, pattern in _EVEX if pattern.match(mnemonic)), None)
    if evex is None and wide:
        evex = ("AVX512BW" if _WIDE_BW.match(mnemonic) else
                "AVX512DQ" if _WIDE_DQ.match(mnemonic) else "AVX512F")
    if evex is not None:
        needs = {evex}
        if "zmm" not in vectors and ("ymm" in vectors or
                                     (vectors and not _SCALAR.match(mnemonic))):
            needs.add("AVX512VL")       # an EVEX op on xmm/ymm registers
        return frozenset(needs)
    return frozenset({_vex_or_legacy(mnemonic, vectors, types)})


def _mask_extension(mnemonic: str) -> str:
    """Mask-register ops: word forms are AVX512F, byte forms (and kadd/ktest) AVX512DQ,
    doubleword/quadword forms AVX512BW."""
    if mnemonic.startswith("kunpck"):
        return "AVX512F" if mnemonic == "kunpckbw" else "AVX512BW"
    op, width = _KMASK.match(mnemonic).groups()
    if width == "w":
        return "AVX512DQ" if op in ("add", "test") else "AVX512F"
    return "AVX512DQ" if width == "b" else "AVX512BW"


def _vex_or_legacy(mnemonic: str, vectors: set[str], types: tuple[str, ...]) -> str:
    if mnemonic in ("vcvtph2ps", "vcvtps2ph"):
        return "F16C"
    if _FMA.match(mnemonic):
        return "FMA"
    if _FMA4.match(mnemonic):
        return "FMA4"
    if mnemonic.startswith(("vaes", "vpclmul")):
        return ("VAES" if mnemonic.startswith("vaes") else "VPCLMULQDQ") \
            if "ymm" in vectors else ("AES" if mnemonic.startswith("vaes") else "PCLMUL")
    if mnemonic.startswith("vgf2p8"):
        return "GFNI"
    if _AVX2.match(mnemonic):
        return "AVX2"
    if mnemonic in ("vbroadcastss", "vbroadcastsd") and types[:1] == ("xmm",):
        return "AVX2"                   # from a register; from memory it is AVX
    if "ymm" in vectors and (mnemonic.startswith("vp") and not _YMM_AVX.match(mnemonic)
                             or mnemonic in ("vmovntdqa", "vmpsadbw")):
        return "AVX2"                   # 256-bit integer ops
    if mnemonic.startswith("v") and not _VMX.match(mnemonic):
        return "AVX"
    return next((ext for ext, pattern in _LEGACY if pattern.match(mnemonic)), X86_BASE)


# ------------------------------------------------------------------ AArch64
_SVE_SCALAR = _any(r"(cnt|inc|dec)[bhwd]", r"[su]q(inc|dec)[bhwdp]", r"addvl", r"addpl", r"rdvl",
                   r"ptrues?", r"pfalse", r"ptest", r"pfirst", r"pnext", r"rdffrs?", r"setffr",
                   r"wrffr", r"whilel[eots]",
                   r"b\.(none|any|first|nfrst|last|nlast|pmore|plast|tcont|tstop)")
_SVE2 = _any(r"while(ge|gt|hi|hs|rw|wr)", r"histcnt", r"histseg", r"n?match", r"bcax", r"eor3",
             r"n?bsl[12]?n?", r"xar", r"r?(add|sub)hn[bt]", r"[su]q(xtu?n|r?shrn)[bt]",
             r"r?shrn[bt]", r"fcvt(lt|nt|x|xnt)", r"flogb", r"cdot", r"s?q?r?d?cmlah?",
             r"s?q?cadd", r"[su](add|sub)[lw][bt]", r"[su]ml[as]l[bt]", r"[su]mull[bt]",
             r"sqdml[as]l[bt]", r"sqdmull[bt]", r"[su]aba?l[bt]", r"[su]abd?l[bt]",
             r"[su]shll[bt]", r"[su]h(add|sub)r?", r"[su]rhadd", r"(f|s|u)?(max|min)(nm)?p",
             r"f?addp", r"[su]adalp", r"adcl[bt]", r"sbcl[bt]", r"tbx")
_LSE = _any(r"(ld|st)(add|clr|eor|set|smax|smin|umax|umin)a?l?[bh]?", r"swpa?l?[bh]?",
            r"casp?a?l?[bh]?")
_FP16_EXEMPT = _any(r"fcvt", r"fcvt[ln]2?")
_BF16 = _any(r"bfcvtn?2?", r"bfdot", r"bfmmla", r"bfmlal[bt]")     # not bfi/bfm/bfxil


def _a64_extension(mnemonic: str, types: tuple[str, ...]) -> str:
    sve_operands = any(t == "p" or t.startswith("z") for t in types)
    if sve_operands or _SVE_SCALAR.match(mnemonic):
        return "SVE2" if _SVE2.match(mnemonic) and sve_operands else "SVE"
    if mnemonic.startswith("ldapr"):
        return "RCPC"
    if mnemonic.startswith(("ldapur", "stlur")):
        return "RCPC2"
    if _LSE.match(mnemonic):
        return "LSE"
    if mnemonic.startswith("crc32"):
        return "CRC"
    if mnemonic in ("sqrdmlah", "sqrdmlsh"):
        return "RDM"
    if mnemonic in ("sdot", "udot"):
        return "DOTPROD"
    if mnemonic in ("smmla", "ummla", "usmmla", "usdot", "sudot"):
        return "I8MM"
    if _BF16.match(mnemonic):
        return "BF16"
    half = [t for t in types if t in ("h", "v8h", "v4h", "v.h")]
    if half and mnemonic.startswith(("f", "scvtf", "ucvtf")):
        # conversions between half and single/double precision are Armv8.0
        if not (_FP16_EXEMPT.match(mnemonic) and len(half) < len(types)):
            return "FP16"
    return A64_BASE
