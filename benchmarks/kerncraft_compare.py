"""Reference comparison of our ECM predictions with Kerncraft 0.8.18 (issue 12).

Every kernel (Kerncraft's example kernels and those of our ``kernels/`` that describe
a different loop) x every published machine file runs ECM, single core, layer
conditions, cy/CL, in both tools with the same ``-D`` defines:

* the reference: Kerncraft 0.8.18 installed in its own virtual environment, called
  only through its command-line executable (``--ref-kerncraft``), in-core model
  OSACA (``-i OSACA``), verbose report (``-vv``) parsed from its text;
* ours: ``kerncraft.analyze(..., model="ECM", cores=1, cache_predictor="LC")``.

The reference runs take seconds each, so their raw output (and our result) is cached
in a JSON file (``--data``); a rerun only computes what is missing or what
``--refresh`` names. ``--report`` prints the ratio distribution (ours/theirs) per
term and every pair whose total prediction differs by more than 25 %, as used in
``benchmarks/RESULTS-kerncraft-compare.md``. Progress goes to stderr.

Typical use (Kerncraft 0.8.18 in /tmp/kc-ref-venv, its sdist unpacked in /tmp/kc-sdist)::

    taskset -c 0 python benchmarks/kerncraft_compare.py \\
        --ref-kerncraft /tmp/kc-ref-venv/bin/kerncraft \\
        --examples /tmp/kc-sdist/kerncraft-0.8.18/examples/kernels --report
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Raw outputs (Kerncraft's full reports) stay outside the repository; the repository
# keeps only the parsed numbers and one-line errors (--summary).
DEFAULT_DATA = Path("/tmp/kc-compare-work/raw.json")
DEFAULT_SUMMARY = REPO / "benchmarks" / "data" / "kerncraft-compare.json"
DEFAULT_MACHINES = REPO.parent / "shared" / "reference" / "kerncraft-machine-files"
DEFAULT_EXAMPLES = Path("/tmp/kc-sdist/kerncraft-0.8.18/examples/kernels")
DEFAULT_REF = Path("/tmp/kc-ref-venv/bin/kerncraft")
LEVELS = ("L1", "L2", "L3", "MEM")
# Version of the way the reference is run; cached runs of an older one count as not run
# (2: a kernel copy per machine file, see reference_copy).
PROTOCOL = 2

# Our kernels that describe the same loop as one of Kerncraft's examples (same arrays,
# same statement; only names or comments differ): the example file is run for both
# tools and ours is not run a second time.
SAME_LOOP = {
    "2d-5pt": "2d-5pt",
    "add": "add",
    "copy": "copy",
    "daxpy": "DAXPY",
    "scalar_product": "scalar_product",
    "sum_reduction": "vector_sum",
    "striad": "triad",          # Schoenauer triad a = b + c*d (Kerncraft's "triad")
    "kahan-dot": "kahan-dot",
}

SIZE_1D = 10_000_000   # 1D working sets far beyond every L3
SIZE_2D = 4000         # 2D: a row is 32 KB, the arrays 128 MB
SIZE_3D = 200          # 3D: a layer is 320 KB, the arrays 64 MB
SIZE_MATSQ = 1000      # a triple loop over 2D arrays


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# kernels and defines


def _strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    return re.sub(r"//[^\n]*", " ", source)


def kernel_defines(source: str) -> dict[str, int]:
    """One representative size per kernel: constants in array dimensions and loop bounds."""
    code = _strip_comments(source)
    dims = re.findall(r"\b[A-Za-z_]\w*((?:\[[^\]]+\])+)", code)
    names: set[str] = set()
    rank = 0
    for dim in dims:
        parts = re.findall(r"\[([^\]]+)\]", dim)
        for part in parts:
            names.update(re.findall(r"\b([A-Z][A-Z0-9_]*)\b", part))
    for decl in re.findall(r"^\s*(?:double|float|int)\s+([^;]+);", code, flags=re.M):
        for var in decl.split(","):
            # a[M*N] is a 2D array stored linearly: count the constants, not the brackets
            rank = max(rank, len(re.findall(r"\b[A-Z][A-Z0-9_]*\b",
                                            " ".join(re.findall(r"\[([^\]]+)\]", var)))))
    names.update(re.findall(r"<\s*([A-Z][A-Z0-9_]*)\b", code))
    loops = len(re.findall(r"\bfor\s*\(", code))
    if rank <= 1:
        size = SIZE_1D
    elif rank == 2:
        size = SIZE_MATSQ if loops >= 3 else SIZE_2D
    else:
        size = SIZE_3D
    return {name: size for name in sorted(names)}


def collect_kernels(examples: Path, ours: Path, work: Path) -> list[dict]:
    """Copies of the kernels in ``work`` (Kerncraft caches its compilations next to them)."""
    kernels = []
    (work / "kc").mkdir(parents=True, exist_ok=True)
    (work / "ours").mkdir(parents=True, exist_ok=True)
    example_names = set()
    for path in sorted(examples.glob("*.c")):
        example_names.add(path.stem)
        dest = work / "kc" / path.name
        if not dest.exists() or dest.read_bytes() != path.read_bytes():
            shutil.copyfile(path, dest)
        matched = sorted(k for k, v in SAME_LOOP.items() if v == path.stem)
        kernels.append({"name": path.stem, "origin": "kerncraft-example", "path": str(dest),
                        "same_as_ours": matched})
    for path in sorted(ours.glob("*.c")):
        if path.stem in SAME_LOOP:
            continue
        dest = work / "ours" / path.name
        if not dest.exists() or dest.read_bytes() != path.read_bytes():
            shutil.copyfile(path, dest)
        label = path.stem if path.stem not in example_names else f"ours/{path.stem}"
        kernels.append({"name": label, "origin": "ours", "path": str(dest), "same_as_ours": []})
    for kernel in kernels:
        source = Path(kernel["path"]).read_text()
        kernel["sha256"] = hashlib.sha256(source.encode()).hexdigest()[:16]
        kernel["defines"] = kernel_defines(source)
    return kernels


def define_args(defines: dict[str, int]) -> list[str]:
    args = []
    for name, value in defines.items():
        args += ["-D", name, str(value)]
    return args


# ---------------------------------------------------------------------------
# running both tools


def cross_compiler_args(machine: Path) -> list[str]:
    """An AArch64 file on this x86 host: Kerncraft gets the cross gcc and the file's gcc flags.

    Kerncraft runs the machine file's ``gcc`` (the host's, which rejects ``-march=armv8.1-a``);
    with ``-C`` it drops the file's flags, so they are passed again with ``--compiler-flags``.
    """
    text = machine.read_text()
    if not re.search(r"^isa:\s*aarch64", text, flags=re.M | re.I):
        return []
    m = re.search(r"^\s*-?\s*gcc:\s*(.+?)\s*(?:#.*)?$", text, flags=re.M)
    flags = m.group(1).strip("'\"") if m else "-O3"
    return ["-C", "aarch64-linux-gnu-gcc", f"--compiler-flags={flags}"]


def reference_copy(kernel: dict, machine: Path) -> Path:
    """The kernel file Kerncraft gets for this machine: a copy in a folder of its own.

    Kerncraft 0.8.18 caches its layer-condition analysis next to the kernel
    (``.NAME.c_kerncraft/<cores>/LC_analysis.pickle.lzma``) keyed by the core count but
    not by the machine file: with one shared copy, the first machine's caches decide the
    layer conditions of every later machine (and a 2-level file such as A64FX makes the
    3-level files fail with ``IndexError``).
    """
    path = Path(kernel["path"])
    dest = path.parent.parent / "per-machine" / machine.stem / path.parent.name / path.name
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not dest.exists() or dest.read_bytes() != path.read_bytes():
        shutil.rmtree(dest.parent / f".{dest.name}_kerncraft", ignore_errors=True)
        shutil.copyfile(path, dest)
    return dest


def reference_command(ref: Path, kernel: dict, machine: Path, incore: str) -> list[str]:
    return [str(ref), "-p", "ECM", "-P", "LC", "-c", "1", "-i", incore, "-vv",
            *cross_compiler_args(machine),
            "-m", str(machine), str(reference_copy(kernel, machine)),
            *define_args(kernel["defines"])]


def run_reference(cmd: list[str], timeout: float) -> dict:
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              cwd="/tmp")
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        rc = -1
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = f"timeout after {timeout:.0f} s"
    return {"cmd": cmd, "rc": rc, "stdout": out, "stderr": err[-4000:], "protocol": PROTOCOL,
            "seconds": round(time.monotonic() - start, 2)}


def run_ours(kernel: dict, machine: Path) -> dict:
    import kerncraft   # our package; imported lazily so --report works without it

    start = time.monotonic()
    try:
        result = kerncraft.analyze(kernel["path"], str(machine), model="ECM",
                                   defines=kernel["defines"], cores=1, cache_predictor="LC")
        data = result.to_dict()
        data.pop("scaling", None)
        out = {"ok": True, "ecm": data}
    except Exception as exc:   # recorded: the comparison lists every failure
        out = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    out["seconds"] = round(time.monotonic() - start, 2)
    return out


def our_version() -> str:
    try:
        head = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        head = "?"
    return head


def reference_versions(ref: Path) -> dict:
    """Versions of Kerncraft and the dependencies that change its results, in its venv."""
    code = ("import importlib.metadata as m, json, platform; print(json.dumps({n: m.version(n) "
            "for n in ('kerncraft', 'osaca', 'sympy', 'pycparser', 'pycachesim', 'pyparsing', "
            "'numpy')} | {'python': platform.python_version()}))")
    python = ref.parent / "python"
    try:
        out = subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                             cwd="/")   # not our checkout: its egg-info is a "kerncraft" too
        return json.loads(out.stdout)
    except (OSError, ValueError):
        return {}


def load_data(path: Path) -> dict:
    if path.exists():
        return json.loads(path.read_text())
    return {"pairs": {}}


def save_data(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    tmp.replace(path)


def schedule(kernels: list[dict], machines: list[Path]) -> list[tuple[dict, Path]]:
    """Pairs in an order that gives every microarchitecture early: the first file of each
    (file-name prefix: ``SkylakeSP``, ``Zen2``, ...) for all kernels, then the other files
    (other SKUs, CoD/SNC modes)."""
    seen, first, rest = set(), [], []
    for machine in machines:
        arch = machine.stem.split("_")[0]
        (rest if arch in seen else first).append(machine)
        seen.add(arch)
    # within a tier: the 1D streaming kernels first (largest defines), 3D stencils last
    by_size = sorted(kernels, key=lambda k: -max(k["defines"].values(), default=0))
    return [(k, m) for tier in (first, rest) for origin in ("kerncraft-example", "ours")
            for k in by_size if k["origin"] == origin for m in tier]


def sweep(args: argparse.Namespace, kernels: list[dict], machines: list[Path]) -> dict:
    data = load_data(args.data)
    data["settings"] = {"incore_reference": args.incore, "command_reference":
                        "kerncraft -p ECM -P LC -c 1 -i %s -vv -m MACHINE KERNEL -D ..."
                        % args.incore,
                        "ours": "kerncraft.analyze(KERNEL, MACHINE, model='ECM', cores=1, "
                                "cache_predictor='LC', defines=...)"}
    data["reference_versions"] = reference_versions(args.ref_kerncraft)
    pairs = data.setdefault("pairs", {})
    version = data["our_version"] = our_version()
    order = schedule(kernels, machines)
    total = len(order)
    for done, (kernel, machine) in enumerate(order, 1):
        if True:
            key = f"{kernel['name']}|{machine.stem}"
            entry = pairs.get(key)
            fresh = (entry is not None and entry.get("sha256") == kernel["sha256"]
                     and entry.get("defines") == kernel["defines"])
            if not fresh:
                entry = {"sha256": kernel["sha256"], "defines": kernel["defines"]}
            entry.update(kernel=kernel["name"], origin=kernel["origin"], machine=machine.stem,
                         same_as_ours=kernel["same_as_ours"])
            cmd = reference_command(args.ref_kerncraft, kernel, machine, args.incore)
            if args.cached_only and entry.get("theirs", {}).get("cmd") != cmd:
                continue
            failed = entry.get("theirs", {}).get("rc") != 0
            if ("theirs" not in entry or "theirs" in args.refresh
                    or entry["theirs"].get("cmd") != cmd or (failed and args.retry_failed)):
                entry["theirs"] = run_reference(cmd, args.timeout)
                log(f"[{done}/{total}] {key}: Kerncraft rc={entry['theirs']['rc']} "
                    f"in {entry['theirs']['seconds']} s")
            if "ours" not in entry or "ours" in args.refresh:
                entry["ours"] = run_ours(kernel, machine)
                entry["ours"]["version"] = version
                log(f"[{done}/{total}] {key}: ours ok={entry['ours']['ok']} "
                    f"in {entry['ours']['seconds']} s")
            pairs[key] = entry
            save_data(args.data, data)
    return data


# ---------------------------------------------------------------------------
# parsing Kerncraft's verbose ECM report

_NUM = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|nan)"


_PREFIX = {"": 1.0, "k": 1e3, "M": 1e6}


def _float(text: str) -> float:
    return float(text)


def parse_reference(stdout: str) -> dict:
    """T_OL, T_nOL, transfer terms, per-level predictions of Kerncraft's ``-vv`` ECM report."""
    res: dict = {}
    m = re.search(r"^T_comp = " + _NUM, stdout, flags=re.M)
    if m:
        res["T_OL"] = _float(m.group(1))
    m = re.search(r"^T_RegL1 = " + _NUM, stdout, flags=re.M)
    if m:
        res["T_nOL"] = _float(m.group(1))
    terms = {}
    previous = "L1"
    for m in re.finditer(r"^(L\d|MEM) = " + _NUM + r" ([kM]?)cy/CL", stdout, flags=re.M):
        terms[f"T_{previous}{m.group(1)}"] = _float(m.group(2)) * _PREFIX[m.group(3)]
        previous = m.group(1)
    res["contributions"] = terms
    m = re.search(r"^penalty cycles: " + _NUM, stdout, flags=re.M)
    if m:
        res["T_penalty"] = _float(m.group(1))
    m = re.search(r"T_ECM = (.*?) cy/CL\n\s*= (.*?) cy/CL\n\s*= " + _NUM + r" ([kM]?)cy/CL",
                  stdout)
    if m:   # large values are printed with a prefix: "= 1.34 kcy/CL"
        res["formula"] = m.group(1).strip()
        res["formula_numbers"] = m.group(2).strip()
        res["prediction"] = _float(m.group(3)) * _PREFIX[m.group(4)]
        rounded = bool(m.group(4))   # 3 digits only: recomposed from the terms below
    m = re.search(r"Ports and cycles: (\{.*?\})", stdout)
    if m:
        res["ports"] = m.group(1)
    m = re.search(r"memory cycles based on (\S+) kernel with " + _NUM + r" GB/s", stdout)
    if m:
        res["mem_benchmark"] = m.group(1)
        res["mem_bandwidth_GBs"] = _float(m.group(2))
    m = re.search(r"Detected pointer increment: (\d+)", stdout)
    if m:
        res["pointer_increment"] = int(m.group(1))
    m = re.search(r"Derived elements stored to per asm block iteration: (\d+)", stdout)
    if m:
        res["elements_per_asm_iteration"] = int(m.group(1))
    else:
        rounded = False
    res["predictions"] = reference_levels(res, keep_last=not rounded)
    if rounded and res["predictions"]:
        res["prediction"] = list(res["predictions"].values())[-1] + res.get("T_penalty", 0.0)
    return res


