"""Parser for AArch64 assembly as gcc, clang and armclang print it (GNU syntax).

Same design as the x86 parser: a line is split with string operations into
``label: statement // comment``; operands are split at top-level commas and
each distinct operand text is parsed once (memoised), because compiler output
repeats the same few operands (``[sp, 16]``, ``x0``) thousands of times.

What is accepted (and how it is represented):

* registers ``x0 w0 sp wsp xzr wzr``, SIMD&FP ``v0 q0 d0 s0 h0 b0`` with an
  arrangement (``v0.2d``) or a lane (``v1.d[1]``), SVE ``z0.d`` and predicates
  ``p0/z`` ``p0/m`` ``p0.d`` -> :class:`~.operands.A64Register` (``lane`` holds
  the suffix);
* register lists ``{v0.2d, v1.2d}``, ``{v0.2d-v3.2d}``, ``{v0.d}[1]`` -> one
  register operand per element (a list has no cost of its own; the form key
  then shows how many registers move: ``ld1 v2d,v2d,mem``);
* immediates with or without ``#`` (gcc prints ``add x0, x0, 16``), hex,
  floating point (``fmov d0, 2.5e+0``), relocations (``:lo12:.LC0``);
* memory ``[base]``, ``[base, #imm]``, ``[base, index{, lsl|sxtw|uxtw #n}]``,
  pre-index ``[base, #imm]!`` (``Memory.pre_index``), post-index ``[base], #imm``
  (folded into ``Memory.post_index``; a register post-increment as in
  ``ld1 {v0.2d}, [x0], x2`` becomes ``post_index=0`` followed by the register),
  literal loads ``ldr d0, .LC0`` (``Memory(symbol=...)``), SVE ``[x0, #1, mul vl]``
  (symbol ``'mul vl'``);
* shift/extend operands ``lsl #3``, ``sxtw`` -> :class:`~.operands.Shift`,
  condition operands of ``csel``/``ccmp``/``cset`` -> :class:`~.operands.Condition`;
* ``//`` comments, ``#`` comment lines, ``/* */`` blocks; labels, directives.

Mnemonics are kept as written, lower-cased (gcc's ``bne`` and clang's ``b.ne``
both stay), since the databases list both spellings.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import Iterable

from kerncraft.errors import AssemblyError, SourceLocation
from kerncraft.incore.aarch64 import operands as ops
from kerncraft.incore.aarch64 import tables as T
from kerncraft.incore.aarch64.operands import A64Register, Condition, Shift
from kerncraft.incore.model import AsmLine, Immediate, Instruction, Label, Memory
from kerncraft.incore.asmtext import BlockComments, split_top_level, unquoted

__all__ = ["parse_aarch64", "parse_operand", "detect_isa", "instructions", "operand_kind"]

_SYMBOL = r"[A-Za-z_.$][\w.$@]*"
_LABEL_RE = re.compile(rf'\s*({_SYMBOL}|\d+|"[^"]*")\s*:(?!:)')
_MNEMONIC_RE = re.compile(r"([A-Za-z][\w.]*)(?=\s|$)")
_REGISTER_RE = re.compile(r"([a-z]+\d*)(?:\.(\d*[bhsdq]))?(?:\[(\d+)\])?")
_PREDICATE_RE = re.compile(r"(p\d+)/([zm])")
_SHIFT_RE = re.compile(r"(lsl|lsr|asr|ror|msl|[su]xt[bhwx]|mul)(?:\s+#?\s*(.+))?")
_INT_RE = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|\d+)")
_FLOAT_RE = re.compile(r"[-+]?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|inf|nan)")
_RELOC_RE = re.compile(r":[a-z_0-9]+:\s*\S+")
_LIST_RE = re.compile(r"\{([^}]*)\}(?:\[(\d+)\])?")
_RANGE_RE = re.compile(r"([a-z])(\d+)(\.\w+)?\s*-\s*([a-z])(\d+)(\.\w+)?")


class _LineError(Exception):
    """Internal: a parse problem; converted to AssemblyError with the location."""


def operand_kind(mnemonic: str) -> str:
    """How bare symbols and condition names are read for ``mnemonic``:
    'branch' (a code label), 'memory' (a literal address of a load/store),
    'cond' (condition operands) or 'other' (a symbolic immediate)."""
    if mnemonic in T.BRANCHES or _is_cond_branch(mnemonic):
        return "branch"
    if mnemonic in T.PREFETCHES:
        return "other"              # 'prfm pldl1keep, [x0]': the operation is a name
    if T.LOAD_RE.match(mnemonic) or T.STORE_RE.match(mnemonic) or T.ATOMIC_RE.match(mnemonic):
        return "memory"
    if mnemonic in T.CONDITIONAL:
        return "cond"
    return "other"


def _is_cond_branch(mnemonic: str) -> bool:
    if mnemonic.startswith("b."):
        return mnemonic[2:] in T.CONDITION_FLAGS
    return mnemonic.startswith("b") and mnemonic[1:] in T.BASE_CONDITIONS


# --------------------------------------------------------------------------- numbers
def _number(text: str) -> int | float | None:
    """Integer or float literal (``16``, ``-0x10``, ``2.5e+0``), else None."""
    text = text.strip()
    if _INT_RE.fullmatch(text):
        sign = -1 if text.startswith("-") else 1
        body = text.lstrip("+-").lower()
        return sign * int(body, 16 if body.startswith("0x") else 10)
    if _FLOAT_RE.fullmatch(text):
        return float(text)
    return None


def _immediate(text: str) -> Immediate | None:
    """``#16``, ``16``, ``#1.0``, ``#:lo12:sym``, ``:lo12:sym`` -> Immediate."""
    body = text[1:].strip() if text.startswith("#") else text
    value = _number(body)
    if value is not None:
        return Immediate(value)
    if text.startswith("#") or _RELOC_RE.fullmatch(body):
        return Immediate(None, body)
    return None


