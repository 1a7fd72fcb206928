"""Parser for x86-64 assembly in Intel syntax (gcc/clang ``-masm=intel``).

An Intel instruction becomes the :class:`~kerncraft.incore.model.Instruction` the
AT&T parser makes of the same instruction, so that the semantics, the port-model
databases (keyed in AT&T operand order) and every analysis downstream see no
difference:

* operands in reverse order (Intel writes ``dest, src``; ``enter`` keeps its order,
  as in gas's AT&T);
* the AT&T size suffix where gcc writes one (``add rax, 4`` -> ``addq``): from the
  first general-purpose register or sized memory operand (``crc32``: the source);
* the AT&T spellings of sign/zero extensions (``movsx rax, DWORD PTR [..]`` ->
  ``movslq``, ``movzx eax, BYTE PTR`` -> ``movzbl``) and of ``cdqe``/``cqo``/
  ``cdq``/``cwde``/``cbw``/``cwd`` (``cltq``/``cqto``/``cltd``/``cwtl``/``cbtw``/
  ``cwtd``); string instructions with explicit operands (objdump's
  ``stos QWORD PTR es:[rdi],rax``) become the operand-less AT&T form (``stosq``);
* gcc's ``x``/``y``/``z`` width suffixes of the conversions whose register operands
  do not tell the width (``vcvtpd2ps xmm0, YMMWORD PTR [..]`` -> ``vcvtpd2psy``);
* AVX-512 decorations: ``{k1}`` is the write mask, ``{z}`` zeroing, ``{1to8}`` (and
  objdump's ``QWORD BCST``) a broadcast, ``{rn-sae}`` the rounding;
* immediates that a disassembler prints unsigned (``and rax,0xfffffffffffffffc``)
  as the signed value gcc writes (``-4``).

:func:`parse_intel` reads a whole file and follows ``.intel_syntax`` /
``.att_syntax`` switches, so inline assembly of the other syntax works too.
"""
from __future__ import annotations

import re

from kerncraft.errors import AssemblyError
from kerncraft.incore import registers
from kerncraft.incore.asmtext import split_top_level
from kerncraft.incore.model import AsmLine, Immediate, Instruction, Memory, Operand, Register
from kerncraft.incore.x86 import parser as att
from kerncraft.incore.x86.intel_operands import IntelOperand, parse_intel_operand
from kerncraft.incore.x86.lines import (KEPT_PREFIXES, comment_state, LineError, located_error,
                                        parse_line, split_prefixes)
from kerncraft.incore.x86.tables import SUFFIXED_CORES

__all__ = ["parse_intel", "parse_intel_instruction", "signed_immediates"]

_MNEMONIC_RE = re.compile(r"([A-Za-z][\w.]*)(?:,(p[tn]))?(?=\s|$)")
_MASK_RE = re.compile(r"%?k[0-7]")
_SUFFIX = {8: "b", 16: "w", 32: "l", 64: "q"}
_GPR = frozenset({"r8", "r16", "r32", "r64"})
_VECTOR_BITS = {"xmm": 128, "ymm": 256, "zmm": 512}

#: Intel names of the sign extensions of rax, by their AT&T names.
_ALIASES = {"cdqe": "cltq", "cqo": "cqto", "cdq": "cltd", "cwde": "cwtl", "cbw": "cbtw",
            "cwd": "cwtd"}
#: Mnemonics gcc writes without a size suffix although the core takes one (gcc 12:
#: branches, and the VEX-encoded BMI forms, bswap, movnti, rdrand).
_NO_SUFFIX = frozenset({"call", "ret", "jmp", "leave", "ljmp", "lcall", "enter",
                        "andn", "bextr", "blsi", "blsr", "blsmsk", "bzhi", "pdep", "pext",
                        "sarx", "shlx", "shrx", "rorx", "mulx", "adcx", "adox", "bswap",
                        "movnti", "rdrand", "rdseed"})
_STRING_OPS = frozenset({"movs", "stos", "lods", "scas", "cmps"})
#: Operand order that gas keeps in AT&T syntax (two immediates).
_KEEP_ORDER = frozenset({"enter"})
#: Conversions whose register operands do not show the source width: gcc's AT&T
#: output adds 'x' (128 bit) or 'y' (256 bit); for 512 bit nothing (checked with
#: gcc 12 for vcvtpd2ps, vcvttpd2dq, vcvtqq2ps, vcvtpd2udq).
_XY_SUFFIXED = frozenset({"vcvtpd2dq", "vcvttpd2dq", "vcvtpd2ps", "vcvtpd2udq",
                          "vcvttpd2udq", "vcvtqq2ps", "vcvtuqq2ps"})
