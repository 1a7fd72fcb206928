"""Run fuzz inputs through the CLI's ``main(argv)`` (in-process) and the API.

For every input of :mod:`corpus` the runner asserts:

* the exit code is 0 or 2 (argparse's usage errors exit 2 as well);
* nothing but a :class:`~kerncraft.errors.KerncraftError` is raised, and the CLI
  lets none escape (no traceback);
* an error that names a mutated kernel or machine file says where in it
  (``file:line``): those inputs have a location;
* with ``--json`` every number is finite, and the predictions are positive
  (ECM's ``prediction``, Roofline's ``cycles_per_cl`` and ``performance``) or at
  least not negative (ECMData's per-link values; null, i.e. unbounded, for a link that
  moves nothing when the unit is It/s or FLOP/s);
* each input ends within the time bound (``--seconds``, default 10 s; 120 s for
  inputs that compile); a run over it is reported as a hang.

Short run (the pytest test ``tests/fuzz/test_fuzz.py``): 300 inputs, seed 15.
Long run, with a few compiling inputs (about 25 minutes for 10,000 on 2 cores)::

    python tests/fuzz/runner.py --seed 15 --count 10000 --compile-share 0.01

``--only I`` replays input I of the seed and prints it; ``--show`` prints every
finding with its input. The summary line gives inputs, crashes, hangs, unlocated
errors, bad outputs, exit codes and the slowest inputs.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):   # run as a script: make 'fuzz' importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz.corpus import Case, cases, make_case  # noqa: E402

from kerncraft.cli.kerncraft import main  # noqa: E402
from kerncraft.errors import KerncraftError  # noqa: E402


class Hang(BaseException):
    """Raised by the timer when an input runs over its bound."""


@dataclass
class Outcome:
    index: int
    code: int | None
    seconds: float
    problems: list[str] = field(default_factory=list)


def run_case(case: Case, workdir: Path, seconds: float) -> Outcome:
    """Write the case's files, run it through the CLI (and the API), check it."""
    kernel = workdir / f"k{case.index}_{case.kernel_name}"
    kernel.write_text(case.kernel_text, encoding="utf-8", errors="surrogateescape")
    machine = case.machine_name
    if case.machine_data is not None:
        machine = str(workdir / f"m{case.index}.yml")
        Path(machine).write_bytes(case.machine_data)
    argv = case.argv + ["-m", machine, str(kernel)]
    start = time.perf_counter()
    outcome = Outcome(case.index, None, 0.0)
    def check() -> None:
        outcome.code, out, err = call_main(main, argv)
        outcome.problems.extend(_check_cli(case, outcome.code, out, err, kernel, machine))
        if case.api:
            outcome.problems.extend(_check_api(case, kernel, machine))

    outcome.problems.extend(guarded(check, seconds))
    outcome.seconds = time.perf_counter() - start
    return outcome


def guarded(check, seconds: float) -> list[str]:
    """Run ``check()`` within ``seconds``; a hang or any escaping exception is a finding."""
    with _time_bound(seconds):
        try:
            check()
        except Hang:
            return [f"hang: over {seconds:g} s"]
        except BaseException as exc:   # noqa: B902 - a crash is what we look for
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            return [f"crash: {type(exc).__name__} at {Path(frame.filename).name}:"
                    f"{frame.lineno} ({frame.name}): {str(exc)[:120]}"]
    return []


