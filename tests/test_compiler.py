"""Compiling generated C to assembly: compiler choice, flags, cache, errors."""
from __future__ import annotations

import shutil
import stat
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from kerncraft.compilation import compiler as cc
from kerncraft.compilation.compiler import (CompiledAssembly, clean_flags, compile_kernel, compile_to_assembly,
                                select_compiler)
from kerncraft.errors import ToolError

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

SOURCE = """#include <stdlib.h>
extern void dummy(void *);
int main(int argc, char **argv)
{
    long n = strtol(argv[1], NULL, 10);
    double *a = malloc(n * sizeof(double)), s = 0.0;
    dummy(a);
    for (long i = 0; i < n; ++i)
        s += a[i];
    dummy(&s);
    return argc;
}
"""


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    """A private cache per test, so hits and misses are this test's own."""
    path = tmp_path / "cache"
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(path))
    monkeypatch.delenv("KERNCRAFT_NO_CACHE", raising=False)
    return path


def _fake_compiler(tmp_path: Path, body: str, name: str = "fakecc") -> str:
    """An executable that answers --version and otherwise runs ``body`` (Python)."""
    script = tmp_path / name
    script.write_text(f"#!{sys.executable}\nimport sys, time\n"
                      "if '--version' in sys.argv:\n    print('fakecc 1.0')\n    sys.exit(0)\n"
                      + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


# ------------------------------------------------------------------------- the cache
@needs_gcc
def test_second_compile_is_a_cache_hit(cache_dir):
    first = compile_to_assembly(SOURCE, "gcc", "-O2")
    second = compile_to_assembly(SOURCE, "gcc", "-O2")
    assert isinstance(first, CompiledAssembly)
    assert not first.cache_hit and second.cache_hit
    assert first.assembly == second.assembly and "main:" in first.assembly
    assert first.cache_path == second.cache_path
    assert first.cache_path.is_file() and cache_dir in first.cache_path.parents
    assert first.flags == ("-O2",) and first.version.startswith("gcc")


@needs_gcc
def test_different_flags_or_source_miss(cache_dir):
    base = compile_to_assembly(SOURCE, "gcc", ["-O2"])
    other_flags = compile_to_assembly(SOURCE, "gcc", ["-O1"])
    other_source = compile_to_assembly(SOURCE + "\n", "gcc", ["-O2"])
    assert not other_flags.cache_hit and not other_source.cache_hit
    assert len({base.key, other_flags.key, other_source.key}) == 3
    # A flag only relevant to linking is dropped and does not change the key.
    linked = compile_to_assembly(SOURCE, "gcc", ["-O2", "-lm", "-g"])
    assert linked.cache_hit and linked.key == base.key and linked.dropped_flags == ("-lm", "-g")


@needs_gcc
def test_cache_can_be_disabled(cache_dir, monkeypatch):
    monkeypatch.setenv("KERNCRAFT_NO_CACHE", "1")
    for _ in range(2):
        result = compile_to_assembly(SOURCE, "gcc", "-O1")
        assert not result.cache_hit and result.cache_path is None
    assert not cache_dir.exists()


def test_cache_directory_precedence(tmp_path, monkeypatch):
    monkeypatch.delenv("KERNCRAFT_NO_CACHE", raising=False)
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cc.cache_directory() == tmp_path / "explicit"
    monkeypatch.delenv("KERNCRAFT_CACHE_DIR")
    assert cc.cache_directory() == tmp_path / "xdg" / "kerncraft"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cc.cache_directory() == tmp_path / "home" / ".cache" / "kerncraft"
    monkeypatch.setenv("KERNCRAFT_NO_CACHE", "1")
    assert cc.cache_directory() is None


@needs_gcc
def test_unwritable_cache_only_disables_caching(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(blocker))
    monkeypatch.delenv("KERNCRAFT_NO_CACHE", raising=False)
    result = compile_to_assembly(SOURCE, "gcc", "-O1")
    assert "main:" in result.assembly and result.cache_path is None


@needs_gcc
def test_concurrent_compiles_share_one_entry(cache_dir):
    results: list[CompiledAssembly] = []
    lock = threading.Lock()

    def work() -> None:
        res = compile_to_assembly(SOURCE, "gcc", "-O3")
        with lock:
            results.append(res)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({r.assembly for r in results}) == 1
    files = [p for p in cache_dir.rglob("*") if p.is_file()]
    assert [p.name for p in files] == [f"{results[0].key}.s"]   # no temp files left over


@needs_gcc
def test_nothing_written_to_the_working_directory(cache_dir, tmp_path, monkeypatch):
    work = tmp_path / "user"
    work.mkdir()
    monkeypatch.chdir(work)
    compile_to_assembly(SOURCE, "gcc", "-O2 -save-temps")   # -save-temps is dropped
    assert list(work.iterdir()) == []


def test_native_flags_key_on_the_host_cpu(monkeypatch):
    key = cc._cache_key("/usr/bin/gcc", "gcc 12", ["-O3", "-march=native"], "src")
    monkeypatch.setattr(cc, "_host_fingerprint", lambda: "another cpu")
    assert cc._cache_key("/usr/bin/gcc", "gcc 12", ["-O3", "-march=native"], "src") != key
    plain = cc._cache_key("/usr/bin/gcc", "gcc 12", ["-O3"], "src")
    monkeypatch.setattr(cc, "_host_fingerprint", lambda: "a third cpu")
    assert cc._cache_key("/usr/bin/gcc", "gcc 12", ["-O3"], "src") == plain


# ------------------------------------------------------------------------- errors
def test_missing_compiler_is_one_clear_error(cache_dir):
    with pytest.raises(ToolError) as err:
        compile_to_assembly(SOURCE, "gcc-13-not-installed", "-O3")
    assert str(err.value) == ("compiler gcc-13-not-installed not found on PATH; install it "
                              "or pass --compiler")
    assert "\n" not in str(err.value)


@needs_gcc
def test_compile_error_shows_the_compilers_message(cache_dir):
    broken = SOURCE.replace("s += a[i];", "s += undeclared_thing[i];")
    with pytest.raises(ToolError) as err:
        compile_to_assembly(broken, "gcc", "-O2")
    message = str(err.value)
    assert "gcc -O2 failed (exit 1)" in message
    assert "error" in message and "undeclared_thing" in message
    assert "kerncraft-cc-" not in message            # temporary directory not shown
    assert not cache_dir.exists() or not any(cache_dir.rglob("*.s"))


@needs_gcc
def test_unknown_flag_is_reported(cache_dir):
    with pytest.raises(ToolError, match="-mno-such-flag"):
        compile_to_assembly(SOURCE, "gcc", "-O2 -mno-such-flag")


def test_failing_fake_compiler(tmp_path, cache_dir):
    fake = _fake_compiler(tmp_path, "sys.stderr.write('x.c:1:1: error: boom\\n'); sys.exit(3)\n")
    with pytest.raises(ToolError, match=r"failed \(exit 3\): x.c:1:1: error: boom"):
        compile_to_assembly("int main(void){return 0;}", fake, "-O2")


def test_hanging_compiler_times_out(tmp_path, cache_dir, monkeypatch):
    fake = _fake_compiler(tmp_path, "time.sleep(30)\n", "slowcc")
    monkeypatch.setattr(cc, "COMPILE_TIMEOUT", 0.5)
    with pytest.raises(ToolError, match="did not finish"):
        compile_to_assembly("int main(void){return 0;}", fake, "-O2")


# ------------------------------------------------------------------------- flags, choice
def test_clean_flags_keeps_codegen_flags_and_drops_output_ones():
    kept, dropped = clean_flags(["-O3", "-march=cascadelake", "-ffreestanding", "-fopenmp",
                                 "-DX=1", "-std=c99", "-c", "-o", "out.o", "-g3", "-flto=auto",
                                 "-Wl,--as-needed", "-lm", "-masm=intel", "-MF", "dep.d",
                                 "-fprofile-generate"])
    assert kept == ("-O3", "-march=cascadelake", "-ffreestanding", "-fopenmp", "-DX=1",
                    "-std=c99")
    assert dropped == ("-c", "-o", "out.o", "-g3", "-flto=auto", "-Wl,--as-needed", "-lm",
                       "-masm=intel", "-MF", "dep.d", "-fprofile-generate")


@pytest.fixture(scope="module")
def csx():
    from kerncraft.machine.loader import load_machine
    return load_machine("CSX")


@needs_gcc
def test_machine_file_first_installed_compiler(csx):
    name, flags = select_compiler(csx)
    assert name == "gcc"
    assert flags == ("-O3", "-march=cascadelake", "-ffreestanding")


def test_skips_compilers_that_are_not_installed(monkeypatch):
    machine = SimpleNamespace(compilers=(("icc", "-O3 -xHost"), ("clang", "-O2 -mavx2")))
    monkeypatch.setattr(cc.shutil, "which", lambda name: "/x/clang" if name == "clang" else None)
    assert select_compiler(machine) == ("clang", ("-O2", "-mavx2"))


def test_no_listed_compiler_installed(monkeypatch):
    machine = SimpleNamespace(compilers=(("icc", "-O3"), ("icx", "-O3")))
    monkeypatch.setattr(cc.shutil, "which", lambda name: None)
    with pytest.raises(ToolError, match=r"none of the compilers listed in the machine file "
                                        r"\(icc, icx\) is installed"):
        select_compiler(machine)


def test_command_line_compiler_and_flags(csx):
    # --compiler alone: flags of the machine file's entry for that compiler family
    assert select_compiler(csx, "clang")[1][:2] == ("-O3", "-march=cascadelake")
    assert select_compiler(csx, "gcc-12") == ("gcc-12", ("-O3", "-march=cascadelake",
                                                         "-ffreestanding"))
    assert select_compiler(csx, "/opt/bin/icc")[1][0:2] == ("-O3", "-fno-alias")
    # --compiler-flags win; unknown compilers get -O3
    assert select_compiler(csx, "gcc", "-O1 -g") == ("gcc", ("-O1", "-g"))
    assert select_compiler(csx, "tcc") == ("tcc", ("-O3",))
    assert select_compiler(None, "tcc", ["-O2"]) == ("tcc", ("-O2",))


@needs_gcc
def test_compile_kernel_uses_the_machine_file(csx, cache_dir):
    from kerncraft.kernel.parser import parse_kernel
    kernel = parse_kernel("double a[N], b[N];\nfor (int i = 0; i < N; ++i)\n  a[i] = b[i];\n",
                          "copy.c")
    result = compile_kernel(kernel, csx)
    assert result.flags == ("-O3", "-march=cascadelake", "-ffreestanding")
    assert "%ymm" in result.assembly          # vectorised for Cascade Lake
    assert "memcpy" not in result.assembly    # -ffreestanding keeps the loop a loop


def test_aarch64_machine_file_gets_the_cross_compiler_on_x86(monkeypatch):
    """Kerncraft's ThunderX2 file lists armclang, clang and gcc with AArch64 flags; on an
    x86 host its gcc means aarch64-linux-gnu-gcc (issue 12: the host gcc said "bad value
    'armv8.1-a'"), and without a cross compiler the error says what to install."""
    from types import SimpleNamespace

    from kerncraft.compilation import compiler as cc
    from kerncraft.errors import ToolError

    machine = SimpleNamespace(isa="AArch64", compilers=(
        ("armclang", "-Ofast -mcpu=thunderx2t99"), ("gcc", "-Ofast -march=armv8.1-a")))
    monkeypatch.setattr(cc.platform, "machine", lambda: "x86_64")
    installed = {"aarch64-linux-gnu-gcc", "gcc"}
    monkeypatch.setattr(cc.shutil, "which", lambda name: name if name in installed else None)
    assert cc.select_compiler(machine) == ("aarch64-linux-gnu-gcc", ("-Ofast", "-march=armv8.1-a"))
    installed.discard("aarch64-linux-gnu-gcc")
    with pytest.raises(ToolError, match=r"describes an AArch64 machine and this host is x86_64.*"
                                        r"apt-get install gcc-aarch64-linux-gnu"):
        cc.select_compiler(machine)
    monkeypatch.setattr(cc.platform, "machine", lambda: "aarch64")      # on the machine itself
    assert cc.select_compiler(machine)[0] == "gcc"
