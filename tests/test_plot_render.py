"""Rendering the pictures (issue 14): every kind to PNG and SVG, the ``--plot``
options of the three commands, unsupported formats and a missing matplotlib."""
from __future__ import annotations

import builtins
from pathlib import Path

import pytest

import kerncraft
from kerncraft.cli import incore as incore_cli
from kerncraft.cli import validate as validate_cli
from kerncraft.cli.kerncraft import main
from kerncraft.cli.plotting import picture_paths
from kerncraft.errors import KerncraftError
from kerncraft.incore.analysis import analyze_text
from kerncraft.report import plot as plot_module
from kerncraft.report.plotdata import (ecm_sweep_plot, port_pressure_plot, roofline_plot,
                                       scaling_plot)
from kerncraft.report.plotdata_validation import points_from_table, validation_plot
from test_ecm_golden import needs_gcc12

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]
TRIAD_ASM = str(ROOT / "tests/data/asm_papers/stream_triad_csx.s")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _plots() -> dict[str, object]:
    triad = {"N": 10**7}
    rows = kerncraft.sweep("kernels/triad.c", "CSX", model="ECM", defines={"N": [1000, 10**7]})
    sweep = [(24 * r.defines["N"], "", r.result) for r in rows]
    stored = (ROOT / "benchmarks/machines/validation-zen5-hand.txt").read_text()
    return {
        "roofline": roofline_plot(kerncraft.analyze("kernels/triad.c", "CSX",
                                                    model="RooflineFLOP", defines=triad)),
        "sweep": ecm_sweep_plot(sweep, {"L1": 32768, "L2": 2**20}, [(24000, 6.4)]),
        "scaling": scaling_plot(kerncraft.analyze("kernels/triad.c", "CSX", defines=triad),
                                2.5e9),
        "ports": port_pressure_plot(analyze_text(Path(TRIAD_ASM).read_text(), "CSX")),
        "validation": validation_plot(points_from_table(stored)),
    }


# the axis label each kind must carry (the SVG keeps text as text)
LABELS = {"roofline": "arithmetic intensity (FLOP/B)", "sweep": "working set (bytes)",
          "scaling": "performance (GIt/s)", "ports": "cy per assembly iteration",
          "validation": "measured (cy/CL)"}


@pytest.fixture(scope="module")
def plots():
    return _plots()


@pytest.mark.parametrize("kind", sorted(LABELS))
def test_every_kind_renders_to_png_and_svg(plots, kind, tmp_path):
    png = plot_module.draw(plots[kind], str(tmp_path / f"{kind}.png"))
    assert Path(png).read_bytes()[:8] == PNG_MAGIC
    assert Path(png).stat().st_size > 10_000
    svg = Path(plot_module.draw(plots[kind], str(tmp_path / f"{kind}.svg"))).read_text()
    assert "<svg" in svg and LABELS[kind] in svg


def test_pdf_and_unsupported_formats(plots, tmp_path):
    pdf = plot_module.draw(plots["scaling"], str(tmp_path / "s.pdf"))
    assert Path(pdf).read_bytes()[:5] == b"%PDF-"
    with pytest.raises(KerncraftError, match=r"^--plot s.gif: unsupported picture format "
                                             r"'.gif' \(use .png, .svg or .pdf\)$"):
        plot_module.draw(plots["scaling"], "s.gif")
    with pytest.raises(KerncraftError, match="format \\(none\\)"):
        plot_module.check_plot_path("picture")


def test_missing_matplotlib_gives_the_install_hint(monkeypatch, plots, tmp_path, capsys):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(KerncraftError) as info:
        plot_module.draw(plots["ports"], str(tmp_path / "p.png"))
    assert str(info.value) == ("--plot needs matplotlib, which is not installed: "
                               "pip install kerncraft[plot]")
    assert not (tmp_path / "p.png").exists()
    # the command refuses before running the model
    code = main(["-p", "ECM", "-m", "CSX", "kernels/triad.c", "-D", "N", "1000",
                 "--plot", str(tmp_path / "e.png")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == "kerncraft: error: --plot needs matplotlib, which is not installed: " \
                  "pip install kerncraft[plot]\n"


def test_kerncraft_plot_one_and_several_pictures(tmp_path, capsys):
    target = tmp_path / "r.svg"
    assert main(["-p", "RooflineFLOP", "-m", "CSX", "kernels/triad.c", "-D", "N", "10000000",
                 "--plot", str(target)]) == 0
    # the title names the kernel file, the machine and the -D values of the run
    assert "RooflineFLOP: triad.c on CSX, N=10000000" in target.read_text()
    assert capsys.readouterr().err == f"kerncraft: wrote {target}\n"
    target = tmp_path / "t.png"
    assert main(["-p", "ECM", "-p", "ECMData", "-p", "LC", "-m", "CSX", "kernels/triad.c",
                 "-D", "N", "1000-10000000:3log", "--plot", str(target)]) == 0
    assert sorted(p.name for p in tmp_path.glob("t*")) == ["t-ECM.png", "t-ECMData.png"]
    assert picture_paths("a/b.pdf", ["ECM"]) == ["a/b.pdf"]


def test_kerncraft_plot_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["-p", "ECM", "-m", "CSX", "kernels/triad.c", "--plot", "x.jpg"])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "kerncraft: error: argument --plot: unsupported picture format '.jpg' "
        "(use .png, .svg or .pdf)")
    code = main(["-p", "ECMData", "-m", "CSX", "kernels/triad.c", "-D", "N", "1000",
                 "--plot", str(tmp_path / "x.png")])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "--plot: no picture for ECMData" in err


