"""Every analyzer of the in-core campaign on one loop block (cycles per assembly iteration).

* ``kerncraft``: our static analysis, ``kerncraft-incore --arch MACHINE`` on the block
  (:func:`kerncraft.incore.analysis.analyze_text`, line splits with the default
  ``--alignment 64``): max(port throughput, loop-carried dependency, front end); the
  binding resource is the bound that wins (the busiest ports for the throughput).
* ``kerncraft-sim``: the cycle-level simulation of that analysis
  (``kerncraft-incore --simulate``); binding: the resource whose removal saves the
  most cycles.
* ``llvm-mca``: steady-state cycles per iteration of llvm-mca's simulation (the extra
  cycles of 2N over N iterations, :mod:`kerncraft.incore.backends.llvm_mca`), with
  ``-mcpu`` from the machine file's ``LLVM-MCA`` entry; a CPU this llvm-mca does not
  know is replaced by the newest one of its line it knows (:func:`llvm_mca_cpu`:
  znver5 -> znver4 with llvm-mca 16). Binding: a dependency chain when the simulation
  exceeds the resource bound by 10 %, else the dispatch width or the busiest resource.
* ``osaca``: max(throughput, loop-carried dependency) of OSACA with the machine file's
  ``OSACA`` architecture; a block with instructions OSACA does not know (other than the
  loop branch) is not predicted (an error, as CesASMe leaves a failed tool out).

Our analyzer is a library call and can predict a recorded block again
(:mod:`kerncraft.validation.incore_replay`); the external tools run where they are
installed, and their predictions are kept as recorded.
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Mapping

from kerncraft.errors import KerncraftError

__all__ = ["TOOLS", "OURS", "ToolPrediction", "ExternalTools", "predict_ours",
           "llvm_mca_cpu", "find_external_tools", "predict_external", "predict_block", "SPLIT_ALIGNMENT"]

TOOLS = ("kerncraft", "kerncraft-sim", "llvm-mca", "osaca")
OURS = ("kerncraft", "kerncraft-sim")
SPLIT_ALIGNMENT = 64
#: Seconds OSACA may take for one block (it needs about 0.5 s; see :func:`_osaca`).
OSACA_TIMEOUT = 30.0
#: A CPU name llvm-mca may not know yet -> the one before it in the same line.
OLDER_CPU = {"znver5": "znver4", "znver4": "znver3", "znver3": "znver2", "znver2": "znver1",
             "graniterapids": "sapphirerapids", "emeraldrapids": "sapphirerapids",
             "sapphirerapids": "icelake-server", "arrowlake": "alderlake",
             "lunarlake": "alderlake", "meteorlake": "alderlake", "raptorlake": "alderlake",
             "neoverse-v3": "neoverse-v2", "neoverse-v2": "neoverse-v1",
             "neoverse-n3": "neoverse-n2", "neoverse-n2": "neoverse-n1"}


@dataclass(frozen=True)
class ToolPrediction:
    """One analyzer's cycles per assembly iteration for one block (None: it failed)."""

    tool: str
    cycles: float | None
    binding: str = ""
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"cy": self.cycles, "binding": self.binding}
        if self.error:
            doc["error"] = self.error
        return doc

    @classmethod
    def from_dict(cls, tool: str, doc: Mapping[str, Any]) -> "ToolPrediction":
        cycles = doc.get("cy")
        return cls(tool, None if cycles is None else float(cycles), str(doc.get("binding") or ""),
                   doc.get("error"))


def _static_binding(result, totals: Mapping[str, float] | None = None) -> str:
    """What bounds the static prediction; ``totals``: the port cycles with line splits."""
    throughput = max(totals.values(), default=0.0) if totals else result.throughput
    bounds = {"TP": throughput, "LCD": result.lcd, "FE": result.frontend or 0.0,
              "MEM": getattr(result, "memory_issue", None) or 0.0}
    bound = max(bounds, key=lambda name: bounds[name])
    if bound == "TP":
        ports = [p for p, v in totals.items() if v >= throughput - 1e-9] if totals \
            else result.bottleneck_ports
        return "ports " + "/".join(ports)
    if bound == "LCD":
        chain = result.lcd_chains[0] if result.lcd_chains else None
        via = "/".join(getattr(chain, "via", ()) or ()) if chain is not None else ""
        return "LCD" + (f" via {via}" if via else "")
    if bound == "MEM":
        return "memory issue order"
    return "front end"


