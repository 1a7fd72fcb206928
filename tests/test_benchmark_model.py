"""``-p Benchmark``: the benchmark program, the timing backend for real, the likwid path
against recorded output, and the prediction-vs-measurement comparison.

The real runs need x86-64 Linux and gcc (skipped otherwise). Other processes may
share the cores, so real timings are compared with generous tolerances and every
side takes the best of several runs.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from kerncraft.benchmark import program as bench_program
from kerncraft.measure import timing
from kerncraft.cli.kerncraft import main
from kerncraft.compilation.compiler import select_compiler
from kerncraft.errors import KerncraftError
from kerncraft.kernel.parser import parse_kernel
from kerncraft.machine.loader import load_machine
from kerncraft.benchmark import kernel_run as bm
from kerncraft.models.compare import ComparisonRow, compare_reports, relative_error
from kerncraft.report.text import format_comparison
from kerncraft.runner.run import ModelReport

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "kernels"

needs_host = pytest.mark.skipif(
    not timing.is_x86_64_linux() or shutil.which("gcc") is None,
    reason="needs x86-64 Linux and gcc (runs the generated benchmark)")


def kernel(name: str, **values):
    path = KERNELS / f"{name}.c"
    return parse_kernel(path.read_text(), filename=str(path)).bind(values)


@pytest.fixture(scope="module")
def host():
    return load_machine("ICX-VM")


@pytest.fixture(scope="module")
def clock():
    from kerncraft.measure.clock import calibrate_clock
    return calibrate_clock(duration=0.05, repetitions=3, cpu=bm.choose_cpus(1)[0])


# ---------------------------------------------------------------- the program text

def test_program_has_warmup_then_timed_phase():
    text = bench_program.benchmark_source(kernel("triad", N=100))
    body = text[text.index("kc_repetitions = kc_constant"):]
    assert "for (int kc_phase = 0; kc_phase < 2; ++kc_phase) {" in body
    assert "kc_count = kc_phase == 0 ? kc_repetitions / 20 + 1 : kc_repetitions;" in body
    assert body.index("kc_timer_start();") < body.index("a[i] = b[i] + (s * c[i]);") \
        < body.index("kc_timer_stop(kc_count);")
    assert "#pragma" not in text                  # one core: no OpenMP at all


def test_openmp_pragma_on_outermost_loop_with_reductions():
    text = bench_program.benchmark_source(kernel("sum_reduction", N=100), threads=2)
    lines = [ln.strip() for ln in text.splitlines()]
    pos = lines.index("#pragma omp parallel for schedule(static) reduction(+:s)")
    assert lines[pos + 1] == "for (int i = 0; i < N; ++i)"
    text = bench_program.benchmark_source(kernel("2d-5pt", N=50, M=50), threads=2)
    lines = [ln.strip() for ln in text.splitlines()]
    assert lines[lines.index("#pragma omp parallel for schedule(static)") + 1] \
        == "for (int j = 1; j < (M - 1); ++j)"          # outer loop only
    assert text.count("#pragma") == 1


@pytest.mark.parametrize("name, values, fragment", [
    ("gs-2d-5pt", {"N": 50, "M": 50}, "'a' is written and also read at another element"),
    ("matvec_trans", {"N": 50, "M": 50}, "writes the same elements of 'y'"),
    ("kahan-dot", {"N": 50}, "is assigned in it (not a sum or product reduction)"),
])
def test_openmp_refuses_racy_nests(name, values, fragment):
    with pytest.raises(KerncraftError, match=re.escape(fragment)):
        bench_program.benchmark_source(kernel(name, **values), threads=2)


def test_openmp_environment_pins_threads_in_order():
    env = bench_program.openmp_environment([3, 1])
    assert env["OMP_NUM_THREADS"] == "2" and env["OMP_PLACES"] == "{3},{1}"
    assert env["OMP_PROC_BIND"] == "close"


# ---------------------------------------------------------------- real runs (timing backend)

def _external_runs(argv, cpu, runs):
    """[(outside wall, outside CPU time, the program's own wall time for warm-up plus timed
    phase, its own min(wall, CPU) of the timed phase)] of running ``argv`` pinned; the
    child's CPU time comes from wait4."""
    results = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True,
                                preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        output = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.stdout.close()
        assert os.waitstatus_to_exitcode(status) == 0
        own = timing.parse_protocol(output)
        warmup = float(re.search(r"KERNCRAFT_WARMUP_TIME (\S+)", output).group(1))
        results.append((wall, usage.ru_utime + usage.ru_stime, warmup + own.seconds,
                        min(own.seconds, own.cpu_seconds)))
    return results


