"""External backends on AArch64 and Sandy Bridge (issue 28, item 9).

``-i LLVM-MCA`` on a ThunderX2 machine file ran ``llvm-mca -mcpu=thunderx2t99`` without
a target, so llvm-mca assumed the x86 host and refused the CPU; ``-i OSACA`` got markers
``# OSACA-BEGIN``, which OSACA's AArch64 parser cannot read (``#`` starts an immediate
there, comments are ``//``); OSACA 0.7.1's SNB database has no jumps, so every Sandy
Bridge loop was refused for its closing ``jne``. The tests check the argument list and
the assembly text handed to the tool, with a stand-in for the tool that returns reports
recorded from the real ones (llvm-mca 16.0.6, OSACA 0.7.1); they need neither installed.
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from kerncraft.errors import UnknownInstructionError
from kerncraft.incore.backends import find_versioned, llvm_mca, osaca

# gcc 12 -O3 -mcpu=thunderx2t99 for kernels/copy.c (the loop and a few lines around it)
TX2_ASM = """\
\t.arch armv8.1-a+crypto+crc
\t.text
\tmov\tx3, x21
\t.p2align 4,,15
.L4:
\tldr\tq0, [x3], 16
\tstr\tq0, [x2], 16
\tcmp\tx1, x2
\tbne\t.L4
\tret
"""
# clang -O3 -march=corei7-avx (Sandy Bridge) code of a vector add loop
SNB_ASM = """\
\t.text
.LBB0_7:
\tvmovups\t(%rsi,%rcx,8), %ymm0
\tvaddpd\t(%rdx,%rcx,8), %ymm0, %ymm0
\tvmovups\t%ymm0, (%rdi,%rcx,8)
\taddq\t$4, %rcx
\tcmpq\t%rcx, %rax
\tjne\t.LBB0_7
"""


def selection(first: int, mnemonics: list[str], label: str) -> SimpleNamespace:
    """The selected block: instructions on consecutive lines from ``first``."""
    instructions = [SimpleNamespace(line_number=first + i, mnemonic=m)
                    for i, m in enumerate(mnemonics)]
    return SimpleNamespace(instructions=instructions, block=SimpleNamespace(label=label))


TX2_SELECTION = selection(6, ["ldr", "str", "cmp", "bne"], ".L4")
SNB_SELECTION = selection(3, ["vmovups", "vaddpd", "vmovups", "addq", "cmpq", "jne"],
                          ".LBB0_7")

# llvm-mca 16.0.6 -mtriple=aarch64 -mcpu=thunderx2t99 -iterations=1000 on the block the
# backend writes for TX2_ASM (recorded; trailing blanks dropped)
MCA_TX2_1000 = """
[0] Code Region - kerncraft

Iterations:        1000
Instructions:      4000
Total Cycles:      5003
Total uOps:        13000

Dispatch Width:    4
uOps Per Cycle:    2.60
IPC:               0.80
Block RThroughput: 3.3


Instruction Info:
[1]: #uOps
[2]: Latency
[3]: RThroughput
[4]: MayLoad
[5]: MayStore
[6]: HasSideEffects (U)

[1]    [2]    [3]    [4]    [5]    [6]    Instructions:
 5      5     0.67    *                   ldr\tq0, [x3], #16
 4      1     0.67           *            str\tq0, [x2], #16
 2      1     0.33                        cmp\tx1, x2
 2      1     1.00                        b.ne\t.L4


Resources:
[0]   - THX2T99P0
[1]   - THX2T99P1
[2]   - THX2T99P2
[3]   - THX2T99P3
[4]   - THX2T99P4
[5]   - THX2T99P5


Resource pressure per iteration:
[0]    [1]    [2]    [3]    [4]    [5]
2.33   2.33   1.34    -     1.00   1.00

Resource pressure by instruction:
[0]    [1]    [2]    [3]    [4]    [5]    Instructions:
0.67   1.33    -      -      -     1.00   ldr\tq0, [x3], #16
1.33   0.67    -      -     1.00    -     str\tq0, [x2], #16
0.33   0.33   0.33    -      -      -     cmp\tx1, x2
 -      -     1.00    -      -      -     b.ne\t.L4
"""
# the same with -iterations=2000: its head (the tables are the same as above)
MCA_TX2_2000 = """
[0] Code Region - kerncraft

Iterations:        2000
Instructions:      8000
Total Cycles:      10003
Total uOps:        26000

Dispatch Width:    4
uOps Per Cycle:    2.60
IPC:               0.80
Block RThroughput: 3.3
"""
# OSACA 0.7.1 --arch TX2 on the block the backend writes for TX2_ASM (recorded; the
# header lines with file name and time dropped, trailing blanks too)
OSACA_TX2 = """\
Open Source Architecture Code Analyzer (OSACA) - 0.7.1

