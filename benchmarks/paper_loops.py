#!/usr/bin/env python3
"""Score the in-core analyzer on the 51 measured loops of the OSACA thesis (Table B.1).

For every loop of ``benchmarks/data/paper_loops.json`` (kernel x architecture x
compiler, with the measured cycles per assembly iteration and the published OSACA /
IACA predictions) the marked assembly file of RRZE-HPC/OSACA's ``examples/`` is
analysed with the product's API, as ``kerncraft-incore --arch ARCH [--simulate]`` does:

* *static*: :func:`kerncraft.incore.analysis.analyze_text` (markers found by
  :mod:`kerncraft.incore.markers`), prediction = ``result.prediction`` =
  max(TP, LCD, front end) cycles per assembly iteration; line splits of vector
  accesses with the CLI's default ``--alignment 64``;
* *simulated*: :func:`kerncraft.incore.bottleneck_sim.simulate` on that analysis
  (the ``--simulate`` engine);
* *static, alignment unknown*: the static prediction with ``--alignment none``
  (uniform start addresses; a diagnostic column, not scored as an engine);
* *OSACA* (published): max(TP, LCD) of the thesis; *IACA* (published, CSX only):
  its block throughput.

error = (prediction - measured) / measured. Summaries per engine and per
architecture: MAPE, median |error|, share within 10 %, Kendall tau-b of prediction
vs measurement, and the loops worse than 30 %.

The assembly files are AGPL and are not part of this repository; fetch them to a
directory outside the repository (one file per ``file`` entry of the JSON, the
marked region suffices) and pass it with ``--examples``.

Usage::

    python benchmarks/paper_loops.py --examples /tmp/osaca-examples [--write]
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = ROOT / "benchmarks" / "data" / "paper_loops.json"
OUTPUT = ROOT / "benchmarks" / "RESULTS-paper-loops.md"
ANALYSIS = ROOT / "benchmarks" / "paper_loops_analysis.md"
ARCHES = ("TX2", "CSX", "ZEN")


@dataclass
class Loop:
    """One row of Table B.1 and what the engines predict for it."""

    kernel: str
    arch: str
    compiler: str
    file: str
    unroll: int
    simd: int
    measured: float
    osaca: float                       # published max(TP, LCD)
    iaca: float | None                 # published block throughput (CSX)
    tp: float = math.nan
    cp: float = math.nan
    lcd: float = math.nan
    fe: float = math.nan
    static: float = math.nan
    simulated: float = math.nan
    static_unaligned: float = math.nan
    bound: str = ""
    bottleneck: str = ""
    error_text: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.kernel} {self.arch} {self.compiler}"


def err(pred: float | None, meas: float) -> float:
    """Signed relative error in percent (nan when there is no prediction)."""
    if pred is None or math.isnan(pred):
        return math.nan
    return 100.0 * (pred - meas) / meas


ENGINES: dict[str, Callable[[Loop], float | None]] = {
    "static (max TP, LCD, FE)": lambda lp: lp.static,
    "simulation": lambda lp: lp.simulated,
    "OSACA (published)": lambda lp: lp.osaca,
    "IACA block TP (published)": lambda lp: lp.iaca,
}


def load_loops(path: Path) -> list[Loop]:
    doc = json.loads(path.read_text())
    loops = []
    for row in doc["loops"]:
        osaca = row["osaca"]
        loops.append(Loop(
            kernel=row["kernel"], arch=row["arch"], compiler=row["compiler"],
            file=row["file"], unroll=row["unroll"], simd=row["simd"],
            measured=row["measured_cy_per_asm_it"],
            osaca=max(osaca["tp"], osaca["lcd"]), iaca=row["iaca"]["block_tp"]))
    return loops


def analyse(loop: Loop, examples: Path, models: dict, simulate_too: bool) -> None:
    """Fill the static (and simulated) prediction of one loop."""
    from kerncraft.incore.analysis import analyze_text, load_model
    from kerncraft.incore.bottleneck_sim import simulate

    model = models.get(loop.arch)
    if model is None:
        model = models[loop.arch] = load_model(loop.arch)
    path = examples / loop.file
    try:
        text = path.read_text()
        res = analyze_text(text, loop.arch, filename=str(path), model=model,
                           split_alignment=64)
    except Exception as exc:  # noqa: BLE001 - keep scoring the other loops
        loop.error_text = f"{type(exc).__name__}: {exc}"
        return
    loop.tp, loop.cp, loop.lcd = res.throughput, res.critical_path, res.lcd
    loop.fe = res.frontend if res.frontend is not None else math.nan
    loop.static = res.prediction
    bounds = {"TP": loop.tp, "LCD": loop.lcd, "FE": 0.0 if math.isnan(loop.fe) else loop.fe}
    loop.bound = max(bounds, key=lambda k: bounds[k])
    loop.bottleneck = ",".join(res.bottleneck_ports) if loop.bound == "TP" else ""
    loop.notes = [n for n in res.notes if "store" in n or "memory" in n][:1]
    loop.static_unaligned = analyze_text(text, loop.arch, filename=str(path), model=model,
                                         split_alignment=0).prediction
    if simulate_too:
        loop.simulated = simulate(res, model).cycles_per_iteration


# ---------------------------------------------------------------------- statistics
def kendall_tau(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Kendall's tau-b (ties in either variable handled)."""
    n = len(xs)
    conc = disc = tx = ty = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                conc += 1
            else:
                disc += 1
    denom = math.sqrt((conc + disc + tx) * (conc + disc + ty))
    return (conc - disc) / denom if denom else math.nan


