"""Timing backend: run a compiled benchmark pinned and convert seconds to cycles.

Why this exists
---------------
The benchmark mode validates predictions by measurement. The usual way is
likwid-perfctr, which reads the core-cycle counter. In a VM (and on many
locked-down hosts) no hardware counters are readable, so this backend
measures *time* instead and converts it with a core clock that
:mod:`kerncraft.measure.clock` calibrates on the spot: ``cycles = seconds x
core_hz``. That is exact as long as the core runs at the calibrated clock
during the benchmark, which holds for the sustained turbo clock of a busy
core (both the calibration and the benchmark keep the core busy).

The protocol
------------
A benchmark program prints, anywhere in its standard output, one line each::

    KERNCRAFT_TIME <seconds>            # wall time of the timed region
    KERNCRAFT_REPETITIONS <n>           # how often the kernel ran in it

and optionally::

    KERNCRAFT_CPU_TIME <seconds>        # CPU time of the timed region

The number of repetitions to run is passed on the command line: every
argument equal to ``{repetitions}`` is replaced by it, or, if there is no
such argument, it is appended as the last one. :data:`C_PROTOCOL_HELPERS` is
a C snippet with the timers and the printing, for programs that want it.

Why CPU time: other processes share the cores (CI runners, a developer's
editor, parallel test workers). A preempted single-threaded run gets longer
in wall time but not in CPU time, so for one thread the backend uses the
smaller of the two (``time_source='auto'``); the CPU time of a
multi-threaded program sums its threads and is therefore never used for it.

Compiling
---------
:func:`compile_program` builds a C program once and keeps the executable in
``bench/`` of the toolkit's cache directory (:mod:`kerncraft.diskstore`) keyed
by the sha256 of compiler, version, flags, source and (for ``-march=native``)
the host CPU. With caching off (``KERNCRAFT_NO_CACHE=1``) executables go to a
private temporary directory that is removed when the process exits, so nothing
remains after the run. The compiler runs in a fresh temporary directory; nothing
is written beside the user's files, and no shell is ever involved.
"""
from __future__ import annotations

import atexit
import functools
import hashlib
import math
import os
import platform
import re
import shutil
import signal
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Mapping, Sequence

from kerncraft.diskstore import cache_directory, mark_used
from kerncraft.errors import ToolError

__all__ = [
    "PROTOCOL_TIME", "PROTOCOL_REPETITIONS", "PROTOCOL_CPU_TIME", "C_PROTOCOL_HELPERS",
    "REPETITIONS_PLACEHOLDER", "ProgramReport", "Measurement", "require_x86_64_linux",
    "is_x86_64_linux", "find_c_compiler", "bench_cache_dir", "compile_program",
    "compiler_identity", "host_cpu_fingerprint", "cached_executable",
    "run_pinned", "parse_protocol", "measure", "default_cpu", "describe_exit",
]

PROTOCOL_TIME = "KERNCRAFT_TIME"
PROTOCOL_REPETITIONS = "KERNCRAFT_REPETITIONS"
PROTOCOL_CPU_TIME = "KERNCRAFT_CPU_TIME"
REPETITIONS_PLACEHOLDER = "{repetitions}"

#: C helpers implementing the protocol (include at file scope). ``kc_wall()``
#: and ``kc_cpu()`` return seconds; ``kc_report(wall, cpu, reps)`` prints the
#: three protocol lines.
C_PROTOCOL_HELPERS = r"""
#include <stdio.h>
#include <time.h>
static double kc_wall(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC_RAW, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double kc_cpu(void) {
    struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static void kc_report(double wall, double cpu, long reps) {
    printf("KERNCRAFT_TIME %.9e\nKERNCRAFT_CPU_TIME %.9e\nKERNCRAFT_REPETITIONS %ld\n",
           wall, cpu, reps);
    fflush(stdout);
}
"""

_CACHE_VERSION = "1"
_COMPILE_TIMEOUT = 300
_LINE = re.compile(r"^\s*(KERNCRAFT_[A-Z_]+)\s+(\S+)\s*$", re.MULTILINE)

TimeSource = Literal["auto", "wall", "cpu"]


@dataclass(frozen=True)
class ProgramReport:
    """What one run of a benchmark program printed under the protocol."""

    seconds: float                 # wall time of the timed region
    repetitions: int
    cpu_seconds: float | None = None
    extra: Mapping[str, str] = field(default_factory=dict)   # other KERNCRAFT_* lines


