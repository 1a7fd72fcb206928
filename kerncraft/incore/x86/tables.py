"""Data tables behind :mod:`kerncraft.incore.x86.semantics`.

The semantics module applies one default rule to every AT&T instruction (last
operand is the destination, the others are sources; see that module). These
tables list the instructions that deviate from it, each with the reason. Facts
are from the Intel SDM Vol. 2 (instruction reference) and Vol. 1 Appendix A
(EFLAGS cross-reference) and from Intel's optimization manual (zero idioms).

Mnemonics in the tables are *cores*: AT&T size suffix and ``lock``/``rep``
prefixes removed (``addq`` -> ``add``), see ``semantics.mnemonic_core``.
"""
from __future__ import annotations

C, Z, S, O, P, A = "flag.c", "flag.z", "flag.s", "flag.o", "flag.p", "flag.a"

#: The six status flags tracked as separate dependency keys. DF/IF/TF are not
#: tracked: compilers set DF once per function, never inside a loop.
ALL_FLAGS: frozenset[str] = frozenset({C, Z, S, O, P, A})
_NOT_C = ALL_FLAGS - {C}
_NOT_Z = ALL_FLAGS - {Z}

#: Flags read by each condition code (jcc / setcc / cmovcc), SDM Vol. 1 B.1.
CONDITION_FLAGS: dict[str, frozenset[str]] = {}
for _names, _flags in (
        (("o", "no"), {O}),
        (("b", "c", "nae", "ae", "nb", "nc"), {C}),
        (("e", "z", "ne", "nz"), {Z}),
        (("be", "na", "a", "nbe"), {C, Z}),
        (("s", "ns"), {S}),
        (("p", "pe", "np", "po"), {P}),
        (("l", "nge", "ge", "nl"), {S, O}),
        (("le", "ng", "g", "nle"), {Z, S, O})):
    for _n in _names:
        CONDITION_FLAGS[_n] = frozenset(_flags)

#: Flags *written* per mnemonic core. Flags the SDM calls "undefined" after an
#: instruction are counted as written: the hardware does produce a new value, so
#: a later reader cannot depend on an older writer through them.
FLAG_WRITES: dict[str, frozenset[str]] = {
    **{m: ALL_FLAGS for m in (
        "add", "sub", "adc", "sbb", "cmp", "neg", "and", "or", "xor", "test",
        "mul", "imul", "div", "idiv",           # OF/CF defined, rest undefined
        "shl", "sal", "shr", "sar", "shld", "shrd",   # for a non-zero count
        "bsf", "bsr", "popcnt", "lzcnt", "tzcnt",
        "andn", "bextr", "blsi", "blsr", "blsmsk", "bzhi",
        "cmpxchg", "cmpxchg8b", "cmpxchg16b", "xadd",
        "ucomisd", "ucomiss", "comisd", "comiss", "vucomisd", "vucomiss",
        "vcomisd", "vcomiss", "vucomish", "vcomish",
        "ptest", "vptest", "vtestps", "vtestpd", "kortest", "ktest",
        "pcmpistri", "pcmpestri", "pcmpistrm", "pcmpestrm",
        "vpcmpistri", "vpcmpestri", "vpcmpistrm", "vpcmpestrm",
        "cmps", "scas", "popf", "popfq")},
    # inc/dec leave CF alone: the reason 'inc' + 'adc' loops work, and the
    # reason of a partial-flag merge when a later instruction reads all flags.
    "inc": _NOT_C, "dec": _NOT_C,
    # rotates touch only CF and OF.
    "rol": frozenset({C, O}), "ror": frozenset({C, O}),
    "rcl": frozenset({C, O}), "rcr": frozenset({C, O}),
    # bit tests: CF = selected bit, ZF unchanged, the rest undefined.
    "bt": _NOT_Z, "bts": _NOT_Z, "btr": _NOT_Z, "btc": _NOT_Z,
    # ADX: the two carry chains of multi-precision arithmetic.
    "adcx": frozenset({C}), "adox": frozenset({O}),
    "clc": frozenset({C}), "stc": frozenset({C}), "cmc": frozenset({C}),
    "sahf": frozenset({S, Z, A, P, C}),
}

#: Flags *read* per mnemonic core (condition-code mnemonics are handled by
#: CONDITION_FLAGS, shifts by %cl in the semantics module).
FLAG_READS: dict[str, frozenset[str]] = {
    "adc": frozenset({C}), "sbb": frozenset({C}),   # the SUACA adc chain
    "rcl": frozenset({C}), "rcr": frozenset({C}),
    "adcx": frozenset({C}), "adox": frozenset({O}),
    "cmc": frozenset({C}),
    "lahf": frozenset({S, Z, A, P, C}),
    "pushf": ALL_FLAGS, "pushfq": ALL_FLAGS,
}

