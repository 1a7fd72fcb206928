"""From a kernel to its in-core time per cache line of work (the ECMCPU part).

Stages: generate C (run-time constants, so one compilation serves a whole -D
sweep) -> compile (content-hash cache) -> parse assembly -> select the loop
block (iterations per assembly iteration) -> analyse it with the port model
(throughput, critical path, loop-carried dependencies, front end). The
result is memoized per process on everything the assembly can depend on, so
a sweep pays for the compiler and the analysis once.

ECM split: T_nOL is the busiest *non-overlapping* port of the machine file
(the load data ports on Intel); T_OL is the largest of the busiest other port,
the loop-carried dependency and the front-end bound, because all three are
in-core execution limits that overlap with data transfers. Both are scaled
from cycles per assembly iteration to cycles per cache line of work by
``iterations_per_cacheline / iterations_per_asm_iteration``.

Persistent cache: besides the per-process memo, the essentials of the block
selection and the analysis are stored on disk, keyed by the content of the
assembly, the kernel, the options, the databases and the analyzer source
(:mod:`kerncraft.memo.incore_analyses`), so a repeated run imports neither the
assembly parser nor networkx.

Simulation (``-i kerncraft-sim``): the same block and analysis, then the cycle-level
simulation (:mod:`kerncraft.incore.bottleneck_sim`) of it; T_OL is the simulated
cycles per iteration (which include the non-overlapping ports' time as well), T_nOL
stays the busiest non-overlapping port, and a note names the resource the simulation
found binding. The simulation is not in the persistent cache (a warm run analyses
the block again).

Backends (``-i/--incore-model``): ``kerncraft`` (our analyzer, default),
``LLVM-MCA`` and ``OSACA`` (:mod:`kerncraft.incore.backends`): the same block
is handed to the external tool with the machine file's ``in-core model``
entry for that tool, and its per-port cycles are split into T_OL / T_nOL with
the machine file's non-overlapping ports for that tool.
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import Any

from kerncraft.models.incore_notes import model_notes, with_call_note, with_store_note
from kerncraft.models.incore_ports import (  # noqa: F401  (re-exported: older import paths)
    OSACA_TO_DATABASE, TOOL_KEYS, non_overlapping_ports, port_cycles_with_splits,
    port_matches, resolve_database, split_ports, tool_architecture)


@dataclass(frozen=True)
class InCorePrediction:
    arch: str
    compiler: str
    flags: str
    selection: Any                 # kerncraft.compilation.asm_block.BlockSelection
    analysis: Any                  # kerncraft.incore.model.InCoreResult
    iterations_per_cacheline: float
    non_overlapping_ports: tuple[str, ...]
    t_ol: float                    # cy/CL
    t_nol: float                   # cy/CL
    t_ol_source: str               # which bound sets T_OL
    incore_model: str = "kerncraft"   # 'kerncraft' | 'kerncraft-sim' | 'LLVM-MCA' | 'OSACA'
    line_splits: Any = None        # kerncraft.incore.linesplit.LineSplitEstimate | None
    notes: tuple[str, ...] = ()    # model caveats for the report (row_overlap)
    simulated: float | None = None   # kerncraft-sim: simulated cy per assembly iteration
    l1_stream: Any = None          # kerncraft.models.l1_stream.L1StreamLimit | None
    calibration: Any = None        # kerncraft.incore.calibration.Calibration | None

    @property
    def port_cycles(self) -> dict[str, float]:
        """Cycles per port and assembly iteration, line-split cycles included."""
        return port_cycles_with_splits(self.analysis.port_totals, self.line_splits)

    @property
    def throughput(self) -> float:
        """Port-throughput bound per assembly iteration, line splits included (the
        split cycles sit on ports only split-prone uops use, so adding them to the
        balanced totals keeps the balancing optimal)."""
        return max([self.analysis.throughput, *self.port_cycles.values()])

    @property
    def per_cacheline(self) -> float:
        """Factor from cycles per assembly iteration to cycles per cache line."""
        return self.iterations_per_cacheline / self.selection.iterations_per_asm_iteration

    def to_dict(self) -> dict:
        a = self.analysis
        scale = self.per_cacheline

        def per_cl(value):
            return None if value is None else value * scale

        data = {"arch": self.arch, "compiler": self.compiler, "flags": self.flags,
                "iterations_per_asm_iteration": self.selection.iterations_per_asm_iteration,
                "unroll": self.selection.unroll, "simd_width": self.selection.simd_width,
                "pointer_increment": self.selection.pointer_increment,
                "T_OL": self.t_ol, "T_nOL": self.t_nol, "T_OL_source": self.t_ol_source,
                "throughput_cy_per_cl": self.throughput * scale,
                "critical_path_cy_per_cl": per_cl(a.critical_path),
                "lcd_cy_per_cl": per_cl(a.lcd),
                "frontend_cy_per_cl": (a.frontend or 0.0) * scale,
                "memory_issue_cy_per_cl": per_cl(getattr(a, "memory_issue", None)),
                "port_cycles_per_cl": {p: c * scale for p, c in self.port_cycles.items()},
                "non_overlapping_ports": list(self.non_overlapping_ports)}
        if self.line_splits is not None:
            data["line_splits"] = self.line_splits.to_dict()
        if self.l1_stream is not None:
            data["l1_streaming_limit"] = self.l1_stream.to_dict()
        if self.notes:
            data["model_notes"] = list(self.notes)
        if self.calibration is not None:
            data["incore_calibration"] = self.calibration.to_dict()
        if self.incore_model != "kerncraft":
            data["incore_model"] = self.incore_model
            simulated = self.simulated if self.simulated is not None else \
                getattr(a, "simulated", None)
            data["simulated_cy_per_cl"] = per_cl(simulated)
            data["notes"] = list(a.notes)
        return data


@dataclass(frozen=True)
class InCoreBase:
    """The part of an in-core prediction that a -D point changes only through the
    literals of the generated C (:func:`stride_literals`): the compiled loop, its
    analysis and the ports. A point plan keeps it (models/point_plan.py); the rest,
    :func:`incore_at_point`, is arithmetic on the point's loop ranges and indices."""

    label: str                     # database, or 'TOOL arch'
    arch: str
    database: str
    compiler: str
    flags: str
    selection: Any
    analysis: Any
    non_overlapping_ports: tuple[str, ...]
    tool: str                      # 'kerncraft' or an external tool
    simulating: bool
    calibration: Any
    fixed_notes: tuple[str, ...]   # notes that do not depend on the point

