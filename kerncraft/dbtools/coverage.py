"""Database maintenance tools behind ``kerncraft-incore --db-check`` and ``kerncraft-incore bench``.

``--db-check [ARCH ...]`` reports, per port-model database:

* **missing values** -- header fields the analyzer falls back on (load-latency
  classes, store forwarding, front end, ROB) and entries without a reciprocal
  throughput (``tp``) or without any uop;
* **duplicates** -- form keys defined more than once in the same file (after
  brace expansion): the later entry wins; listed as *redundant* when both say
  the same, as *overridden* when they differ (often intended, e.g. a zero-idiom
  variant after a generic group, but worth a look);
* **unknown forms of bundled kernels** -- every kernel in ``kernels/`` is
  compiled with gcc for the architecture (``-O1 -O2 -O3 -Ofast`` with the
  ``-march`` of :data:`ARCH_TARGETS`, and again with each flag set of
  :data:`ARCH_EXTRA_FLAGS`) the way the ECM pipeline does it
  (:func:`kerncraft.compilation.codegen.generate_c`), the loop blocks the pipeline would
  analyse are taken from the assembly, and every instruction the database does
  not know is listed with an example. Skipped (with the reason) when the
  compiler for that ISA is missing.

The exit status of ``--db-check`` is 1 if any database has unknown kernel forms
or structural problems, else 0; duplicates and missing ``tp`` fields are
reported but do not fail the check.
"""
from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from kerncraft.resources import bundled_dir

if TYPE_CHECKING:
    from kerncraft.incore.aarch64.portmodel import AArch64PortModel
    from kerncraft.incore.database import PortModel
    from kerncraft.incore.model import Instruction
    from kerncraft.incore.protocols import PortModelLike
    from kerncraft.kernel.model import KernelModel

__all__ = ["ARCH_EXTRA_FLAGS", "ARCH_TARGETS", "DbCheck", "check_database", "format_check",
           "kernel_files", "unknown_kernel_forms"]

#: Compiler and target flags used to compile the bundled kernels for a database.
ARCH_TARGETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "SNB": ("gcc", ("-march=sandybridge",)),
    "IVB": ("gcc", ("-march=ivybridge",)),
    "HSW": ("gcc", ("-march=haswell",)),
    "BDW": ("gcc", ("-march=broadwell",)),
    "SKX": ("gcc", ("-march=skylake-avx512",)),
    "CSX": ("gcc", ("-march=cascadelake",)),
    "ICX": ("gcc", ("-march=icelake-server",)),
    "SPR": ("gcc", ("-march=sapphirerapids",)),
    "ZEN": ("gcc", ("-march=znver1",)),
    "ZEN2": ("gcc", ("-march=znver2",)),
    # gcc 12 knows no -march=znver4/znver5: the ISA of Zen 5 (AVX-512 F/CD/BW/DQ/VL) is
    # x86-64-v4, tuned like the closest known core, with 512-bit vectors preferred
    # (Zen 5 executes them natively); see ARCH_EXTRA_FLAGS for the AVX2 build.
    "ZEN5": ("gcc", ("-march=x86-64-v4", "-mtune=znver3", "-mprefer-vector-width=512")),
    "ZEN3": ("gcc", ("-march=znver3",)),
    # Zen 4 likewise: its AVX-512 ISA is x86-64-v4 (gcc 12 has no -march=znver4); 512-bit
    # vectors preferred so the zmm forms are checked, AVX2 code in ARCH_EXTRA_FLAGS.
    "ZEN4": ("gcc", ("-march=x86-64-v4", "-mtune=znver3", "-mprefer-vector-width=512")),
    "TX2": ("aarch64-linux-gnu-gcc", ("-mcpu=thunderx2t99",)),
    # the published A64FX machine file's target flags (SVE with 512-bit vectors)
    "A64FX": ("aarch64-linux-gnu-gcc", ("-march=armv8.2-a+sve", "-msve-vector-bits=512")),
    "N1": ("aarch64-linux-gnu-gcc", ("-mcpu=neoverse-n1",)),
    # gcc 12 knows no -mcpu=neoverse-v2 (-mcpu=neoverse-v1 would be a different core): the
    # V2 ISA (Armv9-A with SVE2) and its 128-bit SVE vector length; the length-agnostic
    # build is in ARCH_EXTRA_FLAGS.
    "V2": ("aarch64-linux-gnu-gcc", ("-march=armv9-a+sve2", "-msve-vector-bits=128")),
}
#: Further target flag sets per database: the kernels are compiled once per set (and per
#: optimisation level) in addition to the :data:`ARCH_TARGETS` flags.
ARCH_EXTRA_FLAGS: dict[str, tuple[tuple[str, ...], ...]] = {
    "ZEN5": (("-march=x86-64-v3", "-mtune=znver3"),),
    "ZEN4": (("-march=x86-64-v3", "-mtune=znver3"),),
    "V2": (("-march=armv9-a+sve2",),),
}
OPT_LEVELS = ("-O1", "-O2", "-O3", "-Ofast")
_HEADER_LOAD_CLASSES = {"x86": ("gpr", "scalar", "xmm", "ymm")}


