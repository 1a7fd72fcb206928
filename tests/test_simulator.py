"""Cycle-level simulator: agreement with the static bounds where they are exact,
bottleneck variants, waits, and the ``--simulate`` command line.

Every expected value is derived by hand from the databases (SKX.yml, TX2.yml):

* SKX ``vaddpd ymm`` runs on ports 0/1 (lat 4), ``vdivpd ymm`` is one uop on port 0
  plus 8 cycles on the divider ``0DV`` (lat 14), ``addq`` on 0/1/5/6, loads are an
  AGU uop on 2/3 plus a data uop on 2D/3D, stores an AGU uop on 2/3/7 (7: simple
  address) plus store data on 4; front end 4 fused uops per cycle, ROB 224.
"""
from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from kerncraft.incore.analysis import analyze, analyze_text, load_model
from kerncraft.incore.cycle_sim import SimConfig, build_program, run_simulation
from kerncraft.incore.bottleneck_sim import config_for, format_simulation, simulate
from kerncraft.incore.x86.parser import parse_x86

sys.path.insert(0, str(Path(__file__).parent))
from test_tx2 import UPDATE_TX2, body as a64_body  # noqa: E402

PAPERS = Path(__file__).parent / "data" / "asm_papers"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def skx():
    return load_model("SKX")


def x86(text: str) -> list:
    return [ln.instruction for ln in parse_x86(text) if ln.instruction]


def sim(text: str, model):
    analysis = analyze(x86(text), model)
    return analysis, simulate(analysis, model)


FOUR_ADDS = ("vaddpd %ymm1, %ymm2, %ymm3\nvaddpd %ymm1, %ymm2, %ymm4\n"
             "vaddpd %ymm1, %ymm2, %ymm5\nvaddpd %ymm1, %ymm2, %ymm6\n")


def test_throughput_bound_four_vaddpd(skx):
    """4 independent vaddpd on 2 ports: 2.0 cy; without port limits the front end
    (4 fused uops / 4) leaves 1.0 cy, so ports bind by 1.0 cy (50 %)."""
    analysis, result = sim(FOUR_ADDS, skx)
    assert analysis.prediction == 2.0
    assert result.cycles_per_iteration == pytest.approx(2.0)
    assert result.run.port_cycles["0"] == pytest.approx(2.0)
    assert result.run.port_cycles["1"] == pytest.approx(2.0)
    assert result.infinite_ports == pytest.approx(1.0)
    assert result.perfect_frontend == pytest.approx(2.0)
    assert result.no_dependencies == pytest.approx(2.0)
    assert result.binding.resource == "ports"
    assert result.binding.cycles_saved == pytest.approx(1.0)
    assert result.binding.share == pytest.approx(0.5)
    assert all(w.dependency == 0.0 and w.port > 0 for w in result.run.waits)
    assert {w.port_blamed for w in result.run.waits} == {"0", "1"}


def test_lcd_bound_reduction_is_its_latency(skx):
    """vaddpd (%rax),%ymm0,%ymm0 accumulates: 4 cy per iteration (the add's latency);
    without dependencies: 2 fused uops / 4 = 0.5 cy (also the load ports' 1/2)."""
    analysis, result = sim("vaddpd (%rax), %ymm0, %ymm0\naddq $32, %rax\n", skx)
    assert analysis.lcd == 4.0
    assert result.cycles_per_iteration == pytest.approx(4.0)
    assert result.no_dependencies == pytest.approx(0.5)
    assert result.binding.resource == "dependencies"
    assert result.binding.cycles_saved == pytest.approx(3.5)
    assert "via v0" in result.binding.detail
    add = result.run.waits[0]
    assert add.dependency > add.port and add.waited_on == 0     # its previous instance
    assert result.run.waits[1].wait == 0.0                      # addq never waits


def test_divider_bound_vdivpd_is_the_divider_occupancy(skx):
    """vdivpd ymm occupies 0DV for 8 cycles: 8.0 cy; infinite ports: 1 fused uop / 4."""
    analysis, result = sim("vdivpd %ymm1, %ymm2, %ymm3\n", skx)
    assert analysis.throughput == 8.0
    assert result.cycles_per_iteration == pytest.approx(8.0)
    assert result.run.port_cycles["0DV"] == pytest.approx(8.0)
    assert result.infinite_ports == pytest.approx(0.25)
    assert result.binding.resource == "ports"
    assert result.binding.detail.startswith("port 0DV busy 8.00")
    assert result.run.waits[0].port_blamed == "0DV"


