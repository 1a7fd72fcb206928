"""Throughput of load and store forms in a calibration (:mod:`kerncraft.dbtools.calibrate`).

A register form's measured throughput is written by scaling the cycles of the entry's own
uops. A load or store form (``mov mem,r64``, ``vmovupd zmm,mem``) holds the header's
``load``/``store`` placeholders, whose uops every load and store of the database shares,
so scaling its own uops often cannot reproduce the measurement. Two rewrites of the one
entry can, both on the ports the database documents, neither touching the header:

(a) **An extra access uop dropped or rescaled.** Some entries add their own uop on the
    load-data (``load`` + ``[LD0, LD1]``) or store-data ports (``store`` + ``[STD]``) for
    the second half of an access the core moves in two halves (Zen 4's 512-bit loads and
    stores). When the host measures a full-width access, that uop goes (the other own
    uops lowered to the measured time at most, as below); when dropping it overshoots,
    it keeps the share of its cycles that reproduces the measurement.
(b) **The placeholders written out.** The entry gets the placeholders' uops themselves
    (the header's ports) with ``access: load|store`` so the form keeps its load latency
    and is still a load/store; each uop's cycles are lowered to at most
    ``measured x number of its ports`` (alone, no uop is slower than the measurement:
    only the uops that bind change), and when the port balance still differs (uops
    sharing ports, or a slower measurement) all uops are scaled by measured / balance.
    A store-data uop of 0.5 cy on the one documented ``STD`` port thus says: two stores
    per cycle on this host. A placeholder part left unchanged stays a placeholder
    (``store_addr`` keeps the simple-address AGUs of the header).

A rewrite is used only if its port-balanced throughput reproduces the measurement.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from kerncraft.incore.model import Uop

__all__ = ["MemoryRewrite", "memory_rewrite", "balanced", "extra_access_positions"]

UopSpec = Uop | str
_BISECTIONS = 30


@dataclass(frozen=True)
class MemoryRewrite:
    """The new uops of a load/store entry, what it accesses and how it was done."""

    uops: tuple[UopSpec, ...]
    access: str | None          # set when placeholder uops were written out
    reached: float              # port-balanced reciprocal throughput of ``uops``
    how: str


def balanced(model: Any, uops: Sequence[UopSpec]) -> float:
    """Port-balanced reciprocal throughput of an entry's uops (placeholders expanded as
    the lookup of a form with an indexed address expands them)."""
    from kerncraft.incore.throughput import balance_ports
    expanded: list[Uop] = []
    for u in uops:
        expanded.extend(model.placeholder_uops(u) if isinstance(u, str) else (u,))
    return float(balance_ports([expanded], model.ports).throughput)


def _capped_uop(u: Uop, target: float) -> Uop:
    """``u`` with at most ``target`` x its port count cycles (alone no slower than that)."""
    if not u.ports:
        return u
    return Uop(u.ports, min(u.cycles, round(target * len(u.ports), 4)))


def _capped(u: UopSpec, target: float) -> UopSpec:
    return u if isinstance(u, str) else _capped_uop(u, target)


def _extra_names(model: Any, uops: Sequence[UopSpec], extras: Sequence[int]) -> str:
    """The port sets of the extra access uops at ``extras``, for the record."""
    return ", ".join(_ports_text(model, u.ports) for i, u in enumerate(uops)
                     if i in extras and isinstance(u, Uop))


def _ports_text(model: Any, ports: frozenset[str]) -> str:
    return "/".join([p for p in model.ports if p in ports] + sorted(ports - set(model.ports)))


def extra_access_positions(model: Any, uops: Sequence[UopSpec]) -> list[int]:
    """Own uops on load-data ports beside ``load``, or on store-data ports beside
    ``store``/``store_data``: the entry's second half of an access."""
    names = {u for u in uops if isinstance(u, str)}
    data: list[frozenset[str]] = []
    if "load" in names and model.load_data_ports:
        data.append(frozenset(model.load_data_ports))
    if names & {"store", "store_data"}:
        data.append(frozenset(model.store_data_ports))
    return [i for i, u in enumerate(uops)
            if isinstance(u, Uop) and u.ports and any(u.ports <= d for d in data)]