def reference_levels(res: dict, keep_last: bool = True) -> dict:
    """Per-level predictions from Kerncraft's terms, by the rule its T_ECM formula states.

    Kerncraft prints T_ECM only for the last level; the level-k prediction here is the
    same formula over the terms down to level k: ``max(T_comp, sum(T_RegL1, ...))`` with
    terms the formula puts inside the max instead of the sum (overlapping transfers)
    kept there. The last level is Kerncraft's own T_ECM (it includes ``T_penalty``).
    """
    if "T_OL" not in res or "T_nOL" not in res or "formula" not in res:
        return {}
    formula = res["formula"]
    summed_part = re.search(r"sum\(([^)]*)\)", formula)
    summed = set(re.findall(r"T_\w+", summed_part.group(1))) if summed_part else set()
    out = {"L1": max(res["T_OL"], res["T_nOL"])}
    # Zen files: Kerncraft overlaps T_RegL1 too, max(T_comp, T_RegL1, T_L1L2, sum(...))
    in_sum = res["T_nOL"] if "T_RegL1" in summed else 0.0
    in_max = [res["T_OL"]] + ([] if "T_RegL1" in summed else [res["T_nOL"]])
    for name, value in res["contributions"].items():
        if name in summed:
            in_sum += value
        else:
            in_max.append(value)
        out[name[len("T_") + 2:] if name[2:4] != "ME" else "MEM"] = max(in_max + [in_sum])
    if "prediction" in res and out and keep_last:
        out[list(out)[-1]] = res["prediction"]
    return out


