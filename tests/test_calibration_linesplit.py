"""Cache-line-split costs in a calibration (kerncraft/dbtools/calibrate_linesplit.py): the
table written from given timings, the tolerance, inheritance of a partial table, the
report's count and what the table does to 2d-5pt's ECM in-core times. Timings are
injected (``measure_split``): no test runs a microbenchmark. Every expected cost is
derived by hand in the docstrings from the prior's port loads."""
from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from kerncraft.dbtools.calibrate import CalibrationPlan
from kerncraft.dbtools.calibrate_linesplit import (LINES, SPLIT_OFFSET, SplitTiming,
                                                   access_body, decide_line_split,
                                                   split_cases, split_ports)
from kerncraft.dbtools.calibration_run import format_summary, run_calibration
from kerncraft.incore.analysis import load_model
from kerncraft.incore.calibration import read_calibration
from kerncraft.incore.database import load_database
from kerncraft.incore.linesplit import SplitCost
from kerncraft.incore.throughput import balance_ports
from kerncraft.machinegen.incore_calibration import add_calibration_reference

ROOT = Path(__file__).resolve().parents[1]
AVX2 = ["avx", "avx2", "fma"]


def prior_bench(prior):
    """One 'run' of a form: exactly the prior's values (no entry changes)."""
    def bench(form):
        cost = prior.lookup_form(form)
        tp = balance_ports([list(cost.uops)], prior.ports).throughput
        return SimpleNamespace(latency=cost.latency, throughput=tp, latency_kind="register")
    return bench


def calibrate_splits(prior_name, tmp_path, timings, flags=AVX2, name="cal.yml", runs=3):
    """A calibration of ``prior_name`` whose only measurements are line-split timings
    {(kind, width): (split, aligned)} (a value may be a list: one per run); a case not
    given splits at no cost (1.0 cy either way), which a prior without a table agrees with."""
    calls: dict = {}

    def measure(kind, width, split):
        value = timings.get((kind, width), (1.0, 1.0))[0 if split else 1]
        if isinstance(value, list):
            k = calls[(kind, width, split)] = calls.get((kind, width, split), -1) + 1
            return value[k]
        return value
    prior = load_model(prior_name)
    result = run_calibration(
        prior_name, plan=CalibrationPlan(runs=runs, standard_forms=False, pairs=False,
                                         memory_issue=False),
        kernel_forms={"vaddsd xmm,xmm,xmm": ""}, bench=prior_bench(prior),
        host="Test CPU (family 23 model 49)", core_hz=3.0e9, host_flags=flags,
        date="2026-01-02", tool="test", measure_split=measure)
    path = tmp_path / name
    path.write_text(result.text)
    return result, path


# ------------------------------------------------------------------ the microbenchmark

def test_bodies_split_every_access_within_one_page():
    """64 accesses 64 B apart from a page start: at offset 56 each of 16/32/64 B crosses
    its line end, the last one also the page end; at offset 0 none crosses."""
    assert (LINES, SPLIT_OFFSET) == (64, 56)
    split = access_body("store", "ymm", True)
    assert len(split) == 64
    assert split[0] == "        vmovupd %ymm13, 16440(%r14)"        # 16384 + 56
    assert split[-1] == "        vmovupd %ymm13, 20472(%r14)"       # 16384 + 63*64 + 56
    assert 20472 + 32 > 20480                                       # into the next page
    aligned = access_body("load", "zmm", False)
    assert aligned[1] == "        vmovupd 4160(%r14), %zmm1"
    assert all(int(line.split()[1].split("(")[0]) % 64 == 0 for line in aligned)


def test_cases_per_width_of_the_host():
    assert split_cases([]) == []
    assert split_cases(["avx", "avx512f"]) == [("load", "xmm"), ("load", "ymm"),
                                               ("load", "zmm"), ("store", "xmm"),
                                               ("store", "ymm"), ("store", "zmm")]


def test_ports_from_the_prior_table_else_the_data_ports():
    assert split_ports(load_model("ZEN5"), "store") == ("L1D",)
    assert split_ports(load_model("ZEN5"), "load") == ("LD0", "LD1")
    assert split_ports(load_model("ZEN2"), "load") == ("LD0", "LD1")   # load_data_ports
    assert split_ports(load_model("ZEN2"), "store") == ("STD",)        # store_data_ports
    icx = load_model("ICX")
    assert split_ports(icx, "load", "zmm") == ("L1D",)
    assert split_ports(icx, "load", "ymm") == ("2D", "3D")
    assert split_ports(load_model("SKX"), "store", "ymm") == ("4",)    # SKX: loads only


