"""Human-readable kernel summary (printed with -v before every report).

It shows what the analysis *understood* of the kernel — constants, loop
stack, every data source and destination with its offset, flops — so that a
user can spot a misread kernel before trusting a prediction built on it.
Everything fits in 100 columns.
"""
from __future__ import annotations

import textwrap

import sympy

from kerncraft.kernel.model import Access, KernelModel

WIDTH = 100


def format_kernel_summary(kernel: KernelModel) -> str:
    """Multi-line text describing ``kernel`` (bound or not)."""
    parts = [
        _header(kernel),
        _array_table(kernel),
        _loop_table(kernel),
        _access_table(kernel, "read", "data sources (reads per innermost iteration)"),
        _access_table(kernel, "write", "data destinations (writes per innermost iteration)"),
        _outer(kernel),
        _flops(kernel),
        _pragmas(kernel),
        _swaps(kernel),
    ]
    return "\n\n".join(p for p in parts if p) + "\n"


def _wrap(text: str, indent: str = "  ") -> str:
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False)


def _header(kernel: KernelModel) -> str:
    lines = [f"kernel: {kernel.filename or '<input>'}"]
    if kernel.constants:
        consts = ", ".join(
            f"{c.name} = {kernel.bindings[c.name]}" if c.name in kernel.bindings
            else f"{c.name} (unbound)" for c in kernel.constants)
    else:
        consts = "none"
    lines.append(_wrap(f"constants: {consts}", ""))
    by_type: dict[str, list[str]] = {}
    for arr in kernel.arrays.values():
        by_type.setdefault(arr.ctype, []).append(arr.name)
    types = "; ".join(f"{t} ({', '.join(names)})" for t, names in by_type.items())
    lines.append(_wrap(f"element types: {types or 'none'}", ""))
    return "\n".join(lines)


def _table(title: str, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    fmt = "  " + "  ".join(f"{{:<{w}}}" for w in widths)
    rule = "-" * min(sum(widths) + 2 * len(widths) - 2, WIDTH - 2)
    out = [title, fmt.format(*header).rstrip(), "  " + rule]
    for row in rows:
        line = fmt.format(*row).rstrip()
        out.append(line if len(line) <= WIDTH else line[:WIDTH - 3] + "...")  # rare: huge exprs
    return "\n".join(out)


def _array_table(kernel: KernelModel) -> str:
    rows = []
    for arr in kernel.arrays.values():
        shape = "scalar" if arr.is_scalar else "".join(f"[{d}]" for d in arr.dimensions)
        rows.append((arr.name, arr.ctype, shape, str(arr.total_bytes())))
    if not rows:
        return ""
    return _table("arrays and scalars", ("name", "type", "shape", "bytes"), rows)


def _loop_table(kernel: KernelModel) -> str:
    rows = [(lp.index, str(lp.start), str(lp.end), f"{lp.step:+d}", str(lp.trip_count()))
            for lp in kernel.loops]
    text = _table("loop stack (outermost first, end exclusive)",
                  ("index", "start", "end", "step", "iterations"), rows)
    try:
        total = str(kernel.iteration_count())
    except Exception:  # pragma: no cover - sympy summation corner cases
        total = "(not available)"
    return text + "\n" + _wrap(f"total innermost iterations: {total}")


def _access_text(acc: Access) -> str:
    return acc.array + "".join(f"[{idx}]" for idx in acc.indices)


def _access_table(kernel: KernelModel, kind: str, title: str) -> str:
    accesses = [a for a in kernel.accesses if a.kind == kind]
    if not accesses:
        return f"{title}\n  none"
    loop_syms = set(kernel.loop_symbols)
    first_use = {name: pos for pos, name in reversed(list(enumerate(a.array for a in accesses)))}
    accesses.sort(key=lambda a: first_use[a.array])   # stable: group rows by array
    rows = []
    seen: set[tuple[str, tuple]] = set()
    for acc in accesses:
        key = (acc.array, acc.indices)
        if key in seen:
            continue
        seen.add(key)
        count = sum(1 for a in accesses if (a.array, a.indices) == key)
        rows.append((acc.array, _access_text(acc), _dim_kinds(acc, loop_syms),
                     str(acc.offset), str(count)))
    return _table(title, ("array", "access", "per dimension", "offset", "n"), rows)


def _dim_kinds(acc: Access, loop_syms: set[sympy.Symbol]) -> str:
    """'direct' for loop-independent dimensions, else 'rel(i+1)'-style notes."""
    if not acc.indices:
        return "direct"
    kinds = []
    for idx in acc.indices:
        used = sorted((s for s in idx.free_symbols if s in loop_syms), key=str)
        if not used:
            kinds.append("direct")
            continue
        const = sympy.expand(idx.xreplace({s: 0 for s in used}))
        shift = "" if const == 0 else (f"{int(const):+d}" if const.is_Integer else f"+({const})")
        kinds.append("rel " + ",".join(map(str, used)) + shift)
    return "; ".join(kinds)


def _outer(kernel: KernelModel) -> str:
    if not kernel.outer_accesses:
        return ""
    items = ", ".join(f"{a.kind} {_access_text(a)}" for a in kernel.outer_accesses)
    return "outside the innermost loop (not counted per iteration)\n" + _wrap(items)


def _flops(kernel: KernelModel) -> str:
    ops = ", ".join(f"{op} {n}" for op, n in kernel.flops.items()) or "none"
    lines = [f"flops per innermost iteration: {kernel.total_flops} ({ops})"]
    if kernel.math_calls:
        calls = ", ".join(f"{name} {n}" for name, n in kernel.math_calls.items())
        lines.append(_wrap(f"math calls per iteration (not in flops): {calls}", ""))
    return "\n".join(lines)


def _pragmas(kernel: KernelModel) -> str:
    from kerncraft.kernel.nontemporal import is_nontemporal_pragma

    ignored = [p for p in kernel.pragmas if not is_nontemporal_pragma(p)]
    marked = [a.name for a in kernel.arrays.values() if a.nontemporal]
    parts = ["ignored pragmas\n" + "\n".join(_wrap(p) for p in ignored)] if ignored else []
    if marked:
        parts.append(_wrap(f"stored non-temporally (#pragma nontemporal): {', '.join(marked)}",
                           ""))
    return "\n\n".join(parts)


def _swaps(kernel: KernelModel) -> str:
    if not kernel.swaps:
        return ""
    pairs = ", ".join(f"swap({a}, {b})" for a, b in kernel.swaps)
    return _wrap(f"after the nest: {pairs} (time stepping; every model analyses one sweep, "
                 "which moves the same data with or without it)", "")