_PACKED = re.compile(
    r"\bv?(?:add|sub|mul|div|fmadd\d*|fnmadd\d*|fmsub\d*|movu|mova)p[sd]\s+[^\n]*\("  # x86
    r"|\b(?:ldr|str|ldp|stp)\s+q\d+|\b(?:ld1d|st1d|ld1w|st1w)\b|\bv\d+\.[24][ds]\b")  # AArch64


def reference_has_vector_loop(cmd: list[str]) -> bool | None:
    """Whether the assembly Kerncraft compiled (kernel.s next to its kernel copy) holds
    packed SIMD memory or arithmetic instructions: None when it is not there."""
    kernel = next((Path(a) for a in cmd if a.endswith(".c")), None)
    if kernel is None:
        return None
    machine = next((Path(cmd[i + 1]).name for i, a in enumerate(cmd) if a == "-m"), "")
    files = sorted((kernel.parent / f".{kernel.name}_kerncraft" / machine).glob("*/*/kernel.s"))
    if not files:
        return None
    return bool(_PACKED.search(files[0].read_text(errors="replace")))


def canonical_term(name: str) -> str:
    """T_L1L2, T_L2L3, or T_mem for the last transfer to memory (T_L3MEM, T_L2MEM)."""
    return "T_mem" if name.endswith("MEM") else name


