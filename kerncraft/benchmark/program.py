"""The benchmark program of ``-p Benchmark``: generated C, made measurable.

:func:`kerncraft.compilation.codegen.generate_c` with ``for_benchmark=True`` already
wraps the loop nest into a repetition loop bracketed by
``kc_timer_start()`` / ``kc_timer_stop(repetitions)``. This module
post-processes that text (codegen itself is not changed) and builds it:

Warm-up
    The bracketed region is run twice: first a warm-up phase of
    ``repetitions / 20 + 1`` repetitions (it brings the data into the cache
    level it will be served from, faults in every page, and lets the core
    reach the clock it keeps under this load, including the licence change
    of AVX-512 code), then the timed phase. The timers are called in both
    phases; :data:`TIMER_C` reports the first call as
    ``KERNCRAFT_WARMUP_TIME`` and only the second under the protocol of
    :mod:`kerncraft.measure.timing` (``KERNCRAFT_TIME``, ``KERNCRAFT_CPU_TIME``,
    ``KERNCRAFT_REPETITIONS``). The nest's code is the same as the one the
    in-core model analyses (same generator, same constants, same flags).

Several cores
    For ``threads > 1`` the outermost loop of the nest gets ``#pragma omp
    parallel for schedule(static)`` (with ``reduction`` clauses for scalars
    that the nest accumulates, ``s += ...``). :func:`openmp_pragma` refuses
    nests where this would race: a written array element that does not
    depend on the outermost index (``y[i] += A[j][i]*x[j]`` with ``j``
    outermost), a written array that is also read at another element
    (Gauss-Seidel), or a scalar assigned other than by ``+=``/``-=``/``*=``
    (Kahan summation). Threads are pinned with ``OMP_PLACES`` /
    ``OMP_PROC_BIND`` (:func:`openmp_environment`). The arrays are still
    initialised by the main thread: on a multi-socket machine all pages end
    up in its NUMA domain.

likwid marker API
    With ``likwid=True`` the timers also start and stop the marker region
    :data:`MARKER_REGION` (in every thread of an OpenMP program), in the
    timed phase only, and the program links ``-llikwid``.

Build
    Three translation units: the kernel (machine-file compiler and flags,
    ``-fopenmp`` for threads), the support functions of
    :data:`kerncraft.compilation.codegen.SUPPORT_C` (opaque ``dummy`` and initialisation;
    its own timers are renamed away with ``-D``), and :data:`TIMER_C`. The
    executable is cached under :func:`kerncraft.measure.timing.bench_cache_dir`
    (the cache directory; with caching off a temporary directory removed at exit)
    by the sha256 of everything that goes into it; the compiler runs in a
    temporary directory that is removed afterwards, so nothing is written
    next to the kernel.
"""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from kerncraft.errors import KerncraftError, ToolError

if TYPE_CHECKING:
    from kerncraft.kernel.model import KernelModel

__all__ = ["MARKER_REGION", "TIMER_C", "BenchmarkProgram", "benchmark_source", "openmp_pragma",
           "add_warmup", "add_openmp", "build_benchmark", "build_first_working",
           "openmp_environment"]

#: Name of the likwid marker region around the timed phase.
MARKER_REGION = "kernel"

#: Timers speaking the KERNCRAFT_* protocol (see module doc).
TIMER_C = r"""/* Timers of kerncraft's benchmark programs (protocol of kerncraft.measure.timing). */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <time.h>
#ifdef KC_LIKWID
#include <likwid-marker.h>
#endif

static double kc_wall0, kc_cpu0;
static int kc_phase = 0;          /* 0: warm-up, 1: timed */

static double kc_seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void kc_timer_start(void)
{
#ifdef KC_LIKWID
    if (kc_phase == 0) {
        LIKWID_MARKER_INIT;
    } else {
#pragma omp parallel
        { LIKWID_MARKER_START("KC_REGION"); }
    }
#endif
    kc_cpu0 = kc_seconds(CLOCK_PROCESS_CPUTIME_ID);
    kc_wall0 = kc_seconds(CLOCK_MONOTONIC_RAW);
}

void kc_timer_stop(long repetitions)
{
    double wall = kc_seconds(CLOCK_MONOTONIC_RAW) - kc_wall0;
    double cpu = kc_seconds(CLOCK_PROCESS_CPUTIME_ID) - kc_cpu0;
#ifdef KC_LIKWID
    if (kc_phase == 1) {
#pragma omp parallel
        { LIKWID_MARKER_STOP("KC_REGION"); }
        LIKWID_MARKER_CLOSE;
    }
#endif
    if (kc_phase == 0)
        printf("KERNCRAFT_WARMUP_TIME %.9e\nKERNCRAFT_WARMUP_REPETITIONS %ld\n", wall, repetitions);
    else
        printf("KERNCRAFT_TIME %.9e\nKERNCRAFT_CPU_TIME %.9e\nKERNCRAFT_REPETITIONS %ld\n",
               wall, cpu, repetitions);
    fflush(stdout);
    ++kc_phase;
}
""".replace("KC_REGION", MARKER_REGION)