@dataclass(frozen=True)
class Measurement:
    """Result of :func:`measure`: the best of ``runs`` runs, converted to cycles.

    ``seconds`` is the time used for the conversion (see ``time_source``);
    ``wall_seconds`` / ``cpu_seconds`` are the minima of the runs.
    """

    seconds: float
    repetitions: int
    cycles_total: float
    core_hz: float
    backend: str = "timing"
    wall_seconds: float = math.nan
    cpu_seconds: float | None = None
    time_source: str = "wall"
    runs: int = 1

    @property
    def cycles_per_repetition(self) -> float:
        return self.cycles_total / self.repetitions

    @property
    def seconds_per_repetition(self) -> float:
        return self.seconds / self.repetitions


# ---------------------------------------------------------------- host checks

def is_x86_64_linux() -> bool:
    """True on an x86-64 Linux host (where the inline-asm programs work)."""
    return platform.system() == "Linux" and platform.machine().lower() in ("x86_64", "amd64")


def require_x86_64_linux(what: str) -> None:
    """Raise ToolError unless this is x86-64 Linux (``what`` names the feature)."""
    if not is_x86_64_linux():
        raise ToolError(f"{what} needs an x86-64 Linux host (this is {platform.system()} "
                        f"on {platform.machine() or 'an unknown CPU'}); the benchmark programs "
                        "use x86 inline assembly and Linux clocks")


def find_c_compiler(compiler: str = "gcc") -> str:
    """Absolute path of a C compiler, or ToolError telling what to install."""
    path = shutil.which(compiler)
    if path is None:
        raise ToolError(f"C compiler {compiler!r} not found on PATH; the host benchmarks "
                        "need it (install gcc, e.g. 'apt-get install gcc')")
    return path


# ---------------------------------------------------------------- compiling

def bench_cache_dir() -> Path:
    """Private directory for benchmark executables (created 0700).

    ``bench/`` of the cache directory, so executables are kept (and removed) with
    the other cached results; with caching off a temporary directory of this
    process (:func:`_scratch_dir`). A path that exists but is a symlink or belongs
    to another user is refused, so another user cannot plant executables for us
    to run.
    """
    base = cache_directory()
    if base is None:
        return _scratch_dir()
    path = base / "bench"
    try:
        base.mkdir(parents=True, exist_ok=True)
        path.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(path)
    except OSError as exc:
        raise ToolError(f"cannot create the benchmark cache {path}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise ToolError(f"benchmark cache {path} is not a private directory of this user; "
                        "remove it or set KERNCRAFT_CACHE_DIR elsewhere")
    return path


@functools.lru_cache(maxsize=1)
def _scratch_dir() -> Path:
    """A private temporary directory for this process's executables when caching
    is off; removed at exit (a program is run after compile_program returns, so it
    cannot be removed any earlier)."""
    path = Path(tempfile.mkdtemp(prefix="kerncraft-bench-"))
    atexit.register(_remove_scratch, path, os.getpid())
    return path


def _remove_scratch(path: Path, owner: int) -> None:
    if os.getpid() == owner:        # not in a forked child that inherited the handler
        shutil.rmtree(path, ignore_errors=True)


def cached_executable(kind: str, compiler_path: str, flags: Sequence[str],
                      parts: Sequence[str]) -> Path:
    """Where the executable built by ``compiler_path`` from ``parts`` (sources, flags,
    versions) is kept in :func:`bench_cache_dir`: keyed by their content, the compiler's
    build and, for ``-march=native``, this host's CPU."""
    key = hashlib.sha256()
    for part in (compiler_path, compiler_identity(compiler_path), *parts):
        key.update(part.encode())
        key.update(b"\0\1")
    if any("native" in f for f in flags):
        key.update(host_cpu_fingerprint().encode())
    target = bench_cache_dir() / f"{kind}-{key.hexdigest()[:32]}"
    mark_used(target)       # a lookup is a use (no-op while it is not built yet)
    return target


@functools.lru_cache(maxsize=16)
def compiler_identity(path: str) -> str:
    """First line of ``path --version``: the compiler build, for keys of cached programs."""
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True,
                             timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolError(f"cannot run {path} --version: {exc}") from None
    lines = (out.stdout or out.stderr).strip().splitlines()
    return lines[0] if lines else ""


