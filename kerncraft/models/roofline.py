"""``-p RooflineFLOP``: Roofline with the arithmetic peak as compute ceiling.

Every memory level, L1 included, is a potential bottleneck: its time per
cache line of work is the bytes it moves per unit of work divided by the
measured bandwidth of the benchmark kernel that matches the kernel's stream
mix, scaled to the bytes that benchmark really moved on the link (write-allocates
below L1, and every victim line entering a victim cache), as the kernel's
bytes are counted. The compute ceiling is the
FLOPs per unit of work divided by the machine's peak FLOPs per cycle. The
prediction is the largest of these times (single-bottleneck view).
"""
from __future__ import annotations

from kerncraft.cache.traffic import transfer_volumes
from kerncraft.errors import KerncraftError
from kerncraft.machine.bandwidth import select_bandwidth
from kerncraft.models.ecm_data import convert_cycles
from kerncraft.models.l1_stream import l1_bytes_per_unit
from kerncraft.models.results import RooflineLevel, RooflineResult
from kerncraft.models.nontemporal import nontemporal_choice
from kerncraft.models.transfers import (kernel_stream_mix, nontemporal_stream_mix, predict_traffic,
                                         streamed_write_only)
from kerncraft.options import as_options


def precision_of(kernel) -> str:
    """'SP' if every floating-point array is float, else 'DP'."""
    types = {a.ctype for a in kernel.arrays.values() if a.ctype in ("float", "double")}
    return "SP" if types == {"float"} else "DP"


def roofline_levels(kernel, machine, traffic, cores: int) -> list[RooflineLevel]:
    mix = kernel_stream_mix(kernel)
    if sum(mix) == 0:
        mix = (1, 0, 0)
    # non-temporal stores: memory's benchmark is the one whose traffic there matches
    # (a streamed copy moves what a read-write stream does), as in the ECM memory term
    memory_mix = nontemporal_stream_mix(mix, streamed_write_only(kernel, traffic))
    flops_per_unit = kernel.total_flops * traffic.unit_of_work_iterations
    first = machine.memory_hierarchy[0].name   # 'L1', whatever the file calls it
    volumes = [(first, l1_bytes_per_unit(kernel, traffic.unit_of_work_iterations), False)]
    allocate = any(lvl.geometry.write_allocate for lvl in machine.cache_levels)
    victim_levels = {lvl.geometry.victims_to for lvl in machine.cache_levels}
    volumes += [(link.lower, link.total_bytes, allocate) for link in transfer_volumes(traffic)]
    levels = []
    for name, nbytes, count_allocate in volumes:
        choice = select_bandwidth(machine, name,
                                  *(memory_mix if name == machine.memory_level.name else mix),
                                  cores=cores)
        # the measured bandwidth, scaled to the bytes the benchmark moved on this link
        # (write-allocates below L1, all victims into a victim cache), like nbytes
        bandwidth = choice.traffic_bandwidth(count_allocate, victim=name in victim_levels)
        cycles = nbytes * machine.clock / bandwidth
        intensity = flops_per_unit / nbytes if nbytes else float("inf")
        levels.append(RooflineLevel(name, nbytes, bandwidth, choice.kernel, cycles, intensity))
    return levels


def _unit_for(kernel, options) -> str:
    return options.unit or ("FLOP/s" if kernel.total_flops else "It/s")


def compute_roofline_flop(kernel, machine, options=None) -> RooflineResult:
    """Roofline with the arithmetic peak as compute ceiling (see the module doc).

    >>> import kerncraft
    >>> copy = kerncraft.api.load_kernel("kernels/copy.c").bind({"N": 10**7})
    >>> csx = kerncraft.load_machine("CSX")
    >>> result = compute_roofline_flop(copy, csx)
    >>> result.bottleneck, result.unit, result.compute_performance    # copy has no FLOPs
    ('MEM', 'It/s', None)
    """
    options = as_options(options)
    predictor, cores = options.cache_predictor, options.cores
    unit = _unit_for(kernel, options)
    if unit == "FLOP/s" and not kernel.total_flops:
        raise KerncraftError("FLOP/s is undefined for a kernel without floating-point "
                             "operations; use --unit It/s or cy/CL")
    nontemporal = nontemporal_choice(kernel, options.nontemporal_stores)
    traffic = predict_traffic(kernel, machine, predictor, cores=cores, nontemporal=nontemporal)
    return roofline_flop_from_traffic(kernel, machine, options, traffic)


