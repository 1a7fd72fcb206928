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
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from kerncraft_compare_terms import (  # noqa: E402  (beside this script)
    PROTOCOL, TERMS, summarize)

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
