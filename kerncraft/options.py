"""The options of an analysis, without the command line.

Every model reads its settings from one frozen :class:`AnalysisOptions`. The
``kerncraft`` command line converts its parsed options into it in one function
(:func:`kerncraft.cli.kerncraft.options_from_args`); library users build it directly or
let :func:`kerncraft.analyze` do it. The attribute names are the command line's
option names (``--cache-predictor`` -> ``cache_predictor``), so an object with
those attributes - such as the namespace older scripts pass to
``model_report(name, kernel, machine, args)`` - converts with :func:`as_options`
without this module knowing where it came from.

>>> from kerncraft.options import AnalysisOptions
>>> options = AnalysisOptions(cores=4, unit="cy/It")
>>> options.cache_predictor, options.cores, options.unit
('LC', 4, 'cy/It')
>>> AnalysisOptions(cache_predictor="LRU")
Traceback (most recent call last):
...
kerncraft.errors.KerncraftError: unknown cache predictor 'LRU' (choose LC or SIM)
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping, Union

from kerncraft.errors import KerncraftError

__all__ = ["AnalysisOptions", "as_options", "canonical_incore_model", "INCORE_MODELS",
           "CACHE_PREDICTORS", "UNITS", "NONTEMPORAL_MODES"]

UNITS = ("cy/CL", "cy/It", "It/s", "FLOP/s")
CACHE_PREDICTORS = ("LC", "SIM")
INCORE_MODELS = ("kerncraft", "kerncraft-sim", "OSACA", "LLVM-MCA")
NONTEMPORAL_MODES = ("auto", "on", "off")

CacheFill = Union[float, Mapping[str, float], None]


def canonical_incore_model(name: str | None) -> str:
    """The canonical spelling of an in-core model name (case-insensitive).

    >>> canonical_incore_model("llvm_mca"), canonical_incore_model(None)
    ('LLVM-MCA', 'kerncraft')
    """
    if name is None:
        return "kerncraft"
    lookup = {m.lower(): m for m in INCORE_MODELS}
    lookup.update({"iaca": "IACA", "llvm_mca": "LLVM-MCA", "llvm-mca": "LLVM-MCA",
                   "kerncraft_sim": "kerncraft-sim"})
    model = lookup.get(str(name).lower())
    if model is None:
        raise KerncraftError(f"unknown in-core model {name!r} "
                             f"(choose from {', '.join(INCORE_MODELS)})")
    if model == "IACA":
        raise KerncraftError("the IACA in-core model is not available (Intel discontinued "
                             "IACA); use -i kerncraft (built-in, the default), -i LLVM-MCA or "
                             "-i OSACA")
    return model


@dataclass(frozen=True)
class AnalysisOptions:
    """Settings shared by all models (one per command-line option).

    ``unit`` None means the model's default (cy/CL for ECM, FLOP/s or It/s for
    Roofline). ``cache_fill`` is the share of each cache a layer condition may
    fill (a number for every level or a mapping level -> share; None: the
    machine file's). ``verbose`` only changes the text of a report.
    ``nontemporal_stores``: which stores bypass the caches - ``auto`` those the
    kernel's ``#pragma nontemporal`` names and, for models that compile the loop,
    all stores when the loop block streams every store; ``on`` every array the
    innermost loop writes; ``off`` none (docs/ecm-model.md).
    ``iterations``: ``-p Benchmark`` runs the kernel this many times first (Kerncraft's
    ``--iterations``; None: once) and more until a run lasts long enough.

    >>> AnalysisOptions(incore_model="llvm-mca").incore_model
    'LLVM-MCA'
    >>> AnalysisOptions(cores=0)
    Traceback (most recent call last):
    ...
    kerncraft.errors.KerncraftError: cores must be a positive integer, got 0
    """

    cache_predictor: str = "LC"
    cores: int = 1
    unit: str | None = None
    verbose: int = 0
    incore_model: str = "kerncraft"
    compiler: str | None = None
    compiler_flags: str | None = None
    asm_block: str | int = "auto"
    pointer_increment: str | int = "auto"
    ignore_unknown: bool = False
    cache_fill: CacheFill = None
    aliasing: str = "distinct"
    nontemporal_stores: str = "auto"
    iterations: int | None = None

    def __post_init__(self) -> None:
        if self.cache_predictor not in CACHE_PREDICTORS:
            raise KerncraftError(f"unknown cache predictor {self.cache_predictor!r} "
                                 "(choose LC or SIM)")
        if isinstance(self.cores, bool) or not isinstance(self.cores, int) or self.cores < 1:
            raise KerncraftError(f"cores must be a positive integer, got {self.cores!r}")
        if self.unit is not None and self.unit not in UNITS:
            raise KerncraftError(f"unknown unit {self.unit!r} (choose from {', '.join(UNITS)})")
        if isinstance(self.compiler_flags, str):   # split with shell quoting when compiling
            import shlex
            try:
                shlex.split(self.compiler_flags)
            except ValueError as exc:
                raise KerncraftError(f"--compiler-flags {self.compiler_flags!r}: "
                                     f"{str(exc).lower()}") from None
        if self.iterations is not None and (isinstance(self.iterations, bool) or not
                                            isinstance(self.iterations, int)
                                            or self.iterations < 1):
            raise KerncraftError(f"iterations must be a positive integer, got "
                                 f"{self.iterations!r}")
        if self.aliasing not in ("distinct", "pointers"):
            raise KerncraftError(f"unknown aliasing {self.aliasing!r} (choose distinct or "
                                 "pointers)")
        if self.nontemporal_stores not in NONTEMPORAL_MODES:
            raise KerncraftError(f"unknown nontemporal stores mode {self.nontemporal_stores!r} "
                                 "(choose auto, on or off)")
        object.__setattr__(self, "incore_model", canonical_incore_model(self.incore_model))
        object.__setattr__(self, "verbose", int(self.verbose or 0))
        if isinstance(self.cache_fill, Mapping):    # frozen all the way down
            object.__setattr__(self, "cache_fill", MappingProxyType(dict(self.cache_fill)))

    def replace(self, **changes: Any) -> "AnalysisOptions":
        """A copy with some options changed (validated again).

        >>> AnalysisOptions().replace(cores=2).cores
        2
        """
        return dataclasses.replace(self, **changes)

    def incore_arguments(self) -> dict[str, Any]:
        """The keyword arguments of
        :func:`kerncraft.models.incore_prediction.predict_incore` these options set.

        >>> AnalysisOptions(compiler_flags="-O2").incore_arguments()["flags"]
        '-O2'
        """
        return {"compiler": self.compiler, "flags": self.compiler_flags,
                "asm_block": self.asm_block, "pointer_increment": self.pointer_increment,
                "ignore_unknown": self.ignore_unknown, "incore_model": self.incore_model,
                "aliasing": self.aliasing}


_FIELDS = tuple(f.name for f in dataclasses.fields(AnalysisOptions))


def as_options(source: Any = None) -> AnalysisOptions:
    """``source`` as :class:`AnalysisOptions`: returned as is if it already is one,
    else read attribute by attribute (missing or None ones take the defaults).

    This is how the model entry points keep accepting the namespace objects that
    older scripts and tests pass.

    >>> from types import SimpleNamespace
    >>> as_options(SimpleNamespace(cores=2, unit=None, json="-")).cores
    2
    >>> as_options(None) == AnalysisOptions()
    True
    """
    if isinstance(source, AnalysisOptions):
        return source
    if source is None:
        return AnalysisOptions()
    values = {name: getattr(source, name) for name in _FIELDS
              if getattr(source, name, None) is not None}
    return AnalysisOptions(**values)
