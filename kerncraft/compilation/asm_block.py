"""Find the kernel's innermost loop in compiled assembly and how much work one
assembly iteration does.

A compiler emits several loops for one source loop: the vectorised main
loop, a scalar remainder, perhaps a peel loop or a second version, plus the
outer loops of the nest. The in-core model needs the main loop and the number
of innermost *source* iterations one pass through it performs (unroll factor
x SIMD width), because its cycle counts are per assembly iteration.

How the choice is made and checked
----------------------------------
Every innermost loop of the assembly is a candidate. For each one we follow
the registers its memory operands are addressed with: ``addq $64, %rax`` with
``(%rdx,%rax)`` advances those operands by 64 bytes, ``addq $1, %rax`` with
``(%rdx,%rax,8)`` by 8 bytes; steps through copies (``leaq 16(%rax), %rbp``,
``movq %rbp, %rax``) are followed, operands whose registers the loop
redefines otherwise (reloaded spills) are skipped. The kernel model says how many bytes each array moves per source
iteration (element size x the innermost index's coefficient x the step). The
number of source iterations per assembly iteration *k* is the one that
explains the most advancing operands; a candidate is *consistent* if it
explains all of them and *k* is a multiple of the SIMD width (elements per
vector register of the packed memory accesses). Among consistent candidates
with loads/stores and floating-point work like the kernel's, the one with the
most packed SIMD instructions wins (the vectorised main loop rather than the
scalar remainder or peel loop; scalar code in xmm registers does not count),
then the one doing the most source iterations per pass (the unrolled main
loop), then the longest, then the first. If no step fits the innermost loop
but one of an outer loop does, and the loop's work is one body per step, the
compiler interchanged the loops (gcc -O3 does for column-wise traversals);
the explanation says so.

One more check uses the floating-point work: if the loop performs an exact
multiple (>= 2) of the kernel's operations for *k* iterations (its flops plus the
math calls that become FP instructions: ``sqrt`` is one ``vsqrtsd``) *and* walks
more address streams than the kernel's accesses give (the jammed rows), the
compiler has unrolled the *outer* loop into it (gcc's unroll-and-jam at -O3, e.g.
for the transposed matrix-vector product), and the iterations are multiplied by
that factor. A nest of one loop has no outer loop to jam
(:func:`kerncraft.compilation.blocks.outer_unroll`).

``--pointer-increment N`` overrides *k* (N bytes / bytes per iteration of the
kernel's most common stride). ``--asm-block manual`` shows the candidate table
and asks which one to use -- the only interactive path; ``--asm-block N``
takes candidate N.
"""
from __future__ import annotations

import sys
from collections import Counter
from typing import Sequence, TextIO

from kerncraft.compilation import asm_block_aarch64
from kerncraft.compilation.blocks import (FULLY_UNROLLED, BlockCandidate, BlockSelection,
                                          IsaFacts, OperandStream, format_candidates,
                                          format_set, jam_factor, kernel_operations,
                                          kernel_strides,
                                          make_candidate, numeric_trip_count)
from kerncraft.errors import AssemblyError
from kerncraft.incore import registers
from kerncraft.incore.markers import LoopBlock, find_loops
from kerncraft.incore.model import AsmLine, Immediate, Instruction, Memory, Register
from kerncraft.incore.x86.semantics import dataflow
from kerncraft.incore.x86.vectors import core_of as _core
from kerncraft.incore.x86.vectors import flops as _flops
from kerncraft.incore.x86.vectors import is_packed_arithmetic as _is_packed_arithmetic
from kerncraft.incore.x86.vectors import packed_access_bytes as _packed_access_bytes
from kerncraft.incore.x86.vectors import register_class as _reg_class
from kerncraft.kernel.model import KernelModel

__all__ = ["BlockCandidate", "BlockSelection", "select_block", "analyze_candidates",
           "format_candidates"]

# --- per-instruction facts: kerncraft/incore/x86/vectors.py ---------------------------
_Value = tuple[str, int] | None   # (register it derives from, constant offset) or unknown


