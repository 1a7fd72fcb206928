"""Validation table: ECM prediction against measurement, kernel x memory level.

Run (on the machine the machine file describes; real-time priority makes the
measurements steadier on a shared host, the children inherit it)::

    chrt -f 50 python benchmarks/validation_table.py [-m HOST] [--min-time 0.3]
        [--repeats 5] [--json FILE] [KERNEL ...]

For every bundled kernel of :data:`KERNELS` and every level of :data:`TARGETS`
the sizes are chosen so that the *whole working set* (all arrays) is about the
target footprint: L1 24 kB, L2 320 kB, L3 8 MB, MEM 256 MB, inside the
plateaus of ``benchmarks/host_machine_notes.md`` (L1 8-40 kB, L2 51-813 kB,
L3 2-20 MB per core, memory beyond ~130 MB). Shapes: 1D ``N``; 2D ``M x 8M``;
3D ``M x M x 8M`` (longer inner loops at L1 sizes); matvec ``N x N``; every inner
trip count a multiple of 16 (no vector remainder loop); 1D arrays a multiple of
4 KiB. (That kept the arrays from sitting a few cache lines below each other
modulo 4 KiB -- 4K aliasing of loads with earlier stores, which ECM does not
model; see RESULTS-validation.md. Since the second session the generated
program places its arrays within a page itself, ``kerncraft.codegen.page_offsets``.)

``--remeasure-mem`` first measures the single-core memory bandwidths of the
machine file's benchmark kernels again (built-in streaming kernels, the file's
MEM working set) and adds a column with the ECM prediction for that machine
file, and one with the memory transfer time T_L3MEM alone.

Each point runs ``-p ECM`` (layer conditions, one core) and ``-p Benchmark``
(timing backend unless likwid can read counters; best of ``--repeats`` runs of
at least ``--min-time`` s) and prints measured cy/CL, the ECM prediction, the
relative error ``(ECM - measured) / measured`` and the level ECM's layer
conditions put the data in; then the median and worst absolute error per level.
Results: ``benchmarks/RESULTS-validation.md``.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import kerncraft
from kerncraft.models.benchmark import run_benchmark
from kerncraft.models.compare import predicted_cycles, relative_error
from kerncraft.models.ecm import ecm_model

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ("copy", "add", "update", "daxpy", "triad", "striad", "sum_reduction",
           "scalar_product", "2d-5pt", "3d-7pt", "3d-27pt", "matvec")
#: Target working set (all arrays) per level, bytes.
TARGETS = {"L1": 24 * 1024, "L2": 320 * 1024, "L3": 8 * 1024 ** 2, "MEM": 256 * 1024 ** 2}


def _inner(n: float, halo: int = 0) -> int:
    """``n`` rounded to a multiple of 16 inner iterations (two AVX-512 vectors of
    doubles: no remainder loop), plus the stencil's ``halo`` points."""
    return max(16, 16 * round((n - halo) / 16)) + halo


def defines(kernel, footprint: int) -> dict[str, int]:
    """Sizes that make the kernel's arrays about ``footprint`` bytes in total."""
    arrays = [a for a in kernel.arrays.values() if not a.is_scalar]
    dims = max(len(a.dimensions) for a in arrays)
    names = set(kernel.constant_names)
    halo = 2 if kernel.loops[-1].start != 0 else 0
    if names == {"N"}:          # 1D: k arrays of N doubles, N a multiple of 512 (4 KiB)
        return {"N": max(512, 512 * int(footprint / (8 * len(arrays)) / 512))}
    if names == {"M", "N"} and any(a.name == "A" for a in arrays):    # matvec: N x N
        n = _inner(math.sqrt(footprint / 8))
        return {"M": n, "N": n}
    big = [a for a in arrays if len(a.dimensions) == dims]
    if dims == 2:                                       # M x 8M
        m = max(5, round(math.sqrt(footprint / (8 * len(big) * 8))))
        return {"M": m, "N": _inner(8 * m, halo)}
    m = max(5, round((footprint / (8 * len(big) * 8)) ** (1 / 3)))  # 3D: M x M x 8M
    return {"L": m, "M": m, "N": _inner(8 * m, halo)}


def footprint_bytes(kernel) -> int:
    return int(sum(a.total_bytes() for a in kernel.arrays.values() if not a.is_scalar))


