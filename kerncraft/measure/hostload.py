"""Is the machine quiet enough to measure? And can we get the cores to ourselves?

Why: ``kerncraft-machine`` measures bandwidths on every core. Another process
that runs meanwhile takes cycles and memory bandwidth from some runs and not
from others, so levels and core counts get inconsistent numbers. Before
measuring, the load is checked two ways:

* ``/proc/loadavg``: the one-minute load average (runnable plus
  uninterruptible tasks, averaged; it lags, but shows a steady background)
  and the number of runnable tasks right now (the fourth field, ``2/91``,
  counts this process too);
* a CPU-time sample of every process over a short interval from
  ``/proc/PID/stat`` (utime + stime in clock ticks): a process above 20 % of
  one CPU competes with the benchmark now.

The machine is *busy* when the load not caused by us exceeds 0.5 per core
or some other process uses more than 20 % CPU. ``kerncraft-machine`` then
warns (and with ``--strict`` refuses) and records the numbers in the file.

During the run the load is sampled again at every boundary between measuring
phases (:class:`LoadWatch`), without waiting: ``/proc/stat`` gives the busy and
steal time of the CPUs we run on, ``os.times()`` our own CPU time and that of
the benchmark programs we ran and waited for; the difference is what other
processes took during the phase (also short-lived ones, which a per-process
sample misses), steal what the hypervisor gave to other guests. A phase in
which either exceeds :data:`PHASE_BUSY_SHARE` of the CPUs' time counts as busy.

Real-time priority (SCHED_FIFO 50, what ``chrt -f 50`` sets) keeps ordinary
processes off the benchmark's cores while it runs; child processes inherit
it. It needs root or CAP_SYS_NICE; Linux still leaves 5 % of each second to
other tasks (``sched_rt_runtime_us``), so a machine cannot hang on it.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

__all__ = ["BusyProcess", "LoadReport", "parse_loadavg", "cpu_times", "busy_processes",
           "check_load", "try_realtime", "LOAD_PER_CORE", "BUSY_PERCENT", "CpuSample",
           "PhaseLoad", "parse_proc_stat", "cpu_sample", "phase_load", "LoadWatch",
           "PHASE_BUSY_SHARE"]

#: Load per core, beyond our own, above which the machine counts as busy.
LOAD_PER_CORE = 0.5
#: CPU share of one other process (percent of one CPU) that counts as busy.
BUSY_PERCENT = 20.0
#: Share of our CPUs' time that other processes (or the hypervisor, as steal) may take
#: during a phase before it counts as busy: 10 % taken disturbs a bandwidth point by
#: about as much, twice the 5 % within which its runs must agree.
PHASE_BUSY_SHARE = 0.10

_PROC = Path("/proc")


@dataclass(frozen=True)
class BusyProcess:
    pid: int
    name: str
    percent: float                 # of one CPU over the sample interval


@dataclass(frozen=True)
class LoadReport:
    """The load seen before measuring."""

    load1: float                   # one-minute load average
    runnable: int                  # runnable tasks now, this process excluded
    tasks: int
    cores: int
    busy_processes: tuple[BusyProcess, ...]
    interval: float                # seconds of the CPU-time sample

    @property
    def load_per_core(self) -> float:
        """Load average beyond this process (which counts as one) per core."""
        return max(0.0, self.load1 - 1.0) / max(1, self.cores)

    @property
    def busy(self) -> bool:
        return self.load_per_core > LOAD_PER_CORE or bool(self.busy_processes)

    def summary(self) -> str:
        text = (f"load average {self.load1:.2f} on {self.cores} core(s) "
                f"({self.load_per_core:.2f} per core besides this process), "
                f"{self.runnable} other runnable task(s)")
        if self.busy_processes:
            text += "; busy: " + ", ".join(f"{p.name} (pid {p.pid}) {p.percent:.0f} %"
                                           for p in self.busy_processes)
        return text


def parse_loadavg(text: str) -> tuple[float, int, int]:
    """(one-minute load, runnable tasks, all tasks) of a /proc/loadavg line."""
    fields = text.split()
    if len(fields) < 4 or "/" not in fields[3]:
        raise ValueError(f"unexpected /proc/loadavg content {text!r}")
    running, total = fields[3].split("/", 1)
    return float(fields[0]), int(running), int(total)


def _stat_ticks(stat: str) -> tuple[str, int]:
    """(command name, utime + stime) of a /proc/PID/stat line (the name may hold spaces)."""
    name = stat[stat.index("(") + 1:stat.rindex(")")]
    rest = stat[stat.rindex(")") + 2:].split()
    return name, int(rest[11]) + int(rest[12])       # fields 14 and 15 of the line


def cpu_times() -> dict[int, tuple[str, int]]:
    """{pid: (name, CPU ticks)} of all processes (those that vanish are skipped)."""
    result = {}
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            result[int(entry.name)] = _stat_ticks((entry / "stat").read_text())
        except (OSError, ValueError, IndexError):
            continue            # the process ended between listing and reading
    return result


def busy_processes(before: Mapping[int, tuple[str, int]], after: Mapping[int, tuple[str, int]],
                   seconds: float, ticks_per_second: float,
                   exclude: frozenset[int] = frozenset()) -> tuple[BusyProcess, ...]:
    """Processes above :data:`BUSY_PERCENT` between two :func:`cpu_times` samples."""
    found = []
    for pid, (name, ticks) in after.items():
        if pid in exclude or pid not in before:
            continue
        percent = 100.0 * (ticks - before[pid][1]) / ticks_per_second / max(seconds, 1e-9)
        if percent > BUSY_PERCENT:
            found.append(BusyProcess(pid, name, percent))
    return tuple(sorted(found, key=lambda p: -p.percent))


def check_load(cores: int, interval: float = 0.5,
               sleep: Callable[[float], None] = time.sleep) -> LoadReport:
    """Sample the load of this machine for ``interval`` seconds (see the module doc)."""
    load1, running, total = parse_loadavg((_PROC / "loadavg").read_text())
    before, start = cpu_times(), time.monotonic()
    sleep(interval)
    after, seconds = cpu_times(), time.monotonic() - start
    busy = busy_processes(before, after, seconds, os.sysconf("SC_CLK_TCK"),
                          frozenset({os.getpid()}))
    return LoadReport(load1, max(0, running - 1), total, cores, busy, interval)


def try_realtime(priority: int = 50) -> str:
    """Switch this process (and the children it starts) to SCHED_FIFO ``priority``.

    Returns a sentence for the machine file saying whether it worked and why not.
    """
    if not hasattr(os, "sched_setscheduler"):
        return "real-time priority: not available on this system"
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except PermissionError:
        return ("real-time priority: not permitted (needs root or CAP_SYS_NICE); "
                "measured at normal priority")
    except OSError as exc:
        return f"real-time priority: refused ({exc}); measured at normal priority"
    return f"real-time priority: used (SCHED_FIFO {priority}, as chrt -f {priority})"


# ---------------------------------------------------------------- load during the run

@dataclass(frozen=True)
class CpuSample:
    """CPU time at one moment: of our CPUs (from /proc/stat) and our own."""

    time: float                    # time.monotonic()
    busy: float                    # CPU seconds busy (user, nice, system, irq, softirq)
    steal: float                   # CPU seconds stolen by the hypervisor
    own: float                     # CPU seconds of this process and its waited-for children
    cpus: int                      # CPUs summed over


def parse_proc_stat(text: str, cpus: frozenset[int] | None = None) -> tuple[int, int, int]:
    """(busy ticks, steal ticks, CPUs counted) of /proc/stat text, summed over the
    ``cpuN`` lines of ``cpus`` (None: every CPU). Busy = user + nice + system + irq +
    softirq (idle and iowait are not busy; guest time is already in user)."""
    busy = steal = count = 0
    for line in text.splitlines():
        fields = line.split()
        if not fields or not fields[0].startswith("cpu") or fields[0] == "cpu":
            continue
        if cpus is not None and int(fields[0][3:]) not in cpus:
            continue
        ticks = [int(v) for v in fields[1:9]] + [0] * max(0, 9 - len(fields))
        busy += ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6]
        steal += ticks[7]
        count += 1
    return busy, steal, count


def cpu_sample(cpus: frozenset[int] | None = None) -> CpuSample | None:
    """A :class:`CpuSample` of the CPUs this process may run on (None off Linux)."""
    if cpus is None and hasattr(os, "sched_getaffinity"):
        cpus = frozenset(os.sched_getaffinity(0))
    try:
        busy, steal, count = parse_proc_stat((_PROC / "stat").read_text(), cpus)
    except (OSError, ValueError):
        return None
    tick = float(os.sysconf("SC_CLK_TCK"))
    own = os.times()
    return CpuSample(time.monotonic(), busy / tick, steal / tick,
                     own.user + own.system + own.children_user + own.children_system,
                     max(1, count))


@dataclass(frozen=True)
class PhaseLoad:
    """What others took of our CPUs during one measuring phase."""

    phase: str
    seconds: float
    others: float                  # CPUs used by other processes, averaged over the phase
    steal: float                   # CPUs stolen by the hypervisor, averaged
    cpus: int

    @property
    def busy(self) -> bool:
        return max(self.others, self.steal) > PHASE_BUSY_SHARE * self.cpus

    def summary(self) -> str:
        return (f"{self.phase} ({self.seconds:.1f} s): other processes {self.others:.2f} of "
                f"{self.cpus} CPU(s), steal {self.steal:.2f}" + (" -- BUSY" if self.busy else ""))


def phase_load(phase: str, before: CpuSample, after: CpuSample) -> PhaseLoad:
    """The load of other processes between two samples (our own time subtracted)."""
    seconds = max(after.time - before.time, 1e-9)
    others = max(0.0, (after.busy - before.busy) - (after.own - before.own)) / seconds
    steal = max(0.0, after.steal - before.steal) / seconds
    return PhaseLoad(phase, seconds, others, steal, after.cpus)


class LoadWatch:
    """Samples at phase boundaries; :attr:`loads` collects one :class:`PhaseLoad` per
    phase, and a busy phase is reported through ``warn`` at once."""

    def __init__(self, sample: Callable[[], CpuSample | None],
                 warn: Callable[[str], None]) -> None:
        self._sample, self._warn = sample, warn
        self._last = sample()
        self.loads: list[PhaseLoad] = []

    def phase(self, name: str) -> None:
        """Close the phase ``name`` (it began at the previous call or at creation)."""
        now = self._sample()
        if now is not None and self._last is not None:
            load = phase_load(name, self._last, now)
            self.loads.append(load)
            if load.busy:
                self._warn(f"warning: the machine got busy during {load.summary()}")
        self._last = now
