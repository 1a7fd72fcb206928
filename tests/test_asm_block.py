"""Loop-block selection and iterations per assembly iteration.

Hand-written assembly checks the rules one at a time; compiled assembly of
every bundled kernel checks the whole chain against gcc 12 output whose
expected numbers were derived by reading the listings (see the table below).
"""
from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kerncraft.compilation.asm_block import BlockSelection, analyze_candidates, format_candidates, select_block
from kerncraft.compilation.codegen import generate_c
from kerncraft.compilation.compiler import compile_to_assembly
from kerncraft.errors import AssemblyError
from kerncraft.incore.x86.parser import parse_x86
from kerncraft.kernel.parser import parse_kernel

KERNEL_DIR = Path(__file__).parents[1] / "kernels"
BUNDLED = sorted(p.stem for p in KERNEL_DIR.glob("*.c"))

TRIAD = parse_kernel((KERNEL_DIR / "triad.c").read_text(), "triad.c").bind({"N": 1000})


def _asm(*loops: str) -> list:
    """A function with the given loop bodies (each 'label: body') around setup code."""
    text = ["\t.text", "main:", "\tpushq\t%rbx", "\txorl\t%eax, %eax"]
    for loop in loops:
        text.extend(loop.strip("\n").split("\n"))
    text.extend(["\tpopq\t%rbx", "\tret"])
    return parse_x86("\n".join(text) + "\n")


VECTOR_LOOP = """.L4:
\tvmovupd\t(%rdx,%rax), %ymm0
\tvfmadd213pd\t(%rcx,%rax), %ymm1, %ymm0
\tvmovupd\t%ymm0, (%rsi,%rax)
\tvmovupd\t32(%rdx,%rax), %ymm2
\tvfmadd213pd\t32(%rcx,%rax), %ymm1, %ymm2
\tvmovupd\t%ymm2, 32(%rsi,%rax)
\taddq\t$64, %rax
\tcmpq\t%rax, %rdi
\tjne\t.L4"""
SCALAR_LOOP = """.L5:
\tvmovsd\t(%rdx,%r8,8), %xmm0
\tvfmadd213sd\t(%rcx,%r8,8), %xmm1, %xmm0
\tvmovsd\t%xmm0, (%rsi,%r8,8)
\tincq\t%r8
\tcmpq\t%r8, %r9
\tjne\t.L5"""
BUMP_LOOP = """.L3:
\tmovq\t8(%rsp), %r10
\tvmovapd\t(%rdi), %zmm0
\tvfmadd213pd\t(%rsi), %zmm1, %zmm0
\tvmovapd\t%zmm0, (%rdx)
\tvmovsd\t(%r10), %xmm3
\taddq\t$64, %rdi
\tsubq\t$-64, %rsi
\tleaq\t64(%rdx), %rdx
\tdecl\t%ecx
\tjne\t.L3"""
MIXED_LOOP = """.L7:
\tvmovupd\t(%rdi), %ymm0
\tvfmadd213pd\t(%rsi), %ymm1, %ymm0
\tvmovupd\t%ymm0, (%rdx)
\taddq\t$64, %rdi
\taddq\t$32, %rsi
\taddq\t$32, %rdx
\tcmpq\t%rdx, %r9
\tjne\t.L7"""
DELAY_LOOP = """.L9:
\tdecl\t%eax
\tjne\t.L9"""


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


# ------------------------------------------------------------------ hand-written assembly
def test_vector_main_loop_wins_over_scalar_remainder():
    sel = select_block(_asm(VECTOR_LOOP, SCALAR_LOOP), TRIAD)
    assert isinstance(sel, BlockSelection)
    assert (sel.index, sel.block.label, sel.mode) == (0, ".L4", "auto")
    assert (sel.pointer_increment, sel.unroll, sel.simd_width, sel.outer_unroll) == (64, 2, 4, 1)
    assert sel.iterations_per_asm_iteration == 8
    assert len(sel.instructions) == 9 and sel.instructions[0].mnemonic == "vmovupd"
    assert [c.block.label for c in sel.candidates] == [".L4", ".L5"]
    scalar = sel.candidates[1]
    assert (scalar.n_fp, scalar.flops, scalar.vector_bytes) == (1, 2, 0)
    assert (scalar.pointer_increment, scalar.iterations, scalar.simd_width) == (8, 1, 1)
    assert sel.candidates[0].flops == 16      # two 4-lane FMAs
    assert "8 source iteration(s) per asm iteration = unroll 2 x SIMD width 4" in sel.explanation


