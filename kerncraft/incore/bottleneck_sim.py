"""Simulated cycles per iteration, bottleneck variants and the per-instruction waits.

:func:`simulate` runs the cycle-level simulation (:mod:`kerncraft.incore.cycle_sim`)
of an analysed loop body four times, as the SUACA thesis (seed 002, Sect. 2.1)
does:

* **as modelled** -- the result;
* **perfect front end** -- allocation and retirement unlimited (reorder buffer
  and scheduler capacity still apply);
* **infinite ports** -- every uop issues as soon as its operands are ready
  (no port limits, no divider occupancy);
* **no dependencies** -- every dependency edge ignored.

The variant that saves the most cycles names the **binding resource**, and the
saving says by how much (``cycles_saved``, also as a share of the modelled
cycles). When no single variant saves at least 1 % (two resources at their limit
at once, the corner case of the thesis) the result says so and lists the
resources that run at the modelled rate: ports busy every cycle, the front end
at its width, a loop-carried chain as long as an iteration.

JSON (``to_dict``; cycles per assembly iteration): ``cycles_per_iteration``,
``static_prediction``, ``iterations``, ``measured_from``, ``variants``
({perfect_frontend, infinite_ports, no_dependencies}), ``binding``
({resource, detail, cycles_saved, share}), ``uops_per_cycle``, ``port_cycles``,
``allocation_stalls``, ``config`` ({frontend_width, rob_size, scheduler_size}) and
``instructions`` (per instruction ``{index, line, text, wait, dependency, port,
reason, caused}``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kerncraft.incore.depgraph import build_graph
from kerncraft.incore.model import Instruction
from kerncraft.incore.cycle_sim import (InstructionWait, SimConfig, SimProgram, SimRun,
                                        build_program, default_iterations, run_simulation)
from kerncraft.incore.protocols import AnalysedLoop, PortModelLike, traits_of

__all__ = ["Binding", "SimulationResult", "simulate", "format_simulation", "config_for"]

#: A variant must save this share of the modelled cycles to count as binding.
MIN_GAIN = 0.01


@dataclass(frozen=True)
class Binding:
    """The resource that limits the simulated loop."""

    resource: str            # 'front end' | 'ports' | 'dependencies' | 'none'
    detail: str
    cycles_saved: float      # per iteration, by removing that limit
    share: float             # cycles_saved / cycles per iteration


@dataclass(frozen=True)
class SimulationResult:
    """Simulation of one loop body with its bottleneck variants (cy per asm iteration)."""

    arch: str
    instructions: tuple[Instruction, ...]
    config: SimConfig
    run: SimRun
    perfect_frontend: float
    infinite_ports: float
    no_dependencies: float
    static_prediction: float
    binding: Binding

    @property
    def cycles_per_iteration(self) -> float:
        return self.run.cycles_per_iteration

    def summary(self) -> str:
        """One line: simulated and static cycles and the binding resource."""
        b = self.binding
        binding = (f"{b.resource} binds ({b.detail}; {b.cycles_saved:.2f} cy less without it)"
                   if b.resource != "none" else b.detail)
        rows = (f", chains restarting every {self.config.row_length} iterations"
                if self.config.row_length else "")
        return (f"simulation: {self.cycles_per_iteration:.2f} cy per assembly iteration "
                f"(static bound {self.static_prediction:.2f}{rows}); {binding}")

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of the simulation (keys in the module docstring)."""
        return {
            "cycles_per_iteration": self.run.cycles_per_iteration,
            "static_prediction": self.static_prediction,
            "iterations": self.run.iterations, "measured_from": self.run.measured_from,
            "variants": {"perfect_frontend": self.perfect_frontend,
                         "infinite_ports": self.infinite_ports,
                         "no_dependencies": self.no_dependencies},
            "binding": {"resource": self.binding.resource, "detail": self.binding.detail,
                        "cycles_saved": self.binding.cycles_saved,
                        "share": self.binding.share},
            "uops_per_cycle": round(self.run.uops_per_cycle, 4),
            "port_cycles": {p: round(v, 4) for p, v in self.run.port_cycles.items()},
            "allocation_stalls": dict(self.run.frontend_stalls),
            "config": {"frontend_width": self.config.frontend_width,
                       "rob_size": self.config.rob_size,
                       "scheduler_size": self.config.scheduler_size,
                       "row_length": self.config.row_length},
            "instructions": [
                {"index": w.index, "line": self.instructions[w.index].line_number,
                 "text": self.instructions[w.index].text, "wait": round(w.wait, 3),
                 "dependency": round(w.dependency, 3), "port": round(w.port, 3),
                 "reason": _reason(self, w), "caused": round(w.caused, 3)}
                for w in self.run.waits],
        }


