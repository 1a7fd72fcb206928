"""From a kernel to its in-core time per cache line of work (the ECMCPU part).

Stages: generate C (run-time constants, so one compilation serves a whole -D
sweep) -> compile (content-hash cache) -> parse assembly -> select the loop
block (iterations per assembly iteration) -> analyse it with the port model
(throughput, critical path, loop-carried dependencies, front end). The
result is memoized per process on everything the assembly can depend on, so
a sweep pays for the compiler and the analysis once.

ECM split: T_nOL is the busiest *non-overlapping* port of the machine file
(the load data ports on Intel); T_OL is the largest of the busiest other port,
the loop-carried dependency and the front-end bound, because all three are
in-core execution limits that overlap with data transfers. Both are scaled
from cycles per assembly iteration to cycles per cache line of work by
``iterations_per_cacheline / iterations_per_asm_iteration``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Mapping

from kerncraft.errors import KerncraftError

# OSACA's architecture codes that map onto one of our port-model databases.
OSACA_TO_DATABASE = {"SKX": "SKX", "CSX": "CSX", "CLX": "CSX", "SPR": "SPR", "GLC": "SPR",
                     "ICX": "SPR", "ZEN": "ZEN", "ZEN1": "ZEN", "ZEN2": "ZEN2", "TX2": "TX2"}
TOOL_KEYS = ("kerncraft", "OSACA")


@dataclass(frozen=True)
class InCorePrediction:
    arch: str
    compiler: str
    flags: str
    selection: Any                 # kerncraft.asm_block.BlockSelection
    analysis: Any                  # kerncraft.incore.model.InCoreResult
    iterations_per_cacheline: float
    non_overlapping_ports: tuple[str, ...]
    t_ol: float                    # cy/CL
    t_nol: float                   # cy/CL
    t_ol_source: str               # which bound sets T_OL

    @property
    def per_cacheline(self) -> float:
        """Factor from cycles per assembly iteration to cycles per cache line."""
        return self.iterations_per_cacheline / self.selection.iterations_per_asm_iteration

    def to_dict(self) -> dict:
        a = self.analysis
        scale = self.per_cacheline
        return {"arch": self.arch, "compiler": self.compiler, "flags": self.flags,
                "iterations_per_asm_iteration": self.selection.iterations_per_asm_iteration,
                "unroll": self.selection.unroll, "simd_width": self.selection.simd_width,
                "pointer_increment": self.selection.pointer_increment,
                "T_OL": self.t_ol, "T_nOL": self.t_nol, "T_OL_source": self.t_ol_source,
                "throughput_cy_per_cl": a.throughput * scale,
                "critical_path_cy_per_cl": a.critical_path * scale,
                "lcd_cy_per_cl": a.lcd * scale,
                "frontend_cy_per_cl": (a.frontend or 0.0) * scale,
                "port_cycles_per_cl": {p: c * scale for p, c in a.port_totals.items()},
                "non_overlapping_ports": list(self.non_overlapping_ports)}


def resolve_database(machine) -> str:
    """Our port-model database for a machine file's ``in-core model`` entry."""
    from kerncraft.incore.database import available_databases

    known = {name.upper(): name for name in available_databases()}
    entries = dict(machine.in_core_model)
    if "kerncraft" in entries:
        name = str(entries["kerncraft"])
        if name.upper() not in known:
            raise KerncraftError(f"machine file names in-core model kerncraft: {name}, but no such "
                                 f"database exists (available: {', '.join(sorted(known))})")
        return known[name.upper()]
    code = str(entries.get("OSACA", "")).upper()
    mapped = OSACA_TO_DATABASE.get(code)
    if mapped and mapped.upper() in known:
        return known[mapped.upper()]
    raise KerncraftError(
        "no port-model database fits this machine (in-core model: "
        + (", ".join(f"{k}: {v}" for k, v in entries.items()) or "none")
        + f"); available databases: {', '.join(sorted(known))}. Add 'kerncraft: NAME' under "
          "'in-core model' in the machine file")