Combined Analysis Report
------------------------
                       Port pressure in cycles
     |  0   |  DV  |  1   |  2   |  3   |  4   |  5   ||  CP  | LCD  |
----------------------------------------------------------------------
   2 |      |      |      |      |      |      |      ||      |      |   .L4:
   3 | 0.33 |      | 0.33 | 0.33 | 0.50 | 0.50 |      ||  0.0 |  1.0 |   ldr q0, [x3], 16
   4 | 0.50 |      | 0.50 | 0.00 | 0.50 | 0.50 | 1.00 ||  1.0 |      |   str q0, [x2], 16
   5 | 0.50 |      | 0.50 | 0.00 |      |      |      ||  1.0 |      |   cmp x1, x2
   6 |      |      |      | 1.00 |      |      |      ||      |      |   bne .L4

       1.33          1.33   1.33   1.00   1.00   1.00     6.0    5.0




Loop-Carried Dependencies Analysis Report
-----------------------------------------
   4 |  1.0 | str\tq0, [x2], 16                    | [4]
"""
# OSACA 0.7.1 --arch SNB on the block the backend writes for SNB_ASM (recorded; the
# header lines with file name and time dropped): 'X' marks the jne it has no data for
OSACA_SNB = """\
Open Source Architecture Code Analyzer (OSACA) - 0.7.1

 P - Throughput of LOAD operation can be hidden behind a past or future STORE instruction
 * - Instruction micro-ops not bound to a port
 X - No throughput/latency information for this instruction in data file


Combined Analysis Report
------------------------
                          Port pressure in cycles
     |  0   |  1   |  5   |  2   |  3   |  2D  |  3D  |  4   ||  CP  | LCD  |
-----------------------------------------------------------------------------
   2 |      |      |      |      |      |      |      |      ||      |      |   .LBB0_7:
   3 |      |      |      | 0.50 | 0.50 | 0.50 | 0.50 |      ||      |      |   vmovups (%rsi,%rcx,8), %ymm0
   4 |      | 1.00 |      | 0.50 | 0.50 | 0.50 | 0.50 |      ||  3.0 |      |   vaddpd (%rdx,%rcx,8), %ymm0, %ymm0
   5 |      |      |      | 0.50 | 0.50 |      |      | 1.00 ||  0.0 |      |   vmovups %ymm0, (%rdi,%rcx,8)
   6 | 0.50 | 0.00 | 0.50 |      |      |      |      |      ||      |  1.0 |   addq $4, %rcx
   7 | 0.50 | 0.00 | 0.50 |      |      |      |      |      ||      |      |   cmpq %rcx, %rax
   8 |      |      |      |      |      |      |      |      ||      |      | X jne .LBB0_7

------------------ WARNING: The performance data for 1 instructions is missing.------------------
                     No final analysis is given. If you want to ignore this
                     warning and run the analysis anyway, start osaca with
                                       --ignore-unknown flag.
-------------------------------------------------------------------------------------------------




Loop-Carried Dependencies Analysis Report
-----------------------------------------
   6 |  1.0 | addq\t$4, %rcx                       | [6]
