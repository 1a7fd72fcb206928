"""What both loop-block selectors share (x86: :mod:`kerncraft.compilation.asm_block`,
AArch64: :mod:`kerncraft.compilation.asm_block_aarch64`): the candidate and selection
types, the candidate table, what the kernel model says a loop moves and does
(:func:`kernel_strides`, :func:`numeric_trip_count`, :func:`kernel_operations`,
:func:`outer_unroll`), and the checks of a candidate's advances and work against it.

An outer-loop jam factor (the compiler unrolled an enclosing loop into the innermost
one) is claimed only when two independent facts of the block agree: its floating-point
operations are an exact multiple >= 2 of the kernel's for its iterations *and* it walks
more address streams than the kernel's accesses give (the jammed rows, ``A[j][i]`` and
``A[j+1][i]``). When the compiler hoisted a factor that does not change along the inner
loop out of the jammed copies (gemm's ``alpha * A[i][k]``), the flops are more than one
iteration's but no multiple: then the jam is the fewest copies that hold them, and the
block must walk exactly the streams that many jammed iterations give. The operation
count includes the math calls that compile to FP instructions (``sqrt`` is one
``vsqrtsd``), and a nest of one loop has nothing to jam.
"""
from __future__ import annotations

import itertools

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Hashable, Sequence

import sympy

from kerncraft.incore.markers import LoopBlock
from kerncraft.incore.model import Instruction
from kerncraft.kernel.model import KernelModel

__all__ = ["BlockCandidate", "BlockSelection", "format_candidates", "make_candidate", "IsaFacts",
           "kernel_strides", "numeric_trip_count", "kernel_operations", "outer_unroll",
           "outer_unroll_from_flops", "jam_factor", "address_streams", "kernel_streams",
           "format_set", "FULLY_UNROLLED", "MATH_CALL_FLOPS", "OperandStream"]

#: Part of the reason of a candidate that cannot be the kernel's loop because the
#: compiler unrolled the innermost loop completely (too few iterations for a loop).
FULLY_UNROLLED = "the compiler fully unrolled the innermost loop"

#: Floating-point operations a block's instructions count for one call of a math
#: function: ``sqrt`` becomes one (v)sqrtsd / fsqrt, ``fma`` one FMA (2 flops). Other
#: calls add none to the loop's instructions: a library call (``exp``), a bit mask
#: (``fabs``), or a call where the target lacks the instruction.
MATH_CALL_FLOPS = {"sqrt": 1, "sqrtf": 1, "fma": 2, "fmaf": 2}

#: One moving memory operand of a block: (address registers it derives from, constant
#: byte offset from them, byte advance per assembly iteration).
OperandStream = tuple[Hashable, int, int]


@dataclass(frozen=True)
class BlockCandidate:
    """One innermost assembly loop and what its instructions say."""

    index: int                      # number shown to the user (0-based)
    block: LoopBlock
    first_line: int                 # 1-based lines of the label and the branch
    last_line: int
    n_packed: int                   # packed SIMD memory or arithmetic instructions
    n_fp: int                       # floating-point arithmetic instructions
    flops: int                      # floating-point operations (lanes, FMA = 2)
    vector_bytes: int               # widest packed memory access (0: none)
    advances: tuple[int, ...]       # byte advance of each moving memory operand
    pointer_increment: int | None   # most common advance (bytes per asm iteration)
    iterations: int | None          # source iterations explaining the advances
    simd_width: int                 # elements per packed access (1: scalar)
    outer_unroll: int               # >1: outer loop unrolled and jammed into it
    consistent: bool
    plausible: bool                 # consistent and has the kernel's kind of work
    reason: str                     # why not consistent / plausible ('' if it is)
    loop_index: str = ""            # source loop the block walks (differs: interchanged)
    streams: int = 0                # distinct address streams (see address_streams)

    @property
    def total_iterations(self) -> int | None:
        return None if self.iterations is None else self.iterations * self.outer_unroll


