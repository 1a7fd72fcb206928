"""kerncraft-machine says what it measured and under which conditions (issue 24):
the 512-bit comment follows the measured FMA throughput, cache sizes follow the sweep
where it ends well before CPUID, the file says how many cores the bandwidths cover
('measured cores: N of M'), and the load is sampled between the measuring phases.

All measurements are fakes (instant); expected values are derived by hand in the
comments.
"""
from __future__ import annotations

import math

import pytest

from kerncraft.errors import MachineFileError
from kerncraft.machine.loader import parse_machine_text
from kerncraft.machine.model import MeasuredCores
from kerncraft.machinegen import generate as mg
from kerncraft.machinegen.capacities import AGREEMENT, effective_capacity
from kerncraft.measure import hostload
from kerncraft.measure.clock import ClockCalibration, FmaThroughput
from kerncraft.measure.hostload import CpuSample
from kerncraft.measure.march import choose_compiler_flags
from kerncraft.measure.streams import Plateau
from kerncraft.measure.topology import CacheInfo, HostTopology, identify_microarchitecture

KiB, MiB = 1024, 1024 * 1024
CLOCK = ClockCalibration(3e9, 3e9, "fake add chain", 0.0, (3e9,), 1, 3e9, 3e9)
ZEN4_FLAGS = frozenset("sse2 sse4_2 popcnt avx avx2 fma avx512f avx512cd avx512dq avx512bw "
                       "avx512vl hypervisor".split())
ICX_FLAGS = frozenset("sse2 avx avx2 fma avx512f hypervisor".split())


def accept_all(compiler: str, option: str) -> bool | None:
    return True if compiler == "gcc" else None


