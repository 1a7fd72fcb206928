"""The in-core campaign's parts (kerncraft/validation/incore_*.py) on hand-derived cases:
block text normalisation and keys, the bytes a nest touches and the two extents, the
difference measurement (with a fake runner), the results file, the jam check, and the
command line on a small recording. No compiler run, no external analyzer.
"""
from __future__ import annotations

import dataclasses

import json
import math
import shutil
from pathlib import Path

import pytest

from kerncraft.errors import KerncraftError
from kerncraft.kernel.parser import parse_kernel
from kerncraft.validation.incore_blocks import block_key, check_jam, normalise
from kerncraft.validation.incore_measure import MeasureOptions, measure_extents
from kerncraft.validation.incore_record import BlockRecord, append_result, read_results
from kerncraft.validation.incore_sizes import choose_extents, touched_bytes

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "kernels"


def kernel(name: str):
    path = KERNELS / f"{name}.c"
    if not path.is_file():
        path = KERNELS / "polybench" / f"{name}.c"
    return parse_kernel(path.read_text(), filename=path.name)


def test_normalise_drops_comments_and_directives_and_renames_labels():
    text = ("\t# LLVM-MCA-BEGIN\n"
            ".LBB0_38:                               # =>This Inner Loop Header\n"
            "\tvmovupd\t-1008(%rdx,%rsi,8), %ymm1\n"
            "\t.p2align 4\n"
            "\tvpermt2pd\t-64(%r11), %zmm3 ,%zmm4\n"
            "\taddq\t$-8, %r14\n"
            "\tjne\t.LBB0_38\n"
            "\tjmp .L9\n")
    # labels in order of appearance: .LBB0_38 -> .Lkc0, the exit .L9 -> .Lkc1; one blank
    # after the mnemonic and after each operand comma, none inside an operand
    assert normalise(text) == (".Lkc0:\nvmovupd -1008(%rdx,%rsi,8), %ymm1\n"
                               "vpermt2pd -64(%r11), %zmm3, %zmm4\naddq $-8, %r14\n"
                               "jne .Lkc0\njmp .Lkc1\n")
    # gcc's and clang's spellings of one loop are one block
    assert normalise(".L5:\n\taddq\t$8,%rax\n\tjne .L5\n") == \
        normalise(".LBB1_2: # loop\n  addq $8, %rax\n  jne .LBB1_2\n")


def test_block_key_depends_on_every_part():
    base = block_key("x\n", ("-O3",), "gcc 12.2", "host")
    assert base == block_key("x\n", ("-O3",), "gcc 12.2", "host")
    assert len({base, block_key("y\n", ("-O3",), "gcc 12.2", "host"),
                block_key("x\n", ("-O2",), "gcc 12.2", "host"),
                block_key("x\n", ("-O3",), "gcc 13.1", "host"),
                block_key("x\n", ("-O3",), "gcc 12.2", "other")}) == 5


def test_touched_bytes_counts_cache_lines():
    # copy N=16: a and b are 16 doubles = 128 B = 2 lines each -> 4 lines = 256 B
    assert touched_bytes(kernel("copy").bind({"N": 16})) == 256
    # 2d-5pt M=3 N=16 (rows of 128 B): j=1 only, i=1..14. a[0][i]: bytes 8..119 of row 0
    # (lines 0, 1); a[1][i-1..i+1]: row 1 whole (lines 2, 3); a[2][i]: row 2 (lines 4, 5);
    # b[1][i]: bytes 136..247 (lines 2, 3 of b) -> 8 lines = 512 B
    assert touched_bytes(kernel("2d-5pt").bind({"M": 3, "N": 16})) == 512
    # mvt-x2 NI=8 NJ=10: the inner loop j walks down column i of A[10][8] (rows of 64 B):
    # 10 lines shared by all 8 columns; y2[0..9] = 80 B (2 lines); x2[0..7] (1 line)
    # -> 13 lines = 832 B
    assert touched_bytes(kernel("mvt-x2").bind({"NI": 8, "NJ": 10})) == 832


def test_extents_of_copy():
    # copy touches 2 x 8N bytes (N a multiple of 8): the long extent is the largest N with
    # 16 N <= 40960, N = 2560. A block of 8 iterations per assembly iteration steps N by
    # lcm(8, 8) = 8; the short extent is 213 steps shorter ((2/3 x 2560) // 8 = 213):
    # 2560 - 1704 = 856, 1704 / 8 = 213 assembly iterations more per repetition
    extents = choose_extents(kernel("copy"), {}, "N", 8, 8, 40960)
    assert (extents.short["N"], extents.long["N"]) == (856, 2560)
    assert extents.asm_iterations_delta == 213.0
    assert extents.rows == 1 and extents.touched_bytes == 40960


