"""Which loop of a benchmark program runs: the iterations of every candidate loop, counted.

A compiled benchmark may hold the kernel's loop more than once: a remainder loop after an
unrolled one, or two versions of the whole loop (gcc at ``-O3 -funroll-loops`` emits
jacobi-1d's loop twice). The block selection picks one by its facts; which one the
program executes only a run can tell, and the campaign attributes the measured time to
the block it predicts. Here the benchmark's assembly gets one ``incq`` of a counter at
the top of every candidate loop (flags are dead there: every loop closes with its own
compare and branch), the program runs once at a small extent, and a destructor prints
the counts on stderr. The campaign takes the busiest loop when it fits the kernel
(:func:`busiest_loop`) and :func:`check_runs` refuses a block that is not the loop that runs.
"""
from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from kerncraft.errors import KerncraftError

__all__ = ["COUNTER_C", "busiest_loop", "counted_assembly", "loop_counts", "check_runs"]

#: The counters and the destructor that prints them (linked into the counting program).
COUNTER_C = r"""#include <stdio.h>
long kc_loop_count[256];
__attribute__((destructor)) static void kc_print_loop_counts(void)
{
    for (int k = 0; k < 256; ++k)
        fprintf(stderr, "KC-LOOP %d %ld\n", k, kc_loop_count[k]);
}
"""
_COUNT_LINE = re.compile(r"^KC-LOOP (\d+) (\d+)$", re.M)


def counted_assembly(assembly: str, label_lines: Sequence[int]) -> str:
    """``assembly`` with ``incq kc_loop_count+8k(%rip)`` after the label line of the k-th
    loop (1-based line numbers, as the parser numbers them)."""
    if len(label_lines) > 256:
        raise KerncraftError("more than 256 candidate loops to count")
    lines = assembly.split("\n")
    for k, number in sorted(enumerate(label_lines), key=lambda kv: -kv[1]):
        lines.insert(number, f"\tincq\tkc_loop_count+{8 * k}(%rip)")
    return "\n".join(lines)


def loop_counts(kernel, compiler: str, flags: Sequence[str], label_lines: Sequence[int],
                assembly: str) -> list[int]:
    """Iterations of each loop whose label is at ``label_lines`` of the benchmark's
    ``assembly`` (compiled with ``flags``), in one run at the bound ``kernel``'s sizes
    and a single repetition."""
    from kerncraft.benchmark.program import support_units
    from kerncraft.compilation.codegen import program_arguments
    from kerncraft.compilation.compiler import clean_flags
    from kerncraft.measure.timing import find_c_compiler

    path, kept = str(find_c_compiler(compiler)), clean_flags(flags)[0]
    libraries = ("-lm",) if kernel.math_calls else ()
    # the benchmark's own units, with the kernel as counted assembly and the counters
    units = [("kernel.s", counted_assembly(assembly, label_lines), kept), *support_units(),
             ("count.c", COUNTER_C, ("-O2",))]
    with tempfile.TemporaryDirectory(prefix="kerncraft-loopcount-") as tmp:
        objects = []
        for name, text, unit_flags in units:
            Path(tmp, name).write_text(text)
            objects.append(name.rsplit(".", 1)[0] + ".o")
            _build([path, *unit_flags, "-c", name, "-o", objects[-1]], tmp)
        _build([path, *kept, *objects, "-o", "count", *libraries], tmp)
        run = subprocess.run([str(Path(tmp, "count")), *program_arguments(kernel, repetitions=1)],
                             cwd=tmp, capture_output=True, text=True, timeout=60)
        if run.returncode:
            raise KerncraftError(f"loop count run failed: {run.stderr.strip()[:200]}")
    counts = {int(k): int(n) for k, n in _COUNT_LINE.findall(run.stderr)}
    return [counts.get(k, 0) for k in range(len(label_lines))]


def busiest_loop(counts: Sequence[int]) -> int:
    """The index of the loop that counted the most iterations (the first of equals)."""
    return max(range(len(counts)), key=lambda k: (counts[k], -k))


def _build(argv: Sequence[str], folder: str) -> None:
    done = subprocess.run(argv, cwd=folder, capture_output=True, text=True)
    if done.returncode:
        raise KerncraftError(f"loop count build failed: {done.stderr.strip()[:200]}")


def check_runs(selection, counts: Sequence[int]) -> None:
    """Refuse a block that is not the loop that runs most: another candidate loop of
    the program counted more iterations than the chosen one (its time would be measured
    and attributed to the chosen block)."""
    chosen = counts[selection.index]
    busiest = busiest_loop(counts)
    if counts[busiest] > chosen:
        raise KerncraftError(
            f"the block (loop {selection.index}, {chosen} iterations counted) is not the "
            f"loop that runs: loop {busiest} of the program counted {counts[busiest]}")
