"""The levels the cache simulator simulates: their geometry and policies
(:class:`LevelSpec`), read from a machine model for a number of active cores.

Both engines of :mod:`kerncraft.cache.cache_sim` (the reference methods and the
generated source of :mod:`kerncraft.cache.cache_sim_engine`) are built from these.
"""
from __future__ import annotations

from dataclasses import dataclass

from kerncraft.errors import KerncraftError

__all__ = ["LevelSpec", "shared_share", "level_specs_from_machine"]


@dataclass(frozen=True)
class LevelSpec:
    """Geometry and policies of one simulated cache level (per simulated core)."""

    name: str
    sets: int
    ways: int
    cl_size: int
    write_allocate: bool = True
    write_back: bool = True
    load_from: str | None = None      # None: memory, or victim lookup (cache_sim's doc)
    store_to: str | None = None       # None: memory
    victims_to: str | None = None

    @property
    def size(self) -> int:
        return self.sets * self.ways * self.cl_size

    @property
    def lines(self) -> int:
        return self.sets * self.ways


def shared_share(cores_per_group: int | None, cores: int) -> float:
    """Fraction of a shared level that one of ``cores`` active cores may use.

    The active cores of a group share its cache evenly: with ``cores`` cores
    running the kernel, ``min(cores, cores_per_group)`` of them sit in one
    group, so each gets that fraction of it. One core alone gets the whole
    shared cache (the layer-condition predictor uses the same convention).
    """
    cpg = cores_per_group or 1
    if cores < 1:
        raise KerncraftError(f"cores must be >= 1, got {cores}")
    return 1.0 / min(cores, cpg)


def level_specs_from_machine(machine, cores: int = 1) -> tuple[LevelSpec, ...]:
    """Build the simulated levels (L1 first) from a :class:`MachineModel`."""
    specs = []
    for lvl in machine.cache_levels:
        geo = lvl.geometry
        sets = max(1, int(geo.sets * shared_share(lvl.cores_per_group, cores)))
        specs.append(LevelSpec(lvl.name, sets, geo.ways, geo.cl_size, geo.write_allocate,
                               geo.write_back, geo.load_from, geo.store_to, geo.victims_to))
    if not specs:
        raise KerncraftError("machine file has no cache levels to simulate")
    if len({s.cl_size for s in specs}) != 1:
        raise KerncraftError("cache simulation needs one cache-line size for all levels, got "
                             + ", ".join(f"{s.name}: {s.cl_size} B" for s in specs))
    return tuple(specs)
