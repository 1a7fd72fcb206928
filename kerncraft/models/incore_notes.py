"""The notes of an in-core prediction: caveats the report states beside the numbers.

A loop-carried chain that restarts per row (:mod:`kerncraft.models.row_overlap`), a loop
that may be fetch-bound (:mod:`kerncraft.incore.codeblocks`), a call whose callee is not
modelled, non-temporal stores (:mod:`kerncraft.compilation.nontemporal`), and a T_nOL set
by the order of the loads and stores rather than their ports
(:mod:`kerncraft.incore.memissue`). The call and store notes travel with the analysis
(its ``notes``), so the persistent cache keeps them and a warm run needs no assembly.
"""
from __future__ import annotations

from typing import Mapping

__all__ = ["model_notes", "memory_issue_note", "with_call_note", "with_store_note"]


def model_notes(kernel, selection, analysis, bounds: Mapping[str, float], source: str,
                 t_nol: float, scale: float, arch: str) -> tuple[str, ...]:
    """Caveats of the prediction for the report: chains that restart per row
    (models/row_overlap.py) and loops that may be fetch-bound (incore/codeblocks.py)."""
    notes = []
    if source == "loop-carried dependency":
        from kerncraft.models.row_overlap import row_overlap_note
        other = max(bounds["port throughput"], bounds["front end"], t_nol)
        notes.append(row_overlap_note(kernel, selection, analysis, scale, other))
    if getattr(analysis, "loop_layout", None) is not None:
        from kerncraft.incore.codeblocks import code_block_note
        notes.append(code_block_note(analysis.loop_layout, max(bounds[source], t_nol) / scale,
                                     arch))
    # cached with the analysis (memo/incore_analyses.py): reading the instructions here
    # would parse the assembly again on every warm run
    notes += [note for note in analysis.notes if note.startswith(_CALL_NOTE)]
    notes.append(memory_issue_note(analysis, t_nol, scale))
    from kerncraft.compilation.nontemporal import StoreScan   # light: no assembly parser
    notes += [scan.note() for scan in [StoreScan.from_notes(analysis.notes)] if scan]
    return tuple(note for note in notes if note)


_CALL_NOTE = "the loop calls "


def memory_issue_note(analysis, t_nol: float, scale: float) -> str:
    """Say so when the order of the loads and stores, not the ports, sets T_nOL."""
    issue = getattr(analysis, "memory_issue", None) or 0.0
    ports = max((analysis.port_totals.get(p, 0.0) for p in analysis.port_totals), default=0.0)
    if issue <= ports + 1e-9 or abs(issue * scale - t_nol) > 1e-9:
        return ""
    return (f"memory issue order: the loop's loads and stores need {issue:.2f} cy per "
            f"assembly iteration in program order (oldest first; their ports alone "
            f"{ports:.2f} cy): grouped loads, then grouped stores, leave load slots idle "
            f"(kerncraft/incore/memissue.py)")


def with_call_note(analysis, selection):
    """The analysis with :func:`_call_note` among its notes (when the loop calls)."""
    import dataclasses

    note = _call_note(selection)
    return dataclasses.replace(analysis, notes=analysis.notes + (note,)) if note else analysis


def with_store_note(analysis, selection, isa: str):
    """The analysis with the loop's non-temporal stores among its notes, if it has any
    (compilation/nontemporal.py: ``--nontemporal-stores auto`` follows them)."""
    import dataclasses

    from kerncraft.compilation.nontemporal import scan_stores

    note = scan_stores(getattr(selection, "instructions", ()), isa).note()
    return dataclasses.replace(analysis, notes=analysis.notes + (note,)) if note else analysis


def _call_note(selection) -> str:
    """The loop calls a function (a math function the compiler cannot inline, e.g.
    ``exp``): only the call instruction is in the model, not the function's own time."""
    called = sorted({(ins.text.split(None, 1)[1:] or [ins.mnemonic])[0].strip()
                     for ins in getattr(selection, "instructions", ())
                     if ins.mnemonic.startswith("call") or ins.mnemonic in ("bl", "blr")})
    if not called:
        return ""
    return (f"{_CALL_NOTE}{', '.join(str(c) for c in called)}: only the call instruction "
            "is in the model, not the time of the called function, so this prediction is a "
            "lower bound")