def predict_incore(kernel, machine, *, compiler: str | None = None, flags: str | None = None,
                   asm_block: str | int = "auto", pointer_increment: str | int = "auto",
                   ignore_unknown: bool = False, iterations_per_cacheline: float,
                   incore_model: str = "kerncraft", aliasing: str = "distinct") -> InCorePrediction:
    """Compile, find the loop and analyse it; see the module doc.

    ``incore_model`` is ``kerncraft`` (default), ``LLVM-MCA`` or ``OSACA``.
    """
    from kerncraft.kernel.binding import check_loops_run

    check_loops_run(kernel)   # an empty loop range has no iteration to analyse
    base = incore_base(kernel, machine, compiler=compiler, flags=flags, asm_block=asm_block,
                       pointer_increment=pointer_increment, ignore_unknown=ignore_unknown,
                       incore_model=incore_model, aliasing=aliasing)
    return incore_at_point(base, machine, iterations_per_cacheline, kernel)


def incore_base(kernel, machine, *, compiler: str | None = None, flags: str | None = None,
                asm_block: str | int = "auto", pointer_increment: str | int = "auto",
                ignore_unknown: bool = False, incore_model: str = "kerncraft",
                aliasing: str = "distinct") -> InCoreBase:
    """The :class:`InCoreBase` of a bound kernel: compile it and analyse the loop."""
    from kerncraft.compilation.compiler import kernel_flags, select_compiler

    simulating = incore_model == "kerncraft-sim"
    if simulating:
        incore_model = "kerncraft"
    if incore_model not in (None, "kerncraft"):
        from kerncraft.incore.backends import canonical_backend
    tool = "kerncraft" if incore_model in (None, "kerncraft") else canonical_backend(incore_model)
    arch = resolve_database(machine) if tool == "kerncraft" else tool_architecture(machine, tool)
    database, calibration = arch, None      # the machine file's calibration, if it names one
    if tool == "kerncraft":
        from kerncraft.incore.calibration import calibrated_database
        database, calibration = calibrated_database(machine, arch)
    tool_id = _tool_identity(tool)      # not installed: one clear error before compiling
    name, chosen_flags = select_compiler(machine, compiler, flags)
    chosen_flags = kernel_flags(kernel, name, chosen_flags)
    flag_text = " ".join(chosen_flags)
    literals = _binding_key(kernel)
    c_source = _generated_c(kernel, literals, aliasing)
    selection, analysis, ports = _analyse_source(c_source, kernel.source, kernel.filename,
                                                 literals, name, flag_text, database,
                                                 asm_block, pointer_increment, ignore_unknown,
                                                 tool, tool_id)
    nol = non_overlapping_ports(machine, tuple(ports), tool, database=database)
    notes: tuple[str, ...] = ()
    osaca_names = machine.non_overlapping_ports.get("OSACA")
    if tool == "kerncraft" and "kerncraft" not in machine.non_overlapping_ports \
            and osaca_names and tuple(osaca_names) != tuple(nol):
        notes += (f"the machine file names the non-overlapping ports for OSACA "
                  f"({', '.join(osaca_names)}), which {arch} does not have: its load-data "
                  f"ports {', '.join(nol)} are used",)
    if aliasing == "pointers":
        notes += ("code: the nest was compiled as a function of pointer arguments that may "
                  "overlap (--aliasing pointers, as Kerncraft does); the default lets the "
                  "compiler see separately allocated arrays",)
    label = arch if tool == "kerncraft" else f"{tool} {arch}"
    return InCoreBase(label, arch, database, name, flag_text, selection, analysis, nol, tool,
                      simulating, calibration, notes)