def test_explicit_block_number_takes_the_scalar_loop():
    sel = select_block(_asm(VECTOR_LOOP, SCALAR_LOOP), TRIAD, block=1)
    assert (sel.block.label, sel.mode, sel.iterations_per_asm_iteration) == (".L5", "index", 1)
    assert select_block(_asm(VECTOR_LOOP, SCALAR_LOOP), TRIAD, block="1").index == 1


def test_pointer_bumps_decrementing_counter_and_reloaded_registers():
    """Pointers bumped by add/sub -64/lea, a separate down-counter, and an operand
    whose base register is reloaded each iteration (ignored)."""
    sel = select_block(_asm(BUMP_LOOP), TRIAD)
    assert (sel.pointer_increment, sel.unroll, sel.simd_width) == (64, 1, 8)
    assert sel.iterations_per_asm_iteration == 8
    assert sel.candidates[0].advances == (64, 64, 64)


def test_inconsistent_increments_are_an_error_unless_overridden():
    with pytest.raises(AssemblyError) as err:
        select_block(_asm(MIXED_LOOP), TRIAD)
    message, (table,) = str(err.value), err.value.notes
    assert "no loop block matches the kernel" in message and "\n" not in message
    assert ".L7" in table and "advances {32, 64} B are not all a multiple" in table
    sel = select_block(_asm(MIXED_LOOP), TRIAD, pointer_increment=32)
    assert (sel.iterations_per_asm_iteration, sel.unroll, sel.simd_width) == (4, 1, 4)
    assert "--pointer-increment 32 B" in sel.explanation
    with pytest.raises(AssemblyError, match="does not fit the kernel"):
        select_block(_asm(MIXED_LOOP), TRIAD, block=0)
    with pytest.raises(AssemblyError, match="no multiple of the kernel's 8 B"):
        select_block(_asm(MIXED_LOOP), TRIAD, pointer_increment=12)
    with pytest.raises(AssemblyError, match="must not be 0"):
        select_block(_asm(MIXED_LOOP), TRIAD, pointer_increment=0)
    with pytest.raises(AssemblyError, match="or a number of bytes, got 'lots'"):
        select_block(_asm(MIXED_LOOP), TRIAD, pointer_increment="lots")
    # the sign does not matter (decrementing loops)
    assert select_block(_asm(MIXED_LOOP), TRIAD,
                        pointer_increment=-32).iterations_per_asm_iteration == 4
    with pytest.raises(AssemblyError, match="only 1000"):
        select_block(_asm(MIXED_LOOP), TRIAD, pointer_increment=8 * 1001)


def test_loops_without_the_kernels_work_are_rejected():
    only_loads = VECTOR_LOOP.replace("vmovupd\t%ymm0, (%rsi,%rax)", "vaddpd\t%ymm0, %ymm3, %ymm3")
    only_loads = only_loads.replace("vmovupd\t%ymm2, 32(%rsi,%rax)", "vaddpd\t%ymm2, %ymm3, %ymm3")
    cands = analyze_candidates(_asm(only_loads, DELAY_LOOP), TRIAD)
    assert cands[0].consistent and not cands[0].plausible
    assert cands[0].reason == "no store, but the kernel writes an array"
    assert cands[1].reason == "no memory operand advances with the loop"
    with pytest.raises(AssemblyError, match="no loop block matches"):
        select_block(_asm(only_loads, DELAY_LOOP), TRIAD)
    # chosen by number it is used, with a note
    sel = select_block(_asm(only_loads, DELAY_LOOP), TRIAD, block=0)
    assert sel.iterations_per_asm_iteration == 8 and "note: no store" in sel.explanation


