"""Points of a sweep computed on any :class:`concurrent.futures.Executor`.

Design-space studies (kernels x machine files x sizes) outgrow one machine, so a sweep
can hand its points to an executor: a process pool, or a Dask cluster through
``dask.distributed.Client.get_executor()`` (``kerncraft --dask ADDRESS``). What
travels to a worker is small and self-contained: the kernel's source text and file
name, the machine file's path, the options and the point (:class:`PointTask`); a
worker parses and loads each once (:func:`loaded`) and keeps them for the next point
of the same run. What comes back is the finished result, or the failure's message
(:class:`Outcome`), never an exception object that might not unpickle elsewhere.

Results are handed on in point order, as soon as every point before them is done,
while ``on_complete`` hears of each point when it completes (progress). A failing
point does not stop the others: its :class:`Outcome` carries the message, and the
caller decides (the command line prints it at the point's place and exits 1;
:func:`kerncraft.sweep` raises :class:`SweepError` with the rows that succeeded).
"""
from __future__ import annotations

import functools
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

from kerncraft.errors import KerncraftError

__all__ = ["Outcome", "PointTask", "SweepError", "executor_outcomes", "loaded",
           "point_label"]


@dataclass(frozen=True)
class PointTask:
    """Everything but the -D values that a worker needs to compute a point."""

    kernel_source: str
    kernel_filename: str | None
    machine_path: str
    models: tuple[str, ...]
    options: Any                    # kerncraft.options.AnalysisOptions


@dataclass(frozen=True)
class Outcome:
    """One point's result in a worker, or why it failed there."""

    index: int
    defines: Mapping[str, int]
    value: Any = None
    error: str | None = None
    exit_code: int = 1
    trace: str | None = None        # the traceback of an internal error (a bug)

    @property
    def ok(self) -> bool:
        return self.error is None


def point_label(defines: Mapping[str, int]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(defines.items())) or "(no constants)"


class SweepError(KerncraftError):
    """Some points of a sweep failed; ``rows`` holds the ones that did not, in order,
    ``failures`` the failed points' (defines, message)."""

    def __init__(self, failures: Sequence[Outcome], rows: Sequence[Any], total: int):
        first = failures[0]
        super().__init__(f"{len(failures)} of {total} point(s) failed; first at "
                         f"{point_label(first.defines)}: {first.error}")
        self.failures = tuple((dict(f.defines), f.error) for f in failures)
        self.rows = list(rows)
        self.exit_code = first.exit_code


@functools.lru_cache(maxsize=8)
def loaded(source: str, filename: str | None, machine_path: str):
    """The parsed kernel and loaded machine of a run, once per worker process."""
    from kerncraft.kernel.description import parse_any_kernel   # C or a YAML description
    from kerncraft.machine.loader import load_machine

    return parse_any_kernel(source, filename), load_machine(machine_path)


def _guarded(compute: Callable[..., Any], index: int, defines: Mapping[str, int],
             *args: Any) -> Outcome:
    """``compute(*args)`` as an Outcome: a user's error (a KerncraftError) becomes its
    message; any other exception is a bug, reported with its traceback (the other
    points are still computed and kept)."""
    try:
        return Outcome(index, defines, value=compute(*args))
    except KerncraftError as exc:
        return Outcome(index, defines, error=str(exc), exit_code=exc.exit_code)
    except Exception as exc:        # noqa: BLE001 - reported with its traceback, not hidden
        import traceback

        return Outcome(index, defines, error=f"internal error: {type(exc).__name__}: {exc}",
                       exit_code=1, trace=traceback.format_exc())


def executor_outcomes(function: Callable[..., Any], tasks: Sequence[tuple[Mapping[str, int],
                                                                          tuple]],
                      executor: Executor,
                      on_complete: Callable[[Outcome], None] | None = None
                      ) -> Iterator[Outcome]:
    """``function(*arguments)`` of every ``(defines, arguments)`` task on ``executor``;
    outcomes yielded in task order, each as soon as it and all before it are done.

    ``function`` must be importable by name on the workers (a module-level function).
    """
    futures = {executor.submit(_guarded, function, index, defines, *arguments): index
               for index, (defines, arguments) in enumerate(tasks)}
    ready: dict[int, Outcome] = {}
    following = 0
    for future in as_completed(futures):
        outcome = future.result()       # an executor's own failure is raised here
        if on_complete is not None:
            on_complete(outcome)
        ready[outcome.index] = outcome
        while following in ready:
            yield ready.pop(following)
            following += 1
