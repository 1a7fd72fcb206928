"""In-core analysis of one assembly loop body: TP, CP, LCD and port pressure.

``analyze`` combines the three static bounds of the port model:

* TP  -- optimal port balancing of all uops (:mod:`kerncraft.incore.throughput`),
* CP  -- longest dependency path through one iteration,
* LCD -- longest loop-carried dependency, as a maximum cycle ratio
  (:mod:`kerncraft.incore.depgraph`; through registers, flags and -- when the
  model has ``store_forward_latency`` -- memory: stores read back by a later
  load in the same or a later iteration, addresses tracked symbolically within
  a window of ``rob_size`` instructions; each such dependency is listed in the
  notes with its iteration distance),

and predicts ``max(TP, LCD[, frontend])`` cycles per assembly iteration (the CP
is an upper bound for a single iteration, not a steady-state limit).

The front-end bound (reported beside TP and LCD, and part of the prediction)
is deliberately simple: it is only computed when the port model declares
``frontend_width`` (uops issued per cycle) and counts *fused-domain* uops per
instruction as the uops that are neither pure load / store-address uops nor
divider-pipe occupancy (those are
micro-fused with or part of another uop), at least one per instruction, with a
flag-setting ``cmp/test/add/sub/and/inc/dec`` and a directly following
conditional jump counted as one (macro fusion).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from kerncraft.errors import AssemblyError, SourceLocation, UnknownInstructionError
from kerncraft.incore.depgraph import (CriticalPath, DepEdge, DepGraph, build_graph,
                                       critical_path, edge_contributions, loop_carried)
from kerncraft.incore.model import DataFlow, DependencyChain, InCoreResult, Instruction, \
    InstructionCost
from kerncraft.incore.throughput import PortBalance, balance_ports, fixed_split

__all__ = ["InCoreAnalysis", "analyze", "analyze_text", "fused_uops"]

DataflowFn = Callable[[Instruction], DataFlow]

_MACRO_FUSIBLE = re.compile(r"^(cmp|test|add|sub|and|inc|dec)[bwlq]?$")
_COND_JUMP = re.compile(r"^j(?!mp)[a-z]+$")


@dataclass(frozen=True)
class InCoreAnalysis(InCoreResult):
    """:class:`InCoreResult` plus the details a report or graph export needs.

    ``cp_latencies[i]`` / ``lcd_latencies[i]``: cycles instruction ``i``
    contributes to the critical path / to the longest loop-carried chain (per
    iteration, so the column sums equal CP and LCD).
    """

    cp_latencies: tuple[float, ...] = ()
    lcd_latencies: tuple[float, ...] = ()
    ports: tuple[str, ...] = ()
    bottleneck_ports: tuple[str, ...] = ()
    balancing: str = "optimal"
    fused_uops: tuple[int, ...] = ()
    # packed vector loads/stores by width and the model's cost of a line split
    # (kerncraft.incore.linesplit; applied per -D point by the ECM pipeline)
    vector_accesses: tuple = ()
    line_split_costs: tuple = ()
    # line splits derived from the body's own addresses (kerncraft-incore --alignment);
    # their cycles are in port_totals and throughput (kerncraft.incore.linesplit)
    line_splits: Any = None
    rob_size: int | None = None        # reorder-buffer entries of the port model
    code_block_bytes: int | None = None   # front-end fetch block (codeblocks.py)
    loop_layout: Any = None               # codeblocks.LoopLayout, set by the ECM pipeline
    graph: DepGraph | None = field(default=None, compare=False, repr=False)
    cp_edges: tuple[DepEdge, ...] = field(default=(), compare=False, repr=False)
    lcd_edges: tuple[tuple[DepEdge, ...], ...] = field(default=(), compare=False, repr=False)


def _arch_name(model: Any) -> str:
    for attr in ("arch", "name", "model_name"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return "unknown"


def _unknown_error(instructions: Sequence[Instruction], costs: Sequence[InstructionCost | None],
                   arch: str) -> UnknownInstructionError:
    missing = [ins for ins, cost in zip(instructions, costs) if cost is None]
    listed = "; ".join(f"line {ins.line_number}: {ins.form_key!r}" for ins in missing)
    return UnknownInstructionError(
        f"{len(missing)} instruction form(s) not in the {arch} database: {listed} "
        f"(use --ignore-unknown to count them as zero)",
        SourceLocation(line=missing[0].line_number))


def fused_uops(instructions: Sequence[Instruction], costs: Sequence[InstructionCost | None],
               model: Any) -> tuple[int, ...]:
    """Fused-domain uops per instruction (approximation, see module docstring)."""
    hidden = set()
    for attr in ("load_ports", "load_data_ports", "store_address_ports",
                 "simple_store_address_ports", "divider_ports"):
        hidden |= set(getattr(model, attr, ()) or ())
    counts: list[int] = []
    for k, (ins, cost) in enumerate(zip(instructions, costs)):
        if (k > 0 and _COND_JUMP.match(ins.mnemonic)
                and _MACRO_FUSIBLE.match(instructions[k - 1].mnemonic)):
            counts.append(0)
            continue
        uops = cost.uops if cost is not None else ()
        issued = [u for u in uops if not (u.ports and set(u.ports) <= hidden)]
        counts.append(max(1, len(issued)))
    return tuple(counts)


def _memory_notes(graph: DepGraph, instructions: Sequence[Instruction]) -> list[str]:
    """One note per store -> load dependency through memory (distance in iterations)."""
    notes = []
    for dep in graph.memory:
        store, load = instructions[dep.store], instructions[dep.load]
        when = ("same iteration" if dep.distance == 0 else
                f"{dep.distance} iteration{'s' if dep.distance > 1 else ''} later")
        kind = "forwarded" if dep.forwarded else "partial overlap, forwarding not modelled"
        notes.append(f"memory dependency: store line {store.line_number} -> load line "
                     f"{load.line_number} ({dep.key[4:]}, {when}, {kind}, {dep.latency:g} cy)")
    return notes


def _per_chain_share(chain: DependencyChain, edges: Sequence[DepEdge], size: int
                     ) -> tuple[float, ...]:
    """Per-instruction cycles of a chain, scaled to one iteration."""
    crossings = sum(e.distance for e in edges) or 1
    contrib = edge_contributions(edges)
    return tuple(contrib.get(i, 0.0) / crossings for i in range(size))


def _address_splits(instructions: Sequence[Instruction], flows: Sequence[DataFlow], model: Any,
                    balance: PortBalance, alignment: int | None, isa: str,
                    register_values: Mapping[str, int] | None = None
                    ) -> tuple[Any, dict[str, float], float, tuple[str, ...]]:
    """(line-split estimate, port totals, throughput, bottleneck ports): the balance's
    own, plus the split cycles of the body's addresses when an ``alignment`` is given
    (x86; added after balancing, as the ECM pipeline adds its kernel-derived ones)."""
    unchanged = (None, balance.port_totals, balance.throughput, balance.bottleneck_ports)
    if alignment is None or isa.lower().startswith(("aarch64", "arm")):
        return unchanged
    from kerncraft.incore.addresssplit import address_line_splits
    from kerncraft.incore.linesplit import port_cycles_with_splits
    splits = address_line_splits(instructions, flows, getattr(model, "line_split", ()) or (),
                                 alignment, register_values=register_values)
    if splits is None or not splits.per_port:
        return (splits,) + unchanged[1:]
    totals = port_cycles_with_splits(balance.port_totals, splits)
    throughput = max([balance.throughput, *totals.values()])
    bottleneck = tuple(p for p in balance.ports
                       if throughput > 0 and totals.get(p, 0.0) >= throughput - 1e-9)
    return splits, totals, throughput, bottleneck


def analyze(instructions: Sequence[Instruction], model: Any, *, fixed: bool = False,
            ignore_unknown: bool = False, dataflow: DataflowFn | None = None,
            split_alignment: int | None = None,
            register_values: Mapping[str, int] | None = None,
            register_addresses: Mapping[str, int] | None = None) -> InCoreAnalysis:
    """Analyse a loop body (one assembly iteration) against a port model.

    ``model`` needs ``lookup(instr) -> InstructionCost | None`` and ``ports``;
    ``frontend_width`` and the load/store/divider port lists are optional.
    ``dataflow`` maps an instruction to its :class:`DataFlow` (default: the x86
    semantics, or AArch64 when ``model.isa`` says so).
    Raises :class:`UnknownInstructionError` for forms missing in the database
    unless ``ignore_unknown`` (then they count as zero uops and zero latency).
    ``split_alignment`` (bytes, 0 = unknown) adds the cache-line splits of the body's
    vector accesses under that alignment of their address registers
    (:func:`kerncraft.incore.addresssplit.address_line_splits`); None (default, and the ECM
    pipeline, which derives them from the kernel) adds none. ``register_values`` gives
    the entry value modulo 64 of registers whose placement is known (``{"rsi": 8}``);
    they override ``split_alignment`` for those registers. ``register_addresses`` are
    full entry values (addresses): they also count for the splits, and loads that overlap
    an earlier store through other registers in the low 12 bits get a 4K-aliasing note.
    """
    if register_addresses:
        register_values = {**(register_values or {}), **register_addresses}
    instructions = tuple(instructions)
    arch = _arch_name(model)
    costs = tuple(model.lookup(ins) for ins in instructions)
    unknown = tuple(dict.fromkeys(ins.form_key for ins, c in zip(instructions, costs) if c is None))
    if unknown and not ignore_unknown:
        raise _unknown_error(instructions, costs, arch)
    if dataflow is None:
        dataflow = _isa_modules(getattr(model, "isa", None) or "x86")[1]
    flows = [dataflow(ins) for ins in instructions]
    uops = [c.uops if c is not None else () for c in costs]
    ports = tuple(getattr(model, "ports", ()) or ())
    balance: PortBalance = fixed_split(uops, ports) if fixed else balance_ports(uops, ports)

    isa = getattr(model, "isa", None) or "x86"
    graph = build_graph(flows, costs, getattr(model, "store_forward_latency", None),
                        instructions=instructions, window=getattr(model, "rob_size", None),
                        isa=isa)
    cp: CriticalPath = critical_path(graph)
    lcd, chains, chain_edges = loop_carried(graph)
    size = len(instructions)
    lcd_share = _per_chain_share(chains[0], chain_edges[0], size) if chains else (0.0,) * size

    notes: list[str] = []
    if unknown:
        notes.append(f"{len(unknown)} unknown instruction form(s) counted as zero: "
                     + ", ".join(unknown))
    notes += _memory_notes(graph, instructions)
    fused = fused_uops(instructions, costs, model)
    width = getattr(model, "frontend_width", None)
    frontend = sum(fused) / width if width else None
    if fixed:
        notes.append("port pressure uses a fixed equal split of every uop over its ports")
    vector_accesses = ()
    if not isa.lower().startswith(("aarch64", "arm")):
        from kerncraft.incore.linesplit import vector_access_profile
        vector_accesses = vector_access_profile(instructions)
    splits, port_totals, throughput, bottleneck = _address_splits(
        instructions, flows, model, balance, split_alignment, isa, register_values)
    if register_addresses and not isa.lower().startswith(("aarch64", "arm")):
        from kerncraft.incore.addresssplit import four_k_aliases
        notes += four_k_aliases(instructions, flows, register_addresses)
    return InCoreAnalysis(
        arch=arch, instructions=instructions, costs=costs,
        port_pressure=balance.per_instruction, port_totals=port_totals,
        throughput=throughput, critical_path=cp.length,
        critical_path_instructions=cp.instructions, lcd=lcd, lcd_chains=chains,
        unknown_forms=unknown, frontend=frontend, notes=tuple(notes),
        cp_latencies=tuple(cp.contributions.get(i, 0.0) for i in range(size)),
        lcd_latencies=lcd_share, ports=balance.ports, bottleneck_ports=bottleneck,
        balancing=balance.method, fused_uops=fused, vector_accesses=vector_accesses,
        line_split_costs=tuple(getattr(model, "line_split", ()) or ()), line_splits=splits,
        rob_size=getattr(model, "rob_size", None),
        code_block_bytes=getattr(model, "code_block_bytes", None),
        graph=graph, cp_edges=cp.edges,
        lcd_edges=chain_edges)


def _isa_modules(isa: str) -> tuple[Callable[..., Any], DataflowFn]:
    """(parser, dataflow) of an ISA; imported lazily, other stages own them."""
    isa = isa.lower()
    try:
        if isa.startswith("aarch64") or isa.startswith("arm"):
            from kerncraft.incore.aarch64 import parser as a64_parser  # type: ignore
            from kerncraft.incore.aarch64 import semantics as a64_sem  # type: ignore
            return a64_parser.parse_aarch64, a64_sem.dataflow
        from kerncraft.incore.x86.parser import parse_x86
        from kerncraft.incore.x86.semantics import dataflow as x86_dataflow
        return parse_x86, x86_dataflow
    except ImportError as exc:
        raise AssemblyError(f"no assembly support for ISA {isa!r} ({exc})") from None


def load_model(arch: str) -> Any:
    """Port model of a database name (SKX, CSX, SPR, TX2, ...); an AArch64
    database comes wrapped with its ISA's composition rules (and ``isa``)."""
    from kerncraft.incore.aarch64.portmodel import adapt_model
    from kerncraft.incore.database import load_database
    return adapt_model(load_database(arch))


def analyze_text(asm_text: str, arch: str, *, filename: str | None = None,
                 model: Any = None, **kw: Any) -> InCoreAnalysis:
    """Parse assembly text, extract the marked (or innermost) loop, analyse it.

    ``arch`` names a port-model database; ``model`` may pass one directly.
    Other keywords go to :func:`analyze`.
    """
    from kerncraft.incore.markers import extract_kernel
    if model is None:
        model = load_model(arch)
    parse, dataflow = _isa_modules(getattr(model, "isa", None) or "x86")
    lines = parse(asm_text, filename=filename)
    kernel = extract_kernel(lines, filename, dataflow)
    if not kernel:
        raise AssemblyError("the selected loop body contains no instructions",
                            SourceLocation(file=filename))
    kw.setdefault("dataflow", dataflow)
    try:
        return analyze(kernel, model, **kw)
    except UnknownInstructionError as exc:
        line = exc.location.line if exc.location else None
        raise UnknownInstructionError(exc.message, SourceLocation(filename, line)) from None