@functools.lru_cache(maxsize=1)
def host_cpu_fingerprint() -> str:
    """Model name and flags of the first CPU: what '-march=native' depends on (a part
    of the key of a program cached after compiling with it)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = platform.processor()
    first = text.split("\n\n", 1)[0]
    keep = [ln for ln in first.splitlines()
            if ln.split(":", 1)[0].strip() in ("model name", "flags", "model", "stepping")]
    return "\n".join([platform.machine(), *keep])


def compile_program(source: str, *, compiler: str = "gcc",
                    flags: Sequence[str] = ("-O2",), libraries: Sequence[str] = ()) -> Path:
    """Compile a C program (cached by content) and return the executable's path."""
    path = find_c_compiler(compiler)
    target = cached_executable("prog", path, flags,
                               (_CACHE_VERSION, "\0".join(flags), "\0".join(libraries), source))
    if target.is_file() and os.access(target, os.X_OK):
        return target
    with tempfile.TemporaryDirectory(prefix="kerncraft-build-") as tmp:
        src, exe = Path(tmp) / "bench.c", Path(tmp) / "bench"
        src.write_text(source, encoding="utf-8")
        argv = [path, *flags, str(src), "-o", str(exe), *libraries]
        try:
            out = subprocess.run(argv, capture_output=True, text=True, cwd=tmp,
                                 timeout=_COMPILE_TIMEOUT, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ToolError(f"compiling a benchmark program failed: {exc}") from None
        if out.returncode != 0 or not exe.is_file():
            message = "\n".join((out.stderr or out.stdout).strip().splitlines()[:8])
            raise ToolError(f"{compiler} could not build a benchmark program "
                            f"({' '.join(flags)}):\n{message}")
        install_executable(exe, target)
    return target


def install_executable(built: Path, target: Path) -> None:
    """Copy ``built`` to ``target`` via a staged file and a rename (concurrent
    builders never see half a file); a failed copy (full disk) leaves nothing."""
    staged = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        shutil.copy2(built, staged)
        os.replace(staged, target)
    except OSError as exc:
        staged.unlink(missing_ok=True)
        raise ToolError(f"cannot store the benchmark program in {target.parent}: "
                        f"{exc.strerror or exc}") from None


# ---------------------------------------------------------------- running

def default_cpu() -> int:
    """The CPU benchmarks are pinned to by default: the last one we may use.

    The last rather than the first because interrupts and housekeeping tend
    to land on CPU 0.
    """
    return max(os.sched_getaffinity(0))


def run_pinned(argv: Sequence[str], cpus: Sequence[int] | None, *, timeout: float = 120.0,
               env: Mapping[str, str] | None = None) -> str:
    """Run ``argv`` pinned to ``cpus`` and return its standard output.

    Pinning uses ``taskset -c`` when installed, else ``sched_setaffinity`` in
    the child before exec. A non-zero exit or a timeout raises ToolError.
    """
    argv = [str(a) for a in argv]
    preexec = None
    if cpus:
        cpu_list = ",".join(str(c) for c in cpus)
        taskset = shutil.which("taskset")
        if taskset:
            argv = [taskset, "-c", cpu_list, *argv]
        else:
            wanted = set(cpus)

            def preexec() -> None:       # runs in the child, before exec
                os.sched_setaffinity(0, wanted)
    full_env = None if env is None else {**os.environ, **env}
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                             check=False, env=full_env, preexec_fn=preexec)
    except subprocess.TimeoutExpired:
        raise ToolError(f"benchmark {Path(argv[0]).name} ran longer than {timeout:g} s") from None
    except OSError as exc:
        raise ToolError(f"cannot run benchmark {argv[0]}: {exc}") from None
    if out.returncode != 0:
        tail = "\n".join((out.stderr or out.stdout).strip().splitlines()[-5:])
        raise ToolError(f"benchmark {' '.join(argv)} {describe_exit(out.returncode)}"
                        + (f":\n{tail}" if tail else ""))
    return out.stdout


# What a signal that ends a benchmark usually means here (the program is ours, so a
# crash is the machine file's code not fitting this CPU, or the system stopping it).
_SIGNAL_MEANING = {
    "SIGILL": "illegal instruction: the code uses an instruction this CPU lacks",
    "SIGSEGV": "segmentation fault: a memory access outside the program's arrays",
    "SIGBUS": "bus error: a misaligned or unmapped memory access",
    "SIGFPE": "arithmetic exception",
    "SIGABRT": "aborted by the program or its runtime",
    "SIGKILL": "killed: out of memory, a time limit, or another user",
    "SIGTERM": "terminated from outside",
}


def describe_exit(returncode: int) -> str:
    """'failed with exit code 3', or for a negative code (killed by signal N) the
    signal's name and meaning: 'was killed by SIGILL (illegal instruction: ...)'."""
    if returncode >= 0:
        return f"failed with exit code {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        return f"was killed by signal {-returncode}"
    meaning = _SIGNAL_MEANING.get(name)
    return f"was killed by {name}" + (f" ({meaning})" if meaning else "")