@dataclass(frozen=True)
class BlockSelection:
    """The chosen loop block and the work one pass through it does.

    ``iterations_per_asm_iteration == unroll * simd_width * outer_unroll``;
    ``outer_unroll`` is 1 unless the compiler jammed outer iterations into
    the loop.
    """

    index: int                               # into ``candidates``
    block: LoopBlock
    instructions: tuple[Instruction, ...]
    candidates: tuple[BlockCandidate, ...]
    pointer_increment: int                   # bytes per asm iteration
    unroll: int
    simd_width: int
    outer_unroll: int
    iterations_per_asm_iteration: int
    mode: str                                # 'auto', 'manual', 'index'
    explanation: str

    def describe(self) -> str:
        """Candidate table plus explanation, for ``-v`` output."""
        return format_candidates(self.candidates, chosen=self.index) + "\n" + self.explanation


def kernel_strides(kernel: KernelModel, level: int = -1) -> list[int]:
    """Bytes each array access moves per iteration of loop ``level`` (default
    innermost; positive; accesses with symbolic or zero stride left out)."""
    loop = kernel.loops[level]
    return [abs(int(coeff)) * arr.element_size * abs(loop.step)
            for _, arr, coeff, _ in _array_accesses(kernel, loop) if coeff.is_Integer and coeff]


def _array_accesses(kernel: KernelModel, loop):
    """(access, array, coefficient of ``loop``'s index, constant values) of every array
    access of the kernel, the coefficient with the bound constants substituted."""
    values = {c.symbol: sympy.Integer(v) for c in kernel.constants
              if (v := kernel.bindings.get(c.name)) is not None}
    for acc in kernel.accesses:
        arr = kernel.arrays.get(acc.array)
        if arr is not None and not arr.is_scalar:
            yield acc, arr, sympy.diff(acc.linear_index, loop.symbol).xreplace(values), values


def _element_size(kernel: KernelModel) -> int:
    sizes = [kernel.arrays[a.array].element_size for a in kernel.accesses
             if a.array in kernel.arrays and not kernel.arrays[a.array].is_scalar]
    return min(sizes, default=8)


def numeric_trip_count(kernel: KernelModel, level: int = -1) -> int | None:
    """Numeric trip count of loop ``level`` if known; for a triangular nest (bounds that
    depend on outer indices) the largest one, over the outer indices at their first and
    last values (affine bounds: the extremes are at the ends), since the question asked
    of it is how many iterations one pass of the loop can have."""
    level = level % len(kernel.loops)
    values = {c.symbol: v for c in kernel.constants if (v := kernel.bindings.get(c.name))}
    counts = []
    for ends in itertools.product((True, False), repeat=level):
        count = kernel.loops[level].trip_count()
        for loop, first in zip(kernel.loops[:level], ends):
            last = loop.end - 1 if loop.step > 0 else loop.end + 1
            count = count.subs(loop.symbol, loop.start if first else last)
        count = sympy.sympify(count).subs(values)
        if not count.is_Integer:
            return None
        counts.append(int(count))
        if not any(s in kernel.loops[level].trip_count().free_symbols
                   for s in (lp.symbol for lp in kernel.loops[:level])):
            break                  # rectangular: one evaluation is enough
    return max(counts)


