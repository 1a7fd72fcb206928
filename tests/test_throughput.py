"""Optimal port balancing: exact optimum (Hall bound == max flow) and fixed split."""
from __future__ import annotations

import itertools
import random

import pytest

from kerncraft.incore.model import Uop
from kerncraft.incore.throughput import balance_ports, fixed_split, hall_bound, sort_ports


def U(ports: str, cycles: float = 1.0) -> Uop:
    return Uop(frozenset(ports.split(",")), cycles)


def _check_assignment(uop_lists, balance):
    """Every instruction's cycles fully assigned, only to its own ports."""
    for uops, cells in zip(uop_lists, balance.per_instruction):
        allowed = {p for u in uops for p in u.ports}
        assert set(cells) <= allowed
        assert sum(cells.values()) == pytest.approx(sum(u.cycles for u in uops))
        assert all(v >= -1e-12 for v in cells.values())
    assert max(balance.port_totals.values(), default=0.0) == pytest.approx(balance.throughput)


@pytest.mark.parametrize("uops, expected", [
    # two uops pinned to port 0 dominate whatever the flexible one does
    ([[U("0,1")], [U("0")], [U("0")]], 2.0),
    # 3 cycles over 2 ports, one pinned: 1.5 on both
    ([[U("0,1")], [U("0,1")], [U("0")]], 1.5),
    # {0,1,5} x3 + {0} x3: port 0 carries the three pinned uops -> 3.0
    ([[U("0,1,5")]] * 3 + [[U("0")]] * 3, 3.0),
    # {0,1,5} x3 + {0,1} x3: 6 cycles over three ports -> 2.0
    ([[U("0,1,5")]] * 3 + [[U("0,1")]] * 3, 2.0),
    # a subset bound that is not the busiest single port: {0},{0},{0,1},{0,1},{1,5}
    ([[U("0")], [U("0")], [U("0,1")], [U("0,1")], [U("1,5")]], 2.0),
    ([], 0.0),
])
def test_optimum_known_cases(uops, expected):
    b = balance_ports(uops)
    assert b.throughput == pytest.approx(expected)
    _check_assignment(uops, b)


def test_fixed_split_is_equal_share():
    uops = [[U("0,1")], [U("0")], [U("0")]]
    b = fixed_split(uops, ["0", "1"])
    assert b.per_instruction[0] == {"0": 0.5, "1": 0.5}
    assert b.port_totals == {"0": 2.5, "1": 0.5}
    assert b.throughput == 2.5 and b.method == "fixed"
    assert b.bottleneck_ports == ("0",)


def test_divider_pipe_is_an_extra_port():
    # vdivpd-like: 1 cycle on port 0 plus 4 cycles on the non-pipelined divider
    div = [U("0"), U("0DV", 4.0)]
    b = balance_ports([div, div, [U("0,1")]], ["0", "0DV", "1"])
    assert b.throughput == 8.0
    assert b.bottleneck_ports == ("0DV",)
    assert b.port_totals["0"] == pytest.approx(2.0)  # divider does not block port 0


def test_balanced_lower_levels_are_lexicographically_minimal():
    # loads on 2,3 are the bottleneck (1.5); the ALU work spreads evenly on 0,1,5,6
    uops = [[U("2,3")], [U("0,1"), U("2,3")], [U("4"), U("2,3")], [U("0,1,5,6")],
            [U("0,1,5,6")], [U("0,6")]]
    b = balance_ports(uops, ["0", "1", "2", "3", "4", "5", "6", "7"])
    assert b.throughput == pytest.approx(1.5)
    assert b.bottleneck_ports == ("2", "3")
    for p in "0156":
        assert b.port_totals[p] == pytest.approx(1.0)
    assert b.port_totals["7"] == 0.0
    assert b.ports == ("0", "1", "2", "3", "4", "5", "6", "7")


def test_hall_bound_names_the_tight_set():
    t, s = hall_bound([U("0"), U("0,1"), U("0,1"), U("5")])
    assert t == 1.5 and s == frozenset({"0", "1"})
    assert hall_bound([]) == (0.0, frozenset())


def _brute_force(uop_lists, ports):
    """Max over *all* port subsets of W(S)/|S| (the unrestricted Hall bound)."""
    flat = [u for uops in uop_lists for u in uops]
    best = 0.0
    for r in range(1, len(ports) + 1):
        for subset in itertools.combinations(ports, r):
            s = set(subset)
            best = max(best, sum(u.cycles for u in flat if u.ports <= s) / len(s))
    return best


def test_random_instances_agree_with_all_subsets_bound():
    rng = random.Random(7)
    ports = ["0", "1", "2", "3", "4", "5"]
    for _ in range(60):
        uop_lists = []
        for _ in range(rng.randint(1, 12)):
            k = rng.randint(1, 4)
            uop_lists.append([Uop(frozenset(rng.sample(ports, k)),
                                  rng.choice([0.5, 1.0, 1.0, 2.0, 3.0]))])
        b = balance_ports(uop_lists, ports)
        assert b.throughput == pytest.approx(_brute_force(uop_lists, ports))
        _check_assignment(uop_lists, b)


def test_portless_and_zero_cycle_uops_are_ignored():
    b = balance_ports([[Uop(frozenset(), 1.0)], [U("0", 0.0)], [U("1")]])
    assert b.throughput == 1.0
    assert b.per_instruction[0] == {}


def test_one_third_cycles_stay_exact():
    b = balance_ports([[U("0,1,5", 1.0)], [U("0,1,5", 0.333333)]])
    assert b.throughput == pytest.approx(4 / 9)


def test_sort_ports_natural_order():
    assert sort_ports(["10", "2D", "0DV", "1", "0", "2", "x"]) == ["0", "0DV", "1", "2", "2D",
                                                                    "10", "x"]


def test_large_loop_many_ports():
    sets = ["0,1", "0,1,5", "0,1,5,6", "2,3", "2,3,7", "4,9", "0", "5", "0,6", "8,9", "10,11"]
    uop_lists = [[U(sets[k % len(sets)]), U(sets[(3 * k) % len(sets)])] for k in range(200)]
    b = balance_ports(uop_lists, [str(p) for p in range(12)] + ["0DV"])
    assert b.throughput == pytest.approx(_brute_force(uop_lists, b.ports))
    _check_assignment(uop_lists, b)


def test_port_split_does_not_depend_on_the_hash_seed():
    # recurrence2 on SKX has several equally optimal splits (ports 0/1 of the FP ops
    # and the ALU ops); the table must not pick another one from run to run
    import os
    import subprocess
    import sys
    from pathlib import Path

    asm = Path(__file__).parent / "data" / "asm_memdeps" / "recurrence2_gcc12_O1.s"
    script = ("import sys, pathlib; from kerncraft.incore.analysis import analyze_text; "
              "print(analyze_text(pathlib.Path(sys.argv[1]).read_text(), 'SKX').port_pressure)")
    outputs = set()
    for seed in ("0", "1", "2", "5"):
        env = dict(os.environ, PYTHONHASHSEED=seed, KERNCRAFT_NO_CACHE="1")
        done = subprocess.run([sys.executable, "-c", script, str(asm)], env=env,
                              capture_output=True, text=True, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1