def _without_extras(model: Any, uops: Sequence[UopSpec], target: float,
                    close: Callable[[float], bool]) -> MemoryRewrite | None:
    """Rule (a) of the module doc, None if it does not apply or does not reproduce."""
    extras = extra_access_positions(model, uops)
    if not extras:
        return None

    def built(k: float) -> list[UopSpec]:
        out: list[UopSpec] = []
        for i, u in enumerate(uops):
            if i not in extras:
                out.append(_capped(u, target))
            elif k > 0 and isinstance(u, Uop):
                out.append(Uop(u.ports, round(u.cycles * k, 4)))
        return out

    names = _extra_names(model, uops, extras)
    dropped = balanced(model, built(0.0))
    if close(dropped):
        return MemoryRewrite(tuple(built(0.0)), None, dropped,
                             f"the entry's extra {names} uop dropped (one full-width access "
                             f"on this host): {dropped:.2f} cy")
    if dropped > target or balanced(model, built(1.0)) < target:
        return None                   # the header's uops bind, or a slower measurement
    low, high = 0.0, 1.0              # the balance grows monotonically with k
    for _ in range(_BISECTIONS):
        mid = (low + high) / 2
        low, high = (mid, high) if balanced(model, built(mid)) < target else (low, mid)
    k = round(high, 3)
    reached = balanced(model, built(k))
    if not close(reached):
        return None
    return MemoryRewrite(tuple(built(k)), None, reached,
                         f"the entry's extra {names} uop kept at {k:g} of its cycles: "
                         f"{reached:.2f} cy")


def _pieces(model: Any, uops: Sequence[UopSpec]) -> list[tuple[str | None, tuple[Uop, ...]]]:
    """(placeholder part or None for an own uop, its uops); ``store`` in its two parts."""
    out: list[tuple[str | None, tuple[Uop, ...]]] = []
    for u in uops:
        if isinstance(u, Uop):
            out.append((None, (u,)))
        elif u == "store":
            out += [(p, model.placeholder_uops(p)) for p in ("store_addr", "store_data")]
        else:
            out.append((u, model.placeholder_uops(u)))
    return out


def _written_out(model: Any, uops: Sequence[UopSpec], target: float) -> MemoryRewrite | None:
    """Rule (b) of the module doc (reproduces ``target`` by construction)."""
    pieces = _pieces(model, uops)
    capped = [[_capped_uop(u, target) for u in us] for _, us in pieces]
    reached = balanced(model, [u for us in capped for u in us])
    if reached <= 0:
        return None
    factor = target / reached
    out: list[UopSpec] = []
    changes: list[str] = []
    kinds: set[str] = set()
    for (name, before), after in zip(pieces, capped):
        new = tuple(Uop(a.ports, round(a.cycles * factor, 4)) for a in after)
        if name is not None and all(abs(a.cycles - b.cycles) < 1e-9
                                    for a, b in zip(new, before)):
            out.append(name)          # unchanged: the header's placeholder, as before
            continue
        out.extend(new)
        if name is not None:
            kinds.add("load" if name == "load" else "store")
        changes += [f"{_ports_text(model, b.ports)} {b.cycles:g} -> {a.cycles:g}"
                    for a, b in zip(new, before) if abs(a.cycles - b.cycles) >= 1e-9]
    for i in range(len(out) - 1):     # both store parts unchanged: one 'store' again
        if out[i] == "store_addr" and out[i + 1] == "store_data":
            out[i:i + 2] = ["store"]
            break
    if not kinds:
        return None                   # nothing of the placeholders changed: not this rule
    access = "+".join(k for k in ("load", "store") if k in kinds)
    reached = balanced(model, out)
    return MemoryRewrite(tuple(out), access, reached,
                         f"the header's {access.replace('+', '/')} uops written into the "
                         f"entry on their documented ports, cycles {', '.join(changes)}: "
                         f"{reached:.2f} cy")


def memory_rewrite(model: Any, uops: Sequence[UopSpec], target: float,
                   close: Callable[[float], bool]) -> MemoryRewrite | None:
    """The rewrite of a load/store entry's ``uops`` that reproduces the measured
    reciprocal throughput ``target`` (``close(value)``: within the calibration's
    tolerance of it): rule (a), else rule (b) (module doc); None for an entry without
    load/store placeholders or when neither reproduces it."""
    if not any(isinstance(u, str) for u in uops):
        return None
    prior = balanced(model, uops)
    dropped = _without_extras(model, uops, target, close) if target < prior else None
    if dropped is not None:
        return dropped
    extras = extra_access_positions(model, uops) if target < prior else []
    # the second half of an access goes first: (b) lowers what then still binds
    base = [u for i, u in enumerate(uops) if i not in extras]
    rewrite = _written_out(model, base, target)
    if rewrite is None or not close(rewrite.reached):
        return None
    if extras:
        names = _extra_names(model, uops, extras)
        rewrite = MemoryRewrite(rewrite.uops, rewrite.access, rewrite.reached,
                                f"the entry's extra {names} uop dropped; {rewrite.how}")
    return rewrite