# ------------------------------------------------------------------ the decision

def test_table_written_from_given_timings(tmp_path):
    """ZEN2 (no table). vmovupd mem,ymm puts 0.5 cy on each of LD0/LD1, so a split load
    of 1.0 cy costs 2 x (1.0 - 0.5) = 1.0 cy on LD0/LD1; vmovupd ymm,mem puts 1 cy on
    STD, so a split store of 3.5 cy costs 1 x (3.5 - 1.0) = 2.5 cy on STD. xmm loads
    0.52 vs 0.50 aligned and xmm stores 1.0 vs 1.0: no split cost, as ZEN2 (none)."""
    result, path = calibrate_splits("ZEN2", tmp_path, {
        ("load", "ymm"): (1.0, 0.5), ("store", "ymm"): (3.5, 1.0),
        ("load", "xmm"): (0.52, 0.5), ("store", "xmm"): (1.0, 1.0)})
    costs = set(load_database(path).line_split)
    assert costs == {SplitCost("load", 32, ("LD0", "LD1"), 1.0),
                     SplitCost("store", 32, ("STD",), 2.5)}
    cal = read_calibration(path)
    assert [(e.key, e.field, e.prior, e.written) for e in cal.entries] == [
        ("vmovupd mem,ymm", "line_split.load.ymm", 0.0, 1.0),
        ("vmovupd ymm,mem", "line_split.store.ymm", 0.0, 2.5)]
    assert "2 x (1.00 - 0.50) = 1.00 cy on LD0/LD1" in cal.entries[0].how
    assert cal.describe().startswith("in-core: DB ZEN2 + 2 entries measured on Test CPU")
    assert "line_splits_measured: 4\n  line_splits_agreeing: 2" in result.text
    assert "kerncraft.dbtools.calibrate_linesplit" in result.text
    assert "line splits: 4 load/store widths timed, 2 agree" in format_summary(result, "x")


def test_pseudo_port_partial_table_and_inheritance(tmp_path):
    """ZEN5's table: split stores on the L1D pseudo-port, which the store form does not
    use (b = 0): a 1.67 cy split zmm store costs 1 x 1.67 = ZEN5's 1.67, a 1.86 cy ymm one
    ZEN5's 1.86 (agree); a split load of 1.0 on LD0/LD1 (0.5 each from the form) costs
    2 x 0.5 = ZEN5's 1 (agrees, every width); a 1.42 cy split xmm store costs 1.42
    against ZEN5's 1.86 (1.86 vs 1.42 modelled: differs) and is the one entry written;
    the file inherits ZEN5's others."""
    loads = {("load", w): (1.0, 0.5) for w in ("xmm", "ymm", "zmm")}
    result, path = calibrate_splits("ZEN5", tmp_path, {
        **loads, ("store", "zmm"): (1.67, 1.0), ("store", "ymm"): (1.86, 1.04),
        ("store", "xmm"): (1.42, 1.03)}, flags=["avx", "avx512f"])
    assert "line_splits_measured: 6\n  line_splits_agreeing: 5" in result.text
    cal = read_calibration(path)
    assert [(e.field, e.prior, e.written) for e in cal.entries] == [
        ("line_split.store.xmm", 1.86, 1.42)]
    merged = {(c.kind, c.vector_bytes): c for c in load_database(path).line_split}
    zen5 = {(c.kind, c.vector_bytes): c for c in load_database("ZEN5").line_split}
    assert merged.pop(("store", 16)) == SplitCost("store", 16, ("L1D",), 1.42)
    assert zen5.pop(("store", 16)).cycles == 1.86
    assert merged == zen5


