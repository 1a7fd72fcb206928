"""The SIM predictor's fast path: row templates and set sampling.

Row templates must give exactly the accesses of computing every row
(:mod:`kerncraft.cache.line_chunks`); set sampling must simulate the sets of a
class exactly, estimate the traffic of uniform kernels exactly, and fall back
to all sets where the lines are not spread evenly over the classes
(:mod:`kerncraft.cache.sim_sampling`).
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import kerncraft
from kerncraft.cache.addresses import UnitGenerator
from kerncraft.cache.cache_sim import CacheSimulator
from kerncraft.cache.line_chunks import Coverage, LineClass, RowTemplates, line_chunks
from kerncraft.cache.sim_levels import LevelSpec, level_specs_from_machine
from kerncraft.cache.sim_predictor import simulate_traffic
from kerncraft.cache.sim_sampling import line_classes, precise_enough, sampling_modulus

KERNELS = Path(__file__).resolve().parent.parent / "kernels"


def _file_kernel(name: str, **values):
    path = KERNELS / name
    return kerncraft.parse_kernel(path.read_text(), str(path)).bind(values)


def _kernel(source: str, **values):
    return kerncraft.parse_kernel(source, "t.c").bind(values)


@pytest.fixture(scope="module")
def csx():
    return kerncraft.load_machine("CSX")


# --- row templates ------------------------------------------------------------------------

@pytest.mark.parametrize("name, binds", [
    ("2d-5pt.c", {"N": 1000, "M": 40}),         # every row one line-multiple apart
    ("2d-5pt.c", {"N": 37, "M": 50}),           # rows at 8 offsets within a line
    ("3d-27pt.c", {"L": 9, "M": 23, "N": 45}),  # plane changes move streams differently
    ("matvec.c", {"M": 23, "N": 37}),           # x[j] stays, y[i] moves by an element
    ("himeno.c", {"L": 9, "M": 11, "N": 37}),
    ("copy.c", {"N": 100000}),                  # one long row: moved segment by segment
])
def test_templates_equal_rows_computed_afresh(name, binds):
    """Moving an earlier row (or segment) gives the same accesses, also per class of
    lines, and the same counts of accesses before and after sampling."""
    gen = UnitGenerator(_file_kernel(name, **binds), 64, 8)
    shared = RowTemplates(64, 8)                     # shared by all passes, as in SIM
    for lines in (None, *line_classes(64)[:2], LineClass(16, frozenset({5, 10}))):
        for max_units in (3, 128):
            plain, fast = Coverage(), Coverage()
            a = line_chunks(gen, max_units, lines, templates=False, coverage=plain)
            b = line_chunks(gen, max_units, lines, templates=shared, coverage=fast)
            for _ in range(150):
                assert next(a) == next(b)
            assert (plain.total, plain.kept) == (fast.total, fast.kept)


# --- classes of lines and sets --------------------------------------------------------------

def test_line_classes_are_latin_squares_in_complementary_pairs():
    classes = line_classes(64)
    # residue r = 8q + p is in class (p - q) % 8; class 0 = {0, 9, 18, ..., 63} and its
    # complement class 7 = {7, 8, 17, 26, 35, 44, 53, 62} come first
    assert classes[0].residues == {0, 9, 18, 27, 36, 45, 54, 63}
    assert classes[1].residues == {7, 8, 17, 26, 35, 44, 53, 62}
    assert sorted(r for c in classes for r in c.residues) == list(range(64))
    for c in classes:
        assert {r % 8 for r in c.residues} == set(range(8))     # one of each p
        assert {r // 8 for r in c.residues} == set(range(8))    # one of each q
    # class numbers in order: pairs (c, 7 - c), pairs in bit-reversed order 0, 2, 1, 3
    assert [min(c.residues) for c in line_classes(8)] == [0, 7, 2, 5, 1, 6, 3, 4]
    # writes are negated lines: -9 % 64 = 55 is kept for the line 9
    assert 55 in classes[0].keeps(read=False)


def test_a_class_of_lines_meets_exactly_its_sets():
    """Sets never interact: with 8 | every level's set count, a simulation fed only the
    lines of a class reproduces those sets of the full simulation (contents in LRU
    order), and the counters of all classes add up to the full simulation's."""
    specs = [LevelSpec("L1", 8, 2, 64, load_from="L2", store_to="L2"),
             LevelSpec("L2", 16, 3, 64, store_to="L3", victims_to="L3"),
             LevelSpec("L3", 32, 4, 64, write_allocate=False)]
    rnd = random.Random(7)
    seq = [rnd.randrange(1, 600) * (1 if rnd.random() < 0.7 else -1) for _ in range(20000)]
    full = CacheSimulator(specs)
    full.feed(seq)
    classes = line_classes(8)
    parts = []
    for lines in classes:
        part = CacheSimulator(specs)
        part.feed([x for x in seq if x % 8 in lines.keeps(x > 0)])
        for k, spec in enumerate(specs):
            mine = [s for s in range(spec.sets) if s % 8 in lines.residues]
            assert [list(part.levels[k].sets[s].items()) for s in mine] == \
                [list(full.levels[k].sets[s].items()) for s in mine]
        parts.append(part.stats())
    for name in ("L1", "L2", "L3", "MEM"):
        summed = parts[0][name]
        for stats in parts[1:]:
            summed = summed + stats[name]
        assert summed == full.stats()[name]


