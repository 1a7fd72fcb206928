#!/usr/bin/env python3
"""Validate the in-core prediction on this machine: measured vs predicted cycles
per assembly iteration for bundled kernels with data in L1.

For every (kernel, flags) case:

1. **Prediction** -- ``kerncraft.models.incore_prediction.predict_incore`` on
   ``machine-files/ICX-VM.yml`` (in-core model ``kerncraft: ICX``) with the same
   compiler flags: the pipeline compiles the generated C, selects the loop block
   (iterations per assembly iteration) and analyses it. Prediction =
   max(TP, LCD, front end) cycles per assembly iteration.
2. **Benchmark** -- the same kernel as a benchmark program
   (``kerncraft.benchmark.program.build_benchmark``: ``codegen.generate_c(...,
   for_benchmark=True)`` + ``codegen.SUPPORT_C`` + warm-up phase), with sizes such
   that everything the nest touches fits into the 48 KiB L1. Its assembly is
   compiled as well and its innermost loop compared with the analysed one (the
   repetition loop around the nest could change the compiler's code).
3. **Measurement** -- pinned (``taskset``) under ``chrt -f 50`` (other processes of
   the shared VM cannot preempt it), repetitions scaled so one run lasts at least
   ``--min-time`` (0.2 s), min(wall, CPU time), best of ``--passes`` (5) passes over
   all cases (other jobs on the shared VM disturb single runs by up to 20 %).
   Seconds become cycles with the core clock calibrated by
   ``kerncraft.measure.clock.calibrate_clock`` (dependent-add chain; the core
   clock is not the TSC: 3.49 vs 2.79 GHz on this host). Loops with 512-bit
   instructions may run at a lower (AVX-512 licence) clock; for them the table
   also gives the cycles at the clock measured while AVX-512 code runs
   (``calibrate_clock(kind='avx512')``).
   measured cycles per assembly iteration = cycles per repetition /
   (innermost iterations per repetition / iterations per assembly iteration).

Writes the table, the median / worst error and an analysis to
``benchmarks/RESULTS-incore-validation.md``. Takes about 2-3 minutes.

``--probes`` instead runs the microbenchmarks behind the measured values of
``kerncraft/incore/databases/ICX.yml`` (ubench.py harness).

Usage::

    python benchmarks/incore_validation.py [--cpu 1] [--min-time 0.2] [--no-zmm]
    python benchmarks/incore_validation.py --machine ZEN5-VM --output FILE   # another host
    python benchmarks/incore_validation.py --probes
"""
from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from incore_probes import _pinned, _run, loop_probes, probes  # noqa: E402  (script beside this one)
from incore_validation_report import (  # noqa: E402  (script beside this one)
    write_report)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUTPUT = ROOT / "benchmarks" / "RESULTS-incore-validation.md"
BASE_FLAGS = "-march=native -fno-tree-loop-distribute-patterns"
ZMM_FLAGS = "-O3 -march=native -mprefer-vector-width=512 -fno-tree-loop-distribute-patterns"

# kernel -> sizes. Everything the nest touches fits into L1 (48 KiB), inner trip
# counts are multiples of 32 where the bounds allow it (no remainder iterations).
CASES: dict[str, dict[str, int]] = {
    "copy": {"N": 1024},               # 16 KiB
    "update": {"N": 2048},             # 16 KiB
    "add": {"N": 1024},                # 24 KiB
    "triad": {"N": 1024},              # 24 KiB
    "striad": {"N": 1024},             # 32 KiB
    "daxpy": {"N": 1024},              # 16 KiB
    "sum_reduction": {"N": 2048},      # 16 KiB
    "scalar_product": {"N": 1024},     # 16 KiB
    "kahan-dot": {"N": 1024},          # 16 KiB
    "matvec": {"M": 32, "N": 128},     # 33 KiB
    "2d-5pt": {"M": 18, "N": 130},     # 37 KiB, 16 rows of 128
    "gs-2d-5pt": {"M": 34, "N": 130},  # 35 KiB, 32 rows of 128
    "3d-7pt": {"L": 5, "M": 5, "N": 130},      # 35 KiB touched, 9 rows of 128
    "uxx": {"L": 6, "M": 6, "N": 100},          # 33 KiB touched, 4 rows of 96
}
OPT_LEVELS = ("-O1", "-O2", "-O3")
ZMM_KERNELS = ("copy", "triad", "daxpy", "sum_reduction", "scalar_product", "2d-5pt")


