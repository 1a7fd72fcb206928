"""The one table of models: every ``-p`` model by name, the function computing its
typed result, the JSON schema of that result, and whether it measures.

Each entry's function imports its model when it is called, with an import statement
(so the import graph sees the dependency): importing this module, and with it the
command line's warm path, brings neither sympy nor pycparser nor networkx.
:func:`kerncraft.api.analyze` calls ``compute`` and returns the result; the command
line renders it as well (:func:`kerncraft.runner.run.model_report`).

>>> list(MODELS)
['ECM', 'ECMData', 'ECMCPU', 'RooflineFLOP', 'RooflineASM', 'LC', 'Benchmark']
>>> canonical_model("roofline"), canonical_model("ecm"), MODELS["Benchmark"].measures
('RooflineFLOP', 'ECM', True)
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

from kerncraft.errors import KerncraftError
from kerncraft.options import AnalysisOptions
from kerncraft.report import schema

if TYPE_CHECKING:  # pragma: no cover
    from kerncraft.kernel.model import KernelModel
    from kerncraft.machine.model import MachineModel
    from kerncraft.models.results import (BenchmarkResult, ECMCPUResult, ECMDataResult,
                                          ECMResult, LCResult, RooflineResult)

__all__ = ["ModelEntry", "MODELS", "MODEL_ALIASES", "DOCUMENT_SCHEMA", "canonical_model",
           "model_entry"]


@dataclass(frozen=True)
class ModelEntry:
    """One model: ``compute(bound kernel, machine, options)`` returns its typed result
    (:mod:`kerncraft.models.results`), whose ``to_dict()`` matches ``schema``.
    ``measures``: it runs the kernel on this host, so its points are never read back
    from the point cache nor computed in parallel workers."""

    compute: Callable[["KernelModel", "MachineModel", AnalysisOptions], Any]
    schema: Mapping[Any, Any]
    measures: bool = False


def _ecm(kernel, machine, options: AnalysisOptions) -> "ECMResult":
    from kerncraft.models.ecm import compute_ecm
    return compute_ecm(kernel, machine, options)


def _ecm_data(kernel, machine, options: AnalysisOptions) -> "ECMDataResult":
    from kerncraft.models.ecm_data import compute_ecm_data
    return compute_ecm_data(kernel, machine, options)


def _ecm_cpu(kernel, machine, options: AnalysisOptions) -> "ECMCPUResult":
    from kerncraft.models.ecm import compute_ecm_cpu
    return compute_ecm_cpu(kernel, machine, options)


def _roofline_flop(kernel, machine, options: AnalysisOptions) -> "RooflineResult":
    from kerncraft.models.roofline import compute_roofline_flop
    return compute_roofline_flop(kernel, machine, options)


def _roofline_asm(kernel, machine, options: AnalysisOptions) -> "RooflineResult":
    from kerncraft.models.roofline import compute_roofline_asm
    return compute_roofline_asm(kernel, machine, options)


def _lc(kernel, machine, options: AnalysisOptions) -> "LCResult":
    from kerncraft.models.lc import compute_lc
    return compute_lc(kernel, machine, options)


def _env_number(name: str, default: float, kind: type = float) -> Any:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = -1
    if value < 0 or (kind is int and value < 1):
        raise KerncraftError(f"{name} must be a positive number, got {text!r}")
    return value


def _benchmark(kernel, machine, options: AnalysisOptions) -> "BenchmarkResult":
    """Measure the kernel on this host, the value in ``--unit``. ``KERNCRAFT_BENCH_MIN_TIME``
    (seconds a run must last, default 0.2) and ``KERNCRAFT_BENCH_REPEATS`` (runs kept,
    default 3) tune the measurement; ``KERNCRAFT_BENCH_BACKEND`` forces ``timing`` or
    ``likwid``."""
    from kerncraft.benchmark.kernel_run import run_benchmark

    # Kerncraft's --iterations: the repetition count the measurement starts from
    first = {"repetitions": options.iterations} if options.iterations else {}
    result = run_benchmark(kernel, machine, cores=options.cores, compiler=options.compiler,
                           flags=options.compiler_flags, predictor=options.cache_predictor,
                           aliasing=options.aliasing,
                           min_time=_env_number("KERNCRAFT_BENCH_MIN_TIME", 0.2),
                           repeats=_env_number("KERNCRAFT_BENCH_REPEATS", 3, int),
                           backend=os.environ.get("KERNCRAFT_BENCH_BACKEND", "auto") or "auto",
                           **first)
    return dataclasses.replace(result, unit=options.unit or "cy/CL")


#: The models, in the order the command line lists them.
MODELS: Mapping[str, ModelEntry] = {
    "ECM": ModelEntry(_ecm, schema.ECM),
    "ECMData": ModelEntry(_ecm_data, schema.ECM_DATA),
    "ECMCPU": ModelEntry(_ecm_cpu, schema.ECM_CPU),
    "RooflineFLOP": ModelEntry(_roofline_flop, schema.ROOFLINE_FLOP),
    "RooflineASM": ModelEntry(_roofline_asm, schema.ROOFLINE_ASM),
    "LC": ModelEntry(_lc, schema.LC),
    "Benchmark": ModelEntry(_benchmark, schema.BENCHMARK, measures=True),
}

#: Kerncraft's other names of two models.
MODEL_ALIASES: Mapping[str, str] = {"Roofline": "RooflineFLOP", "RooflineIACA": "RooflineASM"}

#: The schema of the whole ``--json`` document (``docs/json.md``).
DOCUMENT_SCHEMA = schema.document_schema({name: m.schema for name, m in MODELS.items()})


def _choices() -> str:
    return ", ".join(tuple(MODELS) + tuple(MODEL_ALIASES))


def canonical_model(name: str) -> str:
    """The canonical name of a model (case-insensitive, aliases accepted).

    >>> canonical_model("RooflineIACA")
    'RooflineASM'
    >>> canonical_model("ECMX")
    Traceback (most recent call last):
    ...
    kerncraft.errors.KerncraftError: unknown model 'ECMX' (choose from ECM, ECMData, ECMCPU, \
RooflineFLOP, RooflineASM, LC, Benchmark, Roofline, RooflineIACA)
    """
    lookup = {m.lower(): m for m in MODELS}
    lookup.update({a.lower(): m for a, m in MODEL_ALIASES.items()})
    try:
        return lookup[str(name).lower()]
    except KeyError:
        raise KerncraftError(f"unknown model {name!r} (choose from {_choices()})") from None


def model_entry(name: str) -> ModelEntry:
    """The entry of a canonical model name (KerncraftError naming the choices if none)."""
    entry = MODELS.get(name)
    if entry is None:
        raise KerncraftError(f"unknown model {name!r} (choose from {_choices()})")
    return entry
