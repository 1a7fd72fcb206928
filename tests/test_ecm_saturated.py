"""The ECM composition as published: saturated memory bandwidth, overlapping hierarchies.

Seed 004 (Kerncraft paper, Sect. 2.3 and 5): "the only measured input is the saturated
maximum bandwidth of the memory interface"; the single-core model uses the saturated
bandwidth of one ccNUMA domain for T_L3MEM. The Roofline model instead keeps the
bandwidth measured on the requested number of cores (tests/test_ecm_golden.py checks
the Roofline side with the single-core figures).

Every number below is derived by hand from the machine files (values transcribed in
the comments) and, for the in-core part, from the loop gcc 12 emits.
"""
from __future__ import annotations

import math
from argparse import Namespace
from pathlib import Path

import pytest

import kerncraft
from kerncraft.machine.bandwidth import saturated_bandwidth, select_bandwidth
from kerncraft.runner.run import model_report

from test_ecm_golden import needs_gcc12

REPO = Path(__file__).resolve().parent.parent
KERNELS = REPO / "kernels"


def approx(x):
    return pytest.approx(x, rel=1e-9, abs=1e-12)


def args(**kw) -> Namespace:
    base = dict(cache_predictor="LC", cores=1, unit=None, verbose=0, incore_model="kerncraft")
    base.update(kw)
    return Namespace(**base)


@pytest.fixture(scope="module")
def csx():
    return kerncraft.load_machine("CSX")


@pytest.fixture(scope="module")
def zen2():
    return kerncraft.load_machine("ZEN2")


def copy_kernel(n: int = 10**7):
    return kerncraft.parse_kernel((KERNELS / "copy.c").read_text(),
                                  filename="copy.c").bind({"N": n})


# --------------------------------------------------------------------- bandwidth choice
# CSX.yml, MEM, copy on 1..10 cores (one SNC domain of 10 cores), GB/s:
#   14.56 26.79 30.55 32.70 34.45 35.60 36.31 36.51 36.54 36.46 -> highest 36.54 on 9;
# on 20 cores (both domains): 73.04.
def test_saturated_bandwidth_is_the_highest_of_one_numa_domain(csx):
    one = saturated_bandwidth(csx, "MEM", 1, 1, 0)
    assert (one.kernel, one.cores, one.bandwidth) == ("copy", 9, approx(36.54e9))
    assert "saturated" in one.explanation
    two = saturated_bandwidth(csx, "MEM", 1, 1, 0, numa_domains=2)
    assert (two.cores, two.bandwidth) == (20, approx(73.04e9))
    # the Roofline choice for one core stays the single-core measurement
    assert select_bandwidth(csx, "MEM", 1, 1, 0, cores=1).bandwidth == approx(14.56e9)


# ZEN2.yml: NUMA domain of 8 cores; MEM copy on 1..8 cores 17.89, 23.10, 23.04, 22.52,
# 22.48, 22.33, 22.01, ... -> highest 23.10 GB/s on 2 cores.
def test_saturated_bandwidth_zen2_peaks_early(zen2):
    choice = saturated_bandwidth(zen2, "MEM", 1, 1, 0)
    assert (choice.kernel, choice.cores, choice.bandwidth) == ("copy", 2, approx(23.10e9))


def test_saturated_bandwidth_rejects_bad_domain_count(csx):
    with pytest.raises(ValueError):
        saturated_bandwidth(csx, "MEM", 1, 1, 0, numa_domains=0)


# ------------------------------------------------ layer conditions through a non-WA L3
# ZEN2.yml: L2 loads from L3 and sends every victim there (victims_to: L3); L3 does not
# write-allocate. copy a[i] = b[i] with N = 10^7 (160 MB, no reuse anywhere), per CL:
#   L1-L2: b + write-allocate of a = 2 loads, a written back = 1 store.
#   L2-L3: L2 fetches both lines through L3 (2 loads); each fill replaces one line and
#          every replaced line, clean (b) or dirty (a), goes to L3: 2 stores.
#   L3-MEM: the two lines L3 does not hold come from memory (2 loads: L3's own
#          write_allocate flag is about stores arriving at L3, but L2's write-allocate
#          fill is a load for L3); the dirty a leaves L3: 1 store. 192 B per CL.
# The cache simulation counts the same ((2, 1), (2, 2), (2, 1)).
def test_lc_zen2_copy_traffic_matches_the_hierarchy(zen2):
    data = model_report("ECMData", copy_kernel(), zen2, args()).data
    flows = [(link["loads_cl"], link["stores_cl"]) for link in data["links"]]
    assert flows == [(2.0, 1.0), (2.0, 2.0), (2.0, 1.0)]


