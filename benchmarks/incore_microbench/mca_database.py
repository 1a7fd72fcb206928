#!/usr/bin/env python3
"""Draft a port-model database from llvm-mca's scheduling model (issue 12, item 1).

For a database name (its compiler target must be in ``kerncraft.dbtools.coverage.ARCH_TARGETS``),
an llvm-mca ``-mcpu``, a mapping of llvm-mca resource names to our port names and the
compiler flags of ``ARCH_TARGETS``/``ARCH_EXTRA_FLAGS``: compiles the bundled kernels
(``kernels/*.c``, -O1 ... -Ofast, as ``kerncraft-incore --db-check`` does), runs llvm-mca on
the loop block of every compilation (:func:`mca_forms.mca_table`) and prints a draft YAML
``instruction_groups`` list in our form-key syntax, every group with an ``[M]`` source that
names the llvm-mca version and ``-mcpu``.

* x86: memory-source arithmetic forms are emitted as their *register* form (the loader
  composes the memory form: register form + one load); llvm-mca is run again on the
  instruction with the memory operand replaced by a register of the same class, so the
  latency is the arithmetic one. Pure loads, stores and broadcasts from memory get explicit
  ``load`` / ``store`` entries (their latency comes from the header's ``load_latency``).
* AArch64: every memory form is explicit (``ldp`` = two loads, ``st1 {v0, v1}`` = two
  stores); ``load_lat`` carries llvm-mca's load latency.

The draft is never loaded by the product: copy what holds up into
``kerncraft/incore/databases/NAME.yml`` and correct it by published facts, saying so in
the group's source. Usage::

    python benchmarks/incore_microbench/mca_database.py ZEN4 > /tmp/zen4-draft.yml
    python benchmarks/incore_microbench/mca_database.py N1 --mcpu neoverse-n1 --mca llvm-mca-16
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mca_forms import mca_table  # noqa: E402

from kerncraft.dbtools.coverage import kernel_loop_instructions  # noqa: E402

_ZEN = {"ALU0": "ALU0", "ALU1": "ALU1", "ALU2": "ALU2", "ALU3": "ALU3", "BRU1": "ALU1",
        "AGU0": "mem", "AGU1": "mem", "AGU2": "mem", "LSU": "mem", "Load": "mem",
        "Store": "mem", "FPSt": "mem", "FP45": "mem", "FPP45": "mem",
        "FP0": "FP0", "FP1": "FP1", "FP2": "FP2", "FP3": "FP3",
        "FPP0": "FP0", "FPP1": "FP1", "FPP2": "FP2", "FPP3": "FP3",
        "Divider": "IDIV", "FPFDiv": "FDIV", "FPFDiv0": "FDIV"}
#: name -> (isa, llvm-mca -mcpu, -march, -mattr, llvm resource prefix, resource -> our port).
#: "mem" marks llvm's load/store resources: our entries use the load/store placeholders.
PRESETS: dict[str, tuple[str, str, str, str, str, dict[str, str]]] = {
    "ZEN3": ("x86", "znver3", "x86-64", "", "Zn3", _ZEN),
    "ZEN4": ("x86", "znver4", "x86-64", "", "Zn4", _ZEN),
    # llvm-mca-16 has no Neoverse N1 model (-mcpu=neoverse-n1 uses the Cortex-A57 one)
    "N1": ("aarch64", "neoverse-n1", "aarch64", "", "A57Unit",
           {"B": "B", "I": "S", "M": "M", "L": "mem", "S": "mem", "W": "V", "X": "V"}),
    # llvm-mca-16 models Neoverse V2 with the Neoverse N2 scheduling model
    "V2": ("aarch64", "neoverse-v2", "aarch64", "+sve2", "N2Unit",
           {"B": "B", "S": "S", "M0": "M0", "M1": "M1", "M": "M", "V0": "V0", "V1": "V1",
            "V": "V", "L01": "mem", "L2": "mem", "D": "mem"}),
}
_X86_MOVES = re.compile(r"^(v?(p?broadcast|movddup|mov|lddqu|extract)|lea|nop|prefetch)")
_X86_READ_ONLY = re.compile(r"^(v?u?comis|cmp|test|bt|v?ptest)")
_A64_LOADS = re.compile(r"^(ld|prf)")
_A64_STORES = re.compile(r"^st")
_X86_MEM = re.compile(r"(?:[-\w.+$@]*\(%[^)]*\)|[-\w.+$@]+\(%rip\))(?:\{1to\d+\})?")


def mca_version(mca: str) -> str:
    out = subprocess.run([mca, "--version"], capture_output=True, text=True).stdout
    found = re.search(r"LLVM version (\S+)", out)
    return found.group(1) if found else "?"


def _register_variant(ins) -> tuple[str, str] | None:
    """(text, form key) of an x86 memory-source instruction with the memory operand
    replaced by a register of the class the loader would compose it from."""
    types = [op.type for op in ins.operands]
    if "mem" not in types or (types.index("mem") == len(types) - 1
                               and not _X86_READ_ONLY.match(ins.mnemonic)):
        return None
    regs = [t for t in types if t not in ("mem", "imm", "lbl")]
    cls = regs[0] if regs else {"q": "r64", "l": "r32", "w": "r16", "b": "r8"}.get(
        ins.mnemonic[-1], "r64")
    reg = {"xmm": "%xmm15", "ymm": "%ymm15", "zmm": "%zmm15", "r64": "%r11", "r32": "%r11d",
           "r16": "%r11w", "r8": "%r11b", "k": "%k7"}.get(cls)
    text = ins.text.split("#")[0]
    if reg is None or len(_X86_MEM.findall(text)) != 1:
        return None
    key = f"{ins.mnemonic} " + ",".join(cls if t == "mem" else t for t in types)
    return _X86_MEM.sub(reg, text), key


def _accesses(ins) -> int:
    return max(1, sum(1 for op in ins.operands if op.type not in ("mem", "imm", "lbl", "p")))


def _uops(row: dict, ports: dict[str, str], prefix: str, loads: int, stores: int) -> list:
    mapped: dict[str, float] = defaultdict(float)
    for res, cycles in row["pressure"].items():
        port = ports.get(res[len(prefix):] if res.startswith(prefix) else res, res)
        if port != "mem":
            mapped[port] += cycles
    uops: list = ["load"] * loads + ["store"] * stores
    total = sum(mapped.values())
    if total > 0.05:
        n = max(1, row["uops"] - loads - stores)
        cyc = round(total / n, 2)
        names = sorted(mapped)
        uops += [names if abs(cyc - 1) < 0.05 else {"ports": names, "cycles": cyc}] * n
    return uops


def _fmt(uops: list) -> str:
    parts = []
    for u in uops:
        if isinstance(u, str):
            parts.append(u)
        elif isinstance(u, dict):
            parts.append(f"{{ports: [{', '.join(u['ports'])}], cycles: {u['cycles']}}}")
        else:
            parts.append(f"[{', '.join(u)}]")
    return f"[{', '.join(parts)}]"


def draft(name: str, mcpu: str | None = None, mca: str = "llvm-mca-16",
          opt_levels=("-O1", "-O2", "-O3", "-Ofast"), ports: dict | None = None) -> str:
    isa, default_cpu, march, mattr, prefix, preset = PRESETS[name.upper()]
    mcpu, ports = mcpu or default_cpu, ports or preset
    loops, done, note = kernel_loop_instructions(SimpleNamespace(isa=isa), name, None, opt_levels)
    if not done:
        raise SystemExit(f"no compilations: {note}")
    # form key -> list of (row, kernel); register variants of x86 memory forms
    seen: dict[str, list] = defaultdict(list)
    variants: dict[str, str] = {}
    for path, opt, instrs in loops:
        instrs = [i for i in instrs if i.text.strip()]
        if not instrs:
            continue
        try:
            rows = mca_table([i.text for i in instrs], mcpu, march, mattr, mca)
        except RuntimeError as exc:   # e.g. a form llvm-mca does not know: say so, go on
            print(f"# {path.stem} {opt}: llvm-mca failed: {exc}", file=sys.stderr)
            continue
        for ins, row in zip(instrs, rows):
            seen[ins.form_key].append((ins, row, path.stem))
            var = _register_variant(ins) if isa == "x86" else None
            if var and not _X86_MOVES.match(ins.mnemonic):
                variants.setdefault(var[1], var[0])
    reg_rows = {}
    for key, text in variants.items():   # one run each: a variant llvm-mca rejects is skipped
        try:
            reg_rows[key] = mca_table([text], mcpu, march, mattr, mca)[0]
        except (RuntimeError, IndexError) as exc:
            print(f"# register variant {text!r}: {exc}", file=sys.stderr)
    version, entries = mca_version(mca), {}
    for key, obs in seen.items():
        ins, row, _ = max(obs, key=lambda o: sum(o[1]["pressure"].values()))
        kernels = sorted({o[2] for o in obs})
        if isa == "x86" and "mem" in key and not _X86_MOVES.match(ins.mnemonic):
            var = _register_variant(ins)
            if var is None or var[1] not in reg_rows:
                entries[key] = ("{uops: [load]}", row, kernels, "no register variant: check by hand")
                continue
            key, row = var[1], reg_rows[var[1]]
        loads = stores = 0
        if isa == "x86":
            loads, stores = int(row["load"]), int(row["store"])
        elif _A64_LOADS.match(ins.mnemonic) and "mem" in key:
            loads = _accesses(ins)
        elif _A64_STORES.match(ins.mnemonic) and "mem" in key:
            stores = _accesses(ins)
        uops = _uops(row, ports, prefix, loads, stores)
        if not uops:    # only llvm resources we map to the placeholders: say so
            entries.setdefault(key, ("{uops: [[]]}", row, kernels,
                                     f"llvm uses {sorted(row['pressure'])}: check by hand"))
            continue
        lat = 0 if (loads or stores) else row["lat"]
        extra = f", load_lat: {row['lat']}" if isa != "x86" and loads else ""
        entries.setdefault(key, (f"{{uops: {_fmt(uops)}, lat: {lat}, tp: {row['rtp']}{extra}}}",
                                 row, kernels, f"llvm lat {row['lat']}"))
    src = (f"[M] llvm-mca {version} -mcpu={mcpu}{' -mattr=' + mattr if mattr else ''}: "
           f"drafted by benchmarks/incore_microbench/mca_database.py from the bundled kernels "
           f"({done} compilations)")
    out = [f"# draft for {name.upper()}: {len(entries)} forms", "instruction_groups:",
           f'- source: "{src}"', "  forms:"]
    for key in sorted(entries):
        spec, _, kernels, why = entries[key]
        out.append(f'    "{key}": {spec}   # {why}; {", ".join(kernels[:4])}')
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="database name with a preset: " + ", ".join(PRESETS))
    parser.add_argument("--mcpu", help="llvm-mca -mcpu (default: the preset's)")
    parser.add_argument("--mca", default="llvm-mca-16", help="llvm-mca binary")
    parser.add_argument("--opt", action="append", help="optimisation levels (default -O1..-Ofast)")
    args = parser.parse_args(argv)
    sys.stdout.write(draft(args.name, args.mcpu, args.mca,
                           tuple(args.opt or ("-O1", "-O2", "-O3", "-Ofast"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
