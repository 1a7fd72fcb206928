"""Benchmark-mode host check (kerncraft/benchmark/hostcheck.py), signal names of killed
benchmarks (timing.describe_exit), and the load check of kerncraft-machine
(kerncraft/measure/hostload.py, --strict, unstable points)."""
from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

import kerncraft
from kerncraft.benchmark import hostcheck
from kerncraft.measure import hostload
from kerncraft.cli import machine as cli
from kerncraft.machinegen import generate as mg
from kerncraft.measure.hostload import BusyProcess, LoadReport
from kerncraft.measure.timing import describe_exit, is_x86_64_linux, run_pinned
from kerncraft.errors import KerncraftError, ToolError

DATA = Path(__file__).parent / "data" / "cpuinfo"


def fixture_flags(name: str) -> frozenset[str]:
    return hostcheck.host_cpu_flags(DATA / f"{name}.txt")


# ---------------------------------------------------------------- ISA and features

def test_aarch64_machine_file_on_x86_is_one_clear_error():
    with pytest.raises(KerncraftError) as info:
        hostcheck.check_machine_isa(kerncraft.load_machine("TX2"), host="x86_64")
    assert str(info.value).startswith("the machine file describes an aarch64 machine; "
                                      "benchmark mode runs only on the machine itself")
    assert info.value.exit_code == 2
    hostcheck.check_machine_isa(kerncraft.load_machine("CSX"), host="x86_64")     # fine
    with pytest.raises(KerncraftError, match="describes an x86 machine"):
        hostcheck.check_machine_isa(kerncraft.load_machine("CSX"), host="aarch64")


@pytest.mark.skipif(not is_x86_64_linux(), reason="the check runs first on an x86 host")
def test_run_benchmark_refuses_tx2_before_compiling():
    from kerncraft.benchmark.kernel_run import run_benchmark
    kernel = kerncraft.parse_kernel(Path("kernels/copy.c").read_text(), filename="copy.c")
    with pytest.raises(KerncraftError, match="describes an aarch64 machine"):
        run_benchmark(kernel.bind({"N": 1000}), kerncraft.load_machine("TX2"))


def test_macros_name_the_cpuinfo_flags():
    text = "#define __AVX2__ 1\n#define __FMA__ 1\n#define __x86_64__ 1\n#define __AVX512F__ 1\n"
    assert hostcheck.parse_macros(text) == {"avx2", "fma", "avx512f"}


def test_csx_flags_on_an_avx2_host_name_the_missing_flags():
    def csx_features(compiler, flags):      # what -march=cascadelake defines (subset)
        assert list(flags) == ["-O3", "-march=cascadelake", "-ffreestanding"]
        return frozenset({"avx", "avx2", "fma", "avx512f", "avx512vl", "avx512_vnni"})

    with pytest.raises(KerncraftError) as info:
        hostcheck.check_cpu_features("gcc", ["-O3", "-march=cascadelake", "-ffreestanding"],
                                     host_flags=fixture_flags("zen2"), features=csx_features)
    assert str(info.value).startswith("this CPU lacks avx512_vnni, avx512f, avx512vl, which "
                                      "the benchmark flags (-march=cascadelake) use")
    # the same flags on a Cascade Lake host pass
    hostcheck.check_cpu_features("gcc", ["-O3", "-march=cascadelake", "-ffreestanding"],
                                 host_flags=fixture_flags("clx"), features=csx_features)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_real_compiler_tells_what_csx_flags_require():
    flags = dict(kerncraft.load_machine("CSX").compilers)["gcc"].split()
    needed = hostcheck.required_features("gcc", flags)
    assert {"avx512f", "avx512vl", "avx512bw", "avx512_vnni", "avx2", "fma"} <= needed
    with pytest.raises(KerncraftError, match="avx512f"):
        hostcheck.check_cpu_features("gcc", flags, host_flags=fixture_flags("zen3"))
    assert "avx512f" not in hostcheck.required_features("gcc", ["-O3", "-march=znver2"])
    with pytest.raises(ToolError, match="rejects the flags"):
        hostcheck.required_features("gcc", ["-march=no-such-cpu-kerncraft"])


@pytest.mark.skipif(shutil.which("gcc") is None or not Path("/proc/cpuinfo").exists(),
                    reason="needs gcc and /proc/cpuinfo")
def test_native_flags_never_miss_a_host_flag():
    """gcc's -march=native enables what CPUID reports, which is what /proc/cpuinfo lists:
    a mapping of ISA_MACROS to a misspelt cpuinfo flag would show up here as 'missing'."""
    needed = hostcheck.required_features("gcc", ["-O3", "-march=native"])
    assert needed and needed <= hostcheck.host_cpu_flags()
    hostcheck.check_cpu_features("gcc", ["-O3", "-march=native"])


# ---------------------------------------------------------------- signals

@pytest.mark.parametrize("code, text", [
    (-4, "was killed by SIGILL (illegal instruction: the code uses an instruction this CPU "
         "lacks)"),
    (-11, "was killed by SIGSEGV (segmentation fault"),
    (-9, "was killed by SIGKILL (killed"),
    (3, "failed with exit code 3"),
])
def test_exit_descriptions(code, text):
    assert describe_exit(code).startswith(text)


