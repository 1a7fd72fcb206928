"""Check a database's latencies *between* forms on this host: two-instruction chains.

``kerncraft-incore bench ARCH --kernel-forms`` measures each form alone, and its
latency chain feeds a form into itself. Some cores forward a result faster to some
consumers than to others: on Zen 5 a FADD result reaches another FADD after 2 cy but
an FMUL, an FMA or a store after 3 cy, which no single-form chain shows (the
database carries it as ``bypass``/``lat_other``). This module finds the pairs of
forms that feed each other in the bundled kernels' loops (a register written by one
and read by the next) and times the chain ``P, C, P, C, ...`` through one register:
its period is latency(P -> C) + latency(C -> P). A pair *differs* when the measured
period is off the database's (the loop-carried dependency the static analyzer
computes for the two-instruction loop) by more than ``tolerance`` and 0.5 cy.

``kerncraft-incore bench ARCH --kernel-pairs`` runs it. Pairs whose forms have no
register latency chain (loads, stores, compares) or whose chain registers are in
different register files are listed as not measured.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from kerncraft.errors import KerncraftError

if TYPE_CHECKING:
    from kerncraft.incore.model import Instruction
    from kerncraft.incore.protocols import PortModelLike

__all__ = ["PairCheck", "PairsCheck", "dependent_pairs", "kernel_pairs", "pair_chain",
           "check_pairs", "format_pairs_check"]

Pair = tuple[str, str]


@dataclass(frozen=True)
class PairCheck:
    """One producer -> consumer pair: where it occurs and the period of its chain."""

    producer: str
    consumer: str
    example: str
    measured: float | None = None         # cycles per period (P -> C -> P)
    db: float | None = None               # the static analyzer's LCD of the same loop
    differs: bool = False
    skipped: str = ""


@dataclass
class PairsCheck:
    arch: str
    core_hz: float
    pairs: list[PairCheck] = field(default_factory=list)

    @property
    def differing(self) -> list[PairCheck]:
        return [p for p in self.pairs if p.differs]

    def to_json(self) -> dict:
        return {"arch": self.arch, "core_hz": self.core_hz,
                "pairs": [p.__dict__ for p in self.pairs]}


def dependent_pairs(instructions: Sequence[Instruction]) -> list[Pair]:
    """(producer form, consumer form) for every register a loop body passes from one
    instruction to another, across the loop's back edge too; chains of one form are left
    to ``--kernel-forms``, flags and address registers are not data."""
    from kerncraft.incore.x86.semantics import dataflow
    flows = [dataflow(ins) for ins in instructions]
    last: dict[str, int] = {}
    pairs: dict[Pair, None] = {}
    n = len(instructions)
    for k in range(2 * n):                      # the second pass sees the wrap-around
        i = k % n
        flow = flows[i]
        if not flow.breaks_dependency:
            for key in sorted(flow.sources - flow.address_sources):
                j = last.get(key)
                pair = (instructions[j].form_key, instructions[i].form_key) \
                    if j is not None and not key.startswith("flag.") else None
                if pair and pair[0] != pair[1]:
                    pairs[pair] = None
        for key in flow.destinations:
            last[key] = i
    return list(pairs)


def kernel_pairs(model: PortModelLike, arch: str, opt_levels: Sequence[str] = ("-O3",)
                 ) -> dict[Pair, str]:
    """Pair -> where it occurs, for the innermost loops of the bundled kernels."""
    from kerncraft.dbtools.coverage import kernel_loop_instructions
    loops, _, note = kernel_loop_instructions(model, arch, opt_levels=opt_levels)
    if not loops:
        raise KerncraftError(f"no kernel compiled for {arch}: {note or 'no kernels'}")
    found: dict[Pair, str] = {}
    for path, opt, instructions in loops:
        for pair in dependent_pairs(instructions):
            found.setdefault(pair, f"{path.name} {opt}")
    return dict(sorted(found.items()))


def pair_chain(producer: str, consumer: str) -> tuple[list[str], str | None]:
    """One period of the chain (two lines through one register) and the vector width
    the loop needs; KerncraftError when the pair cannot be chained."""
    from kerncraft.dbtools.microbench_forms import generate
    lines, widths, roots = [], [], []
    for form in (producer, consumer):
        bench = generate(form)
        if bench.latency_body is None or bench.latency_kind != "register":
            raise KerncraftError(f"'{form}' has no register latency chain")
        line = bench.latency_body[0]
        lines.append(line)
        widths.append(bench.vector_width)
        roots.append(_chain_root(line))
    if roots[0] != roots[1]:
        raise KerncraftError("the two forms chain through different register files")
    order = ("xmm", "ymm", "zmm")
    width = max((w for w in widths if w), key=order.index, default=None)
    return lines, width


def _chain_root(line: str) -> str:
    """The register (alias root) a latency-chain line reads and writes."""
    from kerncraft.dbtools.microbench_forms import line_dataflow
    _, flow = line_dataflow(line)
    both = sorted((flow.sources - flow.address_sources) & flow.destinations)
    if not both:
        raise KerncraftError(f"'{line.strip()}' does not read its destination")
    return both[0]


def _model_period(model: PortModelLike, lines: Sequence[str]) -> float:
    from kerncraft.incore.analysis import analyze_text
    text = ".Lpair:\n" + "\n".join(lines) + "\n        decq %r15\n        jnz .Lpair\n"
    return float(analyze_text(text, model.arch, model=model).lcd)


def check_pairs(model: PortModelLike, pairs: dict[Pair, str], *, core_hz: float,
                tolerance: float = 0.1,
                measure: Callable[[list[str], str | None], float] | None = None,
                cpu: int | None = None, quick: bool = False, realtime: bool = True,
                progress: Callable[[str], None] | None = None) -> PairsCheck:
    """Time each pair's chain and compare it with ``model`` (module doc). ``measure``
    (lines of one period, vector width -> cycles per period) defaults to the
    clock-calibrated microbenchmark harness."""
    if measure is None:
        measure = _harness(core_hz, cpu, quick, realtime)
    check = PairsCheck(arch=model.arch, core_hz=core_hz)
    for n, ((p, c), where) in enumerate(pairs.items(), 1):
        if progress:
            progress(f"[{n}/{len(pairs)}] {p} -> {c}")
        try:
            lines, width = pair_chain(p, c)
        except KerncraftError as exc:
            check.pairs.append(PairCheck(p, c, where, skipped=str(exc).splitlines()[0]))
            continue
        try:
            db = _model_period(model, lines)
        except KerncraftError as exc:     # a form the database lacks: nothing to compare
            check.pairs.append(PairCheck(p, c, where, skipped=str(exc).splitlines()[0]))
            continue
        measured = measure(lines, width)
        gap = abs(measured - db)
        check.pairs.append(PairCheck(p, c, where, measured, db,
                                     gap > 0.5 and gap > tolerance * max(measured, db)))
    return check


def _harness(core_hz: float, cpu: int | None, quick: bool, realtime: bool
             ) -> Callable[[list[str], str | None], float]:
    from kerncraft.dbtools.microbench import measure_body
    from kerncraft.dbtools.microbench_forms import UNROLL

    def run(lines: list[str], width: str | None) -> float:
        body = list(lines) * (UNROLL // len(lines))
        return measure_body(body, core_hz=core_hz, width=width, cpu=cpu, quick=quick,
                            realtime=realtime) * len(lines)
    return run


def format_pairs_check(check: PairsCheck) -> str:
    """The table of measured vs database chain periods, differing pairs marked."""
    rows = [f"Database {check.arch} vs this host (core clock {check.core_hz / 1e9:.3f} GHz, "
            f"calibrated): {len(check.pairs)} producer -> consumer pairs of the bundled "
            "kernels; period = latency(P -> C) + latency(C -> P)",
            f"  {'producer -> consumer':<58}{'period':>8}{'db':>7}  differs"]
    for p in check.pairs:
        name = f"{p.producer} -> {p.consumer}"
        if p.skipped:
            rows.append(f"  {name:<58}  not measured: {p.skipped}")
            continue
        rows.append(f"  {name:<58}{p.measured:>8.2f}{p.db:>7.2f}  "
                    f"{'yes' if p.differs else '-'}")
    measured = [p for p in check.pairs if not p.skipped]
    rows.append(f"{len(check.differing)} of {len(measured)} measured pairs differ "
                f"({len(check.pairs) - len(measured)} not measurable)")
    return "\n".join(rows) + "\n"