def _gpr(op) -> str | None:
    """Alias root of a general-purpose register operand, else None."""
    if isinstance(op, Register) and _reg_class(op.name).startswith("r"):
        return registers.alias_root(op.name)
    return None


def _transfer(core: str, ops: Sequence, state: dict[str, _Value]) -> tuple[str, _Value] | None:
    """(destination, new value) if the instruction is a constant step or a copy
    (``add/sub $imm``, ``inc/dec``, ``lea d(%r)``, ``mov %r``); else None."""
    dst = _gpr(ops[-1]) if ops else None
    if dst is None:
        return None
    cur = state.get(dst, (dst, 0))
    step = None
    if core in ("inc", "dec") and len(ops) == 1:
        step = 1 if core == "inc" else -1
    elif core in ("add", "sub") and len(ops) == 2 and isinstance(ops[0], Immediate) \
            and isinstance(ops[0].value, int):
        step = ops[0].value if core == "add" else -ops[0].value
    if step is not None:
        return dst, None if cur is None else (cur[0], cur[1] + step)
    if len(ops) != 2:
        return None
    src = ops[0]
    if core == "lea" and isinstance(src, Memory) and src.index is None and src.symbol is None \
            and _gpr(src.base) is not None:
        base = state.get(_gpr(src.base), (_gpr(src.base), 0))
        return dst, None if base is None else (base[0], base[1] + src.displacement)
    if core == "mov" and _gpr(src) is not None:
        return dst, state.get(_gpr(src), (_gpr(src), 0))
    return None


def _operand_streams(instrs: Sequence[Instruction]) -> list[OperandStream]:
    """(address registers, byte offset, advance per iteration) of every memory operand
    that moves (loop-invariant operands give 0 and are dropped; operands with an
    unknown advance too).

    A tiny symbolic execution: each register is tracked as (register at the
    start of the iteration, constant offset) through constant steps and
    copies -- clang's ``leaq 2(%rax), %rbp ... movq %rbp, %rax`` included --
    and any other write makes it unknown. A register's advance per iteration
    is its offset at the end if it derives from itself; an operand moves with
    the advance of the registers its base and index derive from.
    """
    state: dict[str, _Value] = {}
    uses: list[tuple[_Value, _Value, Memory]] = []
    for instr in instrs:
        core, ops = _core(instr), instr.operands
        if not core.startswith(("lea", "nop")):
            for op in ops:
                if isinstance(op, Memory):
                    uses.append((_state_of(op.base, state), _state_of(op.index, state), op))
        change = _transfer(core, ops, state)
        if change is not None:
            state[change[0]] = change[1]
            continue
        try:
            written = dataflow(instr).destinations
        except Exception:   # unknown forms: trust no register they name
            written = {r for op in ops if (r := _gpr(op)) is not None}
        for root in written:
            if _reg_class(root).startswith("r"):
                state[root] = None
    advance = {r: (v[1] if v is not None and v[0] == r else None) for r, v in state.items()}
    out = []
    for base, index, mem in uses:
        parts = [(base, 1), (index, mem.scale)]
        steps = [None if v is None else advance.get(v[0], 0) for v, _ in parts if v != ("", 0)]
        if any(step is None for step in steps):
            continue
        total = sum(advance.get(v[0], 0) * f for v, f in parts if v is not None and v[0])
        if total:
            key = (base[0], index[0], mem.scale, mem.symbol)    # type: ignore[index]
            if mem.scale == 1:      # (%r12,%rsi) and 32(%rsi,%r12): one address stream
                key = (*sorted(key[:2]), 1, mem.symbol)
            offset = base[1] + index[1] * mem.scale + mem.displacement   # type: ignore[index]
            out.append((key, offset, total))
    return out


def _state_of(reg: Register | None, state: dict[str, _Value]) -> _Value:
    """Symbolic value of an address register ('', 0) for none."""
    if reg is None:
        return ("", 0)
    root = registers.alias_root(reg.name)
    return state.get(root, (root, 0))


