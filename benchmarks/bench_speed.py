"""Whole-process run times against the goals of issue 13; writes RESULTS-speed.md.

Run (pinned to one CPU, as every measurement on the shared 2-CPU host must be)::

    taskset -c 0 python benchmarks/bench_speed.py [--repeat 3] [--write]
        [--ref-kerncraft PATH --ref-machine FILE] [--ref-osaca PATH] [--ref-llvm-mca PATH]

Every row is a fresh process (``python -c`` calling the console script's entry
point, no pyenv shim), wall time, median of ``--repeat`` runs, with an empty
cache directory filled by one unmeasured cold run first. Two kinds of warm run:

* **repeat**: the same command again -- served from the point cache
  (``kerncraft.memo.reports``), what the issue's goals ask for;
* **new -D**: warm caches (compiler, in-core results, databases) but -D values not
  seen before (a different point per repetition): the models run, so sympy and
  pycparser are imported and the kernel is analysed again. The new value is M of
  2d-5pt: N is a stride, held as a literal in the generated C, so a new N also
  compiles and analyses the loop again (a cold in-core run).

Anchors (Kerncraft 0.8.18, OSACA, llvm-mca) are timed only when their executables
are given or, for llvm-mca, found on PATH. ``--write`` replaces
``benchmarks/RESULTS-speed.md`` with the table, the import-time breakdown of a
new-point run and the cProfile summary of a first-time 1000-point sweep.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "kernels"
MACHINES = ROOT / "machine-files"
FIVE = str(KERNELS / "2d-5pt.c")
K27 = str(KERNELS / "3d-27pt.c")
# the console scripts' entry points (kerncraft/cli/scripts.py), as pyproject.toml names them
ENTRY = "from kerncraft.cli.scripts import {0}; {0}()"
RESULTS = ROOT / "benchmarks" / "RESULTS-speed.md"


@dataclass
class Row:
    """One line of the issue's table: what is run, the goal, and what was measured."""

    job: str
    before: str                     # the "project" column
    goal: str
    goal_s: float | None
    repeat_s: float | None = None   # same command again (point / output cache)
    new_s: float | None = None      # warm caches, new -D values or a new loop
    anchor: str = "-"
    note: str = ""
    repeat_cpu: float | None = None
    new_cpu: float | None = None

    def measure(self, run: "Runner", kind: str, make_argv: Callable[[int], list[str]],
                warm_up: bool = True) -> None:
        """Median wall and CPU time of ``kind`` ('repeat' or 'new') runs."""
        setattr(self, f"{kind}_s", run.median(make_argv, warm_up))
        setattr(self, f"{kind}_cpu", run.last_cpu)

    @property
    def met(self) -> str:
        """By wall time; where only the CPU time meets the goal (a loaded host), says so."""
        if self.goal_s is None or (self.repeat_s is None and self.new_s is None):
            return "-"

        def verdict(wall: float, cpu: float | None) -> str:
            if wall <= self.goal_s:
                return "yes"
            return "no (CPU time: yes)" if cpu is not None and cpu <= self.goal_s else "no"
        parts = [f"{kind}: {verdict(wall, cpu)}" for kind, wall, cpu in
                 (("repeat", self.repeat_s, self.repeat_cpu), ("new", self.new_s, self.new_cpu))
                 if wall is not None]
        return "; ".join(parts)