_START = "kc_timer_start();"
_STOP = "kc_timer_stop(kc_repetitions);"
_REP_HEADER = "for (long kc_rep = 0; kc_rep < kc_repetitions; ++kc_rep) {"
_WARMUP = "kc_repetitions / 20 + 1"
_SUPPORT_RENAMES = ("-Dkc_timer_start=kc_codegen_timer_start",
                    "-Dkc_timer_stop=kc_codegen_timer_stop")
_BUILD_VERSION = "1"
_BUILD_TIMEOUT = 300
_FAILED = "building the benchmark failed: "


def _find(lines: Sequence[str], text: str, start: int = 0) -> int:
    for pos in range(start, len(lines)):
        if lines[pos].strip() == text:
            return pos
    raise KerncraftError(f"internal error: generated benchmark has no line {text!r}")


def _nest_span(lines: Sequence[str]) -> tuple[int, int, str]:
    """(first, end, indent) of the nest's lines inside the repetition loop
    (the ``dummy(...)`` calls that follow the nest are not part of it)."""
    header = _find(lines, _REP_HEADER)
    outer = re.match(r"\s*", lines[header]).group(0)
    indent = re.match(r"\s*", lines[header + 1]).group(0)
    end = header + 1
    while not lines[end].startswith(indent + "dummy(") and lines[end] != outer + "}":
        end += 1
    return header + 1, end, indent


def add_warmup(text: str) -> str:
    """Run the timed region twice: warm-up phase, then the timed phase (module doc)."""
    lines = text.split("\n")
    start = _find(lines, _START)
    stop = _find(lines, _STOP, start)
    indent = re.match(r"\s*", lines[start]).group(0)
    inner = [("    " + ln if ln else ln) for ln in lines[start:stop + 1]]
    inner = [ln.replace(_REP_HEADER, _REP_HEADER.replace("kc_repetitions", "kc_count"))
             .replace(_STOP, "kc_timer_stop(kc_count);") for ln in inner]
    wrapped = [f"{indent}for (int kc_phase = 0; kc_phase < 2; ++kc_phase) {{",
               f"{indent}    const long kc_count = kc_phase == 0 ? {_WARMUP} : kc_repetitions;",
               *inner, f"{indent}}}"]
    return "\n".join(lines[:start] + wrapped + lines[stop + 1:])


def _assignment_operators(name: str, code: str) -> set[str]:
    """Operators of the assignments to ``name`` in ``code`` ('' for plain '=')."""
    pattern = re.compile(r"(?<![\w.\[])" + re.escape(name) +
                         r"\s*(<<|>>|[-+*/%&|^])?=(?!=)")
    return {m.group(1) or "" for m in pattern.finditer(code)}


