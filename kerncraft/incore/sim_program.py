"""The loop body prepared for the cycle-level simulation (:mod:`kerncraft.incore.cycle_sim`).

One :class:`SimNode` per node of the static dependency graph
(:func:`kerncraft.incore.depgraph.build_graph`), with the uops it needs ports for, its
producers (weight and iteration distance) and the cycles until its result is complete:
a load's AGU and data uops belong to the instruction's load node, every other uop to its
op node -- except for a load with a separate address result (``ldr d0, [x1], #8``,
``pop``), whose other uop (the writeback) belongs to the address node, so the pointer
does not wait for the data. Load and store nodes are marked for the memory issue rule
(:mod:`kerncraft.incore.memissue`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from kerncraft.incore.depgraph import DepGraph
from kerncraft.incore.memissue import LOAD, STORE
from kerncraft.incore.model import InstructionCost
from kerncraft.incore.protocols import PortModelLike, traits_of

__all__ = ["SimNode", "SimProgram", "build_program", "default_iterations"]


@dataclass(frozen=True)
class SimNode:
    """One dependency-graph node of the body with its uops and producers."""

    instruction: int
    kind: str
    uops: tuple[tuple[tuple[str, ...], float], ...]   # (ports in database order, cycles)
    producers: tuple[tuple[int, float, int], ...]     # (node index, weight, distance)
    latency: float                                    # completion after issue
    memory: str = ""                                  # 'L' load, 'S' store, '' neither


@dataclass(frozen=True)
class SimProgram:
    """The loop body prepared for simulation."""

    size: int                                   # instructions
    nodes: tuple[SimNode, ...]
    nodes_of: tuple[tuple[int, ...], ...]       # per instruction: its node indices
    fused: tuple[int, ...]                      # fused-domain uops per instruction
    unfused: tuple[int, ...]                    # scheduler entries per instruction
    ports: tuple[str, ...]


def default_iterations(size: int, expected_cycles: float | None = None) -> int:
    """Iterations to simulate: ~4000 dynamic instructions, 20 to 400 iterations; with
    the expected cycles per iteration (the static bound) at most ~12,000 cycles, but
    not fewer than 8 iterations (long iterations reach the steady state at once: the
    reorder buffer holds less than one)."""
    count = max(20, min(400, math.ceil(4000 / max(1, size))))
    if expected_cycles and expected_cycles > 0:
        count = min(count, max(8, math.ceil(12000 / expected_cycles)))
    return count


def _split_uops(cost: InstructionCost | None, has_load_node: bool, load_side: frozenset[str],
                order: Mapping[str, int]) -> tuple[list, list]:
    """(load-node uops, op-node uops) of one instruction."""
    load, op = [], []
    for u in (cost.uops if cost is not None else ()):
        if not u.ports:
            continue                                  # eliminated: no port needed
        ports = tuple(sorted(u.ports, key=lambda p: order.get(p, len(order))))
        target = load if has_load_node and set(u.ports) <= load_side else op
        target.append((ports, float(u.cycles)))
    return load, op


def _node_uops(kind: str, split: tuple[list, list], load_and_address: bool) -> list:
    """A node's uops: loads' on the load node, the rest on the op node -- or, for a
    load with a separate address result (``ldr d0, [x1], #8``, ``pop``), on the
    address node (the writeback uop), so the pointer does not wait for the data."""
    if kind == "load":
        return split[0]
    if kind == "addr":
        return split[1] if load_and_address else []
    return [] if load_and_address else split[1]


def _memory_role(kind: str, accesses: str) -> str:
    """The memory operation a node stands for: an instruction's load node its read, its
    op node its write (``accesses``: the instruction's ``L``/``S`` string)."""
    if kind == "load" and LOAD in accesses:
        return LOAD
    return STORE if kind == "op" and STORE in accesses else ""


def build_program(graph: DepGraph, costs: Sequence[InstructionCost | None],
                  fused: Sequence[int], model: PortModelLike,
                  accesses: Sequence[str] | None = None) -> SimProgram:
    """Nodes, uops and producers of the body from the static dependency graph;
    ``accesses`` (per instruction its memory reads and writes as ``L``/``S``, see
    :func:`kerncraft.incore.memissue.access_sequence`) mark the load and store nodes
    for the memory issue rule."""
    ports = tuple(model.ports)
    order = {p: k for k, p in enumerate(ports)}
    traits = traits_of(model)
    load_side = frozenset(traits.load_ports) | frozenset(traits.load_data_ports)
    index = {node: k for k, node in enumerate(graph.nodes)}
    producers: dict[int, list[tuple[int, float, int]]] = {k: [] for k in range(len(index))}
    for e in graph.edges:
        producers[index[e.dst]].append((index[e.src], float(e.weight), int(e.distance)))
    has_load = {n[0] for n in graph.nodes if n[1] == "load"}
    split = [_split_uops(costs[i], i in has_load, load_side, order) for i in range(graph.size)]
    nodes, nodes_of = [], [[] for _ in range(graph.size)]
    for node in graph.nodes:
        i, kind = node
        cost = costs[i]
        uops = _node_uops(kind, split[i], (i, "addr") in index and i in has_load)
        if kind == "load":
            latency = float(cost.load_latency) if cost is not None else 0.0
        else:
            latency = float(graph.completion.get(node, 0.0))
        nodes_of[i].append(len(nodes))
        role = _memory_role(kind, accesses[i]) if accesses else ""
        nodes.append(SimNode(i, kind, tuple(uops), tuple(producers[index[node]]), latency,
                             role))
    unfused = tuple(len(split[i][0]) + len(split[i][1]) for i in range(graph.size))
    return SimProgram(graph.size, tuple(nodes), tuple(tuple(n) for n in nodes_of),
                      tuple(int(f) for f in fused), unfused, ports)