def parse_protocol(text: str) -> ProgramReport:
    """Read the KERNCRAFT_* lines of a benchmark's output (ToolError if missing)."""
    values: dict[str, str] = {}
    for key, value in _LINE.findall(text):
        values[key] = value          # the last one wins
    missing = [k for k in (PROTOCOL_TIME, PROTOCOL_REPETITIONS) if k not in values]
    if missing:
        raise ToolError(f"benchmark output lacks the line(s) {', '.join(missing)} "
                        f"(expected '{PROTOCOL_TIME} <seconds>' and "
                        f"'{PROTOCOL_REPETITIONS} <n>')")
    try:
        seconds = float(values.pop(PROTOCOL_TIME))
        repetitions = int(values.pop(PROTOCOL_REPETITIONS))
        cpu = values.pop(PROTOCOL_CPU_TIME, None)
        cpu_seconds = None if cpu is None else float(cpu)
    except ValueError as exc:
        raise ToolError(f"malformed benchmark protocol line: {exc}") from None
    if not seconds > 0 or repetitions < 1:
        raise ToolError(f"benchmark reported {seconds} s for {repetitions} repetitions")
    return ProgramReport(seconds, repetitions, cpu_seconds, values)


def _with_repetitions(args: Sequence[str], repetitions: int) -> list[str]:
    args = [str(a) for a in args]
    if REPETITIONS_PLACEHOLDER in args:
        return [str(repetitions) if a == REPETITIONS_PLACEHOLDER else a for a in args]
    return [*args, str(repetitions)]


def _effective_seconds(report: ProgramReport, source: TimeSource, threads: int) -> float:
    if source == "wall" or report.cpu_seconds is None or threads != 1:
        if source == "cpu":
            raise ToolError("time_source='cpu' needs a single-threaded program that prints "
                            f"{PROTOCOL_CPU_TIME}")
        return report.seconds
    if source == "cpu":
        return report.cpu_seconds
    return min(report.seconds, report.cpu_seconds)


def measure(executable: str | os.PathLike[str], args: Sequence[str] = (), *,
            clock, cpus: Sequence[int] | None = None,
            min_time: float = 0.2, repeats: int = 3, repetitions: int = 1,
            max_repetitions: int = 1 << 40, threads: int = 1,
            time_source: TimeSource = "auto", timeout: float = 120.0) -> Measurement:
    """Run a protocol-speaking benchmark until a run lasts ``min_time``, best of ``repeats``.

    Repetitions start at ``repetitions`` and grow until one run takes at
    least ``min_time`` seconds; then ``repeats`` runs are made at that count
    and the fastest is kept (interference only ever adds time). Cycles come
    from the calibrated ``clock`` (a
    :class:`~kerncraft.measure.clock.ClockCalibration` of the first pinned CPU, or
    anything with its ``core_hz``). ``threads`` is the number of threads the program runs (CPU time
    is only trusted for one).
    """
    if cpus is None:
        cpus = [default_cpu()]
    reps = max(1, int(repetitions))
    for _ in range(64):
        report = parse_protocol(run_pinned([executable, *_with_repetitions(args, reps)], cpus,
                                           timeout=timeout))
        reps = report.repetitions
        # scale on the time that will be used: a preempted run's wall time would stop the
        # growth early, and the undisturbed repeats would then be shorter than min_time
        seconds = max(_effective_seconds(report, time_source, threads), 1e-9)
        if seconds >= min_time or reps >= max_repetitions:
            break
        grow = min(100.0, max(2.0, 1.2 * min_time / seconds))
        reps = min(max_repetitions, int(math.ceil(reps * grow)))
    reports = [report]
    for _ in range(max(1, repeats) - 1):
        reports.append(parse_protocol(run_pinned(
            [executable, *_with_repetitions(args, reps)], cpus, timeout=timeout)))
    reports = [r for r in reports if r.repetitions == reps] or reports
    best = min(reports, key=lambda r: _effective_seconds(r, time_source, threads))
    seconds = _effective_seconds(best, time_source, threads)
    cpu_values = [r.cpu_seconds for r in reports if r.cpu_seconds is not None]
    used = "wall" if seconds == best.seconds else "cpu"
    return Measurement(
        seconds=seconds, repetitions=best.repetitions, cycles_total=seconds * clock.core_hz,
        core_hz=clock.core_hz, wall_seconds=min(r.seconds for r in reports),
        cpu_seconds=min(cpu_values) if cpu_values else None, time_source=used,
        runs=len(reports))
