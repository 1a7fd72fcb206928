"""Fuzzing of the stand-alone in-core analyzer (``kerncraft-incore``) with mutated assembly.

Inputs are the recorded compiler outputs and paper loops under ``tests/data/asm*``
(x86 and AArch64), mutated by a seeded generator: lines deleted, duplicated, swapped or
truncated; operands replaced by other registers, immediates, memory forms or junk;
mnemonics replaced; labels, directives, markers, very long lines, control characters
and bytes that are not UTF-8 inserted. Each input is analysed in-process by
``kerncraft.cli.incore.main`` for a randomly chosen database (every bundled one, also
the wrong ISA for the file), sometimes with ``--json -``, ``--unroll`` or ``--fixed``.

Every input must: exit 0 or 2 (never a traceback, never an exception other than the
project's errors escaping), give finite, non-negative numbers in ``--json`` and end
within the time bound. Short run: ``tests/fuzz/test_fuzz.py`` (200 inputs). Long run::

    python tests/fuzz/asm_fuzz.py --seed 7 --count 5000

(``--only I`` replays input I and prints it.)
"""
from __future__ import annotations

import json
import math
import random
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):   # run as a script: make 'fuzz' importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz.runner import Outcome, call_main, fuzz_parser, guarded, report  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for d in ("asm", "asm_papers", "asm_aarch64", "asm_memdeps")
                 for p in (ROOT / "tests" / "data" / d).glob("*.s"))
ARCHS = ("SKX", "CSX", "ICX", "SPR", "ZEN", "ZEN2", "ZEN5", "TX2")
_OPERANDS = ("%rax", "%xmm0", "%ymm15", "%zmm31", "%k1", "$0", "$-1", "$0x7fffffffffffffff",
             "(%rax)", "8(%rsp,%rdx,8)", "-64(%r13,%rax)", "%rip", "x0", "w3", "v1.2d",
             "q0", "d5", "z0.d", "p0/m", "[x8], #64", "[x1, x2, lsl #3]", "#0", "#-1",
             "(,%rax,3)", "%st(0)", "%cr0", "foo@PLT", ".L3", "", ",", "[", "]", "{", "}")
_MNEMONICS = ("vaddpd", "vfmadd231pd", "vdivpd", "addq", "cmpq", "jne", "jmp", "call", "ret",
              "vmovupd", "movq", "lea", "imul", "div", "fadd", "fmla", "ldr", "str", "stp",
              "ldp", "b.ne", "subs", "cbnz", "nop", "ud2", "rep movsb", "lock addq",
              "vpgatherdd", "xchg", "cpuid", "syscall", "bogus.op", "vaddpd{sae}")
_LINES = (".L99:", "    .p2align 4", "    .byte 100,103,144", "# OSACA-BEGIN", "# OSACA-END",
          "# LLVM-MCA-BEGIN", "# LLVM-MCA-END", "    movl $111, %ebx", "    movl $222, %ebx",
          "// OSACA-BEGIN", "    .text", "    .section .data", "label_without_colon",
          "    jne .L99", "    b.ne .L99", "1:", "    jmp 1b", "\t\t\t", "",
          "    " + "vaddpd %ymm0, %ymm1, %ymm2; " * 200, "\x00\x01\x02", "\u00e9\u00e8")