def openmp_pragma(kernel: KernelModel, text: str) -> str:
    """The ``#pragma omp parallel for`` for the outermost loop of ``kernel``,
    whose benchmark C is ``text``; KerncraftError where it would race."""
    lines = text.split("\n")
    first, end, _ = _nest_span(lines)
    code = "\n".join(lines[first:end])
    outer = kernel.loops[0].symbol if kernel.loops else None
    index = kernel.loops[0].index if kernel.loops else "?"
    where = f"-c/--cores > 1 runs the outermost loop ({index}) in parallel"
    accesses = tuple(kernel.accesses) + tuple(kernel.outer_accesses)
    reductions: dict[str, list[str]] = {"+": [], "*": []}
    for name, array in kernel.arrays.items():
        if not any(a.array == name and a.kind == "write" for a in accesses):
            continue
        if array.is_scalar:
            declared_inside = re.search(r"\b(double|float|int|long)\s+" + re.escape(name) + r"\b",
                                        code)
            if declared_inside:
                continue                       # a local of the loop body: private
            ops = _assignment_operators(name, code)
            if ops and ops <= {"+", "-"}:
                reductions["+"].append(name)
            elif ops == {"*"}:
                reductions["*"].append(name)
            else:
                raise KerncraftError(f"{where}, but scalar '{name}' is assigned in it "
                                     "(not a sum or product reduction): the iterations depend "
                                     "on each other; run on one core")
            continue
        writes = [a for a in accesses if a.array == name and a.kind == "write"]
        for access in writes:
            if outer is not None and not access.linear_index.has(outer):
                raise KerncraftError(f"{where}, but every iteration of it writes the same "
                                     f"elements of '{name}' (index {access.linear_index}): the "
                                     "threads would race; run on one core")
        written = {a.linear_index for a in writes}
        for access in accesses:
            if access.array == name and access.kind == "read" and \
                    access.linear_index not in written:
                raise KerncraftError(f"{where}, but '{name}' is written and also read at "
                                     f"another element ({access.linear_index}): a loop-carried "
                                     "dependency; run on one core")
    clauses = "".join(f" reduction({op}:{', '.join(names)})"
                      for op, names in reductions.items() if names)
    return f"#pragma omp parallel for schedule(static){clauses}"


def add_openmp(text: str, pragma: str) -> str:
    """Put ``pragma`` before every top-level loop of the nest."""
    lines = text.split("\n")
    first, end, indent = _nest_span(lines)
    out = lines[:first]
    for line in lines[first:end]:
        if line.startswith(indent + "for ("):
            out.append(indent + pragma)
        out.append(line)
    return "\n".join(out + lines[end:])


def benchmark_source(kernel: KernelModel, *, threads: int = 1, constants: str = "auto",
                     aliasing: str = "distinct") -> str:
    """The kernel translation unit of the benchmark (warm-up; OpenMP for threads > 1)."""
    from kerncraft.compilation.codegen import generate_c

    if threads > 1 and aliasing != "distinct":
        raise KerncraftError("--aliasing pointers is not supported by the benchmark on "
                             "several cores yet (the OpenMP loop would be in the kernel "
                             "function); run on one core")
    text = generate_c(kernel, for_benchmark=True, constants=constants, aliasing=aliasing)
    if threads > 1:
        text = add_openmp(text, openmp_pragma(kernel, text))
    return add_warmup(text)


@dataclass(frozen=True)
class BenchmarkProgram:
    """A built benchmark executable and what went into it."""

    executable: Path
    source: str                       # the kernel translation unit
    compiler: str
    flags: tuple[str, ...]            # flags of the kernel translation unit
    threads: int
    likwid: bool
    cache_hit: bool


def _run(argv: Sequence[str], cwd: str, what: str) -> None:
    """Run one build step; a failure is a one-line ToolError (the step and the first
    error line) whose notes hold the first lines of the compiler's output."""
    from kerncraft.compilation.compiler import first_errors

    try:
        out = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True,
                             timeout=_BUILD_TIMEOUT, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ToolError(f"{_FAILED}{what}: took longer than {_BUILD_TIMEOUT} s") from None
    except OSError as exc:
        raise ToolError(f"{_FAILED}{what}: cannot run {argv[0]}: {exc}") from None
    if out.returncode != 0:
        output = out.stderr or out.stdout
        error = ToolError(f"{_FAILED}{what}: {first_errors(output, cwd, limit=1)}")
        error.notes = (f"{' '.join(argv[1:])}:\n" + "\n".join(
            output.replace(cwd + os.sep, "").strip().splitlines()[:8]),)
        raise error


def support_units(threads: int = 1, likwid: bool = False
                  ) -> list[tuple[str, str, tuple[str, ...]]]:
    """(file name, C text, flags) of the benchmark's units besides the kernel: the
    generated code's support functions and the timers."""
    from kerncraft.compilation.codegen import SUPPORT_C

    openmp = ("-fopenmp",) if threads > 1 else ()
    marker = ("-DKC_LIKWID", "-DLIKWID_PERFMON") if likwid else ()
    return [("support.c", SUPPORT_C, ("-O2", *_SUPPORT_RENAMES)),
            ("timer.c", TIMER_C, ("-O2", *openmp, *marker))]