class Runner:
    """Fresh processes with one cache directory and a clean environment."""

    def __init__(self, cache: Path, repeat: int):
        self.repeat = repeat
        # PYTHONDONTWRITEBYTECODE (set on this host) would make every process compile
        # the modules changed since the last bytecode was written: not a user's setup
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("KERNCRAFT_NO_CACHE", "KERNCRAFT_NO_REPORT_CACHE",
                                 "PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
        self.env["KERNCRAFT_CACHE_DIR"] = str(cache)
        self.cpu: list[float] = []      # CPU time (user + system) of every process run

    def once(self, argv: list[str], check: bool = True) -> tuple[float, str]:
        """(wall seconds, stderr) of one process; its CPU time goes to ``self.cpu``."""
        start = time.perf_counter()
        # cwd outside the tree: ``python -c`` puts it first on sys.path
        proc = subprocess.Popen(argv, cwd=tempfile.gettempdir(), env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        err = proc.stderr.read()
        proc.stderr.close()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        self.cpu.append(usage.ru_utime + usage.ru_stime)
        if check and proc.returncode != 0:
            raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}\n{err}")
        return wall, err

    def kerncraft(self, args: list[str], tool: str = "kerncraft") -> list[str]:
        return [sys.executable, "-c", ENTRY.format(tool.replace("incore", "kerncraft_incore")),
                *args]

    def median(self, make_argv: Callable[[int], list[str]], warm_up: bool = True) -> float:
        """Median wall time of ``make_argv(i)`` for i = 1..repeat (after one run of i=0);
        the median CPU time of those runs is left in ``self.last_cpu``."""
        if warm_up:
            self.once(make_argv(0))
        del self.cpu[:]
        wall = statistics.median(self.once(make_argv(i))[0] for i in range(1, self.repeat + 1))
        self.last_cpu = statistics.median(self.cpu)
        return wall


def x86_loop(instructions: int, salt: int = 0) -> str:
    """A marked AVX-512 loop of ``instructions`` instructions (loads, FMAs, stores,
    pointer increments); ``salt`` changes only a comment, so the text is new."""
    body, k = [], 0
    while len(body) < instructions - 3:
        r = k % 24
        body += [f"        vmovupd {64 * k}(%rsi,%rax), %zmm{r}",
                 f"        vfmadd231pd {64 * k}(%rdx,%rax), %zmm30, %zmm{r}",
                 f"        vmovupd %zmm{r}, {64 * k}(%rdi,%rax)"]
        k += 1
    body = body[:instructions - 3]
    return "\n".join([f"# generated loop {instructions} instructions, variant {salt}",
                      "        .text", "# OSACA-BEGIN", "# LLVM-MCA-BEGIN", ".L3:", *body,
                      f"        addq ${64 * k}, %rax", "        cmpq %rax, %rcx",
                      "        jne .L3", "# LLVM-MCA-END", "# OSACA-END", ""])


def ecm_rows(run: Runner, jobs: int) -> list[Row]:
    five = ["-p", "ECM", "-m", "CSX", FIVE]
    rows = []
    for predictor, label, before, goal, goal_s in (
            ("LC", "`-p ECM -P LC` (2d-5pt, N=M=1000, CSX)", "0.93 s", "<= 0.25 s", 0.25),
            ("SIM", "`-p ECM -P SIM` (same)", "2.8 s", "<= 1 s", 1.0)):
        row = Row(label, before, goal, goal_s)
        argv = five + ["-P", predictor, "-D", "N", "1000", "-D", "M"]
        row.measure(run, "repeat", lambda i, argv=argv: run.kerncraft(argv + ["1000"]))
        row.measure(run, "new", lambda i, argv=argv: run.kerncraft(argv + [str(1000 + i)]))
        rows.append(row)
    for points, before, goal, goal_s in ((20, "1.1 s", "-", None),
                                         (1000, "-", "<= 2 s", 2.0)):
        row = Row(f"{points}-point LC sweep (`-p ECM -P LC -D N 100-100000:{points} -D M "
                  "1000`)", before, goal, goal_s)
        row.measure(run, "repeat", lambda i: run.kerncraft(
            five + ["-D", "N", f"100-100000:{points}", "-D", "M", "1000"]))
        row.measure(run, "new", lambda i: run.kerncraft(
            five + ["-D", "N", f"100-100000:{points}", "-D", "M", str(1000 + i)]))
        rows.append(row)
    sweep = ["-p", "ECM", "-P", "SIM", "-m", "CSX", K27, "-D", "N", "20-200:10", "-D", "L", "50"]
    row = Row(f"10-point 3d-27pt SIM sweep (`-D N 20-200:10 -D M 50 -D L 50`, `-j {jobs}`)",
              "27 s, silent", "<= 5 s, progress, all cores", 5.0)
    row.measure(run, "repeat", lambda i: run.kerncraft(sweep + ["-D", "M", "50", "-j", str(jobs)]))
    # a first-time sweep takes tens of seconds: measured once (M=49: new points)
    row.new_s, err = run.once(run.kerncraft(sweep + ["-D", "M", "49", "-j", str(jobs)]))
    row.new_cpu = run.cpu[-1]
    row.note = (f"new -D: one run, {len(re.findall('points in', err))} progress line(s) on "
                "stderr")
    rows.append(row)
    return rows


def first_run_rows(run: Runner, tmp: Path) -> list[Row]:
    """A kernel analysed for the first time (`-p ECM`, 2d-5pt, CSX): each run in a fresh
    cache directory that holds only the compiled kernels of an earlier run (the issue's
    condition), or also the parsed machine file and port-model database (a machine file
    used before, the usual case)."""
    argv = run.kerncraft(["-p", "ECM", "-m", "CSX", FIVE, "-D", "N", "1000", "-D", "M", "1000"])
    saved = run.env["KERNCRAFT_CACHE_DIR"]
    warm = tmp / "first-run-warm"
    run.env["KERNCRAFT_CACHE_DIR"] = str(warm)
    rows = []
    try:
        run.once(argv)
        for kinds, label in ((("asm",), "only the compiled-kernel cache"),
                             (("asm", "machines", "incore-db"),
                              "compiled kernels, machine file and database cached")):
            walls = []
            del run.cpu[:]
            for i in range(run.repeat):
                cache = tmp / f"first-run-{len(kinds)}-{i}"
                for kind in kinds:
                    if (warm / kind).is_dir():
                        shutil.copytree(warm / kind, cache / kind)
                run.env["KERNCRAFT_CACHE_DIR"] = str(cache)
                walls.append(run.once(argv)[0])
            row = Row(f"first run of a kernel (`-p ECM`, 2d-5pt, CSX; {label})", "1.86 s",
                      "<= 0.6 s", 0.6)
            row.new_s, row.new_cpu = statistics.median(walls), statistics.median(run.cpu)
            rows.append(row)
    finally:
        run.env["KERNCRAFT_CACHE_DIR"] = saved
    return rows


def incore_rows(run: Runner, tmp: Path, refs: argparse.Namespace) -> list[Row]:
    rows = []
    llvm_mca = refs.ref_llvm_mca or shutil.which("llvm-mca")
    for count, before, goal in ((30, "0.38 s", "<= 0.1 s"), (379, "0.48 s", "<= llvm-mca")):
        files = []
        for i in range(refs.repeat + 1):
            path = tmp / f"loop{count}-{i}.s"
            path.write_text(x86_loop(count, i))
            files.append(str(path))
        row = Row(f"in-core, one {count}-instruction loop (`kerncraft-incore --arch CSX`)",
                  before, goal, 0.1 if count == 30 else None)
        row.measure(run, "repeat", lambda i: run.kerncraft(["--arch", "CSX", files[0]],
                                                          "incore"))
        row.measure(run, "new", lambda i: run.kerncraft(["--arch", "CSX", files[i]], "incore"),
                               warm_up=False)
        anchors = []
        if llvm_mca:
            t = run.median(lambda i: [llvm_mca, "-mcpu=cascadelake", files[i]])
            anchors.append(f"llvm-mca {t:.3f} s")
            if count == 379:
                row.goal_s, row.goal = t, f"<= llvm-mca ({t:.3f} s)"
        if refs.ref_osaca:
            t = run.median(lambda i: [refs.ref_osaca, "--arch", "CSX", files[i]])
            anchors.append(f"OSACA {t:.2f} s")
        row.anchor = ", ".join(anchors) or "-"
        rows.append(row)
    return rows


def _defines(source: str) -> list[str]:
    names = [c for c in "NMLPQ" if f"{c}]" in source or f"{c};" in source or f"< {c}" in source]
    value = "10000000" if len(names) <= 1 else "400"
    return [arg for n in names for arg in ("-D", n, value)]


def ecm_data_row(run: Runner) -> Row:
    cases = [(k, m) for k in sorted(KERNELS.glob("*.c")) for m in sorted(MACHINES.glob("*.yml"))
             if "isa: aarch64" not in m.read_text() or shutil.which("aarch64-linux-gnu-gcc")]
    repeat, new, repeat_cpu, new_cpu = [], [], [], []
    for kernel, machine in cases:
        base = ["-p", "ECMData", "-m", str(machine), str(kernel)]
        defines = _defines(kernel.read_text())
        if run.once(run.kerncraft(base + defines), check=False)[1]:
            continue                                    # refused (stderr): not a case
        repeat.append(run.once(run.kerncraft(base + defines))[0])
        repeat_cpu.append(run.cpu[-1])
        if machine.stem == "CSX":
            new.append(run.once(run.kerncraft(base + ["-D", ".", "401"]), check=False)[0])
            new_cpu.append(run.cpu[-1])
    row = Row(f"traffic only (`-p ECMData`), median over {len(repeat)} cases (bundled kernels x "
              "machine files; new -D: the kernels on CSX)", "0.92 s (485 cases)", "<= 0.2 s", 0.2)
    row.repeat_s, row.new_s = statistics.median(repeat), statistics.median(new)
    row.repeat_cpu, row.new_cpu = statistics.median(repeat_cpu), statistics.median(new_cpu)
    return row


def kerncraft_anchor(run: Runner, refs: argparse.Namespace, tmp: Path) -> str:
    if not (refs.ref_kerncraft and refs.ref_machine):
        return "-"
    kernel = tmp / "2d-5pt.c"       # Kerncraft writes its build files next to the kernel
    shutil.copyfile(FIVE, kernel)
    # -C gcc: the published file names clang first, and with clang installed Kerncraft's
    # in-core step fails on clang's loop (pointer increment not detected)
    argv = [refs.ref_kerncraft, "-p", "ECM", "-P", "LC", "-C", "gcc", "-m", refs.ref_machine,
            str(kernel), "-D", "N", "1000", "-D", "M", "1000"]
    wall = run.median(lambda i: argv, warm_up=False)
    return f"Kerncraft {wall:.2f} s (CPU {run.last_cpu:.2f} s)"


def import_breakdown(run: Runner) -> list[tuple[str, float]]:
    """Self import time (ms) per top-level package of a new-point ECM run."""
    argv = [sys.executable, "-X", "importtime", "-c", ENTRY.format("kerncraft"), "-p", "ECM",
            "-m", "CSX", FIVE, "-D", "N", "1000", "-D", "M", "777"]
    _, err = run.once(argv)
    own: dict[str, float] = defaultdict(float)
    for line in err.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if m:
            own[m[2].split(".")[0]] += int(m[1]) / 1e3
    return sorted(own.items(), key=lambda kv: -kv[1])


def sweep_profile(cache: Path, points: int = 1000) -> tuple[float, str]:
    """cProfile of a first-time sweep in this process (imports excluded)."""
    os.environ["KERNCRAFT_CACHE_DIR"] = str(cache)
    from kerncraft.cli.kerncraft import main

    base = ["-p", "ECM", "-m", "CSX", FIVE, "-D", "M", "2999", "-D", "N"]
    argv = base + [f"100-100000:{points}"]
    saved, sys.stdout = sys.stdout, io.StringIO()
    try:
        main(base + ["99"])                                        # imports, analysis
    finally:
        sys.stdout = saved
    profile, out = cProfile.Profile(), io.StringIO()
    saved, sys.stdout = sys.stdout, io.StringIO()
    start = time.perf_counter()
    try:
        profile.runcall(main, argv)
    finally:
        sys.stdout = saved
    wall = time.perf_counter() - start
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(
        r"kerncraft/(models|cache|kernel|incore/linesplit|machine/bandwidth)", 18)
    # paths relative to the checkout: no host paths in the tracked results
    lines = [ln.replace(f"{ROOT}/", "") for ln in out.getvalue().splitlines() if "kerncraft/" in ln]
    return wall, "\n".join(ln.strip() for ln in lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--write", action="store_true", help="replace RESULTS-speed.md")
    parser.add_argument("--ref-kerncraft", help="Kerncraft 0.8.x executable (anchor)")
    parser.add_argument("--ref-machine", help="its machine file for CSX")
    parser.add_argument("--ref-osaca", help="OSACA executable (anchor)")
    parser.add_argument("--ref-llvm-mca", help="llvm-mca executable (default: on PATH)")
    opts = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kerncraft-speed-") as tmp_name:
        tmp = Path(tmp_name)
        run = Runner(tmp / "cache", opts.repeat)
        floor = run.median(lambda i: [sys.executable, "-c", "pass"])
        sympy = run.median(lambda i: [sys.executable, "-c", "import sympy"])
        rows = ecm_rows(run, opts.jobs)
        rows[0].anchor = kerncraft_anchor(run, opts, tmp)
        rows += first_run_rows(run, tmp)
        rows += incore_rows(run, tmp, opts)
        rows.append(ecm_data_row(run))
        for row in rows:        # on stderr at once: the profiles below take a while
            print(row, file=sys.stderr, flush=True)
        imports = import_breakdown(run)
        sweep_wall, profile = sweep_profile(tmp / "cache")
    text = render(rows, floor, sympy, imports, sweep_wall, profile, opts)
    print(text)
    if opts.write:
        RESULTS.write_text(text)
    return 0


def _s(value: float | None, cpu: float | None = None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f} s" + (f" (CPU {cpu:.3f})" if cpu is not None else "")


def render(rows, floor, sympy, imports, sweep_wall, profile, opts) -> str:
    cpu = next((ln.split(":", 1)[1].strip() for ln in
                Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("model name")),
               platform.processor())
    table = ["| job | issue (before) | repeat run | warm, new -D / new loop | anchor | goal | "
             "met |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        job = r.job + (f"; {r.note}" if r.note else "")
        table.append(f"| {job} | {r.before} | {_s(r.repeat_s, r.repeat_cpu)} | "
                     f"{_s(r.new_s, r.new_cpu)} | {r.anchor} | {r.goal} | {r.met} |")
    heavy = ", ".join(f"{name} {ms:.0f} ms" for name, ms in imports[:8])
    return "\n".join([
        "# Speed of whole `kerncraft` runs (issue 13)", "",
        f"Written by `{'taskset -c 0 ' if len(os.sched_getaffinity(0)) == 1 else ''}python "
        f"benchmarks/bench_speed.py --write` on {cpu}, "
        f"{len(os.sched_getaffinity(0))} CPU(s) usable, Python {platform.python_version()}, "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}. Wall time of "
        f"whole processes, median of {opts.repeat}; floors: `python -c pass` {floor:.3f} s, "
        f"`python -c 'import sympy'` {sympy:.3f} s. CPU time (user + system, from "
        "`wait4`) in parentheses: on a loaded host it is the better estimate of the wall "
        "time on a quiet one.", "",
        *table, "",
        "*repeat run*: the same command again, answered from the point cache "
        "(`kerncraft/memo/reports.py`; `kerncraft-incore`: its output cache). *new -D / new "
        "loop*: warm compiler, in-core and database caches, but -D values (or an assembly "
        "text) not seen before, so the models run.", "",
        f"Anchors: {anchors(opts)}. The SIM sweep runs with `-j` = the CPUs this process may "
        "use (1 when pinned with `taskset -c 0`, so no parallel speed-up shows here).", "",
        "## Where a new-point run spends its time", "",
        "Self import time per package (`python -X importtime`, ECM, N=1000, M=777): "
        f"{heavy}.", "",
        f"First-time 1000-point ECM sweep in one process after the imports, under cProfile: "
        f"{sweep_wall:.2f} s, i.e. {sweep_wall:.2f} ms per point (the profiler roughly doubles "
        "it). Cumulative time of kerncraft functions:", "",
        "```", profile, "```", "", *gaps(rows, imports, sweep_wall), ""]) + "\n" + HISTORY


def anchors(opts: argparse.Namespace) -> str:
    """The anchor executables that were timed (none: not installed or not given)."""
    tools = [("Kerncraft", opts.ref_kerncraft), ("OSACA", opts.ref_osaca),
             ("llvm-mca", opts.ref_llvm_mca or shutil.which("llvm-mca"))]
    # the executable's name, not its path: no host paths in the tracked results
    named = [f"{name} `{Path(path).name}`" for name, path in tools if path]
    return ", ".join(named) if named else "none installed"


def gaps(rows: list[Row], imports: list[tuple[str, float]], sweep_wall: float) -> list[str]:
    """What the numbers say about the goals that are not met."""
    ms = dict(imports)
    symbolic = sum(ms.get(p, 0.0) for p in ("sympy", "mpmath", "pycparser", "networkx"))
    lines = ["## Goals not met, and why", ""]
    for r in rows:
        if r.goal_s is None:
            continue
        if r.repeat_s is not None and r.repeat_s > r.goal_s:
            lines.append(f"* {r.job}: the repeated run takes {r.repeat_s:.3f} s wall, "
                         f"{r.repeat_cpu:.3f} s CPU (goal {r.goal}).")
        if r.new_s is not None and r.new_s > r.goal_s:
            lines.append(f"* {r.job}, new -D / new loop: {r.new_s:.3f} s (goal {r.goal}).")
    lines += ["", "A new -D point of LC, ECM, ECMData or RooflineFLOP is computed from the "
              "run's point plan (`kerncraft/models/point_plan.py`): no sympy, pycparser or "
              f"YAML is imported (their self import time in a *first* run: {symbolic:.0f} ms "
              "above). A first-time sweep costs "
              f"{sweep_wall:.1f} ms per point under the profiler (about half without): the "
              "ECM scaling table evaluates the layer conditions once per distinct cache share "
              "and the line-split estimate per point. The 379-instruction row keeps issue "
              "13's goal (llvm-mca's own time); issue 27 asks 1 s for 1,000 instructions."]
    return lines


HISTORY = """## History

* Before issue 13 (same VM, quiet): warm `-p ECM` 0.68-0.83 s, of which `import sympy`
  0.36 s and kerncraft's own imports 0.18 s; a 50-point sweep 1.15-1.2 s. The in-core
  result cache (`kerncraft/memo/incore_analyses.py`) had removed the assembly parser and
  networkx from warm ECM runs; the port-model databases are read from a JSON form keyed by
  the YAML's hash (`kerncraft/incore/dbfile.py`) and never parsed as YAML on a warm run.
* `bench_ecm_wall.py` (cold/warm/sweep of one ECM case, with `-X importtime`) and
  `bench_lc_sweep.py` (in-process LC evaluation per point) remain for finer questions.
"""


if __name__ == "__main__":
    sys.exit(main())