@needs_host
def test_timing_backend_agrees_with_external_timing(host, clock):
    """triad N=1024 (24 kB, L1) run for real with a fixed repetition count (about 0.3 s
    per run): the model's cy/CL against seconds x calibrated clock / cache lines of work,
    timed from outside the program around the whole process.

    On this VM one executable may run at different speeds in different processes
    (e.g. 2.8 or 3.4 cy/CL here; other tenants of the physical core), so the model's
    runs and the outside runs, made at different moments, may legitimately differ
    by 20 %. The check per process compares the outside time with the program's own
    timers (warm-up and timed phase): it may not be shorter, and only start-up and
    initialisation may make it longer. (An earlier version compared the outside time with
    the timed phase scaled by the sweep count, within 10 %; it failed once in CI, 0.116 s
    against 0.105 s: the warm-up's speed and the start-up time vary under load.) The check across processes
    is loose; it catches a wrong cache-line count, clock or repetition count (factor 2)."""
    n, reps = 1024, 800_000
    triad = kernel("triad", N=n)
    cpu = clock.cpu
    result = bm.run_benchmark(triad, host, cpus=(cpu,), clock=clock, min_time=0, repeats=3,
                              repetitions=reps, backend="timing")
    assert result.backend == "timing" and result.iterations_per_cacheline == 8
    assert result.repetitions == reps and result.runs == 3
    lines = reps * n / 8
    assert result.cycles_per_cl == pytest.approx(result.seconds * clock.core_hz / lines)
    assert result.cycles_per_it == pytest.approx(result.cycles_per_cl / 8)
    assert result.iterations_per_s == pytest.approx(reps * n / result.seconds)
    assert result.flops_per_s == pytest.approx(2 * result.iterations_per_s)
    # independent: the same executable with the same repetition count, timed from outside;
    # it also runs the warm-up phase (repetitions / 20 + 1), so count those sweeps too
    name, flags = select_compiler(host)
    built = bench_program.build_benchmark(triad, compiler=name, flags=flags)
    assert built.cache_hit
    sweeps = reps + reps // 20 + 1
    runs = _external_runs([str(built.executable), str(n), str(reps)], cpu, runs=3)
    for outside_wall, outside_cpu, inside_wall, _ in runs:
        # same process: the outside adds only start-up and array initialisation (a few ms;
        # more when the machine is busy), never less than the program's own timers
        assert outside_wall >= 0.99 * inside_wall
        assert min(outside_wall, outside_cpu) <= 1.05 * inside_wall + 0.05
    best = min(min(wall, cpu) for wall, cpu, _, _ in runs)
    independent = best * clock.core_hz / (sweeps * n / 8)
    # different processes at different moments: on a busy machine they ran 1.47x apart
    # (2.01 vs 1.37 cy/CL while other work shared the cores); a factor of 2 is what a wrong
    # cache-line, clock or repetition count gives, so that is what this bound catches
    assert 1 / 1.7 < independent / result.cycles_per_cl < 1.7, (runs, result)
    assert 0.5 < result.cycles_per_cl < 20      # 3 loads + 1 store per CL from L1


