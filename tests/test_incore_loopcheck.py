"""Which loop of a benchmark program runs (kerncraft/validation/incore_loopcheck.py): the
campaign attributes a measured time to the block it predicts, so that block must be the
loop the program executes."""
from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from kerncraft.errors import KerncraftError
from kerncraft.validation.incore_loopcheck import check_runs, counted_assembly

KERNELS = Path(__file__).resolve().parents[1] / "kernels"


def test_a_counter_goes_after_each_label():
    text = "\t.text\n.L2:\n\tnop\n\tjne .L2\n.L5:\n\tnop\n\tjne .L5\n"
    # labels on lines 2 and 5 (1-based): counter 0 after line 2, counter 1 after line 5
    assert counted_assembly(text, [2, 5]).split("\n") == [
        "\t.text", ".L2:", "\tincq\tkc_loop_count+0(%rip)", "\tnop", "\tjne .L2",
        ".L5:", "\tincq\tkc_loop_count+8(%rip)", "\tnop", "\tjne .L5", ""]


def test_the_busiest_loop_is_the_first_of_the_most_counted():
    from kerncraft.validation.incore_loopcheck import busiest_loop

    assert (busiest_loop([104, 0]), busiest_loop([3, 104]), busiest_loop([5, 5])) == (0, 1, 0)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_the_campaign_block_is_the_loop_that_runs():
    """make_block on jacobi-1d gcc -O3 -funroll-loops: whichever of the program's loops the
    selection's facts prefer, the block it returns is the one with the most iterations
    counted at the provisional size (N = 1024: 1022 iterations, 127 full assembly
    iterations of 8, run twice = 254)."""
    from kerncraft.benchmark.program import benchmark_source
    from kerncraft.compilation.asm_block import select_block
    from kerncraft.compilation.compiler import compile_to_assembly, kernel_flags
    from kerncraft.incore.backends.tool_run import marked_block
    from kerncraft.incore.x86.parser import parse_x86
    from kerncraft.kernel.parser import parse_kernel
    from kerncraft.validation.incore_blocks import Variant, make_block, normalise
    from kerncraft.validation.incore_loopcheck import busiest_loop, loop_counts

    path = KERNELS / "polybench" / "jacobi-1d.c"
    flags = ("-O3", "-march=x86-64-v4", "-ffreestanding", "-fno-tree-vectorize",
             "-funroll-loops")
    block = make_block("jacobi-1d", path, Variant("gcc", "-O3", "scalar", "-funroll-loops",
                                                  flags), 40_000)
    kernel = parse_kernel(path.read_text(), "jacobi-1d.c").bind({"N": 1024})
    compiled = compile_to_assembly(benchmark_source(kernel), "gcc",
                                   kernel_flags(kernel, "gcc", flags))
    lines = parse_x86(compiled.assembly, filename="<b>")
    candidates = select_block(lines, kernel).candidates
    counts = loop_counts(kernel, "gcc", kernel_flags(kernel, "gcc", flags),
                         [c.first_line for c in candidates], compiled.assembly)
    assert counts[busiest_loop(counts)] == 254
    running = select_block(lines, kernel, block=busiest_loop(counts))
    assert block.text == normalise(marked_block(compiled.assembly, running, "KC-BEGIN",
                                                "KC-END"))


def test_the_block_must_be_the_busiest_loop():
    check_runs(SimpleNamespace(index=0), [104, 0])
    check_runs(SimpleNamespace(index=1), [3, 104])      # a remainder loop beside it
    with pytest.raises(KerncraftError, match="not the loop that runs: loop 0"):
        check_runs(SimpleNamespace(index=1), [104, 0])


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_jacobi_1d_runs_one_of_its_unrolled_loops():
    """gcc -O3 -funroll-loops emits jacobi-1d's loop (8 iterations per assembly
    iteration) in more than one place. At N = 424 the loop runs i = 1 .. 422: 422
    iterations = 52 full assembly iterations (+ 6 left to a remainder); the program runs
    the kernel twice (warm-up and one repetition): 104 counts in the 8-iteration loops
    together, and only the busiest of them passes the check."""
    from kerncraft.benchmark.program import benchmark_source
    from kerncraft.compilation.asm_block import select_block
    from kerncraft.compilation.compiler import compile_to_assembly, kernel_flags
    from kerncraft.incore.x86.parser import parse_x86
    from kerncraft.kernel.parser import parse_kernel
    from kerncraft.validation.incore_loopcheck import loop_counts

    kernel = parse_kernel((KERNELS / "polybench" / "jacobi-1d.c").read_text(),
                          "jacobi-1d.c").bind({"N": 424})
    flags = kernel_flags(kernel, "gcc", ["-O3", "-march=x86-64-v4", "-ffreestanding",
                                         "-fno-tree-vectorize", "-funroll-loops"])
    compiled = compile_to_assembly(benchmark_source(kernel), "gcc", flags)
    selection = select_block(parse_x86(compiled.assembly, filename="<b>"), kernel)
    counts = loop_counts(kernel, "gcc", flags, [c.first_line for c in selection.candidates],
                         compiled.assembly)
    unrolled = [k for k, c in enumerate(selection.candidates) if c.iterations == 8]
    assert sum(counts[k] for k in unrolled) == 104
    busiest = max(range(len(counts)), key=lambda k: counts[k])
    check_runs(SimpleNamespace(index=busiest), counts)
    for k in unrolled:
        if counts[k] < counts[busiest]:
            with pytest.raises(KerncraftError):
                check_runs(SimpleNamespace(index=k), counts)
