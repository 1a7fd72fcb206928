"""No wrong answer called consistent (issue 28, items 1, 3 and 4).

1. The block check compares the block's FP operations with the kernel's, math calls
   included (sqrt is one vsqrtsd), and claims an outer-loop jam only in a nest with an
   outer loop whose block walks more address streams than the kernel's accesses give.
3. The ECM report never names a saturation core count beyond a NUMA domain's cores.
4. ``-p Benchmark`` falls back to the machine file's next compiler when a build fails.
"""
from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

import kerncraft
from kerncraft.benchmark.program import build_first_working
from kerncraft.compilation import compiler as cc
from kerncraft.compilation.asm_block import select_block
from kerncraft.compilation.blocks import address_streams, kernel_operations, kernel_streams
from kerncraft.errors import ToolError
from kerncraft.incore.x86.parser import parse_x86
from kerncraft.kernel.parser import parse_kernel

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

SQRT = "double a[N], b[N];\nfor (int i = 0; i < N; ++i)\n    a[i] = sqrt(b[i]) * 2.0;\n"
ROWS = ("double a[M][N], b[M][N];\nfor (int j = 0; j < M; ++j)\n"
        "    for (int i = 0; i < N; ++i)\n        a[j][i] = b[j][i] * 2.0;\n")


def _asm(loop: str) -> list:
    return parse_x86("\t.text\nmain:\n" + loop.strip("\n") + "\n\tret\n")


# gcc 12 -O3 -march=cascadelake for SQRT (the errno branch `ja .L8` leaves the loop)
SQRT_LOOP = """.L6:
\tvmovsd\t0(%r13), %xmm0
\tvucomisd\t%xmm0, %xmm1
\tja\t.L8
\tvsqrtsd\t%xmm0, %xmm0, %xmm0
\taddq\t$8, %r13
\taddq\t$8, %r14
\tvaddsd\t%xmm0, %xmm0, %xmm0
\tvmovsd\t%xmm0, -8(%r14)
\tcmpq\t%r15, %r13
\tjne\t.L6"""


# ------------------------------------------------------------------ item 1
def test_math_calls_count_as_the_operations_the_block_shows():
    # sqrt(b[i]) * 2.0: one multiply + one vsqrtsd = 2; fma(b, 2, 1) * 2.0: the FMA's
    # 2 flops + the multiply = 3; exp is a library call: only the multiply, 1.
    def ops(expr):
        text = f"double a[N], b[N];\nfor (int i = 0; i < N; ++i)\n    a[i] = {expr};\n"
        return kernel_operations(parse_kernel(text, "k.c").bind({"N": 100}))

    assert (ops("sqrt(b[i]) * 2.0"), ops("fma(b[i], 2.0, 1.0) * 2.0"), ops("exp(b[i]) * 2.0")) \
        == (2, 3, 1)


def test_one_dimensional_sqrt_block_is_one_iteration_not_an_outer_unroll():
    # The block advances both pointers by 8 B = one double: 1 source iteration. Its
    # 2 flops (vsqrtsd, vaddsd for * 2.0) are the kernel's 2 operations, not 2x them;
    # before, the check counted the kernel's multiply only and called the loop
    # "outer loop unrolled 2x" (2 iterations per asm iteration) although it has no
    # outer loop.
    kernel = parse_kernel(SQRT, "sqrt.c").bind({"N": 20000})
    sel = select_block(_asm(SQRT_LOOP), kernel)
    assert (sel.iterations_per_asm_iteration, sel.outer_unroll, sel.pointer_increment) \
        == (1, 1, 8)
    assert "outer loop" not in sel.describe()


def test_doubled_flops_without_extra_streams_are_no_jam():
    # a[j][i] = b[j][i] * 2.0 with a block doing 2 multiplies per 8 B step (as if a
    # pow(x, 2) became a multiply): 2 flops = 2x the kernel's 1, but the block walks
    # the 2 streams of one row (b load, a store) the kernel's 2 accesses give, so no
    # outer row is jammed in: 1 iteration per asm iteration.
    kernel = parse_kernel(ROWS, "rows.c").bind({"M": 100, "N": 100})
    loop = """.L2:
\tvmovsd\t(%rsi,%rax,8), %xmm0
\tvmulsd\t%xmm1, %xmm0, %xmm0
\tvmulsd\t%xmm2, %xmm0, %xmm0
\tvmovsd\t%xmm0, (%rdi,%rax,8)
\tincq\t%rax
\tcmpq\t%rax, %rdx
\tjne\t.L2"""
    sel = select_block(_asm(loop), kernel)
    assert (sel.iterations_per_asm_iteration, sel.outer_unroll) == (1, 1)


