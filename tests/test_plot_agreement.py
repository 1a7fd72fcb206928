"""Pictures that agree with the report (issue 29, items 7-11).

7. the port-pressure picture names the resource the text names as binding: the
   line-split cycles are in the bars, and an LCD- or front-end-bound loop marks that
   bound, not the busiest ports;
8. titles name the kernel file, the machine and the -D values of the run;
9. the scaling picture marks the NUMA-domain step; the Roofline keeps the roofs of
   levels without traffic, labels them and keeps the per-level markers apart; the
   validation picture labels its outliers and uses ticks that do not collide;
10. the ECM text says that a kernel without memory traffic on one core becomes
    memory-bound on more cores (shared L3), with the table's core counts;
11. the ``--simulate`` wait columns name their unit.

Numbers are derived by hand from the databases and machine files (CSX.yml/SKX.yml:
loads are an AGU uop on 2/3 and a data uop on 2D/3D, a line split of a 32-B load
costs 1 cy on 2D/3D, vaddsd/vaddpd latency 4 cy; CSX: 2.5 GHz, 20 cores, 10 per NUMA
domain).
"""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

import kerncraft
from kerncraft.incore.analysis import analyze, load_model
from kerncraft.incore.bottleneck_sim import format_simulation, simulate
from kerncraft.incore.x86.parser import parse_x86
from kerncraft.report.plotdata import (ScalingPlot, incore_prediction_plot, log_ticks,
                                       machine_name, picture_title, port_pressure_plot,
                                       roofline_plot, scaling_plot, sizes_text)
from kerncraft.report.plotdata_validation import (ValidationPlotPoint, points_from_table,
                                                  validation_plot)
from kerncraft.report.text import format_ecm, format_ecm_cpu, memory_bound_cores
from support.published import HOW_TO_GET, published
from test_ecm_golden import needs_gcc12

ROOT = Path(__file__).resolve().parents[1]
VERMILLION_FILL = "fill: #d55e00"           # the bottleneck colour of a bar in the SVG


def x86(text: str) -> list:
    return [ln.instruction for ln in parse_x86(text) if ln.instruction]


# --------------------------------------------------------------------------- item 7

def _prediction_2d5pt() -> SimpleNamespace:
    """The in-core part of 2d-5pt on CSX (gcc 12, golden 2d-5pt), by hand: 4 loads and
    1 store per assembly iteration (4 iterations, 2 per cache line of 8). Ports 2/3:
    4 loads + 1 store address, 0.5 each = 2.5 cy; 2D/3D: 4 load data x 0.5 = 2.0 cy
    plus the line splits: loads at 0, 16, 8, 8 B into a 64-B line (rows aligned,
    vector loop from i = 1), a 32-B load stepping by 32 B crosses every other time
    unless it starts at 0 mod 32: 1.5 splits x 1 cy over 2D/3D = +0.75 each.
    T_OL = ports 2/3 2.5 x 2 = 5.0 cy/CL, T_nOL = 2D/3D 2.75 x 2 = 5.5 cy/CL."""
    ports = {"0": 2.0, "1": 2.0, "2": 2.5, "2D": 2.75, "3": 2.5, "3D": 2.75, "4": 1.0,
             "5": 1.5, "6": 1.5}
    return SimpleNamespace(
        arch="CSX", port_cycles=ports, per_cacheline=2.0, t_ol=5.0, t_nol=5.5,
        t_ol_source="port throughput", non_overlapping_ports=("2D", "3D"),
        analysis=SimpleNamespace(lcd=1.0, critical_path=23.0, frontend=2.0),
        line_splits=SimpleNamespace(per_port={"2D": 0.75, "3D": 0.75}), simulated=None)


def test_ecmcpu_picture_binds_the_split_load_data_ports_as_the_text():
    plot = incore_prediction_plot(_prediction_2d5pt(), "2d-5pt")
    cycles = dict(zip(plot.ports, plot.cycles))
    splits = dict(zip(plot.ports, plot.split_cycles))
    assert cycles["2D"] == cycles["3D"] == pytest.approx(2.75)      # 2.0 + 0.75 of splits
    assert splits["2D"] == splits["3D"] == pytest.approx(0.75) and splits["2"] == 0.0
    # the picture binds 2D/3D at 2.75 cy (T_nOL 5.5 cy/CL), not ports 2/3 at 2.5
    assert plot.bottleneck == ("2D", "3D") and plot.binding_bounds == ()
    assert plot.binding_cycles == pytest.approx(2.75)
    assert plot.binding_label == "bottleneck 2D, 3D: 2.75 cy (T_nOL 5.50 cy/CL)"