@dataclass
class DbCheck:
    """Findings for one database."""

    arch: str
    path: str
    forms: int = 0
    missing_header: list[str] = field(default_factory=list)
    missing_tp: list[str] = field(default_factory=list)
    missing_uops: list[str] = field(default_factory=list)
    redundant: list[str] = field(default_factory=list)         # duplicate, same values
    overridden: list[str] = field(default_factory=list)        # duplicate, different values
    unknown: dict[str, str] = field(default_factory=dict)      # form -> example
    kernel_note: str = ""                                      # why kernels were skipped
    compiled: int = 0

    @property
    def failed(self) -> bool:
        return bool(self.unknown or self.missing_uops or self.missing_header)

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__} | {"failed": self.failed}


def _raw_groups(path: Path) -> tuple[dict, list]:
    from kerncraft.incore.dbfile import read_database_yaml
    data = read_database_yaml(path)
    return data, list(data.get("instruction_groups") or [])


def _entry_signature(spec: object) -> str:
    if isinstance(spec, dict):
        spec = {k: v for k, v in spec.items() if k not in ("source", "note")}
    return repr(spec)


def _structure(check: DbCheck, model: PortModel | AArch64PortModel, path: Path) -> None:
    from kerncraft.incore.dbfile import expand_braces, normalise_form_key
    data, groups = _raw_groups(path)
    isa = model.isa.lower()
    wanted = _HEADER_LOAD_CLASSES.get("x86" if isa == "x86" else isa, ())
    for cls in wanted:
        if cls not in model.load_latency:
            check.missing_header.append(f"load_latency.{cls} (falls back to the largest class)")
    for key in ("store_forward_latency", "frontend_width", "rob_size"):
        if "extends" not in data and key not in data:
            check.missing_header.append(key)
    seen: dict[str, tuple[int, str]] = {}
    for gi, group in enumerate(groups):
        for raw, spec in (group.get("forms") or {}).items():
            for key in expand_braces(str(raw)):
                key = normalise_form_key(key)
                sig = _entry_signature(spec)
                if key in seen:
                    (check.redundant if seen[key][1] == sig else check.overridden).append(
                        f"{key} (groups {seen[key][0]} and {gi})")
                seen[key] = (gi, sig)
                if isinstance(spec, dict):
                    if spec.get("tp", spec.get("throughput")) is None:
                        check.missing_tp.append(key)
                    if not spec.get("uops"):
                        check.missing_uops.append(key)
    check.forms = len(model.forms)


def kernel_files(directory: str | Path | None = None) -> list[Path]:
    """The bundled kernels (``kernels/*.c`` next to the package)."""
    if directory is None:
        directory = bundled_dir("kernels")
    return sorted(Path(directory).glob("*.c"))


def _program_loops(asm: str, kernel: KernelModel, isa: str) -> list[Instruction]:
    """Instructions of the loop block(s) the ECM pipeline would analyse."""
    if isa.startswith(("aarch64", "arm")):
        from kerncraft.incore.isa import isa_support
        parse = isa_support(isa)[0]
    else:
        from kerncraft.incore.x86.parser import parse_x86 as parse
    lines = parse(asm)
    try:
        from kerncraft.compilation.asm_block import select_block
        return list(select_block(lines, kernel).instructions)
    except Exception:  # noqa: BLE001 - no block fits: check all innermost loops
        from kerncraft.incore.markers import find_loops
        try:
            loops = find_loops(lines)
        except Exception:  # noqa: BLE001
            return []
        return [ins for lp in loops if not lp.contains_loop for ins in lp.instructions]


