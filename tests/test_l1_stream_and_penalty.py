"""The measured L1 streaming limit and Kerncraft's memory penalty cycles (issue 10).

Every number is derived by hand from machine-files/CSX.yml (values transcribed in the
comments) and the golden CSX derivations of tests/support/ecm_golden_cases.py: copy at
N = 10^7 on CSX is { 2.00 || 1.00 | 3.00 | 8.00 | 8.7575 } cy/CL, T_MEM 20.7575;
triad { 2.00 || 2.00 | 4.00 | 12.00 | 11.632 }.
"""
from __future__ import annotations

import math
from argparse import Namespace
from pathlib import Path

import pytest

import kerncraft
from kerncraft.machinegen.penalty_fit import PenaltyPoint, fit_penalties, penalty_points
from kerncraft.machinegen.upstream_fit import link_lines
from kerncraft.errors import MachineFileError
from kerncraft.machine.loader import parse_machine_text
from kerncraft.runner.run import model_report

from test_ecm_golden import needs_gcc12

REPO = Path(__file__).resolve().parent.parent
CSX_TEXT = (REPO / "machine-files" / "CSX.yml").read_text()


def approx(x):
    return pytest.approx(x, rel=1e-9, abs=1e-12)


def args() -> Namespace:
    return Namespace(cache_predictor="LC", cores=1, unit=None, verbose=0,
                     incore_model="kerncraft")


def csx_with(l1_lines: str = "", mem_lines: str = "", path: Path | None = None):
    """CSX.yml with extra lines in its L1 and MEM levels (indentation as in the file)."""
    text = CSX_TEXT
    if l1_lines:
        text = text.replace("  - level: L1\n", "  - level: L1\n" + l1_lines, 1)
    if mem_lines:
        text = text.replace("  - level: MEM\n", "  - level: MEM\n" + mem_lines, 1)
    assert text != CSX_TEXT
    if path is not None:
        path.write_text(text)
        return kerncraft.load_machine(str(path))
    return parse_machine_text(text, "CSX-test.yml")


def kernel(name: str, n: int = 10**7):
    return kerncraft.parse_kernel((REPO / "kernels" / name).read_text(),
                                  filename=name).bind({"N": n})


# ------------------------------------------------------------------ L1 streaming limit
# copy: 2 accesses x 8 B x 8 iterations = 128 B register<->L1 per CL; mix 1 read + 1
# write selects the copy benchmark, CSX L1 copy on 1 core 279.30 GB/s at 2.5 GHz:
# 128 * 2.5 / 279.30 = 1.14572 cy/CL > the ports' T_nOL 1.00 -> T_nOL = 1.14572.
# Intel (nothing overlaps): T_L1 = max(2.0, 1.14572) = 2.0; T_L2 = 1.14572 + 3.0;
# T_L3 = + 8.0; T_MEM = + 8.7575 = 20.9032 cy/CL.
COPY_LIMIT = 128 * 2.5 / 279.30


@needs_gcc12
def test_measured_streaming_limit_sets_t_nol(tmp_path):
    machine = csx_with("    streaming limit: measured\n", path=tmp_path / "csx.yml")
    report = model_report("ECM", kernel("copy.c"), machine, args())
    data = report.data
    assert data["T_nOL"] == approx(COPY_LIMIT)
    limit = data["incore"]["l1_streaming_limit"]
    assert (limit["benchmark"], limit["binds"]) == ("copy", True)
    assert limit["bytes_per_cl"] == 128 and limit["ports_cycles_per_cl"] == approx(1.0)
    t_l3mem = data["contributions"]["T_L3MEM"]
    assert list(data["predictions"].values()) == [
        approx(2.0), approx(COPY_LIMIT + 3.0), approx(COPY_LIMIT + 11.0),
        approx(COPY_LIMIT + 11.0 + t_l3mem)]
    assert t_l3mem == pytest.approx(8.7575, abs=1e-4)
    assert "measured L1 streaming limit: 128 B/CL at benchmark 'copy'" in report.text


@needs_gcc12
def test_streaming_limit_below_the_ports_changes_nothing(tmp_path):
    # triad a[i] = b[i] + s * c[i]: 3 x 64 = 192 B per CL; mix (2 reads, 1 write) selects
    # daxpy (write share 1/3), CSX L1 daxpy 291.92 GB/s: 192 * 2.5 / 291.92 = 1.644 cy,
    # below the ports' T_nOL 2.0.
    machine = csx_with("    streaming limit: measured\n", path=tmp_path / "csx.yml")
    data = model_report("ECM", kernel("triad.c"), machine, args()).data
    assert data["T_nOL"] == approx(2.0)
    limit = data["incore"]["l1_streaming_limit"]
    assert limit["benchmark"] == "daxpy" and limit["binds"] is False
    assert limit["cycles_per_cl"] == approx(192 * 2.5 / 291.92)


@needs_gcc12
def test_published_files_keep_the_port_model():
    data = model_report("ECM", kernel("copy.c"), kerncraft.load_machine("CSX"), args()).data
    assert data["T_nOL"] == approx(1.0) and "l1_streaming_limit" not in data["incore"]