# --------------------------------------------------------------------------- registers
def _register(name: str, lane: str | None = None) -> A64Register:
    if not ops.is_register(name):
        raise ValueError(f"unknown register '{name}'")
    return A64Register(name, lane)


def _try_register(text: str) -> A64Register | None:
    """A register with optional arrangement/lane/predicate qualifier, else None."""
    text = text.strip().lower()
    m = _PREDICATE_RE.fullmatch(text)
    if m:
        return _register(m.group(1), "/" + m.group(2))
    m = _REGISTER_RE.fullmatch(text)
    if m is None:
        return None
    name, arrangement, index = m.groups()
    if not ops.is_register(name):
        if ops.looks_like_register(name):
            raise ValueError(f"unknown register '{name}'")
        return None
    if index is not None:
        return _register(name, f"{arrangement or ''}[{index}]")
    return _register(name, arrangement)


def _register_list(inner: str, index: str | None) -> tuple[A64Register, ...]:
    """``v0.2d, v1.2d`` or ``v0.2d-v3.2d`` (+ lane index) -> registers."""
    regs: list[A64Register] = []
    for part in (p.strip() for p in inner.split(",") if p.strip()):
        m = _RANGE_RE.fullmatch(part)
        if m:
            letter, first, suffix, _, last, _ = m.groups()
            count = (int(last) - int(first)) % 32 + 1        # lists may wrap: v31-v1
            parts = [f"{letter}{(int(first) + k) % 32}{suffix or ''}" for k in range(count)]
        else:
            parts = [part]
        for text in parts:
            reg = _try_register(text + (f"[{index}]" if index is not None else ""))
            if reg is None:
                raise ValueError(f"not a register in a register list: '{text}'")
            regs.append(reg)
    if not regs:
        raise ValueError("empty register list")
    return tuple(regs)


# --------------------------------------------------------------------------- memory
def _memory(inner: str, pre_index: bool) -> Memory:
    """Contents of ``[...]``: base, then an offset or an index (+ extend/shift)."""
    parts = split_top_level(inner)
    base = _try_register(parts[0])
    if base is None:
        raise ValueError(f"memory base must be a register: '[{inner}]'")
    mem = Memory(base=base, pre_index=pre_index)
    rest = parts[1:]
    if not rest:
        return mem
    offset = rest[0]
    reg = _try_register(offset)
    if reg is not None:
        mem = dataclasses.replace(mem, index=reg)
    else:
        imm = _immediate(offset)
        if imm is None:
            raise ValueError(f"cannot parse memory offset '{offset}'")
        if isinstance(imm.value, int):
            mem = dataclasses.replace(mem, displacement=imm.value)
        else:
            mem = dataclasses.replace(mem, symbol=imm.symbol or str(imm.value))
    for extra in rest[1:]:
        mem = _memory_modifier(mem, extra)
    return mem


