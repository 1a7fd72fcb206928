"""``-p ECMData``: the data-transfer part of the ECM model.

Reports T_L1L2, T_L2L3, ..., T_L3MEM in cy/CL (or another --unit) from the
predicted traffic (LC or SIM) and the machine's upstream throughputs; see
:mod:`kerncraft.models.transfers` for how each link time is computed.
"""
from __future__ import annotations

from kerncraft.cache.traffic import TrafficResult
from kerncraft.models.registry import ModelReport
from kerncraft.models.transfers import LinkTime, link_times, predict_traffic
from kerncraft.options import as_options
from kerncraft.units import convert_performance, format_quantity

_PREDICTOR_NAMES = {"LC": "layer conditions", "SIM": "cache simulation"}


def convert_cycles(kernel, machine, traffic: TrafficResult, cycles: float, unit: str) -> float:
    """cy/CL -> ``unit`` for this kernel (one place: :func:`convert_performance`)."""
    return convert_performance(cycles, "cy/CL", unit, clock=machine.clock,
                               iterations_per_cl=traffic.unit_of_work_iterations,
                               flops_per_iteration=kernel.total_flops)


def format_value(value: float, unit: str) -> str:
    """Cycle counts with two decimals (people compare them), rates with SI prefixes."""
    if unit in ("cy/CL", "cy/It"):
        return f"{value:.2f} {unit}"
    return format_quantity(value, unit)


def _link_table(links: tuple[LinkTime, ...]) -> list[str]:
    rows = [f"  {'link':<9} {'loads':>7} {'stores':>7} {'bytes':>8} {'bandwidth':>14} "
            f"{'duplex':<12} {'cy/CL':>7}",
            f"  {'':<9} {'CL/CL':>7} {'CL/CL':>7} {'B/CL':>8}"]
    for link in links:
        rows.append(f"  {link.upper + '-' + link.lower:<9} {link.loads:7.2f} {link.stores:7.2f} "
                    f"{link.bytes:8.1f} {link.bytes_per_cycle:9.2f} B/cy {link.duplex:<12} "
                    f"{link.cycles:7.2f}")
    return rows


def ecm_data_model(kernel, machine, args) -> ModelReport:
    """Data transfer times per link for a bound kernel."""
    options = as_options(args)
    predictor, cores = options.cache_predictor, options.cores
    unit = options.unit or "cy/CL"
    traffic = predict_traffic(kernel, machine, predictor, cores=cores)
    # the memory link at the saturated bandwidth of the NUMA domains the cores fill,
    # as the ECM model composes it (see kerncraft.models.ecm_compose)
    links = link_times(kernel, machine, traffic, cores=cores,
                       saturated_domains=machine.numa_domains_filled(cores))
    lines = [f"ECMData ({_PREDICTOR_NAMES[predictor]}, {cores} core(s), "
             f"{traffic.unit_of_work_iterations:g} iterations per cache line of work)"]
    lines += _link_table(links)
    values = [convert_cycles(kernel, machine, traffic, link.cycles, unit) for link in links]
    names = " | ".join(link.name for link in links)
    numbers = " | ".join(format_value(v, unit).rsplit(" ", 1)[0] if unit in ("cy/CL", "cy/It")
                         else format_value(v, unit) for v in values)
    suffix = f" {unit}" if unit in ("cy/CL", "cy/It") else ""
    lines.append(f"{{ {numbers} }}{suffix}   ({names})")
    for link in links:
        if link.bandwidth_choice is not None and options.verbose:
            lines.append(f"  memory bandwidth: {link.bandwidth_choice.explanation}")
    lines += [f"  note: {note}" for note in traffic.notes]
    data = {"predictor": predictor, "cores": cores, "unit": unit,
            "iterations_per_cacheline": traffic.unit_of_work_iterations,
            "links": [link.to_dict() for link in links],
            "values": {link.name: v for link, v in zip(links, values)},
            "traffic": traffic.to_dict()}
    return ModelReport("ECMData", "\n".join(lines), data)