def _format_size(n: float) -> str:
    for unit, scale in (("MB", 1024 ** 2), ("kB", 1024)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"


def remeasured_memory(machine):
    """``machine`` with today's single-core MEM bandwidths (and the values)."""
    import dataclasses

    from kerncraft.bench.streams import measure_builtin

    patched, values = [], {}
    for entry in machine.measurements:
        if entry.level != "MEM" or 1 not in entry.cores:
            patched.append(entry)
            continue
        index = entry.cores.index(1)
        size = int(entry.size_per_core[index]) if entry.size_per_core else 256 * 1024 ** 2
        results = dict(entry.results)
        for kernel in results:
            bandwidth = measure_builtin(kernel, size, 1, repeats=3).bandwidth
            values[kernel] = (results[kernel][index], bandwidth)
            results[kernel] = tuple(bandwidth if i == index else v
                                    for i, v in enumerate(results[kernel]))
        patched.append(dataclasses.replace(entry, results=results))
    return dataclasses.replace(machine, measurements=tuple(patched)), values


def _ecm_level(data) -> str:
    """The level ECM's layer conditions serve the data from (last link with traffic)."""
    links = [link for link in data["links"] if link["loads_cl"] + link["stores_cl"] > 0]
    return links[-1]["link"].split("-")[-1] if links else "L1"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kernels", nargs="*", default=list(KERNELS))
    parser.add_argument("-m", "--machine", default="HOST")
    parser.add_argument("--levels", nargs="*", default=list(TARGETS))
    parser.add_argument("--min-time", type=float, default=0.3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", default=None)
    parser.add_argument("--remeasure-mem", action="store_true")
    opts = parser.parse_args(argv)
    machine = kerncraft.load_machine(opts.machine)
    remeasured, bandwidths = (remeasured_memory(machine) if opts.remeasure_mem
                              else (None, {}))
    args = argparse.Namespace(cores=1, unit=None, verbose=0, cache_predictor="LC",
                              compiler=None, compiler_flags=None, incore_model="kerncraft",
                              asm_block="auto", pointer_increment="auto", ignore_unknown=False)
    rows = []
    extra = " ECM, MEM bw now | error | T_L3MEM now |" if remeasured else ""
    print(f"| kernel | level | -D | working set | ECM data from | measured cy/CL | "
          f"ECM cy/CL | error |{extra}")
    print("|---|---|---|---:|---|---:|---:|---:|" + ("---:|---:|---:|" if remeasured else ""))
    started = time.time()
    for name in opts.kernels:
        path = ROOT / "kernels" / f"{name}.c"
        kernel = kerncraft.parse_kernel(path.read_text(), filename=str(path))
        for level in opts.levels:
            values = defines(kernel, TARGETS[level])
            bound = kernel.bind(values)
            ecm = ecm_model(bound, machine, args)
            predicted = predicted_cycles("ECM", ecm.data, 1)
            result = run_benchmark(bound, machine, min_time=opts.min_time, repeats=opts.repeats)
            measured = result.cycles_per_cl
            error = relative_error(predicted, measured)
            row = {"kernel": name, "level": level, "defines": values,
                   "working_set": footprint_bytes(bound), "ecm_level": _ecm_level(ecm.data),
                   "measured": measured, "ecm": predicted, "error": error,
                   "ecm_terms": ecm.data["predictions"], "T_OL": ecm.data["T_OL"],
                   "T_nOL": ecm.data["T_nOL"], "backend": result.backend,
                   "clock_hz": result.clock_hz, "seconds": result.seconds,
                   "repetitions": result.repetitions,
                   "incore_arch": ecm.data["incore"].get("arch")}
            columns = ""
            if remeasured is not None:
                now = ecm_model(bound, remeasured, args).data
                row["ecm_mem_now"] = predicted_cycles("ECM", now, 1)
                row["error_mem_now"] = relative_error(row["ecm_mem_now"], measured)
                row["T_L3MEM_now"] = now["links"][-1]["cycles_per_cl"]
                columns = (f" {row['ecm_mem_now']:.2f} | {100 * row['error_mem_now']:+.1f} % | "
                           f"{row['T_L3MEM_now']:.2f} |")
            rows.append(row)
            sizes = " ".join(f"{k}={v}" for k, v in sorted(values.items()))
            print(f"| {name} | {level} | {sizes} | {_format_size(row['working_set'])} | "
                  f"{row['ecm_level']} | {measured:.2f} | {predicted:.2f} | "
                  f"{100 * error:+.1f} % |{columns}", flush=True)
    print()
    variants = [("error", "ECM")] + ([("error_mem_now", "ECM, MEM bw now")] if remeasured else [])
    print("| level | points | prediction | median abs. error | worst error (kernel) |")
    print("|---|---:|---|---:|---|")
    for key, label in variants:
        for level in opts.levels:
            errors = [r for r in rows if r["level"] == level]
            if not errors:
                continue
            worst = max(errors, key=lambda r: abs(r[key]))
            median = statistics.median(abs(r[key]) for r in errors)
            print(f"| {level} | {len(errors)} | {label} | {100 * median:.1f} % | "
                  f"{100 * worst[key]:+.1f} % ({worst['kernel']}) |")
    if rows:
        print(f"\nin-core model {rows[0]['incore_arch']}; {len(rows)} points in "
              f"{time.time() - started:.0f} s; backend {rows[0]['backend']}, clock "
              f"{rows[0]['clock_hz'] / 1e9:.3f} GHz")
    for kernel, (old, new) in bandwidths.items():
        print(f"MEM bandwidth {kernel} (1 core): machine file {old / 1e9:.1f} GB/s, "
              f"now {new / 1e9:.1f} GB/s")
    if opts.json:
        Path(opts.json).write_text(json.dumps({"machine": machine.path, "rows": rows,
                                               "mem_bandwidths": bandwidths}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
