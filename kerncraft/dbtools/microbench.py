"""Latency and throughput microbenchmarks of one instruction form, timed without counters.

``kerncraft-incore bench ARCH FORM`` measures an instruction form (a database key
such as ``'addq r64,r64'`` or ``'vfmadd231pd mem,ymm,ymm'``) on the machine it
runs on and prints the result beside the values the port model ``ARCH`` has
for it. The same building blocks time any assembly loop (:func:`build_program`,
:func:`min_seconds`), e.g. the memory-dependency cases of
``tests/data/asm_memdeps``.

Method
------
* A loop body of :data:`UNROLL` instances of the form is generated in AT&T
  syntax. *Latency*: every instance reads the register the previous one wrote
  (the destination itself when the instruction reads it -- ``addq %rbx,%rcx``
  --, else a source of the destination's class is given the destination's
  register -- ``vaddpd %ymm14,%ymm0,%ymm0``); a pure GPR load becomes a pointer
  chase ``movq (%rax),%rax``. Memory sources stay off the chain, so the result is
  the register-to-register latency, the database's ``lat``. *Throughput*: the
  destinations rotate over 8 (GPR) or 12 (vector) registers and the sources are
  registers no instance writes; memory sources rotate over 64 L1-resident
  cache lines, memory destinations over 64 slots 32 bytes apart (two per line, as
  in streaming code).
* A small C harness (:data:`HARNESS_C`) calls the loop ``reps`` times with a
  64 KiB buffer and prints the *minimum* time of one call: interference only
  ever adds time. It runs pinned (``taskset``) and, where allowed, under
  ``chrt -f 50`` so other processes cannot preempt it.
* Seconds become cycles with the core clock calibrated by
  :func:`kerncraft.measure.clock.calibrate_clock` on the same CPU (a dependent
  ``add`` chain, 1 cycle per add), no hardware counters needed.

Limits: branches, divisions with implicit ``rdx:rax`` operands and forms with
two memory operands are refused; only x86-64 hosts are supported.

The loop bodies and the harness text are generated in
:mod:`kerncraft.dbtools.microbench_forms` (re-exported here).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from kerncraft.dbtools.microbench_forms import (HARNESS_C, UNROLL, FormBenchmark,  # noqa: F401
                                              generate, loop_assembly)
from kerncraft.errors import ToolError

if TYPE_CHECKING:
    from kerncraft.incore.protocols import PortModelLike

__all__ = ["UNROLL", "HARNESS_C", "FormBenchmark", "FormResult", "generate", "build_program",
           "min_seconds", "measure_body", "bench_form", "format_result", "realtime_prefix"]


def _cache_dir() -> Path:
    from kerncraft.measure.timing import bench_cache_dir
    return bench_cache_dir()


def build_program(asm: str | Mapping[str, str], c_sources: Mapping[str, str] | None = None,
                  *, flags: Sequence[str] = ("-O2",), compiler: str = "gcc") -> Path:
    """Compile the timing harness plus assembly (and C) sources into an executable.

    ``asm`` is assembly text or ``{file name: text}``; ``c_sources`` are extra C
    files (``{name: text}``; the default harness is always added unless one of
    them defines ``main``). Executables are cached by content in the private
    benchmark cache directory.
    """
    from kerncraft.measure.timing import find_c_compiler
    path = find_c_compiler(compiler)
    asm_files = {"bench.s": asm} if isinstance(asm, str) else dict(asm)
    c_files = dict(c_sources or {})
    if not any(re.search(r"\bint\s+main\s*\(", text) for text in c_files.values()):
        c_files["kc_harness.c"] = HARNESS_C
    key = hashlib.sha256(repr((path, list(flags), sorted(asm_files.items()),
                               sorted(c_files.items()))).encode()).hexdigest()[:32]
    if any("native" in f for f in flags):
        from kerncraft.measure.timing import host_cpu_fingerprint
        key = hashlib.sha256((key + host_cpu_fingerprint()).encode()).hexdigest()[:32]
    target = _cache_dir() / f"ubench-{key}"
    if target.is_file() and os.access(target, os.X_OK):
        return target
    with tempfile.TemporaryDirectory(prefix="kerncraft-ubench-") as tmp:
        names = []
        for name, text in {**asm_files, **c_files}.items():
            Path(tmp, name).write_text(text, encoding="utf-8")
            names.append(name)
        exe = Path(tmp, "prog")
        proc = subprocess.run([path, *flags, *names, "-o", str(exe)], cwd=tmp,
                              capture_output=True, text=True, timeout=300, check=False)
        if proc.returncode != 0 or not exe.is_file():
            msg = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[:8])
            raise ToolError(f"could not build the microbenchmark:\n{msg}")
        staged = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        shutil.copy2(exe, staged)
        os.replace(staged, target)
    return target


_REALTIME: list[str] | None = None


def realtime_prefix() -> list[str]:
    """``['chrt', '-f', '50']`` if real-time scheduling is allowed here, else ``[]``."""
    global _REALTIME
    if _REALTIME is None:
        chrt = shutil.which("chrt")
        ok = False
        if chrt:
            try:
                ok = subprocess.run([chrt, "-f", "50", "true"], capture_output=True,
                                    timeout=10).returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                ok = False
        _REALTIME = [chrt, "-f", "50"] if ok and chrt else []
    return list(_REALTIME)


def min_seconds(exe: str | os.PathLike, iterations: int, repetitions: int, *,
                cpu: int | None = None, realtime: bool = True, extra_args: Sequence[str] = ()
                ) -> float:
    """Minimum time of one ``bench(iterations)`` call over ``repetitions`` calls."""
    from kerncraft.measure.timing import default_cpu, run_pinned
    cpu = default_cpu() if cpu is None else cpu
    argv = [*(realtime_prefix() if realtime else []), str(exe), str(int(iterations)),
            str(int(repetitions)), *extra_args]
    out = run_pinned(argv, [cpu], timeout=300)
    m = re.search(r"KERNCRAFT_MIN_SECONDS\s+(\S+)", out)
    if not m:
        raise ToolError(f"microbenchmark printed no time:\n{out[:300]}")
    return float(m.group(1))


def calibrated_clock(cpu: int | None = None, quick: bool = False) -> float:
    """Core clock in Hz (dependent-add chain, :mod:`kerncraft.measure.clock`)."""
    from kerncraft.measure.clock import calibrate_clock
    from kerncraft.measure.timing import default_cpu
    cpu = default_cpu() if cpu is None else cpu
    cal = calibrate_clock(duration=0.02 if quick else 0.1, repetitions=3 if quick else 5, cpu=cpu)
    return cal.core_hz


def time_loop(exe: Path, work_per_iteration: float, *, core_hz: float, cpu: int | None = None,
              target_seconds: float = 0.002, repetitions: int = 40, realtime: bool = True
              ) -> float:
    """Cycles per unit of work: ``bench(iters)`` does ``iters * work_per_iteration`` units."""
    iters = 100
    t = min_seconds(exe, iters, 3, cpu=cpu, realtime=realtime)
    iters = max(10, int(iters * target_seconds / max(t, 1e-9)))
    t = min_seconds(exe, iters, repetitions, cpu=cpu, realtime=realtime)
    return t * core_hz / (iters * work_per_iteration)


def measure_body(body: Sequence[str], *, core_hz: float, width: str | None = None,
                 cpu: int | None = None, quick: bool = False, realtime: bool = True) -> float:
    """Cycles per instance of a generated loop body."""
    exe = build_program(loop_assembly(body, width))
    return time_loop(exe, len(body), core_hz=core_hz, cpu=cpu,
                     target_seconds=0.0005 if quick else 0.002,
                     repetitions=15 if quick else 60, realtime=realtime)


@dataclass(frozen=True)
class FormResult:
    """Measured and modelled latency / reciprocal throughput of one form (cycles)."""

    arch: str
    form: str
    latency: float | None
    throughput: float | None
    db_latency: float | None = None
    db_load_latency: float | None = None
    db_throughput: float | None = None          # port-balanced from the uops
    db_tp_field: float | None = None            # the entry's 'tp' (informative)
    db_uops: str = ""
    db_store_forward: float | None = None       # the model's store-to-load forwarding latency
    core_hz: float = 0.0
    latency_kind: str = "register"
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _database_values(model: PortModelLike, bench: FormBenchmark) -> dict:
    from kerncraft.incore.protocols import traits_of
    from kerncraft.incore.throughput import balance_ports
    from kerncraft.incore.x86.parser import parse_x86
    ins = next(ln.instruction for ln in parse_x86(bench.throughput_body[0]) if ln.instruction)
    cost = model.lookup(ins)
    if cost is None:
        return {"notes": (f"form {ins.form_key!r} is not in the {model.arch} database",)}
    uops = " + ".join("[" + ",".join(sorted(u.ports)) + "]"
                      + (f"x{u.cycles:g}" if u.cycles != 1 else "") if u.ports else "[]"
                      for u in cost.uops)
    sfl = traits_of(model).store_forward_latency
    return {"db_latency": cost.latency,
            "db_load_latency": cost.load_latency if cost.has_load else None,
            "db_store_forward": sfl,
            "db_throughput": balance_ports([cost.uops], model.ports).throughput,
            "db_tp_field": cost.throughput, "db_uops": uops}


def bench_form(arch: str | PortModelLike, form: str, *, cpu: int | None = None,
               quick: bool = False, realtime: bool = True, core_hz: float | None = None
               ) -> FormResult:
    """Measure latency and throughput of ``form`` here; compare with database ``arch``."""
    from kerncraft.measure.timing import require_x86_64_linux
    require_x86_64_linux("kerncraft-incore bench")
    model = arch
    if isinstance(arch, str):
        from kerncraft.incore.arch import resolve_model
        model = resolve_model(arch)
    bench = generate(form)
    if bench.vector_width == "zmm" or "k" in bench.classes:
        from kerncraft.measure.topology import cpu_flags
        if "avx512f" not in cpu_flags():
            raise ToolError(f"form {form!r} needs AVX-512, which this CPU does not have")
    hz = core_hz or calibrated_clock(cpu, quick)
    lat = tp = None
    if bench.latency_body is not None:
        lat = measure_body(bench.latency_body, core_hz=hz, width=bench.vector_width, cpu=cpu,
                           quick=quick, realtime=realtime)
    if bench.throughput_body is not None:
        tp = measure_body(bench.throughput_body, core_hz=hz, width=bench.vector_width, cpu=cpu,
                          quick=quick, realtime=realtime)
    values = _database_values(model, bench)
    notes = bench.notes + tuple(values.pop("notes", ()))
    return FormResult(arch=model.arch, form=bench.form, latency=lat,
                      throughput=tp, core_hz=hz, latency_kind=bench.latency_kind, notes=notes,
                      **values)


def format_result(r: FormResult) -> str:
    """Human-readable comparison table."""
    def num(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.2f}"

    db_lat = r.db_latency
    if r.latency_kind == "load":
        db_lat = r.db_load_latency
    elif r.latency_kind == "memory":
        db_lat = None if r.db_latency is None or r.db_store_forward is None else \
            r.db_latency + r.db_store_forward
    rows = [f"Instruction form '{r.form}' on this host (core clock {r.core_hz / 1e9:.3f} GHz, "
            f"calibrated) vs. database {r.arch}",
            f"  {'':<26}{'measured':>10}{'database':>10}",
            f"  {'latency [cy]':<26}{num(r.latency):>10}{num(db_lat):>10}",
            f"  {'reciprocal throughput [cy]':<26}{num(r.throughput):>10}"
            f"{num(r.db_throughput):>10}"]
    if r.db_uops:
        rows.append(f"  database uops: {r.db_uops}"
                    + (f"  (entry tp {r.db_tp_field:g})" if r.db_tp_field is not None else ""))
    if r.latency_kind == "memory" and db_lat is not None:
        rows.append(f"  database latency through memory = lat {r.db_latency:g} + store "
                    f"forwarding {r.db_store_forward:g} cy")
    elif r.db_load_latency is not None and r.latency_kind != "load":
        rows.append(f"  database load latency of the memory operand: {r.db_load_latency:g} cy")
    rows += [f"  note: {n}" for n in r.notes]
    return "\n".join(rows) + "\n"