def incore_at_point(base: InCoreBase, machine, iterations_per_cacheline: float,
                    kernel) -> InCorePrediction:
    """The in-core prediction at one -D point: line splits, bounds and notes from
    ``kernel`` (a bound kernel, or its :class:`~kerncraft.incore.linesplit.KernelLayout`)."""
    from kerncraft.incore.linesplit import as_layout

    tool, selection, analysis = base.tool, base.selection, base.analysis
    nol = base.non_overlapping_ports
    scale = iterations_per_cacheline / selection.iterations_per_asm_iteration
    layout = splits = None
    if tool == "kerncraft":
        from kerncraft.incore.linesplit import estimate_line_splits
        if getattr(analysis, "vector_accesses", ()):
            layout = as_layout(kernel)
        splits = estimate_line_splits(layout, getattr(analysis, "vector_accesses", ()),
                                      getattr(analysis, "line_split_costs", ()),
                                      machine.cacheline_size)
    totals = port_cycles_with_splits(analysis.port_totals, splits)
    busiest_nol, busiest_other = split_ports(totals, nol)
    # the order loads and stores issue in (incore/memissue.py) bounds the data transfers
    # between registers and L1, the non-overlapping part's business
    memory_issue = getattr(analysis, "memory_issue", None) or 0.0
    t_nol = max(busiest_nol, memory_issue) * scale
    bounds = {"port throughput": busiest_other * scale,
              "loop-carried dependency": (analysis.lcd or 0.0) * scale,
              "front end": (analysis.frontend or 0.0) * scale}
    source = max(bounds, key=bounds.get)
    kernel = layout if layout is not None else kernel     # the layout, once per point
    notes = model_notes(kernel, selection, analysis, bounds, source, t_nol, scale,
                         base.arch) if tool == "kerncraft" else ()
    notes += base.fixed_notes
    simulated = None
    if base.simulating:
        from kerncraft.models.row_overlap import row_length
        simulated, note = _simulation(analysis, base.database, splits,
                                       row_length(kernel, selection, analysis))
        bounds, source, tool = {"simulation": simulated * scale}, "simulation", "kerncraft-sim"
        notes = notes + (note,)
    return InCorePrediction(base.label, base.compiler, base.flags, selection, analysis,
                            iterations_per_cacheline, nol, bounds[source], t_nol, source, tool,
                            splits, notes, simulated, calibration=base.calibration)


def stride_literals(kernel) -> tuple[tuple[str, int], ...]:
    """The constants of a bound kernel that became literals in its generated C (its
    strides, with their values): a point with other values compiles other code."""
    return _binding_key(kernel)


_SIMULATIONS: dict[int, tuple[Any, float, str]] = {}


