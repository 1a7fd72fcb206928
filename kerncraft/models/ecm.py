"""``-p ECMCPU`` and ``-p ECM``: in-core and full Execution-Cache-Memory model.

ECMCPU reports T_OL and T_nOL per cache line of work from the compiled loop
(:mod:`kerncraft.models.incore_prediction`); ECM adds the data transfers of
ECMData and composes them (:mod:`kerncraft.models.ecm_compose`), with the
saturation core count and the scaling table up to a NUMA domain and a socket.
"""
from __future__ import annotations

from kerncraft.cache.traffic import iterations_per_cacheline
from kerncraft.models.ecm_compose import (ECMContribution, compose_ecm, saturation_cores,
                                          scaling_table)
from kerncraft.models.ecm_data import convert_cycles, format_value
from kerncraft.models.incore_prediction import predict_incore
from kerncraft.models.registry import ModelReport
from kerncraft.options import AnalysisOptions, as_options
from kerncraft.models.transfers import link_times, predict_traffic
from kerncraft.units import format_quantity


def incore_for(kernel, machine, options):
    """The in-core prediction of a bound kernel (``options``: AnalysisOptions or a
    namespace with the same attributes)."""
    ipc = iterations_per_cacheline(kernel, machine.cacheline_size)
    return predict_incore(kernel, machine, iterations_per_cacheline=ipc,
                          **as_options(options).incore_arguments())


def _incore_lines(incore, verbose: int) -> list[str]:
    if incore.incore_model != "kerncraft":      # llvm-mca / OSACA: their own quantities
        return incore.text_lines(verbose)
    a = incore.analysis
    scale = incore.per_cacheline
    lines = [f"  in-core ({incore.arch}, {incore.compiler} {incore.flags}): "
             f"{incore.selection.iterations_per_asm_iteration} iterations per assembly "
             f"iteration (unroll {incore.selection.unroll} x SIMD {incore.selection.simd_width})",
             f"  per cache line: throughput {incore.throughput * scale:.2f} cy, critical path "
             f"{a.critical_path * scale:.2f} cy, loop-carried dependency {a.lcd * scale:.2f} cy"
             + (f", front end {a.frontend * scale:.2f} cy" if a.frontend else ""),
             f"  T_OL set by {incore.t_ol_source}; T_nOL = busiest of ports "
             f"{', '.join(incore.non_overlapping_ports)}"]
    split_text = incore.line_splits.describe(incore.arch) if incore.line_splits else ""
    if split_text:
        lines.append(f"  {split_text}")
    lines += [f"  note: {note}" for note in incore.notes]
    if verbose:
        lines.append("  " + incore.selection.describe().replace("\n", "\n  "))
        from kerncraft.incore.report import format_report
        lines.append(format_report(a, unroll=incore.selection.iterations_per_asm_iteration))
    return lines


def ecm_cpu_model(kernel, machine, args) -> ModelReport:
    options = as_options(args)
    incore = incore_for(kernel, machine, options)
    unit = options.unit or "cy/CL"
    lines = [f"ECMCPU: T_OL = {incore.t_ol:.2f} cy/CL, T_nOL = {incore.t_nol:.2f} cy/CL"]
    if unit != "cy/CL":
        lines.append("  = " + ", ".join(
            f"{name} {format_value(convert_cycles_ipc(kernel, machine, incore, v, unit), unit)}"
            for name, v in (("T_OL", incore.t_ol), ("T_nOL", incore.t_nol))))
    lines += _incore_lines(incore, options.verbose)
    return ModelReport("ECMCPU", "\n".join(lines), {"unit": unit, **incore.to_dict()})


def convert_cycles_ipc(kernel, machine, incore, cycles: float, unit: str) -> float:
    from kerncraft.units import convert_performance
    return convert_performance(cycles, "cy/CL", unit, clock=machine.clock,
                               iterations_per_cl=incore.iterations_per_cacheline,
                               flops_per_iteration=kernel.total_flops)


def _scaling_limits(machine) -> tuple[int, int]:
    numa = machine.cores_per_numa_domain or machine.cores_per_socket
    return numa, machine.cores_per_socket


def _scaling_core_counts(predictor: str, cores: int, numa: int, socket: int) -> list[int]:
    """Rows of the scaling table: every count for LC (one cheap evaluation per
    distinct cache share); for SIM, whose every share is a new simulation, only
    1, 2, the requested count, a NUMA domain and a socket."""
    if predictor == "LC":
        return list(range(1, max(socket, cores) + 1))
    return sorted({1, min(2, socket), cores, numa, socket})


def _share_key(machine, cores: int) -> tuple[int, ...]:
    return tuple(min(cores, lvl.cores_per_group or 1) for lvl in machine.cache_levels)


def _ecm_for_traffic(kernel, machine, incore, traffic):
    """Single-core ECM: in-cache links from the machine file, T_L3MEM at the
    saturated bandwidth of one NUMA domain (seed 004; see ecm_compose)."""
    links = link_times(kernel, machine, traffic, saturated_domains=1)
    contributions = [ECMContribution(link.name, link.cycles,
                                     machine.level(link.lower).transfers_overlap)
                     for link in links]
    levels = ("L1",) + tuple(link.lower for link in links)
    return compose_ecm(incore.t_ol, incore.t_nol, contributions, levels), links


