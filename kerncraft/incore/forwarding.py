"""Consumer-dependent latencies in the dependency graph (:mod:`kerncraft.incore.depgraph`).

A database entry may name a forwarding group (``bypass``) and a latency to consumers
outside it (``lat_other``): on Zen 5 a FADD result reaches another FADD after 2 cy but
an FMUL, FMA, shuffle, GPR move or store after 3 cy (measured,
``benchmarks/incore_microbench/zen5_forwarding.py``). A register move eliminated at
rename executes nothing and adds no latency, so it passes its producer on: the
consumers behind it see the producer's latency *to them* (FADD -> vmovapd -> FADD
2 cy, -> FMUL 3 cy, measured the same way).
"""
from __future__ import annotations

from typing import Mapping, Sequence

from kerncraft.incore.model import InstructionCost

__all__ = ["is_eliminated", "edge_latency", "passed_on"]

Node = tuple[int, str]


def is_eliminated(cost: InstructionCost | None) -> bool:
    """A register move the renamer eliminates: no execution port, no latency."""
    return cost is not None and cost.latency == 0 and not cost.has_load \
        and not cost.has_store and not any(u.ports for u in cost.uops)


def edge_latency(costs: Sequence[InstructionCost | None], src: Node, dst: Node,
                 weight: float) -> float:
    """The latency on the edge ``src -> dst``: ``weight`` (the producer's latency)
    unless the producer has a forwarding group and the consumer is outside it."""
    cost = costs[src[0]]
    if src[1] != "op" or cost is None or cost.latency_other is None \
            or (dst[1] == "op" and is_eliminated(costs[dst[0]])):
        return weight
    return cost.latency_to(costs[dst[0]], reads_address=dst[1] != "op")


def passed_on(costs: Sequence[InstructionCost | None], i: int, data_keys: frozenset[str],
              last_writer: Mapping[str, tuple[Node, float]]) -> tuple[Node, float] | None:
    """The writer an eliminated move ``i`` hands on to the readers of its destination
    (the producer of its source, if that producer has a forwarding group), else None."""
    if len(data_keys) != 1 or not is_eliminated(costs[i]):
        return None
    source = last_writer.get(next(iter(data_keys)))
    if source is None or source[0][1] != "op":
        return None
    producer = costs[source[0][0]]
    return source if producer is not None and producer.latency_other is not None else None