def _memory_modifier(mem: Memory, text: str) -> Memory:
    """``lsl #3`` / ``sxtw #3`` scale the index; ``mul vl`` scales an SVE offset."""
    text = text.lower()
    if text.replace(" ", "") == "mulvl":
        return dataclasses.replace(mem, symbol="mul vl")
    m = _SHIFT_RE.fullmatch(text)
    if m is None:
        raise ValueError(f"cannot parse address modifier '{text}'")
    amount = _number(m.group(2)) if m.group(2) else 0
    if not isinstance(amount, int):
        raise ValueError(f"bad shift amount in '{text}'")
    return dataclasses.replace(mem, scale=1 << amount)


# --------------------------------------------------------------------------- operands
@functools.lru_cache(maxsize=8192)
def parse_operand(text: str, kind: str = "other") -> tuple:
    """Parse one operand text into a tuple of operands (a register list gives
    several); ``kind`` from :func:`operand_kind`. Raises ValueError."""
    core = text.strip()
    low = core.lower()
    m = _LIST_RE.fullmatch(low)
    if m:
        return _register_list(m.group(1), m.group(2))
    if core.startswith("["):
        pre = core.endswith("!")
        body = core[:-1].rstrip() if pre else core
        if not body.endswith("]"):
            raise ValueError(f"unbalanced memory operand '{core}'")
        return (_memory(body[1:-1], pre),)
    reg = _try_register(low)
    if reg is not None:
        return (reg,)
    if kind == "cond" and low in T.CONDITION_FLAGS:
        return (Condition(low),)
    m = _SHIFT_RE.fullmatch(low)
    if m:
        amount = _number(m.group(2)) if m.group(2) else None
        return (Shift(m.group(1), amount if isinstance(amount, int) else None),)
    imm = _immediate(core)
    if imm is not None:
        return (imm,)
    if kind == "memory" and core.startswith("="):     # 'ldr x0, =value': literal pool
        return (Memory(symbol=core),)
    if re.fullmatch(rf"{_SYMBOL}(?:\s*[-+]\s*(?:0[xX])?[0-9a-fA-F]+)?|\d+[bf]", core) is None:
        raise ValueError(f"cannot parse operand '{core}'")
    if kind == "branch":
        return (Label(core),)
    if kind == "memory":
        return (Memory(symbol=core),)
    return (Immediate(None, core),)


def _fold_post_index(operands: list) -> list:
    """``[x0], #16`` -> Memory(post_index=16); ``[x0], x2`` -> post_index=0 + x2."""
    out: list = []
    for op in operands:
        prev = out[-1] if out else None
        if isinstance(prev, Memory) and not prev.pre_index and prev.post_index is None \
                and prev.base is not None and prev.index is None and prev.symbol is None:
            if isinstance(op, Immediate) and isinstance(op.value, int):
                out[-1] = dataclasses.replace(prev, post_index=op.value)
                continue
            if isinstance(op, A64Register) and ops.register_class(op.name) in ops.GPR_CLASSES:
                out[-1] = dataclasses.replace(prev, post_index=0)
        out.append(op)
    return out


def _parse_instruction(statement: str, line_number: int, text: str) -> Instruction:
    m = _MNEMONIC_RE.match(statement)
    if m is None:
        raise _LineError(f"cannot parse instruction '{statement}'")
    mnemonic = m.group(1).lower()
    kind = operand_kind(mnemonic)
    operand_text = statement[m.end():].strip()
    operands: list = []
    if operand_text:
        for part in split_top_level(operand_text):
            if not part:
                raise _LineError(f"empty operand in '{operand_text}'")
            try:
                operands.extend(parse_operand(part, kind))
            except ValueError as exc:
                raise _LineError(str(exc)) from None
    return Instruction(mnemonic=mnemonic, operands=tuple(_fold_post_index(operands)),
                       line_number=line_number, text=text)