def non_overlapping_ports(machine, ports: tuple[str, ...]) -> tuple[str, ...]:
    """The machine file's non-overlapping ports for our analyzer (checked against the DB)."""
    for tool in TOOL_KEYS:
        named = machine.non_overlapping_ports.get(tool)
        if named:
            missing = [p for p in named if p not in ports]
            if missing:
                raise KerncraftError(f"machine file's non-overlapping ports {', '.join(missing)} "
                                     f"({tool}) do not exist in the port model "
                                     f"(ports: {', '.join(ports)})")
            return tuple(named)
    raise KerncraftError("machine file gives no non-overlapping ports for the in-core model "
                         "(non-overlapping model: ports: kerncraft: [...])")


def predict_incore(kernel, machine, *, compiler: str | None = None, flags: str | None = None,
                   asm_block: str | int = "auto", pointer_increment: str | int = "auto",
                   ignore_unknown: bool = False, iterations_per_cacheline: float) -> InCorePrediction:
    """Compile, find the loop and analyse it; see the module doc."""
    from kerncraft.codegen import generate_c
    from kerncraft.compiler import select_compiler

    arch = resolve_database(machine)
    name, chosen_flags = select_compiler(machine, compiler, flags)
    flag_text = chosen_flags if isinstance(chosen_flags, str) else " ".join(chosen_flags)
    c_source = generate_c(kernel)
    selection, analysis = _analyse_source(c_source, kernel.source, kernel.filename,
                                          _binding_key(kernel), name, flag_text, arch,
                                          asm_block, pointer_increment, ignore_unknown)
    from kerncraft.incore.database import load_database

    nol = non_overlapping_ports(machine, tuple(load_database(arch).ports))
    scale = iterations_per_cacheline / selection.iterations_per_asm_iteration
    t_nol = max((analysis.port_totals.get(p, 0.0) for p in nol), default=0.0) * scale
    bounds = {"port throughput": max((c for p, c in analysis.port_totals.items()
                                      if p not in nol), default=0.0) * scale,
              "loop-carried dependency": analysis.lcd * scale,
              "front end": (analysis.frontend or 0.0) * scale}
    source = max(bounds, key=bounds.get)
    return InCorePrediction(arch, name, flag_text, selection, analysis, iterations_per_cacheline,
                            nol, bounds[source], t_nol, source)


def _binding_key(kernel) -> tuple[tuple[str, int], ...]:
    """The constants that became literals in the C source (strides): only they can
    change the assembly or its interpretation, so only they key the memo."""
    from kerncraft.codegen import constant_values

    return tuple(sorted((k, v) for k, v in constant_values(kernel).items() if v is not None))


@functools.lru_cache(maxsize=64)
def _analyse_source(c_source: str, kernel_source: str, filename: str | None, literals: tuple,
                    compiler: str, flags: str, arch: str, asm_block, pointer_increment,
                    ignore_unknown: bool):
    from kerncraft.asm_block import select_block
    from kerncraft.compiler import compile_to_assembly
    from kerncraft.incore.analysis import analyze
    from kerncraft.incore.database import load_database
    from kerncraft.incore.x86.parser import parse_x86
    from kerncraft.kernel.parser import parse_kernel

    compiled = compile_to_assembly(c_source, compiler, flags)
    lines = parse_x86(compiled.assembly, filename="<generated assembly>")
    kernel = parse_kernel(kernel_source, filename).bind(dict(literals), partial=True)
    selection = select_block(lines, kernel, block=asm_block, pointer_increment=pointer_increment)
    analysis = analyze(selection.instructions, load_database(arch), ignore_unknown=ignore_unknown)
    return selection, analysis


def incore_options(args) -> Mapping[str, Any]:
    """The CLI options that shape the in-core prediction."""
    return {"compiler": getattr(args, "compiler", None),
            "flags": getattr(args, "compiler_flags", None),
            "asm_block": getattr(args, "asm_block", "auto"),
            "pointer_increment": getattr(args, "pointer_increment", "auto"),
            "ignore_unknown": getattr(args, "ignore_unknown", False)}