def reference_error(theirs: dict) -> str:
    text = (theirs.get("stderr") or "").strip().splitlines()
    text = [t for t in text if t.strip() and not t.startswith(("  File ", "    "))]
    if not text:   # some failures are reported on stdout ("In-core analysis failed: ...")
        text = [t for t in (theirs.get("stdout") or "").strip().splitlines() if t.strip()][-1:]
    if theirs.get("rc") == 0 and "prediction" not in parse_reference(theirs.get("stdout", "")):
        text = text or ["no ECM prediction in the report"]
    return text[-1][:200] if text else f"exit code {theirs.get('rc')}"


# ---------------------------------------------------------------------------
# comparison


TERMS = ("T_OL", "T_nOL", "T_L1L2", "T_L2L3", "T_mem",
         "pred_L1", "pred_L2", "pred_L3", "pred_MEM")


def our_terms(ecm: dict) -> dict:
    return {"T_OL": ecm["T_OL"], "T_nOL": ecm["T_nOL"], "contributions": ecm["contributions"],
            "overlapping": ecm.get("overlapping", []), "predictions": ecm["predictions"],
            "prediction": ecm["prediction"]}


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None:
        return None
    if b == 0:
        return 1.0 if a == 0 else float("inf")
    return a / b


def compare(entry: dict) -> dict:
    """Both sides' terms, one-line errors, and the ratios ours/theirs per term."""
    theirs = entry.get("theirs", {})
    ours = entry.get("ours", {})
    # (runs cached before the protocol field: a per-machine copy is protocol 2)
    protocol = theirs.get("protocol", 2 if "/per-machine/" in " ".join(theirs.get("cmd", []))
                          else 1)
    current = protocol == PROTOCOL
    ref = parse_reference(theirs.get("stdout", "")) if current and theirs.get("rc") == 0 else {}
    out = {"kernel": entry["kernel"], "machine": entry["machine"], "origin": entry["origin"],
           "defines": entry["defines"], "same_as_ours": entry.get("same_as_ours", [])}
    if "prediction" in ref:
        out["theirs"] = {k: ref[k] for k in ("T_OL", "T_nOL", "contributions", "predictions",
                                             "prediction", "formula", "T_penalty", "ports",
                                             "mem_benchmark", "mem_bandwidth_GBs",
                                             "elements_per_asm_iteration") if k in ref}
        out["theirs"]["asm_has_vector_loop"] = reference_has_vector_loop(theirs.get("cmd", []))
    elif current:
        out["theirs_error"] = reference_error(theirs)
    else:
        out["theirs_error"] = "not run"
    if ours.get("ok"):
        mine = our_terms(ours["ecm"])
        incore = ours["ecm"].get("incore", {})
        mine["iterations_per_asm_iteration"] = incore.get("iterations_per_asm_iteration")
        mine["T_OL_source"] = incore.get("T_OL_source")
        mine["arch"] = incore.get("arch")
        mem = [link for link in ours["ecm"].get("links", []) if link["name"].endswith("MEM")]
        if mem and mem[0].get("measured_bandwidth"):
            mine["mem_benchmark"] = mem[0].get("benchmark_kernel")
            mine["mem_bandwidth_GBs"] = mem[0]["measured_bandwidth"] / 1e9
        out["ours"] = mine
    else:
        out["ours_error"] = ours.get("error", "not run").splitlines()[0][:200]
    if "ours" in out and "theirs" in out:
        mine, ref = out["ours"], out["theirs"]
        ratios = {"T_OL": _ratio(mine["T_OL"], ref["T_OL"]),
                  "T_nOL": _ratio(mine["T_nOL"], ref["T_nOL"])}
        for name, value in mine["contributions"].items():
            ratios[canonical_term(name)] = _ratio(value, ref["contributions"].get(name))
        for level, value in mine["predictions"].items():
            ratios[f"pred_{level}"] = _ratio(value, ref["predictions"].get(level))
        ratios["prediction"] = _ratio(mine["prediction"], ref["prediction"])
        out["ratios"] = {k: v for k, v in ratios.items() if v is not None}
        if abs(out["ratios"]["prediction"] - 1) > 0.25:
            out["attribution"] = attribute(out)
    return out


