"""Layer-condition predictor, continued: the notes on what a step function misses
(which condition holds, near-threshold, partial lines, associativity, ordering) and
the ``-p LC`` report, on Cascade Lake (CSX). Conventions: tests/test_layer_conditions.py."""
from __future__ import annotations

import pytest

import kerncraft
from kerncraft.cache.layer_conditions import lc_analysis
from kerncraft.errors import DefineError
from support.lc_helpers import bundled, src, traffic


@pytest.fixture(scope="module")
def csx():
    return kerncraft.load_machine("CSX")


# --- notes: which condition holds, and what a step function misses --------------------------
def test_notes_say_which_condition_holds(csx):
    r = traffic(bundled("2d-5pt"), csx, N=2000, M=2000)
    text = "\n".join(r.notes)
    assert "L1: layer condition 1 of 3 holds" in text
    assert "L2: layer condition 2 of 3 holds" in text
    assert "missed: a[j+1][i], a[j][i+1], a[j-1][i], b[j][i]" in text


def test_near_threshold_note(csx):
    # 3 rows at N=520: 16560 B vs 16384 B usable -> within 20 %.
    r = traffic(bundled("2d-5pt"), csx, N=520, M=10 ** 5)
    assert any(n.startswith("L1: near threshold - condition 2 needs") for n in r.notes)
    # ... and N=700 is beyond the fill share but inside the full 32 kB L1.
    r = traffic(bundled("2d-5pt"), csx, N=700, M=10 ** 5)
    assert any("an ideal LRU cache" in n for n in r.notes)


def test_partial_cache_line_note_for_short_rows(csx):
    # rows of 20 doubles (160 B = 2.5 lines) in arrays with 1000-element rows
    kern = src("double a[M][1000], b[M][1000];\n"
               "for (int j=1; j<M-1; ++j) for (int i=1; i<N+1; ++i)\n"
               "  b[j][i] = a[j-1][i] + a[j+1][i];\n")
    r = traffic(kern, csx, N=20, M=10 ** 5)
    note = next(n for n in r.notes if n.startswith("partial cache lines"))
    assert "160 B (2.50 lines)" in note and "touches 4 lines" in note and "+60%" in note
    # long contiguous rows: no note
    r = traffic(bundled("2d-5pt"), csx, N=2000, M=2000)
    assert not any(n.startswith(("partial cache lines", "loop bounds")) for n in r.notes)
    # short contiguous rows: i = 1..38 of 40 elements -> 320 / 304 B = +5.3 % lines
    r = traffic(bundled("2d-5pt"), csx, N=40, M=20000)
    assert any(n.startswith("loop bounds") and "+5.3%" in n for n in r.notes)


def test_associativity_note_for_power_of_two_rows(csx):
    # A block of 64 columns of arrays with a 4 KiB row pitch (P=512 doubles): the
    # 9-row layer (~5 kB) fits L1, but the 9 rows all map to one L1 set (64 sets x 64 B).
    rows = " + ".join(f"a[j{d:+d}][i]" if d else "a[j][i]" for d in range(-4, 5))
    kern = src(f"double a[M][P], b[M][P];\n"
               f"for (int j=4; j<M-4; ++j) for (int i=0; i<64; ++i) b[j][i] = {rows};\n")
    r = traffic(kern, csx, P=512, M=10 ** 4)
    assert r.level("L1").loads == 2
    assert any(n.startswith("L1: associativity - 9 references map to one set") for n in r.notes)
    r = traffic(kern, csx, P=520, M=10 ** 4)
    assert not any("L1: associativity" in n for n in r.notes)


def test_himeno_at_400_flags_l1_conflicts(csx):
    r = traffic(bundled("himeno"), csx, N=400, M=400, L=400)
    assert any(n.startswith("L1: associativity") and "page aligned" in n for n in r.notes)


def test_short_loops_ordering_note(csx):
    # N=4: the "row" window (N-3 = 1 iteration) is shorter than the in-row one (2).
    r = traffic(bundled("2d-5pt"), csx, N=4, M=10 ** 6)
    assert any(n.startswith("short loops") for n in r.notes)
    assert not any(n.startswith("short loops")
                   for n in traffic(bundled("2d-5pt"), csx, N=100, M=10 ** 5).notes)


def test_evaluation_errors_are_define_errors(csx):
    an = lc_analysis(bundled("matvec"), csx)
    with pytest.raises(DefineError, match="cannot be evaluated"):
        an.evaluate({"N": 0, "M": 10})


# --- the -p LC model report ----------------------------------------------------------------
def test_lc_model_report_and_json(csx):
    import argparse
    import json

    from kerncraft.models.lc import analysis_for
    from kerncraft.runner.run import model_report

    kern = bundled("2d-5pt")
    args = argparse.Namespace(cores=1)
    report = model_report("LC", kern.bind({"N": 2000, "M": 2000}), csx, args)
    assert report.model == "LC"
    text = report.text
    assert "condition: 32*N - 80 <= 16384" in text
    assert "-> condition 1 holds in L1: kept a[j][i-1]; missed a[j+1][i]" in text
    assert "-> condition 2 holds in L2" in text
    assert "L2" in text and "MEM 2.00" in text
    data = json.loads(json.dumps(report.data))
    l1 = data["levels"][0]
    assert l1["level"] == "L1" and l1["holds"] == 1 and l1["usable_bytes"] == 16384
    assert l1["conditions"][2]["inequality"] == "32*N - 80 <= 16384"
    assert l1["conditions"][2]["fits"] is False and l1["conditions"][1]["miss_lines"] == 4
    assert data["traffic"]["levels"][1]["loads"] == 2
    # the symbolic analysis is shared by all points of a sweep
    a1 = analysis_for(kern.bind({"N": 10, "M": 10}), csx, 1)
    a2 = analysis_for(kern.bind({"N": 20, "M": 30}), csx, 1)
    assert a1 is a2 and a1.constant_names == ("M", "N")