FRONT_END = ("addq $1, %rax\naddq $1, %rbx\naddq $1, %rcx\naddq $1, %rdx\n"
             "movq (%rsi), %r8\nmovq 8(%rsi), %r9\nmovq %r10, (%rdi)\n")


def test_front_end_bound_loop_agrees_with_the_fused_uop_bound(skx):
    """7 fused uops / width 4 = 1.75 cy. Ports: 4 adds on 0/1/5/6 = 1.0, 2 loads +
    1 store address on 2/3/7 = 1.0, store data on 4 = 1.0; LCD 1 (the adds).
    A perfect front end leaves 1.0 cy: front end binds by 0.75 cy."""
    analysis, result = sim(FRONT_END, skx)
    assert analysis.frontend == 1.75 and analysis.throughput == 1.0
    assert result.cycles_per_iteration == pytest.approx(1.75)
    assert result.perfect_frontend == pytest.approx(1.0)
    assert result.binding.resource == "front end"
    assert result.binding.cycles_saved == pytest.approx(0.75)
    assert "7 fused uops / width 4" in result.binding.detail


def test_two_resources_at_their_limit_name_none(skx):
    """5 adds on 4 ALU ports and 5 fused uops / 4: both 1.25 cy. Removing either
    limit alone leaves the other, so no single resource binds."""
    text = "".join(f"addq $1, %{r}\n" for r in ("rax", "rbx", "rcx", "rdx", "rsi"))
    analysis, result = sim(text, skx)
    assert result.cycles_per_iteration == pytest.approx(1.25)
    assert result.binding.resource == "none"
    assert "front end 1.25 cy" in result.binding.detail
    assert "port 0 busy 1.25 cy" in result.binding.detail


@pytest.mark.parametrize("file, arch, expected", [
    ("pi_o1_skx.s", "SKX", 9.0),               # store -> load through (%rsp): 4 + 5
    ("adc_chain_skx.s", "SKX", 8.0),           # carry-flag chain of 8 adc
    ("vdivpd_stream_skx.s", "SKX", 8.0),       # divider
    ("sum_reduction_icc_csx.s", "CSX", 4.0),   # vaddpd chain
    ("gs_armflang_tx2.s", "TX2", 18.0),        # fadd + fadd + fmul
])
def test_paper_loops_agree_with_the_exact_static_bound(file, arch, expected):
    """Loops whose static prediction is one exact bound (values of test_incore_papers
    and test_tx2): memory-carried, flag and divider chains are simulated alike."""
    analysis = analyze_text((PAPERS / file).read_text(), arch)
    assert analysis.prediction == pytest.approx(expected)
    assert simulate(analysis, load_model(arch)).cycles_per_iteration == pytest.approx(expected)


def test_tx2_update_with_post_indexed_store_is_port_bound():
    """The update loop of test_tx2: 4.0 cy by ports 3/4/5 in the simulation too,
    not the 11-cy false chain through the post-indexed stp."""
    model = load_model("TX2")
    result = simulate(analyze(a64_body(UPDATE_TX2), model), model)
    assert result.cycles_per_iteration == pytest.approx(4.0)
    assert result.binding.resource == "ports"


def test_scheduler_and_rob_limit_how_far_the_loop_runs_ahead(skx):
    """A dependent chain with a tiny scheduler: the front end stalls on it, the
    steady state stays the 4-cy chain; the reorder buffer fills when it is small."""
    analysis = analyze(x86("vaddpd %ymm1, %ymm0, %ymm0\n"), skx)
    prog = build_program(analysis.graph, analysis.costs, analysis.fused_uops, skx)
    run = run_simulation(prog, SimConfig(frontend_width=4, rob_size=224, scheduler_size=4))
    assert run.cycles_per_iteration == pytest.approx(4.0)
    assert run.frontend_stalls["scheduler"] > 0 and run.frontend_stalls["reorder buffer"] == 0
    run = run_simulation(prog, SimConfig(frontend_width=4, rob_size=8, scheduler_size=None))
    assert run.cycles_per_iteration == pytest.approx(4.0)
    assert run.frontend_stalls["reorder buffer"] > 0


def test_config_from_the_database(skx):
    cfg = config_for(skx)
    assert (cfg.frontend_width, cfg.rob_size, cfg.scheduler_size) == (4.0, 224, 112)
    assert config_for(skx, scheduler_size=60).scheduler_size == 60
    # ZEN5.yml sets an effective scheduler of 64 (fitted to row restarts on its host)
    assert config_for(load_model("ZEN5")).scheduler_size == 64


