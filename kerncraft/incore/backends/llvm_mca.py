"""``-i LLVM-MCA``: LLVM's Machine Code Analyzer as in-core backend.

The machine file's ``in-core model: LLVM-MCA:`` entry holds the tool's
architecture arguments (``-mcpu=cascadelake``, optionally ``-mtriple=...``).
The selected block is marked with ``# LLVM-MCA-BEGIN`` / ``# LLVM-MCA-END``
and analysed twice (``-iterations`` N and 2N; the second run's extra cycles
divided by N are the steady-state *simulated* cycles per iteration, free of
the pipeline fill). What we take from the report (cycles per assembly
iteration):

* ``Resource pressure per iteration``: cycles on every scheduler resource
  (``SKXPort0`` ... ; a resource with several units, printed ``[14.0]``,
  ``[14.1]``, becomes ``Zn3LSU.0``, ``Zn3LSU.1``; a machine file's port name
  without the unit suffix means all its units);
* front end: ``Total uOps`` per iteration / ``Dispatch Width``;
* throughput: the larger of the busiest resource and the front-end bound
  (llvm-mca's ``Block RThroughput`` is the same bound with an ideal port
  assignment, but printed with one decimal only; it is kept in the notes);
* simulated: the steady-state cycles per iteration of llvm-mca's simulation;
* loop-carried dependency: llvm-mca computes none. Its simulation includes
  every dependency, so when the simulated time exceeds the static bound
  (throughput above) by more than ``LCD_MARGIN`` (10 %), only a dependency
  chain can explain it, and the simulated cycles per iteration are taken as
  the LCD; otherwise the LCD is not reported (None), because it does not limit
  the loop (llvm-mca's ``-bottleneck-analysis`` "critical sequence" was tried
  and rejected: it marks resource interference as loop-carried too);
* critical path: not computed by llvm-mca (None).

AArch64 blocks (detected from the assembly) get ``-mtriple=aarch64`` unless the
entry names a target (``-mtriple=``, ``-march=``): llvm-mca otherwise assumes the
host's target and refuses ``-mcpu=thunderx2t99``.

Detection: ``$KERNCRAFT_LLVM_MCA``, else ``llvm-mca`` on PATH, else the
highest ``llvm-mca-N``.
"""
from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from kerncraft.errors import KerncraftError, ToolError
from kerncraft.incore.backends.result import BackendAnalysis
from kerncraft.incore.backends.tool_run import find_versioned, marked_block, run_tool

if TYPE_CHECKING:
    from kerncraft.incore.protocols import SelectedBlock

NAME = "LLVM-MCA"
BEGIN, END = "LLVM-MCA-BEGIN kerncraft", "LLVM-MCA-END"
ITERATIONS = 1000
LCD_MARGIN = 0.10
NOT_FOUND = "llvm-mca not found; install llvm (llvm-mca-16) or use -i kerncraft"


def find_tool() -> str:
    path = find_versioned("llvm-mca", "KERNCRAFT_LLVM_MCA")
    if path is None:
        raise ToolError(NOT_FOUND)
    return path


def arch_arguments(arch: str) -> list[str]:
    """Argument list of a machine file's ``LLVM-MCA:`` entry (a bare CPU name gets
    ``-mcpu=``)."""
    args = shlex.split(str(arch))
    if not args:
        raise KerncraftError("machine file's in-core model LLVM-MCA entry is empty "
                             "(e.g. 'LLVM-MCA: -mcpu=cascadelake')")
    return [a if a.startswith("-") else f"-mcpu={a}" for a in args]


def target_arguments(args: list[str], isa: str) -> list[str]:
    """``args`` with ``-mtriple=aarch64`` in front for AArch64 assembly that names no
    target: llvm-mca assumes the host's, where ``-mcpu=thunderx2t99`` (or ``a64fx``,
    ``neoverse-v2``) is no processor and the AArch64 code does not assemble."""
    if isa != "aarch64" or any(a.startswith(("-mtriple", "-march")) for a in args):
        return args
    return ["-mtriple=aarch64", *args]


def command(path: str, arch: str, iterations: int, isa: str = "x86") -> list[str]:
    """The llvm-mca argument list for the machine file's entry ``arch`` and the
    block's ISA (``'x86'`` or ``'aarch64'``)."""
    return [path, *target_arguments(arch_arguments(arch), isa), f"-iterations={iterations}",
            "{dir}/kernel.s"]


def analyse(asm_text: str, selection: SelectedBlock, arch: str, *, ignore_unknown: bool = False,
            tool: str | None = None) -> BackendAnalysis:
    """Run llvm-mca on the selected block and parse its report."""
    from kerncraft.incore.aarch64.parser import detect_isa

    path = tool or find_tool()
    isa = detect_isa(asm_text)
    # llvm-mca reads '#' line comments for AArch64 too: the region markers stay as they are
    files = {"kernel.s": marked_block(asm_text, selection, BEGIN, END)}
    first_cmd = command(path, arch, ITERATIONS, isa)
    first = run_tool(first_cmd, "llvm-mca", files)
    second = run_tool(command(path, arch, 2 * ITERATIONS, isa), "llvm-mca", files)
    return parse_output(first, arch, steady_output=second,
                        command=tuple(a.replace("{dir}/", "") for a in first_cmd))