@needs_host
def test_cli_benchmark_writes_nothing_beside_kernel_and_cleans_up(tmp_path, monkeypatch,
                                                                  capsys):
    work, temp = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    temp.mkdir()
    source = work / "triad.c"
    source.write_text((KERNELS / "triad.c").read_text() + "/* fresh build */\n")
    monkeypatch.setattr(tempfile, "tempdir", str(temp))       # fresh, private temp dir
    monkeypatch.setenv("KERNCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KERNCRAFT_BENCH_MIN_TIME", "0.05")
    monkeypatch.setenv("KERNCRAFT_BENCH_REPEATS", "2")
    monkeypatch.chdir(work)
    target = tmp_path / "out.json"
    code = main(["-p", "ECM", "-p", "Benchmark", "-m", "ICX-VM", str(source), "-D", "N", "1000",
                 "--json", str(target)])
    out = capsys.readouterr().out
    assert code == 0
    assert "Benchmark (1 core(s) pinned to CPU" in out and "backend: timing" in out
    assert re.search(r"measured: [\d.]+ cy/CL +[\d.]+ cy/It +[\d.]+ [GM]It/s", out)
    assert "Prediction vs. measurement" in out and re.search(r"ECM +[\d.]+ cy", out)
    assert sorted(p.name for p in work.iterdir()) == ["triad.c"]   # nothing beside the kernel
    # build directories are gone; executables are kept in the cache directory (issue 29)
    assert list(temp.iterdir()) == []
    cached = list((tmp_path / "cache" / "bench").iterdir())
    assert any(p.name.startswith("kernel-") for p in cached)
    assert not any(p.name.endswith(".tmp") for p in cached)
    point = json.loads(target.read_text())["points"][0]
    bench = point["models"]["Benchmark"]
    assert bench["backend"] == "timing" and bench["unit"] == "cy/CL" and bench["runs"] == 2
    assert bench["value"] == bench["cycles_per_cl"] > 0
    [row] = point["comparison"]
    assert row["model"] == "ECM" and row["measured_cy_per_cl"] == bench["cycles_per_cl"]
    assert row["relative_error"] == pytest.approx(
        (row["predicted_cy_per_cl"] - bench["cycles_per_cl"]) / bench["cycles_per_cl"])


@needs_host
def test_two_cores_run_with_openmp_and_clock_note(host):
    from kerncraft.measure.clock import ClockCalibration

    usable = bm.choose_cpus(1)
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two CPUs")
    fake = ClockCalibration(core_hz=3.0e9, tsc_hz=None, method="stub", spread=0.0,
                            cpu=usable[0])
    result = bm.run_benchmark(kernel("sum_reduction", N=20000), host, cores=2, clock=fake,
                              min_time=0.02, repeats=1, backend="timing")
    assert result.cores == 2 and len(set(result.cpus)) == 2
    assert result.time_source == "wall"          # CPU time of two threads is never used
    assert result.clock_hz == 3.0e9
    assert any("differs from the calibrated clock by +16.3 %" in n for n in result.notes)
    assert result.cycles_per_cl > 0


def test_bad_measurement_setting_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setenv("KERNCRAFT_BENCH_REPEATS", "zero")
    code = main(["-p", "Benchmark", "-m", "ICX-VM", str(KERNELS / "copy.c"), "-D", "N", "100"])
    assert code == 2
    assert "KERNCRAFT_BENCH_REPEATS must be a positive number" in capsys.readouterr().err


def test_too_many_cores_is_a_clear_error():
    with pytest.raises(KerncraftError, match="may only use"):
        bm.choose_cpus(len(os.sched_getaffinity(0)) + 1)


# ---------------------------------------------------------------- comparison

def _args(**kw):
    base = dict(cores=1, unit=None, verbose=0, json=None, compiler=None, compiler_flags=None,
                cache_predictor="LC")
    base.update(kw)
    return argparse.Namespace(**base)


def test_relative_error():
    assert relative_error(12.0, 10.0) == pytest.approx(0.2)
    assert relative_error(8.0, 10.0) == pytest.approx(-0.2)
    with pytest.raises(ValueError):
        relative_error(1.0, 0.0)