def topology(*, vendor="GenuineIntel", family=6, model=106, flags=ICX_FLAGS, l3=48 * MiB,
             l3_ways=12, cores_per_socket=2, core_cpus=(0, 1), hypervisor=True) -> HostTopology:
    uarch = identify_microarchitecture(vendor, family, model, 1, flags)
    caches = (CacheInfo(1, "Data", 48 * KiB, 12, 64, 64, (0,), 2),
              CacheInfo(2, "Unified", 1280 * KiB, 20, 1024, 64, (0,), 2),
              CacheInfo(3, "Unified", l3, l3_ways, l3 // (l3_ways * 64), 64, (0, 1), 1))
    return HostTopology("fake CPU", vendor, family, model, 1, flags, 1, cores_per_socket, 1, 1,
                        core_cpus, core_cpus, caches, uarch, hypervisor=hypervisor)


def bandwidth(l3_end: int = 20 * MiB):
    def measure(kernel, size, cores, duration, repeats):
        per_core = 190e9 if size < 40 * KiB else 125e9 if size < MiB else \
            33e9 if size < l3_end else 7e9
        return per_core * cores
    return measure


def generate(topo: HostTopology, plan=None, messages=None, **probes) -> str:
    chosen = mg.Probes(topology=lambda: topo, clock=lambda: CLOCK,
                       bandwidth=probes.pop("bandwidth", bandwidth()),
                       compilers=lambda u: choose_compiler_flags(u, probe=accept_all), **probes)
    sink = messages.append if messages is not None else (lambda m: None)
    return mg.generate_machine_file(plan or mg.GenerationPlan.quick(), chosen, sink)


# ---------------------------------------------------------------- 512-bit comment

def test_the_512_bit_comment_follows_the_measured_fma_units():
    """The table says Zen 4 runs 512-bit ops in two halves (one 512-bit FMA per cycle).
    A measured 1.9 FMA per scalar cycle means two full units: the file must say full
    width (and the flags prefer 512-bit vectors); a measured 1.0 fits the table."""
    zen4 = topology(vendor="AuthenticAMD", family=0x19, model=0x11, flags=ZEN4_FLAGS)
    assert not zen4.uarch.native_512
    two = FmaThroughput(5.7e9, 1.9, 2, 2.85e9, 0.0, 3e9)
    text = generate(zen4, fma=lambda clock: two)
    assert "# with -mprefer-vector-width=512: 512-bit ops run at full width on this core " \
           "(measured: two full-width 512-bit FMA units);" in text
    assert "two halves" not in text
    assert "  - gcc: -O3 -march=znver4 -mprefer-vector-width=512 -ffreestanding" in text
    one = FmaThroughput(3e9, 1.0, 1, 3e9, 0.0, 3e9)
    text = generate(zen4, fma=lambda clock: one)
    assert "# no -mprefer-vector-width=512: 512-bit ops run in two halves on this core (as the " \
           "table says; the measured one 512-bit FMA per cycle fits it);" in text
    assert "  - gcc: -O3 -march=znver4 -ffreestanding" in text


# ---------------------------------------------------------------- effective capacities

def l3_cache(size: int, ways: int = 15, shared=(0, 1)) -> CacheInfo:
    return CacheInfo(3, "Unified", size, ways, size // (ways * 64), 64, shared, 1)


def test_a_plateau_ending_well_before_cpuid_gives_the_effective_size():
    """The Golden Cove guest: CPUID 480 MB of L3, the sweep (three sizes per octave)
    leaves the L3 plateau after 80.6 MB; the next swept size, 101.6 MB, is below 3/4 of
    480 MB: the step lies well below the CPUID size."""
    swept = [int(8 * KiB * 2 ** (k / 3)) for k in range(60)]
    last = max(s for s in swept if s < 85 * MiB)
    after = min(s for s in swept if s > last)
    assert after < AGREEMENT * 480 * MiB
    cap = effective_capacity(l3_cache(480 * MiB), Plateau(4 * MiB, last, 33e9, 12, 2 * after),
                             swept, True)
    assert (cap.measured, cap.size, cap.cpuid) == (True, last, 480 * MiB)
    # 15 ways x 64 B per set; sets rounded up with 1 % to spare for the two-decimal size
    assert cap.sets == math.ceil(1.01 * last / (15 * 64))
    assert "up to 80.63 MB and is off it at 101.59 MB; CPUID says 480.00 MB" in cap.note()


def test_the_cpuid_size_stays_where_the_plateau_agrees_or_cannot_be_read():
    swept = [8 * KiB * 2 ** k for k in range(16)]          # ..., 16, 32, 64, 128 MiB
    l3 = l3_cache(32 * MiB)
    # plateau to 16 MiB, off it at 32 MiB: 32 >= 3/4 x 32 -> the step may lie at the size
    agrees = effective_capacity(l3, Plateau(2 * MiB, 16 * MiB, 33e9, 4, 64 * MiB), swept, True)
    # the sweep ends on the plateau: nothing to read
    ends = effective_capacity(l3, Plateau(2 * MiB, 8 * KiB * 2 ** 15, 33e9, 4), swept, True)
    no_plateau = effective_capacity(l3, None, swept, True)
    # a private L2 whose plateau ends early (the Zen 5 VM's 406 kB of 1 MB): a noisy sweep
    l2 = CacheInfo(2, "Unified", MiB, 16, 1024, 64, (0,), 2)
    private = effective_capacity(l2, Plateau(64 * KiB, 256 * KiB, 200e9, 3), swept, False)
    for cap in (agrees, ends, no_plateau, private):
        assert not cap.measured and cap.size == cap.cpuid
        assert cap.sets == (cap.cpuid // (64 * (15 if cap.level == "L3" else 16)))


def test_generated_file_writes_the_measured_l3_size():
    """Fake: L3 plateau below 85 MiB, CPUID 480 MiB (15 ways). The quick sweep (two sizes
    per octave from 8 KiB) has 64 MiB on the plateau and 90.5 MiB off it (< 360 MiB): the
    file writes 64 MiB, its geometry ceil(1.01 x 64 MiB / 960 B) = 70605 sets of 15 ways."""
    text = generate(topology(l3=480 * MiB, l3_ways=15), bandwidth=bandwidth(85 * MiB))
    machine = parse_machine_text(text)
    l3 = machine.level("L3")
    assert l3.size_per_group == 64 * MiB
    assert (l3.geometry.sets, l3.geometry.ways) == (70605, 15)
    assert "up to 64.00 MB and is off it at 90.51 MB; CPUID says 480.00 MB" in text
    assert l3.whole_working_set_fill == 1.0


# ---------------------------------------------------------------- measured cores

def test_pinned_run_says_only_one_of_64_cores_was_measured():
    text = generate(topology(cores_per_socket=64, core_cpus=(0,), hypervisor=False))
    machine = parse_machine_text(text)
    assert machine.measured_cores == MeasuredCores(1, 64) and machine.measured_cores.partial
    assert "measured cores: 1 of 64   # [measured]" in text
    assert "# ONLY 1 of the 64 cores of a socket were measured (this process may run on 1 " \
           "core(s) only (CPU affinity: taskset or a cgroup))" in text
    assert [m.cores for m in machine.measurements] == [(1,)] * 4


def test_max_cores_and_a_small_vm_are_said_too():
    limited = parse_machine_text(generate(topology(), plan=mg.GenerationPlan(
        per_octave=1, max_tries=2, max_cores=1)))
    assert limited.measured_cores == MeasuredCores(1, 2)
    text = generate(topology())
    assert parse_machine_text(text).measured_cores == MeasuredCores(2, 2)
    assert "# All 2 cores (vCPUs) this virtual machine shows were measured; the host's " \
           "socket may have more," in text


@pytest.mark.parametrize("value", ["3 of 2", "0 of 4", "two of 4", "4"])
def test_measured_cores_must_be_n_of_m(value):
    text = generate(topology()).replace("measured cores: 2 of 2", f"measured cores: {value}")
    with pytest.raises(MachineFileError, match="'measured cores' is 'N of M'"):
        parse_machine_text(text)


def test_files_without_the_key_load_as_before():
    text = generate(topology())
    text = "\n".join(line for line in text.splitlines() if not line.startswith("measured cores"))
    assert parse_machine_text(text).measured_cores is None


# ---------------------------------------------------------------- load during the run

PROC_STAT = """cpu  500 10 200 9000 30 5 7 40 0 0
cpu0 100 0 50 4500 10 1 2 10 0 0
cpu1 400 10 150 4500 20 4 5 30 0 0
intr 12345
"""


def test_proc_stat_busy_and_steal_of_our_cpus():
    # busy = user + nice + system + irq + softirq: cpu1 400 + 10 + 150 + 4 + 5 = 569,
    # steal 30; both CPUs: 100 + 50 + 1 + 2 = 153 more, steal 10 more
    assert hostload.parse_proc_stat(PROC_STAT, frozenset({1})) == (569, 30, 1)
    assert hostload.parse_proc_stat(PROC_STAT) == (722, 40, 2)


def test_phase_load_subtracts_our_own_time():
    before = CpuSample(10.0, 100.0, 1.0, 5.0, 2)
    after = CpuSample(12.0, 102.9, 1.1, 7.6, 2)
    load = hostload.phase_load("L1 table", before, after)
    # (2.9 s busy - 2.6 s ours) / 2 s = 0.15 CPUs of 2: 7.5 %, below 10 %; steal 0.05
    assert (load.others, load.steal) == (pytest.approx(0.15), pytest.approx(0.05))
    assert not load.busy
    # 0.5 s more of others' time: 0.4 CPUs of 2 = 20 % -> busy
    assert hostload.phase_load("L1 table", before, CpuSample(12.0, 103.4, 1.1, 7.6, 2)).busy


def samples(busy_phase: int):
    """One sample per phase boundary, 1 s apart; other processes take 0.02 s per phase,
    0.6 s in phase ``busy_phase`` (0.6 of 2 CPUs = 30 % > 10 %)."""
    state = {"n": 0, "busy": 0.0}

    def sample() -> CpuSample:
        n = state["n"]
        state["busy"] += 0 if n == 0 else 0.6 if n == busy_phase else 0.02
        state["n"] += 1
        return CpuSample(float(n), state["busy"], 0.0, 0.0, 2)
    return sample


def test_load_is_sampled_between_phases_and_a_busy_phase_is_said():
    messages: list[str] = []
    text = generate(topology(), messages=messages, cpu_sample=samples(busy_phase=2))
    assert "warning: the machine got busy during size sweep (1.0 s): other processes 0.60 of " \
           "2 CPU(s), steal 0.00 -- BUSY" in messages
    assert "BUSY above 10 %): BUSY during size sweep: figures measured then may be low" in text
    phases = [line[4:].split(" (")[0] for line in text.splitlines()
              if line.startswith("#   ") and "other processes" in line]
    assert phases == ["clock and FMA", "size sweep", "L1 table", "L2 table", "L3 table",
                      "MEM table", "second pass of L1 and memory, re-checks"]
    quiet = generate(topology(), cpu_sample=samples(busy_phase=-1))
    assert "BUSY above 10 %): quiet throughout" in quiet