# --- the kernel side ------------------------------------------------------------------
# --- candidates ---------------------------------------------------------------------
def analyze_candidates(lines: Sequence[AsmLine], kernel: KernelModel) -> tuple[BlockCandidate, ...]:
    """All innermost loops of ``lines`` with their facts, numbered in file order."""
    if asm_block_aarch64.is_aarch64(lines):
        return asm_block_aarch64.analyze_candidates(lines, kernel)
    inner = [lp for lp in find_loops(lines) if lp.innermost]
    return tuple(_candidate(i, lp, lines, kernel) for i, lp in enumerate(inner))


_X86 = IsaFacts(_flops, _packed_access_bytes, _is_packed_arithmetic,
               lambda instrs: _operand_streams(instrs))


def _candidate(index: int, lp: LoopBlock, lines: Sequence[AsmLine],
               kernel: KernelModel) -> BlockCandidate:
    return make_candidate(index, lp, lines, kernel, _X86)


# --- selection ------------------------------------------------------------------------
def select_block(lines: Sequence[AsmLine], kernel: KernelModel, *,
                 block: str | int = "auto", pointer_increment: str | int = "auto",
                 stdin: TextIO | None = None, stdout: TextIO | None = None) -> BlockSelection:
    """Choose the kernel's loop block in ``lines`` (see the module docstring).

    ``block`` is 'auto', 'manual' (ask on ``stdin``, which must be a TTY) or a
    candidate number. ``pointer_increment`` is 'auto', bytes per assembly
    iteration of the kernel's most common stride (the sign is ignored: a
    decrementing loop works as well), or 'auto_with_manual_fallback' (Kerncraft's
    option: if the increment cannot be derived and stdin is a TTY, ask for it).
    Raises :class:`AssemblyError` (with the candidate table) when no loop fits.
    """
    candidates = analyze_candidates(lines, kernel)
    if not candidates:
        raise AssemblyError(
            "no loop in the assembly: the compiler fully unrolled or removed the kernel's "
            "innermost loop (a constant small enough to unroll? try larger -D values or "
            "other --compiler-flags)")
    fallback = pointer_increment == "auto_with_manual_fallback"
    forced = None
    if pointer_increment == "manual":       # Kerncraft's option: always ask
        if not _is_tty(stdin):
            raise _with_table("--pointer-increment manual needs an interactive terminal; "
                              "give it as --pointer-increment BYTES (the candidate loop "
                              "blocks are listed below)", candidates)
        forced = _ask_increment(candidates, stdin, stdout, "")
        mode, chosen = _choose(candidates, block, True, stdin, stdout)
        return _finish(kernel, candidates, chosen, mode, forced)
    if pointer_increment not in ("auto", "auto_with_manual_fallback", None):
        try:
            forced = abs(int(pointer_increment))
        except (TypeError, ValueError):
            raise AssemblyError("--pointer-increment must be 'auto', "
                                "'auto_with_manual_fallback', 'manual' or a number of bytes, "
                                f"got {pointer_increment!r}") from None
        if forced == 0:
            raise AssemblyError("--pointer-increment must not be 0")
    try:
        mode, chosen = _choose(candidates, block, forced is not None, stdin, stdout)
        return _finish(kernel, candidates, chosen, mode, forced)
    except AssemblyError:
        if not fallback or not _is_tty(stdin):
            raise
    forced = _ask_increment(candidates, stdin, stdout)
    mode, chosen = _choose(candidates, block, True, stdin, stdout)
    return _finish(kernel, candidates, chosen, mode, forced)


def _no_match(candidates: Sequence[BlockCandidate], hint: str) -> AssemblyError:
    """The one-line error when no candidate fits; the table (which the user needs
    to pick a block by number) is its note, printed after the error line."""
    count = len(candidates)
    what = "the 1 candidate loop block" if count == 1 else f"{count} candidate loop blocks"
    return _with_table(
        f"no loop block matches the kernel{hint}: {what} listed below; choose one with "
        "--asm-block N (and --pointer-increment BYTES if its increment is not understood)",
        candidates)


