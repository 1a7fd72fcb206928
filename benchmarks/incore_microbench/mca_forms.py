#!/usr/bin/env python3
"""Draft port-model entries from llvm-mca's scheduling model (issue 12, item 1).

Compiles every bundled kernel for a machine file (its compiler and flags, the cross
compiler for AArch64 files), takes every innermost loop of the assembly, runs
``llvm-mca --instruction-info --resource-pressure`` on it and prints, per form key of
our parser, the latency, llvm-mca's reciprocal throughput and the resources it used.
The output is a starting point for a database's ``[M]`` groups, to be checked against
published facts by hand; it is never loaded by the product::

    python benchmarks/incore_microbench/mca_forms.py \\
        ../shared/reference/kerncraft-machine-files/A64FX_qpace4.yml --mcpu a64fx --mattr +sve
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from kerncraft.compilation.compiler import compile_kernel  # noqa: E402
from kerncraft.incore.aarch64 import parse_aarch64, dataflow as a64_dataflow  # noqa: E402
from kerncraft.incore.markers import find_loops  # noqa: E402
from kerncraft.incore.x86.parser import parse_x86  # noqa: E402
from kerncraft.kernel.parser import parse_kernel  # noqa: E402
from kerncraft.machine.loader import load_machine  # noqa: E402

_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([\d.]+)\s")
_RESOURCE = re.compile(r"^\[(\d+(?:\.\d+)?)\]\s+-\s+(\S+)", re.M)


def loop_texts(machine_path: str) -> list[tuple[str, list]]:
    """(kernel name, innermost-loop instructions) for every bundled kernel."""
    machine = load_machine(machine_path)
    aarch64 = str(machine.isa or "").lower() == "aarch64"
    out = []
    for path in sorted((ROOT / "kernels").glob("*.c")):
        kernel = parse_kernel(path.read_text(), str(path))
        asm = compile_kernel(kernel, machine).assembly
        lines = parse_aarch64(asm) if aarch64 else parse_x86(asm)
        flow = a64_dataflow if aarch64 else None
        for loop in find_loops(lines, flow):
            if loop.innermost:
                out.append((path.stem, [ln for ln in lines[loop.first:loop.last + 1]
                                        if ln.instruction]))
    return out


def mca_table(texts: list[str], mcpu: str, march: str, mattr: str = "",
              mca: str = "llvm-mca") -> list[dict]:
    """One llvm-mca run over ``texts`` (instruction lines): per instruction a dict with
    ``uops``, ``lat``, ``rtp``, ``load``/``store`` (llvm's MayLoad/MayStore) and
    ``pressure`` {llvm resource name: cycles per instance} (units of a resource with
    several units, ``Zn4Load.0`` ..., are summed under the resource name)."""
    text = "\n".join(t.split("//")[0].strip() for t in texts) + "\n"
    with tempfile.NamedTemporaryFile("w", suffix=".s") as tmp:
        tmp.write(text)
        tmp.flush()
        cmd = [mca, f"-march={march}", f"-mcpu={mcpu}", "--instruction-info",
               "--resource-pressure", "-iterations=200", tmp.name]
        if mattr:
            cmd.insert(3, f"-mattr={mattr}")
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(res.stderr.strip().splitlines()[0] if res.stderr else "llvm-mca failed")
    out = res.stdout.splitlines()
    columns = [name for _, name in _RESOURCE.findall(res.stdout)]
    header = next(l for l in out if l.startswith("[1]    [2]"))
    first = out.index(header) + 1
    c4, c5, c6 = (header.index(c) for c in ("[4]", "[5]", "[6]"))
    info = [m.groups() + ("*" in line[c4:c5], "*" in line[c5:c6])
            for line in out[first:first + len(texts)] if (m := _ROW.match(line))]
    start = out.index("Resource pressure by instruction:") + 2
    rows = []
    for (uops, lat, rtp, may_load, may_store), line in zip(info, out[start:start + len(texts)]):
        pressure: dict[str, float] = defaultdict(float)
        for name, cell in zip(columns, line.split()[:len(columns)]):
            if cell != "-":
                pressure[name] += float(cell)
        rows.append({"uops": int(uops), "lat": int(lat), "rtp": float(rtp),
                     "load": may_load, "store": may_store,
                     "pressure": dict(pressure)})
    return rows


def mca_rows(instr_lines: list, mcpu: str, march: str, mattr: str) -> list[tuple]:
    """(uops, latency, rtp, resources) per instruction, from one llvm-mca run."""
    rows = mca_table([ln.text for ln in instr_lines], mcpu, march, mattr)
    return [(r["uops"], r["lat"], r["rtp"], list(r["pressure"])) for r in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("machine")
    parser.add_argument("--mcpu", required=True)
    parser.add_argument("--march", default="aarch64")
    parser.add_argument("--mattr", default="")
    args = parser.parse_args(argv)
    forms: dict[str, set] = defaultdict(set)
    users: dict[str, set] = defaultdict(set)
    for name, instrs in loop_texts(args.machine):
        rows = mca_rows(instrs, args.mcpu, args.march, args.mattr)
        for ln, (uops, lat, rtp, used) in zip(instrs, rows):
            key = ln.instruction.form_key
            forms[key].add((uops, lat, rtp, tuple(sorted(used))))
            users[key].add(name)
    for key in sorted(forms):
        for uops, lat, rtp, used in sorted(forms[key]):
            print(f'"{key}": uops {uops}, lat {lat}, rtp {rtp}, resources {list(used)}'
                  f'   # {", ".join(sorted(users[key]))}')
    return 0


if __name__ == "__main__":
    sys.exit(main())