def test_jammed_rows_are_an_outer_unroll():
    # The same kernel with rows j and j+1 jammed: b loads and a stores through two base
    # registers each (4 streams, the kernel's accesses give 2) and 2 multiplies per
    # 8 B step (2x the kernel's 1): outer unroll 2, 2 source iterations per asm iteration.
    kernel = parse_kernel(ROWS, "rows.c").bind({"M": 100, "N": 100})
    loop = """.L2:
\tvmovsd\t(%rsi,%rax,8), %xmm0
\tvmovsd\t(%rcx,%rax,8), %xmm3
\tvmulsd\t%xmm1, %xmm0, %xmm0
\tvmulsd\t%xmm1, %xmm3, %xmm3
\tvmovsd\t%xmm0, (%rdi,%rax,8)
\tvmovsd\t%xmm3, (%r8,%rax,8)
\tincq\t%rax
\tcmpq\t%rax, %rdx
\tjne\t.L2"""
    sel = select_block(_asm(loop), kernel)
    assert (sel.iterations_per_asm_iteration, sel.outer_unroll) == (2, 2)
    assert "unrolled the outer loop 2x" in sel.explanation


@needs_gcc
def test_gemm_jam_with_hoisted_factor_counts_both_rows():
    """gcc 12 -O3 on CSX jams gemm's k loop by 2 into j and hoists alpha * A[i][k]: the
    block (2 x 4 doubles of C per asm iteration) does 4 ymm FMAs = 32 flops, more than
    the kernel's 3 x 8 = 24 but no multiple of it, and walks 3 streams: B[k], B[k+1]
    (base registers r12, r8; gcc writes the index and base of one of them swapped),
    and C (load and store), what 2 jammed k iterations give (1 gives 2). So 16 source
    iterations per asm iteration. Ports: 6 loads (2 vmovupd, 4 FMAs with a memory
    operand) at 0.5 cy on ports 2 and 3 = 3 cy per asm iteration; 3 cy / 16 it x 8 it
    per cache line = 1.5 cy/CL (3.0 before, with 8 iterations counted)."""
    gemm = (KERNELS / "polybench" / "gemm.c").read_text()
    result = kerncraft.analyze(gemm, "CSX", model="ECMCPU",
                               defines={"NI": 500, "NJ": 500, "NK": 500})
    sel = result.prediction.selection
    assert (sel.iterations_per_asm_iteration, sel.outer_unroll) == (16, 2)
    assert "hoisted what does not change along the inner loop" in sel.explanation
    assert result.t_ol == pytest.approx(1.5)


def test_stream_counts():
    # Unrolled copies 32 B apart within a 64 B advance are one stream; a row 16000 B
    # away (N = 2000 doubles) is another. A 3-point stencil b[i-1], b[i], b[i+1] at
    # k = 1 (8 B window) is 3 streams, at k = 4 (32 B window) one.
    assert address_streams([("r", 0, 64), ("r", 32, 64), ("r", 16000, 64)]) == 2
    stencil = parse_kernel("double a[N], b[N];\nfor (int i = 1; i < N - 1; ++i)\n"
                           "    a[i] = b[i - 1] + b[i] + b[i + 1];\n", "s.c").bind({"N": 100})
    assert (kernel_streams(stencil, 1), kernel_streams(stencil, 4)) == (1 + 3, 1 + 1)


@needs_gcc
def test_sqrt_times_two_is_48_cycles_per_cache_line_on_csx():
    """The issue's command: -p ECMCPU -m CSX -D N 20000. gcc keeps one scalar iteration
    per asm iteration (8 B advance). CSX.yml extends SKX.yml, whose "vsqrtsd
    xmm,xmm,xmm" keeps the divider 0DV busy 6 cy (tp 6, lat 18): 6 cy per asm
    iteration, the loop's bottleneck. 64 B / 8 B = 8 iterations per cache line:
    T_OL = 6 x 8 = 48 cy/CL (it was 24: 2 iterations per asm iteration claimed)."""
    result = kerncraft.analyze(SQRT, "CSX", model="ECMCPU", defines={"N": 20000})
    sel = result.prediction.selection
    assert (sel.iterations_per_asm_iteration, sel.outer_unroll) == (1, 1)
    assert result.t_ol == pytest.approx(48.0)