def _with_table(message: str, candidates: Sequence[BlockCandidate]) -> AssemblyError:
    """An error of one line whose note is the candidate table (errors are one line;
    the table follows it on stderr)."""
    error = AssemblyError(message)
    error.notes = ("candidate loop blocks of the compiled kernel (#: the N of --asm-block; "
                   "the last column says why a block does not fit):\n"
                   + format_candidates(candidates),)
    return error


def _is_tty(stream: TextIO | None) -> bool:
    stream = stream if stream is not None else sys.stdin
    return bool(hasattr(stream, "isatty") and stream.isatty())


def _ask_increment(candidates: Sequence[BlockCandidate], stdin: TextIO | None,
                   stdout: TextIO | None,
                   why: str = "the pointer increment could not be derived from the "
                              "assembly\n") -> int:
    """Ask for the pointer increment ('auto_with_manual_fallback', 'manual')."""
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    stdout.write(format_candidates(candidates) + "\n" + why)
    for _ in range(3):
        stdout.write("pointer increment in bytes per assembly iteration: ")
        stdout.flush()
        answer = stdin.readline()
        if not answer:
            break
        if answer.strip().lstrip("-").isdigit() and int(answer) != 0:
            return abs(int(answer))
        stdout.write("not a number of bytes\n")
    raise AssemblyError("no pointer increment given")


def _choose(candidates: Sequence[BlockCandidate], block: str | int, forced: bool,
            stdin: TextIO | None, stdout: TextIO | None) -> tuple[str, BlockCandidate]:
    if block == "auto":
        pool = [c for c in candidates if c.plausible]
        if not pool and forced:     # the user vouches for the increment
            pool = [c for c in candidates if c.block.n_loads + c.block.n_stores]
        if not pool:
            unrolled = any(FULLY_UNROLLED in c.reason for c in candidates)
            hint = f" ({FULLY_UNROLLED}; use larger -D values)" if unrolled else ""
            raise _no_match(candidates, hint)
        return "auto", min(pool, key=lambda c: (-c.n_packed, -(c.total_iterations or 0),
                                                -c.block.n_instructions, c.index))
    if block == "manual":
        return "manual", candidates[_ask(candidates, stdin, stdout)]
    try:
        number = int(block)
    except (TypeError, ValueError):
        raise AssemblyError(f"--asm-block must be 'auto', 'manual' or a block number, "
                            f"got {block!r}") from None
    if not 0 <= number < len(candidates):
        raise _with_table(f"--asm-block {number} does not exist (0..{len(candidates) - 1}); "
                          "the candidates are listed below", candidates)
    return "index", candidates[number]


def _ask(candidates: Sequence[BlockCandidate], stdin: TextIO | None,
         stdout: TextIO | None) -> int:
    """Show the table and read a block number; only for --asm-block manual."""
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    table = format_candidates(candidates)
    if not _is_tty(stdin):
        raise _with_table("--asm-block manual needs an interactive terminal; choose one "
                          "of the loop blocks listed below with --asm-block N", candidates)
    stdout.write(table + "\n")
    for _ in range(3):
        stdout.write(f"loop block to analyse [0-{len(candidates) - 1}]: ")
        stdout.flush()
        answer = stdin.readline()
        if not answer:
            break
        if answer.strip().isdigit() and int(answer) < len(candidates):
            return int(answer)
        stdout.write("not a block number\n")
    raise AssemblyError("no loop block chosen")