def test_rows_restart_the_chain(skx):
    """The 4-cy vaddpd chain of one instruction (SKX: scheduler 112 = rob/2, 4 per
    cycle dispatched). One endless chain: 4 cy per iteration. Restarted every
    iteration, or every 8 (a row's 8 uops wait in the scheduler while the next rows
    run): no chain binds, the two add ports do, 0.5 cy. Long rows of R: while a row's
    chain runs, the front end fills the scheduler with the next row's first S = 112
    uops, whose chain starts at once, so a row costs (R - S) x 4 cy: R = 400 ->
    288 x 4 / 400 = 2.88 cy per iteration, R = 1000 -> 888 x 4 / 1000 = 3.552."""
    analysis = analyze(x86("vaddpd %ymm1, %ymm0, %ymm0\n"), skx)
    prog = build_program(analysis.graph, analysis.costs, analysis.fused_uops, skx)
    base = config_for(skx, iterations=4000)
    assert run_simulation(prog, base).cycles_per_iteration == pytest.approx(4.0)
    for rows, expected in ((1, 0.5), (8, 0.5), (400, 2.88), (1000, 3.552)):
        run = run_simulation(prog, replace(base, row_length=rows))
        assert run.cycles_per_iteration == pytest.approx(expected, abs=0.005)


def test_cli_simulate_rows(capsys, tmp_path):
    """kerncraft-incore --simulate --rows 1: a one-FMA accumulation (4-cy chain on
    ZEN5) restarted every iteration is bound by the load and FMA pipes: 1 load on 2
    load paths, 1 FMA on 2 FMA pipes -> 0.5 cy per iteration."""
    from kerncraft.cli.incore import main
    loop = tmp_path / "red.s"
    loop.write_text(".L1:\n        vfmadd231pd (%rsi,%rax), %zmm1, %zmm0\n"
                    "        addq $64, %rax\n        cmpq %rax, %rdx\n        jne .L1\n")
    assert main(["--arch", "ZEN5", "--simulate", "--rows", "1", str(loop)]) == 0
    out = capsys.readouterr().out
    assert "0.50 cy per iteration (static bound 4.00, chains restarting every 1 iterations)" \
        in out
    with pytest.raises(SystemExit):
        main(["--arch", "ZEN5", "--rows", "4", str(loop)])
    assert "--rows needs --simulate" in capsys.readouterr().err


def test_ecm_sim_restarts_matvec_rows():
    """matvec on the Zen 5 machine file, rows of 48 doubles: 48 / 8 per zmm assembly
    iteration = 6 iterations per row; the static LCD bound is 16 cy/CL. The simulation
    with the chain restarting every 6 iterations gives T_OL near what the host
    measured (kerncraft-validate, matvec L1 M=48 N=48: 6.9 cy/CL in nine runs)."""
    import kerncraft
    k = kerncraft.parse_kernel((ROOT / "kernels/matvec.c").read_text(), "matvec.c")
    from kerncraft.models.incore_prediction import predict_incore
    machine = kerncraft.load_machine(str(ROOT / "machine-files/ZEN5-VM.yml"))
    static = predict_incore(k.bind({"N": 48, "M": 48}), machine, iterations_per_cacheline=8)
    assert static.t_ol == pytest.approx(16.0)
    r = predict_incore(k.bind({"N": 48, "M": 48}), machine, iterations_per_cacheline=8,
                       incore_model="kerncraft-sim")
    assert "chains restarting every 6 iterations" in r.notes[-1]
    assert 6.9 * 0.9 < r.t_ol < 6.9 * 1.1


def test_report_text_and_json(skx):
    analysis, result = sim("vaddpd (%rax), %ymm0, %ymm0\naddq $32, %rax\n", skx)
    text = format_simulation(result)
    assert "4.00 cy per iteration (static bound 4.00)" in text
    assert "binding: dependencies, 3.50 cy per iteration (88 %)" in text
    doc = json.loads(json.dumps(result.to_dict()))
    assert doc["cycles_per_iteration"] == 4.0
    assert doc["variants"]["no_dependencies"] == 0.5
    assert doc["binding"]["resource"] == "dependencies"
    assert [i["line"] for i in doc["instructions"]] == [1, 2]
    # the add waits for its own previous result (loop-carried), the addq never waits
    assert [i["reason"] for i in doc["instructions"]] == ["operand from line 1 (vaddpd)", ""]


def test_own_load_is_named_as_the_reason(skx):
    """``vaddpd (%rax), %ymm1, %ymm2``: the add waits for the load part of the same
    instruction (at least the 7-cy ymm load latency of SKX), never for a port; the
    1-cy rax chain binds (1.0 cy per iteration, as the static LCD)."""
    analysis, result = sim("vaddpd (%rax), %ymm1, %ymm2\naddq $32, %rax\n", skx)
    assert analysis.prediction == 1.0 and result.cycles_per_iteration == pytest.approx(1.0)
    add = result.to_dict()["instructions"][0]
    assert add["reason"] == "its own load" and add["port"] == 0.0
    assert add["dependency"] >= 7.0
    assert result.run.waits[0].waited_on == -1 and result.run.waits[0].caused == 0.0


