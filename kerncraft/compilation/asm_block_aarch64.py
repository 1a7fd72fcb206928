"""AArch64 facts for the loop-block selection of :mod:`kerncraft.compilation.asm_block`.

The selection rules (which candidate wins, how the iterations per assembly
iteration are checked against the kernel's strides) are ISA-neutral and stay
in :mod:`kerncraft.compilation.asm_block`; what differs on AArch64 is how one reads the
assembly, and that is this module:

* **pointer advances.** Addresses are ``[base]``, ``[base, #imm]`` or
  ``[base, index, lsl #n]``; a loop advances them with ``add x1, x1, #16``
  (followed through copies ``mov x2, x1`` and ``sub``), with a writeback
  (post-index ``ldr q0, [x1], #16``, pre-index ``ldr q0, [x1, #16]!``), or by
  stepping an index register that the address scales (``add x2, x2, #1`` with
  ``[x1, x2, lsl #3]`` advances 8 B; gcc's ``add x2, x2, 16`` with
  ``[x19, x2]`` advances 16 B). A ``w`` register index (``sxtw``/``uxtw``)
  is tracked under its ``x`` root;
* **SIMD width.** A packed access moves a NEON vector: ``ldr q0``/``str q0``
  and ``ldp q0, q1`` (16 B per register), ``ld1 {v0.2d}`` (the arrangement's
  bytes). Scalar ``d``/``s`` accesses are not packed, even as a pair;
* **floating-point work.** ``fadd/fsub/fmul/fdiv/fsqrt/fmin/fmax`` (and SVE's
  ``fsubr/fdivr``) count one operation per lane, ``fmla/fmls/fmadd/fmsub/fnmadd/fnmsub``
  (and SVE's ``fmad/fmsb/fnmad/fnmsb/fnmla/fnmls``) two; lanes come
  from the arrangement (``v0.2d``: 2, ``v0.4s``: 4, scalar ``d0``: 1; SVE
  ``z0.d`` is counted at the 128-bit minimum vector length).

:func:`analyze_candidates` builds the same :class:`~kerncraft.compilation.asm_block.BlockCandidate`
objects as the x86 path; ``asm_block.analyze_candidates`` dispatches here when
:func:`is_aarch64` says the parsed lines are AArch64.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from kerncraft.compilation import blocks as common
from kerncraft.compilation.blocks import BlockCandidate
from kerncraft.incore.aarch64 import operands as ops
from kerncraft.incore.aarch64.operands import A64Register
from kerncraft.incore.aarch64.semantics import dataflow, is_load, is_store
from kerncraft.incore.markers import LoopBlock, find_loops
from kerncraft.incore.model import AsmLine, Immediate, Instruction, Memory, Register
from kerncraft.kernel.model import KernelModel

__all__ = ["is_aarch64", "analyze_candidates", "operand_advances", "operand_streams",
           "packed_access_bytes", "flops", "is_packed_arithmetic"]

# SVE adds the reversed forms (fsubr, fdivr) and the multiply-add forms that overwrite
# the multiplicand (fmad, fmsb, fnmad, fnmsb) or negate (fnmla, fnmls).
_FLOP1_RE = re.compile(r"^f(add|sub|subr|mul|div|divr|sqrt|min|max|minnm|maxnm|abd|mulx|nmul)$")
_FLOP2_RE = re.compile(r"^f(mla|mls|madd|msub|nmadd|nmsub|mad|msb|nmad|nmsb|nmla|nmls)$")
_NOT_ARITHMETIC = re.compile(r"^(mov|movi|dup|ins|umov|smov|fmov|ld|st|prf)")
_MIN_SVE_BYTES = 16


def is_aarch64(lines: Sequence[AsmLine]) -> bool:
    """True if the parsed lines come from the AArch64 parser (its registers)."""
    for line in lines:
        ins = line.instruction
        if ins is None:
            continue
        for op in ins.operands:
            reg = op if isinstance(op, Register) else op.base if isinstance(op, Memory) else None
            if isinstance(reg, Register):
                return isinstance(reg, A64Register)
    return False


# --- per-instruction facts ---------------------------------------------------------
def _vector_regs(instr: Instruction) -> list[A64Register]:
    return [op for op in instr.operands if isinstance(op, A64Register)
            and ops.register_class(op.name) in ("v", "q", "z")]


def _register_bytes(reg: A64Register) -> int:
    """Bytes of a packed register operand (0 for lanes and scalars)."""
    cls = ops.register_class(reg.name)
    if cls == "q":
        return 16
    if cls == "z":
        return _MIN_SVE_BYTES if not reg.lane or "[" not in reg.lane else 0
    return ops.arrangement_bytes(reg.lane) or 0


def packed_access_bytes(instr: Instruction) -> int:
    """Bytes per register of a packed (vector) memory access, 0 otherwise."""
    if not any(isinstance(op, Memory) for op in instr.operands):
        return 0
    if not (is_load(instr.mnemonic) or is_store(instr.mnemonic)):
        return 0
    return max((_register_bytes(r) for r in _vector_regs(instr)), default=0)


def _lanes(instr: Instruction) -> int:
    """Elements one FP instruction works on: from its destination's arrangement."""
    dst = instr.operands[0] if instr.operands else None
    if not isinstance(dst, A64Register):
        return 1
    cls = ops.register_class(dst.name)
    size = ops.element_bytes(dst.lane)
    if cls == "v" and size and dst.lane and "[" not in dst.lane:
        return max((ops.arrangement_bytes(dst.lane) or size) // size, 1)
    if cls == "z" and size:
        return _MIN_SVE_BYTES // size
    return 1


def flops(instr: Instruction) -> tuple[int, int]:
    """(1 if FP arithmetic else 0, floating-point operations incl. lanes)."""
    m = instr.mnemonic
    if _FLOP2_RE.match(m):
        return 1, 2 * _lanes(instr)
    if _FLOP1_RE.match(m):
        return 1, _lanes(instr)
    return 0, 0


def is_packed_arithmetic(instr: Instruction) -> bool:
    """Arithmetic on several lanes (``fadd v0.2d``, ``add v0.4s``), not moves."""
    if _NOT_ARITHMETIC.match(instr.mnemonic):
        return False
    return any(_register_bytes(r) and _lanes_of(r) > 1 for r in _vector_regs(instr))


def _lanes_of(reg: A64Register) -> int:
    size = ops.element_bytes(reg.lane)
    return _register_bytes(reg) // size if size else 1


# --- pointer advances ----------------------------------------------------------------
@dataclass(frozen=True)
class _Lin:
    """``coeff * origin + offset`` (+ something loop-invariant if ``inv``):
    a register's value in terms of one register at the start of the iteration."""

    origin: str          # '' for a constant
    coeff: int = 1
    offset: int = 0
    inv: bool = False    # plus a loop-invariant register (its value is unknown)

    def plus(self, k: int) -> "_Lin":
        return _Lin(self.origin, self.coeff, self.offset + k, self.inv)

    def shifted(self, s: int) -> "_Lin":
        return _Lin(self.origin, self.coeff << s, self.offset << s, self.inv)


_Value = _Lin | None         # None: unknown


def _gpr_root(op) -> str | None:
    if isinstance(op, A64Register) and ops.register_class(op.name) in ops.GPR_CLASSES:
        root = ops.alias_root(op.name)
        return None if root == "xzr" else root
    return None


class _Tracker:
    """Symbolic values of the integer registers through one loop iteration."""

    def __init__(self, written: set[str]):
        self.written = written               # registers the body writes
        self.state: dict[str, _Value] = {}

    def value(self, reg) -> _Value:
        root = _gpr_root(reg)
        if root is None:
            return None
        return self.state.get(root, _Lin(root))

    def add(self, a: _Value, b: _Value) -> _Value:
        """a + b if at most one of them moves with the loop."""
        if a is None or b is None:
            return None
        moving = [v for v in (a, b) if v.origin and v.origin in self.written]
        if len(moving) > 1:
            return None
        if not moving:
            return _Lin("", 1, a.offset + b.offset, True)
        other = b if moving[0] is a else a
        return _Lin(moving[0].origin, moving[0].coeff, moving[0].offset + other.offset,
                    moving[0].inv or other.inv or bool(other.origin))

    def step(self, instr: Instruction) -> bool:
        """Follow ``add/sub #imm``, ``add rd, rn, rm{, lsl #s}``, ``mov``, ``lsl``,
        ``sbfiz/ubfiz``, ``sxtw``; True if the instruction was understood."""
        o, m = instr.operands, instr.mnemonic
        dst = _gpr_root(o[0]) if o else None
        if dst is None or len(o) < 2:
            return False
        src = self.value(o[1])
        new: _Value | str = "?"
        if m in ("add", "sub", "adds", "subs") and len(o) == 3 and isinstance(o[2], Immediate):
            if isinstance(o[2].value, int):
                new = None if src is None else src.plus(o[2].value if m[0] == "a" else -o[2].value)
        elif m in ("add", "adds") and len(o) in (3, 4) and _gpr_root(o[2]) is not None:
            other = self.value(o[2])
            lsl = len(o) == 4 and isinstance(o[3], ops.Shift) and o[3].kind == "lsl"
            shift = o[3].amount if lsl else 0
            new = self.add(src, None if other is None else other.shifted(shift or 0)) \
                if len(o) == 3 or shift is not None else None
        elif m in ("mov", "sxtw", "uxtw") and len(o) == 2:
            new = src
        elif m in ("lsl", "sbfiz", "ubfiz") and len(o) >= 3 and isinstance(o[2], Immediate) \
                and isinstance(o[2].value, int):
            new = None if src is None else src.shifted(o[2].value)
        if new == "?":
            return False
        self.state[dst] = new           # type: ignore[assignment]
        return True

    def writeback(self, mem: Memory) -> None:
        """Advance the base of a pre/post-indexed access by its immediate."""
        root = _gpr_root(mem.base)
        if root is None:
            return
        cur = self.state.get(root, _Lin(root))
        delta = mem.displacement if mem.pre_index else mem.post_index
        self.state[root] = None if cur is None or not delta and not mem.pre_index \
            else cur.plus(delta or 0)

    def advance(self, root: str) -> int | None:
        """Per-iteration advance of a register at the end of the body."""
        if root not in self.state:
            return 0
        v = self.state[root]
        if v is None or v.origin != root or v.coeff != 1 or v.inv:
            return None
        return v.offset


def operand_advances(instrs: Sequence[Instruction]) -> list[int]:
    """Byte advance per iteration of every moving memory operand (see the
    module docstring); operands with an unknown advance are left out."""
    return [advance for _, _, advance in operand_streams(instrs)]


def operand_streams(instrs: Sequence[Instruction]) -> list[common.OperandStream]:
    """(address registers, byte offset, advance per iteration) of every moving memory
    operand, for ``blocks.address_streams``."""
    written = {k for ins in instrs for k in dataflow(ins).destinations}
    track = _Tracker(written)
    uses: list[tuple[_Value, _Value, Memory]] = []
    for instr in instrs:
        mems = [op for op in instr.operands if isinstance(op, Memory)]
        for mem in mems:
            if mem.pre_index:
                track.writeback(mem)
            base = track.value(mem.base) if mem.base is not None else _Lin("")
            index = track.value(mem.index) if mem.index is not None else _Lin("")
            uses.append((base, index, mem))
        for mem in mems:
            if mem.post_index is not None:
                track.writeback(mem)
        if track.step(instr):
            continue
        wb = {_gpr_root(m.base) for m in mems if m.pre_index or m.post_index is not None}
        for root in dataflow(instr).destinations - wb:
            if root.startswith(("x", "sp")):
                track.state[root] = None
    return _streams(uses, track)


def _streams(uses: Sequence[tuple[_Value, _Value, Memory]], track: _Tracker
             ) -> list[common.OperandStream]:
    out = []
    for base, index, mem in uses:
        if base is None or index is None:
            continue
        steps = [(v, f) for v, f in ((base, 1), (index, mem.scale)) if v.origin]
        adv = [track.advance(v.origin) for v, _ in steps]
        if any(a is None for a in adv):
            continue
        total = sum(a * v.coeff * f for a, (v, f) in zip(adv, steps))   # type: ignore[operator]
        if total:
            # an unknown loop-invariant part (inv) differs per register: keep them apart
            key = tuple((v.origin, v.coeff, _gpr_root(reg) if v.inv else "")
                        for v, reg in ((base, mem.base), (index, mem.index))) + (mem.scale,)
            disp = 0 if mem.pre_index or mem.post_index is not None else mem.displacement
            out.append((key, base.offset + index.offset * mem.scale + disp, total))
    return out


# --- candidates ---------------------------------------------------------------------
def analyze_candidates(lines: Sequence[AsmLine], kernel: KernelModel
                       ) -> tuple[BlockCandidate, ...]:
    """All innermost loops of AArch64 ``lines`` with their facts, in file order."""
    inner = [lp for lp in find_loops(lines, dataflow) if lp.innermost]
    return tuple(_candidate(i, lp, lines, kernel) for i, lp in enumerate(inner))


def _candidate(index: int, lp: LoopBlock, lines: Sequence[AsmLine],
               kernel: KernelModel) -> BlockCandidate:
    """The shared candidate facts (``blocks.make_candidate``) with the AArch64 facts."""
    return common.make_candidate(index, lp, lines, kernel, _AARCH64)


#: The AArch64 instruction facts block candidates need (see ``blocks.make_candidate``).
_AARCH64 = common.IsaFacts(flops, packed_access_bytes, is_packed_arithmetic, operand_streams)

