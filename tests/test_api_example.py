"""docs/api-example.py runs and prints the hand-derived numbers.

Derivations: tests/support/ecm_golden_cases.py (CSX, copy and triad at N = 10^7)
and tests/test_ecm_saturated.py (ZEN2, copy at N = 10^7).
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from test_ecm_golden import needs_gcc12

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "api-example.py"

CSX_COPY_T_MEM = 1.0 + 3.0 + 8.0 + 192 / (36.54e9 * 1.5 / 2.5e9)       # 20.7575 cy/CL
# ZEN2 composes overlapping: T_L3MEM at the one-core copy bandwidth 17.89 GB/s (x 1.5
# write-allocate), no T_penalty (the one-core bandwidth contains it; models/memory_term.py)
ZEN2_COPY_T_MEM = 1.0 + 192 / (17.89e9 * 1.5 / 2.35e9)                   # 17.814 cy/CL
CSX_TRIAD_T_MEM = 2.0 + 4.0 + 12.0 + 256 / (55.02e9 / 2.5e9)            # 29.632 cy/CL


@pytest.fixture(scope="module")
def table() -> dict[tuple[str, str, str], list[str]]:
    # from another directory: the example must find the bundled files itself
    out = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                         check=True, cwd=ROOT / "tests").stdout
    lines = out.splitlines()
    assert lines[0].split() == ["kernel", "machine", "size", "T_OL", "T_nOL", "T_L1", "T_L2",
                                "T_L3", "T_MEM", "n_s", "MIt/s"]
    rows = {}
    for line in lines[1:]:
        cells = line.split()              # the size of 2d-5pt is two words: count from the end
        rows[(cells[0], cells[1], " ".join(cells[2:-8]))] = cells[-8:]
    return rows


def test_three_kernels_two_machines_three_sizes(table):
    assert len(table) == 3 * 2 * 3
    assert {k[0] for k in table} == {"copy.c", "triad.c", "2d-5pt.c"}
    assert {k[1] for k in table} == {"CSX", "ZEN2"}
    assert ("2d-5pt.c", "CSX", "M=1000 N=1000") in table


@needs_gcc12
def test_numbers_derived_by_hand(table):
    t_ol, t_nol, t_l1, t_l2, t_l3, t_mem, n_s, mits = table[("copy.c", "CSX", "N=10000000")]
    assert (t_ol, t_nol, t_l1, t_l2, t_l3) == ("2.00", "1.00", "2.00", "4.00", "12.00")
    assert t_mem == f"{CSX_COPY_T_MEM:.2f}" == "20.76" and n_s == "3"
    assert mits == f"{8 * 2.5e9 / CSX_COPY_T_MEM / 1e6:.1f}" == "963.5"
    zen2 = table[("copy.c", "ZEN2", "N=10000000")]
    assert zen2[5] == f"{ZEN2_COPY_T_MEM:.2f}" == "17.81" and zen2[6] == "2"
    assert zen2[7] == f"{8 * 2.35e9 / ZEN2_COPY_T_MEM / 1e6:.1f}"
    triad = table[("triad.c", "CSX", "N=10000000")]
    assert triad[5] == f"{CSX_TRIAD_T_MEM:.2f}" == "29.63" and triad[6] == "3"
    # N = 1000: two 8 kB arrays stay in L1 (32 kB): no transfers, T = max(T_OL, T_nOL)
    small = table[("copy.c", "CSX", "N=1000")]
    assert small[2:7] == ["2.00", "2.00", "2.00", "2.00", "-"]


def test_uses_only_the_public_api():
    import kerncraft

    tree = ast.parse(EXAMPLE.read_text())
    modules = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    modules |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert modules == {"__future__", "pathlib", "kerncraft"}
    used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id == "kerncraft"}
    assert used and used <= set(kerncraft.__all__)