def mutate(rng: random.Random, text: str, notes: list[str]) -> bytes:
    """Apply 1-4 random mutations to an assembly text; may return non-UTF-8 bytes."""
    lines = text.splitlines()
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(("delete", "duplicate", "swap", "operand", "mnemonic", "insert",
                           "truncate", "bytes"))
        notes.append(kind)
        if not lines:
            lines = [""]
        at = rng.randrange(len(lines))
        if kind == "delete":
            del lines[at]
        elif kind == "duplicate":
            lines[at:at] = [lines[at]] * rng.randint(1, 50)
        elif kind == "swap":
            other = rng.randrange(len(lines))
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == "operand":
            parts = lines[at].split(",")
            parts[rng.randrange(len(parts))] = " " + rng.choice(_OPERANDS)
            lines[at] = ",".join(parts)
        elif kind == "mnemonic":
            fields = lines[at].split(None, 1)
            lines[at] = "    " + rng.choice(_MNEMONICS) + (" " + fields[1] if len(fields) > 1 else "")
        elif kind == "insert":
            lines.insert(at, rng.choice(_LINES))
        elif kind == "truncate":
            lines = lines[:at] + [lines[at][:rng.randrange(len(lines[at]) + 1)]]
    data = "\n".join(lines).encode("utf-8", errors="surrogateescape") + b"\n"
    if "bytes" in notes:
        spot = rng.randrange(len(data) + 1)
        data = data[:spot] + bytes(rng.choice((b"\xff\xfe", b"\x80", b"\x1b[2J", b"\x00")))\
            + data[spot:]
    return data


def make_case(seed: int, index: int) -> tuple[list[str], bytes, list[str]]:
    """(argv without the file, file bytes, notes) of input ``index``."""
    rng = random.Random(f"asm:{seed}:{index}")
    source = rng.choice(SOURCES)
    notes = [source.name]
    data = mutate(rng, source.read_text(), notes)
    argv = ["--arch", rng.choice(ARCHS)]
    if rng.random() < 0.4:
        argv += ["--json", "-"]
    if rng.random() < 0.2:
        argv += ["--unroll", rng.choice(("1", "4", "0", "-2", "x", "100000"))]
    if rng.random() < 0.1:
        argv.append("--fixed")
    if rng.random() < 0.1:
        argv.append("--ignore-unknown")
    return argv, data, notes


def run_case(seed: int, index: int, workdir: Path, seconds: float) -> Outcome:
    from kerncraft.cli.incore import main

    argv, data, _ = make_case(seed, index)
    path = workdir / f"a{index}.s"
    path.write_bytes(data)
    outcome = Outcome(index, None, 0.0)
    start = time.perf_counter()

    def check() -> None:
        outcome.code, out, err = call_main(main, argv + [str(path)])
        outcome.problems.extend(_check(outcome.code, out, err, argv))

    outcome.problems.extend(guarded(check, seconds))
    outcome.seconds = time.perf_counter() - start
    return outcome


def _check(code: int | None, out: str, err: str, argv: list[str]) -> list[str]:
    problems = []
    if code not in (0, 2, None):
        problems.append(f"exit code {code}: {err.strip()[-200:]}")
    if "Traceback" in out or "Traceback" in err:
        problems.append("traceback printed")
    if code == 0 and "--json" in argv:
        try:
            document = json.loads(out, parse_constant=lambda name: (_ for _ in ()).throw(
                ValueError(f"non-finite number {name}")))
        except ValueError as exc:
            return problems + [f"bad JSON: {exc}"]
        numbers = {k: document.get(k) for k in ("throughput", "critical_path", "lcd")}
        if not all(isinstance(v, (int, float)) and math.isfinite(v) and v >= 0
                   for v in numbers.values()):
            problems.append(f"bad numbers {numbers}")
    return problems


def run(seed: int, count: int, seconds: float = 10.0, only: int | None = None
        ) -> list[Outcome]:
    indices = [only] if only is not None else range(count)
    with tempfile.TemporaryDirectory(prefix="kerncraft-asm-fuzz-") as tmp:
        return [run_case(seed, i, Path(tmp), seconds) for i in indices]


def cli(argv: list[str] | None = None) -> int:
    args = fuzz_parser(__doc__.splitlines()[0], seed=7, count=200).parse_args(argv)
    outcomes = run(args.seed, args.count, args.seconds, args.only)
    labels = []
    for outcome in outcomes:
        command, _, notes = make_case(args.seed, outcome.index)
        labels.append(f"#{outcome.index} [{', '.join(notes)}] {command}")
    return report(outcomes, labels, args.show or args.only is not None, "assembly inputs")


if __name__ == "__main__":
    sys.exit(cli())
