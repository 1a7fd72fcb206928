"""``-p ECMCPU`` and ``-p ECM``: in-core and full Execution-Cache-Memory model.

ECMCPU reports T_OL and T_nOL per cache line of work from the compiled loop
(:mod:`kerncraft.models.incore_prediction`); ECM adds the data transfers of
ECMData and composes them (:mod:`kerncraft.models.ecm_compose`), with the
saturation core count and the scaling table up to a NUMA domain and a socket.
"""
from __future__ import annotations

from dataclasses import replace

from kerncraft.cache.traffic import iterations_per_cacheline
from kerncraft.models.ecm_compose import (ECMContribution, compose_ecm, saturation_cores,
                                          scaling_table)
from kerncraft.models.ecm_data import convert_cycles
from kerncraft.models.incore_prediction import predict_incore
from kerncraft.models.l1_stream import with_l1_stream_limit
from kerncraft.models.memory_term import MemoryTerm, memory_term
from kerncraft.models.nontemporal import nontemporal_choice
from kerncraft.models.results import ECMCPUResult, ECMResult, ScalingRow
from kerncraft.models.transfers import link_times, predict_traffic
from kerncraft.options import AnalysisOptions, as_options


def incore_for(kernel, machine, options):
    """The in-core prediction of a bound kernel (``options``: AnalysisOptions or a
    namespace with the same attributes)."""
    ipc = iterations_per_cacheline(kernel, machine.cacheline_size)
    incore = predict_incore(kernel, machine, iterations_per_cacheline=ipc,
                            **as_options(options).incore_arguments())
    return with_l1_stream_limit(incore, kernel, machine)


def compute_ecm_cpu(kernel, machine, options=None) -> ECMCPUResult:
    """The ECMCPU result of a bound kernel: T_OL and T_nOL per cache line of work.

    >>> import kerncraft
    >>> copy = kerncraft.api.load_kernel("kernels/copy.c").bind({"N": 10**7})
    >>> csx = kerncraft.load_machine("CSX")
    >>> result = compute_ecm_cpu(copy, csx, AnalysisOptions(unit="cy/It"))
    >>> result.t_ol, result.t_ol_in_unit          # 2 cy/CL = 2 / 8 cy/It
    (2.0, 0.25)
    """
    options = as_options(options)
    incore = incore_for(kernel, machine, options)
    unit = options.unit or "cy/CL"
    in_unit = [convert_cycles_ipc(kernel, machine, incore, v, unit) if unit != "cy/CL" else v
               for v in (incore.t_ol, incore.t_nol)]
    return ECMCPUResult(unit, incore.t_ol, incore.t_nol, in_unit[0], in_unit[1], incore)


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


def _ecm_for_traffic(kernel, machine, incore, traffic, term: MemoryTerm):
    """Single-core ECM: in-cache links from the machine file, T_L3MEM at the bandwidth
    the memory term names (memory_term.py); also T_L3MEM at the saturated bandwidth of
    one NUMA domain, for the saturation count and the scaling (seed 004)."""
    saturated = link_times(kernel, machine, traffic, saturated_domains=1)
    links = link_times(kernel, machine, traffic, cores=1) if term.single_core else saturated
    contributions = [ECMContribution(link.name, link.cycles,
                                     machine.level(link.lower).transfers_overlap)
                     for link in links]
    levels = (machine.memory_hierarchy[0].name,) + tuple(link.lower for link in links)
    # a one-core bandwidth already contains one core's memory latency (the penalty)
    penalty = memory_penalty(machine, links)
    if term.single_core:
        term, penalty = replace(term, penalty_left_out=penalty), 0.0
    ecm = compose_ecm(incore.t_ol, incore.t_nol, contributions, levels, penalty)
    return ecm, links, saturated[-1].cycles, term


def memory_penalty(machine, links) -> float:
    """T_penalty in cy/CL: the memory level's penalty cycles per cache line loaded
    from and stored to memory (Kerncraft's convention; ecm_compose)."""
    memory = machine.memory_level
    if not links or links[-1].lower != memory.name:
        return 0.0
    return (links[-1].loads * memory.penalty_cycles_per_cacheline_load
            + links[-1].stores * memory.penalty_cycles_per_cacheline_store)


