"""Clock calibration and the timing backend, for real on this host.

These tests run short machine-code loops: they are skipped (with the reason)
when the host is not x86-64 Linux or gcc is missing. Other processes may share
the cores, so the checks compare against independent measurements with
generous tolerances; the timing backend's CPU-time path makes them robust
against preemption.
"""
from __future__ import annotations

import platform
import shutil

import pytest

from kerncraft.measure import clock

from kerncraft.measure import timing
from kerncraft.errors import ToolError

needs_x86 = pytest.mark.skipif(
    not timing.is_x86_64_linux() or shutil.which("gcc") is None,
    reason="needs x86-64 Linux and gcc (inline-asm benchmark programs)")

ADDS_PER_REPETITION = 1_000_000
_ADD_PROGRAM = timing.C_PROTOCOL_HELPERS + r"""
#include <stdlib.h>
#define A "add %%rbx, %%rax\n\t"
#define A10 A A A A A A A A A A
int main(int argc, char **argv) {
    long reps = atol(argv[argc - 1]);
    unsigned long a = 0, b = 1;
    double w0 = kc_wall(), c0 = kc_cpu();
    for (long r = 0; r < reps; ++r)
        for (long i = 0; i < 10000; ++i)
            __asm__ volatile(A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 : "+a"(a) : "b"(b));
    kc_report(kc_wall() - w0, kc_cpu() - c0, reps);
    return a == 0;
}
"""


@pytest.fixture(scope="module")
def calibration():
    return clock.calibrate_clock(duration=0.05, repetitions=3)


@needs_x86
def test_clock_is_plausible_and_reproducible(calibration):
    assert 1e9 <= calibration.core_hz <= 6e9
    assert 0 <= calibration.spread < 0.5
    assert len(calibration.samples) == 3 and max(calibration.samples) == calibration.core_hz
    again = clock.calibrate_clock(duration=0.05, repetitions=3, cpu=calibration.cpu)
    assert abs(again.core_hz - calibration.core_hz) <= 0.10 * calibration.core_hz
    assert calibration.tsc_hz is None or 0.5e9 < calibration.tsc_hz < 6e9
    assert "add %rbx,%rax" in calibration.method


@needs_x86
def test_timing_backend_counts_one_cycle_per_dependent_add(calibration):
    exe = timing.compile_program(_ADD_PROGRAM)
    assert exe == timing.compile_program(_ADD_PROGRAM)            # cached by content
    assert str(exe).startswith(str(timing.bench_cache_dir()))
    # Other processes on a shared machine can only make a run slower: keep the fastest
    # of a few attempts (the minimum, as every measurement of the backend does).
    best = None
    for _ in range(3):
        result = timing.measure(exe, cpus=[calibration.cpu], clock=calibration, min_time=0.1,
                                repeats=2)
        assert result.backend == "timing" and result.repetitions >= 1
        # repetitions were scaled (one is 0.3 ms); the fastest of the runs may be shorter
        # than the scaling run that reached min_time, but not by half
        assert result.repetitions > 100 and result.seconds >= 0.5 * 0.1
        adds = result.repetitions * ADDS_PER_REPETITION
        # independent computation: runtime x calibrated clock / adds
        cycles_per_add = result.seconds * calibration.core_hz / adds
        assert result.cycles_total / adds == pytest.approx(cycles_per_add)
        best = cycles_per_add if best is None else min(best, cycles_per_add)
        if 0.7 <= best <= 1.5:
            break
    assert 0.7 <= best <= 1.5


def test_protocol_parsing():
    report = timing.parse_protocol("noise\nKERNCRAFT_TIME 0.25\nKERNCRAFT_REPETITIONS 40\n"
                                   "KERNCRAFT_CPU_TIME 0.2\nKERNCRAFT_CHUNKS 7\n")
    assert (report.seconds, report.repetitions, report.cpu_seconds) == (0.25, 40, 0.2)
    assert report.extra == {"KERNCRAFT_CHUNKS": "7"}
    with pytest.raises(ToolError, match="KERNCRAFT_REPETITIONS"):
        timing.parse_protocol("KERNCRAFT_TIME 1.0\n")
    with pytest.raises(ToolError, match="reported"):
        timing.parse_protocol("KERNCRAFT_TIME 0\nKERNCRAFT_REPETITIONS 3\n")


def test_repetitions_argument_placement():
    assert timing._with_repetitions(["-n", "{repetitions}", "x"], 5) == ["-n", "5", "x"]
    assert timing._with_repetitions(["x"], 7) == ["x", "7"]


def test_non_x86_host_gives_a_clear_error(monkeypatch):
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    with pytest.raises(ToolError, match="x86-64 Linux"):
        clock.calibrate_clock(duration=0.01, repetitions=1)


def test_missing_compiler_gives_a_clear_error():
    with pytest.raises(ToolError, match="not found"):
        timing.compile_program("int main(void){return 0;}", compiler="no-such-cc-kerncraft")


@needs_x86
def test_failing_program_reports_exit_code():
    exe = timing.compile_program("int main(void){return 3;}")
    with pytest.raises(ToolError, match="exit code 3"):
        timing.run_pinned([exe], None)


def test_nominal_clock_from_model_name():
    assert clock.nominal_hz("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz") == 2.5e9
    assert clock.nominal_hz("AMD EPYC 7452 32-Core Processor") is None
