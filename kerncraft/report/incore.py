"""Text, JSON and graphviz output of an in-core analysis.

The text table keeps one row per instruction: its source line, the cycles
assigned to every port of the model (blank where the instruction cannot run,
``0.00`` where it could but the balanced schedule does not use it), its share of
the critical path (CP) and of the longest loop-carried chain (LCD), then the
instruction. Every port of the model gets a column, but only as wide as
needed: ports no instruction can use shrink to their name, and when 4-character
numbers would not leave room for the instruction, 3-character ones (``.50``,
``1.5``, ``16``) are used. Long instruction texts are shortened in the table
only (JSON keeps them), so the table fits 100 columns up to ~17 ports.

JSON keys (stable, all times in cycles per assembly iteration):
``arch``, ``unit``, ``throughput``, ``critical_path``, ``lcd``, ``frontend``, ``memory_issue``,
``prediction``, ``bottleneck_ports``, ``balancing`` ('optimal' | 'fixed'),
``ports``, ``port_pressure`` (port -> column sum), ``instructions`` (list of
``{index, line, text, form, known, ports, latency, cp, lcd, uops}``),
``critical_path_instructions`` (line numbers), ``lcd_chains`` (list of
``{latency, lines, indices, via}``), ``unknown_instructions`` (list of
``{line, text, form}``), ``notes``; with an unroll factor also
``per_source_iteration`` ({unroll, throughput, critical_path, lcd, prediction}); with
line splits derived from the addresses (``kerncraft-incore --alignment``, default 64)
``line_splits`` ({line_size, assumption, extra_cycles_per_port, accesses: per kind and
width, per_access: {line, kind, vector_bytes, address, offset, advance,
split_fraction}}); their cycles are included in ``throughput`` and ``port_pressure``.
"""
from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any, Sequence

from kerncraft.incore.depgraph import DepGraph, Node, build_graph
from kerncraft.incore.model import InCoreResult, Instruction

if TYPE_CHECKING:
    # a result is an InCoreAnalysis or the result cache's stand-in for one
    # (kerncraft.memo.incore_analyses), which computes the full analysis on first use
    # of a field it does not store
    from kerncraft.incore.analysis import InCoreAnalysis

__all__ = ["format_report", "summary_line", "to_json", "export_dot", "dot_text", "display_text"]


def _num(v: float) -> str:
    if v < 9.995:
        return f"{v:.2f}"
    if v < 99.95:
        return f"{v:.1f}"
    return f"{v:.0f}"


def display_text(ins: Instruction) -> str:
    """Instruction text without a trailing comment.

    ``//`` always starts a comment; ``#`` only in AT&T x86 text (recognised by
    its ``%`` registers) or when followed by a blank -- in AArch64 syntax ``#16``
    is an immediate.
    """
    text = (ins.text or ins.form_key).split("//", 1)[0]
    for pos, ch in enumerate(text):
        if ch == "#" and ("%" in text or text[pos + 1:pos + 2] in ("", " ", "\t")):
            text = text[:pos]
            break
    return text.rstrip()


def _ports(result: InCoreAnalysis) -> tuple[str, ...]:
    return tuple(result.ports) or tuple(result.port_totals)


def _column(result: InCoreAnalysis, values: Sequence[float]) -> tuple[float, ...]:
    values = tuple(values)
    return values if len(values) == len(result.instructions) else (0.0,) * len(result.instructions)


def summary_line(result: InCoreResult, unroll: int | None = None) -> str:
    """``TP x | CP x | LCD x | prediction x cy per assembly (or source) iteration``."""
    div = float(unroll) if unroll else 1.0
    where = f"source iteration (unroll {unroll})" if unroll else "assembly iteration"
    return (f"TP {result.throughput / div:.2f} cy | CP {result.critical_path / div:.2f} cy | "
            f"LCD {result.lcd / div:.2f} cy | prediction {result.prediction / div:.2f} cy "
            f"per {where}")