def test_streaming_limit_is_checked_where_it_is_read():
    with pytest.raises(MachineFileError, match="must be 'ports' or 'measured'"):
        csx_with("    streaming limit: sometimes\n")
    text = CSX_TEXT.replace("  - level: L2\n", "  - level: L2\n    streaming limit: measured\n", 1)
    with pytest.raises(MachineFileError, match="belongs to the first level"):
        parse_machine_text(text, "CSX-test.yml")
    assert csx_with("    streaming limit: ports\n").level("L1").streaming_limit == "ports"


# ------------------------------------------------------------------ memory penalty
# copy in memory moves 2 lines in (b, a's write-allocate) and 1 out per CL. With 1.0
# cy per line loaded and 2.0 per line stored: T_penalty = 2 * 1.0 + 1 * 2.0 = 4.0;
# T_MEM = 20.7575 + 4.0 = 24.7575; n_s = ceil(24.7575 / 8.7575 = 2.83) = 3; 3 cores:
# max(24.7575 / 3 = 8.2525, 8.7575) = 8.7575 (the penalty is not in the saturated term).
@needs_gcc12
def test_penalty_joins_the_memory_prediction_only(tmp_path):
    machine = csx_with(mem_lines="    penalty cycles per cacheline load: 1.0\n"
                                 "    penalty cycles per cacheline store: 2.0\n",
                       path=tmp_path / "csx.yml")
    report = model_report("ECM", kernel("copy.c"), machine, args())
    data = report.data
    assert data["T_penalty"] == approx(4.0)
    t_mem = 20.7575 + 4.0
    predictions = list(data["predictions"].values())
    assert predictions[:3] == [approx(2.0), approx(4.0), approx(12.0)]
    assert predictions[3] == pytest.approx(t_mem, abs=1e-4)
    assert data["saturation_cores"] == math.ceil(t_mem / 8.7575) == 3
    rows = {row["cores"]: row["cycles_per_cl"] for row in data["scaling"]}
    assert rows[3] == pytest.approx(8.7575, abs=1e-4)
    assert "+ 4.00 } cy/CL   {T_OL || T_nOL | T_L1L2 | T_L2L3 | T_L3MEM + T_penalty}" \
        in report.text


# ------------------------------------------------------------------ fitting the penalties
def test_penalty_fit_recovers_exact_penalties():
    # deficits made with p_load 0.5, p_store 2.0: load (1, 0) 0.5; copy (2, 1) 3.0;
    # triad (4, 1) 4.0. single = saturated + in_core + deficit.
    points = [PenaltyPoint("load", 1, 0, 5.0 + 0.5 + 0.5, 5.0, 0.5),
              PenaltyPoint("copy", 2, 1, 9.0 + 1.0 + 3.0, 9.0, 1.0),
              PenaltyPoint("triad", 4, 1, 17.0 + 2.0 + 4.0, 17.0, 2.0)]
    fit = fit_penalties(points)
    assert (fit.load, fit.store) == (pytest.approx(0.5), pytest.approx(2.0))
    assert fit.worst_error() == pytest.approx(0.0, abs=1e-12)


def test_penalty_fit_never_goes_negative():
    # deficits -1 (load only) and 2 (1 load, 1 store): the free fit gives p_load -1,
    # p_store 3; clipped: p_load 0 and the store-only fit 2 / 1 = 2.0 (residual 1),
    # better than load-only ((-1 + 2) / 2 = 0.5, residual 4.5).
    points = [PenaltyPoint("load", 1, 0, 5.0 - 1.0, 5.0, 0.0),
              PenaltyPoint("update", 1, 1, 7.0 + 2.0, 7.0, 0.0)]
    fit = fit_penalties(points)
    assert (fit.load, fit.store) == (0.0, pytest.approx(2.0))


def test_penalty_points_from_bandwidths():
    # copy: 1 read + 1 write stream, 128 nominal B per CL; 2 lines in (write-allocate),
    # 1 out. At 2 GHz: 1 core 32 GB/s -> 8.0 cy; 2 cores 64 GB/s (saturated) -> 4.0;
    # L1 256 GB/s -> 1.0; deficit 3.0.
    (point,) = penalty_points({"copy": (1, 1, 0)}, {"copy": (32e9, 64e9)}, {"copy": (256e9,)},
                              (1, 2), 2, 2e9)
    assert (point.loads, point.stores) == (2.0, 1.0)
    assert (point.single_core, point.saturated, point.in_core, point.deficit) == \
        (approx(8.0), approx(4.0), approx(1.0), approx(3.0))


def test_link_lines_count_write_allocates_and_victims():
    copy, update, triad = (1, 1, 0), (1, 1, 1), (3, 1, 0)
    assert link_lines(copy, "half-duplex", False) == 3     # b, a (allocate) in; a out
    assert link_lines(copy, "full-duplex", False) == 2
    assert link_lines(copy, "full-duplex", True) == 2      # victim: b and a out
    assert link_lines(copy, "half-duplex", True) == 4
    assert link_lines(update, "half-duplex", False) == 2
    assert link_lines(triad, "full-duplex", True) == 4
