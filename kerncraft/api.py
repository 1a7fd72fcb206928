"""The library interface: one call per prediction, and sweeps.

:func:`analyze` runs one model for one kernel on one machine at one point and
returns its typed result (:mod:`kerncraft.models.results`); :func:`sweep` runs
it over the cartesian product of constant values and returns one
:class:`SweepRow` per point. The models are those of the table
:data:`kerncraft.runner.table.MODELS` (re-exported here with :func:`canonical_model`);
the command line runs them through :func:`kerncraft.runner.run.run_models`.

>>> import kerncraft
>>> result = kerncraft.analyze("kernels/copy.c", "CSX", model="ECMData",
...                            defines={"N": 10**7})
>>> [round(link.cycles, 2) for link in result.links]     # T_L1L2, T_L2L3, T_L3MEM in cy/CL
[3.0, 8.0, 8.76]
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Union

from kerncraft.errors import KerncraftError, KernelError
from kerncraft.options import AnalysisOptions
from kerncraft.resources import bundled_kernel, bundled_kernel_names
# the table of models, re-exported: ``kerncraft.api.MODELS`` and ``canonical_model``
from kerncraft.runner.table import MODEL_ALIASES, MODELS, canonical_model, model_entry
from kerncraft.userfiles import decode_text, display_name

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Executor
    from typing import Callable

    from kerncraft.kernel.model import KernelModel
    from kerncraft.machine.model import MachineModel

__all__ = ["analyze", "sweep", "sweep_row", "SweepRow", "MODELS", "MODEL_ALIASES", "canonical_model",
           "load_kernel", "read_kernel_file", "resolve_machine"]

KernelLike = Union["KernelModel", str, Path]
MachineLike = Union["MachineModel", str, Path]
DefineValues = Union[int, str, Iterable[int]]


def read_kernel_file(path_text: str | Path) -> str:
    """The text of a kernel file, with one clear error when it cannot be read."""
    path = Path(path_text)
    shown = display_name(path_text)     # a name with non-UTF-8 bytes is still printable
    if not path.exists():
        path = bundled_kernel(path_text) or path   # 'kernels/triad.c' from any folder
    if not path.exists():
        # a bare name or kernels/NAME.c meant a bundled kernel: say which there are
        names = (", ".join(bundled_kernel_names())
                 if Path(path_text).parent in (Path("."), Path("kernels")) else "")
        raise KerncraftError(f"kernel file not found: {shown}"
                             + (f" (bundled kernels: {names})" if names else ""))
    if path.is_dir():
        raise KerncraftError(f"kernel path is a directory, not a file: {shown}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KerncraftError(f"cannot read kernel file {shown}: {exc.strerror}") from exc
    # as a machine file: a byte-order mark is dropped, a bad byte located; newlines
    # translated as text mode reads them
    text = decode_text(data, path_text, KernelError)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _looks_like_source(text: str) -> bool:
    # a file name has no line breaks, braces or semicolons; C source always has one
    return any(mark in text for mark in ("\n", ";", "{"))


#: Kernel files read as Kerncraft kernel descriptions (YAML), not as C.
DESCRIPTION_SUFFIXES = (".yml", ".yaml")


def is_description_path(path: str | Path) -> bool:
    """Whether the kernel file ``path`` is a kernel description, by its suffix."""
    return Path(path).suffix.lower() in DESCRIPTION_SUFFIXES


def load_kernel(kernel: KernelLike, filename: str | None = None) -> "KernelModel":
    """A :class:`~kerncraft.kernel.model.KernelModel` from a model (returned as is),
    C source text or a kernel description's YAML text, or the path of a kernel file
    (a ``.yml``/``.yaml`` one is a kernel description, :mod:`kerncraft.kernel.description`).

    >>> load_kernel("double a[N], b[N];\\nfor (int i = 0; i < N; ++i) a[i] = b[i];").constant_names
    ('N',)
    """
    from kerncraft.kernel.description import parse_any_kernel, parse_kernel_description
    from kerncraft.kernel.model import KernelModel
    from kerncraft.kernel.parser import parse_kernel

    if isinstance(kernel, KernelModel):
        return kernel
    if isinstance(kernel, str) and _looks_like_source(kernel):
        return parse_any_kernel(kernel, filename=filename)
    if isinstance(kernel, (str, Path)):
        parse = parse_kernel_description if is_description_path(kernel) else parse_kernel
        return parse(read_kernel_file(kernel), filename=filename or str(kernel))
    raise TypeError(f"kernel must be a KernelModel, C source or a path, not "
                    f"{type(kernel).__name__}")


def resolve_machine(machine: MachineLike) -> "MachineModel":
    """A :class:`~kerncraft.machine.model.MachineModel` from a model (returned as is),
    a bundled name (``"CSX"``) or the path of a machine file.

    >>> resolve_machine("CSX").clock
    2500000000.0
    """
    from kerncraft.machine.loader import load_machine
    from kerncraft.machine.model import MachineModel

    if isinstance(machine, MachineModel):
        return machine
    if isinstance(machine, (str, Path)):
        return load_machine(str(machine))
    raise TypeError(f"machine must be a MachineModel, a bundled name or a path, not "
                    f"{type(machine).__name__}")


def _options(options: AnalysisOptions | None, settings: Mapping[str, Any]) -> AnalysisOptions:
    """``options`` with the keyword settings applied (the keywords win)."""
    base = options if options is not None else AnalysisOptions()
    changes = {k: v for k, v in settings.items() if v is not None}
    return base.replace(**changes) if changes else base


def _bind(kernel: "KernelModel", defines: Mapping[str, int] | None) -> "KernelModel":
    from kerncraft.kernel.defines import resolve_bindings

    if not defines and not kernel.unbound_constants():
        return kernel
    # a bound kernel keeps its values unless ``defines`` overrides them
    unbound = kernel.unbound if kernel.unbound is not None else kernel
    [values] = resolve_bindings(unbound, [{**kernel.bindings, **(defines or {})}])
    return unbound.bind(values)


def analyze(kernel: KernelLike, machine: MachineLike, model: str = "ECM",
            defines: Mapping[str, int] | None = None, cores: int | None = None,
            cache_predictor: str | None = None, incore_model: str | None = None,
            unit: str | None = None, *, options: AnalysisOptions | None = None,
            **settings: Any) -> Any:
    """Predict (or, for ``Benchmark``, measure) one kernel on one machine.

    ``kernel``: a KernelModel, C source text or a kernel file; ``machine``: a
    MachineModel, bundled name or machine file. ``defines`` binds the kernel's
    constants (``"."`` is the default for all, as ``-D . VALUE``). ``model`` is a
    command-line model name (``ECM``, ``ECMData``, ``ECMCPU``, ``RooflineFLOP``,
    ``RooflineASM``, ``LC``, ``Benchmark``; aliases and any case accepted).
    ``unit`` None is the model's default (cy/CL; Roofline: FLOP/s, or It/s for a
    kernel without FLOPs). Further keywords are :class:`AnalysisOptions` fields
    (``compiler``, ``compiler_flags``, ``asm_block``, ``pointer_increment``,
    ``ignore_unknown``, ``cache_fill``, ``aliasing``); ``options`` gives them all at once and
    the keywords override it.

    Returns the model's typed result: ECMResult, ECMCPUResult (ECMCPU),
    ECMDataResult, RooflineResult, LCResult or BenchmarkResult.

    >>> result = analyze("kernels/copy.c", "CSX", model="ECM", defines={"N": 10**7})
    >>> round(result.t_mem, 2), result.saturation_cores, result.unit
    (20.76, 3, 'cy/CL')
    >>> analyze("kernels/copy.c", "CSX", model="LC", defines={"N": 10**7}).holding["L1"]
    0
    """
    name = canonical_model(model)
    chosen = _options(options, {"cores": cores, "cache_predictor": cache_predictor,
                                "incore_model": incore_model, "unit": unit, **settings})
    from kerncraft.kernel.description import check_models_for

    bound = _bind(load_kernel(kernel), defines)
    check_models_for(bound, [name])     # a kernel description has no C code to compile
    return model_entry(name).compute(bound, resolve_machine(machine), chosen)


@dataclass(frozen=True)
class SweepRow:
    """One point of a sweep: the constants' values and the model's typed result.

    >>> row = SweepRow("ECM", {"N": 100}, None)
    >>> row.defines["N"]
    100
    """

    model: str
    defines: Mapping[str, int]
    result: Any

    def to_dict(self) -> dict[str, Any]:
        """JSON view: ``{"model", "defines", "result"}`` (result per ``docs/json.md``)."""
        return {"model": self.model, "defines": dict(self.defines),
                "result": self.result.to_dict()}


def _points(defines: Mapping[str, DefineValues],
            max_points: int | None = None) -> list[dict[str, int]]:
    """The cartesian product of the values, first key varying slowest; a value is an
    int, a range string as for ``-D`` (``"100-1000:4log"``) or an iterable of ints.
    More than ``max_points`` points (default: the command line's limit, 10,000) is
    refused before any is built."""
    from kerncraft.kernel.defines import MAX_POINTS, check_point_count, parse_define

    values = []
    for key, value in defines.items():
        if isinstance(value, str):
            values.append(parse_define(key, value).values)
        elif isinstance(value, int):
            values.append(parse_define(key, str(value)).values)
        else:
            values.append(tuple(parse_define(key, str(v)).values[0] for v in value))
    check_point_count(dict(zip(defines, values)), MAX_POINTS if max_points is None else max_points)
    return [dict(zip(defines, combo)) for combo in itertools.product(*values)]


def sweep(kernel: KernelLike, machine: MachineLike, model: str = "ECM",
          defines: Mapping[str, DefineValues] | None = None, cores: int | None = None,
          cache_predictor: str | None = None, incore_model: str | None = None,
          unit: str | None = None, *, options: AnalysisOptions | None = None,
          max_points: int | None = None, executor: "Executor | None" = None,
          on_row: "Callable[[SweepRow], None] | None" = None,
          **settings: Any) -> list[SweepRow]:
    """:func:`analyze` over the cartesian product of ``defines`` (first key slowest);
    more than ``max_points`` points (default 10,000, as ``--max-points``) is refused.

    The kernel is parsed and the machine file loaded once. What does not depend
    on the swept values is computed once as well: the compiled loop and its
    in-core analysis (cached per generated C source, in which sizes are run-time
    values) and the symbolic layer-condition analysis (cached per kernel source,
    machine and core count); each point then evaluates compiled expressions.

    ``executor``: any :class:`concurrent.futures.Executor` (a process pool, or a Dask
    cluster's ``Client.get_executor()``) the points are computed on; the kernel travels
    as its source text and the machine as its file's path, so both must come from
    files (or be C source). The rows are the same as without it, in point order. A
    point that fails there does not stop the others: after all are done a
    :class:`~kerncraft.runner.scatter.SweepError` names the failed points and holds the
    rows of the others (``.rows``); without an executor the first error is raised as
    it happens. ``on_row(row)`` is called as each point completes (progress).

    >>> rows = sweep("kernels/copy.c", "CSX", model="ECMData",
    ...              defines={"N": [1000, 10**7]})
    >>> [(row.defines["N"], round(row.result.value("T_L3MEM"), 2)) for row in rows]
    [(1000, 0.0), (10000000, 8.76)]
    """
    name = canonical_model(model)
    chosen = _options(options, {"cores": cores, "cache_predictor": cache_predictor,
                                "incore_model": incore_model, "unit": unit, **settings})
    from kerncraft.kernel.description import check_models_for

    unbound = load_kernel(kernel)
    unbound = unbound.unbound if unbound.unbound is not None else unbound
    check_models_for(unbound, [name])   # a kernel description has no C code to compile
    loaded = resolve_machine(machine)
    points = _points(defines or {}, max_points)
    if executor is not None:
        return _sweep_on(executor, name, unbound, loaded, chosen, points, on_row)
    compute = model_entry(name).compute
    rows = []
    for point in points:
        bound = _bind(unbound, point)
        rows.append(SweepRow(name, dict(bound.bindings), compute(bound, loaded, chosen)))
        if on_row is not None:
            on_row(rows[-1])
    return rows


def sweep_row(name: str, source: str, filename: str | None, machine_path: str,
              options: AnalysisOptions, point: Mapping[str, int]) -> SweepRow:
    """One row of :func:`sweep`, computed where an executor runs it (module level, so
    a worker finds it by name; the kernel and machine are parsed there once)."""
    from kerncraft.runner.scatter import loaded

    kernel, machine = loaded(source, filename, machine_path)
    bound = _bind(kernel, point)
    return SweepRow(name, dict(bound.bindings), model_entry(name).compute(bound, machine, options))


def _sweep_on(executor: "Executor", name: str, kernel: "KernelModel", machine: "MachineModel",
              options: AnalysisOptions, points: list[dict[str, int]],
              on_row: "Callable[[SweepRow], None] | None") -> list[SweepRow]:
    from kerncraft.runner.scatter import SweepError, executor_outcomes

    if not kernel.source or not machine.path:
        raise KerncraftError("a sweep on an executor needs the kernel as C source or a file "
                             "and the machine as a file or bundled name")
    tasks = [(point, (name, kernel.source, kernel.filename, machine.path, options, point))
             for point in points]

    def completed(outcome) -> None:
        if on_row is not None and outcome.ok:
            on_row(outcome.value)

    outcomes = list(executor_outcomes(sweep_row, tasks, executor, on_complete=completed))
    rows = [o.value for o in outcomes if o.ok]
    failures = [o for o in outcomes if not o.ok]
    if failures:
        raise SweepError(failures, rows, len(points))
    return rows
