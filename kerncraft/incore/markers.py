"""Find the kernel in a parsed assembly file: marked regions and loop blocks.

A user (or kerncraft's code generator) marks the region to analyse with

* comment markers ``# OSACA-BEGIN`` / ``# OSACA-END`` or ``# LLVM-MCA-BEGIN`` /
  ``# LLVM-MCA-END`` (optionally followed by a region name), or
* IACA byte markers: ``movl $111, %ebx`` followed by ``.byte 100,103,144`` to begin,
  ``movl $222, %ebx`` followed by ``.byte 100,103,144`` to end (the AArch64
  variant ``mov x1, #111`` + ``.byte 213,3,32,31`` is recognised as well).

The marker lines themselves are never part of the region. When markers of
different kinds are nested (IACA bytes around LLVM-MCA comments, as tools that
add their own markers produce), the innermost region is the kernel. With several
separate marked regions the first one in the file is used.

Without markers the kernel is a loop: a label that is the target of a
*backward conditional* branch, up to that branch. Of the innermost loops the
one with the most vector instructions wins, then the one with the most
instructions, then the first in the file: the heuristic picks the
vectorised main loop of a compiler's loop versions over its scalar remainder
and peel loops.

This module only looks at parsed lines, so it serves every ISA whose parser
produces :class:`~kerncraft.incore.model.AsmLine` objects; the x86 semantics are
only used (by default) to count loads and stores.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from kerncraft.errors import AssemblyError, SourceLocation
from kerncraft.incore import registers
from kerncraft.incore.model import AsmLine, DataFlow, Immediate, Instruction, Label, Memory, Register

__all__ = ["LoopBlock", "KernelBlock", "find_marked_region", "find_loops",
           "select_kernel", "extract_kernel", "kernel_lines"]

_COMMENT_MARKER_RE = re.compile(r"(?<![\w-])(OSACA|LLVM-MCA)-(BEGIN|END)\b")
_BYTE_MARKERS = (("100", "103", "144"), ("213", "3", "32", "31"))
_MARKER_REGISTERS = frozenset({"ebx", "rbx", "x1", "w1"})

#: Register classes that make an instruction a vector instruction (x86 SIMD and
#: the AArch64 NEON/SVE classes, for when that parser is present).
VECTOR_OPERAND_CLASSES: frozenset[str] = registers.VECTOR_CLASSES | {"v", "q", "z"}

#: x86 conditional branches that are not spelled j<cc>.
_X86_COUNTED_BRANCHES = frozenset({"loop", "loope", "loopz", "loopne", "loopnz",
                                   "jcxz", "jecxz", "jrcxz"})
_AARCH64_COND_BRANCHES = frozenset({"cbz", "cbnz", "tbz", "tbnz"})
_AARCH64_CC = frozenset({"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc",
                         "hi", "ls", "ge", "lt", "gt", "le"})
#: SVE condition aliases (``b.any`` = ``b.ne`` after ``whilelo``/``ptest``); only
#: with the dot, as the assemblers spell them.
_AARCH64_SVE_CC = frozenset({"none", "any", "nlast", "last", "first", "nfrst",
                             "pmore", "plast", "tcont", "tstop"})


@dataclass(frozen=True)
class LoopBlock:
    """One loop: lines ``first`` (the label) to ``last`` (the backward branch),
    both indices into the line list given to :func:`find_loops`."""

    label: str
    first: int
    last: int
    instructions: tuple[Instruction, ...]
    n_instructions: int
    n_vector: int            # instructions with an xmm/ymm/zmm (or NEON/SVE) operand
    n_loads: int             # memory reads (from the ISA semantics)
    n_stores: int            # memory writes
    depth: int               # number of loops around this one (0: outermost)
    contains_loop: bool      # False for innermost loops

    @property
    def innermost(self) -> bool:
        return not self.contains_loop


@dataclass(frozen=True)
class KernelBlock:
    """The chosen kernel: ``lines[start:stop]``; ``kind`` is 'OSACA',
    'LLVM-MCA', 'IACA' or 'loop'; ``label`` names the loop (kind 'loop')."""

    start: int
    stop: int
    kind: str
    label: str | None = None


@dataclass(frozen=True)
class _Marker:
    kind: str
    begin: bool
    index: int          # line index of the (last) marker line
    first_index: int    # line index of the first marker line (IACA: the mov)


def _iaca_marker(lines: Sequence[AsmLine], i: int) -> _Marker | None:
    """``mov $111/$222`` at line i followed by the marker bytes -> a marker."""
    instr = lines[i].instruction
    if instr is None or not instr.mnemonic.startswith("mov") or len(instr.operands) != 2:
        return None
    imm = next((op for op in instr.operands if isinstance(op, Immediate)), None)
    reg = next((op for op in instr.operands if isinstance(op, Register)), None)
    if imm is None or reg is None or imm.value not in (111, 222) \
            or reg.name not in _MARKER_REGISTERS:
        return None
    for j in range(i + 1, len(lines)):
        line = lines[j]
        if line.instruction is None and line.directive is None and line.label is None:
            continue            # blank or comment-only
        if line.directive is not None and line.directive[0] == ".byte" \
                and tuple(a.strip() for a in line.directive[1]) in _BYTE_MARKERS:
            return _Marker("IACA", imm.value == 111, j, i)
        return None
    return None


def _collect_markers(lines: Sequence[AsmLine]) -> list[_Marker]:
    markers: list[_Marker] = []
    for i, line in enumerate(lines):
        if line.comment:
            for m in _COMMENT_MARKER_RE.finditer(line.comment):
                markers.append(_Marker(m.group(1), m.group(2) == "BEGIN", i, i))
        if line.instruction is not None and line.instruction.mnemonic.startswith("mov"):
            marker = _iaca_marker(lines, i)
            if marker is not None:
                markers.append(marker)
    return markers


def _pair_markers(lines: Sequence[AsmLine], markers: list[_Marker],
                  filename: str | None) -> list[KernelBlock]:
    """Pair BEGIN/END per kind in file order; unmatched markers are errors."""
    regions: list[KernelBlock] = []
    open_begin: dict[str, _Marker] = {}
    for mk in markers:
        if mk.begin:
            if mk.kind in open_begin:
                raise _marker_error(f"{mk.kind} begin marker inside another {mk.kind} region",
                                    lines, mk, filename)
            open_begin[mk.kind] = mk
            continue
        begin = open_begin.pop(mk.kind, None)
        if begin is None:
            raise _marker_error(f"{mk.kind} end marker without begin marker", lines, mk,
                                filename)
        regions.append(KernelBlock(begin.index + 1, mk.first_index, mk.kind))
    for mk in open_begin.values():
        raise _marker_error(f"{mk.kind} begin marker without end marker", lines, mk, filename)
    return regions


def _marker_error(message: str, lines: Sequence[AsmLine], mk: _Marker,
                  filename: str | None) -> AssemblyError:
    return AssemblyError(message, SourceLocation(filename, lines[mk.first_index].line_number))


def _innermost(regions: list[KernelBlock]) -> KernelBlock:
    """From the first region in the file, descend into regions nested in it."""
    regions = sorted(regions, key=lambda r: (r.start, -r.stop))
    current = regions[0]
    while True:
        inner = [r for r in regions if r is not current and current.start <= r.start
                 and r.stop <= current.stop and (r.start, r.stop) != (current.start, current.stop)]
        if not inner:
            return current
        current = min(inner, key=lambda r: (r.start, -r.stop))


def find_marked_region(lines: Sequence[AsmLine],
                       filename: str | None = None) -> tuple[int, int] | None:
    """``(start, stop)`` such that ``lines[start:stop]`` is the marked region
    (markers excluded), or ``None`` if the file has no markers.

    Raises :class:`AssemblyError` for a begin marker without end (or vice versa).
    """
    block = _marked_block(lines, filename)
    return None if block is None else (block.start, block.stop)


def _marked_block(lines: Sequence[AsmLine], filename: str | None) -> KernelBlock | None:
    markers = _collect_markers(lines)
    if not markers:
        return None
    regions = _pair_markers(lines, markers, filename)
    return _innermost(regions) if regions else None


# ---------------------------------------------------------------------------
# Loops
# ---------------------------------------------------------------------------

def conditional_branch_target(instr: Instruction) -> str | None:
    """Target label of a conditional branch, else None (x86 and AArch64 forms)."""
    mnem = instr.mnemonic.rsplit(" ", 1)[-1].split(",", 1)[0]
    target = next((op.name for op in reversed(instr.operands) if isinstance(op, Label)), None)
    if target is None:
        return None
    is_cond = (
        (mnem.startswith("j") and mnem not in ("jmp", "jmpq", "jmpl"))
        or mnem in _X86_COUNTED_BRANCHES
        or mnem in _AARCH64_COND_BRANCHES
        or (mnem.startswith("b.") and mnem[2:] in _AARCH64_CC | _AARCH64_SVE_CC)
        or (mnem.startswith("b") and mnem[1:] in _AARCH64_CC))
    return target if is_cond else None


def _resolve_target(target: str, at: int, label_index: dict[str, int],
                    lines: Sequence[AsmLine]) -> int | None:
    """Line index of ``target``; numeric local labels ``1b``/``1f`` resolve to
    the nearest ``1:`` before/after the branch, as the assembler does."""
    if re.fullmatch(r"\d+[bf]", target):
        name, backward = target[:-1], target.endswith("b")
        rng = range(at, -1, -1) if backward else range(at + 1, len(lines))
        return next((i for i in rng if lines[i].label == name), None)
    return label_index.get(target)


def _default_dataflow() -> Callable[[Instruction], DataFlow]:
    from kerncraft.incore.x86.semantics import dataflow
    return dataflow


def _is_vector(instr: Instruction) -> bool:
    for op in instr.operands:
        regs = (op,) if isinstance(op, Register) else \
            (op.base, op.index) if isinstance(op, Memory) else ()
        for reg in regs:
            if reg is None:
                continue
            try:
                if registers.register_class(reg.name) in VECTOR_OPERAND_CLASSES:
                    return True
            except AssemblyError:
                continue
    return False


def _memory_counts(instrs: Sequence[Instruction],
                   dataflow: Callable[[Instruction], DataFlow]) -> tuple[int, int]:
    loads = stores = 0
    for instr in instrs:
        try:
            flow = dataflow(instr)
        except Exception:               # unknown operand forms of another ISA
            continue
        loads += len(flow.memory_reads)
        stores += len(flow.memory_writes)
    return loads, stores


def _loop_spans(lines: Sequence[AsmLine]) -> list[tuple[int, int]]:
    """(label line, branch line) pairs of all loops, sorted.

    Every backward conditional branch is a back edge. Several back edges to one
    label are kept as *separate, nested* loops when another label lies between
    them: that is how gcc -O1 lays out a loop nest whose outer latch jumps
    straight into the inner loop (``.L4: inner; jne .L4; .L5: outer++; .L3: ...
    jg .L4``). Without a label in between, the later branch is a second latch
    of the same loop (reachable only by falling through) and extends it.
    """
    label_index: dict[str, int] = {}
    for i, line in enumerate(lines):
        if line.label is not None:
            label_index.setdefault(line.label, i)
    back_edges: dict[int, list[int]] = {}
    for j, line in enumerate(lines):
        if line.instruction is None:
            continue
        target = conditional_branch_target(line.instruction)
        if target is None:
            continue
        i = _resolve_target(target, j, label_index, lines)
        if i is not None and i <= j:
            back_edges.setdefault(i, []).append(j)
    spans: list[tuple[int, int]] = []
    for first, ends in back_edges.items():
        current = ends[0]
        for j in ends[1:]:
            if any(lines[k].label is not None for k in range(current + 1, j + 1)):
                spans.append((first, current))
            current = j
        spans.append((first, current))
    return sorted(spans, key=lambda s: (s[0], -s[1]))


def find_loops(lines: Sequence[AsmLine],
               dataflow: Callable[[Instruction], DataFlow] | None = None) -> list[LoopBlock]:
    """All loop blocks, ordered by first line (enclosing loops first).

    A loop runs from a label to a later conditional branch back to it (see
    :func:`_loop_spans` for labels with several back edges). ``dataflow``
    counts loads/stores (default: x86 semantics).
    """
    spans = _loop_spans(lines)
    flow_fn = dataflow or _default_dataflow()
    loops = []
    for first, last in spans:
        instrs = tuple(ln.instruction for ln in lines[first:last + 1] if ln.instruction)
        loads, stores = _memory_counts(instrs, flow_fn)
        others = [(f, l) for f, l in spans if (f, l) != (first, last)]
        depth = sum(1 for f, l in others if f <= first and last <= l)
        inner = any(first <= f and l <= last for f, l in others)
        loops.append(LoopBlock(
            label=lines[first].label or "", first=first, last=last, instructions=instrs,
            n_instructions=len(instrs), n_vector=sum(1 for x in instrs if _is_vector(x)),
            n_loads=loads, n_stores=stores, depth=depth, contains_loop=inner))
    return loops


def select_kernel(lines: Sequence[AsmLine], filename: str | None = None,
                  dataflow: Callable[[Instruction], DataFlow] | None = None) -> KernelBlock:
    """The marked region if the file has markers, else the best innermost loop.

    Raises :class:`AssemblyError` if there is neither.
    """
    marked = _marked_block(lines, filename)
    if marked is not None:
        return marked
    loops = [lp for lp in find_loops(lines, dataflow) if lp.innermost]
    if not loops:
        raise AssemblyError("no marked region (OSACA/LLVM-MCA/IACA markers) and no loop "
                            "(backward conditional branch) found", SourceLocation(filename))
    best = min(enumerate(loops), key=lambda il: (-il[1].n_vector, -il[1].n_instructions,
                                                 il[0]))[1]
    return KernelBlock(best.first, best.last + 1, "loop", best.label)


def kernel_lines(lines: Sequence[AsmLine], filename: str | None = None,
                 dataflow: Callable[[Instruction], DataFlow] | None = None) -> list[AsmLine]:
    """The lines of the kernel chosen by :func:`select_kernel`."""
    block = select_kernel(lines, filename, dataflow)
    return list(lines[block.start:block.stop])


def extract_kernel(lines: Sequence[AsmLine], filename: str | None = None,
                   dataflow: Callable[[Instruction], DataFlow] | None = None) -> list[Instruction]:
    """The instructions of the kernel chosen by :func:`select_kernel`.

    Raises :class:`AssemblyError` if the chosen region holds no instruction.
    """
    block = select_kernel(lines, filename, dataflow)
    instrs = [ln.instruction for ln in lines[block.start:block.stop] if ln.instruction]
    if not instrs:
        where = lines[block.start].line_number if block.start < len(lines) else None
        raise AssemblyError(f"the {block.kind} region contains no instruction",
                            SourceLocation(filename, where))
    return instrs