def test_killed_benchmark_names_the_signal():
    script = f"import os, signal; os.kill(os.getpid(), {int(signal.SIGILL)})"
    with pytest.raises(ToolError, match=r"killed by SIGILL \(illegal instruction"):
        run_pinned([sys.executable, "-c", script], None, timeout=600)


# ---------------------------------------------------------------- load check

def test_loadavg_and_stat_parsing():
    assert hostload.parse_loadavg("1.25 0.80 0.40 3/91 8434\n") == (1.25, 3, 91)
    with pytest.raises(ValueError):
        hostload.parse_loadavg("garbage")
    # a command name with spaces and a parenthesis; utime 120 and stime 30 are fields 14, 15
    stat = "42 (my (odd) prog) R 1 2 3 4 5 6 7 8 9 10 120 30 0 0 20 0 1 0 100 2000 300"
    assert hostload._stat_ticks(stat) == ("my (odd) prog", 150)


def test_busy_processes_from_two_samples():
    before = {1: ("idle", 100), 2: ("hog", 1000), 3: ("self", 0), 4: ("new", 0)}
    after = {1: ("idle", 105), 2: ("hog", 1090), 3: ("self", 100), 5: ("born", 50)}
    # 100 ticks/s over 1 s: idle 5 %, hog 90 %, self excluded, new/born not in both samples
    busy = hostload.busy_processes(before, after, 1.0, 100.0, exclude=frozenset({3}))
    assert busy == (BusyProcess(2, "hog", 90.0),)


def report(load1: float, busy=()) -> LoadReport:
    return LoadReport(load1, 1, 90, 2, tuple(busy), 0.5)


def test_busy_thresholds():
    # 2 cores: the load beyond this process (1.0) must stay at or below 0.5 per core
    assert not report(2.0).busy and report(2.0).load_per_core == 0.5
    assert report(2.1).busy
    assert report(0.2, [BusyProcess(7, "cc1", 35.0)]).busy
    assert "cc1 (pid 7) 35 %" in report(0.2, [BusyProcess(7, "cc1", 35.0)]).summary()


def test_realtime_refused_is_said(monkeypatch):
    def refuse(pid, policy, param):
        raise PermissionError("not allowed")

    monkeypatch.setattr(os, "sched_setscheduler", refuse)
    assert hostload.try_realtime().startswith("real-time priority: not permitted")


def _probes(load: LoadReport, bandwidth) -> mg.Probes:
    from test_cpuid_table import fixture_topology, gcc12_probe
    from kerncraft.measure.clock import ClockCalibration
    from kerncraft.measure.march import choose_compiler_flags
    topo = fixture_topology("zen5")
    return mg.Probes(topology=lambda: topo,
                     clock=lambda: ClockCalibration(3e9, 3e9, "fake", 0.0, (3e9,), 1, 3e9, 3e9),
                     bandwidth=bandwidth, load=lambda cores: load,
                     priority=lambda: "real-time priority: used (fake)",
                     compilers=lambda u: choose_compiler_flags(u, probe=gcc12_probe))


def steady(kernel, size, cores, duration, repeats):
    return cores * (200e9 if size < 40 * 1024 else 50e9)


def test_strict_refuses_a_busy_machine():
    busy = report(3.4, [BusyProcess(9, "make", 80.0)])
    plan = mg.GenerationPlan(per_octave=1, strict=True)
    with pytest.raises(KerncraftError, match=r"busy: load average 3.40 .* make \(pid 9\) 80 %"):
        mg.collect_host_data(plan, _probes(busy, steady), lambda m: None)


def test_busy_machine_warns_and_records_the_load():
    busy = report(3.4)
    messages: list[str] = []
    text = mg.generate_machine_file(mg.GenerationPlan(per_octave=1), _probes(busy, steady),
                                    messages.append)
    assert any(m.startswith("warning: the machine is busy: load average 3.40") for m in messages)
    assert "# Load before measuring [measured]: BUSY: load average 3.40 on 2 core(s) " \
           "(1.20 per core besides this process)" in text
    assert "# Scheduling: real-time priority: used (fake)" in text


def test_points_that_never_agree_are_marked():
    runs = iter([100e9, 120e9, 140e9])      # 3 tries, no two within 5 %

    def drifting(kernel, size, cores, duration, repeats):
        return next(runs) if kernel == "copy" and cores == 2 and size < 40 * 1024 else \
            steady(kernel, size, cores, duration, repeats)

    data = mg.collect_host_data(mg.GenerationPlan.quick(), _probes(report(0.1), drifting),
                                lambda m: None)
    assert data.results["L1"]["copy"][1] == 140e9           # best run kept
    assert len(data.unstable) == 1 and data.unstable[0].startswith("L1 copy 2 core(s)")
    assert data.unstable[0].endswith("runs 100.00, 120.00, 140.00 GB/s")
    assert "# Unstable points: 1 bandwidth point(s)" in mg.render_machine_file(data)


def test_cli_strict_exits_2_with_one_line(monkeypatch, capsys, tmp_path):
    busy = report(3.4)
    monkeypatch.setattr(mg, "host_probes", lambda **kw: _probes(busy, steady))
    assert cli.main(["--strict", "--quick", "-o", str(tmp_path / "m.yml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("kerncraft-machine: error: the machine is busy: load average 3.40")
    assert not (tmp_path / "m.yml").exists()