def test_auto_with_manual_fallback():
    # derivable: no question asked
    out = io.StringIO()
    sel = select_block(_asm(VECTOR_LOOP), TRIAD, pointer_increment="auto_with_manual_fallback",
                       stdin=FakeTTY(""), stdout=out)
    assert sel.iterations_per_asm_iteration == 8 and out.getvalue() == ""
    # not derivable: asked on a terminal ...
    sel = select_block(_asm(MIXED_LOOP), TRIAD, pointer_increment="auto_with_manual_fallback",
                       stdin=FakeTTY("x\n64\n"), stdout=out)
    assert sel.iterations_per_asm_iteration == 8
    assert "could not be derived" in out.getvalue() and "not a number" in out.getvalue()
    # ... and the normal error without one
    with pytest.raises(AssemblyError, match="no loop block matches"):
        select_block(_asm(MIXED_LOOP), TRIAD, pointer_increment="auto_with_manual_fallback",
                     stdin=io.StringIO("64\n"), stdout=io.StringIO())


def test_no_loop_at_all_means_the_loop_was_unrolled_away():
    with pytest.raises(AssemblyError, match="no loop in the assembly: the compiler fully "
                                            "unrolled or removed"):
        select_block(_asm(), TRIAD)


def test_manual_mode_needs_a_terminal():
    with pytest.raises(AssemblyError) as err:
        select_block(_asm(VECTOR_LOOP, SCALAR_LOOP), TRIAD, block="manual",
                     stdin=io.StringIO("1\n"), stdout=io.StringIO())
    assert "interactive terminal" in str(err.value) and ".L5" in err.value.notes[0]


def test_manual_mode_asks_which_block():
    out = io.StringIO()
    sel = select_block(_asm(VECTOR_LOOP, SCALAR_LOOP), TRIAD, block="manual",
                       stdin=FakeTTY("seven\n1\n"), stdout=out)
    assert (sel.index, sel.mode) == (1, "manual")
    shown = out.getvalue()
    assert "label" in shown and ".L4" in shown and "not a block number" in shown
    with pytest.raises(AssemblyError, match="no loop block chosen"):
        select_block(_asm(VECTOR_LOOP), TRIAD, block="manual", stdin=FakeTTY(""),
                     stdout=io.StringIO())


def test_bad_block_arguments():
    with pytest.raises(AssemblyError, match=r"--asm-block 5 does not exist \(0..1\)"):
        select_block(_asm(VECTOR_LOOP, SCALAR_LOOP), TRIAD, block=5)
    with pytest.raises(AssemblyError, match="'auto', 'manual' or a block number"):
        select_block(_asm(VECTOR_LOOP), TRIAD, block="best")


def test_candidate_table_format():
    sel = select_block(_asm(VECTOR_LOOP, SCALAR_LOOP), TRIAD)
    lines = format_candidates(sel.candidates, chosen=0).split("\n")
    assert lines[0].split() == ["#", "label", "lines", "instr", "vec", "simd", "load", "store",
                                "fp", "flops", "ptr+B", "it/asm", "note"]
    assert lines[1].startswith("*") and lines[1].split()[1:4] == ["0", ".L4", "5-14"]
    # 9 instructions, 6 vector (all packed), 4 loads (2 moves, 2 FMA operands),
    # 2 stores, 2 FMAs of 4 lanes
    assert lines[1].split()[4:13] == ["9", "6", "6", "4", "2", "2", "16", "64", "8"]
    assert lines[2].split()[-2:] == ["1", "consistent"]
    assert sel.describe().startswith(lines[0])


# ------------------------------------------------------------------ compiled kernels
CSX = "-march=cascadelake -ffreestanding"        # machine-files/CSX.yml gcc flags
FLAGSETS = {"O1": f"-O1 {CSX}", "O2": f"-O2 {CSX}", "O3": f"-O3 {CSX}",
            "native": "-O3 -march=native -ffreestanding"}

# Iterations per asm iteration as (unroll, SIMD width, outer unroll) from gcc 12.2.
# -O1: never vectorised. -O2: gcc 12 vectorises only with the very-cheap cost
# model, which refuses loops needing an epilogue (run-time trip counts): scalar.
# -O3 -march=cascadelake: ymm (prefer-vector-width=256), 4 doubles, unroll 1;
# except: gs-2d-5pt and kahan-dot (loop-carried dependencies) stay scalar;
# sum_reduction is an in-order reduction vectorised by 4 with the vector load
# split into four scalar loads (unroll 4 x 1); 3d-long-range is unrolled twice
# by predictive commoning (2 x 4); matvec_trans has its outer loop unrolled
# and jammed (2 x 4 per row, 2 rows: 16 source iterations).
_O3 = {k: (1, 4, 1) for k in BUNDLED}
_O3.update({"gs-2d-5pt": (1, 1, 1), "kahan-dot": (1, 1, 1), "sum_reduction": (4, 1, 1),
            "3d-long-range": (2, 4, 1), "matvec_trans": (2, 4, 2)})