def test_precise_enough_standard_error():
    assert not precise_enough([[1.0]], 8)                    # one class says nothing
    assert precise_enough([[1.0], [1.0]], 8)                 # two agree exactly
    assert precise_enough([[1.0], [1.5]] * 4, 8)             # all 8 classes: exact
    # two of 8 classes, 1.0 and 1.004: sd 0.002828, finite-population factor
    # sqrt(6/7/2) = 0.6547, standard error 0.001852 <= 0.2 % of 1.002 (0.002004) ...
    assert precise_enough([[1.0], [1.004]], 8)
    # ... 1.0 and 1.005: 0.003536 * 0.6547 = 0.002315 > 0.002010
    assert not precise_enough([[1.0], [1.005]], 8)
    # a quantity near 0 is judged against 0.01 lines per unit: 0.002 * 0.01 = 2e-5
    assert not precise_enough([[0.0010], [0.0011]], 8)


def test_sampling_is_used_for_long_simulations_of_dense_streams(csx):
    big = _file_kernel("2d-5pt.c", N=1000, M=3000)             # 48 MB of data
    gen = UnitGenerator(big, 64, 8)
    # 64 | 64, 1024, 14336 (1 core) and 7168 (2 cores); 1433 sets (10 cores) are odd
    assert sampling_modulus(level_specs_from_machine(csx, 1), gen) == 64
    assert sampling_modulus(level_specs_from_machine(csx, 2), gen) == 64
    assert sampling_modulus(level_specs_from_machine(csx, 10), gen) == 1
    specs = level_specs_from_machine(csx, 1)
    small = UnitGenerator(_file_kernel("2d-5pt.c", N=100, M=100), 64, 8)   # 2500 lines
    assert sampling_modulus(specs, small) == 1
    invariant = UnitGenerator(_file_kernel("matvec.c", N=3000, M=3000), 64, 8)  # y[i]
    assert sampling_modulus(specs, invariant) == 1
    column = UnitGenerator(_kernel("double a[N][N]; double s;\nfor (int j=0; j<N; ++j) "
                                   "for (int i=0; i<N; ++i) s += a[i][j];\n", N=3000), 64, 8)
    assert sampling_modulus(specs, column) == 1                 # strided: skips lines


def test_sampled_2d_stencil_beyond_all_caches(csx):
    """2d-5pt, 1000 x 3000 doubles (2 x 24 MB) on CSX: every row brings one new row of
    ``a`` and ``b`` (125 lines each) from memory and writes ``b`` back, per 998
    iterations = 124.75 units: 2 * 125 / 124.75 lines loaded and 125 / 124.75 stored
    per unit. Rows are uniform over the classes, so two classes agree and suffice."""
    res = simulate_traffic(_file_kernel("2d-5pt.c", N=1000, M=3000),
                           level_specs_from_machine(csx, 1))
    assert "0.25 of the sets simulated (set sampling)" in res.notes[0]
    assert dict(res.level("L2").load_sources)["MEM"] == pytest.approx(2 * 125 / 124.75,
                                                                      rel=2e-3)
    assert res.level("L3").stores == pytest.approx(125 / 124.75, rel=2e-3)
    assert res.level("L1").loads == pytest.approx(2 * 125 / 124.75, rel=2e-3)


def test_lines_not_spread_over_classes_fall_back_to_all_sets(csx):
    """Rows of 8 doubles in 1024-double arrays: each row touches one line of ``a`` and one
    of ``b``, 128 lines (a multiple of 64) after the previous row's, so all lines of an
    array are in one class (``a`` starts at residue 0, ``b`` 7 lines later: class 0
    keeps all of ``a`` and nothing of ``b``: half of all accesses, four times its share of
    1/8). The
    simulation then runs all sets; per unit (one row) it loads the lines of ``b`` and,
    for the store, of ``a``, and writes ``a`` back: 2 loads and 1 store at L1."""
    kernel = _kernel("double a[M][N], b[M][N];\nfor (int j=0; j<M; ++j) "
                     "for (int i=0; i<8; ++i) a[j][i] = b[j][i];\n", N=1024, M=2048)
    specs = level_specs_from_machine(csx, 1)
    assert sampling_modulus(specs, UnitGenerator(kernel, 64, 8)) == 64
    auto = simulate_traffic(kernel, specs)
    assert "set sampling" not in auto.notes[0]
    assert auto == simulate_traffic(kernel, specs, sample=1)
    assert (auto.level("L1").loads, auto.level("L1").stores) == pytest.approx((2, 1))