def test_incore_plot(tmp_path, capsys):
    target = tmp_path / "ports.svg"
    assert incore_cli.main(["--arch", "CSX", TRIAD_ASM, "--plot", str(target)]) == 0
    text = target.read_text()
    assert "bottleneck 2, 3" in text and "critical path 11 cy (off scale)" in text
    with pytest.raises(SystemExit) as info:
        incore_cli.main(["--arch", "CSX", TRIAD_ASM, "--plot", "p.tiff"])
    assert info.value.code == 2
    assert "unsupported picture format '.tiff'" in capsys.readouterr().err


def test_validate_plot(tmp_path, capsys):
    from kerncraft.validation.campaign import PointMeasurement

    def measure(bound, machine, options):
        return PointMeasurement(4.0, "fake")

    target = tmp_path / "v.svg"
    assert validate_cli.main(["-m", "CSX", "copy", "triad", "--levels", "L1,MEM",
                              "--plot", str(target)], measure=measure) == 0
    text = target.read_text()
    assert "prediction vs measurement: CSX" in text and "MEM Roofline" in text
    assert f"kerncraft-validate: wrote {target}" in capsys.readouterr().err


def test_sweep_picture_takes_the_measured_points_of_the_same_call():
    from types import SimpleNamespace

    from kerncraft.api import load_kernel
    from kerncraft.cli.plotting import PointCollector, pictures

    machine = kerncraft.load_machine("CSX")
    kernel = load_kernel("kernels/triad.c")
    collector = PointCollector()
    for n, measured in ((1000, 6.5), (10**7, 31.0)):
        bound = kernel.bind({"N": n})
        ecm = kerncraft.analyze(bound, machine, model="ECM")
        collector(bound, [SimpleNamespace(model="ECM", result=ecm),
                          SimpleNamespace(model="Benchmark",
                                          result=SimpleNamespace(cycles_per_cl=measured))])
    assert [(size, label) for size, label, _ in collector.points] == [
        (24000.0, "N=1000"), (2.4e8, "N=10000000")]          # 3 arrays x 8 B x N
    ((model, plot),) = pictures(["ECM", "Benchmark"], collector, machine)
    assert model == "ECM" and plot.measured == ((24000.0, 6.5), (2.4e8, 31.0))
    assert plot.capacities == (("L1", 32768.0), ("L2", 1048576.0), ("L3", 14680064.0))


def test_docs_script_draws_every_example_picture(tmp_path):
    import runpy

    script = runpy.run_path(str(ROOT / "docs" / "make_pictures.py"))
    written = script["main"](["--out", str(tmp_path)])
    assert sorted(p.name for p in written) == [
        "ecm-scaling-triad-csx.png", "ecm-sweep-triad-zen2.png", "ports-triad-csx.png",
        "roofline-triad-csx.png", "validation-zen5.png"]
    assert all(p.read_bytes()[:8] == PNG_MAGIC for p in written)
    # every picture the README shows is in docs/pictures
    readme = (ROOT / "README.md").read_text()
    assert all(f"docs/pictures/{p.name}" in readme for p in written)


@needs_gcc12
def test_ecmcpu_plots_the_port_pressure_of_the_compiled_loop(tmp_path):
    target = tmp_path / "cpu.svg"
    assert main(["-p", "ECMCPU", "-m", "CSX", "kernels/triad.c", "-D", "N", "10000000",
                 "--plot", str(target)]) == 0
    text = target.read_text()
    # gcc's triad loop on CSX: ports 2 and 3 busiest (golden TRIAD (1)), CP 11 cy;
    # T_OL = 1.5 cy x 2 assembly iterations per cache line = 3 cy/CL
    assert "ECMCPU port pressure: triad.c on CSX, N=10000000" in text
    assert "bottleneck 2, 3: 1.5 cy (T_OL 3.00 cy/CL)" in text
    assert "critical path 11 cy (off scale)" in text
