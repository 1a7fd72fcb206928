"""Before a benchmark: can this host run the code the machine file's flags make?

Why: ``-p Benchmark`` compiles the kernel with the machine file's compiler and
flags and runs it *here*. With a machine file of another machine that fails
late and obscurely: an aarch64 file (machine-files/TX2.yml) on an x86 host
names a cross compiler and would build a program this host cannot execute;
``-m CSX`` (``-march=cascadelake``) on an AVX2-only host builds AVX-512 code
that dies with SIGILL. Both are caught before compiling, with one message.

Which instruction-set extensions the flags require is asked from the
compiler itself, not guessed from the -march name: ``COMPILER FLAGS -dM -E -x c
/dev/null`` lists the predefined macros (``__AVX512F__``, ``__AVX2__``,
``__FMA__`` ...) that those flags switch on, which covers -march names, ISA
levels (x86-64-v4) and single -m options alike. The answer is cached per
(compiler, flags) for the life of the process.
"""
from __future__ import annotations

import functools
import os
import platform
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from kerncraft.errors import KerncraftError, ToolError

if TYPE_CHECKING:
    from kerncraft.machine.model import MachineModel

__all__ = ["ISA_MACROS", "normalise_isa", "host_isa", "check_machine_isa", "required_features",
           "check_cpu_features", "host_cpu_flags", "parse_macros"]

#: Predefined compiler macro -> the /proc/cpuinfo flag of the same extension.
ISA_MACROS = {
    "__SSE3__": "pni", "__SSSE3__": "ssse3", "__SSE4_1__": "sse4_1", "__SSE4_2__": "sse4_2",
    "__POPCNT__": "popcnt", "__AVX__": "avx", "__AVX2__": "avx2", "__FMA__": "fma",
    "__F16C__": "f16c", "__BMI__": "bmi1", "__BMI2__": "bmi2", "__MOVBE__": "movbe",
    "__AVX512F__": "avx512f", "__AVX512CD__": "avx512cd", "__AVX512DQ__": "avx512dq",
    "__AVX512BW__": "avx512bw", "__AVX512VL__": "avx512vl", "__AVX512IFMA__": "avx512ifma",
    "__AVX512VBMI__": "avx512vbmi", "__AVX512VBMI2__": "avx512_vbmi2",
    "__AVX512VNNI__": "avx512_vnni", "__AVX512BITALG__": "avx512_bitalg",
    "__AVX512VPOPCNTDQ__": "avx512_vpopcntdq", "__AVX512BF16__": "avx512_bf16",
    "__AVX512FP16__": "avx512_fp16", "__AVXVNNI__": "avx_vnni", "__AMX_TILE__": "amx_tile",
}

# machine-file 'isa' values and platform.machine() names -> one spelling
_ISA_NAMES = {"x86": "x86", "x86_64": "x86", "x86-64": "x86", "amd64": "x86", "i686": "x86",
              "aarch64": "aarch64", "arm64": "aarch64", "armv8": "aarch64"}


def normalise_isa(name: str | None) -> str | None:
    """'x86_64' -> 'x86', 'arm64' -> 'aarch64'; unknown names stay as they are (lower case)."""
    if not name:
        return None
    return _ISA_NAMES.get(name.strip().lower(), name.strip().lower())


def host_isa() -> str:
    return normalise_isa(platform.machine()) or "unknown"


def check_machine_isa(machine: MachineModel, host: str | None = None) -> None:
    """KerncraftError if the machine file's ``isa`` is not this host's."""
    wanted = normalise_isa(machine.isa)
    here = normalise_isa(host) if host else host_isa()
    if wanted is not None and wanted != here:
        raise KerncraftError(f"the machine file describes an {wanted} machine; benchmark mode "
                             f"runs only on the machine itself (this host is "
                             f"{host or platform.machine()})")


def host_cpu_flags(path: Path = Path("/proc/cpuinfo")) -> frozenset[str]:
    """The 'flags' line of the first CPU in /proc/cpuinfo."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ToolError(f"cannot read the CPU's feature flags from {path}: {exc}") from None
    for line in text.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def parse_macros(text: str) -> frozenset[str]:
    """cpuinfo flags implied by the ``#define`` lines of ``-dM -E`` output."""
    defined = {line.split()[1] for line in text.splitlines()
               if line.startswith("#define ") and len(line.split()) >= 2}
    return frozenset(flag for macro, flag in ISA_MACROS.items() if macro in defined)


@functools.lru_cache(maxsize=32)
def _macro_features(path: str, flags: tuple[str, ...]) -> frozenset[str]:
    argv = [path, *flags, "-dM", "-E", "-x", "c", os.devnull]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolError(f"cannot ask {path} which instructions {' '.join(flags)} use: "
                        f"{exc}") from None
    if out.returncode != 0:
        first = (out.stderr or out.stdout).strip().splitlines()[:2]
        raise ToolError(f"{Path(path).name} rejects the flags {' '.join(flags)}: "
                        + " ".join(first))
    return parse_macros(out.stdout)


def required_features(compiler: str, flags: Sequence[str]) -> frozenset[str]:
    """cpuinfo flags the code of ``compiler flags`` may use (cached per compiler and flags)."""
    from kerncraft.compilation.compiler import clean_flags

    path = shutil.which(compiler)
    if path is None:
        raise ToolError(f"compiler {compiler} not found on PATH; install it or pass --compiler")
    return _macro_features(path, clean_flags(flags)[0])


def check_cpu_features(compiler: str, flags: Sequence[str], *,
                       host_flags: frozenset[str] | None = None,
                       features: Callable[[str, Sequence[str]], frozenset[str]] = required_features
                       ) -> None:
    """KerncraftError naming the extensions the flags need and this CPU lacks."""
    needed = features(compiler, flags)
    have = host_cpu_flags() if host_flags is None else host_flags
    missing = sorted(needed - have)
    if missing:
        march = [f for f in flags if f.startswith(("-march=", "-mcpu=", "-x"))]
        raise KerncraftError(
            f"this CPU lacks {', '.join(missing)}, which the benchmark flags "
            f"({' '.join(march) or ' '.join(flags)}) use; benchmark mode runs the code on this "
            "host: pass --compiler-flags for this CPU (e.g. '-O3 -march=native') or use a "
            "machine file of this host (kerncraft-machine)")
