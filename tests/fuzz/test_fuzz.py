"""The short fuzz run (issue 15): seeded inputs through the CLI and the API must
end with exit code 0 or 2, no traceback, located errors, finite positive
predictions and in bounded time. The long run is documented in runner.py."""
from __future__ import annotations

import pytest

from fuzz.corpus import cases
from fuzz.runner import run, summary


def test_corpus_is_a_pure_function_of_the_seed():
    first, again = cases(15, 40), cases(15, 40)
    assert [(c.argv, c.kernel_text, c.machine_data) for c in first] == \
        [(c.argv, c.kernel_text, c.machine_data) for c in again]
    assert {c.mutated for c in first} == {"kernel", "machine", "cli"}
    assert [c.argv for c in cases(16, 5)] != [c.argv for c in first[:5]]


# Time bounds here catch hangs only: generous, so that a busy machine does not turn a slow
# input into a finding (the speed of the fuzz inputs is measured in benchmarks/, not here).
HANG_SECONDS = 300


@pytest.mark.slow
def test_short_run_of_300_inputs_has_no_findings():
    outcomes, _ = run(seed=15, count=300, seconds=HANG_SECONDS)
    findings = [(o.index, o.problems) for o in outcomes if o.problems]
    assert findings == [], summary(outcomes)
    assert {o.code for o in outcomes} == {0, 2}


@pytest.mark.slow
def test_a_few_compiling_inputs_have_no_findings():
    outcomes, chosen = run(seed=15, count=6, seconds=2 * HANG_SECONDS, compile_share=1.0)
    assert {case.argv[1] for case in chosen} <= {"ECM", "ECMCPU"}
    assert [(o.index, o.problems) for o in outcomes if o.problems] == [], summary(outcomes)


@pytest.mark.slow
def test_short_run_of_mutated_assembly_has_no_findings():
    """kerncraft-incore on 300 mutated assembly files (tests/fuzz/asm_fuzz.py): exit 0 or
    2, no traceback, finite non-negative --json numbers, within 10 s each."""
    from fuzz import asm_fuzz

    first = asm_fuzz.make_case(7, 3)
    assert asm_fuzz.make_case(7, 3) == first and asm_fuzz.make_case(8, 3) != first
    outcomes = asm_fuzz.run(seed=7, count=300, seconds=HANG_SECONDS)
    assert [(o.index, o.problems) for o in outcomes if o.problems] == [], \
        summary(outcomes, "assembly inputs")
    assert {o.code for o in outcomes} == {0, 2}   # some analyse, some are refused