def test_comparison_rows_and_text_from_stub_reports():
    reports = [
        ModelReport("ECM", "ecm", {"scaling": [{"cores": 1, "cycles_per_cl": 12.0},
                                               {"cores": 2, "cycles_per_cl": 7.0}]}),
        ModelReport("ECMData", "data", {"values": {}}),          # not a full prediction
        ModelReport("RooflineFLOP", "roof", {"cycles_per_cl": 8.0}),
        ModelReport("Benchmark", "bench", {"cycles_per_cl": 10.0}),
    ]
    rows = compare_reports(reports, cores=1)
    assert rows == [ComparisonRow("ECM", 12.0, 10.0), ComparisonRow("RooflineFLOP", 8.0, 10.0)]
    assert format_comparison(rows).splitlines() == [
        "Prediction vs. measurement (1 core(s); error = (prediction - measurement) / "
        "measurement)",
        "  model          predicted   measured    error",
        "  ECM             12.00 cy   10.00 cy   +20.0%",
        "  RooflineFLOP     8.00 cy   10.00 cy   -20.0%"]
    assert compare_reports(reports, cores=2)[0].predicted == 7.0
    assert compare_reports(reports[:3]) == []                    # no measurement


def test_run_models_reports_measurement_progress_on_stderr(monkeypatch, capsys):
    """A measuring sweep says on stderr which point it is at; a predicting one says
    nothing there."""
    from kerncraft.runner import run as registry
    stubs = {"ECM": lambda k, m, a: ModelReport("ECM", "ECM stub", {}),
             "Benchmark": lambda k, m, a: ModelReport("Benchmark", "Benchmark stub",
                                                      {"cycles_per_cl": 10.0})}
    monkeypatch.setattr(registry, "model_report", lambda name, *a: stubs[name](*a))
    machine = load_machine("ICX-VM")
    unbound = parse_kernel((KERNELS / "copy.c").read_text(), filename="copy.c")
    out = io.StringIO()
    registry.run_models(["Benchmark"], unbound, machine, [{"N": 10}, {"N": 20}], _args(), out)
    assert capsys.readouterr().err.splitlines() == [
        "kerncraft: measuring point 1/2 (N=10)", "kerncraft: measuring point 2/2 (N=20)"]
    registry.run_models(["ECM"], unbound, machine, [{"N": 10}, {"N": 20}], _args(), out)
    assert capsys.readouterr().err == ""


def test_run_models_prints_and_stores_the_comparison(monkeypatch, tmp_path):
    from kerncraft.runner import run as registry
    stubs = {"ECM": lambda k, m, a: ModelReport("ECM", "ECM stub", {
                 "scaling": [{"cores": 1, "cycles_per_cl": 9.0}]}),
             "Benchmark": lambda k, m, a: ModelReport("Benchmark", "Benchmark stub",
                                                      {"cycles_per_cl": 10.0})}
    monkeypatch.setattr(registry, "model_report", lambda name, *a: stubs[name](*a))
    out = io.StringIO()
    target = tmp_path / "r.json"
    machine = load_machine("ICX-VM")
    unbound = parse_kernel((KERNELS / "copy.c").read_text(), filename="copy.c")
    code = registry.run_models(["Benchmark", "ECM"], unbound, machine, [{"N": 10}],
                               _args(json=str(target)), out)
    assert code == 0
    text = out.getvalue()
    assert text.index("Benchmark stub") < text.index("ECM stub") < text.index("Prediction vs.")
    assert "  ECM              9.00 cy   10.00 cy   -10.0%" in text
    [row] = json.loads(target.read_text())["points"][0]["comparison"]
    assert row == {"model": "ECM", "predicted_cy_per_cl": 9.0, "measured_cy_per_cl": 10.0,
                   "relative_error": pytest.approx(-0.1)}


# ---------------------------------------------------------------- likwid path (recorded output)

