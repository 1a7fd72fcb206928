"""Compile a bundled restricted-C kernel to assembly for database-coverage tests.

A kernel file holds declarations (``double a[M][N];``, ``double s;``) followed by
a loop nest. :func:`wrap_kernel` turns it into a compilable function::

    void kernel(long M, long N, ..., double s, double (*restrict a)[N], ...) {
        <loop nest>
        dummy(a); ... dummy(&s);
    }

Array dimensions become the leading ``long`` parameters, scalars become value
parameters whose address escapes after the loop (so reductions are kept), arrays
become ``restrict`` pointers to variable-length rows (multi-dimensional indexing
keeps working). ``dummy`` is only declared, so the compiler cannot drop stores.

:data:`STANDIN_KERNELS` are used when ``kernels/`` is empty.
"""
from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterable, Sequence

ROOT = Path(__file__).resolve().parents[2]
KERNEL_DIR = ROOT / "kernels"

STANDIN_KERNELS = {
    "copy": "double a[N], b[N];\nfor (int i = 0; i < N; ++i)\n  a[i] = b[i];\n",
    "triad": ("double a[N], b[N], c[N], d[N];\n"
              "for (int i = 0; i < N; ++i)\n  a[i] = b[i] + c[i] * d[i];\n"),
    "stream_triad": ("double a[N], b[N], c[N];\ndouble s;\n"
                     "for (int i = 0; i < N; ++i)\n  a[i] = b[i] + s * c[i];\n"),
    "daxpy": ("double a[N], b[N];\ndouble s;\n"
              "for (int i = 0; i < N; ++i)\n  a[i] = a[i] + s * b[i];\n"),
    "sum": "double a[N];\ndouble s;\nfor (int i = 0; i < N; ++i)\n  s = s + a[i];\n",
    "scalar_product": ("double a[N], b[N];\ndouble s;\n"
                       "for (int i = 0; i < N; ++i)\n  s = s + a[i] * b[i];\n"),
    "2d-5pt": ("double a[M][N];\ndouble b[M][N];\ndouble s;\n"
               "for (int j = 1; j < M - 1; ++j)\n  for (int i = 1; i < N - 1; ++i)\n"
               "    b[j][i] = (a[j][i-1] + a[j][i+1] + a[j-1][i] + a[j+1][i]) * s;\n"),
    "3d-7pt": ("double a[M][N][L];\ndouble b[M][N][L];\ndouble s;\n"
               "for (int k = 1; k < M - 1; ++k)\n  for (int j = 1; j < N - 1; ++j)\n"
               "    for (int i = 1; i < L - 1; ++i)\n"
               "      b[k][j][i] = (a[k][j][i-1] + a[k][j][i+1] + a[k][j-1][i] + a[k][j+1][i]\n"
               "                   + a[k-1][j][i] + a[k+1][j][i] - 6.0 * a[k][j][i]) * s;\n"),
    "matvec": ("double a[M][N], x[N], y[M];\n"
               "for (int j = 0; j < M; ++j)\n  for (int i = 0; i < N; ++i)\n"
               "    y[j] = y[j] + a[j][i] * x[i];\n"),
    "division": ("double a[N], b[N];\ndouble s;\n"
                 "for (int i = 0; i < N; ++i)\n  a[i] = s / b[i];\n"),
    "pi": ("double s;\ndouble d;\nfor (int i = 0; i < N; ++i)\n"
           "  s = s + 4.0 / (1.0 + ((i + 0.5) * d) * ((i + 0.5) * d));\n"),
    "float_update": "float a[N];\nfloat s;\nfor (int i = 0; i < N; ++i)\n  a[i] = s * a[i];\n",
    "gauss_seidel": ("double a[M][N];\nfor (int j = 1; j < M - 1; ++j)\n"
                     "  for (int i = 1; i < N - 1; ++i)\n"
                     "    a[j][i] = (a[j][i-1] + a[j][i+1] + a[j-1][i] + a[j+1][i]) * 0.25;\n"),
}

_TYPES = r"(?:unsigned\s+|signed\s+)?(?:double|float|int|long|char|short)"
_DECL = re.compile(rf"^\s*(?:const\s+)?({_TYPES})\s+([^;()]+);", re.M)
_NAME = re.compile(r"^\s*([A-Za-z_]\w*)\s*((?:\[[^\]]*\])*)\s*(?:=\s*(.+))?$")
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_C_WORDS = {"for", "if", "else", "int", "long", "double", "float", "char", "short",
            "unsigned", "signed", "const", "return", "while", "do", "sizeof", "restrict",
            "sqrt", "fabs", "exp", "min", "max"}


def kernel_sources() -> dict[str, str]:
    """Bundled kernels (``kernels/*.c``) by stem, or the stand-ins if there are none."""
    files = sorted(KERNEL_DIR.glob("*.c")) if KERNEL_DIR.is_dir() else []
    if files:
        return {f.stem: f.read_text() for f in files}
    return dict(STANDIN_KERNELS)


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))


