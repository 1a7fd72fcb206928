"""The host description of a recording (``host.json``, :mod:`kerncraft.validation.corpus`).

A recorded measurement means something only next to the machine it was taken on, so
``kerncraft-validate --record`` keeps: the CPUID signature and model name, a summary
of the feature flags that decide the code a compiler emits (vector ISA, AMX, a
hypervisor), the CPUs, the kernel and compiler versions, the date, and the load before,
during and after the run. *During*: ``/proc/loadavg`` read after every measured point
(:class:`LoadSampler`, no extra thread that could itself disturb a measurement).
"""
from __future__ import annotations

import datetime
import os
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from kerncraft.measure.hostload import check_load, parse_loadavg
from kerncraft.measure.topology import parse_cpuinfo
from kerncraft.version import __version__

__all__ = ["NOTABLE_FLAGS", "cpu_description", "compiler_versions", "tool_version",
           "LoadSampler", "load_summary", "host_description"]

#: Flags worth naming in a recording: they decide the compiled code and the in-core model
#: (vector width, FMA, AVX-512 subsets, AMX, Arm vectors) or the trust in the numbers
#: (a hypervisor). The full list is long and says little more.
NOTABLE_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx_vnni", "avx512f", "avx512dq", "avx512cd",
                 "avx512bw", "avx512vl", "avx512ifma", "avx512vbmi", "avx512_vbmi2",
                 "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16",
                 "amx_int8", "asimd", "sve", "sve2", "hypervisor")
#: Seconds a compiler may take to say its version.
VERSION_TIMEOUT = 10


def _int(value: str | None) -> int | None:
    """A decimal field, or a hexadecimal one (Arm's 'CPU part: 0xd0c')."""
    if value is None:
        return None
    try:
        return int(value, 16) if value.lower().startswith("0x") else int(value)
    except ValueError:
        return None


def cpu_description(cpuinfo_text: str) -> dict[str, Any]:
    """CPUID vendor, family, model, stepping, model name and flags of /proc/cpuinfo text."""
    info = parse_cpuinfo(cpuinfo_text)
    flags = (info.get("flags") or info.get("Features") or "").split()
    return {"vendor": info.get("vendor_id") or info.get("CPU implementer"),
            "family": _int(info.get("cpu family")),
            "model": _int(info.get("model") or info.get("CPU part")),
            "stepping": _int(info.get("stepping") or info.get("CPU variant")),
            "model_name": info.get("model name"),
            "flags_summary": [f for f in NOTABLE_FLAGS if f in flags],
            "flags_count": len(flags),
            "virtual_machine": "hypervisor" in flags}


def compiler_versions(names: Sequence[str]) -> dict[str, str | None]:
    """First line of ``NAME --version`` of every compiler (None: not installed)."""
    versions: dict[str, str | None] = {}
    for name in dict.fromkeys(names):
        path = shutil.which(name)
        versions[name] = None
        if path is None:
            continue
        try:
            done = subprocess.run([path, "--version"], capture_output=True, text=True,
                                  timeout=VERSION_TIMEOUT, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        lines = done.stdout.strip().splitlines()
        versions[name] = lines[0] if lines else None
    return versions


def tool_version() -> dict[str, str | None]:
    """kerncraft's version, and the git commit of the source tree when it is a checkout
    (the version number alone does not move with every change of the model)."""
    tree = Path(__file__).resolve().parents[2]
    commit = None
    git = shutil.which("git")
    if git and (tree / ".git").exists():
        try:
            done = subprocess.run([git, "-C", str(tree), "describe", "--always", "--dirty"],
                                  capture_output=True, text=True, timeout=VERSION_TIMEOUT,
                                  check=False)
            commit = done.stdout.strip() or None
        except (OSError, subprocess.TimeoutExpired):
            commit = None
    return {"kerncraft": __version__, "commit": commit}


def _read_loadavg() -> tuple[float, int] | None:
    try:
        load1, running, _ = parse_loadavg(Path("/proc/loadavg").read_text())
    except (OSError, ValueError):
        return None
    return load1, running


class LoadSampler:
    """A measuring function that reads the load after every point it measures.

    Wraps ``measure(bound, machine, options)``; :meth:`document` gives the range of the
    one-minute load average and of the runnable tasks (this process counts as one)."""

    def __init__(self, measure: Callable[..., Any],
                 read: Callable[[], tuple[float, int] | None] = _read_loadavg) -> None:
        self._measure = measure
        self._read = read
        self.samples: list[tuple[float, int]] = []

    def __call__(self, bound, machine, options):
        result = self._measure(bound, machine, options)
        sample = self._read()
        if sample is not None:
            self.samples.append(sample)
        return result

    def document(self) -> dict[str, Any]:
        if not self.samples:
            return {"samples": 0}
        loads = [s[0] for s in self.samples]
        runnable = [s[1] for s in self.samples]
        return {"samples": len(self.samples), "load1_min": min(loads),
                "load1_max": max(loads), "runnable_max": max(runnable)}


def load_summary(cores: int, interval: float = 0.2) -> str | None:
    """One line on the load now (:func:`kerncraft.measure.hostload.check_load`)."""
    try:
        return check_load(cores, interval).summary()
    except (OSError, ValueError):
        return None


def host_description(*, compilers: Sequence[str], chosen_compiler: str | None,
                     load: Mapping[str, Any], started: datetime.datetime,
                     cpuinfo: str = "/proc/cpuinfo") -> dict[str, Any]:
    """The ``host.json`` document of a recording (``load``: before, during, after)."""
    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {**cpu_description(text), "cpus_online": os.cpu_count(), "cpus_usable": usable,
            "architecture": platform.machine(), "kernel": platform.release(),
            "compilers": compiler_versions(compilers), "compiler_used": chosen_compiler,
            "date": started.isoformat(timespec="seconds"), "load": dict(load)}