def _scaling_points(kernel, machine, incore, counts: list[int], traffic_of,
                    term: MemoryTerm):
    """(n, T_MEM(n), T_L3MEM,sat(n)) with the traffic of n active cores (see ecm_compose).

    ``traffic_of(n)``: the traffic of n active cores, numbers only (the report's notes
    come from the single-core traffic); asked once per distinct cache share, and never
    for the first share, whose traffic the caller already has (with SIM a prediction is
    a whole simulation, so it must not be repeated).
    """
    traffic_by_share: dict[tuple[int, ...], object] = {}
    ecm_by_share: dict[tuple[int, ...], tuple[float, float]] = {}
    transfer_by_domains: dict[tuple, float] = {}
    points = []
    for n in counts:
        key = _share_key(machine, n)
        if key not in traffic_by_share:
            traffic_by_share[key] = traffic_of(n)
        traffic = traffic_by_share[key]
        # one core's ECM time with the traffic of n active cores, and the memory
        # transfer at the saturated bandwidth of the NUMA domains n cores fill; core
        # counts with the same cache shares have the same traffic and ECM time
        if key not in ecm_by_share:
            ecm, _, saturated, _ = _ecm_for_traffic(kernel, machine, incore, traffic, term)
            ecm_by_share[key] = (ecm.memory_time, saturated)
        memory_time, transfer = ecm_by_share[key]
        domains = machine.numa_domains_filled(n)
        if domains != 1:
            if (key, domains) not in transfer_by_domains:
                transfer_by_domains[(key, domains)] = link_times(
                    kernel, machine, traffic, saturated_domains=domains)[-1].cycles
            transfer = transfer_by_domains[(key, domains)]
        points.append((n, memory_time, transfer))
    return points


def scaling_core_counts(machine, options) -> list[int]:
    """The core counts of the scaling table (:func:`compute_ecm`)."""
    numa, socket = _scaling_limits(machine)
    return _scaling_core_counts(options.cache_predictor, options.cores, numa, socket)


def share_key(machine, cores: int) -> tuple[int, ...]:
    """The cache shares of ``cores`` active cores: equal keys, equal traffic."""
    return _share_key(machine, cores)


def compute_ecm(kernel, machine, options=None) -> ECMResult:
    """The ECM result of a bound kernel (see the module doc).

    >>> import kerncraft
    >>> copy = kerncraft.api.load_kernel("kernels/copy.c").bind({"N": 10**7})
    >>> csx = kerncraft.load_machine("CSX")
    >>> result = compute_ecm(copy, csx)
    >>> round(result.t_mem, 2), result.saturation_cores, round(result.row(4).cycles_per_cl, 2)
    (20.76, 3, 8.76)
    """
    from kerncraft.models.transfers import check_core_count

    options = as_options(options)
    predictor = options.cache_predictor
    check_core_count(machine, options.cores)   # the scaling table has a row per core
    incore = incore_for(kernel, machine, options)
    # streamed stores: the option, the kernel's pragma, or the compiled loop's stores
    nontemporal = nontemporal_choice(kernel, options.nontemporal_stores, incore)
    traffic = predict_traffic(kernel, machine, predictor, cores=1, nontemporal=nontemporal)

    def traffic_of(n: int):
        # the kernel was checked when the single-core traffic was predicted
        return predict_traffic(kernel, machine, predictor, cores=n, notes=False, check=False,
                               nontemporal=nontemporal)
    return ecm_from_incore(kernel, machine, options, incore, traffic, traffic_of)


def ecm_from_incore(kernel, machine, options: AnalysisOptions, incore, traffic,
                    traffic_of) -> ECMResult:
    """The ECM result from the in-core prediction, the single-core ``traffic`` and
    ``traffic_of(n)`` for n active cores (also what a point plan computes,
    :mod:`kerncraft.models.point_plan`)."""
    predictor, cores = options.cache_predictor, options.cores
    unit = options.unit or "cy/CL"
    term = memory_term(machine)
    ecm, links, saturated, term = _ecm_for_traffic(kernel, machine, incore, traffic, term)
    numa, socket = _scaling_limits(machine)
    single = _share_key(machine, 1)
    table = scaling_table(_scaling_points(
        kernel, machine, incore, _scaling_core_counts(predictor, cores, numa, socket),
        lambda n: traffic if _share_key(machine, n) == single else traffic_of(n), term))
    convert = lambda cy: convert_cycles(kernel, machine, traffic, cy, unit)  # noqa: E731
    rows = tuple(ScalingRow(p.cores, p.cycles_per_cl, convert(p.cycles_per_cl), p.memory_bound)
                 for p in table)
    return ECMResult(
        predictor=predictor, unit=unit, cores=cores, ecm=ecm,
        predictions_in_unit=tuple(convert(t) for t in ecm.predictions),
        saturation_cores=saturation_cores(ecm.memory_time, saturated),
        saturated_memory_cycles=saturated, memory_term=term, scaling=rows,
        prediction=next(row.value for row in rows if row.cores == cores),
        numa_domain_cores=numa, socket_cores=socket, incore=incore, links=links,
        traffic=traffic)
