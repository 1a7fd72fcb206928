"""Compile generated C to assembly, with a content-addressed cache.

Why a cache: compiling the generated program is the slowest step of a
prediction after the cache simulation, and a parameter sweep or a test suite
compiles the same text with the same compiler many times. The cache key is
the sha256 of everything that determines the output: the resolved compiler
executable, the first line of its ``--version`` (so an upgraded compiler
misses), the effective flags, the source text, and, for ``-march=native`` /
``-mcpu=native`` / ``-mtune=native``, a fingerprint of this host's CPU
(``native`` means something else on every host, and ``~/.cache`` is often a
network home shared by several machines). The -D values are part of the key
only through the source text: run-time constants (see
:mod:`kerncraft.compilation.codegen`) do not appear in it, so one compilation serves a
whole sweep.

The cache lives in ``$KERNCRAFT_CACHE_DIR``, else ``$XDG_CACHE_HOME/kerncraft``,
else ``~/.cache/kerncraft`` -- a cache, never needed for correctness: it can
be deleted at any time, ``KERNCRAFT_NO_CACHE=1`` disables it, and an
unwritable cache directory silently disables it. Entries are written to a
temporary file in the same directory and renamed into place, so concurrent
runs never read a half-written entry. Nothing is ever written next to the
user's kernel; the compiler runs in a fresh temporary directory.
"""
from __future__ import annotations

import functools
import hashlib
import os
import platform
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from kerncraft.diskstore import atomic_write, cache_directory, mark_used
from kerncraft.errors import ToolError

if TYPE_CHECKING:
    from kerncraft.kernel.model import KernelModel
    from kerncraft.machine.model import MachineModel
from kerncraft.memo.reports import ToolStamp, tool_stamp
from kerncraft.memo.reports import host_fingerprint as _host_fingerprint  # patched in tests

__all__ = ["CompiledAssembly", "compile_to_assembly", "compile_kernel", "kernel_flags",
           "select_compiler", "compiler_choices", "clean_flags", "first_errors",
           "cache_directory", "find_compiler", "COMPILE_TIMEOUT"]

#: Seconds before a hanging compiler is given up on.
COMPILE_TIMEOUT = 300

_CACHE_VERSION = "1"   # bump when the cache layout or key recipe changes

# Flags that make sense for building a program but break or pollute "-S"
# output: output selection, linking, debug info (adds .loc/.file lines and
# labels but no code), dependency files, LTO (would emit GIMPLE bytecode
# instead of assembly), Intel syntax (our parser reads AT&T).
_DROP_EXACT = frozenset({"-c", "-S", "-E", "-s", "-static", "-shared", "-pipe", "-v",
                         "-save-temps", "-flto", "-rdynamic", "-pie", "-no-pie", "-MD",
                         "-MMD", "-MP", "-g"})
_DROP_WITH_ARG = frozenset({"-o", "-MF", "-MT", "-MQ", "-l", "-L", "-Xlinker", "-x"})
# Profile *instrumentation* puts counters into the loops, so it goes too.
_DROP_PREFIX = ("-Wl,", "-flto=", "-save-temps=", "-masm=", "-l", "-L", "-g", "-MF",
                "-MT", "-MQ", "-fdebug-", "-fprofile-generate", "-fprofile-arcs",
                "-fprofile-instr-generate", "--coverage", "-ftest-coverage")


@dataclass(frozen=True)
class CompiledAssembly:
    """Assembly produced for one (compiler, flags, source) triple."""

    assembly: str
    compiler: str                 # the executable as resolved on PATH
    flags: tuple[str, ...]        # effective flags (after :func:`clean_flags`)
    version: str                  # first line of ``compiler --version``
    cache_hit: bool
    cache_path: Path | None       # where the entry is (None: caching disabled)
    key: str                      # sha256 hex digest of the inputs
    dropped_flags: tuple[str, ...] = ()   # user flags removed for -S output


def find_compiler(compiler: str) -> str:
    """Absolute path of ``compiler`` (a name on PATH or a path), else ToolError."""
    path = shutil.which(compiler)
    if path is None:
        raise ToolError(f"compiler {compiler} not found on PATH; install it or pass "
                        "--compiler")
    return path


def select_compiler(machine: MachineModel | None = None, compiler: str | None = None,
                    flags: str | Sequence[str] | None = None) -> tuple[str, tuple[str, ...]]:
    """Choose (compiler, flags) as the command line and machine file say.

    ``compiler`` (``--compiler``) wins; otherwise the machine file's first
    compiler whose executable exists. ``flags`` (``--compiler-flags``) win;
    otherwise the machine file's flags for that compiler (matched by name, then
    by family, so ``gcc-13`` gets the ``gcc`` flags); otherwise ``-O3``.
    Raises :class:`ToolError` if no listed compiler is installed.
    """
    return compiler_choices(machine, compiler, flags)[0]