def kernel_loop_instructions(model: PortModelLike, arch: str,
                             kernels: Sequence[Path] | None = None,
                             opt_levels: Sequence[str] = OPT_LEVELS, jobs: int = 4,
                             target: tuple[str, Sequence[str]] | None = None
                             ) -> tuple[list[tuple[Path, str, list]], int, str]:
    """([(kernel file, optimisation level, loop instructions)], compilations done, note):
    the bundled kernels compiled for ``arch`` as the ECM pipeline compiles them;
    ``target`` = (compiler, flags without -O) replaces the database's target flags (a
    machine file's, for a calibration)."""
    from kerncraft.kernel.parser import parse_kernel
    from kerncraft.compilation.codegen import generate_c
    from kerncraft.compilation.compiler import compile_to_assembly
    extra_targets = ARCH_EXTRA_FLAGS.get(arch.upper(), ()) if target is None else ()
    target = target or ARCH_TARGETS.get(arch.upper())
    if target is None:
        return [], 0, f"no compiler target known for {arch} (see dbcheck.ARCH_TARGETS)"
    compiler, march = target
    if shutil.which(compiler) is None:
        return [], 0, f"compiler {compiler} not installed: kernels not checked"
    isa = (model.isa or "x86").lower()
    kernels = kernel_files() if kernels is None else list(kernels)
    jobs_list = []
    for path in kernels:
        try:
            kernel = parse_kernel(path.read_text(), str(path))
            source = generate_c(kernel)
        except Exception as exc:  # noqa: BLE001 - report and go on
            jobs_list.append((path, None, None, f"cannot parse: {exc}", ()))
            continue
        for target_flags in (march, *extra_targets):
            for opt in opt_levels:
                jobs_list.append((path, kernel, source, opt, target_flags))

    def run(job):
        path, kernel, source, opt, target_flags = job
        if kernel is None:
            return path, opt, None, []
        flags = [opt, *target_flags, "-ffreestanding", "-fno-tree-loop-distribute-patterns"]
        try:
            asm = compile_to_assembly(source, compiler, flags).assembly
        except Exception as exc:  # noqa: BLE001
            return path, opt, f"{compiler} failed: {exc}", []
        return path, opt, None, _program_loops(asm, kernel, isa)

    loops, problems = [], []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for path, opt, error, instructions in pool.map(run, jobs_list):
            if error:
                problems.append(f"{path.name} {opt}: {error}")
            else:
                loops.append((path, opt, instructions))
    return loops, len(loops), "; ".join(problems[:3])


def unknown_kernel_forms(model: PortModelLike, arch: str, kernels: Sequence[Path] | None = None,
                         opt_levels: Sequence[str] = OPT_LEVELS, jobs: int = 4
                         ) -> tuple[dict[str, str], int, str]:
    """(unknown form -> example, compilations done, note) for the bundled kernels."""
    loops, done, note = kernel_loop_instructions(model, arch, kernels, opt_levels, jobs)
    unknown: dict[str, str] = {}
    for path, opt, instructions in loops:
        for ins in instructions:
            if model.lookup(ins) is None:
                unknown.setdefault(ins.form_key, f"{ins.text.split('#')[0].strip()} "
                                                 f"({path.name} {opt})")
    return unknown, done, note


def check_database(arch: str, *, kernels: bool = True, kernel_paths: Sequence[Path] | None = None,
                   opt_levels: Sequence[str] = OPT_LEVELS) -> DbCheck:
    """All checks for one database name."""
    from kerncraft.incore.analysis import load_model
    from kerncraft.incore.dbfile import database_path
    model = load_model(arch)
    path = database_path(arch)
    check = DbCheck(arch=model.arch, path=str(path))
    _structure(check, model, path)
    if kernels:
        check.unknown, check.compiled, check.kernel_note = unknown_kernel_forms(
            model, model.arch, kernel_paths, opt_levels)
    else:
        check.kernel_note = "kernels not checked (--no-kernels)"
    return check


def _listing(title: str, items: Iterable[str], limit: int) -> list[str]:
    items = list(items)
    if not items:
        return [f"  {title}: none"]
    out = [f"  {title}: {len(items)}"]
    out += [f"    {it}" for it in items[:limit]]
    if len(items) > limit:
        out.append(f"    ... {len(items) - limit} more (--verbose lists all)")
    return out


def format_check(check: DbCheck, verbose: bool = False) -> str:
    limit = 10**9 if verbose else 12
    out = [f"{check.arch} ({check.path}): {check.forms} forms"
           + ("  [FAILED]" if check.failed else "  [ok]")]
    out += _listing("missing header values", check.missing_header, limit)
    out += _listing("entries without uops", check.missing_uops, limit)
    out += _listing("entries without a throughput (tp)", check.missing_tp, limit)
    out += _listing("duplicate keys with identical values (redundant)", check.redundant, limit)
    out += _listing("duplicate keys overridden by a later entry", check.overridden, limit)
    if check.kernel_note and not check.compiled:
        out.append(f"  bundled kernels: {check.kernel_note}")
    else:
        out += _listing(f"forms of bundled kernels unknown to {check.arch} "
                        f"({check.compiled} compilations)",
                        [f"{k}: {v}" for k, v in sorted(check.unknown.items())], limit)
        if check.kernel_note:
            out.append(f"  compile problems: {check.kernel_note}")
    return "\n".join(out) + "\n"
