"""Cache-line-split vector accesses: how many there are, and what they cost.

A vector load or store whose bytes straddle two cache lines is executed as two
accesses. Stencils make them unavoidable: with 64-byte lines and 32-byte
vectors of doubles, ``a[i+1]`` and ``a[j-1][i]`` start 8 or 16 bytes off the
vector grid of the loop, so every second vector crosses a line. A port model
that charges one load-port cycle per load under-predicts such loops by
40-55 % on Ice Lake (benchmarks/RESULTS-incore-validation.md).

Two stages, split so that a -D sweep re-does only the cheap one:

1. :func:`vector_access_profile` (per assembly block, cached with the
   analysis): the packed vector loads and stores of one assembly iteration,
   counted by vector width in bytes.
2. :func:`estimate_line_splits` (per -D point): for each width, the fraction
   of the kernel's vector reads and writes that cross a line, times the
   database's ``line_split`` cost, as extra cycles per port.

Assumptions (stated in every report that uses the estimate):

* arrays start on a cache-line boundary (as in the generated benchmark, and
  as HPC codes allocate them); rows start wherever the row length puts them;
* the vector loop starts at the innermost loop's first iteration and steps by
  whole vectors (no peeling for alignment -- what gcc does for these loops);
  a remainder shorter than a vector runs scalar and never splits;
* every packed vector access of the block stands for the kernel accesses of
  its kind (load or store) on average; loop-invariant and strided accesses
  are not vector streams and are left out.

A triangular nest, a loop bound that is not a number after binding, or an
innermost loop that does not count up by one falls back to uniformly
distributed start addresses (a multiple of the element size), and says so.

Without a kernel (``kerncraft-incore FILE.s``), :func:`kerncraft.incore.addresssplit.address_line_splits`
derives the share from the addresses of the assembly itself: every packed vector
access is ``base + index*scale + displacement``, followed through the loop's
pointer increments (:func:`kerncraft.incore.memdeps.memory_accesses`), so its
offset in a line in iteration ``k`` is ``(s + d + k*advance) mod line``. The
stated assumption is the alignment ``A`` of every register and symbol of an
address at loop entry: ``A >= line`` makes ``s = 0``; a smaller ``A`` spreads ``s``
evenly over the multiples of ``A`` in a line; ``A`` unknown (0) gives the uniform
starts of the fallback above. The share is then exact over one period of
``k`` (``line / gcd(line, advance)`` iterations).

The cost table comes from the port-model database (``line_split``, see
``databases/README.md``): extra cycles on a set of ports per split access.
The extra cycles are added evenly to the ports of the set, which is the
optimal balancing as long as those ports serve only uops with exactly that
set (load-data ports, the ``L1D`` pseudo-port); the database loader does not
check this, the database author must.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

from kerncraft.incore.line_offsets import combine_offsets, offset_residues, uniform_split_share

if TYPE_CHECKING:
    import sympy

    from kerncraft.incore.model import DataFlow, Instruction
    from kerncraft.kernel.model import KernelModel, Loop

__all__ = ["VectorAccess", "SplitCost", "LineSplitRow", "LineSplitEstimate",
           "vector_access_profile", "split_fractions", "estimate_line_splits", "AccessSplit",
           "port_cycles_with_splits", "is_contiguous_vector", "AffineAccess", "KernelLayout",
           "kernel_layout", "as_layout"]

VECTOR_BYTES = {"xmm": 16, "ymm": 32, "zmm": 64}
# Packed accesses (kerncraft.incore.x86.vectors.packed_access_bytes) that still move no
# contiguous register-wide vector: gathers/scatters, half-width inserts, extracts and
# conversions, zero/sign-extending moves.
_NOT_CONTIGUOUS = re.compile(r"gather|scatter|insert|extract|cvt|pmov[sz]x")


def is_contiguous_vector(mnemonic: str) -> bool:
    """Whether a packed access of ``mnemonic`` moves one contiguous register-wide vector
    (not a gather/scatter, half-width insert, extract, conversion or extending move)."""
    return not _NOT_CONTIGUOUS.search(mnemonic)


@dataclass(frozen=True)
class VectorAccess:
    """``count`` packed vector loads or stores of ``vector_bytes`` per assembly iteration."""

    kind: str            # 'load' | 'store'
    vector_bytes: int
    count: int


@dataclass(frozen=True)
class SplitCost:
    """Extra cycles one split access of a kind and width costs, on a set of ports."""

    kind: str
    vector_bytes: int
    ports: tuple[str, ...]
    cycles: float


@dataclass(frozen=True)
class LineSplitRow:
    kind: str
    vector_bytes: int
    count: int                    # vector accesses per assembly iteration
    fraction: float               # share of them that crosses a line
    cost: SplitCost | None        # None: the database has no cost for this form

    @property
    def extra_cycles(self) -> float:
        return self.count * self.fraction * self.cost.cycles if self.cost else 0.0


@dataclass(frozen=True)
class AccessSplit:
    """One packed vector access of the loop body (:func:`kerncraft.incore.addresssplit.address_line_splits`):
    ``offset`` bytes past the assumed alignment in the first iteration and
    ``advance`` bytes per iteration (None: not followed, uniform starts assumed)."""

    line: int                     # source line of the instruction
    kind: str                     # 'load' | 'store'
    vector_bytes: int
    address: str                  # the memory operand, AT&T-like (memdeps.memory_key)
    offset: int | None
    advance: int | None
    fraction: float               # share of the iterations in which it crosses a line

    def to_dict(self) -> dict:
        return {"line": self.line, "kind": self.kind, "vector_bytes": self.vector_bytes,
                "address": self.address, "offset": self.offset, "advance": self.advance,
                "split_fraction": self.fraction}


@dataclass(frozen=True)
class LineSplitEstimate:
    """Expected line splits of one assembly iteration and their extra port cycles."""

    line_size: int
    rows: tuple[LineSplitRow, ...]
    assumption: str
    accesses: tuple[AccessSplit, ...] = ()   # per access (stand-alone analysis only)

    @property
    def per_port(self) -> dict[str, float]:
        extra: dict[str, float] = {}
        for row in self.rows:
            if row.cost is None or not row.cost.ports:
                continue
            share = row.extra_cycles / len(row.cost.ports)
            for port in row.cost.ports:
                extra[port] = extra.get(port, 0.0) + share
        return extra

    @property
    def modelled(self) -> bool:
        return any(r.cost is not None and r.fraction > 0 for r in self.rows)

    @property
    def unmodelled(self) -> tuple[LineSplitRow, ...]:
        return tuple(r for r in self.rows if r.cost is None and r.fraction > 0)

    def describe(self, arch: str) -> str:
        """One line for the report (empty if no access splits)."""
        parts = [f"{100 * r.fraction:.0f} % of the {r.count} {r.vector_bytes}-B "
                 f"{r.kind}{'s' if r.count > 1 else ''}" for r in self.rows if r.fraction > 0]
        if not parts:
            return ""
        text = (f"line splits ({self.assumption}): {' and '.join(parts)} per assembly "
                f"iteration cross a {self.line_size}-B line")
        extra = self.per_port
        if extra:
            text += "; " + ", ".join(f"+{c:.2f} cy on {p}" for p, c in sorted(extra.items()))
        if self.unmodelled:
            text += f"; no split cost in the {arch} database for " + ", ".join(
                f"{r.vector_bytes}-B {r.kind}s" for r in self.unmodelled) + " (counted as 0)"
        return text

    def to_dict(self) -> dict:
        return {"line_size": self.line_size, "assumption": self.assumption,
                "extra_cycles_per_port": self.per_port,
                "accesses": [{"kind": r.kind, "vector_bytes": r.vector_bytes, "count": r.count,
                              "split_fraction": r.fraction,
                              "cycles_per_split": r.cost.cycles if r.cost else None,
                              "ports": list(r.cost.ports) if r.cost else None}
                             for r in self.rows],
                **({"per_access": [a.to_dict() for a in self.accesses]} if self.accesses else {})}

    def access_lines(self) -> list[str]:
        """One line per access that splits (line number, address, share)."""
        return [f"line {a.line}: {a.vector_bytes}-B {a.kind} {a.address[4:]} splits in "
                f"{100 * a.fraction:.0f} % of iterations"
                + (f" (offset {a.offset} B, advance {a.advance} B)"
                   if a.advance is not None else " (uniform start addresses)")
                for a in self.accesses if a.fraction > 0]


# ------------------------------------------------------------------ stage 1: the block

def vector_access_profile(instructions: Iterable[Instruction]) -> tuple[VectorAccess, ...]:
    """Packed vector loads and stores (x86) of one assembly iteration, by width.

    A memory operand counts if :func:`~kerncraft.incore.x86.vectors.packed_access_bytes`
    says it is a packed access and it moves one contiguous vector; loads and stores
    are what the instruction's data flow reads and writes (a read-modify-write
    counts as both).
    """
    from kerncraft.incore.x86.semantics import dataflow
    from kerncraft.incore.x86.vectors import packed_access_bytes

    counts: Counter = Counter()
    for ins in instructions:
        counts.update(packed_accesses(ins, packed_access_bytes, dataflow))
    return tuple(VectorAccess(k, w, n) for (k, w), n in sorted(counts.items()))


def packed_accesses(ins: Instruction, packed_access_bytes: Callable[[Instruction], int],
                    dataflow: Callable[[Instruction], DataFlow]) -> list[tuple[str, int]]:
    """(kind, width) of each packed contiguous vector access of one instruction."""
    width = packed_access_bytes(ins)
    if not width or not is_contiguous_vector(ins.mnemonic):
        return []
    flow = dataflow(ins)
    return [(kind, width) for kind, hit in (("load", flow.memory_reads),
                                             ("store", flow.memory_writes)) if hit]


# ------------------------------------------------------------------ stage 2: the kernel

def _affine(expr: sympy.Expr | int, symbols: Sequence[sympy.Symbol]
            ) -> tuple[list[int], int] | None:
    """Integer coefficients of ``symbols`` and the constant of an affine expression."""
    terms = expr.as_coefficients_dict() if hasattr(expr, "as_coefficients_dict") else None
    if terms is not None and all((t in symbols or t == 1) and c.is_Integer
                                 for t, c in terms.items()):
        # a sum of integer multiples of the symbols: read the terms off (coeff/subs
        # per symbol cost ~1 ms a point in sweeps); anything else takes the general way
        return [int(terms.get(s, 0)) for s in symbols], int(terms.get(1, 0))
    try:
        coeffs = [int(expr.coeff(s)) for s in symbols]
        const = expr.subs({s: 0 for s in symbols})
        return coeffs, int(const)
    except (TypeError, ValueError):
        return None


def _index_range(loop: Loop) -> range | None:
    try:
        return range(int(loop.start), int(loop.end), int(loop.step))
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class AffineAccess:
    """One access of a bound kernel as plain numbers: its flattened index as integer
    coefficients of the loop indices (outermost first) and a constant (``affine``:
    None if the index is not of that form), and the loops it varies with (``free``)."""

    array: str
    kind: str
    element_size: int
    is_scalar: bool
    affine: tuple[tuple[int, ...], int] | None
    free: frozenset[int]


@dataclass(frozen=True)
class KernelLayout:
    """What the line-split estimate and the row-overlap note read of a bound kernel, as
    plain numbers: a -D point of a point plan (models/point_plan.py) builds one without
    sympy; :func:`kernel_layout` builds it from a bound kernel."""

    accesses: tuple[AffineAccess, ...]
    ranges: tuple[range | None, ...]     # per loop; None: a bound is not a number
    inner_step: int | None
    inner_trips: int | None              # iterations of the innermost loop
    # (write, read): the read's index this many elements behind the write's, when the
    # difference is a number (same array; positions in ``accesses``)
    lags: tuple[tuple[int, int, int], ...] = ()


def kernel_layout(kernel: KernelModel) -> KernelLayout:
    """The :class:`KernelLayout` of a bound kernel."""
    loops = kernel.loops
    symbols = [lp.symbol for lp in loops]
    accesses = []
    for acc in kernel.accesses:
        array = kernel.arrays[acc.array]
        free = acc.linear_index.free_symbols
        accesses.append(AffineAccess(
            acc.array, acc.kind, array.element_size, array.is_scalar,
            _hashable(_affine(acc.linear_index, symbols)) if symbols else None,
            frozenset(k for k, s in enumerate(symbols) if s in free)))
    lags = []
    for w, write in enumerate(kernel.accesses):
        for r, read in enumerate(kernel.accesses):
            if write.kind == "write" and read.kind != "write" and read.array == write.array:
                lag = write.linear_index - read.linear_index
                if lag.is_Integer:
                    lags.append((w, r, int(lag)))
    try:
        trips = int(loops[-1].trip_count()) if loops else None
    except (TypeError, ValueError):
        trips = None
    return KernelLayout(tuple(accesses), tuple(_index_range(lp) for lp in loops),
                        loops[-1].step if loops else None, trips, tuple(lags))


def _hashable(affine: tuple[list[int], int] | None) -> tuple[tuple[int, ...], int] | None:
    return None if affine is None else (tuple(affine[0]), affine[1])


def as_layout(kernel: KernelModel | KernelLayout) -> KernelLayout:
    """``kernel`` as a :class:`KernelLayout` (a layout is returned as it is)."""
    return kernel if isinstance(kernel, KernelLayout) else kernel_layout(kernel)


def split_fractions(kernel: KernelModel | KernelLayout, vector_bytes: int, line_size: int = 64
                    ) -> tuple[float | None, float | None, bool]:
    """(reads, writes, exact): the shares of the kernel's vector reads and writes of
    ``vector_bytes`` that cross a ``line_size`` line, under the module's assumptions.

    None where the kernel has no contiguous access of that kind; ``exact`` is
    False when a loop bound was not a number and uniform start addresses were
    assumed instead.
    """
    layout = as_layout(kernel)
    ranges = layout.ranges
    if not ranges:
        return None, None, True
    exact = all(r is not None for r in ranges) and layout.inner_step == 1
    shares: dict[str, list[float]] = {"read": [], "write": []}
    seen = set()
    for acc in layout.accesses:
        # a bound index is affine or not at all, so (coefficients, constant) identify it
        key = (acc.array, acc.kind, acc.affine if acc.affine is not None else id(acc))
        if acc.is_scalar or key in seen:
            continue
        seen.add(key)
        affine = acc.affine
        if affine is None or affine[0][-1] != 1:
            continue            # loop-invariant (in a register) or strided: no vector stream
        element = acc.element_size
        if vector_bytes <= element:
            continue
        kind = "write" if acc.kind == "write" else "read"
        if not exact:
            shares[kind].append(uniform_split_share(element, vector_bytes, line_size))
            continue
        shares[kind].append(_exact_fraction(affine, ranges, element, vector_bytes, line_size))
    mean = {k: (sum(v) / len(v) if v else None) for k, v in shares.items()}
    return mean["read"], mean["write"], exact


def _exact_fraction(affine: tuple[list[int], int], ranges: Sequence[range], element: int,
                    width: int, line: int) -> float:
    """Share of the vectors of one access that cross a line (line-aligned array)."""
    coeffs, const = affine
    lanes = width // element
    inner = ranges[-1]
    starts = range(inner.start, inner.stop - lanes + 1, lanes) if inner.step > 0 else range(0)
    if not starts:
        return 0.0
    dist = Counter({(element * const) % line: 1})
    for coeff, values in zip(coeffs[:-1], ranges[:-1]):
        dist = combine_offsets(dist, offset_residues(_one_period(values, element * coeff, line),
                                                     element * coeff, line), line)
    dist = combine_offsets(dist, offset_residues(_one_period(starts, element, line), element, line),
                           line)
    total = sum(dist.values())
    if not total:   # an outer loop without iterations: no vector, none splits
        return 0.0
    return sum(n for r, n in dist.items() if r + width > line) / total


def _one_period(values: range, step_bytes: int, line: int) -> range:
    """``values``, or one period of their byte residues if the range is long: the
    residue distribution of a long range is that of one period (up to the partial
    period at its end, which is ignored)."""
    period = line // math.gcd(line, abs(step_bytes * values.step) or line)
    # len() of a range longer than sys.maxsize overflows; a slice never does
    return values if len(values[:4 * period + 1]) <= 4 * period else values[:period]


# ------------------------------------------------------------------ costs

def estimate_line_splits(kernel: KernelModel | KernelLayout, profile: Sequence[VectorAccess],
                         costs: Sequence[SplitCost], line_size: int = 64
                         ) -> LineSplitEstimate | None:
    """Expected split accesses of the block and their extra cycles (None: no vectors)."""
    if not profile:
        return None
    kernel = as_layout(kernel)      # once for every width
    table = {(c.kind, c.vector_bytes): c for c in costs}
    rows = []
    exact_all = True
    for width in sorted({a.vector_bytes for a in profile}):
        reads, writes, exact = split_fractions(kernel, width, line_size)
        exact_all &= exact
        for access in profile:
            if access.vector_bytes != width:
                continue
            share = reads if access.kind == "load" else writes
            rows.append(LineSplitRow(access.kind, width, access.count, share or 0.0,
                                     table.get((access.kind, width))))
    assumption = ("arrays 64-B aligned, vector loop from the first iteration"
                  if exact_all else "start addresses assumed uniform: a loop bound is not "
                  "a number or the innermost loop does not count up by one"
                  ).replace("64-B", f"{line_size}-B")
    return LineSplitEstimate(line_size, tuple(rows), assumption)


def port_cycles_with_splits(port_totals: Mapping[str, float],
                            splits: LineSplitEstimate | None) -> dict[str, float]:
    """Port cycles per assembly iteration plus the expected line-split cycles: the one
    way split costs reach the port totals (ECM pipeline and stand-alone analysis)."""
    totals = dict(port_totals)
    for port, extra in (splits.per_port.items() if splits is not None else ()):
        totals[port] = totals.get(port, 0.0) + extra
    return totals


# ------------------------------------------------------------------ stand-alone: addresses

# element size of a packed mnemonic (for uniform starts): ...pd/...q/...64 8 B, ...ps/
# ...d/...32 4 B, ...w/...16 2 B, else bytes
def costs_from_table(table: Mapping[str, Any] | None, ports: Sequence[str], where: str
                     ) -> tuple[SplitCost, ...]:
    """Decode a database's ``line_split`` mapping: ``{load|store: {xmm|ymm|zmm:
    {ports: [...], cycles: c}}}`` (ValueError with ``where`` on a bad entry)."""
    if not table:
        return ()
    out = []
    known = set(ports)
    for kind, per_class in dict(table).items():
        if kind == "source":
            continue
        if kind not in ("load", "store") or not isinstance(per_class, Mapping):
            raise ValueError(f"{where}.{kind}: expected 'load' or 'store' with a mapping")
        for cls, spec in per_class.items():
            if cls not in VECTOR_BYTES or not isinstance(spec, Mapping):
                raise ValueError(f"{where}.{kind}.{cls}: expected xmm/ymm/zmm with "
                                 "'ports' and 'cycles'")
            port_list = tuple(str(p) for p in spec.get("ports", ()))
            bad = [p for p in port_list if p not in known]
            if bad or not port_list:
                raise ValueError(f"{where}.{kind}.{cls}.ports: {bad or 'empty'} not in 'ports'")
            cycles = float(spec["cycles"])
            if cycles < 0:
                raise ValueError(f"{where}.{kind}.{cls}.cycles must be >= 0")
            out.append(SplitCost(kind, VECTOR_BYTES[cls], port_list, cycles))
    return tuple(out)