def _compose(t_ol: float, t_nol: float, terms: dict, overlapping: set, penalty: float) -> float:
    """max(T_OL, overlapping terms, sum of the others); "T_nOL" may be among the overlapping."""
    summed = sum(v for k, v in terms.items() if k not in overlapping) + penalty
    if "T_nOL" in overlapping:
        return max([t_ol, t_nol, summed] + [v for k, v in terms.items() if k in overlapping])
    return max([t_ol, t_nol + summed] + [v for k, v in terms.items() if k in overlapping])


def attribute(row: dict) -> dict:
    """Which part of the model makes the totals differ: the parts are swapped in turn.

    Start from our terms under our composition rule, then replace by Kerncraft's: the
    in-core terms (T_OL, T_nOL), the cache-to-cache transfer terms, the memory term,
    and last the composition (overlapping levels, Kerncraft's ``T_penalty``). The step
    that moves the total most (in log ratio) is the main cause; every step's ratio
    change is kept.
    """
    mine, ref = row["ours"], row["theirs"]
    names = list(mine["contributions"])
    ours_terms = dict(mine["contributions"])
    ref_terms = {k: ref["contributions"].get(k, ours_terms[k]) for k in names}
    overlap = set(mine.get("overlapping", []))
    summed = re.search(r"sum\(([^)]*)\)", ref.get("formula", ""))
    ref_overlap = {k for k in names + ["T_RegL1"] if summed and k not in summed.group(1)}
    ref_overlap = {"T_nOL" if k == "T_RegL1" else k for k in ref_overlap}
    steps = [("ours", mine["T_OL"], mine["T_nOL"], ours_terms, overlap, 0.0)]
    t_ol, t_nol = ref["T_OL"], ref["T_nOL"]
    steps.append(("in-core", t_ol, t_nol, ours_terms, overlap, 0.0))
    mixed = {k: (ref_terms[k] if not k.endswith("MEM") else ours_terms[k]) for k in names}
    steps.append(("cache transfers", t_ol, t_nol, mixed, overlap, 0.0))
    steps.append(("memory term", t_ol, t_nol, ref_terms, overlap, 0.0))
    steps.append(("composition", t_ol, t_nol, ref_terms, ref_overlap,
                  ref.get("T_penalty", 0.0)))
    values = [_compose(*step[1:]) for step in steps]
    # the last step reproduces Kerncraft's total up to its two printed decimals
    changes = {steps[i][0]: math.log(values[i - 1] / values[i]) for i in range(1, len(steps))}
    main = max(changes, key=lambda k: abs(changes[k]))
    # parts that move the total by 8 % or more, largest first
    parts = sorted((k for k in changes if abs(changes[k]) >= 0.08),
                   key=lambda k: -abs(changes[k])) or [main]
    cause = " + ".join(_cause(part, mine, ref) for part in parts)
    return {"main": main, "cause": cause, "log_ratio_by_part": changes,
            "reproduced_theirs": values[-1]}