EXPECTED = {"O1": {k: (1, 1, 1) for k in BUNDLED}, "O2": {k: (1, 1, 1) for k in BUNDLED},
            "O3": _O3}


def _gcc_major() -> int | None:
    if shutil.which("gcc") is None:
        return None
    out = subprocess.run(["gcc", "-dumpversion"], capture_output=True, text=True).stdout
    return int(out.split(".")[0]) if out.strip() else None


def _native_like_cascadelake() -> bool:
    """-march=native is an AVX-512 Intel server/client core preferring 256-bit vectors."""
    out = subprocess.run(["gcc", "-march=native", "-Q", "--help=target"], capture_output=True,
                         text=True).stdout
    arch = re.search(r"-march=\s+(\S+)", out)
    width = re.search(r"-mprefer-vector-width=\s+(\S+)", out)
    return bool(arch and arch.group(1) in {"skylake-avx512", "cascadelake", "cooperlake",
                                           "icelake-server", "icelake-client", "tigerlake",
                                           "sapphirerapids"}
                and width and width.group(1) == "256")


GCC_MAJOR = _gcc_major()
needs_gcc = pytest.mark.skipif(GCC_MAJOR is None, reason="gcc not installed")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict:
    """Assembly of every bundled kernel for every flag set, compiled in parallel
    into a private cache directory."""
    old = os.environ.get("KERNCRAFT_CACHE_DIR")
    os.environ["KERNCRAFT_CACHE_DIR"] = str(tmp_path_factory.mktemp("asm-cache"))
    try:
        kernels = {k: parse_kernel((KERNEL_DIR / f"{k}.c").read_text(), f"{k}.c")
                   for k in BUNDLED}
        jobs = [(k, f) for k in BUNDLED for f in FLAGSETS]

        def one(job):
            k, f = job
            return job, compile_to_assembly(generate_c(kernels[k]), "gcc", FLAGSETS[f]).assembly

        with ThreadPoolExecutor(8) as pool:
            asm = dict(pool.map(one, jobs))
        return {"kernels": kernels, "asm": asm}
    finally:
        if old is None:
            os.environ.pop("KERNCRAFT_CACHE_DIR", None)
        else:
            os.environ["KERNCRAFT_CACHE_DIR"] = old


@needs_gcc
@pytest.mark.parametrize("flagset", list(FLAGSETS))
@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_kernel_blocks(compiled, name, flagset):
    kernel = compiled["kernels"][name]
    sel = select_block(parse_x86(compiled["asm"][name, flagset]), kernel)
    assert sel.iterations_per_asm_iteration == sel.unroll * sel.simd_width * sel.outer_unroll
    assert sel.pointer_increment == sel.unroll * sel.simd_width * 8     # all doubles, step 1
    assert sel.candidates[sel.index].plausible
    got = (sel.unroll, sel.simd_width, sel.outer_unroll)
    if flagset == "native":
        if GCC_MAJOR != 12 or not _native_like_cascadelake():
            assert sel.simd_width in (1, 2, 4, 8)
            return
        flagset = "O3"
    if GCC_MAJOR != 12:
        pytest.skip(f"expected values are for gcc 12, this is gcc {GCC_MAJOR}")
    assert got == EXPECTED[flagset][name], sel.describe()


def _select(source: str, values: dict, flags: str, constants: str = "auto") -> BlockSelection:
    kernel = parse_kernel(source, "k.c").bind(values)
    asm = compile_to_assembly(generate_c(kernel, constants=constants), "gcc", flags).assembly
    return select_block(parse_x86(asm), kernel)


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path / "cache"))