# ------------------------------------------------------------- overlapping hierarchy
# ZEN2 (machine-files/ZEN2.yml, clock 2.35 GHz): transfers overlap on L1, L2 and L3 (true),
# not on MEM. copy, N = 10^7, gcc 12 -O3 -march=znver2:
#   loop: vmovupd load (ymm), vmovupd store (ymm), addq, cmpq, jne; 4 It per assembly
#   iteration, 2 assembly iterations per CL.
#   Port model (kerncraft/incore/databases/ZEN2.yml): load = AGU0/AGU1 + LD0/LD1 ->
#   LD0, LD1 0.5 each; store = AGU0/1/2 + STD -> STD 1.0; ALU: add, cmp, jne = 0.75.
#   T_nOL = 0.5 * 2 = 1.0 cy/CL; T_OL = STD 1.0 * 2 = 2.0 (also the LCD, addq 1 cy * 2).
#   Links: L1-L2 32 B/cy full duplex: max(2, 1) * 64 / 32 = 4.0;
#          L2-L3 24 B/cy half duplex: (2 + 2) * 64 / 24 = 10.667;
#          L3-MEM: 3 CL = 192 B at the saturated copy bandwidth 23.10 GB/s * 1.5
#          (write-allocate of the copy benchmark) = 34.65 GB/s / 2.35 GHz = 14.745 B/cy
#          -> 13.022 cy.
#   T_penalty (Kerncraft's, ZEN2.yml MEM: 0.585 cy per cache line loaded, 2.57 per line
#   stored): copy loads 2 lines (b, and a's write-allocate) and stores 1 per CL:
#   2 * 0.585 + 2.57 = 3.74 cy/CL, in the memory prediction only.
#   Composition (overlapping links join T_OL, the others add to T_nOL), as published
#   (the file says 'ECM memory bandwidth: saturated'):
#     T_L1 = max(2, 1) = 2; T_L2 = max(2, 4, 1) = 4; T_L3 = max(2, 10.667, 1) = 10.667;
#     T_MEM = max(2, 10.667, 1 + 13.022 + 3.74) = 17.762 cy/CL.
#   n_s = ceil(17.762 / 13.022 = 1.364) = 2; scaling: 1 core 17.762 (core bound),
#   2 cores max(8.881, 13.022) = 13.022 (memory bound), 8 cores 13.022.
#   By default the overlapping composition takes the single-core memory term
#   (kerncraft/models/memory_term.py): the one-core copy bandwidth 17.89 GB/s * 1.5 =
#   26.835 GB/s / 2.35 GHz = 11.419 B/cy -> T_L3MEM = 192 / 11.419 = 16.814 cy, no
#   T_penalty (the one-core bandwidth contains it): T_MEM = max(2, 10.667, 1 + 16.814)
#   = 17.814 cy/CL (0.3 % from the published composition: the file's penalties were
#   fitted from the same one-core bandwidths); n_s = ceil(17.814 / 13.022) = 2 with the
#   saturated T_L3MEM, and the scaling as above from 2 cores on.
ZEN2_FILE = Path(__file__).resolve().parents[1] / "machine-files" / "ZEN2.yml"
ZEN2_CLOCK = 2.35e9
ZEN2_T_MEM_LINK = 192 / (23.10e9 * 1.5 / ZEN2_CLOCK)
ZEN2_ONE_CORE_LINK = 192 / (17.89e9 * 1.5 / ZEN2_CLOCK)
ZEN2_COPY_PENALTY = 2 * 0.585 + 2.57


def _zen2_with_memory_term(tmp_path: Path, basis: str):
    source = ZEN2_FILE.read_text()
    marked = source.replace("  - level: MEM\n",
                            f"  - level: MEM\n    ECM memory bandwidth: {basis}\n", 1)
    assert marked != source
    path = tmp_path / "zen2.yml"
    path.write_text(marked)
    return kerncraft.load_machine(path)


@needs_gcc12
def test_ecm_zen2_copy_published_composition(tmp_path):
    zen2 = _zen2_with_memory_term(tmp_path, "saturated")
    data = model_report("ECM", copy_kernel(), zen2, args()).data
    assert (data["T_OL"], data["T_nOL"]) == (approx(2.0), approx(1.0))
    assert data["contributions"] == {"T_L1L2": approx(4.0), "T_L2L3": approx(256 / 24),
                                     "T_L3MEM": approx(ZEN2_T_MEM_LINK)}
    assert data["overlapping"] == ["T_L1L2", "T_L2L3"]
    assert data["T_penalty"] == approx(ZEN2_COPY_PENALTY)
    assert data["memory_term"] == {"basis": "saturated", "reason": "machine file",
                                   "penalty_left_out": 0.0, "measured_cores": None}
    predictions = list(data["predictions"].values())
    t_mem = 1.0 + ZEN2_T_MEM_LINK + ZEN2_COPY_PENALTY
    assert predictions == [approx(2.0), approx(4.0), approx(256 / 24), approx(t_mem)]
    assert data["saturation_cores"] == math.ceil(t_mem / ZEN2_T_MEM_LINK) == 2
    rows = {row["cores"]: row for row in data["scaling"]}
    assert rows[1]["cycles_per_cl"] == approx(t_mem)
    assert rows[1]["memory_bound"] is False
    for n in (2, 8):
        assert rows[n]["cycles_per_cl"] == approx(ZEN2_T_MEM_LINK)
        assert rows[n]["memory_bound"] is True