def predict_ours(text: str, model, *, simulate: bool = True, kernel=None
                 ) -> dict[str, ToolPrediction]:
    """Our static analysis and (``simulate``) its simulation of a block's text.

    With the bound ``kernel`` the block was compiled from, its cache-line splits come from
    the kernel's accesses (arrays 64-B aligned), as in the ECM pipeline
    (:func:`kerncraft.incore.linesplit.estimate_line_splits`); without, from the
    block's address registers assumed :data:`SPLIT_ALIGNMENT`-aligned (a stencil's
    neighbour row through its own register then never splits)."""
    from kerncraft.incore.analysis import analyze_text

    try:
        result = analyze_text(_marked(text, "OSACA-BEGIN", "OSACA-END"), str(model.arch),
                              model=model,
                              split_alignment=None if kernel is not None else SPLIT_ALIGNMENT)
    except KerncraftError as exc:
        return {tool: ToolPrediction(tool, None, error=str(exc)) for tool in OURS}
    splits = totals = None
    cycles = float(result.prediction)
    if kernel is not None:
        from kerncraft.incore.linesplit import estimate_line_splits, port_cycles_with_splits
        from kerncraft.incore.model import loop_bound

        splits = estimate_line_splits(kernel, result.vector_accesses, result.line_split_costs,
                                      SPLIT_ALIGNMENT)
        totals = port_cycles_with_splits(result.port_totals, splits)
        cycles = loop_bound(max(totals.values(), default=0.0), result.lcd, result.frontend,
                            result.memory_issue)
    found = {"kerncraft": ToolPrediction("kerncraft", cycles, _static_binding(result, totals))}
    if simulate:
        from kerncraft.incore.bottleneck_sim import simulate as run_simulation
        from kerncraft.incore.split_uops import with_split_uops

        sim = run_simulation(with_split_uops(result, splits), model)
        detail = sim.binding.detail.split(" without it:")[0].split(";")[0]
        found["kerncraft-sim"] = ToolPrediction("kerncraft-sim",
                                                round(float(sim.cycles_per_iteration), 4),
                                                f"{sim.binding.resource}: {detail}")
    return found


def _marked(text: str, begin: str, end: str) -> str:
    return f"\t# {begin}\n{text}\t# {end}\n"


@dataclass(frozen=True)
class ExternalTools:
    """The external analyzers found here and their arguments (None: not available)."""

    llvm_mca: str | None = None
    llvm_mca_args: str = ""
    llvm_mca_version: str | None = None
    osaca: str | None = None
    osaca_arch: str = ""
    osaca_version: str | None = None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        # the executables' names, not their paths: recordings carry no path of this host
        name = (lambda path: Path(path).name if path else None)  # noqa: E731
        return {"llvm-mca": {"path": name(self.llvm_mca), "arguments": self.llvm_mca_args,
                             "version": self.llvm_mca_version},
                "osaca": {"path": name(self.osaca), "arch": self.osaca_arch,
                          "version": self.osaca_version},
                "notes": list(self.notes)}


def _first_line(argv: list[str]) -> str | None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [ln.strip() for ln in (done.stdout or done.stderr).splitlines() if ln.strip()]
    return next((ln for ln in lines if re.search(r"\d+\.\d+", ln)), lines[0] if lines else None)


