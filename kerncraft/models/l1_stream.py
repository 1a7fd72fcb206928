"""The measured register<->L1 streaming limit (machine-file option ``streaming limit``).

The published ECM model charges register<->L1 transfers with the load/store
ports of the in-core model (T_nOL). On the hosts measured here the loops a
compiler emits for streaming kernels do not reach that: on a Zen 5 core a
rolled ``a[i] = a[i] + s*b[i]`` loop with 512-bit vectors takes 1.45-1.8 cycles
per vector iteration where two loads and one store per cycle allow 1.0
(benchmarks/incore_microbench/RESULTS-zen5.md), and on an Ice Lake core the same
kind of loop took 1.49-1.64. The cause sits between the ports and the code
(issue of memory operations around the taken branch, code placement); the static
analysis cannot see it, but the L1 bandwidth benchmarks ``kerncraft-machine``
runs (its built-in C loops, gcc -O3 -march=native, rolled like a kernel's loop)
run into it the same way.

With ``streaming limit: measured`` on the first level of the memory hierarchy,
T_nOL is therefore at least the time the kernel's register<->L1 bytes per cache
line of work take at the L1 bandwidth one core measured for the benchmark
kernel whose stream mix is closest (the choice the Roofline model makes,
:func:`kerncraft.machine.bandwidth.select_bandwidth`)::

    T_nOL = max(T_nOL(ports), bytes(register<->L1) / (L1 bandwidth / clock))

``ports`` (the default, and what every published machine file means) keeps the
published model. A worked example is in docs/ecm-model.md.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from kerncraft.units import format_quantity

__all__ = ["L1StreamLimit", "l1_bytes_per_unit", "l1_stream_limit", "with_l1_stream_limit"]


@dataclass(frozen=True)
class L1StreamLimit:
    """The measured streaming time of the kernel's register<->L1 bytes."""

    level: str                # the first level's name ('L1')
    bytes_per_cl: float       # register<->L1 bytes per cache line of work
    benchmark: str            # benchmark kernel whose measured bandwidth is used
    bandwidth: float          # B/s, one core
    cycles: float             # cy/CL at the machine's clock
    ports_cycles: float       # T_nOL from the load/store ports alone, cy/CL

    @property
    def binds(self) -> bool:
        return self.cycles > self.ports_cycles

    def describe(self) -> str:
        verdict = "sets T_nOL" if self.binds else "below the ports' T_nOL"
        return (f"measured {self.level} streaming limit: {self.bytes_per_cl:.0f} B/CL at "
                f"benchmark '{self.benchmark}' {format_quantity(self.bandwidth, 'B/s')} = "
                f"{self.cycles:.2f} cy/CL, {verdict} (ports {self.ports_cycles:.2f} cy/CL; "
                "machine file 'streaming limit: measured')")

    def to_dict(self) -> dict:
        return {"level": self.level, "bytes_per_cl": self.bytes_per_cl,
                "benchmark": self.benchmark, "bandwidth": self.bandwidth,
                "cycles_per_cl": self.cycles, "ports_cycles_per_cl": self.ports_cycles,
                "binds": self.binds}


def l1_bytes_per_unit(kernel, iterations_per_cl: float) -> float:
    """Register<->L1 bytes per unit of work: each distinct access once."""
    seen = {(a.array, a.kind, a.offset, a.indices) for a in kernel.accesses
            if a.array in kernel.arrays and not kernel.arrays[a.array].is_scalar}
    per_iteration = sum(kernel.arrays[name].element_size for name, *_ in seen)
    return per_iteration * iterations_per_cl


def l1_stream_limit(kernel, machine, iterations_per_cl: float,
                    ports_cycles: float) -> L1StreamLimit | None:
    """The limit if the machine file asks for it (``streaming limit: measured``), else None."""
    first = machine.memory_hierarchy[0]
    if first.streaming_limit != "measured":
        return None
    from kerncraft.machine.bandwidth import select_bandwidth
    from kerncraft.models.transfers import kernel_stream_mix

    mix = kernel_stream_mix(kernel)
    if sum(mix) == 0:
        mix = (1, 0, 0)
    # one core: T_nOL is a per-core time, whatever the core count of the prediction
    choice = select_bandwidth(machine, first.name, *mix, cores=1)
    nbytes = l1_bytes_per_unit(kernel, iterations_per_cl)
    cycles = nbytes * machine.clock / choice.bandwidth
    return L1StreamLimit(first.name, nbytes, choice.kernel, choice.bandwidth, cycles,
                         ports_cycles)


def with_l1_stream_limit(incore, kernel, machine):
    """The in-core prediction with T_nOL raised to the measured streaming limit, if any
    (a property of the machine, so for every in-core back end)."""
    limit = l1_stream_limit(kernel, machine, incore.iterations_per_cacheline, incore.t_nol)
    if limit is None:
        return incore
    return dataclasses.replace(incore, t_nol=max(incore.t_nol, limit.cycles), l1_stream=limit)
