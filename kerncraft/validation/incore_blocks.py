"""Loop blocks of the in-core campaign: kernels x compilers x flags, compiled and cut out.

A *variant* is one compiler with one choice per axis: optimisation level (``-O2``,
``-O3``), vector width (scalar, 128, 256, 512 bits where the host has AVX-512) and
unrolling (the compiler's default, or the other way: ``-funroll-loops`` for gcc,
``-fno-unroll-loops`` for clang). The flags start from the machine file's flags for
the compiler with its optimisation level and vector-width flags taken out; a compiler
that refuses them (clang 14 and ``-march=znver5``) gets ``-march=native`` instead
(:func:`base_flags`).

The block of a (kernel, variant) is the innermost loop of the *benchmark program*
(:func:`kerncraft.benchmark.program.benchmark_source`: the code that is measured),
chosen by :func:`kerncraft.compilation.asm_block.select_block`. Its text is normalised
(:func:`normalise`: no comments or directives, one space after the mnemonic, labels
renamed in order of appearance), and that text is what every analyzer reads and what
identifies the block: two variants giving the same text are one block.
"""
from __future__ import annotations

import functools
import hashlib
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from kerncraft.errors import KerncraftError
from kerncraft.validation.incore_sizes import Extents, plan_extents, size_plan

__all__ = ["FAMILIES", "Variant", "Block", "family_of", "base_flags", "variants", "normalise",
           "check_jam", "block_key", "make_block"]

#: kernel -> family, for the per-family scores (what limits the loops of a family is
#: alike: streams, reductions, stencils, in-place stencils with a dependency through
#: memory, row-wise matrix loops, loops that walk down a column).
FAMILIES: Mapping[str, str] = {
    **{k: "streams" for k in ("copy", "add", "update", "daxpy", "triad", "striad",
                              "gemver-add")},
    **{k: "reductions" for k in ("sum_reduction", "scalar_product", "kahan-dot")},
    **{k: "stencils" for k in ("2d-5pt", "3d-7pt", "3d-27pt", "3d-long-range", "himeno",
                               "uxx", "jacobi-1d", "jacobi-2d", "heat-3d", "fdtd-2d-ey",
                               "fdtd-2d-ex", "fdtd-2d-hz")},
    **{k: "in-place stencils" for k in ("gs-2d-5pt", "seidel-2d")},
    **{k: "matrix rows" for k in ("matvec", "matvec_trans", "gemm", "gemver-outer",
                                  "gemver-w", "atax-tmp", "atax-y", "bicg", "mvt-x1",
                                  "gesummv", "trisolv")},
    **{k: "strided columns" for k in ("gemver-xt", "mvt-x2", "doitgen", "symm", "syrk",
                                      "covariance")},
}
WIDTHS = ("scalar", "128", "256", "512")
_OPT_OR_WIDTH = re.compile(r"^(-O\S*|-mprefer-vector-width=\S+|-f(no-)?tree-(slp-)?vectorize|"
                           r"-f(no-)?(slp-)?vectorize|-f(no-)?unroll-loops)$")


def family_of(kernel: str) -> str:
    return FAMILIES.get(kernel, "other")


@dataclass(frozen=True)
class Variant:
    """One compiler and one choice per axis, with the flags that make it."""

    compiler: str
    opt: str                        # '-O2' | '-O3'
    width: str                      # 'scalar' | '128' | '256' | '512'
    unroll: str                     # 'default' | '-funroll-loops' | '-fno-unroll-loops'
    flags: tuple[str, ...]

    def label(self) -> str:
        unroll = "" if self.unroll == "default" else f" {self.unroll}"
        return f"{self.compiler} {self.opt} {self.width}{unroll}"

    def to_dict(self) -> dict[str, Any]:
        return {"opt": self.opt, "width": self.width, "unroll": self.unroll}


