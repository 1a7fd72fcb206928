"""Which arrays a model stores non-temporally, and why (``--nontemporal-stores``).

* ``off``: none.
* ``on``: every array the innermost loop writes.
* ``auto`` (default): the arrays the kernel's ``#pragma nontemporal`` names
  (kerncraft/kernel/nontemporal.py); and, for a model that compiles the loop (ECM),
  every written array when every data store of the loop block is a non-temporal
  one (kerncraft/compilation/nontemporal.py). A block that mixes both kinds does
  not say which array is which: only the pragma's arrays are streamed then, and a
  note says so. Models that do not compile (ECMData, LC) follow the pragma only,
  so a kernel without it is predicted as before.

The traffic predictors take the arrays (kerncraft/cache/nontemporal.py); the
reason ends up in the report's line about them.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NontemporalChoice", "nontemporal_choice", "written_arrays"]


@dataclass(frozen=True)
class NontemporalChoice:
    """The arrays whose stores bypass the caches, why, and any caveat."""

    arrays: tuple[str, ...]
    reason: str
    notes: tuple[str, ...] = ()


def written_arrays(kernel) -> tuple[str, ...]:
    """The non-scalar arrays the innermost loop writes, in the order of first write."""
    names = dict.fromkeys(a.array for a in kernel.accesses if a.kind == "write")
    return tuple(n for n in names if n in kernel.arrays and not kernel.arrays[n].is_scalar)


def nontemporal_choice(kernel, mode: str = "auto", incore=None) -> NontemporalChoice | None:
    """The choice for ``mode`` (module doc); ``incore`` is the in-core prediction of the
    compiled loop (None for a model that does not compile). None: nothing streams."""
    if mode == "off":
        return None
    written = written_arrays(kernel)
    if not written:
        return None
    if mode == "on":
        return NontemporalChoice(written, "--nontemporal-stores on")
    marked = tuple(n for n in written if kernel.arrays[n].nontemporal)
    scan = _scan_of(incore)
    if scan is not None and scan.all_nontemporal:
        return NontemporalChoice(written, "compiled loop stores with "
                                 + ", ".join(scan.mnemonics))
    notes = ()
    if scan is not None and scan.nontemporal:
        notes = (f"the compiled loop mixes {scan.nontemporal} non-temporal "
                 f"({', '.join(scan.mnemonics)}) and {scan.stores - scan.nontemporal} ordinary "
                 "stores; name the streamed arrays with #pragma nontemporal",)
    if marked:
        return NontemporalChoice(marked, "#pragma nontemporal", notes)
    return NontemporalChoice((), "", notes) if notes else None


def _scan_of(incore):
    """The store scan recorded with the in-core analysis (None without one)."""
    if incore is None:
        return None
    from kerncraft.compilation.nontemporal import StoreScan

    return StoreScan.from_notes(getattr(incore.analysis, "notes", ()) or ())
