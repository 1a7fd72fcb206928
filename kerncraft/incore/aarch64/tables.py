"""Data tables behind :mod:`kerncraft.incore.aarch64.semantics`.

The semantics module applies one default rule to every AArch64 instruction:
the **first operand is the destination**, all others are sources. These tables
list the instructions that deviate from it, each with the reason. Facts are
from the Arm Architecture Reference Manual for A-profile (A64 instruction
descriptions, condition codes in "Condition code checks") and the SVE
supplement; spellings are the GNU/LLVM assembler ones.
"""
from __future__ import annotations

import re

N, Z, C, V = "flag.n", "flag.z", "flag.c", "flag.v"
ALL_FLAGS: frozenset[str] = frozenset({N, Z, C, V})

#: Flags read by each condition code (Arm ARM, "Condition code checks"), plus
#: the SVE aliases used after ``ptest``/``whilelo`` (``b.first`` = ``b.mi`` ...).
CONDITION_FLAGS: dict[str, frozenset[str]] = {}
for _names, _flags in (
        (("eq", "ne", "none", "any"), {Z}),
        (("cs", "hs", "cc", "lo", "nlast", "last"), {C}),
        (("mi", "pl", "first", "nfrst"), {N}),
        (("vs", "vc"), {V}),
        (("hi", "ls", "pmore", "plast"), {C, Z}),
        (("ge", "lt", "tcont", "tstop"), {N, V}),
        (("gt", "le"), {N, Z, V}),
        (("al", "nv"), set())):
    for _n in _names:
        CONDITION_FLAGS[_n] = frozenset(_flags)

#: Instructions that set NZCV (the S-suffixed arithmetic, compares, SVE
#: predicate generators). Their register destination, if any, follows the
#: default rule.
FLAG_WRITES: frozenset[str] = frozenset({
    "adds", "subs", "ands", "bics", "adcs", "sbcs", "negs", "ngcs",
    "cmp", "cmn", "tst", "ccmp", "ccmn", "fcmp", "fcmpe", "fccmp", "fccmpe",
    "ptest", "ptrues", "pfirst", "pnext", "brkas", "brkbs", "brkns", "brkpas", "brkpbs",
    "whilelo", "whilels", "whilelt", "whilele", "whilehi", "whilehs", "whilegt",
    "whilege", "whilerw", "whilewr", "rdffrs", "eors", "nands", "nors", "orns", "orrs",
})

#: Instructions reading the carry flag (multi-precision arithmetic).
CARRY_READERS: frozenset[str] = frozenset({"adc", "adcs", "sbc", "sbcs", "ngc", "ngcs"})

#: Instructions with a condition operand (read flags per condition code).
CONDITIONAL: frozenset[str] = frozenset({
    "csel", "csinc", "csinv", "csneg", "cset", "csetm", "cinc", "cinv", "cneg",
    "ccmp", "ccmn", "fcsel", "fccmp", "fccmpe",
})

#: Instructions that only compare: every operand is read, nothing but flags written.
COMPARES: frozenset[str] = frozenset({
    "cmp", "cmn", "tst", "ccmp", "ccmn", "fcmp", "fcmpe", "fccmp", "fccmpe", "ptest",
})

#: Branches and other instructions without a register destination operand.
#: ``cbz``/``tbz`` read their register; ``br``/``blr``/``ret`` read the target.
BRANCHES: frozenset[str] = frozenset({
    "b", "bl", "br", "blr", "ret", "cbz", "cbnz", "tbz", "tbnz",
    "braa", "brab", "blraa", "blrab", "retaa", "retab",
})

#: No data effect worth modelling: hints, barriers, padding.
NO_EFFECT: frozenset[str] = frozenset({
    "nop", "yield", "wfe", "wfi", "sev", "sevl", "isb", "dmb", "dsb", "hint", "csdb",
    "bti", "paciasp", "autiasp", "pacibsp", "autibsp", "xpaclri", "esb", "psb",
    "udf", "brk", "hlt", "svc", "clrex", "sb", "ssbb", "pssbb",
})

#: Prefetches: the address registers are used, no register or memory is written.
PREFETCHES: frozenset[str] = frozenset({
    "prfm", "prfum", "prfb", "prfh", "prfw", "prfd",
})

