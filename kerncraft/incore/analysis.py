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
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from kerncraft.errors import AssemblyError, SourceLocation, UnknownInstructionError
from kerncraft.incore.depgraph import (CriticalPath, DepEdge, DepGraph, build_graph,
                                       critical_path, edge_contributions, loop_carried)
from kerncraft.incore.isa import isa_support
from kerncraft.incore.model import DataFlow, DependencyChain, InCoreResult, Instruction, \
    InstructionCost
from kerncraft.incore.protocols import PortModelLike, PortModelTraits, traits_of
from kerncraft.incore.throughput import PortBalance, balance_ports, fixed_split

if TYPE_CHECKING:
    from kerncraft.incore.aarch64.portmodel import AArch64PortModel
    from kerncraft.incore.codeblocks import LoopLayout
    from kerncraft.incore.database import PortModel
    from kerncraft.incore.linesplit import LineSplitEstimate, SplitCost

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
    line_split_costs: tuple[SplitCost, ...] = ()
    # line splits derived from the body's own addresses (kerncraft-incore --alignment);
    # their cycles are in port_totals and throughput (kerncraft.incore.linesplit)
    line_splits: LineSplitEstimate | None = None
    # per instruction its memory reads and writes as 'L'/'S' (incore/memissue.py), for
    # the simulation's memory issue rule
    memory_accesses: tuple[str, ...] = ()
    rob_size: int | None = None        # reorder-buffer entries of the port model
    code_block_bytes: int | None = None   # front-end fetch block (codeblocks.py)
    loop_layout: LoopLayout | None = None   # set by the ECM pipeline
    graph: DepGraph | None = field(default=None, compare=False, repr=False)
    cp_edges: tuple[DepEdge, ...] = field(default=(), compare=False, repr=False)
    lcd_edges: tuple[tuple[DepEdge, ...], ...] = field(default=(), compare=False, repr=False)


def _unknown_error(instructions: Sequence[Instruction], costs: Sequence[InstructionCost | None],
                   arch: str) -> UnknownInstructionError:
    missing = [ins for ins, cost in zip(instructions, costs) if cost is None]
    listed = "; ".join(f"line {ins.line_number}: {ins.form_key!r}" for ins in missing)
    return UnknownInstructionError(
        f"{len(missing)} instruction form(s) not in the {arch} database: {listed} "
        f"(use --ignore-unknown to count them as zero)",
        SourceLocation(line=missing[0].line_number))


def fused_uops(instructions: Sequence[Instruction], costs: Sequence[InstructionCost | None],
               model: PortModelLike) -> tuple[int, ...]:
    """Fused-domain uops per instruction (approximation, see module docstring)."""
    return _fused_uops(instructions, costs, traits_of(model))


def _fused_uops(instructions: Sequence[Instruction], costs: Sequence[InstructionCost | None],
                traits: PortModelTraits) -> tuple[int, ...]:
    hidden = {*traits.load_ports, *traits.load_data_ports, *traits.store_address_ports,
              *traits.simple_store_address_ports, *traits.divider_ports}
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


def _address_splits(instructions: Sequence[Instruction], flows: Sequence[DataFlow],
                    split_costs: Sequence[SplitCost], balance: PortBalance,
                    alignment: int | None, isa: str,
                    register_values: Mapping[str, int] | None = None
                    ) -> tuple[LineSplitEstimate | None, Mapping[str, float], float,
                               tuple[str, ...]]:
    """(line-split estimate, port totals, throughput, bottleneck ports): the balance's
    own, plus the split cycles (``split_costs``: the port model's) of the body's
    addresses when an ``alignment`` is given (x86; added after balancing, as the ECM
    pipeline adds its kernel-derived ones)."""
    unchanged = (None, balance.port_totals, balance.throughput, balance.bottleneck_ports)
    if alignment is None or isa.lower().startswith(("aarch64", "arm")):
        return unchanged
    from kerncraft.incore.addresssplit import address_line_splits
    from kerncraft.incore.linesplit import port_cycles_with_splits
    splits = address_line_splits(instructions, flows, split_costs,
                                 alignment, register_values=register_values)
    if splits is None or not splits.per_port:
        return (splits,) + unchanged[1:]
    totals = port_cycles_with_splits(balance.port_totals, splits)
    throughput = max([balance.throughput, *totals.values()])
    bottleneck = tuple(p for p in balance.ports
                       if throughput > 0 and totals.get(p, 0.0) >= throughput - 1e-9)
    return splits, totals, throughput, bottleneck