def test_ecmcpu_picture_of_an_lcd_bound_reduction_marks_the_lcd():
    # gcc's sum reduction on CSX: 4 chained scalar vaddsd per assembly iteration
    # (4 iterations) -> LCD 4 x 4 = 16 cy; the loads put 2 cy on 2/3/2D/3D and the
    # adds 2 cy on 0/1: T_OL = 16 x 2 = 32 cy/CL (LCD), T_nOL = 2 x 2 = 4 cy/CL
    ports = {"0": 2.0, "1": 2.0, "2": 2.0, "2D": 2.0, "3": 2.0, "3D": 2.0, "5": 1.5}
    prediction = SimpleNamespace(
        arch="CSX", port_cycles=ports, per_cacheline=2.0, t_ol=32.0, t_nol=4.0,
        t_ol_source="loop-carried dependency", non_overlapping_ports=("2D", "3D"),
        analysis=SimpleNamespace(lcd=16.0, critical_path=21.0, frontend=1.5),
        line_splits=None, simulated=None)
    plot = incore_prediction_plot(prediction)
    assert plot.bottleneck == () and plot.binding_bounds == ("LCD",)
    assert plot.binding_cycles == pytest.approx(16.0)
    assert plot.binding_label == "bottleneck LCD: 16 cy (T_OL 32.00 cy/CL)"
    assert plot.split_cycles == (0.0,) * len(ports)


def test_incore_picture_of_a_chain_marks_the_lcd():
    # SKX: vaddpd (%rax), %ymm0, %ymm0 chains through ymm0: LCD 4 cy; ports 0.5 cy each
    # (add on 0/1, load on 2/3 + 2D/3D, addq on 0/1/5/6 balanced) -> the LCD binds
    analysis = analyze(x86("vaddpd (%rax), %ymm0, %ymm0\naddq $32, %rax\n"), load_model("SKX"))
    plot = port_pressure_plot(analysis)
    assert max(plot.cycles) == pytest.approx(0.5)
    assert plot.bottleneck == () and plot.binding_bounds == ("LCD",)
    assert plot.binding_cycles == pytest.approx(4.0) == analysis.prediction


def test_incore_picture_includes_the_address_line_splits():
    # two 32-B loads 32 B apart per iteration, start addresses 8-B aligned: of the 8
    # start offsets 0, 8, ..., 56 three (40, 48, 56) make a 32-B load cross a 64-B
    # line: 2 x 3/8 = 0.75 splits x 1 cy over 2D/3D = +0.375 on each, on top of the
    # 1.0 cy of the two load data uops -> 2D/3D 1.375 cy bind (ports 0/1 and 2/3: 1.0)
    analysis = analyze(x86("vaddpd (%rax), %ymm1, %ymm2\nvaddpd 32(%rax), %ymm1, %ymm3\n"
                           "addq $64, %rax\n"), load_model("SKX"), split_alignment=8)
    plot = port_pressure_plot(analysis)
    splits = dict(zip(plot.ports, plot.split_cycles))
    assert splits["2D"] == splits["3D"] == pytest.approx(0.375)
    assert plot.bottleneck == ("2D", "3D") == analysis.bottleneck_ports
    assert plot.binding_cycles == pytest.approx(1.375)


@needs_gcc12
def test_ecmcpu_2d5pt_on_csx_picture_and_text_name_the_same_bottleneck():
    result = kerncraft.analyze("kernels/2d-5pt.c", "CSX", model="ECMCPU",
                               defines={"N": 1000, "M": 1000})
    text = format_ecm_cpu(result)
    assert "T_nOL = 5.50 cy/CL" in text and "busiest of ports 2D, 3D" in text
    plot = incore_prediction_plot(result.prediction)
    expected = _prediction_2d5pt()
    assert dict(zip(plot.ports, plot.cycles)) == pytest.approx(
        {**{p: 0.0 for p in plot.ports}, **expected.port_cycles})
    assert plot.bottleneck == ("2D", "3D") and plot.binding_cycles == pytest.approx(2.75)