@needs_gcc
def test_float_reverse_and_strided_loops(private_cache):
    if GCC_MAJOR != 12:
        pytest.skip("expected values are for gcc 12")
    ftriad = ("float a[N], b[N], c[N];\nfloat s;\n"
              "for (int i = 0; i < N; ++i)\n  a[i] = b[i] + s * c[i];\n")
    reverse = "double a[N], b[N];\nfor (int i = N - 1; i >= 0; --i)\n  a[i] = 2.0 * b[i];\n"
    step2 = "double a[N], b[N];\nfor (int i = 0; i < N; i += 2)\n  a[i] = 3.0 * b[i];\n"
    o3 = f"-O3 {CSX}"
    sel = _select(ftriad, {"N": 1000}, o3)
    assert (sel.simd_width, sel.iterations_per_asm_iteration, sel.pointer_increment) == (8, 8, 32)
    assert _select(ftriad, {"N": 1000}, f"-O1 {CSX}").pointer_increment == 4
    sel = _select(reverse, {"N": 1000}, o3)
    assert (sel.simd_width, sel.iterations_per_asm_iteration) == (4, 4)
    sel = _select(step2, {"N": 1000}, f"-O1 {CSX}")
    assert (sel.pointer_increment, sel.iterations_per_asm_iteration) == (16, 1)


@needs_gcc
def test_interchanged_loops_are_detected(private_cache):
    column = ("double a[M][N], b[M][N];\nfor (int j = 0; j < N; ++j)\n"
              "  for (int i = 0; i < M; ++i)\n    a[i][j] = 2.0 * b[i][j];\n")
    sel = _select(column, {"M": 1000, "N": 2000}, f"-O1 {CSX}")
    assert (sel.pointer_increment, sel.iterations_per_asm_iteration) == (16000, 1)
    if GCC_MAJOR == 12:       # gcc 12 -O3 interchanges the loops and vectorises along j
        sel = _select(column, {"M": 1000, "N": 2000}, f"-O3 {CSX}")
        assert sel.candidates[sel.index].loop_index == "j"
        assert sel.iterations_per_asm_iteration == 4
        assert "interchanged the loops" in sel.explanation


@needs_gcc
def test_fully_unrolled_inner_loop_is_a_clear_error(private_cache):
    stencil = (KERNEL_DIR / "3d-7pt.c").read_text()
    with pytest.raises(AssemblyError, match="fully unrolled the innermost loop"):
        _select(stencil, {"N": 10, "M": 10, "L": 10}, f"-O3 {CSX}", constants="literal")
    with pytest.raises(AssemblyError, match="no loop in the assembly"):
        _select((KERNEL_DIR / "copy.c").read_text(), {"N": 8}, f"-O3 {CSX}",
                constants="literal")
    # the default run-time constants keep the loop for the same small sizes
    sel = _select(stencil, {"N": 10, "M": 10, "L": 10}, f"-O3 {CSX}")
    assert sel.iterations_per_asm_iteration == (4 if GCC_MAJOR == 12 else
                                                 sel.iterations_per_asm_iteration)


def test_register_copies_are_followed():
    """clang unrolls by stepping a copy: ``leaq 2(%rax), %rbp ... movq %rbp, %rax``."""
    loop = """.LBB0_6:
\tvaddsd\t(%rdx,%rax,8), %xmm1, %xmm1
\tvmulsd\t%xmm0, %xmm1, %xmm1
\tvmovsd\t%xmm1, -8(%rdx,%rax,8)
\tvaddsd\t8(%rdx,%rax,8), %xmm1, %xmm1
\tleaq\t2(%rax), %rbp
\tvmulsd\t%xmm0, %xmm1, %xmm1
\tvmovsd\t%xmm1, (%rdx,%rax,8)
\tvmovsd\t%xmm1, 8(%rcx,%rbp,8)
\tleaq\t(%rcx,%rax), %rbx
\tmovq\t%rbp, %rax
\tcmpq\t$1, %rbx
\tjne\t.LBB0_6"""
    kernel = parse_kernel((KERNEL_DIR / "gs-2d-5pt.c").read_text(), "gs.c")
    sel = select_block(_asm(loop), kernel)
    assert sel.candidates[0].advances == (16,) * 5     # incl. the store through %rbp
    assert (sel.unroll, sel.simd_width, sel.iterations_per_asm_iteration) == (2, 1, 2)


needs_clang = pytest.mark.skipif(shutil.which("clang") is None, reason="clang not installed")


@needs_clang
@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_kernels_with_clang(name, private_cache):
    """clang lays loops out differently (and unrolls more); the selection must
    still find a consistent vectorised or scalar main loop."""
    kernel = parse_kernel((KERNEL_DIR / f"{name}.c").read_text(), f"{name}.c")
    flags = f"-O3 {CSX} -D_POSIX_C_SOURCE=200112L"          # CSX.yml clang line
    asm = compile_to_assembly(generate_c(kernel), "clang", flags).assembly
    sel = select_block(parse_x86(asm), kernel)
    assert sel.candidates[sel.index].plausible
    assert sel.simd_width in (1, 4)
    assert sel.pointer_increment == sel.unroll * sel.simd_width * 8


