"""Every instruction form gcc emits in the innermost loop of a bundled kernel is
known to the CSX and SPR databases.

All kernels (``kernels/*.c``, or the stand-ins of ``support/kernel_asm.py``) are
compiled with gcc at -O1/-O2/-O3/-Ofast for -march=cascadelake and
-march=sapphirerapids (plus 512-bit vectors at -O3, and clang -O3 if installed; with
-fno-tree-loop-distribute-patterns so that copy loops stay loops);
the loop the in-core analyzer would pick (``markers.extract_kernel``) is looked
up in the database of the matching architecture. Compilations run in a small
thread pool and are cached on disk by content.
"""
from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest

from support.kernel_asm import (NO_MEMCPY, compile_source, kernel_sources, record_unknown,
                                 wrap_kernel)

from kerncraft.errors import AssemblyError
from kerncraft.incore.database import load_database
from kerncraft.incore.markers import extract_kernel
from kerncraft.incore.x86.parser import parse_x86

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

ARCHS = {"CSX": "cascadelake", "SPR": "sapphirerapids"}
OPT_LEVELS = ("-O1", "-O2", "-O3", "-Ofast")
# keep copy loops as loops (gcc would call memcpy), as kerncraft's benchmark code does


def _jobs():
    jobs = []
    sources = {name: wrap_kernel(text) for name, text in kernel_sources().items()}
    for db, march in ARCHS.items():
        for name, src in sources.items():
            for opt in OPT_LEVELS:
                jobs.append((db, name, "gcc", (opt, f"-march={march}", NO_MEMCPY), src))
            jobs.append((db, name, "gcc", ("-O3", f"-march={march}", "-mprefer-vector-width=512", NO_MEMCPY),
                         src))
            if shutil.which("clang"):
                jobs.append((db, name, "clang", ("-O3", f"-march={march}", "-fno-builtin"), src))
    return jobs


@pytest.fixture(scope="module")
def compiled():
    def run(job):
        db, name, cc, flags, src = job
        return job, compile_source(src, cc, flags)

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(run, _jobs()))


def test_kernels_present():
    assert len(kernel_sources()) >= 9


@pytest.mark.parametrize("arch", sorted(ARCHS))
def test_innermost_loop_forms_known(compiled, arch):
    db = load_database(arch)
    unknown: dict[str, str] = {}
    checked = 0
    for (dbname, name, cc, flags, _), asm in compiled:
        if dbname != arch:
            continue
        try:
            kernel = extract_kernel(parse_x86(asm))
        except AssemblyError:
            # the compiler replaced the loop by a library call (memcpy/memset idiom)
            assert "memcpy" in asm or "memset" in asm or "memmove" in asm, (name, cc, flags)
            continue
        checked += record_unknown(kernel, db, f"{name} ({cc} {' '.join(flags)})", unknown)
    assert checked > 0
    assert not unknown, "forms unknown to {}:\n{}".format(
        arch, "\n".join(f"  {k}: {v}" for k, v in sorted(unknown.items())))


@pytest.mark.parametrize("arch", sorted(ARCHS))
def test_whole_function_forms_known(compiled, arch):
    """Not only the loop: prologue/epilogue/remainder code is covered as well."""
    db = load_database(arch)
    unknown = set()
    for (dbname, name, cc, flags, _), asm in compiled:
        if dbname != arch:
            continue
        for line in parse_x86(asm):
            if line.instruction is not None and db.lookup(line.instruction) is None:
                unknown.add(line.instruction.form_key)
    assert not unknown, sorted(unknown)
