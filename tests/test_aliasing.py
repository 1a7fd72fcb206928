"""``--aliasing``: the code-generation choice between distinct arrays (default) and
Kerncraft's pointer-argument function (issue 12, item 5)."""
from __future__ import annotations

from pathlib import Path

import pytest

import kerncraft
from kerncraft.compilation.codegen import generate_c
from kerncraft.cli.kerncraft import build_parser
from kerncraft.errors import KerncraftError
from kerncraft.kernel.parser import parse_kernel

KERNELS = Path(__file__).resolve().parents[1] / "kernels"


def _kernel(name: str):
    path = KERNELS / f"{name}.c"
    return parse_kernel(path.read_text(), str(path))


def test_pointer_function_text():
    text = generate_c(_kernel("sum_reduction"), aliasing="pointers")
    # run-time constant by value, array as a plain pointer, the scalar through a pointer
    # with a local copy (the reduction stays in a register) written back at the end
    assert "void kc_kernel(const long N, double *a, double *kc_scalar_s)" in text
    assert "double s = *kc_scalar_s;" in text and "*kc_scalar_s = s;" in text
    assert "restrict" not in text
    # called through a volatile pointer: cannot be inlined back into main
    assert "void (*volatile kc_call)(long, double *, double *) = kc_kernel;" in text
    assert "kc_call(N, a, &s);" in text
    assert "kc_kernel" not in generate_c(_kernel("sum_reduction"))


def test_may_alias_code_is_what_kerncraft_users_get():
    # With distinct heap arrays gcc vectorises uxx (SIMD 4 on CSX's ymm); with arrays that
    # may overlap it keeps the scalar loop (the compiler gives up on the overlap checks).
    defines = {"N": 200, "M": 200, "L": 200}
    distinct = kerncraft.analyze(str(KERNELS / "uxx.c"), "CSX", model="ECMCPU", defines=defines)
    pointers = kerncraft.analyze(str(KERNELS / "uxx.c"), "CSX", model="ECMCPU", defines=defines,
                                 aliasing="pointers")
    assert distinct.prediction.selection.simd_width == 4
    assert pointers.prediction.selection.simd_width == 1
    assert any("--aliasing pointers" in note for note in pointers.prediction.notes)
    assert not any("--aliasing" in note for note in distinct.prediction.notes)


def test_reduction_is_the_same_either_way():
    defines = {"N": 10**6}
    a = kerncraft.analyze(str(KERNELS / "sum_reduction.c"), "CSX", model="ECM", defines=defines)
    b = kerncraft.analyze(str(KERNELS / "sum_reduction.c"), "CSX", model="ECM", defines=defines,
                          aliasing="pointers")
    assert (a.t_ol, a.t_nol) == (b.t_ol, b.t_nol)


def test_bad_choice_is_an_error():
    with pytest.raises(KerncraftError, match="aliasing"):
        kerncraft.analyze(str(KERNELS / "copy.c"), "CSX", model="ECM", defines={"N": 1000},
                          aliasing="maybe")
    args = build_parser().parse_args(["-p", "ECM", "-m", "CSX", "k.c", "--aliasing", "pointers"])
    assert args.aliasing == "pointers"