@needs_gcc12
def test_ecmcpu_svg_colours_no_bar_of_an_lcd_bound_loop(tmp_path):
    pytest.importorskip("matplotlib", reason="drawing needs matplotlib (kerncraft[plot])")
    from kerncraft.cli.kerncraft import main

    reduction = tmp_path / "sum.svg"
    assert main(["-p", "ECMCPU", "-m", "CSX", "kernels/sum_reduction.c", "-D", "N", "1000",
                 "--plot", str(reduction)]) == 0
    svg = reduction.read_text()
    assert "bottleneck LCD: 16 cy (T_OL 32.00 cy/CL)" in svg
    assert VERMILLION_FILL not in svg                   # no orange bar
    stencil = tmp_path / "2d5pt.svg"
    assert main(["-p", "ECMCPU", "-m", "CSX", "kernels/2d-5pt.c", "-D", "N", "1000", "-D",
                 "M", "1000", "--plot", str(stencil)]) == 0
    svg = stencil.read_text()
    assert "bottleneck 2D, 3D: 2.75 cy (T_nOL 5.50 cy/CL)" in svg and "line splits" in svg
    assert VERMILLION_FILL in svg


# --------------------------------------------------------------------------- item 8

def test_titles_name_kernel_machine_and_sizes():
    assert picture_title("ECM scaling", "kernels/triad.c", "CSX", "N=10000000") == \
        "ECM scaling: triad.c on CSX, N=10000000"
    assert picture_title("port pressure") == "port pressure"
    assert sizes_text([{"N": 1000, "M": 8}, {"N": 10**6, "M": 8}, {"N": 10**4, "M": 8}]) \
        == "M=8 N=1000..1000000 (3 points)"
    assert machine_name(kerncraft.load_machine("CSX")) == "CSX"
    assert machine_name(SimpleNamespace(path=None, model_name="Xeon 6248")) == "Xeon 6248"


def test_published_machine_file_is_named_by_its_file():
    path = published("SkylakeSP_Gold-6148.yml")
    if not path.exists():
        pytest.skip(HOW_TO_GET)
    assert machine_name(kerncraft.load_machine(str(path))) == "SkylakeSP_Gold-6148"


def test_kerncraft_plot_titles_come_from_the_run(tmp_path):
    pytest.importorskip("matplotlib", reason="drawing needs matplotlib (kerncraft[plot])")
    from kerncraft.cli.kerncraft import main

    target = tmp_path / "t.svg"
    assert main(["-p", "ECMData", "-p", "RooflineFLOP", "-m", "CSX", "kernels/triad.c",
                 "-D", "N", "1000-100000:3log", "--plot", str(target)]) == 0
    # -D N 1000-100000:3log: 1000, 10000, 100000; the Roofline shows the last point.
    # A title longer than the column breaks after the kind (two text lines in the SVG)
    svg = (tmp_path / "t-ECMData.svg").read_text()
    assert ">ECMData link times<" in svg and "triad.c on CSX, N=1000..100000 (3 points)" in svg
    assert "RooflineFLOP: triad.c on CSX, N=100000" in \
        (tmp_path / "t-RooflineFLOP.svg").read_text()


def test_docs_pictures_take_their_titles_from_the_run():
    import runpy

    script = runpy.run_path(str(ROOT / "docs" / "make_pictures.py"))
    assert script["roofline"]().title == "RooflineFLOP: triad.c on CSX, N=10000000"
    assert script["ports"]().title == "port pressure: stream_triad_csx.s on CSX"
    # the stored run: 14 kernels at L1, L2, L3, MEM
    assert script["validation"]().title == ("prediction vs measurement: 14 kernels x 4 "
                                            "levels, validation-zen5-hand.txt")


# --------------------------------------------------------------------------- item 9

def test_scaling_marks_the_numa_domain_steps():
    rows = tuple(range(1, 41))
    plot = ScalingPlot("s", rows, (1.0,) * 40, (False,) * 40, None, "It/s",
                       numa_domain_cores=10)
    assert plot.numa_steps == (10, 20, 30)          # the 11th, 21st, 31st core open one
    assert ScalingPlot("s", (1, 2), (1.0, 2.0), (False,) * 2, None, "It/s",
                       numa_domain_cores=20).numa_steps == ()
    # CSX: 20 cores per socket, 10 per NUMA domain (CSX.yml)
    ecm = kerncraft.analyze("kernels/triad.c", "CSX", model="ECM", defines={"N": 10**7})
    assert scaling_plot(ecm, 2.5e9).numa_steps == (10,)


