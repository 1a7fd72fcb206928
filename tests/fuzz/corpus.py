"""Seeded corpus generator: mutated kernels, machine files and command lines.

Every input is a :class:`Case`: the files to write (a kernel and a machine
file, either a bundled one or a mutation of it), the command line, whether it
also goes through the Python API, and what was mutated (so that the runner
knows where a located error is due). ``cases(seed, count)`` is a pure function
of its arguments: the same seed gives the same inputs on every machine, so a
finding can be replayed by its index (``runner.py --seed S --only I``).

Mix (per input, by a seeded draw): 40 % mutated kernels, 35 % mutated machine
files, 25 % mutated command lines; the models are the ones that do not compile
(LC, ECMData, RooflineFLOP) unless ``compile_share`` asks for some ECM/ECMCPU.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KERNELS = sorted((ROOT / "kernels").glob("*.c"))
MACHINES = sorted((ROOT / "machine-files").glob("*.yml"))
FAST_MODELS = ("LC", "ECMData", "RooflineFLOP")
COMPILING_MODELS = ("ECM", "ECMCPU")

_C_TOKENS = ("(", ")", "[", "]", "{", "}", ";", "+", "-", "*", "/", "%", "?", ":", "=", ",",
             "0", "-1", "1e308", "0x7fffffffffffffff", "N", "M", "i", "j", "k", "a[i]",
             "a[i][j]", "for", "int", "double", "float", "long", "sqrt(", "#define X 1",
             "/*", "*/", "//", "\x00", "\u00e9", "\"s\"", "'c'", "i++", "--j", "&a", "...")
_YAML_VALUES = ("0", "-1", "1e-300", ".inf", "-.inf", ".nan", "1e300", "3", "4", "7", "48",
                "abc", "", "[", "]", "{", "~", "null", "true", "0 B", "-64 B", "1 PB",
                "2.5 GHz", "0 GHz", "64 B/cy", "0 B/cy", "INFORMATION_REQUIRED", "99999999999",
                "[1, 2", "{a: 1}", "- x", "!!omap", "&anchor", "*alias", "'quoted'")
_D_VALUES = ("1", "2", "3", "7", "16", "100", "1000", "4000", "10000", "1000000", "0", "-5",
             "x", "1-100:5", "1-1000:4log", "100-10", "1-10:0", "1-1000000:20000",
             "10-20:3log1", "99999999999999999999", "5-5")
_OPTIONS = (("-c", ("1", "2", "4", "20", "40", "41", "100000", "0", "-1", "x")),
            ("--unit", ("cy/CL", "cy/It", "It/s", "FLOP/s", "bogus")),
            ("-P", ("LC", "LC", "LC", "SIM", "XX")),
            ("-v", None), ("--json", ("-",)),
            ("-p", ("LC", "ECMData", "RooflineFLOP", "Roofline", "lc", "NoSuchModel")),
            ("--cores", ("3",)), ("-D", None))


@dataclass
class Case:
    """One fuzz input; ``mutated`` is 'kernel', 'machine' or 'cli'."""

    index: int
    mutated: str
    argv: list[str]
    kernel_name: str
    kernel_text: str
    machine_name: str
    machine_data: bytes | None          # None: the bundled file by name
    api: bool = False
    notes: list[str] = field(default_factory=list)


def cases(seed: int, count: int, compile_share: float = 0.0) -> list[Case]:
    """``count`` inputs from ``seed`` (see the module doc)."""
    return [make_case(seed, index, compile_share) for index in range(count)]


def make_case(seed: int, index: int, compile_share: float = 0.0) -> Case:
    rng = random.Random(f"{seed}:{index}")
    kernel_path = rng.choice(KERNELS)
    machine_path = rng.choice(MACHINES)
    kind = rng.choices(("kernel", "machine", "cli"), weights=(40, 35, 25))[0]
    compiling = rng.random() < compile_share
    model = rng.choice(COMPILING_MODELS if compiling else FAST_MODELS)
    case = Case(index, kind, [], kernel_path.name, kernel_path.read_text(),
                machine_path.stem, None, api=rng.random() < 0.3)
    if kind == "kernel":
        case.kernel_text = mutate_kernel(rng, case.kernel_text, case.notes)
    elif kind == "machine":
        case.machine_data = mutate_machine(rng, machine_path.read_bytes(), case.notes)
    case.argv = ["-p", model] + defines_for(rng, case.kernel_text)
    if kind == "cli":
        case.argv += mutate_options(rng, case.notes)
    return case


def defines_for(rng: random.Random, kernel_text: str) -> list[str]:
    """-D values for the kernel's constants: mostly sensible sizes, sometimes odd."""
    names = sorted(set(re.findall(r"\b[A-Z][A-Z0-9_]*\b", kernel_text)))[:4] or ["N"]
    argv: list[str] = []
    for name in names:
        value = rng.choice(("100", "1000", "4000", "20", "3")) if rng.random() < 0.85 \
            else rng.choice(_D_VALUES)
        argv += ["-D", name, value]
    if rng.random() < 0.1:
        argv += ["-D", ".", rng.choice(("20", "1", "1000"))]
    return argv


# ------------------------------------------------------------ kernels

