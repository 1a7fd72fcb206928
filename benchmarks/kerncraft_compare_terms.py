"""Kerncraft reference comparison, second half: parse Kerncraft's verbose ECM report,
compare its terms with ours, attribute differences, summarize (used by
``benchmarks/kerncraft_compare.py``; see its docstring).
"""
from __future__ import annotations

import math
import re
import statistics
from pathlib import Path

#: Version of the stored reference runs (bumped when the command line changed).
PROTOCOL = 2

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