def wrap_kernel(text: str) -> str:
    """Return a C translation unit with ``void kernel(...)`` around the loop nest."""
    text = _strip_comments(text)
    arrays: list[tuple[str, str, list[str]]] = []
    scalars: list[tuple[str, str, str | None]] = []
    body_start = 0
    for m in _DECL.finditer(text):
        if text[body_start:m.start()].strip():
            break                       # declarations end where the loop nest starts
        ctype = m.group(1)
        for part in _split_commas(m.group(2)):
            nm = _NAME.match(part)
            if not nm:
                continue
            name, dims, init = nm.group(1), nm.group(2), nm.group(3)
            if dims:
                arrays.append((ctype, name, re.findall(r"\[([^\]]*)\]", dims)))
            else:
                scalars.append((ctype, name, init))
        body_start = m.end()
    body = text[body_start:]
    declared = {n for _, n, _ in arrays} | {n for _, n, _ in scalars}
    consts: list[str] = []
    for _, _, dims in arrays:
        for d in dims:
            consts += _IDENT.findall(d)
    loop_vars = set(re.findall(rf"for\s*\(\s*{_TYPES}\s+([A-Za-z_]\w*)", body))
    for ident in _IDENT.findall(body):
        if (ident not in declared and ident not in loop_vars and ident not in _C_WORDS
                and ident.isupper()):
            consts.append(ident)
    consts = list(dict.fromkeys(consts))
    params = [f"long {c}" for c in consts]
    locals_: list[str] = []
    for ctype, name, init in scalars:
        if init is None:
            params.append(f"{ctype} {name}")
        else:
            locals_.append(f"  {ctype} {name} = {init};")
    for ctype, name, dims in arrays:
        if len(dims) == 1:
            params.append(f"{ctype} *restrict {name}")
        else:
            rows = "".join(f"[{d}]" for d in dims[1:])
            params.append(f"{ctype} (*restrict {name}){rows}")
    escapes = [f"  dummy((void *){name});" for _, name, _ in arrays]
    escapes += [f"  dummy((void *)&{name});" for _, name, _ in scalars]
    return ("#include <math.h>\nvoid dummy(void *);\n"
            f"void kernel({', '.join(params) or 'void'})\n{{\n"
            + "\n".join(locals_) + "\n" + body.strip() + "\n" + "\n".join(escapes) + "\n}\n")


def _split_commas(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [p for p in out if p.strip()]


NO_MEMCPY = "-fno-tree-loop-distribute-patterns"
"""Keeps gcc from replacing copy-like loops by memcpy calls (no loop left to check)."""


def compile_source(source: str, compiler: str = "gcc", flags: tuple[str, ...] | list[str] = ("-O3",),
                   use_cache: bool = True) -> str:
    """Compile C source text to AT&T assembly (cached on disk by content)."""
    from kerncraft.diskstore import atomic_write, entry_path

    exe = shutil.which(compiler)
    if exe is None:
        raise FileNotFoundError(compiler)
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    args = [exe, "-std=gnu99", *flags, "-S", "-o", "-", "-x", "c", "-"]
    digest = hashlib.sha256(repr((args[1:], version, source)).encode()).hexdigest()[:32]
    cache = entry_path("kernel-asm", f"{digest}.s") if use_cache else None
    if cache is not None and cache.is_file():
        return cache.read_text()
    proc = subprocess.run(args, input=source, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{proc.stderr}")
    if cache is not None:
        atomic_write(cache, proc.stdout)
    return proc.stdout


def compile_bundled(flags: Sequence[str], opts: Sequence[str] = ("-O2", "-O3"),
                    compiler: str = "gcc") -> list[tuple[str, str, str]]:
    """(kernel, opt level, assembly) for every bundled kernel at every level in ``opts``."""
    jobs = [(name, opt, wrap_kernel(text)) for name, text in kernel_sources().items()
            for opt in opts]

    def run(job: tuple[str, str, str]) -> tuple[str, str, str]:
        name, opt, src = job
        return name, opt, compile_source(src, compiler, (opt, *flags))

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(run, jobs))


def record_unknown(instructions: Iterable, db, where: str, unknown: dict[str, str]) -> int:
    """Add every form ``db`` does not know to ``unknown`` (form key -> first place seen);
    returns the number of instructions checked."""
    checked = 0
    for ins in instructions:
        if ins is None:
            continue
        checked += 1
        if db.lookup(ins) is None:
            unknown.setdefault(ins.form_key, f"{ins.text!r} in {where}")
    return checked


def compile_kernel_asm(path: str | Path, compiler: str = "gcc",
                       flags: tuple[str, ...] | list[str] = ("-O3",)) -> str:
    """Wrap the kernel in ``path`` (or a stand-in name) and compile it to assembly."""
    p = Path(path)
    if p.is_file():
        text = p.read_text()
    elif str(path) in STANDIN_KERNELS:
        text = STANDIN_KERNELS[str(path)]
    else:
        raise FileNotFoundError(path)
    return compile_source(wrap_kernel(text), compiler, flags)