def _compact(v: float) -> str:
    """Three-character number for crowded tables: .50, 1.5, 16."""
    if v < 0.995:
        return f"{v:.2f}"[1:]
    return f"{v:.1f}" if v < 9.95 else f"{v:.0f}"


def _layout(result: InCoreAnalysis, cell: int) -> tuple[dict[str, int], int, str]:
    ports = _ports(result)
    widths = {p: max(len(p), cell if any(p in row for row in result.port_pressure) else 1)
              for p in ports}
    line_w = max(4, max((len(str(i.line_number)) for i in result.instructions), default=1))
    head = (f"{'Line':>{line_w}} |" + "".join(f" {p:>{widths[p]}}" for p in ports)
            + f" | {'CP':>{cell}} {'LCD':>{cell}} | Instruction")
    return widths, line_w, head


def _table(result: InCoreAnalysis, width: int) -> list[str]:
    """Port-pressure table; switches to 3-character numbers if 4 do not fit."""
    fmt, cell = _num, 4
    widths, line_w, head = _layout(result, cell)
    if len(head) - len("Instruction") + 30 > width:
        fmt, cell = _compact, 3
        widths, line_w, head = _layout(result, cell)
    ports = _ports(result)
    cp_col, lcd_col = _column(result, result.cp_latencies), _column(result, result.lcd_latencies)
    on_cp = set(result.critical_path_instructions)
    on_lcd = set(result.lcd_chains[0].instructions) if result.lcd_chains else set()
    room = max(16, width - len(head) + len("Instruction"))
    rule = "-" * min(width, len(head) - len("Instruction") + room)
    rows = [head, rule]
    for k, ins in enumerate(result.instructions):
        cells = result.port_pressure[k] if k < len(result.port_pressure) else {}
        text = ("X " if result.costs[k] is None else "") + display_text(ins)
        if len(text) > room:
            text = " ".join(text.split())          # drop the mnemonic padding first
        if len(text) > room:
            text = text[:room - 3] + "..."
        cp = fmt(cp_col[k]) if k in on_cp else ""
        lcd = fmt(lcd_col[k]) if k in on_lcd else ""
        rows.append(f"{ins.line_number:>{line_w}} |"
                    + "".join(f" {fmt(cells[p]) if p in cells else '':>{widths[p]}}"
                              for p in ports)
                    + f" | {cp:>{cell}} {lcd:>{cell}} | {text}")
    rows.append(rule)
    rows.append(f"{'':>{line_w}} |"
                + "".join(f" {fmt(result.port_totals.get(p, 0.0)):>{widths[p]}}"
                          if any(p in row for row in result.port_pressure)
                          else f" {'':>{widths[p]}}" for p in ports)
                + f" | {fmt(result.critical_path):>{cell}} {fmt(result.lcd):>{cell}} |")
    return rows


def _chains(result: InCoreResult) -> list[str]:
    if not result.lcd_chains:
        return ["Loop-carried dependencies: none"]
    out = ["Loop-carried dependencies (cycles per assembly iteration):"]
    for chain in result.lcd_chains:
        lines = [result.instructions[i].line_number for i in chain.instructions]
        via = ",".join(chain.via) or "-"
        if len(chain.instructions) == 1:
            ins = result.instructions[chain.instructions[0]]
            out.append(f"  {_num(chain.latency):>6} cy via {via}: [{lines[0]}] {display_text(ins)}")
        else:
            out.append(f"  {_num(chain.latency):>6} cy via {via}: lines "
                       + ", ".join(map(str, lines)))
    return out