def _simulation(analysis, arch: str, splits=None, rows: int | None = None
                ) -> tuple[float, str]:
    """(simulated cycles per assembly iteration, report note), once per analysis,
    line-split estimate and row length (both depend on the -D point, the analysis not)."""
    key = (id(analysis), tuple(sorted((splits.per_port if splits else {}).items())), rows)
    memo = _SIMULATIONS.get(key)
    if memo is not None and memo[0] is analysis:
        return memo[1], memo[2]
    from kerncraft.incore.analysis import load_model
    from kerncraft.incore.bottleneck_sim import simulate
    from kerncraft.incore.split_uops import with_split_uops

    result = simulate(with_split_uops(analysis, splits), load_model(arch), row_length=rows)
    note = result.summary()
    _remember(_SIMULATIONS, key, (analysis, result.cycles_per_iteration, note))
    return result.cycles_per_iteration, note


# Per-process memos for -D sweeps: which constants are strides depends on the
# kernel source only, and the generated C only on the source and the literals.
_STRIDES: dict[tuple, frozenset] = {}
_C_SOURCES: dict[tuple, str] = {}
_MEMO_LIMIT = 64


def _binding_key(kernel) -> tuple[tuple[str, int], ...]:
    """The constants that became literals in the C source (strides): only they can
    change the assembly or its interpretation, so only they key the memo.

    Same as ``codegen.constant_values(kernel)`` restricted to literals ('auto'
    mode: a bound stride constant), with the stride analysis done once per
    kernel source instead of once per -D point.
    """
    from kerncraft.compilation.codegen import constant_values, stride_constants
    from kerncraft.kernel.limits import deep_recursion

    with deep_recursion():   # the generator walks the AST recursively (long sums)
        return _stride_binding_key(kernel, constant_values, stride_constants)


def _stride_binding_key(kernel, constant_values, stride_constants) -> tuple[tuple[str, int], ...]:
    if not kernel.source:
        return tuple(sorted((k, v) for k, v in constant_values(kernel).items() if v is not None))
    key = (kernel.source, kernel.filename, tuple(kernel.constant_names))
    strided = _STRIDES.get(key)
    if strided is None:
        strided = stride_constants(kernel)
        _remember(_STRIDES, key, strided)
    bindings = kernel.bindings
    return tuple(sorted((c.name, int(bindings[c.name])) for c in kernel.constants
                        if c.name in strided and bindings.get(c.name) is not None))


def _generated_c(kernel, literals: tuple, aliasing: str = "distinct") -> str:
    """``codegen.generate_c(kernel)``, once per kernel source and literal values
    (run-time constants do not appear in the text, see :mod:`kerncraft.compilation.codegen`)."""
    from kerncraft.compilation.codegen import generate_c
    from kerncraft.kernel.limits import deep_recursion

    if not kernel.source:
        with deep_recursion():
            return generate_c(kernel, aliasing=aliasing)
    key = (kernel.source, kernel.filename, tuple(kernel.constant_names), literals, aliasing)
    text = _C_SOURCES.get(key)
    if text is None:
        with deep_recursion():   # the generator walks the AST recursively (long sums)
            text = generate_c(kernel, aliasing=aliasing)
        _remember(_C_SOURCES, key, text)
    return text


def _remember(memo: dict, key, value) -> None:
    if len(memo) >= _MEMO_LIMIT:
        memo.pop(next(iter(memo)))
    memo[key] = value


