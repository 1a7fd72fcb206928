#!/usr/bin/env python3
"""List the instruction forms compilers emit for the bundled kernels.

Compiles every kernel (``kernels/*.c`` or the stand-ins of
``tests/support/kernel_asm.py``) with gcc (and clang if present) at
-O1/-O2/-O3/-Ofast for each -march, parses the assembly and prints every form
with the number of occurrences, whether it occurs in an innermost loop, and the
lookup status in the given databases. Used to build / check the databases::

    python benchmarks/incore_microbench/collect_forms.py --db CSX --db SPR [--all] [--unknown]
"""
from __future__ import annotations

import argparse
import collections
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from support.kernel_asm import compile_source, kernel_sources, wrap_kernel  # noqa: E402

from kerncraft.incore.database import load_database  # noqa: E402
from kerncraft.incore.x86.parser import parse_x86  # noqa: E402

OPT = ("-O1", "-O2", "-O3", "-Ofast")
MARCH = ("cascadelake", "sapphirerapids", "native")


def innermost_loops(lines):
    """Instructions of innermost loops (blocks from a label to a backward jump)."""
    try:
        from kerncraft.incore.markers import extract_kernel
    except ImportError:
        extract_kernel = None
    if extract_kernel is not None:
        try:
            return list(extract_kernel(lines))
        except Exception:  # noqa: BLE001 - fall back to the heuristic below
            pass
    labels = {}
    blocks = []
    for idx, ln in enumerate(lines):
        if ln.label:
            labels[ln.label] = idx
        ins = ln.instruction
        if ins and ins.mnemonic.startswith("j") and ins.operands:
            tgt = getattr(ins.operands[0], "name", None)
            if tgt in labels:
                blocks.append((labels[tgt], idx))
    inner = [b for b in blocks if not any(o != b and b[0] <= o[0] and o[1] <= b[1] for o in blocks)]
    out = []
    for s, e in inner:
        out += [ln.instruction for ln in lines[s:e + 1] if ln.instruction]
    return out


def collect(compilers, marches, extra_flags=()):
    jobs = []
    for name, text in kernel_sources().items():
        src = wrap_kernel(text)
        for cc in compilers:
            for march in marches:
                for opt in OPT:
                    jobs.append((name, cc, (opt, f"-march={march}", *extra_flags), src))

    def run(job):
        name, cc, flags, src = job
        try:
            asm = compile_source(src, cc, flags)
        except Exception as exc:  # noqa: BLE001
            return job, None, str(exc)
        return job, asm, None

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, jobs))
    return results


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", action="append", default=[])
    ap.add_argument("--march", action="append")
    ap.add_argument("--all", action="store_true", help="whole function, not only innermost loops")
    ap.add_argument("--unknown", action="store_true", help="print only forms unknown to some db")
    ap.add_argument("--extra", action="append", default=[], help="extra compiler flag")
    args = ap.parse_args(argv)
    compilers = [c for c in ("gcc", "clang") if shutil.which(c)]
    dbs = {d: load_database(d) for d in args.db}
    forms = collections.Counter()
    inner_forms = set()
    examples = {}
    for (name, cc, flags, _), asm, err in collect(compilers, args.march or MARCH, args.extra):
        if err:
            print(f"# {name} {cc} {flags}: {err.splitlines()[0]}")
            continue
        lines = parse_x86(asm)
        loop = innermost_loops(lines)
        allins = [ln.instruction for ln in lines if ln.instruction]
        for ins in (allins if args.all else loop):
            forms[ins.form_key] += 1
            examples.setdefault(ins.form_key, (ins, f"{name} {cc} {' '.join(flags)}"))
        for ins in loop:
            inner_forms.add(ins.form_key)
    for key, n in sorted(forms.items()):
        ins, where = examples[key]
        status = []
        for d, db in dbs.items():
            status.append(f"{d}:{'ok' if db.lookup(ins) is not None else 'MISSING'}")
        if args.unknown and all(s.endswith("ok") for s in status):
            continue
        loop_mark = "L" if key in inner_forms else " "
        print(f"{n:5d} {loop_mark} {key:40s} {' '.join(status)}   # {ins.text}  [{where}]")


if __name__ == "__main__":
    main()
