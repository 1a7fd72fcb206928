"""``--store FILE``: the file a study's runs accumulate in.

* ``FILE.pickle``: Kerncraft's layout, so that a Kerncraft user's ``pickle.load``
  script keeps working: one pickled dict with an entry per model and -D point of every
  run stored so far. The key is Kerncraft's run identifier, a tuple of
  ``(option name, value)`` pairs sorted by name: the options Kerncraft 0.8.18 has
  (:data:`KERNCRAFT_OPTIONS`; ``code_file`` and ``machine`` as given on the command line)
  with ``define`` (the point's ``(name, value)`` pairs, sorted) and ``pmodel`` (the model)
  among them. An option of ours that changes results and that Kerncraft lacks
  (``aliasing``, ...) is added to the key when it is not at its default, so such runs do
  not replace each other. The value is the model's result as ``--json`` has it
  (``docs/json.md``), not Kerncraft's internal result dict. A run replaces the entries of
  an earlier run with the same key, as in Kerncraft.
* any other name: JSON Lines, one ``--json`` document per run appended.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kerncraft.userfiles import display_name, merge_pickle_output

__all__ = ["KERNCRAFT_OPTIONS", "PickleStore", "run_entries", "write_store"]

#: The options of Kerncraft 0.8.18 that make up its run identifier (Kerncraft leaves
#: out verbose, store, unit and clean_intermediates, which do not change a result);
#: ``define`` and ``pmodel`` are set per entry.
KERNCRAFT_OPTIONS = ("asm_block", "cache_predictor", "code_file", "compiler", "compiler_flags",
                     "cores", "ignore_warnings", "incore_model", "iterations", "json",
                     "kernel_description", "machine", "no_phenoecm", "pointer_increment")


@dataclass(frozen=True)
class PickleStore:
    """A ``--store`` file in Kerncraft's pickle layout; ``identity`` is the run
    identifier without ``define`` and ``pmodel`` (sorted ``(name, value)`` pairs)."""

    path: str
    identity: tuple[tuple[str, Any], ...]


def run_entries(identity: tuple[tuple[str, Any], ...],
                document: Mapping[str, Any]) -> dict[tuple, Any]:
    """The pickle entries of one run's ``--json`` document: one per point and model.

    >>> doc = {"points": [{"defines": {"N": 10, "M": 5}, "models": {"LC": {"x": 1}}}]}
    >>> run_entries((("cores", 1),), doc)
    {(('cores', 1), ('define', (('M', 5), ('N', 10))), ('pmodel', 'LC')): {'x': 1}}
    """
    entries: dict[tuple, Any] = {}
    for point in document.get("points", ()):
        define = tuple(sorted(point["defines"].items()))
        for model, data in point["models"].items():
            key = tuple(sorted(identity + (("define", define), ("pmodel", model))))
            entries[key] = data
    return entries


def write_store(store: str | PickleStore, document: Mapping[str, Any]) -> None:
    """Add one run to its store (module doc)."""
    if isinstance(store, PickleStore):
        merge_pickle_output(store.path, run_entries(store.identity, document),
                            f"the store file {display_name(store.path)}")
        return
    from kerncraft.report.json import append_json_line

    append_json_line(store, document)