def _scaling_points(kernel, machine, incore, predictor: str, counts: list[int], single_core):
    """(n, T_MEM(n), T_L3MEM,sat(n)) with the traffic of n active cores (see ecm_compose).

    ``single_core`` is the one-core traffic the caller already has (with SIM a
    prediction is a whole simulation, so it must not be repeated).
    """
    traffic_by_share: dict[tuple[int, ...], object] = {_share_key(machine, 1): single_core}
    points = []
    for n in counts:
        key = _share_key(machine, n)
        if key not in traffic_by_share:
            traffic_by_share[key] = predict_traffic(kernel, machine, predictor, cores=n)
        traffic = traffic_by_share[key]
        # one core's ECM time with the traffic of n active cores, and the memory
        # transfer at the saturated bandwidth of the NUMA domains n cores fill
        ecm, links = _ecm_for_traffic(kernel, machine, incore, traffic)
        domains = machine.numa_domains_filled(n)
        transfer = (links[-1].cycles if domains == 1 else
                    link_times(kernel, machine, traffic, saturated_domains=domains)[-1].cycles)
        points.append((n, ecm.memory_time, transfer))
    return points


def ecm_model(kernel, machine, args) -> ModelReport:
    options = as_options(args)
    predictor, cores = options.cache_predictor, options.cores
    unit = options.unit or "cy/CL"
    incore = incore_for(kernel, machine, options)
    traffic = predict_traffic(kernel, machine, predictor, cores=1)
    ecm, links = _ecm_for_traffic(kernel, machine, incore, traffic)
    contributions, levels = ecm.contributions, ecm.levels
    numa, socket = _scaling_limits(machine)
    saturated = links[-1].cycles
    n_s = saturation_cores(ecm.memory_time, saturated)
    table = scaling_table(_scaling_points(kernel, machine, incore, predictor,
                                          _scaling_core_counts(predictor, cores, numa, socket),
                                          traffic))
    convert = lambda cy: convert_cycles(kernel, machine, traffic, cy, unit)  # noqa: E731
    lines = [f"ECM ({incore.arch}, {'layer conditions' if predictor == 'LC' else 'cache simulation'})",
             ecm.notation() + "   {T_OL || T_nOL | " + " | ".join(c.name for c in contributions) + "}",
             ecm.prediction_notation() + "   {" + " \u230b ".join(f"T_{lvl}" for lvl in levels) + "}"]
    if unit != "cy/CL":
        lines.append("{ " + " \u230b ".join(format_value(convert(t), unit)
                                           for t in ecm.predictions) + " }")
    if n_s is None:
        lines.append("does not saturate the memory interface: no memory traffic at this size "
                     "(one core's data stays in the caches)")
    else:
        lines.append(f"saturating at {n_s} core(s) (T_MEM {ecm.memory_time:.2f} cy/CL / T_L3MEM "
                     f"at saturated bandwidth {saturated:.2f} cy/CL)")
    lines += _incore_lines(incore, options.verbose)
    memory_choice = links[-1].bandwidth_choice
    if memory_choice is not None:
        lines.append(f"  {links[-1].name} at the saturated bandwidth of benchmark "
                     f"'{memory_choice.kernel}': {format_quantity(memory_choice.bandwidth, 'B/s')}"
                     f" measured on {memory_choice.cores} core(s)")
    lines += [f"  note: {note}" for note in traffic.notes if "holds" in note or options.verbose]
    lines.append(_format_scaling(table, numa, socket, cores, convert, unit))
    chosen = next(p for p in table if p.cores == cores)
    lines.append(f"prediction for {cores} core(s): {format_value(convert(chosen.cycles_per_cl), unit)}"
                 + (" per core group" if cores > 1 and unit in ("cy/CL", "cy/It") else ""))
    data = {"predictor": predictor, "unit": unit, "cores": cores, **ecm.to_dict(),
            "predictions_in_unit": {lvl: convert(t) for lvl, t in zip(levels, ecm.predictions)},
            "saturation_cores": n_s, "saturated_T_L3MEM": saturated,
            "scaling": [{"cores": p.cores, "cycles_per_cl": p.cycles_per_cl,
                         "value": convert(p.cycles_per_cl), "memory_bound": p.memory_bound}
                        for p in table],
            "prediction": convert(chosen.cycles_per_cl),
            "incore": incore.to_dict(), "links": [link.to_dict() for link in links],
            "traffic": traffic.to_dict()}
    return ModelReport("ECM", "\n".join(lines), data)


def _format_scaling(table, numa: int, socket: int, cores: int, convert, unit: str) -> str:
    rows = [f"scaling (NUMA domain: {numa} cores, socket: {socket} cores)",
            f"  {'cores':>5} {'cy/CL':>8} {unit if unit != 'cy/CL' else '':>14}  bound"]
    for point in table:
        value = format_value(convert(point.cycles_per_cl), unit) if unit != "cy/CL" else ""
        marker = " <- NUMA domain" if point.cores == numa and numa != socket else ""
        rows.append(f"  {point.cores:>5} {point.cycles_per_cl:8.2f} {value:>14}  "
                    f"{'memory' if point.memory_bound else 'core'}{marker}")
    return "\n".join(rows)