"""


class FakeTool:
    """Stands in for ``run_tool``: records each call, answers with a recorded report."""

    def __init__(self, answer):
        self.calls: list[tuple[list[str], dict[str, str]]] = []
        self.answer = answer

    def __call__(self, cmd, name, files, timeout=None):
        self.calls.append((list(cmd), dict(files)))
        return self.answer(cmd)


# ------------------------------------------------------------------ llvm-mca
def test_llvm_mca_command_names_the_aarch64_target():
    # the bundled TX2 machine file: 'LLVM-MCA: -mcpu=thunderx2t99'
    assert llvm_mca.command("/x/llvm-mca", "-mcpu=thunderx2t99", 1000, "aarch64") == [
        "/x/llvm-mca", "-mtriple=aarch64", "-mcpu=thunderx2t99", "-iterations=1000",
        "{dir}/kernel.s"]
    # a bare CPU name gets -mcpu= (as before) and the triple in front
    assert llvm_mca.command("/x/llvm-mca", "neoverse-v2", 2000, "aarch64") == [
        "/x/llvm-mca", "-mtriple=aarch64", "-mcpu=neoverse-v2", "-iterations=2000",
        "{dir}/kernel.s"]
    # Kerncraft's A64FX_qpace4.yml names its target with -march: left as written
    assert llvm_mca.command("/x/llvm-mca", "-mcpu=a64fx -march=aarch64", 1000, "aarch64") == [
        "/x/llvm-mca", "-mcpu=a64fx", "-march=aarch64", "-iterations=1000", "{dir}/kernel.s"]
    # x86 lists stay as they were (the default isa too)
    assert llvm_mca.command("/x/llvm-mca", "-mcpu=sandybridge", 1000) == [
        "/x/llvm-mca", "-mcpu=sandybridge", "-iterations=1000", "{dir}/kernel.s"]


def test_llvm_mca_on_thunderx2_block(monkeypatch):
    fake = FakeTool(lambda cmd: MCA_TX2_2000 if "-iterations=2000" in cmd else MCA_TX2_1000)
    monkeypatch.setattr(llvm_mca, "run_tool", fake)
    result = llvm_mca.analyse(TX2_ASM, TX2_SELECTION, "-mcpu=thunderx2t99",
                              tool="/x/llvm-mca")
    (first, files), (second, _) = fake.calls
    assert first == ["/x/llvm-mca", "-mtriple=aarch64", "-mcpu=thunderx2t99",
                     "-iterations=1000", "{dir}/kernel.s"]
    assert second[3] == "-iterations=2000"
    # the loop of TX2_ASM (lines 5-9) between llvm-mca's region markers: llvm-mca reads
    # '#' line comments for AArch64 too (the report's region is named 'kerncraft')
    assert files == {"kernel.s": "\t# LLVM-MCA-BEGIN kerncraft\n.L4:\n\tldr\tq0, [x3], 16\n"
                                 "\tstr\tq0, [x2], 16\n\tcmp\tx1, x2\n\tbne\t.L4\n"
                                 "\t# LLVM-MCA-END\n"}
    # read off the report: ports THX2T99P0..P5 per iteration
    assert result.port_totals == {"THX2T99P0": 2.33, "THX2T99P1": 2.33, "THX2T99P2": 1.34,
                                  "THX2T99P3": 0.0, "THX2T99P4": 1.0, "THX2T99P5": 1.0}
    # front end 13000 uOps / 1000 iterations / width 4 = 3.25 cy; steady state
    # (10003 - 5003) cy / (2000 - 1000) it = 5.0 cy > 1.1 x 3.25: taken as the LCD
    assert result.frontend == 3.25
    assert result.simulated == 5.0 and result.lcd == 5.0
    assert result.command[:3] == ("/x/llvm-mca", "-mtriple=aarch64", "-mcpu=thunderx2t99")


@pytest.mark.skipif(find_versioned("llvm-mca", "KERNCRAFT_LLVM_MCA") is None,
                    reason="llvm-mca not installed")
def test_llvm_mca_live_thunderx2():
    result = llvm_mca.analyse(TX2_ASM, TX2_SELECTION, "-mcpu=thunderx2t99")
    # it runs (before: "'thunderx2t99' is not a recognized processor") and reports the
    # ThunderX2 model's six ports
    assert sorted(result.port_totals) == [f"THX2T99P{i}" for i in range(6)]


# ------------------------------------------------------------------ OSACA
def test_osaca_markers_are_comments_of_the_isa():
    aarch64 = osaca.block_text(TX2_ASM, TX2_SELECTION)
    assert aarch64 == ("\t// OSACA-BEGIN\n.L4:\n\tldr\tq0, [x3], 16\n\tstr\tq0, [x2], 16\n"
                       "\tcmp\tx1, x2\n\tbne\t.L4\n\t// OSACA-END\n")
    assert "#" not in aarch64          # OSACA's AArch64 parser failed on '# OSACA-BEGIN'
    x86 = osaca.block_text(SNB_ASM, SNB_SELECTION)
    assert x86.splitlines()[0] == "\t# OSACA-BEGIN" and x86.splitlines()[-1] == "\t# OSACA-END"


def test_osaca_tx2_gets_the_aarch64_block(monkeypatch):
    fake = FakeTool(lambda cmd: OSACA_TX2)
    monkeypatch.setattr(osaca, "run_tool", fake)
    result = osaca.analyse(TX2_ASM, TX2_SELECTION, "TX2", tool="/x/osaca")
    ((cmd, files),) = fake.calls
    assert cmd == ["/x/osaca", "--arch", "TX2", "{dir}/kernel.s"]
    assert files["kernel.s"] == osaca.block_text(TX2_ASM, TX2_SELECTION)
    # the summary line: 0: 0.33 + 0.50 + 0.50; 1 the same; 2: 0.33 + 1.00 (bne);
    # 3, 4: 2 x 0.50; 5: 1.00 (str data); DV blank
    assert result.port_totals == {"0": 1.33, "DV": 0.0, "1": 1.33, "2": 1.33, "3": 1.0,
                                  "4": 1.0, "5": 1.0}
    assert (result.critical_path, result.lcd) == (6.0, 5.0)


def test_osaca_sandy_bridge_loop_branch_counts_zero(monkeypatch):
    fake = FakeTool(lambda cmd: OSACA_SNB)
    monkeypatch.setattr(osaca, "run_tool", fake)
    result = osaca.analyse(SNB_ASM, SNB_SELECTION, "SNB", tool="/x/osaca")
    ((cmd, files),) = fake.calls
    assert cmd == ["/x/osaca", "--arch", "SNB", "{dir}/kernel.s"]      # no --ignore-unknown
    assert files["kernel.s"] == ("\t# OSACA-BEGIN\n.LBB0_7:\n" + SNB_ASM.split(".LBB0_7:\n")[1]
                                 + "\t# OSACA-END\n")
    # column sums of the rows (no summary line without --ignore-unknown):
    # 0: 0.5 + 0.5; 1: 1.00 (vaddpd); 5: 0.5 + 0.5; 2 and 3: 3 x 0.5; 2D, 3D: 2 x 0.5; 4: 1.00
    assert result.port_totals == {"0": 1.0, "1": 1.0, "5": 1.0, "2": 1.5, "3": 1.5,
                                  "2D": 1.0, "3D": 1.0, "4": 1.0}
    assert result.throughput == 1.5
    assert result.critical_path == 3.0          # 3.0 (vaddpd) + 0.0 (store)
    assert result.lcd == 1.0                    # addq $4, %rcx on itself
    assert result.unknown_forms == ("jne .LBB0_7",)
    assert any("loop branch 'jne .LBB0_7' is not in OSACA's SNB database" in n
               for n in result.notes)
    assert not any("unknown to OSACA counted as zero" in n for n in result.notes)


def test_osaca_other_unknown_forms_still_refused(monkeypatch):
    # a second unknown instruction besides the branch: refused as before
    two = OSACA_SNB.replace("|      |      |   cmpq %rcx, %rax", "|      |      | X cmpq %rcx, %rax")
    monkeypatch.setattr(osaca, "run_tool", FakeTool(lambda cmd: two))
    with pytest.raises(UnknownInstructionError, match="2 instruction"):
        osaca.analyse(SNB_ASM, SNB_SELECTION, "SNB", tool="/x/osaca")
    # a jne that is not the block's last instruction is not the loop branch
    monkeypatch.setattr(osaca, "run_tool", FakeTool(lambda cmd: OSACA_SNB))
    inner = selection(3, ["vmovups", "vaddpd", "vmovups", "addq", "cmpq"], ".LBB0_7")
    with pytest.raises(UnknownInstructionError, match="jne"):
        osaca.analyse(SNB_ASM, inner, "SNB", tool="/x/osaca")


@pytest.mark.parametrize("unknown, last, accepted", [
    (("jne .L3",), "jne", True),
    (("b.ne .L3",), "b.ne", True),
    (("bne .L3",), "bne", True),
    (("cbnz x1, .L3",), "cbnz", True),
    (("jmp .L3",), "jmp", False),                   # not a conditional branch
    (("vfoo %ymm0",), "vfoo", False),
    (("jne .L3", "vfoo %ymm0"), "jne", False),      # something besides the branch
])
def test_only_loop_branch_unknown(unknown, last, accepted):
    assert osaca.only_loop_branch_unknown(unknown, last) is accepted


def test_osaca_ignore_unknown_passed_on():
    assert osaca.command("/x/osaca", "SNB", True) == ["/x/osaca", "--arch", "SNB",
                                                       "--ignore-unknown", "{dir}/kernel.s"]


def test_llvm_mca_cpu_from_the_osaca_entry_when_the_file_names_none():
    # Kerncraft's published ThunderX2 file names 'OSACA: TX2' and no LLVM-MCA entry;
    # llvm-mca 16 calls that core thunderx2t99 (llvm/lib/Target/AArch64/AArch64.td).
    from types import SimpleNamespace

    from kerncraft.errors import KerncraftError
    from kerncraft.models.incore_ports import tool_architecture

    tx2 = SimpleNamespace(in_core_model=(("OSACA", "TX2"), ("IACA", "NONE")))
    assert tool_architecture(tx2, "LLVM-MCA") == "-mcpu=thunderx2t99"
    own = SimpleNamespace(in_core_model=(("kerncraft", "ZEN2"),))
    assert tool_architecture(own, "LLVM-MCA") == "-mcpu=znver2"
    given = SimpleNamespace(in_core_model=(("OSACA", "TX2"), ("LLVM-MCA", "-mcpu=cortex-a72")))
    assert tool_architecture(given, "LLVM-MCA") == "-mcpu=cortex-a72"     # the file wins
    with pytest.raises(KerncraftError, match="names no OSACA architecture"):
        tool_architecture(SimpleNamespace(in_core_model=(("kerncraft", "TX2"),)), "OSACA")