def test_triangular_nest_gets_its_block(tmp_path):
    """for j: for i < j (issue 12: refused with "4 iterations per pass but loop 'i' has only
    0", the inner trip count taken at j = 0). One pass of i has up to N - 1 = 999
    iterations, so gcc's ymm loop (4 doubles per pass, CSX flags) is the kernel's block."""
    import kerncraft

    source = ("double a[N][N], b[N][N];\nfor (int j = 0; j < N; ++j)\n"
              "    for (int i = 0; i < j; ++i)\n        a[j][i] = b[j][i] * 2.0;\n")
    result = kerncraft.analyze(source, "CSX", model="ECMCPU", defines={"N": 1000})
    assert result.to_dict()["iterations_per_asm_iteration"] == 4


# ------------------------------------------------------------ one-line errors (issue 29, 5)
# The table of candidates is a note printed after the error line, not part of the error.
NOTE_TITLE = ("candidate loop blocks of the compiled kernel (#: the N of --asm-block; the last "
              "column says why a block does not fit):")
MIXED_TABLE = (      # format_candidates: the note indents it by two more spaces
    "    # label            lines instr  vec simd load store   fp flops  ptr+B it/asm  note\n"
    "    0 .L7            5-13        8    3    3    2     1    1     8     32      4  "
    "advances {32, 64} B are not all a multiple 4 of the kernel's strides ({8} B)")


def test_no_matching_block_is_one_line_with_the_table_as_a_note():
    from kerncraft.errors import error_lines

    with pytest.raises(AssemblyError) as err:
        select_block(_asm(MIXED_LOOP), TRIAD)
    assert error_lines("kerncraft", err.value) == (
        "kerncraft: error: no loop block matches the kernel: the 1 candidate loop block listed "
        "below; choose one with --asm-block N (and --pointer-increment BYTES if its increment "
        "is not understood)\n"
        f"kerncraft: note: {NOTE_TITLE}\n"
        + "\n".join("  " + line for line in MIXED_TABLE.split("\n")))
    with pytest.raises(AssemblyError) as err:
        select_block(_asm(MIXED_LOOP), TRIAD, block=0)
    assert str(err.value) == (
        "loop block 0 (.L7) does not fit the kernel: advances {32, 64} B are not all a multiple "
        "4 of the kernel's strides ({8} B); pass --pointer-increment BYTES to override (the "
        "candidates are listed below)")
    assert err.value.notes == (NOTE_TITLE + "\n" + MIXED_TABLE,)


def test_the_note_survives_a_worker_process():
    # -j N computes points in forked workers: the error comes back pickled
    import pickle

    with pytest.raises(AssemblyError) as err:
        select_block(_asm(MIXED_LOOP), TRIAD, block=5)
    copy = pickle.loads(pickle.dumps(err.value))
    assert (str(copy), copy.notes) == (str(err.value), err.value.notes)
    assert str(copy) == "--asm-block 5 does not exist (0..0); the candidates are listed below"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_cli_prints_the_error_line_then_the_table(tmp_path, monkeypatch, capsys):
    from kerncraft.cli.kerncraft import main

    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path))
    argv = ["-p", "ECM", "-m", "CSX", str(KERNEL_DIR / "copy.c"), "-D", "N", "1000",
            "--compiler-flags=-O0"]     # at -O0 no memory operand advances: nothing fits
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[:2] == [
        "kerncraft: error: no loop block matches the kernel: the 1 candidate loop block listed "
        "below; choose one with --asm-block N (and --pointer-increment BYTES if its increment "
        "is not understood)",
        f"kerncraft: note: {NOTE_TITLE}"]
    assert err[2] == "  " + MIXED_TABLE.split("\n")[0] and len(err) == 4
    assert err[3].endswith("no memory operand advances with the loop")
    # the table's number works with --asm-block (the user vouches for the increment)
    assert main(argv + ["--asm-block", "0", "--pointer-increment", "8"]) == 0
    assert capsys.readouterr().out.startswith("ECM (CSX, layer conditions)\n")