#: ... and these get 'x', 'y' or 'z' (vfpclassps/pd, gcc 12).
_XYZ_SUFFIXED = frozenset({"vfpclassps", "vfpclasspd"})


def _width(iop: IntelOperand) -> int | None:
    """Bits of a general-purpose register or a sized memory operand, else None."""
    op = iop.operand
    if isinstance(op, Register):
        info = registers.register_info(op.name, "x86")
        return registers.register_width(op.name, "x86") if info.cls in _GPR else None
    return iop.size if isinstance(op, Memory) else None


def _operand_size(core: str, ops: list[IntelOperand]) -> int | None:
    """The size AT&T spells in the suffix: the first GPR or sized memory operand
    (the destination, for most instructions); crc32 is named by its source."""
    for iop in (reversed(ops) if core == "crc32" else ops):
        width = _width(iop)
        if width is not None:
            return width
    return None


def _vector_bits(iop: IntelOperand) -> int | None:
    op = iop.operand
    if isinstance(op, Register):
        return _VECTOR_BITS.get(registers.register_class(op.name, "x86"))
    if isinstance(op, Memory) and op.broadcast and iop.size:
        return iop.size * int(op.broadcast[3:])
    return iop.size if isinstance(op, Memory) else None


def _att_mnemonic(name: str, ops: list[IntelOperand]) -> tuple[str, bool]:
    """The AT&T mnemonic of Intel ``name`` and whether its operands are dropped."""
    if name in _ALIASES:
        return _ALIASES[name], False
    if name in ("movsx", "movzx", "movsxd") and len(ops) == 2:
        dst, src = _width(ops[0]), _width(ops[1])
        if dst in _SUFFIX and src in _SUFFIX and src < dst:
            return f"mov{name[3]}{_SUFFIX[src]}{_SUFFIX[dst]}", False
        return name, False
    if name in _STRING_OPS and ops:
        size = max((w for w in map(_width, ops) if w), default=None)
        return (name + _SUFFIX[size], True) if size in _SUFFIX else (name, False)
    if not ops and name[:-1] in _STRING_OPS and name.endswith("d"):
        return name[:-1] + "l", False          # stosd, movsd (string) -> stosl, movsl
    if name in _XY_SUFFIXED or name in _XYZ_SUFFIXED:
        bits = _vector_bits(ops[1]) if len(ops) > 1 else None
        letters = {128: "x", 256: "y"} if name in _XY_SUFFIXED else \
            {128: "x", 256: "y", 512: "z"}
        return name + letters.get(bits, ""), False
    if name in SUFFIXED_CORES and name not in _NO_SUFFIX:
        size = _operand_size(name, ops)
        if size is None and name in ("push", "pop"):
            size = 64                   # push 5: the stack slot is 64 bits wide
        if size in _SUFFIX:
            return name + _SUFFIX[size], False
    return name, False


def signed_immediates(instr: Instruction) -> Instruction:
    """``instr`` with immediates printed unsigned (objdump: ``0xfffffffc`` for -4)
    read as the signed value of the operand size, as compilers write them."""
    gprs = [registers.register_width(op.name, "x86") for op in instr.operands
            if isinstance(op, Register) and registers.register_class(op.name, "x86") in _GPR]
    name = instr.mnemonic.rsplit(" ", 1)[-1]
    if name in SUFFIXED_CORES and gprs:         # add rax, imm: the register's size
        bits: int | None = gprs[-1]
    elif name[:-1] in SUFFIXED_CORES:           # addq $imm, mem: the suffix's size
        bits = {"b": 8, "w": 16, "l": 32, "q": 64}.get(name[-1:])
    else:
        return instr
    if bits is None or not any(isinstance(op, Immediate) and isinstance(op.value, int)
                               and op.value >= 1 << (bits - 1) for op in instr.operands):
        return instr
    ops = tuple(Immediate(op.value - (1 << bits)) if isinstance(op, Immediate)
                and isinstance(op.value, int) and (1 << (bits - 1)) <= op.value < (1 << bits)
                else op for op in instr.operands)
    return Instruction(instr.mnemonic, ops, instr.line_number, instr.text, instr.mask,
                       instr.zeroing, instr.rounding)