def mutate_kernel(rng: random.Random, text: str, notes: list[str]) -> str:
    """One to three mutations of a kernel's source."""
    return _apply(rng, text, _KERNEL_MUTATIONS, notes)


def _apply(rng: random.Random, data, operations, notes: list[str]):
    """One to three operations drawn from ``operations``, their names in ``notes``."""
    for _ in range(rng.randint(1, 3)):
        operation = rng.choice(operations)
        notes.append(operation.__name__)
        data = operation(rng, data)
    return data


def _insert_token(rng: random.Random, text: str) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(_C_TOKENS) + text[at:]


def _delete_span(rng: random.Random, text: str) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + text[at + rng.randint(1, 12):]


def _duplicate_span(rng: random.Random, text: str) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + text[at:at + rng.randint(1, 40)] + text[at:]


def _swap_lines(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


def _replace_number(rng: random.Random, text: str) -> str:
    numbers = list(re.finditer(r"\b\d+\b", text))
    if not numbers:
        return text
    match = rng.choice(numbers)
    value = rng.choice(("0", "1", "99", "-3", "1000000", str(2 ** 40), "2.5"))
    return text[:match.start()] + value + text[match.end():]


def _deep_parentheses(rng: random.Random, text: str) -> str:
    depth = rng.choice((10, 60, 65, 200, 500))
    return re.sub(r"= ([^;]+);", lambda m: "= " + "(" * depth + m[1] + ")" * depth + ";",
                  text, count=1)


def _long_sum(rng: random.Random, text: str) -> str:
    arrays = re.findall(r"\bdouble (\w+)\[N\]", text)
    terms = rng.choice((50, 500, 2000))
    if not arrays or "for" not in text:
        return text
    total = " + ".join(f"{arrays[0]}[i]" for _ in range(terms))
    return re.sub(r"= ([^;]+);", lambda m: f"= {m[1]} + {total};", text, count=1) \
        if "[i]" in text else text


def _odd_loop_start(rng: random.Random, text: str) -> str:
    start = rng.choice(("99", "-5", "N", "N+1", "1000000"))
    return re.sub(r"=\s*\d+\s*;", f"={start};", text, count=1)


_KERNEL_MUTATIONS = (_insert_token, _insert_token, _delete_span, _duplicate_span,
                     _swap_lines, _replace_number, _replace_number, _deep_parentheses,
                     _long_sum, _odd_loop_start)


# ------------------------------------------------------------ machine files

def mutate_machine(rng: random.Random, data: bytes, notes: list[str]) -> bytes:
    """One to three mutations of a machine file (bytes: some make it non-UTF-8)."""
    return _apply(rng, data, _MACHINE_MUTATIONS, notes)


def _replace_value(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    candidates = [i for i, line in enumerate(lines) if b": " in line and not
                  line.lstrip().startswith(b"#")]
    if not candidates:
        return data
    i = rng.choice(candidates)
    key = lines[i].split(b": ", 1)[0]
    lines[i] = key + b": " + rng.choice(_YAML_VALUES).encode()
    return b"\n".join(lines)


def _replace_yaml_number(rng: random.Random, data: bytes) -> bytes:
    numbers = list(re.finditer(rb"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", data))
    if not numbers:
        return data
    match = rng.choice(numbers)
    return data[:match.start()] + rng.choice(_YAML_VALUES[:11]).encode() + data[match.end():]


def _delete_line(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def _reindent_line(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    lines[i] = b" " * rng.choice((0, 1, 3, 9)) + lines[i].lstrip()
    return b"\n".join(lines)


def _bad_bytes(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice((b"\xff", b"\x07", b"\x00", b"\xc3", b"\t", b"\x1b[")) + data[at:]


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[:rng.randrange(len(data) + 1)]


def _deep_nesting(rng: random.Random, data: bytes) -> bytes:
    depth = rng.choice((10, 30, 65, 500, 5000))
    return data.replace(b"cores per socket:", b"junk: " + b"[" * depth + b"]" * depth +
                        b"\ncores per socket:", 1)


def _swap_levels(rng: random.Random, data: bytes) -> bytes:
    names = [b"L1", b"L2", b"L3"]
    a, b = rng.sample(names, 2)
    return data.replace(b"level: " + a, b"level: @@").replace(b"level: " + b, b"level: " + a) \
        .replace(b"level: @@", b"level: " + b)


_MACHINE_MUTATIONS = (_replace_value, _replace_value, _replace_yaml_number,
                      _replace_yaml_number, _replace_yaml_number, _delete_line,
                      _reindent_line, _bad_bytes, _truncate, _deep_nesting, _swap_levels)


# ------------------------------------------------------------ command lines

def mutate_options(rng: random.Random, notes: list[str]) -> list[str]:
    """One to three extra options, some of them invalid."""
    argv: list[str] = []
    for _ in range(rng.randint(1, 3)):
        option, values = rng.choice(_OPTIONS)
        notes.append(option)
        if option == "-D":
            argv += ["-D", rng.choice(("N", "M", ".", "1x")), rng.choice(_D_VALUES)]
        elif values is None:
            argv.append(option)
        else:
            argv += [option, rng.choice(values)]
    return argv
