"""Check a port-model database against this host: measure every instruction form the
bundled kernels compile to and list where the database differs (issue 11, item 5).

``kerncraft-incore bench ARCH --kernel-forms`` runs it. The forms come from the same
compilations as ``--db-check`` (:func:`kerncraft.dbtools.coverage.kernel_loop_instructions`:
every bundled kernel, the database's compiler target, by default ``-O3``), each form is
measured with :func:`kerncraft.dbtools.microbench.bench_form` (latency chain and
throughput rotation, clock-calibrated, pinned), and a form *differs* when

* its measured reciprocal throughput is off the database's port-balanced value by more
  than ``tolerance`` (relative) and more than 0.05 cy, or
* its measured latency is off by more than ``tolerance`` and more than 0.5 cy.

Forms eliminated at rename (no port) are compared with the front end's rate
(1 / ``frontend_width``); compares have no register result, so their latency is not
compared.

Forms the microbenchmark generator cannot build (branches, address forms it does not
know) are listed as not measured, never silently dropped. The result is a report; the
database is corrected by hand, with the measurement as the entry's source.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from kerncraft.errors import KerncraftError

if TYPE_CHECKING:
    from kerncraft.incore.protocols import PortModelLike

#: Compares write only flags: the latency chain the microbenchmark builds measures nothing.
_FLAGS_ONLY = re.compile(r"^(v?u?comis[sd]|v?ptest|cmp[bwlq]?|test[bwlq]?|bt[bwlq]?) ")

__all__ = ["FormCheck", "DatabaseCheck", "kernel_forms", "kernel_loops", "forms_of_loops",
           "check_forms", "format_database_check"]


@dataclass(frozen=True)
class FormCheck:
    """One form: where it occurs, what was measured and what the database says."""

    form: str
    example: str
    latency: float | None = None
    throughput: float | None = None
    db_latency: float | None = None
    db_throughput: float | None = None
    differs: tuple[str, ...] = ()          # 'latency' and/or 'throughput'
    skipped: str = ""                      # why the form was not measured


@dataclass
class DatabaseCheck:
    arch: str
    core_hz: float
    forms: list[FormCheck] = field(default_factory=list)

    @property
    def differing(self) -> list[FormCheck]:
        return [f for f in self.forms if f.differs]

    def to_json(self) -> dict:
        return {"arch": self.arch, "core_hz": self.core_hz,
                "forms": [f.__dict__ for f in self.forms]}


def kernel_forms(model: PortModelLike, arch: str, opt_levels: Sequence[str] = ("-O3",)
                 ) -> dict[str, str]:
    """Form key -> one example line, for the innermost loops of the bundled kernels."""
    return forms_of_loops(kernel_loops(model, arch, opt_levels))


def kernel_loops(model: PortModelLike, arch: str, opt_levels: Sequence[str] = ("-O3",),
                 target: tuple[str, Sequence[str]] | None = None) -> list:
    """(kernel path, opt level, instructions) of the bundled kernels' innermost loops,
    compiled for ``target`` (compiler, flags without -O) or the database's own target."""
    from kerncraft.dbtools.coverage import kernel_loop_instructions
    loops, _, note = kernel_loop_instructions(model, arch, opt_levels=opt_levels, target=target)
    if not loops:
        raise KerncraftError(f"no kernel compiled for {arch}: {note or 'no kernels'}")
    return loops


def forms_of_loops(loops: Sequence) -> dict[str, str]:
    """Form key -> one example line (with the kernel and -O level it came from)."""
    forms: dict[str, str] = {}
    for path, opt, instructions in loops:
        for ins in instructions:
            forms.setdefault(ins.form_key, f"{ins.text.split('#')[0].strip()} ({path.name} {opt})")
    return dict(sorted(forms.items()))


def _differs(measured: float | None, expected: float | None, tolerance: float,
             floor: float) -> bool:
    if measured is None or expected is None:
        return False
    gap = abs(measured - expected)
    return gap > floor and gap > tolerance * max(expected, measured)


def check_forms(model: PortModelLike, forms: dict[str, str], *, core_hz: float,
                tolerance: float = 0.1,
                cpu: int | None = None, quick: bool = False, realtime: bool = True,
                progress: Callable[[str], None] | None = None) -> DatabaseCheck:
    """Measure each form and compare it with ``model`` (see the module doc)."""
    from kerncraft.dbtools.microbench import bench_form
    from kerncraft.incore.protocols import traits_of
    width = traits_of(model).frontend_width
    check = DatabaseCheck(arch=model.arch, core_hz=core_hz)
    for n, (form, example) in enumerate(forms.items(), 1):
        if progress:
            progress(f"[{n}/{len(forms)}] {form}")
        try:
            r = bench_form(model, form, cpu=cpu, quick=quick, realtime=realtime, core_hz=core_hz)
        except KerncraftError as exc:
            check.forms.append(FormCheck(form, example, skipped=str(exc).splitlines()[0]))
            continue
        db_lat = r.db_load_latency if r.latency_kind == "load" else r.db_latency
        if r.latency_kind == "memory" or _FLAGS_ONLY.match(form):
            db_lat = None        # store forwarding / a flags result: no register chain
        db_tp = r.db_throughput
        if db_tp == 0 and width:
            db_tp = 1.0 / width     # eliminated at rename: the front end binds
        differs = tuple(kind for kind, hit in (
            ("latency", _differs(r.latency, db_lat, tolerance, 0.5)),
            ("throughput", _differs(r.throughput, db_tp, tolerance, 0.05))) if hit)
        check.forms.append(FormCheck(form, example, r.latency, r.throughput, db_lat,
                                     db_tp, differs))
    return check


def format_database_check(check: DatabaseCheck) -> str:
    """The table of measured vs database values, differing forms marked."""
    def num(v: float | None) -> str:
        return "-" if v is None else f"{v:.2f}"

    rows = [f"Database {check.arch} vs this host (core clock {check.core_hz / 1e9:.3f} GHz, "
            f"calibrated): {len(check.forms)} forms of the bundled kernels",
            f"  {'form':<42}{'lat':>7}{'db':>7}{'rtp':>7}{'db':>7}  differs"]
    for f in check.forms:
        if f.skipped:
            rows.append(f"  {f.form:<42}  not measured: {f.skipped}")
            continue
        rows.append(f"  {f.form:<42}{num(f.latency):>7}{num(f.db_latency):>7}"
                    f"{num(f.throughput):>7}{num(f.db_throughput):>7}  "
                    + (", ".join(f.differs) or "-"))
    measured = [f for f in check.forms if not f.skipped]
    rows.append(f"{len(check.differing)} of {len(measured)} measured forms differ "
                f"({len(check.forms) - len(measured)} not measurable)")
    return "\n".join(rows) + "\n"