def _accepts(compiler: str, flags: Sequence[str]) -> bool:
    """True if ``compiler`` compiles an empty program with ``flags``."""
    try:
        done = subprocess.run([compiler, *flags, "-S", "-o", "/dev/null", "-x", "c", "-"],
                              input="int kc_probe;\n", capture_output=True, text=True,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def base_flags(machine, compiler: str) -> tuple[tuple[str, ...], str | None]:
    """(flags, note): the machine file's flags for ``compiler`` without optimisation
    level, vector width, vectorisation and unrolling flags; ``-march=native
    -ffreestanding`` with a note when the compiler refuses them."""
    from kerncraft.compilation.compiler import select_compiler

    listed = select_compiler(machine, compiler)[1]
    flags = tuple(f for f in listed if not _OPT_OR_WIDTH.match(f))
    if _accepts(compiler, flags):
        return flags, None
    fallback = ("-march=native", "-ffreestanding")
    return fallback, (f"{compiler} refuses the machine file's flags "
                      f"'{shlex.join(flags)}': compiled with '{shlex.join(fallback)}'")


def _width_flags(compiler: str, width: str) -> tuple[str, ...]:
    if width != "scalar":
        return (f"-mprefer-vector-width={width}",)
    return ("-fno-tree-vectorize",) if "clang" not in compiler else \
        ("-fno-vectorize", "-fno-slp-vectorize")


def variants(compilers: Mapping[str, Sequence[str]], widths: Sequence[str] = WIDTHS,
             opts: Sequence[str] = ("-O2", "-O3"), unrolling: bool = True) -> list[Variant]:
    """Every variant of ``compilers`` (name -> base flags)."""
    found = []
    for compiler, base in compilers.items():
        other = "-fno-unroll-loops" if "clang" in compiler else "-funroll-loops"
        for opt in opts:
            for width in widths:
                for unroll in (("default", other) if unrolling else ("default",)):
                    extra = () if unroll == "default" else (unroll,)
                    found.append(Variant(compiler, opt, width, unroll,
                                         (opt, *base, *_width_flags(compiler, width), *extra)))
    return found




def _operands(text: str) -> list[str]:
    """The operands of an instruction, split at the commas outside parentheses, without
    blanks (``-8(%rdx, %rsi,8)`` is ``-8(%rdx,%rsi,8)``)."""
    operands, depth, current = [], 0, ""
    for char in text:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            operands.append(current)
            current = ""
        elif not char.isspace():
            current += char
    return [*operands, current]


_LABEL_DEF = re.compile(r"^([.\w$@]+):$")
_BRANCH = re.compile(r"^(j[a-z]+|call\w*|loop\w*)\s+([.\w$@]+)$")


def normalise(text: str) -> str:
    """The block text as analyzers read it and the campaign identifies it: one
    instruction or label a line, comments, directives and marker lines dropped, one
    space after the mnemonic and after the commas between operands, none in an operand,
    labels renamed ``.Lkc0``, ``.Lkc1``, ...
    in order of appearance (definitions and branch targets)."""
    lines = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or (line.startswith(".") and not line.endswith(":")):
            continue
        parts = line.split(None, 1)
        if len(parts) > 1:
            line = parts[0] + " " + ", ".join(_operands(parts[1]))
        lines.append(line)
    names: dict[str, str] = {}
    for line in lines:
        match = _LABEL_DEF.match(line) or _BRANCH.match(line)
        if match:
            label = match.group(1) if line.endswith(":") else match.group(2)
            names.setdefault(label, f".Lkc{len(names)}")
    out = []
    for line in lines:
        definition, branch = _LABEL_DEF.match(line), _BRANCH.match(line)
        if definition:
            line = names[definition.group(1)] + ":"
        elif branch:
            line = f"{branch.group(1)} {names[branch.group(2)]}"
        out.append(line)
    return "\n".join(out) + "\n"


def block_key(text: str, flags: Sequence[str], compiler_version: str, host: str) -> str:
    """The key of a measured block in the results file: its text, the flags, the
    compiler's version line and the host (any of them changes what was measured)."""
    digest = hashlib.sha256()
    for part in (text, shlex.join(flags), compiler_version, host):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:24]


@dataclass(frozen=True)
class Block:
    """One distinct loop block: where it comes from, its text, its sizes."""

    kernel: str
    kernel_path: Path
    variant: Variant
    compiler_version: str
    text: str                                   # normalised
    instructions: int
    iterations_per_asm_iteration: int
    unroll: int
    simd_width: int
    outer_unroll: int
    extents: Extents
    flags: tuple[str, ...]                      # with what the kernel needs (math calls)
    same_block: tuple[str, ...] = field(default=())   # other (kernel, variant) labels

    @property
    def family(self) -> str:
        return family_of(self.kernel)


_MEMORY = re.compile(r"[-\w$.]*\(%\w+(?:,\s*%\w+)?(?:,\s*\d)?\)")


def _distinct_loads(instructions) -> int:
    """Distinct memory operands read by the instructions (AT&T: a memory operand read
    unless it is the destination of a move)."""
    read = set()
    for ins in instructions:
        operands = _MEMORY.findall(ins.text)
        for operand in operands:
            is_last = ins.text.rstrip().endswith(operand)
            if not is_last or not ins.mnemonic.lstrip("v").startswith("mov"):
                read.add(operand.replace(" ", ""))
    return len(read)


