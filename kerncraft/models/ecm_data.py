"""``-p ECMData``: the data-transfer part of the ECM model.

Reports T_L1L2, T_L2L3, ..., T_L3MEM in cy/CL (or another --unit) from the
predicted traffic (LC or SIM) and the machine's upstream throughputs; see
:mod:`kerncraft.models.transfers` for how each link time is computed.
"""
from __future__ import annotations

from kerncraft.cache.traffic import TrafficResult
from kerncraft.models.nontemporal import nontemporal_choice
from kerncraft.models.results import ECMDataResult
from kerncraft.models.transfers import link_times, predict_traffic
from kerncraft.options import as_options
from kerncraft.units import convert_performance


def convert_cycles(kernel, machine, traffic: TrafficResult, cycles: float, unit: str) -> float:
    """cy/CL -> ``unit`` for this kernel (one place: :func:`convert_performance`)."""
    return convert_performance(cycles, "cy/CL", unit, clock=machine.clock,
                               iterations_per_cl=traffic.unit_of_work_iterations,
                               flops_per_iteration=kernel.total_flops)


def compute_ecm_data(kernel, machine, options=None) -> ECMDataResult:
    """Data transfer times per link for a bound kernel.

    >>> import kerncraft
    >>> copy = kerncraft.api.load_kernel("kernels/copy.c").bind({"N": 10**7})
    >>> csx = kerncraft.load_machine("CSX")
    >>> [round(v, 2) for v in compute_ecm_data(copy, csx).values]
    [3.0, 8.0, 8.76]
    """
    options = as_options(options)
    predictor, cores = options.cache_predictor, options.cores
    # it does not compile the loop: streamed stores only by option or pragma
    nontemporal = nontemporal_choice(kernel, options.nontemporal_stores)
    traffic = predict_traffic(kernel, machine, predictor, cores=cores, nontemporal=nontemporal)
    return ecm_data_from_traffic(kernel, machine, options, traffic)


def ecm_data_from_traffic(kernel, machine, options, traffic: TrafficResult) -> ECMDataResult:
    """The ECMData result for the predicted ``traffic`` of ``options.cores`` cores (also
    what a point plan computes, :mod:`kerncraft.models.point_plan`)."""
    predictor, cores = options.cache_predictor, options.cores
    unit = options.unit or "cy/CL"
    # the memory link at the saturated bandwidth of the NUMA domains the cores fill,
    # as the ECM model composes it (see kerncraft.models.ecm_compose)
    links = link_times(kernel, machine, traffic, cores=cores,
                       saturated_domains=machine.numa_domains_filled(cores))
    values = tuple(convert_cycles(kernel, machine, traffic, link.cycles, unit) for link in links)
    return ECMDataResult(predictor, cores, unit, traffic.unit_of_work_iterations, links, values,
                         traffic)