#: Instructions that only compare: all explicit operands are read, the result
#: goes to flags (or nowhere), nothing is written back to an operand.
READ_ONLY: frozenset[str] = frozenset({
    "cmp", "test", "bt",
    "ucomisd", "ucomiss", "comisd", "comiss", "vucomisd", "vucomiss",
    "vcomisd", "vcomiss", "vucomish", "vcomish",
    "ptest", "vptest", "vtestps", "vtestpd", "kortest", "ktest",
    "push", "jmp", "call",          # (push/call stack effects are added separately)
    "ldmxcsr", "vldmxcsr",
})

#: Instructions with no data effect worth modelling: padding nops (their memory
#: operand is never accessed), fences, hints, vzeroupper (the upper-state change
#: is a mode switch, not a data dependency the analyzer can use).
NO_EFFECT: frozenset[str] = frozenset({
    "nop", "endbr64", "endbr32", "pause", "lfence", "mfence", "sfence",
    "vzeroupper", "vzeroall", "ud2", "int3", "hlt", "emms",
    "prefetchnta", "prefetcht0", "prefetcht1", "prefetcht2", "prefetchw",
    "prefetchwt1", "clflush", "clflushopt", "clwb", "cldemote",
})

#: Prefetch-like instructions: no register effect, but their address registers
#: are still read (the analyzer may want the address dependency).
ADDRESS_ONLY: frozenset[str] = frozenset({
    "prefetchnta", "prefetcht0", "prefetcht1", "prefetcht2", "prefetchw",
    "prefetchwt1", "clflush", "clflushopt", "clwb", "cldemote",
})

#: Non-VEX instructions whose destination is written *without* being read.
#: Everything else without a 'v' prefix (2-operand GPR arithmetic, legacy SSE
#: arithmetic, cmov, and legacy SSE instructions that write only part of the
#: 128-bit register: cvtsi2sd, sqrtsd, movss reg-reg, pinsr*, ...) reads its
#: destination. Note on legacy SSE: these write all 128 bits, so there is no
#: dependency on the old xmm value; bits 255:128 they preserve are *not* modelled
#: as a dependency (hardware tracks the upper halves separately, and compilers
#: separate SSE and AVX code with vzeroupper).
WRITE_ONLY: frozenset[str] = frozenset({
    "mov", "movabs", "lea", "movsx", "movsxd", "movzx", "movbe", "setcc",
    "pop", "rdrand", "rdseed", "rdpid", "stmxcsr", "vstmxcsr",
    "popcnt", "lzcnt", "tzcnt",          # (false output dependency on some
                                         # Intel parts is not architectural)
    "movd", "movq", "movaps", "movapd", "movups", "movupd", "movdqa", "movdqu",
    "movntdq", "movntps", "movntpd", "movnti", "movntdqa", "movntq", "lddqu",
    "movddup", "movshdup", "movsldup", "movmskps", "movmskpd", "pmovmskb",
    "movq2dq", "movdq2q",
    "pshufd", "pshufhw", "pshuflw", "pabsb", "pabsw", "pabsd",
    "sqrtps", "sqrtpd", "rcpps", "rsqrtps", "roundps", "roundpd",
    "cvtdq2pd", "cvtdq2ps", "cvtpd2dq", "cvtpd2ps", "cvtps2dq", "cvtps2pd",
    "cvttpd2dq", "cvttps2dq", "cvtsd2si", "cvtss2si", "cvttsd2si", "cvttss2si",
    "cvtpd2pi", "cvttpd2pi", "cvtpi2pd", "cvtps2pi", "cvttps2pi",
    "pmovsxbw", "pmovsxbd", "pmovsxbq", "pmovsxwd", "pmovsxwq", "pmovsxdq",
    "pmovzxbw", "pmovzxbd", "pmovzxbq", "pmovzxwd", "pmovzxwq", "pmovzxdq",
    "phminposuw", "aesimc", "aeskeygenassist", "sha1msg1",
    "extractps", "pextrb", "pextrw", "pextrd", "pextrq",
    # VEX-encoded GPR instructions (BMI1/2) are non-destructive like all VEX.
    "andn", "bextr", "bzhi", "pdep", "pext", "sarx", "shlx", "shrx", "rorx",
    "blsi", "blsr", "blsmsk",
    # AVX-512 mask-register instructions are VEX-encoded as well.
    "kmov", "kand", "kandn", "kor", "kxor", "kxnor", "knot", "kadd",
    "kshiftl", "kshiftr", "kunpckbw", "kunpckwd", "kunpckdq",
})

#: VEX/EVEX instructions that, unlike the VEX default, also read their
#: destination operand (accumulators and in-place permutes).
READS_DEST_PREFIXES: tuple[str, ...] = (
    "vfmadd", "vfmsub", "vfnmadd", "vfnmsub",   # FMA3 (132/213/231 all read dst)
    "vpdpbusd", "vpdpwssd", "vpdpbssd", "vpdpbsud", "vpdpbuud",   # VNNI dot products
    "vpdpwsud", "vpdpwusd", "vpdpwuud", "vdpbf16ps", "vdpphps",
    "vpermt2", "vpermi2",                       # table/index operand is dst
    "vpternlog",                                # dst is one of the 3 inputs
    "vfixupimm", "vpshldv", "vpshrdv",
    "vpmadd52luq", "vpmadd52huq",
    "vfcmaddc", "vfmaddc",                      # FP16 complex FMA
    "vgather", "vpgather",                      # merge into dst under mask
    "vp4dpwssd", "v4fmadd", "v4fnmadd",
)

