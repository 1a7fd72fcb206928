"""Upstream throughputs of L2, L3, ... derived from the single-core benchmark times.

The ECM model needs, per cache level, the bytes per cycle its link to the level
above moves (``upstream throughput``). ``kerncraft-machine`` derives it from the
five streaming kernels it measures at that level on one core, with the ECM rule
backwards: per kernel ``k`` the transfer time on the link is

* overlapping levels (Zen L2/L3): ``T_k`` itself, the level's time per cache line
  of work (the composition is a maximum, and the transfer is the largest part);
* non-overlapping levels (Intel): ``T_k`` minus the kernel's time one level up
  (``T_nOL`` for the first: the larger of the load ports' time and the kernel's
  measured L1 time, as ECM uses it with ``streaming limit: measured``).

The link moves ``loads_k`` lines towards the core (reads and write-allocates) and
``stores_k`` back (written lines; into a victim level every line the level above
replaces, clean or dirty, so ``stores_k = loads_k``); a half-duplex link carries
``loads + stores``, a full-duplex one ``max(loads, stores)``. Each kernel gives
``lines_k * 64 B / transfer_k``; the median over the kernels is the figure. Using
all five and not only the load kernel matters on Zen 5: in L3 one loaded line
costs 2.05 cy in the load kernel but 2.7-2.9 in copy, update and daxpy, whose
streams the kernels users write resemble more (benchmarks/RESULTS-validation.md).
A derivation that is not positive or above twice the published figure falls back
to that figure (marked as assumed).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Mapping, Sequence

from kerncraft.measure.uarch import UpstreamFigure

__all__ = ["Upstream", "DEFAULT_UPSTREAM", "derive_upstream", "link_lines", "stream_lines"]


@dataclass(frozen=True)
class Upstream:
    """Upstream throughput of a cache level in B/cy and where it came from."""

    bytes_per_cycle: float
    duplex: str
    derived: bool
    note: str


# Used when the core's record has no figure (an unknown core): Skylake-SP-like values.
DEFAULT_UPSTREAM = (UpstreamFigure("L2", 64.0, "half-duplex", "Skylake-SP-like figure"),
                    UpstreamFigure("L3", 16.0, "full-duplex", "Skylake-SP-like figure"))


def stream_lines(mix: tuple[int, int, int], victim: bool = False,
                 write_allocate: bool = True) -> tuple[int, int]:
    """(lines loaded, lines stored) per CL of work for a benchmark mix (module doc).

    ``mix`` is (read streams, write streams, read+write streams) in the machine-file
    convention (read and write streams include the read+write ones).
    """
    reads, writes, both = mix
    loads = reads + ((writes - both) if write_allocate else 0)   # write-allocates
    return loads, (loads if victim else writes)


def link_lines(mix: tuple[int, int, int], duplex: str, victim: bool) -> int:
    """Cache lines per CL of work a link carries for a benchmark mix (module doc)."""
    loads, stores = stream_lines(mix, victim)
    return loads + stores if duplex == "half-duplex" else max(loads, stores)


def derive_upstream(results: Mapping[str, Mapping[str, tuple[float, ...]]], clock_hz: float,
                    cacheline: int, load_bytes_per_cycle: float, levels: Sequence[str],
                    figures: Sequence[UpstreamFigure] = DEFAULT_UPSTREAM,
                    overlapping: frozenset[str] = frozenset(),
                    victim_levels: frozenset[str] = frozenset(),
                    mixes: Mapping[str, tuple[int, int, int]] | None = None
                    ) -> dict[str, Upstream]:
    """Upstream B/cy of every cache level below the first (module doc).

    ``results``: level -> kernel -> B/s per core count (the first entry: one core);
    ``mixes``: kernel -> stream mix (default: the built-in kernels').
    """
    if mixes is None:
        from kerncraft.measure.streams import KERNELS
        mixes = {k: (v.read_streams, v.write_streams, v.read_write_streams)
                 for k, v in KERNELS.items()}
    upstream: dict[str, Upstream] = {}
    above = _first_level_times(results, levels[0], clock_hz, cacheline,
                               load_bytes_per_cycle, mixes)
    for level in levels[1:]:
        if level == "MEM":
            break
        figure = next((f for f in figures if f.level == level),
                      UpstreamFigure(level, 16.0, "full-duplex", "assumed"))
        times = _level_times(results.get(level, {}), clock_hz, cacheline, mixes)
        derived = []
        for kernel, t_level in times.items():
            transfer = t_level if level in overlapping else t_level - above.get(kernel, 0.0)
            if transfer > 0 and (level in overlapping or kernel in above):
                lines = link_lines(mixes[kernel], figure.duplex, level in victim_levels)
                derived.append((kernel, lines * cacheline / transfer))
        if level not in overlapping:        # the next level's transfers add to these
            above = {k: t for k, t in times.items()}
        value = statistics.median(bpc for _, bpc in derived) if derived else None
        if value is not None and value <= 2 * figure.bytes_per_cycle:
            how = ("the transfer time itself (overlapping)" if level in overlapping
                   else "minus the level above")
            spread = ", ".join(f"{k} {bpc:.1f}" for k, bpc in derived)
            upstream[level] = Upstream(value, figure.duplex, True,
                                       f"derived: median of the 1-core benchmarks' "
                                       f"lines per cycle, {how} ({spread} B/cy)")
            continue
        upstream[level] = Upstream(figure.bytes_per_cycle, figure.duplex, False,
                                   f"assumed ({figure.source}; derivation implausible)")
    return upstream


def _level_times(measured: Mapping[str, tuple[float, ...]], clock_hz: float, cacheline: int,
                 mixes: Mapping[str, tuple[int, int, int]]) -> dict[str, float]:
    """Single-core cycles per CL of work of every measured benchmark kernel."""
    times = {}
    for kernel, values in measured.items():
        if kernel in mixes and values and values[0] > 0:
            reads, writes, _ = mixes[kernel]
            times[kernel] = (reads + writes) * cacheline * clock_hz / values[0]
    return times


def _first_level_times(results, first: str, clock_hz: float, cacheline: int,
                       load_bytes_per_cycle: float, mixes) -> dict[str, float]:
    """T_nOL per kernel: max(load ports' time, measured first-level time). The load
    ports' time alone where the first level was not measured."""
    measured = _level_times(results.get(first, {}), clock_hz, cacheline, mixes)
    times = {}
    for kernel, mix in mixes.items():
        ports = mix[0] * cacheline / load_bytes_per_cycle
        times[kernel] = max(ports, measured.get(kernel, 0.0))
    return times
