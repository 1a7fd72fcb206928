"""Compare the SIM predictor's per-level traffic with a recorded reference.

Run::

    python benchmarks/sim_equivalence.py --record      # write benchmarks/data/sim_reference.json
    python benchmarks/sim_equivalence.py               # compare against it
    python benchmarks/sim_equivalence.py --machine CSX --kernel 2d-5pt   # a subset

Cases: every bundled kernel (``kernels/*.c``) x every bundled machine file
(``machine-files/*.yml``) x three sizes (L1-, L3- and memory-sized) x two
core counts (1: the whole shared cache, and ``cores per group`` of the last
level: the smallest share, whose set count is usually not a multiple of the
level above), plus a few runs with non-temporal stores.

Sizes: every size constant of a kernel gets the same value ``n``, chosen so
that its arrays hold about half the L1 (``L1``), half the last level
(``L3``, of one core) or four times the last level (``MEM``); stencils need a
few points per dimension, so ``n`` is at least 12 (a 3D L1 case then is an
L2 case: said in the case's ``note``).

Compared: ``loads`` and ``stores`` of every level (the traffic, lines per
unit of work; bytes are these times the line size) and the non-temporal
lines. Deviation of a quantity: ``|new - ref| / max(|ref|, 0.01)`` (the floor
keeps a level with almost no traffic from dividing by ~0; 0.01 lines per
unit is 1 % of one line). The other counters (misses, hits, evictions) are
shown but not judged. Exit status 1 if any traffic deviates by more than
``--tolerance`` (default 1 %).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from kerncraft import load_machine
from kerncraft.api import load_kernel
from kerncraft.cache.sim_predictor import predict_traffic_sim
from kerncraft.errors import KerncraftError

ROOT = Path(__file__).resolve().parent.parent

REFERENCE = ROOT / "benchmarks" / "data" / "sim_reference.json"
KERNELS = sorted(p.stem for p in (ROOT / "kernels").glob("*.c"))
MACHINES = sorted(p.stem for p in (ROOT / "machine-files").glob("*.yml"))
MIN_N = 12
FLOOR = 0.01
NONTEMPORAL = (("copy", "a"), ("triad", "a"), ("2d-5pt", "b"))
# the cases of the speed benchmark (benchmarks/bench_sim_speed.py), with their own sizes
EXTRA = tuple(("2d-5pt", "CSX", cores, f"N1000M{m}", {"N": 1000, "M": m}, ())
              for m in (1001, 1002) for cores in (1, 2, 10)) + (
    ("3d-7pt", "CSX", 1, "N500", {"L": 500, "M": 500, "N": 500}, ()),
    ("3d-27pt", "CSX", 1, "N500", {"L": 500, "M": 500, "N": 500}, ()),
    ("2d-5pt", "ZEN5-VM", 1, "N1000M1002", {"N": 1000, "M": 1002}, ()),
    ("matvec_trans", "CSX", 1, "N2000M392", {"N": 2000, "M": 392}, ()))


def _data_bytes(kernel, n: int) -> int:
    bound = kernel.bind({c: n for c in kernel.constant_names})
    return sum(int(a.total_bytes()) for a in bound.arrays.values() if not a.is_scalar)


def size_for(kernel, target_bytes: int) -> int:
    """The largest uniform size ``n >= MIN_N`` whose arrays hold at most ``target_bytes``."""
    lo, hi = MIN_N, MIN_N
    while _data_bytes(kernel, hi) <= target_bytes:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _data_bytes(kernel, mid) <= target_bytes else (lo, mid)
    return lo


def cases(kernels, machines):
    """(kernel, machine, cores, size class, defines, nontemporal) of every case."""
    for mname in machines:
        machine = load_machine(mname)
        levels = machine.cache_levels
        l1 = levels[0].geometry.sets * levels[0].geometry.ways * levels[0].geometry.cl_size
        last = levels[-1].geometry
        llc = last.sets * last.ways * last.cl_size
        core_counts = sorted({1, levels[-1].cores_per_group or 1})
        for kname in kernels:
            kernel = load_kernel(str(ROOT / "kernels" / f"{kname}.c"))
            sizes = {"L1": size_for(kernel, l1 // 2), "L3": size_for(kernel, llc // 2),
                     "MEM": size_for(kernel, 4 * llc)}
            uniform = {cls: {c: n for c in kernel.constant_names} for cls, n in sizes.items()}
            for cores in core_counts:
                for cls in sizes:
                    yield kname, mname, cores, cls, uniform[cls], ()
            for nk, arr in NONTEMPORAL:
                if nk == kname:
                    yield kname, mname, 1, "MEM", uniform["MEM"], (arr,)
    for case in EXTRA:
        if case[0] in kernels and case[1] in machines:
            yield case


def run_case(kname, mname, cores, defines, nontemporal) -> dict:
    kernel = load_kernel(str(ROOT / "kernels" / f"{kname}.c"))
    bound = kernel.bind(defines)
    machine = load_machine(mname)
    t0 = time.process_time()
    try:
        result = predict_traffic_sim(bound, machine, cores=cores, nontemporal=nontemporal)
    except KerncraftError as exc:
        return {"error": str(exc)}
    cpu = time.process_time() - t0
    levels = {lv.level: {"loads": lv.loads, "stores": lv.stores, "misses": lv.misses,
                         "evictions": lv.evictions, "hits": lv.hits,
                         "load_sources": dict(lv.load_sources),
                         "store_targets": dict(lv.store_targets)}
              for lv in result.levels}
    nt = result.nontemporal.lines if result.nontemporal is not None else None
    return {"levels": levels, "nontemporal_lines": nt, "cpu_s": round(cpu, 3),
            "notes": list(result.notes)}


def key(c) -> str:
    kname, mname, cores, cls, defines, nt = c
    sizes = ",".join(f"{k}={v}" for k, v in sorted(defines.items()))
    return f"{kname}|{mname}|{cores}|{cls}|{sizes}" + (f"|nt={','.join(nt)}" if nt else "")


def deviations(ref: dict, new: dict) -> list[tuple[str, float, float, float]]:
    """(quantity, ref, new, relative deviation) of every judged quantity."""
    out = []
    for lname, rl in ref["levels"].items():
        nl = new["levels"][lname]
        for q in ("loads", "stores"):
            r, v = rl[q], nl[q]
            out.append((f"{lname}.{q}", r, v, abs(v - r) / max(abs(r), FLOOR)))
    if ref.get("nontemporal_lines") is not None:
        r, v = ref["nontemporal_lines"], new["nontemporal_lines"] or 0.0
        out.append(("nontemporal", r, v, abs(v - r) / max(abs(r), FLOOR)))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", action="store_true", help="write the reference JSON")
    ap.add_argument("--kernel", action="append", help="only these kernels (repeatable)")
    ap.add_argument("--machine", action="append", help="only these machines (repeatable)")
    ap.add_argument("--tolerance", type=float, default=0.01)
    ap.add_argument("--reference", default=str(REFERENCE))
    args = ap.parse_args(argv)
    todo = list(cases(args.kernel or KERNELS, args.machine or MACHINES))
    ref_path = Path(args.reference)
    if args.record:
        data = json.loads(ref_path.read_text()) if ref_path.exists() and \
            (args.kernel or args.machine) else {"cases": {}}
        for c in todo:
            data["cases"][key(c)] = entry = run_case(c[0], c[1], c[2], c[4], c[5])
            print(f"{key(c):45s} {entry.get('cpu_s', entry.get('error'))}", flush=True)
        ref_path.parent.mkdir(parents=True, exist_ok=True)
        ref_path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        return 0
    ref = json.loads(ref_path.read_text())["cases"]
    worst, failed, t_ref, t_new = (0.0, "", 0.0, 0.0), 0, 0.0, 0.0
    for c in todo:
        k = key(c)
        if k not in ref:
            print(f"{k:45s} not in the reference")
            continue
        new = run_case(c[0], c[1], c[2], c[4], c[5])
        if "error" in ref[k] or "error" in new:
            same = ref[k].get("error") == new.get("error")
            failed += not same
            print(f"{k:45s} error {'unchanged' if same else 'CHANGED'}: {new.get('error')}")
            continue
        devs = deviations(ref[k], new)
        q, r, v, d = max(devs, key=lambda x: x[3])
        t_ref += ref[k]["cpu_s"]
        t_new += new["cpu_s"]
        flag = "FAIL" if d > args.tolerance else "ok"
        failed += d > args.tolerance
        print(f"{k:45s} {ref[k]['cpu_s']:7.2f} -> {new['cpu_s']:6.2f} s  max dev {d:8.2e} "
              f"({q} {r:.4f} -> {v:.4f}) {flag}", flush=True)
        if d >= worst[0]:
            worst = (d, k, q, r, v)
    print(f"cases {len(todo)}, failed {failed}, CPU time reference {t_ref:.1f} s, now "
          f"{t_new:.1f} s")
    if worst[1]:
        print("largest deviation {:.3e}: {} {} ({:.5f} -> {:.5f})".format(*worst))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