def test_roofline_keeps_the_roofs_without_traffic_and_parts_the_markers():
    # triad N = 1000: 3 x 8 kB = 24 kB exceed the 21.3 kB of L1 for the whole working
    # set, so the data come from L2; L3 and MEM carry nothing at this size
    small = roofline_plot(kerncraft.analyze("kernels/triad.c", "CSX", model="RooflineFLOP",
                                            defines={"N": 1000}))
    assert [(c.level, c.traffic) for c in small.ceilings] == [
        ("L1", True), ("L2", True), ("L3", False), ("MEM", False)]
    assert small.ceilings[3].label == "MEM 21.3 GB/s (no traffic)"
    assert [p.level for p in small.points] == ["L1", "L2"]
    # the markers sit on their roofs: L1 1/12 FLOP/B x 291.92 GB/s = 24.33 GFLOP/s,
    # L2 1/16 x 106.79 GB/s = 6.674 GFLOP/s = the prediction (bound by L2)
    assert [small.roof_at(p) for p in small.points] == pytest.approx([291.92e9 / 12,
                                                                     106.79e9 / 16])
    assert small.performance == pytest.approx(106.79e9 / 16)
    # N = 10^7: L1 and L3 have the same intensity (1/12) but their markers stay apart:
    # 24.33 against 47.49 / 12 = 3.958 GFLOP/s
    large = roofline_plot(kerncraft.analyze("kernels/triad.c", "CSX", model="RooflineFLOP",
                                            defines={"N": 10**7}))
    l1, _, l3, _ = large.points
    assert l1.intensity == l3.intensity
    assert (large.roof_at(l1), large.roof_at(l3)) == pytest.approx(
        (291.92e9 / 12, 35.62e9 * 4 / 3 / 12))


def test_roofline_svg_labels_the_roofs_on_the_lines(tmp_path):
    pytest.importorskip("matplotlib", reason="drawing needs matplotlib (kerncraft[plot])")
    from kerncraft.report.plot import draw

    plot = roofline_plot(kerncraft.analyze("kernels/triad.c", "CSX", model="RooflineFLOP",
                                           defines={"N": 1000}))
    svg = Path(draw(plot, str(tmp_path / "r.svg"))).read_text()
    # roofs with traffic: in the legend and on the line; without: on the line only
    assert svg.count("L2 107 GB/s") == 2 and svg.count("MEM 21.3 GB/s (no traffic)") == 1
    assert "prediction, bound by L2: 6.67 GFLOP/s" in svg


TABLE = """| kernel | level | defines | working set | measured cy/CL | ECM cy/CL | ECM error | Roofline cy/CL | Roofline error | model: data from | notes |
| copy | L1 | N=1536 | 24.0 KiB | 1.23 | 1.00 | -18.8 % | 1.00 | -18.8 % | L1 |  |
| copy | L2 | N=14336 | 224.0 KiB | 2.71 | 2.66 | -1.9 % | 2.34 | -13.6 % | L2 |  |
| 3d-7pt | L1 | N=100 | 1 KiB | 10.00 | 6.70 | -33.0 % | 6.70 | -33.0 % | L1 |  |
| 3d-7pt | L2 | N=200 | 1 KiB | 10.70 | 6.70 | -37.4 % | 6.70 | -37.4 % | L2 |  |
| 3d-7pt | MEM | N=900 | 1 KiB | 29.00 | 18.00 | -37.9 % | 12.00 | -58.6 % | MEM |  |
"""


def test_validation_labels_outliers_and_uses_ticks_that_do_not_collide():
    plot = validation_plot(points_from_table(TABLE))
    labels = [(p.kernel, p.level, text) for p, text in plot.outlier_labels()]
    # outside +-10 %: 3d-7pt MEM (-37.9 %), L2 (-37.4 %), L1 (-33.0 %), copy L1 (-18.8 %);
    # 3d-7pt L1 and L2 lie within 1.6x of each other on both axes: one label, at the
    # worse point, levels in the run's order; MEM is 2.9x away: a label of its own
    assert labels == [("3d-7pt", "MEM", "3d-7pt MEM"), ("3d-7pt", "L2", "3d-7pt L1, L2"),
                      ("copy", "L1", "copy L1")]
    assert [text for _, text in plot.outlier_labels(most=1)] == ["3d-7pt MEM"]
    # limits 1.0 / 1.3 ... 29 x 1.3 = 0.77 ... 37.7 cy/CL: 1, 2, 5, 10, 20
    assert plot.ticks == (1.0, 2.0, 5.0, 10.0, 20.0)
    assert log_ticks(0.77, 6.0) == (1.0, 2.0, 5.0)                  # no 3 x 10^0, 4 x 10^0
    assert log_ticks(0.5, 2000.0) == (1.0, 10.0, 100.0, 1000.0)     # 1-2-5 would be 10
    assert validation_plot([ValidationPlotPoint("a", "L1", 1.0, 1.05, 1.0)]).outlier_labels() \
        == ()