@functools.lru_cache(maxsize=64)
def _analyse_source(c_source: str, kernel_source: str, filename: str | None, literals: tuple,
                    compiler: str, flags: str, arch: str, asm_block, pointer_increment,
                    ignore_unknown: bool, tool: str = "kerncraft", tool_id: str = ""):
    """(selection, analysis, ports of the model) for one compiled kernel.

    Looks the result up in the persistent cache first (see the module doc);
    ``tool_id`` identifies the external tool's build (see :func:`_tool_identity`);
    interactive block choices (``--asm-block manual``,
    ``--pointer-increment auto_with_manual_fallback``) are never cached.
    """
    from kerncraft.compilation.compiler import compile_to_assembly
    from kerncraft.memo import incore_analyses as result_cache
    compiled = compile_to_assembly(c_source, compiler, flags)
    assembly = compiled.assembly

    def full():
        return _full_analysis(assembly, kernel_source, filename, literals, arch, asm_block,
                              pointer_increment, ignore_unknown, tool, compiler)

    cacheable = asm_block != "manual" and pointer_increment not in ("auto_with_manual_fallback",
                                                                   "manual")
    key = None
    if cacheable and compiled.cache_path is not None:
        key = result_cache.result_key(
            "incore", tool, tool_id, arch,
            result_cache.database_fingerprint(arch) if tool == "kerncraft" else "",
            hashlib.sha256(assembly.encode("utf-8", "surrogatepass")).hexdigest(),
            kernel_source, literals, asm_block, pointer_increment, bool(ignore_unknown))
        doc = result_cache.load(key)
        if doc is not None:
            try:
                return _restore(doc, full, tool)
            except (KeyError, TypeError, ValueError):
                pass            # a malformed entry is a miss
    selection, analysis, ports = full()
    if key is not None:
        result_cache.store(key, {
            "tool": tool, "arch": arch, "ports": list(ports),
            "selection": result_cache.selection_essentials(selection),
            "analysis": (result_cache.analysis_essentials(analysis) if tool == "kerncraft"
                         else analysis.to_doc())})
    return selection, analysis, ports


def _restore(doc, full, tool: str):
    from kerncraft.memo import incore_analyses as result_cache
    if doc["tool"] != tool:
        raise ValueError("entry of another tool")
    if tool == "kerncraft":
        selection, analysis = result_cache.restore(doc, lambda: full()[:2])
    else:
        from kerncraft.incore.backends import BackendAnalysis

        selection = result_cache.CachedSelection(doc["selection"], lambda: full()[0])
        analysis = BackendAnalysis.from_doc(doc["analysis"])
    return selection, analysis, tuple(doc["ports"])


def _tool_identity(tool: str) -> str:
    """Which build of an external tool runs (part of the cache key)."""
    if tool == "kerncraft":
        return ""
    from kerncraft.incore.backends import get_backend, tool_identity

    return tool_identity(get_backend(tool).find_tool())


def _full_analysis(assembly: str, kernel_source: str, filename: str | None, literals: tuple,
                   arch: str, asm_block, pointer_increment, ignore_unknown: bool, tool: str,
                   compiler: str = "gcc"):
    """Parse the assembly, select the block and analyse it (no cache)."""
    from kerncraft.compilation.asm_block import select_block
    from kerncraft.incore.aarch64.parser import detect_isa
    from kerncraft.incore.isa import isa_support
    from kerncraft.kernel.parser import parse_kernel

    isa = detect_isa(assembly)
    parse = isa_support(isa)[0]       # x86 or AArch64 compiler output
    lines = parse(assembly, filename="<generated assembly>")
    kernel = parse_kernel(kernel_source, filename).bind(dict(literals), partial=True)
    selection = select_block(lines, kernel, block=asm_block, pointer_increment=pointer_increment)
    if tool == "kerncraft":
        from kerncraft.incore.analysis import analyze, load_model

        model = load_model(arch)
        analysis = analyze(selection.instructions, model, ignore_unknown=ignore_unknown)
        if getattr(model, "code_block_bytes", None):
            analysis = _with_loop_layout(analysis, assembly, selection, compiler,
                                         model.code_block_bytes)
        analysis = with_store_note(with_call_note(analysis, selection), selection, isa)
        return selection, analysis, tuple(model.ports)
    from kerncraft.incore.backends import get_backend

    analysis = get_backend(tool).analyse(assembly, selection, arch,
                                         ignore_unknown=ignore_unknown)
    analysis = with_store_note(analysis, selection, isa)
    return selection, analysis, tuple(analysis.port_totals)


def _with_loop_layout(analysis, assembly: str, selection, compiler: str, block_bytes: int):
    """The analysis with the loop's code layout (kerncraft/incore/codeblocks.py); if the
    loop cannot be assembled, with a note saying why instead."""
    import dataclasses

    from kerncraft.compilation.compiler import find_compiler
    from kerncraft.errors import ToolError
    from kerncraft.incore.codeblocks import loop_layout

    lines = [ins.line_number for ins in selection.instructions]
    try:
        layout = loop_layout(assembly, min(lines), max(lines), str(find_compiler(compiler)),
                             block_bytes)
    except ToolError as exc:
        return dataclasses.replace(analysis, notes=analysis.notes + (
            f"code layout of the loop unknown: {exc.message}",))
    return dataclasses.replace(analysis, loop_layout=layout)

