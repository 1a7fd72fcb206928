"""Draw the example pictures of the README into docs/pictures/ (``--out DIR`` elsewhere).

    python docs/make_pictures.py [--out DIR]

Everything comes from bundled inputs, so the pictures are the same on every host
with the same compiler (the in-core part of ECM comes from the compiled loop):

* ``roofline-triad-csx.png``: ``kerncraft -p RooflineFLOP -m CSX kernels/triad.c -D N 10000000``
* ``ecm-sweep-triad-zen2.png``: ECM of the triad on ZEN2 over N = 10^2 ... 10^8
  (the Zen transfers L1-L2 and L2-L3 overlap and are drawn as lines);
* ``ecm-scaling-triad-csx.png``: the ECM scaling table of the triad on CSX;
* ``ports-triad-csx.png``: ``kerncraft-incore --arch CSX`` on
  ``tests/data/asm_papers/stream_triad_csx.s``;
* ``validation-zen5.png``: the stored run ``benchmarks/machines/validation-zen5-hand.txt``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import kerncraft
from kerncraft.validation.sizes import working_set
from kerncraft.incore.analysis import analyze_text
from kerncraft.report.plot import draw
from kerncraft.report.plotdata import (ecm_sweep_plot, machine_name, picture_title,
                                       port_pressure_plot, roofline_plot, scaling_plot,
                                       sizes_text)
from kerncraft.report.plotdata_validation import points_from_table, validation_plot

ROOT = Path(__file__).resolve().parents[1]
TRIAD_KERNEL = "kernels/triad.c"
TRIAD = {"N": 10**7}

# titles come from the run's inputs (picture_title), as those of --plot do


def roofline() -> object:
    machine = kerncraft.load_machine("CSX")
    result = kerncraft.analyze(TRIAD_KERNEL, machine, model="RooflineFLOP", defines=TRIAD)
    return roofline_plot(result, picture_title("RooflineFLOP", TRIAD_KERNEL,
                                               machine_name(machine), sizes_text([TRIAD])))


def ecm_sweep() -> object:
    machine = kerncraft.load_machine("ZEN2")
    kernel = kerncraft.api.load_kernel(TRIAD_KERNEL)
    rows = kerncraft.sweep(kernel, machine, model="ECM", defines={"N": "100-100000000:25log"})
    points = [(working_set(kernel.bind(dict(r.defines))), f"N={r.defines['N']}", r.result)
              for r in rows]
    capacities = {lvl.name: lvl.size_per_group for lvl in machine.cache_levels}
    title = picture_title("ECM contributions", TRIAD_KERNEL, machine_name(machine),
                          sizes_text([dict(r.defines) for r in rows]))
    return ecm_sweep_plot(points, capacities, title=title)


def scaling() -> object:
    machine = kerncraft.load_machine("CSX")
    result = kerncraft.analyze(TRIAD_KERNEL, machine, model="ECM", defines=TRIAD)
    return scaling_plot(result, machine.clock, picture_title(
        "ECM scaling", TRIAD_KERNEL, machine_name(machine), sizes_text([TRIAD])))


def ports() -> object:
    path = ROOT / "tests/data/asm_papers/stream_triad_csx.s"
    analysis = analyze_text(path.read_text(), "CSX")
    return port_pressure_plot(analysis, picture_title("port pressure", path.name,
                                                      analysis.arch))


def validation() -> object:
    path = ROOT / "benchmarks/machines/validation-zen5-hand.txt"
    points = points_from_table(path.read_text())
    kernels, levels = {p.kernel for p in points}, {p.level for p in points}
    return validation_plot(points, f"prediction vs measurement: {len(kernels)} kernels x "
                                   f"{len(levels)} levels, {path.name}")


PICTURES = {"roofline-triad-csx.png": roofline, "ecm-sweep-triad-zen2.png": ecm_sweep,
            "ecm-scaling-triad-csx.png": scaling, "ports-triad-csx.png": ports,
            "validation-zen5.png": validation}


def main(argv: list[str] | None = None) -> list[Path]:
    """Write every picture; returns their paths."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "pictures")
    out = parser.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    written = [Path(draw(make(), str(out / name))) for name, make in PICTURES.items()]
    for path in written:
        print(path)
    return written


if __name__ == "__main__":
    main()