METRICS = {
    "L1": {"misses": "L1D_REPLACEMENT:PMC[0-3]", "evicts": "L2_TRANS_L1D_WB:PMC[0-3]"},
    "L2": {"loads": "L1D_REPLACEMENT:PMC[0-3]", "stores": "L2_TRANS_L1D_WB:PMC[0-3]",
           "misses": "L2_LINES_IN_ALL:PMC[0-3]"},
    "MEM": {"loads": "(CAS_COUNT_RD:MBOX0C[01] + CAS_COUNT_RD:MBOX1C[01])",
            "stores": "CAS_COUNT_WR:MBOX0C[01] + CAS_COUNT_WR:MBOX1C[01]"},
}

# Hand-written in the layout of 'likwid-perfctr -C 1 -m -O -g <events> ./bench 2000 1000'
# (likwid 5, custom event set): this VM has no counters, so no real capture is possible.
# 1000 repetitions x 2000 iterations / 8 = 250000 cache lines of work.
RECORDED = """--------------------------------------------------------------------------------
CPU name:	Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz
CPU type:	Intel Cascadelake SP processor
CPU clock:	2.49 GHz
--------------------------------------------------------------------------------
KERNCRAFT_WARMUP_TIME 1.2e-05
KERNCRAFT_WARMUP_REPETITIONS 51
KERNCRAFT_TIME 4.000000e-04
KERNCRAFT_CPU_TIME 4.000000e-04
KERNCRAFT_REPETITIONS 1000
STRUCT,Info,3,,,
CPU name:,Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz,,,,
CPU type:,Intel Cascadelake SP processor,,,,
CPU clock:,2.494246 GHz,,,,
TABLE,Region kernel,Group 1 Raw,Custom,12,
Region Info,HWThread 1,,,,
RDTSC Runtime [s],0.000400,,,,
call count,1,,,,
Event,Counter,HWThread 1,,,
INSTR_RETIRED_ANY,FIXC0,1500000,,,
CPU_CLK_UNHALTED_CORE,FIXC1,1200000,,,
CPU_CLK_UNHALTED_REF,FIXC2,1000000,,,
L1D_REPLACEMENT,PMC0,750000,,,
L2_TRANS_L1D_WB,PMC1,250000,,,
L2_LINES_IN_ALL,PMC2,2000,,,
CAS_COUNT_RD,MBOX0C0,300,,,
CAS_COUNT_RD,MBOX1C0,200,,,
CAS_COUNT_WR,MBOX0C1,-,,,
CAS_COUNT_WR,MBOX1C1,100,,,
"""


def test_metric_expressions_and_counter_sets():
    template, events = bm.parse_metric(METRICS["MEM"]["loads"])
    assert template == "({0} + {1})"
    assert events == (bm.CounterEvent("CAS_COUNT_RD", ("MBOX0C0", "MBOX0C1")),
                      bm.CounterEvent("CAS_COUNT_RD", ("MBOX1C0", "MBOX1C1")))
    # an uncore event with options, as in the Cascade Lake machine file
    _, [cbox] = bm.parse_metric("LLC_LOOKUP_ANY:CBOX0C[0-3]:STATE=0xF0:OPCODE=0x202")
    assert cbox == bm.CounterEvent("LLC_LOOKUP_ANY", ("CBOX0C0", "CBOX0C1", "CBOX0C2",
                                                      "CBOX0C3"), ("STATE=0xF0", "OPCODE=0x202"))
    [assignment] = bm.event_sets(METRICS, bm.INTEL_FIXED)
    assert bm.likwid_event_string(assignment, bm.INTEL_FIXED) == (
        "INSTR_RETIRED_ANY:FIXC0,CPU_CLK_UNHALTED_CORE:FIXC1,CPU_CLK_UNHALTED_REF:FIXC2,"
        "L1D_REPLACEMENT:PMC0,L2_TRANS_L1D_WB:PMC1,L2_LINES_IN_ALL:PMC2,"
        "CAS_COUNT_RD:MBOX0C0,CAS_COUNT_RD:MBOX1C0,CAS_COUNT_WR:MBOX0C1,CAS_COUNT_WR:MBOX1C1")
    # five events for four PMCs: two runs
    many = {"L1": {f"m{k}": f"EV{k}:PMC[0-3]" for k in range(5)}}
    sets = bm.event_sets(many)
    assert [sorted(s.values()) for s in sets] == [["PMC0", "PMC1", "PMC2", "PMC3"], ["PMC0"]]