# --------------------------------------------------------------------------- lines
def _find_comment(code: str) -> int:
    """Index of ``//`` outside a "..." string, or -1."""
    if '"' not in code:
        return code.find("//")
    return next((i for i, ch in unquoted(code) if ch == "/" and code.startswith("//", i)), -1)


def _split_comment(raw: str, block: BlockComments) -> tuple[str, str | None]:
    code, comments = raw, []
    if block.open or "/*" in raw:
        code, comments = block.strip(raw)
    if code.lstrip().startswith("#"):        # gas: '#' starts a comment line
        comments.append(code.lstrip()[1:].strip())
        code = ""
    pos = _find_comment(code)
    if pos >= 0:
        comments.append(code[pos + 2:].strip())
        code = code[:pos]
    comment = " ".join(c for c in comments if c) if comments else None
    return code, comment


def _parse_directive(statement: str) -> tuple[str, tuple[str, ...]]:
    parts = statement.split(None, 1)
    args = parts[1].strip() if len(parts) > 1 else ""
    return parts[0].lower(), tuple(split_top_level(args)) if args else ()


def _parse_line(raw: str, line_number: int, block: BlockComments) -> AsmLine:
    text = raw.strip()
    code, comment = _split_comment(raw, block)
    label = None
    m = _LABEL_RE.match(code)
    if m:
        label = m.group(1)
        code = code[m.end():]
        if _LABEL_RE.match(code):
            raise _LineError("more than one label on a line is not supported")
    statements = [s for s in split_top_level(code, ";") if s] if ";" in code else \
        ([code.strip()] if code.strip() else [])
    if len(statements) > 1:
        raise _LineError("several statements on one line are not supported")
    directive = instruction = None
    if statements:
        stmt = statements[0]
        if stmt.startswith("."):
            directive = _parse_directive(stmt)
        elif "=" in stmt and re.fullmatch(rf"{_SYMBOL}\s*=.*", stmt):
            name, value = stmt.split("=", 1)
            directive = ("=", (name.strip(), value.strip()))
        else:
            instruction = _parse_instruction(stmt, line_number, text)
    return AsmLine(line_number=line_number, text=text, label=label, directive=directive,
                   instruction=instruction, comment=comment)


def parse_aarch64(text: str, filename: str | None = None) -> list[AsmLine]:
    """Parse AArch64 assembly into one :class:`AsmLine` per input line.

    Every line is kept (blank, comment and directive lines too) so that line
    numbers and marker comments survive. Raises :class:`AssemblyError` with
    ``file:line`` on a line that is not valid AArch64 GNU syntax.
    """
    block = BlockComments(_find_comment)
    result: list[AsmLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        try:
            result.append(_parse_line(raw, number, block))
        except _LineError as exc:
            raise AssemblyError(f"{exc}: {raw.strip()!r}",
                                SourceLocation(filename, number)) from None
        except AssemblyError as exc:
            raise AssemblyError(f"{exc.message}: {raw.strip()!r}",
                                SourceLocation(filename, number)) from None
    return result


def instructions(lines: Iterable[AsmLine]) -> list[Instruction]:
    """The instructions of ``lines`` in order."""
    return [ln.instruction for ln in lines if ln.instruction is not None]


# --------------------------------------------------------------------------- ISA sniffing
_X86_EVIDENCE = re.compile(r"%(?:[re]?[abcd]x|[re]?[sd]i|[re]?[sb]p|r\d+[dwb]?|[xyz]mm\d+|k[0-7])\b")
_A64_EVIDENCE = re.compile(
    r"^\s*(?:\.arch\s+armv|[a-z][\w.]*\s+(?:[xwqdsv]\d{1,2}|sp|xzr|wzr)\b)", re.M)


def detect_isa(text: str) -> str:
    """'x86' or 'aarch64' for an assembly text (x86 if unsure).

    AT&T x86 names every register with '%', AArch64 never does, so one look at
    the registers decides; the pipeline uses this to pick the parser for
    compiler output without consulting the machine file.
    """
    if _X86_EVIDENCE.search(text):
        return "x86"
    return "aarch64" if _A64_EVIDENCE.search(text) else "x86"
