"""Wall and user time of whole ``kerncraft`` processes (what a user waits for).

Run: ``python benchmarks/bench_ecm_wall.py [--repeat 5] [--no-breakdown]``
from anywhere; results are the best of ``--repeat`` fresh processes.

Cases (2d-5pt on CSX):

1. ``-p ECM -D N 1000 -D M 1000``, *cold*: every process gets an empty
   ``KERNCRAFT_CACHE_DIR`` and ``XDG_CACHE_HOME`` (so it compiles, converts the
   port-model YAML, parses the assembly and analyses the loop);
2. the same, *warm*: repeated with the caches filled by a first run (the
   normal case: the compiler cache and the in-core result cache hit);
3. ``-v -p LC -D N 1000 -D M 1000`` (no compiler, no in-core analysis);
4. ``-p ECM -D N 100-10000:50 -D M 1000``: a 50-point sweep, warm. The
   in-core result does not depend on N (run-time constants, one compilation),
   so the sweep should cost one run plus a few ms per point.

Then it shows what dominates the warm ECM run: ``python -X importtime``
grouped by top-level package (self time), the largest imports, and the time
left for actual work. Floors for comparison: ``python -c pass`` and
``python -c "import sympy"`` (the kernel front end builds sympy expressions,
so sympy is imported by every run that parses a kernel).

The processes run the installed console script's entry point
(``kerncraft.cli.kerncraft:main``) with this interpreter (no pyenv/shell shims).
User time is the child's user CPU time from ``wait4``. Do not compare numbers
taken while other jobs load the machine with quiet-machine numbers; the
script prints the load average next to the results.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL = str(ROOT / "kernels" / "2d-5pt.c")
ENTRY = "from kerncraft.cli.scripts import kerncraft; kerncraft()"   # the console script
ECM = ["-p", "ECM", "-m", "CSX", KERNEL, "-D", "N", "1000", "-D", "M", "1000"]
LC = ["-v", "-p", "LC", "-m", "CSX", KERNEL, "-D", "N", "1000", "-D", "M", "1000"]
SWEEP = ["-p", "ECM", "-m", "CSX", KERNEL, "-D", "N", "100-10000:50", "-D", "M", "1000"]


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """(wall s, user s, exit code, stderr) of one fresh process."""
    start = time.perf_counter()
    # cwd: not the source tree, whose kerncraft/ would shadow PYTHONPATH (``-c``
    # puts the working directory first on sys.path)
    proc = subprocess.Popen(argv, cwd=tempfile.gettempdir(), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime, proc.returncode, err


def best_of(argv, repeat: int, env_for_run) -> tuple[float, float]:
    walls, users = [], []
    for i in range(repeat):
        wall, user, code, err = run_once(argv, env_for_run(i))
        if code != 0:
            raise SystemExit(f"command failed ({code}): {' '.join(argv)}\n{err}")
        walls.append(wall)
        users.append(user)
    return min(walls), min(users)


def best_of_interleaved(argv, repeat: int, envs: list) -> list[tuple[float, float]]:
    """Best (wall, user) per environment, the runs of the environments interleaved so
    that a change of machine load hits all of them alike."""
    walls: list[list[float]] = [[] for _ in envs]
    users: list[list[float]] = [[] for _ in envs]
    for i in range(repeat):
        for k, env_for_run in enumerate(envs):
            wall, user, code, err = run_once(argv, env_for_run(i))
            if code != 0:
                raise SystemExit(f"command failed ({code}): {' '.join(argv)}\n{err}")
            walls[k].append(wall)
            users[k].append(user)
    return [(min(w), min(u)) for w, u in zip(walls, users)]


def import_breakdown(env: dict[str, str]) -> None:
    argv = [sys.executable, "-X", "importtime", "-c", ENTRY, *ECM]
    _, _, code, err = run_once(argv, env)
    if code != 0:
        print(f"  (importtime run failed: {code})")
        return
    own: dict[str, int] = defaultdict(int)
    top: list[tuple[int, str]] = []
    total = 0
    for line in err.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if not m:
            continue
        self_us, cum_us, depth, name = int(m[1]), int(m[2]), (len(m[3]) - 1) // 2, m[4]
        own[name.split(".")[0]] += self_us
        if depth == 0:
            total += cum_us
            top.append((cum_us, name))
    print(f"  all imports: {total / 1e3:.0f} ms (sum of top-level cumulative times)")
    print("  self time by top-level package:")
    for name, us in sorted(own.items(), key=lambda kv: -kv[1])[:10]:
        print(f"    {name:28s} {us / 1e3:7.1f} ms")
    print("  largest top-level imports (cumulative, in import order of first use):")
    for us, name in sorted(top, reverse=True)[:8]:
        print(f"    {name:40s} {us / 1e3:7.1f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-breakdown", action="store_true")
    parser.add_argument("--compare", metavar="DIR", default=None,
                        help="also time the kerncraft package found in DIR (put first on "
                             "PYTHONPATH), e.g. a copy of the tree before a change")
    opts = parser.parse_args(argv)
    py = sys.executable
    base_env = {k: v for k, v in os.environ.items()
                if k not in ("KERNCRAFT_NO_CACHE", "KERNCRAFT_CACHE_DIR", "PYTHONPATH")}
    variants = [("this tree", {})]
    if opts.compare:
        variants.append((opts.compare, {"PYTHONPATH": str(Path(opts.compare).resolve())}))
    with tempfile.TemporaryDirectory(prefix="kerncraft-bench-") as tmp:
        def cold(extra):
            def env(i: int) -> dict[str, str]:
                d = Path(tempfile.mkdtemp(prefix="cold", dir=tmp))
                return dict(base_env, KERNCRAFT_CACHE_DIR=str(d), XDG_CACHE_HOME=str(d), **extra)
            return env

        def warm(k, extra):
            d = Path(tmp, f"warm{k}")
            d.mkdir(exist_ok=True)
            env = dict(base_env, KERNCRAFT_CACHE_DIR=str(d), XDG_CACHE_HOME=str(d), **extra)
            return lambda i: env

        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; best of {opts.repeat}"
              + (f"; columns: {' | '.join(name for name, _ in variants)}" if opts.compare
                 else ""))
        for label, cmd in (("python -c pass", [py, "-c", "pass"]),
                           ("python -c 'import sympy'", [py, "-c", "import sympy"])):
            wall, user = best_of(cmd, opts.repeat, lambda i: base_env)
            print(f"  {label:30s} {wall:6.3f} s wall {user:6.3f} s user")
        warm_envs = [warm(k, extra) for k, (_, extra) in enumerate(variants)]
        for env in warm_envs:                                     # fill the caches
            run_once([py, "-c", ENTRY, *ECM], env(0))
            run_once([py, "-c", ENTRY, *SWEEP], env(0))
        results = {}
        cases = [("ECM 2d-5pt, cold caches", ECM, [cold(extra) for _, extra in variants]),
                 ("ECM 2d-5pt, warm", ECM, warm_envs),
                 ("-v -p LC 2d-5pt", LC, warm_envs),
                 ("ECM sweep, 50 points, warm", SWEEP, warm_envs)]
        for label, args, envs in cases:
            results[label] = best_of_interleaved([py, "-c", ENTRY, *args], opts.repeat, envs)
            print(f"  {label:30s} " + " | ".join(f"{w:6.3f} s wall {u:6.3f} s user"
                                                 for w, u in results[label]))
        per_point = [(sweep[0] - single[0]) / 49 * 1e3 for single, sweep in
                     zip(results["ECM 2d-5pt, warm"], results["ECM sweep, 50 points, warm"])]
        print(f"  {'sweep cost per extra point':30s} "
              + " | ".join(f"{ms:6.1f} ms wall" for ms in per_point))
        print(f"  load average now: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if not opts.no_breakdown:
            print("\nwhat the warm ECM run (this tree) spends its time on:")
            import_breakdown(warm_envs[0](0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