def test_extents_refused_when_the_block_cannot_run_twice_at_both():
    # 3d-7pt L=M=3 touches 6 rows of N doubles (5 of a, 1 of b): N <= 850 in 40960 B;
    # a block of 256 iterations needs 2 x 256 at the short extent and 2 x 256 more
    with pytest.raises(KerncraftError, match="twice"):
        choose_extents(kernel("3d-7pt"), {"L": 3, "M": 3}, "N", 256, 256, 40960)


def fake_runner(times: dict[str, list[float]]):
    """Seconds per repetition by the extent argument (N=100 short, N=300 long)."""
    calls: dict[str, int] = {}

    def run(argv):
        extent = argv[1]
        values = times[extent]
        calls[extent] = calls.get(extent, 0) + 1
        return values[(calls[extent] - 1) % len(values)]
    return run


def test_difference_measurement_cancels_per_repetition_costs():
    # t = 0.5 us + 10 ns per assembly iteration: short 100 its (1.5 us), long 300 (3.5 us);
    # (3.5 - 1.5) us x 1e9 Hz / 200 assembly iterations = 10 cy, the 0.5 us cancel
    runner = fake_runner({"100": [1.5e-6], "300": [3.5e-6]})
    result = measure_extents(Path("bench"), ["100"], ["300"], 200.0, 1e9,
                             MeasureOptions(cpu=0, min_time=1e-9), runner=runner)
    assert result.cycles == pytest.approx(10.0)
    assert result.passes == (10.0, 10.0) and not result.unstable


def test_passes_more_than_5_percent_apart_are_unstable():
    # first pass: long runs 3.5 us -> 10 cy; second pass 3.7 us -> (3.7-1.5)/200 = 11 cy:
    # 10 % apart; each pass keeps the fastest of its 3 runs (the repetition probe is the
    # first long call)
    runner = fake_runner({"100": [1.5e-6], "300": [3.5e-6] * 4 + [3.7e-6] * 3})
    result = measure_extents(Path("bench"), ["100"], ["300"], 200.0, 1e9,
                             MeasureOptions(cpu=0, min_time=1e-9), runner=runner)
    assert result.passes == (pytest.approx(10.0), pytest.approx(11.0))
    assert result.cycles == pytest.approx(10.0) and result.unstable
    assert result.spread == pytest.approx(0.1)


def test_results_file_resumes_and_keeps_the_last_line_of_a_key(tmp_path):
    path = tmp_path / "results.jsonl"
    assert read_results(path) == {}
    append_result(path, BlockRecord({"key": "a", "kernel": "copy", "block": "x\n",
                                     "measured": {"cy_per_asm_iteration": 1.0}}))
    append_result(path, BlockRecord({"key": "b", "kernel": "add", "block": "y\n"}))
    append_result(path, BlockRecord({"key": "a", "kernel": "copy", "block": "x\n",
                                     "measured": {"cy_per_asm_iteration": 2.0}}))
    with open(path, "a") as torn:          # an interrupted write: ignored
        torn.write('{"key": "c", "kern')
    found = read_results(path)
    assert sorted(found) == ["a", "b"] and found["a"].measured == 2.0


GEMM_JAMMED = """\t.text
main:
.L3:
\tvmovsd\t(%r10), %xmm4
\taddq\t$8, %rdi
\tvfmadd213sd\t-8(%rdi), %xmm7, %xmm4
\tvfmadd231sd\t(%r10,%rbx,8), %xmm6, %xmm4
\taddq\t$8, %r10
\tvmovsd\t%xmm4, -8(%rdi)
\tcmpq\t%rsi, %rdi
\tjne\t.L3
\tret
"""