def _cause(main: str, mine: dict, ref: dict) -> str:
    """A first, mechanical label of the main part; RESULTS-kerncraft-compare.md checks it."""
    if main == "in-core":
        ours_it = mine.get("iterations_per_asm_iteration")
        theirs_it = ref.get("elements_per_asm_iteration")
        if ours_it and theirs_it and ours_it != theirs_it:
            vector = {True: ", a vector loop is in Kerncraft's assembly (alias-versioned)",
                      False: ", Kerncraft's assembly has no vector loop", None: ""}
            return (f"compiled code: {ours_it} vs {theirs_it} iterations per assembly "
                    f"iteration{vector[ref.get('asm_has_vector_loop')]}")
        if "dependency" in (mine.get("T_OL_source") or ""):
            return "in-core model: our T_OL is the loop-carried dependency"
        return "in-core model: same iterations per assembly iteration, different port model"
    if main == "composition":
        what = []
        if ref.get("T_penalty"):
            what.append(f"Kerncraft's T_penalty {ref['T_penalty']:.2f} cy")
        if "T_RegL1" not in (re.search(r"sum\(([^)]*)\)", ref["formula"]) or [""])[0]:
            what.append("Kerncraft overlaps T_RegL1 (T_nOL)")
        return "composition: " + (", ".join(what) or "overlapping levels")
    def differing(memory: bool) -> str:
        terms = [f"{name} x{value / ref['contributions'][name]:.2f}"
                 for name, value in mine["contributions"].items()
                 if name.endswith("MEM") == memory and ref["contributions"].get(name)
                 and abs(value / ref["contributions"][name] - 1) > 0.05]
        return ", ".join(terms)
    if main == "cache transfers":
        return f"cache transfers ({differing(False)})"
    return f"memory term ({differing(True)})"