def llvm_mca_cpu(path: str, arguments: str) -> tuple[str, str | None]:
    """(arguments, note): the machine file's llvm-mca arguments, its ``-mcpu`` replaced
    by the newest CPU of the same line this llvm-mca knows (:data:`OLDER_CPU`)."""
    match = re.search(r"-mcpu=(\S+)", arguments)
    if not match:
        return arguments, None
    try:
        done = subprocess.run([path, "-mtriple=x86_64", "-mcpu=help"], capture_output=True,
                              text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return arguments, None
    known = set(re.findall(r"^\s+(\S+)\s+- Select the", done.stdout + done.stderr, re.M))
    wanted = cpu = match.group(1)
    while cpu not in known and cpu in OLDER_CPU:
        cpu = OLDER_CPU[cpu]
    if cpu == wanted or cpu not in known:
        return arguments, None
    return (arguments.replace(f"-mcpu={wanted}", f"-mcpu={cpu}"),
            f"llvm-mca does not know -mcpu={wanted}: used -mcpu={cpu}")


def _newest_llvm_mca() -> str | None:
    """The llvm-mca of the highest LLVM version on PATH (``llvm-mca`` may be an older
    one than ``llvm-mca-16``); None when ``$KERNCRAFT_LLVM_MCA`` chooses, or none is
    found."""
    import os
    import shutil

    if os.environ.get("KERNCRAFT_LLVM_MCA"):
        return None
    versions: dict[str, tuple[int, ...]] = {}
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if re.fullmatch(r"llvm-mca(-\d+)?", name) and name not in versions:
                path = shutil.which(name)
                line = _first_line([path, "--version"]) if path else None
                number = re.search(r"(\d+)\.(\d+)", line or "")
                if number:
                    versions[name] = tuple(int(g) for g in number.groups())
    if not versions:
        return None
    return shutil.which(max(versions, key=lambda name: versions[name]))


def find_external_tools(machine) -> ExternalTools:
    """llvm-mca and OSACA as installed, with the machine file's arguments for them."""
    from kerncraft.errors import ToolError
    from kerncraft.incore.backends import llvm_mca, osaca
    from kerncraft.models.incore_ports import tool_architecture

    found: dict[str, Any] = {}
    notes = []
    for name, module in (("llvm_mca", llvm_mca), ("osaca", osaca)):
        try:
            path = _newest_llvm_mca() if name == "llvm_mca" else None
            path = path or module.find_tool()
            arch = tool_architecture(machine, module.NAME)
        except (ToolError, KerncraftError) as exc:
            notes.append(f"{module.NAME} not used: {exc}")
            continue
        found[name] = path
        found[f"{name}_version"] = _first_line([path, "--version"])
        if name == "llvm_mca":
            arch, note = llvm_mca_cpu(path, arch)
            notes += [note] if note else []
            found["llvm_mca_args"] = arch
        else:
            found["osaca_arch"] = arch
    return ExternalTools(**found, notes=tuple(notes))


def _llvm_mca(text: str, tools: ExternalTools) -> ToolPrediction:
    from kerncraft.incore.backends import llvm_mca
    from kerncraft.incore.backends.tool_run import run_tool

    files = {"kernel.s": _marked(text, llvm_mca.BEGIN, llvm_mca.END)}
    outputs = [run_tool(llvm_mca.command(tools.llvm_mca, tools.llvm_mca_args, n), "llvm-mca",
                        files) for n in (llvm_mca.ITERATIONS, 2 * llvm_mca.ITERATIONS)]
    result = llvm_mca.parse_output(outputs[0], tools.llvm_mca_args, steady_output=outputs[1])
    cycles = float(result.simulated if result.simulated is not None else result.prediction)
    ports = dict(result.port_totals)
    busiest = max(ports.values(), default=0.0)
    if result.lcd is not None:
        binding = "dependency chain (simulation above the resource bound)"
    elif (result.frontend or 0.0) >= busiest:
        binding = "dispatch width"
    else:
        binding = "/".join(p for p, c in ports.items() if c >= busiest - 1e-9)
    return ToolPrediction("llvm-mca", round(cycles, 4), binding)


def _osaca(text: str, tools: ExternalTools) -> ToolPrediction:
    """OSACA as :func:`kerncraft.incore.backends.osaca.analyse` runs it, with a time
    limit: on some blocks its search for loop-carried dependencies runs for minutes (a
    45-line himeno block: more than 4 minutes), longer than all others together."""
    from kerncraft.incore.backends import osaca
    from kerncraft.incore.backends.tool_run import run_tool
    from kerncraft.incore.x86.parser import parse_x86

    lines = parse_x86(text, filename="<block>")
    instructions = [ln.instruction for ln in lines if ln.instruction is not None]
    selection = SimpleNamespace(instructions=instructions, block=SimpleNamespace(label=None))
    command = osaca.command(tools.osaca, tools.osaca_arch, False)
    output = run_tool(command, "osaca", {"kernel.s": osaca.block_text(text, selection)},
                      timeout=OSACA_TIMEOUT)
    result = osaca.parse_output(output, tools.osaca_arch)
    last = instructions[-1].mnemonic if instructions else ""
    if result.unknown_forms and not osaca.only_loop_branch_unknown(result.unknown_forms, last):
        raise KerncraftError(f"{len(result.unknown_forms)} instruction(s) not in OSACA's "
                             f"{tools.osaca_arch} database: " + "; ".join(result.unknown_forms))
    ports = dict(result.port_totals)
    if (result.lcd or 0.0) > result.throughput:
        binding = "LCD"
    else:
        binding = "/".join(p for p, c in ports.items() if c >= result.throughput - 1e-9)
    return ToolPrediction("osaca", round(float(result.prediction), 4), binding)


_MODELS: dict[str, Any] = {}


def predict_block(text: str, machine_path: str, tools: ExternalTools | None,
                  kernel=None) -> dict[str, ToolPrediction]:
    """Every analyzer's prediction of a block's text (ours with the machine file's model
    and, when given, the bound ``kernel`` it was compiled from: :func:`predict_ours`)."""
    from kerncraft.incore.arch import resolve_model

    if machine_path not in _MODELS:
        _MODELS[machine_path] = resolve_model(machine_path)
    found = predict_ours(text, _MODELS[machine_path], kernel=kernel)
    if tools is not None:
        found.update(predict_external(text, tools))
    return found


def predict_external(text: str, tools: ExternalTools) -> dict[str, ToolPrediction]:
    """llvm-mca's and OSACA's predictions of a block (those installed)."""
    found = {}
    for name, available, run in (("llvm-mca", tools.llvm_mca, _llvm_mca),
                                 ("osaca", tools.osaca, _osaca)):
        if not available:
            continue
        try:
            found[name] = run(text, tools)
        except KerncraftError as exc:
            found[name] = ToolPrediction(name, None, error=str(exc).splitlines()[0][:300])
    return found
