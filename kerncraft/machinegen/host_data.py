"""Everything ``kerncraft-machine`` measured or detected on a host (:class:`HostData`):
what :mod:`kerncraft.machinegen.generate` collects and
:mod:`kerncraft.machinegen.render` turns into a machine file.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from kerncraft.machinegen.upstream_fit import Upstream
from kerncraft.machinegen.working_sets import LevelChoice
from kerncraft.measure.clock import ClockCalibration, FmaThroughput
from kerncraft.measure.hostload import LoadReport, PhaseLoad
from kerncraft.measure.march import CompilerFlags
from kerncraft.measure.streams import Plateau
from kerncraft.measure.topology import HostTopology

__all__ = ["HostData"]


@dataclass(frozen=True)
class HostData:
    """Everything measured or detected, ready to be rendered."""

    topology: HostTopology
    clock: ClockCalibration
    backend: str
    sweep_kernel: str
    sweep: tuple[tuple[int, float], ...]
    plateaus: tuple[Plateau, ...]
    choices: tuple[LevelChoice, ...]
    cores: tuple[int, ...]
    results: Mapping[str, Mapping[str, tuple[float, ...]]]   # level -> kernel -> B/s per cores
    upstream: Mapping[str, Upstream]
    avx512_clock: ClockCalibration | None = None
    fma: FmaThroughput | None = None
    fma_units: int | None = None           # override given by the user
    notes: tuple[str, ...] = field(default_factory=tuple)
    compilers: tuple[CompilerFlags, ...] = ()
    load: LoadReport | None = None
    realtime: str | None = None
    unstable: tuple[str, ...] = ()         # points whose runs never agreed within 5 %
    thp: str | None = None
    phase_loads: tuple[PhaseLoad, ...] = ()  # load of other processes per measuring phase