# ------------------------------------------------------------------ item 3
@needs_gcc
@pytest.mark.parametrize("incore", ["kerncraft", "kerncraft-sim"])
def test_saturation_is_stated_within_the_machine_cores(incore):
    """matvec, N = M = 2000, CSX (20 cores per socket, 10 per NUMA domain).
    T_OL: gcc sums y[i] in order, 4 dependent vaddsd (SKX.yml lat 4) per asm iteration
    of 4 iterations = 16 cy; 8 iterations per CL = 2 asm iterations: 32 cy/CL = T_MEM.
    T_L3MEM at saturation: A's row streams from memory, 64 B per CL of work, at triad's
    44.1 GB/s x 40/32 (its bytes leave out the write-allocate) = 55.1 GB/s at 2.5 GHz:
    64 / 55.1e9 x 2.5e9 = 2.90 cy. n_s = ceil(32 / 2.90) = 12 > 10 cores per domain:
    no core count of the machine saturates (it said "saturating at 12 core(s)";
    at N = 500 it said 2328)."""
    result = kerncraft.analyze(str(KERNELS / "matvec.c"), "CSX", model="ECM",
                               defines={"N": 2000, "M": 2000}, incore_model=incore)
    assert (round(result.t_mem, 2), round(result.saturated_memory_cycles, 2)) == (32.0, 2.9)
    line = kerncraft.format_result(result).splitlines()[3]
    assert "saturating at" not in line
    assert line.startswith("does not saturate the memory interface within 20 cores (10 per "
                           "NUMA domain")
    assert line.endswith("2.90 cy/CL: 12 cores per domain would)")
    assert not any(row.memory_bound for row in result.scaling)    # the table agrees


# ------------------------------------------------------------------ item 4
FAKE_CLANG = """#!/bin/sh
# compiles like gcc but cannot link: clang -fopenmp without libomp installed
for arg in "$@"; do
    case "$arg" in -c|-E|-S|--version|-dumpversion|-dM) exec gcc "$@";; esac
done
echo "/usr/bin/ld: cannot find -lomp: No such file or directory" >&2
echo "clang: error: linker command failed with exit code 1 (use -v to see invocation)" >&2
exit 1
"""


@pytest.fixture
def fake_clang(tmp_path, monkeypatch) -> str:
    """A compiler named 'clang' first on PATH that fails to link (CI has no clang)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "clang"
    script.write_text(FAKE_CLANG)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    return "clang"


@needs_gcc
def test_link_failure_falls_back_to_the_next_compiler(fake_clang):
    # Kerncraft's CascadelakeSP_Gold-6248_SNC.yml order: icc (not installed), clang, gcc.
    machine = type("M", (), {"compilers": (("icc", "-O3"), ("clang", "-O2 -fopenmp"),
                                           ("gcc", "-O2"))})()
    choices = cc.compiler_choices(machine)
    assert [name for name, _ in choices][:2] == ["clang", "gcc"]
    kernel = parse_kernel((KERNELS / "copy.c").read_text(), "copy.c").bind({"N": 1000})
    program, notes = build_first_working(kernel, choices)
    assert (program.compiler, program.flags) == ("gcc", ("-O2",))
    assert notes == ("clang could not build the benchmark (clang link: /usr/bin/ld: cannot find "
                     "-lomp: No such file or directory); built with gcc, the machine file's "
                     "next compiler (the in-core model analyses clang's code)",)


@needs_gcc
def test_every_compiler_failing_is_one_line_naming_each(fake_clang):
    second = Path(shutil.which("clang")).with_name("clang-2")
    second.write_text(FAKE_CLANG.replace("cannot find -lomp", "cannot find -lfoo"))
    second.chmod(0o755)
    kernel = parse_kernel((KERNELS / "copy.c").read_text(), "copy.c").bind({"N": 1000})
    with pytest.raises(ToolError) as caught:
        build_first_working(kernel, [("clang", ("-O2",)), ("clang-2", ("-O2",))])
    message = str(caught.value)
    assert "\n" not in message
    assert message == ("building the benchmark failed with every compiler of the machine file: "
                       "clang link: /usr/bin/ld: cannot find -lomp: No such file or directory; "
                       "clang-2 link: /usr/bin/ld: cannot find -lfoo: No such file or directory")
    assert any("linker command failed" in note for note in caught.value.notes)


@needs_gcc
def test_a_single_compiler_failure_is_one_line(fake_clang):
    kernel = parse_kernel((KERNELS / "copy.c").read_text(), "copy.c").bind({"N": 1000})
    with pytest.raises(ToolError, match=r"^building the benchmark failed: clang link: "
                                        r"/usr/bin/ld: cannot find -lomp") as caught:
        build_first_working(kernel, [("clang", ("-O2",))])      # --compiler clang
    assert "\n" not in str(caught.value)
