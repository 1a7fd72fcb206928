"""The text reports of the models, from their typed results.

One function per model (``format_ecm``, ``format_ecm_cpu``, ``format_ecm_data``,
``format_roofline``, ``format_lc``, ``format_benchmark``) and
:func:`format_result` choosing by type; :func:`format_comparison` for prediction
next to measurement. ``verbose`` (the ``-v`` count) adds details; it never
changes a number. The layout of these reports is fixed by golden files
(``tests/data/golden``).

>>> format_value(2.5e9, "It/s"), format_value(3.14159, "cy/CL")
('2.5 GIt/s', '3.14 cy/CL')
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from kerncraft.models.compare import ComparisonRow
from kerncraft.models.ecm_compose import ECMPrediction
from kerncraft.models.results import (BenchmarkResult, ECMCPUResult, ECMDataResult, ECMResult,
                                      LCResult, RooflineResult)
from kerncraft.units import format_quantity

__all__ = ["format_value", "format_result", "format_ecm", "format_ecm_cpu", "format_ecm_data",
           "format_roofline", "format_lc", "format_benchmark", "format_comparison",
           "incore_lines", "backend_incore_lines", "ecm_notation", "ecm_prediction_notation",
           "nontemporal_lines",
           "memory_bound_cores"]

PREDICTOR_NAMES = {"LC": "layer conditions", "SIM": "cache simulation"}


def format_value(value: float, unit: str) -> str:
    """Cycle counts with two decimals (people compare them), rates with SI prefixes."""
    if unit in ("cy/CL", "cy/It"):
        return f"{value:.2f} {unit}"
    return format_quantity(value, unit)


def format_result(result: Any, verbose: int = 0) -> str:
    """The report text of any model result (dispatch on its type).

    >>> format_result(object())
    Traceback (most recent call last):
    ...
    TypeError: no text report for object
    """
    formatter = _FORMATTERS.get(type(result))
    if formatter is None:
        raise TypeError(f"no text report for {type(result).__name__}")
    return formatter(result, verbose)


# ---------------------------------------------------------------- ECM notation

def ecm_notation(ecm: ECMPrediction) -> str:
    """``{T_OL || T_nOL | T_L1L2 | T_L2L3 | T_L3MEM} cy/CL``.

    >>> from kerncraft.models.ecm_compose import ECMContribution, compose_ecm
    >>> ecm = compose_ecm(2.0, 1.0, [ECMContribution("T_L1L2", 3.0, False)], ["L1", "L2"])
    >>> ecm_notation(ecm), ecm_prediction_notation(ecm)
    ('{ 2.00 || 1.00 | 3.00 } cy/CL', '{ 2.00 \u230b 4.00 } cy/CL')
    """
    parts = " | ".join(f"{c.cycles:.2f}" for c in ecm.contributions)
    if ecm.penalty:
        parts += f" + {ecm.penalty:.2f}"
    return f"{{ {ecm.t_ol:.2f} || {ecm.t_nol:.2f} | {parts} }} cy/CL"


def ecm_prediction_notation(ecm: ECMPrediction) -> str:
    """``{T_L1 ⌋ T_L2 ⌋ T_L3 ⌋ T_MEM} cy/CL``."""
    return "{ " + " \u230b ".join(f"{t:.2f}" for t in ecm.predictions) + " } cy/CL"


# ---------------------------------------------------------------- in-core lines

def incore_lines(incore, verbose: int = 0) -> list[str]:
    """The in-core lines of the ECM / ECMCPU report (an ``InCorePrediction``).

    >>> import kerncraft
    >>> result = kerncraft.analyze("kernels/copy.c", "CSX", model="ECM", defines={"N": 10**7})
    >>> print(incore_lines(result.incore)[2])
      T_OL set by port throughput; T_nOL = busiest of ports 2D, 3D
    """
    if incore.incore_model not in ("kerncraft", "kerncraft-sim"):   # llvm-mca / OSACA
        return backend_incore_lines(incore, verbose)
    a = incore.analysis
    scale = incore.per_cacheline
    issue = getattr(a, "memory_issue", None)
    lines = [f"  in-core ({incore.arch}, {incore.compiler} {incore.flags}): "
             f"{incore.selection.iterations_per_asm_iteration} iterations per assembly "
             f"iteration (unroll {incore.selection.unroll} x SIMD {incore.selection.simd_width})",
             f"  per cache line: throughput {incore.throughput * scale:.2f} cy, critical path "
             f"{a.critical_path * scale:.2f} cy, loop-carried dependency {a.lcd * scale:.2f} cy"
             + (f", front end {a.frontend * scale:.2f} cy" if a.frontend else "")
             + (f", memory issue {issue * scale:.2f} cy" if issue else ""),
             f"  T_OL set by {incore.t_ol_source}; T_nOL = " + _t_nol_source(incore)]
    lines += [f"  {incore.calibration.describe()}"] if incore.calibration is not None else []
    split_text = incore.line_splits.describe(incore.arch) if incore.line_splits else ""
    if split_text:
        lines.append(f"  {split_text}")
    if incore.l1_stream is not None:
        lines.append(f"  {incore.l1_stream.describe()}")
    lines += [f"  note: {note}" for note in incore.notes]
    if verbose:
        lines.append("  " + incore.selection.describe().replace("\n", "\n  "))
        from kerncraft.report.incore import format_report
        lines.append(format_report(a, unroll=incore.selection.iterations_per_asm_iteration))
    return lines


def _t_nol_source(incore) -> str:
    """What sets T_nOL: the non-overlapping ports, or the order the loads and stores
    issue in (kerncraft/incore/memissue.py) where that takes longer."""
    ports = f"busiest of ports {', '.join(incore.non_overlapping_ports)}"
    issue = (getattr(incore.analysis, "memory_issue", None) or 0.0) * incore.per_cacheline
    if issue and abs(issue - incore.t_nol) < 1e-9 and issue > max(
            (incore.port_cycles.get(p, 0.0) * incore.per_cacheline
             for p in incore.non_overlapping_ports), default=0.0) + 1e-9:
        return f"memory issue order of the loads and stores (above the {ports})"
    return ports


def backend_incore_lines(incore, verbose: int = 0) -> list[str]:
    """The in-core lines for an external backend (llvm-mca, OSACA)."""
    a = incore.analysis
    scale = incore.per_cacheline

    def cy(value):
        return "n/a" if value is None else f"{value * scale:.2f} cy"

    sel = incore.selection
    lines = [f"  in-core ({incore.arch}, {incore.compiler} {incore.flags}): "
             f"{sel.iterations_per_asm_iteration} iterations per assembly iteration "
             f"(unroll {sel.unroll} x SIMD {sel.simd_width})",
             f"  per cache line: throughput {cy(a.throughput)}, critical path "
             f"{cy(a.critical_path)}, loop-carried dependency {cy(a.lcd)}"
             + (f", front end {cy(a.frontend)}" if a.frontend else "")
             + (f", simulated {cy(a.simulated)}" if a.simulated is not None else ""),
             f"  T_OL set by {incore.t_ol_source}; T_nOL = busiest of ports "
             f"{', '.join(incore.non_overlapping_ports)}"]
    if verbose:
        lines.append("  " + sel.describe().replace("\n", "\n  "))
        lines.append("  port cycles per assembly iteration: " + ", ".join(
            f"{p} {c:.2f}" for p, c in a.port_totals.items()))
        lines += [f"  note: {note}" for note in a.notes]
        if verbose > 1:
            lines.append(a.output.rstrip())
    return lines


# ---------------------------------------------------------------- ECMCPU, ECM

def format_ecm_cpu(result: ECMCPUResult, verbose: int = 0) -> str:
    """The ``-p ECMCPU`` report.

    >>> import kerncraft
    >>> result = kerncraft.analyze("kernels/copy.c", "CSX", model="ECMCPU", defines={"N": 10**7})
    >>> print(format_ecm_cpu(result).splitlines()[0])
    ECMCPU: T_OL = 2.00 cy/CL, T_nOL = 1.00 cy/CL
    """
    lines = [f"ECMCPU: T_OL = {result.t_ol:.2f} cy/CL, T_nOL = {result.t_nol:.2f} cy/CL"]
    if result.unit != "cy/CL":
        lines.append("  = " + ", ".join(
            f"{name} {format_value(v, result.unit)}"
            for name, v in (("T_OL", result.t_ol_in_unit), ("T_nOL", result.t_nol_in_unit))))
    lines += incore_lines(result.prediction, verbose)
    return "\n".join(lines)


def format_ecm(result: ECMResult, verbose: int = 0) -> str:
    """The ``-p ECM`` report: notation, saturation, in-core lines, scaling table.

    >>> import kerncraft
    >>> result = kerncraft.analyze("kernels/copy.c", "CSX", model="ECM", defines={"N": 10**7})
    >>> print(format_ecm(result).splitlines()[1])
    { 2.00 || 1.00 | 3.00 | 8.00 | 8.76 } cy/CL   {T_OL || T_nOL | T_L1L2 | T_L2L3 | T_L3MEM}
    """
    ecm, unit, links = result.ecm, result.unit, result.links
    lines = [f"ECM ({result.incore.arch}, {PREDICTOR_NAMES[result.predictor]})",
             ecm_notation(ecm) + "   {T_OL || T_nOL | "
             + " | ".join(c.name for c in ecm.contributions)
             + (" + T_penalty" if ecm.penalty else "") + "}",
             ecm_prediction_notation(ecm) + "   {"
             + " \u230b ".join(f"T_{lvl}" for lvl in ecm.levels) + "}"]
    if unit != "cy/CL":
        lines.append("{ " + " \u230b ".join(format_value(v, unit)
                                           for v in result.predictions_in_unit) + " }")
    if result.saturation_cores is None and any(row.memory_bound for row in result.scaling):
        # the scaling rows use the traffic of n cores, whose shares of the shared last
        # level shrink: the one-core statement alone would contradict the table
        lines.append("does not saturate the memory interface on one core: no memory traffic "
                     "at this size (one core's data stays in the caches), but each core's "
                     f"share of the shared {result.links[-1].upper} shrinks as cores are "
                     f"added, and the scaling below is memory-bound at "
                     f"{memory_bound_cores(result)} cores")
    elif result.saturation_cores is None:
        lines.append("does not saturate the memory interface: no memory traffic at this size "
                     "(one core's data stays in the caches)")
    elif result.saturation_cores > result.numa_domain_cores:
        lines.append(_unsaturated_line(result))
    else:
        lines.append(f"saturating at {result.saturation_cores} core(s) (T_MEM "
                     f"{ecm.memory_time:.2f} cy/CL / T_L3MEM at saturated bandwidth "
                     f"{result.saturated_memory_cycles:.2f} cy/CL)")
    lines += incore_lines(result.incore, verbose)
    lines += _memory_term_lines(result)
    lines += nontemporal_lines(result.traffic)
    if ecm.penalty:
        memory = links[-1]
        lines.append(f"  T_penalty {ecm.penalty:.2f} cy/CL = {memory.loads:.2f} lines loaded and "
                     f"{memory.stores:.2f} stored per CL x the machine file's penalty cycles per "
                     "cache line (one core's memory latency; in T_MEM only, not in the scaling)")
    lines += [f"  note: {note}" for note in result.traffic.notes if "holds" in note or verbose]
    lines.append(_scaling_table(result))
    cores = result.cores
    lines.append(f"prediction for {cores} core(s): {format_value(result.prediction, unit)}"
                 + (" per core group" if cores > 1 and unit in ("cy/CL", "cy/It") else ""))
    return "\n".join(lines)


def _unsaturated_line(result: ECMResult) -> str:
    """n_s = T_MEM / T_L3MEM,sat exceeds a NUMA domain's cores: no core count of the
    machine saturates it (each domain has its own memory interface), so say that rather
    than a core count the socket does not have."""
    numa, socket = result.numa_domain_cores, result.socket_cores
    ratio = (f"T_MEM {result.ecm.memory_time:.2f} cy/CL / T_L3MEM at saturated bandwidth "
             f"{result.saturated_memory_cycles:.2f} cy/CL")
    bound = [row.cores for row in result.scaling if row.memory_bound]
    if bound:       # n cores' traffic (shrinking shares of shared caches) saturates it
        return (f"does not saturate the memory interface with one core's traffic within a "
                f"NUMA domain's {numa} cores ({ratio}: {result.saturation_cores} cores would); "
                f"with the traffic of n cores the scaling below is memory-bound from "
                f"{min(bound)} cores")
    if numa == socket:
        return (f"does not saturate the memory interface within the socket's {socket} cores "
                f"({ratio}: {result.saturation_cores} cores would)")
    return (f"does not saturate the memory interface within {socket} cores ({numa} per NUMA "
            f"domain, each with its own memory interface; {ratio}: "
            f"{result.saturation_cores} cores per domain would)")


def memory_bound_cores(result: ECMResult) -> str:
    """The core counts of the memory-bound rows of the scaling table, as ranges.

    >>> from types import SimpleNamespace as Row
    >>> memory_bound_cores(Row(scaling=[Row(cores=n, memory_bound=n in (3, 4, 5, 8))
    ...                                 for n in range(1, 9)]))
    '3-5, 8'
    """
    cores = [row.cores for row in result.scaling if row.memory_bound]
    ranges: list[list[int]] = []
    for n in cores:
        if ranges and n == ranges[-1][1] + 1:
            ranges[-1][1] = n
        else:
            ranges.append([n, n])
    return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in ranges)


def nontemporal_lines(traffic) -> list[str]:
    """The line naming the arrays stored non-temporally and why (none without them)."""
    streamed = getattr(traffic, "nontemporal", None)
    return [f"  {streamed.describe()}"] if streamed is not None else []


def _memory_term_lines(result: ECMResult) -> list[str]:
    """Which bandwidth T_L3MEM uses, and why (kerncraft/models/memory_term.py)."""
    link = result.links[-1]
    choice = link.bandwidth_choice
    if choice is None or link.cycles <= 0:       # nothing to say without memory traffic
        return []
    term = result.memory_term
    measured = (f"'{choice.kernel}': {format_quantity(choice.bandwidth, 'B/s')} measured on "
                f"{choice.cores} core(s)")
    if not term.single_core:
        return [f"  {link.name} at the saturated bandwidth of benchmark {measured}",
                *_partial_cores_note(term)]
    why = {"overlapping composition": "overlapping composition: the memory term stands alone",
           "machine file": "the machine file's 'ECM memory bandwidth'"}[term.reason]
    lines = [f"  {link.name} at the single-core bandwidth of benchmark {measured} ({why}; "
             "saturation and scaling use the saturated bandwidth)"]
    if term.penalty_left_out:
        lines.append(f"  T_penalty {term.penalty_left_out:.2f} cy/CL of the machine file not "
                     "added: the single-core bandwidth contains one core's memory latency")
    return lines + _partial_cores_note(term)


def _partial_cores_note(term) -> list[str]:
    """The file could not use every core of the socket (kerncraft-machine pinned, a VM)."""
    if not term.measured_cores:
        return []
    return [f"  note: the machine file's bandwidths were measured on only {term.measured_cores}"
            " cores ('measured cores'): the saturated bandwidth may be higher, the saturation "
            "and the scaling too pessimistic"]


def _scaling_table(result: ECMResult) -> str:
    numa, socket, unit = result.numa_domain_cores, result.socket_cores, result.unit
    rows = [f"scaling (NUMA domain: {numa} cores, socket: {socket} cores)",
            f"  {'cores':>5} {'cy/CL':>8} {unit if unit != 'cy/CL' else '':>14}  bound"]
    for point in result.scaling:
        value = format_value(point.value, unit) if unit != "cy/CL" else ""
        marker = " <- NUMA domain" if point.cores == numa and numa != socket else ""
        rows.append(f"  {point.cores:>5} {point.cycles_per_cl:8.2f} {value:>14}  "
                    f"{'memory' if point.memory_bound else 'core'}{marker}")
    return "\n".join(rows)


# ---------------------------------------------------------------- ECMData

def format_ecm_data(result: ECMDataResult, verbose: int = 0) -> str:
    """The ``-p ECMData`` report: one row per link and the link times in ``unit``.

    >>> import kerncraft
    >>> result = kerncraft.analyze("kernels/copy.c", "CSX", model="ECMData", defines={"N": 10**7})
    >>> print(format_ecm_data(result).splitlines()[5])
      L3-MEM       2.00    1.00    192.0     21.92 B/cy half-duplex     8.76
    """
    unit, links = result.unit, result.links
    lines = [f"ECMData ({PREDICTOR_NAMES[result.predictor]}, {result.cores} core(s), "
             f"{result.iterations_per_cacheline:g} iterations per cache line of work)"]
    lines += [f"  {'link':<9} {'loads':>7} {'stores':>7} {'bytes':>8} {'bandwidth':>14} "
              f"{'duplex':<12} {'cy/CL':>7}",
              f"  {'':<9} {'CL/CL':>7} {'CL/CL':>7} {'B/CL':>8}"]
    for link in links:
        lines.append(f"  {link.upper + '-' + link.lower:<9} {link.loads:7.2f} "
                     f"{link.stores:7.2f} {link.bytes:8.1f} {link.bytes_per_cycle:9.2f} B/cy "
                     f"{link.duplex:<12} {link.cycles:7.2f}")
    names = " | ".join(link.name for link in links)
    numbers = " | ".join(format_value(v, unit).rsplit(" ", 1)[0] if unit in ("cy/CL", "cy/It")
                         else format_value(v, unit) for v in result.values)
    suffix = f" {unit}" if unit in ("cy/CL", "cy/It") else ""
    lines.append(f"{{ {numbers} }}{suffix}   ({names})")
    for link in links:
        if link.bandwidth_choice is not None and verbose:
            lines.append(f"  memory bandwidth: {link.bandwidth_choice.explanation}")
    lines += nontemporal_lines(result.traffic)
    lines += [f"  note: {note}" for note in result.traffic.notes]
    return "\n".join(lines)


# ---------------------------------------------------------------- Roofline

def _level_table(result: RooflineResult) -> list[str]:
    """Header and one row per memory level (shared by both Roofline reports)."""
    rows = [f"  {'level':<6} {'bytes/CL':>9} {'bandwidth':>12} {'kernel':<8} {'AI FLOP/B':>9} "
            f"{'cy/CL':>7}  performance"]
    for lvl, value in zip(result.levels, result.level_performance):
        rows.append(f"  {lvl.level:<6} {lvl.bytes:9.1f} "
                    f"{format_quantity(lvl.bandwidth, 'B/s'):>12} "
                    f"{lvl.benchmark_kernel:<8} {lvl.arithmetic_intensity:9.4g} "
                    f"{lvl.cycles:7.2f}  {format_quantity(value, result.unit)}")
    return rows


def format_roofline(result: RooflineResult, verbose: int = 0) -> str:
    """The ``-p RooflineFLOP`` or ``-p RooflineASM`` report.

    >>> import kerncraft
    >>> result = kerncraft.analyze("kernels/copy.c", "CSX", model="RooflineASM", defines={"N": 10**7})
    >>> format_roofline(result).splitlines()[-2:]
    ['Bottleneck: MEM', 'Performance: 910 MIt/s']
    """
    unit, compute = result.unit, result.compute_cycles_per_cl
    if result.model == "RooflineASM":
        lines = [f"RooflineASM ({result.cores} core(s), in-core model {result.incore.arch})",
                 *_level_table(result),
                 f"  {'CPU':<6} {'':>9} {'':>12} {'in-core':<8} {'':>9} {compute:7.2f}  "
                 f"{format_quantity(result.compute_performance, unit)}",
                 f"Bottleneck: {result.bottleneck}",
                 f"Performance: {format_quantity(result.performance, unit)}"]
        return "\n".join(lines)
    peak = format_quantity(result.peak_flops_per_cycle * result.clock_hz, "FLOP/s")
    ceiling = format_quantity(result.compute_performance, unit) if compute else "unbounded"
    lines = [f"RooflineFLOP ({result.cores} core(s), {result.precision} peak {peak})",
             *_level_table(result),
             f"  {'CPU':<6} {'':>9} {'':>12} {'peak':<8} {'':>9} {compute:7.2f}  {ceiling}",
             f"Bottleneck: {result.bottleneck}, arithmetic intensity "
             f"{result.arithmetic_intensity:.4g} FLOP/B",
             f"Performance: {format_quantity(result.performance, unit)}"]
    lines += [f"  note: {note}" for note in result.traffic.notes]
    return "\n".join(lines)


# ---------------------------------------------------------------- LC

def _short(text: str, width: int) -> str:
    """Cut ``text`` to ``width`` characters (table cells only; full text is in JSON)."""
    return text if len(text) <= width else text[: width - 3] + "..."


def format_lc(result: LCResult, verbose: int = 0) -> str:
    """The ``-p LC`` report: conditions per level, traffic, notes.

    >>> import kerncraft
    >>> result = kerncraft.analyze("kernels/copy.c", "CSX", model="LC", defines={"N": 10**7})
    >>> print(format_lc(result).splitlines()[4])
    -> 0  -                                         0 B  yes    2.00   1.00   1.00
    """
    analysis, point = result.analysis, result.point
    u = analysis.unit_of_work
    at = " ".join(f"{k}={v}" for k, v in sorted(point.bindings.items())) or "(no constants)"
    lines = [f"Layer conditions (LC) at {at}, cores={analysis.cores}; traffic in cache lines "
             f"per unit of work ({u} iterations)"]
    for cap in analysis.capacities:
        lines += _lc_level_lines(analysis, point, cap, u)
    lines.append("")
    lines.append(f"  {'level':<6}{'loads':>8}{'stores':>8}{'misses':>8}{'evicts':>8}  loaded from")
    for lvl in point.traffic.levels:
        src = ", ".join(f"{k} {v:.2f}" for k, v in lvl.load_sources) or "next level"
        lines.append(f"  {lvl.level:<6}{lvl.loads:>8.2f}{lvl.stores:>8.2f}{lvl.misses:>8.2f}"
                     f"{lvl.evictions:>8.2f}  {src}")
    lines += nontemporal_lines(point.traffic)
    notes = [n for n in point.traffic.notes if not n.startswith("LC capacities")]
    if notes:
        lines.append("Notes:")
        lines.extend(f"  - {n}" for n in notes)
    return "\n".join(lines)


def _lc_level_lines(analysis, point, cap, u) -> list[str]:
    # the byte format of the predictor's own notes, so report and notes agree (imported
    # here: that module brings sympy)
    from kerncraft.cache.lc_flags import format_bytes

    held = point.holding[cap.name]
    lines = ["", cap.describe(),
             f"  {'#':>2}  {'reuse window':<34} {'footprint':>10}  {'fits':<4} "
             f"{'misses':>6} {'stores':>6} {'evicts':>6}"]
    for cond in analysis.conditions[cap.name]:
        foot = point.footprints[cond.index]
        misses, stores, evicts = point.condition_values(cap, cond.index, u)
        mark = "->" if cond.index == held else "  "
        fits = "yes" if foot <= cap.usable else "no"
        window = cond.window if cond.index == 0 else f"{cond.window} ({cond.threshold_text} it)"
        lines.append(f"{mark}{cond.index:>2}  {_short(window, 34):<34} {format_bytes(foot):>10}  "
                     f"{fits:<4} {misses:>6.2f} {stores:>6.2f} {evicts:>6.2f}")
        if cond.index:
            lines.append(f"{'':6}condition: {cond.inequality_text}")
            lines.append(f"{'':6}kept: {', '.join(cond.hits) or '-'}")
    cond = analysis.conditions[cap.name][held]
    lines.append(f"  -> condition {held} holds in {cap.name}: kept "
                 f"{', '.join(cond.hits) or 'nothing'}; missed "
                 f"{', '.join(cond.miss_accesses) or 'nothing'}")
    return lines


# ---------------------------------------------------------------- Benchmark

def format_benchmark(result: BenchmarkResult, verbose: int = 0) -> str:
    """The ``-p Benchmark`` report of a measurement (made by
    :func:`kerncraft.benchmark.kernel_run.run_benchmark`), with the value in its ``unit``."""
    unit = result.unit
    units = ["cy/CL", "cy/It", "It/s"] + (["FLOP/s"] if result.flops_per_iteration else [])
    where = ", ".join(map(str, result.cpus))
    lines = [f"Benchmark ({result.cores} core(s) pinned to CPU {where})",
             f"  backend: {result.backend}" + (f" ({result.backend_reason})"
                                               if result.backend_reason else ""),
             f"  clock: {result.clock_hz / 1e9:.3f} GHz, {result.clock_source}; machine "
             f"file: {result.machine_clock_hz / 1e9:.3f} GHz",
             f"  program: {result.compiler} {' '.join(result.flags)}"
             + (" -fopenmp" if result.cores > 1 else ""),
             f"  {result.repetitions} repetitions x {result.iterations_per_repetition} "
             f"iterations ({result.iterations_per_cacheline} per cache line) in "
             f"{result.seconds:.4g} s ({result.time_source} time, best of {result.runs} runs)",
             "  measured: " + "   ".join(format_value(result.value(u), u) for u in units)]
    if unit not in units:
        lines.append(f"  ({unit} undefined: the kernel has no floating-point operations)")
    if result.volumes:
        lines.append(f"  {'level':<6} {'metric':<7} {'measured':>9} {'predicted':>9}  "
                     "(cache lines per CL of work)")
        for v in result.volumes:
            predicted = "-" if v.predicted is None else f"{v.predicted:9.2f}"
            lines.append(f"  {v.level:<6} {v.metric:<7} {v.measured:9.2f} {predicted:>9}")
    lines += [f"  note: {note}" for note in result.notes]
    if unit in units:
        lines.append(f"measured performance: {format_value(result.value(unit), unit)}")
    return "\n".join(lines)


def format_comparison(rows: Sequence[ComparisonRow], cores: int = 1) -> str:
    """The table of predictions next to the measurement (``-p Benchmark`` with a
    predicting model; rows from :func:`kerncraft.models.compare.compare_reports`).

    >>> print(format_comparison([ComparisonRow("ECM", 12.0, 10.0)]).splitlines()[-1])
      ECM             12.00 cy   10.00 cy   +20.0%
    """
    lines = [f"Prediction vs. measurement ({cores} core(s); error = (prediction - "
             "measurement) / measurement)",
             f"  {'model':<13} {'predicted':>10} {'measured':>10} {'error':>8}"]
    for row in rows:
        lines.append(f"  {row.model:<13} {row.predicted:>7.2f} cy {row.measured:>7.2f} cy "
                     f"{100 * row.error:>+7.1f}%")
    return "\n".join(lines)


#: result type -> its formatter(result, verbose)
_FORMATTERS: dict[type, Callable[[Any, int], str]] = {
    ECMResult: format_ecm, ECMCPUResult: format_ecm_cpu, ECMDataResult: format_ecm_data,
    RooflineResult: format_roofline, LCResult: format_lc, BenchmarkResult: format_benchmark}