@dataclass(frozen=True)
class Summary:
    n: int
    mape: float
    median: float
    within10: float
    tau: float
    worst: tuple[str, ...]


def summarise(loops: Iterable[Loop], engine: Callable[[Loop], float | None]) -> Summary | None:
    pairs = [(lp, engine(lp)) for lp in loops]
    pairs = [(lp, p) for lp, p in pairs if p is not None and not math.isnan(p)]
    if not pairs:
        return None
    errs = [abs(err(p, lp.measured)) for lp, p in pairs]
    worst = tuple(f"{lp.label} ({err(p, lp.measured):+.0f} %)"
                  for lp, p in sorted(pairs, key=lambda q: -abs(err(q[1], q[0].measured)))
                  if abs(err(p, lp.measured)) > 30)
    return Summary(len(pairs), statistics.mean(errs), statistics.median(errs),
                   100.0 * sum(e <= 10 for e in errs) / len(errs),
                   kendall_tau([p for _, p in pairs], [lp.measured for lp, _ in pairs]), worst)


# ---------------------------------------------------------------------- report
def fmt(x: float | None, nd: int = 2) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:.{nd}f}"


def fmt_err(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:+.0f}"


def loop_table(loops: Sequence[Loop]) -> list[str]:
    out = ["| kernel | arch | compiler | unroll x SIMD | measured | TP | LCD | FE | static "
           "| err % | simulated | err % | OSACA | err % | static, align. unknown | bound "
           "(ports) |",
           "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for lp in loops:
        if lp.error_text:
            out.append(f"| {lp.kernel} | {lp.arch} | {lp.compiler} | {lp.unroll} x {lp.simd} "
                       f"| {lp.measured:.2f} | failed: {lp.error_text} |" + " |" * 12)
            continue
        bound = lp.bound + (f" ({lp.bottleneck})" if lp.bottleneck else "")
        out.append(
            f"| {lp.kernel} | {lp.arch} | {lp.compiler} | {lp.unroll} x {lp.simd} "
            f"| {lp.measured:.2f} | {fmt(lp.tp)} | {fmt(lp.lcd)} | {fmt(lp.fe)} "
            f"| **{fmt(lp.static)}** | **{fmt_err(err(lp.static, lp.measured))}** "
            f"| {fmt(lp.simulated)} | {fmt_err(err(lp.simulated, lp.measured))} "
            f"| {fmt(lp.osaca)} | {fmt_err(err(lp.osaca, lp.measured))} "
            f"| {fmt(lp.static_unaligned)} ({fmt_err(err(lp.static_unaligned, lp.measured))}) "
            f"| {bound} |")
    return out


def summary_table(loops: Sequence[Loop]) -> list[str]:
    out = ["| engine | arch | loops | MAPE | median abs. error | within 10 % | Kendall tau |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for name, engine in ENGINES.items():
        for arch in ("all", *ARCHES):
            sel = [lp for lp in loops if arch in ("all", lp.arch)]
            s = summarise(sel, engine)
            if s is None:
                continue
            out.append(f"| {name} | {arch} | {s.n} | {s.mape:.1f} % | {s.median:.1f} % "
                       f"| {s.within10:.0f} % | {s.tau:.2f} |")
    return out


def worst_list(loops: Sequence[Loop]) -> list[str]:
    out = []
    for name, engine in ENGINES.items():
        s = summarise(loops, engine)
        if s is not None:
            out.append(f"* {name}: " + ("; ".join(s.worst) if s.worst else "none"))
    return out


def write_report(loops: Sequence[Loop], examples: Path, elapsed: float) -> str:
    lines = [
        "# In-core analyzer on the 51 measured loops of the OSACA thesis", "",
        f"Generated by `python benchmarks/paper_loops.py --examples {examples} --write` "
        f"({time.strftime('%Y-%m-%d %H:%M')}, {elapsed:.0f} s).", "",
        "* Loops and measurements: J. Laukemann's OSACA master thesis, Table B.1 "
        "(checked against Tables 4.1-4.9), transcribed to `benchmarks/data/paper_loops.json` "
        "(measured cycles per assembly iteration on Marvell ThunderX2 = `TX2`, Cascade Lake X "
        "= `CSX`, AMD Zen 1 = `ZEN`).",
        "* Assembly: the marked files of RRZE-HPC/OSACA `examples/<kernel>/` (not in this "
        "repository, AGPL); the marked region is what is analysed.",
        "* *static*: `analyze_text` (= `kerncraft-incore --arch ARCH FILE`), prediction = "
        "max(TP, LCD, FE) cy per assembly iteration, line splits with the default "
        "`--alignment 64`; *simulated*: the `--simulate` engine on the same analysis; "
        "*static, align. unknown*: `--alignment none` (diagnostic); *OSACA*: max(TP, LCD) "
        "as published; *IACA*: published block throughput (CSX only).",
        "* error = (prediction - measured) / measured; *bound*: the static term that "
        "decides (ports at their limit for TP).", "",
        *loop_table(loops), "",
        "## Summary", "",
        *summary_table(loops), "",
        "Loops worse than 30 %:", "", *worst_list(loops), ""]
    if ANALYSIS.exists():
        lines += ["", ANALYSIS.read_text(encoding="utf-8").rstrip(), ""]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Score kerncraft's in-core analyzer (static bound and simulation) on the "
                    "51 measured loops of the OSACA thesis (Table B.1).",
        epilog="The assembly files (RRZE-HPC/OSACA examples/<kernel>/<file>, AGPL) must be "
               "fetched to a directory outside the repository first.")
    ap.add_argument("--examples", type=Path, required=True,
                    help="directory with the OSACA example files named as the 'file' "
                         "entries of the JSON (e.g. add.s.tx2.gcc.s)")
    ap.add_argument("--data", type=Path, default=DATA,
                    help=f"loop table (default {DATA.relative_to(ROOT)})")
    ap.add_argument("--write", action="store_true",
                    help=f"write the report to {OUTPUT.relative_to(ROOT)} (else print it)")
    ap.add_argument("--output", type=Path, default=OUTPUT, help="report path for --write")
    ap.add_argument("--no-simulate", dest="simulate", action="store_false",
                    help="skip the cycle-level simulation (static bound only)")
    ap.add_argument("--only", nargs="*", metavar="WORD",
                    help="only loops whose kernel, arch, compiler or file contains a WORD")
    args = ap.parse_args(argv)

    loops = load_loops(args.data)
    if args.only:
        words = [w.lower() for w in args.only]
        loops = [lp for lp in loops
                 if any(w in f"{lp.label} {lp.file}".lower() for w in words)]
    start = time.time()
    models: dict = {}
    for lp in loops:
        analyse(lp, args.examples, models, args.simulate)
        print(f"{lp.file:30s} meas {lp.measured:7.2f} static {fmt(lp.static):>7s} "
              f"({fmt_err(err(lp.static, lp.measured)):>4s} %) sim {fmt(lp.simulated):>7s} "
              f"OSACA {lp.osaca:6.2f}" + (f"  {lp.error_text}" if lp.error_text else ""),
              file=sys.stderr, flush=True)
    report = write_report(loops, args.examples, time.time() - start)
    if args.write:
        args.output.write_text(report)
        print(f"written to {args.output}", file=sys.stderr)
    else:
        print(report)
    return 1 if any(lp.error_text for lp in loops) else 0


if __name__ == "__main__":
    sys.exit(main())