def _split_lines(result: InCoreAnalysis) -> list[str]:
    """The line-split estimate of a stand-alone analysis (its assumption, the accesses
    that split, the extra cycles, which the port totals and TP include)."""
    splits = result.line_splits
    if splits is None:
        return []
    text = splits.describe(result.arch) or (
        f"line splits ({splits.assumption}): no vector access crosses a "
        f"{splits.line_size}-B line")
    if splits.per_port:
        text += "; the port totals and TP include these cycles"
    # the report keeps to 100 columns (its table does too)
    out = textwrap.wrap(text[0].upper() + text[1:], 100, subsequent_indent="  ")
    for line in splits.access_lines():
        out += textwrap.wrap(line, 100, initial_indent="  ", subsequent_indent="    ")
    return out


def format_report(result: InCoreAnalysis, *, unroll: int | None = None, width: int = 100
                  ) -> str:
    """The full human-readable report (table, chains, summary)."""
    out = [f"In-core analysis for {result.arch} "
           f"({result.balancing} port balancing), "
           f"cycles per assembly iteration", ""]
    out += _table(result, width)
    out.append("")
    out += _chains(result)
    bottleneck = result.bottleneck_ports
    if bottleneck:
        out.append(f"Throughput bottleneck ports: {', '.join(bottleneck)}")
    if result.frontend is not None:
        fused = sum(result.fused_uops)
        out.append(f"Front end: {result.frontend:.2f} cy ({fused} fused-domain uops)")
    issue = getattr(result, "memory_issue", None)
    if issue is not None:
        out.append(f"Memory issue order: {issue:.2f} cy (loads and stores picked oldest "
                   f"first, in program order)")
    out += _split_lines(result)
    for note in result.notes:     # long notes (memory dependencies, 4K aliasing) wrapped
        out += textwrap.wrap(f"Note: {note}", 100, subsequent_indent="  ",
                             break_on_hyphens=False)
    out.append("")
    out.append(summary_line(result))
    if unroll and unroll != 1:
        out.append(summary_line(result, unroll))
    return "\n".join(out) + "\n"


def to_json(result: InCoreAnalysis, *, unroll: int | None = None) -> dict[str, Any]:
    """JSON-ready dictionary (see module docstring for the keys)."""
    cp_col, lcd_col = _column(result, result.cp_latencies), _column(result, result.lcd_latencies)
    on_cp = set(result.critical_path_instructions)
    on_lcd = set(result.lcd_chains[0].instructions) if result.lcd_chains else set()
    instructions = []
    for k, ins in enumerate(result.instructions):
        cost = result.costs[k]
        instructions.append({
            "index": k, "line": ins.line_number, "text": ins.text, "form": ins.form_key,
            "known": cost is not None,
            "ports": dict(result.port_pressure[k]) if k < len(result.port_pressure) else {},
            "latency": cost.latency if cost is not None else None,
            "load_latency": cost.load_latency if cost is not None else None,
            "uops": [{"ports": sorted(u.ports), "cycles": u.cycles} for u in cost.uops]
            if cost is not None else [],
            "cp": cp_col[k] if k in on_cp else None,
            "lcd": lcd_col[k] if k in on_lcd else None,
        })
    doc: dict[str, Any] = {
        "arch": result.arch, "unit": "cy per assembly iteration",
        "throughput": result.throughput, "critical_path": result.critical_path,
        "lcd": result.lcd, "frontend": result.frontend,
        "memory_issue": getattr(result, "memory_issue", None), "prediction": result.prediction,
        "bottleneck_ports": list(result.bottleneck_ports),
        "balancing": result.balancing,
        "ports": list(_ports(result)),
        "port_pressure": {p: result.port_totals.get(p, 0.0) for p in _ports(result)},
        "instructions": instructions,
        "critical_path_instructions": [result.instructions[i].line_number
                                       for i in result.critical_path_instructions],
        "lcd_chains": [{"latency": c.latency, "indices": list(c.instructions),
                        "lines": [result.instructions[i].line_number for i in c.instructions],
                        "via": list(c.via)} for c in result.lcd_chains],
        "unknown_instructions": [{"line": ins.line_number, "text": ins.text, "form": ins.form_key}
                                 for ins, c in zip(result.instructions, result.costs) if c is None],
        "notes": list(result.notes),
    }
    if result.line_splits is not None:
        doc["line_splits"] = result.line_splits.to_dict()
    if unroll:
        doc["per_source_iteration"] = {
            "unroll": unroll, "throughput": result.throughput / unroll,
            "critical_path": result.critical_path / unroll, "lcd": result.lcd / unroll,
            "prediction": result.prediction / unroll}
    return doc