def compiler_choices(machine: MachineModel | None = None, compiler: str | None = None,
                     flags: str | Sequence[str] | None = None
                     ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Every installed (compiler, flags) of the machine file in its order, the first
    being :func:`select_compiler`'s choice; the later ones are what a build that fails
    with the first (``-p Benchmark`` links) falls back to. ``--compiler`` gives only
    itself. Raises :class:`ToolError` if no listed compiler is installed."""
    listed = _listed_compilers(machine)
    cross = _cross_compilers(machine, listed)
    if compiler is not None:
        names = [compiler]
    elif cross is not None:
        names = [name for name, _ in cross if shutil.which(name)]
        if not names:
            raise ToolError("the machine file describes an AArch64 machine and this host is "
                            f"{platform.machine()}: none of its compilers can target AArch64 "
                            "here; install a cross compiler (Debian: apt-get install "
                            "gcc-aarch64-linux-gnu) or pass --compiler")
        listed = cross
    else:
        candidates = [name for name, _ in listed] or ["gcc", "clang", "cc"]
        names = [c for c in candidates if shutil.which(c)]
        if not names:
            where = "in the machine file" if listed else "by default"
            raise ToolError(f"none of the compilers listed {where} ({', '.join(candidates)}) "
                            "is installed; install one or pass --compiler")
    chosen = []
    for name in dict.fromkeys(names):
        these = _machine_flags(listed, name) if flags is None else flags
        chosen.append((name, tuple(shlex.split(these) if isinstance(these, str) else these)))
    return tuple(chosen)


def compiler_stamps(machine: MachineModel | None = None, compiler: str | None = None
                    ) -> tuple[ToolStamp, ...]:
    """Every compiler :func:`select_compiler` may choose, as found on PATH now.

    A stored report (:mod:`kerncraft.memo.reports`) stays valid only while these
    are unchanged: installing, removing or upgrading any of them may change the
    chosen compiler or its code.
    """
    listed = _listed_compilers(machine)
    names = [compiler] if compiler is not None else []
    names += [name for name, _ in (_cross_compilers(machine, listed) or ())]
    names += [name for name, _ in listed] or ["gcc", "clang", "cc"]
    return tuple(tool_stamp(name) for name in dict.fromkeys(names))


def _listed_compilers(machine: MachineModel | None) -> tuple[tuple[str, str], ...]:
    """The machine file's (compiler, flags) pairs; none without a machine."""
    return tuple(machine.compilers or ()) if machine is not None else ()


def _cross_compilers(machine: MachineModel | None, listed: Sequence[tuple[str, str]]
                     ) -> tuple[tuple[str, str], ...] | None:
    """For an AArch64 machine file on another host: its compilers as cross compilers
    (``gcc`` -> ``aarch64-linux-gnu-gcc`` with the file's gcc flags; names that already
    are cross compilers stay). None when no cross compilation is needed."""
    # open: a stand-in machine that lists only its compilers (tests) has no 'isa'
    isa = str(getattr(machine, "isa", "") or "").lower()
    if not isa.startswith(("aarch64", "arm")) or platform.machine().lower() in ("aarch64",
                                                                                  "arm64"):
        return None
    cross = []
    for name, flags in listed:
        if os.path.basename(name).startswith("aarch64-"):
            cross.append((name, flags))
        elif _family(name) == "gcc":
            cross.append(("aarch64-linux-gnu-gcc", flags))
    return tuple(cross)


def _machine_flags(listed: Sequence[tuple[str, str]], compiler: str) -> str:
    by_name = dict(listed)
    if compiler in by_name:
        return by_name[compiler]
    family = _family(compiler)
    for name, flags in listed:
        if _family(name) == family:
            return flags
    return "-O3"


def _family(compiler: str) -> str:
    """'gcc' for '/usr/bin/gcc-12', 'clang' for 'clang-15', 'icx' for 'icx'."""
    base = os.path.basename(compiler)
    return re.sub(r"(-\d+(\.\d+)*|\d+(\.\d+)*)$", "", base)


def clean_flags(flags: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(kept, dropped) flags: drop the ones that break or pollute ``-S -o file``.

    Everything that influences code generation (``-O``, ``-m``, ``-f``, ``-D``,
    ``-I``, ``-std``, ``-fopenmp``, ``-ffreestanding``) is kept.
    """
    kept: list[str] = []
    dropped: list[str] = []
    it = iter(flags)
    for flag in it:
        if flag in _DROP_WITH_ARG:
            dropped.append(flag)
            dropped.append(next(it, ""))
        elif flag in _DROP_EXACT or flag.startswith(_DROP_PREFIX):
            dropped.append(flag)
        else:
            kept.append(flag)
    return tuple(kept), tuple(dropped)


@functools.lru_cache(maxsize=32)
def _version_line(path: str, mtime_ns: int) -> str:
    """First line of ``path --version`` (memoised per executable and mtime)."""
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True,
                             timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolError(f"could not run {path} --version: {err}") from None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else ""


def _cache_key(path: str, version: str, flags: Sequence[str], source: str) -> str:
    h = hashlib.sha256()
    for part in (_CACHE_VERSION, path, version, "\0".join(flags), source):
        h.update(part.encode())
        h.update(b"\0\1")
    if any("native" in f for f in flags):
        h.update(_host_fingerprint().encode())
    return h.hexdigest()


def compile_to_assembly(c_source: str, compiler: str,
                        flags: str | Sequence[str]) -> CompiledAssembly:
    """Compile ``c_source`` with ``compiler`` and ``flags`` to assembly text.

    Results are cached (see the module docstring). Raises :class:`ToolError`
    if the compiler is missing, fails (with its first error lines), or hangs.
    """
    path = find_compiler(compiler)
    raw = shlex.split(flags) if isinstance(flags, str) else list(flags)
    kept, dropped = clean_flags(raw)
    version = _version_line(path, os.stat(path).st_mtime_ns)
    key = _cache_key(path, version, kept, c_source)
    cache_dir = cache_directory()
    entry = cache_dir / "asm" / key[:2] / f"{key}.s" if cache_dir is not None else None
    if entry is not None:
        try:
            text = entry.read_text(encoding="utf-8")
            mark_used(entry)
            return CompiledAssembly(text, path, kept, version, True, entry, key, dropped)
        except (OSError, UnicodeDecodeError):
            pass
    text = _run_compiler(path, compiler, kept, c_source)
    if entry is not None and not _store(entry, text):
        entry = None
    return CompiledAssembly(text, path, kept, version, False, entry, key, dropped)


def _run_compiler(path: str, name: str, flags: Sequence[str], source: str) -> str:
    """Run the compiler in a private temporary directory; return the .s text."""
    with tempfile.TemporaryDirectory(prefix="kerncraft-cc-") as tmp:
        src = Path(tmp, "kernel.c")
        out = Path(tmp, "kernel.s")
        src.write_text(source, encoding="utf-8")
        cmd = [path, *flags, "-S", "-o", str(out), str(src)]
        try:
            proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True,
                                  timeout=COMPILE_TIMEOUT, check=False,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ToolError(f"{name} did not finish within {COMPILE_TIMEOUT} s") from None
        except OSError as err:
            raise ToolError(f"could not run compiler {name}: {err}") from None
        if proc.returncode != 0 or not out.exists():
            raise ToolError(f"{name} {' '.join(flags)} failed (exit {proc.returncode}): "
                            f"{first_errors(proc.stderr or proc.stdout, tmp)}")
        return out.read_text(encoding="utf-8", errors="replace")


def first_errors(output: str, tmp: str, limit: int = 3) -> str:
    """The compiler's (or linker's) first error lines, on one line, without our temp
    path ``tmp``."""
    lines = [ln.replace(tmp + os.sep, "").strip() for ln in output.splitlines()]
    lines = [ln for ln in lines if ln]
    errors = [ln for ln in lines if re.search(
        r"\b(error|fatal|unrecognized|unknown|cannot find|undefined reference)\b", ln, re.I)]
    chosen = (errors or lines)[:limit]
    return "; ".join(chosen) if chosen else "no error message"


def _store(entry: Path, text: str) -> bool:
    """Write a cache entry atomically; False on failure (caching is best effort)."""
    return atomic_write(entry, text)


def kernel_flags(kernel: KernelModel, compiler: str, flags: Sequence[str]
                 ) -> tuple[str, ...]:
    """The flags for compiling ``kernel``: ``flags``, plus what math calls need.

    Machine files pass ``-ffreestanding`` so that gcc does not turn loops into
    ``memset``/``memcpy`` calls; it also switches off the compiler's knowledge of
    ``sqrt``, ``exp`` ... (``-fno-builtin``), so a kernel calling them would be
    analysed as an opaque library call. With math calls we give that knowledge back
    (``-fbuiltin``: gcc then inlines ``vsqrtsd``, keeping the C semantics including
    errno), and keep the loop-to-library-call transformation off explicitly for gcc
    (``-fno-tree-loop-distribute-patterns``).
    """
    flags = tuple(flags)
    if not kernel.math_calls or "-ffreestanding" not in flags:
        return flags
    extra = ["-fbuiltin"]
    if "clang" not in os.path.basename(compiler):
        extra.append("-fno-tree-loop-distribute-patterns")
    return flags + tuple(f for f in extra if f not in flags)


def compile_kernel(kernel: KernelModel, machine: MachineModel | None = None, *,
                   compiler: str | None = None,
                   flags: str | Sequence[str] | None = None,
                   constants: str = "auto") -> CompiledAssembly:
    """Generate the C program for ``kernel`` and compile it as the command
    line (``compiler``/``flags``) and the machine file say (see
    :func:`select_compiler`); the one call the pipeline needs."""
    from kerncraft.compilation.codegen import generate_c

    name, chosen_flags = select_compiler(machine, compiler, flags)
    return compile_to_assembly(generate_c(kernel, constants=constants), name,
                               kernel_flags(kernel, name, chosen_flags))
