"""kerncraft: loop kernel performance prediction (Roofline, ECM) for CPUs.

Public API (everything below is imported on first use, so ``import kerncraft``
stays fast)::

    import kerncraft
    machine = kerncraft.load_machine("CSX")          # or a path to a YAML file
    kernel = kerncraft.parse_kernel(source_text, filename="2d-5pt.c")
    result = kerncraft.analyze(kernel, machine, model="ECM", defines={"N": 1000, "M": 1000})
    rows = kerncraft.sweep("kernels/copy.c", "CSX", model="ECM",
                           defines={"N": [10**3, 10**5, 10**7]})

:func:`analyze` returns the model's typed, frozen result (:class:`ECMResult`,
:class:`ECMCPUResult`, :class:`ECMDataResult`, :class:`RooflineResult`,
:class:`LCResult`, :class:`BenchmarkResult`; traffic as :class:`TrafficResult`),
each with ``to_dict()`` in the JSON schema of ``docs/json.md``;
:func:`format_result` gives the text the command line prints.

>>> import kerncraft
>>> result = kerncraft.analyze("kernels/triad.c", "CSX", model="RooflineFLOP",
...                            defines={"N": 10**7})
>>> result.bottleneck, result.unit
('MEM', 'FLOP/s')
>>> [line for line in kerncraft.format_result(result).splitlines() if line.startswith("Perf")]
['Performance: 1.33 GFLOP/s']
"""
from __future__ import annotations

from kerncraft.errors import KerncraftError
from kerncraft.version import __version__

# name -> module that defines it; resolved by __getattr__ on first access
_LAZY = {
    "analyze": "kerncraft.api", "sweep": "kerncraft.api", "SweepRow": "kerncraft.api",
    "AnalysisOptions": "kerncraft.options",
    "ECMResult": "kerncraft.models.results", "ECMCPUResult": "kerncraft.models.results",
    "ECMDataResult": "kerncraft.models.results", "RooflineResult": "kerncraft.models.results",
    "LCResult": "kerncraft.models.results", "BenchmarkResult": "kerncraft.models.results",
    "TrafficResult": "kerncraft.cache.traffic",
    "format_result": "kerncraft.report.text", "to_json": "kerncraft.report.json",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kerncraft' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value           # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def load_machine(path_or_name):
    """Load a Kerncraft-format machine file (path, or bundled name like ``CSX``).

    >>> load_machine("CSX").cacheline_size
    64
    """
    from kerncraft.machine.loader import load_machine as _load

    return _load(path_or_name)


def parse_kernel(source: str, filename: str | None = None):
    """Parse restricted-C99 kernel source into a frozen :class:`KernelModel`.

    >>> kernel = parse_kernel("double a[N], b[N];\\nfor (int i = 0; i < N; ++i) a[i] = b[i];")
    >>> kernel.bind({"N": 100}).bindings["N"]
    100
    """
    from kerncraft.kernel.parser import parse_kernel as _parse

    return _parse(source, filename=filename)


__all__ = ["__version__", "KerncraftError", "load_machine", "parse_kernel", *_LAZY]