@needs_gcc12
def test_ecm_zen2_copy_single_core_memory_term(zen2):
    result = model_report("ECM", copy_kernel(), zen2, args())
    data = result.data
    assert data["contributions"]["T_L3MEM"] == approx(ZEN2_ONE_CORE_LINK)
    assert ZEN2_ONE_CORE_LINK == pytest.approx(16.814, abs=1e-3)
    assert data["T_penalty"] == 0.0
    assert data["memory_term"] == {"basis": "single-core", "reason": "overlapping composition",
                                   "penalty_left_out": approx(ZEN2_COPY_PENALTY),
                                   "measured_cores": None}
    t_mem = 1.0 + ZEN2_ONE_CORE_LINK
    assert list(data["predictions"].values())[-1] == approx(t_mem)
    assert t_mem == pytest.approx(17.814, abs=1e-3)
    assert data["saturated_T_L3MEM"] == approx(ZEN2_T_MEM_LINK)
    assert data["saturation_cores"] == math.ceil(t_mem / ZEN2_T_MEM_LINK) == 2
    rows = {row["cores"]: row for row in data["scaling"]}
    assert rows[1]["cycles_per_cl"] == approx(t_mem)
    assert rows[2]["cycles_per_cl"] == approx(ZEN2_T_MEM_LINK)
    assert ("T_L3MEM at the single-core bandwidth of benchmark 'copy': 17.9 GB/s measured on "
            "1 core(s) (overlapping composition: the memory term stands alone" in result.text)
    assert "T_penalty 3.74 cy/CL of the machine file not added" in result.text


def test_memory_term_follows_the_composition_unless_the_file_says(tmp_path):
    from kerncraft.models.memory_term import memory_term

    assert memory_term(kerncraft.load_machine("CSX")).basis == "saturated"
    assert memory_term(kerncraft.load_machine("ZEN2")).basis == "single-core"
    assert memory_term(_zen2_with_memory_term(tmp_path, "saturated")).basis == "saturated"


def test_memory_term_key_is_checked(tmp_path):
    source = ZEN2_FILE.read_text()
    bad = tmp_path / "bad.yml"
    bad.write_text(source.replace("  - level: MEM\n",
                                  "  - level: MEM\n    ECM memory bandwidth: peak\n", 1))
    with pytest.raises(kerncraft.KerncraftError, match="'saturated' or 'single-core', not 'peak'"):
        kerncraft.load_machine(bad)
    misplaced = tmp_path / "misplaced.yml"
    misplaced.write_text(source.replace("  - level: L1\n",
                                        "  - level: L1\n    ECM memory bandwidth: saturated\n", 1))
    with pytest.raises(kerncraft.KerncraftError, match="belongs to the memory level"):
        kerncraft.load_machine(misplaced)


@needs_gcc12
def test_ecm_report_names_the_saturated_measurement(csx):
    text = model_report("ECM", copy_kernel(), csx, args()).text
    assert "T_L3MEM at the saturated bandwidth of benchmark 'copy': 36.5 GB/s measured on " \
           "9 core(s)" in text


@needs_gcc12
def test_ecm_report_says_when_the_bandwidths_used_only_some_cores(tmp_path):
    # a file kerncraft-machine wrote pinned to one CPU: its "saturated" bandwidth is one
    # core's, and every ECM report that uses it must say so
    csx = Path(__file__).resolve().parents[1] / "machine-files" / "CSX.yml"
    path = tmp_path / "csx-pinned.yml"
    path.write_text(csx.read_text() + "\nmeasured cores: 1 of 20\n")
    result = model_report("ECM", copy_kernel(), kerncraft.load_machine(path), args())
    assert result.data["memory_term"]["measured_cores"] == "1 of 20"
    assert ("note: the machine file's bandwidths were measured on only 1 of 20 cores "
            "('measured cores')" in result.text)
    plain = model_report("ECM", copy_kernel(), kerncraft.load_machine("CSX"), args())
    assert "measured cores" not in plain.text