# --------------------------------------------------------------------- loads/stores
#: Load mnemonics (registers before the memory operand are written).
LOAD_RE = re.compile(
    r"^(ld(r|ur|p|np|tr|ar|apr|xr|axr|xp|axp|lar)[bh]?(s[bhw])?"   # ldr ldrb ldrsw ldp ldxr ...
    r"|ldrs[bhw]|ldurs[bhw]|ldpsw|ldtrs[bhw]"
    r"|ld[1-4]r?|ld[1-4][bhwdq]|ld1r[bhwdq]|ld1rq[bhwdq]|ld1s[bhw]|ld1rs[bhw]"
    r"|ldff1[bhwdq]|ldff1s[bhw]|ldnf1[bhwdq]|ldnf1s[bhw]|ldnt1[bhwdq]|ld1ro[bhwdq])$")
#: Store mnemonics (every register operand is read).
STORE_RE = re.compile(
    r"^(st(r|ur|p|np|tr|lr|llr|xr|lxr|xp|lxp|lur)[bh]?"
    r"|st[1-4]|st[1-4][bhwdq]|stnt1[bhwdq]|stz?gm?|stzg|st2g|stz2g)$")
#: Exclusive stores write a status register (their first operand).
STORE_STATUS: frozenset[str] = frozenset({
    "stxr", "stlxr", "stxp", "stlxp", "stxrb", "stxrh", "stlxrb", "stlxrh"})
#: Atomic memory operations (LSE): ``ld<op> Rs, Rt, [Xn]`` reads Rs, writes Rt and
#: reads+writes memory; ``swp`` likewise; ``cas Rs, Rt, [Xn]`` reads and writes Rs.
ATOMIC_RE = re.compile(
    r"^(ld(add|clr|eor|set|smax|smin|umax|umin)|swp|cas|casp)(a|al|l)?[bh]?$")
#: Structure loads whose lane form (``ld1 {v0.d}[1], [x0]``) merges into the
#: destination, so it is read as well.
LANE_LOADS: frozenset[str] = frozenset({"ld1", "ld2", "ld3", "ld4"})

# --------------------------------------------------------------- read destination
#: Instructions whose destination is also an input: accumulators, inserts,
#: bit-field inserts, narrowing "...2" forms writing the upper half, SVE
#: in-place increments.
READS_DEST: frozenset[str] = frozenset({
    "fmla", "fmls", "fmlal", "fmlal2", "fmlsl", "fmlsl2", "fcmla", "bfmlalb", "bfmlalt",
    "bfdot", "bfmmla", "fmmla",
    "mla", "mls", "sdot", "udot", "usdot", "sudot", "smmla", "ummla", "usmmla",
    "smlal", "smlal2", "umlal", "umlal2", "smlsl", "smlsl2", "umlsl", "umlsl2",
    "sqdmlal", "sqdmlal2", "sqdmlsl", "sqdmlsl2", "sqrdmlah", "sqrdmlsh",
    "saba", "uaba", "sabal", "sabal2", "uabal", "uabal2", "sadalp", "uadalp",
    "usra", "ssra", "ursra", "srsra", "sri", "sli",
    "bsl", "bit", "bif", "tbx", "ins", "movk", "bfi", "bfxil", "bfm", "bfc",
    "xtn2", "sqxtn2", "uqxtn2", "sqxtun2", "fcvtn2", "fcvtxn2", "bfcvtn2",
    "addhn2", "raddhn2", "subhn2", "rsubhn2",
    "shrn2", "rshrn2", "sqshrn2", "sqrshrn2", "uqshrn2", "uqrshrn2",
    "sqshrun2", "sqrshrun2",
    # SVE: accumulate / in-place forms
    "fmad", "fmsb", "fnmad", "fnmsb", "fnmla", "fnmls", "mad", "msb",
    "incb", "inch", "incw", "incd", "decb", "dech", "decw", "decd",
    "sqincb", "sqinch", "sqincw", "sqincd", "uqincb", "uqinch", "uqincw", "uqincd",
    "sqdecb", "sqdech", "sqdecw", "sqdecd", "uqdecb", "uqdech", "uqdecw", "uqdecd",
    "incp", "decp", "sqincp", "uqincp", "sqdecp", "uqdecp", "clasta", "clastb",
    "splice", "fadda",
})

#: Zero idioms: with both sources the same register the result is 0 whatever
#: the register held (``eor v0.16b, v0.16b, v0.16b``, ``sub x0, x0, x0``).
ZERO_IDIOMS: frozenset[str] = frozenset({"eor", "sub", "bic"})

#: The base condition codes; gcc spells conditional branches without the dot
#: (``bne``), which is only accepted for these (``bl``, ``bic`` are no branches).
BASE_CONDITIONS: frozenset[str] = frozenset({
    "eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt",
    "gt", "le", "al", "nv"})