@dataclass
class Row:
    kernel: str
    flags: str
    sizes: dict
    ipai: int = 0                     # iterations per assembly iteration
    tp: float = math.nan
    lcd: float = math.nan
    fe: float = math.nan
    pred: float = math.nan
    bound: str = ""
    meas: float = math.nan            # cy / asm iteration at the scalar clock
    meas_avx: float | None = None     # ... at the AVX-512 clock (zmm loops)
    inner_trip: int = 0               # iterations of one innermost loop instance
    asm_iters: float = 0.0            # assembly iterations per repetition
    same_loop: bool = True
    bench_pred: float | None = None   # prediction for the benchmark's own loop if it differs
    zmm: bool = False
    seconds: float = 0.0
    reps: int = 0
    loop_addr: int | None = None      # address and bytes of the loop in the executable
    loop_bytes: int = 0
    windows: int = 0                  # 64-byte blocks the loop body touches
    simd: int = 1
    split_loads: float = 0.0          # fraction of vector loads / stores crossing a line
    split_stores: float = 0.0
    tp_plain: float = 0.0             # TP without line-split cycles
    block_note: bool = False          # the report warned that the loop may be fetch-bound
    tags: list = field(default_factory=list)
    samples: list = field(default_factory=list)   # measured value of every pass
    stack_operand: bool = False       # the loop reads a stack slot (register pressure)
    sim: float = math.nan             # cycle-level simulation, cy per assembly iteration

    @property
    def error(self) -> float:
        return 100.0 * (self.pred - self.meas) / self.meas

    @property
    def sim_error(self) -> float:
        return 100.0 * (self.sim - self.meas) / self.meas


# ---------------------------------------------------------------------- helpers
def _protocol(text: str) -> tuple[float, int]:
    vals = dict(re.findall(r"^(KERNCRAFT_[A-Z_]+)\s+(\S+)\s*$", text, re.M))
    wall = float(vals["KERNCRAFT_TIME"])
    cpu = float(vals.get("KERNCRAFT_CPU_TIME", wall))
    return min(wall, cpu), int(vals["KERNCRAFT_REPETITIONS"])


def _loop_keys(instructions) -> list[str]:
    return [i.form_key for i in instructions]


def locate_loop(executable, instructions) -> tuple[int, int] | None:
    """(start address, bytes) of the selected loop in the linked executable
    (:func:`kerncraft.benchmark.loopsite.locate_loop` on objdump's output).

    Why: on this host the front end delivers one 64-byte block of code per
    cycle, so a loop body that straddles a 64-byte boundary needs at least two
    cycles per iteration. The assembly text does not show where the linker puts
    the loop; objdump does.
    """
    from kerncraft.benchmark.loopsite import locate_loop as find

    try:
        text = _run(["objdump", "-d", "--no-show-raw-insn", str(executable)])
    except Exception:  # noqa: BLE001 - no binutils: the column stays empty
        return None
    return find(text, [i.mnemonic for i in instructions])


def split_fractions(kernel, simd: int) -> tuple[float, float]:
    """Fractions of the vector loads and stores of the nest that cross a 64-byte line
    (the product's estimate, :func:`kerncraft.incore.linesplit.split_fractions`, for
    vectors of ``simd`` doubles)."""
    from kerncraft.incore.linesplit import split_fractions as fractions

    if simd <= 1:
        return 0.0, 0.0
    reads, writes, _ = fractions(kernel, 8 * simd)
    return reads or 0.0, writes or 0.0