def _best_iterations(advances: Sequence[int], strides: Sequence[int]) -> tuple[int | None, int]:
    """(k, number of advances explained): the k that explains most advances."""
    votes: Counter = Counter()
    for d in advances:
        for k in {abs(d) // s for s in set(strides) if abs(d) % s == 0}:
            votes[k] += 1
    if not votes:
        return None, 0
    k, n = max(votes.items(), key=lambda kv: (kv[1], -kv[0]))
    return k, n


def _check_iterations(kernel: KernelModel, advances: Sequence[int], simd: int,
                      level: int, check_simd: bool = True) -> tuple[int | None, str]:
    """(k, '') if loop ``level``'s strides explain every advance, else (k, why not)."""
    strides = kernel_strides(kernel, level)
    k, explained = _best_iterations(advances, strides)
    trips = numeric_trip_count(kernel, level)
    if not advances:
        return k, "no memory operand advances with the loop"
    if not strides:
        return k, "the kernel's innermost strides are unknown (bind the constants)"
    if k is None:
        return k, (f"advances {format_set(advances)} B fit no stride of the kernel "
                   f"({format_set(strides)} B per iteration)")
    if explained < len(advances):
        return k, (f"advances {format_set(advances)} B are not all a multiple {k} of the "
                   f"kernel's strides ({format_set(strides)} B)")
    if trips is not None and k > max(trips, 0):
        return k, (f"{k} iterations per pass but loop '{kernel.loops[level].index}' has "
                   f"only {trips}: an outer loop ({FULLY_UNROLLED})")
    if check_simd:
        return k, _simd_mismatch(kernel, k, simd, level)
    return k, ""


def _simd_mismatch(kernel: KernelModel, k: int, simd: int, level: int, jam: int = 1) -> str:
    """Why ``k`` iterations (of a loop with step s, times ``jam`` outer iterations) are
    no whole number of vectors, '' if they are. A step of 2 with two statements that
    the compiler packs into one vector (SLP) makes k iterations k * 2 elements."""
    elements = k * abs(kernel.loops[level].step) * jam
    if elements % simd:
        return f"{k} iterations per asm iteration is no multiple of the SIMD width {simd}"
    return ""


def _outer_vectorised(kernel: KernelModel, k: int, simd: int, flops: int, n_packed: int,
                      level: int) -> int:
    """Outer iterations in the vector lanes (outer-loop vectorisation: ``c[i][j] +=
    a[i][k] * a[k][j]`` vectorised over j in a k loop), 1 if the block is not that:
    its flops are a multiple of the kernel's for k iterations that fills whole vectors,
    in a nest that has an outer loop to put in the lanes."""
    jam = outer_unroll_from_flops(kernel, flops, k)
    if len(kernel.loops) > 1 and n_packed and jam > 1 \
            and not _simd_mismatch(kernel, k, simd, level, jam):
        return jam
    return 1


def _work_of(kernel: KernelModel, lp: LoopBlock, flops: int, simd: int) -> float:
    """Source iterations the block's work amounts to (by flops, else by memory
    instructions), to tell an interchanged loop from an outer loop around a
    fully unrolled inner one."""
    if kernel_operations(kernel):
        return flops / kernel_operations(kernel)
    arrays = {a.array for a in kernel.accesses
              if a.array in kernel.arrays and not kernel.arrays[a.array].is_scalar}
    return (lp.n_loads + lp.n_stores) * simd / max(len(arrays), 1)


def format_set(values: Sequence[int]) -> str:
    """The distinct ``values`` in order, as explanations show them: '{8, 16}'."""
    return "{" + ", ".join(str(v) for v in sorted(set(values))) + "}"


def kernel_operations(kernel: KernelModel) -> int:
    """Floating-point operations per source iteration as a block's instructions count
    them: the kernel's flops plus its math calls that compile to FP instructions
    (:data:`MATH_CALL_FLOPS`): ``sqrt(b[i]) * 2.0`` is 2 (vsqrtsd, vmulsd)."""
    calls = sum(n * MATH_CALL_FLOPS.get(name, 0) for name, n in kernel.math_calls.items())
    return kernel.total_flops + calls


def outer_unroll_from_flops(kernel: KernelModel, flops: int, k: int | None) -> int:
    """The multiple (>= 2) of the kernel's operations for ``k`` iterations that the
    block's ``flops`` are, else 1. Alone no proof of a jammed outer loop (a ``pow(x, 2)``
    the compiler turned into a multiplication doubles the count too): see
    :func:`outer_unroll`."""
    expected = kernel_operations(kernel) * (k or 0)
    if expected and flops >= 2 * expected and flops % expected == 0:
        return flops // expected
    return 1


def outer_unroll(kernel: KernelModel, flops: int, k: int | None, streams: int,
                 level: int = -1) -> int:
    """Outer iterations jammed into a block walking loop ``level`` with ``k`` source
    iterations per pass, 1 if none: the nest has a loop besides the walked one, the
    block's flops are a multiple >= 2 of the kernel's, and its ``streams``
    (:func:`address_streams`) exceed the kernel's accesses' (:func:`kernel_streams`)."""
    if len(kernel.loops) < 2 or not k:
        return 1
    jam = outer_unroll_from_flops(kernel, flops, k)
    if jam > 1 and streams > kernel_streams(kernel, k, level):
        return jam
    return _jam_from_streams(kernel, flops, k, streams, level)


def _jam_from_streams(kernel: KernelModel, flops: int, k: int, streams: int, level: int) -> int:
    """The jam factor J when the block does more FP work than ``k`` iterations hold but no
    exact multiple of it, because the compiler hoisted a part that does not change along
    the walked loop out of the jammed copies (gemm's ``alpha * A[i][k]``: 2 of 3 flops
    per copy remain): J is the fewest copies that hold the block's ``flops``, and the
    block must walk exactly the streams that J jammed iterations of the enclosing loop
    give (rows ``B[k]`` and ``B[k+1]``, one ``C[i]``), more than one iteration gives.
    A ``pow(x, 2)`` turned into a multiplication adds work but no stream, so it is not
    taken for a jam."""
    expected = kernel_operations(kernel) * k
    loops = len(kernel.loops)
    if not expected or flops <= expected or (level % loops) == 0:
        return 1
    jam = -(-flops // expected)
    if streams > kernel_streams(kernel, k, level) \
            and streams == kernel_streams(kernel, k, level, jam=jam):
        return jam
    return 1


def _count_streams(members: Sequence[tuple[Hashable, object, int]]) -> int:
    """Streams among (key, offset, window) members: two with the same key whose offsets
    are equal or differ by a known amount below the window are one stream (an unrolled
    copy; a read and a write of one element)."""
    parent = list(range(len(members)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (key_a, off_a, window) in enumerate(members):
        for j in range(i):
            key_b, off_b, _ = members[j]
            if key_a != key_b:
                continue
            gap = off_a - off_b                        # type: ignore[operator]
            if not isinstance(gap, int):                # symbolic (unbound) offsets
                gap = sympy.sympify(gap)
                gap = int(gap) if gap.is_Integer else None
            if gap is not None and (gap == 0 or abs(gap) < window):
                parent[root(i)] = root(j)
    return len({root(i) for i in range(len(members))})


def address_streams(operands: Sequence[OperandStream]) -> int:
    """Distinct address streams among a block's moving memory operands: operands with
    the same address registers and advance, within one advance of each other, are one."""
    return _count_streams([((key, abs(advance)), offset, abs(advance))
                           for key, offset, advance in operands])


def kernel_streams(kernel: KernelModel, k: int, level: int = -1, jam: int = 1) -> int:
    """Address streams the kernel's accesses give a block doing ``k`` iterations of loop
    ``level`` per pass (as :func:`address_streams` counts them; reads and writes of one
    element are one stream), with ``jam`` iterations of the enclosing loop jammed in
    (each access once per jammed iteration, at that iteration's offset)."""
    loop = kernel.loops[level]
    outer = kernel.loops[(level % len(kernel.loops)) - 1] if jam > 1 else None
    members = []
    for acc, arr, coeff, values in _array_accesses(kernel, loop):
        if coeff == 0:
            continue
        window = (abs(int(coeff)) * arr.element_size * abs(loop.step) * k
                  if coeff.is_Integer else 0)
        for copy in range(jam):
            at = {lp.symbol: sympy.Integer(0) for lp in kernel.loops}
            if outer is not None:
                at[outer.symbol] = sympy.Integer(copy * outer.step)
            offset = sympy.expand(sympy.sympify(acc.linear_index).xreplace(at).xreplace(values))
            members.append((acc.array, offset * arr.element_size, window))
    return _count_streams(members)


def _work_mismatch(kernel: KernelModel, lp: LoopBlock, n_fp: int) -> str:
    """Why ``lp`` cannot be the kernel's loop judging by its kind of work.

    Only accesses that move with the innermost index count: ``y[i] += ...``
    in a j-loop is kept in a register and needs no load or store there.
    """
    loop = kernel.loops[-1]
    moving = [a for a in kernel.accesses if a.array in kernel.arrays
              and not kernel.arrays[a.array].is_scalar
              and sympy.diff(a.linear_index, loop.symbol) != 0]
    if any(a.kind == "write" for a in moving) and not lp.n_stores:
        return "no store, but the kernel writes an array"
    if any(a.kind == "read" for a in moving) and not lp.n_loads:
        return "no load, but the kernel reads an array"
    if kernel_operations(kernel) and not n_fp:
        return "no floating-point arithmetic, but the kernel has some"
    return ""


def format_candidates(candidates: Sequence[BlockCandidate], chosen: int | None = None) -> str:
    """Table of the candidate blocks: sizes, instruction mix, increments."""
    head = (f"{'':2}{'#':>3} {'label':<10} {'lines':>11} {'instr':>5} {'vec':>4} {'simd':>4} "
            f"{'load':>4} {'store':>5} {'fp':>4} {'flops':>5} {'ptr+B':>6} {'it/asm':>6}  note")
    rows = [head]
    for c in candidates:
        it = "-" if c.total_iterations is None else str(c.total_iterations)
        ptr = "-" if c.pointer_increment is None else str(c.pointer_increment)
        note = c.reason or "consistent"
        if c.outer_unroll > 1:
            note += f" (outer loop unrolled x{c.outer_unroll})"
        mark = "*" if c.index == chosen else " "
        b = c.block
        rows.append(f"{mark:2}{c.index:>3} {b.label:<10} {c.first_line:>5}-{c.last_line:<5} "
                    f"{b.n_instructions:>5} {b.n_vector:>4} {c.n_packed:>4} {b.n_loads:>4} "
                    f"{b.n_stores:>5} "
                    f"{c.n_fp:>4} {c.flops:>5} {ptr:>6} {it:>6}  {note}")
    return "\n".join(rows)


@dataclass(frozen=True)
class IsaFacts:
    """What block candidates need to know about one instruction set's instructions."""

    flops: Callable[[Instruction], tuple[int, int]]         # (FP instructions, FLOPs)
    packed_access_bytes: Callable[[Instruction], int]      # 0: no packed memory access
    is_packed_arithmetic: Callable[[Instruction], bool]
    operand_streams: Callable[[Sequence[Instruction]], list[OperandStream]]   # moving operands


def make_candidate(index: int, lp: LoopBlock, lines: Sequence, kernel: KernelModel,
                   isa: IsaFacts) -> BlockCandidate:
    """The facts of one innermost loop block and whether it is the kernel's (x86 and
    AArch64 alike; ``isa`` supplies the instruction facts)."""
    instrs = lp.instructions
    fp = [isa.flops(x) for x in instrs]
    n_fp, flops = sum(f[0] for f in fp), sum(f[1] for f in fp)
    n_packed = sum(1 for x in instrs
                   if isa.packed_access_bytes(x) or isa.is_packed_arithmetic(x))
    vector_bytes = max((isa.packed_access_bytes(x) for x in instrs), default=0)
    simd = max(vector_bytes // _element_size(kernel), 1)
    moving = isa.operand_streams(instrs)
    advances = tuple(advance for _, _, advance in moving)
    most = Counter(abs(a) for a in advances).most_common(1)
    level = len(kernel.loops) - 1
    k, reason = _check_iterations(kernel, advances, simd, -1, check_simd=False)
    if not reason and k is not None and _simd_mismatch(kernel, k, simd, level) \
            and _outer_vectorised(kernel, k, simd, flops, n_packed, level) == 1:
        reason = _simd_mismatch(kernel, k, simd, level)
    if reason and advances and len(kernel.loops) > 1:
        # Did the compiler interchange the loops? Then the block walks an outer
        # index, doing one body execution per step (checked by its work).
        for lvl in range(len(kernel.loops) - 2, -1, -1):
            k2, why = _check_iterations(kernel, advances, simd, lvl)
            if not why and _work_of(kernel, lp, flops, simd) <= k2:
                k, reason, level = k2, "", lvl
                break
    streams = address_streams(moving)
    jam = 1 if reason or k is None else jam_factor(kernel, flops, k, simd, n_packed, streams,
                                                   level)
    consistent = not reason
    if consistent:
        reason = _work_mismatch(kernel, lp, n_fp)
    return BlockCandidate(
        index=index, block=lp, first_line=lines[lp.first].line_number,
        last_line=lines[lp.last].line_number, n_packed=n_packed, n_fp=n_fp, flops=flops,
        vector_bytes=vector_bytes, advances=advances,
        pointer_increment=most[0][0] if most else None, iterations=k, simd_width=simd,
        outer_unroll=jam, consistent=consistent, plausible=consistent and not reason,
        reason=reason, loop_index=kernel.loops[level].index, streams=streams)


def jam_factor(kernel: KernelModel, flops: int, k: int, simd: int, n_packed: int,
               streams: int, level: int) -> int:
    """Outer iterations per pass besides the ``k`` of loop ``level``: in the vector lanes
    when k iterations fill no whole vector (outer-loop vectorisation), else jammed
    (:func:`outer_unroll`); 1 for neither."""
    if _simd_mismatch(kernel, k, simd, level):
        return _outer_vectorised(kernel, k, simd, flops, n_packed, level)
    return outer_unroll(kernel, flops, k, streams, level)