@contextlib.contextmanager
def _time_bound(seconds: float):
    def expire(signum, frame):
        raise Hang()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def call_main(entry, argv: list[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of a command's ``main(argv)`` run in-process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = entry(argv)
        except SystemExit as exc:   # argparse: usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def _check_cli(case: Case, code: int, out: str, err: str, kernel: Path, machine: str) -> list[str]:
    problems = []
    if code not in (0, 2):
        problems.append(f"exit code {code}: {err.strip()[-200:]}")
    if "Traceback" in err or "Traceback" in out:
        problems.append("traceback printed")
    if code == 2 and err.startswith("kerncraft: error: "):
        message = err[len("kerncraft: error: "):]
        for path in (str(kernel), machine):
            mutated = (case.mutated == "kernel" and path == str(kernel)) or \
                (case.mutated == "machine" and path == machine)
            if mutated and message.startswith(path + ":") \
                    and not message[len(path) + 1:].split(":")[0].isdigit():
                problems.append(f"unlocated: {message.strip()[:200]}")
    if code == 0 and "--json" in case.argv:
        start = 0 if out.startswith("{\n") else out.find("\n{\n") + 1
        problems += check_document(out[start:] if start or out.startswith("{") else "{}")
    return problems


def check_document(text: str) -> list[str]:
    """Problems of a --json document: non-finite or non-positive predictions."""
    try:
        document = json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(
            ValueError(f"non-finite number {name}")))
    except ValueError as exc:
        return [f"bad JSON: {exc}"]
    problems = []
    for point in document.get("points", []):
        for name, result in point.get("models", {}).items():
            problems += check_result(name, result)
    return problems


def check_result(name: str, result: dict) -> list[str]:
    positive = {"ECM": ("prediction",), "RooflineFLOP": ("cycles_per_cl", "performance")}
    problems = [f"{name}.{key} = {result.get(key)!r}, not a positive number"
                for key in positive.get(name, ()) if not _positive(result.get(key))]
    if name == "ECMData":   # in It/s or FLOP/s a link that moves nothing is unbounded: null
        unbounded = (None,) if result.get("unit") in ("It/s", "FLOP/s") else ()
        problems += [f"ECMData value {k} = {v!r}" for k, v in result.get("values", {}).items()
                     if v not in unbounded and not (isinstance(v, (int, float))
                                                    and math.isfinite(v) and v >= 0)]
    return problems


def _positive(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def _check_api(case: Case, kernel: Path, machine: str) -> list[str]:
    """The same input through kerncraft.api.analyze: a result or a KerncraftError."""
    from kerncraft.api import analyze

    defines = {case.argv[i + 1]: case.argv[i + 2] for i, arg in enumerate(case.argv[:-2])
               if arg == "-D"}
    try:
        values = {k: int(v) for k, v in defines.items()}
    except ValueError:
        return []   # ranges and junk: the CLI path covers them
    try:
        result = analyze(str(kernel), machine, model=case.argv[1], defines=values)
        data = result.to_dict() if hasattr(result, "to_dict") else {}
    except KerncraftError:
        return []
    return [f"API {p}" for p in check_result(case.argv[1], data)]


def run(seed: int, count: int, seconds: float, compile_share: float = 0.0,
        only: int | None = None) -> tuple[list[Outcome], list[Case]]:
    chosen = [make_case(seed, only, compile_share)] if only is not None \
        else cases(seed, count, compile_share)
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="kerncraft-fuzz-") as tmp:
        for case in chosen:
            bound = seconds if case.argv[1] not in ("ECM", "ECMCPU") else max(seconds, 120)
            outcomes.append(run_case(case, Path(tmp), bound))
    return outcomes, chosen


def summary(outcomes: list[Outcome], what: str = "inputs") -> str:
    kinds = Counter(p.split(":")[0] for o in outcomes for p in o.problems)
    codes = Counter(o.code for o in outcomes)
    slowest = sorted(outcomes, key=lambda o: -o.seconds)[:3]
    total = sum(o.seconds for o in outcomes)
    return (f"{len(outcomes)} {what} in {total:.1f} s: "
            f"{sum(1 for o in outcomes if o.problems)} with problems {dict(kinds)}; "
            f"exit codes {dict(codes)}; slowest "
            + ", ".join(f"#{o.index} {o.seconds:.2f} s" for o in slowest))


def fuzz_parser(description: str, seed: int, count: int) -> argparse.ArgumentParser:
    """The options every fuzz runner has (``--seed --count --seconds --only --show``)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--count", type=int, default=count)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--only", type=int, default=None)
    parser.add_argument("--show", action="store_true")
    return parser


def report(outcomes: list[Outcome], labels: list[str], show: bool, what: str = "inputs") -> int:
    """Print the findings (with their input's label when ``show``) and the summary line;
    exit code 1 when anything was found."""
    for outcome, label in zip(outcomes, labels):
        if outcome.problems and show:
            print(label)
            for problem in outcome.problems:
                print(f"    {problem}")
    print(summary(outcomes, what))
    return 1 if any(o.problems for o in outcomes) else 0


def cli(argv: list[str] | None = None) -> int:
    parser = fuzz_parser(__doc__.splitlines()[0], seed=15, count=300)
    parser.add_argument("--compile-share", type=float, default=0.0)
    args = parser.parse_args(argv)
    outcomes, chosen = run(args.seed, args.count, args.seconds, args.compile_share, args.only)
    labels = [f"#{c.index} [{c.mutated}: {', '.join(c.notes)}] {c.argv}" for c in chosen]
    return report(outcomes, labels, args.show or args.only is not None)


if __name__ == "__main__":
    sys.exit(cli())
