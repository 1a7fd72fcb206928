"""likwid-perfctr / likwid-bench output parsing and the counter probe.

Samples in tests/data/likwid/: files named perfctr_marker_* and
perfctr_nomarker_* are hand-written in likwid's documented layout (they say so
in their first lines); *_host.txt, perfctr_e_vm_nocounters.txt and
perfctr_vm_msr_error.txt were captured on the project's VM host.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from kerncraft.measure import likwid
from kerncraft.errors import ToolError

DATA = Path(__file__).parent / "data" / "likwid"


def read(name: str) -> str:
    return (DATA / name).read_text()


def test_csv_marker_output_two_threads():
    out = likwid.parse_perfctr_output(read("perfctr_marker_csv_2threads.txt"))
    assert out.format == "csv"
    assert out.cpu_type == "Intel Cascadelake SP processor"
    assert out.cpu_clock_hz == pytest.approx(2.494246e9)
    region = out.region("triad")
    assert region.group == "MEM_DP" and region.group_index == 1
    assert region.threads == ("HWThread 0", "HWThread 1")
    assert region.runtime == (0.520101, 0.520087)
    assert region.call_count == (100, 100)
    assert region.registers["CPU_CLK_UNHALTED_CORE"] == "FIXC1"
    assert region.counter("INSTR_RETIRED_ANY", 1) == 2599876543
    assert region.counter("CAS_COUNT_RD") == 234_375_000          # sum over threads
    assert region.metric("Memory bandwidth [MBytes/s]") == pytest.approx(38456.0835)
    # CAS reads x 64 B over the runtime is the memory-read part of that bandwidth
    read_bw = region.counter("CAS_COUNT_RD") * 64 / region.runtime[0] / 1e6
    assert read_bw == pytest.approx(28841, rel=1e-3)
    # STAT tables are skipped: no ' STAT' names leak into counters or metrics
    assert not any(name.endswith("STAT") for name in [*region.counters, *region.metrics])
    assert len(region.counters) == 7 and len(region.metrics) == 7


def test_table_marker_output_two_regions():
    out = likwid.parse_perfctr_output(read("perfctr_marker_table_1thread.txt"))
    assert out.format == "table"
    assert out.region_names == ("init", "loop")
    loop = out.region("loop", "FLOPS_DP")
    assert loop.threads == ("HWThread 2",)
    assert loop.call_count == (20,)
    assert loop.runtime == (1.336193,)
    assert loop.counter("FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE") == 250_000_000
    # core clock = unhalted core / reference cycles x nominal clock
    ratio = loop.counter("CPU_CLK_UNHALTED_CORE") / loop.counter("CPU_CLK_UNHALTED_REF")
    assert ratio == pytest.approx(1.2)
    assert loop.metric("CPI") == pytest.approx(2.2069)
    assert out.region("init").metric("Scalar [MUOPS/s]") == pytest.approx(390.2439)
    with pytest.raises(KeyError, match="found: init/FLOPS_DP, loop/FLOPS_DP"):
        out.region("missing")


def test_csv_without_marker_api_and_unreadable_values():
    out = likwid.parse_perfctr_output(read("perfctr_nomarker_csv.txt"))
    whole = out.region(None)
    assert whole.group == "Custom" and whole.runtime == (1.002003,)
    assert whole.counter("INSTR_RETIRED_ANY") == 3004005006
    assert math.isnan(whole.counter("L1D_REPLACEMENT", 0))
    assert whole.counter("L1D_REPLACEMENT") == 0                 # NaNs skipped in sums
    assert "Runtime (RDTSC) [s]" not in whole.counters


@pytest.mark.parametrize("name", ["perfctr_e_vm_nocounters.txt", "perfctr_vm_msr_error.txt"])
def test_outputs_without_tables_are_errors(name):
    with pytest.raises(ToolError, match="no likwid-perfctr result tables"):
        likwid.parse_perfctr_output(read(name))


def test_likwid_bench_output():
    single = likwid.parse_likwid_bench(read("bench_copy_avx512_host.txt"))
    assert single.test == "copy_avx512" and single.threads == 1
    assert single.bandwidth == pytest.approx(single.data_volume / single.seconds, rel=1e-3)
    assert single.size_bytes == 31744 and single.iterations == 50000
    triad = likwid.parse_likwid_bench(read("bench_triad_avx512_fma_2threads_host.txt"))
    assert triad.threads == 2 and triad.bandwidth == pytest.approx(77296.25e6)
    assert triad.flops_per_second == pytest.approx(4831.02e6)
    # 32 nominal bytes (3 loads + 1 store) per iteration, no write-allocate:
    # data volume = iterations x size per thread (all four arrays)
    assert triad.data_volume == triad.iterations * triad.size_bytes // 2
    with pytest.raises(ToolError, match="MByte/s"):
        likwid.parse_likwid_bench("Cycles: 3\n")


def _fake_runner(outputs):
    calls = []

    def run(argv):
        calls.append(list(argv))
        return outputs[argv[1]]
    return run, calls


def _which(name):
    return f"/usr/bin/{name}"


def test_probe_detects_vm_without_counters():
    run, calls = _fake_runner({"-e": (0, read("perfctr_e_vm_nocounters.txt"))})
    probe = likwid.probe_likwid(run=run, which=_which)
    assert not probe and probe.counters == 0 and probe.bench
    assert "no hardware counters" in probe.reason
    assert calls == [["/usr/bin/likwid-perfctr", "-e"]]


def test_probe_with_counters_that_cannot_be_programmed():
    run, _ = _fake_runner({"-e": (0, "This architecture has 8 counters.\n"),
                           "-a": (0, "Group name\tDescription\n    CLOCK    Power and clock\n"),
                           "-C": (1, read("perfctr_vm_msr_error.txt"))})
    probe = likwid.probe_likwid(run=run, which=_which)
    assert not probe.perfctr and probe.counters == 8
    assert "Cannot get access to MSRs" in probe.reason


def test_probe_with_working_counters():
    run, calls = _fake_runner({"-e": (0, "This architecture has 8 counters.\n"),
                               "-a": (0, "    CLOCK    Power and clock\n"),
                               "-C": (0, read("perfctr_nomarker_csv.txt"))})
    probe = likwid.probe_likwid(cpu=1, run=run, which=_which)
    assert probe.perfctr and "CLOCK" in probe.reason
    assert calls[-1][:5] == ["/usr/bin/likwid-perfctr", "-C", "1", "-g", "CLOCK"]


def test_probe_without_likwid():
    probe = likwid.probe_likwid(which=lambda name: None)
    assert not probe and not probe.bench and "not installed" in probe.reason