def test_jammed_gemm_loop_is_counted_or_refused():
    # gcc 12 -O3 -fno-tree-vectorize: gemm's k loop jammed by 2 into the j loop (two rows
    # of B: (%r10) and (%r10,%rbx,8)), alpha * A[i][k] hoisted: 2 FMAs = 4 flops where
    # one iteration has 3, so no exact multiple. The block walks 3 streams (B[k], B[k+1],
    # C), what 2 jammed k iterations give (1 gives 2): the selection counts 2 iterations
    # per assembly iteration (compilation/blocks.py), and the campaign's guard lets it pass
    from kerncraft.compilation.asm_block import select_block
    from kerncraft.incore.x86.parser import parse_x86

    bound = kernel("gemm").bind({"NI": 1, "NK": 4, "NJ": 1024})
    selection = select_block(parse_x86(GEMM_JAMMED), bound)
    assert (selection.iterations_per_asm_iteration, selection.outer_unroll) == (2, 2)
    check_jam(bound, selection)
    # a selection that missed the jam (1 iteration) is refused by the guard
    missed = dataclasses.replace(selection, outer_unroll=1, iterations_per_asm_iteration=1)
    with pytest.raises(KerncraftError, match="jammed"):
        check_jam(bound, missed)
    # the same loop with one row of B is gemm's own loop: 2 streams, 2 loads
    single = GEMM_JAMMED.replace("\tvfmadd231sd\t(%r10,%rbx,8), %xmm6, %xmm4\n", "")
    check_jam(bound, select_block(parse_x86(single), bound))


def test_replay_command_on_a_small_recording(tmp_path, capsys):
    # three blocks of the recorded Zen 5 campaign, replayed through the command line;
    # our static prediction of each is what its record says (the model unchanged since)
    from kerncraft.cli.validate import main

    recorded = sorted((ROOT / "benchmarks" / "corpus" / "incore").glob("*/campaign.json"))
    if not recorded:
        pytest.skip("no in-core recording in benchmarks/corpus/incore")
    source = recorded[0].parent
    folder = tmp_path / "rec"
    shutil.copytree(source, folder)
    lines = (folder / "blocks.jsonl").read_text().splitlines()
    (folder / "blocks.jsonl").write_text("\n".join(lines[:3]) + "\n")
    assert main(["--incore", "--replay", str(folder), "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "| kerncraft | " in out and "## all recordings" in out
    document = json.loads((tmp_path / "r.json").read_text())["recordings"][0]
    assert document["measured"] == 3
    assert math.isfinite(document["tools"]["kerncraft"]["mape"])


def test_options_of_the_ecm_validation_are_refused_with_incore(capsys):
    from kerncraft.cli.validate import main

    # --levels chooses ECM memory levels: the in-core campaign has its data in L1 only
    assert main(["--incore", "--levels", "L2", "-m", "ZEN5-VM"]) != 0
    assert "--levels cannot be used with --incore" in capsys.readouterr().err
    # a replay predicts with the recorded machine file, so -m is refused there
    assert main(["--incore", "--replay", str(ROOT), "-m", "ZEN5-VM"]) != 0
    assert "-m cannot be used with --incore --replay" in capsys.readouterr().err


def test_line_splits_of_a_block_come_from_its_kernel():
    # b[j][i] = a[j][i] + a[j+1][i+1] with ymm (4 doubles, 32 B per iteration): the
    # block loads a's two rows through their own registers, so the block alone shows no
    # misalignment (ZEN5: 2 loads on LD0/LD1 = 1.0 cy). From the kernel (rows of 1024
    # doubles, 64-B aligned): a[j+1][i+1] is 8 B off, so its 32-B load crosses a line
    # in every second iteration; ZEN5 charges 1 cy of LD0/LD1 per split load:
    # 0.5 split x 1 cy over 2 ports = +0.25 -> 1.25 cy per iteration
    from kerncraft.incore.arch import resolve_model
    from kerncraft.validation.incore_tools import predict_ours

    source = ("double a[M][N], b[M][N];\nfor (int j = 0; j < M - 1; ++j)\n"
              "    for (int i = 0; i < N - 1; ++i)\n        b[j][i] = a[j][i] + a[j + 1][i + 1];\n")
    bound = parse_kernel(source, "k.c").bind({"M": 3, "N": 1024})
    block = (".L2:\n\tvmovupd\t(%rsi,%rax), %ymm0\n\tvaddpd\t(%rdx,%rax), %ymm0, %ymm0\n"
             "\tvmovupd\t%ymm0, (%rdi,%rax)\n\taddq\t$32, %rax\n\tcmpq\t%rax, %rcx\n\tjne\t.L2\n")
    model = resolve_model("ZEN5")
    alone, with_kernel = predict_ours(block, model), predict_ours(block, model, kernel=bound)
    assert alone["kerncraft"].cycles == pytest.approx(1.0)
    assert with_kernel["kerncraft"].cycles == pytest.approx(1.25)
    assert with_kernel["kerncraft-sim"].cycles == pytest.approx(1.25)