def test_post_indexed_load_pointer_does_not_wait_for_its_data():
    """TX2 Gauss-Seidel: the writeback uop of ``ldr d1, [x7], #8`` sits on the address
    node, so the instruction issues as soon as x7 is there (wait 0), while the fadd
    after it waits for the loaded d1."""
    model = load_model("TX2")
    analysis = analyze_text((PAPERS / "gs_armflang_tx2.s").read_text(), "TX2")
    rows = {i["line"]: i for i in simulate(analysis, model).to_dict()["instructions"]}
    assert rows[8]["wait"] == 0.0 and rows[11]["wait"] == 0.0
    assert rows[12]["reason"] == "operand from line 11 (ldr)"


def test_cli_simulate(capsys):
    from kerncraft.cli.incore import main
    path = str(PAPERS / "vdivpd_stream_skx.s")
    assert main(["--arch", "SKX", path, "--simulate"]) == 0
    out = capsys.readouterr().out
    assert "simulation (SKX" in out and "8.00 cy per iteration (static bound 8.00)" in out
    assert "binding: ports" in out
    assert main(["--arch", "SKX", path, "--simulate", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["simulation"]["cycles_per_iteration"] == 8.0
    assert doc["simulation"]["binding"]["resource"] == "ports"


def test_incore_model_name():
    from kerncraft.options import AnalysisOptions, canonical_incore_model
    assert canonical_incore_model("Kerncraft_Sim") == "kerncraft-sim"
    assert AnalysisOptions(incore_model="kerncraft-sim").incore_model == "kerncraft-sim"


def _gcc12() -> bool:
    import shutil
    import subprocess
    gcc = shutil.which("gcc")
    if gcc is None:
        return False
    out = subprocess.run([gcc, "-dumpfullversion"], capture_output=True, text=True, check=False)
    return out.stdout.startswith("12.")


@pytest.mark.skipif(not _gcc12(), reason="the loop below is gcc 12's (as test_ecm_golden)")
def test_ecm_with_the_simulated_incore_model():
    """``-p ECM -m CSX kernels/copy.c -i kerncraft-sim``: gcc 12's loop is load, indexed
    store, addq, cmpq+jne (4 iterations of 8 B per 32-B vector). Every resource runs at
    1.0 cy per assembly iteration (ports 2/3: 2 AGU uops; port 4; port 6 (jne); 4 fused
    uops / 4; the rax chain), and so does the simulation: T_OL = 1.0 * 8 / 4 = 2.0 cy/CL,
    set by the simulation; T_nOL stays the busiest load-data port, 1 load -> 1.0 cy/CL."""
    from kerncraft.report.json import to_json
    from kerncraft.report.schema import INCORE, check
    result = kerncraft_analyze("kernels/copy.c", "CSX", model="ECM", defines={"N": 10**7},
                               incore_model="kerncraft-sim")
    incore = result.incore
    assert incore.incore_model == "kerncraft-sim" and incore.t_ol_source == "simulation"
    assert incore.simulated == pytest.approx(1.0)
    assert (incore.t_ol, incore.t_nol) == (pytest.approx(2.0), pytest.approx(1.0))
    assert "simulation: 1.00 cy per assembly iteration (static bound 1.00)" in incore.notes[-1]
    data = incore.to_dict()
    assert data["simulated_cy_per_cl"] == pytest.approx(2.0)
    assert check(data, INCORE) == []
    assert json.loads(to_json(result))["incore"]["T_OL_source"] == "simulation"


def kerncraft_analyze(*args, **kw):
    import kerncraft
    return kerncraft.analyze(*args, **kw)


def test_iteration_count():
    """~4000 dynamic instructions (20..400 iterations), at most ~12,000 cycles by the
    static bound but at least 8 iterations."""
    from kerncraft.incore.cycle_sim import default_iterations
    assert default_iterations(4) == 400            # 4000 / 4 = 1000, capped
    assert default_iterations(200) == 20           # 4000 / 200
    assert default_iterations(300) == 20           # at least 20 without a hint
    assert default_iterations(200, 800.0) == 15    # 12000 / 800
    assert default_iterations(200, 1600.0) == 8    # 7.5 -> at least 8
    assert default_iterations(1, 8.0) == 400       # 12000 / 8 = 1500 > 400
