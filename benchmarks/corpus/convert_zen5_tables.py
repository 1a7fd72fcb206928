"""Convert the stored Zen 5 validation tables into recordings of the replay corpus.

``benchmarks/machines/validation-zen5-generated.txt`` and ``validation-zen5-hand.txt``
are the printed reports of two ``kerncraft-validate`` runs on the Zen 5 development VM
(2026-11-24, runs R2 and H2 of ``benchmarks/RESULTS-validation.md``): one row per point
with the -D values, the measured cy/CL (two decimals) and the predictions of that day.
This script turns each into a recording (``kerncraft/validation/corpus.py``) with what
the tables and the RESULTS file say; what they do not say (the clock of every point,
the flags, the kernel version, every round of a steady point) is null or left out, and
``host.json`` says where the rest came from. It never overwrites a recording.

    python benchmarks/corpus/convert_zen5_tables.py [--into benchmarks/corpus]
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

from kerncraft.machine.loader import load_machine
from kerncraft.validation.campaign import (PointMeasurement, Prediction, RunOptions,
                                           ValidationPoint, ValidationResult, best_of_rounds,
                                           resolve_kernel, summarize)
from kerncraft.validation.corpus import reserve_recording, write_recording
from kerncraft.validation.sizes import SizeChoice, level_targets, working_set

ROOT = Path(__file__).resolve().parents[2]
COMMIT = "8d43ae7"          # the commit that stored both tables
RUNS = (  # (table, machine file, recording name, run in RESULTS-validation.md)
    ("benchmarks/machines/validation-zen5-generated.txt",
     "benchmarks/machines/zen5-vm-generated.yml", "amd-epyc-f26m2-2026-11-24-generated-file",
     "R2"),
    ("benchmarks/machines/validation-zen5-hand.txt", "machine-files/ZEN5-VM.yml",
     "amd-epyc-f26m2-2026-11-24-hand-checked-file", "H2"),
)
LEVEL_NAMES = ("L1", "L2", "L3", "MEM")


def _rows(text: str) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 11 and cells[1] in LEVEL_NAMES:
            rows.append(cells)
    return rows


def _rounds(text: str) -> dict[tuple[str, str], list[float]]:
    """Both rounds of the points the 'unsteady host' line lists, in round order."""
    line = next((ln for ln in text.splitlines() if ln.startswith("unsteady host")), "")
    found = re.findall(r"([\w-]+) (L1|L2|L3|MEM) \(([\d. /]+)\)", line)
    return {(k, lvl): [float(v) for v in values.split("/")] for k, lvl, values in found}


def _point(cells: list[str], targets, rounds) -> ValidationPoint:
    kernel, level, defines_text, _, measured, ecm, _, roofline, _, where, _ = cells
    label, parsed = resolve_kernel(kernel)
    defines = {k: int(v) for k, v in (d.split("=") for d in defines_text.split())}
    values = rounds.get((kernel, level), [float(measured)])
    measurement = best_of_rounds([PointMeasurement(v, "timing") for v in values])
    model_level = where.split()[0]
    size = SizeChoice(level, defines, working_set(parsed.bind(defines)), targets[level],
                      model_level, model_level == level, 0)
    return ValidationPoint(label, size, measurement.cycles_per_cl,
                           Prediction(float(ecm), float(roofline), {}), measurement, ())


def _host(table: str, run: str) -> dict:
    return {"vendor": "AuthenticAMD", "family": 26, "model": 2, "stepping": 1,
            "model_name": "AMD EPYC", "flags_summary": None, "flags_count": None,
            "virtual_machine": True, "cpus_online": 2, "cpus_usable": 2,
            "architecture": "x86_64", "kernel": None, "compilers": {"gcc": "gcc 12.2"},
            "compiler_used": "gcc", "date": "2026-11-24",
            "load": {"before": "quiet, nothing else running; both tools under chrt -f 50 "
                               "(RESULTS-validation.md)", "during": None, "after": None},
            "source": f"converted from {table} (stored by commit {COMMIT}; run {run} of "
                      "benchmarks/RESULTS-validation.md, 'AMD Zen 5 EPYC VM, late night of "
                      "2026-11-24') by benchmarks/corpus/convert_zen5_tables.py; host facts "
                      "from that section (KVM, 2 vCPUs, calibrated 4.2-4.5 GHz, gcc 12.2); "
                      "null: not recorded then"}


def convert(table: str, machine_file: str, name: str, run: str, into: Path) -> Path:
    text = (ROOT / table).read_text()
    machine = load_machine(ROOT / machine_file)
    targets = level_targets(machine)
    rounds = _rounds(text)
    points = tuple(_point(cells, targets, rounds) for cells in _rows(text))
    seconds = float(re.search(r"points in (\d+) s", text).group(1))
    result = ValidationResult(points, (), (summarize(points, "ECM"),
                                           summarize(points, "Roofline")),
                              targets, seconds, RunOptions(rounds=2))
    path, note = reserve_recording(into, name)
    if note:
        print(note)
    sources = {p.kernel: resolve_kernel(p.kernel)[1].source for p in points}
    write_recording(path, result, ROOT / machine_file, sources, _host(table, run),
                    {"kerncraft": "0.1.0", "commit": COMMIT})
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--into", type=Path, default=ROOT / "benchmarks" / "corpus")
    opts = parser.parse_args()
    for table, machine_file, name, run in RUNS:
        print(f"{table} -> {convert(table, machine_file, name, run, opts.into)}")


if __name__ == "__main__":
    main()