# --------------------------------------------------------------------------- item 10

def test_memory_bound_core_ranges():
    rows = [SimpleNamespace(cores=n, memory_bound=n in (3, 4, 5, 9, 10)) for n in range(1, 11)]
    assert memory_bound_cores(SimpleNamespace(scaling=rows)) == "3-5, 9-10"


@needs_gcc12
def test_ecm_text_names_the_shrinking_l3_share():
    # 2d-5pt N = M = 500 on CSX (test_ecm_golden.test_ecm_2d5pt_in_l3): 2 x 500 x 500 x
    # 8 B = 3.81 MiB fit one core's 10 MiB of L3, so no memory traffic on one core; from
    # 3 cores the L3 share 2/3 x (14/3 + 1) MiB = 3.78 MiB is too small, T_MEM(n) =
    # 25.26 cy/CL and T_L3MEM,sat 8.76 (n <= 10) or 4.38 (two NUMA domains): 25.26/n <
    # T_L3MEM,sat for every n >= 3 -> memory-bound at 3-20 cores
    result = kerncraft.analyze("kernels/2d-5pt.c", "CSX", model="ECM",
                               defines={"N": 500, "M": 500})
    assert result.saturation_cores is None
    line = format_ecm(result).splitlines()[3]
    assert line == ("does not saturate the memory interface on one core: no memory traffic "
                    "at this size (one core's data stays in the caches), but each core's "
                    "share of the shared L3 shrinks as cores are added, and the scaling "
                    "below is memory-bound at 3-20 cores")
    assert scaling_plot(result, 2.5e9).note == (
        "memory-bound at 3-20 cores: each core's share of the shared L3 shrinks")


def test_ecm_text_without_memory_traffic_on_any_core_count():
    # triad N = 1000: 3 x 8 kB = 24 kB stay in L2 (1 MiB, private) for every core count
    result = kerncraft.analyze("kernels/triad.c", "CSX", model="ECM", defines={"N": 1000})
    assert not any(row.memory_bound for row in result.scaling)
    assert ("does not saturate the memory interface: no memory traffic at this size "
            "(one core's data stays in the caches)") in format_ecm(result).splitlines()
    assert scaling_plot(result, 2.5e9).note == ""


def test_ecm_text_agrees_with_the_table_on_the_published_skylake_file():
    path = published("SkylakeSP_Gold-6148.yml")
    if not path.exists():
        pytest.skip(HOW_TO_GET)
    result = kerncraft.analyze("kernels/3d-7pt.c", kerncraft.load_machine(str(path)),
                               model="ECM", defines={"N": 100, "M": 100, "L": 100})
    text = format_ecm(result)
    # the rows the printed table calls memory-bound, and the ranges the sentence names
    rows = [int(m.group(1)) for m in re.finditer(r"^\s+(\d+)\s+[\d.]+\s+memory", text, re.M)]
    named = re.search(r"memory-bound at ([\d, -]+) cores", text).group(1)
    covered = [n for part in named.split(", ")
               for n in range(int(part.split("-")[0]), int(part.split("-")[-1]) + 1)]
    assert rows and covered == rows and "shared L3" in text


# --------------------------------------------------------------------------- item 11

def test_simulate_wait_columns_name_their_unit():
    model = load_model("SKX")
    analysis = analyze(x86("vaddpd (%rax), %ymm0, %ymm0\naddq $32, %rax\n"), model)
    lines = format_simulation(simulate(analysis, model)).splitlines()
    header = next(line for line in lines if "main reason" in line)
    assert header.split("main reason")[0].split() == [
        "line", "wait", "cy", "dep", "cy", "port", "cy", "caused", "cy"]
    # the numbers stand right-aligned under their headers; the addq (line 2) never
    # waits and makes nothing wait (its chain is 1 cy, shorter than the vaddpd's 4)
    row = next(line for line in lines if line.startswith("    2 "))
    for name in ("wait cy", "dep cy", "port cy", "caused cy"):
        end = header.index(name) + len(name)
        assert row[end - 3:end] == "0.0", name