#: FMA4 (AMD, four operands) is non-destructive and must not match the FMA3 rule.
FMA4_OPERAND_COUNT = 4

#: Zero idioms: with both sources the same register the result is 0 whatever
#: the register held, and Intel/AMD cores resolve them at rename without waiting
#: for the old value (Intel optimization manual, "dependency-breaking idioms").
ZERO_IDIOMS: frozenset[str] = frozenset({
    "xor", "sub",
    "pxor", "vpxor", "vpxord", "vpxorq",
    "xorps", "xorpd", "vxorps", "vxorpd",
    "psubb", "psubw", "psubd", "psubq", "vpsubb", "vpsubw", "vpsubd", "vpsubq",
    "pcmpgtb", "pcmpgtw", "pcmpgtd", "pcmpgtq",
    "vpcmpgtb", "vpcmpgtw", "vpcmpgtd", "vpcmpgtq",
    "pandn", "vpandn", "vpandnd", "vpandnq",
    "andnps", "andnpd", "vandnps", "vandnpd",
})

#: All-ones idioms: pcmpeq x,x always yields all ones; Intel cores still execute
#: them on a vector port but do not wait for the old register value.
ONES_IDIOMS: frozenset[str] = frozenset({
    "pcmpeqb", "pcmpeqw", "pcmpeqd", "pcmpeqq",
    "vpcmpeqb", "vpcmpeqw", "vpcmpeqd", "vpcmpeqq",
})

#: ``sbb r,r`` yields 0 or -1 from CF alone: register dependency broken, CF kept.
CARRY_ONLY_IDIOMS: frozenset[str] = frozenset({"sbb"})

#: Shifts/rotates: with a %cl count of 0 the flags are left unchanged, so the
#: new flags depend on the old ones (the reason these are multi-uop on Intel).
SHIFTS: frozenset[str] = frozenset({"shl", "sal", "shr", "sar", "rol", "ror", "rcl",
                                    "rcr", "shld", "shrd"})

#: Mnemonic cores that are spelled with an AT&T size suffix (b/w/l/q) and must
#: have it removed before table lookup. Listed explicitly because blindly
#: stripping a trailing 'l'/'q'/'b'/'w' would break 'cmovl', 'setb', 'psubb'.
SUFFIXED_CORES: frozenset[str] = frozenset({
    "add", "sub", "adc", "sbb", "and", "or", "xor", "cmp", "test", "neg", "not",
    "inc", "dec", "mul", "imul", "div", "idiv", "shl", "sal", "shr", "sar", "rol",
    "ror", "rcl", "rcr", "shld", "shrd", "bt", "bts", "btr", "btc", "bsf", "bsr",
    "popcnt", "lzcnt", "tzcnt", "andn", "bextr", "blsi", "blsr", "blsmsk", "bzhi",
    "pdep", "pext", "sarx", "shlx", "shrx", "rorx", "mulx", "adcx", "adox", "mov",
    "movabs", "lea", "push", "pop", "xchg", "xadd", "cmpxchg", "bswap", "movbe",
    "crc32", "call", "ret", "jmp", "leave", "nop", "movs", "stos", "lods", "scas",
    "cmps", "movnti", "rdrand", "rdseed", "pushf", "popf", "enter", "ljmp", "lcall",
    "cvtsi2sd", "cvtsi2ss", "vcvtsi2sd", "vcvtsi2ss", "vcvtusi2sd", "vcvtusi2ss",
    "cvtsd2si", "cvtss2si", "cvttsd2si", "cvttss2si", "vcvtsd2si", "vcvtss2si",
    "vcvttsd2si", "vcvttss2si", "vcvtsd2usi", "vcvtss2usi", "vcvttsd2usi",
    "vcvttss2usi", "vcvtsi2sh", "vcvtusi2sh",
})

#: AVX-512 mask instructions: suffixes b/w/d/q (note: 'd', unlike GPR forms).
K_SUFFIXED_CORES: frozenset[str] = frozenset({
    "kmov", "kand", "kandn", "kor", "kxor", "kxnor", "knot", "kadd", "kortest",
    "ktest", "kshiftl", "kshiftr",
})

#: Legacy SSE scalar/partial moves whose register-register form merges into the
#: destination but whose load form zeroes the rest of the register.
MERGING_MOVES: frozenset[str] = frozenset({"movss", "movsd", "movsh",
                                           "movlpd", "movhpd", "movlps", "movhps"})

#: Legacy SSE4.1 variable blends read xmm0 implicitly as the selector.
IMPLICIT_XMM0: frozenset[str] = frozenset({"blendvpd", "blendvps", "pblendvb",
                                           "sha256rnds2"})