def _operands(operand_text: str, name: str, text: str,
              decor: att.Decorations) -> list[IntelOperand]:
    """Parse the comma-separated operands (Intel order) of mnemonic ``name``;
    decorations go to ``decor``."""
    branch = name in att.BRANCH_MNEMONICS
    result: list[IntelOperand] = []
    for part in split_top_level(operand_text):
        core, decorations = att.strip_decorations(part)
        decorations = tuple("%" + d.lstrip("%") if _MASK_RE.fullmatch(d) else d
                            for d in decorations)
        broadcast = decor.take(decorations)
        if not core:
            if decorations:
                continue        # clang's standalone '{rn-sae}' operand
            raise LineError(f"empty operand in '{operand_text}'")
        try:
            iop = parse_intel_operand(core, branch)
        except (ValueError, AssemblyError) as exc:
            msg = exc.message if isinstance(exc, AssemblyError) else str(exc)
            raise LineError(msg, text.find(core) + 1 if core in text else None) from None
        if isinstance(iop.operand, Memory):
            att.check_displacement(iop.operand, name, core, text)
        result.append(_with_broadcast(iop, broadcast, result))
    return result


def _with_broadcast(iop: IntelOperand, broadcast: str | None,
                    earlier: list[IntelOperand]) -> IntelOperand:
    """Attach ``{1toN}`` (or objdump's ``BCST``, N = vector bits / element bits)."""
    if iop.bcst and broadcast is None:
        widest = max((b for b in map(_vector_bits, earlier) if b), default=None)
        if widest and iop.size:
            broadcast = f"1to{widest // iop.size}"
        else:
            raise LineError("BCST memory operand without a vector register operand")
    if broadcast is None:
        return iop
    if not isinstance(iop.operand, Memory):
        raise LineError(f"broadcast {{{broadcast}}} on a non-memory operand")
    mem = iop.operand
    return IntelOperand(Memory(mem.base, mem.index, mem.scale, mem.displacement, mem.symbol,
                               mem.segment, broadcast), iop.size, iop.bcst)


def parse_intel_instruction(statement: str, line_number: int, text: str) -> Instruction:
    """Parse an Intel ``[prefixes] mnemonic [operand, ...]`` into the
    :class:`Instruction` of the equivalent AT&T statement; ``text`` is the stripped
    source line (columns of errors count in it). Raises
    :class:`~kerncraft.incore.x86.lines.LineError`."""
    prefixes, rest = split_prefixes(statement)
    m = _MNEMONIC_RE.match(rest)
    if m is None:
        raise LineError(f"cannot parse instruction '{statement}'")
    name = m.group(1).lower()
    kept = [p for p in prefixes if p in KEPT_PREFIXES]
    if name in att.REP_NOOP_BEFORE:
        kept = [p for p in kept if not p.startswith("rep")]
    decor = att.Decorations()
    operand_text = rest[m.end():].strip()
    ops = _operands(operand_text, name, text, decor) if operand_text else []
    mnemonic, drop = _att_mnemonic(name, ops)
    operands: tuple[Operand, ...] = () if drop else tuple(
        iop.operand for iop in (ops if name in _KEEP_ORDER else reversed(ops)))
    instr = Instruction(mnemonic=" ".join(kept + [mnemonic]), operands=operands,
                        line_number=line_number, text=text, mask=decor.mask,
                        zeroing=decor.zeroing, rounding=decor.rounding)
    return signed_immediates(instr)


def parse_intel(text: str, filename: str | None = None, start: str = "intel") -> list[AsmLine]:
    """Parse x86-64 assembly that starts in ``start`` syntax ('intel' or 'att') and
    switches at ``.intel_syntax`` / ``.att_syntax``; one :class:`AsmLine` per line.

    Raises :class:`AssemblyError` with ``file:line:col`` on a line it cannot read.
    """
    parsers = {"intel": parse_intel_instruction, "att": att.parse_instruction}
    mode = start
    state = comment_state()
    result: list[AsmLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        try:
            line = parse_line(raw, number, state, parsers[mode])
        except (LineError, AssemblyError) as exc:
            raise located_error(exc, raw, number, filename) from None
        if line.directive is not None and line.directive[0] in (".intel_syntax",
                                                                 ".att_syntax"):
            mode = "intel" if line.directive[0] == ".intel_syntax" else "att"
        result.append(line)
    return result
