"""Static bound against the cycle-level simulation for every recorded loop.

    python benchmarks/simulator_vs_static.py [--markdown]

Loops: the assembly files of ``tests/data`` (paper kernels re-typed from the seeds,
compiler output of the bundled kernels, memory-dependency cases), each with the
database of its file name (``_csx``/``_skx``/``_spr``/``_tx2``; SKX otherwise), unknown
forms counted as zero. Prints per loop the static prediction max(TP, LCD, front end),
the simulated cycles per assembly iteration, the binding resource the simulation
names, and the measurement where a seed paper gives one (column ``measured``,
cycles per assembly iteration; sources in ``MEASURED``).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from kerncraft.errors import KerncraftError
from kerncraft.incore.analysis import analyze_text, load_model
from kerncraft.incore.bottleneck_sim import simulate

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
DIRS = ("asm_papers", "asm", "asm_memdeps", "asm_aarch64")

#: Measured cycles per assembly iteration given by the seed papers for these loops.
MEASURED = {
    "gs_armflang_tx2.s": (18.37, "seed 000 Table 4.8"),
    "pi_o1_skx.s": (9.02, "seed 001 Table V"),
    "pi_o2_skx.s": (4.00, "seed 001 Table VII"),
}


def arch_of(name: str) -> str:
    for key in ("csx", "skx", "spr", "tx2", "icx"):
        if f"_{key}" in name:
            return key.upper()
    return "TX2" if "aarch64" in name else "SKX"


def rows() -> list[tuple]:
    out = []
    for sub in DIRS:
        for path in sorted((DATA / sub).glob("*.s")):
            arch = arch_of(path.name if sub != "asm_aarch64" else path.name + "aarch64")
            try:
                analysis = analyze_text(path.read_text(), arch, filename=path.name,
                                        ignore_unknown=True)
            except KerncraftError as exc:
                out.append((f"{sub}/{path.name}", arch, None, None, str(exc)[:40], None, 0.0))
                continue
            t0 = time.perf_counter()
            result = simulate(analysis, load_model(arch))
            dt = time.perf_counter() - t0
            measured = MEASURED.get(path.name, (None, ""))[0]
            out.append((f"{sub}/{path.name}", arch, analysis.prediction,
                        result.cycles_per_iteration, result.binding.resource, measured, dt))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = ap.parse_args()
    table = rows()
    if args.markdown:
        print("| loop | db | static | simulated | binding | measured | sim time |")
        print("|---|---|---|---|---|---|---|")
    for loop, arch, static, simulated, binding, measured, dt in table:
        cells = [loop, arch, "-" if static is None else f"{static:.2f}",
                 "-" if simulated is None else f"{simulated:.2f}", binding,
                 "" if measured is None else f"{measured:.2f}", f"{dt:.2f} s"]
        print("| " + " | ".join(cells) + " |" if args.markdown else "  ".join(cells))


if __name__ == "__main__":
    main()
