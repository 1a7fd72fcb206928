"""``kerncraft-machine``: measure this host and write a Kerncraft machine file.

Entry point ``kerncraft-machine = "kerncraft.cli.machine:main"``. Progress goes
to stderr; the file goes to ``--output`` (never overwritten without
``--force``) or to stdout. ``--clock`` only calibrates and reports the clock,
``--probe`` only reports the likwid status and the detected topology.

The expected durations in ``--help`` were measured on the development host
(2 cores of an AMD EPYC Zen 5 VM, 32 MiB L3): see :data:`QUICK_SECONDS` and
:data:`FULL_SECONDS`. They grow with the core count (every level and kernel
is measured on 1..n cores) and with the last-level cache (the sweep reaches
8 x its size).
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Sequence

from kerncraft.errors import KerncraftError
from kerncraft.userfiles import display_name, write_output

__all__ = ["main", "build_parser", "QUICK_SECONDS", "FULL_SECONDS"]

#: Wall times of 'kerncraft-machine --quick' and of a default run on the development host
#: (2026-11-24, load average 1.4-2.6 from other work): quick 12.2 s and 17.5 s, default 25.4 s.
#: Where the quick run's time goes: load check 0.5 s, clock and FMA 0.9 s, sweep of 31 sizes
#: 4.1 s, L1/L2/L3/MEM tables (5 kernels x 2 core counts, two agreeing runs each) 6.6 s.
#: Evening session (quiet host): L2 and L3 at three working sets each and six runs per
#: multi-core memory point made them quick 25.0 s, default 45 s. Night session: timed
#: chunks of a quarter of the measuring time (sustained bandwidths, streams.CHUNK_SHARE)
#: and the second L1 pass: quick 36.1 s, default 59.5-59.6 s (two runs). 2026-11-28 (Zen 5,
#: load 0.8-1.6, memory-order calibration added): 68-73 s; with the second pass of the
#: one-core memory points as well: 65 s.
QUICK_SECONDS = "about 36 s"
FULL_SECONDS = "about 67 s"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kerncraft-machine",
        description="Measure this host (clock, caches, streaming bandwidths) and write a "
                    "Kerncraft-format machine file. A default run took "
                    f"{FULL_SECONDS} on a 2-core AMD EPYC (Zen 5) VM, --quick {QUICK_SECONDS}; "
                    "both grow with the core count. Before measuring, the load is checked "
                    "(a busy machine gives a warning, with --strict an error) and real-time "
                    "priority is tried (root or CAP_SYS_NICE).")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the machine file here (default: standard output)")
    parser.add_argument("-f", "--force", action="store_true",
                        help="overwrite an existing --output file")
    parser.add_argument("--quick", action="store_true",
                        help="fewer sweep sizes, shorter runs, at most 3 runs per point: a first "
                             f"look ({QUICK_SECONDS} on the development host); every level "
                             "still gets all five kernels on 1..n cores")
    parser.add_argument("--strict", action="store_true",
                        help="refuse to measure (exit 2) when the machine is busy: load above "
                             "0.5 per core besides this process, or another process above 20 %% "
                             "CPU")
    parser.add_argument("--no-realtime", action="store_true",
                        help="do not try real-time priority (SCHED_FIFO 50, as chrt -f 50)")
    parser.add_argument("--no-calibration", action="store_true",
                        help="skip the in-core calibration (written beside the -o file)")
    parser.add_argument("--no-likwid", action="store_true",
                        help="use neither likwid-bench nor likwid-topology, only the built-in "
                             "benchmarks and sysfs")
    parser.add_argument("--bench", choices=("auto", "likwid", "builtin"), default="auto",
                        help="streaming benchmark backend (auto: likwid-bench if installed)")
    parser.add_argument("--max-cores", type=int, metavar="N",
                        help="measure on 1..N cores (default: all cores of a socket)")
    parser.add_argument("--fma-units", type=int, choices=(1, 2), metavar="N",
                        help="FMA units per core, instead of measuring/assuming them")
    parser.add_argument("--duration", type=float, metavar="SECONDS",
                        help="measuring time per point and run (default 0.1, quick 0.05)")
    parser.add_argument("--repeats", type=int, metavar="N",
                        help="runs inside one try of a bandwidth point, best counts (default 1)")
    parser.add_argument("--max-tries", type=int, metavar="N",
                        help="tries per bandwidth point until two agree within 5 %% "
                             "(default 5, quick 3; at least 2)")
    parser.add_argument("--clock", action="store_true",
                        help="only calibrate the core clock and print the result")
    parser.add_argument("--probe", action="store_true",
                        help="only report topology, ISA and whether likwid works")
    return parser


def _clock_report() -> str:
    from kerncraft.measure.clock import (calibrate_clock, describe_calibration,
                                       measure_fma_throughput)
    from kerncraft.measure.topology import cpu_flags
    calibration = calibrate_clock()
    text = [describe_calibration(calibration)]
    if "avx512f" in cpu_flags():
        avx = calibrate_clock(kind="avx512", repetitions=3)
        fma = measure_fma_throughput(calibration)
        text.append(f"AVX-512 clock (vpaddq zmm chain): {avx.core_hz / 1e9:.3f} GHz "
                    f"(spread {100 * avx.spread:.1f} %)")
        text.append(f"FMA: {fma.fma_per_second / 1e9:.2f} G/s = {fma.fma_per_scalar_cycle:.2f} "
                    f"per scalar cycle -> {fma.fma_units} unit(s), about "
                    f"{fma.fma_clock_hz / 1e9:.2f} GHz under FMA load")
    return "\n".join(text)


def _probe_report(use_likwid: bool) -> str:
    from kerncraft.measure.likwid import probe_likwid
    from kerncraft.measure.march import choose_compiler_flags
    from kerncraft.measure.topology import detect_topology, flops_per_cycle
    topo = detect_topology(use_likwid=use_likwid)
    probe = probe_likwid(cpu=topo.core_cpus[0])
    flops = flops_per_cycle(topo.flags)
    lines = [f"CPU: {topo.model_name} -- {topo.uarch.name} ({topo.uarch.core}), "
             f"in-core model {topo.uarch.incore_model or 'none'}",
             f"topology ({topo.source}): {topo.sockets} socket(s), {topo.cores_per_socket} "
             f"cores/socket, {topo.threads_per_core} threads/core, {topo.numa_domains} NUMA "
             f"domain(s); benchmark CPUs {', '.join(map(str, topo.core_cpus))}",
             "caches: " + "; ".join(f"{c.name} {c.size // 1024} KiB ({c.ways}-way, "
                                    f"{c.instances} instance(s))" for c in topo.caches),
             f"ISA: {' '.join(topo.isa_extensions())}; peak DP {flops.dp['total']} FLOP/cy "
             f"({flops.assumption})",
             f"likwid: perfctr {'usable' if probe.perfctr else 'not usable'} ({probe.reason}); "
             f"likwid-bench {'installed' if probe.bench else 'missing'}"]
    if topo.uarch.identification:
        lines.append(("WARNING: no core class fits this CPU: " if topo.uarch.generic
                      else "core class: ") + topo.uarch.identification)
    overlap = ", ".join(f"{f.level} {'yes' if f.overlaps else 'no'}" for f in topo.uarch.overlap)
    lines.append(f"ECM transfers overlap: {overlap or 'unknown core (assumed no)'}")
    lines.extend(f"compiler flags: {c.compiler} {c.flags} ({c.note})"
                 for c in choose_compiler_flags(topo.uarch))
    lines.extend(f"note: {n}" for n in topo.notes)
    return "\n".join(lines)


def _generate(args: argparse.Namespace, argv: Sequence[str]) -> str:
    from kerncraft.machinegen.generate import GenerationPlan, generate_machine_file, host_probes
    plan = GenerationPlan.quick() if args.quick else GenerationPlan()
    changes = {}
    if args.max_cores:
        changes["max_cores"] = args.max_cores
    if args.duration:
        changes["duration"] = args.duration
    if args.repeats:
        changes["repeats"] = args.repeats
    if args.max_tries:
        changes["max_tries"] = max(2, args.max_tries)
    if args.strict:
        changes["strict"] = True
    if changes:
        plan = GenerationPlan(**{**plan.__dict__, **changes})
    backend = "builtin" if args.no_likwid else args.bench
    probes = host_probes(use_likwid=not args.no_likwid, backend=backend,
                         realtime=not args.no_realtime)
    command = shlex.join(["kerncraft-machine", *argv])
    return generate_machine_file(plan, probes, fma_units=args.fma_units, command=command)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(args_list)
    try:
        if args.clock:
            print(_clock_report())
            return 0
        if args.probe:
            print(_probe_report(not args.no_likwid))
            return 0
        output = Path(args.output) if args.output else None
        if output is not None and output.exists() and not args.force:
            print(f"kerncraft-machine: {output} exists; use --force to overwrite it",
                  file=sys.stderr)
            return 2
        text = _generate(args, args_list)
        if not args.no_calibration:     # last step: the in-core calibration beside the file
            from kerncraft.machinegen.incore_calibration import calibrate_machine_file
            text = calibrate_machine_file(text, output, quick=args.quick,
                                          realtime=not args.no_realtime)
        if output is None:
            sys.stdout.write(text)
        else:
            write_output(output, text, f"machine file {display_name(output)}")
            print(f"wrote {display_name(output)}", file=sys.stderr)
        return 0
    except KerncraftError as exc:
        print(f"kerncraft-machine: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("kerncraft-machine: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":      # pragma: no cover
    sys.exit(main())