def check_jam(kernel, selection) -> None:
    """Refuse a block that looks like an undetected unroll-and-jam: more address streams
    than the kernel's accesses give *and* half as many distinct loaded operands again per
    unrolled copy as the kernel reads moving elements (a strided element counts once per
    SIMD lane). gcc jams gemm's k loop, and the hoisted ``alpha * A[i][k]`` hides the
    doubled work from the flop count of the block selection; the iterations per assembly
    iteration, and so the measured cycles, would be off by the jam factor."""
    from kerncraft.compilation.blocks import kernel_streams

    chosen = selection.candidates[selection.index]
    if selection.outer_unroll > 1 or not chosen.iterations:
        return
    level = next((n for n, lp in enumerate(kernel.loops) if lp.index == chosen.loop_index), -1)
    symbol = kernel.loops[level].symbol
    moving = {(a.array, str(a.linear_index)): a.linear_index.coeff(symbol)
              for a in kernel.accesses if a.kind == "read"
              and not kernel.arrays[a.array].is_scalar and a.linear_index.has(symbol)}
    reads = sum(1 if stride == 1 else selection.simd_width for stride in moving.values())
    loads = _distinct_loads(selection.instructions) / max(selection.unroll, 1)
    streams = kernel_streams(kernel, chosen.iterations, level)
    if chosen.streams > streams and loads >= 1.5 * reads:
        raise KerncraftError(f"{chosen.streams} address streams where the kernel's accesses "
                             f"give {streams}, {loads:g} operands loaded per unrolled copy "
                             f"for {reads} elements read: an outer loop seems jammed into "
                             "the block, so its iterations per assembly iteration are unsure")


@functools.lru_cache(maxsize=64)
def _bound_kernel(path: str, bindings: tuple[tuple[str, int], ...]):
    from kerncraft.kernel.parser import parse_kernel

    source = Path(path).read_text(encoding="utf-8")
    return parse_kernel(source, filename=Path(path).name).bind(dict(bindings))


def block_kernel(kernel: str, bindings: Mapping[str, int], path: Path | None = None):
    """The bound kernel a block was compiled from, at its long extent (what its line
    splits are estimated from): the file ``path``, else the bundled kernel named
    ``kernel``; None for a kernel that is neither (a recording of a user's kernel)."""
    if path is None:
        from kerncraft.resources import bundled_dir

        folder = bundled_dir("kernels")
        path = next((p for p in (folder / f"{kernel}.c", folder / "polybench" / f"{kernel}.c")
                     if p.is_file()), None)
    if path is None or not Path(path).is_file():
        return None
    return _bound_kernel(str(path), tuple(sorted(bindings.items())))


def make_block(kernel_name: str, kernel_path: Path, variant: Variant, budget: int) -> Block:
    """Compile the benchmark of a kernel with a variant's flags, cut out its loop block
    and choose its extents (KerncraftError: no usable block, with the reason)."""
    from kerncraft.benchmark.program import benchmark_source
    from kerncraft.compilation.asm_block import select_block
    from kerncraft.compilation.codegen import stride_constants
    from kerncraft.compilation.compiler import compile_to_assembly, kernel_flags
    from kerncraft.incore.backends.tool_run import marked_block
    from kerncraft.incore.x86.parser import parse_x86
    from kerncraft.kernel.parser import parse_kernel

    kernel = parse_kernel(kernel_path.read_text(encoding="utf-8"), filename=kernel_path.name)
    fixed, inner = size_plan(kernel_name, kernel)
    if inner in stride_constants(kernel):
        raise KerncraftError(f"the inner extent {inner} is a literal stride (it is in the "
                             "compiled code, so the two extents would compile differently)")
    provisional = kernel.bind({**fixed, inner: 1024})
    flags = kernel_flags(provisional, variant.compiler, variant.flags)
    compiled = compile_to_assembly(benchmark_source(provisional), variant.compiler, flags)
    lines = parse_x86(compiled.assembly, filename="<benchmark>")
    selection = select_block(lines, provisional)
    if len(selection.candidates) > 1:    # the program holds several loops: which one runs?
        from kerncraft.validation.incore_loopcheck import busiest_loop, check_runs, loop_counts

        counts = loop_counts(provisional, variant.compiler, flags,
                             [c.first_line for c in selection.candidates], compiled.assembly)
        busiest = busiest_loop(counts)
        if busiest != selection.index and selection.candidates[busiest].consistent:
            selection = select_block(lines, provisional, block=busiest)   # the loop that runs
        check_runs(selection, counts)
    check_jam(provisional, selection)
    text = normalise(marked_block(compiled.assembly, selection, "KC-BEGIN", "KC-END"))
    per_row = selection.unroll * selection.simd_width
    extents = plan_extents(kernel_name, kernel, per_row,
                           selection.iterations_per_asm_iteration, budget)
    return Block(kernel_name, kernel_path, variant, compiled.version, text,
                 len(selection.instructions), selection.iterations_per_asm_iteration,
                 selection.unroll, selection.simd_width, selection.outer_unroll, extents,
                 tuple(compiled.flags))