# ---------------------------------------------------------------------- one case
def run_case(row: Row, machine, db, clock_hz: float, cpu: int, min_time: float,
             runs: int, realtime: bool) -> Row:
    import kerncraft
    from kerncraft.compilation.asm_block import select_block
    from kerncraft.benchmark.program import benchmark_source, build_benchmark
    from kerncraft.cache.traffic import iterations_per_cacheline
    from kerncraft.compilation.codegen import program_arguments
    from kerncraft.compilation.compiler import compile_to_assembly
    from kerncraft.incore.analysis import analyze
    from kerncraft.incore.x86.parser import parse_x86
    from kerncraft.models.incore_prediction import predict_incore

    path = ROOT / "kernels" / f"{row.kernel}.c"
    kernel = kerncraft.parse_kernel(path.read_text(), filename=str(path)).bind(row.sizes)
    ipc = iterations_per_cacheline(kernel, machine.cacheline_size)
    pred = predict_incore(kernel, machine, compiler="gcc", flags=row.flags,
                          iterations_per_cacheline=ipc)
    sel, ana = pred.selection, pred.analysis
    row.sim = predict_incore(kernel, machine, compiler="gcc", flags=row.flags,
                             iterations_per_cacheline=ipc, incore_model="kerncraft-sim").simulated
    row.ipai = int(sel.iterations_per_asm_iteration)
    row.tp, row.lcd, row.fe = pred.throughput, ana.lcd or 0.0, ana.frontend or 0.0
    row.tp_plain = ana.throughput         # without the line-split cycles
    row.block_note = any("code blocks" in note for note in pred.notes)
    bounds = {"TP": row.tp, "LCD": row.lcd, "FE": row.fe}
    row.bound = max(bounds, key=bounds.get)
    row.pred = bounds[row.bound]
    keys = _loop_keys(sel.instructions)
    row.zmm = any("zmm" in k for k in keys)

    # the benchmark's own loop (same generator, repetition loop around the nest)
    source = benchmark_source(kernel)
    bench_asm = compile_to_assembly(source, "gcc", row.flags).assembly
    bsel = select_block(parse_x86(bench_asm), kernel)
    row.same_loop = _loop_keys(bsel.instructions) == keys
    row.stack_operand = any("%rsp" in i.text for i in bsel.instructions)
    if not row.same_loop:
        b = analyze(bsel.instructions, db)
        row.bench_pred = max(b.throughput, b.lcd or 0.0, b.frontend or 0.0)
        row.ipai = int(bsel.iterations_per_asm_iteration)   # measured loop's own work

    row.simd = int((bsel if not row.same_loop else sel).simd_width)
    try:
        row.split_loads, row.split_stores = split_fractions(kernel, row.simd)
    except Exception:  # noqa: BLE001 - non-rectangular nest
        pass
    total = int(kernel.iteration_count())
    row.inner_trip = int(kernel.loops[-1].trip_count())
    row.asm_iters = total / row.ipai

    prog = build_benchmark(kernel, compiler="gcc", flags=row.flags.split())
    where = locate_loop(prog.executable, bsel.instructions)
    if where is not None:
        row.loop_addr, row.loop_bytes = where
        row.windows = ((row.loop_addr + row.loop_bytes - 1) >> 6) - (row.loop_addr >> 6) + 1
    args = program_arguments(kernel)
    est = max(row.pred, 0.5) * row.asm_iters + 30.0          # cycles per repetition
    reps = max(1, int(0.3 * min_time * clock_hz / est))
    for _ in range(8):
        t, reps = _protocol(_run(_pinned([prog.executable, *args, reps], cpu, realtime)))
        if t >= min_time:
            break
        reps = int(math.ceil(reps * min(50.0, 1.15 * min_time / t)))
    best = t
    for _ in range(runs - 1):
        t2, _r = _protocol(_run(_pinned([prog.executable, *args, reps], cpu, realtime)))
        best = min(best, t2)
    row.seconds, row.reps = best, reps
    cycles_per_rep = best / reps * clock_hz
    row.meas = cycles_per_rep / row.asm_iters
    return row