def config_for(model: PortModelLike, *, iterations: int | None = None,
               scheduler_size: int | None = None, row_length: int | None = None) -> SimConfig:
    """The simulated core of a port model: its front-end width and reorder buffer; the
    scheduler as given, else the database's ``scheduler_size``, else ``rob_size // 2``;
    ``row_length``: loop-carried chains restart every so many iterations."""
    traits = traits_of(model)
    width, rob = traits.frontend_width, traits.rob_size
    sched = scheduler_size or traits.scheduler_size or \
        (max(8, int(rob) // 2) if rob else None)
    return SimConfig(frontend_width=float(width) if width else None,
                     rob_size=int(rob) if rob else None, scheduler_size=sched,
                     iterations=iterations, row_length=row_length,
                     memory_issue=traits.memory_issue)


def _program(analysis: AnalysedLoop, model: PortModelLike) -> SimProgram:
    graph = analysis.graph
    # the analysis lists the memory accesses when its model has the memory issue rule
    accesses = getattr(analysis, "memory_accesses", ()) or None
    needs_accesses = traits_of(model).memory_issue is not None and accesses is None
    if graph is None or needs_accesses:
        from kerncraft.incore.isa import isa_support
        from kerncraft.incore.memissue import access_sequence
        dataflow = isa_support(model.isa or "x86")[1]
        flows = [dataflow(i) for i in analysis.instructions]
        if needs_accesses:
            accesses = [access_sequence([flow]) for flow in flows]
        if graph is None:
            graph = build_graph(flows, analysis.costs, traits_of(model).store_forward_latency,
                                instructions=analysis.instructions)
    fused = analysis.fused_uops or (1,) * len(analysis.instructions)
    costs = analysis.costs
    splits = analysis.line_splits
    if splits is not None and splits.accesses:
        # split cycles derived from the body's own addresses (kerncraft-incore
        # --alignment) are in the static TP but not in the costs: the same split uops
        # as the ECM pipeline adds (its analyses carry no per-access estimate)
        from kerncraft.incore.split_uops import with_split_uops
        costs = with_split_uops(analysis, splits).costs
    return build_program(graph, costs, fused, model, accesses)


def simulate(analysis: AnalysedLoop, model: PortModelLike, *, iterations: int | None = None,
             scheduler_size: int | None = None, row_length: int | None = None
             ) -> SimulationResult:
    """Simulate an analysed loop body (an :class:`~kerncraft.incore.analysis.InCoreAnalysis`)
    on ``model``'s core, with the three bottleneck variants. ``row_length`` (assembly
    iterations per execution of the loop): the loop-carried chains start anew with every
    row, as when an enclosing loop restarts a reduction (matvec's ``y[i]``)."""
    prog = _program(analysis, model)
    if iterations is None:
        iterations = default_iterations(prog.size, float(analysis.prediction))
        if row_length:      # several rows, so that row ends overlap in the steady state
            iterations = max(iterations, 6 * row_length)
    cfg = config_for(model, iterations=iterations, scheduler_size=scheduler_size,
                     row_length=row_length)
    run = run_simulation(prog, cfg)
    variants = {
        "front end": run_simulation(prog, replace(cfg, frontend_width=None), details=False),
        "ports": run_simulation(prog, replace(cfg, ports_limited=False), details=False),
        "dependencies": run_simulation(prog, replace(cfg, dependencies=False), details=False),
    }
    cycles = {k: v.cycles_per_iteration for k, v in variants.items()}
    binding = _binding(run, cycles, analysis, prog, cfg)
    return SimulationResult(
        arch=str(analysis.arch), instructions=tuple(analysis.instructions),
        config=cfg, run=run, perfect_frontend=cycles["front end"],
        infinite_ports=cycles["ports"], no_dependencies=cycles["dependencies"],
        static_prediction=float(analysis.prediction), binding=binding)


def _binding(run: SimRun, variants: dict[str, float], analysis: AnalysedLoop, prog: SimProgram,
             cfg: SimConfig) -> Binding:
    """The variant with the largest saving, or 'none' with the resources at their limit."""
    base = run.cycles_per_iteration
    resource = max(variants, key=lambda k: (base - variants[k], k == "ports"))
    saved = base - variants[resource]
    if base <= 0 or saved < MIN_GAIN * base:
        limits = _at_limit(run, analysis, prog, cfg)
        detail = ("no single resource: " + "; ".join(limits)) if limits else \
            "no single resource binds"
        return Binding("none", detail, 0.0, 0.0)
    return Binding(resource, _detail(resource, run, analysis, prog, cfg),
                   round(saved, 6), round(saved / base, 6))


def _busiest(run: SimRun) -> tuple[str, float]:
    port = max(run.port_cycles, key=lambda p: run.port_cycles[p], default="")
    return port, run.port_cycles.get(port, 0.0)


def _frontend_bound(prog: SimProgram, cfg: SimConfig) -> float | None:
    return sum(prog.fused) / cfg.frontend_width if cfg.frontend_width else None


def _detail(resource: str, run: SimRun, analysis: AnalysedLoop, prog: SimProgram,
            cfg: SimConfig) -> str:
    if resource == "ports":
        port, busy = _busiest(run)
        issue = getattr(analysis, "memory_issue", None) or 0.0
        if cfg.memory_issue is not None and issue > busy + 1e-9 \
                and run.cycles_per_iteration >= issue - 1e-6:
            return (f"memory issue order: loads and stores picked oldest first need "
                    f"{issue:.2f} cy per iteration (port {port} busy {busy:.2f} cy)")
        return f"port {port} busy {busy:.2f} cy per iteration"
    if resource == "front end":
        bound = _frontend_bound(prog, cfg) or 0.0
        return (f"{sum(prog.fused)} fused uops / width {cfg.frontend_width:g} = "
                f"{bound:.2f} cy per iteration")
    chains = analysis.lcd_chains
    if chains:
        chain = chains[0]
        lines = ", ".join(str(analysis.instructions[i].line_number) for i in chain.instructions)
        return (f"loop-carried chain via {', '.join(chain.via)} (lines {lines}), "
                f"{chain.latency:.2f} cy per iteration")
    worst = max(run.waits, key=lambda w: w.caused, default=None)
    if worst is None:
        return "dependencies"
    return f"line {analysis.instructions[worst.index].line_number} made others wait " \
           f"{worst.caused:.2f} cy per iteration"


def _at_limit(run: SimRun, analysis: AnalysedLoop, prog: SimProgram, cfg: SimConfig
              ) -> list[str]:
    base, out = run.cycles_per_iteration, []
    tol = max(0.02 * base, 0.01)
    for port, busy in run.port_cycles.items():
        if busy >= base - tol:
            out.append(f"port {port} busy {busy:.2f} cy")
    fe = _frontend_bound(prog, cfg)
    if fe is not None and fe >= base - tol:
        out.append(f"front end {fe:.2f} cy")
    lcd = float(analysis.lcd or 0.0)
    if lcd >= base - tol:
        out.append(f"loop-carried dependency {lcd:.2f} cy")
    return out


def _reason(result: SimulationResult, w: InstructionWait) -> str:
    """Main reason an instruction waited: its last operand, or a busy port."""
    if w.wait < 0.005:
        return ""
    if w.dependency >= w.port and w.waited_on is not None:
        if w.waited_on == -1:
            return "its own load"
        src = result.instructions[w.waited_on]
        return f"operand from line {src.line_number} ({src.mnemonic})"
    if w.port_blamed is not None:
        return f"port {w.port_blamed}"
    return "dependency" if w.dependency >= w.port else "port"


def format_simulation(result: SimulationResult, width: int = 100) -> str:
    """The text report: cycles, variants, binding resource, per-instruction waits."""
    run, b = result.run, result.binding
    lines = [
        f"simulation ({result.arch}, {run.iterations} iterations, steady state measured "
        f"from iteration {run.measured_from}): {run.cycles_per_iteration:.2f} cy per "
        f"iteration (static bound {result.static_prediction:.2f}"
        + (f", chains restarting every {result.config.row_length} iterations"
           if result.config.row_length else "") + ")",
        f"  perfect front end {result.perfect_frontend:.2f} cy, infinite ports "
        f"{result.infinite_ports:.2f} cy, no dependencies {result.no_dependencies:.2f} cy",
    ]
    if b.resource == "none":
        lines.append(f"  binding: {b.detail}")
    else:
        lines.append(f"  binding: {b.resource}, {b.cycles_saved:.2f} cy per iteration "
                     f"({100 * b.share:.0f} %) without it: {b.detail}")
    stalls = ", ".join(f"{k} full {v} cy" for k, v in run.frontend_stalls.items() if v)
    lines.append(f"  uops per cycle {run.uops_per_cycle:.2f}"
                 + (f"; allocation stalls: {stalls}" if stalls else ""))
    # the unit in every header: cycles per iteration, averaged over the measured ones
    lines.append(f" line {'wait cy':>7} {'dep cy':>7} {'port cy':>7} {'caused cy':>9}  "
                 f"{'main reason':30s} instruction")
    for w in run.waits:
        ins = result.instructions[w.index]
        row = f"{ins.line_number:5d} {w.wait:7.1f} {w.dependency:7.1f} {w.port:7.1f} " \
              f"{w.caused:9.1f}  {_reason(result, w)[:30]:30s} {ins.text or ins.form_key}"
        lines.append(row[:width])
    return "\n".join(lines) + "\n"
