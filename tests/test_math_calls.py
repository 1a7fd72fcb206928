"""Math calls are compiled with math.h semantics (issue 12): declared (no implicit int),
known to the compiler (-fbuiltin back on under -ffreestanding), linked with -lm."""
from __future__ import annotations

import shutil

import pytest

import kerncraft
from kerncraft.compilation.codegen import generate_c
from kerncraft.compilation.compiler import kernel_flags

SQRT = "double a[N], b[N];\nfor (int i = 0; i < N; ++i)\n    a[i] = sqrt(b[i]);\n"
COPY = "double a[N], b[N];\nfor (int i = 0; i < N; ++i)\n    a[i] = b[i];\n"


def kernel(text: str):
    return kerncraft.parse_kernel(text, filename="k.c").bind({"N": 1000})


def test_math_h_is_included_only_for_math_calls():
    assert "#include <math.h>" in generate_c(kernel(SQRT))
    assert "#include <math.h>" not in generate_c(kernel(COPY))


def test_builtins_come_back_only_where_freestanding_took_them():
    flags = ("-O3", "-march=cascadelake", "-ffreestanding")
    assert kernel_flags(kernel(SQRT), "gcc", flags) == (
        *flags, "-fbuiltin", "-fno-tree-loop-distribute-patterns")
    assert kernel_flags(kernel(SQRT), "/usr/bin/clang-16", flags) == (*flags, "-fbuiltin")
    assert kernel_flags(kernel(COPY), "gcc", flags) == flags          # no math: unchanged
    assert kernel_flags(kernel(SQRT), "gcc", ("-O3",)) == ("-O3",)     # builtins already on


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_sqrt_is_analysed_as_the_instruction_not_a_call():
    """Before: `call sqrt@PLT` followed by `vcvtsi2sdl` (sqrt taken as an int function),
    2.0 cy per iteration on CSX. Now gcc inlines vsqrtsd (its errno fallback call sits
    outside the loop's hot block), and on CSX the divider bounds the loop: vsqrtsd xmm
    occupies 0DV for 6 cy (SKX.yml) -> 6.0 cy per iteration, 8 iterations per CL: 48."""
    result = kerncraft.analyze(SQRT, "CSX", model="ECMCPU", defines={"N": 1000})
    listing = kerncraft.format_result(result, verbose=1)      # includes the analysed block
    assert "vsqrtsd" in listing and "call\tsqrt" not in listing
    assert "vcvtsi2sdl" not in listing
    assert "-fbuiltin -fno-tree-loop-distribute-patterns" in listing
    assert result.t_ol == pytest.approx(48.0)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_benchmark_of_a_math_kernel_links(monkeypatch):
    """The benchmark program links libm (-lm); before it failed with "undefined
    reference to `sqrt'". ZEN2's flags (-march=znver2, AVX2) run on any AVX2 host."""
    from kerncraft.benchmark.kernel_run import run_benchmark
    from kerncraft.measure.timing import is_x86_64_linux

    if not is_x86_64_linux() or "avx2" not in open("/proc/cpuinfo").read():
        pytest.skip("needs an x86-64 Linux host with AVX2")
    result = run_benchmark(kernel(SQRT), kerncraft.load_machine("ZEN2"), min_time=0.01,
                           repeats=1)
    assert result.cycles_per_cl > 0


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_function_call_in_the_loop_is_named_as_unmodelled():
    """exp has no instruction: gcc calls the library; the report must say that the
    prediction leaves the call's time out (it did not before)."""
    result = kerncraft.analyze(SQRT.replace("sqrt", "exp"), "CSX", model="ECMCPU",
                               defines={"N": 1000})
    text = kerncraft.format_result(result)
    assert ("note: the loop calls exp@PLT: only the call instruction is in the model, not the "
            "time of the called function, so this prediction is a lower bound") in text
    sqrt = kerncraft.analyze(SQRT, "CSX", model="ECMCPU", defines={"N": 1000})
    assert "the loop calls" not in kerncraft.format_result(sqrt)