def distribution(values: list[float]) -> dict:
    finite = sorted(v for v in values if v == v and v != float("inf"))
    if not finite:
        return {"n": 0}
    q = statistics.quantiles(finite, n=4, method="inclusive") if len(finite) > 1 else finite * 3
    return {"n": len(values), "median": statistics.median(finite), "q1": q[0], "q3": q[2],
            "min": finite[0], "max": finite[-1],
            "within10": sum(abs(v - 1) <= 0.10 for v in finite) / len(values),
            "within25": sum(abs(v - 1) <= 0.25 for v in finite) / len(values)}


def summarize(data: dict, kernels: list[str] | None = None) -> dict:
    rows = {key: compare(entry) for key, entry in sorted(data["pairs"].items())
            if not kernels or entry["kernel"] in kernels}
    not_run = sorted(k for k, r in rows.items() if r.get("theirs_error") == "not run")
    rows = {k: r for k, r in rows.items() if k not in not_run}
    both = [r for r in rows.values() if "ratios" in r]
    dist = {name: distribution([r["ratios"][name] for r in both if name in r["ratios"]])
            for name in TERMS}
    versions = sorted({e["ours"].get("version", "?") for e in data["pairs"].values()
                       if "ours" in e})
    return {"settings": data.get("settings", {}), "our_versions": versions,
            "reference_versions": data.get("reference_versions", {}),
            "distribution": dist, "not_run": not_run, "pairs": rows}


def _ecm_brace(terms: dict) -> str:
    parts = " | ".join(f"{v:.1f}" for v in terms["contributions"].values())
    extra = f" +pen {terms['T_penalty']:.1f}" if terms.get("T_penalty") else ""
    return (f"{{ {terms['T_OL']:.1f} &#124;&#124; {terms['T_nOL']:.1f} &#124; "
            f"{parts.replace('|', '&#124;')} }}{extra} = {terms['prediction']:.1f}")