def roofline_flop_from_traffic(kernel, machine, options, traffic) -> RooflineResult:
    """The RooflineFLOP result for the predicted ``traffic`` of ``options.cores`` cores
    (also what a point plan computes, :mod:`kerncraft.models.point_plan`)."""
    predictor, cores = options.cache_predictor, options.cores
    unit = _unit_for(kernel, options)
    levels = roofline_levels(kernel, machine, traffic, cores)
    precision = precision_of(kernel)
    peak = machine.peak_flops_per_cycle(precision) * cores
    compute = kernel.total_flops * traffic.unit_of_work_iterations / peak
    bottleneck = max(levels, key=lambda lvl: lvl.cycles)
    limit = max(bottleneck.cycles, compute)
    limiter = "compute (arithmetic peak)" if compute > bottleneck.cycles else bottleneck.level
    convert = lambda cy: convert_cycles(kernel, machine, traffic, cy, unit)  # noqa: E731
    return RooflineResult(
        "RooflineFLOP", predictor, cores, unit, tuple(levels),
        tuple(convert(lvl.cycles) for lvl in levels), compute,
        convert(compute) if compute else None, limiter, limit, convert(limit), traffic,
        machine.clock, precision=precision, peak_flops_per_cycle=peak,
        arithmetic_intensity=bottleneck.arithmetic_intensity)


def compute_roofline_asm(kernel, machine, options=None) -> RooflineResult:
    """Roofline with the in-core analysis of the compiled loop as compute ceiling.

    The in-core time already contains the L1 accesses (load/store ports), so L1
    is not a separate bandwidth bottleneck here; L2, L3 and memory are.

    >>> import kerncraft
    >>> copy = kerncraft.api.load_kernel("kernels/copy.c").bind({"N": 10**7})
    >>> csx = kerncraft.load_machine("CSX")
    >>> result = compute_roofline_asm(copy, csx)
    >>> [lvl.level for lvl in result.levels], result.compute_cycles_per_cl
    (['L2', 'L3', 'MEM'], 2.0)
    """
    from kerncraft.models.ecm import incore_for

    options = as_options(options)
    predictor, cores = options.cache_predictor, options.cores
    unit = _unit_for(kernel, options)
    incore = incore_for(kernel, machine, options)
    # streamed stores: the option, the kernel's pragma, or the compiled loop's stores
    nontemporal = nontemporal_choice(kernel, options.nontemporal_stores, incore)
    traffic = predict_traffic(kernel, machine, predictor, cores=cores, nontemporal=nontemporal)
    first = machine.memory_hierarchy[0].name
    levels = [lvl for lvl in roofline_levels(kernel, machine, traffic, cores) if lvl.level != first]
    compute = max(incore.t_ol, incore.t_nol) / cores
    bottleneck = max(levels, key=lambda lvl: lvl.cycles)
    limit = max(bottleneck.cycles, compute)
    limiter = f"in-core ({incore.t_ol_source})" if compute >= bottleneck.cycles else bottleneck.level
    convert = lambda cy: convert_cycles(kernel, machine, traffic, cy, unit)  # noqa: E731
    return RooflineResult(
        "RooflineASM", predictor, cores, unit, tuple(levels),
        tuple(convert(lvl.cycles) for lvl in levels), compute, convert(compute), limiter, limit,
        convert(limit), traffic, machine.clock, incore=incore)
