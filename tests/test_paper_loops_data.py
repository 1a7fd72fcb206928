"""benchmarks/data/paper_loops.json (OSACA thesis Table B.1) and the statistics of
benchmarks/paper_loops.py.

The transcription is checked against the thesis' own accuracy column: OSACA's
accuracy is max(TP, LCD) / measured, printed as a whole percentage.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from paper_loops import Loop, err, kendall_tau, load_loops, summarise  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "paper_loops.json"


@pytest.fixture(scope="module")
def rows():
    return json.loads(DATA.read_text())["loops"]


def test_51_loops_with_known_databases(rows):
    from kerncraft.incore.database import load_database
    assert len(rows) == 51
    assert len({r["file"] for r in rows}) == 51
    assert {r["arch"] for r in rows} == {"TX2", "CSX", "ZEN"}
    for arch in ("TX2", "CSX", "ZEN"):
        assert load_database(arch) is not None
    counts = {}
    for r in rows:
        counts[r["kernel"]] = counts.get(r["kernel"], 0) + 1
    assert counts == {"COPY": 5, "ADD": 5, "UPDATE": 5, "SUM_REDUCTION": 8, "DAXPY": 5,
                      "TRIAD": 5, "STRIAD": 5, "GS": 5, "J2D": 8}


def test_transcription_matches_the_printed_osaca_accuracy(rows):
    for r in rows:
        pred = max(r["osaca"]["tp"], r["osaca"]["lcd"])
        accuracy = 100 * pred / r["measured_cy_per_asm_it"]
        assert abs(accuracy - r["accuracy_percent"]["osaca"]) < 1.5, r["file"]


def test_iaca_only_on_csx(rows):
    for r in rows:
        assert (r["iaca"]["block_tp"] is not None) == (r["arch"] == "CSX"), r["file"]


def test_kendall_tau_hand_derived():
    # x = 1 2 3 4, y = 1 3 2 4: 5 concordant and 1 discordant pair -> (5 - 1) / 6
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # one tie in x: n0 = 3, n1 = 1 -> (2 - 0) / sqrt((3 - 1) * 3)
    assert kendall_tau([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(6))


def test_summary_of_two_loops():
    a = Loop("A", "CSX", "gcc", "a.s", 1, 1, measured=10.0, osaca=10.0, iaca=None)
    b = Loop("B", "CSX", "gcc", "b.s", 1, 1, measured=20.0, osaca=12.0, iaca=None)
    assert err(12.0, 20.0) == pytest.approx(-40.0)
    s = summarise([a, b], lambda lp: lp.osaca)
    assert s.n == 2 and s.mape == pytest.approx(20.0) and s.within10 == pytest.approx(50.0)
    assert s.worst == ("B CSX gcc (-40 %)",)
    assert summarise([a, b], lambda lp: lp.iaca) is None


def test_loader_takes_max_of_tp_and_lcd():
    loops = {lp.file: lp for lp in load_loops(DATA)}
    assert loops["gs.s.tx2.clang.s"].osaca == pytest.approx(18.0)        # LCD-bound
    assert loops["copy.s.csx.gcc.s"].osaca == pytest.approx(8.0)         # TP-bound