def analyze(instructions: Sequence[Instruction], model: PortModelLike, *, fixed: bool = False,
            ignore_unknown: bool = False, dataflow: DataflowFn | None = None,
            split_alignment: int | None = None,
            register_values: Mapping[str, int] | None = None,
            register_addresses: Mapping[str, int] | None = None) -> InCoreAnalysis:
    """Analyse a loop body (one assembly iteration) against a port model.

    ``model`` needs ``arch``, ``isa``, ``ports`` and ``lookup(instr) -> InstructionCost |
    None``; ``frontend_width``, the load/store/divider port lists and the other
    :class:`~kerncraft.incore.protocols.PortModelTraits` are optional.
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
    arch = model.arch or "unknown"
    traits = traits_of(model)
    costs = tuple(model.lookup(ins) for ins in instructions)
    unknown = tuple(dict.fromkeys(ins.form_key for ins, c in zip(instructions, costs) if c is None))
    if unknown and not ignore_unknown:
        raise _unknown_error(instructions, costs, arch)
    isa = model.isa or "x86"
    if dataflow is None:
        dataflow = isa_support(isa)[1]
    flows = [dataflow(ins) for ins in instructions]
    uops = [c.uops if c is not None else () for c in costs]
    ports = tuple(model.ports)
    balance: PortBalance = fixed_split(uops, ports) if fixed else balance_ports(uops, ports)

    graph = build_graph(flows, costs, traits.store_forward_latency,
                        instructions=instructions, window=traits.rob_size, isa=isa)
    cp: CriticalPath = critical_path(graph)
    lcd, chains, chain_edges = loop_carried(graph)
    size = len(instructions)
    lcd_share = _per_chain_share(chains[0], chain_edges[0], size) if chains else (0.0,) * size

    notes: list[str] = []
    if unknown:
        notes.append(f"{len(unknown)} unknown instruction form(s) counted as zero: "
                     + ", ".join(unknown))
    notes += _memory_notes(graph, instructions)
    fused = _fused_uops(instructions, costs, traits)
    width = traits.frontend_width
    frontend = sum(fused) / width if width else None
    if fixed:
        notes.append("port pressure uses a fixed equal split of every uop over its ports")
    vector_accesses = ()
    if not isa.lower().startswith(("aarch64", "arm")):
        from kerncraft.incore.linesplit import vector_access_profile
        vector_accesses = vector_access_profile(instructions)
    splits, port_totals, throughput, bottleneck = _address_splits(
        instructions, flows, traits.line_split, balance, split_alignment, isa, register_values)
    if register_addresses and not isa.lower().startswith(("aarch64", "arm")):
        from kerncraft.incore.addresssplit import four_k_aliases
        notes += four_k_aliases(instructions, flows, register_addresses)
    memory_issue, accesses = None, ()
    if traits.memory_issue is not None:
        from kerncraft.incore.memissue import access_sequence, issue_bound
        accesses = tuple(access_sequence([flow]) for flow in flows)
        memory_issue = issue_bound("".join(accesses), traits.memory_issue)
    return InCoreAnalysis(
        arch=arch, instructions=instructions, costs=costs,
        port_pressure=balance.per_instruction, port_totals=port_totals,
        throughput=throughput, critical_path=cp.length,
        critical_path_instructions=cp.instructions, lcd=lcd, lcd_chains=chains,
        unknown_forms=unknown, frontend=frontend, notes=tuple(notes), memory_issue=memory_issue,
        cp_latencies=tuple(cp.contributions.get(i, 0.0) for i in range(size)),
        lcd_latencies=lcd_share, ports=balance.ports, bottleneck_ports=bottleneck,
        balancing=balance.method, fused_uops=fused, vector_accesses=vector_accesses,
        line_split_costs=traits.line_split, line_splits=splits, memory_accesses=accesses,
        rob_size=traits.rob_size, code_block_bytes=traits.code_block_bytes,
        graph=graph, cp_edges=cp.edges,
        lcd_edges=chain_edges)


def load_model(arch: str) -> PortModel | AArch64PortModel:
    """Port model of a database name (SKX, CSX, SPR, TX2, ...); an AArch64
    database comes wrapped with its ISA's composition rules (and ``isa``)."""
    from kerncraft.incore.aarch64.portmodel import adapt_model
    from kerncraft.incore.database import load_database
    return adapt_model(load_database(arch))


def analyze_text(asm_text: str, arch: str, *, filename: str | None = None,
                 model: PortModelLike | None = None, syntax: str = "auto",
                 **kw: Any) -> InCoreAnalysis:
    """Parse assembly text, extract the marked (or innermost) loop, analyse it.

    ``arch`` names a port-model database; ``model`` may pass one directly.
    ``syntax`` ('auto', 'att', 'intel') selects the x86 assembly syntax.
    Other keywords go to :func:`analyze`.
    """
    from kerncraft.incore.markers import extract_kernel
    if model is None:
        model = load_model(arch)
    isa = model.isa or "x86"
    parse, dataflow = isa_support(isa)
    if syntax == "auto":
        lines = parse(asm_text, filename=filename)
    elif isa.lower().startswith(("aarch64", "arm")):
        raise AssemblyError(f"assembly syntax {syntax!r} applies to x86; {arch} is AArch64")
    else:
        lines = parse(asm_text, filename=filename, syntax=syntax)
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