def test_not_written_within_tolerance_or_when_runs_disagree():
    """ZEN5, zmm load 1.04 split: 2 x (1.04 - 0.5) = 1.08 cy; modelled 0.5 + 1.08 / 2 =
    1.04 against ZEN5's 1.0: 4 % < 10 %, agrees. A ymm store 1.2 vs 1.0 aligned: cost
    1.2 on L1D, modelled 1.2 against 1.86 -- but split runs of 1.0/1.2/1.5 spread
    (1.5 - 1.0) / 1.2 = 42 %: not written, with the reason."""
    zen5 = load_model("ZEN5")
    timings = [SplitTiming("load", "zmm", 1.04, 0.5, 3, 0.01),
               SplitTiming("store", "ymm", 1.2, 1.0, 3, 0.42)]
    decision = decide_line_split(zen5, timings, 0.1, "test")
    assert decision.table is None and decision.written == () and decision.agreeing == 1
    (entry,) = decision.not_written
    assert entry.field == "line_split.store.ymm" and entry.measured == 1.2
    assert "runs disagree (spread 42 %)" in entry.reason


def test_run_spread_from_the_runs(tmp_path):
    _, path = calibrate_splits("ZEN2", tmp_path, {("load", "ymm"): ([1.0, 1.2, 1.5],
                                                                    [0.5, 0.5, 0.5])},
                               flags=["avx"])
    cal = read_calibration(path)
    assert cal.entries == () and load_database(path).line_split == ()
    assert "line_split:" not in path.read_text()
    (entry,) = cal.not_written
    # median 1.2 -> 2 x (1.2 - 0.5) = 1.4 cy; spread (1.5 - 1.0) / 1.2
    assert (entry.measured, entry.reason) == (1.4, "runs disagree (spread 42 %)")


def test_no_cost_when_the_split_is_not_slower():
    """A split access no slower than the aligned one (within the tolerance) costs 0:
    against ZEN5's 1.86 on L1D a 1.0 cy split ymm store is written as 0."""
    decision = decide_line_split(load_model("ZEN5"),
                                 [SplitTiming("store", "ymm", 1.0, 1.04, 3, 0.0)], 0.1, "t")
    assert decision.table["store"] == {"ymm": {"ports": ["L1D"], "cycles": 0.0}}
    assert "no split cost measurable" in decision.written[0].how


# ------------------------------------------------------------------ the prediction

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


@needs_gcc
def test_calibrated_table_changes_2d5pt_t_nol_and_t_ol(tmp_path):
    """2d-5pt, N = M = 1000, machine-files/ZEN2.yml (gcc -O3 -march=znver2: 4 ymm loads
    and 1 ymm store per assembly iteration, 2 assembly iterations per cache line; the
    analysis's shares: 3/8 of the loads and 1/2 of the stores split). Without a table
    T_nOL = LD0 = 4.0 and T_OL = 4.0 cy/CL (AGU0; STD 2.0). With the calibrated costs
    of test_table_written_from_given_timings (1.0 on LD0/LD1, 2.5 on STD):
    LD0 += 2 x 4 x 3/8 x 1.0 / 2 = 1.5 -> T_nOL 5.5; STD += 2 x 1 x 1/2 x 2.5 = 2.5 ->
    4.5 = T_OL (the busiest overlapping port now)."""
    import kerncraft
    kernel = str(ROOT / "kernels" / "2d-5pt.c")
    machine = ROOT / "machine-files" / "ZEN2.yml"
    plain = kerncraft.analyze(kernel, str(machine), model="ECM", defines={"N": 1000, "M": 1000})
    assert (plain.incore.t_nol, plain.incore.t_ol) == (4.0, 4.0)
    _, cal = calibrate_splits("ZEN2", tmp_path, {("load", "ymm"): (1.0, 0.5),
                                                 ("store", "ymm"): (3.5, 1.0)})
    calibrated = tmp_path / "ZEN2-host.yml"
    calibrated.write_text(add_calibration_reference(machine.read_text(), cal.name))
    result = kerncraft.analyze(kernel, str(calibrated), model="ECM",
                               defines={"N": 1000, "M": 1000})
    assert result.incore.t_nol == pytest.approx(5.5)
    assert result.incore.t_ol == pytest.approx(4.5)
    splits = result.incore.to_dict()["line_splits"]
    assert [(a["kind"], a["split_fraction"], a["cycles_per_split"])
            for a in splits["accesses"]] == [("load", 0.375, 1.0), ("store", 0.5, 2.5)]
    assert result.incore.calibration.describe().startswith("in-core: DB ZEN2 + 2 entries")