def test_likwid_measurement_from_recorded_output():
    seen = []

    def runner(argv, env):
        seen.append(list(argv))
        return RECORDED

    cycles, seconds, values = bm.likwid_measurement("/x/bench", ["2000", "1000"], [1], METRICS,
                                                    runner=runner)
    [argv] = seen
    assert argv[:5] == ["likwid-perfctr", "-C", "1", "-m", "-O"]
    assert argv[-3:] == ["/x/bench", "2000", "1000"]
    assert cycles == 1_200_000 and seconds == pytest.approx(4e-4)
    assert values["L2"] == {"loads": 750000, "stores": 250000, "misses": 2000}
    assert values["MEM"]["loads"] == 500                       # both memory channels
    assert values["MEM"]["stores"] == 100                      # '-' (not read) counts as 0
    from kerncraft.measure.likwid import parse_perfctr_output
    assert "other" not in parse_perfctr_output(RECORDED).region_names


@needs_host
def test_likwid_backend_in_run_benchmark(host, clock, monkeypatch, tmp_path):
    """The whole likwid branch with a machine file that has counter metrics and a fake
    likwid-perfctr producing output in the recorded layout for the requested events."""
    text = (REPO / "machine-files" / "ICX-VM.yml").read_text()
    block = "\n".join(f"      {m}: {e}" for m, e in METRICS["L2"].items())
    text = text.replace("  - level: L2\n", "  - level: L2\n    performance counter metrics:\n"
                        + block + "\n", 1)
    path = tmp_path / "host-counters.yml"
    path.write_text(text)
    machine = load_machine(str(path))
    probe = type("Probe", (), {"perfctr": True, "reason": "stub: counters readable"})()
    monkeypatch.setattr(bm, "_probe", lambda cpu: probe)
    if shutil.which("gcc") and not Path("/usr/include/likwid-marker.h").exists():
        pytest.skip("likwid headers not installed (the marker build needs them)")

    def runner(argv, env):
        events = argv[argv.index("-g") + 1].split(",")
        lines = int(argv[-1]) * 2000 / 8
        per_cl = {"CPU_CLK_UNHALTED_CORE": 5.0, "L1D_REPLACEMENT": 3.0,
                  "L2_TRANS_L1D_WB": 1.0, "L2_LINES_IN_ALL": 0.0}
        rows = [f"{e.split(':')[0]},{e.split(':')[1]},{per_cl.get(e.split(':')[0], 1) * lines:.0f}"
                for e in events]
        return ("TABLE,Region kernel,Group 1 Raw,Custom,3,\nRegion Info,HWThread 1\n"
                "RDTSC Runtime [s],0.5\ncall count,1\nEvent,Counter,HWThread 1\n"
                + "\n".join(rows) + "\n")

    result = bm.run_benchmark(kernel("triad", N=2000), machine, cpus=(clock.cpu,), clock=clock,
                              min_time=0.01, repeats=1, runner=runner)
    assert result.backend == "likwid" and "CPU_CLK_UNHALTED_CORE" in result.clock_source
    assert result.cycles_per_cl == pytest.approx(5.0)
    volumes = {(v.level, v.metric): (v.measured, v.predicted) for v in result.volumes}
    # LC: 46.9 kB do not fit the L1 condition but the L2 one: b, c, write-allocate of a
    # come from L2 and a goes back
    assert volumes[("L2", "loads")] == pytest.approx((3.0, 3.0))
    assert volumes[("L2", "stores")] == pytest.approx((1.0, 1.0))
    assert volumes[("L2", "misses")] == pytest.approx((0.0, 0.0))
    report = bm._format(result, "cy/CL")
    assert "L2     loads        3.00      3.00" in report