# ----------------------------------------------------------------------------- dot

_CHAIN_COLORS = ("purple", "darkorange", "forestgreen", "royalblue", "brown", "deeppink")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _node_id(node: Node) -> str:
    return f"i{node[0]}" + {"load": "L", "addr": "A"}.get(node[1], "")


def _graph_of(result: InCoreAnalysis) -> DepGraph:
    if result.graph is not None:
        return result.graph
    from kerncraft.incore.x86.semantics import dataflow
    return build_graph([dataflow(i) for i in result.instructions], result.costs)


def _edge_styles(result: InCoreAnalysis) -> tuple[set[tuple[Node, Node, int]],
                                                  dict[tuple[Node, Node, int], str]]:
    cp = {(e.src, e.dst, e.distance) for e in result.cp_edges}
    colors: dict[tuple[Node, Node, int], str] = {}
    for n, edges in enumerate(result.lcd_edges):
        for e in edges:
            colors.setdefault((e.src, e.dst, e.distance), _CHAIN_COLORS[n % len(_CHAIN_COLORS)])
    return cp, colors


def dot_text(result: InCoreAnalysis) -> str:
    """Graphviz source: instructions as nodes, producer latencies on the edges.

    Critical-path nodes and edges are bold, loop-carried chains coloured
    (the longest in purple), edges into the next iteration dashed.
    """
    graph = _graph_of(result)
    cp_edges, chain_colors = _edge_styles(result)
    cp_nodes = {n for s, d, _ in cp_edges for n in (s, d)} or \
        {(i, "op") for i in result.critical_path_instructions}
    lcd_edges = result.lcd_edges
    lcd_nodes = {n for e in lcd_edges[0] for n in (e.src, e.dst)} if lcd_edges else \
        {(i, "op") for c in result.lcd_chains[:1] for i in c.instructions}
    out = ["digraph incore {", '  node [shape=box, fontname="monospace"];',
           f"  label={_quote(f'{result.arch}: ' + summary_line(result))};"]
    for node in graph.nodes:
        ins = result.instructions[node[0]]
        label = (f"{ins.line_number}: {node[1]}" if node[1] in ("load", "addr")
                 else f"{ins.line_number}: {display_text(ins)}")
        attrs = [f"label={_quote(label)}"]
        if node in cp_nodes:
            attrs.append("penwidth=3")
        if node in lcd_nodes:
            attrs.append("color=purple")
        out.append(f"  {_node_id(node)} [{', '.join(attrs)}];")
    for e in graph.edges:
        key = (e.src, e.dst, e.distance)
        label = f"{e.weight:g}" + (" (next it.)" if e.distance else "")
        attrs = [f"label={_quote(label)}", f"weight={max(1, int(round(e.weight)))}"]
        if e.distance:
            attrs.append("style=dashed")
        if key in cp_edges:
            attrs.append("penwidth=3")
        if key in chain_colors:
            attrs += [f"color={chain_colors[key]}", f"fontcolor={chain_colors[key]}"]
        out.append(f"  {_node_id(e.src)} -> {_node_id(e.dst)} [{', '.join(attrs)}];")
    out.append("}")
    return "\n".join(out) + "\n"


def export_dot(result: InCoreAnalysis, path: str) -> None:
    """Write :func:`dot_text` to ``path`` (atomically; a :class:`KerncraftError`
    when it cannot be written)."""
    from kerncraft.userfiles import display_name, write_output
    write_output(path, dot_text(result), f"graph file {display_name(path)}")