def _finish(kernel: KernelModel, candidates: Sequence[BlockCandidate], c: BlockCandidate,
            mode: str, forced: int | None) -> BlockSelection:
    """Derive unroll factor and iterations for the chosen candidate."""
    b = c.block
    if forced is not None:
        k, jam, simd, how = _forced_iterations(kernel, c, forced)
        increment = forced
    else:
        if not c.consistent:
            raise _with_table(f"loop block {c.index} ({b.label}) does not fit the kernel: "
                              f"{c.reason}; pass --pointer-increment BYTES to override "
                              "(the candidates are listed below)", candidates)
        k, increment, jam, simd = c.iterations, c.pointer_increment, c.outer_unroll, c.simd_width
        how = (f"memory operands advance {format_set(c.advances)} B per asm iteration, the "
               f"kernel's arrays {format_set(kernel_strides(kernel, _level(kernel, c)))} B "
               "per source iteration")
    total = k * jam
    step = abs(kernel.loops[_level(kernel, c)].step)
    why = {"auto": "chosen automatically (consistent, most packed SIMD instructions)",
           "manual": "chosen interactively", "index": "chosen with --asm-block"}[mode]
    text = (f"loop block {c.index} ({b.label}, lines {c.first_line}-{c.last_line}, "
            f"{b.n_instructions} instructions, {b.n_vector} vector) {why}; {how}: "
            f"{k} source iteration(s) per asm iteration = unroll {max(k * step // simd, 1)} "
            f"x SIMD width {simd}")
    if step > 1:
        text += f" (the loop steps by {step}: {k * step} elements per asm iteration)"
    if jam > 1 and (k * step) % simd:
        text += (f"; its {c.flops} flops are {jam}x the kernel's for {k} iterations: the "
                 f"compiler vectorised the outer loop ({jam} outer iterations in the SIMD "
                 f"lanes), so {total} source iterations per asm iteration")
    elif jam > 1 and c.flops == jam * kernel_operations(kernel) * k:
        text += (f"; its {c.flops} flops are {jam}x the kernel's for {k} iterations: the "
                 f"compiler unrolled the outer loop {jam}x into it, so {total} source "
                 "iterations per asm iteration")
    elif jam > 1:
        text += (f"; its {c.flops} flops are more than the kernel's "
                 f"{kernel_operations(kernel) * k} for {k} iterations and it walks the "
                 f"{c.streams} address streams of {jam} iterations of the enclosing loop: the "
                 f"compiler unrolled that loop {jam}x into it (and hoisted what does not "
                 f"change along the inner loop), so {total} source iterations per asm "
                 "iteration")
    inner = kernel.loops[-1].index
    if c.loop_index and c.loop_index != inner:
        text += (f"; note: the compiler interchanged the loops, the assembly loop walks "
                 f"'{c.loop_index}' instead of '{inner}' (traffic predictions assume "
                 f"'{inner}' innermost)")
    if not c.plausible and c.consistent and mode != "auto":
        text += f" (note: {c.reason})"
    return BlockSelection(
        index=c.index, block=b, instructions=b.instructions, candidates=tuple(candidates),
        pointer_increment=increment or 0, unroll=max(k * step // simd, 1), simd_width=simd,
        outer_unroll=jam,
        iterations_per_asm_iteration=total, mode=mode, explanation=text)


def _level(kernel: KernelModel, c: BlockCandidate) -> int:
    names = [lp.index for lp in kernel.loops]
    return names.index(c.loop_index) if c.loop_index in names else len(names) - 1


def _forced_iterations(kernel: KernelModel, c: BlockCandidate,
                       forced: int) -> tuple[int, int, int, str]:
    """(k, outer unroll, SIMD width, explanation) from --pointer-increment."""
    strides = kernel_strides(kernel)
    if not strides:
        raise AssemblyError("--pointer-increment needs the kernel's innermost strides; "
                            "bind the constants the array sizes use")
    stride = Counter(strides).most_common(1)[0][0]
    if forced % stride:
        raise AssemblyError(f"--pointer-increment {forced} B is no multiple of the "
                            f"kernel's {stride} B per iteration")
    k = forced // stride
    trips = numeric_trip_count(kernel)
    if trips is not None and k > max(trips, 0):
        raise AssemblyError(f"--pointer-increment {forced} B means {k} iterations per asm "
                            f"iteration, but the innermost loop has only {trips}")
    simd = c.simd_width if k % c.simd_width == 0 else 1
    how = f"--pointer-increment {forced} B / {stride} B per source iteration"
    jam = jam_factor(kernel, c.flops, k, c.simd_width, c.n_packed, c.streams, _level(kernel, c))
    return k, jam, simd, how