def report(summary: dict) -> str:
    rows = summary["pairs"]
    both = {k: r for k, r in rows.items() if "ratios" in r}
    only = {k: r for k, r in rows.items() if ("ours" in r) != ("theirs" in r)}
    neither = {k: r for k, r in rows.items() if "ours" not in r and "theirs" not in r}
    lines = [f"pairs run: {len(rows)}, both predict: {len(both)}, one tool only: {len(only)}, "
             f"neither: {len(neither)}; not run (yet): {len(summary['not_run'])}", "",
             "| term (ours/theirs) | n | median | Q1 | Q3 | min | max | within 10 % "
             "| within 25 % |", "|---|---|---|---|---|---|---|---|---|"]
    for name in TERMS:
        d = summary["distribution"][name]
        if d["n"]:
            lines.append(f"| {name} | {d['n']} | {d['median']:.3f} | {d['q1']:.3f} "
                         f"| {d['q3']:.3f} | {d['min']:.3f} | {d['max']:.3f} "
                         f"| {d['within10']:.0%} | {d['within25']:.0%} |")
    lines += ["", "| machine file | pairs | median T_OL | median T_nOL | median T_L2L3 "
              "| median T_mem | median T_ECM (MEM) | T_ECM within 25 % |",
              "|---|---|---|---|---|---|---|---|"]
    for machine in sorted({r["machine"] for r in both.values()}):
        sub = [r["ratios"] for r in both.values() if r["machine"] == machine]

        def med(name):
            values = [x[name] for x in sub if name in x]
            return f"{statistics.median(values):.2f}" if values else "-"
        close = sum(abs(x["prediction"] - 1) <= 0.25 for x in sub) / len(sub)
        lines.append(f"| {machine} | {len(sub)} | {med('T_OL')} | {med('T_nOL')} "
                     f"| {med('T_L2L3')} | {med('T_mem')} | {med('prediction')} | {close:.0%} |")
    lines += ["", "| pair | ours | Kerncraft 0.8.18 |", "|---|---|---|"]
    for key, r in {**only, **neither}.items():
        lines.append(f"| {key} | {r.get('ours_error', 'predicts')} "
                     f"| {r.get('theirs_error', 'predicts')} |")
    beyond = [r for r in both.values() if "attribution" in r]
    lines += ["", f"pairs beyond 25 %: {len(beyond)}", "", "| part of the model (mechanical label) "
              "| pairs where it is the largest part | pairs where it moves the total by >= 8 % |",
              "|---|---|---|"]
    labels = {}
    for r in beyond:
        for n, label in enumerate(r["attribution"]["cause"].split(" + ")):
            key = re.sub(r"\d+(\.\d+)? cy|\d+ vs \d+|x\d+\.\d+", "#", label)
            labels.setdefault(key, [0, 0])
            labels[key][1] += 1
            labels[key][0] += n == 0
    for key, (first, any_) in sorted(labels.items(), key=lambda kv: -kv[1][1]):
        lines.append(f"| {key} | {first} | {any_} |")
    lines += ["", "| pair | ratio | main part | ours {T_OL || T_nOL | transfers} = T_ECM "
              "| Kerncraft {...} = T_ECM |", "|---|---|---|---|---|"]
    for key, r in sorted(both.items(), key=lambda kv: kv[1]["ratios"]["prediction"]):
        ratio = r["ratios"]["prediction"]
        if abs(ratio - 1) > 0.25:
            part = r["attribution"]["cause"]
            lines.append(f"| {key} | {ratio:.2f} | {part} | {_ecm_brace(r['ours'])} "
                         f"| {_ecm_brace(r['theirs'])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ref-kerncraft", type=Path, default=DEFAULT_REF,
                   help="Kerncraft 0.8.18's executable (in its own venv)")
    p.add_argument("--examples", type=Path, default=DEFAULT_EXAMPLES,
                   help="Kerncraft's examples/kernels directory (from its sdist)")
    p.add_argument("--machines", type=Path, default=DEFAULT_MACHINES)
    p.add_argument("--ours", type=Path, default=REPO / "kernels")
    p.add_argument("--work", type=Path, default=Path("/tmp/kc-compare-work"),
                   help="where the kernels are copied to (Kerncraft writes next to them)")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA,
                   help="JSON cache of both tools' raw results (kept outside the repository)")
    p.add_argument("--summary", type=Path, default=DEFAULT_SUMMARY,
                   help="parsed numbers, ratios and one-line errors (JSON)")
    p.add_argument("--incore", default="OSACA", help="Kerncraft's -i (in-core model)")
    p.add_argument("--timeout", type=float, default=900.0, help="per reference run, seconds")
    p.add_argument("--kernel", action="append", help="only these kernels (repeatable)")
    p.add_argument("--machine", action="append", help="only these machine files (stem)")
    p.add_argument("--refresh", action="append", default=[], choices=["ours", "theirs"],
                   help="recompute this side even when cached")
    p.add_argument("--retry-failed", action="store_true",
                   help="run the reference again where it failed before")
    p.add_argument("--cached-only", action="store_true",
                   help="only pairs whose reference run is cached (e.g. with --refresh ours)")
    p.add_argument("--no-run", action="store_true", help="only report from the cache")
    p.add_argument("--report", action="store_true", help="print the comparison")
    args = p.parse_args(argv)
    os.environ.setdefault("KERNCRAFT_CACHE_DIR", "/tmp/kc-compare-cache")

    if args.no_run:
        data = load_data(args.data)
    else:
        kernels = collect_kernels(args.examples, args.ours, args.work)
        if args.kernel:
            kernels = [k for k in kernels if k["name"] in args.kernel]
        machines = sorted(args.machines.glob("*.yml"))
        if args.machine:
            machines = [m for m in machines if m.stem in args.machine]
        data = sweep(args, kernels, machines)
    summary = summarize(data, args.kernel)
    save_data(args.summary, summary)
    if args.report:
        print(report(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