# ------------------------------------------------------------------ parsing
_FIELD = re.compile(r"^(Iterations|Instructions|Total Cycles|Total uOps|Dispatch Width|"
                    r"Block RThroughput):\s*([\d.]+)\s*$", re.M)
_RESOURCE = re.compile(r"^\[(\d+)(?:\.(\d+))?\]\s+-\s+(\S+)\s*$")
_LABEL = re.compile(r"\[(\d+)(?:\.(\d+))?\]")


def _fields(text: str) -> dict[str, float]:
    return {m.group(1): float(m.group(2)) for m in _FIELD.finditer(text)}


def _first_region(text: str) -> str:
    """The first code region of a report (we write exactly one)."""
    parts = re.split(r"^\[\d+\] Code Region.*$", text, flags=re.M)
    return parts[1] if len(parts) > 1 else text


def parse_resources(text: str) -> dict[str, float]:
    """Resource name -> cycles per iteration, from ``Resources:`` and
    ``Resource pressure per iteration:``."""
    lines = text.splitlines()
    names: dict[str, str] = {}
    try:
        start = next(i for i, ln in enumerate(lines) if ln.strip() == "Resources:")
    except StopIteration:
        raise ToolError("llvm-mca report has no 'Resources:' section") from None
    for ln in lines[start + 1:]:
        match = _RESOURCE.match(ln.strip())
        if not match:
            if ln.strip():
                break
            if names:
                break
            continue
        label = match.group(1) + (f".{match.group(2)}" if match.group(2) is not None else "")
        unit = f".{match.group(2)}" if match.group(2) is not None else ""
        names[label] = match.group(3) + unit
    try:
        head = next(i for i, ln in enumerate(lines)
                    if ln.strip() == "Resource pressure per iteration:")
    except StopIteration:
        raise ToolError("llvm-mca report has no 'Resource pressure per iteration:' "
                        "section") from None
    labels = [m.group(1) + (f".{m.group(2)}" if m.group(2) is not None else "")
              for m in _LABEL.finditer(lines[head + 1])]
    values = lines[head + 2].split() if head + 2 < len(lines) else []
    if len(values) != len(labels):
        raise ToolError(f"llvm-mca resource pressure: {len(labels)} resources but "
                        f"{len(values)} values")
    totals: dict[str, float] = {}
    for label, value in zip(labels, values):
        name = names.get(label, f"[{label}]")
        totals[name] = 0.0 if value == "-" else float(value)
    return totals


def parse_output(text: str, arch: str = "", *, steady_output: str | None = None,
                 command: tuple[str, ...] = ()) -> BackendAnalysis:
    """A :class:`BackendAnalysis` from llvm-mca's report and optionally a second
    run with more iterations (for the steady-state simulated cycles)."""
    region = _first_region(text)
    f = _fields(region)
    missing = [k for k in ("Iterations", "Total Cycles", "Total uOps", "Dispatch Width",
                           "Block RThroughput") if k not in f]
    if missing:
        raise ToolError(f"could not read llvm-mca's report (missing {', '.join(missing)})")
    iterations = f["Iterations"]
    ports = parse_resources(region)
    simulated = f["Total Cycles"] / iterations
    if steady_output is not None:
        g = _fields(_first_region(steady_output))
        if "Total Cycles" in g and g.get("Iterations", 0) > iterations:
            simulated = (g["Total Cycles"] - f["Total Cycles"]) / (g["Iterations"] - iterations)
    simulated = round(simulated, 4)
    frontend = round(f["Total uOps"] / iterations / f["Dispatch Width"], 4)
    throughput = max(max(ports.values(), default=0.0), frontend)
    notes = ["llvm-mca computes no critical path"]
    lcd = None
    if simulated > (1 + LCD_MARGIN) * throughput:
        lcd = simulated
        notes.append(f"llvm-mca's simulation ({simulated:.2f} cy per iteration) exceeds its "
                     f"resource and dispatch bound ({throughput:.2f} cy) by more than "
                     f"{LCD_MARGIN:.0%}: taken as the loop-carried dependency")
    else:
        notes.append(f"llvm-mca computes no loop-carried dependency; its simulation "
                     f"({simulated:.2f} cy per iteration) is within {LCD_MARGIN:.0%} of its "
                     f"resource and dispatch bound ({throughput:.2f} cy), so none limits the loop")
    notes.append(f"llvm-mca Block RThroughput {f['Block RThroughput']:.1f} cy")
    return BackendAnalysis(NAME, arch, ports, throughput, None, lcd, frontend,
                           simulated, (), (), tuple(notes), text, command)