def build_benchmark(kernel: KernelModel, *, compiler: str, flags: Sequence[str],
                    threads: int = 1,
                    likwid: bool = False, constants: str = "auto",
                    aliasing: str = "distinct") -> BenchmarkProgram:
    """Generate, compile and link the benchmark of a bound ``kernel`` (cached)."""
    from kerncraft.measure.timing import (cached_executable, find_c_compiler,
                                          install_executable)
    from kerncraft.compilation.compiler import clean_flags

    source = benchmark_source(kernel, threads=threads, constants=constants, aliasing=aliasing)
    path = find_c_compiler(compiler)
    kept = clean_flags(flags)[0]
    openmp = ("-fopenmp",) if threads > 1 else ()
    libraries = (("-llikwid",) if likwid else ()) + (("-lm",) if kernel.math_calls else ())
    units = [("kernel.c", source, (*kept, *openmp)), *support_units(threads, likwid)]
    target = cached_executable("kernel", path, kept,
                               (_BUILD_VERSION, *libraries,
                                *(f"{n}\0{s}\0{chr(1).join(f)}" for n, s, f in units)))
    if target.is_file() and os.access(target, os.X_OK):
        return BenchmarkProgram(target, source, compiler, kept, threads, likwid, True)
    with tempfile.TemporaryDirectory(prefix="kerncraft-bench-build-") as tmp:
        objects = []
        for name, text, unit_flags in units:
            Path(tmp, name).write_text(text, encoding="utf-8")
            obj = name.replace(".c", ".o")
            _run([path, *unit_flags, "-c", name, "-o", obj], tmp, f"{compiler} {name}")
            objects.append(obj)
        _run([path, *kept, *openmp, *objects, "-o", "bench", *libraries], tmp,
             f"{compiler} link")
        install_executable(Path(tmp, "bench"), target)
    return BenchmarkProgram(target, source, compiler, kept, threads, likwid, False)


def build_first_working(kernel: KernelModel, choices: Sequence[tuple[str, Sequence[str]]], *,
                        threads: int = 1, aliasing: str = "distinct",
                        check: Callable[[str, Sequence[str]], None] | None = None
                        ) -> tuple[BenchmarkProgram, tuple[str, ...]]:
    """(program, notes): the benchmark built with the first of ``choices`` ((compiler,
    flags), the machine file's order) that builds it. A compiler that fails (clang's
    ``-fopenmp`` without libomp: "cannot find -lomp") is passed over with a note saying
    why; when all fail, one ToolError line names each compiler and its first error.
    ``check(compiler, flags)`` (the host-CPU check) runs before each fallback's build."""
    failures: list[tuple[str, ToolError]] = []
    for position, (name, flags) in enumerate(choices):
        try:
            if position and check is not None:
                check(name, flags)
            program = build_benchmark(kernel, compiler=name, flags=flags, threads=threads,
                                      aliasing=aliasing)
        except ToolError as exc:
            if len(choices) == 1:
                raise
            failures.append((name, exc))
            continue
        except KerncraftError as exc:
            if not position:
                raise               # the first compiler's check: as without a fallback
            failures.append((name, ToolError(f"{name}: {exc}")))
            continue
        first = choices[0][0]
        notes = tuple(f"{failed} could not build the benchmark ({_reason(exc)}); built with "
                      f"{name}, the machine file's next compiler (the in-core model analyses "
                      f"{first}'s code)" for failed, exc in failures)
        return program, notes
    error = ToolError("building the benchmark failed with every compiler of the machine "
                      "file: " + "; ".join(_reason(exc) for _, exc in failures))
    error.notes = tuple(note for _, exc in failures for note in exc.notes)
    raise error


def _reason(error: ToolError) -> str:
    """'compiler step: first error line' of a failed build (:func:`_run`)."""
    return str(error).removeprefix(_FAILED)


def openmp_environment(cpus: Sequence[int]) -> dict[str, str]:
    """Environment that pins one OpenMP thread to each of ``cpus``, in order."""
    return {"OMP_NUM_THREADS": str(len(cpus)),
            "OMP_PLACES": ",".join(f"{{{c}}}" for c in cpus),
            "OMP_PROC_BIND": "close", "OMP_WAIT_POLICY": "active",
            "OMP_DYNAMIC": "false"}
