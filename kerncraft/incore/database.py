"""Instruction-form databases (port models) of the in-core analyzer.

A database is a YAML file in ``kerncraft/incore/databases/`` (format described in
``databases/README.md``): a header describing the ports of one core
micro-architecture and a table of *register-only* instruction forms with their
micro-ops, latency and reciprocal throughput. Forms with memory operands are
composed on lookup (register form + load uop, or + store-address/store-data
uops) unless the table has an explicit entry for them. The header's ``extensions`` name
the core's ISA extensions (:mod:`kerncraft.incore.isa_extensions`): forms of others are
dropped from an inherited table, and :meth:`PortModel.lookup` refuses their instructions.

Public API::

    db = load_database("SKX")            # or 'CSX', 'SPR', or a path to a .yml
    cost = db.lookup(instruction)        # InstructionCost, or None if unknown

Loading is cached per process; the parsed YAML is additionally cached on disk as
JSON (keyed by a hash of the file content) because the pure-Python YAML parser
needs a few hundred milliseconds for the larger tables.
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from kerncraft.errors import KerncraftError, SourceLocation, UnknownInstructionError
# DATABASE_DIR and available_databases are re-exported (see __all__)
from kerncraft.incore.dbfile import (DATABASE_DIR, PLACEHOLDERS, FormEntry,  # noqa: F401
                                    available_databases, database_path, decode_entry,
                                    entry_with_key, expand_braces, form_key, header_list,
                                    normalise_form_key, read_database_yaml)
from kerncraft.incore.isa_extensions import (describe_missing, expand_extensions, extensions_isa,
                                             form_extensions, required_extensions)
from kerncraft.incore.memissue import MemoryIssue, memory_issue_from_header
from kerncraft.incore.model import Instruction, InstructionCost, Memory, Operand, Register, Uop
from kerncraft.incore.registers import guess_register_class

__all__ = ["PortModel", "FormEntry", "load_database", "available_databases", "DATABASE_DIR"]

REGISTER_CLASSES = ("r8", "r16", "r32", "r64", "xmm", "ymm", "zmm", "k")
_VECTOR_CLASSES = ("xmm", "ymm", "zmm")
_GPR_CLASSES = ("r64", "r32", "r16", "r8")
_SUFFIX_CLASS = {"q": "r64", "l": "r32", "w": "r16", "b": "r8"}
# Instructions whose last operand is a source only (nothing is written back).
_READ_ONLY_LAST = re.compile(
    r"^(cmp|test|bt|v?u?comis[sd]|v?ptest|vtestp[sd]|prefetch\w*)[bwlq]?$")
# AT&T sign/zero extension spellings: movzbl, movswq, movslq ...
_MOVX = re.compile(r"^mov([sz])(bw|bl|bq|wl|wq|lq)$")
# Scalar FP forms: their memory operand is 32/64 bit ('scalar' load latency).
_SCALAR_FP = re.compile(r"^(?!v?p)[a-z0-9]*s[sd]$")
@dataclass(frozen=True)
class PortModel:
    """Port model of one micro-architecture plus its instruction-form table."""

    arch: str
    name: str
    ports: tuple[str, ...]
    divider_ports: tuple[str, ...]
    load_ports: tuple[str, ...]               # AGUs that serve loads
    load_data_ports: tuple[str, ...]          # load data paths ('2D', '3D'); may be empty
    store_data_ports: tuple[str, ...]
    store_address_ports: tuple[str, ...]      # AGUs usable by any store
    simple_store_address_ports: tuple[str, ...]  # extra AGUs for [base+disp] only (SKX port 7)
    load_latency: Mapping[str, float]         # by class: 'gpr', 'xmm', 'ymm', 'zmm', 'k'
    store_forward_latency: float
    frontend_width: float
    rob_size: int
    description: str = ""
    path: str = ""
    line_split: tuple = ()                    # linesplit.SplitCost per kind and width
    code_block_bytes: int | None = None       # fetch block of the front end (codeblocks.py)
    scheduler_size: int | None = None         # uops waiting for a port (cycle_sim.py)
    memory_issue: MemoryIssue | None = None   # oldest-first pick of loads and stores
    # the file's own 'isa' header key (not inherited through 'extends'): 'aarch64'
    # databases are used through aarch64.portmodel.AArch64PortModel
    isa: str = "x86"
    # the ISA extensions of the core (header 'extensions', inherited through 'extends'):
    # every form is within them, and an instruction of another extension is refused
    # (kerncraft.incore.isa_extensions); None: not declared, nothing checked
    extensions: frozenset[str] | None = None
    forms: Mapping[str, FormEntry] = field(default_factory=dict, repr=False, compare=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ lookup
    def lookup(self, instr: Instruction) -> InstructionCost | None:
        """Cost of ``instr`` with memory operands composed; None if unknown."""
        types = tuple(_operand_type(op) for op in instr.operands)
        mems = [op for op in instr.operands if isinstance(op, Memory)]
        simple = bool(mems) and _is_simple_address(mems[-1])
        complex_addr = bool(mems) and _is_complex_address(mems[0])
        same = _same_register_sources(instr.operands)
        ckey = (instr.mnemonic, types, simple, complex_addr, same)
        if ckey in self._cache:
            return self._cache[ckey]
        cost = self._lookup(instr.mnemonic, types, simple, complex_addr, same)
        if cost is not None:
            cost = _replace_key(cost, instr.form_key)
        else:
            self.refuse_foreign(instr.mnemonic, types, instr.form_key, instr.line_number)
        self._cache[ckey] = cost
        return cost

    def refuse_foreign(self, mnemonic: str, types: tuple[str, ...], form: str,
                       line: int | None = None) -> None:
        """Raise UnknownInstructionError (even under --ignore-unknown) if the
        instruction belongs to an ISA extension the core does not have: code compiled
        for another core gives no meaningful prediction for this one."""
        if self.extensions is None:
            return
        missing = required_extensions(extensions_isa(self.extensions), mnemonic,
                                      types) - self.extensions
        if missing:
            raise UnknownInstructionError(f"not in the {self.arch} database: "
                                          + describe_missing(form, self.arch, missing),
                                          SourceLocation(line=line) if line else None)

    def lookup_form(self, form_key: str, simple_address: bool = False) -> InstructionCost | None:
        """Like :meth:`lookup` for a form-key string such as ``'vaddpd mem,ymm,ymm'``;
        a form of an extension the core lacks is None here (tools probe forms with it)."""
        mnemonic, _, ops = form_key.strip().partition(" ")
        types = tuple(t.strip() for t in ops.split(",") if t.strip())
        cost = self._lookup(mnemonic.lower(), types, simple_address, False, False)
        return None if cost is None else _replace_key(cost, form_key.strip())

    def has_form(self, form_key: str) -> bool:
        """True if the form key has an explicit table entry."""
        return form_key in self.forms

    def _lookup(self, mnemonic: str, types: tuple[str, ...], simple: bool,
                complex_addr: bool, same: bool) -> InstructionCost | None:
        names = self._mnemonic_candidates(mnemonic, types)
        for name in names:                       # 1. explicit entries win
            entry = self.forms.get(form_key(name, types))
            if entry is not None:
                return self._explicit(entry, types, simple, complex_addr, same)
        mem_pos = [i for i, t in enumerate(types) if t == "mem"]
        if len(mem_pos) != 1:
            return None
        pos = mem_pos[0]
        is_dest = (pos == len(types) - 1 and len(types) >= 1
                   and not _READ_ONLY_LAST.match(mnemonic))
        for cls in self._class_candidates(mnemonic, types, pos):   # 2. composition
            reg_types = types[:pos] + (cls,) + types[pos + 1:]
            for name in names:
                entry = self.forms.get(form_key(name, reg_types))
                if entry is None:
                    continue
                if same and entry.same_reg is not None:
                    entry = entry.same_reg
                return self._compose(entry, cls, is_dest, simple, name)
        return None

    def _mnemonic_candidates(self, mnemonic: str, types: tuple[str, ...]) -> list[str]:
        names = [mnemonic]
        m = _MOVX.match(mnemonic)
        if m:
            names.append("movzx" if m.group(1) == "z" else ("movsxd" if m.group(2) == "lq" else "movsx"))
        elif mnemonic[-1:] in _SUFFIX_CLASS and len(mnemonic) > 2:
            names.append(mnemonic[:-1])
        elif mnemonic[-1:] in "xyz" and mnemonic.startswith(("vcvt", "cvt", "vfpclass")):
            names.append(mnemonic[:-1])     # AT&T size hints: vcvtpd2psy, vcvttpd2dqx
        return names

    def _class_candidates(self, mnemonic: str, types: tuple[str, ...], pos: int) -> list[str]:
        """Register classes to try in place of the memory operand, most likely first."""
        cands: list[str] = []
        regs = [t for i, t in enumerate(types) if i != pos and t in REGISTER_CLASSES and t != "k"]
        suffix_cls = _SUFFIX_CLASS.get(mnemonic[-1:])
        if suffix_cls and not any(t in _VECTOR_CLASSES for t in regs):
            cands.append(suffix_cls)
        for t in reversed(regs):                 # destination class first
            if t not in cands:
                cands.append(t)
        if suffix_cls and suffix_cls not in cands:
            cands.append(suffix_cls)
        for t in _VECTOR_CLASSES + _GPR_CLASSES:
            if t not in cands:
                cands.append(t)
        return cands

    # ------------------------------------------------------------- composing
    def _load_uops(self) -> tuple[Uop, ...]:
        uops = [Uop(frozenset(self.load_ports), 1.0)]
        if self.load_data_ports:
            uops.append(Uop(frozenset(self.load_data_ports), 1.0))
        return tuple(uops)

    def _store_uops(self, simple: bool, part: str = "store") -> tuple[Uop, ...]:
        agus = set(self.store_address_ports)
        if simple:
            agus |= set(self.simple_store_address_ports)
        out = []
        if part in ("store", "store_addr"):
            out.append(Uop(frozenset(agus), 1.0))
        if part in ("store", "store_data"):
            out.append(Uop(frozenset(self.store_data_ports), 1.0))
        return tuple(out)

    def placeholder_uops(self, name: str, simple: bool = False) -> tuple[Uop, ...]:
        """The uops the header gives placeholder ``name`` (``load``, ``store``,
        ``store_addr``, ``store_data``); ``simple``: a [base+disp] address."""
        if name == "load":
            return self._load_uops()
        if name not in PLACEHOLDERS:
            raise KerncraftError(f"unknown uop placeholder '{name}'")
        return self._store_uops(simple, name)

    def _class_load_latency(self, cls: str) -> float:
        key = "gpr" if cls in _GPR_CLASSES else cls
        if key in self.load_latency:
            return float(self.load_latency[key])
        return float(max(self.load_latency.values()))

    def _expand(self, uops: tuple[Uop | str, ...], simple: bool) -> tuple[tuple[Uop, ...], bool, bool]:
        out: list[Uop] = []
        has_load = has_store = False
        for u in uops:
            if isinstance(u, Uop):
                out.append(u)
            elif u == "load":
                out.extend(self._load_uops())
                has_load = True
            else:
                out.extend(self._store_uops(simple, u))
                has_store = True
        return tuple(out), has_load, has_store

    def _explicit(self, entry: FormEntry, types: tuple[str, ...], simple: bool,
                  complex_addr: bool, same: bool) -> InstructionCost:
        if same and entry.same_reg is not None:
            entry = entry.same_reg
        if complex_addr and entry.complex_address is not None:
            entry = entry.complex_address
        uops, has_load, has_store = self._expand(entry.uops, simple)
        # an entry whose uops are written out says so: it still has its load latency
        has_load = has_load or "load" in (entry.access or "")
        has_store = has_store or "store" in (entry.access or "")
        load_lat = 0.0
        if has_load:
            if entry.load_latency is not None:
                load_lat = entry.load_latency
            else:
                regs = [t for t in types if t in REGISTER_CLASSES and t != "k"]
                load_lat = self._class_load_latency(regs[-1] if regs else "gpr")
        return InstructionCost(form_key=entry.key, uops=uops, latency=entry.latency,
                               load_latency=load_lat, has_load=has_load, has_store=has_store,
                               throughput=entry.throughput, source=entry.source,
                               bypass=entry.bypass, latency_other=entry.latency_other)

    def _compose(self, entry: FormEntry, cls: str, is_dest: bool, simple: bool,
                 name: str) -> InstructionCost:
        base, _, _ = self._expand(entry.uops, simple)
        if is_dest:
            rmw = entry.mem_dest != "store" if entry.mem_dest else not name.startswith("v")
            extra = (self._load_uops() if rmw else ()) + self._store_uops(simple)
            how = "load + store" if rmw else "store"
            load_lat = self._class_load_latency(cls) if rmw else 0.0
            has_load = rmw
        else:
            extra = self._load_uops()
            how = "load"
            if entry.load_latency is not None:
                load_lat = entry.load_latency
            elif cls == "xmm" and "scalar" in self.load_latency and _SCALAR_FP.search(name):
                load_lat = float(self.load_latency["scalar"])
            else:
                load_lat = self._class_load_latency(cls)
            has_load = True
        tp = entry.throughput
        if tp is not None:
            tp = max(tp, _bound(extra + base))
        return InstructionCost(
            form_key=entry.key, uops=base + extra, latency=entry.latency,
            load_latency=load_lat, has_load=has_load, has_store=is_dest,
            throughput=tp, source=f"{entry.source} [composed: '{entry.key}' + {how}]",
            bypass=entry.bypass, latency_other=entry.latency_other)


# ---------------------------------------------------------------- helpers
def _replace_key(cost: InstructionCost, key: str) -> InstructionCost:
    from dataclasses import replace
    return replace(cost, form_key=key)


def _bound(uops: tuple[Uop, ...]) -> float:
    """Trivial per-port-set bound (max over single uops' cycles/ports)."""
    return max((u.cycles / len(u.ports) for u in uops if u.ports), default=0.0)


def _operand_type(op: Operand) -> str:
    try:
        return op.type
    except Exception:  # noqa: BLE001 - register table missing or name unknown to it
        if isinstance(op, Register):
            return guess_register_class(op.name)
        raise


def _is_simple_address(mem: Memory) -> bool:
    """[base + displacement] (or absolute / RIP-relative) without index register."""
    return mem.index is None


def _is_complex_address(mem: Memory) -> bool:
    """Three-component address (base + index + non-zero displacement)."""
    return (mem.base is not None and mem.index is not None
            and (mem.displacement != 0 or mem.symbol is not None))


def _same_register_sources(operands: tuple) -> bool:
    """True for zero-idiom shapes: all source registers are the same register."""
    srcs = operands[:-1] if len(operands) >= 3 else operands
    if len(srcs) < 2 or not all(isinstance(o, Register) for o in srcs):
        return False
    return len({o.name for o in srcs}) == 1


# ---------------------------------------------------------------- loading
def load_database(arch: str | os.PathLike) -> PortModel:
    """Load a bundled database by name (case-insensitive) or a YAML file by path."""
    path = database_path(arch)
    st = path.stat()
    return _load_cached(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=None)
def _load_cached(path: str, mtime_ns: int, size: int) -> PortModel:
    from kerncraft.incore.dbstore import load_built, store_built

    built = load_built(Path(path))
    if isinstance(built, PortModel):
        return built
    files: set[str] = set()
    model = _build(Path(path), files)
    store_built(Path(path), model, sorted(files))
    return model


def _build(path: Path, seen: set[str]) -> PortModel:
    if str(path) in seen:
        raise KerncraftError(f"{path}: circular 'extends'")
    seen.add(str(path))
    data = read_database_yaml(path)
    header: dict = {}
    parent: PortModel | None = None
    if "extends" in data:
        parent_path = database_path(data["extends"]) \
            if str(data["extends"]).lower().endswith((".yml", ".yaml")) \
            else database_path(str(data["extends"]))
        parent = _build(parent_path, seen)
        header = _inherited_header(parent)
    extensions = _core_extensions(data, parent.extensions if parent else None, path)
    if extensions is not None and "forms" in header and not (
            parent is not None and parent.extensions is not None
            and parent.extensions <= extensions):
        # (a core with all of its parent's extensions, Cascade Lake over Skylake-SP,
        # keeps every inherited form: the parent's own are within its extensions)
        # e.g. Haswell extends Skylake-SP's file: its AVX-512 forms are not Haswell's
        header["forms"] = {k: v for k, v in header["forms"].items()
                           if form_extensions(extensions_isa(extensions), k) <= extensions}
    for k, v in data.items():
        if k not in ("instruction_groups", "extends"):
            header[k] = v
    ports = header_list(header, "ports", path)
    portset = set(ports)

    def port_list(key: str, required: bool = True) -> tuple[str, ...]:
        val = header_list(header, key, path, required)
        bad = [p for p in val if p not in portset]
        if bad:
            raise KerncraftError(f"{path}: {key}: ports {bad} are not in 'ports'")
        return val

    try:
        load_lat = {str(k): float(v) for k, v in dict(header["load_latency"]).items()}
        model = dict(
            arch=str(header.get("arch", path.stem)).upper(),
            name=str(header.get("name", "")),
            description=str(header.get("description", "")).strip(),
            ports=ports,
            divider_ports=port_list("divider_ports"),
            load_ports=port_list("load_ports"),
            load_data_ports=port_list("load_data_ports", False),
            store_data_ports=port_list("store_data_ports"),
            store_address_ports=port_list("store_address_ports"),
            simple_store_address_ports=port_list("simple_store_address_ports", False),
            load_latency=load_lat,
            store_forward_latency=float(header["store_forward_latency"]),
            frontend_width=float(header["frontend_width"]),
            rob_size=int(header["rob_size"]),
            line_split=_line_split(header.get("line_split"), ports, path,
                                   parent.line_split if parent else ()),
            code_block_bytes=_optional_int(header, "code_block_bytes"),
            scheduler_size=_optional_int(header, "scheduler_size"),
            memory_issue=memory_issue_from_header(header.get("memory_issue"), str(path)),
            isa=str(data.get("isa", "x86")).lower(),
            extensions=extensions,
        )
    except KeyError as exc:
        raise KerncraftError(f"{path}: header field {exc.args[0]!r} is missing") from None
    except (TypeError, ValueError) as exc:
        raise KerncraftError(f"{path}: malformed header: {exc}") from None
    forms = _group_forms(data.get("instruction_groups") or [], dict(header.get("forms", {})),
                         portset, extensions, model["arch"], path)
    return PortModel(path=str(path), forms=forms, **model)


def _inherited_header(parent: PortModel) -> dict:
    """The header values and forms a file that ``extends`` ``parent`` starts from."""
    header = {k: getattr(parent, k) for k in (
        "ports", "divider_ports", "load_ports", "load_data_ports", "store_data_ports",
        "store_address_ports", "simple_store_address_ports", "load_latency",
        "store_forward_latency", "frontend_width", "rob_size", "line_split",
        "code_block_bytes", "scheduler_size", "memory_issue")}
    header["forms"] = dict(parent.forms)
    return header


def _group_forms(groups: Any, forms: dict[str, FormEntry], portset: set[str],
                 extensions: frozenset[str] | None, arch: str, path: Path
                 ) -> dict[str, FormEntry]:
    """``forms`` with the entries of the file's ``instruction_groups`` added.

    A user's file has every form checked against its core's extensions; the bundled
    files are checked by the test suite (tests/test_db_isa.py), not at every load,
    where classifying their ~2,500 forms would take a tenth of a first run."""
    checked = Path(path).resolve().parent != Path(DATABASE_DIR).resolve()
    if not isinstance(groups, list):
        raise KerncraftError(f"{path}: 'instruction_groups' must be a list")
    for gi, group in enumerate(groups):
        if not isinstance(group, dict) or "source" not in group or "forms" not in group:
            raise KerncraftError(f"{path}: instruction_groups[{gi}] needs 'source' and 'forms'")
        for raw_key, spec in (group["forms"] or {}).items():
            where = f"{path}: instruction_groups[{gi}].forms['{raw_key}']"
            template = decode_entry("", spec, str(group["source"]), portset, where)
            for key in expand_braces(str(raw_key)):
                key = normalise_form_key(key)
                if checked:
                    _check_extensions(key, extensions, arch, where)
                forms[key] = entry_with_key(template, key)
    return forms


def _core_extensions(data: Mapping[str, Any], inherited: frozenset[str] | None,
                     path: Path) -> frozenset[str] | None:
    """The file's ``extensions`` (levels expanded), else the inherited ones."""
    if "extensions" not in data:
        return inherited
    names = data["extensions"]
    if not isinstance(names, (list, tuple)):
        raise KerncraftError(f"{path}: header field 'extensions' must be a list")
    return expand_extensions(names, f"{path}: extensions")


def _check_extensions(key: str, extensions: frozenset[str] | None, arch: str,
                      where: str) -> None:
    """A file's own form must be one its core can execute."""
    if extensions is None:
        return
    missing = form_extensions(extensions_isa(extensions), key) - extensions
    if missing:
        raise KerncraftError(f"{where}: " + describe_missing(
            key, arch, missing, "drop the form or name the extension under 'extensions'"))


def _optional_int(header: Mapping[str, Any], key: str) -> int | None:
    return None if header.get(key) is None else int(header[key])


def _line_split(table: Any, ports: tuple[str, ...], path: Path, inherited: tuple = ()
                ) -> tuple:
    """The ``line_split`` cost table (already decoded when inherited via ``extends``).
    A file's own table replaces the inherited costs per kind and register class only: a
    calibration file writes just the costs its host measured differently, and the
    prior's others must stay."""
    from kerncraft.incore.linesplit import costs_from_table

    if isinstance(table, tuple):
        return table
    try:
        own = costs_from_table(table, ports, "line_split")
    except (TypeError, KeyError, ValueError) as exc:
        raise KerncraftError(f"{path}: {exc}") from None
    replaced = {(c.kind, c.vector_bytes) for c in own}
    return own + tuple(c for c in inherited if (c.kind, c.vector_bytes) not in replaced)