def diagnose(row: Row) -> list[str]:
    """Short tags for what may explain the error of a row."""
    tags = []
    per_instance = row.inner_trip / row.ipai
    if per_instance < 40:
        tags.append(f"short loop ({per_instance:.0f} asm it. per inner loop)")
    if row.inner_trip % row.ipai:
        tags.append(f"remainder {row.inner_trip % row.ipai} it.")
    if row.zmm and row.meas_avx is not None:
        tags.append("AVX-512 clock")
    if row.bound == "FE" or (row.fe >= 0.9 * row.pred):
        tags.append("FE bound = prediction")
    if row.bound == "LCD":
        tags.append("LCD-bound")
    if row.split_loads or row.split_stores:
        tags.append(f"line splits: {100 * row.split_loads:.0f} % of loads, "
                    f"{100 * row.split_stores:.0f} % of stores"
                    + (f" (TP without them {row.tp_plain:.2f})" if row.tp != row.tp_plain else ""))
    if row.bound == "LCD" and row.meas < 0.9 * row.pred and row.inner_trip / row.ipai < 200:
        tags.append("LCD chains of consecutive inner loops overlap")
    if row.stack_operand:
        tags.append("stack-slot operand in the loop")
    if len(row.samples) > 1 and max(row.samples) > 1.1 * min(row.samples):
        tags.append(f"passes {min(row.samples):.2f}-{max(row.samples):.2f}")
    if row.windows > 1 and row.windows > row.pred:
        tags.append(f"loop spans {row.windows} 64-B blocks (>= {row.windows} cy)")
    if row.block_note:
        tags.append("report note: may be fetch-bound")
    if not row.same_loop:
        tags.append("benchmark loop differs")
    return tags


# ---------------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default: the last one)")
    ap.add_argument("--min-time", type=float, default=0.2, help="seconds per run (0.2)")
    ap.add_argument("--runs", type=int, default=1, help="runs per case and pass, best kept (1)")
    ap.add_argument("--passes", type=int, default=5, help="passes over all cases, best kept (5)")
    ap.add_argument("--no-zmm", action="store_true", help="skip the 512-bit rows")
    ap.add_argument("--no-realtime", action="store_true", help="do not use 'chrt -f 50'")
    ap.add_argument("--only", nargs="*",
                    help="kernel names (with --probes: substrings of probe names)")
    ap.add_argument("--output", default=str(OUTPUT))
    ap.add_argument("--machine", default="ICX-VM",
                    help="machine file of this host (default ICX-VM, the host of the first "
                         "sessions); its in-core model names the database")
    ap.add_argument("--no-avx512-clock", dest="avx512_clock", action="store_false",
                    help="no AVX-512 licence clock column (Intel only: on Zen 5 the "
                         "dependent vpaddq zmm chain runs at 2 cy per add, not at a lower clock)")
    ap.add_argument("--no-analysis", dest="analysis", action="store_false",
                    help="leave out the written analysis (it belongs to the ICX-VM table)")
    ap.add_argument("--probes", action="store_true", help="run the ICX.yml microbenchmarks")
    ap.add_argument("--no-loop-probes", action="store_true",
                    help="leave the isolated loops out of the report")
    ap.add_argument("--loop-probes", action="store_true",
                    help="run the small asm loops behind the report's explanations")
    args = ap.parse_args(argv)
    cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
    args.cpu = cpu
    if args.probes:
        probes(str(cpu), args.only)
        return 0
    if args.loop_probes:
        loop_probes(str(cpu))
        return 0

    import kerncraft
    from kerncraft.measure.clock import calibrate_clock, measure_fma_throughput
    from kerncraft.incore.database import load_database

    realtime = not args.no_realtime and shutil.which("chrt") is not None
    if realtime and subprocess.run(["chrt", "-f", "50", "true"]).returncode != 0:
        print("# chrt -f 50 not permitted; running without realtime priority")
        realtime = False
        args.no_realtime = True
    start = time.time()
    from kerncraft.models.incore_ports import resolve_database
    machine = kerncraft.load_machine(args.machine)
    args.db = resolve_database(machine)
    db = load_database(args.db)
    cal = calibrate_clock(duration=0.1, repetitions=3, cpu=cpu)
    clocks = {"scalar": cal.core_hz, "tsc": cal.tsc_hz or math.nan}
    try:
        if not args.avx512_clock:
            raise RuntimeError("not measured (--no-avx512-clock)")
        clocks["avx512"] = calibrate_clock(duration=0.1, repetitions=3, cpu=cpu,
                                           kind="avx512").core_hz
        fma = measure_fma_throughput(cal, duration=0.1, repetitions=3, cpu=cpu)
        clocks["fma"], clocks["fma_per_cycle"] = fma.fma_clock_hz, fma.fma_per_scalar_cycle
    except Exception as exc:  # noqa: BLE001 - no AVX-512
        print(f"# no AVX-512 clock: {exc}")
        clocks.update(avx512=math.nan, fma=math.nan, fma_per_cycle=math.nan)
    print(f"# core clock {cal.core_hz / 1e9:.3f} GHz (TSC {clocks['tsc'] / 1e9:.3f} GHz), "
          f"AVX-512 {clocks['avx512'] / 1e9:.3f} GHz", flush=True)

    cases = []
    for name, sizes in CASES.items():
        if args.only and name not in args.only:
            continue
        for opt in OPT_LEVELS:
            cases.append(Row(name, f"{opt} {BASE_FLAGS}", dict(sizes)))
        if not args.no_zmm and name in ZMM_KERNELS:
            cases.append(Row(name, ZMM_FLAGS, dict(sizes)))
    # Several passes over all cases, the fastest of each kept: a case disturbed by
    # other load on the shared VM in one pass is usually undisturbed in another.
    done: dict[int, Row] = {}
    for pas in range(args.passes):
        for idx, template in enumerate(cases):
            row = Row(template.kernel, template.flags, dict(template.sizes))
            try:
                run_case(row, machine, db, cal.core_hz, cpu, args.min_time, args.runs, realtime)
            except Exception as exc:  # noqa: BLE001 - report and go on
                print(f"# {row.kernel} {row.flags}: FAILED: {exc}", flush=True)
                continue
            old = done.get(idx)
            if old is not None:
                row.samples = old.samples
                if old.meas <= row.meas:
                    old.samples.append(row.meas)
                    continue
            row.samples.append(row.meas)
            done[idx] = row
            print(f"[{pas + 1}] {row.kernel:15s} {row.flags.replace(BASE_FLAGS, '').strip():28s} "
                  f"ipai {row.ipai:3d} TP {row.tp:6.2f} LCD {row.lcd:6.2f} FE {row.fe:6.2f} "
                  f"pred {row.pred:6.2f} meas {row.meas:6.2f} err {row.error:+6.1f} %", flush=True)
    rows = [done[i] for i in sorted(done)]
    for row in rows:
        if row.zmm and not math.isnan(clocks["avx512"]):
            row.meas_avx = row.meas * clocks["avx512"] / cal.core_hz
        row.tags = diagnose(row)
    clocks["scalar_after"] = calibrate_clock(duration=0.1, repetitions=3, cpu=cpu).core_hz
    if not rows:
        return 1
    loops = [] if args.no_loop_probes else loop_probes(str(cpu))
    text = write_report(rows, clocks, args, time.time() - start, loops)
    Path(args.output).write_text(text)
    errors = [abs(r.error) for r in rows]
    print(f"# {len(rows)} loops: median |error| {statistics.median(errors):.1f} %, "
          f"worst {max(errors):.1f} %; written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
